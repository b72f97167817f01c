//! Switch fabrics: how a cell that arrived at a node reaches the output port of its next hop.
//!
//! The extension point of seed 004's comparison of switch architectures. Each fabric is one file
//! with a struct implementing [`Fabric`] (no-op defaults), listed once in [`AnyFabric`]; the one
//! `match` that dispatches a cell to its fabric is [`crate::sim::Simulation::switch_cell`] below.
//! Adding a fabric touches its own file, the enum, and its scenario section (and, if it needs
//! timed work of its own, the `Event::Fabric` handler here), nothing else in the engine.
//!
//! - [`output_buffered::OutputBuffered`]: cells go straight to the output port's queue after a
//!   fixed transit delay (today's model; seed 003's and seed 000's switches; seed 004's Fore
//!   ASX-200 with its shared output buffers, [`crate::net::Group`]).

pub mod output_buffered;

pub use output_buffered::OutputBuffered;

use crate::sim::Simulation;
use crate::time::SimDuration;
use crate::wire::Cell;

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

impl Simulation {
    /// A cell of category `cls` is at `node` (it came in on a link) and leaves by output port
    /// `out`: the node's fabric takes it there.
    #[inline]
    pub(crate) fn switch_cell(&mut self, node: u32, out: u32, cell: Cell, cls: usize) {
        match &self.nodes[node as usize].fabric {
            AnyFabric::OutputBuffered(_) => self.enqueue(out, cell, cls),
        }
    }
}
