//! The `xtpx` section of a connection's summary, from the sending end's sender and the receiving
//! end's receiver (moved from the engine's summary, which now asks the endpoints for it).

use super::{ErrorControl, XtpxReceiver, XtpxSender};
use crate::metrics::XtpxSummary;
use crate::time::ps_to_secs;

/// The summary of one XTPX connection after warm-up: sender `t`, the far end's receiver `r` (if
/// it has one), over a window of `window_s` seconds.
pub fn xtpx_summary(t: &XtpxSender, r: Option<&XtpxReceiver>, window_s: f64) -> XtpxSummary {
    let bytes = r.map(|r| r.delivered() - r.mark).unwrap_or(0);
    let (now, m) = (&t.stats, &t.mark);
    let per_s = |b: u64| {
        if window_s > 0.0 {
            b as f64 / window_s
        } else {
            0.0
        }
    };
    XtpxSummary {
        goodput_mbps: per_s(bytes) * 8.0 / 1e6,
        throughput_kbytes_s: per_s(bytes) / 1e3,
        bytes_delivered: bytes,
        packets_sent: now.packets_sent - m.packets_sent,
        retransmitted_packets: now.retransmitted_packets - m.retransmitted_packets,
        retransmitted_bytes: now.retransmitted_bytes - m.retransmitted_bytes,
        reports: now.reports - m.reports,
        go_backs: now.go_backs - m.go_backs,
        timeouts: now.timeouts - m.timeouts,
        rate_bytes_per_s: t.p.rate.map(|r| r.bytes_per_s()),
        burst_bytes: t.p.rate.map(|r| r.burst),
        interval_ms: t.p.rate.map(|r| r.interval as f64 / 1e9),
        window_bytes: t.p.window,
        error_control: match t.p.error_control {
            ErrorControl::None => "none",
            ErrorControl::GoBackN => "go_back_n",
            ErrorControl::SelectiveRepeat => "selective_repeat",
        },
        packet_payload_bytes: t.p.max_payload,
        max_payload_fraction: crate::wire::aal5_efficiency(t.p.max_payload, t.p.header_bytes),
        completed_s: t.done_at.map(ps_to_secs),
    }
}
