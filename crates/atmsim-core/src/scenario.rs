//! The scenario file model: serde structures with defaults and documentation, strict parsing
//! (unknown keys are errors), semantic validation with key paths, and the JSON Schema export.
//!
//! The schema is defined here once. The Python front end reads TOML, resolves `extends` and
//! `--set`, and hands the merged document to [`parse`] as JSON; every error comes back as a
//! [`ScenarioError`] with a key path such as `connections[3].source.rate_mbps`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A scenario error: the key path and what is wrong or allowed there.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

type Res<T> = Result<T, ScenarioError>;

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
}

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

/// Run settings.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Simulated time to run, seconds (> 0).
    pub duration_s: f64,
    /// Master seed; every random component derives its own stream from it and its name.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Statistics ignore everything before this time, seconds (0 <= warmup_s < duration_s).
    #[serde(default)]
    pub warmup_s: f64,
    /// Interval of the time series, seconds (> 0; default duration_s / 1000).
    #[serde(default)]
    pub sample_interval_s: Option<f64>,
}

fn default_seed() -> u64 {
    1
}

/// Kind of node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// An end system: sources and sinks of connections, one output port per link.
    Host,
    /// An output-buffered switch.
    Switch,
}

/// ATM service categories (TM 4.0), in default strict-priority order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum Category {
    #[serde(rename = "cbr")]
    Cbr = 0,
    #[serde(rename = "rt-vbr")]
    RtVbr = 1,
    #[serde(rename = "nrt-vbr")]
    NrtVbr = 2,
    #[serde(rename = "abr")]
    Abr = 3,
    #[serde(rename = "ubr")]
    Ubr = 4,
}

impl Category {
    pub const ALL: [Category; 5] = [
        Category::Cbr,
        Category::RtVbr,
        Category::NrtVbr,
        Category::Abr,
        Category::Ubr,
    ];
    pub fn name(self) -> &'static str {
        ["cbr", "rt-vbr", "nrt-vbr", "abr", "ubr"][self as usize]
    }
}

/// A value per service category (buffer limits in cells, rates in Mb/s, weights).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerClass<T> {
    pub cbr: Option<T>,
    #[serde(rename = "rt-vbr")]
    pub rt_vbr: Option<T>,
    #[serde(rename = "nrt-vbr")]
    pub nrt_vbr: Option<T>,
    pub abr: Option<T>,
    pub ubr: Option<T>,
}

/// Per-category buffer limits, cells.
pub type ClassBuffers = PerClass<i64>;

impl<T: Copy> PerClass<T> {
    /// The values in category order (CBR, rt-VBR, nrt-VBR, ABR, UBR).
    pub fn entries(&self) -> [(Category, Option<T>); 5] {
        [
            (Category::Cbr, self.cbr),
            (Category::RtVbr, self.rt_vbr),
            (Category::NrtVbr, self.nrt_vbr),
            (Category::Abr, self.abr),
            (Category::Ubr, self.ubr),
        ]
    }
}

/// An end system or a switch.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique name.
    pub name: String,
    /// `host` or `switch`.
    pub kind: NodeKind,
    /// Switch fabric (processing) delay added to every cell entering the switch, microseconds (>= 0).
    #[serde(default)]
    pub fabric_delay_us: f64,
    /// Switched calls: the time this switch takes to process a SETUP (CAC included) and a
    /// CONNECT, microseconds (>= 0, default 0).
    #[serde(default)]
    pub call_processing_us: f64,
    /// Buffer limit of each output port, cells (> 0); absent = unlimited.
    #[serde(default)]
    pub buffer_cells: Option<i64>,
    /// Buffer limit per service category within each output port, cells (> 0).
    #[serde(default)]
    pub class_buffer_cells: Option<ClassBuffers>,
    /// Strict-priority order of the service categories (a permutation of all five).
    #[serde(default)]
    pub priority: Option<Vec<Category>>,
    /// Port scheduler: "priority" (strict, default) or "wrr" (weighted round robin over the
    /// categories with `class_weights`).
    #[serde(default)]
    pub scheduler: Option<SchedulerSpec>,
    /// WRR: cells per round for each category (integer >= 1, default 1).
    #[serde(default)]
    pub class_weights: Option<PerClass<i64>>,
    /// Minimum guaranteed bandwidth per category, Mb/s: served ahead of the scheduler while the
    /// category is below it (seed 003's per-QoS buffer configuration).
    #[serde(default)]
    pub class_min_mbps: Option<PerClass<f64>>,
    /// Maximum allocated bandwidth per category, Mb/s: a category never sends faster, even on an
    /// idle link (seed 003's per-QoS buffer configuration).
    #[serde(default)]
    pub class_max_mbps: Option<PerClass<f64>>,
    /// Settings of single output ports, overriding the node's.
    #[serde(default)]
    pub ports: Vec<PortSpec>,
    /// Groups of this node's output ports sharing one buffer.
    #[serde(default)]
    pub shared_buffers: Vec<SharedBufferSpec>,
    /// ABR feedback scheme of every output port of this switch.
    #[serde(default)]
    pub abr: Option<AbrSchemeSpec>,
    /// Selective discard: CLP = 1 cells are dropped while a port's queue holds this many cells.
    #[serde(default)]
    pub clp1_threshold_cells: Option<i64>,
    /// Connection admission control at this switch's output ports (calls and permanent
    /// connections with a contract are admitted against the port's capacity).
    #[serde(default)]
    pub cac: Option<CacSpec>,
    /// Frame-aware discard at this switch's ports for AAL5 connections: "tail" (default),
    /// "epd", "ppd" or "epd+ppd" (seed 002; Romanow and Floyd 1995).
    #[serde(default)]
    pub discard: Option<DiscardSpec>,
    /// EPD: a new frame is refused while the port queue holds at least this many cells
    /// (<= buffer_cells).
    #[serde(default)]
    pub epd_threshold_cells: Option<i64>,
}

/// Frame-aware discard policies of a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum DiscardSpec {
    /// Drop each cell that does not fit.
    #[serde(rename = "tail")]
    Tail,
    /// Early Packet Discard: refuse whole new frames above `epd_threshold_cells`.
    #[serde(rename = "epd")]
    Epd,
    /// Partial Packet Discard: after a cell of a frame is lost, drop the rest of that frame
    /// except its last cell.
    #[serde(rename = "ppd")]
    Ppd,
    /// Both.
    #[serde(rename = "epd+ppd")]
    EpdPpd,
}

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

/// Port schedulers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerSpec {
    Priority,
    Wrr,
}

/// Settings of one output port, named by the neighbour it sends to.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    /// The neighbour node this port's link leads to.
    pub to: String,
    /// Buffer limit, cells (> 0).
    #[serde(default)]
    pub buffer_cells: Option<i64>,
    /// Buffer limit per service category, cells (> 0).
    #[serde(default)]
    pub class_buffer_cells: Option<ClassBuffers>,
    /// ABR feedback scheme of this port (overrides the node's).
    #[serde(default)]
    pub abr: Option<AbrSchemeSpec>,
    /// Selective discard threshold for CLP = 1 cells (overrides the node's).
    #[serde(default)]
    pub clp1_threshold_cells: Option<i64>,
}

/// A buffer shared by several output ports of one node (seed 004: one buffer per port pair).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedBufferSpec {
    /// The output ports, named by their neighbour nodes.
    pub ports: Vec<String>,
    /// Cells the group holds in total (> 0).
    pub buffer_cells: i64,
}

/// A duplex link: the same rate and delay in both directions.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// One end (a node name).
    pub a: String,
    /// The other end (a node name).
    pub b: String,
    /// Line rate in Mb/s of 53-byte cells (> 0), e.g. 149.76 for the OC-3 payload rate.
    pub rate_mbps: f64,
    /// Length in km (> 0); propagation 5 us/km. Give this or `delay_us`.
    #[serde(default)]
    pub length_km: Option<f64>,
    /// Propagation delay in microseconds (>= 0). Give this or `length_km`.
    #[serde(default)]
    pub delay_us: Option<f64>,
    /// Link impairments (seed 001's analyzer/emulator), applied in both directions.
    #[serde(default)]
    pub impairment: Option<ImpairmentSpec>,
}

/// A link impairment model: independent per-cell events (seed 001 section 4.2: the ATM analyzer
/// and emulator used to exercise CER, CLR, CMR, CTD and CDV).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpairmentSpec {
    /// Probability that a cell is lost on the link, in [0, 1].
    #[serde(default)]
    pub loss_probability: f64,
    /// Probability that a cell's payload is errored, in [0, 1].
    #[serde(default)]
    pub error_probability: f64,
    /// Probability that a cell's header is corrupted into that of another connection crossing
    /// the link (lost to its own, misinserted into the other), in [0, 1].
    #[serde(default)]
    pub misinsertion_probability: f64,
    /// Constant extra delay, us (>= 0).
    #[serde(default)]
    pub extra_delay_us: f64,
    /// Extra delay drawn uniformly from [0, delay_variation_us] per cell, us (>= 0); cells keep
    /// their order (a cell never overtakes the one before it).
    #[serde(default)]
    pub delay_variation_us: f64,
    /// Cells to lose deterministically in the direction a -> b: their numbers in the order
    /// they enter the link, counted from 1 (an emulator's scripted loss, for experiments that
    /// need one known drop).
    #[serde(default)]
    pub drop_cells_a_to_b: Vec<u64>,
    /// The same for the direction b -> a.
    #[serde(default)]
    pub drop_cells_b_to_a: Vec<u64>,
}

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

/// Kind of traffic source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// Constant bit rate: cells evenly spaced at `rate_mbps`.
    Cbr,
    /// Always has data; sends at its peak rate `peak_mbps` (default: its first link's rate).
    Persistent,
    /// ON for duty_cycle x period at `peak_mbps`, then OFF; optionally exponential periods.
    Onoff,
    /// Sends nothing (a sink-only direction).
    None,
    /// The MPEG-2 transport-stream model of seed 000 section 4: `sources` independent video
    /// sources (FGN rates per inter-MPCR interval) multiplexed onto the connection.
    Mpeg2,
    /// A TCP connection (BSD Reno family, `source.tcp`): segments as AAL5 frames, ACKs on the
    /// reverse direction; over ABR the segments wait in the ABR source's queue.
    Tcp,
}

/// TCP recovery from loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TcpRecoverySpec {
    /// Timeouts only (seeds 000 and 002).
    None,
    /// Fast retransmit, then slow start (4.3BSD Tahoe).
    Tahoe,
    /// Fast retransmit and fast recovery (4.3BSD Reno).
    Reno,
    /// Reno with partial-ACK handling (RFC 6582).
    Newreno,
}

/// TCP parameters (`source.tcp`); defaults are BSD's where the seeds say nothing.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Maximum segment size, payload bytes (default 512, seeds 000/002; at most mtu_bytes - 40).
    #[serde(default)]
    pub mss_bytes: Option<i64>,
    /// IP MTU over AAL5 (default 9180, RFC 1626; at most 65,527 so that a frame fits AAL5).
    #[serde(default)]
    pub mtu_bytes: Option<i64>,
    /// Receive buffer = advertised window, bytes (default 65,535; above that needs
    /// window_scale; at most 65,535 x 2^14).
    #[serde(default)]
    pub window_bytes: Option<i64>,
    /// RFC 1323 window scaling (default false).
    #[serde(default)]
    pub window_scale: Option<bool>,
    /// "none", "tahoe", "reno" (default) or "newreno".
    #[serde(default)]
    pub recovery: Option<TcpRecoverySpec>,
    /// Delayed ACKs: every second segment or at the fast timer (default false).
    #[serde(default)]
    pub delayed_ack: Option<bool>,
    /// Fast-timer period of delayed ACKs, ms (default 200).
    #[serde(default)]
    pub delack_ms: Option<f64>,
    /// Nagle's algorithm (default true).
    #[serde(default)]
    pub nagle: Option<bool>,
    /// Coarse timer tick, ms (default 100; BSD's slow timer is 500).
    #[serde(default)]
    pub timer_granularity_ms: Option<f64>,
    /// Smallest RTO, ms (default two ticks, BSD's TCPTV_MIN).
    #[serde(default)]
    pub rto_min_ms: Option<f64>,
    /// RTO before the first RTT sample, s (default 3, RFC 1122 section 4.2.3.1).
    #[serde(default)]
    pub rto_initial_s: Option<f64>,
    /// Largest RTO, s (default 64, BSD's TCPTV_REXMTMAX).
    #[serde(default)]
    pub rto_max_s: Option<f64>,
    /// Initial congestion window, segments (default 1).
    #[serde(default)]
    pub initial_cwnd_segments: Option<i64>,
    /// A finite transfer of this many bytes (default: an infinite file).
    #[serde(default)]
    pub bytes: Option<i64>,
}

impl TcpSpec {
    /// The model's parameters (defaults filled in).
    pub fn params(&self, start_s: f64) -> crate::tcp::TcpParams {
        use crate::tcp::{Recovery, TcpParams, Workload};
        use crate::time::secs_to_ps;
        let mut p = TcpParams::new(
            self.mss_bytes.unwrap_or(512) as u32,
            self.window_bytes.unwrap_or(65_535) as u64,
        );
        p.recovery = match self.recovery.unwrap_or(TcpRecoverySpec::Reno) {
            TcpRecoverySpec::None => Recovery::None,
            TcpRecoverySpec::Tahoe => Recovery::Tahoe,
            TcpRecoverySpec::Reno => Recovery::Reno,
            TcpRecoverySpec::Newreno => Recovery::NewReno,
        };
        p.delayed_ack = self.delayed_ack.unwrap_or(false);
        p.delack = secs_to_ps(self.delack_ms.unwrap_or(200.0) / 1e3);
        p.nagle = self.nagle.unwrap_or(true);
        let tick_ms = self.timer_granularity_ms.unwrap_or(100.0);
        p.tick = secs_to_ps(tick_ms / 1e3);
        p.rto_min = secs_to_ps(self.rto_min_ms.unwrap_or(2.0 * tick_ms) / 1e3);
        p.rto_initial = secs_to_ps(self.rto_initial_s.unwrap_or(3.0));
        p.rto_max = secs_to_ps(self.rto_max_s.unwrap_or(64.0));
        p.initial_cwnd = self.initial_cwnd_segments.unwrap_or(1) as u32;
        p.workload = match self.bytes {
            Some(n) => Workload::Bytes(n as u64),
            None => Workload::Bulk,
        };
        p.start = secs_to_ps(start_s);
        p
    }
}

/// FGN generator of the MPEG-2 model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FgnMethodSpec {
    /// Paxson's FFT method (LBL-36750), the seed's.
    Paxson,
    /// The Davies-Harte exact method.
    DaviesHarte,
}

/// A traffic source. Which keys apply depends on `kind`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// `cbr`, `persistent`, `onoff` or `none`.
    pub kind: SourceKind,
    /// cbr: rate in Mb/s of 53-byte cells (> 0).
    #[serde(default)]
    pub rate_mbps: Option<f64>,
    /// persistent: peak rate (default the first link's rate); onoff: rate while ON (> 0).
    #[serde(default)]
    pub peak_mbps: Option<f64>,
    /// onoff: share of each period spent ON, in (0, 1].
    #[serde(default)]
    pub duty_cycle: Option<f64>,
    /// onoff: ON + OFF period, seconds (> 0).
    #[serde(default)]
    pub period_s: Option<f64>,
    /// onoff: draw ON and OFF lengths from exponential distributions with the same means.
    #[serde(default)]
    pub exponential: Option<bool>,
    /// First cell at this time, seconds (>= 0).
    #[serde(default)]
    pub start_s: f64,
    /// No cells from this time on, seconds (> start_s).
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Send AAL5 frames of this many user bytes (1..=65535); absent = unframed cells.
    #[serde(default)]
    pub frame_bytes: Option<i64>,
    /// Shape the cells to the connection's contract before they enter the network: a cell
    /// waits at the source until it conforms to the PCR/CDVT (and SCR/BT) GCRA.
    #[serde(default)]
    pub shape: Option<bool>,
    /// mpeg2: mean m of the FGN rate sequence per video source, Mb/s.
    #[serde(default)]
    pub mean_mbps: Option<f64>,
    /// mpeg2: standard deviation s of the rate sequence, Mb/s.
    #[serde(default)]
    pub std_mbps: Option<f64>,
    /// mpeg2: Hurst parameter in (0.5, 1) (default 0.8).
    #[serde(default)]
    pub hurst: Option<f64>,
    /// mpeg2: FGN generator, "paxson" (default) or "davies_harte".
    #[serde(default)]
    pub fgn: Option<FgnMethodSpec>,
    /// mpeg2: number of video sources multiplexed onto the connection (default 1; seed 000: 9).
    #[serde(default)]
    pub sources: Option<i64>,
    /// mpeg2: rates below this are skipped (not clipped), Mb/s (default 0).
    #[serde(default)]
    pub min_rate_mbps: Option<f64>,
    /// mpeg2: rates above this are skipped (not clipped), Mb/s (default 15).
    #[serde(default)]
    pub max_rate_mbps: Option<f64>,
    /// mpeg2: shortest inter-MPCR interval, s (default 0.02).
    #[serde(default)]
    pub interval_min_s: Option<f64>,
    /// mpeg2: longest inter-MPCR interval, s (default 0.1).
    #[serde(default)]
    pub interval_max_s: Option<f64>,
    /// tcp: the TCP parameters (an empty table takes the defaults).
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
}

impl SourceSpec {
    /// The MPEG-2 model's parameters (seed 000 section 4 defaults for what is absent).
    pub fn video_params(&self) -> crate::video::VideoParams {
        use crate::video::VideoParams;
        let d = VideoParams::default();
        VideoParams {
            mean_mbps: self.mean_mbps.unwrap_or(d.mean_mbps),
            std_mbps: self.std_mbps.unwrap_or(d.std_mbps),
            hurst: self.hurst.unwrap_or(d.hurst),
            method: match self.fgn {
                Some(FgnMethodSpec::DaviesHarte) => crate::fgn::FgnMethod::DaviesHarte,
                _ => crate::fgn::FgnMethod::Paxson,
            },
            min_rate_mbps: self.min_rate_mbps.unwrap_or(d.min_rate_mbps),
            max_rate_mbps: self.max_rate_mbps.unwrap_or(d.max_rate_mbps),
            peak_mbps: self.peak_mbps.unwrap_or(d.peak_mbps),
            interval_min_s: self.interval_min_s.unwrap_or(d.interval_min_s),
            interval_max_s: self.interval_max_s.unwrap_or(d.interval_max_s),
            start: crate::time::secs_to_ps(self.start_s),
            stop: self.stop_s.map(crate::time::secs_to_ps).unwrap_or(u64::MAX),
            ..d
        }
    }
}

/// Parse a scenario from JSON text: unknown keys and wrong types are errors with their path,
/// then the semantic checks of [`validate`] run.
pub fn parse(json: &str) -> Res<Scenario> {
    let de = &mut serde_json::Deserializer::from_str(json);
    let sc: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        ScenarioError::new(path, clean_serde_message(&e.inner().to_string()))
    })?;
    validate(&sc)?;
    Ok(sc)
}

fn clean_serde_message(m: &str) -> String {
    // serde_json appends " at line L column C" (of the generated JSON, meaningless to users)
    match m.rfind(" at line ") {
        Some(i) => m[..i].to_string(),
        None => m.to_string(),
    }
}

/// The JSON Schema of the scenario format.
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Scenario)).expect("schema serializes")
}

fn positive(path: &str, v: f64) -> Res<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("must be a number > 0, got {v}"),
        ))
    }
}

fn non_negative(path: &str, v: f64) -> Res<()> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("must be a number >= 0, got {v}"),
        ))
    }
}

fn positive_int(path: &str, v: i64) -> Res<()> {
    if v > 0 && v <= u32::MAX as i64 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("must be an integer in 1..={}, got {v}", u32::MAX),
        ))
    }
}

fn class_buffers(path: &str, cb: &Option<ClassBuffers>) -> Res<()> {
    if let Some(cb) = cb {
        for (cat, v) in cb.entries() {
            if let Some(v) = v {
                positive_int(&format!("{path}.{}", cat.name()), v)?;
            }
        }
    }
    Ok(())
}

/// Semantic checks: ranges, names, routes. Returns the first error found, with its key path.
pub fn validate(sc: &Scenario) -> Res<()> {
    if sc.description.trim().is_empty() {
        return Err(ScenarioError::new(
            "description",
            "must say what the scenario is and cite its source",
        ));
    }
    let r = &sc.run;
    positive("run.duration_s", r.duration_s)?;
    non_negative("run.warmup_s", r.warmup_s)?;
    if r.warmup_s >= r.duration_s {
        return Err(ScenarioError::new(
            "run.warmup_s",
            format!("must be < run.duration_s ({})", r.duration_s),
        ));
    }
    if let Some(s) = r.sample_interval_s {
        positive("run.sample_interval_s", s)?;
        if s > r.duration_s {
            return Err(ScenarioError::new(
                "run.sample_interval_s",
                "must not exceed run.duration_s",
            ));
        }
    }
    if (r.duration_s * 1e12) >= u64::MAX as f64 / 2.0 {
        return Err(ScenarioError::new(
            "run.duration_s",
            "too long (at most about 100 days)",
        ));
    }

    let mut kinds: BTreeMap<&str, NodeKind> = BTreeMap::new();
    for (i, n) in sc.nodes.iter().enumerate() {
        let p = format!("nodes[{i}]");
        if n.name.is_empty() {
            return Err(ScenarioError::new(format!("{p}.name"), "must not be empty"));
        }
        if kinds.insert(&n.name, n.kind).is_some() {
            return Err(ScenarioError::new(
                format!("{p}.name"),
                format!("duplicate node name \"{}\"", n.name),
            ));
        }
        non_negative(&format!("{p}.fabric_delay_us"), n.fabric_delay_us)?;
        non_negative(&format!("{p}.call_processing_us"), n.call_processing_us)?;
        if n.kind == NodeKind::Host && n.call_processing_us != 0.0 {
            return Err(ScenarioError::new(
                format!("{p}.call_processing_us"),
                "only switches process call set-up",
            ));
        }
        if n.kind == NodeKind::Host && n.fabric_delay_us != 0.0 {
            return Err(ScenarioError::new(
                format!("{p}.fabric_delay_us"),
                "applies to switches only",
            ));
        }
        if let Some(b) = n.buffer_cells {
            positive_int(&format!("{p}.buffer_cells"), b)?;
        }
        if let Some(b) = n.clp1_threshold_cells {
            positive_int(&format!("{p}.clp1_threshold_cells"), b)?;
        }
        if let Some(c) = &n.cac {
            if n.kind != NodeKind::Switch {
                return Err(ScenarioError::new(
                    format!("{p}.cac"),
                    "CAC runs at switches",
                ));
            }
            validate_cac(&format!("{p}.cac"), c)?;
        }
        let epd = matches!(n.discard, Some(DiscardSpec::Epd | DiscardSpec::EpdPpd));
        match (epd, n.epd_threshold_cells) {
            (true, None) => {
                return Err(ScenarioError::new(
                    format!("{p}.epd_threshold_cells"),
                    "required with discard = \"epd\" or \"epd+ppd\"",
                ))
            }
            (false, Some(_)) => {
                return Err(ScenarioError::new(
                    format!("{p}.epd_threshold_cells"),
                    "only used with discard = \"epd\" or \"epd+ppd\"",
                ))
            }
            (true, Some(t)) => {
                positive_int(&format!("{p}.epd_threshold_cells"), t)?;
                let smallest = n
                    .ports
                    .iter()
                    .filter_map(|ps| ps.buffer_cells)
                    .chain(n.buffer_cells)
                    .min();
                if let Some(b) = smallest {
                    if t > b {
                        return Err(ScenarioError::new(
                            format!("{p}.epd_threshold_cells"),
                            format!("must not exceed the buffer ({b} cells), got {t}"),
                        ));
                    }
                }
            }
            _ => {}
        }
        class_buffers(&format!("{p}.class_buffer_cells"), &n.class_buffer_cells)?;
        if let Some(a) = &n.abr {
            validate_scheme(&format!("{p}.abr"), a)?;
            if a.vsvd == Some(true) && n.kind != NodeKind::Switch {
                return Err(ScenarioError::new(
                    format!("{p}.abr.vsvd"),
                    "only a switch can be a virtual source / virtual destination",
                ));
            }
        }
        if let Some(w) = &n.class_weights {
            if n.scheduler != Some(SchedulerSpec::Wrr) {
                return Err(ScenarioError::new(
                    format!("{p}.class_weights"),
                    "only used with scheduler = \"wrr\"",
                ));
            }
            for (cat, v) in w.entries() {
                if let Some(v) = v {
                    if !(1..=1_000_000).contains(&v) {
                        return Err(ScenarioError::new(
                            format!("{p}.class_weights.{}", cat.name()),
                            format!("must be an integer in 1..=1000000, got {v}"),
                        ));
                    }
                }
            }
        }
        for (key, rates) in [
            ("class_min_mbps", &n.class_min_mbps),
            ("class_max_mbps", &n.class_max_mbps),
        ] {
            if let Some(r) = rates {
                for (cat, v) in r.entries() {
                    if let Some(v) = v {
                        positive(&format!("{p}.{key}.{}", cat.name()), v)?;
                    }
                }
            }
        }
        if let (Some(lo), Some(hi)) = (&n.class_min_mbps, &n.class_max_mbps) {
            for ((cat, a), (_, b)) in lo.entries().into_iter().zip(hi.entries()) {
                if let (Some(a), Some(b)) = (a, b) {
                    if a > b {
                        return Err(ScenarioError::new(
                            format!("{p}.class_min_mbps.{}", cat.name()),
                            format!("must not exceed class_max_mbps ({b})"),
                        ));
                    }
                }
            }
        }
        if let Some(pr) = &n.priority {
            let set: BTreeSet<_> = pr.iter().collect();
            if pr.len() != 5 || set.len() != 5 {
                return Err(ScenarioError::new(
                    format!("{p}.priority"),
                    "must list each of cbr, rt-vbr, nrt-vbr, abr, ubr exactly once",
                ));
            }
        }
    }

    let mut adj: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (i, l) in sc.links.iter().enumerate() {
        let p = format!("links[{i}]");
        for (k, v) in [("a", &l.a), ("b", &l.b)] {
            if !kinds.contains_key(v.as_str()) {
                return Err(ScenarioError::new(
                    format!("{p}.{k}"),
                    format!("unknown node \"{v}\"; nodes are {}", names(&kinds)),
                ));
            }
        }
        if l.a == l.b {
            return Err(ScenarioError::new(
                format!("{p}.b"),
                "a link must join two different nodes",
            ));
        }
        positive(&format!("{p}.rate_mbps"), l.rate_mbps)?;
        if l.rate_mbps > 1e6 {
            return Err(ScenarioError::new(
                format!("{p}.rate_mbps"),
                "must be at most 1e6 (1 Tb/s)",
            ));
        }
        match (l.length_km, l.delay_us) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    format!("{p}.delay_us"),
                    "give length_km or delay_us, not both",
                ))
            }
            (None, None) => return Err(ScenarioError::new(p, "needs length_km or delay_us")),
            (Some(km), None) => {
                if !(km.is_finite() && km > 0.0) {
                    return Err(ScenarioError::new(
                        format!("{p}.length_km"),
                        format!("must be a number > 0, got {km} (a link without propagation delay: delay_us = 0)"),
                    ));
                }
            }
            (None, Some(us)) => non_negative(&format!("{p}.delay_us"), us)?,
        }
        if let Some(im) = &l.impairment {
            for (k, v) in [
                ("loss_probability", im.loss_probability),
                ("error_probability", im.error_probability),
                ("misinsertion_probability", im.misinsertion_probability),
            ] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(ScenarioError::new(
                        format!("{p}.impairment.{k}"),
                        format!("must be a probability in [0, 1], got {v}"),
                    ));
                }
            }
            if im.loss_probability + im.error_probability + im.misinsertion_probability > 1.0 {
                return Err(ScenarioError::new(
                    format!("{p}.impairment"),
                    "loss, error and misinsertion probabilities must add up to at most 1",
                ));
            }
            non_negative(&format!("{p}.impairment.extra_delay_us"), im.extra_delay_us)?;
            non_negative(
                &format!("{p}.impairment.delay_variation_us"),
                im.delay_variation_us,
            )?;
            for (k, v) in [
                ("drop_cells_a_to_b", &im.drop_cells_a_to_b),
                ("drop_cells_b_to_a", &im.drop_cells_b_to_a),
            ] {
                if v.contains(&0) || v.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(ScenarioError::new(
                        format!("{p}.impairment.{k}"),
                        "cell numbers count from 1 and must be increasing",
                    ));
                }
            }
        }
        if !adj.insert((&l.a, &l.b)) || !adj.insert((&l.b, &l.a)) {
            return Err(ScenarioError::new(
                p,
                format!(
                    "a second link between \"{}\" and \"{}\"; one link per node pair",
                    l.a, l.b
                ),
            ));
        }
    }

    for (i, n) in sc.nodes.iter().enumerate() {
        let p = format!("nodes[{i}]");
        let mut seen = BTreeSet::new();
        for (j, ps) in n.ports.iter().enumerate() {
            let pp = format!("{p}.ports[{j}]");
            if !adj.contains(&(n.name.as_str(), ps.to.as_str())) {
                return Err(ScenarioError::new(
                    format!("{pp}.to"),
                    format!("\"{}\" has no link to \"{}\"", n.name, ps.to),
                ));
            }
            if !seen.insert(ps.to.as_str()) {
                return Err(ScenarioError::new(
                    format!("{pp}.to"),
                    format!("port to \"{}\" configured twice", ps.to),
                ));
            }
            if let Some(b) = ps.buffer_cells {
                positive_int(&format!("{pp}.buffer_cells"), b)?;
            }
            if let Some(b) = ps.clp1_threshold_cells {
                positive_int(&format!("{pp}.clp1_threshold_cells"), b)?;
            }
            class_buffers(&format!("{pp}.class_buffer_cells"), &ps.class_buffer_cells)?;
            if let Some(a) = &ps.abr {
                validate_scheme(&format!("{pp}.abr"), a)?;
                if a.vsvd.is_some() {
                    return Err(ScenarioError::new(
                        format!("{pp}.abr.vsvd"),
                        "VS/VD is set for the whole switch, in nodes[].abr",
                    ));
                }
            }
        }
        let mut grouped = BTreeSet::new();
        for (j, g) in n.shared_buffers.iter().enumerate() {
            let gp = format!("{p}.shared_buffers[{j}]");
            positive_int(&format!("{gp}.buffer_cells"), g.buffer_cells)?;
            if g.ports.is_empty() {
                return Err(ScenarioError::new(
                    format!("{gp}.ports"),
                    "must name at least one port",
                ));
            }
            for (k, to) in g.ports.iter().enumerate() {
                if !adj.contains(&(n.name.as_str(), to.as_str())) {
                    return Err(ScenarioError::new(
                        format!("{gp}.ports[{k}]"),
                        format!("\"{}\" has no link to \"{to}\"", n.name),
                    ));
                }
                if !grouped.insert(to.as_str()) {
                    return Err(ScenarioError::new(
                        format!("{gp}.ports[{k}]"),
                        format!("port to \"{to}\" is already in a shared buffer"),
                    ));
                }
            }
        }
    }

    let mut conn_names = BTreeSet::new();
    for (i, c) in sc.connections.iter().enumerate() {
        let p = format!("connections[{i}]");
        if c.name.is_empty() {
            return Err(ScenarioError::new(format!("{p}.name"), "must not be empty"));
        }
        if !conn_names.insert(c.name.as_str()) {
            return Err(ScenarioError::new(
                format!("{p}.name"),
                format!("duplicate connection name \"{}\"", c.name),
            ));
        }
        validate_connection(&p, c, sc, &kinds, &adj)?;
    }
    // the connections of a bundle are measured with one monitor: same parameters
    let mut bundles: BTreeMap<&str, (usize, &ProposeSpec)> = BTreeMap::new();
    for (i, c) in sc.connections.iter().enumerate() {
        let Some(m) = &c.propose_contract else {
            continue;
        };
        let Some(b) = m.bundle.as_deref() else {
            continue;
        };
        if conn_names.contains(b) && b != c.name {
            return Err(ScenarioError::new(
                format!("connections[{i}].propose_contract.bundle"),
                format!("\"{b}\" is another connection's name; a bundle needs a name of its own"),
            ));
        }
        match bundles.get(b) {
            None => {
                bundles.insert(b, (i, m));
            }
            Some(&(j, first)) => {
                for (key, a, x) in [
                    ("window_s", first.window_s, m.window_s),
                    ("scr_margin", first.scr_margin, m.scr_margin),
                    ("tolerance", first.tolerance, m.tolerance),
                ] {
                    if a != x {
                        return Err(ScenarioError::new(
                            format!("connections[{i}].propose_contract.{key}"),
                            format!("differs from bundle \"{b}\"'s (connections[{j}]); a bundle is measured with one set of parameters"),
                        ));
                    }
                }
            }
        }
    }
    for (i, call) in sc.calls.iter().enumerate() {
        let p = format!("calls[{i}]");
        let c = &call.connection;
        if c.name.is_empty() {
            return Err(ScenarioError::new(
                format!("{p}.connection.name"),
                "must not be empty",
            ));
        }
        if !conn_names.insert(c.name.as_str()) {
            return Err(ScenarioError::new(
                format!("{p}.connection.name"),
                format!("duplicate connection name \"{}\"", c.name),
            ));
        }
        validate_connection(&format!("{p}.connection"), c, sc, &kinds, &adj)?;
        if c.propose_contract.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.connection.propose_contract"),
                "the adaptive proposal monitors permanent connections only",
            ));
        }
        validate_call(&p, call, sc)?;
    }
    Ok(())
}

/// Route, source, contract and ABR checks of one connection (or call template) at path `p`.
fn validate_connection(
    p: &str,
    c: &ConnectionSpec,
    sc: &Scenario,
    kinds: &BTreeMap<&str, NodeKind>,
    adj: &BTreeSet<(&str, &str)>,
) -> Res<()> {
    if c.route.len() < 2 {
        return Err(ScenarioError::new(
            format!("{p}.route"),
            "needs at least two nodes",
        ));
    }
    let mut on_route = BTreeSet::new();
    for (k, n) in c.route.iter().enumerate() {
        let rp = format!("{p}.route[{k}]");
        let Some(kind) = kinds.get(n.as_str()) else {
            return Err(ScenarioError::new(
                rp,
                format!("unknown node \"{n}\"; nodes are {}", names(kinds)),
            ));
        };
        let end = k == 0 || k == c.route.len() - 1;
        if end && *kind != NodeKind::Host {
            return Err(ScenarioError::new(
                rp,
                format!("\"{n}\" is a switch; a route starts and ends at a host"),
            ));
        }
        if !end && *kind != NodeKind::Switch {
            return Err(ScenarioError::new(
                rp,
                format!("\"{n}\" is a host; only switches may be inside a route"),
            ));
        }
        if !on_route.insert(n.as_str()) {
            return Err(ScenarioError::new(
                rp,
                format!("\"{n}\" appears twice; routes must not loop"),
            ));
        }
        if k > 0 && !adj.contains(&(c.route[k - 1].as_str(), n.as_str())) {
            return Err(ScenarioError::new(
                rp,
                format!("no link between \"{}\" and \"{n}\"", c.route[k - 1]),
            ));
        }
    }
    if c.route.len() > 250 {
        return Err(ScenarioError::new(
            format!("{p}.route"),
            "at most 250 nodes",
        ));
    }
    validate_source(&format!("{p}.source"), &c.source)?;
    validate_contract(p, c)?;
    match (&c.abr, c.category) {
        (None, Category::Abr) => {
            return Err(ScenarioError::new(
                format!("{p}.abr"),
                "required for category \"abr\" (an empty table takes the TM 4.0 defaults)",
            ))
        }
        (Some(_), cat) if cat != Category::Abr => {
            return Err(ScenarioError::new(
                format!("{p}.abr"),
                format!("only for category \"abr\", not \"{}\"", cat.name()),
            ))
        }
        (Some(a), _) => {
            let first_rate = sc
                .links
                .iter()
                .find(|l| {
                    (l.a == c.route[0] && l.b == c.route[1])
                        || (l.b == c.route[0] && l.a == c.route[1])
                })
                .map(|l| l.rate_mbps)
                .unwrap_or(0.0);
            validate_abr(&format!("{p}.abr"), a, first_rate)?;
            if c.source.kind == SourceKind::Persistent && c.source.peak_mbps.is_some() {
                return Err(ScenarioError::new(
                    format!("{p}.source.peak_mbps"),
                    "an ABR source sends at its ACR; set abr.pcr_mbps instead",
                ));
            }
            if c.bidirectional {
                // both directions under ABR control, each end also the other's destination
                if c.source.kind == SourceKind::Tcp
                    || c.reverse_source
                        .as_ref()
                        .is_some_and(|r| r.kind == SourceKind::Tcp)
                {
                    return Err(ScenarioError::new(
                        format!("{p}.bidirectional"),
                        "TCP over ABR uses the reverse direction for its ACKs; a bidirectional ABR connection carries persistent, cbr, onoff, mpeg2 or none sources",
                    ));
                }
                let vsvd = c.route[1..c.route.len() - 1].iter().any(|n| {
                    sc.nodes
                        .iter()
                        .find(|x| &x.name == n)
                        .and_then(|x| x.abr.as_ref())
                        .is_some_and(|a| a.vsvd == Some(true))
                });
                if vsvd {
                    return Err(ScenarioError::new(
                        format!("{p}.bidirectional"),
                        "a bidirectional ABR connection through a VS/VD switch is not supported",
                    ));
                }
            }
            for k in 1..c.route.len() - 1 {
                let node = sc.nodes.iter().position(|n| n.name == c.route[k]).unwrap();
                let n = &sc.nodes[node];
                let port = n
                    .ports
                    .iter()
                    .find(|ps| ps.to == c.route[k + 1])
                    .and_then(|ps| ps.abr.as_ref());
                if port.or(n.abr.as_ref()).is_none() {
                    return Err(ScenarioError::new(
                        format!("nodes[{node}].abr"),
                        format!("ABR connection \"{}\" crosses port {}->{} which has no ABR scheme; set scheme = \"erica\", \"erica+\", \"efci\", \"rr\" or \"none\"", c.name, c.route[k], c.route[k + 1]),
                    ));
                }
            }
        }
        (None, _) => {}
    }
    if c.source.kind == SourceKind::Tcp {
        if c.reverse_source.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.reverse_source"),
                "a TCP connection's reverse direction carries its ACKs",
            ));
        }
        if c.abr.is_some() {
            for k in 1..c.route.len() - 1 {
                if sc
                    .nodes
                    .iter()
                    .find(|n| n.name == c.route[k])
                    .and_then(|n| n.abr.as_ref())
                    .is_some_and(|a| a.vsvd == Some(true))
                {
                    return Err(ScenarioError::new(format!("{p}.route"), format!("TCP over ABR through a VS/VD switch (\"{}\") is not supported: the ACKs would end at the virtual source", c.route[k])));
                }
            }
        }
    }
    if let Some(rs) = &c.reverse_source {
        if !c.bidirectional {
            return Err(ScenarioError::new(
                format!("{p}.reverse_source"),
                "needs bidirectional = true",
            ));
        }
        validate_source(&format!("{p}.reverse_source"), rs)?;
    }
    Ok(())
}

fn validate_call(p: &str, call: &CallSpec, sc: &Scenario) -> Res<()> {
    let c = &call.connection;
    if c.contract.is_none() {
        return Err(ScenarioError::new(
            format!("{p}.connection.contract"),
            "a call needs a contract for CAC",
        ));
    }
    if c.abr.is_some() || c.bidirectional || c.source.kind == SourceKind::Tcp {
        return Err(ScenarioError::new(
            format!("{p}.connection"),
            "calls are one-way non-ABR, non-TCP connections for now",
        ));
    }
    if c.source.start_s != 0.0 || c.source.stop_s.is_some() {
        return Err(ScenarioError::new(
            format!("{p}.connection.source"),
            "a call's source runs from set-up to release; no start_s or stop_s",
        ));
    }
    positive(&format!("{p}.arrival_rate_per_s"), call.arrival_rate_per_s)?;
    positive(&format!("{p}.holding_s"), call.holding_s)?;
    non_negative(&format!("{p}.start_s"), call.start_s)?;
    if let Some(s) = call.stop_s {
        if !(s.is_finite() && s > call.start_s) {
            return Err(ScenarioError::new(
                format!("{p}.stop_s"),
                format!("must be > start_s ({})", call.start_s),
            ));
        }
    }
    if let Some(m) = call.max_active {
        if !(1..=100_000).contains(&m) {
            return Err(ScenarioError::new(
                format!("{p}.max_active"),
                format!("must be an integer in 1..=100000, got {m}"),
            ));
        }
    }
    let cac_on_route = c.route[1..c.route.len() - 1]
        .iter()
        .any(|n| sc.nodes.iter().any(|x| &x.name == n && x.cac.is_some()));
    if !cac_on_route {
        return Err(ScenarioError::new(
            format!("{p}.connection.route"),
            "no switch on the route does CAC; set nodes[].cac",
        ));
    }
    Ok(())
}

fn validate_cac(p: &str, c: &CacSpec) -> Res<()> {
    if c.policy != CacPolicySpec::EffectiveBandwidth
        && (c.buffer_cells.is_some() || c.clr.is_some())
    {
        return Err(ScenarioError::new(
            p,
            "buffer_cells and clr apply to policy \"effective_bandwidth\" only",
        ));
    }
    if let Some(b) = c.buffer_cells {
        positive(&format!("{p}.buffer_cells"), b)?;
    }
    if let Some(v) = c.clr {
        if !(v > 0.0 && v < 1.0) {
            return Err(ScenarioError::new(
                format!("{p}.clr"),
                format!("must be in (0, 1), got {v}"),
            ));
        }
    }
    Ok(())
}

fn validate_contract(p: &str, c: &ConnectionSpec) -> Res<()> {
    if let Some(k) = &c.contract {
        let cp = format!("{p}.contract");
        positive(&format!("{cp}.pcr_mbps"), k.pcr_mbps)?;
        non_negative(&format!("{cp}.cdvt_us"), k.cdvt_us)?;
        let vbr = matches!(c.category, Category::RtVbr | Category::NrtVbr);
        match (vbr, k.scr_mbps, k.mbs_cells) {
            (true, None, _) => {
                return Err(ScenarioError::new(
                    format!("{cp}.scr_mbps"),
                    format!("required for category \"{}\"", c.category.name()),
                ))
            }
            (true, _, None) => {
                return Err(ScenarioError::new(
                    format!("{cp}.mbs_cells"),
                    format!("required for category \"{}\"", c.category.name()),
                ))
            }
            (false, Some(_), _) => {
                return Err(ScenarioError::new(
                    format!("{cp}.scr_mbps"),
                    "SCR applies to rt-vbr and nrt-vbr only",
                ))
            }
            (false, _, Some(_)) => {
                return Err(ScenarioError::new(
                    format!("{cp}.mbs_cells"),
                    "MBS applies to rt-vbr and nrt-vbr only",
                ))
            }
            _ => {}
        }
        if let Some(scr) = k.scr_mbps {
            positive(&format!("{cp}.scr_mbps"), scr)?;
            if scr > k.pcr_mbps {
                return Err(ScenarioError::new(
                    format!("{cp}.scr_mbps"),
                    format!("must be <= pcr_mbps ({}), got {scr}", k.pcr_mbps),
                ));
            }
        }
        if let Some(m) = k.mbs_cells {
            if !(1..=u32::MAX as i64).contains(&m) {
                return Err(ScenarioError::new(
                    format!("{cp}.mbs_cells"),
                    format!("must be an integer >= 1, got {m}"),
                ));
            }
        }
    }
    if c.source.shape == Some(true) && c.contract.is_none() {
        return Err(ScenarioError::new(
            format!("{p}.source.shape"),
            "needs a contract to shape to",
        ));
    }
    if c.source.shape == Some(true) && c.abr.is_some() {
        return Err(ScenarioError::new(
            format!("{p}.source.shape"),
            "an ABR source is paced by its ACR; shaping does not apply",
        ));
    }
    if c.upc.is_some() && c.contract.is_none() {
        return Err(ScenarioError::new(
            format!("{p}.upc"),
            "needs a contract to police",
        ));
    }
    if c.upc.is_some() && c.route.len() < 3 {
        return Err(ScenarioError::new(
            format!("{p}.upc"),
            "UPC runs at the first switch; the route has none",
        ));
    }
    if let Some(m) = &c.propose_contract {
        if let Some(w) = m.window_s {
            positive(&format!("{p}.propose_contract.window_s"), w)?;
        }
        if let Some(v) = m.scr_margin {
            non_negative(&format!("{p}.propose_contract.scr_margin"), v)?;
        }
        if let Some(v) = m.tolerance {
            if !(v.is_finite() && (0.0..1.0).contains(&v)) {
                return Err(ScenarioError::new(
                    format!("{p}.propose_contract.tolerance"),
                    format!("must be a share in [0, 1), got {v}"),
                ));
            }
        }
    }
    if let Some(q) = &c.qos {
        let qp = format!("{p}.qos");
        if let Some(v) = q.max_ctd_us {
            positive(&format!("{qp}.max_ctd_us"), v)?;
        }
        if let Some(v) = q.cdv_us {
            positive(&format!("{qp}.cdv_us"), v)?;
        }
        if let Some(v) = q.clr {
            if !(0.0..=1.0).contains(&v) {
                return Err(ScenarioError::new(
                    format!("{qp}.clr"),
                    format!("must be in [0, 1], got {v}"),
                ));
            }
        }
        if let Some(v) = q.secb_block_cells {
            positive_int(&format!("{qp}.secb_block_cells"), v)?;
        }
        if let Some(v) = q.secb_max_bad {
            if !(0..=q.secb_block_cells.unwrap_or(128)).contains(&v) {
                return Err(ScenarioError::new(
                    format!("{qp}.secb_max_bad"),
                    "must be in 0..=secb_block_cells",
                ));
            }
        }
    }
    Ok(())
}

fn power_of_two_fraction(v: f64, min_exp: i32) -> bool {
    (min_exp..=0).any(|k| v == 2f64.powi(k))
}

fn validate_abr(p: &str, a: &AbrSpec, first_rate: f64) -> Res<()> {
    let pcr = a.pcr_mbps.unwrap_or(first_rate);
    if let Some(v) = a.pcr_mbps {
        positive(&format!("{p}.pcr_mbps"), v)?;
        if v > first_rate {
            return Err(ScenarioError::new(format!("{p}.pcr_mbps"), format!("must be <= the rate of the connection's first link ({first_rate} Mb/s), got {v}")));
        }
    }
    let mcr = a.mcr_mbps.unwrap_or(0.0);
    non_negative(&format!("{p}.mcr_mbps"), mcr)?;
    if mcr > pcr {
        return Err(ScenarioError::new(
            format!("{p}.mcr_mbps"),
            format!("must be <= PCR ({pcr} Mb/s)"),
        ));
    }
    if let Some(icr) = a.icr_mbps {
        if !(icr.is_finite() && icr >= mcr && icr <= pcr) {
            return Err(ScenarioError::new(
                format!("{p}.icr_mbps"),
                format!("must be in [MCR, PCR] = [{mcr}, {pcr}] Mb/s, got {icr}"),
            ));
        }
        if icr <= 0.0 {
            return Err(ScenarioError::new(format!("{p}.icr_mbps"), "must be > 0"));
        }
    }
    for (k, v) in [("rif", a.rif), ("rdf", a.rdf)] {
        if let Some(v) = v {
            if !power_of_two_fraction(v, -15) {
                return Err(ScenarioError::new(
                    format!("{p}.{k}"),
                    format!("must be a power of two from 1/32768 to 1, got {v}"),
                ));
            }
        }
    }
    if let Some(v) = a.cdf {
        if !(v == 0.0 || power_of_two_fraction(v, -6)) {
            return Err(ScenarioError::new(
                format!("{p}.cdf"),
                format!("must be 0 or a power of two from 1/64 to 1, got {v}"),
            ));
        }
    }
    if let Some(n) = a.nrm {
        if !(2..=256).contains(&n) || n.count_ones() != 1 {
            return Err(ScenarioError::new(
                format!("{p}.nrm"),
                format!("must be a power of two from 2 to 256, got {n}"),
            ));
        }
    }
    if let Some(m) = a.mrm {
        if !(1..=256).contains(&m) {
            return Err(ScenarioError::new(
                format!("{p}.mrm"),
                format!("must be an integer in 1..=256 (TM 4.0 fixes it at 2), got {m}"),
            ));
        }
    }
    if let Some(t) = a.trm_ms {
        if !(0..=7).any(|k| t == 100.0 / 2f64.powi(k)) {
            return Err(ScenarioError::new(
                format!("{p}.trm_ms"),
                format!("must be 100 x 2^-k ms for k = 0..7, got {t}"),
            ));
        }
    }
    if let Some(t) = a.tbe {
        if !(0..=16_777_215).contains(&t) {
            return Err(ScenarioError::new(
                format!("{p}.tbe"),
                format!("must be in 0..=16777215 cells, got {t}"),
            ));
        }
    }
    if let Some(f) = a.frtt_us {
        non_negative(&format!("{p}.frtt_us"), f)?;
    }
    if let Some(t) = a.adtf_s {
        if !(t.is_finite() && (0.01..=10.23).contains(&t)) {
            return Err(ScenarioError::new(
                format!("{p}.adtf_s"),
                format!("must be in 0.01 ..= 10.23 s, got {t}"),
            ));
        }
    }
    Ok(())
}

fn validate_scheme(p: &str, a: &AbrSchemeSpec) -> Res<()> {
    use SchemeKind::*;
    let erica = matches!(a.scheme, Erica | EricaPlus);
    let present = [
        (
            "target_utilization",
            a.target_utilization.is_some(),
            a.scheme == Erica,
        ),
        ("interval_s", a.interval_s.is_some(), erica),
        ("interval_cells", a.interval_cells.is_some(), erica),
        ("variant", a.variant.is_some(), erica),
        ("ccr", a.ccr.is_some(), erica),
        ("delta", a.delta.is_some(), erica),
        (
            "one_feedback_per_interval",
            a.one_feedback_per_interval.is_some(),
            erica,
        ),
        ("t0_us", a.t0_us.is_some(), a.scheme == EricaPlus),
        ("a", a.a.is_some(), a.scheme == EricaPlus),
        ("b", a.b.is_some(), a.scheme == EricaPlus),
        ("qdlf", a.qdlf.is_some(), a.scheme == EricaPlus),
        (
            "high_cells",
            a.high_cells.is_some(),
            matches!(a.scheme, Efci | RelativeRate),
        ),
        (
            "low_cells",
            a.low_cells.is_some(),
            matches!(a.scheme, Efci | RelativeRate),
        ),
    ];
    let name = serde_json::to_string(&a.scheme).unwrap();
    for (k, has, ok) in present {
        if has && !ok {
            return Err(ScenarioError::new(
                format!("{p}.{k}"),
                format!("not used by scheme {name}"),
            ));
        }
    }
    if let Some(u) = a.target_utilization {
        if !(u > 0.0 && u <= 1.0) {
            return Err(ScenarioError::new(
                format!("{p}.target_utilization"),
                format!("must be in (0, 1], got {u}"),
            ));
        }
    }
    if let Some(v) = a.interval_s {
        positive(&format!("{p}.interval_s"), v)?;
    }
    if let Some(v) = a.interval_cells {
        positive_int(&format!("{p}.interval_cells"), v)?;
    }
    if let Some(v) = a.delta {
        non_negative(&format!("{p}.delta"), v)?;
    }
    if let Some(v) = a.t0_us {
        positive(&format!("{p}.t0_us"), v)?;
    }
    for (k, v) in [("a", a.a), ("b", a.b)] {
        if let Some(v) = v {
            if !(v.is_finite() && v > 1.0) {
                return Err(ScenarioError::new(
                    format!("{p}.{k}"),
                    format!("must be > 1, got {v}"),
                ));
            }
        }
    }
    if let Some(q) = a.qdlf {
        if !(q > 0.0 && q <= 1.0) {
            return Err(ScenarioError::new(
                format!("{p}.qdlf"),
                format!("must be in (0, 1], got {q}"),
            ));
        }
    }
    if matches!(a.scheme, Efci | RelativeRate) {
        let hi = a.high_cells.ok_or_else(|| {
            ScenarioError::new(
                format!("{p}.high_cells"),
                format!("required for scheme {name}"),
            )
        })?;
        let lo = a.low_cells.ok_or_else(|| {
            ScenarioError::new(
                format!("{p}.low_cells"),
                format!("required for scheme {name}"),
            )
        })?;
        positive_int(&format!("{p}.high_cells"), hi)?;
        if !(0..=hi).contains(&lo) {
            return Err(ScenarioError::new(
                format!("{p}.low_cells"),
                format!("must be in 0..=high_cells ({hi}), got {lo}"),
            ));
        }
    }
    Ok(())
}

fn names(kinds: &BTreeMap<&str, NodeKind>) -> String {
    let v: Vec<&str> = kinds.keys().copied().collect();
    if v.len() > 12 {
        format!("{}, ... ({} in all)", v[..12].join(", "), v.len())
    } else {
        v.join(", ")
    }
}

fn validate_tcp(p: &str, t: &TcpSpec) -> Res<()> {
    let int_in = |k: &str, v: Option<i64>, lo: i64, hi: i64, why: &str| -> Res<()> {
        match v {
            Some(v) if !(lo..=hi).contains(&v) => Err(ScenarioError::new(
                format!("{p}.{k}"),
                format!("must be in {lo}..={hi}{why}, got {v}"),
            )),
            _ => Ok(()),
        }
    };
    int_in(
        "mtu_bytes",
        t.mtu_bytes,
        88,
        65_527,
        " (an AAL5 frame holds at most 65,535 bytes with LLC/SNAP)",
    )?;
    let mtu = t.mtu_bytes.unwrap_or(9180);
    int_in(
        "mss_bytes",
        t.mss_bytes,
        1,
        mtu - 40,
        " (MTU minus 40 bytes of TCP/IP headers)",
    )?;
    let mss = t.mss_bytes.unwrap_or(512);
    let scaled = t.window_scale.unwrap_or(false);
    let max_win = if scaled { 65_535i64 << 14 } else { 65_535 };
    let why = if scaled {
        " (65,535 x 2^14 with window scaling)"
    } else {
        " (set window_scale = true for larger windows)"
    };
    int_in(
        "window_bytes",
        t.window_bytes,
        mss,
        max_win,
        &format!(" (at least one MSS{why})"),
    )?;
    if t.window_bytes.is_none() && mss > 65_535 {
        return Err(ScenarioError::new(
            format!("{p}.window_bytes"),
            "the default window (65,535) is smaller than the MSS",
        ));
    }
    for (k, v) in [
        ("delack_ms", t.delack_ms),
        ("timer_granularity_ms", t.timer_granularity_ms),
        ("rto_min_ms", t.rto_min_ms),
        ("rto_initial_s", t.rto_initial_s),
        ("rto_max_s", t.rto_max_s),
    ] {
        if let Some(v) = v {
            positive(&format!("{p}.{k}"), v)?;
        }
    }
    let rto_min_s = t
        .rto_min_ms
        .unwrap_or(2.0 * t.timer_granularity_ms.unwrap_or(100.0))
        / 1e3;
    if let Some(m) = t.rto_max_s {
        if m < rto_min_s {
            return Err(ScenarioError::new(
                format!("{p}.rto_max_s"),
                format!("must be >= rto_min ({rto_min_s} s)"),
            ));
        }
    }
    int_in(
        "initial_cwnd_segments",
        t.initial_cwnd_segments,
        1,
        1000,
        "",
    )?;
    int_in("bytes", t.bytes, 1, 1 << 50, "")?;
    Ok(())
}

fn validate_source(p: &str, s: &SourceSpec) -> Res<()> {
    use SourceKind::*;
    let allowed: &[&str] = match s.kind {
        Cbr => &["rate_mbps", "start_s", "stop_s", "frame_bytes"],
        Persistent => &["peak_mbps", "start_s", "stop_s", "frame_bytes"],
        Onoff => &[
            "peak_mbps",
            "duty_cycle",
            "period_s",
            "exponential",
            "start_s",
            "stop_s",
            "frame_bytes",
        ],
        Mpeg2 => &[
            "mean_mbps",
            "std_mbps",
            "hurst",
            "fgn",
            "sources",
            "min_rate_mbps",
            "max_rate_mbps",
            "peak_mbps",
            "interval_min_s",
            "interval_max_s",
            "start_s",
            "stop_s",
            "frame_bytes",
        ],
        Tcp => &["tcp", "start_s"],
        None => &[],
    };
    let present = [
        ("rate_mbps", s.rate_mbps.is_some()),
        ("peak_mbps", s.peak_mbps.is_some()),
        ("duty_cycle", s.duty_cycle.is_some()),
        ("period_s", s.period_s.is_some()),
        ("exponential", s.exponential.is_some()),
        ("start_s", s.start_s != 0.0),
        ("stop_s", s.stop_s.is_some()),
        ("frame_bytes", s.frame_bytes.is_some()),
        ("shape", s.shape.is_some() && s.kind == None),
        ("mean_mbps", s.mean_mbps.is_some()),
        ("std_mbps", s.std_mbps.is_some()),
        ("hurst", s.hurst.is_some()),
        ("fgn", s.fgn.is_some()),
        ("sources", s.sources.is_some()),
        ("min_rate_mbps", s.min_rate_mbps.is_some()),
        ("max_rate_mbps", s.max_rate_mbps.is_some()),
        ("interval_min_s", s.interval_min_s.is_some()),
        ("interval_max_s", s.interval_max_s.is_some()),
        ("tcp", s.tcp.is_some()),
    ];
    let kind = serde_json::to_string(&s.kind).unwrap();
    for (k, has) in present {
        if has && !allowed.contains(&k) {
            return Err(ScenarioError::new(
                format!("{p}.{k}"),
                format!(
                    "not used by kind {kind}; its keys are: {}",
                    if allowed.is_empty() {
                        "none".into()
                    } else {
                        allowed.join(", ")
                    }
                ),
            ));
        }
    }
    let need = |k: &str, v: Option<f64>| {
        v.ok_or_else(|| ScenarioError::new(format!("{p}.{k}"), format!("required for kind {kind}")))
    };
    match s.kind {
        Cbr => positive(&format!("{p}.rate_mbps"), need("rate_mbps", s.rate_mbps)?)?,
        Persistent => {
            if let Some(v) = s.peak_mbps {
                positive(&format!("{p}.peak_mbps"), v)?
            }
        }
        Onoff => {
            positive(&format!("{p}.peak_mbps"), need("peak_mbps", s.peak_mbps)?)?;
            let d = need("duty_cycle", s.duty_cycle)?;
            if !(d > 0.0 && d <= 1.0) {
                return Err(ScenarioError::new(
                    format!("{p}.duty_cycle"),
                    format!("must be in (0, 1], got {d}"),
                ));
            }
            positive(&format!("{p}.period_s"), need("period_s", s.period_s)?)?;
        }
        Mpeg2 => {
            need("mean_mbps", s.mean_mbps)?;
            need("std_mbps", s.std_mbps)?;
            if let Some(n) = s.sources {
                if !(1..=1000).contains(&n) {
                    return Err(ScenarioError::new(
                        format!("{p}.sources"),
                        format!("must be an integer in 1..=1000, got {n}"),
                    ));
                }
            }
            use crate::fgn::FgnError as F;
            use crate::video::VideoError as V;
            if let Err(e) = s.video_params().validate() {
                let key = match &e {
                    V::Fgn(F::HurstOutOfRange(_)) => "hurst",
                    V::Fgn(F::BadStd(_)) => "std_mbps",
                    // a bound the file or --set gives is named: "a rate bound below the mean"
                    V::MeanOutsideBounds { mean, max, .. }
                        if mean > max && s.max_rate_mbps.is_some() =>
                    {
                        "max_rate_mbps"
                    }
                    V::MeanOutsideBounds { mean, min, .. }
                        if mean < min && s.min_rate_mbps.is_some() =>
                    {
                        "min_rate_mbps"
                    }
                    V::Fgn(_) | V::NonPositiveMean(_) | V::MeanOutsideBounds { .. } => "mean_mbps",
                    V::RateBounds { .. } => "max_rate_mbps",
                    V::Peak(_) => "peak_mbps",
                    V::Interval { .. } => "interval_min_s",
                    V::NoSources => "sources",
                };
                return Err(ScenarioError::new(format!("{p}.{key}"), e.to_string()));
            }
        }
        Tcp => validate_tcp(
            &format!("{p}.tcp"),
            s.tcp.as_ref().unwrap_or(&TcpSpec::default()),
        )?,
        None => {}
    }
    for k in ["rate_mbps", "peak_mbps"] {
        let v = if k == "rate_mbps" {
            s.rate_mbps
        } else {
            s.peak_mbps
        };
        if let Some(v) = v {
            if v > 1e6 {
                return Err(ScenarioError::new(
                    format!("{p}.{k}"),
                    "must be at most 1e6",
                ));
            }
        }
    }
    non_negative(&format!("{p}.start_s"), s.start_s)?;
    if let Some(stop) = s.stop_s {
        if !(stop.is_finite() && stop > s.start_s) {
            return Err(ScenarioError::new(
                format!("{p}.stop_s"),
                format!("must be > start_s ({})", s.start_s),
            ));
        }
    }
    if let Some(f) = s.frame_bytes {
        if !(1..=crate::wire::AAL5_MAX_SDU as i64).contains(&f) {
            return Err(ScenarioError::new(
                format!("{p}.frame_bytes"),
                format!("must be an integer in 1..=65535 (AAL5 CPCS-SDU), got {f}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn base_json() -> serde_json::Value {
        serde_json::json!({
            "description": "test",
            "run": {"duration_s": 0.01},
            "nodes": [
                {"name": "h1", "kind": "host"},
                {"name": "A", "kind": "switch", "buffer_cells": 100},
                {"name": "h2", "kind": "host"}
            ],
            "links": [
                {"a": "h1", "b": "A", "rate_mbps": 149.76, "length_km": 1.0},
                {"a": "A", "b": "h2", "rate_mbps": 149.76, "delay_us": 5.0}
            ],
            "connections": [
                {"name": "c1", "route": ["h1", "A", "h2"], "category": "cbr",
                 "source": {"kind": "cbr", "rate_mbps": 10.0}}
            ]
        })
    }

    fn err(v: serde_json::Value) -> ScenarioError {
        parse(&v.to_string()).unwrap_err()
    }

    #[test]
    fn base_is_valid() {
        parse(&base_json().to_string()).unwrap();
    }

    #[test]
    fn unknown_key_has_path() {
        let mut v = base_json();
        v["connections"][0]["source"]["rate_mpbs"] = 3.into();
        let e = err(v);
        assert_eq!(e.path, "connections[0].source.rate_mpbs");
        assert!(e.message.contains("unknown field"), "{}", e.message);
    }

    #[test]
    fn wrong_type_has_path() {
        let mut v = base_json();
        v["links"][1]["rate_mbps"] = "fast".into();
        assert_eq!(err(v).path, "links[1].rate_mbps");
    }

    #[test]
    fn semantic_errors_have_paths() {
        let cases: Vec<(&str, serde_json::Value, &str)> = vec![
            ("/links/0/rate_mbps", 0.0.into(), "links[0].rate_mbps"),
            ("/links/0/length_km", (-1.0).into(), "links[0].length_km"),
            ("/run/duration_s", (-1.0).into(), "run.duration_s"),
            ("/nodes/1/buffer_cells", 0.into(), "nodes[1].buffer_cells"),
            ("/links/0/b", "Z".into(), "links[0].b"),
            (
                "/connections/0/route/1",
                "Z".into(),
                "connections[0].route[1]",
            ),
            ("/nodes/2/name", "A".into(), "nodes[2].name"),
        ];
        for (ptr, val, path) in cases {
            let mut v = base_json();
            *v.pointer_mut(ptr).unwrap() = val;
            assert_eq!(err(v).path, path);
        }
        let mut v = base_json();
        v["connections"][0]["route"] = serde_json::json!(["h1", "h2"]);
        let e = err(v);
        assert_eq!(e.path, "connections[0].route[1]");
        assert!(e.message.contains("no link"));
    }

    #[test]
    fn source_keys_must_fit_kind() {
        let mut v = base_json();
        v["connections"][0]["source"]["duty_cycle"] = 0.5.into();
        assert_eq!(err(v).path, "connections[0].source.duty_cycle");
        let mut v = base_json();
        v["connections"][0]["source"] =
            serde_json::json!({"kind": "onoff", "peak_mbps": 10.0, "period_s": 0.01});
        assert_eq!(err(v).path, "connections[0].source.duty_cycle");
    }

    #[test]
    fn mpeg2_bad_input_has_key_paths() {
        let cases: Vec<(serde_json::Value, &str)> = vec![
            (serde_json::json!({"hurst": 0.5}), "hurst"),
            (serde_json::json!({"hurst": 1.0}), "hurst"),
            (serde_json::json!({"mean_mbps": -1.0}), "mean_mbps"),
            (serde_json::json!({"std_mbps": -1.0}), "std_mbps"),
            (serde_json::json!({"max_rate_mbps": 5.0}), "max_rate_mbps"),
            (serde_json::json!({"mean_mbps": 20.0}), "mean_mbps"),
            (
                serde_json::json!({"interval_min_s": 0.2, "interval_max_s": 0.1}),
                "interval_min_s",
            ),
            (serde_json::json!({"sources": 0}), "sources"),
        ];
        for (change, key) in cases {
            let mut v = base_json();
            let mut src = serde_json::json!({"kind": "mpeg2", "mean_mbps": 7.5, "std_mbps": 7.0});
            src.as_object_mut()
                .unwrap()
                .extend(change.as_object().unwrap().clone());
            v["connections"][0]["source"] = src;
            let e = err(v);
            assert_eq!(
                e.path,
                format!("connections[0].source.{key}"),
                "{change}: {}",
                e.message
            );
        }
    }

    #[test]
    fn tcp_bad_input_has_key_paths() {
        let cases: Vec<(serde_json::Value, &str, &str)> = vec![
            (serde_json::json!({"mss_bytes": 0}), "mss_bytes", "1..=9140"),
            (
                serde_json::json!({"mss_bytes": 9141}),
                "mss_bytes",
                "MTU minus 40",
            ),
            (
                serde_json::json!({"mtu_bytes": 70000}),
                "mtu_bytes",
                "65,535",
            ),
            (
                serde_json::json!({"mss_bytes": 1000, "window_bytes": 999}),
                "window_bytes",
                "at least one MSS",
            ),
            (
                serde_json::json!({"window_bytes": 1048576}),
                "window_bytes",
                "window_scale",
            ),
            (
                serde_json::json!({"timer_granularity_ms": 0.0}),
                "timer_granularity_ms",
                "> 0",
            ),
            (serde_json::json!({"delack_ms": -1.0}), "delack_ms", "> 0"),
            (
                serde_json::json!({"rto_min_ms": 500.0, "rto_max_s": 0.1}),
                "rto_max_s",
                "rto_min",
            ),
            (
                serde_json::json!({"recovery": "vegas"}),
                "recovery",
                "unknown variant",
            ),
            (serde_json::json!({"bytes": 0}), "bytes", "1..="),
            (
                serde_json::json!({"windows": 1}),
                "windows",
                "unknown field",
            ),
        ];
        for (tcp, key, msg) in cases {
            let mut v = base_json();
            v["connections"][0]["source"] = serde_json::json!({"kind": "tcp", "tcp": tcp});
            let e = err(v);
            assert_eq!(
                e.path,
                format!("connections[0].source.tcp.{key}"),
                "{tcp}: {}",
                e.message
            );
            assert!(e.message.contains(msg), "{tcp}: {}", e.message);
        }
        // a TCP connection's reverse direction carries its ACKs
        let mut v = base_json();
        v["connections"][0]["source"] = serde_json::json!({"kind": "tcp"});
        v["connections"][0]["bidirectional"] = true.into();
        v["connections"][0]["reverse_source"] =
            serde_json::json!({"kind": "cbr", "rate_mbps": 1.0});
        assert_eq!(err(v).path, "connections[0].reverse_source");
        // stop_s is not a TCP key (a finite transfer is tcp.bytes)
        let mut v = base_json();
        v["connections"][0]["source"] = serde_json::json!({"kind": "tcp", "stop_s": 1.0});
        assert_eq!(err(v).path, "connections[0].source.stop_s");
    }

    #[test]
    fn cac_and_discard_bad_input_has_key_paths() {
        let mut v = base_json();
        v["nodes"][1]["cac"] = serde_json::json!({"policy": "greedy"});
        let e = err(v);
        assert_eq!(e.path, "nodes[1].cac.policy");
        assert!(
            e.message.contains("unknown variant") && e.message.contains("effective_bandwidth"),
            "{}",
            e.message
        );
        let mut v = base_json();
        v["nodes"][1]["discard"] = "epd".into();
        v["nodes"][1]["epd_threshold_cells"] = 500.into(); // buffer is 100
        assert_eq!(err(v).path, "nodes[1].epd_threshold_cells");
        let mut v = base_json();
        v["nodes"][1]["class_min_mbps"] = serde_json::json!({"ubr": 50.0});
        v["nodes"][1]["class_max_mbps"] = serde_json::json!({"ubr": 10.0});
        assert_eq!(err(v).path, "nodes[1].class_min_mbps.ubr");
        let mut v = base_json();
        v["calls"] = serde_json::json!([{"arrival_rate_per_s": 1.0, "holding_s": 1.0,
            "connection": {"name": "k", "route": ["h1", "A", "h2"], "category": "cbr", "source": {"kind": "none"}}}]);
        assert_eq!(err(v).path, "calls[0].connection.contract");
        let mut v = base_json();
        v["nodes"][0]["call_processing_us"] = 5.0.into();
        assert_eq!(err(v).path, "nodes[0].call_processing_us");
        let mut v = base_json();
        v["nodes"][1]["call_processing_us"] = (-1.0).into();
        assert_eq!(err(v).path, "nodes[1].call_processing_us");
    }

    #[test]
    fn schema_exports() {
        let s = json_schema();
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert!(v["properties"]["connections"].is_object());
    }
}
