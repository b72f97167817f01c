//! Per-port schedulers between the service-category queues: the extension point that picks
//! which category an output port serves next. One enum, [`Scheduler`], matched in its methods
//! here; a new scheduler is a new variant (and its file, if it has state).
//!
//! - strict priority (TM 4.0 / I.371 service categories, CBR first by default; the order is
//!   `nodes[].priority`);
//! - [`ClassSched`]: per-category minimum and maximum rates with strict priority or weighted
//!   round robin for the rest (seed 003: "per-QoS buffers ... priority scheduling").

use crate::net::Queue;
use crate::time::*;

/// How a port chooses the next category to serve.
pub enum Scheduler {
    /// Strict priority in this order of categories.
    Strict([u8; 5]),
    /// Rate limits and guarantees per category, then strict priority or WRR.
    Class(Box<ClassSched>),
}

impl Scheduler {
    /// Plain strict priority (no rate limits or guarantees, no WRR): a waiting cell's turn
    /// depends only on the cells ahead of it and of higher categories.
    pub fn is_strict(&self) -> bool {
        matches!(self, Scheduler::Strict(_))
    }

    /// The category strict priority serves next: the first in its order with cells waiting
    /// (`class_len`: cells waiting per category, not all zero). What [`Scheduler::pick`] gives a
    /// strict scheduler, from the counts (deferred departures, `sim/defer.rs`).
    #[inline]
    pub fn strict_next(&self, class_len: &[u32; 5]) -> usize {
        match self {
            Scheduler::Strict(order) => {
                for &c in order {
                    if class_len[c as usize] > 0 {
                        return c as usize;
                    }
                }
                unreachable!("a cell waits")
            }
            Scheduler::Class(_) => unreachable!("deferred departures need strict priority"),
        }
    }

    /// May a cell of category `cls` start now on an idle line (cut-through of an empty queue)?
    #[inline]
    pub fn allowed(&self, cls: usize, now: SimTime) -> bool {
        match self {
            Scheduler::Strict(_) => true,
            Scheduler::Class(s) => s.allowed(cls, now),
        }
    }

    /// Account for a cell of category `cls` that starts now without waiting.
    #[inline]
    pub fn served(&mut self, cls: usize, now: SimTime) {
        match self {
            Scheduler::Strict(_) => {}
            Scheduler::Class(s) => s.served(cls, now),
        }
    }

    /// The category to serve now (accounted as served), `Ok(None)` when nothing waits, or
    /// `Err(t)`: cells wait but none may go before `t`.
    #[inline]
    pub fn pick(&mut self, q: &Queue, now: SimTime) -> Result<Option<usize>, SimTime> {
        match self {
            Scheduler::Strict(order) => Ok(order
                .iter()
                .map(|&c| c as usize)
                .find(|&c| !q.cells[c].is_empty())),
            Scheduler::Class(s) => {
                let nonempty = q.nonempty();
                match s.pick(nonempty, now) {
                    Ok(c) => {
                        s.served(c, now);
                        Ok(Some(c))
                    }
                    Err(t) if nonempty.iter().any(|&b| b) => Err(t),
                    Err(_) => Ok(None),
                }
            }
        }
    }
}

/// Which category a port serves next when it is not plain strict priority (seed 003: per-QoS
/// buffers with a maximum allocated and a minimum guaranteed bandwidth; weighted round robin).
///
/// A category with a minimum rate is served first, in priority order, while it is below that
/// rate (its virtual time `min_tat` has passed); a category with a maximum rate is not served
/// before `max_tat` (the port idles if nothing else may go). The rest is strict priority or WRR.
pub struct ClassSched {
    pub(crate) order: [u8; 5],
    pub(crate) wrr: bool,
    pub(crate) weights: [u32; 5],
    pub(crate) quota: [u32; 5],
    pub(crate) cursor: usize,
    pub(crate) min_t: [SimDuration; 5],
    pub(crate) min_tat: [SimTime; 5],
    pub(crate) max_t: [SimDuration; 5],
    pub(crate) max_tat: [SimTime; 5],
}

impl ClassSched {
    /// A scheduler serving the categories in strict-priority `order` (or by WRR with `weights`,
    /// cells per round, when `wrr`), each category held to its maximum rate and served first
    /// below its minimum rate, Mb/s (`None`: no limit, no guarantee; index = `Category as usize`).
    /// A rate becomes the interval of one cell at that rate, rounded up to whole picoseconds.
    pub(crate) fn new(
        order: [u8; 5],
        wrr: bool,
        weights: [u32; 5],
        min_mbps: [Option<f64>; 5],
        max_mbps: [Option<f64>; 5],
    ) -> ClassSched {
        let interval = |r: [Option<f64>; 5]| {
            r.map(|v| v.map(|v| CELL_BIT_PS.div_ceil(mbps_to_bps(v))).unwrap_or(0))
        };
        ClassSched {
            order,
            wrr,
            weights,
            quota: weights,
            cursor: 0,
            min_t: interval(min_mbps),
            min_tat: [0; 5],
            max_t: interval(max_mbps),
            max_tat: [0; 5],
        }
    }

    #[inline]
    pub(crate) fn allowed(&self, c: usize, now: SimTime) -> bool {
        self.max_t[c] == 0 || now >= self.max_tat[c]
    }

    /// Account for one cell of category `c` sent now. The virtual times may lag `now` by one
    /// interval (a GCRA with a tolerance of one cell at that rate), so a category served only at
    /// the port's cell slots still averages its exact rate.
    pub(crate) fn served(&mut self, c: usize, now: SimTime) {
        if self.min_t[c] > 0 {
            self.min_tat[c] =
                self.min_tat[c].max(now.saturating_sub(self.min_t[c])) + self.min_t[c];
        }
        if self.max_t[c] > 0 {
            self.max_tat[c] =
                self.max_tat[c].max(now.saturating_sub(self.max_t[c])) + self.max_t[c];
        }
    }

    /// The category to serve now, or the earliest time one may be served.
    pub(crate) fn pick(&mut self, nonempty: [bool; 5], now: SimTime) -> Result<usize, SimTime> {
        let ok = |s: &Self, c: usize| nonempty[c] && s.allowed(c, now);
        if let Some(&c) = self.order.iter().find(|&&c| {
            ok(self, c as usize) && self.min_t[c as usize] > 0 && now >= self.min_tat[c as usize]
        }) {
            return Ok(c as usize);
        }
        if self.wrr {
            for _ in 0..2 {
                for k in 0..5 {
                    let i = (self.cursor + k) % 5;
                    let c = self.order[i] as usize;
                    if ok(self, c) && self.quota[c] > 0 {
                        self.quota[c] -= 1;
                        self.cursor = if self.quota[c] == 0 { (i + 1) % 5 } else { i };
                        return Ok(c);
                    }
                }
                self.quota = self.weights; // a new round
            }
        } else if let Some(&c) = self.order.iter().find(|&&c| ok(self, c as usize)) {
            return Ok(c as usize);
        }
        Err((0..5)
            .filter(|&c| nonempty[c])
            .map(|c| self.max_tat[c])
            .min()
            .unwrap_or(now))
    }
}
