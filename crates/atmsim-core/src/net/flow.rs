//! A flow: one direction of a VC (or of one ABR segment) along a static route.

use super::Shaper;
use crate::wire::Sar;
use crate::metrics::probe::{ColumnDecl, TableDecl, FLOW_KEY};
use crate::metrics::BlockCounter;
use crate::metrics::*;
use crate::net::Category;
use crate::net::NONE;
use crate::policing::Upc;
use crate::time::*;
use crate::wire::CELL_PAYLOAD;

/// A connection's requested QoS (seed 001 section 4.2): max CTD and peak-to-peak CDV in ps, CLR,
/// and whether the CLR objective is on the CLP=0 flow (else CLP=0+1).
#[derive(Clone, Copy)]
pub(crate) struct QosObjectives {
    pub(crate) max_ctd: Option<u64>,
    pub(crate) cdv: Option<u64>,
    pub(crate) clr: Option<f64>,
    pub(crate) clr_clp0: bool,
}

/// A short list of indices kept inside its owner: up to [`InlineU32s::INLINE`] of them inline,
/// so that reading them does not follow a pointer to another cache line (issue 13: with many
/// VCs that line is a miss per cell); longer lists on the heap. Reads as a slice (`Deref`).
#[derive(Clone, Debug)]
pub enum InlineU32s {
    Inline(u8, [u32; InlineU32s::INLINE]),
    Heap(Box<[u32]>),
}

/// A flow's output ports, the sending host's first.
pub type FlowPorts = InlineU32s;

impl Default for InlineU32s {
    fn default() -> Self {
        InlineU32s::Inline(0, [0; InlineU32s::INLINE])
    }
}

impl InlineU32s {
    /// The most ports kept inline (the enum is as large as a `Vec`).
    pub const INLINE: usize = 5;
}

impl From<Vec<u32>> for InlineU32s {
    fn from(v: Vec<u32>) -> Self {
        if v.len() <= Self::INLINE {
            let mut a = [0; Self::INLINE];
            a[..v.len()].copy_from_slice(&v);
            InlineU32s::Inline(v.len() as u8, a)
        } else {
            InlineU32s::Heap(v.into_boxed_slice())
        }
    }
}

impl std::ops::Deref for InlineU32s {
    type Target = [u32];
    #[inline]
    fn deref(&self) -> &[u32] {
        match self {
            InlineU32s::Inline(n, a) => &a[..*n as usize],
            InlineU32s::Heap(b) => b,
        }
    }
}

/// One direction of a connection.
///
/// Laid out for the per-cell path (issue 13: with 15,000 VCs every line of a flow that a cell
/// touches is a cache miss, so the fewer lines a cell touches the better): `repr(C)` keeps the
/// declared order and `align(64)` starts each flow on a cache line. Line 0 holds what every hop
/// reads (the ports, category, UPC), emission (monitor, shaper) and the SECBR sequence; line 1
/// what both ends read (segmentation and reassembly, the cells sent, the delay base, the
/// receiving endpoints); line 2 the SECBR block counter; from line 3 the statistics, the
/// counters every delivered cell updates first (see [`FlowStats`]); the VS/VD coupling (read
/// only where `has_vs` says there is one) and the fields only the build and the summary read
/// come last. `layout_puts_a_cells_fields_on_few_lines` checks the offsets.
#[repr(C, align(64))]
pub struct Flow {
    /// Output ports along the route, the sending host's first (the route's node names are
    /// not kept: [`crate::sim::Simulation::route_names`] gives them from the ports).
    pub ports: FlowPorts,
    pub category: Category,
    /// True for the direction that carries an ABR connection's backward RM cells.
    pub(crate) backward: bool,
    /// This flow has a VS/VD coupling (`vs_endpoint` or `vs_fwd` is set).
    pub(crate) has_vs: bool,
    /// The opposite direction of the same connection (NONE if one-way).
    pub(crate) pair: u32,
    /// Throughput monitor (index into the simulation's monitors) of the adaptive contract
    /// scheme (`propose_contract`), shared by the connections of a bundle.
    pub(crate) monitor: Option<u32>,
    /// Traffic shaping at the source (`source.shape`).
    pub(crate) shaper: Option<Box<Shaper>>,
    /// Usage parameter control at the first switch.
    pub(crate) upc: Option<Box<Upc>>,
    /// Receiver-side sequence tracking for SECBR (and `blocks`, the block counter).
    pub(crate) rx_next: Option<u32>,
    /// Segmentation at the sending host, reassembly at the receiving one (AAL5).
    pub(crate) sar: Sar,
    /// Cells sent after warm-up, RM cells included (with the delivered and dropped ones in
    /// [`FlowStats`]: sent = delivered + dropped + in flight).
    pub sent: u64,
    /// The least possible transfer delay on the route (cell times, propagation, fabric): the
    /// CTD histogram records the delay above it, so its 1/64 precision applies to the variation.
    pub(crate) base_ps: SimDuration,
    /// The endpoints at the receiving host that take this flow's cells, by transport connection
    /// within the VC ([`crate::wire::SegHdr::conn`], seed 001's connection bundling): entry 0 is
    /// the application sending on the reverse direction (an ABR destination, a TCP receiver),
    /// further entries the other connections of a bundle; NONE where nobody listens. Inline up
    /// to [`InlineU32s::INLINE`] entries.
    pub(crate) rx: InlineU32s,
    pub(crate) blocks: BlockCounter,
    pub stats: FlowStats,
    /// ABR segments ending at a VS/VD switch: the virtual source that takes this flow's data
    /// cells on, and its flow (the next segment); NONE otherwise.
    pub(crate) vs_endpoint: u32,
    pub(crate) vs_next: u32,
    /// The backward flow of an ABR segment that starts at a VS/VD switch: the segment's forward
    /// flow, whose first port (the switch's own output port) gives its feedback to the BRMs
    /// before the virtual source takes them; NONE otherwise.
    pub(crate) vs_fwd: u32,
    /// With `vs_endpoint`: the drain time of the VS/VD coupling's queue term, seconds (0: none).
    pub(crate) vs_drain_s: f64,
    pub name: String,
    /// Per hop: this flow's index among the flows crossing that hop's port, where the port's
    /// ABR scheme keeps per-VC state (so a port holds state only for the VCs that cross it,
    /// issue 13); the same index wherever a route crosses a port twice. Filled by the builder.
    pub(crate) vc_slot: Vec<u32>,
    /// Requested QoS (boxed: rare, and read only by the summary).
    pub(crate) qos: Option<Box<QosObjectives>>,
    /// UPC counts at the end of warm-up (the summary reports the difference).
    /// Boxed: only flows with UPC have one, and only the summary reads it.
    pub(crate) upc_mark: Option<Box<crate::policing::UpcCounts>>,
}

impl Flow {
    /// The receiving endpoint of transport connection `conn` (NONE if there is none).
    #[inline]
    pub(crate) fn rx_endpoint(&self, conn: u16) -> u32 {
        self.rx.get(conn as usize).copied().unwrap_or(NONE)
    }

    /// Hand transport connection `conn`'s cells to endpoint `e`.
    pub(crate) fn set_rx(&mut self, conn: u16, e: u32) {
        let c = conn as usize;
        let mut rx = self.rx.to_vec();
        if rx.len() <= c {
            rx.resize(c + 1, NONE);
        }
        rx[c] = e;
        self.rx = rx.into();
    }

    /// The `connections` series: every flow (connection direction) at every sample.
    pub const PROBES: TableDecl = TableDecl {
        name: "connections",
        doc: "Every connection direction at every sample",
        key: FLOW_KEY,
        columns: &[ColumnDecl::f64(
            "throughput_mbps",
            "Mb/s",
            "Payload of the data cells delivered since the previous sample (48 B per cell; RM \
             cells not counted, as in the summary)",
        )
        .plot("throughput", "throughput")],
        always: true,
        active: "",
    };
}

/// The count behind a flow's row of the `connections` series: data cells (not RM cells)
/// delivered, never reset, and their number at the previous sample.
///
/// Kept apart from [`Flow`], one per flow in a dense array (`Simulation::flow_rx`, indexed by
/// flow): a sample then reads 16 bytes per flow in order instead of a cache line of every flow
/// (issue 13: with 15,000 VCs sampled every 10 ms that was a cache miss per flow and sample).
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowRx {
    pub(crate) total: u64,
    pub(crate) at_sample: u64,
}

impl FlowRx {
    /// This flow's value in the `connections` series (its one column, `throughput_mbps`), a
    /// sample every `interval_s`.
    #[inline]
    pub(crate) fn probe(&mut self, interval_s: f64) -> f64 {
        let cells = self.total - self.at_sample;
        self.at_sample = self.total;
        cells as f64 * (CELL_PAYLOAD * 8) as f64 / interval_s / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The lines a cell touches (see [`Flow`]): each group of fields on one cache line.
    #[test]
    fn layout_puts_a_cells_fields_on_few_lines() {
        let line = |start: usize, size: usize| {
            assert_eq!(
                start / 64,
                (start + size - 1) / 64,
                "field at {start} crosses a line"
            );
            start / 64
        };
        let st = offset_of!(Flow, stats);
        let hist = st + offset_of!(FlowStats, ctd_hist);
        // every hop, emission, SECBR
        assert_eq!(line(offset_of!(Flow, ports), size_of::<FlowPorts>()), 0);
        assert_eq!(line(offset_of!(Flow, upc), 8), 0);
        assert_eq!(line(offset_of!(Flow, rx_next), 8), 0);
        assert_eq!(line(offset_of!(Flow, has_vs), 1), 0);
        // both ends
        assert_eq!(line(offset_of!(Flow, sar), size_of::<Sar>()), 1);
        assert_eq!(line(offset_of!(Flow, sent), 8), 1);
        assert_eq!(line(offset_of!(Flow, base_ps), 8), 1);
        assert_eq!(line(offset_of!(Flow, rx), size_of::<InlineU32s>()), 1);
        // delivery
        assert_eq!(line(offset_of!(Flow, blocks), size_of::<BlockCounter>()), 2);
        assert_eq!(line(st, 16), 3);
        assert_eq!(line(st + offset_of!(FlowStats, user_bytes_window), 8), 3);
        assert_eq!(line(hist, 32), 4); // the total and the sparse list
    }
}
