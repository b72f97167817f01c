//! EPRCA, the Enhanced Proportional Rate Control Algorithm (Roberts, ATM Forum/94-0735R1, 1994),
//! the switch side as the ATM Forum's survey describes it (Jain, "Congestion control and traffic
//! management in ATM networks: recent advances and a survey", Computer Networks and ISDN
//! Systems 28, 1996, section 8): the port keeps MACR, an exponential average of the CCR that the
//! forward RM cells carry, MACR <- MACR + AV (CCR - MACR); while its ABR queue is above QT it is
//! congested and lowers the ER of the backward RM cells of the VCs whose CCR is above DPF x MACR
//! to ERF x MACR; above DQT ("very congested") it lowers every VC's ER to MRF x MACR. Not
//! congested, it leaves ER alone and the sources climb by RIF x PCR per RM cell.
//!
//! Defaults (the survey's and TM 4.0's informative example values): AV = 1/16, DPF = 7/8,
//! ERF = 15/16, MRF = 1/4. The thresholds QT = 100 and DQT = 500 cells are our choice (not
//! tuned: fixed before any run). Our choices where the sources leave room: MACR starts at the
//! line rate; every forward RM cell enters the average (congested or not); the per-VC CCR is the
//! one its last forward RM cell carried.

use super::SwitchScheme;
use crate::abr::RM_DIR;
use crate::wire::{Cell, RmFields};

/// EPRCA at one output port.
#[derive(Clone, Debug, Default)]
pub struct Eprca {
    /// Averaging factor of MACR.
    pub av: f64,
    /// Down-pressure factor: VCs above DPF x MACR are reduced when congested.
    pub dpf: f64,
    /// Explicit reduction factor (congested): ER <- ERF x MACR.
    pub erf: f64,
    /// Major reduction factor (very congested): ER <- MRF x MACR.
    pub mrf: f64,
    /// Congestion threshold, ABR cells.
    pub qt: u32,
    /// Heavy-congestion threshold, ABR cells.
    pub dqt: u32,
    /// Mean allowed cell rate, Mb/s.
    pub macr: f64,
    /// Each VC's CCR from its last forward RM cell, Mb/s.
    pub ccr: Vec<f64>,
}

impl Eprca {
    /// Per-VC state for `n_vcs` VCs; MACR starts at the line rate.
    pub fn init(&mut self, line_mbps: f64, n_vcs: usize) {
        self.macr = line_mbps;
        self.ccr = vec![0.0; n_vcs];
    }

    /// A forward ABR cell of `vc`: a forward RM cell's CCR enters MACR.
    #[inline]
    pub fn observe(&mut self, vc: u32, cell: &Cell) {
        if cell.is_rm() && cell.rm.bits & RM_DIR == 0 {
            let ccr = cell.rm.ccr as f64;
            self.ccr[vc as usize] = ccr;
            self.macr += self.av * (ccr - self.macr);
        }
    }

    /// The ER of a backward RM cell of `vc`, given the port's congestion state.
    #[inline]
    pub fn feedback(&self, vc: u32, congested: bool, very_congested: bool, rm: &mut RmFields) {
        if very_congested {
            rm.er = rm.er.min((self.mrf * self.macr) as f32);
        } else if congested && self.ccr[vc as usize] > self.dpf * self.macr {
            rm.er = rm.er.min((self.erf * self.macr) as f32);
        }
    }
}

/// EPRCA's hooks: forward RM cells feed MACR; backward RM cells get ERF or MRF x MACR by the
/// queue at that moment.
impl SwitchScheme for Eprca {
    fn start(&mut self, line_mbps: f64, n_vcs: usize) -> Option<crate::time::SimTime> {
        self.init(line_mbps, n_vcs);
        None
    }

    #[inline]
    fn on_forward(&mut self, _abr_queue: u32, vc: u32, cell: &mut Cell) -> bool {
        self.observe(vc, cell);
        false
    }

    #[inline]
    fn on_backward(&mut self, vc: u32, abr_queue: u32, rm: &mut RmFields) {
        self.feedback(vc, abr_queue > self.qt, abr_queue > self.dqt, rm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::switch::testing::{brm, eprca, frm, fwd};

    #[test]
    fn macr_averages_ccr_and_reductions_follow_the_queue() {
        let mut e = eprca();
        e.start(160.0, 2);
        fwd(&mut e, 0, 80.0, 0.0);
        assert!((e.macr - (160.0 + (80.0 - 160.0) / 16.0)).abs() < 1e-9);
        for _ in 0..2000 {
            fwd(&mut e, 0, 80.0, 0.0);
            fwd(&mut e, 1, 40.0, 0.0);
        }
        assert!(
            (e.macr - 60.0).abs() < 2.0,
            "MACR near the mean CCR: {}",
            e.macr
        );
        let er = |e: &mut Eprca, vc, q| brm(e, vc, q, 155.0, 0.0).er as f64;
        assert_eq!(er(&mut e, 0, 50), 155.0, "not congested: ER untouched");
        assert!((er(&mut e, 0, 200) - 15.0 / 16.0 * e.macr).abs() < 1e-3);
        assert_eq!(
            er(&mut e, 1, 200),
            155.0,
            "CCR below DPF x MACR: not reduced"
        );
        assert!((er(&mut e, 1, 600) - 0.25 * e.macr).abs() < 1e-3);
        // data cells and backward RM cells leave MACR alone
        let m = e.macr;
        e.on_forward(0, 0, &mut Cell::default());
        let mut b = frm(1.0, 0.0);
        b.rm.bits |= RM_DIR;
        e.on_forward(0, 0, &mut b);
        assert_eq!(e.macr, m);
    }
}
