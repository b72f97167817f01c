//! MPEG-2 transport-stream video over VBR: the long-range-dependent source of seed 000
//! section 4 (EXPERIMENTS.md S000, issue 4 item 4).
//!
//! One [`VideoSource`] is a transport-stream generator, its network element and its leaky bucket:
//! - successive inter-MPCR intervals `T_i ~ Uniform[20 ms, 100 ms]` (bounds settable), drawn as
//!   integer picoseconds;
//! - the rates `R_1, R_2, ...` are fractional Gaussian noise ([`crate::fgn`], Hurst 0.8 by
//!   default, Paxson's FFT method as in the seed's reference \[13\]) scaled to mean `m` and standard
//!   deviation `s`, generated in blocks (2^14 values by default) and regenerated when a block is
//!   used up (a new, independent block: the long-range dependence spans one block);
//! - values below 0 or above 15 Mb/s (bounds settable) are *skipped*, not clipped: the next value
//!   of the sequence is taken instead (section 4.1, the seed's "fourth approach"); so the realised
//!   mean differs from `m`, as the seed reports;
//! - inside interval `i` cells are evenly spaced at `R_i`. The schedule is a fluid one with the
//!   fraction of a cell carried across interval boundaries in exact integer arithmetic (bit x ps
//!   credit, [`crate::time::CELL_BIT_PS`] per cell), so the cells sent over any span equal
//!   `sum R_i T_i / 424` to within one cell, with no drift;
//! - a peak leaky bucket (15 Mb/s): no two cells of a source leave closer than
//!   `ceil(424e12 / peak_bps)` ps; a cell that would is delayed (a spacer, no loss).
//!
//! [`Multiplex`] puts N sources (9 in the seed) on one connection: it keeps each source's next
//! cell time and emits the earliest; sources due at the same picosecond leave in the same call
//! (`send_cells(k)`), so ties are deterministic. Each source of a multiplex draws from its own
//! stream, derived in order at start from the endpoint's stream, so a source's sequence does not
//! depend on how the others interleave with it.
//!
//! All randomness comes from the endpoint's stream ([`crate::traffic::Ctx::rng`]); the FGN
//! block, its FFT buffers and the spectrum are allocated at build time and reused, so nothing is
//! allocated per cell or per block.

use crate::fgn::{FgnError, FgnGenerator, FgnMethod};
use crate::time::{secs_to_ps, SimDuration, SimTime, CELL_BIT_PS};
use crate::traffic::{Application, Ctx, Rng};
use rand::{RngExt, SeedableRng};
use thiserror::Error;

/// Parameters of one video source (seed 000 section 4); defaults are the seed's.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoParams {
    /// Mean `m` of the FGN rate sequence, Mb/s (before skipping out-of-range values).
    pub mean_mbps: f64,
    /// Standard deviation `s` of the FGN rate sequence, Mb/s.
    pub std_mbps: f64,
    /// Hurst parameter of the rate sequence, in (0.5, 1). Default 0.8.
    pub hurst: f64,
    /// FGN generator. Default Paxson's FFT method (the seed's).
    pub method: FgnMethod,
    /// FGN values generated per block (a power of two for Paxson). Default 2^14.
    pub block_len: usize,
    /// Rates below this are skipped, Mb/s. Default 0.
    pub min_rate_mbps: f64,
    /// Rates above this are skipped, Mb/s. Default 15.
    pub max_rate_mbps: f64,
    /// Peak rate of the per-source leaky bucket, Mb/s. Default 15.
    pub peak_mbps: f64,
    /// Shortest inter-MPCR interval, seconds. Default 0.020.
    pub interval_min_s: f64,
    /// Longest inter-MPCR interval, seconds. Default 0.100.
    pub interval_max_s: f64,
    /// Time the first interval begins.
    pub start: SimTime,
    /// No cell at or after this time.
    pub stop: SimTime,
}

impl Default for VideoParams {
    fn default() -> Self {
        VideoParams {
            mean_mbps: 5.0,
            std_mbps: 5.0,
            hurst: 0.8,
            method: FgnMethod::Paxson,
            block_len: 1 << 14,
            min_rate_mbps: 0.0,
            max_rate_mbps: 15.0,
            peak_mbps: 15.0,
            interval_min_s: 0.020,
            interval_max_s: 0.100,
            start: 0,
            stop: SimTime::MAX,
        }
    }
}

impl VideoParams {
    /// The seed's source with mean `m` and standard deviation `s` (Mb/s), other fields default.
    pub fn new(mean_mbps: f64, std_mbps: f64) -> Self {
        VideoParams {
            mean_mbps,
            std_mbps,
            ..Default::default()
        }
    }

    /// Check every field (no key path here: the scenario layer adds it).
    pub fn validate(&self) -> Result<(), VideoError> {
        crate::fgn::validate(
            self.method,
            self.block_len,
            self.hurst,
            self.mean_mbps,
            self.std_mbps,
        )?;
        if self.mean_mbps <= 0.0 {
            return Err(VideoError::NonPositiveMean(self.mean_mbps));
        }
        let (lo, hi) = (self.min_rate_mbps, self.max_rate_mbps);
        if !(lo >= 0.0 && lo < hi) || hi.is_nan() {
            return Err(VideoError::RateBounds { min: lo, max: hi });
        }
        if !(self.mean_mbps >= lo && self.mean_mbps <= hi) {
            return Err(VideoError::MeanOutsideBounds {
                mean: self.mean_mbps,
                min: lo,
                max: hi,
            });
        }
        if !(self.peak_mbps > 0.0 && self.peak_mbps.is_finite() && self.peak_mbps * 1e6 >= 1.0) {
            return Err(VideoError::Peak(self.peak_mbps));
        }
        let (a, b) = (self.interval_min_s, self.interval_max_s);
        if !(a.is_finite() && b.is_finite() && secs_to_ps(a) >= 1 && a <= b) {
            return Err(VideoError::Interval { min: a, max: b });
        }
        Ok(())
    }
}

/// Bad video-source parameters.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum VideoError {
    #[error(transparent)]
    Fgn(#[from] FgnError),
    #[error("mean rate must be positive, got {0} Mb/s")]
    NonPositiveMean(f64),
    #[error("rate bounds must satisfy 0 <= min < max, got [{min}, {max}] Mb/s")]
    RateBounds { min: f64, max: f64 },
    #[error("mean rate {mean} Mb/s lies outside the rate bounds [{min}, {max}] Mb/s")]
    MeanOutsideBounds { mean: f64, min: f64, max: f64 },
    #[error("peak rate must be positive and finite, got {0} Mb/s")]
    Peak(f64),
    #[error("inter-MPCR interval bounds must satisfy 0 < min <= max, got [{min}, {max}] s")]
    Interval { min: f64, max: f64 },
    #[error("a multiplex needs at least one video source")]
    NoSources,
}

/// What a source (or a multiplex, summed) has done so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VideoStats {
    /// Cells sent.
    pub cells: u64,
    /// Intervals begun (each with an accepted rate).
    pub intervals: u64,
    /// FGN values taken from the blocks, accepted or not.
    pub rates_drawn: u64,
    /// FGN values skipped because they were outside the rate bounds.
    pub rates_dropped: u64,
    /// FGN blocks generated.
    pub fgn_blocks: u64,
    /// Sum of the accepted rates, Mb/s (divide by `intervals` for their mean).
    pub accepted_rate_sum_mbps: f64,
    /// Smallest and largest rate used for an interval, Mb/s (+inf / -inf before the first).
    pub min_rate_used_mbps: f64,
    pub max_rate_used_mbps: f64,
    /// Sum over begun intervals of `R_i x T_i`, bits (the offered load of the fluid schedule).
    pub offered_bits: f64,
    /// Sum of the begun intervals' lengths, ps.
    pub interval_time_ps: u64,
    /// Cells the peak leaky bucket had to delay.
    pub cells_delayed_by_peak: u64,
}

impl Default for VideoStats {
    fn default() -> Self {
        VideoStats {
            cells: 0,
            intervals: 0,
            rates_drawn: 0,
            rates_dropped: 0,
            fgn_blocks: 0,
            accepted_rate_sum_mbps: 0.0,
            min_rate_used_mbps: f64::INFINITY,
            max_rate_used_mbps: f64::NEG_INFINITY,
            offered_bits: 0.0,
            interval_time_ps: 0,
            cells_delayed_by_peak: 0,
        }
    }
}

impl VideoStats {
    /// Mean of the accepted (used) rates, Mb/s.
    pub fn mean_accepted_rate_mbps(&self) -> f64 {
        self.accepted_rate_sum_mbps / self.intervals as f64
    }
    /// Fraction of FGN values skipped.
    pub fn drop_fraction(&self) -> f64 {
        self.rates_dropped as f64 / self.rates_drawn as f64
    }
    /// Add another source's counts.
    pub fn merge(&mut self, o: &VideoStats) {
        self.cells += o.cells;
        self.intervals += o.intervals;
        self.rates_drawn += o.rates_drawn;
        self.rates_dropped += o.rates_dropped;
        self.fgn_blocks += o.fgn_blocks;
        self.accepted_rate_sum_mbps += o.accepted_rate_sum_mbps;
        self.min_rate_used_mbps = self.min_rate_used_mbps.min(o.min_rate_used_mbps);
        self.max_rate_used_mbps = self.max_rate_used_mbps.max(o.max_rate_used_mbps);
        self.offered_bits += o.offered_bits;
        self.interval_time_ps += o.interval_time_ps;
        self.cells_delayed_by_peak += o.cells_delayed_by_peak;
    }
}

/// Blocks without a single in-range value after which a rate is clamped into the bounds instead
/// (only reachable with bounds far narrower than the standard deviation; counted as drawn).
const MAX_EMPTY_BLOCKS: u32 = 8;

/// One MPEG-2 transport-stream video source with its 15 Mb/s peak leaky bucket.
#[derive(Clone)]
pub struct VideoSource {
    p: VideoParams,
    gen: FgnGenerator,
    block: Vec<f64>,
    pos: usize,
    tmin: SimDuration,
    tmax: SimDuration,
    /// Minimum spacing of two departures, ps (the peak rounded up).
    peak_ps: SimDuration,
    /// Time the credit refers to.
    t0: SimTime,
    /// End of the current interval.
    end: SimTime,
    /// Rate of the current interval, bit/s (0 allowed).
    rate_bps: u64,
    /// Accumulated credit at `t0`, bit x ps, always below `CELL_BIT_PS`.
    credit: u64,
    /// Last departure.
    last: Option<SimTime>,
    /// Next departure, `None` when finished or not started.
    next: Option<SimTime>,
    stats: VideoStats,
    #[cfg(test)]
    rate_log: Vec<(SimTime, SimDuration, f64)>,
}

impl std::fmt::Debug for VideoSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // the FGN block (2^14 values) is left out
        f.debug_struct("VideoSource")
            .field("params", &self.p)
            .field("block_pos", &self.pos)
            .field("interval_end", &self.end)
            .field("rate_bps", &self.rate_bps)
            .field("next", &self.next)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl VideoSource {
    /// A source with these parameters; the FGN spectrum, FFT plan and block are allocated here.
    pub fn new(params: VideoParams) -> Result<Self, VideoError> {
        params.validate()?;
        let gen = FgnGenerator::new(
            params.method,
            params.block_len,
            params.hurst,
            params.mean_mbps,
            params.std_mbps,
        )?;
        let peak_bps = (params.peak_mbps * 1e6).round() as u64;
        Ok(VideoSource {
            block: vec![0.0; params.block_len],
            pos: params.block_len,
            tmin: secs_to_ps(params.interval_min_s),
            tmax: secs_to_ps(params.interval_max_s),
            peak_ps: CELL_BIT_PS.div_ceil(peak_bps),
            t0: params.start,
            end: params.start,
            rate_bps: 0,
            credit: 0,
            last: None,
            next: None,
            stats: VideoStats::default(),
            gen,
            p: params,
            #[cfg(test)]
            rate_log: Vec::new(),
        })
    }

    pub fn params(&self) -> &VideoParams {
        &self.p
    }
    pub fn stats(&self) -> &VideoStats {
        &self.stats
    }
    /// The rate of the current interval, Mb/s (as rounded to bit/s).
    pub fn current_rate_mbps(&self) -> f64 {
        self.rate_bps as f64 / 1e6
    }
    /// Time of the next cell, if any.
    pub fn next_departure(&self) -> Option<SimTime> {
        self.next
    }

    /// Begin at `params.start`, drawing from `rng`; returns the first departure. Called by
    /// `Application::start` (or by a [`Multiplex`] with the source's own stream).
    pub fn begin(&mut self, rng: &mut Rng) -> Option<SimTime> {
        // the first block is drawn first, then one interval length per interval
        self.gen.fill(rng, &mut self.block);
        self.pos = 0;
        self.stats.fgn_blocks += 1;
        self.t0 = self.p.start;
        self.end = self.p.start;
        self.rate_bps = 0;
        self.credit = 0;
        self.last = None;
        self.next = None;
        self.next = self.advance(rng);
        self.next
    }

    /// The next in-range FGN value, regenerating the block when it is used up.
    fn next_rate(&mut self, rng: &mut Rng) -> f64 {
        let (lo, hi) = (self.p.min_rate_mbps, self.p.max_rate_mbps);
        let limit = MAX_EMPTY_BLOCKS as u64 * self.block.len() as u64;
        let mut rejected = 0u64;
        loop {
            if self.pos == self.block.len() {
                self.gen.fill(rng, &mut self.block);
                self.pos = 0;
                self.stats.fgn_blocks += 1;
            }
            let x = self.block[self.pos];
            self.pos += 1;
            self.stats.rates_drawn += 1;
            if x >= lo && x <= hi {
                return x;
            }
            rejected += 1;
            if rejected >= limit {
                return x.clamp(lo, hi);
            }
            self.stats.rates_dropped += 1;
        }
    }

    /// Start the next interval at `self.end`.
    fn new_interval(&mut self, rng: &mut Rng) {
        let len = rng.random_range(self.tmin..=self.tmax);
        let r = self.next_rate(rng);
        self.rate_bps = (r * 1e6).round() as u64;
        self.t0 = self.end;
        self.end = self.end.saturating_add(len);
        let s = &mut self.stats;
        s.intervals += 1;
        s.accepted_rate_sum_mbps += r;
        s.min_rate_used_mbps = s.min_rate_used_mbps.min(r);
        s.max_rate_used_mbps = s.max_rate_used_mbps.max(r);
        s.offered_bits += self.rate_bps as f64 * len as f64 * 1e-12;
        s.interval_time_ps += len;
        #[cfg(test)]
        self.rate_log.push((self.t0, len, r));
    }

    /// The unshaped time of the next cell (at or after `stop` means none before the stop).
    fn ideal_next(&mut self, rng: &mut Rng) -> SimTime {
        loop {
            if self.rate_bps > 0 {
                let need = CELL_BIT_PS - self.credit;
                let dt = need.div_ceil(self.rate_bps);
                if let Some(t) = self.t0.checked_add(dt).filter(|&t| t <= self.end) {
                    self.credit = (self.credit as u128 + self.rate_bps as u128 * dt as u128
                        - CELL_BIT_PS as u128) as u64;
                    self.t0 = t;
                    return t;
                }
                // less than one cell's credit left in this interval: carry it over
                self.credit += self.rate_bps * (self.end - self.t0);
            }
            self.t0 = self.end;
            if self.end >= self.p.stop {
                return self.p.stop;
            }
            self.new_interval(rng);
        }
    }

    /// Compute the departure after the current one (peak spacing applied); `None` once past
    /// `stop`.
    pub fn advance(&mut self, rng: &mut Rng) -> Option<SimTime> {
        let ideal = self.ideal_next(rng);
        let t = match self.last {
            Some(l) if l.saturating_add(self.peak_ps) > ideal => {
                self.stats.cells_delayed_by_peak += 1;
                l.saturating_add(self.peak_ps)
            }
            _ => ideal,
        };
        if t >= self.p.stop {
            self.next = None;
            return None;
        }
        self.last = Some(t);
        self.next = Some(t);
        Some(t)
    }
}

impl Application for VideoSource {
    fn start(&mut self, ctx: &mut Ctx) {
        if let Some(t) = self.begin(ctx.rng) {
            ctx.set_timer(t);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx) {
        if self.next.is_some_and(|t| t <= ctx.now) {
            ctx.send_cells(1);
            self.stats.cells += 1;
            self.advance(ctx.rng);
        }
        if let Some(t) = self.next {
            ctx.set_timer(t);
        }
    }
}

/// N video sources multiplexed onto one connection (seed 000: 9 onto one VBR VC).
#[derive(Clone, Debug)]
pub struct Multiplex {
    sources: Vec<VideoSource>,
    rngs: Vec<Rng>,
    /// Next departure of each source, `SimTime::MAX` when finished.
    next: Vec<SimTime>,
}

impl Multiplex {
    /// `n` independent sources with the same parameters.
    pub fn new(params: &VideoParams, n: usize) -> Result<Self, VideoError> {
        let sources = (0..n)
            .map(|_| VideoSource::new(params.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        Self::from_sources(sources)
    }

    /// A multiplex of the given sources (their parameters may differ).
    pub fn from_sources(sources: Vec<VideoSource>) -> Result<Self, VideoError> {
        if sources.is_empty() {
            return Err(VideoError::NoSources);
        }
        let n = sources.len();
        Ok(Multiplex {
            sources,
            rngs: Vec::with_capacity(n),
            next: vec![SimTime::MAX; n],
        })
    }

    pub fn sources(&self) -> &[VideoSource] {
        &self.sources
    }

    /// The sources' statistics summed.
    pub fn stats(&self) -> VideoStats {
        let mut s = VideoStats::default();
        for v in &self.sources {
            s.merge(v.stats());
        }
        s
    }

    /// Derive the per-source streams from the endpoint's stream, in source order.
    pub fn source_streams(endpoint: &mut Rng, n: usize) -> Vec<Rng> {
        (0..n).map(|_| Rng::from_rng(endpoint)).collect()
    }

    fn earliest(&self) -> SimTime {
        self.next.iter().copied().min().unwrap_or(SimTime::MAX)
    }
}

impl Application for Multiplex {
    fn start(&mut self, ctx: &mut Ctx) {
        self.rngs = Self::source_streams(ctx.rng, self.sources.len());
        for (k, (s, r)) in self
            .sources
            .iter_mut()
            .zip(self.rngs.iter_mut())
            .enumerate()
        {
            self.next[k] = s.begin(r).unwrap_or(SimTime::MAX);
        }
        let t = self.earliest();
        if t != SimTime::MAX {
            ctx.set_timer(t);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let mut due = 0u32;
        for k in 0..self.sources.len() {
            if self.next[k] <= now {
                due += 1;
                let s = &mut self.sources[k];
                s.stats.cells += 1;
                self.next[k] = s.advance(&mut self.rngs[k]).unwrap_or(SimTime::MAX);
            }
        }
        if due > 0 {
            ctx.send_cells(due);
        }
        let t = self.earliest();
        if t != SimTime::MAX {
            ctx.set_timer(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fgn::FgnGenerator;
    use crate::time::PS_PER_S;
    use crate::traffic::stream;

    /// Run an application alone until `until`, calling `f(time, cells)` for each emission.
    fn drive<A: Application>(
        app: &mut A,
        until: SimTime,
        rng: &mut Rng,
        mut f: impl FnMut(SimTime, u32),
    ) {
        let mut ctx = Ctx::new(0, rng);
        app.start(&mut ctx);
        let mut next = ctx.timer_requested();
        while let Some(t) = next {
            if t > until {
                break;
            }
            let mut ctx = Ctx::new(t, rng);
            app.on_timer(&mut ctx);
            if ctx.cells_requested() > 0 {
                f(t, ctx.cells_requested());
            }
            next = ctx.timer_requested();
        }
    }

    #[test]
    fn validation() {
        let ok = VideoParams::new(5.0, 5.0);
        assert!(ok.validate().is_ok());
        let bad = |f: fn(&mut VideoParams)| {
            let mut p = VideoParams::new(5.0, 5.0);
            f(&mut p);
            VideoSource::new(p).unwrap_err()
        };
        assert!(matches!(
            bad(|p| p.hurst = 1.0),
            VideoError::Fgn(FgnError::HurstOutOfRange(_))
        ));
        assert!(matches!(
            bad(|p| p.std_mbps = -1.0),
            VideoError::Fgn(FgnError::BadStd(_))
        ));
        assert!(matches!(
            bad(|p| p.mean_mbps = -1.0),
            VideoError::NonPositiveMean(_)
        ));
        assert!(matches!(
            bad(|p| p.block_len = 1000),
            VideoError::Fgn(FgnError::NotPowerOfTwo(1000))
        ));
        assert!(matches!(
            bad(|p| p.max_rate_mbps = 4.0),
            VideoError::MeanOutsideBounds { .. }
        ));
        assert!(matches!(
            bad(|p| p.min_rate_mbps = 20.0),
            VideoError::RateBounds { .. }
        ));
        assert!(matches!(bad(|p| p.peak_mbps = 0.0), VideoError::Peak(_)));
        assert!(matches!(
            bad(|p| p.interval_min_s = 0.2),
            VideoError::Interval { .. }
        ));
        assert!(matches!(
            bad(|p| p.interval_min_s = 0.0),
            VideoError::Interval { .. }
        ));
        assert_eq!(
            Multiplex::from_sources(vec![]).unwrap_err(),
            VideoError::NoSources
        );
        let mut p = VideoParams::new(5.0, 5.0);
        p.method = FgnMethod::DaviesHarte;
        p.block_len = 1000;
        assert!(VideoSource::new(p).is_ok());
    }

    /// Long run of one source: cell spacing, rate bounds, mean rate, skipped values.
    #[test]
    fn single_source_rates_spacing_and_mean() {
        for (m, s) in [(5.0, 5.0), (7.5, 7.0), (10.0, 5.0)] {
            let secs = 1500u64;
            let mut src = VideoSource::new(VideoParams::new(m, s)).unwrap();
            let mut rng = stream(11, "connections.vbr.source");
            let peak_ps = CELL_BIT_PS.div_ceil(15_000_000);
            let (mut cells, mut last, mut min_gap) = (0u64, None::<SimTime>, u64::MAX);
            drive(&mut src, secs * PS_PER_S, &mut rng, |t, n| {
                assert_eq!(n, 1);
                if let Some(l) = last {
                    min_gap = min_gap.min(t - l);
                }
                last = Some(t);
                cells += 1;
            });
            let st = *src.stats();
            // no two cells closer than the 15 Mb/s peak spacing
            assert!(min_gap >= peak_ps, "min gap {min_gap} < {peak_ps}");
            // rates outside [0, 15] never used, and some were skipped
            assert!(st.min_rate_used_mbps >= 0.0 && st.max_rate_used_mbps <= 15.0);
            assert!(src
                .rate_log
                .iter()
                .all(|&(_, _, r)| (0.0..=15.0).contains(&r)));
            assert!(st.rates_dropped > 0);
            // long-run cell rate vs the mean of the accepted rates
            let rate = cells as f64 * 424.0 / secs as f64 / 1e6;
            let acc = st.mean_accepted_rate_mbps();
            // vs the exact fluid offered load of the intervals inside the run
            let (mut bits, mut inside) = (0.0, 0u64);
            for &(t0, len, r) in &src.rate_log {
                let e = (t0 + len).min(secs * PS_PER_S);
                if t0 < e {
                    bits += (r * 1e6).round() * (e - t0) as f64 * 1e-12;
                    inside += 1;
                }
            }
            let fluid_cells = bits / 424.0;
            eprintln!(
                "m={m} s={s}: {secs} s, {} intervals, {:.1}% of FGN values skipped, accepted mean {acc:.3} Mb/s, \
                 cell rate {rate:.3} Mb/s ({:+.2}%), cells {cells} vs fluid {fluid_cells:.1}, min gap {min_gap} ps, {} delayed by peak",
                inside,
                100.0 * st.drop_fraction(),
                100.0 * (rate / acc - 1.0),
                st.cells_delayed_by_peak
            );
            assert!(
                (cells as f64 - fluid_cells).abs() <= 2.0,
                "{cells} vs {fluid_cells}"
            );
            assert!(
                (rate / acc - 1.0).abs() < 0.03,
                "rate {rate} vs accepted mean {acc}"
            );
        }
    }

    /// The rates used are exactly the in-range values of the FGN sequence, in order.
    #[test]
    fn rates_are_the_fgn_sequence_with_out_of_range_values_skipped() {
        let mut p = VideoParams::new(5.0, 5.0);
        p.block_len = 1 << 10;
        let mut src = VideoSource::new(p.clone()).unwrap();
        let mut rng = stream(5, "v");
        // replay: the source draws the block first, then one interval length per interval
        let mut g =
            FgnGenerator::new(p.method, p.block_len, p.hurst, p.mean_mbps, p.std_mbps).unwrap();
        let block = g.generate(&mut rng.clone());
        let expected: Vec<f64> = block
            .iter()
            .copied()
            .filter(|x| (0.0..=15.0).contains(x))
            .collect();
        drive(&mut src, 30 * PS_PER_S, &mut rng, |_, _| {});
        let used: Vec<f64> = src.rate_log.iter().map(|r| r.2).collect();
        let n = used.len().min(expected.len());
        assert!(n > 300, "{n}");
        assert_eq!(&used[..n], &expected[..n]);
        assert!(block.iter().any(|&x| x < 0.0) && block.iter().any(|&x| x > 15.0));
        // intervals tile time and stay within [20, 100] ms
        for w in src.rate_log.windows(2) {
            assert_eq!(w[0].0 + w[0].1, w[1].0);
        }
        assert!(src
            .rate_log
            .iter()
            .all(|r| (20_000_000_000..=100_000_000_000).contains(&r.1)));
        let mean_len =
            src.rate_log.iter().map(|r| r.1 as f64).sum::<f64>() / src.rate_log.len() as f64;
        assert!((mean_len / 60e9 - 1.0).abs() < 0.05, "{mean_len}");
    }

    /// Blocks are regenerated when used up (small blocks, long run), with either generator.
    #[test]
    fn blocks_regenerate() {
        for (method, len) in [(FgnMethod::Paxson, 64), (FgnMethod::DaviesHarte, 50)] {
            let mut p = VideoParams::new(7.5, 7.0);
            p.method = method;
            p.block_len = len;
            let mut src = VideoSource::new(p).unwrap();
            let mut rng = stream(9, "v");
            let mut cells = 0u64;
            drive(&mut src, 60 * PS_PER_S, &mut rng, |_, n| cells += n as u64);
            let st = src.stats();
            assert!(st.fgn_blocks >= 10, "{method}: {}", st.fgn_blocks);
            assert_eq!(st.rates_drawn - st.rates_dropped, st.intervals);
            let rate = cells as f64 * 424.0 / 60.0 / 1e6;
            assert!(
                (rate / st.mean_accepted_rate_mbps() - 1.0).abs() < 0.05,
                "{method}: {rate}"
            );
            assert!(format!("{src:?}").len() < 2000);
        }
    }

    #[test]
    fn cells_evenly_spaced_inside_an_interval_and_stop_respected() {
        let mut p = VideoParams::new(7.5, 7.0);
        p.start = PS_PER_S;
        p.stop = 3 * PS_PER_S;
        let mut src = VideoSource::new(p).unwrap();
        let mut rng = stream(2, "v");
        let mut times = vec![];
        drive(&mut src, u64::MAX, &mut rng, |t, _| times.push(t));
        assert!(times[0] > PS_PER_S && *times.last().unwrap() < 3 * PS_PER_S);
        // inside each interval, gaps are the rate's cell time (up to 1 ps rounding)
        for &(t0, len, r) in &src.rate_log {
            let bps = (r * 1e6).round() as u64;
            if bps < 1_000_000 {
                continue;
            }
            let exact = CELL_BIT_PS as f64 / bps as f64;
            let inside: Vec<SimTime> = times
                .iter()
                .copied()
                .filter(|&t| t > t0 && t <= t0 + len)
                .collect();
            for w in inside.windows(2) {
                assert!(
                    ((w[1] - w[0]) as f64 - exact).abs() <= 1.0,
                    "gap {} vs {exact}",
                    w[1] - w[0]
                );
            }
            // the last interval is cut by the stop
            let expect = ((t0 + len).min(3 * PS_PER_S) - t0) as f64 / exact;
            assert!(
                (inside.len() as f64 - expect).abs() <= 1.0,
                "{} vs {expect}",
                inside.len()
            );
        }
    }

    #[test]
    fn deterministic_per_seed() {
        let run = |seed| {
            let mut m = Multiplex::new(&VideoParams::new(5.0, 5.0), 3).unwrap();
            let mut rng = stream(seed, "connections.vbr.source");
            let mut out = vec![];
            drive(&mut m, 5 * PS_PER_S, &mut rng, |t, n| out.push((t, n)));
            out
        };
        let (a, b, c) = (run(1), run(1), run(2));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    /// The multiplex of 9 emits exactly the union of the 9 sources' cells, in time order.
    #[test]
    fn multiplex_is_the_union_of_its_sources() {
        let p = VideoParams::new(5.0, 5.0);
        let until = 20 * PS_PER_S;
        let mut mux = Multiplex::new(&p, 9).unwrap();
        let mut rng = stream(77, "connections.vbr.source");
        let mut rng_copy = rng.clone();
        let mut got: Vec<SimTime> = vec![];
        let mut calls = 0u64;
        drive(&mut mux, until, &mut rng, |t, n| {
            calls += 1;
            for _ in 0..n {
                got.push(t);
            }
        });
        // the same 9 sources run alone, each on the stream the multiplex derived for it
        let streams = Multiplex::source_streams(&mut rng_copy, 9);
        let mut want: Vec<SimTime> = vec![];
        let mut per_source = vec![];
        for s in streams {
            let mut src = VideoSource::new(p.clone()).unwrap();
            let mut r = s;
            let before = want.len();
            drive(&mut src, until, &mut r, |t, n| {
                for _ in 0..n {
                    want.push(t);
                }
            });
            per_source.push(want.len() - before);
        }
        want.sort_unstable();
        assert!(
            got.windows(2).all(|w| w[0] <= w[1]),
            "multiplex output out of order"
        );
        assert_eq!(got.len(), want.len());
        assert_eq!(got, want);
        let st = mux.stats();
        assert_eq!(st.cells as usize, got.len());
        let agg = got.len() as f64 * 424.0 / 20.0 / 1e6;
        eprintln!(
            "9 x (5, 5) for 20 s: {} cells in {calls} calls, per source {per_source:?}, aggregate {agg:.2} Mb/s, accepted mean {:.3} Mb/s per source, {:.1}% skipped",
            got.len(),
            st.mean_accepted_rate_mbps(),
            100.0 * st.drop_fraction()
        );
        // each source is at most 15 Mb/s, the aggregate at most 9 x 15
        assert!(agg < 135.0);
    }

    /// Seed 000's aggregate (section 7.1: 9 x (5, 5) gave 56.44 Mb/s, not 45, because of the
    /// skipping): the per-source accepted mean is the truncated-normal mean on [0, 15].
    #[test]
    fn skipping_raises_the_mean_like_a_truncated_normal() {
        // truncated N(m, s^2) on [0, 15]: mean m + s (phi(a) - phi(b)) / (Phi(b) - Phi(a))
        let expected = |m: f64, s: f64| {
            let phi = |z: f64| (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
            let cdf = |z: f64| 0.5 * (1.0 + erf(z / std::f64::consts::SQRT_2));
            let (a, b) = ((0.0 - m) / s, (15.0 - m) / s);
            m + s * (phi(a) - phi(b)) / (cdf(b) - cdf(a))
        };
        for (m, s) in [(5.0, 5.0), (7.5, 7.0), (10.0, 5.0)] {
            let mut mux = Multiplex::new(&VideoParams::new(m, s), 9).unwrap();
            let mut rng = stream(3, "connections.vbr.source");
            let mut cells = 0u64;
            drive(&mut mux, 170 * PS_PER_S, &mut rng, |_, n| cells += n as u64);
            let st = mux.stats();
            let agg = cells as f64 * 424.0 / 170.0 / 1e6;
            let e = expected(m, s);
            eprintln!(
                "9 x ({m}, {s}), 170 s: aggregate {agg:.2} Mb/s (9 x m = {:.1}, 9 x truncated mean = {:.2}), accepted mean {:.3}, {:.1}% skipped",
                9.0 * m,
                9.0 * e,
                st.mean_accepted_rate_mbps(),
                100.0 * st.drop_fraction()
            );
            assert!(
                (st.mean_accepted_rate_mbps() - e).abs() < 0.6,
                "{} vs {e}",
                st.mean_accepted_rate_mbps()
            );
        }
    }

    /// erf by Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7), enough for a test expectation.
    fn erf(x: f64) -> f64 {
        let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
        let y = 1.0
            - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736)
                * t
                + 0.254_829_592)
                * t
                * (-x * x).exp();
        y.copysign(x)
    }
}
