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
//!   IP MTU, [`udp::UdpEnd`] (a [`udp::UdpSender`] and/or a [`udp::UdpReceiver`]).
//!
//! The host layer (`crate::host`) puts each transport end under a socket; applications see
//! sockets only, never a transport.

pub mod tcp;
pub mod udp;
pub mod xtpx;

use crate::time::SimTime;
use crate::wire::SegHdr;
use tcp::{TcpEnd, TcpSender};
use udp::UdpEnd;
use xtpx::{XtpxEnd, XtpxSender};

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

/// The frames of one transport connection that are between its two ends at one instant, for
/// the summary's accounting (`sim/accounting.rs`): in the sending host's CPU queue, in the
/// network (by their end-of-frame cell: the source shaper, a queue, a link, a fabric), or in
/// the receiving host's CPU queue or receive buffer. Each is (CPCS-SDU bytes, transport
/// header); a frame whose end-of-frame cell was lost is in neither list.
#[derive(Clone, Copy, Debug, Default)]
pub struct InTransit<'a> {
    /// The frames this end sent, on their way to the far end.
    pub out: &'a [(u32, SegHdr)],
    /// The frames the far end sent, on their way to this end.
    pub back: &'a [(u32, SegHdr)],
}

/// One direction of a stream transport connection, bytes, each a count from the connection's
/// start: what the sending application handed the transport (`taken`: its writes, or for a
/// file the bytes as they are first sent), what the receiving transport delivered in order to
/// its application (`delivered`), what it will never deliver (`lost`: XTPX without error
/// control; a reliable transport loses nothing), and the rest, between the two (`in_network`:
/// the send buffer, frames in the hosts and the network, out-of-order data held by the
/// receiver). `taken = delivered + lost + in_network` exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamBytes {
    pub taken: u64,
    pub delivered: u64,
    pub lost: u64,
    pub in_network: u64,
}

/// What a transport's summary says of one connection (the engine puts it under the
/// connection's `tcp` / `xtpx` key without knowing which).
#[derive(Clone, Debug)]
pub enum TransportSummary {
    Tcp(crate::metrics::TcpSummary),
    Xtpx(crate::metrics::XtpxSummary),
}

impl TransportSummary {
    /// Only `share` of the VC's cells carry the transport's frames (an ABR VC's RM cells take
    /// the rest, (Nrm - 1) / Nrm): the largest payload fraction is that much smaller.
    pub fn data_share(&mut self, share: f64) {
        match self {
            TransportSummary::Tcp(t) => t.max_payload_fraction *= share,
            TransportSummary::Xtpx(x) => x.max_payload_fraction *= share,
        }
    }
}

/// The series tables of the transports' senders, in the order of [`AnyTransport::probe`]'s
/// table index.
pub const TABLES: [&crate::metrics::TableDecl; 2] = [&TcpSender::PROBES, &XtpxSender::PROBES];

/// Every transport, one variant each.
#[derive(Clone, Debug)]
pub enum AnyTransport {
    Tcp(Box<TcpEnd>),
    Xtpx(Box<XtpxEnd>),
    Udp(Box<UdpEnd>),
}

/// `match` over the variants with the same expression for each.
macro_rules! each {
    ($self:expr, |$t:ident| $body:expr) => {
        match $self {
            AnyTransport::Tcp($t) => $body,
            AnyTransport::Xtpx($t) => $body,
            AnyTransport::Udp($t) => $body,
        }
    };
}

impl AnyTransport {
    /// See [`Transport::next_timer`].
    pub fn next_timer(&self) -> Option<SimTime> {
        each!(self, |t| t.next_timer())
    }
    /// See [`Transport::on_timer`].
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        each!(self, |t| t.on_timer(now, out))
    }
    /// See [`Transport::on_frame`].
    pub fn on_frame(&mut self, now: SimTime, sdu: u32, seg: SegHdr, out: &mut impl SegmentOut) {
        each!(self, |t| t.on_frame(now, sdu, seg, out))
    }
    /// The application writes `bytes` (one TSDU; over UDP one message) to this end; nothing for
    /// an end that does not send.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        each!(self, |t| t.write(now, bytes, out))
    }
    /// Bytes written and not yet acknowledged (0 for an end that does not send, and for UDP,
    /// which keeps nothing once sent).
    pub fn send_buffered(&self) -> u64 {
        match self {
            AnyTransport::Tcp(t) => t.send_buffered(),
            AnyTransport::Xtpx(t) => t.send_buffered(),
            AnyTransport::Udp(_) => 0,
        }
    }
    /// The application read `bytes` delivered to it: for TCP their receive-buffer room is
    /// free (window); nothing for an end that does not receive.
    pub fn read(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        match self {
            AnyTransport::Tcp(t) => t.read(now, bytes, out),
            // XTPX's window is the receiver's allocation, not the application's reads; UDP
            // has no window
            AnyTransport::Xtpx(_) | AnyTransport::Udp(_) => {}
        }
    }
    /// In-order bytes delivered to the application so far (0 for an end that does not
    /// receive; over UDP the payload of complete messages).
    pub fn delivered(&self) -> u64 {
        each!(self, |t| t.delivered())
    }
    /// The transport's name in the summary.
    pub fn name(&self) -> &'static str {
        match self {
            AnyTransport::Tcp(_) => "tcp",
            AnyTransport::Xtpx(_) => "xtpx",
            AnyTransport::Udp(_) => "udp",
        }
    }
    /// A datagram transport: messages, not a byte stream ([`AnyTransport::take_message`]).
    pub fn is_datagram(&self) -> bool {
        matches!(self, AnyTransport::Udp(_))
    }
    /// The oldest complete message not yet taken by the application (datagram transports).
    pub fn take_message(&mut self) -> Option<(u32, u32)> {
        match self {
            AnyTransport::Udp(t) => t.take_message(),
            _ => None,
        }
    }
    /// Header bytes in each frame's CPCS-SDU that the host does not count as data (its per-byte
    /// costs, docs/hosts.md). XTPX is charged TCP/IP's 48 bytes, as it was before transports
    /// had this hook (its own header is `XtpxParams::header_bytes`; kept so results stay).
    pub fn header_bytes(&self) -> u32 {
        match self {
            AnyTransport::Tcp(_) | AnyTransport::Xtpx(_) => tcp::TCP_IP_LLC_BYTES,
            AnyTransport::Udp(_) => udp::HEADER_BYTES,
        }
    }
    /// The frame with header `seg` this end sent is the first packet of an application message
    /// (datagram transports; a stream has no message boundaries on the wire).
    pub fn first_of_message(&self, seg: SegHdr) -> bool {
        matches!(self, AnyTransport::Udp(_)) && UdpEnd::first_of_message(seg)
    }
    /// Datagrams sent (0 for other transports).
    pub fn datagrams_sent(&self) -> u64 {
        match self {
            AnyTransport::Udp(t) => t.datagrams_sent(),
            _ => 0,
        }
    }
    /// The application reads the data itself (the host model): a TCP receiver's window is
    /// then its free receive buffer and it sends BSD's window update when a read opens it.
    pub fn set_app_reads(&mut self) {
        if let AnyTransport::Tcp(t) = self {
            if let Some(r) = &mut t.receiver {
                r.app_reads = true;
            }
        }
    }
    /// Before an application's write after a pause: see [`TcpEnd::restart_window`] (TCP only).
    pub fn restart_window(
        &mut self,
        fresh: bool,
        idle_since: Option<SimTime>,
        quiet_since: Option<SimTime>,
        now: SimTime,
    ) {
        if let AnyTransport::Tcp(t) = self {
            t.restart_window(fresh, idle_since, quiet_since, now);
        }
    }
    /// The counters at the end of the warm-up, kept for the summary.
    pub fn mark_warmup(&mut self) {
        match self {
            AnyTransport::Tcp(t) => t.mark_warmup(),
            AnyTransport::Xtpx(t) => t.mark_warmup(),
            AnyTransport::Udp(_) => {}
        }
    }
    /// The congestion window and slow-start threshold of this end's sender, bytes (the trace's
    /// segment rows); None for an end without a window-based congestion control.
    pub fn window(&self) -> Option<(u64, u64)> {
        match self {
            AnyTransport::Tcp(t) => t.sender.as_ref().map(|s| (s.cwnd, s.ssthresh)),
            AnyTransport::Xtpx(_) | AnyTransport::Udp(_) => None,
        }
    }
    /// This end's row in its sender's series table (index into [`TABLES`]), if it sends.
    pub fn probe<'a>(&self, row: impl FnOnce(usize) -> crate::metrics::Row<'a>) {
        match self {
            AnyTransport::Tcp(t) => {
                if let Some(s) = &t.sender {
                    s.probe(row(0));
                }
            }
            AnyTransport::Xtpx(t) => {
                if let Some(s) = &t.sender {
                    s.probe(row(1));
                }
            }
            AnyTransport::Udp(_) => {}
        }
    }
    /// The bytes of this end's direction from the start ([`StreamBytes`]), `rx` the far end
    /// and `out` this end's frames on their way; None for an end that does not send and for a
    /// datagram transport (its application counts messages).
    pub fn stream(&self, rx: Option<&AnyTransport>, out: &[(u32, SegHdr)]) -> Option<StreamBytes> {
        match self {
            AnyTransport::Tcp(t) => {
                let r = match rx {
                    Some(AnyTransport::Tcp(r)) => r.receiver.as_ref(),
                    _ => None,
                };
                Some(tcp::summary::tcp_stream(t.sender.as_ref()?, r))
            }
            AnyTransport::Xtpx(t) => {
                let r = match rx {
                    Some(AnyTransport::Xtpx(r)) => r.receiver.as_ref(),
                    _ => None,
                };
                Some(xtpx::summary::xtpx_stream(t.sender.as_ref()?, r, out))
            }
            AnyTransport::Udp(_) => None,
        }
    }
    /// The message numbers this end's sender holds that are not yet handed to AAL5 (datagram
    /// transports; nothing for the others).
    pub fn messages_queued(&self) -> Vec<u32> {
        match self {
            AnyTransport::Udp(t) => t.messages_queued(),
            _ => Vec::new(),
        }
    }
    /// The message numbers complete at this end and not yet taken by its application
    /// (datagram transports; nothing for the others).
    pub fn messages_waiting(&self) -> Vec<u32> {
        match self {
            AnyTransport::Udp(t) => t.messages_waiting(),
            _ => Vec::new(),
        }
    }
    /// The summary of the connection this end sends on, with `rx` the far end (the same
    /// transport, if any) and `out` this end's frames on their way, over `window_s` seconds;
    /// None for an end that does not send or a transport without a summary section (UDP: the
    /// application's results say it).
    pub fn summary(
        &self,
        rx: Option<&AnyTransport>,
        window_s: f64,
        out: &[(u32, SegHdr)],
    ) -> Option<TransportSummary> {
        match (self, rx) {
            (AnyTransport::Tcp(t), rx) => {
                let r = match rx {
                    Some(AnyTransport::Tcp(r)) => r.receiver.as_ref(),
                    _ => None,
                };
                let s = t.sender.as_ref()?;
                Some(TransportSummary::Tcp(tcp::tcp_summary(s, r, window_s)))
            }
            (AnyTransport::Xtpx(t), rx) => {
                let r = match rx {
                    Some(AnyTransport::Xtpx(r)) => r.receiver.as_ref(),
                    _ => None,
                };
                let s = t.sender.as_ref()?;
                Some(TransportSummary::Xtpx(xtpx::xtpx_summary(
                    s, r, window_s, out,
                )))
            }
            (AnyTransport::Udp(_), _) => None,
        }
    }
}
