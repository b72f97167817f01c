//! Periodic sampling of the time series and the end of the warm-up.

use crate::engine::Event;
use crate::host::AnySource;
use crate::metrics::*;
use crate::sim::*;
use crate::time::*;
use crate::wire::CELL_PAYLOAD;

impl Simulation {
    pub(crate) fn sample(&mut self) {
        self.samples_taken += 1;
        let t = self.now;
        let ts = ps_to_secs(t);
        let interval_s = ps_to_secs(self.sample_ps);
        for (i, p) in self.ports.iter_mut().enumerate() {
            let cells = p.stats.tx_total - p.stats.sample_tx;
            p.stats.sample_tx = p.stats.tx_total;
            self.series.port_time_s.push(ts);
            self.series.port_index.push(i as u32);
            self.series.port_queue_cells.push(p.queue.len);
            self.series
                .port_utilization
                .push(cells as f64 * CELL_BITS as f64 / p.rate_bps as f64 / interval_s);
        }
        for ep in &self.endpoints {
            if let AnySource::Abr(a) = &ep.app {
                self.series.acr_time_s.push(ts);
                self.series.acr_flow.push(ep.flow);
                self.series.acr_mbps.push(a.acr);
            }
        }
        for ep in &self.endpoints {
            if let Some(t) = tcp_sender(&ep.app) {
                self.series.tcp_time_s.push(ts);
                self.series.tcp_flow.push(ep.flow);
                self.series.tcp_cwnd_bytes.push(t.cwnd);
            }
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            let cells = f.stats.rx_total - f.stats.sample_rx;
            f.stats.sample_rx = f.stats.rx_total;
            self.series.conn_time_s.push(ts);
            self.series.conn_index.push(i as u32);
            self.series
                .conn_throughput_mbps
                .push(cells as f64 * (CELL_PAYLOAD * 8) as f64 / interval_s / 1e6);
        }
        let next = (self.samples_taken + 1) * self.sample_ps;
        if next < self.end {
            self.queue.push(next, Event::Sample);
        }
    }

    pub(crate) fn warmup_end(&mut self) {
        let now = self.now;
        for p in &mut self.ports {
            let s = &mut p.stats;
            s.max_queue = p.queue.len;
            s.area = 0;
            s.last_change = now;
            s.tx_cells = 0;
            s.drops = [0; DropReason::COUNT];
        }
        for e in &mut self.endpoints {
            if let AnySource::Abr(a) = &e.app {
                e.acr_mark = a.acr_integral(now).0;
            }
            let sent = tcp_sender(&e.app).map(|t| t.stats.clone());
            let got = tcp_receiver(&e.app).map(|r| r.rcv_nxt);
            if sent.is_some() || got.is_some() {
                e.tcp_mark = Some(Box::new((sent.unwrap_or_default(), got.unwrap_or(0))));
            }
        }
        for f in &mut self.flows {
            f.stats.rx_cells_window = 0;
            f.stats.user_bytes_window = 0;
            f.upc_mark = f.upc.as_ref().map(|u| u.counts());
        }
    }
}
