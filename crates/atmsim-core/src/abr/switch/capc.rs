//! CAPC, Congestion Avoidance using Proportional Control (Barnhart, "Example switch algorithm
//! for section 5.4 of TM spec.", ATM Forum/94-0983R1, 1994), as the ATM Forum's survey describes
//! it (Jain, Computer Networks and ISDN Systems 28, 1996, section 8): the port measures its ABR
//! input rate over an interval, z = input / (U x ABR capacity), and keeps one explicit rate ERS
//! for all its VCs:
//!
//! - z < 1: ERS <- ERS x min(ERU, 1 + (1 - z) Rup);
//! - z > 1: ERS <- ERS x max(ERF, 1 - (z - 1) Rdn);
//!
//! every backward RM cell gets ER <- min(ER, ERS), and CI while the ABR queue is above a
//! threshold.
//!
//! Defaults: ERU = 1.5 and ERF = 0.5 (the survey's); Rup = 0.1 and Rdn = 0.8, the upper ends of
//! the ranges the survey gives (0.025-0.1 and 0.2-0.8); U = 0.9, the interval (5 ms) and the CI
//! threshold (500 cells) are our choice (ERICA's target and interval; EPRCA's DQT), fixed before
//! any run. Our choices: ERS starts at U x the line rate and is kept within (0, ABR capacity].

use super::{Allocation, Measurement, MeteredRule};
use crate::abr::RM_CI;
use crate::wire::RmFields;

/// CAPC at one output port (in a [`super::Metered`]: U, the interval, z).
#[derive(Clone, Debug, Default)]
pub struct Capc {
    pub rup: f64,
    pub rdn: f64,
    /// Largest increase factor per interval.
    pub eru: f64,
    /// Smallest decrease factor per interval.
    pub erf: f64,
    /// CI above this many ABR cells.
    pub qt: u32,
    /// The port's explicit rate, Mb/s.
    pub ers: f64,
    pub z: f64,
}

impl Capc {
    /// One interval's update of ERS from the load factor `z`.
    pub fn update(&mut self, z: f64, capacity: f64) {
        let factor = if z < 1.0 {
            self.eru.min(1.0 + (1.0 - z) * self.rup)
        } else {
            self.erf.max(1.0 - (z - 1.0) * self.rdn)
        };
        self.ers = (self.ers * factor).min(capacity.max(1e-6)).max(1e-6);
    }
}

impl MeteredRule for Capc {
    fn start(&mut self, _line_mbps: f64, target_mbps: f64, _n_vcs: usize) {
        self.ers = target_mbps;
        self.z = 1.0;
    }

    fn close(&mut self, m: &Measurement) -> Allocation {
        self.z = m.z;
        self.update(self.z, m.capacity);
        Allocation {
            fair: self.ers,
            er_max: self.ers,
        }
    }

    #[inline]
    fn backward(&mut self, _vc: u32, abr_queue: u32, rm: &mut RmFields) {
        rm.er = rm.er.min(self.ers as f32);
        if abr_queue > self.qt {
            rm.bits |= RM_CI;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::switch::testing::{brm, port};
    use crate::abr::switch::Metered;

    fn capc(line_mbps: f64, n_vcs: usize) -> Metered<Capc> {
        let rule = Capc {
            rup: 0.1,
            rdn: 0.8,
            eru: 1.5,
            erf: 0.5,
            qt: 500,
            ..Default::default()
        };
        port(rule, 0.9, line_mbps, n_vcs)
    }

    #[test]
    fn ers_moves_proportionally_to_the_load_and_rests_at_z_1() {
        let mut p = capc(100.0, 1);
        let c = &mut p.rule;
        c.ers = 40.0;
        c.update(0.5, 100.0);
        assert!((c.ers - 40.0 * 1.05).abs() < 1e-9, "{}", c.ers);
        c.update(1.25, 100.0);
        assert!((c.ers - 40.0 * 1.05 * 0.8).abs() < 1e-9);
        c.update(3.0, 100.0);
        assert!(
            (c.ers - 40.0 * 1.05 * 0.8 * 0.5).abs() < 1e-9,
            "ERF bounds the cut"
        );
        let before = c.ers;
        c.update(1.0, 100.0);
        assert_eq!(c.ers, before, "z = 1 is the fixed point");
        // closed loop by hand: N sources each at ERS into one port: ERS -> U C / N
        let (n, cap) = (4.0, 150.0);
        let mut p = capc(cap, 4);
        let c = &mut p.rule;
        for _ in 0..400 {
            let z = n * c.ers / (0.9 * cap);
            c.update(z, cap);
        }
        assert!((c.ers - 0.9 * cap / n).abs() < 1e-6, "{}", c.ers);
        let rm = brm(&mut p, 0, 501, 155.0, 0.0);
        assert_eq!(rm.bits & RM_CI, RM_CI);
        assert!((rm.er as f64 - p.rule.ers).abs() < 1e-3);
    }
}
