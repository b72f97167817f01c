//! A virtual connection of a scenario (`connections[]`, and the template of `calls[]`): its
//! route and category, the traffic contract (seed 001 section 2.3; TM 4.0 section 4.5), usage
//! parameter control (ITU-T I.371), requested QoS with the SECBR block definition (seed 001
//! section 4.2) and the adaptive contract proposal (seed 001 section 6.2).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AbrSpec, Category, SourceSpec};

/// A virtual connection along a static route.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectionSpec {
    /// Unique name.
    pub name: String,
    /// Node names from the sending host through switches to the receiving host.
    pub route: Vec<String>,
    /// Service category.
    pub category: Category,
    /// Also set up the reverse direction (the route reversed).
    #[serde(default)]
    pub bidirectional: bool,
    /// The traffic source at the first node.
    pub source: SourceSpec,
    /// Traffic sent back along the reverse direction (needs `bidirectional`).
    #[serde(default)]
    pub reverse_source: Option<SourceSpec>,
    /// ABR source parameters (TM 4.0 section 5.10); required for category "abr".
    #[serde(default)]
    pub abr: Option<AbrSpec>,
    /// Traffic contract (seed 001 section 2.3; TM 4.0 section 4.5).
    #[serde(default)]
    pub contract: Option<ContractSpec>,
    /// Usage parameter control at the first switch (ITU-T I.371); needs `contract`.
    #[serde(default)]
    pub upc: Option<UpcSpec>,
    /// Requested QoS and the SECBR block definition (seed 001 section 4.2).
    #[serde(default)]
    pub qos: Option<QosSpec>,
    /// Monitor the connection's cells leaving the source and propose a contract (seed 001
    /// section 6.2, the adaptive scheme for bundles).
    #[serde(default)]
    pub propose_contract: Option<ProposeSpec>,
}

/// The adaptive scheme of seed 001 section 6.2: the throughput of a connection, or of a bundle
/// of connections, is monitored in windows; PCR is the largest window rate, SCR the mean rate
/// raised by `scr_margin`, CDVT and MBS the smallest with which a dual GCRA would have policed
/// the measured cells within `tolerance`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeSpec {
    /// Monitoring window, seconds (> 0, default 0.01).
    #[serde(default)]
    pub window_s: Option<f64>,
    /// SCR = mean rate x (1 + scr_margin) (>= 0, default 0.1).
    #[serde(default)]
    pub scr_margin: Option<f64>,
    /// Share of the measured cells the proposed contract may find non-conforming, in [0, 1)
    /// (default 0): CDVT and MBS are the smallest that keep within it.
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Bundle name: connections naming the same bundle are measured as one aggregate stream, as
    /// if multiplexed onto one VC, and get one proposal (default: the connection alone). All
    /// connections of a bundle give the same window_s, scr_margin and tolerance.
    #[serde(default)]
    pub bundle: Option<String>,
}

/// A connection's traffic descriptor.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContractSpec {
    /// Peak cell rate, Mb/s of 53-byte cells (> 0).
    pub pcr_mbps: f64,
    /// Cell delay variation tolerance, us (>= 0, default 0).
    #[serde(default)]
    pub cdvt_us: f64,
    /// Sustainable cell rate, Mb/s (VBR only; <= PCR).
    #[serde(default)]
    pub scr_mbps: Option<f64>,
    /// Maximum burst size, cells (VBR only; >= 1). BT = (MBS - 1)(1/SCR - 1/PCR).
    #[serde(default)]
    pub mbs_cells: Option<i64>,
}

/// The cell flow a CLR objective is judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ClrFlowSpec {
    /// Cells that entered with CLP = 0 and were not tagged.
    #[serde(rename = "clp0")]
    Clp0,
    /// Every cell.
    #[serde(rename = "clp0+1")]
    Clp0Plus1,
}

/// What UPC does with non-conforming cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UpcActionSpec {
    /// Drop the cell.
    Discard,
    /// Set CLP = 1 and let it through.
    Tag,
}

/// Which GCRA form UPC runs (I.371; both give the same decisions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GcraFormSpec {
    VirtualScheduling,
    LeakyBucket,
}

/// Usage parameter control settings.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpcSpec {
    /// Action on cells failing the PCR bucket (default "discard").
    #[serde(default)]
    pub pcr_action: Option<UpcActionSpec>,
    /// Action on cells failing the SCR bucket (default "tag").
    #[serde(default)]
    pub scr_action: Option<UpcActionSpec>,
    /// GCRA form (default "virtual_scheduling").
    #[serde(default)]
    pub form: Option<GcraFormSpec>,
    /// Police only CLP = 0 cells on the SCR bucket (default true, VBR.2/VBR.3); false: CLP = 0+1 (VBR.1).
    #[serde(default)]
    pub scr_clp0_only: Option<bool>,
}

/// Requested QoS of a connection, checked against the measurement after the run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QosSpec {
    /// Maximum cell transfer delay, us (> 0).
    #[serde(default)]
    pub max_ctd_us: Option<f64>,
    /// Peak-to-peak cell delay variation, us (> 0).
    #[serde(default)]
    pub cdv_us: Option<f64>,
    /// Cell loss ratio, in [0, 1].
    #[serde(default)]
    pub clr: Option<f64>,
    /// The cell flow the CLR objective applies to: "clp0" or "clp0+1" (ATM Forum TM 4.0
    /// section 4.5: CLP=0+1 for the CBR.1 and VBR.1 conformance definitions, CLP=0 for VBR.2 and
    /// VBR.3, whose SCR bucket polices CLP=0 cells only). Default: "clp0" for a connection with
    /// an SCR policed by UPC on CLP=0 (`upc.scr_clp0_only`, the default), "clp0+1" otherwise.
    #[serde(default)]
    pub clr_flow: Option<ClrFlowSpec>,
    /// Cells per block for SECBR (default 128).
    #[serde(default)]
    pub secb_block_cells: Option<i64>,
    /// A block is severely errored with more than this many errored, lost or misinserted cells
    /// (default 4).
    #[serde(default)]
    pub secb_max_bad: Option<i64>,
}
