//! The trace of a run (`run.trace`, docs/tracing.md): cell, frame and segment events of the
//! selected connections, ports, nodes, kinds and time window, held as rows until the front end
//! takes them ([`Simulation::drain_trace`]) and appends them to `trace.parquet`.
//!
//! Cost when off: none on a cell's usual path. A traced run sends the cells of ports with
//! computed departures through a copy of that path with the hooks (`enqueue_computed::<true>`,
//! reached from the general path: `Port::computed_fast` is false in a traced run), and the
//! lines of the other ports through `transmit::<true>` (`port_tx` tests the flag once, before
//! anything else, and the general path chooses the copy), so the untraced copies have no hook.
//! Emission has none either: a cell's `emit` row is written by its first port's hook
//! (`entering`), a shaped cell's when the shaper releases it. What is left is one test of
//! [`Tracer::on`] around a call to a cold, out-of-line function where a cell is dropped, on
//! the general path of a port, at the deferred departures, at a shaper's release, and once per
//! AAL5 frame and per delivered cell at the receiver; no allocation and no dynamic dispatch
//! (bench (a), cachegrind: 486.36 instructions per cell-hop before, 486.60 after, docs/tracing.md).
//!
//! A cell's rows are written where it goes on a line: its `emit` (at its first port) and
//! `enqueue` rows, then its `depart` and `arrive` rows (the arrival time is fixed when the cell
//! enters the link). The rows therefore come in the order the engine wrote them, not strictly
//! in time order (`time_s` is each event's own time: sort by it).

use crate::abr::RM_DIR;
use crate::metrics::{DropReason, TraceKind};
use crate::sim::*;
use crate::wire::{Cell, SegHdr};
use std::collections::HashMap;

/// One row of the trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceRow {
    /// The event's time, ps.
    pub t: SimTime,
    /// `TraceKind as u8` of the event (for an RM cell, its cell event: emit ... deliver).
    pub kind: u8,
    /// For `drop`: `DropReason as u8`; else 255.
    pub reason: u8,
    /// The cell's header bits (`wire::H_*`).
    pub hdr: u8,
    /// The cell's hop index (ports behind it on its route).
    pub hop: u8,
    /// The flow (one direction of a connection).
    pub flow: u32,
    /// The output port of the event (for `arrive` and `deliver`: the port whose link it came
    /// by; for `emit` and frame or segment sends: the source's port).
    pub port: u32,
    /// The node where the event happens.
    pub node: u32,
    /// The cell's sequence number in its flow.
    pub cell_seq: u32,
    /// The cell's AAL5 field: index in its frame, or on the last cell the frame's SDU bytes.
    pub len: u16,
    /// The frame's transport header.
    pub seg: SegHdr,
    /// RM fields (RM cells).
    pub rm: crate::wire::RmFields,
    /// Segment rows: the congestion window and slow-start threshold (bytes) of the sender of
    /// the segment's transport connection (for `tcp_acked`, the one the acknowledgement is for)
    /// when the row is written, before the event's own effect; None for other rows and for
    /// transports without them (the endpoint's hook, `EndpointHooks::window`).
    pub window: Option<(u64, u64)>,
}

/// What the trace selects, and its rows so far.
#[derive(Debug, Default)]
pub struct Tracer {
    /// Whether anything is traced: the one flag the per-cell hooks test.
    pub on: bool,
    /// Per flow: traced.
    pub(crate) flows: Vec<bool>,
    /// Per port: traced (empty: every port).
    pub(crate) ports: Vec<bool>,
    /// Per node: traced (empty: every node).
    pub(crate) nodes: Vec<bool>,
    /// Bit `TraceKind as u8` set for each kind selected.
    pub(crate) mask: u32,
    pub(crate) from: SimTime,
    pub(crate) to: SimTime,
    pub(crate) rows: Vec<TraceRow>,
    /// Rows written so far, drained or not.
    pub(crate) total: u64,
    /// Per (flow, transport connection): the sequence number after the highest byte sent.
    sent_end: HashMap<(u32, u16), u32>,
}

const fn bit(k: TraceKind) -> u32 {
    1 << k as u32
}

impl Tracer {
    /// A tracer selecting `flows` (one bool per flow), `ports` and `nodes` (empty: all),
    /// `kinds` (empty: all) from `from` to `to` (ps, end excluded).
    pub fn new(
        flows: Vec<bool>,
        ports: Vec<bool>,
        nodes: Vec<bool>,
        kinds: &[TraceKind],
        from: SimTime,
        to: SimTime,
    ) -> Self {
        let mask = if kinds.is_empty() {
            u32::MAX
        } else {
            kinds.iter().fold(0, |m, &k| m | bit(k))
        };
        Tracer {
            on: true,
            flows,
            ports,
            nodes,
            mask,
            from,
            to,
            ..Default::default()
        }
    }

    /// The rows held now.
    pub fn rows(&self) -> &[TraceRow] {
        &self.rows
    }

    /// Rows written in the whole run so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    fn selects(&self, t: SimTime, flow: u32, port: u32, node: u32) -> bool {
        t >= self.from
            && t < self.to
            && self.flows.get(flow as usize).copied().unwrap_or(false)
            && (self.ports.is_empty() || self.ports[port as usize])
            && (self.nodes.is_empty() || self.nodes[node as usize])
    }

    /// A cell event; an RM cell's is kept when its kind or its direction's RM kind is selected.
    fn cell(&mut self, kind: TraceKind, t: SimTime, port: u32, node: u32, c: &Cell, reason: u8) {
        let mut want = self.mask & bit(kind) != 0;
        if c.is_rm() {
            let rk = if c.rm.bits & RM_DIR != 0 {
                TraceKind::RmBackward
            } else {
                TraceKind::RmForward
            };
            want |= self.mask & bit(rk) != 0;
        }
        if want && self.selects(t, c.flow, port, node) {
            self.push(kind, t, port, node, c, reason);
        }
    }

    /// A frame or segment event (`c` is the frame's last cell; `window`: a segment row's).
    fn frame(
        &mut self,
        kind: TraceKind,
        t: SimTime,
        port: u32,
        node: u32,
        c: &Cell,
        window: Option<(u64, u64)>,
    ) {
        if self.mask & bit(kind) != 0 && self.selects(t, c.flow, port, node) {
            self.push(kind, t, port, node, c, u8::MAX);
            if let Some(r) = self.rows.last_mut() {
                r.window = window;
            }
        }
    }

    fn push(&mut self, kind: TraceKind, t: SimTime, port: u32, node: u32, c: &Cell, reason: u8) {
        self.total += 1;
        self.rows.push(TraceRow {
            t,
            kind: kind as u8,
            reason,
            hdr: c.hdr,
            hop: c.hop,
            flow: c.flow,
            port,
            node,
            cell_seq: c.seq,
            len: c.len,
            seg: c.seg,
            rm: c.rm,
            window: None,
        });
    }

    /// The last cell of a frame was emitted: `frame_sent`, and for a frame with data
    /// `tcp_sent` or `tcp_retransmitted` (a sequence number below the highest sent so far on
    /// this transport connection: the model's own rule, `TcpSender::send`), with the sender's
    /// `window`.
    fn frame_out(
        &mut self,
        t: SimTime,
        port: u32,
        node: u32,
        c: &Cell,
        header_bytes: u32,
        window: Option<(u64, u64)>,
    ) {
        self.frame(TraceKind::FrameSent, t, port, node, c, None);
        if !c.seg.has_data() || !self.flows.get(c.flow as usize).copied().unwrap_or(false) {
            return;
        }
        let end = c
            .seg
            .seq
            .wrapping_add((c.len as u32).saturating_sub(header_bytes));
        let hi = self
            .sent_end
            .entry((c.flow, c.seg.conn))
            .or_insert(c.seg.seq);
        let again = (c.seg.seq.wrapping_sub(*hi) as i32) < 0;
        if (end.wrapping_sub(*hi) as i32) > 0 {
            *hi = end;
        }
        let kind = if again {
            TraceKind::SegmentRetransmitted
        } else {
            TraceKind::SegmentSent
        };
        self.frame(kind, t, port, node, c, window);
    }

    /// Take the rows held (the selection stays).
    pub fn drain(&mut self) -> Vec<TraceRow> {
        std::mem::take(&mut self.rows)
    }
}

/// Bytes of the LLC/SNAP, IPv4 and TCP headers a transport frame's SDU includes
/// (`transport::tcp::TCP_IP_LLC_BYTES`; the engine does not name a transport, so the number is
/// repeated here and a test checks they agree).
pub const SEGMENT_HEADER_BYTES: u32 = 48;

impl Simulation {
    /// The trace: its selection and the rows not yet drained.
    pub fn tracer(&self) -> &Tracer {
        &self.tracer
    }

    /// The VPI/VCI a flow's cells carry in a capture (the model labels a VC by its flow index):
    /// both directions of a connection share the label of its first flow; VPI 0, VCI from 32
    /// (VCIs 0-31 are reserved, I.361) while they last.
    pub fn trace_vc(&self, flow: u32) -> (u16, u16) {
        let pair = self.flows[flow as usize].pair;
        let first = if pair == NONE { flow } else { flow.min(pair) };
        let span = 65536 - 32;
        ((first / span) as u16, (32 + first % span) as u16)
    }

    /// The first and last node of a flow's route.
    pub fn trace_flow_ends(&self, f: &Flow) -> (u32, u32) {
        let (first, last) = (f.ports[0], f.ports[f.ports.len() - 1]);
        (
            self.ports[first as usize].node,
            self.ports[last as usize].to,
        )
    }

    /// Take the trace rows held so far.
    pub fn drain_trace(&mut self) -> Vec<TraceRow> {
        self.tracer.drain()
    }

    /// A cell a shaper held was created at its source (`emit` at its creation time; with its
    /// frame's last cell `frame_sent` and the segment rows): written when the shaper releases
    /// it. Every other cell's `emit` row is written by its first port's hook (`entering`).
    #[cold]
    #[inline(never)]
    pub(crate) fn trace_emit(&mut self, c: &Cell) {
        let p = self.flows[c.flow as usize].ports[0];
        self.write_emit(p, c, c.created);
    }

    fn write_emit(&mut self, p: u32, c: &Cell, now: SimTime) {
        let node = self.ports[p as usize].node;
        self.tracer.cell(TraceKind::Emit, now, p, node, c, u8::MAX);
        if c.is_eof() && !c.is_rm() && self.flows[c.flow as usize].sar.framed {
            // the sender: the endpoint that receives the reverse direction's frames of this
            // transport connection
            let pair = self.flows[c.flow as usize].pair;
            let window = if c.seg.has_data() && pair != NONE {
                self.endpoint_window(self.flows[pair as usize].rx_endpoint(c.seg.conn), c)
            } else {
                None
            };
            self.tracer
                .frame_out(now, p, node, c, SEGMENT_HEADER_BYTES, window);
        }
    }

    /// Endpoint `e`'s congestion window and slow-start threshold for the transport connection
    /// of `c`'s frame (its hook), if `e` is one.
    fn endpoint_window(&self, e: u32, c: &Cell) -> Option<(u64, u64)> {
        (e != NONE).then(|| self.endpoints[e as usize].app.window(c.seg))?
    }

    /// The end of the run: the `emit` rows of the cells the shapers still hold (emitted, never
    /// released).
    #[cold]
    #[inline(never)]
    pub(crate) fn trace_finish(&mut self) {
        let held: Vec<Cell> = self
            .flows
            .iter()
            .filter_map(|f| f.shaper.as_ref())
            .flat_map(|sh| sh.queue.iter().copied())
            .collect();
        for c in &held {
            self.trace_emit(c);
        }
    }

    /// Whether `c`, offered to port `p` now, is entering the network: at its flow's first port,
    /// created now or (a relayed cell, which keeps its creation time) on a flow without a
    /// shaper; a shaped flow's cell created earlier had its `emit` row when the shaper released
    /// it ([`Simulation::trace_emit`], at its creation time).
    fn entering(&self, p: u32, c: &Cell) -> bool {
        let f = &self.flows[c.flow as usize];
        c.hop == 0 && f.ports[0] == p && (c.created == self.now || f.shaper.is_none())
    }

    /// A cell was offered to port `p`'s buffer (`enqueue`; `emit` first if it enters the
    /// network here).
    #[cold]
    #[inline(never)]
    pub(crate) fn trace_enqueue(&mut self, p: u32, c: &Cell) {
        if self.entering(p, c) {
            self.write_emit(p, c, self.now);
        }
        let node = self.ports[p as usize].node;
        self.tracer
            .cell(TraceKind::Enqueue, self.now, p, node, c, u8::MAX);
    }

    /// The cell last put on port `p`'s link started transmission at `start`: its `depart` and
    /// `arrive` rows (the arrival time is fixed on the link), after its `enqueue` row when
    /// `enqueued` (it was offered to the port now); `start` `SimTime::MAX`: a computed
    /// departure, whose start the port holds.
    #[cold]
    #[inline(never)]
    pub(crate) fn trace_on_link(&mut self, p: u32, enqueued: bool, start: SimTime) {
        let Some(&(at, c)) = self.ports[p as usize].link.pipe.back() else {
            return;
        };
        if enqueued && self.entering(p, &c) {
            self.write_emit(p, &c, self.now);
        }
        let port = &self.ports[p as usize];
        let (from, to) = (port.node, port.to);
        let now = self.now;
        let tr = &mut self.tracer;
        if enqueued {
            tr.cell(TraceKind::Enqueue, now, p, from, &c, u8::MAX);
        }
        // a computed departure: its start is the last one the port holds
        let start = if start == SimTime::MAX {
            port.starts.back().copied().unwrap_or(now)
        } else {
            start
        };
        tr.cell(TraceKind::Depart, start, p, from, &c, u8::MAX);
        let mut arrived = c;
        arrived.hop += 1;
        tr.cell(TraceKind::Arrive, at, p, to, &arrived, u8::MAX);
    }

    /// A cell started transmission on port `p` and was lost on the link (or replaced by a
    /// misinserted one): its `depart` row only.
    #[cold]
    #[inline(never)]
    pub(crate) fn trace_depart(&mut self, p: u32, c: &Cell) {
        let node = self.ports[p as usize].node;
        self.tracer
            .cell(TraceKind::Depart, self.now, p, node, c, u8::MAX);
    }

    /// A cell was dropped, counted at port `p`, for reason `r`.
    #[cold]
    #[inline(never)]
    pub(crate) fn trace_drop(&mut self, p: u32, c: &Cell, r: DropReason) {
        let node = self.ports[p as usize].node;
        self.tracer
            .cell(TraceKind::Drop, self.now, p, node, c, r as u8);
    }

    /// A cell reached the last node of its flow (`deliver`); with a frame's last cell, the
    /// frame's outcome and, for a segment with an acknowledgement, `tcp_acked`.
    #[cold]
    #[inline(never)]
    pub(crate) fn trace_deliver(&mut self, c: &Cell, frame_done: bool) {
        let f = &self.flows[c.flow as usize];
        let frame = (c.is_eof() && !c.is_rm() && f.sar.framed).then_some(frame_done);
        let p = f.ports[f.ports.len() - 1];
        let node = self.ports[p as usize].to;
        let now = self.now;
        // the sender the acknowledgement is for: the endpoint this flow hands the frame to
        let window = if frame == Some(true) && c.seg.has_ack() {
            self.endpoint_window(f.rx_endpoint(c.seg.conn), c)
        } else {
            None
        };
        let tr = &mut self.tracer;
        tr.cell(TraceKind::Deliver, now, p, node, c, u8::MAX);
        match frame {
            Some(true) => {
                tr.frame(TraceKind::FrameReceived, now, p, node, c, None);
                if c.seg.has_ack() {
                    tr.frame(TraceKind::SegmentAcked, now, p, node, c, window);
                }
            }
            Some(false) => tr.frame(TraceKind::FrameLost, now, p, node, c, None),
            None => {}
        }
    }
}
