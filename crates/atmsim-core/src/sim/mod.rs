//! The network and its run loop: the arenas of nodes, output ports with their links, flows and
//! endpoints, and `advance` / `step`. What happens to a cell is spread over one file per topic
//! (smoltcp's `iface/interface/{mod,ipv4,tcp}.rs` pattern: one `impl Simulation`, several files):
//! [`emit`] (cells entering the network), [`forward`] (ports, links, arrival at a node),
//! [`abr`] (switch feedback), [`deliver`] (the far end), [`calls`] (switched calls),
//! [`sample`] (time series, warm-up), [`accounting`] (what is on its way between the ends of
//! each flow, for the summary's losses) and [`summary`].
//!
//! A duplex link is two directed channels; each has an output port at its tail node holding a
//! queue per service category (strict priority, CBR first by default; ITU-T I.371 / TM 4.0
//! service categories, seed 003 "per-QoS buffers, priority scheduling") and a FIFO of the cells
//! in flight with their delivery times. A port transmits at its line rate with exact departure
//! times ([`Pacer`]); a cell is delivered after transmission + propagation (5 us/km) + the
//! receiving switch's fabric delay. Cells are store-and-forward at cell granularity, and a port
//! starts a cell as soon as its line is free (unslotted).
//!
//! Queue length means cells waiting in the buffer, not counting the one being transmitted;
//! buffer limits apply to waiting cells.

mod abr;
mod accounting;
mod calls;
mod defer;
mod deliver;
mod emit;
mod forward;
mod host;
mod sample;
mod sink;
mod summary;
mod trace;

#[cfg(test)]
mod fabric_tests;
#[cfg(test)]
mod piggyback_tests;
#[cfg(test)]
mod workload_tests;

pub use crate::host::endpoint::EndpointHooks;
pub use crate::host::Endpoint;
pub use crate::metrics::Monitor;
pub use crate::net::Shaper;
pub use crate::stats::ci::batch_means_ci95;
pub use crate::wire::Sar;
pub use accounting::{FrameInTransit, InNetwork};
pub use summary::StreamedSummary;
pub use calls::{CallClass, CallSource, CALL_BATCHES};
pub use host::Hosts;
pub use sample::{series_schema, SERIES_TABLES};
pub use trace::{TraceRow, Tracer, SEGMENT_HEADER_BYTES};

use crate::app::{Application, Asks, Ctx};
use crate::engine::{self, Event, EventQueue};
use crate::metrics::*;
use crate::net::*;
use crate::time::*;

/// A built network, ready to run.
pub struct Simulation {
    pub(crate) now: SimTime,
    pub(crate) end: SimTime,
    pub(crate) warmup: SimTime,
    pub(crate) sample_ps: SimDuration,
    pub(crate) samples_taken: u64,
    pub(crate) seed: u64,
    pub(crate) queue: EventQueue,
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    pub groups: Vec<Group>,
    pub flows: Vec<Flow>,
    /// Per flow, the count the `connections` series reads (apart from `flows`: see [`FlowRx`]).
    pub(crate) flow_rx: Vec<FlowRx>,
    pub endpoints: Vec<Endpoint>,
    /// The endpoints a sample asks for a row (those not an application on the cells: ABR
    /// sources, transports), so a sample does not read every endpoint; `None` once an
    /// endpoint's source was replaced (a switched call), rebuilt at the next sample.
    pub(crate) sampled_endpoints: Option<Vec<u32>>,
    pub calls: Vec<CallClass>,
    pub(crate) monitors: Vec<Monitor>,
    pub(crate) events: u64,
    pub(crate) cell_hops: u64,
    /// A fabric's wake due at a cell's arrival runs at once when nothing else is due then
    /// (`Simulation::fabric_wake_now_or_later`); off with `run.departures = "events"`, the
    /// event-per-step reference.
    pub(crate) fabric_now: bool,
    /// The ports whose links are passive sinks' (`Link::sink`, `sim/sink.rs`).
    pub(crate) sinks: Vec<u32>,
    /// When the `Arrive` event being handled was scheduled (set by `tie_begin` on a link whose
    /// far node defers departures; 0 for the other events that look at such ports): how a
    /// deferred departure at the same time is ordered with it (`sim/defer.rs`).
    pub(crate) cause_at: SimTime,
    pub(crate) finished: bool,
    /// The time series (one table per model, columns declared by the models).
    pub(crate) series: Probes,
    /// The host models (`nodes[].host`; empty without any).
    pub hosts: Hosts,
    /// The memory budget of the run's queues (`crate::budget`), and the error that stopped
    /// the run when one crossed it (boxed: the hot `Simulation`'s layout stays as it was).
    pub(crate) budget: Box<crate::budget::Budget>,
    /// The trace (`run.trace`; off without one): `sim/trace.rs`.
    pub(crate) tracer: Tracer,
}

impl Simulation {
    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn end(&self) -> SimTime {
        self.end
    }

    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn cell_hops(&self) -> u64 {
        self.cell_hops
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The time series: every table of [`series_schema`] with the rows so far.
    pub fn series(&self) -> &Probes {
        &self.series
    }

    /// Run at most `max_events` events; returns true once the run has reached its end.
    pub fn advance(&mut self, max_events: u64) -> bool {
        self.advance_bounded(max_events, usize::MAX)
    }

    /// As [`Simulation::advance`], and also stop once the series hold `max_rows` rows or more
    /// (checked after each sample and ABR interval, the events that add rows), so the front end
    /// can drain them ([`Simulation::drain_series`]) with memory bounded whatever the run's
    /// length. Where it stops changes no result: the events run in the same order.
    ///
    /// The queues that grow take their memory from the run's budget while it goes
    /// (`crate::budget`); one that would cross it unwinds out of here with a
    /// [`crate::budget::OverBudget`] payload: [`Simulation::advance_checked`] catches it.
    pub fn advance_bounded(&mut self, max_events: u64, max_rows: usize) -> bool {
        let scope = crate::budget::Scope::enter(self.budget.left);
        let done = self.advance_events(max_events, max_rows);
        self.budget.left = scope.left();
        done
    }

    /// As [`Simulation::advance_bounded`]; a queue crossing the run's memory budget stops the
    /// run with a [`crate::budget::Stopped`] error naming it, the memory limit and the key that
    /// sets it (`run.max_memory_mb`), and every later call returns that error: the simulation's
    /// state was cut short. Other panics unwind as before.
    pub fn advance_checked(
        &mut self,
        max_events: u64,
        max_rows: usize,
    ) -> Result<bool, crate::budget::Stopped> {
        if let Some(e) = &self.budget.stopped {
            return Err(e.clone());
        }
        let run = std::panic::AssertUnwindSafe(|| self.advance_bounded(max_events, max_rows));
        match std::panic::catch_unwind(run) {
            Ok(done) => Ok(done),
            Err(payload) => match payload.downcast::<crate::budget::OverBudget>() {
                Ok(over) => {
                    let e = self.budget.stop(&over, ps_to_secs(self.now));
                    Err(e)
                }
                Err(other) => std::panic::resume_unwind(other),
            },
        }
    }

    /// The run loop of [`Simulation::advance_bounded`].
    #[inline(always)]
    fn advance_events(&mut self, max_events: u64, max_rows: usize) -> bool {
        // the event queue packs one-field events' indices (ports, endpoints, flows, call
        // classes) in 28 bits and checks them here, once, rather than on every push
        let most = [
            self.ports.len(),
            self.endpoints.len(),
            self.flows.len(),
            self.calls.len(),
        ];
        assert!(
            most.into_iter().max().unwrap_or(0) <= crate::engine::MAX_INDEX as usize,
            "too many ports, endpoints, flows or call classes for the event queue's packing"
        );
        let mut n = 0;
        while n < max_events {
            let Some((t, c)) = self.queue.pop_code_before(self.end) else {
                self.events += n;
                self.finish();
                return true;
            };
            self.now = t;
            n += 1;
            // the per-cell events straight from their code (what `step` would do with them)
            let p = engine::payload(c);
            match engine::tag(c) {
                engine::T_ARRIVE => self.arrive(p),
                engine::T_PORT_TX => self.port_tx(p),
                engine::T_ENDPOINT => self.endpoint_timer(p),
                engine::T_LANE => {
                    let e = self.queue.lane_pop(p);
                    self.endpoint_timer(e)
                }
                _ => {
                    let ev = self.queue.event_of(c);
                    let adds_rows = matches!(ev, Event::Sample | Event::AbrInterval(_));
                    self.step(ev);
                    if adds_rows && self.series.rows_held() >= max_rows {
                        break;
                    }
                }
            }
        }
        self.events += n;
        if self.queue.peek_time().is_none_or(|t| t >= self.end) {
            self.finish();
        }
        self.finished
    }

    /// Take the series rows held so far (the tables stay, empty): see
    /// [`crate::metrics::probe::Table::drain`].
    pub fn drain_series(&mut self) -> crate::metrics::probe::Probes {
        self.series.drain()
    }

    /// Run to the end.
    pub fn run(&mut self) {
        while !self.advance(u64::MAX) {}
    }

    /// The run covers [0, end): events at `end` itself do not run, except the last sample.
    pub(crate) fn finish(&mut self) {
        if !self.finished {
            self.now = self.end;
            self.catch_up_all();
            if (self.samples_taken + 1) * self.sample_ps == self.end {
                self.sample();
            }
            for p in &mut self.ports {
                p.stats.area += p.queue.len as u128 * (self.end - p.stats.last_change) as u128;
                p.stats.last_change = self.end;
            }
            self.finished = true;
            if self.tracer.on {
                self.trace_finish();
            }
        }
    }

    /// Handle one event. The run loop (`advance_bounded`) handles the per-cell events (`Arrive`,
    /// `PortTx`, `Endpoint`) from their codes itself, inlined, and the others here, out of line.
    #[inline(never)]
    pub(crate) fn step(&mut self, ev: Event) {
        match ev {
            Event::Arrive(p) => self.arrive(p),
            Event::PortTx(p) => self.port_tx(p),
            Event::Endpoint(e) => self.endpoint_timer(e),
            Event::Sample => self.sample(),
            Event::WarmupEnd => self.warmup_end(),
            Event::AbrInterval(p) => self.abr_interval_timer(p),
            Event::CallArrival(c) => self.call_arrival(c),
            Event::CallEnd(c, s) => self.call_end(c, s),
            Event::CallSetup(c, s, k) => self.call_setup(c, s, k),
            Event::CallConnect(c, s) => self.call_connect(c, s),
            Event::Shaper(f) => self.shaper_release(f),
            Event::Fabric(n, arg) => self.fabric_event(n, arg),
            Event::Host(c, g) => self.host_event(c, g),
            Event::Wake => self.queue.wake(self.now),
        }
    }

    #[inline(always)]
    pub(crate) fn endpoint_timer(&mut self, e: u32) {
        let now = self.now;
        // the host model's CPU, if any (it sees every call: `apply` ends with `host_after_call`)
        let cpu = self.cpu_of(e);
        let ep = &mut self.endpoints[e as usize];
        if ep.timer_at != Some(now) {
            return; // superseded
        }
        ep.timer_at = None;
        if cpu.is_none() {
            // The CBR / persistent source's call asks for one cell and (unless it is past its
            // stop) its next timer, nothing else: what `apply` does with those asks, in its
            // order (the cell, then the timer), without building them.
            if let Some(next) = ep.app.fire_cbr() {
                let flow = ep.flow;
                self.emit(flow);
                if let Some(t) = next {
                    // `arm_timer` where the timer is known to be unset (cleared above; a cell's
                    // emission sets no endpoint's timer): no stale entry to account for
                    let t = t.max(self.now);
                    let ep = &mut self.endpoints[e as usize];
                    debug_assert_eq!(ep.timer_at, None);
                    ep.timer_at = Some(t);
                    if t < self.end {
                        self.queue.push(t, Event::Endpoint(e));
                    }
                }
                return;
            }
        }
        let mut asks = Asks::default();
        let mut ctx = Ctx::new(now, &mut ep.rng, &mut asks);
        ep.app.on_timer(&mut ctx);
        // `apply`, inlined here: the endpoint's timer is the common caller
        self.carry_out(e, &asks, cpu);
    }

    /// Set endpoint `e`'s timer to `t` (not before now), as its application asked.
    #[inline(always)]
    fn arm_timer(&mut self, e: u32, t: SimTime) {
        let t = t.max(self.now);
        let ep = &mut self.endpoints[e as usize];
        // a timer already pending at that time has its event in the queue
        if ep.timer_at != Some(t) {
            let old = ep.timer_at.replace(t);
            if t < self.end {
                self.queue.push(t, Event::Endpoint(e));
            }
            if old.is_some() {
                self.timer_superseded();
            }
        }
    }

    /// An endpoint's timer was moved: the entry of its old time is stale. Past a point the
    /// stale entries are taken out of the queue (engine.rs: `purge_stale_timers`, with why
    /// that is exact).
    #[cold]
    #[inline(never)]
    fn timer_superseded(&mut self) {
        if self.queue.timer_superseded() {
            let eps = &self.endpoints;
            self.queue
                .purge_stale_timers(self.now, |e, t| eps[e as usize].timer_at != Some(t));
        }
    }

    /// Carry out what an application asked for: send cells and frames, set its timer.
    pub(crate) fn apply(&mut self, e: u32, asks: &Asks) {
        let cpu = self.cpu_of(e);
        self.carry_out(e, asks, cpu);
    }

    /// [`Simulation::apply`] for endpoint `e` whose host CPU is `cpu` (None: no host model):
    /// the cell, the frame's cell, the whole frames (through the CPU's send processing, if
    /// any), the cells to send, the timer, then the CPU's view of the call.
    #[inline(always)]
    fn carry_out(&mut self, e: u32, asks: &Asks, cpu: Option<u32>) {
        let flow = self.endpoints[e as usize].flow;
        if let Some(c) = asks.cell {
            self.emit_explicit(flow, c);
        }
        // the endpoint's connection number; an endpoint of number 0 may own several transport
        // connections (the workload runner) and stamps each frame's number itself
        let conn = self.endpoints[e as usize].conn;
        if let Some((len, eof, mut seg)) = asks.frame_cell {
            seg.conn |= conn;
            self.emit_cell(flow, len, eof, seg);
        }
        for &(sdu, mut seg) in &asks.frames {
            seg.conn |= conn;
            if let Some(c) = cpu {
                self.host_tx(c, e, sdu, seg); // send processing first (sim/host.rs)
                continue;
            }
            for (len, eof) in Sar::frame(sdu) {
                self.emit_cell(flow, len, eof, seg);
            }
        }
        for _ in 0..asks.send {
            self.emit(flow);
        }
        if let Some(t) = asks.timer {
            self.arm_timer(e, t);
        }
        if let Some(c) = cpu {
            self.host_after_call(c, e);
        }
    }
}
