//! Closed forms used by connection admission control: the Erlang-B formula, computed with the
//! recursion B(A, n) = A B(A, n-1) / (n + A B(A, n-1)), and the equivalent capacity of an ON-OFF
//! source (R. Guérin, H. Ahmadi, M. Naghshineh, *Equivalent capacity and its application to
//! bandwidth allocation in high-speed networks*, IEEE JSAC 9(7), Sept. 1991, fluid-flow
//! approximation).

/// Erlang-B blocking probability of `servers` circuits offered `offered_erlangs` of traffic, by
/// the stable recursion B(A, 0) = 1, B(A, n) = A B(A, n-1) / (n + A B(A, n-1)).
pub fn erlang_b(offered_erlangs: f64, servers: u32) -> f64 {
    let a = offered_erlangs.max(0.0);
    let mut b = 1.0;
    for n in 1..=servers {
        b = a * b / (n as f64 + a * b);
    }
    b
}

/// Fewest servers whose Erlang-B blocking for `offered_erlangs` is at most `target` (0 < target).
pub fn erlang_b_servers(offered_erlangs: f64, target: f64) -> u32 {
    assert!(target > 0.0, "target blocking must be positive");
    let a = offered_erlangs.max(0.0);
    let (mut n, mut b) = (0u32, 1.0);
    while b > target {
        n += 1;
        b = a * b / (n as f64 + a * b);
    }
    n
}

/// Equivalent capacity of one ON-OFF fluid source (Guérin, Ahmadi, Naghshineh 1991, the
/// fluid-flow approximation):
///
/// `c = R (y - X + sqrt((y - X)^2 + 4 X rho y)) / (2 y)`, with `y = ln(1/eps) b (1 - rho) R`,
///
/// for peak rate R, utilization rho (fraction of time ON = mean/peak), mean ON period b
/// (seconds), buffer X and loss target eps. Units: R in anything per second, X in the same
/// anything (here cells), result in R's unit. c lies between rho R and R; it tends to R as
/// X -> 0 and to rho R as X -> infinity. When y - X < 0 the numerator is computed as
/// 4 X rho y / (sqrt(..) + X - y) to avoid cancellation.
pub fn gan_equivalent_capacity(
    peak: f64,
    utilization: f64,
    mean_burst_s: f64,
    buffer: f64,
    loss: f64,
) -> f64 {
    let rho = utilization.clamp(0.0, 1.0);
    if rho >= 1.0 || mean_burst_s <= 0.0 || peak <= 0.0 {
        return peak.max(0.0);
    }
    let alpha = (1.0 / loss.clamp(f64::MIN_POSITIVE, 1.0)).ln();
    let y = alpha * mean_burst_s * (1.0 - rho) * peak;
    if y <= 0.0 {
        return rho * peak;
    }
    let x = buffer.max(0.0);
    let d = y - x;
    let root = (d * d + 4.0 * x * rho * y).sqrt();
    let numerator = if d >= 0.0 {
        d + root
    } else {
        4.0 * x * rho * y / (root - d)
    };
    (peak * numerator / (2.0 * y)).clamp(rho * peak, peak)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cac::CacPolicy;
    use crate::policing::Contract;

    #[test]
    fn erlang_b_table_values() {
        assert!((erlang_b(10.0, 10) - 0.21458).abs() < 5e-6);
        assert_eq!(erlang_b(1.0, 1), 0.5);
        assert!((erlang_b(2.0, 2) - 0.4).abs() < 1e-15); // (4/2) / (1 + 2 + 2)
        assert_eq!(erlang_b(3.0, 0), 1.0);
        assert_eq!(erlang_b(0.0, 3), 0.0);
        // standard table: 1% blocking at 10, 20, 100 circuits needs 4.461, 12.031, 84.06 erlangs
        for &(a, n) in &[(4.4612, 10u32), (12.031, 20), (84.06, 100)] {
            assert!((erlang_b(a, n) - 0.01).abs() < 2e-5, "{a} {n}");
        }
        // stable at large sizes, decreasing in servers
        let big = erlang_b(1000.0, 1000);
        assert!((big - 0.024_81).abs() < 1e-4, "{big}");
        assert!(erlang_b(5000.0, 4000) > erlang_b(5000.0, 4001));
        // 10 erlangs at 1%: 18 servers (B = 0.00714) and not 17 (B = 0.01295)
        assert_eq!(erlang_b_servers(10.0, 0.01), 18);
    }

    #[test]
    fn effective_bandwidth_formula_and_limits() {
        // R = 1000 cells/s, rho = 0.25, b = 0.1 s, X = 50 cells, eps = 1e-6:
        // y = ln(1e6) x 0.1 x 0.75 x 1000 = 1036.163; y - X = 986.163;
        // sqrt(986.163^2 + 4 x 50 x 0.25 x 1036.163) = sqrt(972,517.8 + 51,808.2) = 1012.090
        // c = 1000 x (986.163 + 1012.090) / (2 x 1036.163) = 964.256 cells/s
        let c = gan_equivalent_capacity(1000.0, 0.25, 0.1, 50.0, 1e-6);
        assert!((c - 964.256).abs() < 1e-3, "{c}");
        // limits: X -> 0 gives the peak, X -> infinity the mean; y < X branch is continuous
        assert!((gan_equivalent_capacity(1000.0, 0.25, 0.1, 0.0, 1e-6) - 1000.0).abs() < 1e-9);
        let huge = gan_equivalent_capacity(1000.0, 0.25, 0.1, 1e12, 1e-6);
        assert!((huge - 250.0).abs() < 1e-3, "{huge}");
        let y = (1e6f64).ln() * 0.1 * 0.75 * 1000.0;
        let below = gan_equivalent_capacity(1000.0, 0.25, 0.1, y * (1.0 - 1e-12), 1e-6);
        let above = gan_equivalent_capacity(1000.0, 0.25, 0.1, y * (1.0 + 1e-12), 1e-6);
        assert!((below - above).abs() < 1e-6);
        // monotone in buffer, between mean and peak
        let mut prev = f64::INFINITY;
        for x in [0.0, 1.0, 10.0, 100.0, 1e3, 1e4, 1e5] {
            let c = gan_equivalent_capacity(1000.0, 0.25, 0.1, x, 1e-6);
            assert!((250.0..=1000.0).contains(&c) && c <= prev);
            prev = c;
        }
        // CAC policies on a VBR contract: sustainable <= effective <= peak; CBR gets its PCR
        let v = Contract::vbr(10.0, 0, 2.0, 100);
        let eb = CacPolicy::EffectiveBandwidth {
            buffer_cells: 500.0,
            clr: 1e-6,
        };
        assert_eq!(CacPolicy::Peak.bandwidth(&v), 10.0);
        assert_eq!(CacPolicy::Sustainable.bandwidth(&v), 2.0);
        let e = eb.bandwidth(&v);
        assert!(e > 2.0 && e < 10.0, "{e}");
        assert_eq!(eb.bandwidth(&Contract::cbr(3.0, 0)), 3.0);
        assert_eq!(
            CacPolicy::Sustainable.bandwidth(&Contract::cbr(3.0, 0)),
            3.0
        );
    }
}
