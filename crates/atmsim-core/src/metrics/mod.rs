//! Measurements: drop reasons, per-port and per-connection counters, the summary and the
//! columnar time series. Counters are plain integers updated inline; maxima are exact.
//!
//! [`qos`]: QoS block counting (SECBR, CER, CLR, CMR; seed 001 section 4.2). [`monitor`]: the
//! bundle monitor of the contract proposal (seed 001 section 6.2).
//! [`counters`]: drop reasons, the delay histogram, per-port and per-flow counters updated on
//! the hot path. [`summary`]: the serialized result (`summary.json`: ports, connections, calls,
//! TCP). [`probe`]: the columnar store of the time series, whose columns each model declares
//! next to its state. [`frames`]: received frames, intervals and delays of video streams
//! (seed 004). [`accounting`]: the one definition of loss every section uses (sent - received -
//! in the network).

pub mod accounting;
pub mod counters;
pub mod frames;
pub mod monitor;
pub mod probe;
pub mod qos;
pub mod summary;
pub mod trace_kind;
pub mod workload;

pub use counters::*;
pub use trace_kind::TraceKind;
pub use frames::FrameMetrics;
pub use monitor::Monitor;
pub use probe::{Probes, Row, TableDecl};
pub use qos::*;
pub use summary::*;
