//! Builders the schemes' unit tests share: ports of [`Metered`] schemes, EPRCA's parameters, and
//! forward and backward RM cells put through a scheme's hooks.

use super::{Eprca, Metered, MeteredRule, SwitchScheme};
use crate::abr::RM_DIR;
use crate::time::SimTime;
use crate::wire::{Cell, RmFields, H_RM};

/// The averaging interval of the test ports: 5 ms.
pub const INTERVAL: SimTime = 5_000_000_000;

/// Scheme `rule` at a port of `line_mbps` with target utilization `u`, `n_vcs` VCs and
/// [`INTERVAL`], started.
pub fn port<R: MeteredRule>(rule: R, u: f64, line_mbps: f64, n_vcs: usize) -> Metered<R> {
    let mut p = Metered::new(INTERVAL, u, rule);
    p.start(line_mbps, n_vcs);
    p
}

/// EPRCA with the survey's factors (AV 1/16, DPF 7/8, ERF 15/16, MRF 1/4), QT 100, DQT 500.
pub fn eprca() -> Eprca {
    Eprca {
        av: 1.0 / 16.0,
        dpf: 7.0 / 8.0,
        erf: 15.0 / 16.0,
        mrf: 0.25,
        qt: 100,
        dqt: 500,
        ..Default::default()
    }
}

/// A forward RM cell carrying `ccr` and `er`.
pub fn frm(ccr: f32, er: f32) -> Cell {
    Cell {
        hdr: H_RM,
        rm: RmFields {
            ccr,
            er,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// A forward RM cell of `vc` carrying `ccr` and `er` enters `s` (no ABR queue); the ER it
/// leaves with.
pub fn fwd(s: &mut impl SwitchScheme, vc: u32, ccr: f32, er: f32) -> f32 {
    let mut cell = frm(ccr, er);
    s.on_forward(0, vc, &mut cell);
    cell.rm.er
}

/// A backward RM cell of `vc` carrying `er` and `ccr` through `s` with `abr_queue` ABR cells
/// waiting; the fields it leaves with.
pub fn brm(s: &mut impl SwitchScheme, vc: u32, abr_queue: u32, er: f32, ccr: f32) -> RmFields {
    let mut rm = RmFields {
        er,
        ccr,
        bits: RM_DIR,
        ..Default::default()
    };
    s.on_backward(vc, abr_queue, &mut rm);
    rm
}
