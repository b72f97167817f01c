//! A switch's fabric (`nodes[].fabric`): output-buffered (the default, the node's port buffers
//! and `fabric_delay_us`) or input/output-buffered with credit-based flow control on a TDM bus
//! (seed 004 section 4.1, the Cisco A100 Hyperswitch; the model and its readings are in
//! `net/switch/credit.rs` and `docs/fabrics.md`).

use super::Category;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The switch fabric, chosen by `kind`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind")]
pub enum FabricSpec {
    /// Output buffers only (today's switch; seed 004's Fore ASX-200): the node's port buffers,
    /// shared buffers and `fabric_delay_us` apply. The same as leaving `fabric` out.
    #[serde(rename = "output-buffered")]
    OutputBuffered(OutputBufferedSpec),
    /// Input and output buffers per port; a cell crosses the TDM bus only against a credit from
    /// its output, so outputs never drop (seed 004's Cisco Hyperswitch).
    #[serde(rename = "credit")]
    Credit(CreditFabricSpec),
}

/// The output-buffered fabric has no keys of its own (`kind` only).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputBufferedSpec {}

/// How the input buffer of a credit fabric keeps its cells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InputQueueing {
    /// One FIFO per priority: a head cell without a credit blocks the cells behind it.
    #[default]
    Fifo,
    /// One queue per output and priority (virtual output queues): no head-of-line blocking.
    Voq,
}

/// The credit-based input/output-buffered fabric's parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreditFabricSpec {
    /// Input buffer of each port (incoming link), cells, both priorities together (integer > 0;
    /// the Hyperswitch: 2,450).
    #[schemars(range(min = 1, max = 100_000_000))]
    pub input_buffer_cells: i64,
    /// Output buffer of each output port, cells (integer > 0; the Hyperswitch: 50).
    #[schemars(range(min = 1, max = 100_000_000))]
    pub output_buffer_cells: i64,
    /// Credits per output: cells that may be in its buffer or on their way to it (integer,
    /// 1..=output_buffer_cells). Absent: output_buffer_cells.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100_000_000))]
    pub credits: Option<i64>,
    /// Time a credit takes back to the inputs once its cell has left the output buffer,
    /// microseconds (>= 0, default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e7))]
    pub credit_delay_us: f64,
    /// Capacity of the TDM bus shared by all inputs, Mb/s (> 0, default 2400: both of seed 004's
    /// switches). One 53-byte cell per slot; inputs served round robin, high priority first.
    #[serde(default = "default_bus_mbps")]
    #[schemars(range(min = 1e-3, max = 1e7))]
    pub bus_mbps: f64,
    /// Fixed latency from a cell's arrival at the switch to its input buffer, microseconds
    /// (>= 0, default 0; seed 004 Figure 5 measures 39.90 us per port at light load).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e7))]
    pub latency_us: f64,
    /// "fifo" (default; head-of-line blocking) or "voq" (virtual output queues).
    #[serde(default)]
    pub queueing: InputQueueing,
    /// Categories using the high-priority queues (default cbr, rt-vbr); the others use the low.
    #[serde(default = "default_high_priority")]
    pub high_priority: Vec<Category>,
}

fn default_bus_mbps() -> f64 {
    2400.0
}

fn default_high_priority() -> Vec<Category> {
    vec![Category::Cbr, Category::RtVbr]
}
