//! EFCI marking: a port with ABR queue thresholds sets the EFCI bit of forward data cells while
//! congested (hysteresis between the high and the low threshold); the destination turns the
//! last data cell's EFCI state into CI in the backward RM cell (DES rules 1-2).
//!
//! Source: ATM Forum TM 4.0 (af-tm-0056.000) section 5.10 and `../shared/SPEC-ABR.md` ("Switch
//! feedback schemes"). [`Thresholds`] is shared with the relative-rate scheme ([`super::rr`]).

use super::SwitchScheme;
use crate::wire::{Cell, H_EFCI};

/// Queue-threshold state of the EFCI and relative-rate schemes.
#[derive(Clone, Debug)]
pub struct Thresholds {
    pub high: u32,
    pub low: u32,
    pub congested: bool,
}

impl Thresholds {
    /// EFCI: update the hysteresis state with the ABR queue and mark forward data cells.
    #[inline]
    pub fn mark_efci(&mut self, abr_queue: u32, cell: &mut Cell) {
        if abr_queue > self.high {
            self.congested = true;
        } else if abr_queue < self.low {
            self.congested = false;
        }
        if self.congested && !cell.is_rm() {
            cell.hdr |= H_EFCI;
        }
    }
}

/// The EFCI scheme of a port.
#[derive(Clone, Debug)]
pub struct Efci(pub Thresholds);

impl SwitchScheme for Efci {
    #[inline]
    fn on_forward(&mut self, abr_queue: u32, _vc: u32, cell: &mut Cell) -> bool {
        self.0.mark_efci(abr_queue, cell);
        false
    }
}
