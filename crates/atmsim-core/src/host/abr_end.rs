//! A VC end under ABR rate control, and what sits above it.
//!
//! In TM 4.0 (af-tm-0056.000 section 5.10) the ABR source and destination behaviours are the
//! ATM layer's rate control of one VC's sending and receiving ends: the source sends the data
//! cells it is given at ACR among its RM cells (SES rules 1-11), the destination turns forward
//! RM cells around (DES rules 1-4). What gives the VC its data sits above and never knows the
//! VC is ABR:
//! - nothing of its own ([`Above::Nothing`]): a persistent source, the relay queue of a VS/VD
//!   switch's virtual source, or a destination with no receiver above;
//! - a cell-level application ([`Above::App`]: CBR, ON-OFF, MPEG-2), whose cells join the
//!   source's backlog;
//! - a host ([`Above::Host`]: an application over sockets over transports, exactly as on a
//!   UBR or CBR VC), whose AAL5 frames wait in the source's [`FrameQueue`] and leave cell by
//!   cell at ACR (TCP over ABR, seeds 000 and 002); at the destination the host receives the
//!   frames and its frames (ACKs, responses) leave on the reverse direction at once, as the
//!   backward RM cells do.
//!
//! A host over an ABR VC is an ideal host: the host model (`nodes[].host`) serves the sockets of
//! hosts on plain VCs only (the model's send processing hands frames to the adapter, where
//! here the ABR source paces them; docs/abr.md).

use super::stack::{Host, Outbox};
use crate::abr::{AbrDest, AbrSource, FrameQueue};
use crate::app::{AnyApp, AppSections, Application, Asks, Ctx};
use crate::metrics::Probes;
use crate::rng::Rng;
use crate::time::SimTime;
use crate::transport::{InTransit, SegmentOut, TransportSummary};
use crate::wire::{Cell, SegHdr};

/// The ABR end system of one end of a VC.
#[derive(Clone, Debug)]
pub enum AbrRole {
    /// The source end system (SES rules), also the other direction's destination on a
    /// bidirectional connection (its turnaround).
    Source(AbrSource),
    /// The destination end system of a one-way connection (DES rules).
    Dest(AbrDest),
}

/// What feeds the VC end, or receives from it.
#[derive(Clone, Debug)]
pub enum Above {
    Nothing,
    App(AnyApp),
    Host(Box<Host>),
}

/// One VC end under ABR: its rate control and what sits above it.
#[derive(Clone, Debug)]
pub struct AbrEnd {
    pub role: AbrRole,
    pub above: Above,
}

/// The outbox of a host above an ABR source: frames go to the source's queue (always room:
/// the source's backlog is the edge queue ABR pushes the congestion to, seed 002), the host's
/// timer is kept for the source to schedule.
struct FeedOut<'a, 'b> {
    ctx: &'a mut Ctx<'b>,
    queue: &'a mut FrameQueue,
    timer: Option<SimTime>,
}

impl SegmentOut for FeedOut<'_, '_> {
    fn room(&self) -> bool {
        true
    }
    fn frame(&mut self, sdu: u32, seg: SegHdr) {
        self.queue.frame(sdu, seg)
    }
}

impl Outbox for FeedOut<'_, '_> {
    fn now(&self) -> SimTime {
        self.ctx.now
    }
    fn rng(&mut self) -> &mut Rng {
        self.ctx.rng
    }
    fn set_timer(&mut self, t: SimTime) {
        self.timer = Some(t);
    }
}

/// How the feeder above is called.
#[derive(Clone, Copy)]
enum Call {
    Start,
    Timer,
    Frame(u32, SegHdr),
}

impl AbrEnd {
    /// A source end with `above` feeding it.
    pub fn source(src: AbrSource, above: Above) -> Self {
        AbrEnd {
            role: AbrRole::Source(src),
            above,
        }
    }

    /// A destination end with `above` receiving from it.
    pub fn dest(above: Above) -> Self {
        AbrEnd {
            role: AbrRole::Dest(AbrDest::default()),
            above,
        }
    }

    /// The source end system, if this end is one.
    pub fn source_rc(&self) -> Option<&AbrSource> {
        match &self.role {
            AbrRole::Source(s) => Some(s),
            AbrRole::Dest(_) => None,
        }
    }

    /// The host above, if any.
    pub fn host(&self) -> Option<&Host> {
        match &self.above {
            Above::Host(h) => Some(h),
            _ => None,
        }
    }

    /// Call the feeder above source `src`, which then takes what it handed over (SES: the data
    /// the source has to send) and wakes up if it was idle with data now waiting.
    fn feed(src: &mut AbrSource, above: &mut Above, ctx: &mut Ctx, call: Call) {
        let now = ctx.now;
        match above {
            Above::Nothing => src.own_feed(now),
            Above::App(app) => {
                if let Call::Frame(..) = call {
                    return; // a cell-level application takes no frames
                }
                let mut out = Asks::default();
                let mut sub = Ctx::new(now, ctx.rng, &mut out);
                match call {
                    Call::Start => app.start(&mut sub),
                    _ => app.on_timer(&mut sub),
                }
                let (cells, next) = (sub.cells_requested() as u64, sub.timer_requested());
                src.fed_cells(now, cells, next);
            }
            Above::Host(h) => {
                let mut out = FeedOut {
                    ctx,
                    queue: src.frames(),
                    timer: None,
                };
                match call {
                    Call::Start => h.start(&mut out),
                    Call::Timer => h.on_timer(&mut out),
                    Call::Frame(sdu, seg) => h.on_frame(&mut out, sdu, seg),
                }
                let next = out.timer;
                src.fed_frames(now, next);
            }
        }
    }
}

impl Application for AbrEnd {
    fn start(&mut self, ctx: &mut Ctx) {
        match &mut self.role {
            AbrRole::Source(s) => {
                Self::feed(s, &mut self.above, ctx, Call::Start);
                s.request_timer(ctx);
            }
            AbrRole::Dest(_) => {
                if let Above::Host(h) = &mut self.above {
                    h.start(ctx);
                }
            }
        }
    }
    #[inline]
    fn on_timer(&mut self, ctx: &mut Ctx) {
        match &mut self.role {
            AbrRole::Source(s) => {
                if s.feed_due(ctx.now) {
                    Self::feed(s, &mut self.above, ctx, Call::Timer);
                }
                s.send_due(ctx);
                s.request_timer(ctx);
            }
            AbrRole::Dest(_) => {
                if let Above::Host(h) = &mut self.above {
                    h.on_timer(ctx);
                }
            }
        }
    }
    fn on_cell(&mut self, ctx: &mut Ctx, cell: &Cell) {
        match &mut self.role {
            AbrRole::Source(s) => s.on_cell(ctx, cell),
            AbrRole::Dest(d) => d.on_cell(ctx, cell),
        }
    }
    /// An intact frame for the host above: at a source end the reverse direction's frames (a
    /// TCP sender's ACKs), at a destination the data.
    fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, seg: SegHdr) {
        match (&mut self.role, &mut self.above) {
            (AbrRole::Source(s), above @ Above::Host(_)) => {
                Self::feed(s, above, ctx, Call::Frame(sdu, seg));
                s.request_timer(ctx);
            }
            (AbrRole::Dest(_), Above::Host(h)) => h.on_frame(ctx, sdu, seg),
            _ => {}
        }
    }
}

impl AbrEnd {
    /// The series rows: the source's ACR in `abr_sources`, the host's transport in its table.
    pub fn probe(&self, series: &mut Probes, at: &[usize; 3], ts: f64, key: u32) {
        if let AbrRole::Source(s) = &self.role {
            s.probe(series.at(at[0]).row(ts, key));
        }
        if let Above::Host(h) = &self.above {
            h.probe(move |i| series.at(at[1 + i]).row(ts, key));
        }
    }

    /// The end of warm-up: the source's ACR integral, the host's counters.
    pub fn mark_warmup(&mut self, now: SimTime) {
        if let AbrRole::Source(s) = &mut self.role {
            s.mark_warmup(now);
        }
        if let Above::Host(h) = &mut self.above {
            h.mark_warmup();
        }
    }

    /// The host's transport section, `rx` the far end's host: its payload fraction counts
    /// only the data cells among the source's, (Nrm - 1) / Nrm.
    pub fn transport_summary(
        &self,
        rx: Option<&Host>,
        window_s: f64,
        transit: InTransit,
    ) -> Option<TransportSummary> {
        let (AbrRole::Source(s), Above::Host(h)) = (&self.role, &self.above) else {
            return None;
        };
        let mut t = h.transport_summary(rx, window_s, transit)?;
        t.data_share((s.p.nrm - 1) as f64 / s.p.nrm as f64);
        Some(t)
    }

    /// The host application's own sections.
    pub fn sections(&self, rx: Option<&Host>, transit: InTransit) -> AppSections {
        self.host()
            .map_or(AppSections::default(), |h| h.sections(rx, transit))
    }
}
