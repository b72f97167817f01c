//! TCP as in the BSD stacks of the mid-1990s (4.3BSD Reno / 4.4BSD), the transport of seeds 000
//! and 002 (sections 6) and seed 001 (sections 7-9). Moved from `tcp.rs`.
//!
//! A connection is a [`TcpSender`] at the source host and a [`TcpReceiver`] at the destination.
//! Each segment is one AAL5 frame: payload + 20 B TCP + 20 B IP + 8 B LLC/SNAP (RFC 1483), plus
//! the 8 B AAL5 trailer and padding (seed 000 section 6: 56 B of overhead per segment). The
//! frame's transport header ([`crate::wire::SegHdr`]) carries the 32-bit sequence number (data)
//! or acknowledgement number (ACK); the receiver sees a segment only when its whole frame
//! arrived (AAL5 CRC), as a real host does. [`TcpEnd`] is one end, full duplex (a sender and a
//! receiver, either optional).
//!
//! Modelled, with the BSD choices:
//! - sequence numbers in bytes (64-bit inside, 32-bit on the wire, unwrapped at the receiver);
//!   cumulative ACKs; an out-of-order queue at the receiver (ranges, merged);
//! - slow start (cwnd += MSS per ACK below ssthresh) and congestion avoidance
//!   (cwnd += MSS x MSS / cwnd per ACK), window = min(cwnd, receiver window);
//! - retransmission timeout from Jacobson/Karels estimation (SIGCOMM '88; srtt gain 1/8,
//!   rttvar gain 1/4, RTO = srtt + 4 rttvar) on RTT samples counted in timer ticks as BSD does
//!   (`t_rtt` starts at 1 and counts slow-timer ticks), one segment timed at a time and never a
//!   retransmitted one (Karn's rule), RTO clamped to [rto_min, rto_max], exponential backoff on
//!   each timeout, the timer counting down whole ticks of the coarse clock (granularity 100 ms
//!   by default, 500 ms for BSD's slow timer): a timer of n ticks set at t fires at the n-th tick
//!   boundary after t;
//! - on timeout: ssthresh = max(2, min(cwnd, rwnd) / 2 / MSS) x MSS, cwnd = 1 MSS, go back N;
//! - optional fast retransmit after 3 duplicate ACKs, with fast recovery (Reno: window inflation,
//!   deflation on the next new ACK; NewReno, RFC 6582: partial ACKs retransmit the next hole and
//!   recovery lasts until everything sent before it is acknowledged);
//! - optional delayed ACKs (BSD: ACK every second full segment, else when the 200 ms fast timer
//!   next fires, so after 0-200 ms), out-of-order and duplicate segments acknowledged at once;
//! - ACKs piggybacked on data at an end that both sends and receives ([`TcpEnd`], full duplex):
//!   a data segment carries the acknowledgement and cancels a pending delayed ACK (BSD);
//! - optional Nagle (a small segment waits while data are unacknowledged) and sender SWS
//!   avoidance (no small segment merely because the window is short);
//! - window scaling (RFC 1323): without it the window is at most 65,535 B.
//!
//! Not modelled: the receiving application is never slow (the advertised window is always the
//! receive buffer, so it is not carried in the ACK), no SYN/FIN handshake (the connection exists
//! from its start time), no TCP processing time (seed 000: "no TCP processing time"), no
//! 4.4BSD `mss/8` extra increase in congestion avoidance.
//!
//! Files: this one holds the parameters, the variants and the counters; [`sender`] the sending
//! end (output, ACK processing, RTT estimation, timers), [`receiver`] the receiving end
//! (reassembly of the byte stream, delayed ACKs), [`cc`] the Reno-family congestion-window
//! arithmetic the sender applies.

pub mod cc;
pub mod end;
pub mod receiver;
pub mod sender;
pub mod summary;

pub use end::{IdleRestart, TcpEnd};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;
pub use summary::tcp_summary;

use crate::time::{secs_to_ps, SimDuration, SimTime};

/// TCP + IP + LLC/SNAP header bytes in every segment's AAL5 frame (the AAL5 trailer is added by
/// the framing).
pub const TCP_IP_LLC_BYTES: u32 = 20 + 20 + 8;

/// Largest window without window scaling.
pub const MAX_UNSCALED_WINDOW: u64 = 65_535;

/// Fast retransmit and recovery variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Timeouts only (seeds 000 and 002: "no fast retransmit/recovery").
    None,
    /// Fast retransmit, then slow start from one segment (4.3BSD Tahoe).
    Tahoe,
    /// Fast retransmit and fast recovery (4.3BSD Reno).
    Reno,
    /// Reno with partial-ACK handling (RFC 6582).
    NewReno,
}

/// What the application gives the sender to send (shared with the other transports).
pub use super::Workload;

/// Parameters of one TCP connection (both ends).
#[derive(Clone, Debug)]
pub struct TcpParams {
    /// Maximum segment size, payload bytes.
    pub mss: u32,
    /// Receive buffer = the window the receiver advertises, bytes (capped at 65,535 without
    /// window scaling).
    pub window: u64,
    pub recovery: Recovery,
    pub delayed_ack: bool,
    /// With delayed ACKs, under an application that reads itself (`TcpReceiver::app_reads`):
    /// an in-order segment only flags the delayed ACK, and the ACK leaves after the
    /// application's read, with the window the read freed, when that opened the window by two
    /// segments or half the buffer (4.3BSD: `tcp_input` sets TF_DELACK; the ACK goes out at the
    /// next `tcp_output`, which the read's PRU_RCVD calls, by its window-update test; Stevens,
    /// TCP/IP Illustrated vol. 2, sections 28.12 and 26.3; our paraphrase). False: every
    /// second segment is acknowledged on arrival, before the read, with the unread data taken
    /// off the window (the model before issue 26).
    pub ack_at_read: bool,
    /// BSD's socket layer hands a write to TCP in chunks of this many bytes (the mbuf cluster,
    /// MCLBYTES), TCP's output running after each (4.4BSD `sosend`: for a stream socket the
    /// inner loop fills one cluster and calls PRU_SEND, so `tcp_output` sees the write grow
    /// cluster by cluster; Stevens vol. 2, `sosend`; our paraphrase). None: the whole write
    /// at once.
    pub send_chunk: Option<u64>,
    /// Fast-timer period of delayed ACKs.
    pub delack: SimDuration,
    pub nagle: bool,
    /// Coarse timer tick (retransmission timer and RTT measurement).
    pub tick: SimDuration,
    /// RTO bounds and the RTO before the first RTT sample.
    pub rto_min: SimDuration,
    pub rto_max: SimDuration,
    pub rto_initial: SimDuration,
    /// Initial congestion window, segments.
    pub initial_cwnd: u32,
    pub dupack_threshold: u32,
    pub workload: Workload,
    /// When the application starts sending.
    pub start: SimTime,
}

impl TcpParams {
    /// BSD-like defaults for a given MSS and window.
    pub fn new(mss: u32, window: u64) -> Self {
        TcpParams {
            mss,
            window,
            recovery: Recovery::None,
            delayed_ack: false,
            ack_at_read: true,
            send_chunk: None,
            delack: secs_to_ps(0.2),
            nagle: true,
            tick: secs_to_ps(0.1),
            rto_min: secs_to_ps(0.2),
            rto_max: secs_to_ps(64.0),
            rto_initial: secs_to_ps(3.0),
            initial_cwnd: 1,
            dupack_threshold: 3,
            workload: Workload::Bulk,
            start: 0,
        }
    }

    /// AAL5 SDU bytes of a segment carrying `payload` bytes.
    pub fn frame_bytes(payload: u32) -> u32 {
        payload + TCP_IP_LLC_BYTES
    }
}

/// Counters of one TCP sender.
#[derive(Clone, Debug, Default)]
pub struct TcpStats {
    /// Bytes the application has handed TCP: its writes ([`Workload::App`]), or for a file the
    /// bytes as they are first sent (the highest sequence number sent, which a refused window
    /// probe does not take back).
    pub taken: u64,
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub rtt_samples: u64,
    pub max_cwnd: u64,
}

/// What the unit tests of both ends share: a recording outbox and the parameters.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::transport::SegmentOut;
    use crate::wire::SegHdr;

    /// The engine's per-call outbox, recorded (`cap` frames per call, 0 = unlimited).
    #[derive(Default)]
    pub struct Out {
        pub frames: Vec<(u32, SegHdr)>,
        pub cap: usize,
    }
    impl SegmentOut for Out {
        fn room(&self) -> bool {
            self.cap == 0 || self.frames.len() < self.cap
        }
        fn frame(&mut self, sdu: u32, seg: SegHdr) {
            self.frames.push((sdu, seg));
        }
    }

    pub fn params() -> TcpParams {
        TcpParams::new(512, 65_535)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_carry_56_bytes_of_overhead() {
        // 512 B + 48 B headers + 8 B trailer = 568 B = 12 cells (seed 000 section 6)
        assert_eq!(crate::wire::aal5_cells(TcpParams::frame_bytes(512)), 12);
        assert_eq!(crate::wire::aal5_cells(TcpParams::frame_bytes(9140)), 192);
        assert_eq!(crate::wire::aal5_cells(TCP_IP_LLC_BYTES), 2); // a pure ACK
    }
}
