//! An output port: the queue per service category, its scheduler and frame discard, and the
//! directed channel it feeds (serialization at the port rate; propagation on the link).

use crate::abr::PortScheme;
use crate::cac::PortCac;
use crate::metrics::probe::{ColumnDecl, TableDecl, PORT_KEY};
use crate::metrics::*;
use crate::net::*;
use crate::time::*;
use crate::wire::Cell;

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
    /// Computed departures ([`Port::computed`]): a cell queued here behind others is put on the
    /// link at once, with the start time its turn gives it, instead of waiting for a `PortTx`
    /// event; the port's queue accounting (length, area, cells sent) follows lazily.
    pub(crate) computed: bool,
    /// `computed` in a run without a trace: the path `Simulation::enqueue` takes at once.
    pub(crate) computed_fast: bool,
    /// The one category a computed-departure port carries.
    pub(crate) computed_cls: u8,
    /// A port whose departures its node's fabric hears of (`fabric_node`) and that has none of
    /// the other features `Simulation::enqueue_general` checks cell by cell (ABR scheme, frame
    /// discard, shared buffer, rate-limited scheduler, impairment, trace): a cell that finds its
    /// line free starts at once on the short path `Simulation::start_heard` (issue 27).
    pub(crate) heard_fast: bool,
    /// The far node's fabric passes every cell that arrives on this port's link straight to
    /// its output port's buffer (an output-buffered fabric: its `on_arrival` always answers
    /// `Pass` and changes nothing), so `Simulation::arrive` enqueues the cell without asking it.
    /// Issue 27 item 3: without the fabric's dispatch (an index into the nodes, a match on the
    /// fabric and one on its answer) bench (a) went from 415.5 to 409.0 instructions per
    /// cell-hop (cachegrind). Set at build (`far_passes` in `build/mod.rs`).
    pub(crate) far_passes: bool,
    /// Deferred departures ([`Port::may_defer`], `sim/defer.rs`): the cells waiting here stay
    /// in the queue with no `PortTx` event; the port's line serves them, in the scheduler's
    /// order, when something next looks at the port (`Simulation::settle`).
    pub(crate) deferred: bool,
    /// At a deferred port with cells waiting, when the `PortTx` event of the next start
    /// (`busy_until`) would have been scheduled: the previous start, or the enqueue that found
    /// the queue empty behind a busy line.
    pub(crate) tx_at: SimTime,
    /// Start times of the cells already on the link that still count as waiting (ascending).
    pub(crate) starts: crate::ring::Ring<SimTime>,
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
    /// The node whose fabric hears when a cell starts transmission here (`Fabric::on_departure`:
    /// the credit fabric gives the cell's credit back), or NONE; set by the fabric's builder.
    pub(crate) fabric_node: u32,
    /// ABR feedback scheme of this port.
    pub scheme: PortScheme,
    /// Cells of categories above ABR sent (CBR, VBR), and the count when the current ERICA
    /// interval began.
    pub(crate) hp_tx: u64,
    pub(crate) hp_mark: u64,
    pub stats: PortStats,
    /// The most cells ever waiting here, whole run (what the memory budget was charged for:
    /// `crate::budget`, in steps of `budget::STEP`).
    pub(crate) held_cells: u32,
}

impl Port {
    /// The `ports` series: every output port at every sample.
    pub const PROBES: TableDecl = TableDecl {
        name: "ports",
        doc: "Every output port at every sample",
        key: PORT_KEY,
        columns: &[
            ColumnDecl::u32(
                "queue_cells",
                "cells",
                "Cells waiting in the buffer at the sample (not the one on the line)",
            )
            .plot("queues", "queue"),
            ColumnDecl::f64(
                "utilization",
                "",
                "Share of the line rate the port sent since the previous sample",
            ),
        ],
        always: true,
        active: "queue_cells",
    };

    /// Fill this port's row of the `ports` series (a sample every `interval_s`).
    pub(crate) fn probe(&mut self, mut row: Row<'_>, interval_s: f64) {
        let cells = self.stats.tx_total - self.stats.sample_tx;
        self.stats.sample_tx = self.stats.tx_total;
        row.u32("queue_cells", self.queue.len).f64(
            "utilization",
            cells as f64 * CELL_BITS as f64 / self.rate_bps as f64 / interval_s,
        );
    }

    /// Give memory back where the link's pipe or the computed departures' start times hold
    /// at most an eighth of their room ([`Link::give_back`]; the start times as the pipe,
    /// never below the cells the pipe keeps room for).
    pub(crate) fn give_back(&mut self) {
        self.link.give_back();
        if let Some(room) = Link::room_to_keep(self.starts.len(), self.starts.capacity()) {
            self.starts.shrink_to(room);
        }
    }

    /// Cells waiting in the buffer.
    pub fn queue_len(&self) -> u32 {
        self.queue.len
    }

    /// Whether this port may compute departures when a cell is queued: the order in which
    /// waiting cells leave must be fixed when they are queued and nothing but the port may need
    /// a cell while it waits. So: one category only (`one_category`: every flow crossing the
    /// port is of it; a higher category would overtake), strict priority (no rate-limited
    /// scheduler), no frame discard (EPD / PPD read the queue of a frame's cells), no fabric
    /// that hears of departures (a credit goes back when a cell leaves), no ABR scheme (it
    /// reads the ABR queue and the cells sent per interval), no shared buffer (other ports read
    /// its occupancy), no impairment (its draws and drops happen at transmission), and a link
    /// delay above zero (then a waiting cell enters a non-empty link, and its `Arrive` event is
    /// scheduled at the same moment as with a `PortTx` event; see `sim/forward.rs`): what
    /// [`Port::may_defer`] asks, with one category and no ABR scheme besides.
    pub(crate) fn may_compute(&self, one_category: Option<u8>) -> Option<u8> {
        one_category.filter(|_| self.scheme.is_none() && self.may_defer())
    }

    /// Whether this port may be a [`Port::heard_fast`] port (in a run without a trace): its
    /// node's fabric hears of its departures (a credit fabric's output: a cell on a free line
    /// starts on a short path, `Simulation::start_heard`), and it has no ABR scheme, frame
    /// discard, shared buffer, rate-limited scheduler or impairment.
    pub(crate) fn may_start_heard(&self) -> bool {
        self.fabric_node != NONE
            && self.scheme.is_none()
            && self.frames.is_none()
            && self.group == NONE
            && self.sched.is_strict()
            && self.link.impair.is_none()
    }

    /// A computed departure (`Simulation::enqueue`): `cell` has just been counted as waiting
    /// here (a [`Port::computed`] port), behind cells whose departures are all fixed; its
    /// transmission starts when the line is free (`busy_until`), and it goes on the link now.
    /// [`Port::catch_up`] takes it out of the waiting count at that start, lazily, when
    /// something next looks at the port.
    ///
    /// What equals the `PortTx` way exactly: the start time and the pacer (one FIFO category,
    /// strict priority: the order is fixed at queueing), the arrival time at the far node, and
    /// the moment its `Arrive` event is scheduled (the previous cell, started at this cell's
    /// start minus one cell time, reaches the far node a link delay > 0 after this start, so the
    /// link is never empty here, and this cell's `Arrive` is scheduled by the previous one's,
    /// as before); the queue's length, area and cells sent between start times (`catch_up`
    /// before anything reads them: an enqueue, a sample, the warm-up's end, the end of the
    /// run). What is not: the tie at the start time itself. A `PortTx` event at T ran before or
    /// after the other events at T in the order they were scheduled, which depends on history;
    /// here one fixed rule decides (`TIE_DEPARTS_FIRST`).
    ///
    /// Returns what the caller does for the link ([`OnLink`]).
    #[inline(always)]
    pub(crate) fn commit(&mut self, now: SimTime, cell: Cell) -> OnLink {
        let start = self.busy_until;
        let end = self.pacer.advance();
        self.busy_until = end;
        let at = end + self.link.delay_ps;
        self.link.pipe.push_back((at, cell));
        self.link.prefetch_tail();
        self.starts.push_back(start);
        self.arrival_to_schedule(now, at)
    }

    /// Put `cell` of category `cls` on the free line at `now` (a port whose departures no
    /// fabric hears of, without impairment: `Simulation::transmit` checks): it ends
    /// transmission one cell time later and reaches the far node after the link's delay.
    /// Returns what [`Port::commit`] does.
    #[inline(always)]
    pub(crate) fn send_now(&mut self, now: SimTime, cell: Cell, cls: usize) -> OnLink {
        let at = self.start_on_line(now, cls);
        self.link.pipe.push_back((at, cell));
        self.link.prefetch_tail();
        self.arrival_to_schedule(now, at)
    }

    /// A cell arriving at `at` went on the link at `now`: its `Arrive` event is to be
    /// scheduled now (`Schedule(at)`, `Link::arrive_at`) when it is the only one, not when the
    /// link's head already has its event (`Pending`); on a sink's link (`Link::sink`, no
    /// events) the cells that arrived before `now` are to be delivered (`Deliver`).
    #[inline(always)]
    fn arrival_to_schedule(&mut self, now: SimTime, at: SimTime) -> OnLink {
        if self.link.arrive_pending {
            OnLink::Pending
        } else if self.link.sink {
            match self.link.pipe.front() {
                Some(&(t, _)) if t < now => OnLink::Deliver,
                _ => OnLink::Pending,
            }
        } else {
            self.link.arrive_pending = true;
            self.link.arrive_at = now;
            OnLink::Schedule(at)
        }
    }

    /// Whether this port may defer its departures (when it may not compute them): the line must
    /// be work-conserving with an order fixed by the cells present at each start, and every
    /// reader of the port's state must be known so that it can settle the port first. So:
    /// strict priority (the next cell is the head of the highest non-empty category, and the
    /// line never idles while a cell waits), no frame discard, fabric hearing of departures or
    /// shared buffer (their state is read from outside the port's own events), no impairment
    /// (draws at transmission), and a link delay above zero (a cell started at T is still on
    /// the link at T, so the cell behind it always finds the link's `Arrive` event pending, as
    /// with a `PortTx` event: `sim/defer.rs`). An ABR scheme is allowed: it reads the port when
    /// a forward cell enters (after the settle in `enqueue`), when its interval closes and when
    /// a backward RM cell passes (both settle first). Only switch ports defer (the build
    /// checks): a host's port is fed by its sources' timers, which do not say when they were
    /// scheduled (`sim/defer.rs`).
    pub(crate) fn may_defer(&self) -> bool {
        self.sched.is_strict()
            && self.frames.is_none()
            && self.fabric_node == NONE
            && self.group == NONE
            && self.link.impair.is_none()
            && self.link.delay_ps > 0
    }

    /// Catch the queue accounting up with the computed departures: every cell whose
    /// transmission starts before `now` (or at `now` too, `inclusive`) leaves the count of
    /// waiting cells at its start time, as `PortTx` would have done then. Returns how many
    /// started (cell hops).
    ///
    /// The first test is inlined (usually nothing or one cell has started since the last
    /// look); the loop is not.
    #[inline(always)]
    pub(crate) fn catch_up(&mut self, now: SimTime, inclusive: bool) -> u64 {
        if self.started(now, inclusive) {
            self.catch_up_from(now, inclusive)
        } else {
            0
        }
    }

    /// Whether [`Port::catch_up`] has anything to do: a cell's transmission started before
    /// `now` (or at `now` too, `inclusive`). Tested apart where the caller adds up what
    /// `catch_up` returns only when there is something (`Simulation::enqueue`: no addition of
    /// zero on the common path).
    #[inline(always)]
    pub(crate) fn started(&self, now: SimTime, inclusive: bool) -> bool {
        matches!(self.starts.front(), Some(&s) if s < now || (s == now && inclusive))
    }

    /// [`Port::catch_up`]'s loop: the starts in one pass, the counters once at the end (the
    /// queue's area as `mark_queue` then `count_out` at each start would have summed it, term
    /// by term; the counts by `count_out` and `count_start` `n` times).
    #[inline(never)]
    pub(crate) fn catch_up_from(&mut self, now: SimTime, inclusive: bool) -> u64 {
        let mut n = 0u32;
        let mut len = self.queue.len;
        let mut area = self.stats.area;
        let mut last = self.stats.last_change;
        while let Some(&s) = self.starts.front() {
            if s > now || (s == now && !inclusive) {
                break;
            }
            self.starts.pop_front();
            area += len as u128 * (s - last) as u128;
            last = s;
            len -= 1;
            n += 1;
        }
        self.stats.area = area;
        self.stats.last_change = last;
        let cls = self.computed_cls as usize;
        self.queue.count_out_n(cls, n);
        self.count_starts(cls, n as u64);
        n as u64
    }

    /// Account the queue-length integral up to `now` (call before the length changes).
    #[inline]
    pub(crate) fn mark_queue(&mut self, now: SimTime) {
        let st = &mut self.stats;
        st.area += self.queue.len as u128 * (now - st.last_change) as u128;
        st.last_change = now;
    }

    /// `cell` of category `cls`, admitted, waits in the buffer from `now`: the queue's area up
    /// to now, the cell queued (or only counted, `push` false: a computed departure's cell
    /// waits on the link), the largest queue.
    #[inline(always)]
    pub(crate) fn wait(&mut self, now: SimTime, cell: Cell, cls: usize, push: bool) {
        self.mark_queue(now);
        if push {
            self.queue.push(cell, cls);
        } else {
            self.queue.count_in(cls);
        }
        if self.queue.len > self.stats.max_queue {
            self.stats.max_queue = self.queue.len;
            if self.queue.len > self.held_cells {
                self.new_held();
            }
        }
    }

    /// The queue holds more cells than ever before: at each multiple of `budget::STEP` the
    /// memory budget is charged for `STEP` more cells (`crate::budget`).
    #[cold]
    #[inline(never)]
    fn new_held(&mut self) {
        self.held_cells = self.queue.len;
        if self.held_cells % crate::budget::STEP != 0 {
            return;
        }
        let bytes = crate::budget::STEP as u64 * crate::budget::PORT_CELL_BYTES;
        crate::budget::take(bytes, || {
            (
                format!(
                    "the queue of output port {} ({} cells)",
                    self.name, self.queue.len
                ),
                Some(format!("nodes[{}].buffer_cells", self.node)),
                self.held_cells as u64 * crate::budget::PORT_CELL_BYTES,
            )
        });
    }

    /// The line starts sending a cell of category `cls` at `now` (it is free): the pacer's
    /// end of transmission, the counters. Returns when the cell reaches the far node.
    #[inline(always)]
    pub(crate) fn start_on_line(&mut self, now: SimTime, cls: usize) -> SimTime {
        if now > self.busy_until {
            self.pacer.start(now);
        }
        let end = self.pacer.advance();
        self.busy_until = end;
        self.count_start(cls);
        end + self.link.delay_ps
    }

    /// A cell of category `cls` starts on the line: the cells sent (those of categories above
    /// ABR apart, which ERICA reads).
    #[inline(always)]
    fn count_start(&mut self, cls: usize) {
        if cls < crate::net::Category::Abr as usize {
            self.hp_tx += 1;
        }
        self.stats.tx_cells += 1;
        self.stats.tx_total += 1;
    }

    /// [`Port::count_start`] `n` times.
    #[inline(always)]
    fn count_starts(&mut self, cls: usize, n: u64) {
        if cls < crate::net::Category::Abr as usize {
            self.hp_tx += n;
        }
        self.stats.tx_cells += n;
        self.stats.tx_total += n;
    }
}
