//! The event kinds of a run's trace (`run.trace`, docs/tracing.md): the model's, as the drop
//! reasons are; the scenario file names them as they are (`scenario` re-exports them).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An event kind of the trace (docs/tracing.md has what each row holds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// A cell created by its source.
    Emit,
    /// A cell offered to an output port's buffer (then sent, queued or dropped).
    Enqueue,
    /// A cell refused or lost, with the reason.
    Drop,
    /// A cell starting transmission on a port's line.
    Depart,
    /// A cell reaching the node at the far end of a link.
    Arrive,
    /// A cell reaching the last node of its connection.
    Deliver,
    /// Every cell event of forward RM cells (with CCR, ER, MCR, CI, NI, BN).
    RmForward,
    /// Every cell event of backward RM cells.
    RmBackward,
    /// An AAL5 frame's last cell emitted.
    FrameSent,
    /// An AAL5 frame reassembled with a good CRC at the receiver.
    FrameReceived,
    /// An AAL5 frame the receiver found lost or corrupted.
    FrameLost,
    /// A transport segment with data sent for the first time (TCP's, or XTPX's: the same header
    /// fields); named `tcp_sent` in scenarios and traces.
    #[serde(rename = "tcp_sent")]
    SegmentSent,
    /// A transport segment with data sent again (its sequence number below the highest sent).
    #[serde(rename = "tcp_retransmitted")]
    SegmentRetransmitted,
    /// A segment with an acknowledgement delivered to its receiver.
    #[serde(rename = "tcp_acked")]
    SegmentAcked,
}

impl TraceKind {
    /// Every kind, in the order of their codes.
    pub const ALL: [TraceKind; 14] = [
        TraceKind::Emit,
        TraceKind::Enqueue,
        TraceKind::Drop,
        TraceKind::Depart,
        TraceKind::Arrive,
        TraceKind::Deliver,
        TraceKind::RmForward,
        TraceKind::RmBackward,
        TraceKind::FrameSent,
        TraceKind::FrameReceived,
        TraceKind::FrameLost,
        TraceKind::SegmentSent,
        TraceKind::SegmentRetransmitted,
        TraceKind::SegmentAcked,
    ];

    /// The kind's name in a scenario and in the trace (`snake_case`).
    pub fn name(self) -> &'static str {
        [
            "emit",
            "enqueue",
            "drop",
            "depart",
            "arrive",
            "deliver",
            "rm_forward",
            "rm_backward",
            "frame_sent",
            "frame_received",
            "frame_lost",
            "tcp_sent",
            "tcp_retransmitted",
            "tcp_acked",
        ][self as usize]
    }
}
