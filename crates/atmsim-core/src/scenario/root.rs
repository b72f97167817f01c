//! The root of a scenario document ([`Scenario`]): its description, the run settings
//! ([`RunSpec`]) and the sections, each of which has its own file.

use super::{CallSpec, ConnectionSpec, LinkSpec, NodeSpec, TraceSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A whole scenario: the network, its connections and how long to run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// What this scenario is, citing its source (seed file and section) where it has one.
    pub description: String,
    /// Run settings.
    pub run: RunSpec,
    /// End systems and switches.
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    /// Duplex links between nodes.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Virtual connections.
    #[serde(default)]
    pub connections: Vec<ConnectionSpec>,
    /// Switched connections set up during the run by call arrivals, through CAC.
    #[serde(default)]
    pub calls: Vec<CallSpec>,
    /// Frame-size traces played by video sources (`source.kind = "video"`), by name; each is
    /// read once and shared by every stream that plays it (seed 004). Absent: no traces.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub traces: std::collections::BTreeMap<String, TraceSpec>,
}

/// Run settings.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Simulated time to run, seconds (> 0).
    #[schemars(range(min = 1e-9, max = 1e6))]
    pub duration_s: f64,
    /// Master seed; every random component derives its own stream from it and its name
    /// (default 1).
    #[serde(default = "default_seed")]
    #[schemars(range(min = 0u64, max = 18446744073709551615u64))]
    pub seed: u64,
    /// Statistics ignore everything before this time, seconds (0 <= warmup_s < duration_s,
    /// default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub warmup_s: f64,
    /// Interval of the time series, seconds (at least 1 us, a cell time at 424 Mb/s: faster
    /// sampling shows nothing new; at most duration_s). Absent: duration_s / 1000 (at least 1 ps).
    #[serde(default)]
    #[schemars(range(min = 1e-6, max = 1e6))]
    pub sample_interval_s: Option<f64>,
    /// Memory the run may use, MB (integer >= 1): `validate` and `run` refuse a scenario whose
    /// estimated memory (cells in flight on the links, connections, the series rows held
    /// between two writes) exceeds it. Absent: the environment variable
    /// `ATMSIM_MAX_MEMORY_MB`, else the memory available on this machine (`MemAvailable`).
    #[schemars(range(min = 1i64, max = 1000000000i64))]
    #[serde(default)]
    pub max_memory_mb: Option<u64>,
    /// How output ports time their departures (issue 13). "computed" (default): at a port
    /// carrying one service category with strict priority and no frame discard, ABR scheme,
    /// shared buffer, credit fabric or impairment, a cell queued behind a busy line gets its
    /// start time at once, with no transmission-end event; a cell starting at T still counts as
    /// waiting for every other event at T. At a switch port with several categories or an ABR
    /// scheme (strict priority, none of the others) departures are deferred, also without an
    /// event: played when something next looks at the port; and a credit fabric's bus carries a
    /// cell that arrives when it is idle and nothing else is due at once, without a bus event
    /// (exact, issue 27). "events": a transmission-end event per waiting cell at every port and a
    /// bus event per crossing, the engine's way before issues 13 and 27, where such ties follow
    /// the order the events were scheduled in. The two give the same results except in those
    /// ties (docs/architecture.md).
    #[serde(default)]
    pub departures: Departures,
    /// Cell, frame and segment events written to `trace.parquet` (docs/tracing.md). Absent:
    /// no trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<super::RunTraceSpec>,
}

/// `run.departures`: see [`RunSpec::departures`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Departures {
    /// Computed at ports where only the tie rule can differ from events (the default).
    #[default]
    Computed,
    /// A transmission-end event per waiting cell at every port.
    Events,
}

fn default_seed() -> u64 {
    1
}
