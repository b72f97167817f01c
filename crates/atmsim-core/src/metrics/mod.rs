//! Measurements: drop reasons, per-port and per-connection counters, the summary and the
//! columnar time series. Counters are plain integers updated inline; maxima are exact.
//!
//! [`qos`]: QoS block counting (SECBR, CER, CLR, CMR; seed 001 section 4.2). [`monitor`]: the
//! bundle monitor of the contract proposal (seed 001 section 6.2).
//! [`counters`]: drop reasons, the delay histogram, per-port and per-flow counters updated on
//! the hot path. [`summary`]: the serialized result (`summary.json`: ports, connections, calls,
//! TCP) and the columnar time series.

pub mod counters;
pub mod monitor;
pub mod qos;
pub mod summary;

pub use counters::*;
pub use monitor::Monitor;
pub use qos::*;
pub use summary::*;
