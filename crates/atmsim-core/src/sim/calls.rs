//! Switched calls: Poisson arrivals, hop-by-hop set-up with CAC at each switch, release, and the
//! blocking statistics. A call class (scenario `calls[]`) holds its prepared slots (idle flows
//! that calls take) and its blocking counts per batch of the measurement window.

use crate::app::{Application, Asks, Ctx};
use crate::cac::Reservation;
use crate::engine::Event;
use crate::host::AnySource;
use crate::policing::Contract;
use crate::rng::Rng;
use crate::sim::*;
use crate::time::*;
use rand_distr::{Distribution, Exp};

impl Simulation {
    /// A call arrives: CAC at every port of the route (all or nothing), then a free slot.
    pub(crate) fn call_arrival(&mut self, c: u32) {
        let now = self.now;
        let in_window = now >= self.warmup;
        let cls = &mut self.calls[c as usize];
        let gap = Exp::new(cls.rate_per_s)
            .expect("validated rate")
            .sample(&mut cls.rng);
        let next = now + secs_to_ps(gap).max(1);
        if next < cls.stop.min(self.end) {
            self.queue.push(next, Event::CallArrival(c));
        }
        let hold_s = if cls.exponential {
            Exp::new(1.0 / cls.holding_mean_s)
                .expect("validated holding")
                .sample(&mut cls.rng)
        } else {
            cls.holding_mean_s
        };
        let batch = call_batch(now, self.warmup, self.end);
        if in_window {
            cls.offered += 1;
            cls.batch_offered[batch] += 1;
        }
        let Some(slot) = cls.free.pop() else {
            if in_window {
                cls.no_slot += 1;
                cls.batch_blocked[batch] += 1;
            }
            return;
        };
        cls.calls[slot as usize] = (now, hold_s);
        // the SETUP crosses the calling host's link to the first switch
        let flow = cls.slots[slot as usize].0;
        let p0 = self.flows[flow as usize].ports[0];
        let t = now + self.ports[p0 as usize].link.delay_ps;
        self.queue.push(t, Event::CallSetup(c, slot, 1));
    }

    /// Q.2931-style set-up, hop by hop (seed 003's CAC at each switch): the SETUP reaches node
    /// `hop` of the route; a switch processes it and, if its output port on the route runs CAC,
    /// admits or refuses the call there. A refusal releases what the call holds upstream (at
    /// once: the RELEASE message's travel is not modelled) and blocks the call. At the called
    /// host the call is accepted and a CONNECT goes back along the route.
    pub(crate) fn call_setup(&mut self, c: u32, slot: u32, hop: u32) {
        let now = self.now;
        let cls = &self.calls[c as usize];
        let flow = cls.slots[slot as usize].0 as usize;
        let route_len = self.flows[flow].ports.len() as u32 + 1;
        let arrived = cls.calls[slot as usize].0;
        let in_window = arrived >= self.warmup;
        if hop == route_len - 1 {
            // the called host accepts; the CONNECT takes the way back (same links and switches)
            let cls = &mut self.calls[c as usize];
            if in_window {
                cls.admitted += 1;
            }
            let t = now + (now - arrived);
            self.queue.push(t, Event::CallConnect(c, slot));
            return;
        }
        let p = self.flows[flow].ports[hop as usize];
        let node = self.ports[p as usize].node;
        let t = now + self.nodes[node as usize].setup_ps;
        let contract = self.calls[c as usize].contract;
        let port = &mut self.ports[p as usize];
        if let Some(cac) = port.cac.as_mut() {
            match cac.admit(&contract) {
                Some(r) => {
                    port.cac_max_bps = port.cac_max_bps.max(cac.allocated_bps());
                    self.calls[c as usize].slots[slot as usize].2.push(r);
                }
                None => {
                    let batch = call_batch(arrived, self.warmup, self.end);
                    let cls = &mut self.calls[c as usize];
                    if in_window {
                        cls.blocked += 1;
                        cls.batch_blocked[batch] += 1;
                    }
                    self.release_call(c, slot);
                    return;
                }
            }
        }
        let delay = self.ports[p as usize].link.delay_ps;
        self.queue
            .push(t + delay, Event::CallSetup(c, slot, hop + 1));
    }

    /// Free a call's reservations and its slot.
    pub(crate) fn release_call(&mut self, c: u32, slot: u32) {
        let cls = &mut self.calls[c as usize];
        let held = std::mem::take(&mut cls.slots[slot as usize].2);
        for (r, &p) in held.into_iter().zip(&cls.ports) {
            self.ports[p as usize]
                .cac
                .as_mut()
                .expect("CAC port")
                .release(r);
        }
        cls.free.push(slot);
    }

    /// The CONNECT reaches the calling host: the call's source starts and holds for its
    /// holding time.
    pub(crate) fn call_connect(&mut self, c: u32, slot: u32) {
        let now = self.now;
        let cls = &mut self.calls[c as usize];
        let (arrived, hold_s) = cls.calls[slot as usize];
        if arrived >= self.warmup {
            cls.setup_sum_ps += (now - arrived) as u128;
            cls.connected += 1;
        }
        cls.active += 1;
        cls.max_active = cls.max_active.max(cls.active);
        let end = now + secs_to_ps(hold_s).max(1);
        let e = cls.slots[slot as usize].1;
        let app = (cls.make_source)(now, end);
        let ep = &mut self.endpoints[e as usize];
        ep.app = app;
        ep.timer_at = None;
        self.sampled_endpoints = None;
        let mut asks = Asks::default();
        let mut ctx = Ctx::new(now, &mut ep.rng, &mut asks);
        ep.app.start(&mut ctx);
        self.apply(e, &asks);
        if end < self.end {
            self.queue.push(end, Event::CallEnd(c, slot));
        }
    }

    /// A call ends: its reservations are released and its slot is free again.
    pub(crate) fn call_end(&mut self, c: u32, slot: u32) {
        let e = self.calls[c as usize].slots[slot as usize].1;
        self.release_call(c, slot);
        self.calls[c as usize].active -= 1;
        let ep = &mut self.endpoints[e as usize];
        ep.app = AnySource::IDLE;
        ep.timer_at = None;
        self.sampled_endpoints = None;
    }
}

/// A class of switched calls (scenario `calls[]`).
pub struct CallClass {
    pub name: String,
    pub(crate) contract: Contract,
    /// Builds a call's source, starting and stopping at the given times (made by the builder,
    /// which knows the class's source; the engine depends on neither).
    pub(crate) make_source: CallSource,
    pub(crate) rate_per_s: f64,
    pub(crate) holding_mean_s: f64,
    pub(crate) exponential: bool,
    pub(crate) stop: SimTime,
    /// Switch ports on the route that run CAC.
    pub(crate) ports: Vec<u32>,
    /// Prepared (flow, endpoint) pairs, their reservations while a call holds them.
    pub(crate) slots: Vec<(u32, u32, Vec<Reservation>)>,
    /// Per slot, the call being set up or held: (arrival time, holding time s).
    pub(crate) calls: Vec<(SimTime, f64)>,
    /// Sum of the set-up delays (arrival to CONNECT) of the calls connected after warm-up.
    pub(crate) setup_sum_ps: u128,
    pub(crate) connected: u64,
    pub(crate) free: Vec<u32>,
    pub(crate) rng: Rng,
    pub(crate) offered: u64,
    pub(crate) admitted: u64,
    pub(crate) blocked: u64,
    pub(crate) no_slot: u64,
    /// Calls offered and blocked (CAC or no slot) per batch of the measurement window, by
    /// arrival time, for the batch-means confidence interval.
    pub(crate) batch_offered: [u64; CALL_BATCHES],
    pub(crate) batch_blocked: [u64; CALL_BATCHES],
    pub(crate) active: u32,
    pub(crate) max_active: u32,
}

/// A call's source from its start and stop times, ps.
pub type CallSource = Box<dyn Fn(SimTime, SimTime) -> AnySource + Send + Sync>;

/// Batches of the measurement window for the confidence interval of a call class's blocking.
pub const CALL_BATCHES: usize = 20;

/// The batch (of [`CALL_BATCHES`] equal parts of [warm-up, end)) of a call arriving at `t`.
pub(crate) fn call_batch(t: SimTime, warmup: SimTime, end: SimTime) -> usize {
    let span = end.saturating_sub(warmup).max(1) as u128;
    ((t.saturating_sub(warmup) as u128 * CALL_BATCHES as u128 / span) as usize)
        .min(CALL_BATCHES - 1)
}
