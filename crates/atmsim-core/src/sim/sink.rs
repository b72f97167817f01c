//! Computed delivery at passive sinks (issue 27 item 1): the last link of connections whose
//! receiving end only counts what arrives runs no `Arrive` event. Its cells stay in the link's
//! pipe with their arrival times and are delivered, each at its own arrival time, when the
//! next cell is put on that link (those that arrived before then) or before anything reads
//! what deliveries change (`catch_up_all`: samples, the warm-up's end, the end of the run).
//!
//! Exact, because nothing else reads what a delivery there changes: the flow's receive
//! counts, CTD statistics, SECBR blocks and AAL5 reassembly, and the receiving application's
//! state, which for a passive application ([`Application::passive_rx`]) is nothing. Each
//! delivery gets its own arrival time as `now` (warm-up window, CTD), in arrival order.
//!
//! Ties: a cell that arrives at the very instant T of the warm-up's end or of the end of the
//! run is delivered after it (the warm-up's end was scheduled before any cell was sent; the
//! run's end leaves it in flight, as `Arrive` events at the end never ran). At a sample at T
//! it is delivered first where its `Arrive` event would have been scheduled before the
//! sample's (`Simulation::sinks_at_sample`): by the cell ahead's arrival or, on an empty link,
//! at the cell's sending, both known. Not reproduced: equal scheduling times (the cell ahead
//! arrived, or this cell was sent, at the very instant the sample's event was scheduled: the
//! sample is taken first) and a port whose cell time is sometimes one picosecond longer than
//! its shortest one where that picosecond decides. `make regress` is identical (96 runs); a
//! scenario that needs the event order in every tie sets `run.departures = "events"`, which
//! turns this off (`tests/sinks.rs` compares the two ways).
//!
//! Which links (`Simulation::mark_sinks`, at build, untraced runs with computed departures):
//! every flow crossing the port ends its route at the far node, is not ABR (no RM cell
//! turns round there), has no VS/VD coupling and no policing at that node (a one-link route
//! with UPC), and every receiving end of it is an application that only counts
//! ([`Application::passive_rx`]) on a host without a CPU model; the link has no impairment.
//! A sink's link may be that of a port that defers its departures (`sim/defer.rs`): its
//! `Link::ties` then orders nothing, since no arrival on it reads a port, and the cells a
//! settle puts on the link are delivered by the settle (`Simulation::settle_cold`).

use crate::app::Application;
use crate::net::*;
use crate::sim::*;

impl Simulation {
    /// How many links deliver to passive sinks without events.
    pub fn sink_links(&self) -> usize {
        self.sinks.len()
    }

    /// A cell went on port `p`'s link (`Port::commit`, `Port::send_now`): what the port asks,
    /// the link's `Arrive` event or on a sink's link the delivery of what has arrived before
    /// now.
    #[inline(always)]
    pub(crate) fn link_arrival(&mut self, p: u32, next: OnLink) {
        match next {
            OnLink::Pending => {}
            OnLink::Schedule(at) => self.queue.push(at, Event::Arrive(p)),
            OnLink::Deliver => self.sink_deliver(p),
        }
    }

    /// Deliver every cell on sink link `p` that arrived before now, in order, each at its
    /// arrival time.
    #[inline(never)]
    pub(crate) fn sink_deliver(&mut self, p: u32) {
        let now = self.now;
        loop {
            let link = &mut self.ports[p as usize].link;
            let (t, mut cell) = match link.pipe.front() {
                Some(&(t, _)) if t < now => link.pipe.pop_front().expect("a front cell"),
                _ => return,
            };
            link.prefetch_head();
            link.arrive_at = t; // the last arrival (`sinks_at_sample`)
            cell.hop += 1;
            debug_assert_eq!(
                self.flows[cell.flow as usize].ports.len(),
                cell.hop as usize,
                "a sink's link ends every route crossing it"
            );
            self.deliver(cell, t);
        }
    }

    /// Deliver what arrived before now on every sink's link (before a sample, the warm-up's
    /// end or the end of the run reads the counts).
    pub(crate) fn sinks_catch_up(&mut self) {
        for k in 0..self.sinks.len() {
            let p = self.sinks[k];
            self.sink_deliver(p);
        }
    }

    /// A sample at now (not the end of the run) reads the counts: a cell arriving at this
    /// very instant is delivered first where its `Arrive` event would have run first, that is
    /// where it would have been scheduled before this sample's event (one sample interval
    /// ago). An `Arrive` is scheduled when the cell ahead on the link arrives or, when the link
    /// was empty, when the cell is sent (a cell time plus the link's delay before it arrives;
    /// the shortest cell time of the port's pacer is taken). At equal scheduling times the
    /// sample goes first.
    pub(crate) fn sinks_at_sample(&mut self) {
        let now = self.now;
        if now >= self.end || self.sinks.is_empty() {
            return;
        }
        let pushed = now - self.sample_ps; // when this sample's event was scheduled
        for k in 0..self.sinks.len() {
            let p = self.sinks[k];
            let port = &mut self.ports[p as usize];
            let sent_before = port.link.delay_ps + port.pacer.min_interval_ps() > self.sample_ps;
            let link = &mut port.link;
            match link.pipe.front() {
                Some(&(t, _)) if t == now && link.arrive_at < pushed && sent_before => {
                    let (t, mut cell) = link.pipe.pop_front().expect("a front cell");
                    link.arrive_at = t;
                    cell.hop += 1;
                    self.deliver(cell, t);
                }
                _ => {}
            }
        }
    }

    /// Make passive sinks' links deliver without events (see the module's doc); `on`: the
    /// run computes departures and writes no trace.
    pub(crate) fn mark_sinks(&mut self, on: bool) {
        if !on {
            return;
        }
        // per port: None (no flow yet), Some(true) every flow so far may be delivered lazily
        let mut ok: Vec<Option<bool>> = vec![None; self.ports.len()];
        for f in &self.flows {
            let route: &[u32] = &f.ports;
            let Some((&last, before)) = route.split_last() else {
                continue;
            };
            for &p in before {
                ok[p as usize] = Some(false);
            }
            let passive = f.category != Category::Abr
                && !f.has_vs
                && (f.upc.is_none() || route.len() > 1)
                && !before.contains(&last)
                && f.rx.iter().all(|&e| {
                    e == NONE
                        || (self.endpoints[e as usize].app.passive_rx() && self.cpu_of(e).is_none())
                });
            let o = &mut ok[last as usize];
            *o = Some(o.unwrap_or(true) && passive);
        }
        for (p, o) in ok.into_iter().enumerate() {
            let link = &mut self.ports[p].link;
            if o == Some(true) && link.impair.is_none() && !link.arrive_pending {
                link.sink = true;
                self.sinks.push(p as u32);
            }
        }
    }
}