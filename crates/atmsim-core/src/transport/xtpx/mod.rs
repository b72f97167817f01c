//! XTPX: an XTP-style transport with rate control, window flow control and go-back-n or
//! selective-repeat error control, each switchable off (seed 001 section 5.2: "XTPX provides
//! mechanisms for shaping rate control and flow control independently. Further, flow and rate
//! control as well as error control can be tailored to the communication at hand. If desired,
//! any of these control parameters can be turned off."). `docs/xtpx.md` has the seed's
//! sentences and every choice the seed leaves open.
//!
//! A connection is an [`XtpxSender`] at the source host and an [`XtpxReceiver`] at the
//! destination; [`XtpxEnd`] is one end, full duplex. Each packet is one AAL5 frame:
//! - DATA: the XTP 4.0 common header (32 B: key 8, cmd 4, dlen 4, check 2, sort 2, sync 4,
//!   seq 8; XTP Forum, "Xpress Transport Protocol Specification, Revision 4.0", 1995, the
//!   seed's reference [73]; XTP 4.0 has no trailer, the checksum is the header's `check`) and
//!   up to `mtu - 32` payload bytes; `SegHdr::seq` is the first byte's sequence number, the
//!   flag [`XF_SREQ`] asks for a status report (XTP's SREQ bit);
//! - CNTL: the receiver's status report, header + rseq 8, alloc 8, echo 4 = 52 B;
//!   `SegHdr::ack` = rseq (every byte below it delivered in order), `SegHdr::seq` = the highest
//!   byte received + 1;
//! - ECNTL: a status report with the receiver's gaps: header + rseq, alloc, echo, nspan
//!   = 56 B, then 16 B per span. The frame header ([`SegHdr`]) carries two numbers, so an
//!   ECNTL of n gaps travels as one 56-B frame (the CNTL fields, above) followed by n frames
//!   of 16 B, each one gap (`SegHdr::ack` = its first missing byte, `seq` = the next byte the
//!   receiver holds, flag [`XF_SPAN`]): the same bytes, one AAL5 trailer per span more.
//!
//! Files: this one holds the parameters and counters; [`rate`] the rate control (a burst of B
//! bytes per interval I), [`error`] the sender's error-control bookkeeping (go-back-n,
//! selective repeat, the retransmission timer), [`sender`] and [`receiver`] the two halves,
//! [`end`] the full-duplex end.

pub mod end;
pub mod error;
pub mod rate;
pub mod receiver;
pub mod sender;
pub mod summary;

pub use end::XtpxEnd;
pub use receiver::XtpxReceiver;
pub use sender::XtpxSender;
pub use summary::xtpx_summary;

use crate::time::{secs_to_ps, SimDuration, SimTime};

/// XTP 4.0 common header bytes in every packet (no trailer).
pub const XTP_HEADER_BYTES: u32 = 32;
/// CNTL information: rseq 8, alloc 8, echo 4.
pub const CNTL_INFO_BYTES: u32 = 20;
/// ECNTL information before the spans: rseq 8, alloc 8, echo 4, nspan 4.
pub const ECNTL_INFO_BYTES: u32 = 24;
/// One span of an ECNTL: two 8-byte sequence numbers.
pub const SPAN_BYTES: u32 = 16;

/// [`crate::wire::SegHdr::flags`]: the sender asks for a status report (XTP's SREQ). The XTPX
/// bits are 4 and 5, clear of the generic `SEG_DATA` / `SEG_ACK` (bits 0, 1) and of TCP's
/// window flag (bit 2).
pub const XF_SREQ: u8 = 1 << 4;
/// [`crate::wire::SegHdr::flags`]: one gap of an ECNTL (`ack`..`seq` missing).
pub const XF_SPAN: u8 = 1 << 5;

/// Error control (seed 001 section 5.2: "XTPX's error control mechanisms include selective
/// repeat and go-back-n").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorControl {
    /// No retransmission: the receiver takes what arrives, a gap is skipped.
    None,
    /// The receiver keeps only in-order packets; a gap sends the sender back to it.
    GoBackN,
    /// The receiver keeps out-of-order packets and reports its gaps; only those are resent.
    SelectiveRepeat,
}

/// Rate control: at most `burst` payload bytes in each `interval` (R = B / I).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub burst: u64,
    pub interval: SimDuration,
}

impl Rate {
    /// R = B / I in payload bytes per second.
    pub fn bytes_per_s(&self) -> f64 {
        self.burst as f64 / (self.interval as f64 / 1e12)
    }
}

/// What the application gives the sender to send (shared with the other transports).
pub use super::Workload;

/// Parameters of one XTPX connection (both ends).
#[derive(Clone, Debug)]
pub struct XtpxParams {
    /// Header bytes of every packet (XTP 4.0: 32).
    pub header_bytes: u32,
    /// Largest payload of a data packet (the AAL5 MTU minus the header).
    pub max_payload: u32,
    /// Rate control (None: off).
    pub rate: Option<Rate>,
    /// The receiver's allocation beyond rseq, bytes (None: window flow control off).
    pub window: Option<u64>,
    pub error_control: ErrorControl,
    /// SREQ on every n-th data packet (and always on the last one before the sender stops).
    pub status_every: u32,
    /// The receiver sends a status report at once when a packet arrives beyond a gap (XTP's
    /// FASTNAK option).
    pub fastnak: bool,
    /// Retransmission (status request) timer and its largest value after backoff.
    pub timer: SimDuration,
    pub timer_max: SimDuration,
    pub workload: Workload,
    /// When the application starts sending.
    pub start: SimTime,
}

impl XtpxParams {
    /// Defaults for an AAL5 MTU: no rate control, no window, selective repeat, SREQ on every
    /// packet, FASTNAK, a 1 s timer backing off to 64 s.
    pub fn new(mtu: u32) -> Self {
        XtpxParams {
            header_bytes: XTP_HEADER_BYTES,
            max_payload: mtu - XTP_HEADER_BYTES,
            rate: None,
            window: None,
            error_control: ErrorControl::SelectiveRepeat,
            status_every: 1,
            fastnak: true,
            timer: secs_to_ps(1.0),
            timer_max: secs_to_ps(64.0),
            workload: Workload::Bulk,
            start: 0,
        }
    }
    /// AAL5 SDU bytes of a data packet carrying `payload` bytes.
    pub fn data_frame(&self, payload: u32) -> u32 {
        payload + self.header_bytes
    }
    /// AAL5 SDU bytes of a CNTL (no gaps).
    pub fn cntl_frame(&self) -> u32 {
        self.header_bytes + CNTL_INFO_BYTES
    }
    /// AAL5 SDU bytes of the first frame of an ECNTL (its spans follow, one frame each).
    pub fn ecntl_frame(&self) -> u32 {
        self.header_bytes + ECNTL_INFO_BYTES
    }
    /// The sender needs status reports: for its window or for error control.
    pub fn needs_status(&self) -> bool {
        self.window.is_some() || self.error_control != ErrorControl::None
    }
    /// The most spans one ECNTL carries: as many as fit one MTU.
    pub fn max_spans(&self) -> usize {
        let mtu = self.max_payload + self.header_bytes;
        (mtu.saturating_sub(self.ecntl_frame()) / SPAN_BYTES).max(1) as usize
    }
}

/// Counters of one XTPX sender.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XtpxStats {
    /// Bytes the application has handed XTPX: its writes ([`Workload::App`]), or for a file
    /// the bytes as they are first sent (`snd_max`).
    pub taken: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_packets: u64,
    pub retransmitted_bytes: u64,
    /// Status reports (CNTL and ECNTL first frames) and gap frames received.
    pub reports: u64,
    pub spans: u64,
    /// Go-back-n restarts from a report, and timer expiries.
    pub go_backs: u64,
    pub timeouts: u64,
}

/// Unwrap a 32-bit wire sequence number against a 64-bit reference near it.
pub(crate) fn unwrap(reference: u64, wire: u32) -> u64 {
    reference.wrapping_add(wire.wrapping_sub(reference as u32) as i32 as i64 as u64)
}

/// What the unit tests share: a recording outbox.
#[cfg(test)]
pub(crate) mod testing {
    use crate::transport::SegmentOut;
    use crate::wire::SegHdr;

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_sizes_follow_the_xtp_4_formats() {
        let p = XtpxParams::new(9180);
        assert_eq!(p.max_payload, 9148);
        assert_eq!(crate::wire::aal5_cells(p.data_frame(9148)), 192);
        assert_eq!(p.cntl_frame(), 52);
        assert_eq!(crate::wire::aal5_cells(p.cntl_frame()), 2);
        assert_eq!(p.ecntl_frame(), 56);
        assert_eq!(crate::wire::aal5_cells(SPAN_BYTES), 1);
        assert_eq!(p.max_spans(), (9180 - 56) / 16);
    }

    #[test]
    fn wire_numbers_unwrap_near_the_reference() {
        assert_eq!(unwrap(5, 7), 7);
        assert_eq!(unwrap((1 << 32) - 10, 20), (1 << 32) + 20);
        assert_eq!(unwrap((1 << 32) + 20, u32::MAX - 9), (1 << 32) - 10);
    }
}
