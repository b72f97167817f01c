//! A source shaper (ITU-T I.371 traffic shaping): cells wait in a FIFO until they conform to the
//! contract's GCRA(s) in virtual-scheduling form, so a shaped stream always passes UPC.

use crate::policing::{increment_ps, Contract, VirtualScheduling};
use crate::time::*;
use crate::wire::Cell;
use std::collections::VecDeque;

/// A source shaper (I.371 traffic shaping): cells wait in a FIFO until they conform to the
/// contract's GCRA(s) in virtual-scheduling form, so a shaped stream always passes UPC.
pub struct Shaper {
    pub(crate) pcr: VirtualScheduling,
    pub(crate) scr: Option<VirtualScheduling>,
    pub(crate) queue: VecDeque<Cell>,
    pub(crate) pending: bool,
    /// Most cells waiting at once.
    pub max_queue: usize,
}

impl Shaper {
    pub(crate) fn new(c: &Contract) -> Self {
        Shaper {
            pcr: VirtualScheduling::new(increment_ps(c.pcr_mbps), c.cdvt_ps),
            scr: c
                .scr_mbps
                .map(|s| VirtualScheduling::new(increment_ps(s), c.bt_ps())),
            queue: VecDeque::new(),
            pending: false,
            max_queue: 0,
        }
    }

    /// The earliest time a cell conforms to every bucket.
    pub(crate) fn earliest(&self) -> SimTime {
        let p = self.pcr.tat().saturating_sub(self.pcr.limit_ps());
        self.scr
            .as_ref()
            .map_or(p, |s| p.max(s.tat().saturating_sub(s.limit_ps())))
    }

    pub(crate) fn take(&mut self, t: SimTime) {
        self.pcr.update(t);
        if let Some(s) = &mut self.scr {
            s.update(t);
        }
    }
}
