//! Transports: the protocols an endpoint runs above AAL5, behind one full-duplex interface.
//!
//! A transport end is one end of one transport connection: it may send and receive data (a TCP
//! end holds a sender and a receiver; either may be absent for one-way traffic). It writes whole
//! AAL5 frames, each with its transport header ([`SegHdr`]: connection within the VC, flags,
//! sequence and acknowledgement numbers), to a [`SegmentOut`]: the endpoint's per-call outbox
//! ([`crate::app::Ctx`], joined to this trait in [`crate::host::endpoint`]) or an ABR source's
//! frame queue (TCP over ABR). The receiving host hands each intact frame to the end of its
//! connection ([`crate::net::Flow`] demultiplexes by `SegHdr::conn`). Transports know neither
//! applications nor hosts.
//!
//! Extension point (the smoltcp `socket/tcp/congestion.rs` pattern): [`Transport`] has no-op
//! default hooks, [`AnyTransport`] lists the transports and forwards each hook with one `match`
//! per method here. A new transport (UDP, a rate-controlled XTP-like one) is its own file or
//! folder, one variant below, and its scenario section.
//!
//! - [`tcp`]: BSD-style TCP (Reno family), [`tcp::TcpEnd`].
//! - [`xtpx`]: an XTP-style transport with rate control (burst B per interval I), window flow
//!   control and go-back-n or selective-repeat error control (seed 001 section 5.2),
//!   [`xtpx::XtpxEnd`].
//! - [`udp`]: UDP/IP over AAL5 with LLC/SNAP (seed 004), messages split into datagrams up to the
//!   IP MTU, [`udp::UdpSender`] / [`udp::UdpReceiver`]; seed 004's video streams drive them
//!   from the host (`host/video.rs`), so UDP needs no [`AnyTransport`] variant of its own.

pub mod tcp;
pub mod udp;
pub mod xtpx;

use crate::time::SimTime;
use crate::wire::SegHdr;
use tcp::TcpEnd;
use xtpx::XtpxEnd;

/// What the application gives a transport's sender to send (TCP and XTPX alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// An infinite file (bulk transfer): always data to send.
    Bulk,
    /// A finite transfer of this many bytes.
    Bytes(u64),
    /// The sender sends only what the application wrote (`write`); each write is one TSDU and
    /// its end a push boundary (for TCP: a short segment ending there goes out at once when
    /// nothing is outstanding or Nagle is off, else it waits for the ACK or for more data).
    App,
}

impl Workload {
    /// Bytes the application has given the sender so far, `written` of them by `write` (bulk:
    /// unlimited).
    pub fn limit(self, written: u64) -> u64 {
        match self {
            Workload::Bulk => u64::MAX,
            Workload::Bytes(n) => n,
            Workload::App => written,
        }
    }
}

/// The earlier of two optional deadlines (a full-duplex end's next timer: its sender's or its
/// receiver's).
pub fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Where a transport end writes the frames it sends in one call.
pub trait SegmentOut {
    /// Room for more frames in this call (the engine's per-call outbox).
    fn room(&self) -> bool;
    /// Send one AAL5 frame of `sdu` bytes with transport header `seg` (the endpoint fills in
    /// `seg.conn`).
    fn frame(&mut self, sdu: u32, seg: SegHdr);
}

/// The hooks of a transport end; every hook defaults to nothing.
pub trait Transport {
    /// The time the end next needs a timer call (None: no timer).
    fn next_timer(&self) -> Option<SimTime> {
        None
    }
    /// A timer call (the time asked for by [`Transport::next_timer`] has come).
    fn on_timer(&mut self, _now: SimTime, _out: &mut impl SegmentOut) {}
    /// An intact frame of `sdu` bytes with header `seg` arrived for this end.
    fn on_frame(&mut self, _now: SimTime, _sdu: u32, _seg: SegHdr, _out: &mut impl SegmentOut) {}
}

/// Every transport, one variant each.
#[derive(Clone, Debug)]
pub enum AnyTransport {
    Tcp(Box<TcpEnd>),
    Xtpx(Box<XtpxEnd>),
}

impl AnyTransport {
    /// See [`Transport::next_timer`].
    pub fn next_timer(&self) -> Option<SimTime> {
        match self {
            AnyTransport::Tcp(t) => t.next_timer(),
            AnyTransport::Xtpx(t) => t.next_timer(),
        }
    }
    /// See [`Transport::on_timer`].
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        match self {
            AnyTransport::Tcp(t) => t.on_timer(now, out),
            AnyTransport::Xtpx(t) => t.on_timer(now, out),
        }
    }
    /// See [`Transport::on_frame`].
    pub fn on_frame(&mut self, now: SimTime, sdu: u32, seg: SegHdr, out: &mut impl SegmentOut) {
        match self {
            AnyTransport::Tcp(t) => t.on_frame(now, sdu, seg, out),
            AnyTransport::Xtpx(t) => t.on_frame(now, sdu, seg, out),
        }
    }
    /// The application writes `bytes` (one TSDU) to this end ([`TcpEnd::write`]); nothing for
    /// an end that does not send.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        match self {
            AnyTransport::Tcp(t) => t.write(now, bytes, out),
            AnyTransport::Xtpx(t) => t.write(now, bytes, out),
        }
    }
    /// Bytes written and not yet acknowledged (0 for an end that does not send).
    pub fn send_buffered(&self) -> u64 {
        match self {
            AnyTransport::Tcp(t) => t.send_buffered(),
            AnyTransport::Xtpx(t) => t.send_buffered(),
        }
    }
    /// The application read `bytes` delivered to it: for TCP their receive-buffer room is
    /// free (window); nothing for an end that does not receive.
    pub fn read(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        match self {
            AnyTransport::Tcp(t) => t.read(now, bytes, out),
            // XTPX's window is the receiver's allocation, not the application's reads
            AnyTransport::Xtpx(_) => {}
        }
    }
    /// In-order bytes delivered to the application so far (0 for an end that does not
    /// receive).
    pub fn delivered(&self) -> u64 {
        match self {
            AnyTransport::Tcp(t) => t.delivered(),
            AnyTransport::Xtpx(t) => t.delivered(),
        }
    }
    /// The TCP end, if this is TCP.
    pub fn tcp(&self) -> Option<&TcpEnd> {
        match self {
            AnyTransport::Tcp(t) => Some(t),
            AnyTransport::Xtpx(_) => None,
        }
    }
    /// The XTPX end, if this is XTPX.
    pub fn xtpx(&self) -> Option<&XtpxEnd> {
        match self {
            AnyTransport::Xtpx(t) => Some(t),
            AnyTransport::Tcp(_) => None,
        }
    }
    /// The XTPX end, mutable (the warm-up marks).
    pub fn xtpx_mut(&mut self) -> Option<&mut XtpxEnd> {
        match self {
            AnyTransport::Xtpx(t) => Some(t),
            AnyTransport::Tcp(_) => None,
        }
    }
    /// The TCP end, if this is TCP, to change (the workload runner restarts its window).
    pub fn tcp_mut(&mut self) -> Option<&mut TcpEnd> {
        match self {
            AnyTransport::Tcp(t) => Some(t),
            AnyTransport::Xtpx(_) => None,
        }
    }
}
