//! The network of a scenario (`nodes[]`, `links[]`): node kinds, per-category values (of the
//! TM 4.0 service categories of `category`), output ports with their buffers, schedulers and
//! frame-aware discard (seed 002; Romanow and Floyd 1995), shared buffers (seed 004), duplex links
//! and their impairments (seed 001 section 4.2).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AbrSchemeSpec, CacSpec, Category, FabricSpec, HostSpec};

/// The kinds of node are the model's (`net/node.rs`, with their file names and schema).
pub use crate::net::NodeKind;

/// A value per service category (buffer limits in cells, rates in Mb/s; each in
/// [0, 4294967295], the key using the table may ask for more, e.g. buffers >= 1). A category
/// left out has none (the key using the table says what that means).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerClass<T> {
    /// CBR's value; absent: none.
    #[schemars(range(min = 0, max = 4294967295i64))]
    pub cbr: Option<T>,
    /// rt-VBR's value; absent: none.
    #[serde(rename = "rt-vbr")]
    #[schemars(range(min = 0, max = 4294967295i64))]
    pub rt_vbr: Option<T>,
    /// nrt-VBR's value; absent: none.
    #[serde(rename = "nrt-vbr")]
    #[schemars(range(min = 0, max = 4294967295i64))]
    pub nrt_vbr: Option<T>,
    /// ABR's value; absent: none.
    #[schemars(range(min = 0, max = 4294967295i64))]
    pub abr: Option<T>,
    /// UBR's value; absent: none.
    #[schemars(range(min = 0, max = 4294967295i64))]
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
    /// Switch fabric (processing) delay added to every cell entering the switch, microseconds
    /// (>= 0, default 0; switches only).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub fabric_delay_us: f64,
    /// Switched calls: the time this switch takes to process a SETUP (CAC included) and a
    /// CONNECT, microseconds (>= 0, default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e9))]
    pub call_processing_us: f64,
    /// Buffer limit of each output port, cells (> 0); absent = unlimited.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub buffer_cells: Option<i64>,
    /// Buffer limit per service category within each output port, cells (> 0). Absent, or a
    /// category left out: limited by the port's buffer only.
    #[serde(default)]
    pub class_buffer_cells: Option<ClassBuffers>,
    /// Strict-priority order of the service categories (a permutation of all five; default
    /// cbr, rt-vbr, nrt-vbr, abr, ubr).
    #[serde(default = "default_priority")]
    pub priority: Vec<Category>,
    /// Port scheduler: "priority" (strict, default) or "wrr" (weighted round robin over the
    /// categories with `class_weights`).
    #[serde(default)]
    pub scheduler: SchedulerSpec,
    /// WRR: cells per round for each category (integer >= 1, default 1); only with
    /// scheduler = "wrr".
    #[serde(default)]
    pub class_weights: Option<ClassWeights>,
    /// Minimum guaranteed bandwidth per category, Mb/s: served ahead of the scheduler while the
    /// category is below it (seed 003's per-QoS buffer configuration). Absent, or a category
    /// left out: no guarantee.
    #[serde(default)]
    pub class_min_mbps: Option<PerClass<f64>>,
    /// Maximum allocated bandwidth per category, Mb/s: a category never sends faster, even on an
    /// idle link (seed 003's per-QoS buffer configuration). Absent, or a category left out: no
    /// limit.
    #[serde(default)]
    pub class_max_mbps: Option<PerClass<f64>>,
    /// Settings of single output ports, overriding the node's.
    #[serde(default)]
    pub ports: Vec<PortSpec>,
    /// Groups of this node's output ports sharing one buffer.
    #[serde(default)]
    pub shared_buffers: Vec<SharedBufferSpec>,
    /// ABR feedback scheme of every output port of this switch. Absent: none (an ABR
    /// connection may not cross a port without a scheme; say scheme = "none" to mean it).
    #[serde(default)]
    pub abr: Option<AbrSchemeSpec>,
    /// Selective discard: CLP = 1 cells are dropped while a port's queue holds this many cells
    /// (> 0). Absent: no selective discard.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub clp1_threshold_cells: Option<i64>,
    /// Connection admission control at this switch's output ports (calls and permanent
    /// connections with a contract are admitted against the port's capacity). Absent: no CAC.
    #[serde(default)]
    pub cac: Option<CacSpec>,
    /// Frame-aware discard at this switch's ports for AAL5 connections: "tail" (default),
    /// "epd", "ppd" or "epd+ppd" (seed 002; Romanow and Floyd 1995).
    #[serde(default)]
    pub discard: DiscardSpec,
    /// EPD: a new frame is refused while the port queue holds at least this many cells
    /// (> 0, <= buffer_cells); required with discard = "epd" or "epd+ppd", not allowed otherwise.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub epd_threshold_cells: Option<i64>,
    /// Switch fabric: `{ kind = "output-buffered" }` or `{ kind = "credit", ... }` (seed 004).
    /// Absent: output-buffered.
    #[serde(default)]
    pub fabric: Option<FabricSpec>,
    /// The host model (`kind = "host"` nodes only; docs/hosts.md): `{ preset = "seed001-wan" |
    /// "seed001-lan" | "seed004", ... }`, CPU costs and socket buffers. Absent: the ideal host
    /// (no processing costs, unlimited buffers).
    #[serde(default)]
    pub host: Option<HostSpec>,
}

impl NodeSpec {
    /// The fixed time a cell spends crossing this node, microseconds: the credit fabric's
    /// `latency_us`, otherwise `fabric_delay_us` (both folded into the incoming links' delay).
    pub fn transit_us(&self) -> f64 {
        match &self.fabric {
            Some(FabricSpec::Credit(c)) => c.latency_us,
            _ => self.fabric_delay_us,
        }
    }
}

fn default_priority() -> Vec<Category> {
    Category::ALL.to_vec()
}

/// WRR weights: cells per round for each service category (integer >= 1, default 1).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ClassWeights {
    /// CBR cells per round (default 1).
    #[schemars(range(min = 1, max = 1000000))]
    pub cbr: i64,
    /// rt-VBR cells per round (default 1).
    #[serde(rename = "rt-vbr")]
    #[schemars(range(min = 1, max = 1000000))]
    pub rt_vbr: i64,
    /// nrt-VBR cells per round (default 1).
    #[serde(rename = "nrt-vbr")]
    #[schemars(range(min = 1, max = 1000000))]
    pub nrt_vbr: i64,
    /// ABR cells per round (default 1).
    #[schemars(range(min = 1, max = 1000000))]
    pub abr: i64,
    /// UBR cells per round (default 1).
    #[schemars(range(min = 1, max = 1000000))]
    pub ubr: i64,
}

impl Default for ClassWeights {
    /// One cell per round for every category.
    fn default() -> Self {
        ClassWeights {
            cbr: 1,
            rt_vbr: 1,
            nrt_vbr: 1,
            abr: 1,
            ubr: 1,
        }
    }
}

impl ClassWeights {
    /// The weights in category order (CBR, rt-VBR, nrt-VBR, ABR, UBR).
    pub fn entries(&self) -> [(Category, i64); 5] {
        [
            (Category::Cbr, self.cbr),
            (Category::RtVbr, self.rt_vbr),
            (Category::NrtVbr, self.nrt_vbr),
            (Category::Abr, self.abr),
            (Category::Ubr, self.ubr),
        ]
    }

    /// Cells per round, indexed by category.
    pub fn cells_per_round(&self) -> [u32; 5] {
        self.entries().map(|(_, w)| w as u32)
    }
}

/// Frame-aware discard policies of a port.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum DiscardSpec {
    /// Drop each cell that does not fit.
    #[serde(rename = "tail")]
    #[default]
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

/// Port schedulers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerSpec {
    #[default]
    Priority,
    Wrr,
}

/// Settings of one output port, named by the neighbour it sends to.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    /// The neighbour node this port's link leads to.
    pub to: String,
    /// Buffer limit, cells (> 0). Absent: the node's `buffer_cells`.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub buffer_cells: Option<i64>,
    /// Buffer limit per service category, cells (> 0). Absent: the node's `class_buffer_cells`
    /// (the whole table; categories are not merged).
    #[serde(default)]
    pub class_buffer_cells: Option<ClassBuffers>,
    /// ABR feedback scheme of this port (overrides the node's). Absent: the node's `abr`.
    #[serde(default)]
    pub abr: Option<AbrSchemeSpec>,
    /// Selective discard threshold for CLP = 1 cells (overrides the node's). Absent: the
    /// node's `clp1_threshold_cells`.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub clp1_threshold_cells: Option<i64>,
}

/// A buffer shared by several output ports of one node (seed 004: one buffer per port pair).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedBufferSpec {
    /// The output ports, named by their neighbour nodes.
    pub ports: Vec<String>,
    /// Cells the group holds in total (> 0).
    #[schemars(range(min = 1i64, max = 4294967295i64))]
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
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub rate_mbps: f64,
    /// Length in km (> 0); propagation 5 us/km. Give this or `delay_us`: one of the two is
    /// required.
    #[serde(default)]
    #[schemars(range(min = 1e-9, max = 1e6))]
    pub length_km: Option<f64>,
    /// Propagation delay in microseconds (>= 0). Give this or `length_km`: one of the two is
    /// required.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e7))]
    pub delay_us: Option<f64>,
    /// Link impairments (seed 001's analyzer/emulator), applied in both directions. Absent: a
    /// perfect link.
    #[serde(default)]
    pub impairment: Option<ImpairmentSpec>,
}

/// A link impairment model: independent per-cell events (seed 001 section 4.2: the ATM analyzer
/// and emulator used to exercise CER, CLR, CMR, CTD and CDV).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpairmentSpec {
    /// Probability that a cell is lost on the link, in [0, 1] (default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub loss_probability: f64,
    /// Probability that a cell's payload is errored, in [0, 1] (default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub error_probability: f64,
    /// Probability that a cell's header is corrupted into that of another connection crossing
    /// the link (lost to its own, misinserted into the other), in [0, 1] (default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub misinsertion_probability: f64,
    /// Constant extra delay, us (>= 0, default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e7))]
    pub extra_delay_us: f64,
    /// Extra delay drawn uniformly from [0, delay_variation_us] per cell, us (>= 0, default 0);
    /// cells keep their order (a cell never overtakes the one before it).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e7))]
    pub delay_variation_us: f64,
    /// Cells to lose deterministically in the direction a -> b: their numbers in the order
    /// they enter the link, counted from 1 (an emulator's scripted loss, for experiments that
    /// need one known drop). Default: none.
    #[serde(default)]
    pub drop_cells_a_to_b: Vec<u64>,
    /// The same for the direction b -> a.
    #[serde(default)]
    pub drop_cells_b_to_a: Vec<u64>,
}
