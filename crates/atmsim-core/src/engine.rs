//! The event queue: a binary heap keyed by (time, sequence number).
//!
//! Simultaneous events run in the order they were scheduled (FIFO ties), so a run is a pure
//! function of the scenario and seed. Events are a closed `Copy` enum, matched in one place
//! (`sim::Simulation::step`); there is no dynamic dispatch per event. The heap holds events per
//! component (one per busy port, one per link with cells in flight, one per source timer), never
//! one per cell: cells in flight wait in their link's FIFO.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
}

#[derive(Clone, Copy)]
struct Entry {
    key: u128,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // reversed: BinaryHeap is a max-heap, we want the earliest (time, seq) first
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// Deterministic future-event list.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `ev` at `t`; among events at the same time, earlier calls run first.
    #[inline]
    pub fn push(&mut self, t: SimTime, ev: Event) {
        self.seq += 1;
        self.heap.push(Entry { key: ((t as u128) << 64) | self.seq as u128, ev });
    }

    /// Time of the next event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| (e.key >> 64) as SimTime)
    }

    /// Remove and return the next event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| ((e.key >> 64) as SimTime, e.ev))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            vec![(1, Event::WarmupEnd), (3, Event::PortTx(7)), (5, Event::Arrive(1)), (5, Event::Arrive(2)), (5, Event::Sample)]
        );
    }
}
