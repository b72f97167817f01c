//! Proposing a contract from a recorded cell stream (seed 001
//! `/work/shared/seeds/001_08abd1994ada50f6.txt` section 6.2: a contract obtained by monitoring a
//! bundle): the smallest CDVT and MBS under which the dual GCRA (ITU-T I.371) polices the stream
//! within a tolerance. The fit itself is ours, stated in docs/contracts.md.

use super::gcra::{increment_ps, DualGcra, DualVerdict, Gcra, GcraForm};
use crate::time::{SimDuration, SimTime};

/// The tightest burst parameters under which a recorded cell stream would have been policed with
/// at most a share `tolerance` of its cells non-conforming (seed 001 section 6.2: a contract
/// obtained by monitoring a bundle; the fit itself is ours, stated in docs/contracts.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FittedBursts {
    /// CDVT of the PCR bucket, picoseconds (a whole number of nanoseconds).
    pub cdvt_ps: SimDuration,
    /// MBS of the SCR bucket, cells.
    pub mbs_cells: u32,
    /// Cells the dual GCRA with (PCR, CDVT, SCR, MBS) finds non-conforming.
    pub nonconforming: u64,
}

/// Cells of `times` (non-decreasing) that `gcra` finds non-conforming.
pub fn count_nonconforming(times: &[SimTime], mut gcra: Gcra) -> u64 {
    times.iter().filter(|&&t| !gcra.conforms(t)).count() as u64
}

fn count_dual(times: &[SimTime], mut d: DualGcra) -> u64 {
    times
        .iter()
        .filter(|&&t| d.check(t) != DualVerdict::Conforming)
        .count() as u64
}

/// Smallest `x` in `[lo, hi]` with `ok(x)`, given `ok(hi)`, by bisection (exact for a monotone
/// `ok`; otherwise still an `x` with `ok(x)`).
fn smallest(mut lo: u64, mut hi: u64, ok: impl Fn(u64) -> bool) -> u64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

/// Fit CDVT and then MBS to the cell emission times `times` (non-decreasing, picoseconds) for
/// the given PCR and SCR: CDVT is the smallest (to the nanosecond) for which GCRA(1/PCR, CDVT)
/// rejects at most `floor(tolerance x n)` cells, MBS the smallest for which the dual GCRA
/// (I.371; BT = (MBS - 1)(1/SCR - 1/PCR)) does. Both found by bisection; the returned
/// `nonconforming` is counted at the result. None for an empty stream.
pub fn fit_bursts(
    times: &[SimTime],
    pcr_mbps: f64,
    scr_mbps: f64,
    tolerance: f64,
) -> Option<FittedBursts> {
    let (&first, &last) = (times.first()?, times.last()?);
    let n = times.len() as u64;
    let budget = (tolerance * n as f64).floor() as u64;
    let t = increment_ps(pcr_mbps);
    let form = GcraForm::VirtualScheduling;
    // with a limit of n x T plus the stream's span every cell conforms
    let ns_hi = (last - first + n.saturating_mul(t)) / 1000 + 1;
    let cdvt_ns = smallest(0, ns_hi, |ns| {
        count_nonconforming(times, Gcra::new(form, t, ns * 1000)) <= budget
    });
    let cdvt_ps = cdvt_ns * 1000;
    let dual = |mbs: u64| DualGcra::from_mbps(form, pcr_mbps, cdvt_ps, scr_mbps, mbs as u32);
    // MBS = n + 1 gives a burst tolerance no conforming run of n cells can exceed
    let mbs_hi = (n + 1).min(u32::MAX as u64);
    let mbs = smallest(1, mbs_hi, |m| count_dual(times, dual(m)) <= budget);
    Some(FittedBursts {
        cdvt_ps,
        mbs_cells: mbs as u32,
        nonconforming: count_dual(times, dual(mbs)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitted_bursts_police_the_stream_within_the_tolerance() {
        // bursts of 50 back-to-back cells at 100 Mb/s every 5 ms: PCR 100, SCR about 4.24 Mb/s
        let t = increment_ps(100.0);
        let mut times = vec![];
        for b in 0..40u64 {
            for k in 0..50u64 {
                times.push(b * 5_000_000_000 + k * t);
            }
        }
        let scr = 1.1 * 50.0 * 424.0 / 5e-3 / 1e6;
        let f = fit_bursts(&times, 100.0, scr, 0.0).unwrap();
        // cells exactly at PCR need no CDVT; a burst of 50 at PCR needs MBS 50 exactly
        assert_eq!(f.cdvt_ps, 0);
        assert_eq!(f.mbs_cells, 50);
        assert_eq!(f.nonconforming, 0);
        let d = |m: u32| DualGcra::from_mbps(GcraForm::VirtualScheduling, 100.0, 0, scr, m);
        assert!(
            count_dual(&times, d(49)) > 0,
            "one cell less of burst is too tight"
        );
        // a peak rate 10% below the cells' spacing needs the CDVT that a 50-cell burst builds up
        let slow = increment_ps(90.0);
        let f = fit_bursts(&times, 90.0, scr, 0.0).unwrap();
        let need = 49 * (slow - t);
        assert!(
            f.cdvt_ps >= need && f.cdvt_ps < need + 1000,
            "{f:?} vs {need}"
        );
        // with a 2% tolerance the last cell of each burst (2% of 50) may go: MBS 49
        let f = fit_bursts(&times, 100.0, scr, 0.02).unwrap();
        assert_eq!(f.mbs_cells, 49);
        assert!(f.nonconforming <= 40, "{f:?}");
        assert!(fit_bursts(&[], 100.0, scr, 0.0).is_none());
    }
}
