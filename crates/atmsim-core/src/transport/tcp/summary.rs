//! The `tcp` section of a connection's summary, from the sending end's sender and the receiving
//! end's receiver (moved from the engine's summary, which now asks the endpoints for it).

use super::{TcpReceiver, TcpSender, TCP_IP_LLC_BYTES};
use crate::metrics::accounting::lost;
use crate::metrics::TcpSummary;
use crate::time::ps_to_secs;
use crate::transport::StreamBytes;

/// The bytes of sender `t`'s direction from the start, `r` the far end's receiver: TCP loses
/// nothing (it sends again what the network lost), so every byte taken and not delivered in
/// order is between the two (the send buffer, the hosts, the network, held out of order).
pub fn tcp_stream(t: &TcpSender, r: Option<&TcpReceiver>) -> StreamBytes {
    let taken = t.stats.taken;
    let delivered = r.map_or(0, |r| r.rcv_nxt);
    let in_network = taken.saturating_sub(delivered);
    StreamBytes {
        taken,
        delivered,
        lost: lost(taken, delivered, in_network, "TCP bytes"),
        in_network,
    }
}

/// The summary of one TCP connection after warm-up: sender `t`, the far end's receiver `r` (if
/// it has one), over a window of `window_s` seconds (the VC's rate control beneath scales
/// `max_payload_fraction` by the share of its cells that carry data:
/// [`crate::transport::TransportSummary::data_share`]).
pub fn tcp_summary(
    t: &TcpSender,
    r: Option<&TcpReceiver>,
    window_s: f64,
) -> TcpSummary {
    let sm = &t.mark;
    let bytes = r.map(|r| r.rcv_nxt - r.mark).unwrap_or(0);
    // the window's stock and flows: in the network at warm-up + sent = delivered + lost + in
    // the network now
    let now = tcp_stream(t, r);
    let at_warmup = sm.taken - r.map_or(0, |r| r.mark);
    let sent = now.taken - sm.taken;
    let max_payload_fraction = crate::wire::aal5_efficiency(t.p.mss, TCP_IP_LLC_BYTES);
    TcpSummary {
        max_payload_fraction,
        goodput_mbps: if window_s > 0.0 {
            bytes as f64 * 8.0 / window_s / 1e6
        } else {
            0.0
        },
        bytes_delivered: bytes,
        bytes_sent: sent,
        bytes_in_network: now.in_network,
        bytes_in_network_at_warmup: at_warmup,
        bytes_lost: lost(
            at_warmup + sent,
            bytes,
            now.in_network,
            "TCP bytes after warm-up",
        ),
        segments_sent: t.stats.segments_sent - sm.segments_sent,
        retransmitted_segments: t.stats.retransmitted_segments - sm.retransmitted_segments,
        timeouts: t.stats.timeouts - sm.timeouts,
        fast_retransmits: t.stats.fast_retransmits - sm.fast_retransmits,
        cwnd_bytes: t.cwnd,
        max_cwnd_bytes: t.stats.max_cwnd,
        ssthresh_bytes: t.ssthresh.min(1 << 40),
        srtt_ms: t.srtt_s().map(|s| s * 1e3),
        rto_ms: t.rto() as f64 / 1e9,
        completed_s: t.done_at.map(ps_to_secs),
    }
}
