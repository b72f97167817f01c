//! Deferred departures (issue 13): a port that may not compute its departures when a cell is
//! queued ([`Port::may_defer`]: several categories under strict priority, where a later cell of
//! a higher category overtakes the waiting ones, or an ABR scheme that reads the port) still
//! needs no `PortTx` event per waiting cell. Its line is work-conserving and picks by strict
//! priority among the cells present at each start, so the departures between two moments at
//! which something looks at the port follow from the queue alone: [`Simulation::settle`] plays
//! them when something next looks (an enqueue, the arrival of the port's own link's head cell,
//! the ABR scheme's interval end or feedback, a sample, the warm-up's end, the end of the run).
//!
//! What equals the `PortTx` way exactly:
//! - which cell starts at each start time, the pacer, the queue's length, area and cells sent
//!   by category (the same code in the same order: `port_tx` then `transmit` at the start time,
//!   the line busy since the cell ahead, so the pacer goes on without a restart), as long as
//!   every cell that entered the queue before a start time is there when it is settled: every
//!   enqueue settles first, and settles only the starts before its own time;
//! - the link: a deferred start S follows the cell ahead (started at S minus one cell time,
//!   arriving at S plus the link delay > 0), so at S the link holds a cell and its `Arrive`
//!   event is pending; `arrive` settles the port before it takes the head cell, and the cell
//!   started at S, pushed by then (S < S + delay), gets its `Arrive` event from the handler of
//!   the cell ahead, at the same moment as with `PortTx` events.
//!
//! The order at a start time T itself (an arrival, a scheme, a sample at T: does the cell
//! starting at T still wait?) was the engine's: equal-time events run in the order they were
//! scheduled. The `PortTx` event of T would have been scheduled at the previous start, or by
//! the enqueue that found the queue empty behind the busy line (`Port::tx_at`). An arrival's
//! `Arrive` event was scheduled by the arrival ahead on its link or by the start that put the
//! cell on an empty link (`Link::arrive_at`, kept where `Link::ties`). So a deferred start at T
//! goes before an arrival at T (and everything it causes: enqueues, feedback, deliveries and
//! what they send) exactly when `tx_at < arrive_at` (`Simulation::arrive_tied` sets
//! `cause_at`). Other events count the cell starting at T as still waiting, which is their
//! order with `PortTx` events when they were scheduled earlier: samples, the warm-up's end and
//! ERICA's interval timers (an interval or more before). Not exact: both scheduled at the same
//! instant in the other order, and an event other than an arrival scheduled after the `PortTx`
//! event (a source's timer on a host whose port defers, firing at a start). `make regress` is
//! identical (92 runs), and so are the 40 runs of 20 scenarios with ABR schemes or several
//! categories at 10 s and seed 000's sat-sat at 20 s (3 seeds) against the engine before.
//! `run.departures = "events"` brings back a `PortTx` event per waiting cell at every port.

use crate::sim::*;
use crate::wire::Cell;

impl Simulation {
    /// Play port `p`'s deferred departures that start before now (see the module notes); does
    /// nothing at other ports. Call before anything reads or changes the port's queue or link.
    #[inline(always)]
    pub(crate) fn settle(&mut self, p: u32) {
        let port = &self.ports[p as usize];
        if port.deferred && port.queue.len > 0 && port.busy_until <= self.now {
            self.settle_cold(p);
        }
    }

    /// Before the arrival of the head cell of port `p`'s link where that port or one of the far
    /// node's ports defers its departures ([`crate::net::Link::ties`]): the port's departures
    /// before now first (the cell started next is on the link before the head leaves it), and
    /// while the arrival's effects run, `cause_at` says when its `Arrive` event was scheduled,
    /// which orders it with a deferred departure at now (see the module notes).
    ///
    /// `cause_at` is not cleared after the arrival: the only other events that look at a
    /// deferred port (only switch ports defer, so no source's emission does) clear it first
    /// (`catch_up_all` for samples, the warm-up's end and the end of the run;
    /// `abr_interval_timer`), and an arrival on a link without `ties` touches no deferred port.
    #[inline]
    pub(crate) fn tie_begin(&mut self, p: u32) {
        let now = self.now;
        let link = &mut self.ports[p as usize].link;
        self.cause_at = link.arrive_at;
        // the next head's `Arrive` event, if this arrival leaves one, is scheduled now (if it
        // leaves the link empty, the next start on it sets `arrive_at`)
        link.arrive_at = now;
        self.settle(p);
    }

    /// The rest of `enqueue` at a deferred port whose line may have served waiting cells by
    /// now: those departures first, then the cell goes on the free line or joins the queue, as
    /// `enqueue` does (a deferred port has no frame discard, shared buffer or `PortTx` event).
    #[inline(never)]
    pub(crate) fn enqueue_deferred(&mut self, p: u32, cell: Cell, cls: usize) {
        let now = self.now;
        self.settle(p);
        let port = &mut self.ports[p as usize];
        if port.queue.len == 0 && port.busy_until <= now {
            port.sched.served(cls, now);
            if self.tracer.on {
                self.transmit::<true>(p, cell, cls);
            } else {
                self.transmit::<false>(p, cell, cls);
            }
            return;
        }
        if let Err(r) = port.queue.admit(&cell, cls, false) {
            self.drop_cell(p, cell, r);
            return;
        }
        port.wait(now, cell, cls, true);
        if port.queue.len == 1 {
            port.tx_at = now; // where the `PortTx` event would have been scheduled
        }
    }

    #[inline(never)]
    pub(crate) fn settle_cold(&mut self, p: u32) {
        let (now, cause_at) = (self.now, self.cause_at);
        let mut n = 0;
        loop {
            let port = &mut self.ports[p as usize];
            if !(port.queue.len > 0
                && (port.busy_until < now || (port.busy_until == now && port.tx_at < cause_at)))
            {
                break;
            }
            // `port_tx` at the start time S = busy_until, then `transmit` at S
            let start = port.busy_until;
            let cls = port.sched.strict_next(&port.queue.class_len);
            port.mark_queue(start);
            let cell = port
                .queue
                .pop(cls)
                .expect("the scheduler picks a non-empty category");
            // the line was busy until S: the pacer goes on (no restart at S)
            let at = port.start_on_line(start, cls);
            n += 1;
            debug_assert!(
                port.link.arrive_pending || port.link.sink,
                "a deferred start finds the cell ahead on the link"
            );
            port.link.pipe.push_back((at, cell));
            // `port_tx` schedules the next start now if cells are left
            port.tx_at = start;
            if self.tracer.on {
                self.trace_on_link(p, false, start);
            }
        }
        self.cell_hops += n;
        if self.ports[p as usize].link.sink {
            self.sink_deliver(p); // what has arrived by now (`sim/sink.rs`)
        }
    }
}
