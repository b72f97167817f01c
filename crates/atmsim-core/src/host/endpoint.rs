//! The endpoint's model: [`AnySource`], what sits at one end of a flow: a cell-level
//! application, a host (an application over sockets over transports, `host/stack.rs`), or
//! either of them above the VC's ABR rate control (`host/abr_end.rs`). The engine (`sim/`) calls an endpoint only through the hooks here (its
//! calls, its fast path, its series rows, its warm-up mark, its summary sections, what the host
//! model needs), so it never names an application, a transport or a fabric.
//!
//! Also here: the endpoint's outbox ([`Ctx`]) as the [`SegmentOut`] a transport writes its
//! AAL5 frames to, which joins a transport to its endpoint without either layer knowing the
//! other.

use crate::abr::AbrSource;
use crate::app::{AnyApp, AppSections, Application, Ctx, SendLog};
use crate::host::abr_end::AbrEnd;
use crate::host::stack::Host;
use crate::metrics::{Probes, TableDecl, TcpSummary, XtpxSummary};
use crate::time::SimTime;
use crate::transport::{InTransit, SegmentOut, TransportSummary};
use crate::wire::{Cell, SegHdr};

impl SegmentOut for Ctx<'_> {
    fn room(&self) -> bool {
        !self.out.frames.is_full()
    }
    fn frame(&mut self, sdu: u32, seg: SegHdr) {
        self.out.frames.push((sdu, seg));
    }
}

/// Every kind of endpoint.
#[derive(Clone, Debug)]
pub enum AnySource {
    /// A cell-level application's cells straight onto the flow (crate::app).
    App(AnyApp),
    /// A VC end under ABR rate control (TM 4.0 source or destination end system) with what
    /// feeds it or receives from it (`host/abr_end.rs`).
    Abr(Box<AbrEnd>),
    /// A host: an application over sockets over transports (`host/stack.rs`).
    Host(Box<Host>),
}

/// The endpoints' series tables, in the order of [`AnySource::probe`]'s table index: the ABR
/// sources' and each transport's sender's.
pub const TABLES: [&TableDecl; 3] = [
    &AbrSource::PROBES,
    crate::transport::TABLES[0],
    crate::transport::TABLES[1],
];

/// The transport sections of a connection's summary, from the endpoints sending on it.
#[derive(Clone, Debug, Default)]
pub struct TransportSections {
    /// By connection number.
    pub tcp: Vec<(u16, TcpSummary)>,
    pub xtpx: Vec<(u16, XtpxSummary)>,
}

impl AnySource {
    /// An endpoint that sends nothing.
    pub const IDLE: AnySource = AnySource::App(AnyApp::Idle);

    /// The engine's fast path for a CBR source (see [`AnyApp::fire_cbr`]).
    #[inline(always)]
    pub fn fire_cbr(&mut self) -> Option<Option<SimTime>> {
        match self {
            AnySource::App(app) => app.fire_cbr(),
            _ => None,
        }
    }

    /// The rate of a CBR source, bit/s (the event queue's lanes).
    pub fn cbr_rate_bps(&self) -> Option<u64> {
        match self {
            AnySource::App(a) => a.cbr_rate_bps(),
            _ => None,
        }
    }

    /// The ABR source end system, if this is one (the ATM layer's rate control: VS/VD
    /// coupling and the summary's ABR fields).
    pub fn abr(&self) -> Option<&AbrSource> {
        match self {
            AnySource::Abr(a) => a.source_rc(),
            _ => None,
        }
    }

    /// The host at this end, over whatever VC (the far end of a connection, for its
    /// summary sections).
    pub fn stack(&self) -> Option<&Host> {
        match self {
            AnySource::Host(h) => Some(h),
            AnySource::Abr(a) => a.host(),
            AnySource::App(_) => None,
        }
    }

    /// The host on a plain VC, if this is one (the host model: CPU jobs, system calls; a
    /// host above an ABR VC is an ideal host, `host/abr_end.rs`).
    pub fn host(&self) -> Option<&Host> {
        match self {
            AnySource::Host(h) => Some(h),
            _ => None,
        }
    }

    /// The host, if this is one, to change.
    pub fn host_mut(&mut self) -> Option<&mut Host> {
        match self {
            AnySource::Host(h) => Some(h),
            _ => None,
        }
    }
}

/// The hooks through which the engine asks an endpoint what it measures; each defaults to
/// nothing (the smoltcp `Controller` pattern), so a kind of endpoint implements what concerns
/// it and [`AnySource`] forwards each hook with one `match`.
pub trait EndpointHooks {
    /// The endpoint may have rows in the series ([`TABLES`]).
    fn has_rows(&self) -> bool {
        false
    }
    /// Its rows at time `ts` keyed `key` in the series: table [`TABLES`]`[i]` is
    /// `series.at(at[i])`.
    fn probe(&self, _series: &mut Probes, _at: &[usize; 3], _ts: f64, _key: u32) {}
    /// The end of warm-up: what the summary counts from.
    fn mark_warmup(&mut self, _now: SimTime) {}
    /// The transport section of the connection this endpoint sends as (`rx`: the far end of
    /// its connection; `transit`: its frames on their way, both ways), over `window_s` seconds.
    fn transport_summary(
        &self,
        _rx: Option<&AnySource>,
        _window_s: f64,
        _transit: InTransit,
    ) -> Option<TransportSummary> {
        None
    }
    /// The application's own sections of the summary (`rx`: the far end; `transit`: its
    /// frames on their way, both ways).
    fn sections(&self, _rx: Option<&AnySource>, _transit: InTransit) -> AppSections {
        AppSections::default()
    }
    /// Seed 004's keep-up log and frame interval, if the endpoint keeps one.
    fn keep_up(&self) -> Option<(SendLog, f64)> {
        None
    }
    /// The congestion window and slow-start threshold (bytes) of the sender of the transport
    /// connection whose frames carry `seg`, if this endpoint has one (the trace's segment rows).
    fn window(&self, _seg: SegHdr) -> Option<(u64, u64)> {
        None
    }
}

/// A cell-level application measures nothing beyond its flow's counters.
impl EndpointHooks for AnyApp {}

/// A VC end under ABR: its source's row in `abr_sources` and its host's, the ACR and the
/// host's marks, the host's sections.
impl EndpointHooks for AbrEnd {
    fn has_rows(&self) -> bool {
        true
    }
    fn probe(&self, series: &mut Probes, at: &[usize; 3], ts: f64, key: u32) {
        AbrEnd::probe(self, series, at, ts, key)
    }
    fn mark_warmup(&mut self, now: SimTime) {
        AbrEnd::mark_warmup(self, now)
    }
    fn transport_summary(
        &self,
        rx: Option<&AnySource>,
        window_s: f64,
        transit: InTransit,
    ) -> Option<TransportSummary> {
        AbrEnd::transport_summary(self, rx.and_then(AnySource::stack), window_s, transit)
    }
    fn sections(&self, rx: Option<&AnySource>, transit: InTransit) -> AppSections {
        AbrEnd::sections(self, rx.and_then(AnySource::stack), transit)
    }
    fn window(&self, seg: SegHdr) -> Option<(u64, u64)> {
        self.host()?.window(seg)
    }
}

/// A host: its transport's row and section, its application's sections and keep-up log.
impl EndpointHooks for Host {
    fn has_rows(&self) -> bool {
        true
    }
    fn probe(&self, series: &mut Probes, at: &[usize; 3], ts: f64, key: u32) {
        Host::probe(self, move |i| series.at(at[1 + i]).row(ts, key))
    }
    fn mark_warmup(&mut self, _now: SimTime) {
        Host::mark_warmup(self)
    }
    fn transport_summary(
        &self,
        rx: Option<&AnySource>,
        window_s: f64,
        transit: InTransit,
    ) -> Option<TransportSummary> {
        Host::transport_summary(self, rx.and_then(AnySource::stack), window_s, transit)
    }
    fn sections(&self, rx: Option<&AnySource>, transit: InTransit) -> AppSections {
        Host::sections(self, rx.and_then(AnySource::stack), transit)
    }
    fn keep_up(&self) -> Option<(SendLog, f64)> {
        Host::keep_up(self)
    }
    fn window(&self, seg: SegHdr) -> Option<(u64, u64)> {
        Host::window(self, seg)
    }
}

/// A boxed kind answers as itself.
impl<T: EndpointHooks + ?Sized> EndpointHooks for Box<T> {
    fn has_rows(&self) -> bool {
        (**self).has_rows()
    }
    fn probe(&self, series: &mut Probes, at: &[usize; 3], ts: f64, key: u32) {
        (**self).probe(series, at, ts, key)
    }
    fn mark_warmup(&mut self, now: SimTime) {
        (**self).mark_warmup(now)
    }
    fn transport_summary(
        &self,
        rx: Option<&AnySource>,
        window_s: f64,
        transit: InTransit,
    ) -> Option<TransportSummary> {
        (**self).transport_summary(rx, window_s, transit)
    }
    fn sections(&self, rx: Option<&AnySource>, transit: InTransit) -> AppSections {
        (**self).sections(rx, transit)
    }
    fn keep_up(&self) -> Option<(SendLog, f64)> {
        (**self).keep_up()
    }
    fn window(&self, seg: SegHdr) -> Option<(u64, u64)> {
        (**self).window(seg)
    }
}

/// `match` over the kinds of endpoint with the same expression for each.
macro_rules! each_kind {
    ($self:expr, |$e:ident| $body:expr) => {
        match $self {
            AnySource::App($e) => $body,
            AnySource::Abr($e) => $body,
            AnySource::Host($e) => $body,
        }
    };
}

impl EndpointHooks for AnySource {
    fn has_rows(&self) -> bool {
        each_kind!(self, |e| e.has_rows())
    }
    fn probe(&self, series: &mut Probes, at: &[usize; 3], ts: f64, key: u32) {
        each_kind!(self, |e| EndpointHooks::probe(e, series, at, ts, key))
    }
    fn mark_warmup(&mut self, now: SimTime) {
        each_kind!(self, |e| EndpointHooks::mark_warmup(e, now))
    }
    fn transport_summary(
        &self,
        rx: Option<&AnySource>,
        window_s: f64,
        transit: InTransit,
    ) -> Option<TransportSummary> {
        each_kind!(self, |e| EndpointHooks::transport_summary(
            e, rx, window_s, transit
        ))
    }
    fn sections(&self, rx: Option<&AnySource>, transit: InTransit) -> AppSections {
        each_kind!(self, |e| EndpointHooks::sections(e, rx, transit))
    }
    fn keep_up(&self) -> Option<(SendLog, f64)> {
        each_kind!(self, |e| EndpointHooks::keep_up(e))
    }
    fn window(&self, seg: SegHdr) -> Option<(u64, u64)> {
        each_kind!(self, |e| EndpointHooks::window(e, seg))
    }
}

/// The transport sections of one connection direction: each endpoint in `senders` (those
/// sending on it, with their frames on their way) with the far end of its connection
/// (`rx_of(conn)`).
pub fn transport_sections<'a>(
    senders: impl IntoIterator<Item = (u16, &'a AnySource, InTransit<'a>)>,
    rx_of: impl Fn(u16) -> Option<&'a AnySource>,
    window_s: f64,
) -> TransportSections {
    let mut out = TransportSections::default();
    for (conn, e, transit) in senders {
        match e.transport_summary(rx_of(conn), window_s, transit) {
            Some(TransportSummary::Tcp(t)) => out.tcp.push((conn, t)),
            Some(TransportSummary::Xtpx(x)) => out.xtpx.push((conn, x)),
            None => {}
        }
    }
    out.tcp.sort_by_key(|t| t.0);
    out.xtpx.sort_by_key(|t| t.0);
    out
}

impl Application for AnySource {
    fn start(&mut self, ctx: &mut Ctx) {
        match self {
            AnySource::App(a) => a.start(ctx),
            AnySource::Abr(s) => s.start(ctx),
            AnySource::Host(h) => h.start(ctx),
        }
    }
    #[inline]
    fn on_timer(&mut self, ctx: &mut Ctx) {
        match self {
            AnySource::App(a) => a.on_timer(ctx),
            AnySource::Abr(s) => s.on_timer(ctx),
            AnySource::Host(h) => h.on_timer(ctx),
        }
    }
    fn on_cell(&mut self, ctx: &mut Ctx, cell: &Cell) {
        match self {
            AnySource::App(a) => a.on_cell(ctx, cell),
            AnySource::Abr(s) => s.on_cell(ctx, cell),
            AnySource::Host(_) => {}
        }
    }
    fn passive_rx(&self) -> bool {
        match self {
            AnySource::App(a) => a.passive_rx(),
            AnySource::Abr(_) | AnySource::Host(_) => false,
        }
    }
    fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, seg: SegHdr) {
        match self {
            AnySource::App(a) => a.on_frame(ctx, sdu, seg),
            AnySource::Abr(s) => s.on_frame(ctx, sdu, seg),
            AnySource::Host(h) => h.on_frame(ctx, sdu, seg),
        }
    }
}

/// An application attached to the sending end of a flow.
///
/// `repr(C, align(64))` (issue 13): what a timer event and an emission read (the flow, the
/// pending timer, the application's state) lies in the endpoint's first cache lines, the
/// random stream after them (16 bytes: the generator is made at the first draw, which
/// deterministic sources never make).
#[repr(C, align(64))]
pub struct Endpoint {
    pub flow: u32,
    /// The transport connection within the flow's VC this endpoint sends as
    /// ([`crate::wire::SegHdr::conn`]; 0 unless the VC carries a bundle).
    pub conn: u16,
    pub(crate) timer_at: Option<SimTime>,
    pub app: AnySource,
    pub(crate) rng: crate::rng::LazyRng,
}
