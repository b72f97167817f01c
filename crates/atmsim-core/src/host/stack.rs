//! A host: one application over its sockets, each socket over one transport connection (the
//! DESIGN's host layer; ns-3's `Application` over `Socket`, smoltcp's sockets under its
//! applications). The engine calls the host through the endpoint ([`super::AnySource::Host`]);
//! the host runs the sockets' transport hooks (timers, frames in, frames out with the
//! connection number stamped) and calls the application through [`Application`]'s socket hooks
//! with an [`Io`] that gives it its sockets and nothing of the transports below.
//!
//! Socket k is transport connection k of the VC's bundle; a host with a single socket takes
//! every frame that reaches its endpoint (a bundle of raw transport connections has one
//! endpoint per connection).

use super::socket::{Asks as SocketAsks, Socket};
use crate::app::{AnyApp, AppSections, Application, Ctx, Io, SendLog, SocketFacts};
use crate::metrics::Row;
use crate::rng::Rng;
use crate::time::SimTime;
use crate::transport::{InTransit, SegmentOut, TransportSummary};
use crate::wire::SegHdr;

/// An application and its sockets.
#[derive(Clone, Debug)]
pub struct Host {
    pub app: AnyApp,
    pub socks: Vec<Socket>,
}

/// Where a host's calls put what they ask for: the time, the endpoint's random stream, its
/// timer and its frames. The endpoint's own outbox ([`Ctx`]: frames leave on the VC at once,
/// or through the host model's send processing), or the queue of the VC's rate control beneath
/// the host (an ABR source, `host/abr_end.rs`).
pub trait Outbox: SegmentOut {
    fn now(&self) -> SimTime;
    fn rng(&mut self) -> &mut Rng;
    fn set_timer(&mut self, t: SimTime);
}

impl Outbox for Ctx<'_> {
    fn now(&self) -> SimTime {
        self.now
    }
    fn rng(&mut self) -> &mut Rng {
        self.rng
    }
    fn set_timer(&mut self, t: SimTime) {
        Ctx::set_timer(self, t)
    }
}

/// The host's outbox, stamping connection `conn` on every frame.
struct ConnOut<'a, O> {
    ctx: &'a mut O,
    conn: u16,
}

impl<O: SegmentOut> SegmentOut for ConnOut<'_, O> {
    fn room(&self) -> bool {
        self.ctx.room()
    }
    fn frame(&mut self, sdu: u32, mut seg: SegHdr) {
        seg.conn = self.conn;
        self.ctx.frame(sdu, seg)
    }
}

/// The application's view of its sockets during one call.
struct HostIo<'a, O> {
    socks: &'a mut [Socket],
    ctx: &'a mut O,
}

impl<O: Outbox> HostIo<'_, O> {
    /// Socket `k` and the outbox stamping its connection number.
    fn out(&mut self, k: u16) -> (&mut Socket, ConnOut<'_, O>) {
        (
            &mut self.socks[k as usize],
            ConnOut {
                ctx: &mut *self.ctx,
                conn: k,
            },
        )
    }
}

impl<O: Outbox> Io for HostIo<'_, O> {
    fn now(&self) -> SimTime {
        self.ctx.now()
    }
    fn rng(&mut self) -> &mut Rng {
        self.ctx.rng()
    }
    fn sockets(&self) -> usize {
        self.socks.len()
    }
    fn write(&mut self, k: u16, bytes: u64) -> u64 {
        let now = self.ctx.now();
        let (s, mut out) = self.out(k);
        s.write(now, bytes, &mut out)
    }
    fn send_room(&self, k: u16) -> u64 {
        self.socks[k as usize].send_room()
    }
    fn send_buffered(&self, k: u16) -> u64 {
        self.socks[k as usize].send_buffered()
    }
    fn write_waiting(&self, k: u16) -> bool {
        self.socks[k as usize].write_waiting()
    }
    fn readable(&self, k: u16) -> u64 {
        self.socks[k as usize].delivered()
    }
    fn read(&mut self, k: u16, bytes: u64) -> u64 {
        let now = self.ctx.now();
        let (s, mut out) = self.out(k);
        s.read(now, bytes, &mut out)
    }
    fn is_datagram(&self, k: u16) -> bool {
        self.socks[k as usize].is_datagram()
    }
    fn take_message(&mut self, k: u16) -> Option<(u32, u32)> {
        self.socks[k as usize].take_message()
    }
    fn last_rx(&self, k: u16) -> SimTime {
        self.socks[k as usize].last_rx
    }
    fn restart_window(
        &mut self,
        k: u16,
        fresh: bool,
        idle_since: Option<SimTime>,
        quiet_since: Option<SimTime>,
    ) {
        let now = self.ctx.now();
        self.socks[k as usize]
            .transport
            .restart_window(fresh, idle_since, quiet_since, now);
    }
}

impl Host {
    pub fn new(app: AnyApp, socks: Vec<Socket>) -> Self {
        Host { app, socks }
    }

    /// Call the application with its sockets.
    fn with_io<O: Outbox>(&mut self, ctx: &mut O, f: impl FnOnce(&mut AnyApp, &mut HostIo<O>)) {
        let mut io = HostIo {
            socks: &mut self.socks,
            ctx,
        };
        f(&mut self.app, &mut io);
    }

    /// Ask for the earliest of the application's and the sockets' deadlines.
    fn set_timer(&self, ctx: &mut impl Outbox) {
        let t = self
            .socks
            .iter()
            .map(|s| s.next_timer())
            .chain([self.app.next_timer()])
            .flatten()
            .min();
        if let Some(t) = t {
            ctx.set_timer(t.max(ctx.now()));
        }
    }

    pub fn start(&mut self, ctx: &mut impl Outbox) {
        self.with_io(ctx, |a, io| a.sock_start(io));
        self.set_timer(ctx);
    }

    /// The timer: the sockets whose deadline has come run theirs, then the application.
    pub fn on_timer(&mut self, ctx: &mut impl Outbox) {
        let now = ctx.now();
        for (k, s) in self.socks.iter_mut().enumerate() {
            if s.next_timer().is_some_and(|t| t <= now) {
                let mut out = ConnOut {
                    ctx: &mut *ctx,
                    conn: k as u16,
                };
                s.on_timer(now, &mut out);
            }
        }
        self.with_io(ctx, |a, io| a.sock_timer(io));
        self.set_timer(ctx);
    }

    /// The socket a frame with header `seg` belongs to: by its connection number, or the only
    /// one (a bundle of raw transport connections has one endpoint, one socket, per connection).
    fn socket_of(&self, seg: SegHdr) -> u16 {
        if self.socks.len() == 1 {
            0
        } else {
            seg.conn
        }
    }

    /// An intact frame for this host: its socket (by connection number), then the application.
    pub fn on_frame(&mut self, ctx: &mut impl Outbox, sdu: u32, seg: SegHdr) {
        let k = self.socket_of(seg);
        if let Some(s) = self.socks.get_mut(k as usize) {
            let now = ctx.now();
            let mut out = ConnOut {
                ctx: &mut *ctx,
                conn: k,
            };
            s.on_frame(now, sdu, seg, &mut out);
            self.with_io(ctx, |a, io| a.sock_event(io, k));
        }
        self.set_timer(ctx);
    }

    /// The host's CPU served socket `k`'s queued write (`read` false) or read system call: the
    /// call is granted and the application goes on.
    pub fn served(&mut self, ctx: &mut impl Outbox, k: u16, read: bool) {
        if let Some(s) = self.socks.get_mut(k as usize) {
            s.grant(read);
        }
        self.with_io(ctx, |a, io| a.sock_wake(io, k));
        self.set_timer(ctx);
    }

    /// The system calls the sockets asked for since the last look, by socket.
    pub fn take_asks(&mut self, mut f: impl FnMut(u16, SocketAsks)) {
        for (k, s) in self.socks.iter_mut().enumerate() {
            f(k as u16, s.take_asks());
        }
    }

    /// The host has a model: see [`Socket::gate`]. Every application that reads (the raw
    /// reading end, the video receiver, the workload runner) gets BSD's window: its TCP
    /// advertises the free receive buffer and sends a window update when a read opens it.
    pub fn gate(&mut self, send_buffer: u64) {
        let app_reads = self.app.reads();
        for s in &mut self.socks {
            s.gate(send_buffer, app_reads);
        }
    }

    /// Header bytes per frame that the host's per-byte costs leave out.
    pub fn header_bytes(&self) -> u32 {
        self.socks.first().map_or(0, |s| s.transport.header_bytes())
    }

    /// The sockets carry datagrams (their receive buffer and read are the host model's).
    pub fn is_datagram(&self) -> bool {
        self.socks.first().is_some_and(|s| s.is_datagram())
    }

    /// A frame with header `seg` left the host for the adapter (`warm`: after warm-up): the
    /// application hears of the first packet of each message.
    pub fn packet_out(&mut self, now: SimTime, seg: SegHdr, warm: bool) {
        let k = self.socket_of(seg);
        if let Some(s) = self.socks.get(k as usize) {
            if s.transport.first_of_message(seg) {
                self.app.message_out(now, warm);
            }
        }
    }

    /// The counters at the end of the warm-up.
    pub fn mark_warmup(&mut self) {
        for s in &mut self.socks {
            s.transport.mark_warmup();
        }
    }

    /// The congestion window and slow-start threshold of the sender of the socket that frames
    /// with header `seg` belong to (bytes), if its transport has them.
    pub fn window(&self, seg: SegHdr) -> Option<(u64, u64)> {
        self.socks
            .get(self.socket_of(seg) as usize)?
            .transport
            .window()
    }

    /// The transport's row in its series table (index into `crate::transport::TABLES`).
    pub fn probe<'a>(&self, row: impl FnOnce(usize) -> Row<'a>) {
        if self.app.transport_section() {
            if let Some(s) = self.socks.first() {
                s.transport.probe(row);
            }
        }
    }

    /// The transport's summary of the connection this host sends on, `rx` the far end,
    /// `transit` its frames on their way.
    pub fn transport_summary(
        &self,
        rx: Option<&Host>,
        window_s: f64,
        transit: InTransit,
    ) -> Option<TransportSummary> {
        if !self.app.transport_section() {
            return None;
        }
        let far = rx.and_then(|r| r.socks.first()).map(|s| &s.transport);
        self.socks
            .first()?
            .transport
            .summary(far, window_s, transit.out)
    }

    /// The frames of socket `k` among `frames`.
    fn of_socket(&self, frames: &[(u32, SegHdr)], k: u16) -> Vec<(u32, SegHdr)> {
        let mine = |s: &SegHdr| self.socket_of(*s) == k;
        frames.iter().filter(|(_, s)| mine(s)).copied().collect()
    }

    /// The application's own sections, `rx` the far end, `transit` the frames on their way
    /// both ways: the sockets' accounting goes with them ([`SocketFacts`]).
    pub fn sections(&self, rx: Option<&Host>, transit: InTransit) -> AppSections {
        let Some(s) = self.socks.first() else {
            return self
                .app
                .sections(rx.map(|r| &r.app), &SocketFacts::default());
        };
        let far = |k: usize| rx.and_then(|r| r.socks.get(k)).map(|s| &s.transport);
        // socket 0's messages on their way: in its transport, in the hosts and the network,
        // complete at the far end and not yet taken
        let mut messages = s.transport.messages_queued();
        if s.is_datagram() {
            let out = self.of_socket(transit.out, 0);
            messages.extend(out.iter().filter(|(_, h)| h.has_data()).map(|(_, h)| h.seq));
            messages.extend(far(0).map_or(Vec::new(), |t| t.messages_waiting()));
        }
        // every socket's stream bytes, both ways, that will never arrive
        let mut stream_lost = 0;
        for (k, sk) in self.socks.iter().enumerate() {
            let out = self.of_socket(transit.out, k as u16);
            let back = self.of_socket(transit.back, k as u16);
            let mine = sk.transport.stream(far(k), &out);
            let theirs = far(k).and_then(|t| t.stream(Some(&sk.transport), &back));
            stream_lost += [mine, theirs].iter().flatten().map(|b| b.lost).sum::<u64>();
        }
        let facts = SocketFacts {
            transport: s.transport.name(),
            datagram: s.is_datagram(),
            datagrams_sent: s.transport.datagrams_sent(),
            messages_in_transit: messages,
            stream_bytes_lost: stream_lost,
        };
        self.app.sections(rx.map(|r| &r.app), &facts)
    }

    /// Seed 004's keep-up log, if the application keeps one.
    pub fn keep_up(&self) -> Option<(SendLog, f64)> {
        self.app.keep_up()
    }
}
