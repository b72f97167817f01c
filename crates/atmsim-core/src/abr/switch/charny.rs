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

use super::{IntervalMeans, IntervalMeter, IntervalRecord, MeansSum, SwitchScheme};
use crate::abr::RM_DIR;
use crate::time::SimTime;
use crate::wire::{Cell, RmFields};

/// Consistent marking at one output port.
#[derive(Clone, Debug, Default)]
pub struct Charny {
    pub target_utilization: f64,
    pub meter: IntervalMeter,
    /// The capacity shared out, Mb/s.
    pub capacity: f64,
    /// The advertised rate, Mb/s.
    pub mu: f64,
    pub(crate) interval_id: u32,
    /// Per VC: its rate (Mb/s) and the last interval it sent a forward cell in.
    pub(crate) vcs: Vec<(f64, u32)>,
    pub sums: MeansSum,
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

impl SwitchScheme for Charny {
    fn start(&mut self, line_mbps: f64, n_vcs: usize) -> Option<SimTime> {
        self.meter = IntervalMeter::new(self.meter.interval);
        self.vcs = vec![(0.0, 0); n_vcs];
        self.capacity = self.target_utilization * line_mbps;
        self.mu = self.capacity;
        self.interval_id = 1;
        Some(self.meter.deadline)
    }

    #[inline]
    fn on_forward(&mut self, _abr_queue: u32, vc: u32, cell: &mut Cell) -> bool {
        self.meter.abr_in += 1;
        if !(cell.is_rm() && cell.rm.bits & RM_DIR != 0) {
            let id = self.interval_id;
            let v = &mut self.vcs[vc as usize];
            v.1 = id;
            if cell.is_rm() {
                v.0 = cell.rm.ccr as f64;
                self.mu = self.advertised();
            }
        }
        false
    }

    fn next_deadline(&self) -> Option<SimTime> {
        Some(self.meter.deadline)
    }

    fn close_interval(
        &mut self,
        now: SimTime,
        line_mbps: f64,
        hp_cells: u64,
        abr_queue: u32,
        in_window: bool,
    ) -> Option<IntervalRecord> {
        let (input, capacity) = self.meter.close(now, line_mbps, hp_cells)?;
        self.capacity = self.target_utilization * capacity;
        self.interval_id += 1;
        self.mu = self.advertised();
        let z = if self.capacity > 0.0 {
            input / self.capacity
        } else {
            f64::INFINITY
        };
        self.sums.add(in_window, z, self.mu, capacity);
        Some(IntervalRecord {
            z,
            fair: self.mu,
            abr_capacity: capacity,
            input,
            target: self.capacity,
            er_max: self.mu,
            abr_queue,
        })
    }

    #[inline]
    fn on_backward(&mut self, _vc: u32, _abr_queue: u32, rm: &mut RmFields) {
        rm.er = rm.er.min(self.mu as f32);
    }

    fn intervals_closed(&self) -> Option<u64> {
        Some(self.sums.n)
    }

    fn interval_means(&self) -> Option<IntervalMeans> {
        self.sums.means()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::H_RM;

    fn port(capacity: f64, n: usize) -> Charny {
        let mut c = Charny {
            target_utilization: 1.0,
            meter: IntervalMeter::new(5_000_000_000),
            ..Default::default()
        };
        c.start(capacity, n);
        c
    }

    fn frm(c: &mut Charny, vc: u32, ccr: f64) {
        let mut cell = Cell {
            hdr: H_RM,
            ..Default::default()
        };
        cell.rm.ccr = ccr as f32;
        c.on_forward(0, vc, &mut cell);
    }

    #[test]
    fn marking_is_consistent_by_hand() {
        // 100 Mb/s, three VCs: one held at 10 elsewhere, two greedy: mu = (100 - 10) / 2
        let mut c = port(100.0, 3);
        frm(&mut c, 0, 10.0);
        frm(&mut c, 1, 80.0);
        frm(&mut c, 2, 80.0);
        assert!((c.mu - 45.0).abs() < 1e-9, "{}", c.mu);
        // all below: every VC marked, mu = C - sum + max
        let mut c = port(100.0, 2);
        frm(&mut c, 0, 10.0);
        frm(&mut c, 1, 20.0);
        assert!((c.mu - (100.0 - 30.0 + 20.0)).abs() < 1e-9, "{}", c.mu);
    }

    #[test]
    fn two_ports_in_a_row_reach_max_min() {
        // the upstream bottleneck by hand: port A (60) carries v0..v2, port B (100) carries v0,
        // v3; every source sends at the smaller of its ports' mu. Max-min: 20, 20, 20, 80.
        let (mut a, mut b) = (port(60.0, 3), port(100.0, 2));
        let mut rate = [150.0f64; 4];
        for _ in 0..50 {
            for (vc, r) in rate.iter().enumerate().take(3) {
                frm(&mut a, vc as u32, *r);
            }
            frm(&mut b, 0, rate[0]);
            frm(&mut b, 1, rate[3]);
            rate = [a.mu.min(b.mu), a.mu, a.mu, b.mu];
        }
        for (r, want) in rate.iter().zip([20.0, 20.0, 20.0, 80.0]) {
            assert!((r - want).abs() < 1e-9, "{rate:?}");
        }
    }
}
