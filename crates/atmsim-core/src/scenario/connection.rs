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
    /// Also set up the reverse direction (the route reversed; default false).
    #[serde(default)]
    pub bidirectional: bool,
    /// The traffic source at the first node.
    pub source: SourceSpec,
    /// Traffic sent back along the reverse direction (needs `bidirectional`). Absent: the
    /// reverse direction sends nothing (a source of kind "none").
    #[serde(default)]
    pub reverse_source: Option<Box<SourceSpec>>,
    /// ABR source parameters (TM 4.0 section 5.10); required for category "abr".
    #[serde(default)]
    pub abr: Option<Box<AbrSpec>>,
    /// Traffic contract (seed 001 section 2.3; TM 4.0 section 4.5). Absent: no contract
    /// (nothing to police, shape to or reserve at CAC ports).
    #[serde(default)]
    pub contract: Option<Box<ContractSpec>>,
    /// Usage parameter control at the first switch (ITU-T I.371); needs `contract`. Absent: no
    /// policing.
    #[serde(default)]
    pub upc: Option<Box<UpcSpec>>,
    /// Requested QoS and the SECBR block definition (seed 001 section 4.2). Absent: no
    /// objectives judged, SECBR counted in the default blocks (128 cells, more than 4 bad).
    #[serde(default)]
    pub qos: Option<Box<QosSpec>>,
    /// Monitor the connection's cells leaving the source and propose a contract (seed 001
    /// section 6.2, the adaptive scheme for bundles). Absent: no monitor.
    #[serde(default)]
    pub propose_contract: Option<Box<ProposeSpec>>,
}

/// The adaptive scheme of seed 001 section 6.2: the throughput of a connection, or of a bundle
/// of connections, is monitored in windows; PCR is the largest window rate, SCR the mean rate
/// raised by `scr_margin`, CDVT and MBS the smallest with which a dual GCRA would have policed
/// the measured cells within `tolerance`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ProposeSpec {
    /// Monitoring window, seconds (> 0, default 0.01).
    #[schemars(range(min = 1e-6, max = 1e6))]
    pub window_s: f64,
    /// SCR = mean rate x (1 + scr_margin) (>= 0, default 0.1).
    #[schemars(range(min = 0.0, max = 1e3))]
    pub scr_margin: f64,
    /// Share of the measured cells the proposed contract may find non-conforming, in [0, 1)
    /// (default 0): CDVT and MBS are the smallest that keep within it.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub tolerance: f64,
    /// Bundle name: connections naming the same bundle are measured as one aggregate stream, as
    /// if multiplexed onto one VC, and get one proposal. Absent: the connection alone. All
    /// connections of a bundle give the same window_s, scr_margin and tolerance.
    pub bundle: Option<String>,
}

impl Default for ProposeSpec {
    fn default() -> Self {
        ProposeSpec {
            window_s: 0.01,
            scr_margin: 0.1,
            tolerance: 0.0,
            bundle: None,
        }
    }
}

/// A connection's traffic descriptor.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContractSpec {
    /// Peak cell rate, Mb/s of 53-byte cells (> 0).
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub pcr_mbps: f64,
    /// Cell delay variation tolerance, us (>= 0, default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e9))]
    pub cdvt_us: f64,
    /// Sustainable cell rate, Mb/s (<= PCR); required for rt-vbr and nrt-vbr, not allowed
    /// otherwise.
    #[serde(default)]
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub scr_mbps: Option<f64>,
    /// Maximum burst size, cells (>= 1); required for rt-vbr and nrt-vbr, not allowed otherwise.
    /// BT = (MBS - 1)(1/SCR - 1/PCR).
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub mbs_cells: Option<i64>,
}

impl ContractSpec {
    /// The policing-level contract: dual (VBR) with SCR and MBS, single (PCR, CDVT) without.
    pub fn contract(&self) -> crate::policing::Contract {
        use crate::policing::Contract;
        let cdvt = crate::time::us_to_ps(self.cdvt_us);
        match (self.scr_mbps, self.mbs_cells) {
            (Some(scr), Some(mbs)) => Contract::vbr(self.pcr_mbps, cdvt, scr, mbs as u32),
            _ => Contract::cbr(self.pcr_mbps, cdvt),
        }
    }
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GcraFormSpec {
    #[default]
    VirtualScheduling,
    LeakyBucket,
}

/// Usage parameter control settings.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct UpcSpec {
    /// Action on cells failing the PCR bucket (default "discard").
    pub pcr_action: UpcActionSpec,
    /// Action on cells failing the SCR bucket (default "tag").
    pub scr_action: UpcActionSpec,
    /// GCRA form (default "virtual_scheduling").
    pub form: GcraFormSpec,
    /// Police only CLP = 0 cells on the SCR bucket (default true, VBR.2/VBR.3); false: CLP = 0+1 (VBR.1).
    pub scr_clp0_only: bool,
}

impl Default for UpcSpec {
    fn default() -> Self {
        UpcSpec {
            pcr_action: UpcActionSpec::Discard,
            scr_action: UpcActionSpec::Tag,
            form: GcraFormSpec::VirtualScheduling,
            scr_clp0_only: true,
        }
    }
}

/// Requested QoS of a connection, checked against the measurement after the run. An objective
/// left out is not judged.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct QosSpec {
    /// Maximum cell transfer delay, us (> 0). Absent: no CTD objective.
    #[schemars(range(min = 1e-6, max = 1e12))]
    pub max_ctd_us: Option<f64>,
    /// Peak-to-peak cell delay variation, us (> 0). Absent: no CDV objective.
    #[schemars(range(min = 1e-6, max = 1e12))]
    pub cdv_us: Option<f64>,
    /// Cell loss ratio, in [0, 1]. Absent: no CLR objective.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub clr: Option<f64>,
    /// The cell flow the CLR objective applies to: "clp0" or "clp0+1" (ATM Forum TM 4.0
    /// section 4.5: CLP=0+1 for the CBR.1 and VBR.1 conformance definitions, CLP=0 for VBR.2 and
    /// VBR.3, whose SCR bucket polices CLP=0 cells only). Default: "clp0" for a connection with
    /// an SCR policed by UPC on CLP=0 (`upc.scr_clp0_only`, the default), "clp0+1" otherwise.
    pub clr_flow: Option<ClrFlowSpec>,
    /// Cells per block for SECBR (integer >= 1, default 128).
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub secb_block_cells: i64,
    /// A block is severely errored with more than this many errored, lost or misinserted cells
    /// (0..=secb_block_cells, default 4).
    #[schemars(range(min = 0i64, max = 4294967295i64))]
    pub secb_max_bad: i64,
}

impl Default for QosSpec {
    /// No objectives; SECBR blocks of 128 cells, severely errored above 4 bad cells.
    fn default() -> Self {
        QosSpec {
            max_ctd_us: None,
            cdv_us: None,
            clr: None,
            clr_flow: None,
            secb_block_cells: 128,
            secb_max_bad: 4,
        }
    }
}
