//! The trace of a run handed to Python (docs/tracing.md): the rows as columns of numbers and
//! indices into name tables (`trace_names`), which `python/atmsim/tracing.py` turns into Arrow
//! dictionary columns and Parquet row groups.

use atmsim_core::abr::{RM_BN, RM_CI, RM_DIR, RM_NI};
use atmsim_core::metrics::{DropReason, TraceKind};
use atmsim_core::time::ps_to_secs;
use atmsim_core::wire::{H_CLP, H_EFCI, H_EOF, H_RM, SEG_ACK, SEG_DATA, SEG_WND};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// {"kind": [...], "connection": [flow names], "port": [...], "node": [...], "reason": [...]}.
pub fn names<'py>(py: Python<'py>, sim: &atmsim_core::Simulation) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(
        "kind",
        TraceKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "connection",
        sim.flows
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>(),
    )?;
    d.set_item(
        "port",
        sim.ports
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>(),
    )?;
    d.set_item(
        "node",
        sim.nodes
            .iter()
            .map(|n| n.name.as_str())
            .collect::<Vec<_>>(),
    )?;
    let ends: Vec<(u32, u32)> = sim.flows.iter().map(|f| sim.trace_flow_ends(f)).collect();
    let node = |i: u32| sim.nodes[i as usize].name.as_str();
    d.set_item(
        "flow_from",
        ends.iter().map(|e| node(e.0)).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "flow_to",
        ends.iter().map(|e| node(e.1)).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "reason",
        DropReason::ALL.iter().map(|r| r.name()).collect::<Vec<_>>(),
    )?;
    Ok(d)
}

/// Take the rows held: {column: list}; `kind`, `connection`, `port`, `node` and `reason` are
/// indices into `names` (`reason` -1 where none).
pub fn drain<'py>(
    py: Python<'py>,
    sim: &mut atmsim_core::Simulation,
) -> PyResult<Bound<'py, PyDict>> {
    let rows = sim.drain_trace();
    let d = PyDict::new(py);
    macro_rules! col {
        ($name:expr, $f:expr) => {
            d.set_item($name, rows.iter().map($f).collect::<Vec<_>>())?
        };
    }
    col!("time_s", |r| ps_to_secs(r.t));
    col!("kind", |r| r.kind);
    col!("connection", |r| r.flow);
    col!("port", |r| r.port);
    col!("node", |r| r.node);
    col!("reason", |r| if r.reason == u8::MAX {
        -1i16
    } else {
        r.reason as i16
    });
    let vc: Vec<(u16, u16)> = rows.iter().map(|r| sim.trace_vc(r.flow)).collect();
    d.set_item("vpi", vc.iter().map(|v| v.0).collect::<Vec<_>>())?;
    d.set_item("vci", vc.iter().map(|v| v.1).collect::<Vec<_>>())?;
    col!("cell_seq", |r| r.cell_seq);
    col!("hop", |r| r.hop);
    col!("clp", |r| r.hdr & H_CLP != 0);
    col!("efci", |r| r.hdr & H_EFCI != 0);
    col!("eof", |r| r.hdr & H_EOF != 0);
    col!("aal5_len", |r| r.len);
    col!("rm", |r| r.hdr & H_RM != 0);
    col!("rm_backward", |r| r.rm.bits & RM_DIR != 0);
    col!("rm_ccr_mbps", |r| r.rm.ccr);
    col!("rm_er_mbps", |r| r.rm.er);
    col!("rm_mcr_mbps", |r| r.rm.mcr);
    col!("rm_ci", |r| r.rm.bits & RM_CI != 0);
    col!("rm_ni", |r| r.rm.bits & RM_NI != 0);
    col!("rm_bn", |r| r.rm.bits & RM_BN != 0);
    col!("seg_conn", |r| r.seg.conn);
    col!("seg_data", |r| r.seg.flags & SEG_DATA != 0);
    col!("seg_ack", |r| r.seg.flags & SEG_ACK != 0);
    col!("seg_window", |r| r.seg.flags & SEG_WND != 0);
    col!("seg_seq", |r| r.seg.seq);
    col!("seg_ack_no", |r| r.seg.ack);
    col!("tcp_cwnd_bytes", |r| r.window.map(|w| w.0));
    col!("tcp_ssthresh_bytes", |r| r.window.map(|w| w.1));
    Ok(d)
}
