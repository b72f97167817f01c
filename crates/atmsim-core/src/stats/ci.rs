//! Confidence intervals.

/// Half-width of the 95% confidence interval of the blocking probability by the method of batch
/// means (Law and Kelton, Simulation Modeling and Analysis, section 9.5.3): the blocking ratios
/// of the batches with calls are treated as independent, Student's t with (batches - 1) degrees
/// of freedom. Successive calls are correlated (a blocked call finds the port full, and so does
/// the next one), which a binomial interval would ignore. NaN with fewer than two such batches.
pub fn batch_means_ci95(offered: &[u64], blocked: &[u64]) -> f64 {
    let ratios: Vec<f64> = offered
        .iter()
        .zip(blocked)
        .filter(|(&o, _)| o > 0)
        .map(|(&o, &b)| b as f64 / o as f64)
        .collect();
    let k = ratios.len();
    if k < 2 {
        return f64::NAN;
    }
    let mean = ratios.iter().sum::<f64>() / k as f64;
    let var = ratios.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (k - 1) as f64;
    t975(k - 1) * (var / k as f64).sqrt()
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom (df 1 to 30, then 1.96).
pub(crate) fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    T.get(df.wrapping_sub(1)).copied().unwrap_or(1.96)
}
