//! The network model: output ports with their queues, schedulers, frame discard and links, link
//! impairments, flows (one direction of a VC along a static route) and switch fabrics.

pub mod category;
pub mod discard;
pub mod flow;
pub mod impair;
pub mod link;
pub mod node;
pub mod port;
pub mod queue;
pub mod sched;
pub mod shaper;
pub mod switch;

pub use category::*;
pub use discard::*;
pub use flow::*;
pub use impair::*;
pub use link::*;
pub use node::*;
pub use port::*;
pub use queue::*;
pub use sched::*;
pub use shaper::Shaper;
pub use switch::{AnyFabric, Arrival, Fabric, FabricAsks, Forward, Wake};

/// "No index": an absent port, flow or endpoint in the `u32` handles of the arenas.
pub const NONE: u32 = u32::MAX;
