//! Cells crossing the network: buffer admission at output ports, transmission, the link, arrival
//! at the next node (UPC at the first switch), and drops with their reason.

use crate::abr::RM_DIR;
use crate::engine::Event;
use crate::metrics::*;
use crate::net::*;
use crate::policing::UpcOutcome;
use crate::sim::*;
use crate::time::*;
use crate::wire::{Cell, H_CLP, H_ERR, H_MIS};
use rand::RngExt;

/// The tie rule of computed departures (`Port::commit`): whether a cell whose
/// transmission starts at T has left the buffer for everything else that happens at T (true;
/// the reference simulator's rule) or is still waiting for it (false, the rule used).
///
/// With `PortTx` events the answer was the engine's: the event at T ran after the events at T
/// scheduled before it, and it was scheduled when the cell ahead started (T minus one cell
/// time) or when the cell was queued behind a busy line. The other events that look at a port
/// at T were usually scheduled earlier still: samples and the warm-up's end long before, an
/// arrival from a link no faster than the port by the previous arrival on that link (at least
/// one cell time before) or by the upstream transmission start (a link delay more); so false
/// gives the `PortTx` order there. It does not where an event at T was scheduled later: an
/// arrival from a faster link, a source on the port's host that emits again one cell time
/// after a cell it queued, or an arrival scheduled at the very instant the busy period began
/// by a handler that ran after the one that queued the cell (`tests/departures.rs` has one of
/// each). Reproducing the engine's order in every case needs the scheduling moment of every
/// event that reads the port, compared with one the departure would have had: the event again.
/// With false, `make regress` is identical (92 runs); with true, 7 of them change (25 maximum
/// queues one lower: a TCP segment's cells queued at the instant a cell starts).
/// A scenario that needs the old order in every tie sets `run.departures = "events"`
/// (`scenario::Departures`): a `PortTx` event per waiting cell at every port.
pub(crate) const TIE_DEPARTS_FIRST: bool = false;

impl Simulation {
    /// A cell of category `cls` reaches output port `p`: it starts at once on a free line,
    /// waits in the buffer, or is dropped.
    ///
    /// Two paths (issue 13: the per-cell cost of bench (a)): a port with computed departures
    /// ([`Port::computed`]) has none of the features the general path checks for cell by cell
    /// (`Port::may_compute` excludes them at build), so it takes [`Simulation::enqueue_computed`],
    /// inlined where cells arrive; every other port takes the general path, out of line. The
    /// split changes no result: for a computed port the general path's checks all come out the
    /// way the short path assumes (its `debug_assert`s say which).
    ///
    /// A traced run (`sim/trace.rs`) takes the computed path's traced copy from the general
    /// one (`Port::computed_fast` is false there), so the untraced copy has no hook at all.
    #[inline(always)]
    pub(crate) fn enqueue(&mut self, p: u32, cell: Cell, cls: usize) {
        if self.ports[p as usize].computed_fast {
            self.enqueue_computed::<false>(p, cell, cls);
        } else {
            self.enqueue_general(p, cell, cls);
        }
    }

    /// [`Simulation::enqueue`] at a computed-departure port: one category with strict priority,
    /// no ABR scheme, frame discard, shared buffer, fabric hearing of departures or impairment,
    /// and never a `PortTx` event (nothing waits in its FIFOs: waiting cells are on the link
    /// already).
    /// `TRACE`: write the trace's rows (a traced run).
    #[inline(always)]
    fn enqueue_computed<const TRACE: bool>(&mut self, p: u32, cell: Cell, cls: usize) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        debug_assert!(port.scheme.is_none() && port.frames.is_none() && port.group == NONE);
        debug_assert!(!port.tx_pending && port.sched.is_strict());
        debug_assert_eq!(
            cls, port.computed_cls as usize,
            "one category per computed port"
        );
        if port.started(now, TIE_DEPARTS_FIRST) {
            self.cell_hops += port.catch_up_from(now, TIE_DEPARTS_FIRST);
        }
        // a strict-priority scheduler allows a cell on an idle line, and `served` does nothing;
        // no fabric hearing of departures, no impairment: `transmit`'s short path (the port at
        // hand)
        if port.queue.len == 0 && port.busy_until <= now {
            self.cell_hops += 1;
            let next = port.send_now(now, cell, cls);
            self.link_arrival(p, next);
            if TRACE {
                self.trace_on_link(p, true, now);
            }
            return;
        }
        // no shared buffer
        if let Err(r) = port.queue.admit(&cell, cls, false) {
            if TRACE {
                self.trace_enqueue(p, &cell);
            }
            self.drop_cell(p, cell, r);
            return;
        }
        port.wait(now, cell, cls, false);
        let next = port.commit(now, cell);
        self.link_arrival(p, next);
        if TRACE {
            self.trace_on_link(p, true, SimTime::MAX);
        }
    }

    /// [`Simulation::enqueue`] at a port without computed departures.
    #[inline(never)]
    fn enqueue_general(&mut self, p: u32, mut cell: Cell, cls: usize) {
        if self.ports[p as usize].computed {
            // a traced run's computed port (`Port::computed_fast`)
            self.enqueue_computed::<true>(p, cell, cls);
            return;
        }
        let now = self.now;
        if cls == Category::Abr as usize && !self.ports[p as usize].scheme.is_none() {
            self.abr_input(p, &mut cell);
        }
        if self.tracer.on {
            self.trace_enqueue(p, &cell);
        }
        let mut frame_state = None;
        if self.ports[p as usize].frames.is_some() && self.flows[cell.flow as usize].sar.framed {
            let port = &mut self.ports[p as usize];
            let fd = port.frames.as_mut().expect("checked");
            let st = fd.vcs[cell.flow as usize];
            let eof = cell.is_eof();
            let (next, refuse) = match st {
                FD_EPD => (if eof { FD_IDLE } else { FD_EPD }, Some(DropReason::Epd)),
                FD_PPD if !eof => (FD_PPD, Some(DropReason::Ppd)),
                FD_IDLE if port.queue.len >= fd.epd_threshold => {
                    (if eof { FD_IDLE } else { FD_EPD }, Some(DropReason::Epd))
                }
                _ => (if eof { FD_IDLE } else { FD_IN_FRAME }, None),
            };
            fd.vcs[cell.flow as usize] = next;
            if let Some(r) = refuse {
                self.drop_cell(p, cell, r);
                return;
            }
            frame_state = Some(fd.ppd && !eof);
        }
        let port = &mut self.ports[p as usize];
        if port.queue.len == 0
            && !port.tx_pending
            && port.busy_until <= now
            && port.sched.allowed(cls, now)
        {
            port.sched.served(cls, now);
            if self.tracer.on {
                self.transmit::<true>(p, cell, cls);
            } else {
                self.transmit::<false>(p, cell, cls);
            }
            return;
        }
        if port.deferred && port.busy_until <= now {
            // cells wait and the line may have served some by now (`sim/defer.rs`)
            self.enqueue_deferred(p, cell, cls);
            return;
        }
        let shared_full = Group::full(&self.groups, port.group);
        if let Err(r) = port.queue.admit(&cell, cls, shared_full) {
            if frame_state == Some(true) {
                // PPD: the rest of this frame (but its last cell) goes too
                if let Some(fd) = &mut port.frames {
                    fd.vcs[cell.flow as usize] = FD_PPD;
                }
            }
            self.drop_cell(p, cell, r);
            return;
        }
        port.wait(now, cell, cls, true);
        if port.group != NONE {
            self.groups[port.group as usize].used += 1;
        }
        if !port.tx_pending {
            if port.deferred {
                if port.queue.len == 1 {
                    port.tx_at = now; // where the `PortTx` event would have been scheduled
                }
                return;
            }
            port.tx_pending = true;
            let t = port.busy_until;
            self.queue.push(t, Event::PortTx(p));
        }
    }

    pub(crate) fn drop_cell(&mut self, p: u32, cell: Cell, r: DropReason) {
        if self.tracer.on {
            self.trace_drop(p, &cell, r);
        }
        self.ports[p as usize].stats.drops[r as usize] += 1;
        // a misinserted cell is not its current connection's cell: only the port counts it
        if cell.created >= self.warmup && cell.hdr & H_MIS == 0 {
            let f = &mut self.flows[cell.flow as usize];
            f.stats.dropped += 1;
            if cell.hdr & H_CLP == 0 {
                f.stats.dropped_clp0 += 1;
            }
            f.stats.drops[r as usize] += 1;
            f.stats.drops_by_hop[cell.hop as usize] += 1;
        }
    }

    /// Put `cell` on the line now (the port is free): it ends transmission one cell time later
    /// and reaches the far node after the link's delay.
    ///
    /// A port whose departures its node's fabric hears of (`Port::fabric_node`) or with an
    /// impaired link takes the general path, out of line; every other port the short one,
    /// inlined (the same steps without those two features).
    ///
    /// `TRACE`: write the trace's rows (a traced run; the callers choose, so the untraced copy
    /// has no hook).
    #[inline(always)]
    pub(crate) fn transmit<const TRACE: bool>(&mut self, p: u32, cell: Cell, cls: usize) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        if port.fabric_node != NONE || port.link.impair.is_some() {
            self.transmit_general(p, cell, cls);
            return;
        }
        self.cell_hops += 1;
        let next = port.send_now(now, cell, cls);
        self.link_arrival(p, next);
        if TRACE {
            self.trace_on_link(p, false, now);
        }
    }

    /// [`Simulation::enqueue`] of a cell a fabric hands on: a [`Port::heard_fast`] port's free
    /// line takes it on the short path ([`Simulation::start_heard`]), without the general path's
    /// call.
    #[inline(always)]
    fn enqueue_from_fabric(&mut self, p: u32, cell: Cell, cls: usize) {
        let port = &self.ports[p as usize];
        if port.heard_fast && port.queue.len == 0 && !port.tx_pending && port.busy_until <= self.now
        {
            self.start_heard(p, cell, cls);
        } else {
            self.enqueue(p, cell, cls);
        }
    }

    /// A cell of category `cls` finds the free line of port `p`, a [`Port::heard_fast`] port,
    /// with nothing waiting: what the general path does there (its checks all pass: no ABR
    /// scheme, trace or frame discard; a strict-priority scheduler allows the cell and `served`
    /// does nothing; no impairment), in its order: the fabric hears of the departure (and its
    /// asks are carried out) before the cell goes on the link.
    #[inline(always)]
    fn start_heard(&mut self, p: u32, cell: Cell, cls: usize) {
        let now = self.now;
        let node = self.ports[p as usize].fabric_node;
        let asks = self.nodes[node as usize].fabric.on_departure(now, p);
        self.fabric_asks(node, asks);
        self.cell_hops += 1;
        let next = self.ports[p as usize].send_now(now, cell, cls);
        self.link_arrival(p, next);
    }

    /// [`Simulation::transmit`] at a port whose departures a fabric hears of or with an impaired
    /// link.
    #[inline(never)]
    fn transmit_general(&mut self, p: u32, mut cell: Cell, cls: usize) {
        let now = self.now;
        let node = self.ports[p as usize].fabric_node;
        if node != NONE {
            // the cell leaves the buffer of an output port of its node's fabric: it hears of it
            let asks = self.nodes[node as usize].fabric.on_departure(now, p);
            self.fabric_asks(node, asks);
        }
        let port = &mut self.ports[p as usize];
        self.cell_hops += 1;
        let mut at = port.start_on_line(now, cls);
        if let Some(im) = &mut port.link.impair {
            im.counted += 1;
            let scripted = im.scripted.binary_search(&im.counted).is_ok();
            let u: f64 = im.rng.random();
            if u < im.loss || scripted {
                if self.tracer.on {
                    self.trace_depart(p, &cell);
                }
                self.drop_cell(p, cell, DropReason::LinkLoss);
                return;
            } else if u < im.loss + im.error {
                cell.hdr |= H_ERR;
            } else if u < im.loss + im.error + im.misinsertion {
                // the corrupted header matches another connection crossing this link
                let others = im.crossing.iter().filter(|(f, _)| *f != cell.flow).count();
                if others > 0 {
                    let k = im.rng.random_range(0..others);
                    let &(f, h) = im
                        .crossing
                        .iter()
                        .filter(|(f, _)| *f != cell.flow)
                        .nth(k)
                        .expect("k < others");
                    let lost = cell;
                    cell.flow = f;
                    cell.hop = h;
                    cell.hdr |= H_MIS;
                    if self.tracer.on {
                        self.trace_depart(p, &lost);
                    }
                    self.drop_cell(p, lost, DropReason::Misinserted);
                }
            }
            let port = &mut self.ports[p as usize];
            let im = port.link.impair.as_mut().expect("checked");
            let jitter = if im.variation_ps > 0.0 {
                (im.rng.random::<f64>() * im.variation_ps) as SimDuration
            } else {
                0
            };
            at = (at + im.extra_ps + jitter).max(im.last_at);
            im.last_at = at;
        }
        let port = &mut self.ports[p as usize];
        port.link.pipe.push_back((at, cell));
        if port.link.sink {
            if port.link.pipe.front().is_some_and(|&(t, _)| t < now) {
                self.sink_deliver(p);
            }
        } else if !port.link.arrive_pending {
            port.link.arrive_pending = true;
            port.link.arrive_at = now;
            self.queue.push(at, Event::Arrive(p));
        }
        if self.tracer.on {
            self.trace_on_link(p, false, now);
        }
    }

    /// Bring every computed-departure port's queue accounting up to now (before samples, the
    /// end of the warm-up and the end of the run read it); at the end of the run cells starting
    /// at `end` itself have not started (events at `end` do not run).
    pub(crate) fn catch_up_all(&mut self) {
        let now = self.now;
        let inclusive = TIE_DEPARTS_FIRST && now < self.end;
        for port in self.ports.iter_mut().filter(|p| p.computed) {
            self.cell_hops += port.catch_up(now, inclusive);
        }
        self.cause_at = 0; // samples, the warm-up's end, the end: no arrival's order
        for p in 0..self.ports.len() as u32 {
            self.settle(p);
        }
        self.sinks_catch_up();
    }

    /// The line of port `p` is free: the scheduler picks the next waiting cell.
    pub(crate) fn port_tx(&mut self, p: u32) {
        if self.tracer.on {
            self.port_tx_traced(p);
        } else {
            self.port_tx_impl::<false>(p);
        }
    }

    /// [`Simulation::port_tx`] in a traced run.
    #[cold]
    #[inline(never)]
    fn port_tx_traced(&mut self, p: u32) {
        self.port_tx_impl::<true>(p);
    }

    #[inline(always)]
    fn port_tx_impl<const TRACE: bool>(&mut self, p: u32) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        port.tx_pending = false;
        let cls = match port.sched.pick(&port.queue, now) {
            Ok(Some(c)) => c,
            Ok(None) => return,
            Err(t) => {
                // every waiting category is held back by its maximum rate
                port.tx_pending = true;
                self.queue.push(t.max(now), Event::PortTx(p));
                return;
            }
        };
        port.mark_queue(now);
        let cell = port
            .queue
            .pop(cls)
            .expect("the scheduler picks a non-empty category");
        if port.group != NONE {
            self.groups[port.group as usize].used -= 1;
        }
        self.transmit::<TRACE>(p, cell, cls);
        let port = &mut self.ports[p as usize];
        if port.queue.len > 0 {
            port.tx_pending = true;
            let t = port.busy_until;
            self.queue.push(t, Event::PortTx(p));
        }
    }

    #[inline(always)]
    pub(crate) fn arrive(&mut self, p: u32) {
        let mut port = &mut self.ports[p as usize];
        if port.link.ties {
            // the link's port or a port at its far node defers departures (`sim/defer.rs`)
            self.tie_begin(p);
            port = &mut self.ports[p as usize];
        }
        let (node, passes) = (port.to, port.far_passes);
        let (_, mut cell) = port
            .link
            .pipe
            .pop_front()
            .expect("arrival with an empty link");
        port.link.prefetch_head();
        match port.link.pipe.front() {
            Some(&(t, _)) => self.queue.push(t, Event::Arrive(p)),
            None => port.link.arrive_pending = false,
        }
        cell.hop += 1;
        let mut f = &self.flows[cell.flow as usize];
        if cell.hop == 1 && f.upc.is_some() && cell.hdr & H_MIS == 0 {
            // usage parameter control at the network ingress (the first switch)
            if !self.police_ingress(&mut cell) {
                return;
            }
            f = &self.flows[cell.flow as usize];
        }
        let route: &[u32] = &f.ports; // the route once (`FlowPorts` is an enum)
        debug_assert!(cell.hop as usize <= route.len());
        match route.get(cell.hop as usize) {
            None => self.deliver(cell, self.now), // the last node of the route
            Some(&np) => {
                let cls = f.category as usize;
                if f.backward && cell.is_rm() && cell.rm.bits & RM_DIR != 0 {
                    // this node's forward port of the VC: forward route index hops - hop
                    let fwd = f.pair;
                    let fp = self.flows[fwd as usize].ports[route.len() - cell.hop as usize];
                    self.abr_feedback(fp, fwd, &mut cell);
                }
                if passes {
                    // what `switch_cell` does at an output-buffered fabric (`Port::far_passes`)
                    self.enqueue(np, cell, cls);
                } else {
                    self.switch_cell(node, p, np, cell, cls);
                }
            }
        }
    }

    /// Police `cell` at its flow's first switch (the flow has UPC): false when it is discarded
    /// there (counted as a drop at the flow's first port), else it goes on, maybe tagged.
    #[inline(never)]
    fn police_ingress(&mut self, cell: &mut Cell) -> bool {
        let now = self.now;
        let upc = self.flows[cell.flow as usize]
            .upc
            .as_mut()
            .expect("checked");
        match upc.police(now, cell.hdr & H_CLP != 0) {
            UpcOutcome::Pass => true,
            UpcOutcome::Tag => {
                cell.hdr |= H_CLP;
                true
            }
            UpcOutcome::Discard => {
                cell.hop -= 1; // lost at the first switch's ingress, before its output port
                let p = self.flows[cell.flow as usize].ports[0];
                self.drop_cell(p, *cell, DropReason::UpcDiscard);
                false
            }
        }
    }

    /// A cell of category `cls` is at `node` (it came in on the link of port `from`) and leaves
    /// by output port `out`: the node's fabric passes it to that port's buffer, holds it, or
    /// loses it at the input.
    #[inline(always)]
    pub(crate) fn switch_cell(&mut self, node: u32, from: u32, out: u32, cell: Cell, cls: usize) {
        let now = self.now;
        match self.nodes[node as usize]
            .fabric
            .on_arrival(now, from, out, &cell, cls)
        {
            Arrival::Pass => self.enqueue(out, cell, cls),
            Arrival::Alone => self.fabric_alone(node, from, out, cell, cls),
            Arrival::Crossed => unreachable!("a fabric crosses a cell only from `on_alone`"),
            Arrival::Held(wake) => {
                if let Some(w) = wake {
                    self.fabric_wake_now_or_later(node, from, w.at, w.arg);
                }
            }
            Arrival::Lost(r) => {
                let mut cell = cell;
                cell.hop -= 1; // lost at the switch's input, before its output port
                self.drop_cell(from, cell, r);
            }
        }
    }

    /// A cell whose node's fabric would carry it across by a wake at `now`
    /// ([`Arrival::Alone`]): the fabric hears whether that wake would run next (the condition of
    /// [`Simulation::fabric_wake_now_or_later`]), and the cell crosses at once, is held or lost.
    #[inline(never)]
    fn fabric_alone(&mut self, node: u32, from: u32, out: u32, cell: Cell, cls: usize) {
        let now = self.now;
        let next = self.fabric_now
            && !self.ports[from as usize].link.ties
            && self.queue.peek_time().is_none_or(|t| t > now);
        match self.nodes[node as usize]
            .fabric
            .on_alone(now, from, out, &cell, cls, next)
        {
            Arrival::Crossed => {
                // `fabric_forward`'s first step, inlined here
                self.enqueue_from_fabric(out, cell, cls);
                let asks = self.nodes[node as usize].fabric.on_forwarded(now);
                self.fabric_asks(node, asks);
            }
            Arrival::Held(wake) => {
                if let Some(w) = wake {
                    self.fabric_wake_now_or_later(node, from, w.at, w.arg);
                }
            }
            Arrival::Lost(r) => {
                let mut cell = cell;
                cell.hop -= 1; // lost at the switch's input, before its output port
                self.drop_cell(from, cell, r);
            }
            Arrival::Pass => self.enqueue(out, cell, cls),
            Arrival::Alone => unreachable!("`on_alone` answers"),
        }
    }

    /// A wake node `node`'s fabric asked for on a cell's arrival by port `from`'s link: run at
    /// once when it is due now and nothing else is (issue 27 item 4: a cell crosses an idle bus
    /// without an event of its own), else scheduled. Exact: the arrival is the last thing its
    /// handler does (`arrive`), so the wake's event would be the next one run, at the same time,
    /// when no other event is pending at `now`; not where the node has ports that defer their
    /// departures (`Link::ties`: their order at `now` goes by when each event was scheduled,
    /// `sim/defer.rs`). Only the count of events differs.
    #[inline]
    fn fabric_wake_now_or_later(&mut self, node: u32, from: u32, at: SimTime, arg: u32) {
        let now = self.now;
        if at == now
            && self.fabric_now
            && !self.ports[from as usize].link.ties
            && self.queue.peek_time().is_none_or(|t| t > now)
        {
            self.fabric_event(node, arg);
        } else {
            self.queue.push(at, Event::Fabric(node, arg));
        }
    }

    /// Timed work of node `node`'s fabric (an `Event::Fabric` it scheduled).
    pub(crate) fn fabric_event(&mut self, node: u32, arg: u32) {
        let now = self.now;
        let asks = self.nodes[node as usize].fabric.on_event(now, arg);
        self.fabric_asks(node, asks);
    }

    /// Carry out what node `node`'s fabric asked ([`FabricAsks`]): schedule its event, then
    /// forward the cell it hands on, if any (out of line: most asks are a wake only).
    #[inline(always)]
    fn fabric_asks(&mut self, node: u32, asks: FabricAsks) {
        if let Some(w) = asks.wake {
            self.queue.push(w.at, Event::Fabric(node, w.arg));
        }
        if let Some(fw) = asks.forward {
            self.fabric_forward(node, fw);
        }
    }

    /// Put the cell node `node`'s fabric hands on into its output port's buffer and tell the
    /// fabric so ([`Fabric::on_forwarded`]), carrying out its asks in turn, until it forwards no
    /// more.
    #[inline(never)]
    fn fabric_forward(&mut self, node: u32, mut fw: Forward) {
        loop {
            self.enqueue_from_fabric(fw.port, fw.cell, fw.cls as usize);
            let now = self.now;
            let asks = self.nodes[node as usize].fabric.on_forwarded(now);
            if let Some(w) = asks.wake {
                self.queue.push(w.at, Event::Fabric(node, w.arg));
            }
            match asks.forward {
                Some(next) => fw = next,
                None => return,
            }
        }
    }
}
