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

use super::{IntervalMeans, IntervalMeter, IntervalRecord, MeansSum, SwitchScheme};
use crate::abr::RM_DIR;
use crate::time::SimTime;
use crate::wire::{Cell, RmFields};

/// The OSU scheme at one output port.
#[derive(Clone, Debug, Default)]
pub struct Osu {
    pub target_utilization: f64,
    pub delta: f64,
    pub meter: IntervalMeter,
    pub z: f64,
    pub fair: f64,
    pub target: f64,
    pub(crate) interval_id: u32,
    pub(crate) n_active: u32,
    /// Per VC: CCR (Mb/s) and the interval it last sent in.
    pub(crate) vcs: Vec<(f64, u32)>,
    pub sums: MeansSum,
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

impl SwitchScheme for Osu {
    fn start(&mut self, line_mbps: f64, n_vcs: usize) -> Option<SimTime> {
        self.meter = IntervalMeter::new(self.meter.interval);
        self.vcs = vec![(0.0, 0); n_vcs];
        self.target = self.target_utilization * line_mbps;
        self.fair = self.target;
        self.z = 1.0;
        self.interval_id = 1;
        Some(self.meter.deadline)
    }

    #[inline]
    fn on_forward(&mut self, _abr_queue: u32, vc: u32, cell: &mut Cell) -> bool {
        self.meter.abr_in += 1;
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
        self.target = self.target_utilization * capacity;
        self.z = if self.target > 0.0 {
            input / self.target
        } else {
            f64::INFINITY
        };
        self.fair = self.target / self.n_active.max(1) as f64;
        self.n_active = 0;
        self.interval_id += 1;
        self.sums.add(in_window, self.z, self.fair, capacity);
        Some(IntervalRecord {
            z: self.z,
            fair: self.fair,
            abr_capacity: capacity,
            input,
            target: self.target,
            er_max: self.target,
            abr_queue,
        })
    }

    #[inline]
    fn on_backward(&mut self, vc: u32, _abr_queue: u32, rm: &mut RmFields) {
        let er = self.rate(self.vcs[vc as usize].0);
        rm.er = rm.er.min(er as f32);
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

    #[test]
    fn load_adjustment_and_convergence_to_the_target() {
        let mut o = Osu {
            target_utilization: 0.9,
            delta: 0.1,
            meter: IntervalMeter::new(5_000_000_000),
            ..Default::default()
        };
        o.start(100.0, 2);
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
