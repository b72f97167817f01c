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
//! below, and its scenario section. An application also feeds an ABR source
//! ([`crate::abr::Feed::App`]); the endpoint enum above the layers is
//! [`crate::host::AnySource`]. This layer knows neither hosts, transports nor ABR.
//!
//! Models: [`cbr`] (evenly spaced cells; persistent sources at their peak rate), [`onoff`]
//! (seed 000 section 7.2, seed 002), [`mpeg2`] (the MPEG-2 transport-stream VBR model of seed
//! 000 section 4). Moved from `traffic.rs` and `video.rs`.

pub mod cbr;
pub mod mpeg2;
pub mod onoff;
pub mod video;

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

/// Every application model.
#[derive(Clone, Debug)]
pub enum AnyApp {
    /// Sends nothing.
    Idle,
    /// Evenly spaced cells (CBR; a persistent source at its peak rate).
    Cbr(Cbr),
    /// ON-OFF (seed 000 section 7.2, seed 002).
    OnOff(OnOff),
    /// MPEG-2 transport-stream video sources multiplexed onto one connection (seed 000 section 4).
    Mpeg2(Box<mpeg2::Multiplex>),
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
}

impl Application for AnyApp {
    fn start(&mut self, ctx: &mut Ctx) {
        match self {
            AnyApp::Idle => {}
            AnyApp::Cbr(a) => a.start(ctx),
            AnyApp::OnOff(a) => a.start(ctx),
            AnyApp::Mpeg2(a) => a.start(ctx),
        }
    }
    #[inline]
    fn on_timer(&mut self, ctx: &mut Ctx) {
        match self {
            AnyApp::Idle => {}
            AnyApp::Cbr(a) => a.on_timer(ctx),
            AnyApp::OnOff(a) => a.on_timer(ctx),
            AnyApp::Mpeg2(a) => a.on_timer(ctx),
        }
    }
    fn on_cell(&mut self, ctx: &mut Ctx, cell: &Cell) {
        match self {
            AnyApp::Idle => {}
            AnyApp::Cbr(a) => a.on_cell(ctx, cell),
            AnyApp::OnOff(a) => a.on_cell(ctx, cell),
            AnyApp::Mpeg2(a) => a.on_cell(ctx, cell),
        }
    }
    fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, seg: SegHdr) {
        match self {
            AnyApp::Idle => {}
            AnyApp::Cbr(a) => a.on_frame(ctx, sdu, seg),
            AnyApp::OnOff(a) => a.on_frame(ctx, sdu, seg),
            AnyApp::Mpeg2(a) => a.on_frame(ctx, sdu, seg),
        }
    }
}

/// The hooks every application model implements; defaults do nothing.
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
