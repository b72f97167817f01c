//! # atmsim-core
//!
//! A cell-level discrete-event simulator of ATM networks. Pure Rust: no Python, no clock, no
//! printing, no threads. One run is one single-threaded loop over integer picosecond time.
//!
//! ## Architecture
//! - [`time`]: `SimTime` in picoseconds and [`time::Pacer`], the one place where a rate becomes
//!   exact departure times (carried remainder, no drift).
//! - [`engine`]: the future-event list, (time, sequence) keys for deterministic FIFO ties, and
//!   the closed [`engine::Event`] enum.
//! - [`rng`]: per-component random streams from (seed, stable name).
//! - [`wire`]: the `Copy` [`wire::Cell`] (40 bytes) and its `H_*` bits ([`wire::cell`]), the
//!   I.361 header codec ([`wire::header`]), AAL5 (I.363.5) framing and reassembly
//!   ([`wire::aal5`]).
//! - [`sim`]: nodes, output ports (a queue per service category, strict priority, per-port,
//!   per-class and shared buffer limits) feeding directed links whose cells in flight wait in a
//!   FIFO with one pending event for the head; flows (one direction of a VC along a static
//!   route); endpoints; the run loop ([`sim::Simulation::advance`]).
//! - [`app`]: the [`app::Application`] hooks and the [`app::Ctx`] an application sees; models
//!   CBR (also persistent), ON-OFF, and [`app::mpeg2`], the MPEG-2 transport-stream VBR model
//!   of seed 000 section 4 (piecewise-CBR intervals with FGN rates, out-of-range rates skipped,
//!   15 Mb/s peak spacing per source) with the [`app::mpeg2::Multiplex`] of N such sources on
//!   one connection. Depends on neither `abr` nor `host`.
//! - [`transport`]: [`transport::SegmentOut`] and [`transport::tcp`], BSD-style TCP (Reno
//!   family, coarse timers, delayed ACK, Nagle, window scaling) carried one segment per AAL5
//!   frame, with its window arithmetic in [`transport::tcp::cc`].
//! - [`host`]: [`host::endpoint::AnySource`], the enum over every endpoint model (applications,
//!   ABR end systems, TCP ends); it may depend on `app`, `transport` and `abr`.
//! - [`stats`]: fractional Gaussian noise ([`stats::fgn`]: Paxson's FFT method and the
//!   Davies-Harte exact method, drawn from a component's seeded stream); Hurst estimators
//!   ([`stats::hurst`]: aggregated variance, Whittle).
//! - [`abr`]: TM 4.0 ABR source and destination end systems, EFCI, relative rate, ERICA and
//!   ERICA+ port schemes.
//! - [`policing`]: GCRA (I.371) in both forms, single and dual, UPC (discard or tag), traffic
//!   mapping to PCR/SCR/MBS (seed 001 Table 7), Erlang-B, effective bandwidth and port CAC,
//!   SECBR/CER/CLR/CMR block counting.
//! - [`metrics`]: counters and drop reasons ([`metrics::counters`]), the summary and the
//!   columnar time series ([`metrics::summary`]).
//! - [`scenario`]: the scenario model (serde + JSON Schema), strict parsing and validation with
//!   key paths.
//!
//! Hot-path rules: no heap allocation per cell (cells move between preallocated `VecDeque`s),
//! no dynamic dispatch per event (enums matched in one place), no `Result` in the hot path
//! (drops are counters with a reason).

pub mod abr;
pub mod app;
pub mod engine;
pub mod host;
pub mod metrics;
pub mod policing;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod time;
pub mod transport;
pub mod wire;

// Compatibility re-exports of the old module paths (to be removed once every user has moved).
pub mod fgn;
pub mod tcp;
pub mod traffic;
pub mod video;

pub use scenario::{parse, ScenarioError};
pub use sim::Simulation;

/// Parse, validate and build a scenario given as JSON text.
pub fn build_from_json(json: &str) -> Result<Simulation, ScenarioError> {
    let sc = parse(json)?;
    Simulation::build(&sc)
}
