//! Switched calls of a scenario (`calls[]`: a connection template, Poisson arrivals and a holding
//! time) and connection admission control at a switch's ports (`nodes[].cac`: peak, sustainable,
//! or the effective bandwidth of Guerin, Ahmadi and Naghshineh 1991).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ConnectionSpec;

/// A class of switched calls: a connection template, an arrival process and a holding time.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallSpec {
    /// The connection each call sets up (its `name` names the class; calls are `NAME#k`). It
    /// needs a `contract`; its source runs from set-up to release (start_s/stop_s not allowed).
    pub connection: ConnectionSpec,
    /// Poisson arrival rate, calls per second (> 0).
    pub arrival_rate_per_s: f64,
    /// Mean holding time, seconds (> 0).
    pub holding_s: f64,
    /// "exponential" (default) or "fixed" holding times.
    #[serde(default)]
    pub holding: Option<HoldingSpec>,
    /// First arrival process time, seconds (default 0).
    #[serde(default)]
    pub start_s: f64,
    /// No arrivals from this time on, seconds.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Calls of this class active or in set-up at once (flow slots prepared; default: what the
    /// tightest CAC port could admit, plus 16 for calls whose SETUP is still on its way). A call
    /// arriving when every slot is taken counts as blocked (`blocked_no_slot`).
    #[serde(default)]
    pub max_active: Option<i64>,
}

/// Holding-time distributions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HoldingSpec {
    Exponential,
    Fixed,
}

/// Connection admission control at a switch's output ports.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacSpec {
    /// "peak" (reserve PCR), "sustainable" (reserve SCR, PCR without one) or
    /// "effective_bandwidth" (Guerin, Ahmadi, Naghshineh 1991 fluid approximation).
    pub policy: CacPolicySpec,
    /// effective_bandwidth: the port buffer assumed, cells (> 0, default 1000).
    #[serde(default)]
    pub buffer_cells: Option<f64>,
    /// effective_bandwidth: the loss target, in (0, 1) (default 1e-6).
    #[serde(default)]
    pub clr: Option<f64>,
}

/// CAC policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacPolicySpec {
    Peak,
    Sustainable,
    EffectiveBandwidth,
}
