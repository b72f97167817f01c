//! Compatibility re-exports (to be removed): the old `video` module, now [`crate::app::mpeg2`].

pub use crate::app::mpeg2::*;
