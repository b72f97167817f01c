//! Counters updated on the hot path: why a cell was dropped ([`DropReason`]), the log-linear
//! delay histogram for CTD quantiles and 1-point CDV (ITU-T I.356), and the per-port and per-flow
//! counters. Plain integers updated inline; maxima are exact. Moved from `metrics.rs`.

use std::collections::BTreeMap;

/// Why a cell was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The output port's buffer limit was reached.
    PortBufferFull = 0,
    /// The service category's share of the port buffer was full.
    ClassBufferFull = 1,
    /// The buffer shared by a group of ports was full.
    SharedBufferFull = 2,
    /// Lost on a link by the impairment model.
    LinkLoss = 3,
    /// Its header was corrupted on a link into another connection's (the impairment model).
    Misinserted = 4,
    /// Discarded by usage parameter control at the network ingress.
    UpcDiscard = 5,
    /// A CLP = 1 cell met a queue above the port's selective-discard threshold.
    Clp1Threshold = 6,
    /// Early Packet Discard: a cell of a frame refused whole.
    Epd = 7,
    /// Partial Packet Discard: a cell of a frame that had already lost a cell.
    Ppd = 8,
    /// The input buffer of a credit-based switch fabric was full (`net/switch/credit.rs`);
    /// counted on the port feeding that input.
    InputBufferFull = 9,
}

impl DropReason {
    pub const COUNT: usize = 10;
    pub const ALL: [DropReason; Self::COUNT] = [
        DropReason::PortBufferFull,
        DropReason::ClassBufferFull,
        DropReason::SharedBufferFull,
        DropReason::LinkLoss,
        DropReason::Misinserted,
        DropReason::UpcDiscard,
        DropReason::Clp1Threshold,
        DropReason::Epd,
        DropReason::Ppd,
        DropReason::InputBufferFull,
    ];
    pub fn name(self) -> &'static str {
        [
            "port_buffer_full",
            "class_buffer_full",
            "shared_buffer_full",
            "link_loss",
            "misinserted",
            "upc_discard",
            "clp1_threshold",
            "epd",
            "ppd",
            "input_buffer_full",
        ][self as usize]
    }
}

/// Drop counters by reason.
pub type Drops = [u64; DropReason::COUNT];

/// Every reason with its count; `input_buffer_full` only where it is not zero (only switches
/// with a credit fabric have input buffers, and the other summaries keep their keys).
pub(crate) fn drops_map(d: &Drops) -> BTreeMap<&'static str, u64> {
    DropReason::ALL
        .iter()
        .filter(|r| **r != DropReason::InputBufferFull || d[**r as usize] > 0)
        .map(|r| (r.name(), d[*r as usize]))
        .collect()
}

/// A log-linear histogram of delays in picoseconds: exact below 128 ps, then 64 bins per power of
/// two (relative bin width at most 1/64), 3,776 bins over the whole u64 range. Used for delay
/// quantiles (1-point CDV, ITU-T I.356) without storing every delay.
///
/// Memory follows the bins in use, not the range (issue 13: a flow's dense bins are 15 KB, and a
/// network of 15,000 VCs held 225 MB of them): a histogram starts empty, keeps its first distinct
/// bins as a sorted list of (bin, count) pairs (8 bytes a bin), and turns into the dense array
/// only once more than [`DelayHistogram::SPARSE_BINS`] distinct bins are in use. Both forms hold
/// the same counts per bin, so the quantiles do not depend on the form.
///
/// `repr(C)`: the total and the sparse list first (what a record reads while sparse).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct DelayHistogram {
    total: u64,
    /// Sparse form: (bin, count), sorted by bin; empty once dense.
    sparse: Vec<(u32, u32)>,
    /// Dense counts per bin (empty while the histogram is sparse).
    counts: Vec<u32>,
}

impl DelayHistogram {
    pub const BINS: usize = 59 * 64;
    /// Distinct bins kept in the sparse form (512 bytes) before the dense array (15 KB) replaces it.
    pub const SPARSE_BINS: usize = 64;

    #[inline]
    fn bin(v: u64) -> usize {
        if v < 128 {
            v as usize
        } else {
            let e = 63 - v.leading_zeros() - 6;
            e as usize * 64 + (v >> e) as usize
        }
    }

    /// Lowest and highest value of a bin.
    fn range(i: usize) -> (u64, u64) {
        if i < 128 {
            (i as u64, i as u64)
        } else {
            let e = (i / 64 - 1) as u32;
            let m = (i - e as usize * 64) as u64;
            // hi = lo + 2^e - 1, written so the last bin (m = 127, e = 57) ends at u64::MAX
            // without computing 128 << 57 = 2^64
            (m << e, (m << e) + ((1u64 << e) - 1))
        }
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        let b = Self::bin(v);
        self.total += 1;
        if let Some(c) = self.counts.get_mut(b) {
            *c += 1;
        } else {
            self.record_sparse(b as u32);
        }
    }

    #[inline]
    fn record_sparse(&mut self, b: u32) {
        match self.sparse.binary_search_by_key(&b, |&(k, _)| k) {
            Ok(i) => self.sparse[i].1 += 1,
            Err(i) if self.sparse.len() < Self::SPARSE_BINS => self.sparse.insert(i, (b, 1)),
            Err(_) => self.densify(b),
        }
    }

    /// The sparse form is full: the dense array takes over, with `b` counted.
    #[cold]
    #[inline(never)]
    fn densify(&mut self, b: u32) {
        let mut counts = vec![0u32; Self::BINS];
        for &(k, c) in &self.sparse {
            counts[k as usize] = c;
        }
        counts[b as usize] += 1;
        self.counts = counts;
        self.sparse = Vec::new();
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    /// Whether the dense array is in use (for tests of the memory use).
    pub fn is_dense(&self) -> bool {
        !self.counts.is_empty()
    }

    /// The q-quantile (0 < q <= 1): the upper edge of the bin holding the ceil(q x n)-th value,
    /// so the estimate is never below the true quantile and at most 1/64 above it.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0u64;
        let dense = self.counts.iter().enumerate().map(|(i, &c)| (i, c));
        let sparse = self.sparse.iter().map(|&(i, c)| (i as usize, c));
        for (i, c) in dense.chain(sparse) {
            seen += c as u64;
            if seen >= rank {
                return Some(Self::range(i).1);
            }
        }
        None
    }
}

/// Per output port, from the end of warm-up.
#[derive(Clone, Debug, Default)]
pub struct PortStats {
    pub max_queue: u32,
    /// Integral of the queue length over time, cell x ps.
    pub area: u128,
    pub last_change: u64,
    pub tx_cells: u64,
    pub drops: Drops,
    /// Never reset: for the time series.
    pub tx_total: u64,
    pub sample_tx: u64,
}

/// Per flow (one direction of a connection). Counts cells created after warm-up, so that
/// sent = delivered + dropped + in flight holds exactly.
///
/// `repr(C)`: the counters every delivered cell updates come first, together on one cache line
/// (the flow puts them at the start of one), the delay histogram on the next, the drop
/// counters and the rarely changed ones after them, so a cell touches few lines (issue 13).
/// The cells sent are counted in [`crate::net::Flow::sent`], on the line emission reads; the
/// count the `connections` series reads is apart, in [`crate::net::FlowRx`].
#[derive(Clone, Debug)]
#[repr(C)]
pub struct FlowStats {
    pub ctd_sum: u128,
    pub delivered: u64,
    /// Cells delivered and dropped while carrying CLP = 0 (for CLR of the CLP = 0 stream).
    pub delivered_clp0: u64,
    pub ctd_max: u64,
    pub ctd_min: u64,
    /// Cells and user bytes that arrived after warm-up (throughput).
    pub rx_cells_window: u64,
    pub user_bytes_window: u64,
    pub ctd_hist: DelayHistogram,
    pub frames_delivered: u64,
    pub frames_sent: u64,
    /// CPCS-SDU bytes of those frames (the length in each end-of-frame cell).
    pub frame_bytes_delivered: u64,
    pub frame_bytes_sent: u64,
    /// Delivered cells whose payload was errored on a link.
    pub errored: u64,
    pub dropped: u64,
    pub dropped_clp0: u64,
    pub drops: Drops,
    pub drops_by_hop: Vec<u64>,
    /// RM cells among the cells sent.
    pub rm_sent: u64,
    /// Cells of other connections delivered here through a corrupted header, after warm-up.
    pub misinserted: u64,
}

impl FlowStats {
    pub fn new(hops: usize) -> Self {
        FlowStats {
            rm_sent: 0,
            errored: 0,
            delivered_clp0: 0,
            dropped_clp0: 0,
            misinserted: 0,
            delivered: 0,
            dropped: 0,
            drops: [0; DropReason::COUNT],
            drops_by_hop: vec![0; hops],
            frames_sent: 0,
            frames_delivered: 0,
            frame_bytes_sent: 0,
            frame_bytes_delivered: 0,
            rx_cells_window: 0,
            user_bytes_window: 0,
            ctd_sum: 0,
            ctd_max: 0,
            ctd_min: u64::MAX,
            ctd_hist: DelayHistogram::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DelayHistogram;

    #[test]
    fn histogram_allocates_at_its_first_delay_and_gives_quantiles() {
        let mut h = DelayHistogram::default();
        assert!(h.counts.is_empty() && h.sparse.is_empty() && h.quantile(0.5).is_none());
        for v in 1..=1000u64 {
            h.record(v * 1_000);
        }
        assert_eq!((h.counts.len(), h.count()), (DelayHistogram::BINS, 1000));
        assert!(h.sparse.is_empty());
        // the 0.999 quantile is the 999th value's bin's upper edge: within 1/64 above it
        let q = h.quantile(0.999).unwrap();
        assert!(
            q >= 999_000 && q as f64 <= 999_000.0 * (1.0 + 1.0 / 64.0),
            "{q}"
        );
    }

    #[test]
    fn sparse_and_dense_forms_give_the_same_quantiles() {
        // the same delays into a histogram that stays sparse and one made dense from the start
        let mut x: u64 = 88172645463325252;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for distinct in [
            1usize,
            7,
            DelayHistogram::SPARSE_BINS,
            DelayHistogram::SPARSE_BINS + 1,
        ] {
            // `distinct` values, each in a bin of its own (the lowest value of bins 200, 237, ...)
            let values: Vec<u64> = (0..distinct)
                .map(|k| DelayHistogram::range(200 + 37 * k).0)
                .collect();
            let mut sparse = DelayHistogram::default();
            let mut dense = DelayHistogram {
                counts: vec![0; DelayHistogram::BINS],
                ..Default::default()
            };
            for _ in 0..5000 {
                let v = values[(next() % distinct as u64) as usize];
                sparse.record(v);
                dense.record(v);
            }
            let bins: std::collections::BTreeSet<usize> =
                values.iter().map(|&v| DelayHistogram::bin(v)).collect();
            assert_eq!(bins.len(), distinct);
            assert_eq!(sparse.is_dense(), distinct > DelayHistogram::SPARSE_BINS);
            assert_eq!(sparse.count(), dense.count());
            for q in [0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0] {
                assert_eq!(
                    sparse.quantile(q),
                    dense.quantile(q),
                    "{distinct} bins, q {q}"
                );
            }
        }
    }

    #[test]
    fn histogram_bins_are_contiguous_and_tight() {
        let mut last_hi = None;
        for i in 0..DelayHistogram::BINS {
            let (lo, hi) = DelayHistogram::range(i);
            if let Some(h) = last_hi {
                assert_eq!(lo, h + 1, "bin {i}");
            }
            assert_eq!(DelayHistogram::bin(lo), i);
            assert_eq!(DelayHistogram::bin(hi), i);
            assert!((hi - lo) as f64 <= lo as f64 / 64.0 + 1.0);
            last_hi = Some(hi);
        }
        assert_eq!(last_hi, Some(u64::MAX));
    }

    #[test]
    fn quantiles_of_a_uniform_sample() {
        let mut h = DelayHistogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for q in [0.5, 0.9, 0.999] {
            let exact = (q * 100_000.0) * 1000.0;
            let got = h.quantile(q).unwrap() as f64;
            assert!(
                got >= exact && got <= exact * (1.0 + 1.0 / 64.0) + 1.0,
                "q {q}: {got} vs {exact}"
            );
        }
        assert_eq!(
            h.quantile(1.0).unwrap(),
            DelayHistogram::range(DelayHistogram::bin(100_000_000)).1
        );
    }
}
