//! APRC, Adaptive Proportional Rate Control (Siu and Tzeng, "Intelligent congestion control for
//! ABR service in ATM networks", ATM Forum/94-0888, and Computer Communication Review 24(5),
//! 1994), as the ATM Forum's survey describes it (Jain, Computer Networks and ISDN Systems 28,
//! 1996, section 8): EPRCA ([`super::eprca`]) with congestion detected by the queue's growth
//! instead of a threshold, fixing EPRCA's dependence of the rates on when each source started.
//! The port is congested while its ABR queue grew over the last interval; above DQT it is
//! very congested; the reductions are EPRCA's (ERF, MRF, DPF x MACR).
//!
//! Defaults: EPRCA's (AV 1/16, DPF 7/8, ERF 15/16, MRF 1/4, DQT 500 cells, our choice as there).
//! Our choices: the growth is measured between the ends of successive intervals of
//! `interval_s` (default 5 ms, ERICA's), and a queue that stays at zero is not growing.

use super::{Eprca, IntervalMeans, IntervalMeter, IntervalRecord, MeansSum, SwitchScheme};
use crate::time::SimTime;
use crate::wire::{Cell, RmFields};

/// APRC at one output port.
#[derive(Clone, Debug, Default)]
pub struct Aprc {
    /// MACR and the reductions.
    pub core: Eprca,
    pub meter: IntervalMeter,
    /// The ABR queue at the end of the last interval.
    pub q_prev: u32,
    /// The queue grew over the last interval.
    pub congested: bool,
    pub sums: MeansSum,
}

impl SwitchScheme for Aprc {
    fn start(&mut self, line_mbps: f64, n_vcs: usize) -> Option<SimTime> {
        self.core.init(line_mbps, n_vcs);
        self.meter = IntervalMeter::new(self.meter.interval);
        Some(self.meter.deadline)
    }

    #[inline]
    fn on_forward(&mut self, _abr_queue: u32, vc: u32, cell: &mut Cell) -> bool {
        self.meter.abr_in += 1;
        self.core.observe(vc, cell);
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
        self.congested = abr_queue > self.q_prev;
        self.q_prev = abr_queue;
        let z = if capacity > 0.0 {
            input / capacity
        } else {
            f64::INFINITY
        };
        let fair = self.core.dpf * self.core.macr;
        self.sums.add(in_window, z, fair, capacity);
        Some(IntervalRecord {
            z,
            fair,
            abr_capacity: capacity,
            input,
            target: capacity,
            er_max: self.core.macr,
            abr_queue,
        })
    }

    #[inline]
    fn on_backward(&mut self, vc: u32, abr_queue: u32, rm: &mut RmFields) {
        self.core
            .feedback(vc, self.congested, abr_queue > self.core.dqt, rm);
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
    fn congestion_is_queue_growth() {
        let mut a = Aprc {
            core: Eprca {
                av: 1.0 / 16.0,
                dpf: 7.0 / 8.0,
                erf: 15.0 / 16.0,
                mrf: 0.25,
                qt: 100,
                dqt: 500,
                ..Default::default()
            },
            meter: IntervalMeter::new(1_000_000_000),
            ..Default::default()
        };
        assert_eq!(a.start(100.0, 1), Some(1_000_000_000));
        a.core.ccr[0] = 100.0;
        let er = |a: &mut Aprc, q| {
            let mut rm = RmFields {
                er: 155.0,
                ..Default::default()
            };
            a.on_backward(0, q, &mut rm);
            rm.er as f64
        };
        a.close_interval(1_000_000_000, 100.0, 0, 300, true)
            .unwrap();
        assert!(a.congested, "grew from 0 to 300");
        assert!((er(&mut a, 300) - 15.0 / 16.0 * 100.0).abs() < 1e-3);
        a.close_interval(2_000_000_000, 100.0, 0, 200, true)
            .unwrap();
        assert!(
            !a.congested,
            "a large but falling queue is not congestion (EPRCA's would be)"
        );
        assert_eq!(er(&mut a, 200), 155.0);
        assert!(
            (er(&mut a, 600) - 25.0).abs() < 1e-3,
            "above DQT: MRF x MACR"
        );
        assert_eq!(a.intervals_closed(), Some(2));
    }
}
