//! ABR in a scenario (SPEC-ABR.md; ATM Forum TM 4.0 section 5.10): the feedback scheme of a
//! switch output port (`nodes[].abr`, `nodes[].ports[].abr`: EFCI, relative rate, ERICA,
//! ERICA+, VS/VD) and the end-system parameters of an ABR connection (`connections[].abr`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// ABR feedback schemes of a switch output port (SPEC-ABR.md "Switch feedback schemes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SchemeKind {
    /// No ABR feedback from this port.
    #[serde(rename = "none")]
    None,
    /// Binary: set EFCI in data cells while the ABR queue is above high_cells (until below low_cells).
    #[serde(rename = "efci")]
    Efci,
    /// Relative rate: CI in backward RM cells above high_cells, NI above low_cells.
    #[serde(rename = "rr")]
    RelativeRate,
    /// ERICA explicit rate with a constant target utilization.
    #[serde(rename = "erica")]
    Erica,
    /// ERICA+ explicit rate with the queue-delay target function f(Tq).
    #[serde(rename = "erica+")]
    EricaPlus,
}

/// ERICA variants (SPEC-ABR.md): "basic" uses steps 8, 9 and 13; "maxalloc" adds 10-12.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EricaVariant {
    Basic,
    Maxalloc,
}

/// Where ERICA takes a VC's current cell rate from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CcrSource {
    /// The CCR field of forward RM cells.
    Rm,
    /// The VC's input rate measured by the switch over the averaging interval.
    Measured,
}

/// An output port's ABR feedback scheme and its parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbrSchemeSpec {
    /// "erica", "erica+", "efci", "rr" or "none".
    pub scheme: SchemeKind,
    /// ERICA: target utilization of the ABR capacity, in (0, 1] (default 0.9).
    pub target_utilization: Option<f64>,
    /// ERICA/ERICA+: averaging interval, seconds (default 0.005).
    pub interval_s: Option<f64>,
    /// ERICA/ERICA+: the interval also ends after this many ABR input cells (whichever first).
    pub interval_cells: Option<i64>,
    /// ERICA/ERICA+: "maxalloc" (steps 8-13, default) or "basic" (steps 8, 9, 13).
    pub variant: Option<EricaVariant>,
    /// ERICA/ERICA+: "rm" (CCR from forward RM cells, default) or "measured".
    pub ccr: Option<CcrSource>,
    /// ERICA/ERICA+: overload threshold delta of step 9 (z > 1 + delta), >= 0 (default 0.1).
    pub delta: Option<f64>,
    /// ERICA/ERICA+: give each VC at most one new feedback per averaging interval; later BRMs of
    /// the VC in the same interval carry the same ER (default true: seed 003 section 3, "the
    /// switch gives at most one new feedback per source in any averaging interval").
    pub one_feedback_per_interval: Option<bool>,
    /// ERICA+: target queueing delay T0, us (> 0, default 500).
    pub t0_us: Option<f64>,
    /// ERICA+: underload curve parameter a (> 1, default 1.15).
    pub a: Option<f64>,
    /// ERICA+: overload curve parameter b (> 1, default 1.05).
    pub b: Option<f64>,
    /// ERICA+: queue drain limit factor, in (0, 1] (default 0.5).
    pub qdlf: Option<f64>,
    /// EFCI / relative rate: high ABR queue threshold, cells.
    pub high_cells: Option<i64>,
    /// EFCI / relative rate: low ABR queue threshold, cells (<= high_cells).
    pub low_cells: Option<i64>,
    /// Node level only: this switch is a virtual source / virtual destination for the ABR
    /// connections through it, splitting their control loops (per-VC queues, own ACR per segment).
    pub vsvd: Option<bool>,
}

/// ABR end-system parameters (TM 4.0 section 5.10; SPEC-ABR.md parameter table).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbrSpec {
    /// Peak cell rate, Mb/s (default: the rate of the first link).
    pub pcr_mbps: Option<f64>,
    /// Minimum cell rate, Mb/s (default 0).
    pub mcr_mbps: Option<f64>,
    /// Initial cell rate, Mb/s (default PCR); lowered to TBE/FRTT at setup.
    pub icr_mbps: Option<f64>,
    /// Rate increase factor: a power of two, 1/32768 .. 1 (default 1/16).
    pub rif: Option<f64>,
    /// Rate decrease factor: a power of two, 1/32768 .. 1 (default 1/16).
    pub rdf: Option<f64>,
    /// Cells between forward RM cells: a power of two, 2 .. 256 (default 32).
    pub nrm: Option<i64>,
    /// Minimum cells between FRMs when Trm limits (default 2).
    pub mrm: Option<i64>,
    /// Upper bound on the time between FRMs, ms: 100 x 2^-k, k = 0..7 (default 100).
    pub trm_ms: Option<f64>,
    /// Cutoff decrease factor: 0 or a power of two 1/64 .. 1 (default 1/16).
    pub cdf: Option<f64>,
    /// Transient buffer exposure, cells: 0 .. 2^24 - 1 (default 16,777,215).
    pub tbe: Option<i64>,
    /// Fixed round-trip time, us (default: twice the route's one-way propagation and fabric delay).
    pub frtt_us: Option<f64>,
    /// ACR decrease time factor, s: 0.01 .. 10.23 (default 0.5).
    pub adtf_s: Option<f64>,
}
