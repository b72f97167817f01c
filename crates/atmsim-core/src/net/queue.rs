//! Buffers: the per-category cell queues of a port and buffers shared by several ports.

/// A buffer shared by several ports of one node.
#[derive(Clone, Debug)]
pub struct Group {
    pub limit: u32,
    pub used: u32,
}
