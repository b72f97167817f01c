//! TM 4.0 ABR source end system (SES rules 1-11) and the queue its data waits in.
//!
//! Source: ATM Forum TM 4.0 (af-tm-0056.000) section 5.10, rule numbers as in
//! `../shared/SPEC-ABR.md`; on a bidirectional connection the source is also the other
//! direction's destination and turns its forward RM cells around in rate (SES rule 3b, DES rules
//! 1-4). "ABR pushes the queues to the edge" follows seed 002.
//!
//! The ABR source is the ATM layer's rate control of one VC's sending end: it knows how many
//! data cells wait and sends them at ACR among its RM cells, never what produced them. What
//! feeds it (a cell-level application, or a host whose transports hand it AAL5 frames: TCP over
//! ABR in seeds 000 and 002) sits above it, in the host layer (`crate::host::abr_end`).
//!
//! - [`AbrParams`]: the negotiated parameters (PCR, MCR, ICR, RIF, RDF, Nrm, Mrm, Trm, CDF, CRM,
//!   ADTF).
//! - [`Feed`]: where the data cells wait (a persistent source's endless supply, a count of cells
//!   handed over by an application, the relay queue of a VS/VD switch, or AAL5 frames in a
//!   [`FrameQueue`]).
//! - [`AbrSource`]: ACR, the forward RM cell schedule and the rules that change ACR.

use super::{interval_ps, RM_BN, RM_CI, RM_DIR, RM_NI, TCR_MBPS};
use crate::app::{Application, Ctx};
use crate::metrics::probe::{ColumnDecl, Row, TableDecl, FLOW_KEY};
use crate::time::SimTime;
use crate::transport::SegmentOut;
use crate::wire::aal5_cells;
use crate::wire::SegHdr;
use crate::wire::{Cell, RmFields, H_CLP, H_EFCI, H_RM};
use std::collections::VecDeque;

/// An ABR source's negotiated parameters (rates in Mb/s, times in ps).
#[derive(Clone, Debug)]
pub struct AbrParams {
    pub pcr: f64,
    pub mcr: f64,
    pub icr: f64,
    pub rif: f64,
    pub rdf: f64,
    pub nrm: u32,
    pub mrm: u32,
    pub trm: SimTime,
    pub cdf: f64,
    pub crm: u32,
    pub adtf: SimTime,
}

/// Where an ABR source's data cells wait.
#[derive(Clone, Debug)]
pub enum Feed {
    /// Always has data between start and stop.
    Persistent { start: SimTime, stop: SimTime },
    /// Data cells handed over by the cell-level application above ([`AbrSource::fed_cells`]):
    /// a source-limited application (CBR, ON-OFF, MPEG-2).
    Cells,
    /// The virtual source of a VS/VD switch: the data cells of the upstream segment wait here
    /// (the switch's per-VC queue) and keep their identity (creation time, sequence, AAL5 bits).
    Relay(VecDeque<Cell>),
    /// AAL5 frames handed over by the host above (its transports' segments: TCP over ABR in
    /// seeds 000 and 002), leaving cell by cell at ACR ([`AbrSource::fed_frames`]).
    Frames(FrameQueue),
}

/// AAL5 frames waiting at a source: (SDU bytes, transport header); the head frame has
/// `head_sent` cells gone.
#[derive(Clone, Debug, Default)]
pub struct FrameQueue {
    frames: VecDeque<(u32, SegHdr)>,
    head_sent: u32,
    /// Cells waiting in all frames.
    pub cells: u64,
}

impl FrameQueue {
    /// The next cell of the head frame: (index or SDU length, end of frame, transport header).
    fn next_cell(&mut self) -> (u16, bool, SegHdr) {
        let (sdu, tag) = *self
            .frames
            .front()
            .expect("backlog counts the frames' cells");
        let idx = self.head_sent;
        self.head_sent += 1;
        self.cells -= 1;
        if self.head_sent == aal5_cells(sdu) {
            self.frames.pop_front();
            self.head_sent = 0;
            (sdu as u16, true, tag)
        } else {
            (idx as u16, false, tag)
        }
    }
}

impl SegmentOut for FrameQueue {
    fn room(&self) -> bool {
        true
    }
    fn frame(&mut self, sdu: u32, seg: SegHdr) {
        crate::budget::deque_push(&self.frames, "the frames waiting at an ABR source's host");
        self.frames.push_back((sdu, seg));
        self.cells += aal5_cells(sdu) as u64;
    }
}

const INFINITE: u64 = u64::MAX;

/// TM 4.0 source end system.
#[derive(Clone, Debug)]
pub struct AbrSource {
    pub p: AbrParams,
    /// Allowed cell rate, Mb/s.
    pub acr: f64,
    feed: Feed,
    /// Data cells waiting (INFINITE for a persistent source while on).
    pub backlog: u64,
    /// Largest backlog seen (finite feeds): "ABR pushes the queues to the edge" (seed 002).
    pub max_backlog: u64,
    feed_next: Option<SimTime>,
    tx_next: Option<SimTime>,
    last_tx: Option<SimTime>,
    count: u32,
    last_frm: SimTime,
    first: bool,
    unack: u32,
    acr_area: f64,
    acr_t: SimTime,
    active_from: Option<SimTime>,
    /// Forward RM cells sent.
    pub frm_sent: u64,
    /// A bidirectional connection: this end is also the destination of the other direction's
    /// control loop and turns its forward RM cells around in rate (SES rule 3b, DES rules 1-4).
    pub turnaround: bool,
    /// DES rule 1: the EFCI state of the last data cell received from the other direction.
    efci: bool,
    /// The turned-around RM cell waiting for an in-rate opportunity (DES rule 3: one at most; a
    /// newer forward RM cell overwrites it).
    pending_brm: Option<RmFields>,
    /// An in-rate backward RM cell was sent since the last forward RM cell (rule 3b).
    brm_since_frm: bool,
    /// Backward RM cells sent in rate, and turned-around contents overwritten before they left.
    pub brm_sent: u64,
    pub brm_overwritten: u64,
    /// The cell interval at the last rate it was computed for (ACR not below TCR), so that an
    /// opportunity at an unchanged rate does not divide and round again ([`interval_ps`]);
    /// the rate is NaN until the first.
    gap: (f64, SimTime),
    /// The ACR integral at the end of warm-up.
    pub acr_mark: f64,
}

impl AbrSource {
    /// The `abr_sources` series: every ABR source at every sample.
    pub const PROBES: TableDecl = TableDecl {
        name: "abr_sources",
        doc: "Every ABR source at every sample",
        key: FLOW_KEY,
        columns: &[
            ColumnDecl::f64("acr_mbps", "Mb/s", "Allowed cell rate at the sample")
                .plot("acr", "ACR"),
        ],
        always: false,
        active: "",
    };

    /// Fill this source's row of the `abr_sources` series.
    pub fn probe(&self, mut row: Row<'_>) {
        row.f64("acr_mbps", self.acr);
    }

    pub fn new(p: AbrParams, feed: Feed) -> Self {
        let acr = p.icr;
        AbrSource {
            p,
            acr,
            feed,
            backlog: 0,
            max_backlog: 0,
            feed_next: None,
            tx_next: None,
            last_tx: None,
            count: 0,
            last_frm: 0,
            first: true,
            unack: 0,
            acr_area: 0.0,
            acr_t: 0,
            active_from: None,
            frm_sent: 0,
            turnaround: false,
            efci: false,
            pending_brm: None,
            brm_since_frm: false,
            brm_sent: 0,
            brm_overwritten: 0,
            gap: (f64::NAN, 0),
            acr_mark: 0.0,
        }
    }

    /// `interval_ps(ACR not below TCR)`, computed again only when that rate changed (the same
    /// function of the same value: the same result).
    #[inline]
    fn tx_interval(&mut self) -> SimTime {
        let r = self.acr.max(TCR_MBPS);
        if r.to_bits() != self.gap.0.to_bits() {
            self.gap = (r, interval_ps(r));
        }
        self.gap.1
    }

    /// A virtual source (its data comes from the upstream segment of a VS/VD switch).
    pub fn is_relay(&self) -> bool {
        matches!(self.feed, Feed::Relay(_))
    }

    /// The end of warm-up: the ACR integral, kept for the summary.
    pub fn mark_warmup(&mut self, now: SimTime) {
        self.acr_mark = self.acr_integral(now).0;
    }

    fn set_acr(&mut self, now: SimTime, acr: f64) {
        if self.active_from.is_some() {
            self.acr_area += self.acr * (now - self.acr_t) as f64;
        }
        self.acr_t = now;
        self.acr = acr;
    }

    /// Integral of ACR (Mb/s x ps) from the first data until `t`, and that start time.
    pub fn acr_integral(&self, t: SimTime) -> (f64, Option<SimTime>) {
        match self.active_from {
            Some(_) => (
                self.acr_area + self.acr * t.saturating_sub(self.acr_t) as f64,
                self.active_from,
            ),
            None => (0.0, None),
        }
    }

    /// The feeder above asked to be called by now.
    #[inline]
    pub fn feed_due(&self, now: SimTime) -> bool {
        self.feed_next.is_some_and(|t| t <= now)
    }

    /// The source's own feeds (persistent, relay) at `now`: the data waiting and when that
    /// changes next; then [`AbrSource::wake`]. A feed handed over from above has nothing to do
    /// here.
    pub fn own_feed(&mut self, now: SimTime) {
        match &mut self.feed {
            Feed::Persistent { start: s, stop } => {
                if now < *s {
                    self.feed_next = Some(*s);
                } else if now < *stop {
                    self.backlog = INFINITE;
                    self.feed_next = (*stop != SimTime::MAX).then_some(*stop);
                } else {
                    self.backlog = 0;
                    self.feed_next = None;
                }
            }
            Feed::Relay(q) => {
                self.backlog = q.len() as u64;
                self.feed_next = None;
            }
            Feed::Cells | Feed::Frames(_) => {}
        }
        self.wake(now);
    }

    /// The application above handed over `cells` data cells and asks to be called again at
    /// `next`; then [`AbrSource::wake`].
    pub fn fed_cells(&mut self, now: SimTime, cells: u64, next: Option<SimTime>) {
        self.backlog += cells;
        self.feed_next = next;
        self.wake(now);
    }

    /// The queue the host above hands its AAL5 frames to ([`Feed::Frames`]).
    pub fn frames(&mut self) -> &mut FrameQueue {
        match &mut self.feed {
            Feed::Frames(q) => q,
            _ => unreachable!("built: a host feeds a source whose feed is Frames"),
        }
    }

    /// The host above handed over frames ([`AbrSource::frames`]) and asks to be called again
    /// at `next`; then [`AbrSource::wake`].
    pub fn fed_frames(&mut self, now: SimTime, next: Option<SimTime>) {
        if let Feed::Frames(q) = &self.feed {
            self.backlog = q.cells;
        }
        self.feed_next = next;
        self.wake(now);
    }

    /// Start sending if data arrived while idle.
    pub fn wake(&mut self, now: SimTime) {
        if self.backlog != INFINITE {
            self.max_backlog = self.max_backlog.max(self.backlog);
        }
        if (self.backlog > 0 || self.pending_brm.is_some()) && self.tx_next.is_none() {
            // wake up: the next opportunity is one cell time at ACR after the last cell (a
            // source counts as active, for its mean ACR, from its first data)
            if self.active_from.is_none() && self.backlog > 0 {
                self.active_from = Some(now);
                self.acr_t = now;
            }
            self.tx_next = Some(self.next_opportunity(now));
        }
    }

    fn next_opportunity(&self, now: SimTime) -> SimTime {
        match self.last_tx {
            Some(t) => (t + interval_ps(self.acr.max(TCR_MBPS))).max(now),
            None => now,
        }
    }

    fn frm(&self) -> Cell {
        Cell {
            hdr: H_RM,
            rm: RmFields {
                er: self.p.pcr as f32,
                ccr: self.acr as f32,
                mcr: self.p.mcr as f32,
                bits: 0,
            },
            ..Default::default()
        }
    }

    /// Send the waiting turned-around RM cell in rate (rule 3b); it counts among the in-rate
    /// cells between forward RM cells.
    fn send_brm(&mut self, ctx: &mut Ctx) {
        let rm = self.pending_brm.take().expect("a turned-around cell waits");
        ctx.send_cell(Cell {
            hdr: H_RM,
            rm,
            ..Default::default()
        });
        self.brm_sent += 1;
        self.brm_since_frm = true;
        self.count += 1;
    }

    /// One transmission opportunity (SES rules 3-7, 10).
    fn opportunity(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        if self.backlog == 0 {
            if self.pending_brm.is_some() {
                // rule 3b with no data waiting: the turned-around cell goes (an end with no
                // data of its own sends no forward RM cells, as elsewhere in this model)
                self.send_brm(ctx);
                self.last_tx = Some(now);
                self.tx_next = Some(now + self.tx_interval());
            } else {
                self.tx_next = None; // idle until data arrives
            }
            return;
        }
        let p = &self.p;
        if self.acr < TCR_MBPS {
            // rule 10: too slow to send in rate; out-of-rate FRM (CLP = 1) at TCR
            let mut c = self.frm();
            c.hdr |= H_CLP;
            ctx.send_cell(c);
            self.frm_sent += 1;
        } else {
            let frm_due = self.first
                || self.count >= p.nrm - 1
                || (self.count >= p.mrm && now.saturating_sub(self.last_frm) >= p.trm);
            if frm_due {
                // rule 5: use it or lose it
                if !self.first && self.acr > p.icr && now - self.last_frm > p.adtf {
                    let icr = p.icr;
                    self.set_acr(now, icr);
                }
                // rule 6: too many FRMs without a BRM
                if self.unack >= self.p.crm && self.p.cdf > 0.0 {
                    let a = (self.acr - self.acr * self.p.cdf).max(self.p.mcr);
                    self.set_acr(now, a);
                }
                ctx.send_cell(self.frm()); // rule 7
                self.frm_sent += 1;
                self.unack = self.unack.saturating_add(1);
                self.count = 0;
                self.last_frm = now;
                self.first = false;
                self.brm_since_frm = false;
            } else if self.pending_brm.is_some() && !self.brm_since_frm {
                // rule 3b: no in-rate BRM since the last FRM (with data waiting)
                self.send_brm(ctx);
            } else {
                // rules 3c, 4, 11: a data cell, CLP = 0, EFCI = 0
                if let Feed::Relay(q) = &mut self.feed {
                    let mut c = q.pop_front().expect("backlog counts the relay queue");
                    c.hdr &= !(H_CLP | H_EFCI);
                    ctx.send_cell(c);
                } else if let Feed::Frames(q) = &mut self.feed {
                    let (len, eof, tag) = q.next_cell();
                    ctx.send_frame_cell(len, eof, tag);
                } else {
                    ctx.send_cells(1);
                }
                if self.backlog != INFINITE {
                    self.backlog -= 1;
                }
                self.count += 1;
            }
        }
        self.last_tx = Some(now);
        self.tx_next = Some(now + self.tx_interval());
    }

    /// A transmission opportunity, if one is due by now.
    #[inline]
    pub fn send_due(&mut self, ctx: &mut Ctx) {
        if self.tx_next.is_some_and(|t| t <= ctx.now) {
            self.opportunity(ctx);
        }
    }

    /// Ask for the earliest of the feed's and the next transmission opportunity's times.
    pub fn request_timer(&self, ctx: &mut Ctx) {
        let t = match (self.feed_next, self.tx_next) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(t) = t {
            ctx.set_timer(t);
        }
    }

    /// SES rules 8 and 9 on a backward RM cell.
    pub fn on_brm(&mut self, now: SimTime, rm: &RmFields) {
        let p = &self.p;
        if rm.bits & RM_BN == 0 {
            self.unack = 0;
        }
        let mut acr = self.acr;
        if rm.bits & RM_CI != 0 {
            acr = (acr - acr * p.rdf).max(p.mcr);
        } else if rm.bits & RM_NI == 0 {
            acr = (acr + p.rif * p.pcr).min(p.pcr);
        }
        // an ER field equal to PCR (in the field's f32 precision) does not limit
        let er = if rm.er >= p.pcr as f32 {
            p.pcr
        } else {
            rm.er as f64
        };
        acr = acr.min(er).max(p.mcr);
        self.set_acr(now, acr);
        if self.tx_next.is_some() {
            self.tx_next = Some(self.next_opportunity(now));
        }
    }
}

/// The source with its own feed (persistent, relay) or a feed handed over from above, called
/// as its end's rate control (`crate::host::abr_end` runs the feeder above first).
impl Application for AbrSource {
    fn start(&mut self, ctx: &mut Ctx) {
        self.own_feed(ctx.now);
        self.request_timer(ctx);
    }
    fn on_timer(&mut self, ctx: &mut Ctx) {
        if self.feed_due(ctx.now) {
            self.own_feed(ctx.now);
        }
        self.send_due(ctx);
        self.request_timer(ctx);
    }
    fn on_cell(&mut self, ctx: &mut Ctx, cell: &Cell) {
        if cell.is_rm() {
            if cell.rm.bits & RM_DIR != 0 {
                self.on_brm(ctx.now, &cell.rm);
                self.request_timer(ctx);
            } else if self.turnaround {
                // DES rules 2-3: turn the other direction's FRM around; it waits for an
                // in-rate opportunity, and newer contents overwrite a cell still waiting
                let mut rm = cell.rm;
                rm.bits = (rm.bits | RM_DIR) & !RM_BN;
                if self.efci {
                    rm.bits |= RM_CI;
                    self.efci = false;
                }
                if self.pending_brm.replace(rm).is_some() {
                    self.brm_overwritten += 1;
                }
                self.wake(ctx.now);
                self.request_timer(ctx);
            }
        } else if self.turnaround {
            self.efci = cell.hdr & H_EFCI != 0; // DES rule 1
        } else if let Feed::Relay(q) = &mut self.feed {
            // a virtual source: a data cell from the upstream segment joins the per-VC queue
            crate::budget::deque_push(q, "the relay queue of an ABR virtual source");
            q.push_back(*cell);
            self.own_feed(ctx.now);
            self.request_timer(ctx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Asks;
    use crate::rng::LazyRng;

    fn params() -> AbrParams {
        AbrParams {
            pcr: 150.0,
            mcr: 1.0,
            icr: 10.0,
            rif: 1.0 / 16.0,
            rdf: 1.0 / 16.0,
            nrm: 32,
            mrm: 2,
            trm: 100_000_000_000,
            cdf: 0.5,
            crm: 4,
            adtf: 500_000_000_000,
        }
    }

    /// Drive a persistent source for `cells` opportunities with no feedback; returns the FRM flags.
    fn drive(src: &mut AbrSource, cells: usize) -> Vec<bool> {
        let mut rng = LazyRng::new(1, "t");
        let mut out = Asks::default();
        let mut ctx = Ctx::new(0, &mut rng, &mut out);
        src.start(&mut ctx);
        let mut t = ctx.timer_requested();
        let mut out = vec![];
        while out.len() < cells {
            let now = t.unwrap();
            let mut asks = Asks::default();
            let mut ctx = Ctx::new(now, &mut rng, &mut asks);
            src.on_timer(&mut ctx);
            if ctx.cell_requested().is_some() {
                out.push(true);
            } else if ctx.cells_requested() > 0 {
                out.push(false);
            }
            t = ctx.timer_requested();
        }
        out
    }

    fn persistent(p: AbrParams) -> AbrSource {
        AbrSource::new(
            p,
            Feed::Persistent {
                start: 0,
                stop: SimTime::MAX,
            },
        )
    }

    #[test]
    fn frm_spacing_nrm() {
        for nrm in [2u32, 8, 32, 256] {
            let mut p = params();
            p.nrm = nrm;
            p.crm = u32::MAX;
            let mut s = persistent(p);
            let flags = drive(&mut s, 2048);
            let idx: Vec<usize> = flags
                .iter()
                .enumerate()
                .filter(|(_, f)| **f)
                .map(|(i, _)| i)
                .collect();
            assert_eq!(idx[0], 0, "rule 2: the first cell is an FRM");
            assert!(
                idx.windows(2).all(|w| w[1] - w[0] == nrm as usize),
                "nrm {nrm}"
            );
        }
    }

    #[test]
    fn frm_spacing_trm_mrm() {
        // at 0.0424 Mb/s = 100 cells/s a cell every 10 ms; Trm = 25 ms, Mrm = 2: an FRM once
        // at least 2 cells and 25 ms have passed since the last FRM -> every 3rd cell
        let mut p = params();
        p.icr = 0.0424;
        p.mcr = 0.0;
        p.trm = 25_000_000_000;
        p.crm = u32::MAX;
        let mut s = persistent(p.clone());
        let flags = drive(&mut s, 30);
        let idx: Vec<usize> = flags
            .iter()
            .enumerate()
            .filter(|(_, f)| **f)
            .map(|(i, _)| i)
            .collect();
        assert!(idx.windows(2).all(|w| w[1] - w[0] == 3), "{idx:?}");
        // Mrm = 4 dominates: every 5th cell
        p.mrm = 4;
        let mut s = persistent(p);
        let flags = drive(&mut s, 30);
        let idx: Vec<usize> = flags
            .iter()
            .enumerate()
            .filter(|(_, f)| **f)
            .map(|(i, _)| i)
            .collect();
        assert!(idx.windows(2).all(|w| w[1] - w[0] == 5), "{idx:?}");
    }

    #[test]
    fn rule6_cdf_cuts_acr_without_brms() {
        // CRM = 4: the 5th FRM without a BRM and every later one cut ACR by CDF = 1/2
        let mut p = params();
        p.nrm = 2;
        p.icr = 64.0;
        p.mcr = 1.0;
        let mut s = persistent(p);
        drive(&mut s, 2 * 4); // 4 FRMs
        assert_eq!(s.acr, 64.0);
        drive_more(&mut s, 2);
        assert_eq!(s.acr, 32.0);
        drive_more(&mut s, 2);
        assert_eq!(s.acr, 16.0);
        // a BRM with BN = 0 resets the count (and rule 8 raises ACR); it arrives at the time of
        // the last cell sent, as in a run (time never goes back: the source integrates ACR
        // over time from `acr_t`)
        s.on_brm(
            s.last_tx.unwrap(),
            &RmFields {
                er: 1000.0,
                ccr: 0.0,
                mcr: 0.0,
                bits: RM_DIR,
            },
        );
        let a = s.acr;
        drive_more(&mut s, 8);
        assert_eq!(s.acr, a);
    }

    fn drive_more(src: &mut AbrSource, cells: usize) {
        let mut rng = LazyRng::new(1, "t");
        let mut n = 0;
        let mut now = src.tx_next.unwrap();
        while n < cells {
            let mut out = Asks::default();
            let mut ctx = Ctx::new(now, &mut rng, &mut out);
            src.on_timer(&mut ctx);
            if ctx.cell_requested().is_some() || ctx.cells_requested() > 0 {
                n += 1;
            }
            now = ctx.timer_requested().unwrap();
        }
    }

    #[test]
    fn rule5_adtf_resets_acr_to_icr_after_idle() {
        let mut p = params();
        p.crm = u32::MAX;
        let mut s = AbrSource::new(
            p,
            Feed::Persistent {
                start: 0,
                stop: 10_000_000_000,
            },
        );
        drive(&mut s, 40);
        s.on_brm(
            1,
            &RmFields {
                er: 150.0,
                ccr: 0.0,
                mcr: 0.0,
                bits: RM_DIR,
            },
        );
        assert!(s.acr > s.p.icr);
        let acr_before = s.acr;
        // the source falls idle at 10 ms; data again at 0.6 s (> ADTF = 0.5 s after the last FRM)
        s.feed = Feed::Persistent {
            start: 600_000_000_000,
            stop: SimTime::MAX,
        };
        s.backlog = 0;
        s.tx_next = None;
        s.count = 31; // the next cell is an FRM
        let mut rng = LazyRng::new(1, "t");
        let mut out = Asks::default();
        let mut ctx = Ctx::new(600_000_000_000, &mut rng, &mut out);
        s.feed_next = Some(600_000_000_000);
        s.on_timer(&mut ctx);
        assert!(ctx.cell_requested().is_some());
        assert_eq!(s.acr, s.p.icr, "was {acr_before}");
    }

    #[test]
    fn rule8_and_rule9() {
        let mut s = persistent(params());
        let brm = |bits, er| RmFields {
            er,
            ccr: 0.0,
            mcr: 0.0,
            bits: RM_DIR | bits,
        };
        s.on_brm(0, &brm(0, 1000.0)); // NI = CI = 0: + RIF x PCR
        assert_eq!(s.acr, 10.0 + 150.0 / 16.0);
        s.on_brm(0, &brm(RM_NI, 1000.0)); // NI: no increase
        assert_eq!(s.acr, 10.0 + 150.0 / 16.0);
        s.on_brm(0, &brm(RM_CI, 1000.0)); // CI: - ACR x RDF
        assert_eq!(s.acr, (10.0 + 150.0 / 16.0) * 15.0 / 16.0);
        s.on_brm(0, &brm(0, 5.0)); // rule 9: ER caps
        assert_eq!(s.acr, 5.0);
        s.on_brm(0, &brm(0, 0.1)); // never below MCR
        assert_eq!(s.acr, 1.0);
        for _ in 0..40 {
            s.on_brm(0, &brm(0, 1000.0));
        }
        assert_eq!(s.acr, 150.0, "never above PCR");
    }
}
