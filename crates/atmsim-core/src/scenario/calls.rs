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
    #[schemars(range(min = 1e-9, max = 1e6))]
    pub arrival_rate_per_s: f64,
    /// Mean holding time, seconds (> 0).
    #[schemars(range(min = 1e-9, max = 1e6))]
    pub holding_s: f64,
    /// "exponential" (default) or "fixed" holding times.
    #[serde(default)]
    pub holding: HoldingSpec,
    /// First arrival process time, seconds (>= 0, default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub start_s: f64,
    /// No arrivals from this time on, seconds (> start_s). Absent: arrivals until the run ends.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub stop_s: Option<f64>,
    /// Calls of this class active or in set-up at once (flow slots prepared; integer in
    /// 1..=100000). Absent: what the tightest CAC port on the route could admit of this contract
    /// alone (its capacity over the bandwidth the policy reserves, rounded down), plus 16 for
    /// calls whose SETUP is still on its way. A call arriving when every slot is taken counts as
    /// blocked (`blocked_no_slot`).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100000))]
    pub max_active: Option<i64>,
}

/// Holding-time distributions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HoldingSpec {
    #[default]
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
    /// effective_bandwidth: the port buffer assumed, cells (> 0, default 1000). Another policy
    /// takes only the default.
    #[serde(default = "default_cac_buffer_cells")]
    #[schemars(range(min = 1e-3, max = 1e12))]
    pub buffer_cells: f64,
    /// effective_bandwidth: the loss target, in (0, 1) (default 1e-6). Another policy takes only
    /// the default.
    #[serde(default = "default_cac_clr")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub clr: f64,
}

pub(crate) fn default_cac_buffer_cells() -> f64 {
    1000.0
}
pub(crate) fn default_cac_clr() -> f64 {
    1e-6
}

impl CacSpec {
    /// The admission policy of a port with this CAC.
    pub fn policy(&self) -> crate::cac::CacPolicy {
        use crate::cac::CacPolicy;
        match self.policy {
            CacPolicySpec::Peak => CacPolicy::Peak,
            CacPolicySpec::Sustainable => CacPolicy::Sustainable,
            CacPolicySpec::EffectiveBandwidth => CacPolicy::EffectiveBandwidth {
                buffer_cells: self.buffer_cells,
                clr: self.clr,
            },
        }
    }
}

/// CAC policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacPolicySpec {
    Peak,
    Sustainable,
    EffectiveBandwidth,
}
