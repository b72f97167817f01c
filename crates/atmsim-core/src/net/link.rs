//! A directed channel (one direction of a duplex link): the cells in flight in FIFO order with
//! their arrival times, one pending event for the head only (ns-3 `point-to-point-channel`: the
//! channel owns propagation, the device owns serialization).
//!
//! The delay from the end of a cell's transmission to its arrival at the far node's output port
//! is the propagation delay (5 us/km, or `delay_us`) plus the far node's fabric transit
//! ([`crate::net::switch::Fabric::transit_ps`]): both are constant per channel, so adding them
//! here keeps cells in order and the arrival exact without an event per fabric crossing.
//! Impairments ([`crate::net::Impairment`]) may add delay but never reorder.

use crate::net::Impairment;
use crate::time::{SimDuration, SimTime};
use crate::ring::Ring;
use crate::wire::Cell;

/// What a port that just put a cell on its link asks of the engine
/// (`Simulation::link_arrival`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OnLink {
    /// Nothing: the link's head cell has its `Arrive` event, or nothing has arrived yet at a
    /// sink.
    Pending,
    /// Schedule the link's `Arrive` event at this time (the cell is the only one on the link).
    Schedule(SimTime),
    /// Deliver what has arrived on a sink's link (`sim/sink.rs`).
    Deliver,
}

pub struct Link {
    /// Cells in flight and the time each reaches the far node.
    pub(crate) pipe: Ring<(SimTime, Cell)>,
    /// Propagation + the receiving node's fabric transit.
    pub(crate) delay_ps: SimDuration,
    /// Whether the head cell's arrival event is in the event queue.
    pub(crate) arrive_pending: bool,
    /// When the pending arrival event was scheduled (kept where `ties`: `sim/defer.rs` orders
    /// ties with it).
    pub(crate) arrive_at: SimTime,
    /// Whether this link's port or a port of its far node defers its departures: arrivals then
    /// settle them first and say when they were scheduled (`Simulation::arrive_tied`).
    pub(crate) ties: bool,
    /// The link's impairment model, if any.
    pub(crate) impair: Option<Box<Impairment>>,
    /// A passive sink's access link (`sim/sink.rs`): every cell on it ends its route at the far
    /// node, at an end that only counts it; no `Arrive` event runs for it, and its cells are
    /// delivered at their arrival times when the next cell is sent or something reads the
    /// counts. `arrive_pending` stays false.
    pub(crate) sink: bool,
    /// A long link (room for at least [`Link::FAR_CELLS`] cells in flight): its cells are
    /// asked into the cache ahead of use ([`Link::prefetch_head`], [`Link::prefetch_tail`]).
    pub(crate) far: bool,
}

impl Link {
    /// The most cells a pipe reserves room for up front ([`Link::reserve`]): 64 KB. A
    /// longer pipe grows as cells come (a bandwidth-delay product of billions of cells, which a
    /// valid scenario may declare, must not be allocated before a cell is sent).
    pub const RESERVE_MAX: usize = 1 << 10;

    /// A channel of this propagation delay into a node whose fabric takes `transit_ps`; room for
    /// `in_flight` cells is reserved up front (at most [`Link::RESERVE_MAX`]).
    pub fn new(prop_ps: SimDuration, transit_ps: SimDuration, in_flight: usize) -> Self {
        let mut pipe = Ring::default();
        pipe.reserve(in_flight.min(Self::RESERVE_MAX));
        Link {
            pipe,
            delay_ps: prop_ps + transit_ps,
            arrive_pending: false,
            arrive_at: 0,
            ties: false,
            impair: None,
            sink: false,
            far: in_flight >= Self::FAR_CELLS,
        }
    }

    /// The cells in flight from which a link counts as long ([`Link::far`]): 256, 14 KB of
    /// pipe entries (56 bytes each). A cell is read a propagation delay after it was written, and by then a
    /// long link's entries have left the core's caches; on a short one (the 1 km access links
    /// of the benchmarks) they have not, and the hint would only cost its instructions.
    pub const FAR_CELLS: usize = 256;

    /// Ask for the cell two behind the head of a long link, which the arrival after next
    /// reads (issue 27: seed 000's sat-sat spent about 12 % of its time waiting for the head
    /// cells of its 275 ms hops; `docs/performance.md`).
    #[inline(always)]
    pub(crate) fn prefetch_head(&self) {
        if self.far {
            self.pipe.prefetch(2);
        }
    }

    /// Ask for the slot two behind the tail of a long link, where the push after next writes.
    #[inline(always)]
    pub(crate) fn prefetch_tail(&self) {
        if self.far {
            self.pipe.prefetch_slot(2);
        }
    }

    /// Give memory back (issue 27 item 2): a pipe that holds at most an eighth of its room
    /// shrinks to four times what it holds (never below [`Link::RESERVE_MAX`] cells), so a
    /// link that was once full (a satellite hop during a burst, a window's worth of TCP
    /// segments) does not keep that room for the rest of the run. It must then hold four times
    /// as many cells before it grows again, so the copies cost a bounded amount per cell, and a
    /// pipe whose load swings by less than that does not shrink and grow over and over (seed
    /// 000's satellite hops swing between about 1,800 and 4,100 cells: with "a quarter, to
    /// twice" they were copied about 140 times in 20 simulated seconds). Called at each sample
    /// (`Simulation::sample`), off the per-cell path; only memory changes, never a cell or
    /// its time.
    pub(crate) fn give_back(&mut self) {
        if let Some(room) = Self::room_to_keep(self.pipe.len(), self.pipe.capacity()) {
            self.pipe.shrink_to(room);
        }
    }

    /// The room a FIFO of cells in flight shrinks to, if it gives any back
    /// ([`Link::give_back`]): `len` held in `room`.
    pub(crate) fn room_to_keep(len: usize, room: usize) -> Option<usize> {
        (room > Self::RESERVE_MAX && len * 8 <= room).then(|| (4 * len).max(Self::RESERVE_MAX))
    }

    /// Room for `cells` cells in flight in all (at most [`Link::RESERVE_MAX`]).
    pub fn reserve(&mut self, cells: usize) {
        let room = cells.min(Self::RESERVE_MAX);
        self.pipe.reserve(room.saturating_sub(self.pipe.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(seq: u32) -> Cell {
        Cell {
            seq,
            ..Default::default()
        }
    }

    /// A pipe that was full gives its room back once it holds at most an eighth of it (down to
    /// four times what it holds, never below `RESERVE_MAX`), keeps every cell in order with its
    /// time, and holds its room while it holds more than an eighth.
    #[test]
    fn a_pipe_gives_room_back_and_keeps_its_cells() {
        let mut l = Link::new(1_000, 0, 100);
        let n = 100_000u32;
        for k in 0..n {
            l.pipe.push_back((k as u64, cell(k)));
        }
        let full = l.pipe.capacity();
        assert!(full >= n as usize);
        // more than an eighth: nothing given back
        let mut next = 0u32;
        while l.pipe.len() > full / 8 {
            let (t, c) = l.pipe.pop_front().unwrap();
            assert_eq!((t, c.seq), (next as u64, next));
            next += 1;
        }
        l.pipe.push_back((n as u64, cell(n))); // one more than an eighth
        l.give_back();
        assert_eq!(l.pipe.capacity(), full);
        l.pipe.pop_back();
        l.give_back(); // an eighth
        assert_eq!(l.pipe.capacity(), full / 2);
        // 5,000 left: room for four times that
        while l.pipe.len() > 5_000 {
            l.pipe.pop_front();
            next += 1;
        }
        l.give_back();
        assert!(l.pipe.capacity() >= 20_000 && l.pipe.capacity() <= full / 4);
        // empty: RESERVE_MAX is kept
        while let Some((t, c)) = l.pipe.pop_front() {
            assert_eq!((t, c.seq), (next as u64, next));
            next += 1;
        }
        assert_eq!(next, n);
        l.give_back();
        assert!(l.pipe.capacity() >= Link::RESERVE_MAX && l.pipe.capacity() < 2 * Link::RESERVE_MAX);
    }
}
