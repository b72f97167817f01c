//! Switch fabrics in whole runs: the credit fabric's outputs never drop and its input drops are
//! the excess, the TDM bus carries min(C, sum of input rates), credits and their delay pace an
//! output, the latency is a fixed delay, conservation over both buffers, determinism.

use crate::build_from_json;
use crate::sim::Simulation;
use crate::time::{SimTime, CELL_BIT_PS};
use serde_json::{json, Value};

fn host(n: &str) -> Value {
    json!({"name": n, "kind": "host"})
}

fn link(a: &str, b: &str, rate: f64) -> Value {
    json!({"a": a, "b": b, "rate_mbps": rate, "delay_us": 0.0})
}

/// `senders` hosts s0.. each sending `per_host` CBR connections of `mbps`, connection j of host
/// i to receiver rk (k = (i + j) % receivers) through switch S with `fabric`; all links at `link_mbps`.
fn star(
    senders: usize,
    receivers: usize,
    per_host: usize,
    mbps: f64,
    link_mbps: f64,
    fabric: Value,
    duration: f64,
) -> Value {
    let mut nodes = vec![json!({"name": "S", "kind": "switch", "fabric": fabric})];
    let mut links = vec![];
    let mut conns = vec![];
    for k in 0..receivers {
        nodes.push(host(&format!("r{k}")));
        links.push(link("S", &format!("r{k}"), link_mbps));
    }
    for i in 0..senders {
        let h = format!("s{i}");
        nodes.push(host(&h));
        links.push(link(&h, "S", link_mbps));
        for j in 0..per_host {
            conns.push(json!({"name": format!("c{i}_{j}"), "route": [h, "S", format!("r{}", (i + j) % receivers)],
                "category": "ubr", "source": {"kind": "cbr", "rate_mbps": mbps}}));
        }
    }
    json!({"description": "credit fabric test", "run": {"duration_s": duration},
           "nodes": nodes, "links": links, "connections": conns})
}

fn credit(input: u32, output: u32, bus: f64) -> Value {
    json!({"kind": "credit", "input_buffer_cells": input, "output_buffer_cells": output, "bus_mbps": bus})
}

fn run(sc: &Value) -> Simulation {
    let mut sim = build_from_json(&sc.to_string()).expect("valid scenario");
    sim.run();
    sim
}

fn port(sim: &Simulation, name: &str) -> usize {
    sim.ports.iter().position(|p| p.name == name).expect("port")
}

fn fabric_stats(sim: &Simulation) -> (u64, u64, u32) {
    let f = sim.nodes[0].fabric.summary().expect("a credit fabric");
    (f.bus_cells, f.input_drops, f.cells_in_inputs)
}

fn cells_at(rate_mbps: f64, t: SimTime) -> f64 {
    t as f64 * rate_mbps * 1e6 / CELL_BIT_PS as f64
}

#[test]
fn credit_outputs_never_drop_and_input_drops_are_the_excess() {
    // 4 senders x 60 Mb/s into one 100 Mb/s output: 140 Mb/s too much, for any output buffer
    for (input, output) in [(100, 50), (2450, 1), (10, 200)] {
        let sim = run(&star(
            4,
            1,
            1,
            60.0,
            100.0,
            credit(input, output, 2400.0),
            0.05,
        ));
        let s = sim.summary();
        let out = &s.ports["S->r0"];
        assert_eq!(
            out.cells_dropped, 0,
            "output drops with buffers {input}/{output}"
        );
        let (bus, input_drops, waiting) = fabric_stats(&sim);
        let arrived: u64 = (0..4)
            .map(|i| sim.ports[port(&sim, &format!("s{i}->S"))].stats.tx_cells)
            .sum();
        let on_links: u64 = (0..4)
            .map(|i| sim.ports[port(&sim, &format!("s{i}->S"))].link.pipe.len() as u64)
            .sum();
        let in_output = sim.ports[port(&sim, "S->r0")].queue.len as u64;
        // the input buffers take what arrived, less what crossed, less what they hold
        assert_eq!(input_drops, arrived - on_links - bus - waiting as u64);
        assert_eq!(bus, out.cells_transmitted + in_output);
        let dropped: u64 = (0..4)
            .map(|i| s.ports[&format!("s{i}->S")].drops["input_buffer_full"])
            .sum();
        assert_eq!(dropped, input_drops, "drops counted on the feeding ports");
        // closed form: the excess of 4 x 60 over 100 Mb/s, less what the buffers hold at the end
        // (every input full: they are served in turn at 25 Mb/s each, below their 60 Mb/s)
        let t = sim.now;
        let excess = cells_at(240.0, t) - cells_at(100.0, t) - (4 * input + output) as f64;
        assert!(
            (input_drops as f64 - excess).abs() < 12.0,
            "drops {input_drops}, excess {excess}"
        );
        // every input full at the end but for the cell just served (at most one each)
        assert!(
            waiting + 4 >= 4 * input && waiting <= 4 * input,
            "inputs hold {waiting}"
        );
    }
}

#[test]
fn tdm_bus_carries_the_smaller_of_its_capacity_and_the_offered_load() {
    // 4 inputs at 500 Mb/s (saturated: CBR at the line rate) to 4 distinct outputs
    for (bus, expected) in [(1000.0, 1000.0), (1500.0, 1500.0), (2400.0, 2000.0)] {
        let sim = run(&star(4, 4, 1, 500.0, 500.0, credit(50, 50, bus), 0.01));
        let (carried, _, _) = fabric_stats(&sim);
        let want = cells_at(expected, sim.now);
        assert!(
            (carried as f64 - want).abs() <= 4.0,
            "bus {bus}: carried {carried}, min(C, sum) gives {want}"
        );
        let s = sim.summary();
        for k in 0..4 {
            assert_eq!(s.ports[&format!("S->r{k}")].cells_dropped, 0);
        }
    }
}

#[test]
fn a_credit_and_its_delay_pace_an_output() {
    // one credit, returned 4 cell times (at 100 Mb/s) after its cell leaves: one cell per 4
    // cell times, whatever the input offers
    let ct = CELL_BIT_PS / 100_000_000; // 4.24 us
    let delay_us = 4.0 * ct as f64 / 1e6;
    let mut f = credit(100, 1, 2400.0);
    f["credit_delay_us"] = delay_us.into();
    let sim = run(&star(1, 1, 1, 100.0, 100.0, f, 0.01));
    let s = sim.summary();
    let sent = s.ports["S->r0"].cells_transmitted as f64;
    let want = sim.now as f64 / (4 * ct) as f64;
    assert!((sent - want).abs() <= 2.0, "sent {sent}, expected {want}");
    assert_eq!(s.ports["S->r0"].cells_dropped, 0);
}

#[test]
fn latency_is_a_fixed_delay_at_light_load() {
    let mut f = credit(100, 50, 2400.0);
    f["latency_us"] = 39.9.into();
    let sim = run(&star(1, 1, 1, 10.0, 100.0, f, 0.01));
    let s = sim.summary();
    let c = &s.connections["c0_0"];
    // two cell times at 100 Mb/s (ceil, ps) + the latency; no propagation
    let d = 2.0 * (CELL_BIT_PS.div_ceil(100_000_000)) as f64 / 1e6 + 39.9;
    assert!(
        (c.ctd_min_us.unwrap() - d).abs() < 1e-6,
        "{:?} vs {d}",
        c.ctd_min_us
    );
    assert!((c.ctd_max_us.unwrap() - d).abs() < 1e-6);
}

fn bursty(queueing: &str, seed: u64) -> Value {
    // 4 senders with 3 exponential on-off connections each, to 2 receivers: overload in bursts
    let mut sc = star(4, 2, 3, 0.0, 100.0, credit(200, 20, 2400.0), 0.05);
    sc["nodes"][0]["fabric"]["queueing"] = queueing.into();
    sc["nodes"][0]["fabric"]["credit_delay_us"] = 3.0.into();
    sc["run"]["seed"] = seed.into();
    for c in sc["connections"].as_array_mut().unwrap() {
        c["source"] = json!({"kind": "onoff", "peak_mbps": 60.0, "duty_cycle": 0.4,
                              "period_s": 0.002, "exponential": true});
    }
    sc
}

#[test]
fn conservation_over_both_buffers_and_determinism() {
    for q in ["fifo", "voq"] {
        let sim = run(&bursty(q, 3));
        let s = sim.summary();
        let (bus, input_drops, waiting) = fabric_stats(&sim);
        assert!(input_drops > 0, "{q}: the test must overload the inputs");
        let mut sent = 0;
        let mut delivered = 0;
        let mut dropped = 0;
        for c in s.connections.values() {
            sent += c.cells_sent;
            delivered += c.cells_delivered;
            dropped += c.cells_dropped;
            assert_eq!(
                c.cells_sent,
                c.cells_delivered + c.cells_dropped + c.cells_in_flight
            );
        }
        assert_eq!(dropped, input_drops, "{q}: every loss is at an input");
        // in the network: host queues and links, the input buffers, the output buffers and lines
        let queued: u64 = sim.ports.iter().map(|p| p.queue.len as u64).sum();
        let on_links: u64 = sim.ports.iter().map(|p| p.link.pipe.len() as u64).sum();
        assert_eq!(
            sent,
            delivered + dropped + queued + on_links + waiting as u64,
            "{q}"
        );
        let out_tx: u64 = (0..2)
            .map(|k| s.ports[&format!("S->r{k}")].cells_transmitted)
            .sum();
        let out_q: u64 = (0..2)
            .map(|k| sim.ports[port(&sim, &format!("S->r{k}"))].queue.len as u64)
            .sum();
        assert_eq!(
            bus,
            out_tx + out_q,
            "{q}: what crossed the bus is in or past the outputs"
        );
        for k in 0..2 {
            assert_eq!(s.ports[&format!("S->r{k}")].cells_dropped, 0);
        }
        // determinism: the same scenario and seed give the same run
        let again = run(&bursty(q, 3));
        let a = serde_json::to_value(&s).unwrap();
        let b = serde_json::to_value(again.summary()).unwrap();
        assert_eq!(a, b, "{q}: same seed, same summary");
        assert_eq!(fabric_stats(&again), (bus, input_drops, waiting));
    }
}

#[test]
fn voq_carries_more_than_fifo_under_head_of_line_blocking() {
    let fifo = fabric_stats(&run(&bursty("fifo", 9))).0;
    let voq = fabric_stats(&run(&bursty("voq", 9))).0;
    assert!(voq >= fifo, "voq {voq} < fifo {fifo}");
}
