//! Periodic sampling of the time series and the end of the warm-up.
//!
//! The series are the tables of a [`Probes`] store; each model declares its table's columns
//! beside its state (`Port::PROBES` in `net/port.rs`, `Flow::PROBES` in `net/flow.rs`,
//! `IntervalRecord::PROBES` in `abr/switch/mod.rs`, the endpoints' tables listed in
//! `host/endpoint.rs`: ABR sources and each transport's sender) and fills its row in its own
//! `probe`; sampling only asks each model for its row.

use crate::abr::IntervalRecord;
use crate::engine::Event;
use crate::host::endpoint::TABLES as EP;
use crate::metrics::*;
use crate::sim::*;
use crate::time::*;

/// The tables of the time series, in the order the store holds them (see the indices below).
pub const SERIES_TABLES: [&TableDecl; 6] = [
    &Port::PROBES,
    &Flow::PROBES,
    EP[0],
    &IntervalRecord::PROBES,
    EP[1],
    EP[2],
];
/// Where each of the endpoints' tables (`host::endpoint::TABLES`) is in [`SERIES_TABLES`].
const EP_AT: [usize; 3] = [ABR_SOURCES, TCP, XTPX];
/// Positions of the tables in [`SERIES_TABLES`].
pub(crate) const PORTS: usize = 0;
pub(crate) const CONNECTIONS: usize = 1;
pub(crate) const ABR_SOURCES: usize = 2;
pub(crate) const ABR_PORTS: usize = 3;
pub(crate) const TCP: usize = 4;
pub(crate) const XTPX: usize = 5;

/// The declarations of every table of the time series (name, doc, columns with unit and doc).
pub fn series_schema() -> &'static [&'static TableDecl] {
    &SERIES_TABLES
}

impl Simulation {
    pub(crate) fn sample(&mut self) {
        self.catch_up_all();
        self.sinks_at_sample();
        self.samples_taken += 1;
        let ts = ps_to_secs(self.now);
        let interval_s = ps_to_secs(self.sample_ps);
        let series = &mut self.series;
        for (i, p) in self.ports.iter_mut().enumerate() {
            p.probe(series.at(PORTS).row(ts, i as u32), interval_s);
            p.give_back();
        }
        let endpoints = &self.endpoints;
        let sampled = self.sampled_endpoints.get_or_insert_with(|| {
            // an application on the cells has a row in none of the tables below
            (0..endpoints.len() as u32)
                .filter(|&e| endpoints[e as usize].app.has_rows())
                .collect()
        });
        for &e in sampled.iter() {
            let ep = &endpoints[e as usize];
            ep.app.probe(series, &EP_AT, ts, ep.flow);
        }
        // one row per flow, keyed by the flow's index
        let values = self.flow_rx.iter_mut().map(|f| f.probe(interval_s));
        series.at(CONNECTIONS).rows_f64(ts, values);
        let next = (self.samples_taken + 1) * self.sample_ps;
        if next < self.end {
            self.queue.push(next, Event::Sample);
        }
    }

    pub(crate) fn warmup_end(&mut self) {
        self.catch_up_all();
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
            e.app.mark_warmup(now);
        }
        for f in &mut self.flows {
            f.stats.rx_cells_window = 0;
            f.stats.user_bytes_window = 0;
            f.upc_mark = f.upc.as_ref().map(|u| Box::new(u.counts()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_positions_name_their_tables() {
        let at = |i: usize| SERIES_TABLES[i].name;
        assert_eq!(
            [
                at(PORTS),
                at(CONNECTIONS),
                at(ABR_SOURCES),
                at(ABR_PORTS),
                at(TCP),
                at(XTPX)
            ],
            [
                "ports",
                "connections",
                "abr_sources",
                "abr_ports",
                "tcp",
                "xtpx"
            ]
        );
        for t in series_schema() {
            let names: Vec<_> = t.all_columns().map(|c| c.name).collect();
            assert_eq!(names[0], "time_s");
            assert!(t.key.kind.is_key(), "{}", t.name);
            let mut unique = names.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "{}: duplicate column", t.name);
            assert!(
                t.active.is_empty() || names.contains(&t.active),
                "{}",
                t.name
            );
        }
    }
}
