//! Simulated time: integer picoseconds, and exact pacing at a link or cell rate.
//!
//! Every time inside the core is a `SimTime` (u64 picoseconds, about 213 days of range).
//! Rates are turned into intervals at one place, [`Pacer`]: the n-th event after an epoch
//! happens at `epoch + ceil(n * 424e12 / rate_bps)` picoseconds, computed with a carried
//! remainder so that no per-step rounding error accumulates, however long the run.

/// Simulated time in picoseconds.
pub type SimTime = u64;
/// A span of simulated time in picoseconds.
pub type SimDuration = u64;

/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;
/// Picoseconds per microsecond.
pub const PS_PER_US: u64 = 1_000_000;
/// Bits in one 53-byte ATM cell.
pub const CELL_BITS: u64 = 424;
/// `CELL_BITS * PS_PER_S`: numerator of the cell time at a rate in bit/s.
pub const CELL_BIT_PS: u64 = CELL_BITS * PS_PER_S;

/// Seconds (f64) to picoseconds, rounded to the nearest picosecond.
pub fn secs_to_ps(s: f64) -> SimTime {
    (s * PS_PER_S as f64).round() as SimTime
}

/// Microseconds (f64) to picoseconds, rounded to the nearest picosecond.
pub fn us_to_ps(us: f64) -> SimTime {
    (us * PS_PER_US as f64).round() as SimTime
}

/// Picoseconds to seconds.
pub fn ps_to_secs(t: SimTime) -> f64 {
    t as f64 / PS_PER_S as f64
}

/// A rate in Mb/s (of 53-byte cells on the wire) to integer bit/s: the single rounding point
/// between floating-point rates and integer time.
pub fn mbps_to_bps(mbps: f64) -> u64 {
    (mbps * 1e6).round().max(1.0) as u64
}

/// A rate in Mb/s that is a whole number of bit/s, to within the rounding of the decimal into
/// an f64 (4.24 Mb/s is 4,240,000 bit/s although the f64 nearest 4.24 lies a little above it):
/// that number; `None` for a rate with a fraction of a bit/s (2.97607421875 Mb/s) or below
/// 1 bit/s.
pub fn whole_bps(mbps: f64) -> Option<u64> {
    let bps = mbps * 1e6;
    let whole = bps.round();
    // two roundings (decimal -> f64, x 1e6) move a whole number by at most 2 ulp
    (whole >= 1.0 && whole < 2f64.powi(63) && (bps - whole).abs() <= whole * 4.0 * f64::EPSILON)
        .then_some(whole as u64)
}

/// A source's rate in Mb/s to the integer bit/s its [`Pacer`] runs at, never above the rate: the
/// whole number of bit/s it is ([`whole_bps`]), otherwise rounded down (at least 1). So a source
/// set to a contract's PCR or SCR never sends faster than the contract (whose GCRA increment,
/// `policing::increment_ps`, is the exact 1/rate rounded down).
pub fn source_bps(mbps: f64) -> u64 {
    whole_bps(mbps).unwrap_or_else(|| (mbps * 1e6).floor().max(1.0) as u64)
}

/// Time to send one cell at `rate_bps`, rounded down (the exact value is carried by [`Pacer`]).
pub fn cell_time_ps(rate_bps: u64) -> SimDuration {
    CELL_BIT_PS / rate_bps
}

/// Exact pacing of cells at a rate in bit/s (53-byte cells).
///
/// After `start(epoch)`, the n-th call to `advance` returns `epoch + ceil(n * 424e12 / rate_bps)`.
/// The interval is kept as `q + r/b` picoseconds and the fractional part is carried, so the
/// millionth cell is exactly where the closed form puts it.
///
/// What is carried is the returned instant itself and how far it lies past the exact one (in
/// 1/b picoseconds), so a step is one addition and one test, and the instant needs no rounding
/// up afterwards (issue 27 item 3: the former `epoch + n * q + floor(n * r / b)` and `n * r mod
/// b` took a second addition and a round-up per step; the values are the same).
#[derive(Clone, Copy, Debug)]
pub struct Pacer {
    q: u64,
    r: u64,
    /// `b - r`, what the excess gains when a step ends one picosecond later.
    b_r: u64,
    b: u64,
    /// The last returned instant (the epoch before the first `advance`): `epoch + ceil(n *
    /// (q * b + r) / b)` after n calls.
    at: SimTime,
    /// `(at - epoch) * b - n * (q * b + r)`, in `[0, b)`: how far `at` is past the exact instant.
    over: u64,
}

impl Pacer {
    /// A pacer for `rate_bps` bit/s of cells, with its epoch at time 0.
    pub fn new(rate_bps: u64) -> Self {
        assert!(rate_bps > 0, "rate must be positive");
        let r = CELL_BIT_PS % rate_bps;
        Pacer {
            q: CELL_BIT_PS / rate_bps,
            r,
            b_r: rate_bps - r,
            b: rate_bps,
            at: 0,
            over: 0,
        }
    }

    /// The rate in bit/s.
    pub fn rate_bps(&self) -> u64 {
        self.b
    }

    /// The shortest interval, ps (each is this or one more).
    pub fn min_interval_ps(&self) -> u64 {
        self.q
    }

    /// Restart counting at `epoch`: the next `advance` returns the end of one interval after it.
    pub fn start(&mut self, epoch: SimTime) {
        self.at = epoch;
        self.over = 0;
    }

    /// Change the rate, keeping `epoch` as the new origin (used by rate-controlled sources).
    pub fn set_rate(&mut self, rate_bps: u64, epoch: SimTime) {
        *self = Pacer::new(rate_bps);
        self.start(epoch);
    }

    /// The time of the last returned instant (the epoch before the first `advance`).
    pub fn current(&self) -> SimTime {
        self.at
    }

    /// Move one interval on and return the new instant: `q` picoseconds on, and one more
    /// where the exact instant passes `at + q` (the excess would fall below zero).
    #[inline]
    pub fn advance(&mut self) -> SimTime {
        self.at += self.q;
        if self.over < self.r {
            self.at += 1;
            self.over += self.b_r;
        } else {
            self.over -= self.r;
        }
        self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed_form(epoch: u64, n: u64, bps: u64) -> u64 {
        epoch + ((n as u128 * CELL_BIT_PS as u128 + bps as u128 - 1) / bps as u128) as u64
    }

    #[test]
    fn pacer_matches_closed_form_without_drift() {
        for &bps in &[
            149_760_000u64,
            155_520_000,
            1_000_000,
            12_000_000,
            100_000_000,
            7,
        ] {
            let mut p = Pacer::new(bps);
            p.start(12345);
            let mut last = 0;
            assert_eq!(p.current(), 12345);
            for n in 1..=200_000u64 {
                last = p.advance();
                assert_eq!(p.current(), last);
                // every step at first, then a sample
                if n <= 20_000 || n % 9973 == 0 {
                    assert_eq!(last, closed_form(12345, n, bps), "bps {bps} n {n}");
                }
            }
            assert_eq!(last, closed_form(12345, 200_000, bps));
        }
    }

    #[test]
    fn oc3_cell_time() {
        // 424 bits at 149.76 Mb/s = 2.831196... us
        assert_eq!(cell_time_ps(149_760_000), 2_831_196);
        // 149.76e6 / 424 = 353,207.547 cells/s: 18,720,000 back-to-back cells (= 149.76e6 / 8)
        // take 424 / 8 = 53 s exactly, with no drift after 18.7 million steps
        let mut p = Pacer::new(149_760_000);
        p.start(0);
        let mut t = 0;
        for _ in 0..18_720_000u64 {
            t = p.advance();
        }
        assert_eq!(t, 53 * PS_PER_S);
    }

    #[test]
    fn conversions() {
        assert_eq!(secs_to_ps(1.5), 1_500_000_000_000);
        assert_eq!(us_to_ps(5.0), 5_000_000);
        assert_eq!(mbps_to_bps(149.76), 149_760_000);
        assert_eq!(whole_bps(4.24), Some(4_240_000));
        assert_eq!(whole_bps(33.333333), Some(33_333_333));
        assert_eq!(whole_bps(0.000001), Some(1));
        assert_eq!(whole_bps(2.97607421875), None);
        assert_eq!(whole_bps(100.0000001), None); // 0.1 bit/s above a whole number
        assert_eq!(whole_bps(1e-7), None);
        // a source's rate is never rounded up: 11.904296875 Mb/s runs at 11,904,296 bit/s
        // (mbps_to_bps, for line rates, gives the nearest, 11,904,297)
        assert_eq!(source_bps(11.904296875), 11_904_296);
        assert_eq!(mbps_to_bps(11.904296875), 11_904_297);
        assert_eq!(source_bps(2.97607421875), 2_976_074);
        assert_eq!(source_bps(149.76), 149_760_000);
        assert_eq!(source_bps(1e-9), 1);
        assert!((ps_to_secs(2_500_000_000_000) - 2.5).abs() < 1e-15);
    }
}
