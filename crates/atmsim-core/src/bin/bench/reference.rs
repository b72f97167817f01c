//! The side-by-side reference of `make bench` (issue 13): a minimal simulator of bench case (a)
//! and nothing else, written for speed, so that atmsim's speed can be given as a ratio measured
//! in the same run (the ratio survives the machine's drift, absolute speeds do not).
//!
//! The same network and the same exactness as atmsim on case (a): 15 sources at 12 Mb/s with
//! exact picosecond emission times ([`Pacer`]), each into its own 149.76 Mb/s, 1 km host link to
//! switch A; A's output port to B (149.76 Mb/s, 1000 km, 10,000 waiting cells at most, a cell
//! arriving to a full buffer is dropped); B's output ports to the 15 sinks (1 km). A port sends
//! at its line rate with exact departure times and starts a cell as soon as its line is free.
//! No features: one FIFO per port, no categories, statistics, framing or time series.
//!
//! The events are a binary heap of (time, sequence number, what), packed in a u128 (the
//! sequence number in 32 bits: runs of up to 4 billion events): a source emission, or the head
//! cell of a link reaching the far node. A port has no transmission-end event: the departure time
//! of a cell is computed when it is queued (the port's line is busy until then), the cell goes
//! straight into its link's FIFO with its arrival time, and the cells still waiting at a port are
//! the queued ones whose transmission has not started yet.

use atmsim_core::time::{cell_time_ps, secs_to_ps, Pacer, SimTime};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const SOURCES: usize = 15;
const RATE_BPS: u64 = 149_760_000;
const SOURCE_BPS: u64 = 12_000_000;
const BUFFER: usize = 10_000;
const PS_PER_KM: u64 = 5_000_000;

struct Port {
    pacer: Pacer,
    busy_until: SimTime,
    delay: SimTime,
    /// Start times of the queued cells that have not started transmission yet (only kept where
    /// the buffer is limited).
    waiting: VecDeque<SimTime>,
    limited: bool,
    /// Cells on the link: (arrival time at the far node, sink or source index).
    pipe: VecDeque<(SimTime, u32)>,
    next: Next,
}

#[derive(Clone, Copy)]
enum Next {
    /// The far node is switch A: on to port `A_OUT`.
    SwitchA,
    /// Switch B: on to the sink's port.
    SwitchB,
    /// A sink.
    Sink,
}

/// Events: source `i` emits (`i`), or port `p`'s head cell arrives (`ARRIVE | p`).
const ARRIVE: u32 = 1 << 31;

/// A heap key: time, then scheduling order (FIFO ties), then the event (32 bits each).
#[inline]
fn key(t: SimTime, seq: u64, ev: u32) -> u128 {
    ((t as u128) << 64) | ((seq as u128) << 32) | ev as u128
}

/// What the reference did, for the bench's report.
pub struct Outcome {
    pub cell_hops: u64,
    pub events: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub cells_in_flight_at_end: u64,
}

pub fn run(duration_s: f64) -> Outcome {
    let end = secs_to_ps(duration_s);
    // ports: 0..15 host ports, 15 = A to B, 16..31 B to the sinks
    let a_out = SOURCES;
    let port = |delay, next, limited| Port {
        pacer: Pacer::new(RATE_BPS),
        busy_until: 0,
        delay,
        waiting: VecDeque::new(),
        limited,
        pipe: VecDeque::new(),
        next,
    };
    let mut ports: Vec<Port> = (0..SOURCES)
        .map(|_| port(PS_PER_KM, Next::SwitchA, false))
        .collect();
    ports.push(port(1000 * PS_PER_KM, Next::SwitchB, true));
    ports.extend((0..SOURCES).map(|_| port(PS_PER_KM, Next::Sink, false)));
    let mut sources: Vec<Pacer> = (0..SOURCES).map(|_| Pacer::new(SOURCE_BPS)).collect();
    debug_assert!(cell_time_ps(SOURCE_BPS) > 0);

    let mut heap: BinaryHeap<Reverse<u128>> = BinaryHeap::new();
    let mut seq = 0u64;
    for (i, s) in sources.iter_mut().enumerate() {
        s.start(0);
        seq += 1;
        heap.push(Reverse(key(0, seq, i as u32)));
    }
    let (mut hops, mut events, mut delivered, mut dropped) = (0u64, 0u64, 0u64, 0u64);

    // queue cell `who` (its source index) at port `p` at time `now`
    let send = |ports: &mut Vec<Port>,
                heap: &mut BinaryHeap<Reverse<u128>>,
                seq: &mut u64,
                p: usize,
                who: u32,
                now: SimTime|
     -> bool {
        let port = &mut ports[p];
        if port.limited {
            while port.waiting.front().is_some_and(|&s| s <= now) {
                port.waiting.pop_front();
            }
            let start = now.max(port.busy_until);
            if start > now && port.waiting.len() >= BUFFER {
                return false;
            }
            if start > now {
                port.waiting.push_back(start);
            }
        }
        if now > port.busy_until {
            port.pacer.start(now);
        }
        let done = port.pacer.advance();
        port.busy_until = done;
        let at = done + port.delay;
        if port.pipe.is_empty() {
            *seq += 1;
            heap.push(Reverse(key(at, *seq, ARRIVE | p as u32)));
        }
        port.pipe.push_back((at, who));
        true
    };

    while let Some(Reverse(k)) = heap.pop() {
        let (now, ev) = ((k >> 64) as SimTime, k as u32);
        if now >= end {
            break;
        }
        events += 1;
        if ev & ARRIVE == 0 {
            let i = ev as usize;
            hops += 1;
            send(&mut ports, &mut heap, &mut seq, i, ev, now);
            let next = sources[i].advance();
            if next < end {
                seq += 1;
                heap.push(Reverse(key(next, seq, ev)));
            }
        } else {
            let p = (ev & !ARRIVE) as usize;
            let (_, who) = ports[p].pipe.pop_front().expect("an arrival has a cell");
            if let Some(&(t, _)) = ports[p].pipe.front() {
                seq += 1;
                heap.push(Reverse(key(t, seq, ev)));
            }
            match ports[p].next {
                Next::SwitchA => {
                    if send(&mut ports, &mut heap, &mut seq, a_out, who, now) {
                        hops += 1;
                    } else {
                        dropped += 1;
                    }
                }
                Next::SwitchB => {
                    hops += 1;
                    send(
                        &mut ports,
                        &mut heap,
                        &mut seq,
                        a_out + 1 + who as usize,
                        who,
                        now,
                    );
                }
                Next::Sink => delivered += 1,
            }
        }
    }
    // a cell-hop counts when the cell starts transmission, as in atmsim: not the queued cells
    // that would start at the end or later
    let unsent: u64 = ports
        .iter()
        .map(|p| p.waiting.iter().filter(|&&s| s >= end).count() as u64)
        .sum();
    hops -= unsent;
    let in_flight = ports.iter().map(|p| p.pipe.len() as u64).sum();
    Outcome {
        cell_hops: hops,
        events,
        delivered,
        dropped,
        cells_in_flight_at_end: in_flight,
    }
}
