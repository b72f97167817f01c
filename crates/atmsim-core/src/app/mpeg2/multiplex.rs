//! N MPEG-2 video sources multiplexed onto one connection (seed 000: 9 onto one VBR VC), each
//! drawing from its own stream derived from the endpoint's (see the module doc of [`super`]).
//! Moved from `video.rs`.

use super::{VideoError, VideoParams, VideoSource, VideoStats};
use crate::app::{Application, Ctx};
use crate::rng::Rng;
use crate::time::SimTime;
use rand::SeedableRng;

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
    /// Sends only: what reaches it is counted by the network (`sim/sink.rs`).
    fn passive_rx(&self) -> bool {
        true
    }
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
        // one pass: fire every source due (each at most once per call, in source order, each
        // on its own stream) and take the earliest next departure as it goes
        let mut t = SimTime::MAX;
        let n = self.sources.len();
        let (sources, rngs, next) = (
            &mut self.sources[..n],
            &mut self.rngs[..n],
            &mut self.next[..n],
        );
        for k in 0..n {
            let mut tk = next[k];
            if tk <= now {
                due += 1;
                let s = &mut sources[k];
                s.stats.cells += 1;
                tk = s.advance(&mut rngs[k]).unwrap_or(SimTime::MAX);
                next[k] = tk;
            }
            t = t.min(tk);
        }
        if due > 0 {
            ctx.send_cells(due);
        }
        if t != SimTime::MAX {
            ctx.set_timer(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testing::drive;
    use crate::rng::stream;
    use crate::time::PS_PER_S;

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
