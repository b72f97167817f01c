//! ABR feedback at switch ports (the port scheme: EFCI, relative rate, ERICA, ERICA+) and the
//! coupling of a VS/VD switch's two segments.

use crate::engine::Event;
use crate::net::Category;
use crate::sim::*;
use crate::time::*;
use crate::wire::Cell;

impl Simulation {
    /// An ABR cell enters a port with a feedback scheme (before buffer admission: the offered load).
    pub(crate) fn abr_input(&mut self, p: u32, cell: &mut Cell) {
        self.settle(p); // the scheme may close its interval: the queue and cells sent by now
        let vc = self.flows[cell.flow as usize].vc_slot[cell.hop as usize];
        let port = &mut self.ports[p as usize];
        let q = port.queue.class_len[Category::Abr as usize];
        if port.scheme.on_forward(q, vc, cell) {
            self.close_interval(p);
        }
    }

    /// End the current ERICA averaging interval of port `p` now (steps 1-5) and start the next.
    pub(crate) fn close_interval(&mut self, p: u32) {
        let now = self.now;
        self.settle(p); // the cells sent and the queue at the interval's end
        let in_window = now >= self.warmup;
        let port = &mut self.ports[p as usize];
        let line = port.rate_bps as f64 / 1e6;
        let hp = port.hp_tx - port.hp_mark;
        port.hp_mark = port.hp_tx;
        let q = port.queue.class_len[Category::Abr as usize];
        if let Some(r) = port.scheme.close_interval(now, line, hp, q, in_window) {
            r.probe(self.series.at(sample::ABR_PORTS).row(ps_to_secs(now), p));
        }
        if let Some(d) = self.ports[p as usize].scheme.next_deadline() {
            if d < self.end {
                self.queue.push(d, Event::AbrInterval(p));
            }
        }
    }

    pub(crate) fn abr_interval_timer(&mut self, p: u32) {
        self.cause_at = 0; // not an arrival (`sim/defer.rs`)
        if self.ports[p as usize].scheme.next_deadline() == Some(self.now) {
            self.close_interval(p);
        }
    }

    /// A backward RM cell of `flow` is at the node that owns the forward port `fp` of its VC:
    /// that port's scheme writes its feedback into the cell.
    pub(crate) fn abr_feedback(&mut self, fp: u32, fwd_flow: u32, cell: &mut Cell) {
        let f = &self.flows[fwd_flow as usize];
        let h = f.ports.iter().position(|&p| p == fp);
        let vc = f.vc_slot[h.expect("a VC's feedback port is on its forward route")];
        self.settle(fp);
        let port = &mut self.ports[fp as usize];
        let q = port.queue.class_len[Category::Abr as usize];
        port.scheme.on_backward(vc, q, &mut cell.rm);
    }

    /// A virtual destination's turned-around RM cell (the coupling of a VS/VD switch's two
    /// segments, docs/abr.md "VS/VD"): its ER is limited by the switch's own feedback for the
    /// next segment's port and by the rate at which the virtual source drains its per-VC
    /// queue, ACR - Q x 424 / drain (at least ACR / 2; `drain_s` 0: ACR).
    pub(crate) fn couple_vd(&mut self, vs: u32, next: u32, drain_s: f64, brm: &mut Cell) {
        let fp = self.flows[next as usize].ports[0];
        self.abr_feedback(fp, next, brm);
        if let Some(a) = self.endpoints[vs as usize].app.abr() {
            let drain = if drain_s > 0.0 {
                let q_mbps = a.backlog as f64 * 424.0 / drain_s / 1e6;
                (a.acr - q_mbps).max(0.5 * a.acr)
            } else {
                a.acr
            };
            brm.rm.er = brm.rm.er.min(drain as f32);
        }
    }
}
