//! `run.trace` (scenario) -> the run's [`Tracer`] (`sim/trace.rs`): names to flow, port and node
//! indices, seconds to picoseconds.

use crate::scenario::Scenario;
use crate::sim::{Simulation, Tracer};
use crate::time::secs_to_ps;

/// The tracer of `sc` for the built `sim` (off without `run.trace`). A connection's flows are
/// the one of its name and those named after it (`NAME.reverse`, a call's slots `NAME#k`).
pub(crate) fn tracer(sc: &Scenario, sim: &Simulation) -> Tracer {
    let Some(t) = &sc.run.trace else {
        return Tracer::default();
    };
    let traced = |flow: &str| {
        t.connections.is_empty()
            || t.connections.iter().any(|c| {
                flow == c
                    || flow
                        .strip_prefix(c.as_str())
                        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('#'))
            })
    };
    let flows = sim.flows.iter().map(|f| traced(&f.name)).collect();
    let ports = if t.ports.is_empty() {
        Vec::new()
    } else {
        sim.ports
            .iter()
            .map(|p| t.ports.contains(&p.name))
            .collect()
    };
    let nodes = if t.nodes.is_empty() {
        Vec::new()
    } else {
        sim.nodes
            .iter()
            .map(|n| t.nodes.contains(&n.name))
            .collect()
    };
    let to = t.to_s.map_or(sim.end(), secs_to_ps);
    Tracer::new(flows, ports, nodes, &t.kinds, secs_to_ps(t.from_s), to)
}
