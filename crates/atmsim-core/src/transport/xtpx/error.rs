//! The sender's error-control bookkeeping (seed 001 section 5.2: "XTPX's error control
//! mechanisms include selective repeat and go-back-n"), with the XTP-style exchange: data
//! packets ask for status (SREQ), the receiver answers with rseq (everything below delivered),
//! the highest byte it received and, for selective repeat, its gaps (ECNTL spans).
//!
//! What the seed leaves open, chosen here (`docs/xtpx.md`):
//! - a report is stale when it may have been caused by packets sent before the retransmission
//!   it would repeat: ATM keeps a VC's cells in order, so a report whose highest received byte
//!   is beyond everything sent when the gap was last retransmitted proves that retransmission
//!   lost; otherwise the report is ignored for that gap (XTP compares its `echo` with the
//!   retransmission's `sync` for the same purpose; the frame header here has no room for it);
//! - go-back-n: a report showing data beyond rseq sends the sender back to rseq, once per such
//!   proof (the mark is everything sent at the go-back);
//! - selective repeat: each reported gap not already queued or proven stale is queued and
//!   resent before new data, under the same rate control;
//! - the timer: armed while data are unacknowledged (or, without error control, while a status
//!   is awaited for the window), restarted on progress, doubled on each expiry up to its
//!   maximum; on expiry go-back-n goes back to rseq, selective repeat resends the packet at
//!   rseq and forgets its marks (the next report's gaps are all resent), and without error
//!   control an empty data packet asks for status.

/// Selective repeat's state: gaps queued for retransmission, and gaps retransmitted with the
/// highest byte sent + 1 at that moment (their mark).
#[derive(Clone, Debug, Default)]
pub struct Repeat {
    /// Ranges [a, b) waiting to be resent, in the order reported.
    pub queue: std::collections::VecDeque<(u64, u64)>,
    /// Ranges resent, with their marks, sorted by start, disjoint.
    resent: Vec<(u64, u64, u64)>,
}

impl Repeat {
    /// A reported gap [a, b), with the report's highest received byte + 1 `rcv_max`: queue the
    /// parts not queued already and not proven stale. Returns the bytes queued.
    pub fn gap(&mut self, a: u64, b: u64, rcv_max: u64) -> u64 {
        let mut queued = 0;
        let mut x = a;
        while x < b {
            // the piece [x, y) with one status: queued, resent (mark), or fresh
            if let Some(&(_, qe)) = self.queue.iter().find(|r| r.0 <= x && x < r.1) {
                x = qe.min(b);
                continue;
            }
            let next_q = self
                .queue
                .iter()
                .filter(|r| r.0 > x)
                .map(|r| r.0)
                .min()
                .unwrap_or(u64::MAX);
            let (y, stale) = match self.resent.iter().find(|r| r.0 <= x && x < r.1) {
                Some(&(_, e, mark)) => (e.min(b).min(next_q), rcv_max <= mark),
                None => {
                    let next_r = self
                        .resent
                        .iter()
                        .filter(|r| r.0 > x)
                        .map(|r| r.0)
                        .min()
                        .unwrap_or(u64::MAX);
                    (b.min(next_q).min(next_r), false)
                }
            };
            if !stale {
                crate::budget::deque_push(&self.queue, "the retransmission queue of an XTPX sender");
                self.queue.push_back((x, y));
                queued += y - x;
            }
            x = y;
        }
        queued
    }

    /// The piece [a, b) was resent when everything below `mark` had been sent.
    pub fn sent(&mut self, a: u64, b: u64, mark: u64) {
        let mut keep: Vec<(u64, u64, u64)> = Vec::with_capacity(self.resent.len() + 2);
        for &(s, e, m) in &self.resent {
            if e <= a || s >= b {
                keep.push((s, e, m));
            } else {
                if s < a {
                    keep.push((s, a, m));
                }
                if e > b {
                    keep.push((b, e, m));
                }
            }
        }
        keep.push((a, b, mark));
        keep.sort_unstable_by_key(|r| r.0);
        self.resent = keep;
    }

    /// Everything below `una` is acknowledged: forget it.
    pub fn acked(&mut self, una: u64) {
        self.queue.retain_mut(|r| {
            r.0 = r.0.max(una);
            r.0 < r.1
        });
        self.resent.retain_mut(|r| {
            r.0 = r.0.max(una);
            r.0 < r.1
        });
    }

    /// After a timeout: no mark holds any more.
    pub fn forget_marks(&mut self) {
        self.resent.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_is_queued_once_and_repeated_only_on_proof_of_loss() {
        let mut r = Repeat::default();
        assert_eq!(r.gap(100, 200, 500), 100);
        // the same gap again while queued: nothing more
        assert_eq!(r.gap(100, 200, 600), 0);
        let q = r.queue.pop_front().unwrap();
        assert_eq!(q, (100, 200));
        r.sent(100, 200, 1000); // resent when 1000 bytes had been sent
                                // a report caused by a packet sent before the retransmission: stale
        assert_eq!(r.gap(100, 200, 900), 0);
        assert!(r.queue.is_empty());
        // a report from beyond the mark: the retransmission was lost, repeat it
        assert_eq!(r.gap(100, 200, 1100), 100);
        // a gap partly resent: only the fresh part is queued
        r.queue.clear();
        r.sent(100, 200, 2000);
        assert_eq!(r.gap(150, 300, 1500), 100);
        assert_eq!(r.queue.back(), Some(&(200, 300)));
        r.acked(250);
        assert_eq!(r.queue.front(), Some(&(250, 300)));
    }
}
