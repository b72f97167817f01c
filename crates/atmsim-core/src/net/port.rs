//! An output port: the queue per service category, its scheduler and frame discard, and the
//! directed channel it feeds (serialization at the port rate; propagation on the link).

use crate::abr::PortScheme;
use crate::metrics::*;
use crate::net::*;
use crate::policing::PortCac;
use crate::time::*;
use crate::wire::Cell;
use std::collections::VecDeque;

/// An output port and the directed channel it feeds.
pub struct Port {
    pub name: String,
    pub node: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub(crate) pacer: Pacer,
    pub(crate) busy_until: SimTime,
    pub(crate) tx_pending: bool,
    pub(crate) queues: [VecDeque<Cell>; 5],
    pub(crate) order: [u8; 5],
    pub(crate) qlen: u32,
    pub(crate) class_len: [u32; 5],
    pub(crate) limit: u32,
    pub(crate) class_limit: [u32; 5],
    /// Selective discard: CLP = 1 cells are refused while the queue holds this many.
    pub(crate) clp1_threshold: u32,
    /// Frame-aware discard (EPD / PPD) for AAL5 flows, with per-VC state at this port.
    pub(crate) frames: Option<Box<FrameDiscard>>,
    /// Per-category bandwidth limits and the WRR scheduler, where configured.
    pub(crate) sched: Option<Box<ClassSched>>,
    /// Connection admission control, and the most bandwidth it has allocated (bit/s).
    pub(crate) cac: Option<PortCac>,
    pub(crate) cac_max_bps: u64,
    /// What the permanent connections hold of the CAC capacity (bit/s).
    pub(crate) cac_permanent_bps: u64,
    pub(crate) group: u32,
    pub(crate) pipe: VecDeque<(SimTime, Cell)>,
    /// Propagation + fabric delay of the receiving node.
    pub(crate) delay_ps: SimDuration,
    pub(crate) arrive_pending: bool,
    /// ABR feedback scheme of this port.
    pub scheme: PortScheme,
    /// The link's impairment model, if any.
    pub(crate) impair: Option<Box<Impairment>>,
    /// Cells of categories above ABR sent (CBR, VBR), and the count when the current ERICA
    /// interval began.
    pub(crate) hp_tx: u64,
    pub(crate) hp_mark: u64,
    pub stats: PortStats,
}

impl Port {
    /// Cells waiting in the buffer.
    pub fn queue_len(&self) -> u32 {
        self.qlen
    }
}
