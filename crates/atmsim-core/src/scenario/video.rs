//! Video streams (seed 004): the traces they play (`traces`, a top-level table, each read once by
//! the front end and shared by every stream that plays it) and a stream's keys
//! (`connections[].source.video` with `source.kind = "video"`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A frame-size trace.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// A trace file, read by the front end into `frames` (path relative to the scenario file):
    /// one frame size in bytes per line, or the 4-column format `frame_number type time_ms
    /// size_bytes` of the shipped MPEG-4 traces (lines in file order). `#` starts a comment.
    /// Absent: the sizes are given in `frames`.
    #[serde(default)]
    pub file: Option<String>,
    /// Frame sizes in bytes, in play order (integers >= 0; at least one). Given inline, or
    /// filled from `file`.
    #[serde(default)]
    pub frames: Vec<i64>,
}

/// One video stream over UDP.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VideoSpec {
    /// The trace it plays: a name in the top-level `traces` table.
    pub trace: String,
    /// Frames per second (> 0; seed 004: MPEG 24, JPEG 15).
    pub frame_rate: f64,
    /// IP MTU of the UDP datagrams, bytes (29..=65527; default 9180, RFC 1626). A frame larger
    /// than one datagram's payload (MTU - 28) is split into several datagrams.
    #[serde(default = "default_mtu")]
    pub mtu_bytes: i64,
    /// Receiver's playout buffer in frame intervals: received intervals above it count as
    /// delayed frames (> 0; default 3, seed 004 Experiment 4).
    #[serde(default = "default_playout")]
    pub playout_intervals: f64,
    /// Start at a random frame of the trace and a random phase within the first frame interval,
    /// both uniform, drawn from the run's seed and the connection's name (default true). False:
    /// the first frame of the trace at `start_s`.
    #[serde(default = "default_true")]
    pub random_offset: bool,
}

pub(crate) fn default_mtu() -> i64 {
    crate::transport::udp::DEFAULT_MTU as i64
}
fn default_playout() -> f64 {
    3.0
}
fn default_true() -> bool {
    true
}
