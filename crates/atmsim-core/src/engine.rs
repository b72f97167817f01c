//! The event queue: a binary heap of 16-byte keys (time, sequence number, event code).
//!
//! Simultaneous events run in the order they were scheduled (FIFO ties), so a run is a pure
//! function of the scenario and seed. Events are a closed `Copy` enum, matched in one place
//! (`sim::Simulation::step`); there is no dynamic dispatch per event. The heap holds events per
//! component (one per busy port, one per link with cells in flight, one per source timer), never
//! one per cell: cells in flight wait in their link's FIFO.
//!
//! ## The key
//!
//! A heap entry is one `u128`: the time in the high 64 bits, then the sequence number in
//! [`SEQ_BITS`] bits, then the event's code in the low [`CODE_BITS`] bits. The sequence number is
//! unique among pending entries, so the order of keys is exactly (time, scheduling order) and the
//! code never decides it: the order is the one of the former (time << 64 | 64-bit sequence)
//! keys. The code is a 4-bit variant tag and a 28-bit payload: the index of a one-field event
//! (port, endpoint, flow, call class...: at most [`MAX_INDEX`] - 1, checked on every push, a
//! larger index panics rather than wrapping), nothing for `Sample` and `WarmupEnd`, and for the
//! events with two or three fields (`CallEnd`, `CallSetup`, `CallConnect`, `Fabric`, `Host`) the
//! index of a slot of a side table (a slab with a free list: no allocation once it has grown
//! to the most such events ever pending at once).
//!
//! The sequence number has 32 bits; when it would wrap, the pending entries are renumbered
//! 1, 2, ... in key order (their order is unchanged, and every later push gets a larger number
//! than all of them), so a run of any length keeps the exact order.
//!
//! ## Stale timer entries
//!
//! An endpoint timer moved to another time leaves its old entry in the heap (skipped when it
//! comes up). When such entries are about as many as the others, they are taken out and kept
//! aside until their time comes, then put back just before it
//! ([`EventQueue::purge_stale_timers`] says why that is exact), so the heap the run works on
//! stays small.
//!
//! ## Lanes
//!
//! Sources that re-arm their timer a fixed interval after each firing (CBR and persistent
//! sources of one rate: `AnyApp::lane`) schedule their timers in increasing key order when
//! taken together, so such timers need no heap: a lane ([`EventQueue::set_lanes`]) is a FIFO of
//! their keys in key order, and the heap holds only its head, under the head's own time and
//! sequence number (the code names the lane instead of the endpoint: the sequence number is
//! unique, so the code never decides the order). Popping that entry pops the lane, and the
//! lane's next key takes its place in the heap. A timer whose key is not above its lane's last
//! one (a source restarted, or one whose interval differs by the pacer's 1 ps rounding in a
//! tie) goes into the heap as any other entry. Every entry is thus either in the heap or in a
//! lane behind a head that is in the heap, with its key unchanged, so events come out in
//! exactly the order of one heap; with 15,000 sources of one rate the heap holds one entry for
//! them instead of 15,000 (issue 13, bench case (d)).

use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(crate) use crate::ring::Ring;

/// Everything that can happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// An output port finishes sending a cell and may start the next queued one.
    PortTx(u32),
    /// The head cell in flight on a port's link reaches the far node.
    Arrive(u32),
    /// An endpoint's (source's) timer fires.
    Endpoint(u32),
    /// Record one sample of every time series.
    Sample,
    /// End of the warm-up period: statistics restart.
    WarmupEnd,
    /// An ERICA averaging interval at a port reaches its time limit.
    AbrInterval(u32),
    /// A call of a call class arrives.
    CallArrival(u32),
    /// A call (class, slot) ends.
    CallEnd(u32, u32),
    /// A call's SETUP message reaches node `hop` of its route (class, slot, hop).
    CallSetup(u32, u32, u32),
    /// A call's CONNECT message reaches the calling host (class, slot): the call starts.
    CallConnect(u32, u32),
    /// A flow's source shaper may release its next cell.
    Shaper(u32),
    /// Timed work of a node's switch fabric (node, fabric-defined argument: a bus slot, a credit
    /// returning to an input, ...), dispatched by `Simulation::fabric_event`.
    Fabric(u32, u32),
    /// The job in service at a host's CPU is done (the CPU's index, the job's start tag:
    /// `sim/host.rs`).
    Host(u32, u32),
    /// The queue's own: stale timer entries taken out of the heap come back before their time
    /// comes ([`EventQueue::purge_stale_timers`]); handled by [`EventQueue::wake`].
    Wake,
}

/// Bits of the event code (the low bits of a key).
pub const CODE_BITS: u32 = 32;
/// Bits of the sequence number (between the time and the code).
pub const SEQ_BITS: u32 = 64 - CODE_BITS;
const TAG_BITS: u32 = 4;
const PAYLOAD_BITS: u32 = CODE_BITS - TAG_BITS;
/// One more than the largest index a one-field event may carry (port, endpoint, flow, call
/// class, ...: `Simulation::advance_bounded` checks the arenas' lengths), and than the number of
/// multi-field events pending at once (checked as the side table grows).
pub const MAX_INDEX: u32 = 1 << PAYLOAD_BITS;
const PAYLOAD_MASK: u32 = MAX_INDEX - 1;

/// The tags of the events the run loop dispatches on the code itself
/// ([`EventQueue::pop_code_before`]).
pub(crate) const T_PORT_TX: u32 = 0;
pub(crate) const T_ARRIVE: u32 = 1;
pub(crate) const T_ENDPOINT: u32 = 2;
const T_SAMPLE: u32 = 3;
const T_WARMUP_END: u32 = 4;
const T_ABR_INTERVAL: u32 = 5;
const T_CALL_ARRIVAL: u32 = 6;
const T_SHAPER: u32 = 7;
const T_WAKE: u32 = 8;
/// The head of a lane (payload: the lane).
pub(crate) const T_LANE: u32 = 9;
/// Tags from here on have their event in the side table.
const T_SIDE: u32 = 10;
/// No lane.
pub(crate) const NO_LANE: u32 = u32::MAX;

/// The variant tag of an event code.
#[inline(always)]
pub(crate) fn tag(c: u32) -> u32 {
    c >> PAYLOAD_BITS
}

/// The payload of an event code: the index of a one-field event.
#[inline(always)]
pub(crate) fn payload(c: u32) -> u32 {
    c & PAYLOAD_MASK
}

#[inline(always)]
fn code(tag: u32, payload: u32) -> u32 {
    // checked once a run instead (`Simulation::advance_bounded`: every one-field event's index
    // is an index into an arena no longer than `MAX_INDEX`)
    debug_assert!(
        payload < MAX_INDEX,
        "event index {payload} too large for the event queue's packing (at most {})",
        MAX_INDEX - 1
    );
    (tag << PAYLOAD_BITS) | payload
}

/// Deterministic future-event list.
///
/// `pop_before` (and the run loop's `pop_code_before`) leaves the returned event at the top of
/// the heap as a "hole"; the next `push` usually comes from the handler of that event and simply
/// replaces it (one sift-down instead of a pop's and a push's), which is most of the work of a
/// cell-level run.
pub struct EventQueue {
    heap: BinaryHeap<Reverse<u128>>,
    /// The sequence number of the next push, shifted into place (`seq << CODE_BITS`).
    seq_low: u64,
    /// Renumber the pending entries when `seq_low` reaches this: `seq_limit` shifted likewise
    /// (0 for the full range, the shift wrapping like the increment; numbering starts at 1).
    seq_limit_low: u64,
    /// The range of sequence numbers (`1 << SEQ_BITS`; smaller in tests).
    seq_limit: u64,
    hole: bool,
    /// The events of more than one field, by slot; `free` lists the unused slots.
    side: Vec<Event>,
    free: Vec<u32>,
    /// The stale timer entries taken out (boxed: it is seldom used, and the queue is part of
    /// the hot `Simulation`, whose layout a larger queue was seen to change for the worse).
    ghosts: Box<Ghosts>,
    /// Per endpoint, its lane (`NO_LANE`: none; endpoints past the end have none).
    lane_of: Vec<u32>,
    /// Per lane, its keys in key order (codes of `Endpoint` events); the first one's key, with
    /// the code `T_LANE`, is in the heap.
    lanes: Vec<Lane>,
    /// Keys in all lanes, heads included.
    in_lanes: usize,
}

/// A lane's keys in key order, and the last of them kept apart: `u128::MAX` while the lane is
/// empty, so that no key is above it and a push into an empty lane takes the other way
/// ([`EventQueue::push_lane`] reads one field instead of the ring's last slot: issue 27 item 3).
#[derive(Clone, Debug)]
struct Lane {
    keys: Ring<u128>,
    last: u128,
}

impl Default for Lane {
    fn default() -> Self {
        Lane {
            keys: Ring::default(),
            last: u128::MAX,
        }
    }
}

/// Stale endpoint timer entries taken out of the heap ([`EventQueue::purge_stale_timers`]).
struct Ghosts {
    /// Their keys, earliest first.
    keys: BinaryHeap<Reverse<u128>>,
    /// Endpoint timer entries superseded since the last purge (an estimate: see
    /// [`EventQueue::timer_superseded`]).
    stale: usize,
    /// The earliest `Wake` entry pending (`SimTime::MAX`: none).
    wake_at: SimTime,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::with_seq_limit(1 << SEQ_BITS)
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_seq_limit(seq_limit: u64) -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            seq_low: 1 << CODE_BITS,
            seq_limit_low: if seq_limit == 1 << SEQ_BITS {
                0
            } else {
                seq_limit << CODE_BITS
            },
            seq_limit,
            hole: false,
            side: Vec::new(),
            free: Vec::new(),
            ghosts: Box::new(Ghosts {
                keys: BinaryHeap::new(),
                stale: 0,
                wake_at: SimTime::MAX,
            }),
            lane_of: Vec::new(),
            lanes: Vec::new(),
            in_lanes: 0,
        }
    }

    /// Put endpoint `e`'s timers in lane `lane_of[e]` ([`NO_LANE`]: none), lanes numbered from 0.
    /// Give a lane only endpoints whose successive timers come in increasing time order
    /// together (see "Lanes" above); the order of events is exact whatever the lanes, only the
    /// work differs. Entries pending already stay where they are.
    pub fn set_lanes(&mut self, lane_of: Vec<u32>) {
        let n = lane_of
            .iter()
            .filter(|&&l| l != NO_LANE)
            .max()
            .map_or(0, |&l| l as usize + 1);
        assert!(
            n <= MAX_INDEX as usize,
            "too many lanes for the event queue's packing"
        );
        self.lanes
            .resize_with(n.max(self.lanes.len()), Lane::default);
        self.lane_of = lane_of;
    }

    /// The head of `lane` was just popped (its code, tag [`T_LANE`]): the lane gives up its
    /// first key, whose endpoint's timer this is, and the next key takes the head's place in
    /// the heap. The run loop calls it directly (the per-cell events' dispatch).
    #[inline(always)]
    pub(crate) fn lane_pop(&mut self, lane: u32) -> u32 {
        let run = &mut self.lanes[lane as usize];
        let k = run.keys.pop_front().expect("a lane's head is in the heap");
        self.in_lanes -= 1;
        match run.keys.front() {
            Some(&next) => self.push_key(Self::lane_head(next, lane)),
            None => run.last = u128::MAX,
        }
        k as u32 & PAYLOAD_MASK
    }

    /// The heap entry standing for a lane whose first key is `k`.
    #[inline(always)]
    fn lane_head(k: u128, lane: u32) -> u128 {
        (k & !((1u128 << CODE_BITS) - 1)) | code(T_LANE, lane) as u128
    }

    #[inline]
    fn fill_hole(&mut self) {
        if self.hole {
            self.heap.pop();
            self.hole = false;
        }
    }

    #[cold]
    fn side_slot(&mut self, ev: Event) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.side[i as usize] = ev;
                i
            }
            None => {
                assert!(
                    self.side.len() < MAX_INDEX as usize,
                    "too many multi-field events pending for the event queue's packing"
                );
                self.side.push(ev);
                (self.side.len() - 1) as u32
            }
        }
    }

    #[inline(always)]
    fn encode(&mut self, ev: Event) -> u32 {
        match ev {
            Event::PortTx(p) => code(T_PORT_TX, p),
            Event::Arrive(p) => code(T_ARRIVE, p),
            Event::Endpoint(e) => code(T_ENDPOINT, e),
            Event::Sample => code(T_SAMPLE, 0),
            Event::WarmupEnd => code(T_WARMUP_END, 0),
            Event::AbrInterval(p) => code(T_ABR_INTERVAL, p),
            Event::CallArrival(c) => code(T_CALL_ARRIVAL, c),
            Event::Shaper(f) => code(T_SHAPER, f),
            Event::Wake => code(T_WAKE, 0),
            Event::CallEnd(..)
            | Event::CallSetup(..)
            | Event::CallConnect(..)
            | Event::Fabric(..)
            | Event::Host(..) => {
                let slot = self.side_slot(ev);
                code(T_SIDE, slot)
            }
        }
    }

    /// The event of a code; a side-table slot is freed (`take`) or left (for a look).
    #[inline]
    fn decode(&mut self, c: u32, take: bool) -> Event {
        let p = c & PAYLOAD_MASK;
        match c >> PAYLOAD_BITS {
            T_PORT_TX => Event::PortTx(p),
            T_ARRIVE => Event::Arrive(p),
            T_ENDPOINT => Event::Endpoint(p),
            T_SAMPLE => Event::Sample,
            T_WARMUP_END => Event::WarmupEnd,
            T_ABR_INTERVAL => Event::AbrInterval(p),
            T_CALL_ARRIVAL => Event::CallArrival(p),
            T_SHAPER => Event::Shaper(p),
            T_WAKE => Event::Wake,
            T_LANE => {
                debug_assert!(take, "a lane's head is only taken");
                Event::Endpoint(self.lane_pop(p))
            }
            _ => {
                if take {
                    self.free.push(p);
                }
                self.side[p as usize]
            }
        }
    }

    /// Schedule `ev` at `t`; among events at the same time, earlier calls run first.
    ///
    /// Inlined so that the encoding folds to a constant tag where the caller names the variant;
    /// the heap work is two shared functions without calls on their common path (so they save
    /// no registers: issue 13, bench (a)), one filling the hole, one adding an entry.
    #[inline(always)]
    pub fn push(&mut self, t: SimTime, ev: Event) {
        if let Event::Endpoint(e) = ev {
            if let Some(&lane) = self.lane_of.get(e as usize) {
                if lane != NO_LANE {
                    return self.push_lane(t, code(T_ENDPOINT, e), lane);
                }
            }
        }
        let c = self.encode(ev);
        self.push_code(t, c);
    }

    /// The key of a push at `t` of code `c`: the next sequence number is taken.
    #[inline(always)]
    fn next_key(&mut self, t: SimTime, c: u32) -> u128 {
        if self.seq_low == self.seq_limit_low {
            self.renumber();
        }
        // the low 64 bits: the sequence number, then the code
        let key = ((t as u128) << 64) | (self.seq_low | c as u64) as u128;
        self.seq_low = self.seq_low.wrapping_add(1 << CODE_BITS);
        key
    }

    #[inline(always)]
    fn push_code(&mut self, t: SimTime, c: u32) {
        let key = self.next_key(t, c);
        self.push_key(key);
    }

    /// A timer of an endpoint in `lane`: behind the lane's last key if above it (it always is
    /// unless its time is earlier), else into the heap. The common case inline (out of line it
    /// cost a call that saved and restored registers: about 17 of its 57 instructions, bench
    /// (a)), the others out of line.
    #[inline(always)]
    fn push_lane(&mut self, t: SimTime, c: u32, lane: u32) {
        let key = self.next_key(t, c);
        let run = &mut self.lanes[lane as usize];
        if key > run.last {
            run.keys.push_back(key);
            run.last = key;
            self.in_lanes += 1;
        } else {
            self.push_lane_else(key, lane);
        }
    }

    /// [`EventQueue::push_lane`] of a key not above its lane's last one (into the heap) or into
    /// an empty lane (its head goes into the heap).
    #[inline(never)]
    fn push_lane_else(&mut self, key: u128, lane: u32) {
        let run = &mut self.lanes[lane as usize];
        if run.keys.is_empty() {
            run.keys.push_back(key);
            run.last = key;
            self.in_lanes += 1;
            self.push_key(Self::lane_head(key, lane));
        } else {
            self.push_key(key);
        }
    }

    #[inline(always)]
    fn push_key(&mut self, key: u128) {
        if self.hole {
            self.hole = false;
            self.replace_top(key);
        } else {
            self.add_key(key);
        }
    }

    /// The hole at the top of the heap takes `key`.
    #[inline(never)]
    fn replace_top(&mut self, key: u128) {
        *self.heap.peek_mut().expect("a hole is a heap entry") = Reverse(key);
    }

    /// A new heap entry. Inline: out of line its call saved and restored registers, about 10
    /// instructions of each (bench (a): 469.90 -> 467.62 instructions per cell-hop); the
    /// replacement of the hole stays out of line (inlined as well: 469.79).
    #[inline(always)]
    fn add_key(&mut self, key: u128) {
        self.heap.push(Reverse(key));
    }

    /// The sequence numbers ran out: number the pending entries 0, 1, ... in key order. Their
    /// order is unchanged, and every later push gets a larger number than all of them, so the
    /// order of every pair of entries, pending or to come, is the same as with unbounded numbers.
    #[cold]
    #[inline(never)]
    fn renumber(&mut self) {
        self.fill_hole();
        // (key, where it is: HEAP, GHOST or its lane); every ghost is pending (after the
        // current event); lane heads are left out (the lanes' keys stand for them)
        const HEAP: u32 = u32::MAX;
        const GHOST: u32 = u32::MAX - 1;
        let mut keys: Vec<(u128, u32)> = std::mem::take(&mut self.heap)
            .into_iter()
            .filter(|&Reverse(k)| k as u32 >> PAYLOAD_BITS != T_LANE)
            .map(|Reverse(k)| (k, HEAP))
            .collect();
        keys.extend(self.ghosts.keys.drain().map(|Reverse(k)| (k, GHOST)));
        for (l, run) in self.lanes.iter_mut().enumerate() {
            keys.extend(run.keys.drain_all().into_iter().map(|k| (k, l as u32)));
            run.last = u128::MAX;
        }
        keys.sort_unstable();
        let low = (1u128 << CODE_BITS) - 1;
        let high = !((1u128 << 64) - 1);
        let mut heap = Vec::with_capacity(keys.len());
        let mut ghosts = Vec::new();
        let mut seq = 1u64; // 0 is the `Wake` entries' number
        for (k, at) in keys {
            if k as u32 >> PAYLOAD_BITS == T_WAKE {
                heap.push(Reverse(k));
                continue;
            }
            let k = (k & high) | ((seq as u128) << CODE_BITS) | (k & low);
            seq += 1;
            match at {
                HEAP => heap.push(Reverse(k)),
                GHOST => ghosts.push(Reverse(k)),
                l => {
                    let run = &mut self.lanes[l as usize];
                    if run.keys.is_empty() {
                        heap.push(Reverse(Self::lane_head(k, l)));
                    }
                    run.keys.push_back(k);
                    run.last = k; // the keys come in ascending order
                }
            }
        }
        assert!(
            seq < self.seq_limit,
            "more pending events than sequence numbers"
        );
        self.seq_low = seq << CODE_BITS;
        // ascending keys are already valid min-heaps; `from` checks it in linear time
        self.heap = heap.into();
        self.ghosts.keys = ghosts.into();
    }

    /// An endpoint's timer pending at some time was re-armed to another time (or cancelled):
    /// the entry of the old time is stale. Returns true when the stale entries are probably
    /// as many as the others, i.e. when [`EventQueue::purge_stale_timers`] is worth its cost
    /// (a pass over the heap when it has grown by as many entries: amortized O(1) a push).
    #[inline]
    pub fn timer_superseded(&mut self) -> bool {
        self.ghosts.stale += 1;
        self.ghosts.stale >= 32 && 2 * self.ghosts.stale > self.heap.len() + self.in_lanes
    }

    /// Take the stale endpoint timer entries out of the heap until their time comes:
    /// `stale(e, t)` tells whether `Endpoint(e)` at `t` is stale, i.e. the endpoint's timer is
    /// no longer set to `t` (`Simulation::endpoint_timer` skips such an entry when it comes
    /// up). `now` is the current time: entries at `now` stay.
    ///
    /// Why this changes no result. A stale entry does nothing when popped unless the
    /// endpoint's timer is set to exactly `t` again before; then the entry that fires at `t`
    /// is the earliest-scheduled one pending, possibly this old one, which fixes where among
    /// the events at `t` the timer runs (and a later one of (e, t) may fire again if the
    /// handler sets the timer to `t` once more). So the removed keys are kept aside
    /// ("ghosts", with their sequence numbers) and put back into the heap before anything
    /// happens at their time: a `Wake` entry, numbered 0 (before every other event of its
    /// time), is pending at or before the earliest ghost's time, and [`EventQueue::wake`]
    /// puts the ghosts of that time back, where they are popped and skipped, or fire, exactly
    /// as they would have. Only entries later than `now` are taken out (the `Wake` of `now`
    /// has passed). Between, a ghost can only come up through the heap, so nothing can tell
    /// it was out; the heap is smaller meanwhile. A `Wake` changes nothing in the simulation
    /// (`Simulation::step` hands it back here). The event count (`events`, a cost figure)
    /// counts the `Wake` entries, and no longer the skipped pops of the entries taken out.
    #[cold]
    #[inline(never)]
    pub fn purge_stale_timers(&mut self, now: SimTime, stale: impl Fn(u32, SimTime) -> bool) {
        self.fill_hole();
        let mut keys = std::mem::take(&mut self.heap).into_vec();
        let mut earliest = SimTime::MAX;
        keys.retain(|&Reverse(k)| {
            let c = k as u32;
            let t = (k >> 64) as SimTime;
            if c >> PAYLOAD_BITS != T_ENDPOINT || t <= now || !stale(c & PAYLOAD_MASK, t) {
                return true;
            }
            self.ghosts.keys.push(Reverse(k));
            earliest = earliest.min(t);
            false
        });
        self.heap = keys.into();
        self.ghosts.stale = 0;
        self.wake_before(earliest);
    }

    /// Have a `Wake` entry pending at or before `t`.
    fn wake_before(&mut self, t: SimTime) {
        if t < self.ghosts.wake_at {
            self.ghosts.wake_at = t;
            // sequence number 0: before every event of its time
            self.push_key(((t as u128) << 64) | code(T_WAKE, 0) as u128);
        }
    }

    /// A `Wake` entry came up at `now` (first of the events at `now`): the ghosts of time
    /// `now` go back into the heap, and the next `Wake` is scheduled.
    #[cold]
    #[inline(never)]
    pub fn wake(&mut self, now: SimTime) {
        if self.ghosts.wake_at == now {
            self.ghosts.wake_at = SimTime::MAX;
        }
        while let Some(&Reverse(k)) = self.ghosts.keys.peek() {
            let t = (k >> 64) as SimTime;
            if t > now {
                self.wake_before(t);
                break;
            }
            debug_assert_eq!(t, now, "a ghost passed without its Wake");
            self.ghosts.keys.pop();
            self.push_key(k);
        }
    }

    /// Pending entries, not counting the stale timer entries taken out.
    pub fn len(&self) -> usize {
        // a lane's head is both in the heap and in the lane
        let heads = self.lanes.iter().filter(|r| !r.keys.is_empty()).count();
        self.heap.len() - self.hole as usize + self.in_lanes - heads
    }

    /// Time of the next event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.fill_hole();
        self.heap.peek().map(|e| (e.0 >> 64) as SimTime)
    }

    /// Remove and return the next event if it is before `end`.
    #[inline]
    pub fn pop_before(&mut self, end: SimTime) -> Option<(SimTime, Event)> {
        let (t, c) = self.pop_code_before(end)?;
        Some((t, self.event_of(c)))
    }

    /// [`EventQueue::pop_before`] as the run loop uses it: the event's code, which the loop
    /// dispatches on directly for the per-cell events (tags [`T_ARRIVE`], [`T_PORT_TX`],
    /// [`T_ENDPOINT`]: one branch on the tag instead of building an [`Event`] and matching
    /// it again) and hands back to [`EventQueue::event_of`] for the others.
    #[inline(always)]
    pub(crate) fn pop_code_before(&mut self, end: SimTime) -> Option<(SimTime, u32)> {
        self.fill_hole();
        let k = self.heap.peek()?.0;
        let t = (k >> 64) as SimTime;
        if t >= end {
            return None;
        }
        self.hole = true;
        Some((t, k as u32))
    }

    /// The event of a code just popped (its side-table slot, if any, is freed).
    #[inline]
    pub(crate) fn event_of(&mut self, c: u32) -> Event {
        self.decode(c, true)
    }

    /// Remove and return the next event, whatever its time.
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.fill_hole();
        let k = self.heap.peek()?.0;
        self.hole = true;
        Some(((k >> 64) as SimTime, self.decode(k as u32, true)))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ring::tests::Rng;

    /// Every variant, with its fields at the extremes of the packing.
    fn all_variants(i: u32) -> Vec<Event> {
        let big = MAX_INDEX - 1;
        vec![
            Event::PortTx(i),
            Event::Arrive(big),
            Event::Endpoint(i),
            Event::Sample,
            Event::WarmupEnd,
            Event::AbrInterval(big),
            Event::CallArrival(i),
            Event::CallEnd(u32::MAX, i),
            Event::CallSetup(i, u32::MAX, 7),
            Event::CallConnect(big, u32::MAX),
            Event::Shaper(big),
            Event::Fabric(i, u32::MAX),
            Event::Host(u32::MAX, i),
            Event::Wake,
        ]
    }

    #[test]
    fn time_order_then_fifo_ties() {
        let mut q = EventQueue::new();
        q.push(5, Event::Arrive(1));
        q.push(3, Event::PortTx(7));
        q.push(5, Event::Arrive(2));
        q.push(5, Event::Sample);
        q.push(1, Event::WarmupEnd);
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            got,
            vec![
                (1, Event::WarmupEnd),
                (3, Event::PortTx(7)),
                (5, Event::Arrive(1)),
                (5, Event::Arrive(2)),
                (5, Event::Sample)
            ]
        );
        assert!(q.is_empty());
    }

    #[test]
    fn every_variant_packs_and_unpacks() {
        let mut q = EventQueue::new();
        let evs: Vec<Event> = (0..3).flat_map(|i| all_variants(i * 1000)).collect();
        for (k, &ev) in evs.iter().enumerate() {
            q.push(1000 - k as u64 % 4, ev);
        }
        let mut want: Vec<(u64, usize)> =
            (0..evs.len()).map(|k| (1000 - k as u64 % 4, k)).collect();
        want.sort();
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let want: Vec<_> = want.iter().map(|&(t, k)| (t, evs[k])).collect();
        assert_eq!(got, want);
        // the side table's slots are reused: no growth once warm
        let n = q.side.len();
        for _ in 0..10 {
            q.push(5, Event::Host(1, 2));
            q.push(5, Event::Fabric(3, 4));
            assert_eq!(q.pop(), Some((5, Event::Host(1, 2))));
            assert_eq!(q.pop(), Some((5, Event::Fabric(3, 4))));
        }
        assert_eq!(q.side.len(), n);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "too large")]
    fn an_index_beyond_the_packing_fails() {
        EventQueue::new().push(1, Event::PortTx(MAX_INDEX));
    }

    #[test]
    fn pop_before_stops_at_the_end() {
        let mut q = EventQueue::new();
        q.push(10, Event::Sample);
        q.push(3, Event::Arrive(1));
        assert_eq!(q.pop_before(10), Some((3, Event::Arrive(1))));
        assert_eq!(q.pop_before(10), None);
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop_before(11), Some((10, Event::Sample)));
        assert_eq!(q.pop_before(11), None);
        assert!(q.is_empty());
        q.push(SimTime::MAX, Event::WarmupEnd);
        assert_eq!(q.pop(), Some((SimTime::MAX, Event::WarmupEnd)));
        assert_eq!(q.pop(), None);
    }

    /// Random pushes, some from "handlers" (replacing the hole), against a sorted reference, with
    /// every variant; `limit` is the sequence numbers' range (tiny: renumbered very often).
    fn against_reference(limit: u64, seed: u64) {
        against_reference_in(EventQueue::with_seq_limit(limit), seed);
    }

    fn against_reference_in(mut q: EventQueue, seed: u64) {
        let mut rng = Rng(seed);
        let mut reference = vec![];
        let mut id = 0u32;
        // one-field and side-table kinds, each with the id in a field
        let ev = |id: u32| match id % 6 {
            0 => Event::Arrive(id),
            1 => Event::Host(id, id ^ 5),
            2 => Event::Endpoint(id),
            3 => Event::Fabric(7, id),
            4 => Event::CallSetup(1, id, 2),
            _ => Event::Shaper(id),
        };
        for _ in 0..40 {
            let t = rng.next(100);
            q.push(t, ev(id));
            reference.push((t, id));
            id += 1;
        }
        let mut out = vec![];
        while let Some((t, e)) = q.pop() {
            out.push((t, e));
            let k = rng.next(4);
            for _ in 0..k.saturating_sub(1) {
                if id < 4000 {
                    let t2 = t + rng.next(30);
                    q.push(t2, ev(id));
                    reference.push((t2, id));
                    id += 1;
                }
            }
        }
        reference.sort_by_key(|&(t, i)| (t, i));
        let want: Vec<_> = reference.iter().map(|&(t, i)| (t, ev(i))).collect();
        assert_eq!(out, want);
        assert!(q.is_empty());
    }

    #[test]
    fn pushes_from_a_handler_keep_the_order() {
        for seed in [12345, 99, 7] {
            against_reference(1 << SEQ_BITS, seed);
        }
    }

    #[test]
    fn renumbering_when_the_sequence_numbers_run_out_keeps_the_order() {
        // with at most ~100 pending entries, a range of 128 renumbers every few dozen pushes
        for seed in [12345, 99, 7, 31337] {
            for limit in [128, 129, 200, 1000] {
                against_reference(limit, seed);
            }
        }
    }

    /// Lanes change no order: endpoints in three lanes (and some in none), their timers pushed
    /// at random times (many below their lane's last key, which go into the heap), with
    /// renumbering often and never.
    #[test]
    fn lanes_keep_the_order() {
        for seed in [12345, 99, 7, 31337] {
            for limit in [128, 200, 1 << SEQ_BITS] {
                let mut q = EventQueue::with_seq_limit(limit);
                q.set_lanes((0..4000).map(|e| [0, 1, 2, NO_LANE][e % 4]).collect());
                against_reference_in(q, seed);
            }
        }
    }

    /// Timers of one rate, staggered: all but the first go into the lane, and the heap holds
    /// one entry for them.
    #[test]
    fn a_lane_holds_periodic_timers_out_of_the_heap() {
        let mut q = EventQueue::new();
        q.set_lanes(vec![0; 100]);
        for e in 0..100 {
            q.push(e as u64, Event::Endpoint(e));
        }
        q.push(50, Event::Sample);
        assert_eq!(q.heap.len(), 2);
        assert_eq!(q.len(), 101);
        let mut got = vec![];
        while let Some((t, ev)) = q.pop_before(300) {
            got.push((t, ev));
            if let Event::Endpoint(e) = ev {
                q.push(t + 100, Event::Endpoint(e));
            }
            assert!(q.heap.len() <= 2);
        }
        let mut want: Vec<(u64, Event)> = (0..300)
            .map(|t| (t, Event::Endpoint(t as u32 % 100)))
            .collect();
        want.insert(51, (50, Event::Sample));
        assert_eq!(got, want);
    }

    #[test]
    fn the_full_range_wraps_by_renumbering() {
        let mut q = EventQueue::new();
        for i in 0..10 {
            q.push(100 - i as u64 % 3, Event::Arrive(i));
        }
        // jump to the last few sequence numbers (a jump forward keeps the order)
        q.seq_low = ((1u64 << SEQ_BITS) - 4) << CODE_BITS;
        for i in 10..20 {
            q.push(100 - i as u64 % 3, Event::Arrive(i));
        }
        assert!(q.seq_low < 30 << CODE_BITS, "renumbered");
        let mut want: Vec<(u64, u32)> = (0..20).map(|i| (100 - i as u64 % 3, i)).collect();
        want.sort();
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let want: Vec<_> = want.iter().map(|&(t, i)| (t, Event::Arrive(i))).collect();
        assert_eq!(got, want);
    }

    /// A small model of endpoints' timers (as `Simulation::apply` and `endpoint_timer` use
    /// them), with other events between: returns what ran, and the largest queue length. With
    /// `purge`, the stale entries are taken out at every chance (`every` > 0: also every that
    /// many events), so revivals are frequent: times come from a small set.
    fn timer_model(
        seed: u64,
        purge: bool,
        every: u64,
        limit: u64,
    ) -> (Vec<(u64, Event)>, usize, usize) {
        const N: usize = 6;
        let mut q = EventQueue::with_seq_limit(limit);
        let mut timer_at: [Option<u64>; N] = [None; N];
        let mut rng = Rng(seed);
        let mut ran = vec![];
        let mut max_len = 0;
        let revivals = std::cell::Cell::new(0);
        let arm =
            |q: &mut EventQueue, timer_at: &mut [Option<u64>; N], now: u64, e: usize, t: u64| {
                if timer_at[e] != Some(t) {
                    // a stale entry of (e, t) pending (in the heap or taken out) fires again
                    let c = code(T_ENDPOINT, e as u32) as u128;
                    let same =
                        |&Reverse(k): &Reverse<u128>| k >> 64 == t as u128 && k as u32 as u128 == c;
                    if q.heap.iter().skip(q.hole as usize).any(same)
                        || q.ghosts.keys.iter().any(same)
                    {
                        revivals.set(revivals.get() + 1);
                    }
                    let old = timer_at[e].replace(t);
                    q.push(t, Event::Endpoint(e as u32));
                    if old.is_some() && q.timer_superseded() && purge {
                        q.purge_stale_timers(now, |e, t| timer_at[e as usize] != Some(t));
                    }
                }
            };
        for e in 0..N {
            let t = rng.next(20);
            arm(&mut q, &mut timer_at, 0, e, t);
        }
        q.push(0, Event::Arrive(0));
        let mut n = 0u64;
        while let Some((now, ev)) = q.pop_before(3000) {
            max_len = max_len.max(q.len() + 1);
            n += 1;
            if purge && every > 0 && n % every == 0 {
                q.purge_stale_timers(now, |e, t| timer_at[e as usize] != Some(t));
            }
            if ev == Event::Wake {
                q.wake(now);
                continue; // the queue's own
            }
            if let Event::Endpoint(e) = ev {
                if timer_at[e as usize] != Some(now) {
                    continue; // superseded: no trace, no randomness drawn
                }
                timer_at[e as usize] = None;
            }
            ran.push((now, ev));
            // the handler: set some timers (often to a time used before: revivals), and
            // schedule another event
            for _ in 0..rng.next(4) {
                let e = rng.next(N as u64) as usize;
                let t =
                    now + [0, 0, 1, 5, 5, 10, 40, 40, 300][rng.next(9) as usize] + (now / 50) % 3;
                arm(&mut q, &mut timer_at, now, e, t);
            }
            if let Event::Arrive(i) = ev {
                if i < 2000 {
                    q.push(now + rng.next(7), Event::Arrive(i + 1));
                }
            }
            if rng.next(3) == 0 {
                let e = rng.next(N as u64) as usize;
                timer_at[e] = None; // cancelled (as a call's end does)
            }
        }
        (ran, max_len, revivals.get())
    }

    #[test]
    fn taking_stale_timers_out_keeps_what_runs_and_when() {
        for seed in [1, 2, 3, 12345, 99, 7] {
            let (want, len_kept, _) = timer_model(seed, false, 0, 1 << SEQ_BITS);
            assert!(want.len() > 1000);
            for every in [0, 1, 3, 17] {
                let (got, len, revived) = timer_model(seed, true, every, 1 << SEQ_BITS);
                assert_eq!(got, want, "seed {seed}, purge every {every}");
                assert!(every == 0 || len < len_kept, "{len} {len_kept}");
                assert!(revived > 10, "revivals tested: {revived}");
                // and with sequence numbers renumbered often (ghosts included)
                let (got, _, _) = timer_model(seed, true, every, 200);
                assert_eq!(got, want, "seed {seed}, purge every {every}, renumbered");
            }
        }
    }
}
