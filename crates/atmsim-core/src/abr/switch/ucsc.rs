//! The UCSC scheme (Kalampoukas, Varma, Ramakrishnan, "An efficient rate allocation algorithm
//! for ATM networks providing max-min fairness", Proc. 6th IFIP International Conference on High
//! Performance Networking, September 1995; also UC Santa Cruz report UCSC-CRL-95-29, June 1995):
//! max-min rates with a constant number of operations per RM cell.
//!
//! The port keeps, per VC, a recorded rate and whether the VC is *restricted* (its rate is held
//! below this port's share by another link or by the source), and, for the port, the number of
//! active VCs N, of restricted ones N_r, and the sum B_r of the restricted VCs' recorded rates.
//! The advertised rate, the equal share of what the restricted VCs leave, is
//!
//!   A = (C - B_r) / (N - N_r),
//!
//! and, when every active VC is restricted, A = C - B_r + the largest restricted rate (the
//! spare capacity offered to the VC that can use it). A backward RM cell of VC i with request R
//! (the smaller of the ER it carries and its CCR) updates the state in O(1): take i out of the
//! restricted set if it was in it; compute A with i unrestricted; if R < A, i is restricted with
//! recorded rate R (N_r, B_r updated), else it is unrestricted; recompute A; write
//! ER <- min(ER, A). Forward RM cells get ER <- min(ER, A) too (the stamped rate of the forward
//! pass), so ports downstream learn the upstream limit one round trip earlier. At a fixed point
//! every VC bottlenecked here is unrestricted and gets A, every other one is restricted at its
//! rate elsewhere: the max-min allocation of the capacities C.
//!
//! What is ours (the papers' text was not available to us; the description above is our
//! reading of the scheme as it is cited, not a quotation): the state is updated on backward RM
//! cells only, whose ER already carries the limits of the whole path; the request includes the
//! CCR, so a VC whose source sends less than it is allowed counts as restricted; a VC counts as
//! active while it sent a forward cell in the current or the last averaging interval (5 ms); C
//! is the target utilization (0.9, ERICA's) x the ABR capacity measured per interval (the paper
//! shares the whole link); the largest restricted rate, needed only when every active VC is
//! restricted (a port that is no bottleneck), is found by a scan of the port's VCs. Rates are
//! compared at the RM field's precision (f32), so that a VC given exactly A and reporting it
//! back is not mistaken for a restricted one.

use super::{Allocation, Measurement, MeteredRule};
use crate::abr::RM_DIR;
use crate::wire::{Cell, RmFields};

/// Per-VC state of a UCSC port.
#[derive(Clone, Copy, Debug, Default)]
pub struct UcscVc {
    /// The recorded rate of a restricted VC, Mb/s.
    pub rate: f64,
    pub restricted: bool,
    /// The last averaging interval the VC sent a forward cell in (0: never).
    seen: u32,
}

/// The UCSC scheme at one output port (in a [`super::Metered`]: U, the interval).
#[derive(Clone, Debug, Default)]
pub struct Ucsc {
    /// The capacity shared out, C, Mb/s.
    pub capacity: f64,
    /// The advertised rate A, Mb/s.
    pub advertised: f64,
    pub(crate) interval_id: u32,
    pub(crate) vcs: Vec<UcscVc>,
    /// Active VCs (N), restricted active VCs (N_r) and their recorded rates' sum (B_r).
    pub(crate) n_active: u32,
    pub(crate) n_restricted: u32,
    pub(crate) restricted_sum: f64,
}

impl Ucsc {
    fn active(&self, seen: u32) -> bool {
        seen != 0 && seen + 1 >= self.interval_id
    }

    /// A for the current state (see the module notes).
    pub fn equal_share(&self) -> f64 {
        let spare = (self.capacity - self.restricted_sum).max(0.0);
        if self.n_active > self.n_restricted {
            spare / (self.n_active - self.n_restricted) as f64
        } else if self.n_active == 0 {
            self.capacity
        } else {
            let largest = self
                .vcs
                .iter()
                .filter(|v| v.restricted)
                .fold(0.0f64, |m, v| m.max(v.rate));
            spare + largest
        }
    }

    fn unrestrict(&mut self, vc: usize) {
        let v = &mut self.vcs[vc];
        if v.restricted {
            v.restricted = false;
            self.n_restricted -= 1;
            self.restricted_sum -= v.rate;
            if self.n_restricted == 0 {
                self.restricted_sum = 0.0; // no rounding residue once the set is empty
            }
        }
    }

    /// The O(1) update for a backward RM cell of VC `vc` with request `request` (Mb/s); returns
    /// the advertised rate to write.
    pub fn update(&mut self, vc: u32, request: f64) -> f64 {
        let vc = vc as usize;
        if !self.active(self.vcs[vc].seen) {
            // a backward RM cell of a VC not active here: nothing to record
            return self.advertised;
        }
        self.unrestrict(vc);
        let share = self.equal_share();
        if (request as f32) < (share as f32) {
            let v = &mut self.vcs[vc];
            v.restricted = true;
            v.rate = request;
            self.n_restricted += 1;
            self.restricted_sum += request;
        }
        self.advertised = self.equal_share();
        self.advertised
    }
}

impl MeteredRule for Ucsc {
    fn start(&mut self, _line_mbps: f64, target_mbps: f64, n_vcs: usize) {
        self.vcs = vec![UcscVc::default(); n_vcs];
        self.capacity = target_mbps;
        self.advertised = self.capacity;
        self.interval_id = 1;
        self.n_active = 0;
        self.n_restricted = 0;
        self.restricted_sum = 0.0;
    }

    #[inline]
    fn forward(&mut self, _abr_queue: u32, vc: u32, cell: &mut Cell) {
        if !(cell.is_rm() && cell.rm.bits & RM_DIR != 0) {
            let id = self.interval_id;
            let was_active = self.active(self.vcs[vc as usize].seen);
            self.vcs[vc as usize].seen = id;
            if !was_active {
                self.n_active += 1;
                self.advertised = self.equal_share();
            }
            if cell.is_rm() {
                cell.rm.er = cell.rm.er.min(self.advertised as f32);
            }
        }
    }

    fn close(&mut self, m: &Measurement) -> Allocation {
        self.capacity = m.target;
        self.interval_id += 1;
        // VCs silent for a whole interval leave the active set (once per interval: O(VCs))
        for i in 0..self.vcs.len() {
            let seen = self.vcs[i].seen;
            if seen != 0 && seen + 2 == self.interval_id {
                self.unrestrict(i);
                self.n_active -= 1;
            }
        }
        self.advertised = self.equal_share();
        Allocation {
            fair: self.advertised,
            er_max: self.advertised,
        }
    }

    #[inline]
    fn backward(&mut self, vc: u32, _abr_queue: u32, rm: &mut RmFields) {
        let request = (rm.er.min(rm.ccr)) as f64;
        let a = self.update(vc, request);
        rm.er = rm.er.min(a as f32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::switch::testing::{brm, fwd, port, INTERVAL};
    use crate::abr::switch::{Metered, SwitchScheme};

    /// A port of `capacity` Mb/s (all shared out) with `n` VCs.
    fn ucsc(capacity: f64, n: usize) -> Metered<Ucsc> {
        port(Ucsc::default(), 1.0, capacity, n)
    }

    /// A forward RM cell of `vc` (makes it active); returns the ER it leaves with.
    fn frm(u: &mut Metered<Ucsc>, vc: u32, er: f32) -> f32 {
        fwd(u, vc, 0.0, er)
    }

    /// A backward RM cell of `vc` carrying `er` and `ccr`; returns the ER written.
    fn back(u: &mut Metered<Ucsc>, vc: u32, er: f32, ccr: f32) -> f32 {
        brm(u, vc, 0, er, ccr).er
    }

    #[test]
    fn restricted_vcs_leave_their_share_to_the_others() {
        // 100 Mb/s, three VCs: one held at 10 elsewhere, two asking for the line rate
        let mut u = ucsc(100.0, 3);
        // each VC that becomes active is counted before its cell is stamped: C / 1, C / 2, C / 3
        for (vc, n) in [(0u32, 1.0f64), (1, 2.0), (2, 3.0)] {
            assert_eq!(frm(&mut u, vc, 150.0), (100.0 / n) as f32);
        }
        assert!((u.rule.advertised - 100.0 / 3.0).abs() < 1e-9);
        back(&mut u, 0, 10.0, 10.0);
        assert_eq!((u.rule.n_restricted, u.rule.restricted_sum), (1, 10.0));
        assert!((u.rule.advertised - 45.0).abs() < 1e-9, "(100 - 10) / 2");
        // a greedy VC is unrestricted and gets A
        assert_eq!(back(&mut u, 1, 150.0, 45.0), 45.0);
        assert_eq!(u.rule.n_restricted, 1);
        // the restricted VC's limit rises above A: it becomes unrestricted, A = 100 / 3
        let a = back(&mut u, 0, 150.0, 60.0);
        assert_eq!(u.rule.n_restricted, 0);
        assert!((a as f64 - 100.0 / 3.0).abs() < 1e-5);
    }

    #[test]
    fn every_vc_restricted_offers_the_spare_to_the_largest() {
        let mut u = ucsc(100.0, 2);
        frm(&mut u, 0, 150.0);
        frm(&mut u, 1, 150.0);
        back(&mut u, 0, 10.0, 10.0);
        back(&mut u, 1, 20.0, 20.0);
        assert_eq!(u.rule.n_restricted, 2);
        assert!((u.rule.advertised - (100.0 - 30.0 + 20.0)).abs() < 1e-9);
    }

    #[test]
    fn a_silent_vc_leaves_the_active_set() {
        let mut u = ucsc(100.0, 2);
        frm(&mut u, 0, 150.0);
        frm(&mut u, 1, 150.0);
        back(&mut u, 1, 10.0, 10.0);
        u.close_interval(INTERVAL, 100.0, 0, 0, true);
        frm(&mut u, 0, 150.0); // VC 1 silent in interval 2
        u.close_interval(2 * INTERVAL, 100.0, 0, 0, true);
        assert_eq!(
            (u.rule.n_active, u.rule.n_restricted, u.rule.restricted_sum),
            (1, 0, 0.0)
        );
        assert!((u.rule.advertised - 100.0).abs() < 1e-9);
    }

    #[test]
    fn two_ports_in_a_row_reach_max_min() {
        // the upstream bottleneck by hand: port A (60) carries v0..v2, port B (100) carries v0,
        // v3; a VC's forward RM cell crosses A then B (v3 only B), its backward RM cell B then
        // A; every source sends at the ER it gets back. Max-min: 20, 20, 20, 80.
        let (mut a, mut b) = (ucsc(60.0, 3), ucsc(100.0, 2));
        let mut rate = [10.0f32; 4];
        for _ in 0..20 {
            let mut er = [150.0f32; 4];
            for vc in 0..3 {
                er[vc] = frm(&mut a, vc as u32, er[vc]);
            }
            er[0] = frm(&mut b, 0, er[0]);
            er[3] = frm(&mut b, 1, er[3]);
            er[0] = back(&mut b, 0, er[0], rate[0]);
            er[3] = back(&mut b, 1, er[3], rate[3]);
            for vc in 0..3 {
                er[vc] = back(&mut a, vc as u32, er[vc], rate[vc]);
            }
            rate = er;
        }
        for (r, want) in rate.iter().zip([20.0, 20.0, 20.0, 80.0]) {
            assert!((*r as f64 - want).abs() < 1e-4, "{rate:?}");
        }
    }
}
