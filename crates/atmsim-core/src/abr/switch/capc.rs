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

use super::{IntervalMeans, IntervalMeter, IntervalRecord, MeansSum, SwitchScheme};
use crate::abr::RM_CI;
use crate::time::SimTime;
use crate::wire::{Cell, RmFields};

/// CAPC at one output port.
#[derive(Clone, Debug, Default)]
pub struct Capc {
    pub target_utilization: f64,
    pub rup: f64,
    pub rdn: f64,
    /// Largest increase factor per interval.
    pub eru: f64,
    /// Smallest decrease factor per interval.
    pub erf: f64,
    /// CI above this many ABR cells.
    pub qt: u32,
    pub meter: IntervalMeter,
    /// The port's explicit rate, Mb/s.
    pub ers: f64,
    pub z: f64,
    pub sums: MeansSum,
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

impl SwitchScheme for Capc {
    fn start(&mut self, line_mbps: f64, _n_vcs: usize) -> Option<SimTime> {
        self.meter = IntervalMeter::new(self.meter.interval);
        self.ers = self.target_utilization * line_mbps;
        self.z = 1.0;
        Some(self.meter.deadline)
    }

    #[inline]
    fn on_forward(&mut self, _abr_queue: u32, _vc: u32, _cell: &mut Cell) -> bool {
        self.meter.abr_in += 1;
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
        let target = self.target_utilization * capacity;
        self.z = if target > 0.0 {
            input / target
        } else {
            f64::INFINITY
        };
        self.update(self.z, capacity);
        self.sums.add(in_window, self.z, self.ers, capacity);
        Some(IntervalRecord {
            z: self.z,
            fair: self.ers,
            abr_capacity: capacity,
            input,
            target,
            er_max: self.ers,
            abr_queue,
        })
    }

    #[inline]
    fn on_backward(&mut self, _vc: u32, abr_queue: u32, rm: &mut RmFields) {
        rm.er = rm.er.min(self.ers as f32);
        if abr_queue > self.qt {
            rm.bits |= RM_CI;
        }
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

    fn capc() -> Capc {
        Capc {
            target_utilization: 0.9,
            rup: 0.1,
            rdn: 0.8,
            eru: 1.5,
            erf: 0.5,
            qt: 500,
            meter: IntervalMeter::new(5_000_000_000),
            ..Default::default()
        }
    }

    #[test]
    fn ers_moves_proportionally_to_the_load_and_rests_at_z_1() {
        let mut c = capc();
        c.start(100.0, 1);
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
        let mut c = capc();
        c.start(cap, 4);
        for _ in 0..400 {
            let z = n * c.ers / (0.9 * cap);
            c.update(z, cap);
        }
        assert!((c.ers - 0.9 * cap / n).abs() < 1e-6, "{}", c.ers);
        let mut rm = RmFields {
            er: 155.0,
            ..Default::default()
        };
        c.on_backward(0, 501, &mut rm);
        assert_eq!(rm.bits & RM_CI, RM_CI);
        assert!((rm.er as f64 - c.ers).abs() < 1e-3);
    }
}
