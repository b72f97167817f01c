//! Compatibility re-exports (to be removed): the old `fgn` module, now [`crate::stats::fgn`]
//! (generators) and [`crate::stats::hurst`] (Hurst estimators).

pub use crate::stats::fgn::*;
pub use crate::stats::hurst::*;
