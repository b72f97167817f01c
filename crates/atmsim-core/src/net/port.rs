//! An output port: the queue per service category, its scheduler and frame discard, and the
//! directed channel it feeds (serialization at the port rate; propagation on the link).

use crate::abr::PortScheme;
use crate::cac::PortCac;
use crate::metrics::*;
use crate::net::*;
use crate::time::*;

/// An output port and the directed channel it feeds.
pub struct Port {
    pub name: String,
    pub node: u32,
    pub to: u32,
    pub rate_bps: u64,
    /// Exact departure times at the line rate.
    pub(crate) pacer: Pacer,
    /// When the cell on the line now ends.
    pub(crate) busy_until: SimTime,
    /// Whether a `PortTx` event is in the event queue.
    pub(crate) tx_pending: bool,
    /// The cells waiting, per category, and the admission limits.
    pub(crate) queue: Queue,
    /// Which category goes next.
    pub(crate) sched: Scheduler,
    /// Frame-aware discard (EPD / PPD) for AAL5 flows, with per-VC state at this port.
    pub(crate) frames: Option<Box<FrameDiscard>>,
    /// Connection admission control, and the most bandwidth it has allocated (bit/s).
    pub(crate) cac: Option<PortCac>,
    pub(crate) cac_max_bps: u64,
    /// What the permanent connections hold of the CAC capacity (bit/s).
    pub(crate) cac_permanent_bps: u64,
    /// The shared buffer this port belongs to (index into the groups), or NONE.
    pub(crate) group: u32,
    /// The channel this port feeds.
    pub(crate) link: Link,
    /// ABR feedback scheme of this port.
    pub scheme: PortScheme,
    /// Cells of categories above ABR sent (CBR, VBR), and the count when the current ERICA
    /// interval began.
    pub(crate) hp_tx: u64,
    pub(crate) hp_mark: u64,
    pub stats: PortStats,
}

impl Port {
    /// Cells waiting in the buffer.
    pub fn queue_len(&self) -> u32 {
        self.queue.len
    }

    /// Account the queue-length integral up to `now` (call before the length changes).
    #[inline]
    pub(crate) fn mark_queue(&mut self, now: SimTime) {
        let st = &mut self.stats;
        st.area += self.queue.len as u128 * (now - st.last_change) as u128;
        st.last_change = now;
    }
}
