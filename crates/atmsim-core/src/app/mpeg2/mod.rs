//! MPEG-2 transport-stream video over VBR: the long-range-dependent source of seed 000
//! section 4 (EXPERIMENTS.md S000, issue 4 item 4). Moved from `video.rs`.
//!
//! One [`VideoSource`] is a transport-stream generator, its network element and its leaky bucket:
//! - successive inter-MPCR intervals `T_i ~ Uniform[20 ms, 100 ms]` (bounds settable), drawn as
//!   integer picoseconds;
//! - the rates `R_1, R_2, ...` are fractional Gaussian noise ([`crate::stats::fgn`], Hurst 0.8 by
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
//! All randomness comes from the endpoint's stream ([`crate::app::Ctx::rng`]); the FGN
//! block, its FFT buffers and the spectrum are allocated at build time and reused, so nothing is
//! allocated per cell or per block.
//!
//! Files: this one holds the parameters, their validation and the statistics; [`source`] the
//! single source, [`multiplex`] the multiplex.

pub mod multiplex;
pub mod source;

pub use multiplex::Multiplex;
pub use source::VideoSource;

use crate::stats::fgn::{FgnError, FgnMethod};
use crate::time::{secs_to_ps, SimTime};
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
        crate::stats::fgn::validate(
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
