//! Relative-rate marking: a port with ABR queue thresholds sets CI (above the high threshold)
//! or NI (above the low one) in the backward RM cells of the VCs it carries forward.
//!
//! Source: ATM Forum TM 4.0 (af-tm-0056.000) section 5.10 and `../shared/SPEC-ABR.md` ("Switch
//! feedback schemes"). The queue thresholds are the [`Thresholds`] of [`super::efci`].

use super::{PortScheme, SwitchScheme, Thresholds};
use crate::abr::{RM_CI, RM_NI};
use crate::wire::RmFields;

impl PortScheme {
    /// Relative rate: CI above the high threshold, NI above the low one, in a backward RM cell.
    pub fn mark_rr(th: &Thresholds, abr_queue: u32, rm: &mut RmFields) {
        if abr_queue > th.high {
            rm.bits |= RM_CI;
        } else if abr_queue > th.low {
            rm.bits |= RM_NI;
        }
    }
}

/// The relative-rate scheme of a port, seen through the thresholds that
/// [`PortScheme::RelativeRate`] holds.
pub struct RelativeRate<'a>(pub &'a mut Thresholds);

impl SwitchScheme for RelativeRate<'_> {
    #[inline]
    fn on_backward(&mut self, _vc: u32, abr_queue: u32, rm: &mut RmFields) {
        PortScheme::mark_rr(self.0, abr_queue, rm);
    }
}
