//! Measurements: drop reasons, per-port and per-connection counters, the summary and the
//! columnar time series. Counters are plain integers updated inline; maxima are exact.
//!
//! [`counters`]: drop reasons, the delay histogram, per-port and per-flow counters updated on
//! the hot path. [`summary`]: the serialized result (`summary.json`: ports, connections, calls,
//! TCP) and the columnar time series.

pub mod counters;
pub mod summary;

pub use counters::*;
pub use summary::*;
