//! Applications: the traffic models at the ends of a connection, and the interface between an
//! application and its endpoint.
//!
//! An application sits at one end of a flow. The engine calls it through [`Application`]
//! (start, timer, cells received) with a [`Ctx`] holding the time, the endpoint's own random
//! stream and an outbox; the application asks for cells to be sent and for its next timer
//! ([`Asks`]).
//!
//! Extension point: [`AnyApp`] lists the application models, one variant each, and forwards
//! the [`Application`] hooks with one `match` per hook (the smoltcp `AnyController` pattern).
//! A new model (a frame-trace player, a scripted workload) is its own file here, one variant
//! below, and its scenario section. An application may also sit above a VC's ABR rate control
//! (`crate::host::abr_end`); the endpoint enum above the layers is
//! [`crate::host::AnySource`]. This layer knows neither hosts, transports nor ABR.
//!
//! Models: [`cbr`] (evenly spaced cells; persistent sources at their peak rate), [`onoff`]
//! (seed 000 section 7.2, seed 002), [`mpeg2`] (the MPEG-2 transport-stream VBR model of seed
//! 000 section 4). Moved from `traffic.rs` and `video.rs`.

pub mod cbr;
pub mod echo;
pub mod mpeg2;
pub mod onoff;
pub mod reader;
pub mod script;
pub mod video;
pub mod video_rx;
pub mod video_tx;
pub mod workload;
pub mod writer;

pub use cbr::Cbr;
pub use onoff::OnOff;

use crate::rng::LazyRng;
use crate::time::SimTime;
use crate::wire::{Cell, SegHdr};
use arrayvec::ArrayVec;

/// What an application sees during one call, and the outbox it writes its asks into.
pub struct Ctx<'a> {
    /// The current simulated time.
    pub now: SimTime,
    /// This endpoint's random stream (made at its first draw; it passes as `&mut Rng`).
    pub rng: &'a mut LazyRng,
    /// What this call asks for (owned by the caller, so the engine reads it without a copy).
    pub(crate) out: &'a mut Asks,
}

/// What an application asked for in one call (see [`Ctx`]).
#[derive(Default)]
pub struct Asks {
    pub cell: Option<Cell>,
    pub send: u32,
    pub timer: Option<SimTime>,
    /// Whole AAL5 frames to send: (CPCS-SDU bytes, transport header).
    pub frames: ArrayVec<(u32, SegHdr), FRAMES_PER_CALL>,
    /// One cell of a frame, paced by its sender (an ABR source carrying TCP): (index within
    /// the frame, or the SDU length on the end-of-frame cell; end of frame; transport header).
    pub frame_cell: Option<(u16, bool, SegHdr)>,
}

impl Asks {
    pub fn is_empty(&self) -> bool {
        self.cell.is_none()
            && self.send == 0
            && self.timer.is_none()
            && self.frames.is_empty()
            && self.frame_cell.is_none()
    }
}

/// Frames an application can hand over in one call; a transport with more to send asks to be
/// called again at once (no allocation per call).
pub const FRAMES_PER_CALL: usize = 16;

impl<'a> Ctx<'a> {
    /// A call at `now` with the endpoint's stream `rng`, writing its asks into `out` (which
    /// should be empty: `Asks::default()`).
    pub fn new(now: SimTime, rng: &'a mut LazyRng, out: &'a mut Asks) -> Self {
        Ctx { now, rng, out }
    }
    /// Send one cell built by the application (an RM cell, say) before any data cells; the
    /// engine fills in the flow, creation time and route position. One per call.
    pub fn send_cell(&mut self, cell: Cell) {
        debug_assert!(self.out.cell.is_none(), "one explicit cell per call");
        self.out.cell = Some(cell);
    }
    /// The explicit cell requested in this call.
    pub fn cell_requested(&self) -> Option<Cell> {
        self.out.cell
    }
    /// Send `n` cells on this endpoint's flow now (framed by the flow's AAL5 settings).
    pub fn send_cells(&mut self, n: u32) {
        self.out.send += n;
    }
    /// Ask to be called again at `t` (replaces any earlier request).
    pub fn set_timer(&mut self, t: SimTime) {
        self.out.timer = Some(t);
    }
    /// Cells requested so far in this call.
    pub fn cells_requested(&self) -> u32 {
        self.out.send
    }
    /// The timer requested in this call.
    pub fn timer_requested(&self) -> Option<SimTime> {
        self.out.timer
    }
    /// Send one cell of a variable-length frame (see `frame_cell`). One per call.
    pub fn send_frame_cell(&mut self, len_or_index: u16, eof: bool, seg: SegHdr) {
        debug_assert!(self.out.frame_cell.is_none(), "one frame cell per call");
        self.out.frame_cell = Some((len_or_index, eof, seg));
    }
    /// True when this call asked the engine for anything.
    pub fn wants_anything(&self) -> bool {
        !self.out.is_empty()
    }
}

/// What an application over sockets sees in one call (ns-3's `Socket` under its
/// `Application`, smoltcp's sockets under its applications): the time, its random stream, and
/// its sockets, numbered from 0 (socket k is transport connection k of the VC's bundle). It
/// never sees which transport is below: a write is one TSDU (over a datagram transport one
/// message), a read consumes delivered bytes (over a datagram transport the application takes
/// whole messages). The host layer (`crate::host`) implements it.
pub trait Io {
    /// The current simulated time.
    fn now(&self) -> SimTime;
    /// The endpoint's random stream.
    fn rng(&mut self) -> &mut crate::rng::Rng;
    /// Number of sockets.
    fn sockets(&self) -> usize;
    /// Write `bytes` (one TSDU or message, or the rest of one begun) to socket `k`; returns the
    /// bytes accepted (0 while a system call waits for the host's CPU or the buffer is full).
    fn write(&mut self, k: u16, bytes: u64) -> u64;
    /// Free room in socket `k`'s send buffer, bytes.
    fn send_room(&self, k: u16) -> u64;
    /// Bytes written to socket `k` and not yet acknowledged.
    fn send_buffered(&self, k: u16) -> u64;
    /// A write system call on socket `k` waits for the host's CPU.
    fn write_waiting(&self, k: u16) -> bool;
    /// Bytes delivered in order on socket `k` and not yet read.
    fn readable(&self, k: u16) -> u64;
    /// Read up to `bytes` from socket `k`; returns the bytes read.
    fn read(&mut self, k: u16, bytes: u64) -> u64;
    /// Socket `k` carries messages (datagrams), not a byte stream.
    fn is_datagram(&self, k: u16) -> bool;
    /// Take the oldest complete message of datagram socket `k`: (message number, bytes).
    fn take_message(&mut self, k: u16) -> Option<(u32, u32)>;
    /// When the last frame arrived on socket `k` (BSD resets `t_idle` on every segment).
    fn last_rx(&self, k: u16) -> SimTime;
    /// Before a write after a pause (a socket option of the transport; TCP restarts its
    /// window as a new connection would, `fresh`, or after idle: see `TcpEnd::restart_window`).
    fn restart_window(
        &mut self,
        k: u16,
        fresh: bool,
        idle_since: Option<SimTime>,
        quiet_since: Option<SimTime>,
    );
}

/// The hooks every application model implements; defaults do nothing. A cell-level
/// application uses the first four (through [`Ctx`]); an application over sockets the
/// `sock_*` ones (through [`Io`]) and [`Application::next_timer`].
pub trait Application {
    /// Called once at time 0.
    fn start(&mut self, _ctx: &mut Ctx) {}
    /// Called when the timer it asked for fires.
    fn on_timer(&mut self, _ctx: &mut Ctx) {}
    /// Called for each cell that reaches this endpoint (feedback, acknowledgements).
    fn on_cell(&mut self, _ctx: &mut Ctx, _cell: &Cell) {}
    /// Called after `on_cell` when the cell completed an intact AAL5 frame of `sdu` bytes with
    /// transport header `seg`.
    fn on_frame(&mut self, _ctx: &mut Ctx, _sdu: u32, _seg: SegHdr) {}
    /// Whether `on_cell` and `on_frame` ask for nothing and change nothing that anything reads
    /// before the end of the run: then the cells reaching it may be delivered without an event
    /// each, at their arrival times, later (`sim/sink.rs`). A model that overrides either hook
    /// answers false.
    fn passive_rx(&self) -> bool {
        false
    }

    /// Over sockets: called once at time 0.
    fn sock_start(&mut self, _io: &mut impl Io) {}
    /// Over sockets: its own deadline or a socket's has come (the sockets' timers have run).
    fn sock_timer(&mut self, _io: &mut impl Io) {}
    /// Over sockets: a frame reached socket `k` (data delivered, or an acknowledgement that
    /// freed send room).
    fn sock_event(&mut self, _io: &mut impl Io, _k: u16) {}
    /// Over sockets: the host's CPU served a system call of socket `k`: go on.
    fn sock_wake(&mut self, io: &mut impl Io, k: u16) {
        self.sock_event(io, k)
    }
    /// Over sockets: the first packet of a message it wrote left the host (datagram sockets;
    /// `warm`: after warm-up).
    fn message_out(&mut self, _now: SimTime, _warm: bool) {}
    /// Over sockets: the application's own next deadline (the host adds its sockets').
    fn next_timer(&self) -> Option<SimTime> {
        None
    }
    /// Over sockets: the application reads what arrives (the host's TCP then advertises its
    /// free receive buffer and sends window updates when reads open it).
    fn reads(&self) -> bool {
        false
    }
    /// Over sockets: the connection's transport section belongs in the summary (false when
    /// the application's own section says it all: the workload runner).
    fn transport_section(&self) -> bool {
        true
    }
    /// The application's own sections of its connection's summary, given the application
    /// at the far end (`peer`) and what the sockets add (`socks`).
    fn sections(&self, _peer: Option<&AnyApp>, _socks: &SocketFacts) -> AppSections {
        AppSections::default()
    }
    /// Seed 004's keep-up log of a video sender: the log and the frame interval, ps.
    fn keep_up(&self) -> Option<(SendLog, f64)> {
        None
    }
}

/// What the host tells an application's summary of its sockets (the summary's accounting,
/// docs/model.md: what is on its way is not lost).
#[derive(Clone, Debug, Default)]
pub struct SocketFacts {
    /// Socket 0's transport's name ("tcp", "xtpx", "udp").
    pub transport: &'static str,
    /// Socket 0 is a datagram socket.
    pub datagram: bool,
    /// Datagrams sent (datagram sockets).
    pub datagrams_sent: u64,
    /// Datagram sockets: the numbers of socket 0's messages on their way to the far
    /// application (waiting in the transport, in the hosts' CPU queues or receive buffer, in
    /// the network, or complete and not yet taken); a message may appear more than once.
    pub messages_in_transit: Vec<u32>,
    /// Stream sockets: bytes the transports will never deliver, every socket, both ways (0 for
    /// a reliable transport).
    pub stream_bytes_lost: u64,
}

/// An application's own sections of its connection's summary.
#[derive(Clone, Debug, Default)]
pub struct AppSections {
    pub video: Option<crate::metrics::VideoSummary>,
    pub workload: Option<crate::metrics::workload::WorkloadSummary>,
    /// Any other application's sections, by name (`summary.json` shows them under the
    /// connection as they serialize).
    pub other: Vec<(&'static str, serde_json::Value)>,
}

/// A video sender's log for seed 004's keep-up rule: frames whose first packet was handed to
/// the adapter (datagrams) or whose write took effect (a stream, docs/hosts.md), and the first
/// and last such times.
#[derive(Clone, Copy, Debug, Default)]
pub struct SendLog {
    pub frames: u64,
    pub first: SimTime,
    pub last: SimTime,
}

impl SendLog {
    /// Count a frame at `now`.
    pub fn record(&mut self, now: SimTime) {
        if self.frames == 0 {
            self.first = now;
        }
        self.frames += 1;
        self.last = now;
    }
    /// Mean send time per frame (seed 004 section 4.1: "the time the first packet of a frame
    /// is transmitted to the time the first packet from the next consecutive frame is
    /// transmitted", averaged), ps; None below two frames.
    pub fn mean_send_ps(&self) -> Option<f64> {
        (self.frames >= 2).then(|| (self.last - self.first) as f64 / (self.frames - 1) as f64)
    }
}

/// Declares [`AnyApp`], the list of every application model (one line each), and forwards
/// every [`Application`] hook to the variant with one `match` each.
macro_rules! applications {
    ($( $(#[$doc:meta])* $v:ident($t:ty), )*) => {
        /// Every application model.
        #[derive(Clone, Debug)]
        pub enum AnyApp {
            /// Sends nothing.
            Idle,
            $( $(#[$doc])* $v($t), )*
        }

        impl Application for AnyApp {
            fn start(&mut self, ctx: &mut Ctx) {
                match self { AnyApp::Idle => {}, $( AnyApp::$v(a) => a.start(ctx), )* }
            }
            #[inline]
            fn on_timer(&mut self, ctx: &mut Ctx) {
                match self { AnyApp::Idle => {}, $( AnyApp::$v(a) => a.on_timer(ctx), )* }
            }
            fn on_cell(&mut self, ctx: &mut Ctx, cell: &Cell) {
                match self { AnyApp::Idle => {}, $( AnyApp::$v(a) => a.on_cell(ctx, cell), )* }
            }
            fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, seg: SegHdr) {
                match self { AnyApp::Idle => {}, $( AnyApp::$v(a) => a.on_frame(ctx, sdu, seg), )* }
            }
            fn passive_rx(&self) -> bool {
                match self { AnyApp::Idle => true, $( AnyApp::$v(a) => a.passive_rx(), )* }
            }
            fn sock_start(&mut self, io: &mut impl Io) {
                match self { AnyApp::Idle => {}, $( AnyApp::$v(a) => a.sock_start(io), )* }
            }
            fn sock_timer(&mut self, io: &mut impl Io) {
                match self { AnyApp::Idle => {}, $( AnyApp::$v(a) => a.sock_timer(io), )* }
            }
            fn sock_event(&mut self, io: &mut impl Io, k: u16) {
                match self { AnyApp::Idle => {}, $( AnyApp::$v(a) => a.sock_event(io, k), )* }
            }
            fn sock_wake(&mut self, io: &mut impl Io, k: u16) {
                match self { AnyApp::Idle => {}, $( AnyApp::$v(a) => a.sock_wake(io, k), )* }
            }
            fn message_out(&mut self, now: SimTime, warm: bool) {
                match self { AnyApp::Idle => {}, $( AnyApp::$v(a) => a.message_out(now, warm), )* }
            }
            fn next_timer(&self) -> Option<SimTime> {
                match self { AnyApp::Idle => None, $( AnyApp::$v(a) => a.next_timer(), )* }
            }
            fn reads(&self) -> bool {
                match self { AnyApp::Idle => false, $( AnyApp::$v(a) => a.reads(), )* }
            }
            fn transport_section(&self) -> bool {
                match self { AnyApp::Idle => true, $( AnyApp::$v(a) => a.transport_section(), )* }
            }
            fn sections(&self, peer: Option<&AnyApp>, socks: &SocketFacts) -> AppSections {
                match self {
                    AnyApp::Idle => AppSections::default(),
                    $( AnyApp::$v(a) => a.sections(peer, socks), )*
                }
            }
            fn keep_up(&self) -> Option<(SendLog, f64)> {
                match self { AnyApp::Idle => None, $( AnyApp::$v(a) => a.keep_up(), )* }
            }
        }
    };
}

applications! {
    /// Evenly spaced cells (CBR; a persistent source at its peak rate).
    Cbr(Cbr),
    /// ON-OFF (seed 000 section 7.2, seed 002).
    OnOff(OnOff),
    /// MPEG-2 transport-stream video sources multiplexed onto one connection (seed 000 section 4).
    Mpeg2(Box<mpeg2::Multiplex>),
    /// Over sockets: reads everything that arrives (the receiving end of a bulk transfer).
    Reader(reader::Reader),
    /// Over sockets: writes TSDUs of one size as fast as the socket takes them (seed 001 `xtcp`).
    Writer(Box<writer::Writer>),
    /// Over sockets: a video trace player (seed 004), over a datagram or a stream socket.
    VideoTx(Box<video_tx::VideoSender>),
    /// Over sockets: a video stream's receiver with the frame metrics (seed 004).
    VideoRx(Box<video_rx::VideoReceiver>),
    /// Over sockets: a workload script at one end of a bundle (seed 001 section 13).
    Workload(Box<workload::WorkloadApp>),
    /// Over sockets: request-response echo (the worked example of docs/architecture.md).
    Echo(Box<echo::Echo>),
}

impl AnyApp {
    /// A CBR source's timer call without a [`Ctx`]: `Some(next timer)` with one cell due now
    /// (what its `on_timer` asks for: one cell, then the timer if any); `None` for the other
    /// models. The engine's fast path for persistent sources (`Simulation::endpoint_timer`).
    #[inline]
    pub fn fire_cbr(&mut self) -> Option<Option<SimTime>> {
        match self {
            AnyApp::Cbr(a) => Some(a.fire()),
            _ => None,
        }
    }
    /// The rate of a CBR source, bit/s (the event queue's lanes group sources by it).
    pub fn cbr_rate_bps(&self) -> Option<u64> {
        match self {
            AnyApp::Cbr(c) => Some(c.rate_bps()),
            _ => None,
        }
    }
}

/// Helpers for the applications' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::rng::Rng;

    /// Run an application alone until `until`, calling `f(time, cells)` for each emission.
    pub(crate) fn drive<A: Application>(
        app: &mut A,
        until: SimTime,
        rng: &mut Rng,
        mut f: impl FnMut(SimTime, u32),
    ) {
        // the application draws from `rng` as an endpoint draws from its stream; `rng` is left
        // where the application left it
        let mut lazy = LazyRng::ready(rng.clone());
        let mut out = Asks::default();
        let mut ctx = Ctx::new(0, &mut lazy, &mut out);
        app.start(&mut ctx);
        let mut next = ctx.timer_requested();
        while let Some(t) = next {
            if t > until {
                break;
            }
            let mut out = Asks::default();
            let mut ctx = Ctx::new(t, &mut lazy, &mut out);
            app.on_timer(&mut ctx);
            if ctx.cells_requested() > 0 {
                f(t, ctx.cells_requested());
            }
            next = ctx.timer_requested();
        }
        *rng = lazy.into_rng();
    }

    /// Run an application alone and collect the times at which it sends cells.
    pub(crate) fn emissions<A: Application>(
        app: &mut A,
        until: SimTime,
        rng: &mut Rng,
    ) -> Vec<SimTime> {
        let mut out = vec![];
        drive(app, until, rng, |t, n| {
            for _ in 0..n {
                out.push(t);
            }
        });
        out
    }
}
