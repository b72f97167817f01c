//! Checks of `run.trace` (docs/tracing.md): the names its filters use exist, its window is not
//! empty, and the rows it would write, estimated from the line rates, stay within
//! `run.trace.max_rows`.

use super::check_util::{compact, Res, ScenarioError};
use super::{ConnectionSpec, RunTraceSpec, Scenario, TraceKind, TRACE_MAX_ROWS};

const CELL_BITS: f64 = 424.0;

/// Check `run.trace`, if any.
pub fn validate_trace(sc: &Scenario) -> Res<()> {
    let Some(t) = &sc.run.trace else {
        return Ok(());
    };
    let conns: Vec<&ConnectionSpec> = sc
        .connections
        .iter()
        .chain(sc.calls.iter().map(|c| &c.connection))
        .collect();
    for (i, name) in t.connections.iter().enumerate() {
        if !conns.iter().any(|c| &c.name == name) {
            return Err(unknown(
                format!("run.trace.connections[{i}]"),
                "connection",
                name,
            ));
        }
    }
    for (i, name) in t.ports.iter().enumerate() {
        if port_rate(sc, name).is_none() {
            return Err(unknown(
                format!("run.trace.ports[{i}]"),
                "port (FROM->TO, the direction of a link)",
                name,
            ));
        }
    }
    for (i, name) in t.nodes.iter().enumerate() {
        if !sc.nodes.iter().any(|n| &n.name == name) {
            return Err(unknown(format!("run.trace.nodes[{i}]"), "node", name));
        }
    }
    if !(t.from_s >= 0.0 && t.from_s < sc.run.duration_s) {
        return Err(ScenarioError::new(
            "run.trace.from_s",
            format!(
                "must be >= 0 and < run.duration_s ({}), got {}",
                compact(sc.run.duration_s),
                compact(t.from_s)
            ),
        ));
    }
    if let Some(to) = t.to_s {
        if to <= t.from_s {
            return Err(ScenarioError::new(
                "run.trace.to_s",
                format!(
                    "the window is empty: must be > run.trace.from_s ({}), got {}",
                    compact(t.from_s),
                    compact(to)
                ),
            ));
        }
    }
    let limit = t.max_rows.unwrap_or(TRACE_MAX_ROWS);
    let rows = estimate_rows(sc, t, &conns);
    if rows > limit as f64 {
        let key = if t.max_rows.is_some() {
            "run.trace.max_rows"
        } else {
            "run.trace"
        };
        return Err(ScenarioError::new(
            key,
            format!(
                "the trace would hold about {} rows, more than its limit {} (run.trace.max_rows): \
                 narrow run.trace.connections, ports, kinds or from_s..to_s, or raise \
                 run.trace.max_rows",
                compact(rows.round()),
                compact(limit as f64)
            ),
        ));
    }
    Ok(())
}

fn unknown(key: String, what: &str, name: &str) -> ScenarioError {
    ScenarioError::new(key, format!("no {what} named {name:?} in this scenario"))
}

/// The line rate of port `name` (`FROM->TO`), cells/s; None when no link has that direction.
fn port_rate(sc: &Scenario, name: &str) -> Option<f64> {
    let (a, b) = name.split_once("->")?;
    sc.links
        .iter()
        .find(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
        .map(|l| l.rate_mbps * 1e6 / CELL_BITS)
}

/// Rows per cell of a connection crossing `hops` ports, for the kinds selected.
fn rows_per_cell(kinds: &[TraceKind], hops: f64) -> f64 {
    let per = |k: TraceKind| match k {
        TraceKind::Enqueue | TraceKind::Depart | TraceKind::Arrive => hops,
        TraceKind::RmForward | TraceKind::RmBackward => 2.0 + 3.0 * hops,
        TraceKind::Drop => 0.0,
        _ => 1.0,
    };
    if kinds.is_empty() {
        // the cell events; frames and segments come at most once per frame (several cells)
        2.0 + 3.0 * hops + 1.0
    } else {
        kinds.iter().map(|&k| per(k)).sum()
    }
}

/// An estimate of the rows of the trace: every traced connection sending at its first link's
/// line rate in both directions throughout the window, and no cell lost; with a port filter,
/// at most the rows of cells at those ports' line rates (several rows a cell).
fn estimate_rows(sc: &Scenario, t: &RunTraceSpec, conns: &[&ConnectionSpec]) -> f64 {
    let to = t.to_s.unwrap_or(sc.run.duration_s).min(sc.run.duration_s);
    let window = (to - t.from_s).max(0.0);
    let mut by_conn = 0.0;
    for c in conns {
        if !t.connections.is_empty() && !t.connections.contains(&c.name) {
            continue;
        }
        let hops = c.route.len().saturating_sub(1) as f64;
        let first = c.route.first().zip(c.route.get(1));
        let rate = first.map_or(0.0, |(a, b)| {
            port_rate(sc, &format!("{a}->{b}")).unwrap_or(0.0)
        });
        // a switched call has up to max_active copies
        let copies = sc
            .calls
            .iter()
            .find(|k| k.connection.name == c.name)
            .map_or(1.0, |k| k.max_active.unwrap_or(1).max(1) as f64);
        by_conn += 2.0 * copies * rate * window * rows_per_cell(&t.kinds, hops);
    }
    if t.ports.is_empty() {
        return by_conn;
    }
    let by_port: f64 = t
        .ports
        .iter()
        .map(|p| port_rate(sc, p).unwrap_or(0.0) * window * rows_per_cell(&t.kinds, 1.0) * 2.0)
        .sum();
    by_conn.min(by_port)
}
