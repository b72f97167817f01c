//! The endpoint's model: [`AnySource`], the closed enum over every application model, ABR end
//! system and TCP end, matched in one place (the smoltcp `AnyController` pattern), so adding a
//! model adds a variant here and touches no engine code. Moved from `traffic.rs`: it names ABR
//! and TCP types, so it lives above the application layer.
//!
//! Also here: the endpoint's outbox ([`Ctx`]) as the [`SegmentOut`] a transport writes its
//! AAL5 frames to, which joins a transport to its endpoint without either layer knowing the
//! other.

use crate::abr::{AbrDest, AbrSource};
use crate::app::{AnyApp, Application, Ctx};
use crate::host::stream::StreamWriter;
use crate::host::video::{VideoReceiver, VideoSender};
use crate::host::video_tcp_rx::TcpVideoReceiver;
use crate::host::video_tcp_tx::TcpVideoSender;
use crate::host::workload::WorkloadHost;
use crate::time::SimTime;
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::xtpx::{XtpxReceiver, XtpxSender};
use crate::transport::{AnyTransport, SegmentOut};
use crate::wire::{Cell, SegHdr};

impl SegmentOut for Ctx<'_> {
    fn room(&self) -> bool {
        !self.out.frames.is_full()
    }
    fn frame(&mut self, sdu: u32, seg: SegHdr) {
        self.out.frames.push((sdu, seg));
    }
}

/// Every endpoint model: an application sending cells, the ABR end systems (which may carry an
/// application or a TCP sender as their feed) and the transport ends.
#[derive(Clone, Debug)]
pub enum AnySource {
    /// An application's cells straight onto the flow (crate::app).
    App(AnyApp),
    /// TM 4.0 ABR source end system (crate::abr).
    Abr(Box<AbrSource>),
    /// TM 4.0 ABR destination end system (crate::abr).
    AbrDest(AbrDest),
    /// One end of a transport connection (crate::transport): frames in, frames out.
    Transport(AnyTransport),
    /// A video stream's sender: a trace player over UDP (seed 004, `host/video.rs`).
    VideoTx(Box<VideoSender>),
    /// A video stream's receiver: UDP reassembly and frame metrics.
    VideoRx(Box<VideoReceiver>),
    /// One end of a workload script over K transport connections (`host/workload.rs`).
    Workload(Box<WorkloadHost>),
    /// A video stream's sender over TCP: a trace player writing to a socket (`host/video_tcp_tx.rs`).
    VideoTcpTx(Box<TcpVideoSender>),
    /// A video stream's receiver over TCP: frames from the byte stream, frame metrics.
    VideoTcpRx(Box<TcpVideoReceiver>),
    /// A bulk application writing TSDUs of one size through a socket (`host/stream.rs`).
    Stream(Box<StreamWriter>),
}

impl AnySource {
    /// An endpoint that sends nothing.
    pub const IDLE: AnySource = AnySource::App(AnyApp::Idle);
}

fn transport_timer(ctx: &mut Ctx, t: Option<SimTime>) {
    if let Some(t) = t {
        ctx.set_timer(t.max(ctx.now));
    }
}

impl Application for AnySource {
    fn start(&mut self, ctx: &mut Ctx) {
        match self {
            AnySource::App(a) => a.start(ctx),
            AnySource::Abr(s) => s.start(ctx),
            AnySource::AbrDest(s) => s.start(ctx),
            AnySource::Transport(t) => transport_timer(ctx, t.next_timer()),
            AnySource::VideoTx(v) => v.start(ctx),
            AnySource::VideoRx(_) => {}
            AnySource::Workload(w) => w.start(ctx),
            AnySource::VideoTcpTx(v) => v.start(ctx),
            AnySource::VideoTcpRx(_) => {}
            AnySource::Stream(w) => w.start(ctx),
        }
    }
    #[inline]
    fn on_timer(&mut self, ctx: &mut Ctx) {
        match self {
            AnySource::App(a) => a.on_timer(ctx),
            AnySource::Abr(s) => s.on_timer(ctx),
            AnySource::AbrDest(s) => s.on_timer(ctx),
            AnySource::Transport(t) => {
                t.on_timer(ctx.now, ctx);
                transport_timer(ctx, t.next_timer());
            }
            AnySource::VideoTx(v) => v.on_timer(ctx),
            AnySource::VideoRx(_) => {}
            AnySource::Workload(w) => w.on_timer(ctx),
            AnySource::VideoTcpTx(v) => v.on_timer(ctx),
            AnySource::VideoTcpRx(v) => v.on_timer(ctx),
            AnySource::Stream(w) => w.on_timer(ctx),
        }
    }
    fn on_cell(&mut self, ctx: &mut Ctx, cell: &Cell) {
        match self {
            AnySource::App(a) => a.on_cell(ctx, cell),
            AnySource::Abr(s) => s.on_cell(ctx, cell),
            AnySource::AbrDest(s) => s.on_cell(ctx, cell),
            AnySource::Transport(_)
            | AnySource::VideoTx(_)
            | AnySource::VideoRx(_)
            | AnySource::Workload(_)
            | AnySource::VideoTcpTx(_)
            | AnySource::VideoTcpRx(_)
            | AnySource::Stream(_) => {}
        }
    }
    fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, seg: SegHdr) {
        match self {
            AnySource::App(a) => a.on_frame(ctx, sdu, seg),
            AnySource::Abr(s) => s.on_frame(ctx, sdu, seg),
            AnySource::AbrDest(s) => s.on_frame(ctx, sdu, seg),
            AnySource::Transport(t) => {
                t.on_frame(ctx.now, sdu, seg, ctx);
                transport_timer(ctx, t.next_timer());
            }
            AnySource::VideoTx(_) => {}
            AnySource::VideoRx(v) => v.on_frame(ctx, sdu, seg),
            AnySource::Workload(w) => w.on_frame(ctx, sdu, seg),
            AnySource::VideoTcpTx(v) => v.on_frame(ctx, sdu, seg),
            AnySource::VideoTcpRx(v) => v.on_frame(ctx, sdu, seg),
            AnySource::Stream(w) => w.on_frame(ctx, sdu, seg),
        }
    }
}

/// An application attached to the sending end of a flow.
///
/// `repr(C, align(64))` (issue 13): what a timer event and an emission read (the flow, the
/// pending timer, the application's state) lies in the endpoint's first two cache lines, the
/// warm-up marks and the random stream after them (16 bytes: the generator is made at the first
/// draw, which deterministic sources never make).
#[repr(C, align(64))]
pub struct Endpoint {
    pub flow: u32,
    /// The transport connection within the flow's VC this endpoint sends as
    /// ([`crate::wire::SegHdr::conn`]; 0 unless the VC carries a bundle).
    pub conn: u16,
    pub(crate) timer_at: Option<SimTime>,
    pub app: AnySource,
    /// ABR sources: the ACR integral at the end of warm-up.
    pub(crate) acr_mark: f64,
    /// TCP: the sender's counters, the receiver's in-order bytes at the end of warm-up.
    pub(crate) tcp_mark: Option<Box<(crate::transport::tcp::TcpStats, u64)>>,
    pub(crate) rng: crate::rng::LazyRng,
}

pub fn tcp_sender(app: &AnySource) -> Option<&TcpSender> {
    match app {
        AnySource::Transport(t) => t.tcp()?.sender.as_ref(),
        AnySource::Stream(w) => w.socket.transport.tcp()?.sender.as_ref(),
        AnySource::Abr(a) => a.tcp(),
        AnySource::VideoTcpTx(v) => v.socket.transport.tcp()?.sender.as_ref(),
        _ => None,
    }
}

pub fn tcp_receiver(app: &AnySource) -> Option<&TcpReceiver> {
    match app {
        AnySource::Transport(t) => t.tcp()?.receiver.as_ref(),
        AnySource::Stream(w) => w.socket.transport.tcp()?.receiver.as_ref(),
        AnySource::AbrDest(d) => d.tcp.as_deref(),
        AnySource::VideoTcpRx(v) => v.socket.transport.tcp()?.receiver.as_ref(),
        _ => None,
    }
}

pub fn xtpx_sender(app: &AnySource) -> Option<&XtpxSender> {
    match app {
        AnySource::Transport(t) => t.xtpx()?.sender.as_ref(),
        _ => None,
    }
}

pub fn xtpx_receiver(app: &AnySource) -> Option<&XtpxReceiver> {
    match app {
        AnySource::Transport(t) => t.xtpx()?.receiver.as_ref(),
        _ => None,
    }
}

/// The summary of the video stream sent on a flow, if it is one: its sender is one of `eps`
/// (the endpoints sending on the flow) and its receiver `rx` (the flow's receiving endpoint).
pub fn video_ends<'a>(
    eps: impl IntoIterator<Item = &'a Endpoint>,
    rx: Option<&Endpoint>,
) -> Option<crate::metrics::VideoSummary> {
    let rx = &rx?.app;
    eps.into_iter().find_map(|e| match (&e.app, rx) {
        (AnySource::VideoTx(t), AnySource::VideoRx(r)) => {
            Some(crate::host::video::video_summary(t, r))
        }
        (AnySource::VideoTcpTx(t), AnySource::VideoTcpRx(r)) => {
            Some(crate::host::video_tcp_rx::video_summary(t, r))
        }
        _ => None,
    })
}

/// The host model's view of an endpoint (`sim/host.rs`): how it uses its host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostUse {
    /// Not through the host's protocol stack (cell-level applications, ABR end systems): the
    /// host model does not apply.
    None,
    /// A stream (TCP) socket: header bytes per packet.
    Stream,
    /// A datagram (UDP) socket: received datagrams wait in the receive buffer for a read.
    Datagram,
}

/// How endpoint model `app` uses its host, and the transport header bytes of its packets.
pub fn host_use(app: &AnySource) -> (HostUse, u32) {
    use crate::transport::{tcp::TCP_IP_LLC_BYTES, udp::HEADER_BYTES};
    match app {
        AnySource::Transport(_)
        | AnySource::Stream(_)
        | AnySource::Workload(_)
        | AnySource::VideoTcpTx(_)
        | AnySource::VideoTcpRx(_) => (HostUse::Stream, TCP_IP_LLC_BYTES),
        AnySource::VideoTx(_) | AnySource::VideoRx(_) => (HostUse::Datagram, HEADER_BYTES),
        AnySource::App(_) | AnySource::Abr(_) | AnySource::AbrDest(_) => (HostUse::None, 0),
    }
}

/// The stream writer of an endpoint, if it is one.
pub fn stream_writer_mut(app: &mut AnySource) -> Option<&mut StreamWriter> {
    match app {
        AnySource::Stream(w) => Some(w),
        _ => None,
    }
}

/// Call `f` with each socket of the application and its connection number (the workload's
/// sockets are its K connections; the others have one, number 0). None: it has no socket.
pub fn each_socket(app: &mut AnySource, mut f: impl FnMut(u16, &mut crate::host::Socket)) -> bool {
    match app {
        AnySource::Stream(w) => f(0, &mut w.socket),
        AnySource::VideoTcpTx(v) => f(0, &mut v.socket),
        AnySource::VideoTcpRx(v) => f(0, &mut v.socket),
        AnySource::Workload(w) => {
            for (k, c) in w.conns.iter_mut().enumerate() {
                f(k as u16, &mut c.sock);
            }
        }
        _ => return false,
    }
    true
}

/// The engine served a system call of one of the application's sockets (granted there): the
/// application goes on with what it was doing.
pub fn wake(app: &mut AnySource, ctx: &mut Ctx) {
    match app {
        AnySource::Stream(w) => w.wake(ctx),
        AnySource::VideoTcpTx(v) => v.wake(ctx),
        AnySource::VideoTcpRx(v) => v.read_more(ctx),
        AnySource::Workload(w) => w.wake(ctx),
        _ => {}
    }
}

/// A video sender's keep-up log and frame interval (ps), over UDP or TCP.
pub fn video_keep_up(
    app: &AnySource,
    udp_log: crate::host::video::SendLog,
) -> Option<(crate::host::video::SendLog, f64)> {
    match app {
        AnySource::VideoTx(v) => Some((udp_log, v.player.interval_ps())),
        AnySource::VideoTcpTx(v) => Some((v.log, v.player.interval_ps())),
        _ => None,
    }
}

/// The socket a video sender over TCP writes to, if the endpoint is one (its send buffer is
/// the host model's).
pub fn video_tcp_socket_mut(app: &mut AnySource) -> Option<&mut crate::host::Socket> {
    match app {
        AnySource::VideoTcpTx(v) => Some(&mut v.socket),
        _ => None,
    }
}

/// The video sender of an endpoint, if it is one.
pub fn video_sender(app: &AnySource) -> Option<&VideoSender> {
    match app {
        AnySource::VideoTx(v) => Some(v),
        _ => None,
    }
}

/// The TCP receiver of a transport endpoint, if it has one.
pub fn tcp_receiver_mut(app: &mut AnySource) -> Option<&mut TcpReceiver> {
    match app {
        AnySource::Transport(AnyTransport::Tcp(t)) => t.receiver.as_mut(),
        _ => None,
    }
}

/// The application above a transport endpoint reads everything delivered to it (the host
/// model's read system call); nothing for other endpoints.
pub fn read_all(app: &mut AnySource, ctx: &mut Ctx) {
    if let AnySource::Transport(t) = app {
        t.read(ctx.now, u64::MAX, ctx);
    }
}
