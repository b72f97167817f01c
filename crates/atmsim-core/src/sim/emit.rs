//! Cells entering the network: emission by the sending host, AAL5 framing, the source shaper.
//!
//! Cost (issue 13, cachegrind, bench (a), 2.66 cell-hops per emitted cell): the emission path of
//! a persistent source (its timer event, `Cbr::fire`, [`Simulation::emit`], arming the next
//! timer; the event queue and the host port's `enqueue` not counted) was about 200 instructions
//! per emitted cell (an `Asks` built and read by an out-of-line `apply`, then an out-of-line
//! `emit_cell`) and is about 80 now: `endpoint_timer` serves a CBR endpoint without a host
//! model directly, and `emit` inlines the cell's creation.
//!
//! Why a source's emissions still take one event each: the engine orders events of equal time
//! by when they were scheduled, and each emission schedules events (the port's transmission,
//! the next timer). Emitting ahead of time (at the previous emission) would give those events
//! earlier places among equal-time events, and would show the cell in the host port's queue
//! and the flow's counters before its time (samples, the warm-up boundary): not exact in
//! general. It could be exact only with the engine handing out the scheduling position an
//! emission event would have had, which is the engine's design, not this path's.

use crate::engine::Event;
use crate::sim::*;
use crate::wire::SegHdr;
use crate::wire::{Cell, H_EOF};

impl Simulation {
    /// Create one cell of `flow` now (AAL5 framing by the flow) and queue it at the host port.
    /// Inlined into its callers (the per-cell path of every persistent and CBR source).
    #[inline(always)]
    pub(crate) fn emit(&mut self, flow: u32) {
        self.emit_cell_inline::<true>(flow, 0, false, SegHdr::default());
    }

    /// Create one data cell of `flow` now: `len` is the index within its AAL5 frame or, on the
    /// end-of-frame cell, the frame's SDU length; `seg` the frame's transport header.
    pub(crate) fn emit_cell(&mut self, flow: u32, len: u16, eof: bool, seg: SegHdr) {
        self.emit_cell_inline::<false>(flow, len, eof, seg);
    }

    /// [`Simulation::emit_cell`], inlined where it is the per-cell path ([`Simulation::emit`]).
    /// `STREAM`: the cell's place in its AAL5 frame comes from the flow's stream
    /// (`Sar::next_stream_cell`; `len` and `eof` are not used), under the same index into the
    /// flows as the rest (issue 27 item 3: one bounds check fewer per emitted cell).
    #[inline(always)]
    fn emit_cell_inline<const STREAM: bool>(
        &mut self,
        flow: u32,
        len: u16,
        eof: bool,
        seg: SegHdr,
    ) {
        let now = self.now;
        let warm = now >= self.warmup;
        let f = &mut self.flows[flow as usize];
        let (len, eof) = if STREAM {
            f.sar.next_stream_cell()
        } else {
            (len, eof)
        };
        let mut cell = Cell {
            created: now,
            flow,
            seq: f.sar.take_seq(),
            len,
            seg,
            ..Default::default()
        };
        if eof {
            cell.hdr |= H_EOF;
            if warm {
                f.stats.frames_sent += 1;
                f.stats.frame_bytes_sent += len as u64;
            }
        }
        if warm {
            f.sent += 1;
            if let Some(m) = f.monitor {
                self.monitors[m as usize].record(now);
            }
        }
        if let Some(sh) = &mut f.shaper {
            if !sh.queue.is_empty() || sh.earliest() > now {
                sh.queue.push_back(cell);
                if sh.queue.len() > sh.max_queue {
                    new_max_shaped(sh, &f.name);
                }
                if !sh.pending {
                    sh.pending = true;
                    let t = sh.earliest().max(now);
                    self.queue.push(t, Event::Shaper(flow));
                }
                return;
            }
            sh.take(now);
        }
        let p = f.ports[0];
        let cls = f.category as usize;
        // (traced: the first port's hook writes the `emit` row, `sim/trace.rs`)
        self.enqueue(p, cell, cls);
    }

    /// The shaper of `flow` releases its head cell (it conforms now) into the host's port.
    pub(crate) fn shaper_release(&mut self, flow: u32) {
        let now = self.now;
        let f = &mut self.flows[flow as usize];
        let sh = f.shaper.as_mut().expect("a shaper event has a shaper");
        sh.pending = false;
        let Some(cell) = sh.queue.pop_front() else {
            return;
        };
        sh.take(now);
        if !sh.queue.is_empty() {
            sh.pending = true;
            let t = sh.earliest().max(now);
            self.queue.push(t, Event::Shaper(flow));
        }
        let (p, cls) = (f.ports[0], f.category as usize);
        if self.tracer.on && cell.created != now {
            // held by the shaper: its `emit` row, at its creation (one created now gets it
            // from the port's hook)
            self.trace_emit(&cell);
        }
        self.enqueue(p, cell, cls);
    }

    /// Send a cell the application built (RM cells): it keeps its header and RM fields and does
    /// not take a data sequence number.
    /// A data cell sent this way is a relayed cell (a virtual source passing on its upstream
    /// segment's data): it keeps its creation time, sequence number and AAL5 bits.
    pub(crate) fn emit_explicit(&mut self, flow: u32, mut cell: Cell) {
        let now = self.now;
        let f = &mut self.flows[flow as usize];
        cell.flow = flow;
        cell.hop = 0;
        if cell.is_rm() {
            cell.created = now;
            cell.seq = f.sar.next_seq(); // not consumed: RM cells are not part of AAL5 frames
        }
        if cell.created >= self.warmup {
            f.sent += 1;
            if cell.is_rm() {
                f.stats.rm_sent += 1;
            } else if cell.is_eof() && f.sar.framed {
                f.stats.frames_sent += 1;
                f.stats.frame_bytes_sent += cell.len as u64;
            }
        }
        let (p, cls) = (f.ports[0], f.category as usize);
        self.enqueue(p, cell, cls);
    }
}

/// A shaper's queue holds more cells than ever: at each multiple of `budget::STEP` the memory
/// budget is charged for `STEP` more (`crate::budget`).
#[cold]
#[inline(never)]
fn new_max_shaped(sh: &mut Shaper, flow: &str) {
    use crate::budget::{take, QUEUED_CELL_BYTES, STEP};
    sh.max_queue = sh.queue.len();
    let cells = sh.max_queue;
    if cells % STEP as usize != 0 {
        return;
    }
    take(STEP as u64 * QUEUED_CELL_BYTES, || {
        (
            format!("the source shaper of connection {flow} ({cells} cells)"),
            None,
            cells as u64 * QUEUED_CELL_BYTES,
        )
    });
}
