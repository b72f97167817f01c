//! The OSU scheme (Jain, Kalyanaraman, Viswanathan, "The OSU scheme for congestion avoidance
//! using explicit rate indication", ATM Forum/94-0883, 1994; OSU-CISRC-1/96-TR02): the port
//! measures its ABR input rate over an averaging interval, the load level z = input /
//! (target utilization x ABR capacity) and FairShare = target rate / active VCs; a backward RM
//! cell of a VC with current rate CCR gets ER = CCR / LAD, the load adjustment decision of the
//! "basic fairness option" (the report's pseudo-code, section 4): inside the target
//! utilization band 1 - delta <= z <= 1 + delta, LAD = z / (1 - delta) for a VC above FairShare
//! and z / (1 + delta) for one below it (the first is slowed, the second sped up, towards
//! FairShare); outside the band LAD = z.
//!
//! Defaults: target utilization 0.9 and band half-width delta 0.1 (ERICA's keys and defaults in
//! this project; the report's figures use a 90% target); interval 5 ms (our choice). Our
//! choices: a VC is active if it sent a forward cell in the interval (as for ERICA), CCR is the
//! forward RM cell's; before the first interval z = 1 and FairShare = the target rate; ER is at
//! most the target rate; with no input (z = 0) ER is the target rate.

use super::{Allocation, Measurement, MeteredRule};
use crate::abr::RM_DIR;
use crate::wire::{Cell, RmFields};

/// The OSU scheme at one output port (in a [`super::Metered`]: U, the interval, z).
#[derive(Clone, Debug, Default)]
pub struct Osu {
    pub delta: f64,
    pub z: f64,
    pub fair: f64,
    pub target: f64,
    pub(crate) interval_id: u32,
    pub(crate) n_active: u32,
    /// Per VC: CCR (Mb/s) and the interval it last sent in.
    pub(crate) vcs: Vec<(f64, u32)>,
}

impl Osu {
    /// The ER for a VC whose CCR is `ccr`.
    pub fn rate(&self, ccr: f64) -> f64 {
        let (lo, hi) = (1.0 - self.delta, 1.0 + self.delta);
        let lad = if self.z >= lo && self.z <= hi {
            if ccr > self.fair {
                self.z / lo
            } else {
                self.z / hi
            }
        } else {
            self.z
        };
        if lad > 0.0 {
            (ccr / lad).min(self.target)
        } else {
            self.target
        }
    }
}

impl MeteredRule for Osu {
    fn start(&mut self, _line_mbps: f64, target_mbps: f64, n_vcs: usize) {
        self.vcs = vec![(0.0, 0); n_vcs];
        self.target = target_mbps;
        self.fair = self.target;
        self.z = 1.0;
        self.interval_id = 1;
    }

    #[inline]
    fn forward(&mut self, _abr_queue: u32, vc: u32, cell: &mut Cell) {
        if !(cell.is_rm() && cell.rm.bits & RM_DIR != 0) {
            let v = &mut self.vcs[vc as usize];
            if v.1 != self.interval_id {
                v.1 = self.interval_id;
                self.n_active += 1;
            }
            if cell.is_rm() {
                v.0 = cell.rm.ccr as f64;
            }
        }
    }

    fn close(&mut self, m: &Measurement) -> Allocation {
        self.target = m.target;
        self.z = m.z;
        self.fair = self.target / self.n_active.max(1) as f64;
        self.n_active = 0;
        self.interval_id += 1;
        Allocation {
            fair: self.fair,
            er_max: self.target,
        }
    }

    #[inline]
    fn backward(&mut self, vc: u32, _abr_queue: u32, rm: &mut RmFields) {
        let er = self.rate(self.vcs[vc as usize].0);
        rm.er = rm.er.min(er as f32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::switch::testing::port;

    #[test]
    fn load_adjustment_and_convergence_to_the_target() {
        let rule = Osu {
            delta: 0.1,
            ..Default::default()
        };
        let mut p = port(rule, 0.9, 100.0, 2);
        let o = &mut p.rule;
        o.z = 2.0;
        assert!(
            (o.rate(60.0) - 30.0).abs() < 1e-12,
            "outside the band: CCR / z"
        );
        o.z = 1.0;
        o.fair = 45.0;
        assert!(
            (o.rate(60.0) - 60.0 * 0.9).abs() < 1e-12,
            "above FairShare: slowed"
        );
        assert!(
            (o.rate(30.0) - 30.0 * 1.1).abs() < 1e-12,
            "below FairShare: sped up"
        );
        // closed loop by hand, two VCs at one port: each round z from their sum, ER = rate(CCR)
        let (mut a, mut b) = (10.0f64, 70.0f64);
        for _ in 0..200 {
            o.z = (a + b) / o.target;
            o.fair = o.target / 2.0;
            (a, b) = (o.rate(a), o.rate(b));
        }
        let z = (a + b) / o.target;
        assert!((0.9..=1.1).contains(&z), "load within the target band: {z}");
        assert!((a - b).abs() / (a + b) < 0.12, "near fair: {a} {b}");
    }
}
