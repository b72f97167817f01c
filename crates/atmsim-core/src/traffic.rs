//! Traffic sources and the application interface they share.
//!
//! An application sits at one end of a flow. The engine calls it through [`Application`]
//! (start, timer, cells received) with a [`Ctx`] holding the time, the endpoint's own random
//! stream and an outbox; the application asks for cells to be sent and for its next timer.
//! [`AnySource`] is the closed enum of models, matched in one place (the smoltcp
//! `AnyController` pattern), so adding a model (ABR source, TCP, video player) adds a variant
//! here and touches no engine code.
//!
//! Models in this module: CBR (evenly spaced cells), persistent (always backlogged, at its peak
//! rate) and ON-OFF (seed 000 section 7.2, seed 002: ON for d x p at an amplitude, OFF for
//! (1 - d) x p; optionally exponential ON and OFF lengths with those means).

use crate::abr::{AbrDest, AbrSource};
use crate::tcp::{SegmentOut, TcpReceiver, TcpSender};
use crate::time::{mbps_to_bps, Pacer, SimTime};
use crate::video::Multiplex;
use crate::wire::Cell;
use arrayvec::ArrayVec;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};

/// The random generator type of every random component.
pub type Rng = ChaCha8Rng;

/// A random stream that depends only on the master seed and a stable component name, never on
/// construction order (DESIGN.md convention 2).
pub fn stream(seed: u64, name: &str) -> Rng {
    // FNV-1a of the name, mixed with the seed by SplitMix64
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    let mut z = seed ^ h;
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    Rng::seed_from_u64(z)
}

/// What an application sees and asks for during one call.
pub struct Ctx<'a> {
    /// The current simulated time.
    pub now: SimTime,
    /// This endpoint's random stream.
    pub rng: &'a mut Rng,
    pub(crate) send: u32,
    pub(crate) cell: Option<Cell>,
    pub(crate) timer: Option<SimTime>,
    /// Whole AAL5 frames to send: (CPCS-SDU bytes, tag of the end-of-frame cell).
    pub(crate) frames: ArrayVec<(u32, u32), FRAMES_PER_CALL>,
    /// One cell of a frame, paced by its sender (an ABR source carrying TCP): (index within
    /// the frame, or the SDU length on the end-of-frame cell; end of frame; tag).
    pub(crate) frame_cell: Option<(u16, bool, u32)>,
}

/// What an application asked for in one call (see [`Ctx`]).
pub struct Asks {
    pub cell: Option<Cell>,
    pub send: u32,
    pub timer: Option<SimTime>,
    pub frames: ArrayVec<(u32, u32), FRAMES_PER_CALL>,
    pub frame_cell: Option<(u16, bool, u32)>,
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
    pub fn new(now: SimTime, rng: &'a mut Rng) -> Self {
        Ctx {
            now,
            rng,
            send: 0,
            cell: None,
            timer: None,
            frames: ArrayVec::new(),
            frame_cell: None,
        }
    }
    /// Send one cell built by the application (an RM cell, say) before any data cells; the
    /// engine fills in the flow, creation time and route position. One per call.
    pub fn send_cell(&mut self, cell: Cell) {
        debug_assert!(self.cell.is_none(), "one explicit cell per call");
        self.cell = Some(cell);
    }
    /// The explicit cell requested in this call.
    pub fn cell_requested(&self) -> Option<Cell> {
        self.cell
    }
    /// Send `n` cells on this endpoint's flow now (framed by the flow's AAL5 settings).
    pub fn send_cells(&mut self, n: u32) {
        self.send += n;
    }
    /// Ask to be called again at `t` (replaces any earlier request).
    pub fn set_timer(&mut self, t: SimTime) {
        self.timer = Some(t);
    }
    /// Cells requested so far in this call.
    pub fn cells_requested(&self) -> u32 {
        self.send
    }
    /// The timer requested in this call.
    pub fn timer_requested(&self) -> Option<SimTime> {
        self.timer
    }
    /// Send one cell of a variable-length frame (see `frame_cell`). One per call.
    pub fn send_frame_cell(&mut self, len_or_index: u16, eof: bool, tag: u32) {
        debug_assert!(self.frame_cell.is_none(), "one frame cell per call");
        self.frame_cell = Some((len_or_index, eof, tag));
    }
    /// Everything this call asked for, for the engine to carry out.
    pub fn asks(self) -> Asks {
        Asks {
            cell: self.cell,
            send: self.send,
            timer: self.timer,
            frames: self.frames,
            frame_cell: self.frame_cell,
        }
    }
    /// True when this call asked the engine for anything.
    pub fn wants_anything(&self) -> bool {
        self.cell.is_some()
            || self.send > 0
            || self.timer.is_some()
            || !self.frames.is_empty()
            || self.frame_cell.is_some()
    }
}

impl SegmentOut for Ctx<'_> {
    fn room(&self) -> bool {
        !self.frames.is_full()
    }
    fn frame(&mut self, sdu: u32, tag: u32) {
        self.frames.push((sdu, tag));
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
    /// Called after `on_cell` when the cell completed an intact AAL5 frame of `sdu` bytes whose
    /// end-of-frame cell carried `tag`.
    fn on_frame(&mut self, _ctx: &mut Ctx, _sdu: u32, _tag: u32) {}
}

/// Cells evenly spaced at a fixed rate from `start` until `stop` (CBR, and persistent sources
/// sending at their peak rate).
#[derive(Clone, Debug)]
pub struct Cbr {
    pacer: Pacer,
    start: SimTime,
    stop: SimTime,
}

impl Cbr {
    pub fn new(rate_mbps: f64, start: SimTime, stop: SimTime) -> Self {
        Cbr {
            pacer: Pacer::new(mbps_to_bps(rate_mbps)),
            start,
            stop,
        }
    }
}

impl Application for Cbr {
    fn start(&mut self, ctx: &mut Ctx) {
        self.pacer.start(self.start);
        if self.start < self.stop {
            ctx.set_timer(self.start);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx) {
        ctx.send_cells(1);
        let next = self.pacer.advance();
        if next < self.stop {
            ctx.set_timer(next);
        }
    }
}

/// ON-OFF: cells at `peak` while ON. Deterministic periods: ON `duty x period`, OFF the rest.
/// Exponential periods: ON and OFF lengths drawn with those means (from the endpoint's stream).
#[derive(Clone, Debug)]
pub struct OnOff {
    pacer: Pacer,
    on_mean: f64,
    off_mean: f64,
    exponential: bool,
    start: SimTime,
    stop: SimTime,
    on_end: SimTime,
    next_on: SimTime,
}

impl OnOff {
    pub fn new(
        peak_mbps: f64,
        duty: f64,
        period_s: f64,
        exponential: bool,
        start: SimTime,
        stop: SimTime,
    ) -> Self {
        let period = period_s * 1e12;
        OnOff {
            pacer: Pacer::new(mbps_to_bps(peak_mbps)),
            on_mean: duty * period,
            off_mean: (1.0 - duty) * period,
            exponential,
            start,
            stop,
            on_end: 0,
            next_on: 0,
        }
    }

    fn draw(&self, mean: f64, rng: &mut Rng) -> SimTime {
        if mean <= 0.0 {
            return 0;
        }
        if self.exponential {
            let e = Exp::new(1.0 / mean).expect("positive mean");
            e.sample(rng).round() as SimTime
        } else {
            mean.round() as SimTime
        }
    }

    /// Begin an ON period at `t`; returns the time of its first cell.
    fn begin_on(&mut self, t: SimTime, rng: &mut Rng) -> SimTime {
        let on = self.draw(self.on_mean, rng).max(1);
        let off = self.draw(self.off_mean, rng);
        self.on_end = t.saturating_add(on);
        self.next_on = self.on_end.saturating_add(off);
        self.pacer.start(t);
        t
    }
}

impl Application for OnOff {
    fn start(&mut self, ctx: &mut Ctx) {
        if self.start < self.stop {
            let first = self.begin_on(self.start, ctx.rng);
            ctx.set_timer(first);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        if now >= self.on_end {
            // an OFF period just ended (the timer was set to the next ON start)
            self.begin_on(now, ctx.rng);
        }
        ctx.send_cells(1);
        let mut next = self.pacer.advance();
        while next >= self.on_end {
            // the rest of this ON period has no cell slot; skip to the next ON period
            let t = self.next_on;
            if t >= self.stop {
                return;
            }
            next = self.begin_on(t, ctx.rng);
            if next < self.on_end {
                break;
            }
        }
        if next < self.stop {
            ctx.set_timer(next);
        }
    }
}

/// Every application model.
#[derive(Clone, Debug)]
pub enum AnySource {
    /// Sends nothing.
    Idle,
    Cbr(Cbr),
    OnOff(OnOff),
    /// TM 4.0 ABR source end system (crate::abr).
    Abr(Box<AbrSource>),
    /// TM 4.0 ABR destination end system (crate::abr).
    AbrDest(AbrDest),
    /// MPEG-2 transport-stream video sources multiplexed onto one connection (crate::video).
    Video(Box<Multiplex>),
    /// The sending end of a TCP connection (crate::tcp); ACKs reach it as frames.
    Tcp(Box<TcpSender>),
    /// The receiving end of a TCP connection; it sends ACK frames on the reverse direction.
    TcpSink(Box<TcpReceiver>),
}

fn tcp_timer(ctx: &mut Ctx, t: Option<SimTime>) {
    if let Some(t) = t {
        ctx.set_timer(t.max(ctx.now));
    }
}

impl Application for AnySource {
    fn start(&mut self, ctx: &mut Ctx) {
        match self {
            AnySource::Idle => {}
            AnySource::Cbr(s) => s.start(ctx),
            AnySource::OnOff(s) => s.start(ctx),
            AnySource::Abr(s) => s.start(ctx),
            AnySource::AbrDest(s) => s.start(ctx),
            AnySource::Video(s) => s.start(ctx),
            AnySource::Tcp(s) => tcp_timer(ctx, s.next_timer()),
            AnySource::TcpSink(_) => {}
        }
    }
    #[inline]
    fn on_timer(&mut self, ctx: &mut Ctx) {
        match self {
            AnySource::Idle => {}
            AnySource::Cbr(s) => s.on_timer(ctx),
            AnySource::OnOff(s) => s.on_timer(ctx),
            AnySource::Abr(s) => s.on_timer(ctx),
            AnySource::AbrDest(s) => s.on_timer(ctx),
            AnySource::Video(s) => s.on_timer(ctx),
            AnySource::Tcp(s) => {
                s.on_timer(ctx.now, ctx);
                tcp_timer(ctx, s.next_timer());
            }
            AnySource::TcpSink(s) => {
                s.on_timer(ctx.now, ctx);
                tcp_timer(ctx, s.next_timer());
            }
        }
    }
    fn on_cell(&mut self, ctx: &mut Ctx, cell: &Cell) {
        match self {
            AnySource::Idle => {}
            AnySource::Cbr(s) => s.on_cell(ctx, cell),
            AnySource::OnOff(s) => s.on_cell(ctx, cell),
            AnySource::Abr(s) => s.on_cell(ctx, cell),
            AnySource::AbrDest(s) => s.on_cell(ctx, cell),
            AnySource::Video(s) => s.on_cell(ctx, cell),
            AnySource::Tcp(_) | AnySource::TcpSink(_) => {}
        }
    }
    fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, tag: u32) {
        match self {
            AnySource::Abr(s) => s.on_frame(ctx, sdu, tag),
            AnySource::AbrDest(s) => s.on_frame(ctx, sdu, tag),
            AnySource::Tcp(s) => {
                s.on_ack(ctx.now, tag, ctx);
                tcp_timer(ctx, s.next_timer());
            }
            AnySource::TcpSink(s) => {
                s.on_segment(ctx.now, sdu, tag, ctx);
                tcp_timer(ctx, s.next_timer());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PS_PER_S;

    /// Run an application alone and collect the times at which it sends cells.
    fn emissions(app: &mut AnySource, until: SimTime, rng: &mut Rng) -> Vec<SimTime> {
        let mut out = vec![];
        let mut ctx = Ctx::new(0, rng);
        app.start(&mut ctx);
        let mut next = ctx.timer;
        while let Some(t) = next {
            if t > until {
                break;
            }
            let mut ctx = Ctx::new(t, rng);
            app.on_timer(&mut ctx);
            for _ in 0..ctx.send {
                out.push(t);
            }
            next = ctx.timer;
        }
        out
    }

    #[test]
    fn cbr_sends_rate_times_duration() {
        let mut rng = stream(1, "x");
        // 42.4 Mb/s = 100,000 cells/s: exactly 10 us apart
        let mut s = AnySource::Cbr(Cbr::new(42.4, 0, PS_PER_S / 10));
        let e = emissions(&mut s, u64::MAX, &mut rng);
        assert_eq!(e.len(), 10_000);
        assert!(e.windows(2).all(|w| w[1] - w[0] == 10_000_000));
    }

    #[test]
    fn onoff_deterministic_duty_cycle() {
        let mut rng = stream(1, "x");
        // 42.4 Mb/s while ON, d = 0.3, p = 10 ms, for 1 s: 100 periods x 3 ms x 100 cells/ms
        let mut s = AnySource::OnOff(OnOff::new(42.4, 0.3, 0.01, false, 0, PS_PER_S));
        let e = emissions(&mut s, u64::MAX, &mut rng);
        assert_eq!(e.len(), 100 * 300);
        // no cell during an OFF period
        assert!(e
            .iter()
            .all(|&t| t % (10 * 1_000_000_000) < 3 * 1_000_000_000));
    }

    #[test]
    fn onoff_exponential_mean_rate_and_seed_dependence() {
        let run = |seed| {
            let mut rng = stream(seed, "connections.c.source");
            let mut s = AnySource::OnOff(OnOff::new(42.4, 0.5, 0.002, true, 0, 20 * PS_PER_S));
            emissions(&mut s, u64::MAX, &mut rng).len()
        };
        let (a, b) = (run(1), run(2));
        assert_ne!(a, b);
        assert_eq!(a, run(1));
        // mean rate = d x peak = 50,000 cells/s; 10,000 cycles of mean 2 ms: sd of the ON share ~ 0.5%
        for n in [a, b] {
            let rate = n as f64 / 20.0;
            assert!((rate / 50_000.0 - 1.0).abs() < 0.03, "{rate}");
        }
    }

    #[test]
    fn streams_depend_on_name_not_order() {
        use rand::RngExt;
        let x1: u64 = stream(7, "a").random();
        let _: u64 = stream(7, "b").random();
        let x2: u64 = stream(7, "a").random();
        assert_eq!(x1, x2);
        let y: u64 = stream(7, "b").random();
        assert_ne!(x1, y);
    }
}
