//! Relative-rate marking: a port with ABR queue thresholds sets CI (above the high threshold)
//! or NI (above the low one) in the backward RM cells of the VCs it carries forward.
//!
//! Source: ATM Forum TM 4.0 (af-tm-0056.000) section 5.10 and `../shared/SPEC-ABR.md` ("Switch
//! feedback schemes"). The queue thresholds are the [`Thresholds`] of [`super::efci`].

use super::{SwitchScheme, Thresholds};
use crate::abr::{RM_CI, RM_NI};
use crate::wire::RmFields;

impl Thresholds {
    /// Relative rate: CI above the high threshold, NI above the low one, in a backward RM cell.
    pub fn mark_rr(&self, abr_queue: u32, rm: &mut RmFields) {
        if abr_queue > self.high {
            rm.bits |= RM_CI;
        } else if abr_queue > self.low {
            rm.bits |= RM_NI;
        }
    }
}

/// The relative-rate scheme of a port.
#[derive(Clone, Debug)]
pub struct RelativeRate(pub Thresholds);

impl SwitchScheme for RelativeRate {
    #[inline]
    fn on_backward(&mut self, _vc: u32, abr_queue: u32, rm: &mut RmFields) {
        self.0.mark_rr(abr_queue, rm);
    }
}
