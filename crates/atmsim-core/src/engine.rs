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
///
/// `pop` leaves the returned event at the top of the heap as a "hole"; the next `push` usually
/// comes from the handler of that event and simply replaces it (one sift-down instead of a pop's
/// and a push's), which is most of the work of a cell-level run.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    hole: bool,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    fn fill_hole(&mut self) {
        if self.hole {
            self.heap.pop();
            self.hole = false;
        }
    }

    /// Schedule `ev` at `t`; among events at the same time, earlier calls run first.
    #[inline]
    pub fn push(&mut self, t: SimTime, ev: Event) {
        self.seq += 1;
        let e = Entry {
            key: ((t as u128) << 64) | self.seq as u128,
            ev,
        };
        if self.hole {
            self.hole = false;
            *self.heap.peek_mut().expect("a hole is a heap entry") = e;
        } else {
            self.heap.push(e);
        }
    }

    /// Time of the next event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.fill_hole();
        self.heap.peek().map(|e| (e.key >> 64) as SimTime)
    }

    /// Remove and return the next event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.fill_hole();
        let e = *self.heap.peek()?;
        self.hole = true;
        Some(((e.key >> 64) as SimTime, e.ev))
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.hole as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    fn pushes_from_a_handler_keep_the_order() {
        // pop, then push from the "handler" (replacing the hole), against a sorted reference
        let mut q = EventQueue::new();
        let mut reference = vec![];
        let mut x: u64 = 12345;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for i in 0..50u32 {
            let t = next(100);
            q.push(t, Event::Arrive(i));
            reference.push((t, i));
        }
        let mut seq = 50u32;
        let mut out = vec![];
        while let Some((t, ev)) = q.pop() {
            out.push((t, ev));
            if seq < 5000 && next(3) > 0 {
                let t2 = t + next(50);
                q.push(t2, Event::Arrive(seq));
                reference.push((t2, seq));
                seq += 1;
            }
        }
        // events come out by time, and by scheduling order among equal times
        reference.sort_by_key(|&(t, i)| (t, i));
        let got: Vec<(u64, u32)> = out
            .iter()
            .map(|&(t, e)| (t, if let Event::Arrive(i) = e { i } else { 0 }))
            .collect();
        assert_eq!(got, reference);
    }
}
