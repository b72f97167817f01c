//! The Generic Cell Rate Algorithm GCRA(T, tau) of ITU-T Rec. I.371, *Traffic control and
//! congestion control in B-ISDN*, in its two equivalent forms: the virtual scheduling algorithm
//! (theoretical arrival time TAT) and the continuous-state leaky bucket (bucket content X, last
//! conformance time LCT); the dual GCRA for the sustainable cell rate with burst tolerance
//! BT = (MBS - 1) x (1/SCR - 1/PCR) and MBS = 1 + floor(BT / (Ts - T)) (I.371; ATM Forum TM 4.0
//! section 4.5, VBR.1); and the rate helpers that turn Mb/s into GCRA increments.
//!
//! Units and the one rounding point. Times are integer picoseconds ([`SimTime`]). Rates are Mb/s
//! of 53-byte cells on the wire, as everywhere in the core. A rate becomes a GCRA increment in one
//! place, [`increment_ps`]: the exact `424e6 / rate_mbps` picoseconds rounded down once, with no
//! rounding of the rate before (a rate of 2.97607421875 Mb/s, 2,976,074.21875 bit/s, gets
//! 142,469,565 ps, not the 142,469,575 ps of 2,976,074 bit/s). Rounding down makes the policer
//! less than 1 ps per cell more tolerant than the exact rate, never less tolerant, so a source at
//! exactly the contract's rate is always conforming: one whose cells are timed from the exact
//! rate, and one paced by [`crate::time::Pacer`] at the source's integer bit/s
//! ([`crate::time::source_bps`], never above the rate; it emits at `ceil(n x 424e12 / bps)`). A
//! rate that is a whole number of bit/s ([`crate::time::whole_bps`]) gives
//! `floor(424e12 / bps)`, the Pacer's own interval. The burst tolerance is then computed from the
//! two integer increments, BT = (MBS - 1) x (Ts - T), so a burst of exactly MBS cells at PCR
//! passes and the next one fails, with no rounding at the boundary.
//!
//! The GCRA state changes only for conforming cells; both forms are exact in integers and agree
//! on every cell (the invariant `X + LCT == TAT` holds after every step, see the tests). Arrival
//! times given to a GCRA must not decrease.

use crate::time::{cell_time_ps, whole_bps, SimDuration, SimTime, CELL_BITS, CELL_BIT_PS};

// ---------------------------------------------------------------------------------------------
// Rates, increments, burst tolerance
// ---------------------------------------------------------------------------------------------

/// GCRA increment T = 1/rate in picoseconds for a rate in Mb/s of 53-byte cells: the single
/// rounding point, `floor(424e6 / rate_mbps)` computed exactly from the rate, never above the
/// exact value and less than 1 ps below it (see the module doc for why down). A rate that is a
/// whole number of bit/s ([`whole_bps`]: 4.24 Mb/s) gives `floor(424e12 / bps)` for that number.
/// Rates below 1 bit/s (and NaN) count as 1 bit/s.
pub fn increment_ps(rate_mbps: f64) -> SimDuration {
    if let Some(bps) = whole_bps(rate_mbps) {
        return cell_time_ps(bps);
    }
    if rate_mbps.is_nan() || rate_mbps * 1e6 < 1.0 {
        return CELL_BIT_PS;
    }
    floor_cell_ps(rate_mbps)
}

/// `floor(424e6 / rate_mbps)` exactly, for a finite rate of at least 1 bit/s: the f64 is
/// `m x 2^e` with an integer mantissa `m`, so the quotient is `424e6 x 2^-e / m`, an integer
/// division in u128 (a rate of at least 1e-6 Mb/s has `e >= -73`, and 424e6 < 2^29).
fn floor_cell_ps(rate_mbps: f64) -> SimDuration {
    let bits = rate_mbps.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52); // normal: rate >= 1e-6
    let e = biased - 1075;
    if e >= 0 {
        return 0; // rate >= 2^52 Mb/s: less than 1 ps per cell
    }
    let num = ((CELL_BIT_PS / 1_000_000) as u128) << (-e) as u32;
    (num / m as u128).min(SimDuration::MAX as u128) as SimDuration
}

/// Cells per second to Mb/s of 53-byte cells.
pub fn cells_per_s_to_mbps(cells_per_s: f64) -> f64 {
    cells_per_s * CELL_BITS as f64 / 1e6
}

/// Mb/s of 53-byte cells to cells per second.
pub fn mbps_to_cells_per_s(mbps: f64) -> f64 {
    mbps * 1e6 / CELL_BITS as f64
}

/// Burst tolerance BT = (MBS - 1) x (Ts - T) in picoseconds (I.371), from the integer increments
/// of the SCR bucket (`scr_increment_ps` = Ts) and the PCR bucket (`pcr_increment_ps` = T).
pub fn burst_tolerance_ps(
    mbs_cells: u32,
    pcr_increment_ps: SimDuration,
    scr_increment_ps: SimDuration,
) -> SimDuration {
    (mbs_cells.max(1) as u64 - 1).saturating_mul(scr_increment_ps.saturating_sub(pcr_increment_ps))
}

/// Longest run of cells spaced `spacing_ps` apart that GCRA(`increment_ps`, `limit_ps`) accepts
/// from an idle state (I.371): `1 + floor(tau / (T - spacing))`, or `u64::MAX` when the spacing is
/// not shorter than T (the run never ends). With tau = BT, T = Ts and spacing = 1/PCR this is MBS.
pub fn max_burst_cells(
    limit_ps: SimDuration,
    increment_ps: SimDuration,
    spacing_ps: SimDuration,
) -> u64 {
    if spacing_ps >= increment_ps {
        u64::MAX
    } else {
        1 + limit_ps / (increment_ps - spacing_ps)
    }
}

// ---------------------------------------------------------------------------------------------
// GCRA
// ---------------------------------------------------------------------------------------------

/// GCRA(T, tau), virtual scheduling form (I.371): a cell arriving at `t` is conforming unless
/// `TAT > t + tau`; a conforming cell sets `TAT = max(TAT, t) + T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VirtualScheduling {
    increment_ps: SimDuration,
    limit_ps: SimDuration,
    tat: SimTime,
}

impl VirtualScheduling {
    /// A GCRA with increment T and limit tau (picoseconds), idle (TAT = 0: the first cell conforms).
    pub fn new(increment_ps: SimDuration, limit_ps: SimDuration) -> Self {
        assert!(increment_ps > 0, "GCRA increment must be positive");
        VirtualScheduling {
            increment_ps,
            limit_ps,
            tat: 0,
        }
    }

    /// Would a cell arriving at `t` conform? (No state change.)
    #[inline]
    pub fn check(&self, t: SimTime) -> bool {
        self.tat <= t.saturating_add(self.limit_ps)
    }

    /// Account a cell at `t` as conforming: `TAT = max(TAT, t) + T`. Call after [`Self::check`]
    /// returned true (or to force a cell into the state).
    #[inline]
    pub fn update(&mut self, t: SimTime) {
        self.tat = self.tat.max(t).saturating_add(self.increment_ps);
    }

    /// Test a cell arriving at `t`; the state changes only if it conforms.
    #[inline]
    pub fn conforms(&mut self, t: SimTime) -> bool {
        let ok = self.check(t);
        if ok {
            self.update(t);
        }
        ok
    }

    /// The theoretical arrival time of the next cell.
    pub fn tat(&self) -> SimTime {
        self.tat
    }
    /// The increment T in picoseconds.
    pub fn increment_ps(&self) -> SimDuration {
        self.increment_ps
    }
    /// The limit tau in picoseconds.
    pub fn limit_ps(&self) -> SimDuration {
        self.limit_ps
    }
}

/// GCRA(T, tau), continuous-state leaky bucket form (I.371): the bucket drains one unit per
/// picosecond; at an arrival `X' = max(0, X - (t - LCT))`; the cell is non-conforming if
/// `X' > tau`, otherwise `X = X' + T` and `LCT = t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeakyBucket {
    increment_ps: SimDuration,
    limit_ps: SimDuration,
    x: SimDuration,
    lct: SimTime,
}

impl LeakyBucket {
    /// A GCRA with increment T and limit tau (picoseconds), empty (X = 0, LCT = 0).
    pub fn new(increment_ps: SimDuration, limit_ps: SimDuration) -> Self {
        assert!(increment_ps > 0, "GCRA increment must be positive");
        LeakyBucket {
            increment_ps,
            limit_ps,
            x: 0,
            lct: 0,
        }
    }

    #[inline]
    fn drained(&self, t: SimTime) -> SimDuration {
        debug_assert!(t >= self.lct, "GCRA arrivals must not go back in time");
        self.x.saturating_sub(t.saturating_sub(self.lct))
    }

    /// Would a cell arriving at `t` conform? (No state change.)
    #[inline]
    pub fn check(&self, t: SimTime) -> bool {
        self.drained(t) <= self.limit_ps
    }

    /// Account a cell at `t` as conforming: `X = max(0, X - (t - LCT)) + T`, `LCT = t`.
    #[inline]
    pub fn update(&mut self, t: SimTime) {
        self.x = self.drained(t).saturating_add(self.increment_ps);
        self.lct = t;
    }

    /// Test a cell arriving at `t`; the state changes only if it conforms.
    #[inline]
    pub fn conforms(&mut self, t: SimTime) -> bool {
        let ok = self.check(t);
        if ok {
            self.update(t);
        }
        ok
    }

    /// Bucket content X just after the last conforming cell, in picoseconds.
    pub fn x(&self) -> SimDuration {
        self.x
    }
    /// Last conformance time.
    pub fn lct(&self) -> SimTime {
        self.lct
    }
    /// The increment T in picoseconds.
    pub fn increment_ps(&self) -> SimDuration {
        self.increment_ps
    }
    /// The limit tau in picoseconds.
    pub fn limit_ps(&self) -> SimDuration {
        self.limit_ps
    }
}

/// Which of the two equivalent GCRA forms to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GcraForm {
    /// Virtual scheduling (TAT).
    #[default]
    VirtualScheduling,
    /// Continuous-state leaky bucket (X, LCT), the form of seed 003's OPNET policer.
    LeakyBucket,
}

/// A GCRA in either form; both give the same decision on every cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gcra {
    VirtualScheduling(VirtualScheduling),
    LeakyBucket(LeakyBucket),
}

impl Gcra {
    /// GCRA(`increment_ps`, `limit_ps`) in the given form.
    pub fn new(form: GcraForm, increment_ps: SimDuration, limit_ps: SimDuration) -> Self {
        match form {
            GcraForm::VirtualScheduling => {
                Gcra::VirtualScheduling(VirtualScheduling::new(increment_ps, limit_ps))
            }
            GcraForm::LeakyBucket => Gcra::LeakyBucket(LeakyBucket::new(increment_ps, limit_ps)),
        }
    }

    /// GCRA(1/rate, limit) for a rate in Mb/s of cells (increment from [`increment_ps`]).
    pub fn from_mbps(form: GcraForm, rate_mbps: f64, limit_ps: SimDuration) -> Self {
        Gcra::new(form, increment_ps(rate_mbps), limit_ps)
    }

    /// Would a cell arriving at `t` conform? (No state change.)
    #[inline]
    pub fn check(&self, t: SimTime) -> bool {
        match self {
            Gcra::VirtualScheduling(g) => g.check(t),
            Gcra::LeakyBucket(g) => g.check(t),
        }
    }

    /// Account a cell at `t` as conforming.
    #[inline]
    pub fn update(&mut self, t: SimTime) {
        match self {
            Gcra::VirtualScheduling(g) => g.update(t),
            Gcra::LeakyBucket(g) => g.update(t),
        }
    }

    /// Test a cell arriving at `t`; the state changes only if it conforms.
    #[inline]
    pub fn conforms(&mut self, t: SimTime) -> bool {
        match self {
            Gcra::VirtualScheduling(g) => g.conforms(t),
            Gcra::LeakyBucket(g) => g.conforms(t),
        }
    }

    /// The increment T in picoseconds.
    pub fn increment_ps(&self) -> SimDuration {
        match self {
            Gcra::VirtualScheduling(g) => g.increment_ps(),
            Gcra::LeakyBucket(g) => g.increment_ps(),
        }
    }

    /// The limit tau in picoseconds.
    pub fn limit_ps(&self) -> SimDuration {
        match self {
            Gcra::VirtualScheduling(g) => g.limit_ps(),
            Gcra::LeakyBucket(g) => g.limit_ps(),
        }
    }
}

/// Result of a dual GCRA test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DualVerdict {
    /// Conforming to both buckets (both updated).
    Conforming,
    /// Non-conforming to GCRA(1/PCR, CDVT) (checked first; reported even if SCR fails too).
    PcrFailed,
    /// Conforming to the PCR bucket, non-conforming to GCRA(1/SCR, BT + CDVT).
    ScrFailed,
}

/// Dual GCRA (I.371; TM 4.0 VBR.1): a cell conforms if it conforms to GCRA(1/PCR, CDVT) and to
/// GCRA(1/SCR, BT + CDVT); a non-conforming cell updates neither bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DualGcra {
    /// The peak-rate bucket GCRA(1/PCR, CDVT).
    pub pcr: Gcra,
    /// The sustainable-rate bucket GCRA(1/SCR, BT + CDVT).
    pub scr: Gcra,
}

impl DualGcra {
    /// Two given buckets.
    pub fn new(pcr: Gcra, scr: Gcra) -> Self {
        DualGcra { pcr, scr }
    }

    /// From rates in Mb/s: T = 1/PCR, Ts = 1/SCR (both via [`increment_ps`]), SCR limit
    /// BT + CDVT with BT = (MBS - 1) x (Ts - T) computed from the integer increments.
    pub fn from_mbps(
        form: GcraForm,
        pcr_mbps: f64,
        cdvt_ps: SimDuration,
        scr_mbps: f64,
        mbs_cells: u32,
    ) -> Self {
        let t = increment_ps(pcr_mbps);
        let ts = increment_ps(scr_mbps);
        let bt = burst_tolerance_ps(mbs_cells, t, ts);
        DualGcra {
            pcr: Gcra::new(form, t, cdvt_ps),
            scr: Gcra::new(form, ts, bt.saturating_add(cdvt_ps)),
        }
    }

    /// Test a cell arriving at `t`.
    #[inline]
    pub fn check(&mut self, t: SimTime) -> DualVerdict {
        if !self.pcr.check(t) {
            DualVerdict::PcrFailed
        } else if !self.scr.check(t) {
            DualVerdict::ScrFailed
        } else {
            self.pcr.update(t);
            self.scr.update(t);
            DualVerdict::Conforming
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policing::{Contract, ScrStream, Upc, UpcAction, UpcOutcome};
    use crate::time::{mbps_to_bps, source_bps, Pacer, PS_PER_S};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Run both forms side by side, assert they agree and keep `X + LCT == TAT`.
    struct Pair {
        v: VirtualScheduling,
        l: LeakyBucket,
    }

    impl Pair {
        fn new(t: u64, tau: u64) -> Self {
            Pair {
                v: VirtualScheduling::new(t, tau),
                l: LeakyBucket::new(t, tau),
            }
        }
        fn step(&mut self, t: u64) -> bool {
            let a = self.v.conforms(t);
            let b = self.l.conforms(t);
            assert_eq!(a, b, "forms disagree at t={t}: {:?} {:?}", self.v, self.l);
            assert_eq!(self.l.x() + self.l.lct(), self.v.tat(), "X + LCT != TAT");
            a
        }
    }

    #[test]
    fn gcra_forms_agree_on_random_streams() {
        for seed in 0..60u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let t_inc = rng.random_range(1..20_000u64);
            let tau = match seed % 4 {
                0 => 0,
                1 => rng.random_range(0..t_inc),
                2 => rng.random_range(0..5 * t_inc),
                _ => rng.random_range(0..100 * t_inc),
            };
            let mut p = Pair::new(t_inc, tau);
            let mut t = rng.random_range(0..3 * t_inc);
            let mut conforming = 0;
            for _ in 0..20_000 {
                let u = rng.random::<f64>();
                t += if u < 0.2 {
                    0 // back-to-back at the same instant
                } else if u < 0.95 {
                    (rng.random::<f64>() * 2.0 * t_inc as f64) as u64
                } else {
                    (rng.random::<f64>() * 50.0 * t_inc as f64) as u64 // idle
                };
                conforming += p.step(t) as u32;
            }
            assert!(conforming > 0);
        }
    }

    #[test]
    fn gcra_forms_agree_on_adversarial_streams() {
        // arrivals placed exactly on, just before and just after the conformance boundary
        // TAT - tau, in bursts at one instant, and right at TAT
        for &(t_inc, tau) in &[
            (1u64, 0u64),
            (10, 0),
            (10, 15),
            (7, 100),
            (1000, 999),
            (1000, 1000),
            (3, 1),
        ] {
            let mut rng = ChaCha8Rng::seed_from_u64(t_inc * 31 + tau);
            let mut p = Pair::new(t_inc, tau);
            let mut last = 0u64;
            for _ in 0..20_000 {
                let tat = p.v.tat();
                let edge = tat.saturating_sub(tau);
                let t = match rng.random_range(0..6u32) {
                    0 => last,
                    1 => edge.saturating_sub(1),
                    2 => edge,
                    3 => edge + 1,
                    4 => tat,
                    _ => tat + t_inc,
                }
                .max(last);
                let expect = tat <= t + tau;
                assert_eq!(p.step(t), expect, "boundary rule at t={t}, tat={tat}");
                last = t;
            }
            // a burst of many cells at one instant after a long idle: floor(tau / T) + 1 conform
            let t0 = last + 10 * (t_inc + tau);
            let n = (0..1000).filter(|_| p.step(t0)).count() as u64;
            assert_eq!(n, tau / t_inc + 1);
        }
    }

    #[test]
    fn hand_computed_i371_sequence() {
        // GCRA(T = 10, tau = 15), worked by hand with the virtual scheduling rules
        // (non-conforming iff TAT > t + tau; otherwise TAT = max(TAT, t) + T):
        let steps: &[(u64, bool, u64)] = &[
            (0, true, 10),    // TAT 0 <= 15: conforming, TAT = 0 + 10
            (0, true, 20),    // 10 <= 15: TAT = 20
            (0, false, 20),   // 20 > 15: non-conforming, TAT unchanged
            (5, true, 30),    // 20 <= 5 + 15 = 20 (on the boundary): TAT = 30
            (5, false, 30),   // 30 > 20
            (30, true, 40),   // 30 <= 45: TAT = 30 + 10
            (31, true, 50),   // 40 <= 46
            (32, false, 50),  // 50 > 47
            (35, true, 60),   // 50 <= 50 (boundary)
            (100, true, 110), // idle: TAT 60 < 100, restart at t: TAT = 100 + 10
            (100, true, 120), // 110 <= 115
            (100, false, 120),
        ];
        for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
            let mut g = Gcra::new(form, 10, 15);
            for &(t, ok, _) in steps {
                assert_eq!(g.conforms(t), ok, "{form:?} at t={t}");
            }
        }
        let mut v = VirtualScheduling::new(10, 15);
        let mut l = LeakyBucket::new(10, 15);
        for &(t, _, tat) in steps {
            v.conforms(t);
            l.conforms(t);
            assert_eq!(v.tat(), tat);
            // leaky bucket: after t = 5, X = 25 and LCT = 5 (X + LCT = TAT = 30)
            if t == 5 {
                assert_eq!((l.x(), l.lct()), (25, 5));
            }
        }
    }

    #[test]
    fn max_burst_matches_i371_formula() {
        let cases = [
            (100u64, 0u64, 0u64),
            (100, 250, 0),
            (100, 250, 40),
            (100, 300, 40),
            (1000, 7777, 999),
        ];
        for &(t_inc, tau, spacing) in &cases {
            for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
                let mut g = Gcra::new(form, t_inc, tau);
                let n = (0..100_000u64)
                    .take_while(|&k| g.conforms(1_000 + k * spacing))
                    .count() as u64;
                assert_eq!(
                    n,
                    max_burst_cells(tau, t_inc, spacing),
                    "T {t_inc} tau {tau} spacing {spacing}"
                );
            }
        }
        // tau = BT = (MBS - 1)(Ts - T): the burst is exactly MBS
        let (t, ts) = (1_000u64, 5_123u64);
        for mbs in 1..50u32 {
            assert_eq!(
                max_burst_cells(burst_tolerance_ps(mbs, t, ts), ts, t),
                mbs as u64
            );
        }
        assert_eq!(max_burst_cells(5, 10, 10), u64::MAX);
    }

    /// Is `inc` = floor(424e12 x den / num), the exact increment of a rate of num/den bit/s?
    fn is_exact_floor(inc: u64, num: u128, den: u128) -> bool {
        let target = CELL_BIT_PS as u128 * den;
        inc as u128 * num <= target && (inc as u128 + 1) * num > target
    }

    #[test]
    fn increment_is_the_exact_interval_rounded_down() {
        // issue 18: the SCR of 1024-byte TSDUs with TCP/IP/LLC headers at a mean 2.5 Mb/s is
        // 23 cells x 312,500 / 1024 TSDU/s = 2.97607421875 Mb/s = 95,234,375 / 32 bit/s; the
        // exact increment is 142,469,565.2 ps (not floor(424e12 / 2,976,074) = 142,469,575)
        assert_eq!(increment_ps(2.97607421875), 142_469_565);
        assert!(is_exact_floor(142_469_565, 95_234_375, 32));
        // its PCR, 11.904296875 Mb/s = 380,937,500 / 32 bit/s (not floor(424e12 / 11,904,297))
        assert_eq!(increment_ps(11.904296875), 35_617_391);
        assert!(is_exact_floor(35_617_391, 380_937_500, 32));
        // whole numbers of bit/s: the Pacer's floor(424e12 / bps), whatever the f64 rounding
        // of the decimal (4.24 Mb/s -> 1e8 ps, although the f64 4.24 is a little above 4.24)
        assert_eq!(increment_ps(4.24), 100_000_000);
        assert_eq!(increment_ps(100.0), 4_240_000);
        assert_eq!(increment_ps(149.76), cell_time_ps(149_760_000));
        // below 1 bit/s: 1 bit/s
        assert_eq!(increment_ps(1e-9), CELL_BIT_PS);
        assert_eq!(increment_ps(f64::NAN), CELL_BIT_PS);

        let mut rng = ChaCha8Rng::seed_from_u64(18);
        // rates k / 2^j Mb/s: exact in f64, so the exact increment is 424e6 x 2^j / k ps
        for _ in 0..200_000 {
            let j = rng.random_range(0..=40u32);
            let lo = ((1e-3 * (1u64 << j) as f64) as u64).max(1);
            let hi = ((700.0 * (1u64 << j) as f64) as u64).min(1 << 53);
            let k = rng.random_range(lo..=hi);
            let rate = k as f64 / (1u64 << j) as f64;
            let inc = increment_ps(rate);
            // rate in bit/s = k x 1e6 / 2^j
            assert!(
                is_exact_floor(inc, k as u128 * 1_000_000, 1u128 << j),
                "{rate} Mb/s: {inc}"
            );
        }
        // whole numbers of bit/s from 1 bit/s to 2.4 Gb/s, as decimals in Mb/s
        for _ in 0..200_000 {
            let bps = match rng.random_range(0..3u32) {
                0 => rng.random_range(1..10_000u64),
                1 => rng.random_range(1..1_000u64) * 1000,
                _ => rng.random_range(1..2_400_000_000u64),
            };
            let inc = increment_ps(bps as f64 / 1e6);
            assert!(is_exact_floor(inc, bps as u128, 1), "{bps} bit/s: {inc}");
            assert_eq!(inc, cell_time_ps(bps));
        }
    }

    #[test]
    fn cells_at_the_exact_rate_conform() {
        // cells timed from the exact rate (the n-th at ceil(n x 424e12 / bps), bps fractional)
        // conform to GCRA(1/rate, 0): each gap is at least floor(exact) = T
        for &(num, den) in &[(95_234_375u128, 32u128), (380_937_500, 32), (33_333_333, 7)] {
            let rate = num as f64 / den as f64 / 1e6;
            for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
                let mut g = Gcra::from_mbps(form, rate, 0);
                for n in 1..200_000u128 {
                    let t = (n * CELL_BIT_PS as u128 * den).div_ceil(num) as u64;
                    assert!(g.conforms(t), "{rate} Mb/s, cell {n} at {t}");
                }
            }
        }
    }

    #[test]
    fn cbr_exactly_at_pcr_with_zero_cdvt_fully_conforms() {
        for &mbps in &[
            149.76,
            155.52,
            10.0,
            1.0,
            0.064,
            33.333333,
            100.0,
            11.904296875,
            2.97607421875,
            7.0000005,
        ] {
            // the rate a CBR source runs at (never rounded up)
            let bps = source_bps(mbps);
            for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
                let mut g = Gcra::from_mbps(form, mbps, 0);
                let mut pacer = Pacer::new(bps);
                pacer.start(777);
                for n in 0..300_000 {
                    let t = pacer.advance();
                    assert!(g.conforms(t), "{mbps} Mb/s, cell {n} at {t}");
                }
            }
        }
    }

    /// Conforming cells among arrivals `ts` (gaps shorter than T, no idle period because
    /// tau >= the largest gap): cell i conforms iff C_i T <= t_i - t_0 + tau, which the greedy
    /// rule fills as C_N = min(N, floor((t_{N-1} - t_0 + tau) / T) + 1).
    fn conforming_closed_form(first: u64, last: u64, n: u64, t_inc: u64, tau: u64) -> u64 {
        n.min((last - first + tau) / t_inc + 1)
    }

    #[test]
    fn one_percent_above_pcr_share_matches_closed_form() {
        // exact integers: T = 101,000 ps, cells every S = 100,000 ps (1.01 x PCR)
        let (t_inc, s) = (101_000u64, 100_000u64);
        let n = 1_000_000u64;
        // (a) CDVT 0: after a conforming cell at t, TAT = t + T; the next cell (t + S < TAT)
        // fails and the one after (t + 2S >= TAT) conforms: every ceil(T / S) = 2nd cell
        // conforms, non-conforming share 1 - 1/2.
        let mut g = Gcra::new(GcraForm::LeakyBucket, t_inc, 0);
        let ok = (0..n).filter(|&i| g.conforms(i * s)).count() as u64;
        assert_eq!(t_inc.div_ceil(s), 2);
        assert_eq!(ok, n.div_ceil(2));
        // (b) CDVT = T (>= S, so the bucket never empties): conforming count from the closed
        // form; the non-conforming share tends to 1 - S/T = 1/101
        for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
            let mut g = Gcra::new(form, t_inc, t_inc);
            let ok = (0..n).filter(|&i| g.conforms(i * s)).count() as u64;
            assert_eq!(ok, conforming_closed_form(0, (n - 1) * s, n, t_inc, t_inc));
            // floor((999,999 x 100,000 + 101,000) / 101,000) + 1 = floor(990,099.02) + 1
            assert_eq!(ok, 990_100);
            let share = (n - ok) as f64 / n as f64;
            assert!((share - 1.0 / 101.0).abs() < 2.0 / n as f64, "{share}");
        }
        // (c) with rates: PCR 100 Mb/s (T = 4,240,000 ps exactly), a source paced at 101 Mb/s
        let mut g = Gcra::from_mbps(GcraForm::VirtualScheduling, 100.0, increment_ps(100.0));
        assert_eq!(g.increment_ps(), 4_240_000);
        let mut pacer = Pacer::new(mbps_to_bps(101.0));
        pacer.start(0);
        let (mut first, mut last, mut ok) = (0, 0, 0u64);
        for i in 0..n {
            let t = pacer.advance();
            if i == 0 {
                first = t;
            }
            last = t;
            ok += g.conforms(t) as u64;
        }
        assert_eq!(
            ok,
            conforming_closed_form(first, last, n, 4_240_000, 4_240_000)
        );
        let share = (n - ok) as f64 / n as f64;
        assert!((share - 1.0 / 101.0).abs() < 2.0 / n as f64, "{share}");
    }

    #[test]
    fn dual_gcra_passes_mbs_burst_at_pcr_and_flags_the_next() {
        let (pcr, scr, mbs) = (10.0, 2.0, 20u32);
        for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
            let mut d = DualGcra::from_mbps(form, pcr, 0, scr, mbs);
            let t = d.pcr.increment_ps();
            let start = 5 * PS_PER_S;
            for k in 0..mbs as u64 {
                assert_eq!(d.check(start + k * t), DualVerdict::Conforming, "cell {k}");
            }
            assert_eq!(d.check(start + mbs as u64 * t), DualVerdict::ScrFailed);
            // faster than PCR (two cells at one instant): the PCR bucket is reported, and a
            // non-conforming cell leaves both buckets untouched
            let mut fresh = DualGcra::from_mbps(form, pcr, 0, scr, mbs);
            assert_eq!(fresh.check(0), DualVerdict::Conforming);
            let before = fresh;
            assert_eq!(fresh.check(0), DualVerdict::PcrFailed);
            assert_eq!(fresh, before);
            // after the SCR bucket drains, another MBS burst passes (paced by the core's Pacer)
            let mut pacer = Pacer::new(mbps_to_bps(pcr));
            pacer.start(start + PS_PER_S);
            for k in 0..mbs {
                assert_eq!(
                    d.check(pacer.advance()),
                    DualVerdict::Conforming,
                    "paced cell {k}"
                );
            }
            assert_eq!(d.check(pacer.advance()), DualVerdict::ScrFailed);

            // the same through the UPC: MBS passes, the (MBS+1)-th is tagged, or discarded
            let c = Contract::vbr(pcr, 0, scr, mbs);
            for (action, outcome) in [
                (UpcAction::Tag, UpcOutcome::Tag),
                (UpcAction::Discard, UpcOutcome::Discard),
            ] {
                let mut u =
                    Upc::from_contract(&c, form, UpcAction::Discard, action, ScrStream::Clp0);
                for k in 0..mbs as u64 {
                    assert_eq!(u.police(k * t, false), UpcOutcome::Pass);
                }
                assert_eq!(u.police(mbs as u64 * t, false), outcome);
                let cnt = u.counts();
                assert_eq!(
                    (cnt.cells, cnt.passed, cnt.scr_failures),
                    (mbs as u64 + 1, mbs as u64, 1)
                );
            }
        }
    }
}
