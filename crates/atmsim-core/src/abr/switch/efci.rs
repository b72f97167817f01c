//! EFCI marking: a port with ABR queue thresholds sets the EFCI bit of forward data cells while
//! congested (hysteresis between the high and the low threshold); the destination turns the
//! last data cell's EFCI state into CI in the backward RM cell (DES rules 1-2).
//!
//! Source: ATM Forum TM 4.0 (af-tm-0056.000) section 5.10 and `../shared/SPEC-ABR.md` ("Switch
//! feedback schemes"). [`Thresholds`] is shared with the relative-rate scheme ([`super::rr`]).

use super::{PortScheme, SwitchScheme};
use crate::wire::{Cell, H_EFCI};

/// Queue-threshold state of the EFCI and relative-rate schemes.
#[derive(Clone, Debug)]
pub struct Thresholds {
    pub high: u32,
    pub low: u32,
    pub congested: bool,
}

impl PortScheme {
    /// EFCI: update the hysteresis state with the ABR queue and mark forward data cells.
    #[inline]
    pub fn mark_efci(th: &mut Thresholds, abr_queue: u32, cell: &mut Cell) {
        if abr_queue > th.high {
            th.congested = true;
        } else if abr_queue < th.low {
            th.congested = false;
        }
        if th.congested && !cell.is_rm() {
            cell.hdr |= H_EFCI;
        }
    }
}

/// The EFCI scheme of a port, seen through the thresholds that [`PortScheme::Efci`] holds (the
/// variant's payload is the [`Thresholds`] it shares with relative rate).
pub struct Efci<'a>(pub &'a mut Thresholds);

impl SwitchScheme for Efci<'_> {
    #[inline]
    fn on_forward(&mut self, abr_queue: u32, _vc: u32, cell: &mut Cell) -> bool {
        PortScheme::mark_efci(self.0, abr_queue, cell);
        false
    }
}
