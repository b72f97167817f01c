//! Reno-family congestion-window arithmetic (4.3BSD Tahoe/Reno, 4.4BSD; NewReno, RFC 6582), as
//! pure functions on byte counts. The state they act on (`cwnd`, `ssthresh`, the duplicate-ACK
//! count, the recovery flag and point) and the decisions of when to apply them (which ACK is new,
//! duplicate or partial; timeout; Tahoe or Reno) stay in [`super::TcpSender`], interleaved as they
//! are with retransmission and output. Moved out of `TcpSender` (was in `tcp.rs`) unchanged.
//!
//! Two steps are left inline in the sender because they are a single assignment: after a
//! timeout (or a Tahoe fast retransmit) `cwnd = MSS`, and during Reno fast recovery each further
//! duplicate ACK inflates `cwnd` by one MSS (a segment has left the network).

/// Slow-start threshold after a loss (timeout or fast retransmit): half the window in use,
/// `min(cwnd, rwnd)`, in whole segments, at least two segments (BSD).
#[inline]
pub fn ssthresh_after_loss(cwnd: u64, rwnd: u64, mss: u64) -> u64 {
    let win = cwnd.min(rwnd);
    (win / 2 / mss).max(2) * mss
}

/// The window after an ACK of new data outside fast recovery: slow start below `ssthresh`
/// (cwnd += MSS per ACK), congestion avoidance at or above it (cwnd += MSS x MSS / cwnd per ACK,
/// at least one byte; no 4.4BSD `mss/8` extra increase).
#[inline]
pub fn open(cwnd: u64, ssthresh: u64, mss: u64) -> u64 {
    if cwnd < ssthresh {
        cwnd + mss
    } else {
        cwnd + (mss * mss / cwnd).max(1)
    }
}

/// The window is never larger than the receiver's window, nor cut below one segment by it.
#[inline]
pub fn clamp_to_rwnd(cwnd: u64, rwnd: u64, mss: u64) -> u64 {
    cwnd.min(rwnd.max(mss))
}

/// The window on entering Reno fast recovery: `ssthresh` inflated by the `dupack_threshold`
/// segments the duplicate ACKs say have left the network.
#[inline]
pub fn recovery_entry(ssthresh: u64, dupack_threshold: u32, mss: u64) -> u64 {
    ssthresh + dupack_threshold as u64 * mss
}

/// NewReno partial ACK (RFC 6582): deflate the window by the data acknowledged, then add back one
/// segment for the retransmission.
#[inline]
pub fn partial_ack_deflate(cwnd: u64, acked: u64, mss: u64) -> u64 {
    cwnd.saturating_sub(acked) + mss
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_arithmetic_closed_form() {
        let mss = 512;
        // loss: half of min(cwnd, rwnd) in whole segments, at least two
        assert_eq!(ssthresh_after_loss(8 * 512, 65_535, mss), 4 * 512);
        assert_eq!(ssthresh_after_loss(8 * 512 + 300, 65_535, mss), 4 * 512);
        assert_eq!(ssthresh_after_loss(64 * 512, 10 * 512, mss), 5 * 512);
        assert_eq!(ssthresh_after_loss(512, 65_535, mss), 2 * 512);
        // slow start adds one MSS, congestion avoidance MSS^2 / cwnd
        assert_eq!(open(512, 4096, mss), 1024);
        assert_eq!(open(4096, 4096, mss), 4096 + 64);
        assert_eq!(open(1 << 30, 0, mss), (1 << 30) + 1);
        assert_eq!(clamp_to_rwnd(100_000, 65_535, mss), 65_535);
        assert_eq!(clamp_to_rwnd(100, 10, mss), 100);
        assert_eq!(recovery_entry(8 * 512, 3, mss), 11 * 512);
        assert_eq!(partial_ack_deflate(16 * 512, 5 * 512, mss), 12 * 512);
        assert_eq!(partial_ack_deflate(512, 5 * 512, mss), 512);
    }
}
