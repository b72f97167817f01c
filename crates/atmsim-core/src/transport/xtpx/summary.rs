//! The `xtpx` section of a connection's summary, from the sending end's sender and the receiving
//! end's receiver (moved from the engine's summary, which now asks the endpoints for it).

use super::{unwrap, ErrorControl, XtpxReceiver, XtpxSender};
use crate::metrics::accounting::lost;
use crate::metrics::XtpxSummary;
use crate::time::ps_to_secs;
use crate::transport::StreamBytes;
use crate::wire::SegHdr;

/// The bytes of sender `t`'s direction from the start, `r` the far end's receiver, `out` the
/// sender's frames on their way (`crate::transport::InTransit`). With error control nothing
/// is lost: every byte taken and not delivered is between the two. Without it a lost packet
/// is never sent again: what is between the two is what was not sent yet and the data packets
/// on their way (the receiver has taken in everything before them: a VC keeps the order), and
/// the rest of what was sent is lost (the gaps the receiver skipped, and a lost tail that no
/// later packet has revealed yet).
pub fn xtpx_stream(t: &XtpxSender, r: Option<&XtpxReceiver>, out: &[(u32, SegHdr)]) -> StreamBytes {
    let taken = t.stats.taken;
    let delivered = r.map_or(0, |r| r.delivered());
    let in_network = match r {
        Some(r) if t.p.error_control == ErrorControl::None => {
            let on_way: u64 = out
                .iter()
                .filter(|(_, s)| s.has_data() && unwrap(r.rseq, s.seq) >= r.rseq)
                .map(|&(sdu, _)| sdu.saturating_sub(t.p.header_bytes) as u64)
                .sum();
            taken - t.snd_max + on_way
        }
        _ => taken.saturating_sub(delivered),
    };
    StreamBytes {
        taken,
        delivered,
        lost: lost(taken, delivered, in_network, "XTPX bytes"),
        in_network,
    }
}

/// The summary of one XTPX connection after warm-up: sender `t`, the far end's receiver `r` (if
/// it has one), over a window of `window_s` seconds, `out` the sender's frames on their way.
pub fn xtpx_summary(
    t: &XtpxSender,
    r: Option<&XtpxReceiver>,
    window_s: f64,
    out: &[(u32, SegHdr)],
) -> XtpxSummary {
    let bytes = r.map(|r| r.delivered() - r.mark).unwrap_or(0);
    // the window's stock and flows (see `tcp_summary`); at warm-up, what the receiver had not
    // yet delivered or skipped
    let end = xtpx_stream(t, r, out);
    let at_warmup = t.mark.taken - r.map_or(0, |r| r.mark + r.skipped_mark);
    let sent = end.taken - t.mark.taken;
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
        bytes_sent: sent,
        bytes_in_network: end.in_network,
        bytes_in_network_at_warmup: at_warmup,
        bytes_lost: lost(
            at_warmup + sent,
            bytes,
            end.in_network,
            "XTPX bytes after warm-up",
        ),
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
