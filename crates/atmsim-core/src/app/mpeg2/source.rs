//! One MPEG-2 transport-stream video source (seed 000 section 4): inter-MPCR intervals, FGN
//! rates with out-of-range values skipped, the exact fluid cell schedule and the 15 Mb/s peak
//! leaky bucket (see the module doc of [`super`]). Moved from `video.rs`.

use super::{VideoError, VideoParams, VideoStats};
use crate::app::{Application, Ctx};
use crate::rng::Rng;
use crate::stats::fgn::FgnGenerator;
use crate::time::{secs_to_ps, SimDuration, SimTime, CELL_BIT_PS};
use rand::RngExt;

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
    pub(super) stats: VideoStats,
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
    /// `Application::start` (or by a [`super::Multiplex`] with the source's own stream).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testing::drive;
    use crate::rng::stream;
    use crate::stats::fgn::FgnMethod;
    use crate::time::PS_PER_S;

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
}
