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
    /// EPRCA (Roberts, ATM Forum/94-0735R1): ER from MACR when the queue is above thresholds.
    #[serde(rename = "eprca")]
    Eprca,
    /// APRC (Siu and Tzeng): EPRCA with congestion detected by queue growth.
    #[serde(rename = "aprc")]
    Aprc,
    /// CAPC (Barnhart, ATM Forum/94-0983R1): one explicit rate per port, proportional control.
    #[serde(rename = "capc")]
    Capc,
    /// The OSU scheme (Jain et al., ATM Forum/94-0883): CCR / load factor, target band.
    #[serde(rename = "osu")]
    Osu,
    /// Phantom (Afek, Mansour, Ostfeld): the unused capacity as one more session.
    #[serde(rename = "phantom")]
    Phantom,
    /// Charny's consistent marking (Charny, Clark, Jain, ICC 1995): the max-min advertised rate.
    #[serde(rename = "charny")]
    Charny,
    /// The UCSC scheme (Kalampoukas, Varma, Ramakrishnan, 1995): max-min in O(1) per RM cell.
    #[serde(rename = "ucsc")]
    Ucsc,
}

/// ERICA variants (SPEC-ABR.md): "basic" uses steps 8, 9 and 13; "maxalloc" adds 10-12.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EricaVariant {
    Basic,
    #[default]
    Maxalloc,
}

/// Where ERICA takes a VC's current cell rate from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CcrSource {
    /// The CCR field of forward RM cells.
    #[default]
    Rm,
    /// The VC's input rate measured by the switch over the averaging interval.
    Measured,
}

/// An output port's ABR feedback scheme and its parameters. A key of another scheme is an error
/// unless it has its default value.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbrSchemeSpec {
    /// "erica", "erica+", "efci", "rr", "eprca", "aprc", "capc", "osu", "phantom", "charny", "ucsc" or "none"
    /// (docs/abr-schemes.md).
    pub scheme: SchemeKind,
    /// ERICA, CAPC, OSU, Charny, UCSC: target utilization of the ABR capacity, in (0, 1] (default 0.9).
    #[serde(default = "default_target_utilization")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub target_utilization: f64,
    /// ERICA/ERICA+, APRC, CAPC, OSU, Phantom, Charny, UCSC: averaging interval, seconds (> 0, default
    /// 0.005).
    #[serde(default = "default_interval_s")]
    #[schemars(range(min = 1e-6, max = 1e3))]
    pub interval_s: f64,
    /// ERICA/ERICA+: the interval also ends after this many ABR input cells (whichever first;
    /// integer >= 1). Absent: no cell count, the interval is timed only.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub interval_cells: Option<i64>,
    /// ERICA/ERICA+: "maxalloc" (steps 8-13, default) or "basic" (steps 8, 9, 13).
    #[serde(default)]
    pub variant: EricaVariant,
    /// ERICA/ERICA+: "rm" (CCR from forward RM cells, default) or "measured".
    #[serde(default)]
    pub ccr: CcrSource,
    /// ERICA/ERICA+: overload threshold delta of step 9 (z > 1 + delta), >= 0 (default 0.1).
    /// OSU: half-width of the target utilization band [1 - delta, 1 + delta] of z, in [0, 1).
    #[serde(default = "default_delta")]
    #[schemars(range(min = 0.0, max = 1e3))]
    pub delta: f64,
    /// ERICA/ERICA+: give each VC at most one new feedback per averaging interval; later BRMs of
    /// the VC in the same interval carry the same ER (default true: seed 003 section 3, "the
    /// switch gives at most one new feedback per source in any averaging interval").
    #[serde(default = "default_one_feedback_per_interval")]
    pub one_feedback_per_interval: bool,
    /// ERICA+: target queueing delay T0, us (> 0, default 500).
    #[serde(default = "default_t0_us")]
    #[schemars(range(min = 1e-3, max = 1e9))]
    pub t0_us: f64,
    /// ERICA+: underload curve parameter a (> 1, default 1.15).
    #[serde(default = "default_erica_plus_a")]
    #[schemars(range(min = 1.0, max = 1e3))]
    pub a: f64,
    /// ERICA+: overload curve parameter b (> 1, default 1.05).
    #[serde(default = "default_erica_plus_b")]
    #[schemars(range(min = 1.0, max = 1e3))]
    pub b: f64,
    /// ERICA+: queue drain limit factor, in (0, 1] (default 0.5).
    #[serde(default = "default_qdlf")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub qdlf: f64,
    /// EFCI / relative rate: high ABR queue threshold, cells (integer >= 1); required for
    /// these schemes.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub high_cells: Option<i64>,
    /// EFCI / relative rate: low ABR queue threshold, cells (0..=high_cells); required for these
    /// schemes.
    #[serde(default)]
    #[schemars(range(min = 0i64, max = 4294967295i64))]
    pub low_cells: Option<i64>,
    /// EPRCA, APRC: averaging factor AV of MACR; Phantom: of the unused capacity, in (0, 1]
    /// (default 1/16).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub av: Option<f64>,
    /// EPRCA, APRC: down-pressure factor DPF, in (0, 1] (default 7/8).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub dpf: Option<f64>,
    /// EPRCA, APRC: explicit reduction factor ERF, in (0, 1] (default 15/16); CAPC: the
    /// smallest decrease factor per interval ERF, in (0, 1] (default 0.5).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub erf: Option<f64>,
    /// EPRCA, APRC: major reduction factor MRF, in (0, 1] (default 1/4).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub mrf: Option<f64>,
    /// EPRCA: congestion threshold QT, ABR cells (integer >= 1, default 100); CAPC: CI in
    /// backward RM cells above this queue (default 500).
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub qt_cells: Option<i64>,
    /// EPRCA, APRC: heavy-congestion threshold DQT, ABR cells (integer >= 1, >= qt_cells;
    /// default 500).
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub dqt_cells: Option<i64>,
    /// CAPC: increase gain Rup (> 0, default 0.1).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e3))]
    pub rup: Option<f64>,
    /// CAPC: decrease gain Rdn (> 0, default 0.8).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e3))]
    pub rdn: Option<f64>,
    /// CAPC: the largest increase factor per interval ERU (>= 1, default 1.5).
    #[serde(default)]
    #[schemars(range(min = 1.0, max = 1e3))]
    pub eru: Option<f64>,
    /// Phantom: utilization factor UF (> 0, default 1).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e3))]
    pub uf: Option<f64>,
    /// Node level only: this switch is a virtual source / virtual destination for the ABR
    /// connections through it, splitting their control loops (per-VC queues, own ACR per
    /// segment) (default false).
    #[serde(default)]
    pub vsvd: bool,
    /// Node level, with vsvd: the queue term of the coupling between segments, seconds (>= 0,
    /// default 0.005). The ER a virtual destination sends upstream is at most
    /// ACR - Q x 424 / T (Q: the cells waiting in the virtual source's per-VC queue, ACR: the
    /// virtual source's) and at least ACR / 2, with drain time T = vs_drain_s plus two round
    /// trips of the upstream segment; 0 turns the queue term off (ER at most ACR).
    #[serde(default = "default_vs_drain_s")]
    #[schemars(range(min = 0.0, max = 1e3))]
    pub vs_drain_s: f64,
}

/// EPRCA / APRC: averaging factor AV of MACR (Jain's 1996 survey); Phantom's too (our choice).
pub(crate) fn default_av() -> f64 {
    1.0 / 16.0
}
/// EPRCA / APRC: down-pressure factor DPF.
pub(crate) fn default_dpf() -> f64 {
    7.0 / 8.0
}
/// EPRCA / APRC: explicit reduction factor ERF.
pub(crate) fn default_eprca_erf() -> f64 {
    15.0 / 16.0
}
/// EPRCA / APRC: major reduction factor MRF.
pub(crate) fn default_mrf() -> f64 {
    0.25
}
/// EPRCA: congestion threshold QT, cells (our choice).
pub(crate) fn default_eprca_qt_cells() -> i64 {
    100
}
/// EPRCA / APRC: heavy-congestion threshold DQT, cells (our choice).
pub(crate) fn default_dqt_cells() -> i64 {
    500
}
/// CAPC: increase gain Rup (the top of the survey's range 0.025-0.1).
pub(crate) fn default_rup() -> f64 {
    0.1
}
/// CAPC: decrease gain Rdn (the top of the survey's range 0.2-0.8).
pub(crate) fn default_rdn() -> f64 {
    0.8
}
/// CAPC: largest increase factor per interval ERU.
pub(crate) fn default_eru() -> f64 {
    1.5
}
/// CAPC: smallest decrease factor per interval ERF.
pub(crate) fn default_capc_erf() -> f64 {
    0.5
}
/// CAPC: CI above this queue, cells (our choice).
pub(crate) fn default_capc_qt_cells() -> i64 {
    500
}
/// Phantom: utilization factor UF.
pub(crate) fn default_uf() -> f64 {
    1.0
}

pub(crate) fn default_vs_drain_s() -> f64 {
    0.005
}

pub(crate) fn default_target_utilization() -> f64 {
    0.9
}
pub(crate) fn default_interval_s() -> f64 {
    0.005
}
pub(crate) fn default_delta() -> f64 {
    0.1
}
pub(crate) fn default_one_feedback_per_interval() -> bool {
    true
}
pub(crate) fn default_t0_us() -> f64 {
    500.0
}
pub(crate) fn default_erica_plus_a() -> f64 {
    1.15
}
pub(crate) fn default_erica_plus_b() -> f64 {
    1.05
}
pub(crate) fn default_qdlf() -> f64 {
    0.5
}

/// ABR end-system parameters (TM 4.0 section 5.10; SPEC-ABR.md parameter table). Every key is
/// optional: an empty table takes the TM 4.0 defaults.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AbrSpec {
    /// Peak cell rate, Mb/s (> 0, at most the first link's rate). Absent: the rate of the
    /// connection's first link.
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub pcr_mbps: Option<f64>,
    /// Minimum cell rate, Mb/s (>= 0, <= PCR; default 0).
    #[schemars(range(min = 0.0, max = 1e6))]
    pub mcr_mbps: f64,
    /// Initial cell rate, Mb/s (in [MCR, PCR], > 0). Absent: PCR. Either way lowered to
    /// TBE/FRTT at setup unless `icr_tbe_limit` is false.
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub icr_mbps: Option<f64>,
    /// Apply TM 4.0's connection set-up rule ICR <- min(ICR, TBE/FRTT) (ABR parameter
    /// negotiation; SPEC-ABR.md "At setup"; default true). False: the source starts at
    /// the ICR as given (a reading of a seed that states ICR as the sources' starting rate).
    pub icr_tbe_limit: bool,
    /// Rate increase factor: a power of two, 1/32768 .. 1 (default 1/16).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub rif: f64,
    /// Rate decrease factor: a power of two, 1/32768 .. 1 (default 1/16).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub rdf: f64,
    /// Cells between forward RM cells: a power of two, 2 .. 256 (default 32).
    #[schemars(range(min = 2, max = 256))]
    pub nrm: i64,
    /// Minimum cells between FRMs when Trm limits: 1 .. 256 (default 2).
    #[schemars(range(min = 1, max = 256))]
    pub mrm: i64,
    /// Upper bound on the time between FRMs, ms: 100 x 2^-k, k = 0..7 (default 100).
    #[schemars(range(min = 0.0, max = 100.0))]
    pub trm_ms: f64,
    /// Cutoff decrease factor: 0 or a power of two 1/64 .. 1 (default 1/16).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub cdf: f64,
    /// Transient buffer exposure, cells: 0 .. 2^24 - 1 (default 16,777,215).
    #[schemars(range(min = 0, max = 16777215))]
    pub tbe: i64,
    /// Fixed round-trip time, us (>= 0). Absent: twice the one-way delay of the control loop
    /// (the route, or the VS/VD segment): the links' propagation plus the fabric delay of each
    /// node a cell enters (cell transmission and impairments not counted).
    #[schemars(range(min = 0.0, max = 1e9))]
    pub frtt_us: Option<f64>,
    /// ACR decrease time factor, s: 0.01 .. 10.23 (default 0.5).
    #[schemars(range(min = 0.01, max = 10.23))]
    pub adtf_s: f64,
}

impl Default for AbrSpec {
    /// The TM 4.0 defaults (what an empty `abr` table means).
    fn default() -> Self {
        AbrSpec {
            pcr_mbps: None,
            mcr_mbps: 0.0,
            icr_mbps: None,
            icr_tbe_limit: true,
            rif: 1.0 / 16.0,
            rdf: 1.0 / 16.0,
            nrm: 32,
            mrm: 2,
            trm_ms: 100.0,
            cdf: 1.0 / 16.0,
            tbe: 16_777_215,
            frtt_us: None,
            adtf_s: 0.5,
        }
    }
}
