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
//! - [`udp`]: UDP/IP over AAL5 with LLC/SNAP (seed 004), messages split into datagrams up to the
//!   IP MTU, [`udp::UdpSender`] / [`udp::UdpReceiver`]; seed 004's video streams drive them
//!   from the host (`host/video.rs`), so UDP needs no [`AnyTransport`] variant of its own.

pub mod tcp;
pub mod udp;

use crate::time::SimTime;
use crate::wire::SegHdr;
use tcp::TcpEnd;

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
}

impl AnyTransport {
    /// See [`Transport::next_timer`].
    pub fn next_timer(&self) -> Option<SimTime> {
        match self {
            AnyTransport::Tcp(t) => t.next_timer(),
        }
    }
    /// See [`Transport::on_timer`].
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        match self {
            AnyTransport::Tcp(t) => t.on_timer(now, out),
        }
    }
    /// See [`Transport::on_frame`].
    pub fn on_frame(&mut self, now: SimTime, sdu: u32, seg: SegHdr, out: &mut impl SegmentOut) {
        match self {
            AnyTransport::Tcp(t) => t.on_frame(now, sdu, seg, out),
        }
    }
    /// The application writes `bytes` (one TSDU) to this end ([`TcpEnd::write`]); nothing for
    /// an end that does not send.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        match self {
            AnyTransport::Tcp(t) => t.write(now, bytes, out),
        }
    }
    /// Bytes written and not yet acknowledged (0 for an end that does not send).
    pub fn send_buffered(&self) -> u64 {
        match self {
            AnyTransport::Tcp(t) => t.send_buffered(),
        }
    }
    /// The application read `bytes` delivered to it: for TCP their receive-buffer room is
    /// free (window); nothing for an end that does not receive.
    pub fn read(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        match self {
            AnyTransport::Tcp(t) => t.read(now, bytes, out),
        }
    }
    /// In-order bytes delivered to the application so far (0 for an end that does not
    /// receive).
    pub fn delivered(&self) -> u64 {
        match self {
            AnyTransport::Tcp(t) => t.delivered(),
        }
    }
    /// The TCP end, if this is TCP.
    pub fn tcp(&self) -> Option<&TcpEnd> {
        match self {
            AnyTransport::Tcp(t) => Some(t),
        }
    }
}
