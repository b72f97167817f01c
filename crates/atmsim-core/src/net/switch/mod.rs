//! Switch fabrics: how a cell that arrived at a node reaches the output port of its next hop.
//!
//! The extension point of seed 004's comparison of switch architectures. Each fabric is one file
//! with a struct implementing [`Fabric`] (no-op defaults), listed once in [`AnyFabric`]; the one
//! `match` that hands a cell to its node's fabric is `Simulation::switch_cell` (`sim/forward.rs`).
//! Adding a fabric touches its own file, the enum, its arm in that match and its scenario
//! section.
//!
//! - [`output_buffered::OutputBuffered`]: cells go straight to the output port's queue after a
//!   fixed transit delay (today's model; seed 003's and seed 000's switches; seed 004's Fore
//!   ASX-200 with its shared output buffers, [`crate::net::Group`]).
//! - [`credit::CreditFabric`]: input and output buffers per port, a cell crossing a TDM bus only
//!   against a credit from its output (seed 004's Cisco Hyperswitch).

pub mod credit;
pub mod output_buffered;

pub use credit::CreditFabric;
pub use output_buffered::OutputBuffered;

use crate::time::SimDuration;

/// The hooks a fabric may implement.
pub trait Fabric {
    /// Fixed time from a cell's arrival at the node to its arrival at the output port, when
    /// the fabric has one (it is folded into the incoming links' delay, see [`crate::net::link`]).
    fn transit_ps(&self) -> SimDuration {
        0
    }
}

/// Every fabric, one variant each.
#[derive(Clone, Debug)]
pub enum AnyFabric {
    OutputBuffered(OutputBuffered),
    Credit(Box<CreditFabric>),
}

impl AnyFabric {
    /// See [`Fabric::transit_ps`].
    pub fn transit_ps(&self) -> SimDuration {
        match self {
            AnyFabric::OutputBuffered(f) => f.transit_ps(),
            AnyFabric::Credit(f) => f.transit_ps(),
        }
    }

    /// The fabric's own counters for the summary, if it keeps any.
    pub fn summary(&self) -> Option<crate::metrics::FabricSummary> {
        match self {
            AnyFabric::OutputBuffered(_) => None,
            AnyFabric::Credit(c) => Some(crate::metrics::FabricSummary {
                kind: "credit",
                bus_cells: c.stats.bus_cells,
                input_drops: c.stats.input_drops,
                max_input_cells: c.stats.max_input_cells,
                cells_in_inputs: c.waiting(),
                max_credits_used: c.stats.max_credits_used,
            }),
        }
    }

    /// Every cell the fabric holds (outside the output ports' queues).
    pub fn for_each_held(&self, f: &mut dyn FnMut(&crate::wire::Cell)) {
        match self {
            AnyFabric::OutputBuffered(_) => {}
            AnyFabric::Credit(c) => c.for_each_held(f),
        }
    }
}
