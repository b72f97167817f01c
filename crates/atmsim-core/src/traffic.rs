//! Compatibility re-exports (to be removed): the old `traffic` module, now split into
//! [`crate::app`] (Application, Ctx, Asks, Cbr, OnOff), [`crate::host::endpoint`] (AnySource)
//! and [`crate::rng`] (Rng, stream).

pub use crate::app::*;
pub use crate::host::endpoint::*;
pub use crate::rng::*;
