//! Workload results (`connections.NAME.workload` in `summary.json`, docs/workloads.md): per
//! statement, per member (one transport connection of the VC), per run: the run's times, bytes,
//! throughput and transaction times, and statistics over the runs.

use serde::Serialize;

/// Mean, min, max and sample standard deviation (n - 1; 0 for one value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub std: f64,
}

impl Stats {
    /// The statistics of `v` (None when empty).
    pub fn of(v: &[f64]) -> Option<Stats> {
        if v.is_empty() {
            return None;
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = if v.len() > 1 {
            v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        Some(Stats {
            mean,
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            std: var.sqrt(),
        })
    }
}

/// One run of one member.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    /// The data sender's first write of the run (rr: the first request's), s.
    pub start_s: f64,
    /// The data receiver's last read of the run (rr: the last response's last byte read), s.
    /// None: the run had not ended when the simulation did.
    pub end_s: Option<f64>,
    /// Application bytes delivered in the run (rr: request bytes, as seed 001 Table 11's
    /// throughput counts them).
    pub bytes: u64,
    /// Data units (rr: transactions) completed.
    pub units: u64,
    /// bytes / (end_s - start_s) / 1000 (None for an unfinished run).
    #[serde(rename = "throughput_kBps")]
    pub throughput_kbps: Option<f64>,
    /// rr: statistics over the run's transaction times, ms (None for other ops).
    pub transaction_ms: Option<Stats>,
}

/// One member of a statement (a `Single` statement has one, on connection 0).
#[derive(Clone, Debug, Serialize)]
pub struct MemberSummary {
    /// The transport connection of the VC it ran on (`SegHdr::conn`).
    pub connection: u16,
    /// "bulk_get", "bulk_put" or "rr".
    pub op: &'static str,
    pub runs: Vec<RunSummary>,
    /// Over the finished runs: statistics of their throughputs.
    #[serde(rename = "throughput_kBps")]
    pub throughput_kbps: Option<Stats>,
    /// rr: over the finished runs, statistics of their mean transaction times, ms.
    pub transaction_ms: Option<Stats>,
}

/// One statement of the script.
#[derive(Clone, Debug, Serialize)]
pub struct StatementSummary {
    /// The statement's line in the script.
    pub line: u32,
    /// The statement as the printer writes it.
    pub text: String,
    /// Runs of the statement (its repetition count).
    pub runs: u32,
    pub members: Vec<MemberSummary>,
}

/// A connection's workload.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadSummary {
    pub transport: &'static str,
    /// Bytes from the start of the run, both ways, every connection (docs/workloads.md): written
    /// by one end's application, read by the other's, on their way (the sockets, the hosts, the
    /// network), lost (only XTPX without error control loses any); `bytes_sent =
    /// bytes_received + bytes_lost + bytes_in_network`.
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub bytes_in_network: u64,
    pub bytes_lost: u64,
    pub statements: Vec<StatementSummary>,
    /// True when every statement ran to its end within the run.
    pub complete: bool,
    /// When the last statement ended, s (None if incomplete).
    pub end_s: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_statistics() {
        let s = Stats::of(&[1.0, 2.0, 3.0, 6.0]).unwrap();
        assert_eq!((s.mean, s.min, s.max), (3.0, 1.0, 6.0));
        // sum of squares 4 + 1 + 0 + 9 = 14, over n - 1 = 3
        assert!((s.std - (14.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(Stats::of(&[5.0]).unwrap().std, 0.0);
        assert!(Stats::of(&[]).is_none());
    }
}
