//! Charny's consistent marking (Charny, "An algorithm for rate allocation in a packet-switching
//! network with feedback", MIT LCS TR-601, 1994; Charny, Clark, Jain, "Congestion control with
//! explicit rate indication", ICC 1995): the port keeps each VC's rate from its forward RM cells
//! (CCR) and an advertised rate mu. A VC is *marked* when its rate is at most mu (it is
//! bottlenecked elsewhere); mu is the capacity the marked VCs leave, shared by the unmarked ones:
//!
//!   mu = (C - sum of marked rates) / (active VCs - marked VCs),
//!
//! recomputed until the marking is consistent (every marked VC at most mu, every unmarked one
//! above it); when every VC is marked, mu = C - sum of rates + the largest rate. Every backward
//! RM cell gets ER <- min(ER, mu). With every source obeying, the rates converge to the max-min
//! allocation of the capacities C (the papers' theorem), which the tests check.
//!
//! Parameters: C = target utilization x ABR capacity; the target (0.9, ERICA's) and the 5 ms
//! interval that decides which VCs are active (a forward cell in this interval or the last) are
//! our choice; the papers allocate the whole link. mu is recomputed on each forward RM cell and
//! at each interval's end, in O(active VCs) per pass (no allocation: the per-VC arrays are sized
//! at the start).

use super::{Allocation, Measurement, MeteredRule};
use crate::abr::RM_DIR;
use crate::wire::{Cell, RmFields};

/// Consistent marking at one output port (in a [`super::Metered`]: U, the interval).
#[derive(Clone, Debug, Default)]
pub struct Charny {
    /// The capacity shared out, Mb/s.
    pub capacity: f64,
    /// The advertised rate, Mb/s.
    pub mu: f64,
    pub(crate) interval_id: u32,
    /// Per VC: its rate (Mb/s) and the last interval it sent a forward cell in.
    pub(crate) vcs: Vec<(f64, u32)>,
}

impl Charny {
    fn active(&self, seen: u32) -> bool {
        seen != 0 && seen + 1 >= self.interval_id
    }

    /// The consistent marking's advertised rate for the active VCs' current rates: start with
    /// no VC marked (mu = C / n), mark every VC at most mu, recompute, until no VC is added (mu
    /// never falls as VCs are marked, so at most n passes).
    pub fn advertised(&self) -> f64 {
        let n = self.vcs.iter().filter(|v| self.active(v.1)).count() as u32;
        if n == 0 {
            return self.capacity;
        }
        let mut mu = self.capacity / n as f64;
        let mut marked_before = 0;
        loop {
            let (mut marked, mut sum, mut max) = (0u32, 0.0f64, 0.0f64);
            for &(rate, seen) in &self.vcs {
                if self.active(seen) && rate <= mu {
                    marked += 1;
                    sum += rate;
                    max = max.max(rate);
                }
            }
            mu = if marked == n {
                self.capacity - sum + max
            } else {
                (self.capacity - sum) / (n - marked) as f64
            }
            .max(0.0);
            if marked == marked_before || marked == n {
                return mu;
            }
            marked_before = marked;
        }
    }
}

impl MeteredRule for Charny {
    fn start(&mut self, _line_mbps: f64, target_mbps: f64, n_vcs: usize) {
        self.vcs = vec![(0.0, 0); n_vcs];
        self.capacity = target_mbps;
        self.mu = self.capacity;
        self.interval_id = 1;
    }

    #[inline]
    fn forward(&mut self, _abr_queue: u32, vc: u32, cell: &mut Cell) {
        if !(cell.is_rm() && cell.rm.bits & RM_DIR != 0) {
            let id = self.interval_id;
            let v = &mut self.vcs[vc as usize];
            v.1 = id;
            if cell.is_rm() {
                v.0 = cell.rm.ccr as f64;
                self.mu = self.advertised();
            }
        }
    }

    fn close(&mut self, m: &Measurement) -> Allocation {
        self.capacity = m.target;
        self.interval_id += 1;
        self.mu = self.advertised();
        Allocation {
            fair: self.mu,
            er_max: self.mu,
        }
    }

    #[inline]
    fn backward(&mut self, _vc: u32, _abr_queue: u32, rm: &mut RmFields) {
        rm.er = rm.er.min(self.mu as f32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::switch::testing::{fwd, port};
    use crate::abr::switch::Metered;

    /// A port of `capacity` Mb/s (all shared out) with `n` VCs.
    fn charny(capacity: f64, n: usize) -> Metered<Charny> {
        port(Charny::default(), 1.0, capacity, n)
    }

    #[test]
    fn marking_is_consistent_by_hand() {
        // 100 Mb/s, three VCs: one held at 10 elsewhere, two greedy: mu = (100 - 10) / 2
        let mut c = charny(100.0, 3);
        fwd(&mut c, 0, 10.0, 0.0);
        fwd(&mut c, 1, 80.0, 0.0);
        fwd(&mut c, 2, 80.0, 0.0);
        assert!((c.rule.mu - 45.0).abs() < 1e-9, "{}", c.rule.mu);
        // all below: every VC marked, mu = C - sum + max
        let mut c = charny(100.0, 2);
        fwd(&mut c, 0, 10.0, 0.0);
        fwd(&mut c, 1, 20.0, 0.0);
        let want = 100.0 - 30.0 + 20.0;
        assert!((c.rule.mu - want).abs() < 1e-9, "{}", c.rule.mu);
    }

    #[test]
    fn two_ports_in_a_row_reach_max_min() {
        // the upstream bottleneck by hand: port A (60) carries v0..v2, port B (100) carries v0,
        // v3; every source sends at the smaller of its ports' mu. Max-min: 20, 20, 20, 80.
        let (mut a, mut b) = (charny(60.0, 3), charny(100.0, 2));
        let mut rate = [150.0f64; 4];
        for _ in 0..50 {
            for (vc, r) in rate.iter().enumerate().take(3) {
                fwd(&mut a, vc as u32, *r as f32, 0.0);
            }
            fwd(&mut b, 0, rate[0] as f32, 0.0);
            fwd(&mut b, 1, rate[3] as f32, 0.0);
            let (a, b) = (a.rule.mu, b.rule.mu);
            rate = [a.min(b), a, a, b];
        }
        for (r, want) in rate.iter().zip([20.0, 20.0, 20.0, 80.0]) {
            assert!((r - want).abs() < 1e-9, "{rate:?}");
        }
    }
}
