//! Frame-level metrics of a video stream at its receiver (seed 004 section 4.1): frames received
//! whole and lost ("any frame missing a packet is considered lost"), received intervals ("the
//! time between the receipt of an entire frame (the last packet in a frame) and the receipt of
//! the next entire frame") in units of the fixed frame interval with their histogram in [0,2),
//! [2,4), [4,6), [6,inf) (Figure 9), the share beyond a playout buffer of k intervals, and the
//! end-to-end delay of each frame (from the time it was due at the sender to the arrival of its
//! last cell).
//!
//! Frames are numbered by the sender from 0; frames arrive in order on a VC. When frame `m`
//! arrives whole, every frame between the previous whole one and `m` is lost (part of it, or
//! all, missing). Frames after the last whole one are undecided at the end of the run and
//! counted in neither. Only frames due at or after the end of warm-up are counted.

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
    pub lost: u64,
    /// The last whole frame: its number and arrival time.
    last: Option<(u64, SimTime)>,
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

    /// Frame `m`, due at `due`, arrived whole at `now`.
    pub fn frame_received(&mut self, m: u64, due: SimTime, now: SimTime) {
        let counted = m >= self.first_frame;
        let prev = self.last.replace((m, now));
        if !counted {
            return;
        }
        self.received += 1;
        let d = now.saturating_sub(due);
        self.delay_sum_ps += d as u128;
        self.delay_max_ps = self.delay_max_ps.max(d);
        let first_counted = match prev {
            Some((pm, pt)) => {
                let x = (now - pt) as f64 / self.interval_ps;
                let bin = INTERVAL_EDGES.iter().filter(|&&e| x >= e).count();
                self.interval_bins[bin] += 1;
                self.intervals += 1;
                if x > self.playout_intervals {
                    self.beyond_playout += 1;
                }
                pm + 1
            }
            None => 0,
        };
        // the frames between the previous whole one and this one are lost (those counted)
        self.lost += m.saturating_sub(first_counted.max(self.first_frame));
    }

    /// Frame loss share among decided frames (received + lost), or None before any.
    pub fn loss_share(&self) -> Option<f64> {
        let n = self.received + self.lost;
        (n > 0).then(|| self.lost as f64 / n as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losses_intervals_and_delays() {
        let t = 1_000_000.0; // frame interval 1 us
        let mut f = FrameMetrics::new(t, 3.0, 2);
        // frame m due at m us; frames 0, 1 are warm-up; 4, 5 and 8 are lost
        for (m, arrive) in [
            (0u64, 10),
            (1, 1_010),
            (2, 2_010),
            (3, 3_500),
            (6, 9_000),
            (7, 9_100),
            (9, 16_000),
        ] {
            f.frame_received(m, m * 1_000_000, arrive * 1_000);
        }
        assert_eq!(f.received, 5);
        assert_eq!(f.lost, 3);
        assert_eq!(f.loss_share(), Some(3.0 / 8.0));
        // intervals (us): 1.0 (1->2), 1.49 (2->3), 5.5 (3->6), 0.1 (6->7), 6.9 (7->9)
        assert_eq!(f.intervals, 5);
        assert_eq!(f.interval_bins, [3, 0, 1, 1]);
        assert_eq!(f.beyond_playout, 2);
        // delays (ns): 10, 500, 3000, 2100, 7000
        assert_eq!(f.delay_max_ps, 7_000_000);
        assert_eq!(f.delay_sum_ps, (10 + 500 + 3000 + 2100 + 7000) * 1000);
    }
}
