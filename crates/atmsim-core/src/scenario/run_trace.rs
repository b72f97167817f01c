//! `run.trace`: which events of a run are written to `trace.parquet` (docs/tracing.md). The
//! filters are ANDed; an empty list selects everything of its kind.

pub use crate::metrics::TraceKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The trace of a run (issue 28): events selected by connection, port, node, kind and time
/// window, written to `trace.parquet` in the output directory.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunTraceSpec {
    /// Connection names (`connections[].name` or `calls[].name`): their cells in both
    /// directions (the reverse flow, backward RM cells). Empty: every connection.
    #[serde(default)]
    pub connections: Vec<String>,
    /// Output port names, `FROM->TO` (a link's direction). Empty: every port.
    #[serde(default)]
    pub ports: Vec<String>,
    /// Node names. Empty: every node.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Event kinds. Empty: every kind.
    #[serde(default)]
    pub kinds: Vec<TraceKind>,
    /// Start of the window, seconds (default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub from_s: f64,
    /// End of the window, seconds (absent: the end of the run).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub to_s: Option<f64>,
    /// At most this many rows (estimated before the run, from the line rates: docs/tracing.md);
    /// absent: 20,000,000.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 10000000000i64))]
    pub max_rows: Option<u64>,
}

/// Default of [`RunTraceSpec::max_rows`].
pub const TRACE_MAX_ROWS: u64 = 20_000_000;
