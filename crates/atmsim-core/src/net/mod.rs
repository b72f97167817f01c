//! The network model: output ports with their queues, schedulers, frame discard and links, link
//! impairments, flows (one direction of a VC along a static route) and switch fabrics.

pub mod discard;
pub mod flow;
pub mod impair;
pub mod link;
pub mod port;
pub mod queue;
pub mod sched;
pub mod switch;

pub use discard::*;
pub use flow::*;
pub use impair::*;
pub use link::*;
pub use port::*;
pub use queue::*;
pub use sched::*;
pub use switch::{AnyFabric, Arrival, Fabric, FabricAsks, Forward, Wake};

use crate::scenario::NodeKind;
use crate::time::SimDuration;

/// "No index": an absent port, flow or endpoint in the `u32` handles of the arenas.
pub const NONE: u32 = u32::MAX;

/// A node.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// How cells cross the node to their output port.
    pub fabric: AnyFabric,
    /// Call set-up processing per message (SETUP, CONNECT).
    pub setup_ps: SimDuration,
}
