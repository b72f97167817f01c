//! Compatibility re-exports (to be removed): the old `tcp` module, now [`crate::transport::tcp`]
//! and [`crate::transport::SegmentOut`].

pub use crate::transport::tcp::*;
pub use crate::transport::SegmentOut;
