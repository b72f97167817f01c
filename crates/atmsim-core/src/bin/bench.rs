//! `make bench`: throughput and memory of the core on the two reference scenarios.
//!
//! (a) 15 persistent sources at 12 Mb/s each into switch A, A to B at 149.76 Mb/s over 1000 km,
//!     B to 15 sinks, 10 simulated seconds; (b) the same with a 270 ms A-B hop (satellite).
//! Each case runs in its own process (this program re-runs itself) so that its peak resident
//! memory is its own. Prints cell-hops per wall-clock second, events per second, peak memory and
//! memory per cell in flight, and writes them to `target/bench.json`.

use atmsim_core::build_from_json;
use serde_json::{json, Value};
use std::process::Command;
use std::time::Instant;

fn scenario(ab: Value, duration: f64) -> Value {
    let mut nodes = vec![
        json!({"name": "A", "kind": "switch", "buffer_cells": 10000}),
        json!({"name": "B", "kind": "switch"}),
    ];
    let mut links = vec![];
    let mut conns = vec![];
    for i in 1..=15 {
        nodes.push(json!({"name": format!("s{i}"), "kind": "host"}));
        nodes.push(json!({"name": format!("d{i}"), "kind": "host"}));
        links.push(json!({"a": format!("s{i}"), "b": "A", "rate_mbps": 149.76, "length_km": 1.0}));
        links.push(json!({"a": "B", "b": format!("d{i}"), "rate_mbps": 149.76, "length_km": 1.0}));
        conns.push(
            json!({"name": format!("c{i}"), "route": [format!("s{i}"), "A", "B", format!("d{i}")],
                          "category": "ubr", "source": {"kind": "persistent", "peak_mbps": 12.0}}),
        );
    }
    let mut l = json!({"a": "A", "b": "B", "rate_mbps": 149.76});
    l.as_object_mut()
        .unwrap()
        .extend(ab.as_object().unwrap().clone());
    links.push(l);
    json!({"description": "benchmark (issue 2)", "run": {"duration_s": duration, "sample_interval_s": 0.01},
           "nodes": nodes, "links": links, "connections": conns})
}

fn peak_rss_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

fn one(case: &str, duration: f64) -> Value {
    let ab = match case {
        "a" => json!({"length_km": 1000.0}),
        "b" => json!({"delay_us": 270000.0}),
        "a0" => json!({"delay_us": 0.0}),
        _ => panic!("unknown case"),
    };
    let sc = scenario(ab, duration).to_string();
    let t0 = Instant::now();
    let mut sim = build_from_json(&sc).expect("bench scenario is valid");
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    json!({
        "case": case,
        "sim_time_s": duration,
        "wall_time_s": wall,
        "cell_hops": sim.cell_hops(),
        "events": sim.events(),
        "cell_hops_per_s": sim.cell_hops() as f64 / wall,
        "events_per_s": sim.events() as f64 / wall,
        "ns_per_cell_hop": wall * 1e9 / sim.cell_hops() as f64,
        "cells_in_flight_at_end": sim.cells_in_flight_now(),
        "peak_rss_bytes": peak_rss_bytes(),
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let duration = std::env::var("ATMSIM_BENCH_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10.0);
    if args.len() == 3 && args[1] == "--one" {
        println!("{}", one(&args[2], duration));
        return;
    }
    let exe = std::env::current_exe().expect("own path");
    let run = |case: &str| -> Value {
        let out = Command::new(&exe)
            .args(["--one", case])
            .output()
            .expect("run bench case");
        assert!(out.status.success(), "bench case {case} failed");
        serde_json::from_slice(&out.stdout).expect("bench output")
    };
    let (a, b, a0) = (run("a"), run("b"), run("a0"));
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    let cost_ratio = f(&b, "ns_per_cell_hop") / f(&a, "ns_per_cell_hop");
    // memory per cell in flight: the satellite case against the same network with a 0 km A-B link
    let mem_per_cell = (f(&b, "peak_rss_bytes") - f(&a0, "peak_rss_bytes"))
        / (f(&b, "cells_in_flight_at_end") - f(&a0, "cells_in_flight_at_end"));
    println!("atmsim-core benchmark, {duration} simulated seconds, release build, one core");
    println!(
        "{:<34} {:>14} {:>12} {:>14} {:>12} {:>10}",
        "case", "cell-hops/s", "events/s", "cells in flight", "peak RSS MB", "wall s"
    );
    for (name, v) in [
        ("(a) 15 x 12 Mb/s, 1000 km", &a),
        ("(b) same, 270 ms A-B hop", &b),
        ("(ref) same, 0 km A-B", &a0),
    ] {
        println!(
            "{:<34} {:>14.0} {:>12.0} {:>14} {:>12.1} {:>10.3}",
            name,
            f(v, "cell_hops_per_s"),
            f(v, "events_per_s"),
            v["cells_in_flight_at_end"],
            f(v, "peak_rss_bytes") / 1e6,
            f(v, "wall_time_s")
        );
    }
    println!("(b) cost per cell-hop / (a): {cost_ratio:.3}  (goal <= 1.3)");
    println!("memory per cell in flight: {mem_per_cell:.1} bytes  (goal <= 64)");
    println!(
        "(a) cell-hops per second: {:.2} million  (goal >= 20)",
        f(&a, "cell_hops_per_s") / 1e6
    );
    let report = json!({"duration_s": duration, "a": a, "b": b, "reference_0km": a0,
                        "b_over_a_cost_per_cell_hop": cost_ratio, "bytes_per_cell_in_flight": mem_per_cell});
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
    std::fs::create_dir_all(&dir).ok();
    let path = dir.canonicalize().unwrap_or(dir).join("bench.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report).unwrap() + "\n")
        .expect("write bench.json");
    println!("wrote {}", path.display());
}
