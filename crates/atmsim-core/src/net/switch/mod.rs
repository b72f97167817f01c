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

pub mod output_buffered;

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
}

impl AnyFabric {
    /// See [`Fabric::transit_ps`].
    pub fn transit_ps(&self) -> SimDuration {
        match self {
            AnyFabric::OutputBuffered(f) => f.transit_ps(),
        }
    }
}
