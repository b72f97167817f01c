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

use super::{Allocation, Eprca, Measurement, MeteredRule};
use crate::wire::{Cell, RmFields};

/// APRC at one output port (in a [`super::Metered`] with U = 1: z = input / ABR capacity).
#[derive(Clone, Debug, Default)]
pub struct Aprc {
    /// MACR and the reductions.
    pub core: Eprca,
    /// The ABR queue at the end of the last interval.
    pub q_prev: u32,
    /// The queue grew over the last interval.
    pub congested: bool,
}

impl MeteredRule for Aprc {
    fn start(&mut self, line_mbps: f64, _target_mbps: f64, n_vcs: usize) {
        self.core.init(line_mbps, n_vcs);
    }

    #[inline]
    fn forward(&mut self, _abr_queue: u32, vc: u32, cell: &mut Cell) {
        self.core.observe(vc, cell);
    }

    fn close(&mut self, m: &Measurement) -> Allocation {
        self.congested = m.abr_queue > self.q_prev;
        self.q_prev = m.abr_queue;
        Allocation {
            fair: self.core.dpf * self.core.macr,
            er_max: self.core.macr,
        }
    }

    #[inline]
    fn backward(&mut self, vc: u32, abr_queue: u32, rm: &mut RmFields) {
        self.core
            .feedback(vc, self.congested, abr_queue > self.core.dqt, rm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::switch::testing::{brm, eprca, port, INTERVAL};
    use crate::abr::switch::{Metered, SwitchScheme};

    #[test]
    fn congestion_is_queue_growth() {
        let mut a = port(
            Aprc {
                core: eprca(),
                ..Default::default()
            },
            1.0,
            100.0,
            1,
        );
        a.rule.core.ccr[0] = 100.0;
        let er = |a: &mut Metered<Aprc>, q| brm(a, 0, q, 155.0, 0.0).er as f64;
        a.close_interval(INTERVAL, 100.0, 0, 300, true).unwrap();
        assert!(a.rule.congested, "grew from 0 to 300");
        assert!((er(&mut a, 300) - 15.0 / 16.0 * 100.0).abs() < 1e-3);
        a.close_interval(2 * INTERVAL, 100.0, 0, 200, true).unwrap();
        assert!(
            !a.rule.congested,
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
