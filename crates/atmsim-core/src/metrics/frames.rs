//! Frame-level metrics of a video stream at its receiver (seed 004 section 4.1): frames received
//! whole ("any frame missing a packet is considered lost"), received intervals ("the
//! time between the receipt of an entire frame (the last packet in a frame) and the receipt of
//! the next entire frame") in units of the fixed frame interval with their histogram in [0,2),
//! [2,4), [4,6), [6,inf) (Figure 9), the share beyond a playout buffer of k intervals, and the
//! end-to-end delay of each frame (from the time it was due at the sender to the arrival of its
//! last cell).
//!
//! Frames are numbered by the sender from 0. Only frames due at or after the end of warm-up are
//! counted. Loss is not counted here: the receiver cannot tell a frame still on its way from
//! one lost after the last whole frame, so the summary takes loss as what was sent less what
//! arrived whole and what is still on its way (`app/video_rx.rs`, `metrics/accounting.rs`).

use crate::time::SimTime;

/// Histogram bin edges of received intervals, in frame intervals (seed 004 Figure 9).
pub const INTERVAL_EDGES: [f64; 3] = [2.0, 4.0, 6.0];

/// One stream's receiver-side counters.
#[derive(Clone, Debug, Default)]
pub struct FrameMetrics {
    /// The fixed frame interval, ps.
    pub interval_ps: f64,
    /// Playout buffer, frame intervals: intervals above this count as delayed.
    pub playout_intervals: f64,
    /// Frames numbered below this (due before the end of warm-up) are not counted.
    pub first_frame: u64,
    pub received: u64,
    /// Bytes of the frames received.
    pub received_bytes: u64,
    /// When the last whole frame arrived.
    last: Option<SimTime>,
    /// Received intervals per bin [0,2), [2,4), [4,6), [6,inf), and above the playout buffer.
    pub interval_bins: [u64; 4],
    pub intervals: u64,
    pub beyond_playout: u64,
    pub delay_sum_ps: u128,
    pub delay_max_ps: u64,
}

impl FrameMetrics {
    pub fn new(interval_ps: f64, playout_intervals: f64, first_frame: u64) -> Self {
        FrameMetrics {
            interval_ps,
            playout_intervals,
            first_frame,
            ..Default::default()
        }
    }

    /// Frame `m` of `bytes`, due at `due`, arrived whole at `now`.
    pub fn frame_received(&mut self, m: u64, bytes: u64, due: SimTime, now: SimTime) {
        let counted = m >= self.first_frame;
        let prev = self.last.replace(now);
        if !counted {
            return;
        }
        self.received += 1;
        self.received_bytes += bytes;
        let d = now.saturating_sub(due);
        self.delay_sum_ps += d as u128;
        self.delay_max_ps = self.delay_max_ps.max(d);
        if let Some(pt) = prev {
            let x = (now - pt) as f64 / self.interval_ps;
            let bin = INTERVAL_EDGES.iter().filter(|&&e| x >= e).count();
            self.interval_bins[bin] += 1;
            self.intervals += 1;
            if x > self.playout_intervals {
                self.beyond_playout += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_and_delays() {
        let t = 1_000_000.0; // frame interval 1 us
        let mut f = FrameMetrics::new(t, 3.0, 2);
        // frame m due at m us; frames 0, 1 are warm-up; 4, 5 and 8 do not arrive
        for (m, arrive) in [
            (0u64, 10),
            (1, 1_010),
            (2, 2_010),
            (3, 3_500),
            (6, 9_000),
            (7, 9_100),
            (9, 16_000),
        ] {
            f.frame_received(m, 100 + m, m * 1_000_000, arrive * 1_000);
        }
        assert_eq!(f.received, 5);
        assert_eq!(f.received_bytes, 5 * 100 + 2 + 3 + 6 + 7 + 9);
        // intervals (us): 1.0 (1->2), 1.49 (2->3), 5.5 (3->6), 0.1 (6->7), 6.9 (7->9)
        assert_eq!(f.intervals, 5);
        assert_eq!(f.interval_bins, [3, 0, 1, 1]);
        assert_eq!(f.beyond_playout, 2);
        // delays (ns): 10, 500, 3000, 2100, 7000
        assert_eq!(f.delay_max_ps, 7_000_000);
        assert_eq!(f.delay_sum_ps, (10 + 500 + 3000 + 2100 + 7000) * 1000);
    }
}
