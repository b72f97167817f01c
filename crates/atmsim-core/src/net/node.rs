//! A node of the network ([`Node`]) and its kind ([`NodeKind`]): an end system, where flows
//! start and end, or a switch, where they cross a fabric (`net/switch/`) to an output port (the
//! ATM Forum UNI/NNI distinction of end systems and switching systems, as in TM 4.0 section 5).
//! The scenario file's `nodes[].kind` names the kinds as here: the file model re-exports
//! [`NodeKind`] (`scenario/topology.rs`), so its serde names and schema live here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::net::AnyFabric;
use crate::time::SimDuration;

/// Kind of node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// An end system: sources and sinks of connections, one output port per link.
    Host,
    /// An output-buffered switch.
    Switch,
}

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
