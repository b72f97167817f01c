//! Scenario -> Simulation: every conversion from the scenario model to the network model.
//!
//! The builder takes every value from the scenario model: defaults live with the keys
//! (`crate::scenario`), and what absence means where it is not a constant (a PCR taken from the
//! first link, an FRTT from the built route) is computed here as the keys' docs say. It expects
//! a validated scenario ([`crate::scenario::parse`]).

mod abr;
mod connection;
mod echo;
mod fabric;
mod host;
mod policing;
mod port;
mod sources;
mod tcp;
mod trace;
mod video;
mod workload;
mod xtpx;

pub(crate) use abr::port_scheme;
pub(crate) use connection::Builder;
pub(crate) use host::{host, host_models, raw_end, traces};
pub(crate) use policing::upc_of;
pub(crate) use sources::source_app;
pub(crate) use tcp::tcp_params;
pub(crate) use xtpx::xtpx_params;

use crate::app::Asks;
use crate::app::{Application, Ctx};
use crate::engine::{Event, EventQueue};
use crate::metrics::BlockCounter;
use crate::metrics::*;
use crate::net::*;
use crate::scenario::{
    admit_permanent, permanent_reservation, ClrFlowSpec, ConnectionSpec, Scenario,
};
use crate::sim::*;
use crate::time::*;
use std::collections::BTreeMap;

/// The network of a scenario: its nodes with their fabrics, the output ports (two per link,
/// with their links), the shared buffers, and what the connections are built with.
struct Network {
    nodes: Vec<Node>,
    ports: Vec<Port>,
    groups: Vec<Group>,
    node_id: BTreeMap<String, u32>,
    /// (from, to) node ids -> the port.
    port_id: BTreeMap<(u32, u32), u32>,
    /// (from, to) node ids -> the link's rate.
    link_mbps: BTreeMap<(u32, u32), f64>,
}

/// The nodes, ports, fabrics and shared buffers of `sc`.
fn network(sc: &Scenario) -> Network {
    let node_id: BTreeMap<String, u32> = sc
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.clone(), i as u32))
        .collect();
    // the fixed time a cell spends crossing each node, folded into the delay of the links into
    // it (the fabric built below keeps the same, `Fabric::transit_ps`)
    let transit_ps: Vec<SimDuration> = sc.nodes.iter().map(|n| us_to_ps(n.transit_us())).collect();
    let mut ports = Vec::new();
    let mut port_id: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let mut link_mbps: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    for l in &sc.links {
        let (a, b) = (node_id[&l.a], node_id[&l.b]);
        let prop = match (l.length_km, l.delay_us) {
            (Some(km), _) => us_to_ps(km * 5.0),
            (_, Some(us)) => us_to_ps(us),
            _ => 0,
        };
        for (from, to) in [(a, b), (b, a)] {
            port_id.insert((from, to), ports.len() as u32);
            link_mbps.insert((from, to), l.rate_mbps);
            ports.push(port::build(sc, l, from, to, prop, transit_ps[to as usize]));
        }
    }
    let nodes: Vec<Node> = sc
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let fabric = fabric::build(n, i as u32, &mut ports);
            debug_assert_eq!(fabric.transit_ps(), transit_ps[i], "node {}", n.name);
            Node {
                name: n.name.clone(),
                kind: n.kind,
                fabric,
                setup_ps: us_to_ps(n.call_processing_us),
            }
        })
        .collect();
    let mut groups = Vec::new();
    for n in &sc.nodes {
        let from = node_id[&n.name];
        for g in &n.shared_buffers {
            for to in &g.ports {
                ports[port_id[&(from, node_id[to])] as usize].group = groups.len() as u32;
            }
            groups.push(Group {
                limit: g.buffer_cells as u32,
                used: 0,
            });
        }
    }
    Network {
        nodes,
        ports,
        groups,
        node_id,
        port_id,
        link_mbps,
    }
}

/// What connection `c`'s first (forward) flow `f` gets besides its route: contract, UPC, source
/// shaper, bundle monitor (in `monitors`, created by its first member; windows from `warmup`)
/// and requested QoS.
fn connection_extras(
    c: &ConnectionSpec,
    f: &mut Flow,
    monitors: &mut Vec<Monitor>,
    warmup: SimTime,
) {
    f.upc = upc_of(c);
    if c.source.shape {
        f.shaper = c
            .contract
            .as_ref()
            .map(|k| Box::new(Shaper::new(&k.contract())));
    }
    if let Some(m) = &c.propose_contract {
        let name = m.bundle.clone().unwrap_or_else(|| c.name.clone());
        let k = match monitors.iter().position(|x: &Monitor| x.name == name) {
            Some(k) => k,
            None => {
                let window_ps = secs_to_ps(m.window_s).max(1);
                monitors.push(Monitor {
                    name,
                    members: vec![],
                    window_ps,
                    window_end: warmup + window_ps,
                    count: 0,
                    counts: Vec::new(),
                    times: Vec::new(),
                    margin: m.scr_margin,
                    tolerance: m.tolerance,
                });
                monitors.len() - 1
            }
        };
        monitors[k].members.push(c.name.clone());
        f.monitor = Some(k as u32);
    }
    if let Some(q) = &c.qos {
        let vbr_clp0 = c.contract.as_ref().is_some_and(|k| k.scr_mbps.is_some())
            && c.upc.as_ref().is_some_and(|u| u.scr_clp0_only);
        let clp0 = match q.clr_flow {
            Some(ClrFlowSpec::Clp0) => true,
            Some(ClrFlowSpec::Clp0Plus1) => false,
            None => vbr_clp0,
        };
        f.qos = Some(Box::new(QosObjectives {
            max_ctd: q.max_ctd_us.map(us_to_ps),
            cdv: q.cdv_us.map(us_to_ps),
            clr: q.clr,
            clr_clp0: clp0,
        }));
        f.blocks = BlockCounter::new(q.secb_block_cells as u32, q.secb_max_bad as u32);
    }
}

/// Permanent connections with a contract hold their share of every CAC port on their route for
/// the whole run (what each reserves: `permanent_reservation`). Validation has admitted them
/// already, from the specs, in the same order; a refusal here means an unvalidated scenario and
/// gets the same error.
fn reserve_permanent(
    sc: &Scenario,
    node_id: &BTreeMap<String, u32>,
    port_id: &BTreeMap<(u32, u32), u32>,
    ports: &mut [Port],
) -> Result<(), crate::scenario::ScenarioError> {
    for (i, c) in sc.connections.iter().enumerate() {
        let Some((contract, key)) = permanent_reservation(c) else {
            continue;
        };
        for w in c.route.windows(2) {
            let p = port_id[&(node_id[&w[0]], node_id[&w[1]])] as usize;
            let port = &mut ports[p];
            let Some(cac) = port.cac.as_mut() else {
                continue;
            };
            admit_permanent(cac, &contract, i, key, &port.name)?;
            port.cac_max_bps = port.cac_max_bps.max(cac.allocated_bps());
            port.cac_permanent_bps = cac.allocated_bps();
        }
    }
    Ok(())
}

impl Simulation {
    /// Build from a validated scenario (see [`crate::scenario::parse`]): the network (nodes,
    /// ports, fabrics, shared buffers), the connections, the call classes, the permanent
    /// connections' reservations, then the run's own state ([`Simulation::finish_build`]).
    ///
    /// Fails only when a permanent connection does not fit a CAC port's capacity, which
    /// validation refuses already: never for a scenario from [`crate::scenario::parse`].
    pub fn build(sc: &Scenario) -> Result<Simulation, crate::scenario::ScenarioError> {
        let end = secs_to_ps(sc.run.duration_s);
        let warmup = secs_to_ps(sc.run.warmup_s);
        let sample_ps = secs_to_ps(
            sc.run
                .sample_interval_s
                .unwrap_or(sc.run.duration_s / 1000.0),
        )
        .max(1);
        let Network {
            nodes,
            mut ports,
            groups,
            node_id,
            port_id,
            link_mbps,
        } = network(sc);
        // at least one flow and one endpoint per connection: reserved up front, so that the
        // arrays of the usual scenario never grow. Flows and endpoints are aligned to cache
        // lines, which the system allocator cannot reallocate in place: each growth is a copy
        // with both buffers resident (issue 13: that copy made the peak RSS of 15,000 VCs)
        let mut flows: Vec<Flow> = Vec::with_capacity(sc.connections.len());
        let mut endpoints: Vec<Endpoint> = Vec::with_capacity(sc.connections.len());
        let mut monitors: Vec<Monitor> = Vec::new();
        let traces = traces(sc);
        let b = Builder {
            traces: &traces,
            sc,
            ports: &ports,
            link_mbps: &link_mbps,
            node_id: &node_id,
            port_id: &port_id,
        };
        for c in &sc.connections {
            let first_flow = flows.len();
            b.connection(c, &mut flows, &mut endpoints);
            // contract, UPC and requested QoS belong to the connection's first (forward) flow
            connection_extras(c, &mut flows[first_flow], &mut monitors, warmup);
        }
        let mut calls = Vec::new();
        for (i, spec) in sc.calls.iter().enumerate() {
            calls.push(b.calls(i, spec, &mut flows, &mut endpoints));
        }
        reserve_permanent(sc, &node_id, &port_id, &mut ports)?;
        // where the arrays grew by doubling, give the slack back (nothing to do where they did not)
        flows.shrink_to_fit();
        endpoints.shrink_to_fit();
        let mut sim = Self::finish_build(
            end, warmup, sample_ps, sc, nodes, ports, groups, flows, endpoints,
        );
        for (i, c) in calls.iter().enumerate() {
            let t = secs_to_ps(sc.calls[i].start_s);
            if t < c.stop.min(sim.end) {
                sim.queue.push(t, Event::CallArrival(i as u32));
            }
        }
        sim.calls = calls;
        sim.monitors = monitors;
        Ok(sim)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn finish_build(
        end: SimTime,
        warmup: SimTime,
        sample_ps: SimDuration,
        sc: &Scenario,
        nodes: Vec<Node>,
        ports: Vec<Port>,
        groups: Vec<Group>,
        flows: Vec<Flow>,
        endpoints: Vec<Endpoint>,
    ) -> Simulation {
        let mut sim = Simulation {
            now: 0,
            end,
            warmup,
            sample_ps,
            samples_taken: 0,
            seed: sc.run.seed,
            queue: EventQueue::new(),
            nodes,
            ports,
            groups,
            flow_rx: vec![FlowRx::default(); flows.len()],
            flows,
            endpoints,
            sampled_endpoints: None,
            calls: Vec::new(),
            monitors: Vec::new(),
            events: 0,
            cell_hops: 0,
            fabric_now: false,
            sinks: Vec::new(),
            cause_at: 0,
            finished: false,
            series: Probes::new(&crate::sim::SERIES_TABLES),
            hosts: Hosts::default(),
            budget: Box::new(memory_budget(sc)),
            tracer: Default::default(),
        };
        sim.tracer = trace::tracer(sc, &sim);
        host_models(&mut sim, sc);
        if warmup > 0 {
            sim.queue.push(warmup, Event::WarmupEnd);
        }
        if sample_ps < end {
            sim.queue.push(sample_ps, Event::Sample);
        }
        for flow in sim.flows.iter_mut() {
            flow.base_ps = flow
                .ports
                .iter()
                .map(|&p| {
                    CELL_BIT_PS.div_ceil(sim.ports[p as usize].rate_bps)
                        + sim.ports[p as usize].link.delay_ps
                })
                .sum();
        }
        for (f, flow) in sim.flows.iter().enumerate() {
            for (h, &p) in flow.ports.iter().enumerate() {
                if let Some(im) = &mut sim.ports[p as usize].link.impair {
                    im.crossing.push((f as u32, h as u8));
                }
            }
        }
        let n_flows = sim.flows.len();
        for p in sim.ports.iter_mut() {
            if let Some(fd) = &mut p.frames {
                fd.vcs = vec![FD_IDLE; n_flows];
            }
        }
        // per-VC state of a port's ABR scheme only for the flows that cross it
        let mut crossing = vec![0u32; sim.ports.len()];
        for flow in sim.flows.iter_mut() {
            let mut slots: Vec<u32> = Vec::with_capacity(flow.ports.len());
            for (h, &p) in flow.ports.iter().enumerate() {
                let again = flow.ports[..h].iter().position(|&q| q == p);
                slots.push(match again {
                    Some(k) => slots[k],
                    None => {
                        crossing[p as usize] += 1;
                        crossing[p as usize] - 1
                    }
                });
            }
            flow.vc_slot = slots;
        }
        for (i, p) in sim.ports.iter_mut().enumerate() {
            let vcs = crossing[i] as usize;
            if let Some(d) = p.scheme.start(p.rate_bps as f64 / 1e6, vcs) {
                sim.queue.push(d, Event::AbrInterval(i as u32));
            }
        }
        // computed departures (`Port::may_compute`) where every flow crossing a port is of one
        // category
        let mut cat: Vec<Option<Option<u8>>> = vec![None; sim.ports.len()];
        for flow in &sim.flows {
            for &p in flow.ports.iter() {
                let c = flow.category as u8;
                cat[p as usize] = match cat[p as usize] {
                    None => Some(Some(c)),
                    Some(Some(k)) if k == c => Some(Some(c)),
                    _ => Some(None),
                };
            }
        }
        let on = sc.run.departures == crate::scenario::Departures::Computed;
        sim.fabric_now = on;
        let traced = sim.tracer.on;
        for (p, c) in sim.ports.iter_mut().zip(cat) {
            let carries = c.is_some();
            if let Some(c) = p.may_compute(c.flatten()).filter(|_| on) {
                p.computed = true;
                p.computed_fast = !traced; // a traced run's hooks: `sim/trace.rs`
                p.computed_cls = c;
                // the waiting cells wait on the link too: room for them beside the cells in
                // flight, so the pipe does not double past its reserved size when the buffer fills
                if p.queue.limit != crate::net::NONE {
                    let room = p.link.pipe.capacity() + p.queue.limit as usize;
                    p.link.reserve(room);
                }
            } else if on && !traced && p.may_start_heard() {
                p.heard_fast = true;
            } else if on
                && carries
                && p.may_defer()
                && sim.nodes[p.node as usize].kind == crate::net::NodeKind::Switch
            {
                // deferred departures (`sim/defer.rs`) where they cannot be computed, at a
                // switch port that carries flows (a port without any needs neither; a host's
                // sources' emissions would need their timers' scheduling moments)
                p.deferred = true;
            }
        }
        timer_lanes(&mut sim);
        link_ties(&mut sim);
        far_passes(&mut sim);
        sim.mark_sinks(on && !traced);
        for e in 0..sim.endpoints.len() {
            let ep = &mut sim.endpoints[e];
            let mut asks = Asks::default();
            let mut ctx = Ctx::new(0, &mut ep.rng, &mut asks);
            ep.app.start(&mut ctx);
            sim.apply(e as u32, &asks);
        }
        sim
    }
}

/// `Link::ties`: the link's port or a port of its far node defers its departures
/// (`sim/defer.rs`).
fn link_ties(sim: &mut Simulation) {
    let mut defers = vec![false; sim.nodes.len()];
    for p in sim.ports.iter().filter(|p| p.deferred) {
        defers[p.node as usize] = true;
    }
    for p in &mut sim.ports {
        p.link.ties = p.deferred || defers[p.to as usize];
    }
}

/// `Port::far_passes`: the fabric of the far node of the port's link passes every cell
/// (`Fabric::passes_all`: an output-buffered fabric).
fn far_passes(sim: &mut Simulation) {
    for p in &mut sim.ports {
        p.far_passes = sim.nodes[p.to as usize].fabric.passes_all();
    }
}

/// The event queue's lanes (`engine.rs`, "Lanes"): one per rate of CBR (and persistent)
/// sources, for the rates of more than one source. Only the work of the queue depends on it.
fn timer_lanes(sim: &mut Simulation) {
    let rate = |ep: &Endpoint| ep.app.cbr_rate_bps();
    let mut sources: BTreeMap<u64, u32> = BTreeMap::new();
    for r in sim.endpoints.iter().filter_map(rate) {
        *sources.entry(r).or_default() += 1;
    }
    sources.retain(|_, n| *n > 1);
    for (lane, n) in sources.values_mut().enumerate() {
        *n = lane as u32;
    }
    if sources.is_empty() {
        return;
    }
    let lane_of = sim
        .endpoints
        .iter()
        .map(|ep| {
            rate(ep)
                .and_then(|r| sources.get(&r).copied())
                .unwrap_or(crate::engine::NO_LANE)
        })
        .collect();
    sim.queue.set_lanes(lane_of);
}

#[cfg(test)]
mod tests {
    /// Defaults live with the scenario keys (`crate::scenario`, exported in the JSON Schema):
    /// the builder falls back on no literal value of its own.
    #[test]
    fn builder_has_no_literal_defaults() {
        let needle = concat!("unwrap", "_or("); // not spelled out, so this file passes
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/build");
        let mut files = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                for (i, _) in line.match_indices(needle) {
                    let arg = line[i + needle.len()..].trim_start();
                    let literal = arg.starts_with(|c: char| {
                        c.is_ascii_digit() || matches!(c, '-' | '.' | '"' | '\'')
                    }) || arg.starts_with("true")
                        || arg.starts_with("false");
                    assert!(
                        !literal,
                        "{}:{}: a literal default in the builder: {}",
                        path.display(),
                        n + 1,
                        line.trim()
                    );
                }
            }
        }
        assert!(files >= 3, "read {files} files of {dir}");
    }
}

/// The memory budget of a run's queues (`crate::budget`): the memory limit less what the
/// estimate made before the run counted.
fn memory_budget(sc: &Scenario) -> crate::budget::Budget {
    let Ok(Some((limit, source))) = crate::scenario::memory_limit(sc) else {
        return crate::budget::Budget::default();
    };
    let estimated = crate::scenario::estimate(sc).memory_bytes;
    crate::budget::Budget {
        limit: limit as u64,
        source,
        estimated: estimated as u64,
        left: (limit - estimated).max(0.0) as u64,
        stopped: None,
    }
}
