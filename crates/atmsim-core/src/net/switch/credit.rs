//! The input/output-buffered fabric with credit-based flow control on a TDM bus: seed 004's Cisco
//! A100 Hyperswitch ("the input buffer size (per port) is 2450 cells and the output buffer size
//! (per port) is 50 cells. Cells traverse through the switch fabric via a credit scheme which
//! controls the admission of cells from the input buffers to the output buffers ... cell loss
//! never occurs at the output buffers", section 4.1), after the XATOM design it cites (Fan et al.
//! 1994, its reference [7]); "two priority levels for both cell loss and cell delay".
//!
//! The model, and the readings chosen where the seed says nothing (all parameters of
//! `nodes[].fabric`, see `docs/fabrics.md`):
//!
//! - **Input buffers.** Each incoming link of the switch ends in an input buffer of
//!   `input_buffer_cells` cells shared by both priorities; a cell that finds it full is dropped
//!   and counted with reason `input_buffer_full` on the port that feeds the input (the sending
//!   side's output port, as UPC discards are). Inside, cells wait in one FIFO per priority
//!   (`queueing = "fifo"`: the head cell of a FIFO blocks the cells behind it while its output
//!   has no credit, head-of-line blocking) or in one queue per output and priority
//!   (`queueing = "voq"`, virtual output queues: no head-of-line blocking).
//! - **Credits.** Output `o` holds `credits` credits (at most its `output_buffer_cells`). A cell
//!   crosses the bus only if its output has a credit, and takes it; the credit is given back when
//!   the cell leaves the output buffer (starts transmission on the output line) and reaches the
//!   inputs `credit_delay_us` later. The output port's buffer is `output_buffer_cells` cells, so
//!   an output never drops a cell (tested under overload).
//! - **The TDM bus** carries one cell per slot of 424 bits at `bus_mbps` (2,400 Mb/s in both of
//!   the seed's switches), slots paced exactly ([`Pacer`]). At each slot it serves the inputs in
//!   round-robin order starting after the input it served last, high priority first: the first
//!   input (in that order) holding a high-priority cell that may cross sends it; if none, the
//!   first holding a low-priority one. A VOQ input chooses among its outputs round robin too. A
//!   cell is in its output buffer at the start of its slot (its bus transfer time is part of
//!   the fixed latency); when no waiting cell may cross, the bus idles until a cell arrives or a
//!   credit returns.
//! - **Latency.** `latency_us` is a fixed time from a cell's arrival at the switch to its
//!   arrival in the input buffer (seed 004 Figure 5: 39.90 us per port at light load for the
//!   Hyperswitch); like the output-buffered fabric's transit it is folded into the incoming
//!   links' delay and costs no event.
//! - **Priorities.** Categories listed in `high_priority` (default CBR and rt-VBR) use the
//!   high-priority queues; the output port serves its categories by its own scheduler.
//!
//! The bus finds its cell without scanning every input (issue 27 item 4): bitsets of the inputs
//! holding cells of each priority, of each VOQ input's non-empty outputs, and of the outputs with
//! a credit, walked round robin from where the last slot stopped ([`next_one`]); the order is the
//! scan's exactly (`pick_matches_the_scan` checks it against [`CreditFabric::pick_scan`]).
//!
//! The engine drives it through the [`Fabric`] hooks: an arriving cell joins its input buffer
//! ([`Fabric::on_arrival`]); timed work is the fabric's own `Event::Fabric(node, arg)`
//! ([`Fabric::on_event`]): `arg = BUS` is the bus's next slot, which forwards the cell it
//! carries to its output port (and the next slot is looked for once the port has it,
//! [`Fabric::on_forwarded`]), any other `arg` is the local index of an output whose credit comes
//! back; the build sets `Port::fabric_node` on the outputs, so that a cell starting
//! transmission there is reported ([`Fabric::on_departure`]): its credit goes back.

use super::{Arrival, Fabric, FabricAsks, Forward, Wake};
use crate::metrics::{DropReason, FabricSummary};
use crate::net::NONE;
use crate::time::{Pacer, SimDuration, SimTime};
use crate::wire::Cell;
use std::collections::VecDeque;

/// The `Event::Fabric` argument of a bus slot (other arguments are output indexes).
pub const BUS: u32 = u32::MAX;

/// One waiting cell with what the fabric needs to move it.
#[derive(Clone, Copy, Debug)]
pub struct Waiting {
    pub cell: Cell,
    /// Local output index.
    pub out: u32,
    /// Service category.
    pub cls: u8,
}

/// The parameters of a credit fabric (from `nodes[].fabric`).
#[derive(Clone, Debug)]
pub struct CreditParams {
    pub input_buffer_cells: u32,
    pub output_buffer_cells: u32,
    pub credits: u32,
    pub credit_delay_ps: SimDuration,
    pub bus_bps: u64,
    pub latency_ps: SimDuration,
    pub voq: bool,
    /// High priority per service category (index = `Category as usize`).
    pub high: [bool; 5],
}

/// Counters of one credit fabric (whole run, warm-up included: they measure the fabric).
#[derive(Clone, Debug, Default)]
pub struct CreditStats {
    /// Cells carried by the bus.
    pub bus_cells: u64,
    /// Cells refused by a full input buffer.
    pub input_drops: u64,
    /// Most cells in one input buffer.
    pub max_input_cells: u32,
    /// Most credits one output had taken (cells in its buffer, or credits on their way back).
    pub max_credits_used: u32,
}

#[derive(Clone, Debug)]
struct Input {
    /// Queues: FIFO: `[high, low]`; VOQ: `prio * outputs + out`.
    queues: Vec<VecDeque<Waiting>>,
    /// Cells in this input buffer.
    len: u32,
    /// VOQ: the output to look at first next time.
    rr_out: u32,
    /// VOQ: bitsets (by priority, high first) of the outputs whose queue here holds a cell.
    outs: [Vec<u64>; 2],
    /// The most cells this input ever held (what the memory budget was charged for).
    held: u32,
}

/// Words of a bitset of `n` members.
fn words(n: usize) -> Vec<u64> {
    vec![0; n.div_ceil(64).max(1)]
}

#[inline]
fn set(bits: &mut [u64], i: u32, on: bool) {
    let (w, b) = ((i / 64) as usize, i % 64);
    if on {
        bits[w] |= 1 << b;
    } else {
        bits[w] &= !(1 << b);
    }
}

/// The first member `i` of the bitset `bits` at or after `start`, round robin (wrapping to the
/// members below `start`), for which `ok(i)` holds. Visits only members, in the order a scan of
/// `start, start + 1, ...` (mod the size) would meet them.
#[inline]
pub fn next_one(bits: &[u64], start: u32, mut ok: impl FnMut(u32) -> bool) -> Option<u32> {
    let nw = bits.len();
    let (sw, sb) = ((start / 64) as usize, start % 64);
    let mut w = sw;
    let mut word = bits[sw] & (!0u64 << sb);
    for step in 0..=nw {
        while word != 0 {
            let i = (w * 64) as u32 + word.trailing_zeros();
            if ok(i) {
                return Some(i);
            }
            word &= word - 1;
        }
        w = (w + 1) % nw;
        word = if step + 1 == nw {
            bits[w] & ((1u64 << sb) - 1) // back at the start word: its members below `start`
        } else {
            bits[w]
        };
    }
    None
}

/// The credit-based input/output-buffered fabric of one switch.
#[derive(Clone, Debug)]
pub struct CreditFabric {
    pub p: CreditParams,
    /// Global port id -> local input (the port feeding the input) / local output; NONE if not.
    pub input_of: Vec<u32>,
    pub output_of: Vec<u32>,
    /// Local input -> the global port feeding it; local output -> its global port.
    pub in_port: Vec<u32>,
    pub out_port: Vec<u32>,
    inputs: Vec<Input>,
    /// Credits available at each output.
    credits: Vec<u32>,
    bus: Pacer,
    bus_free: SimTime,
    bus_pending: bool,
    /// The input the bus looks at first next slot.
    rr: u32,
    /// Cells in all input buffers.
    waiting: u32,
    /// Bitsets (by priority, high first) of the inputs holding a cell of that priority.
    busy: [Vec<u64>; 2],
    /// Bitset of the outputs with a credit.
    credited: Vec<u64>,
    pub stats: CreditStats,
}

/// What the bus did in one slot.
pub enum Slot {
    /// It carried this cell from input `input` to output port `port` (global id).
    Carried { w: Waiting, port: u32 },
    /// No waiting cell may cross now.
    Idle,
}

impl CreditFabric {
    /// A fabric whose inputs are fed by the global ports `in_port` and whose outputs are the
    /// global ports `out_port`; `n_ports` is the number of ports of the whole network.
    pub fn new(p: CreditParams, in_port: Vec<u32>, out_port: Vec<u32>, n_ports: usize) -> Self {
        let nout = out_port.len();
        let nq = if p.voq { 2 * nout } else { 2 };
        let mut input_of = vec![NONE; n_ports];
        for (i, &g) in in_port.iter().enumerate() {
            input_of[g as usize] = i as u32;
        }
        let mut output_of = vec![NONE; n_ports];
        for (o, &g) in out_port.iter().enumerate() {
            output_of[g as usize] = o as u32;
        }
        // queues grow with the cells they hold and keep that room (no allocation per cell in a
        // steady state); nothing is reserved for an input buffer that may never fill
        let inputs = in_port
            .iter()
            .map(|_| Input {
                queues: (0..nq).map(|_| VecDeque::new()).collect(),
                len: 0,
                rr_out: 0,
                outs: [words(nout), words(nout)],
                held: 0,
            })
            .collect();
        let mut credited = words(nout);
        for o in 0..nout {
            set(&mut credited, o as u32, p.credits > 0);
        }
        let n_in = in_port.len();
        CreditFabric {
            busy: [words(n_in), words(n_in)],
            credited,
            credits: vec![p.credits; nout],
            bus: Pacer::new(p.bus_bps),
            p,
            input_of,
            output_of,
            in_port,
            out_port,
            inputs,
            bus_free: 0,
            bus_pending: false,
            rr: 0,
            waiting: 0,
            stats: CreditStats::default(),
        }
    }

    fn queue_index(&self, high: bool, out: u32) -> usize {
        let prio = (!high) as usize;
        if self.p.voq {
            prio * self.out_port.len() + out as usize
        } else {
            prio
        }
    }

    /// A cell of category `cls` for output port `out_port` (global id) arrives at input `input`
    /// (local): true if the input buffer takes it, false if it is full (the cell is lost).
    #[inline]
    pub fn admit(&mut self, input: u32, out_port: u32, cell: Cell, cls: usize) -> bool {
        let out = self.output_of[out_port as usize];
        debug_assert!(out != NONE, "output port of another node");
        let high = self.p.high[cls];
        let q = self.queue_index(high, out);
        let inp = &mut self.inputs[input as usize];
        if inp.len >= self.p.input_buffer_cells {
            self.stats.input_drops += 1;
            return false;
        }
        let prio = (!high) as usize;
        set(&mut self.busy[prio], input, true);
        if self.p.voq {
            set(&mut inp.outs[prio], out, true);
        }
        inp.queues[q].push_back(Waiting {
            cell,
            out,
            cls: cls as u8,
        });
        inp.len += 1;
        Self::count_held(&mut self.stats, input, inp);
        self.waiting += 1;
        true
    }

    /// Input `input` holds `inp.len` cells, one more than before: the most it and any input
    /// ever held.
    #[inline(always)]
    fn count_held(stats: &mut CreditStats, input: u32, inp: &mut Input) {
        if inp.len > inp.held {
            inp.held = inp.len;
            if inp.held % crate::budget::STEP == 0 {
                charge_input(input, inp.held);
            }
        }
        stats.max_input_cells = stats.max_input_cells.max(inp.len);
    }

    /// Whether a cell arriving at `now` for output `out` (local) would be carried by a bus slot
    /// at `now` as the only cell waiting: no cell waits, no slot is pending, the bus is free
    /// (a slot asked for now falls at `now`) and the output has a credit.
    #[inline(always)]
    fn may_cross(&self, now: SimTime, out: u32) -> bool {
        self.waiting == 0
            && !self.bus_pending
            && self.bus_free <= now
            && self.credits[out as usize] > 0
            && self.p.input_buffer_cells > 0
    }

    /// A cell of category `cls` for output `out` (local) arrives at input `input` where
    /// [`CreditFabric::may_cross`] holds, and the bus slot at `now` would run next: what
    /// [`CreditFabric::admit`], [`CreditFabric::kick`] and that slot ([`CreditFabric::slot`],
    /// [`CreditFabric::pick`]) do, without the queue. With no other cell waiting, the round robin
    /// of either priority finds this input (and a VOQ input this output) whatever it starts
    /// from; every bitset ends as it was (empty but for the credited outputs).
    #[inline]
    fn cross(&mut self, now: SimTime, input: u32, out: u32) {
        debug_assert!(self.may_cross(now, out));
        let inp = &mut self.inputs[input as usize];
        // admit: the input holds this one cell for a moment
        inp.len = 1;
        Self::count_held(&mut self.stats, input, inp);
        inp.len = 0;
        // pick
        if self.p.voq {
            inp.rr_out = (out + 1) % self.out_port.len() as u32;
        }
        let o = out as usize;
        self.credits[o] -= 1;
        if self.credits[o] == 0 {
            set(&mut self.credited, out, false);
        }
        self.rr = (input + 1) % self.inputs.len() as u32;
        // slot
        if now > self.bus_free {
            self.bus.start(now);
        }
        self.bus_free = self.bus.advance();
        self.stats.bus_cells += 1;
        let used = self.p.credits - self.credits[o];
        self.stats.max_credits_used = self.stats.max_credits_used.max(used);
    }

    /// The bus should look for work: the time of its next slot if one must be scheduled (no
    /// slot is pending and cells are waiting); the caller schedules `Event::Fabric(node, BUS)`.
    #[inline]
    pub fn kick(&mut self, now: SimTime) -> Option<SimTime> {
        if self.bus_pending || self.waiting == 0 {
            return None;
        }
        self.bus_pending = true;
        Some(self.bus_free.max(now))
    }

    /// A credit of output `out` (local) is back at the inputs.
    #[inline]
    pub fn credit(&mut self, out: u32) {
        self.credits[out as usize] += 1;
        set(&mut self.credited, out, true);
        debug_assert!(self.credits[out as usize] <= self.p.credits);
    }

    /// The bus slot at `now` (an `Event::Fabric(node, BUS)`): carry one cell if one may cross.
    pub fn slot(&mut self, now: SimTime) -> Slot {
        self.bus_pending = false;
        match self.pick() {
            Some(w) => {
                if now > self.bus_free {
                    self.bus.start(now);
                }
                self.bus_free = self.bus.advance();
                self.stats.bus_cells += 1;
                let used = self.p.credits - self.credits[w.out as usize];
                self.stats.max_credits_used = self.stats.max_credits_used.max(used);
                Slot::Carried {
                    w,
                    port: self.out_port[w.out as usize],
                }
            }
            None => Slot::Idle,
        }
    }

    /// The cell the bus takes now, with its credit, or none (see the module's service order):
    /// round robin over the inputs holding cells, high priority first, by the bitsets.
    pub fn pick(&mut self) -> Option<Waiting> {
        let n = self.inputs.len() as u32;
        let nout = self.out_port.len() as u32;
        for prio in 0..2 {
            let high = prio == 0;
            let (inputs, credited, credits) = (&self.inputs, &self.credited, &self.credits);
            let mut out = 0;
            let found = next_one(&self.busy[prio], self.rr, |i| {
                let inp = &inputs[i as usize];
                let o = if self.p.voq {
                    next_one(&inp.outs[prio], inp.rr_out, |o| {
                        credited[(o / 64) as usize] >> (o % 64) & 1 != 0
                    })
                } else {
                    inp.queues[prio]
                        .front()
                        .map(|w| w.out)
                        .filter(|&o| credits[o as usize] > 0)
                };
                out = o.unwrap_or(0);
                o.is_some()
            });
            if let Some(i) = found {
                let o = out;
                let q = self.queue_index(high, o);
                let inp = &mut self.inputs[i as usize];
                let w = inp.queues[q].pop_front().expect("a member holds a cell");
                inp.len -= 1;
                if self.p.voq {
                    inp.rr_out = (o + 1) % nout;
                    if inp.queues[q].is_empty() {
                        set(&mut inp.outs[prio], o, false);
                    }
                    if inp.outs[prio].iter().all(|&x| x == 0) {
                        set(&mut self.busy[prio], i, false);
                    }
                } else if inp.queues[q].is_empty() {
                    set(&mut self.busy[prio], i, false);
                }
                self.waiting -= 1;
                self.credits[o as usize] -= 1;
                if self.credits[o as usize] == 0 {
                    set(&mut self.credited, o, false);
                }
                self.rr = (i + 1) % n;
                return Some(w);
            }
        }
        None
    }

    /// [`CreditFabric::pick`] by scanning every input (the reference it is tested against).
    #[cfg(test)]
    pub fn pick_scan(&mut self) -> Option<Waiting> {
        let n = self.inputs.len() as u32;
        let nout = self.out_port.len() as u32;
        for high in [true, false] {
            for j in 0..n {
                let i = (self.rr + j) % n;
                let found = if self.p.voq {
                    let start = self.inputs[i as usize].rr_out;
                    (0..nout).map(|m| (start + m) % nout).find(|&o| {
                        self.credits[o as usize] > 0
                            && !self.inputs[i as usize].queues[self.queue_index(high, o)].is_empty()
                    })
                } else {
                    let q = self.queue_index(high, 0);
                    self.inputs[i as usize].queues[q]
                        .front()
                        .map(|w| w.out)
                        .filter(|&o| self.credits[o as usize] > 0)
                };
                if let Some(o) = found {
                    let q = self.queue_index(high, o);
                    let inp = &mut self.inputs[i as usize];
                    let w = inp.queues[q].pop_front().expect("checked non-empty");
                    inp.len -= 1;
                    if self.p.voq {
                        inp.rr_out = (o + 1) % nout;
                    }
                    self.waiting -= 1;
                    self.credits[o as usize] -= 1;
                    self.rr = (i + 1) % n;
                    return Some(w);
                }
            }
        }
        None
    }

    /// Cells in all input buffers.
    pub fn waiting(&self) -> u32 {
        self.waiting
    }

    /// Cells in input buffer `input` (local).
    pub fn input_len(&self, input: u32) -> u32 {
        self.inputs[input as usize].len
    }

    /// Credits available at output `out` (local).
    pub fn credits(&self, out: u32) -> u32 {
        self.credits[out as usize]
    }

    /// [`Fabric::on_arrival`] without the crossing at once: the cell joins its input buffer, or
    /// is lost there if it is full; the bus looks for work.
    #[inline]
    fn hold(&mut self, now: SimTime, from: u32, out: u32, cell: &Cell, cls: usize) -> Arrival {
        let input = self.input_of[from as usize];
        if self.admit(input, out, *cell, cls) {
            Arrival::Held(self.kick(now).map(|at| Wake { at, arg: BUS }))
        } else {
            Arrival::Lost(DropReason::InputBufferFull)
        }
    }

    /// The bus should look for work: its next slot, if one must be scheduled ([`Self::kick`]).
    #[inline]
    fn wake_bus(&mut self, now: SimTime) -> FabricAsks {
        FabricAsks {
            wake: self.kick(now).map(|at| Wake { at, arg: BUS }),
            forward: None,
        }
    }
}

impl Fabric for CreditFabric {
    fn transit_ps(&self) -> SimDuration {
        self.p.latency_ps
    }

    /// The cell joins the input buffer fed by port `from`, or is lost there if it is full; the
    /// bus looks for work. When the bus slot it would ask for falls at `now` and would carry this
    /// cell alone ([`CreditFabric::may_cross`]), the engine is asked whether that slot would run
    /// next ([`Arrival::Alone`]).
    #[inline]
    fn on_arrival(
        &mut self,
        now: SimTime,
        from: u32,
        out: u32,
        cell: &Cell,
        cls: usize,
    ) -> Arrival {
        if self.may_cross(now, self.output_of[out as usize]) {
            return Arrival::Alone;
        }
        self.hold(now, from, out, cell, cls)
    }

    /// After [`Arrival::Alone`]: the cell crosses at once when the slot would run next
    /// ([`CreditFabric::cross`]), else it is held as any other.
    #[inline(never)]
    fn on_alone(
        &mut self,
        now: SimTime,
        from: u32,
        out: u32,
        cell: &Cell,
        cls: usize,
        next: bool,
    ) -> Arrival {
        if next {
            self.cross(now, self.input_of[from as usize], self.output_of[out as usize]);
            Arrival::Crossed
        } else {
            self.hold(now, from, out, cell, cls)
        }
    }

    /// `arg = BUS`: the bus slot carries a cell to its output port if one may cross (else the
    /// bus waits for an arrival or a credit); otherwise the credit of output `arg` (local) is
    /// back at the inputs, and the bus looks for work.
    fn on_event(&mut self, now: SimTime, arg: u32) -> FabricAsks {
        if arg != BUS {
            self.credit(arg);
            return self.wake_bus(now);
        }
        match self.slot(now) {
            Slot::Carried { w, port } => FabricAsks {
                wake: None,
                forward: Some(Forward {
                    port,
                    cell: w.cell,
                    cls: w.cls,
                }),
            },
            Slot::Idle => FabricAsks::default(),
        }
    }

    /// The carried cell is in its output buffer (and any credit its start returned is back):
    /// the bus looks for its next slot.
    fn on_forwarded(&mut self, now: SimTime) -> FabricAsks {
        self.wake_bus(now)
    }

    /// A cell leaves output port `port`'s buffer: its credit goes back to the inputs, at once
    /// (and the bus looks for work) or `credit_delay_ps` later (an event).
    fn on_departure(&mut self, now: SimTime, port: u32) -> FabricAsks {
        let o = self.output_of[port as usize];
        if self.p.credit_delay_ps == 0 {
            self.credit(o);
            self.wake_bus(now)
        } else {
            FabricAsks {
                wake: Some(Wake {
                    at: now + self.p.credit_delay_ps,
                    arg: o,
                }),
                forward: None,
            }
        }
    }

    fn summary(&self) -> Option<FabricSummary> {
        Some(FabricSummary {
            kind: "credit",
            bus_cells: self.stats.bus_cells,
            input_drops: self.stats.input_drops,
            max_input_cells: self.stats.max_input_cells,
            cells_in_inputs: self.waiting(),
            max_credits_used: self.stats.max_credits_used,
        })
    }

    /// Every cell held in the input buffers.
    fn for_each_held(&self, f: &mut dyn FnMut(&Cell)) {
        for inp in &self.inputs {
            for q in &inp.queues {
                for w in q {
                    f(&w.cell);
                }
            }
        }
    }
}

/// An input buffer reached a new most cells (a multiple of `budget::STEP`): the memory budget
/// is charged for `STEP` more (`crate::budget`).
#[cold]
#[inline(never)]
fn charge_input(input: u32, cells: u32) {
    use crate::budget::{take, QUEUED_CELL_BYTES, STEP};
    take(STEP as u64 * QUEUED_CELL_BYTES, || {
        (
            format!("input {input} of a credit-based switch fabric ({cells} cells)"),
            Some("nodes[].fabric.input_buffer_cells".into()),
            cells as u64 * QUEUED_CELL_BYTES,
        )
    });
}

#[cfg(test)]
#[path = "credit_tests.rs"]
mod tests;
