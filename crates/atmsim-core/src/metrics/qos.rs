//! Block-based QoS measures (seed 001 `/work/shared/seeds/001_08abd1994ada50f6.txt` section 4.2):
//! cell outcomes at the measurement point, blocks of N cells that are severely errored with more
//! than M errored/lost/misinserted cells (SECBR), CER, CLR and CMR, and their closed forms for
//! independent cell errors.

/// The outcome of one cell at the measurement point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellOutcome {
    /// Transmitted and received intact.
    Delivered,
    /// Transmitted and received with an error.
    Errored,
    /// Transmitted and not received.
    Lost,
    /// Received with no corresponding transmitted cell.
    Misinserted,
}

/// Counts cell outcomes and groups the transmitted cells into blocks of N consecutive cells; a
/// block is severely errored when more than M of its cells are errored, lost or misinserted
/// (seed 001 section 4.2). Delivered, errored and lost cells each take one place in a block; a
/// misinserted cell takes none (it was never transmitted) but counts against the block being
/// filled. A trailing incomplete block is not counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockCounter {
    block_cells: u32,
    max_bad: u32,
    pos: u32,
    bad: u32,
    blocks: u64,
    severe: u64,
    delivered: u64,
    errored: u64,
    lost: u64,
    misinserted: u64,
}

impl BlockCounter {
    /// Blocks of `block_cells` (N >= 1); severe above `max_bad` (M) bad cells.
    pub fn new(block_cells: u32, max_bad: u32) -> Self {
        assert!(block_cells >= 1, "a cell block holds at least one cell");
        BlockCounter {
            block_cells,
            max_bad,
            pos: 0,
            bad: 0,
            blocks: 0,
            severe: 0,
            delivered: 0,
            errored: 0,
            lost: 0,
            misinserted: 0,
        }
    }

    /// Record one cell outcome.
    #[inline]
    pub fn record(&mut self, outcome: CellOutcome) {
        match outcome {
            CellOutcome::Delivered => self.delivered += 1,
            CellOutcome::Errored => self.errored += 1,
            CellOutcome::Lost => self.lost += 1,
            CellOutcome::Misinserted => {
                self.misinserted += 1;
                self.bad += 1;
                return;
            }
        }
        self.bad += (outcome != CellOutcome::Delivered) as u32;
        self.pos += 1;
        if self.pos == self.block_cells {
            self.blocks += 1;
            self.severe += (self.bad > self.max_bad) as u64;
            self.pos = 0;
            self.bad = 0;
        }
    }

    /// Complete blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }
    /// Severely errored blocks.
    pub fn severe_blocks(&self) -> u64 {
        self.severe
    }
    /// Transmitted cells (delivered + errored + lost).
    pub fn transmitted(&self) -> u64 {
        self.delivered + self.errored + self.lost
    }
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    pub fn errored(&self) -> u64 {
        self.errored
    }
    pub fn lost(&self) -> u64 {
        self.lost
    }
    pub fn misinserted(&self) -> u64 {
        self.misinserted
    }

    /// SECBR = severely errored blocks / blocks (0 before the first block).
    pub fn secbr(&self) -> f64 {
        ratio(self.severe, self.blocks)
    }
    /// CER = errored / (delivered + errored).
    pub fn cer(&self) -> f64 {
        ratio(self.errored, self.delivered + self.errored)
    }
    /// CLR = lost / transmitted.
    pub fn clr(&self) -> f64 {
        ratio(self.lost, self.transmitted())
    }
    /// CMR = misinserted cells per second over an interval of `interval_s` seconds.
    pub fn cmr(&self, interval_s: f64) -> f64 {
        if interval_s > 0.0 {
            self.misinserted as f64 / interval_s
        } else {
            0.0
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Expected SECBR when each cell of a block is bad independently with probability `p`:
/// P(Binomial(N, p) > M) = sum over k = M+1..=N of C(N, k) p^k (1-p)^(N-k), summed as the upper
/// tail itself (terms built in log space) so small values keep their precision.
pub fn secbr_binomial(block_cells: u32, max_bad: u32, p: f64) -> f64 {
    let n = block_cells;
    if max_bad >= n || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let (lp, lq) = (p.ln(), (-p).ln_1p());
    // ln C(N, k) built up from k = 0
    let mut ln_c = 0.0;
    let mut sum = 0.0;
    for k in 0..=n {
        if k > 0 {
            ln_c += ((n - k + 1) as f64).ln() - (k as f64).ln();
        }
        if k > max_bad {
            sum += (ln_c + k as f64 * lp + (n - k) as f64 * lq).exp();
        }
    }
    sum.min(1.0)
}

/// Expected CMR in cells/s when each of `cells` transmitted cells is followed by a misinserted
/// one with probability `p`, over `interval_s` seconds: `cells x p / interval`.
pub fn cmr_expected(cells: u64, p: f64, interval_s: f64) -> f64 {
    cells as f64 * p / interval_s
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn block_counter_counts_severe_blocks() {
        use CellOutcome::*;
        // N = 4, M = 1: a block is severe with 2 or more bad cells
        let mut b = BlockCounter::new(4, 1);
        for o in [Delivered, Lost, Delivered, Delivered] {
            b.record(o); // 1 bad: not severe
        }
        for o in [Errored, Delivered, Lost, Delivered] {
            b.record(o); // 2 bad: severe
        }
        for o in [Delivered, Misinserted, Delivered, Errored, Delivered] {
            b.record(o); // misinserted takes no place: 2 bad in 4 transmitted cells: severe
        }
        b.record(Lost); // incomplete block: not counted
        assert_eq!((b.blocks(), b.severe_blocks()), (3, 2));
        assert!((b.secbr() - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(
            (b.delivered(), b.errored(), b.lost(), b.misinserted()),
            (8, 2, 3, 1)
        );
        assert_eq!(b.transmitted(), 13);
        assert!((b.cer() - 2.0 / 10.0).abs() < 1e-15);
        assert!((b.clr() - 3.0 / 13.0).abs() < 1e-15);
        assert_eq!(b.cmr(0.5), 2.0);
    }

    #[test]
    fn secbr_closed_form_edges() {
        assert_eq!(secbr_binomial(10, 10, 0.5), 0.0);
        assert_eq!(secbr_binomial(10, 2, 0.0), 0.0);
        assert_eq!(secbr_binomial(10, 2, 1.0), 1.0);
        // M = 0: 1 - (1-p)^N
        assert!((secbr_binomial(100, 0, 0.01) - (1.0 - 0.99f64.powi(100))).abs() < 1e-12);
        // N = 100, M = 2, p = 0.01: 1 - (0.366032 + 0.369730 + 0.184865) = 0.0793732
        assert!((secbr_binomial(100, 2, 0.01) - 0.079_373_2).abs() < 1e-7);
        // tiny tails keep their precision: P(Bin(1000, 1e-6) > 3) ~ C(1000,4) 1e-24 = 4.14e-14
        let t = secbr_binomial(1000, 3, 1e-6);
        assert!((t / 4.141_712_5e-14 - 1.0).abs() < 2e-3, "{t}");
    }

    #[test]
    fn secbr_and_cmr_simulated_vs_closed_form() {
        let (n, m, p_loss, p_mis) = (100u32, 2u32, 0.008, 0.001);
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let mut b = BlockCounter::new(n, m);
        let blocks = 40_000u64;
        let mut misinserted = 0u64;
        for _ in 0..blocks * n as u64 {
            let u = rng.random::<f64>();
            b.record(if u < p_loss / 2.0 {
                CellOutcome::Lost
            } else if u < p_loss {
                CellOutcome::Errored
            } else {
                CellOutcome::Delivered
            });
            if rng.random_bool(p_mis) {
                b.record(CellOutcome::Misinserted);
                misinserted += 1;
            }
        }
        assert_eq!(b.blocks(), blocks);
        // each transmitted cell is bad w.p. p_loss and brings a misinserted cell w.p. p_mis: the
        // bad count of a block is Bin(N, p_loss) + Bin(N, p_mis), close to Bin(2N, ...) - use
        // the exact convolution of the two binomials for the expected SECBR
        let pmf = |nn: u32, p: f64| -> Vec<f64> {
            // P(X = k) = P(X > k - 1) - P(X > k)
            let above = |k: u32| secbr_binomial(nn, k, p);
            (0..=nn)
                .map(|k| if k == 0 { 1.0 } else { above(k - 1) } - above(k))
                .collect()
        };
        let (a, c) = (pmf(n, p_loss), pmf(n, p_mis));
        let mu = m as usize;
        let ok: f64 = (0..=mu)
            .map(|i| a[i] * c[..=mu - i].iter().sum::<f64>())
            .sum();
        let expected = 1.0 - ok;
        let se = (expected * (1.0 - expected) / blocks as f64).sqrt();
        assert!(
            (b.secbr() - expected).abs() < 4.0 * se,
            "SECBR {} vs {expected} (se {se})",
            b.secbr()
        );
        // without misinsertion the closed form is the binomial tail itself
        let mut b2 = BlockCounter::new(n, m);
        for _ in 0..blocks * n as u64 {
            b2.record(if rng.random_bool(0.01) {
                CellOutcome::Lost
            } else {
                CellOutcome::Delivered
            });
        }
        let e2 = secbr_binomial(n, m, 0.01);
        let se2 = (e2 * (1.0 - e2) / blocks as f64).sqrt();
        assert!(
            (b2.secbr() - e2).abs() < 4.0 * se2,
            "SECBR {} vs {e2}",
            b2.secbr()
        );
        // CMR: cells sent at 1e5 cells/s -> interval = cells / 1e5 s
        let cells = blocks * n as u64;
        let interval = cells as f64 / 1e5;
        let cmr = b.cmr(interval);
        let cmr_e = cmr_expected(cells, p_mis, interval);
        let cmr_se = (cells as f64 * p_mis * (1.0 - p_mis)).sqrt() / interval;
        assert!((cmr - cmr_e).abs() < 4.0 * cmr_se, "CMR {cmr} vs {cmr_e}");
        assert_eq!(b.misinserted(), misinserted);
        // CLR = lost / transmitted -> p_loss / 2; CER = errored / (delivered + errored)
        // -> (p_loss / 2) / (1 - p_loss / 2)
        let clr_se = (p_loss / 2.0 / cells as f64).sqrt();
        assert!(
            (b.clr() - p_loss / 2.0).abs() < 4.0 * clr_se,
            "CLR {}",
            b.clr()
        );
        let cer_e = (p_loss / 2.0) / (1.0 - p_loss / 2.0);
        assert!(
            (b.cer() - cer_e).abs() < 4.0 * clr_se,
            "CER {} vs {cer_e}",
            b.cer()
        );
    }
}
