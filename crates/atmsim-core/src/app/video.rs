//! A video frame player: frame sizes from a trace, one frame every 1 / `frame_rate` seconds,
//! starting at its own offset into the trace and looping (seed 004 section 4.1: "the data was
//! 'played' by reading a file which consisted of an enumeration of frames and their
//! corresponding byte sizes").
//!
//! The trace is a shared, read-only slice (`Arc<[u32]>`): the front end reads each trace file
//! once, the builder makes one slice per trace, and every stream playing it holds a pointer
//! (the core reads no files). The player knows nothing of how frames travel: it says when the
//! next frame is due and how many bytes it has; a host composes it with a transport
//! (`app/video_tx.rs`).
//!
//! Frame `m` (counting from 0 at the stream's start) is due at `t0 + round(m * 1e12 / rate)`
//! picoseconds: computed from `m`, so the times never drift.

use crate::time::SimTime;
use std::sync::Arc;

/// One stream's player.
#[derive(Clone, Debug)]
pub struct FramePlayer {
    sizes: Arc<[u32]>,
    /// Frames per second (> 0).
    rate: f64,
    /// The time of frame 0.
    t0: SimTime,
    /// Trace index of frame 0 (the stream's offset).
    offset: usize,
    /// Frames played so far (the number of the next frame).
    next: u64,
    stop: SimTime,
}

impl FramePlayer {
    /// A player of `sizes` (not empty) at `rate` frames/s from trace index `offset`, its first
    /// frame at `t0`, no frame at or after `stop`.
    pub fn new(sizes: Arc<[u32]>, rate: f64, offset: usize, t0: SimTime, stop: SimTime) -> Self {
        assert!(!sizes.is_empty() && rate > 0.0);
        let offset = offset % sizes.len();
        FramePlayer {
            sizes,
            rate,
            t0,
            offset,
            next: 0,
            stop,
        }
    }

    /// The time frame `m` is due.
    pub fn time_of(&self, m: u64) -> SimTime {
        self.t0 + (m as f64 * 1e12 / self.rate).round() as SimTime
    }

    /// The number of the first frame due at or after `t`.
    pub fn first_at_or_after(&self, t: SimTime) -> u64 {
        if t <= self.t0 {
            return 0;
        }
        let mut m = ((t - self.t0) as f64 * self.rate / 1e12).floor() as u64;
        while self.time_of(m) < t {
            m += 1;
        }
        while m > 0 && self.time_of(m - 1) >= t {
            m -= 1;
        }
        m
    }

    /// Frame `m` was played before `now` (its time is earlier, and before the stream stops).
    pub fn played_before(&self, m: u64, now: SimTime) -> bool {
        let t = self.time_of(m);
        t < now && t < self.stop
    }

    /// The fixed frame interval, picoseconds (rounded).
    pub fn interval_ps(&self) -> f64 {
        1e12 / self.rate
    }

    /// When the next frame is due (None once the stream has stopped).
    pub fn next_due(&self) -> Option<SimTime> {
        let t = self.time_of(self.next);
        (t < self.stop).then_some(t)
    }

    /// Take the next frame: its number and size in bytes.
    pub fn take(&mut self) -> (u64, u32) {
        let m = self.next;
        self.next += 1;
        (m, self.size_of(m))
    }

    /// The size of frame `m`, bytes.
    pub fn size_of(&self, m: u64) -> u32 {
        let i = (self.offset as u64 + m) % self.sizes.len() as u64;
        self.sizes[i as usize]
    }

    /// Frames played so far.
    pub fn played(&self) -> u64 {
        self.next
    }

    /// Trace index of the stream's first frame.
    pub fn offset(&self) -> usize {
        self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_delivers_exactly_the_trace_bytes_at_its_frame_rate() {
        let trace: Arc<[u32]> = Arc::from(vec![100u32, 2000, 30, 4000, 5]);
        // 24 frames/s from index 3, first frame at 1 s, until 1 s + 100 frame intervals
        let t0 = 1_000_000_000_000;
        let stop = t0 + (100.0f64 * 1e12 / 24.0).round() as u64 + 1;
        let mut p = FramePlayer::new(trace.clone(), 24.0, 3, t0, stop);
        let mut bytes = 0u64;
        let mut n = 0u64;
        let mut last = 0;
        while let Some(t) = p.next_due() {
            let (m, size) = p.take();
            assert_eq!(m, n);
            // the n-th frame is due at exactly t0 + n / 24 s (to the picosecond)
            assert_eq!(t, t0 + (n as f64 * 1e12 / 24.0).round() as u64);
            assert!(t > last || n == 0);
            last = t;
            assert_eq!(
                size,
                trace[(3 + n as usize) % 5],
                "frame {n} loops through the trace"
            );
            bytes += size as u64;
            n += 1;
        }
        assert_eq!(n, 101, "frames at 0, 1/24, ... 100/24 s after t0");
        // 101 frames from index 3: 20 whole loops of the trace (6135 bytes each) and index 3 once
        let whole: u64 = trace.iter().map(|&b| b as u64).sum();
        assert_eq!(whole, 6135);
        assert_eq!(bytes, 20 * 6135 + 4000);
    }
}
