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
//! - [`wire`]: the `Copy` [`wire::Cell`] (40 bytes), the I.361 header codec, AAL5 (I.363.5)
//!   framing and reassembly, LLC/SNAP.
//! - [`sim`]: nodes, output ports (a queue per service category, strict priority, per-port,
//!   per-class and shared buffer limits) feeding directed links whose cells in flight wait in a
//!   FIFO with one pending event for the head; flows (one direction of a VC along a static
//!   route); endpoints; the run loop ([`sim::Simulation::advance`]).
//! - [`traffic`]: the [`traffic::Application`] hooks and the [`traffic::AnySource`] enum of
//!   models (CBR, persistent, ON-OFF).
//! - [`fgn`]: fractional Gaussian noise, Paxson's FFT method and the Davies-Harte exact method,
//!   drawn from a component's seeded stream; Hurst estimators (aggregated variance, Whittle).
//! - [`video`]: the MPEG-2 transport-stream VBR model of seed 000 section 4 (piecewise-CBR
//!   intervals with FGN rates, out-of-range rates skipped, 15 Mb/s peak spacing per source) and
//!   the [`video::Multiplex`] of N such sources on one connection.
//! - [`tcp`]: BSD-style TCP (Reno family, coarse timers, delayed ACK, Nagle, window scaling)
//!   carried one segment per AAL5 frame.
//! - [`abr`]: TM 4.0 ABR source ([`abr::source`]) and destination ([`abr::dest`]) end systems;
//!   the port feedback schemes ([`abr::switch`]: EFCI, relative rate, ERICA and ERICA+) behind
//!   the [`abr::PortScheme`] enum and the [`abr::SwitchScheme`] hooks.
//! - [`policing`]: GCRA (I.371) in both forms, single and dual, UPC (discard or tag), traffic
//!   mapping to PCR/SCR/MBS (seed 001 Table 7), contracts fitted to a recorded stream,
//!   SECBR/CER/CLR/CMR block counting.
//! - [`cac`]: connection admission control: Erlang-B, effective bandwidth and port CAC.
//! - [`metrics`]: counters, drop reasons, the summary and the columnar time series.
//! - [`scenario`]: the scenario model (serde + JSON Schema), strict parsing and validation with
//!   key paths.
//!
//! Hot-path rules: no heap allocation per cell (cells move between preallocated `VecDeque`s),
//! no dynamic dispatch per event (enums matched in one place), no `Result` in the hot path
//! (drops are counters with a reason).

pub mod abr;
pub mod build;
pub mod cac;
pub mod engine;
pub mod fgn;
pub mod metrics;
pub mod net;
pub mod policing;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod video;
pub mod wire;

pub use scenario::{parse, ScenarioError};
pub use sim::Simulation;

/// Parse, validate and build a scenario given as JSON text.
pub fn build_from_json(json: &str) -> Result<Simulation, ScenarioError> {
    let sc = parse(json)?;
    Simulation::build(&sc)
}
