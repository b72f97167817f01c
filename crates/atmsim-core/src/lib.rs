//! # atmsim-core
//!
//! A cell-level discrete-event simulator of ATM networks. Pure Rust: no Python, no clock, no
//! printing, no threads. One run is one single-threaded loop over integer picosecond time.
//! `docs/architecture.md` follows one cell through these modules and lists the places a new
//! model touches.
//!
//! ## Architecture (one model per file, one enum per extension point)
//! - [`time`]: `SimTime` in picoseconds and [`time::Pacer`], the one place where a rate becomes
//!   exact departure times (carried remainder, no drift).
//! - [`engine`]: the future-event list, (time, sequence) keys for deterministic FIFO ties, and
//!   the closed [`engine::Event`] enum.
//! - [`rng`]: per-component random streams from (seed, stable name).
//! - [`wire`]: the `Copy` [`wire::Cell`] and its header bits ([`wire::cell`]), the I.361 header
//!   codec ([`wire::header`]), AAL5 (I.363.5) framing and reassembly ([`wire::aal5`]).
//! - [`net`]: the TM 4.0 service categories ([`net::Category`]), nodes and their kinds
//!   ([`net::node`]), output ports ([`net::port`]) with their per-category [`net::Queue`]
//!   (`admit() -> Result<(), DropReason>`), the per-port [`net::Scheduler`] (extension point:
//!   strict priority and the others of [`net::sched`]), frame discard (EPD/PPD,
//!   [`net::discard`]), the directed [`net::Link`] with its impairments ([`net::impair`]), flows
//!   (one direction of a VC along a static route) and switch fabrics ([`net::switch`]: the
//!   [`net::AnyFabric`] extension point and its [`net::Fabric`] hooks; output-buffered, and the
//!   credit-based input/output-buffered fabric of seed 004's Cisco Hyperswitch).
//! - [`host`]: what sits at the ends of a flow: the endpoint and its [`host::AnySource`] enum
//!   (a cell-level application, a [`host::Host`]: one application over its sockets,
//!   [`host::Socket`], each over a transport end, or either above a VC end's ABR rate control,
//!   [`host::abr_end`]) with the hooks the engine calls; the host model's CPU ([`host::cpu`],
//!   processing costs, buffers, system calls, docs/hosts.md). A VC's segmentation and
//!   reassembly ([`wire::Sar`]) and source shaper ([`net::Shaper`], I.371) belong to its flow.
//! - [`app`]: the [`app::Application`] hooks, the [`app::Ctx`] a cell-level application sees and
//!   the [`app::Io`] an application over sockets sees; every model listed once in
//!   [`app::AnyApp`]. On cells: CBR (also persistent, [`app::cbr`]), ON-OFF ([`app::onoff`],
//!   seed 000 section 7.2, seed 002), [`app::mpeg2`] (seed 000's long-range-dependent MPEG-2
//!   model). Over sockets: the reading end of a bulk transfer ([`app::reader`]), the TSDU writer
//!   ([`app::writer`], seed 001's `xtcp`), the video trace player and receiver
//!   ([`app::video_tx`], [`app::video_rx`], [`app::video`]'s frame player; seed 004), the
//!   workload runner ([`app::workload`] over [`app::script`], seed 001 section 13, SPIMS) and
//!   request-response echo ([`app::echo`]). Depends on neither `abr`, `host` nor `transport`.
//! - [`transport`]: the [`transport::Transport`] hooks, [`transport::SegmentOut`] and the
//!   [`transport::AnyTransport`] enum: [`transport::tcp`], BSD-style TCP (Reno family, coarse
//!   timers, delayed ACK, Nagle, window scaling; sender, receiver, congestion control and
//!   summary in separate files), [`transport::xtpx`], an XTP-style transport with rate, window
//!   and error control (seed 001 section 5.2), and [`transport::udp`], UDP/IP over AAL5 with
//!   LLC/SNAP (seed 004). Knows neither applications nor hosts.
//! - [`abr`]: TM 4.0 ABR source ([`abr::source`]) and destination ([`abr::dest`]) end systems;
//!   the port feedback schemes ([`abr::switch`]: EFCI, relative rate, ERICA and ERICA+) behind
//!   the [`abr::PortScheme`] enum and the [`abr::SwitchScheme`] hooks.
//! - [`policing`]: GCRA (I.371) in both forms, single and dual, UPC (discard or tag), traffic
//!   mapping to PCR/SCR/MBS (seed 001 Table 7), contracts fitted to a recorded stream.
//! - [`cac`]: connection admission control: Erlang-B, effective bandwidth and port CAC.
//! - [`metrics`]: counters and drop reasons ([`metrics::counters`]), QoS block counting
//!   (SECBR/CER/CLR/CMR), the bundle monitor, the summary, the one definition of loss
//!   ([`metrics::accounting`]: sent - received - in the network), and [`metrics::probe`], the columnar
//!   store of the time series: each model declares its table's columns (name, unit, doc) next
//!   to its state and fills its row in one function ([`sim::series_schema`] lists them).
//! - [`stats`]: fractional Gaussian noise ([`stats::fgn`]), Hurst estimators
//!   ([`stats::hurst`]), confidence intervals ([`stats::ci`]).
//! - [`scenario`]: the scenario model (serde + JSON Schema) by topic, strict parsing and
//!   validation with key paths ([`scenario::validate`]), separate from building.
//! - [`build`]: scenario -> simulation, every spec-to-model conversion: one file per source
//!   kind (TCP, XTPX, video, workload, echo; the cell-level applications), per fabric, for ABR
//!   and for UPC; `build/mod.rs` only dispatches.
//! - [`sim`]: the arenas (nodes, ports, flows, endpoints, call classes) and the run loop
//!   ([`sim::Simulation::advance`]); one `impl Simulation` spread over one file per topic
//!   (emit, forward, defer, abr, deliver, host, calls, sample, accounting, summary). It names no
//!   application, transport, fabric or switch scheme: it calls their hooks.
//!
//! Hot-path rules: no heap allocation per cell (cells move between preallocated `VecDeque`s),
//! no dynamic dispatch per event (enums matched in one place), no `Result` in the hot path
//! (drops are counters with a reason).

pub mod abr;
pub mod app;
pub mod budget;
pub mod build;
pub mod cac;
pub mod engine;
pub mod host;
pub mod metrics;
pub mod net;
pub mod policing;
pub(crate) mod ring;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod time;
pub mod transport;
pub mod wire;

pub use scenario::{parse, ScenarioError};
pub use sim::{series_schema, Simulation};

/// Parse and validate a scenario given as JSON text without building the network: every check
/// a build could refuse (CAC admission of permanent connections included) is made on the specs.
pub fn check_json(json: &str) -> Result<(), ScenarioError> {
    parse(json).map(|_| ())
}

/// Parse, validate and build a scenario given as JSON text.
pub fn build_from_json(json: &str) -> Result<Simulation, ScenarioError> {
    let sc = parse(json)?;
    Simulation::build(&sc)
}

impl From<budget::Stopped> for ScenarioError {
    fn from(s: budget::Stopped) -> Self {
        ScenarioError::new(s.path, s.message)
    }
}
