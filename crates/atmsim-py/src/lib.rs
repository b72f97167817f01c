//! Python bindings of atmsim-core: scenario JSON in, summary JSON and columns out.
//! Thin by design (DESIGN.md): no model code here. The GIL is released while the core runs.
//! Errors: the exception classes and the mapping of the core's errors to them are in `error`.

mod error;
mod toml_json;
mod trace;

use atmsim_core::metrics::probe::{Kind, Values};
use atmsim_core::scenario;
use atmsim_core::time::ps_to_secs;
use error::Error;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// The JSON Schema of the scenario format.
#[pyfunction]
fn schema() -> String {
    scenario::json_schema()
}

/// Check a scenario given as JSON text; raises ScenarioError (file "", key path, message).
/// Validates the specs without building the network (CAC of permanent connections included);
/// a run validates again and builds once, in Simulation.
#[pyfunction]
fn check(json: &str) -> PyResult<()> {
    atmsim_core::check_json(json).map_err(Error::from)?;
    Ok(())
}

/// Traffic mapping (seed 001 Table 7): an application description to PCR/SCR/MBS.
/// Returns {"plain": {...}, "aal5": {...}} with pcr/scr in cells/s and Mb/s and mbs in cells,
/// and cells_per_tsdu.
#[pyfunction]
fn map_traffic(
    max_mbps: f64,
    mean_mbps: f64,
    burst_bytes: u64,
    tsdu_bytes: u32,
    header_bytes: u32,
) -> PyResult<String> {
    use atmsim_core::policing::AppTraffic;
    if !(max_mbps > 0.0 && mean_mbps > 0.0 && mean_mbps <= max_mbps && tsdu_bytes > 0) {
        return Err(Error::Argument(
            "need 0 < mean <= max rate and a TSDU of at least one byte".into(),
        )
        .into());
    }
    let app = AppTraffic::from_mbps(max_mbps, mean_mbps, burst_bytes, tsdu_bytes, header_bytes);
    let d = |c: atmsim_core::policing::CellDescriptor| {
        serde_json::json!({"pcr_cells_per_s": c.pcr_cells_per_s, "scr_cells_per_s": c.scr_cells_per_s,
                           "pcr_mbps": c.pcr_mbps(), "scr_mbps": c.scr_mbps(), "mbs_cells": c.mbs_cells})
    };
    Ok(serde_json::json!({"plain": d(app.map_plain()), "aal5": d(app.map_aal5()), "cells_per_tsdu": app.cells_per_tsdu()}).to_string())
}

/// `n` values of fractional Gaussian noise with Hurst parameter `hurst`, mean 0 and variance 1,
/// by `method` ("paxson" or "davies_harte"), from the random stream "fgn" of `seed`: the
/// generator the MPEG-2 video sources use, for checking it with outside estimators.
#[pyfunction]
#[pyo3(signature = (n, hurst, method = "paxson", seed = 0))]
fn fgn(py: Python<'_>, n: usize, hurst: f64, method: &str, seed: u64) -> PyResult<Vec<f64>> {
    use atmsim_core::stats::fgn::{generate, FgnMethod};
    let m = match method {
        "paxson" => FgnMethod::Paxson,
        "davies_harte" => FgnMethod::DaviesHarte,
        _ => {
            return Err(Error::Argument(format!(
                "method must be \"paxson\" or \"davies_harte\", got {method:?}"
            ))
            .into())
        }
    };
    py.detach(|| {
        let mut rng = atmsim_core::rng::stream(seed, "fgn");
        generate(m, n, hurst, 0.0, 1.0, &mut rng)
    })
    .map_err(|e| Error::Argument(e.to_string()).into())
}

/// The JSON text of a scenario file's TOML `text` (tables in the file's order), or None when the
/// front end must read it with `tomllib` (not TOML, a date or time, a float that is not finite,
/// nesting 32 levels deep): `toml_json`. The GIL is released while it parses.
#[pyfunction]
fn toml_to_json(py: Python<'_>, text: &str) -> Option<String> {
    py.detach(|| toml_json::toml_to_json(text))
}

/// One simulation run; building it validates the scenario (ScenarioError: file "", key path,
/// message).
#[pyclass(module = "atmsim._core")]
struct Simulation {
    inner: atmsim_core::Simulation,
    /// Events per batch between two looks at the clock ([`run_for`]).
    batch: u64,
}

/// How long the core runs without the GIL before Python's signal handlers get their turn.
const POLL: std::time::Duration = std::time::Duration::from_millis(50);
/// The bounds of a batch of events between two looks at the clock.
const BATCH_MIN: u64 = 1;
const BATCH_MAX: u64 = 1 << 16;

/// Run `sim` for at most `max_events` events, `max_rows` rows held, or about `poll` of wall
/// time, whichever comes first; returns whether the run has ended and the events run. The
/// events go in batches of `batch` between two looks at the clock: a batch that took more than
/// a tenth of `poll` is halved for the next, one that took less than a hundredth doubled, so a
/// run of cheap events looks at the clock every few hundred microseconds (a cost of a few
/// nanoseconds per thousand events) and a run of costly ones after each few.
fn run_for(
    sim: &mut atmsim_core::Simulation,
    batch: &mut u64,
    max_events: u64,
    max_rows: usize,
    poll: std::time::Duration,
) -> (Result<bool, atmsim_core::budget::Stopped>, u64) {
    let start = std::time::Instant::now();
    let first = sim.events();
    let mut left = max_events;
    loop {
        let n = left.min(*batch);
        let t0 = std::time::Instant::now();
        let before = sim.events();
        let done = match sim.advance_checked(n, max_rows) {
            Ok(d) => d,
            Err(e) => return (Err(e), sim.events() - first),
        };
        let ran = sim.events() - before;
        left -= ran.min(left);
        let now = std::time::Instant::now();
        let took = now - t0;
        if ran == n {
            if took > poll / 10 {
                *batch = (*batch / 2).max(BATCH_MIN);
            } else if took < poll / 100 {
                *batch = (*batch * 2).min(BATCH_MAX);
            }
        }
        if done || left == 0 || ran < n || now - start >= poll {
            return (Ok(done), sim.events() - first);
        }
    }
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(json: &str) -> PyResult<Self> {
        let inner = atmsim_core::build_from_json(json).map_err(Error::from)?;
        Ok(Simulation { inner, batch: 1024 })
    }

    /// Run at most `max_events` events without the GIL; True once the run has ended. With
    /// `max_rows`, also stop once the series hold that many rows (take them with
    /// `drain_series`), so memory stays bounded however long the run.
    ///
    /// Signals are honoured while it runs (issue 31 item 4): the core runs in batches of events
    /// sized to take about [`POLL`] each (no event takes more than a few milliseconds: the
    /// workload runner's calls are bounded, `ACTS_PER_CALL`), and after [`POLL`] of running it
    /// takes the GIL back to run Python's signal handlers (`check_signals`): SIGINT's
    /// KeyboardInterrupt, or the CLI's SIGTERM handler, stops the run within a fraction of a
    /// second wherever it is. A queue crossing the run's memory budget raises `ScenarioError`
    /// (`Simulation::advance_checked`).
    #[pyo3(signature = (max_events, max_rows = None))]
    fn advance(&mut self, py: Python<'_>, max_events: u64, max_rows: Option<usize>) -> PyResult<bool> {
        let rows = max_rows.unwrap_or(usize::MAX);
        let mut left = max_events;
        loop {
            let sim = &mut self.inner;
            let batch = &mut self.batch;
            let (result, ran) = py.detach(move || run_for(sim, batch, left, rows, POLL));
            let done = result.map_err(|e| Error::from(atmsim_core::ScenarioError::from(e)))?;
            left -= ran.min(left);
            if done || left == 0 || self.inner.series().rows_held() >= rows {
                return Ok(done);
            }
            py.check_signals()?;
        }
    }

    /// Events per batch between two looks at the clock (adapted to the run's cost per event).
    #[getter]
    fn poll_batch(&self) -> u64 {
        self.batch
    }

    /// Rows the series hold now (not yet drained).
    #[getter]
    fn series_rows_held(&self) -> usize {
        self.inner.series().rows_held()
    }

    #[getter]
    fn sim_time_s(&self) -> f64 {
        ps_to_secs(self.inner.now())
    }

    #[getter]
    fn end_time_s(&self) -> f64 {
        ps_to_secs(self.inner.end())
    }

    #[getter]
    fn events(&self) -> u64 {
        self.inner.events()
    }

    #[getter]
    fn cell_hops(&self) -> u64 {
        self.inner.cell_hops()
    }

    /// The summary as JSON text.
    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner.summary())
            .map_err(|e| Error::Simulation(format!("cannot serialize the summary: {e}")).into())
    }

    /// Time series: {table: {column: list}}, every table of `series_schema()` that the run
    /// filled (and those declared `always`), columns in declaration order; key columns hold the
    /// port or connection names. The rows held now: all of them unless `drain_series` took some.
    fn series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sim = &self.inner;
        let out = PyDict::new(py);
        for table in sim.series().tables().iter().filter(|t| t.handed_over()) {
            out.set_item(table.name(), table_dict(py, sim, table)?)?;
        }
        Ok(out)
    }

    /// Take the rows held so far: {table: {column: list}} for the tables with rows, as `series`
    /// gives them; the core keeps none of them. Called between `advance` slices, the
    /// concatenation of the slices is the whole series.
    fn drain_series<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let drained = self.inner.drain_series();
        let sim = &self.inner;
        let out = PyDict::new(py);
        for table in drained.tables().iter().filter(|t| !t.is_empty()) {
            out.set_item(table.name(), table_dict(py, sim, table)?)?;
        }
        Ok(out)
    }

    /// Take the rows held so far, as `drain_series` does, as raw columns for Arrow:
    /// {table: [(column, kind, bytes)]}, the bytes the column's values in native byte order
    /// (`f64`: float64, `u32`: uint32, `u64`: uint64; the keys `port` and `flow`: uint32 indices
    /// into `key_names(kind)`). One copy of each column, no Python object per value
    /// (`atmsim.result.SeriesSink` makes Arrow arrays of them with `pyarrow.Array.from_buffers`).
    fn drain_series_buffers<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let drained = self.inner.drain_series();
        let out = PyDict::new(py);
        for table in drained.tables().iter().filter(|t| !t.is_empty()) {
            let cols = PyList::empty(py);
            for col in table.columns() {
                let bytes = match &col.values {
                    Values::F64(v) => column_bytes(py, v, |x| x.to_ne_bytes())?,
                    Values::U32(v) => column_bytes(py, v, |x| x.to_ne_bytes())?,
                    Values::U64(v) => column_bytes(py, v, |x| x.to_ne_bytes())?,
                };
                cols.append((col.decl.name, col.decl.kind.as_str(), bytes))?;
            }
            out.set_item(table.name(), cols)?;
        }
        Ok(out)
    }

    /// The names a key column's indices stand for: `port` the output ports' names, `flow` the
    /// connection directions' names, in index order.
    fn key_names(&self, kind: &str) -> PyResult<Vec<&str>> {
        match kind {
            "port" => Ok(self.inner.ports.iter().map(|p| p.name.as_str()).collect()),
            "flow" => Ok(self.inner.flows.iter().map(|f| f.name.as_str()).collect()),
            _ => Err(Error::Argument(format!("kind must be \"port\" or \"flow\", got {kind:?}")).into()),
        }
    }

    /// Write `summary.json` to `path`: the summary with the members of the JSON object `extra`
    /// (the front end's additions: `wall_time_s`, `scenario`, `trace`) after the core's, indented
    /// by two spaces, and a final newline. Streamed from the summary's structs (serde_json), so
    /// a summary of many connections is never a tree of Python objects (issue 27 item 5), and
    /// each connection's section is built only as it is written (`streamed_summary`: never all
    /// of them at once, issue 27 row (d)).
    fn write_summary(&self, py: Python<'_>, path: std::path::PathBuf, extra: &str) -> PyResult<()> {
        #[derive(serde::Serialize)]
        struct WithExtra<'a> {
            #[serde(flatten)]
            summary: &'a atmsim_core::sim::StreamedSummary<'a>,
            #[serde(flatten)]
            extra: &'a serde_json::Map<String, serde_json::Value>,
        }
        let extra: serde_json::Map<String, serde_json::Value> = serde_json::from_str(extra)
            .map_err(|e| Error::Argument(format!("extra must be a JSON object: {e}")))?;
        let summary = self.inner.streamed_summary();
        py.detach(|| -> std::io::Result<()> {
            use std::io::Write;
            let mut w = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(&path)?);
            serde_json::to_writer_pretty(&mut w, &WithExtra { summary: &summary, extra: &extra })
                .map_err(std::io::Error::other)?;
            w.write_all(b"\n")?;
            w.flush()
        })
        .map_err(PyErr::from)
    }

    /// Whether the run writes a trace (`run.trace`).
    #[getter]
    fn tracing(&self) -> bool {
        self.inner.tracer().on
    }

    /// Trace rows written so far (drained or not).
    #[getter]
    fn trace_rows_total(&self) -> u64 {
        self.inner.tracer().total()
    }

    /// The name tables of the trace's index columns (see `drain_trace`).
    fn trace_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        trace::names(py, &self.inner)
    }

    /// Take the trace rows held so far: {column: list} (docs/tracing.md).
    fn drain_trace<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        trace::drain(py, &mut self.inner)
    }

    /// The names of the tables a result has (declared `always`, or rows ever added), in order.
    fn series_tables(&self) -> Vec<&'static str> {
        let tables = self.inner.series().tables();
        tables
            .iter()
            .filter(|t| t.handed_over())
            .map(|t| t.name())
            .collect()
    }
}

/// A column's values as bytes (one copy, native byte order).
fn column_bytes<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    v: &[T],
    to_bytes: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, v.len() * N, |buf| {
        for (chunk, &x) in buf.chunks_exact_mut(N).zip(v) {
            chunk.copy_from_slice(&to_bytes(x));
        }
        Ok(())
    })
}

/// One table as {column: list}; key columns as the port or connection names.
fn table_dict<'py>(
    py: Python<'py>,
    sim: &atmsim_core::Simulation,
    table: &atmsim_core::metrics::probe::Table,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for col in table.columns() {
        let name = col.decl.name;
        match (&col.values, col.decl.kind) {
            (Values::U32(v), Kind::Port) => d.set_item(
                name,
                v.iter()
                    .map(|&i| sim.ports[i as usize].name.as_str())
                    .collect::<Vec<_>>(),
            )?,
            (Values::U32(v), Kind::Flow) => d.set_item(
                name,
                v.iter()
                    .map(|&i| sim.flows[i as usize].name.as_str())
                    .collect::<Vec<_>>(),
            )?,
            (Values::F64(v), _) => d.set_item(name, v)?,
            (Values::U32(v), _) => d.set_item(name, v)?,
            (Values::U64(v), _) => d.set_item(name, v)?,
        }
    }
    Ok(d)
}

/// The declarations of the time series: {table: {"doc": str, "columns": [{"name", "unit",
/// "doc", "kind", "label", "plot"}, ...], "always": bool, "active": str}}, tables and columns in
/// order. Kinds: "f64", "u32", "u64", and the keys "port" and "flow" (handed over as names).
#[pyfunction]
fn series_schema(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    for table in atmsim_core::series_schema() {
        let cols = PyList::empty(py);
        for c in table.all_columns() {
            let d = PyDict::new(py);
            d.set_item("name", c.name)?;
            d.set_item("unit", c.unit)?;
            d.set_item("doc", c.doc)?;
            d.set_item("kind", c.kind.as_str())?;
            d.set_item("label", c.label)?;
            d.set_item("plot", c.plot)?;
            cols.append(d)?;
        }
        let t = PyDict::new(py);
        t.set_item("doc", table.doc)?;
        t.set_item("columns", cols)?;
        t.set_item("always", table.always)?;
        t.set_item("active", table.active)?;
        out.set_item(table.name, t)?;
    }
    Ok(out)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(map_traffic, m)?)?;
    m.add_function(wrap_pyfunction!(fgn, m)?)?;
    m.add_function(wrap_pyfunction!(series_schema, m)?)?;
    m.add_function(wrap_pyfunction!(toml_to_json, m)?)?;
    m.add_class::<Simulation>()?;
    error::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SERIES_SLICE_ROWS", atmsim_core::scenario::SLICE_ROWS)?;
    Ok(())
}
