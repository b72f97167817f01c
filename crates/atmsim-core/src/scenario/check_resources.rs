//! Resource estimates of a scenario, checked before a run allocates anything: the memory the
//! core will hold (the cells in flight that each link reserves room for, the state of every
//! connection direction, the time-series rows held between two writes), the rows of the time
//! series and the events of the whole run. [`check`] refuses a scenario whose memory estimate
//! exceeds [`memory_limit`] (`run.max_memory_mb`, else `ATMSIM_MAX_MEMORY_MB`, else the memory
//! available on this machine), naming the key that costs the most, and one whose series rows or
//! events exceed fixed bounds (the run could not finish in any useful time or disk).
//!
//! The per-item costs are measured, with a margin (`docs/scenarios.md`, "Resource limits"):
//! building a connection direction costs about 2.4 KB (CBR) to 5.6 KB (duplex TCP), its delay
//! histogram 15 KB once it delivers; an MPEG-2 video source about 0.94 MB (its FGN block); a
//! series row held before it is written costs about 250 B (the core's columns and their Python
//! lists).

use super::{NodeKind, Res, Scenario, ScenarioError, SourceKind};
use crate::wire::Cell;

/// What one run of a scenario is estimated to need.
#[derive(Clone, Debug, Default)]
pub struct Estimate {
    /// Memory, bytes, in total.
    pub memory_bytes: f64,
    /// The parts of the memory: (key path that causes it, bytes, what it is).
    pub parts: Vec<(String, f64, String)>,
    /// Rows of all time series over the whole run (written to disk as the run goes).
    pub series_rows: f64,
    /// Rows one sample adds (one per port, connection direction, ABR source, TCP sender).
    pub rows_per_sample: f64,
    /// Events of the whole run: cell transmissions at the links' full rates and the samples.
    pub events: f64,
}

/// The process before the scenario: Python with pandas and pyarrow, and the core's code.
pub const BASE_BYTES: f64 = 150e6;
/// State of one connection direction (flow, endpoint, counters, delay histogram), with margin.
pub const CONNECTION_BYTES: f64 = 32.0 * 1024.0;
/// One MPEG-2 video source: its FGN block of 16,384 values and the generator's work space
/// (measured: 0.94 MB a source, 200 sources in one connection), with margin.
pub const VIDEO_SOURCE_BYTES: f64 = 1.25 * 1048576.0;
/// A series row held in memory until it is written (core columns and Python lists), with margin.
pub const ROW_BYTES: f64 = 256.0;
/// Rows the front end lets the core accumulate before it writes them out (a slice).
pub const SLICE_ROWS: u64 = 65_536;
/// At most this many series rows in a run (about 100 GB of Parquet).
pub const MAX_SERIES_ROWS: f64 = 1e10;
/// At most this many events in a run (days of computing).
pub const MAX_EVENTS: f64 = 1e13;

const CELL_BITS: f64 = 424.0;

/// The memory a run may use, bytes, and where that limit comes from.
pub fn memory_limit(sc: &Scenario) -> Res<Option<(f64, String)>> {
    if let Some(mb) = sc.run.max_memory_mb {
        return Ok(Some((mb as f64 * 1048576.0, "run.max_memory_mb".into())));
    }
    if let Ok(text) = std::env::var("ATMSIM_MAX_MEMORY_MB") {
        return match text.trim().parse::<u64>() {
            Ok(mb) if mb >= 1 => Ok(Some((
                mb as f64 * 1048576.0,
                "ATMSIM_MAX_MEMORY_MB".into(),
            ))),
            _ => Err(ScenarioError::new(
                "",
                format!("environment variable ATMSIM_MAX_MEMORY_MB must be an integer >= 1 (MB), got {text:?}"),
            )),
        };
    }
    Ok(available_bytes().map(|b| (b, "the memory available on this machine".into())))
}

/// `MemAvailable` of /proc/meminfo (Linux); None elsewhere.
fn available_bytes() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// The estimate of a valid scenario (its values within their ranges).
pub fn estimate(sc: &Scenario) -> Estimate {
    let mut e = Estimate {
        memory_bytes: BASE_BYTES,
        ..Estimate::default()
    };
    let fabric_us = |name: &str| {
        sc.nodes
            .iter()
            .find(|n| n.name == name && n.kind == NodeKind::Switch)
            .map_or(0.0, |n| n.transit_us())
    };
    let cell_bytes = std::mem::size_of::<(u64, Cell)>() as f64;
    let mut cell_rate = 0.0;
    for (i, l) in sc.links.iter().enumerate() {
        let extra = l
            .impairment
            .as_ref()
            .map_or(0.0, |m| m.extra_delay_us + m.delay_variation_us);
        let (prop_us, key) = match (l.length_km, l.delay_us) {
            (Some(km), _) => (km * 5.0, format!("links[{i}].length_km")),
            (None, Some(us)) => (us, format!("links[{i}].delay_us")),
            (None, None) => (0.0, format!("links[{i}]")),
        };
        let cells_per_s = l.rate_mbps * 1e6 / CELL_BITS;
        cell_rate += 2.0 * cells_per_s;
        // the room each direction reserves (build/port.rs): delay / cell time + 2 cells
        // (a direction's delay includes the transit of the node it arrives at)
        let transit = [fabric_us(&l.b), fabric_us(&l.a)];
        let bytes: f64 = transit
            .iter()
            .map(|f| ((prop_us + extra + f) * 1e-6 * cells_per_s + 2.0) * cell_bytes)
            .sum();
        let transit_note = if transit.iter().any(|&f| f > 0.0) {
            format!(
                " (+ switch transit {} / {} us)",
                super::compact(transit[0]),
                super::compact(transit[1])
            )
        } else {
            String::new()
        };
        e.parts.push((
            key,
            bytes,
            format!(
                "room for the cells in flight: {} us{transit_note} x {} Mb/s, both directions",
                super::compact(prop_us + extra),
                super::compact(l.rate_mbps)
            ),
        ));
    }
    let mut directions = 0.0;
    let mut rows = 2.0 * sc.links.len() as f64; // one per port
    for (i, c) in sc.connections.iter().enumerate() {
        for (key, s) in [
            ("source", Some(&c.source)),
            ("reverse_source", c.reverse_source.as_deref()),
        ] {
            if let Some(s) = s.filter(|s| s.kind == SourceKind::Mpeg2) {
                let n = s.sources.max(1) as f64;
                e.parts.push((
                    format!("connections[{i}].{key}.sources"),
                    n * VIDEO_SOURCE_BYTES,
                    format!("{n} MPEG-2 video sources x 1.25 MiB (FGN blocks)"),
                ));
            }
        }
        let dirs = if c.bidirectional { 2.0 } else { 1.0 };
        let workload_conns = c.source.workload.as_ref().and_then(|w| w.connections);
        let bundle = c.source.bundle.max(workload_conns.unwrap_or(1)).max(1) as f64;
        directions += dirs * bundle;
        rows += dirs * 2.0; // connections, and abr_sources or tcp
    }
    let mut call_slots = 0.0;
    for c in &sc.calls {
        let slots = c.max_active.unwrap_or(1).max(1) as f64;
        call_slots += slots * if c.connection.bidirectional { 2.0 } else { 1.0 };
        rows += slots;
    }
    if directions > 0.0 {
        e.parts.push((
            "connections".into(),
            directions * CONNECTION_BYTES,
            format!("{} connection directions x 32 KiB", directions),
        ));
    }
    if call_slots > 0.0 {
        e.parts.push((
            "calls".into(),
            call_slots * CONNECTION_BYTES,
            format!("{} call slots x 32 KiB", call_slots),
        ));
    }
    e.rows_per_sample = rows;
    e.parts.push((
        "connections".into(),
        (SLICE_ROWS as f64 + rows) * ROW_BYTES,
        "series rows held between two writes".into(),
    ));
    let interval = sc
        .run
        .sample_interval_s
        .unwrap_or(sc.run.duration_s / 1000.0);
    let samples = (sc.run.duration_s / interval).floor();
    e.series_rows = samples * rows;
    e.events = samples + sc.run.duration_s * cell_rate;
    e.memory_bytes += e.parts.iter().map(|p| p.1).sum::<f64>();
    e
}

fn mb(bytes: f64) -> String {
    super::compact((bytes / 1048576.0).ceil())
}

/// Refuse what the run cannot survive: memory above the limit, series rows or events above
/// their bounds.
pub(crate) fn check(sc: &Scenario) -> Res<()> {
    let e = estimate(sc);
    if e.series_rows > MAX_SERIES_ROWS {
        return Err(ScenarioError::new(
            "run.sample_interval_s",
            format!(
                "the time series would have about {} rows ({} per sample), more than {}: sample less often or run shorter",
                super::compact(e.series_rows.round()),
                e.rows_per_sample,
                super::compact(MAX_SERIES_ROWS)
            ),
        ));
    }
    if e.events > MAX_EVENTS {
        return Err(ScenarioError::new(
            "run.duration_s",
            format!(
                "the run would take about {} events (the links' cell rates over the duration), more than {}",
                super::compact(e.events.round()),
                super::compact(MAX_EVENTS)
            ),
        ));
    }
    if let Some((limit, source)) = memory_limit(sc)? {
        if e.memory_bytes > limit {
            let (key, bytes, what) = e
                .parts
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .cloned()
                .unwrap_or_default();
            return Err(ScenarioError::new(
                key,
                format!(
                    "the run would need about {} MB of memory, more than the {} MB allowed ({source}); the largest part here: {} MB, {what} (set run.max_memory_mb or ATMSIM_MAX_MEMORY_MB to allow more)",
                    mb(e.memory_bytes),
                    mb(limit),
                    mb(bytes)
                ),
            ));
        }
    }
    Ok(())
}
