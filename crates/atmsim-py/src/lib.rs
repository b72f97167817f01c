//! Python bindings of atmsim-core: scenario JSON in, summary JSON and columns out.
//! Thin by design (DESIGN.md): no model code here. The GIL is released while the core runs.
//! Errors: the exception classes and the mapping of the core's errors to them are in `error`.

mod error;

use atmsim_core::scenario;
use atmsim_core::time::ps_to_secs;
use error::Error;
use pyo3::prelude::*;
use pyo3::types::PyDict;

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
    use atmsim_core::stats::fgn::{FgnMethod, generate};
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

/// One simulation run; building it validates the scenario (ScenarioError: file "", key path,
/// message).
#[pyclass(module = "atmsim._core")]
struct Simulation {
    inner: atmsim_core::Simulation,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(json: &str) -> PyResult<Self> {
        let inner = atmsim_core::build_from_json(json).map_err(Error::from)?;
        Ok(Simulation { inner })
    }

    /// Run at most `max_events` events without the GIL; True once the run has ended.
    fn advance(&mut self, py: Python<'_>, max_events: u64) -> bool {
        let sim = &mut self.inner;
        py.detach(move || sim.advance(max_events))
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

    /// Time series: {name: {column: list}}.
    fn series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.series();
        let out = PyDict::new(py);
        let ports = PyDict::new(py);
        let pnames: Vec<&str> = s
            .port_index
            .iter()
            .map(|&i| self.inner.ports[i as usize].name.as_str())
            .collect();
        ports.set_item("time_s", &s.port_time_s)?;
        ports.set_item("port", pnames)?;
        ports.set_item("queue_cells", &s.port_queue_cells)?;
        ports.set_item("utilization", &s.port_utilization)?;
        out.set_item("ports", ports)?;
        let conns = PyDict::new(py);
        let cnames: Vec<&str> = s
            .conn_index
            .iter()
            .map(|&i| self.inner.flows[i as usize].name.as_str())
            .collect();
        conns.set_item("time_s", &s.conn_time_s)?;
        conns.set_item("connection", cnames)?;
        conns.set_item("throughput_mbps", &s.conn_throughput_mbps)?;
        out.set_item("connections", conns)?;
        if !s.acr_time_s.is_empty() {
            let d = PyDict::new(py);
            let names: Vec<&str> = s
                .acr_flow
                .iter()
                .map(|&i| self.inner.flows[i as usize].name.as_str())
                .collect();
            d.set_item("time_s", &s.acr_time_s)?;
            d.set_item("connection", names)?;
            d.set_item("acr_mbps", &s.acr_mbps)?;
            out.set_item("abr_sources", d)?;
        }
        if !s.abr_time_s.is_empty() {
            let d = PyDict::new(py);
            let names: Vec<&str> = s
                .abr_port
                .iter()
                .map(|&i| self.inner.ports[i as usize].name.as_str())
                .collect();
            d.set_item("time_s", &s.abr_time_s)?;
            d.set_item("port", names)?;
            d.set_item("z", &s.abr_z)?;
            d.set_item("fairshare_mbps", &s.abr_fair_mbps)?;
            d.set_item("abr_capacity_mbps", &s.abr_capacity_mbps)?;
            d.set_item("input_mbps", &s.abr_input_mbps)?;
            d.set_item("target_mbps", &s.abr_target_mbps)?;
            d.set_item("er_max_mbps", &s.abr_er_max_mbps)?;
            d.set_item("abr_queue_cells", &s.abr_queue_cells)?;
            out.set_item("abr_ports", d)?;
        }
        if !s.tcp_time_s.is_empty() {
            let d = PyDict::new(py);
            let names: Vec<&str> = s
                .tcp_flow
                .iter()
                .map(|&i| self.inner.flows[i as usize].name.as_str())
                .collect();
            d.set_item("time_s", &s.tcp_time_s)?;
            d.set_item("connection", names)?;
            d.set_item("cwnd_bytes", &s.tcp_cwnd_bytes)?;
            out.set_item("tcp", d)?;
        }
        Ok(out)
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(map_traffic, m)?)?;
    m.add_function(wrap_pyfunction!(fgn, m)?)?;
    m.add_class::<Simulation>()?;
    error::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
