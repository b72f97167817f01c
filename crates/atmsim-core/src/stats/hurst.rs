//! Hurst-parameter estimators: aggregated variance (with the finite-sample correction) and
//! Whittle's approximate maximum likelihood for FGN, used to check the FGN generators of
//! [`super::fgn`] (seed 000 section 4) and for reproductions. Moved from `fgn.rs`.

use super::fgn::paxson_spectral_density;
use rustfft::num_complex::Complex;
use rustfft::FftPlannerScalar;
use std::f64::consts::PI;

/// Hurst parameter by the aggregated-variance method, with the finite-sample correction.
///
/// For block sizes `m` (log-spaced from 4 to n/16), the variance of the `K = n/m` block means
/// around their overall mean has expectation `s^2 (m^(2H-2) - (Km)^(2H-2))`; `H` and `s^2` are
/// fitted to the logarithms of these variances by least squares weighted by `K - 1` (the log of
/// a variance from K blocks has variance about 2/(K-1)), over a grid of H in (0, 1) by 0.0005.
/// Without the `(Km)^(2H-2)` term the plain log-log slope underestimates H by several hundredths
/// at n = 2^16. A simple, assumption-light estimator with a spread of a few hundredths at
/// n = 2^16; see [`hurst_whittle`] for a sharp one. `None` for fewer than 256 values.
pub fn hurst_aggregated_variance(x: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 256 {
        return None;
    }
    let mut sizes: Vec<usize> = Vec::new();
    let (lo, hi) = (4f64.ln(), ((n / 16) as f64).ln());
    let steps = 24;
    for i in 0..=steps {
        let m = (lo + (hi - lo) * i as f64 / steps as f64).exp().round() as usize;
        if sizes.last() != Some(&m) {
            sizes.push(m);
        }
    }
    // (m, K m, log variance of block means, weight)
    let mut pts: Vec<(f64, f64, f64, f64)> = Vec::with_capacity(sizes.len());
    for &m in &sizes {
        let k = n / m;
        let used = k * m;
        let means: Vec<f64> = x[..used]
            .chunks_exact(m)
            .map(|c| c.iter().sum::<f64>() / m as f64)
            .collect();
        let grand = means.iter().sum::<f64>() / k as f64;
        let var = means.iter().map(|v| (v - grand) * (v - grand)).sum::<f64>() / k as f64;
        if var > 0.0 {
            pts.push((m as f64, used as f64, var.ln(), (k - 1) as f64));
        }
    }
    if pts.len() < 3 {
        return None;
    }
    let wsum: f64 = pts.iter().map(|p| p.3).sum();
    let sse = |h: f64| {
        let e = 2.0 * h - 2.0;
        let logs: Vec<f64> = pts
            .iter()
            .map(|&(m, nm, _, _)| (m.powf(e) - nm.powf(e)).ln())
            .collect();
        let off = pts
            .iter()
            .zip(&logs)
            .map(|(p, l)| p.3 * (p.2 - l))
            .sum::<f64>()
            / wsum;
        pts.iter()
            .zip(&logs)
            .map(|(p, l)| p.3 * (p.2 - l - off).powi(2))
            .sum::<f64>()
    };
    let mut best = (f64::INFINITY, 0.5);
    for i in 1..2000 {
        let h = i as f64 * 0.0005;
        let v = sse(h);
        if v < best.0 {
            best = (v, h);
        }
    }
    Some(best.1)
}

/// Hurst parameter by Whittle's approximate maximum-likelihood estimator for FGN (Beran 1994,
/// the estimator Paxson used to check his generator): minimises
/// `ln( (1/m) sum_j I(l_j) / f(l_j; H) ) + (1/m) sum_j ln f(l_j; H)` over the Fourier
/// frequencies `l_j = 2 pi j / n`, `j = 1..(n-1)/2`, with the periodogram `I` and the FGN
/// spectrum `f` of [`paxson_spectral_density`]; golden-section search over H in [0.01, 0.99].
/// Its standard error is about `sqrt(0.6 / n)`-ish at H = 0.8 (a few thousandths at 2^16).
/// `None` for fewer than 64 values or a constant sample.
pub fn hurst_whittle(x: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 64 {
        return None;
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    let mut buf: Vec<Complex<f64>> = x.iter().map(|&v| Complex::new(v - mean, 0.0)).collect();
    FftPlannerScalar::new()
        .plan_fft_forward(n)
        .process(&mut buf);
    let m = (n - 1) / 2;
    let per: Vec<f64> = buf[1..=m].iter().map(|c| c.norm_sqr() / n as f64).collect();
    if per.iter().all(|&p| p == 0.0) {
        return None;
    }
    let lambdas: Vec<f64> = (1..=m).map(|j| 2.0 * PI * j as f64 / n as f64).collect();
    let q = |h: f64| {
        let (mut s1, mut s2) = (0.0, 0.0);
        for (&l, &p) in lambdas.iter().zip(&per) {
            let f = paxson_spectral_density(l, h);
            s1 += p / f;
            s2 += f.ln();
        }
        (s1 / m as f64).ln() + s2 / m as f64
    };
    let (mut a, mut b) = (0.01f64, 0.99f64);
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - r * (b - a), a + r * (b - a));
    let (mut fc, mut fd) = (q(c), q(d));
    while b - a > 1e-5 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - r * (b - a);
            fc = q(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + r * (b - a);
            fd = q(d);
        }
    }
    Some(0.5 * (a + b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::stats::fgn::{FgnGenerator, FgnMethod};
    use rand_distr::{Distribution, StandardNormal};

    #[test]
    fn hurst_estimate_near_requested() {
        let n = 1usize << 16;
        for method in [FgnMethod::Paxson, FgnMethod::DaviesHarte] {
            for &h in &[0.7, 0.8, 0.9] {
                let mut g = FgnGenerator::new(method, n, h, 0.0, 1.0).unwrap();
                let (mut av, mut wh) = (vec![], vec![]);
                for seed in 0..6u64 {
                    let mut rng = stream(seed, "fgn.hurst");
                    let x = g.generate(&mut rng);
                    av.push(hurst_aggregated_variance(&x).unwrap());
                    wh.push(hurst_whittle(&x).unwrap());
                }
                let f = |v: &[f64]| {
                    v.iter()
                        .map(|e| format!("{e:.3}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                eprintln!(
                    "{method} H={h} n=2^16: aggregated variance [{}], Whittle [{}]",
                    f(&av),
                    f(&wh)
                );
                for e in av {
                    assert!(
                        (e - h).abs() < 0.07,
                        "{method} H {h}: aggregated variance {e}"
                    );
                }
                for e in wh {
                    assert!((e - h).abs() < 0.02, "{method} H {h}: Whittle {e}");
                }
            }
        }
        // white noise gives 0.5
        let mut rng = stream(3, "white");
        let w: Vec<f64> = (0..n).map(|_| StandardNormal.sample(&mut rng)).collect();
        let (a, b) = (
            hurst_aggregated_variance(&w).unwrap(),
            hurst_whittle(&w).unwrap(),
        );
        eprintln!("white noise: aggregated variance {a:.3}, Whittle {b:.3}");
        assert!((a - 0.5).abs() < 0.05 && (b - 0.5).abs() < 0.02, "{a} {b}");
    }
}
