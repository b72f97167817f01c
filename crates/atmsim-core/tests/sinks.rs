//! Computed delivery at passive sinks (`sim/sink.rs`, issue 27 item 1) against the `Arrive`
//! event per cell it replaces (`run.departures = "events"`): the same summary and the same
//! series, sample by sample, including a cell arriving at the very instant of a sample after
//! an idle gap on a long link (its event would have been scheduled before the sample's), and no
//! lazy delivery where the receiving end answers (TCP, ABR).

use atmsim_core::build_from_json;
use serde_json::{json, Value};

fn host(n: &str) -> Value {
    json!({"name": n, "kind": "host"})
}

fn link(a: &str, b: &str, rate: f64, km: f64) -> Value {
    json!({"a": a, "b": b, "rate_mbps": rate, "length_km": km})
}

struct Ran {
    summary: Value,
    series: String,
    events: u64,
    sinks: usize,
}

fn run(sc: &Value) -> Ran {
    let mut sim = build_from_json(&sc.to_string()).expect("valid scenario");
    let sinks = sim.sink_links();
    sim.run();
    Ran {
        summary: serde_json::to_value(sim.summary()).unwrap(),
        series: format!("{:?}", sim.series().tables()),
        events: sim.events(),
        sinks,
    }
}

fn diff(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            // the event count is a cost figure, not a result
            for (k, v) in x.iter().filter(|(k, _)| *k != "events") {
                let w = y.get(k).unwrap_or(&Value::Null);
                diff(v, w, &format!("{path}.{k}"), out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff(v, w, &format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(format!("{path}: {a} (sinks) vs {b} (events)")),
        _ => {}
    }
}

/// Runs `sc` both ways: every summary value and every series row equal, `sinks` links
/// delivering lazily, and fewer events that way.
fn alike(name: &str, sc: &Value, sinks: usize) {
    let a = run(sc);
    let mut ev = sc.clone();
    ev["run"]["departures"] = json!("events");
    let b = run(&ev);
    let mut d = vec![];
    diff(&a.summary, &b.summary, "", &mut d);
    eprintln!("{name}: {} events with sinks, {} without", a.events, b.events);
    assert!(d.is_empty(), "{name}: {d:?}");
    assert!(a.series == b.series, "{name}: the series differ");
    assert_eq!((a.sinks, b.sinks), (sinks, 0), "{name}: sink links");
    assert!(a.events < b.events, "{name}: no event saved");
}

/// Three framed ON-OFF sources merge at A into a small buffer with EPD, then cross an
/// impaired trunk (loss, errors, misinsertion) to two sinks: frame and cell losses, errored
/// and misinserted cells, SECBR blocks, a warm-up and samples every 1 ms.
#[test]
fn lossy_framed_sinks_alike() {
    for (seed, discard) in [(1, "epd"), (2, "tail"), (3, "epd")] {
        let mut trunk = link("A", "B", 149.76, 10.0);
        trunk["impairment"] = json!({"loss_probability": 0.002, "error_probability": 0.002,
            "misinsertion_probability": 0.002});
        let mut a = json!({"name": "A", "kind": "switch", "buffer_cells": 200});
        if discard == "epd" {
            a["discard"] = json!("epd");
            a["epd_threshold_cells"] = json!(100);
        }
        let mut conns = vec![];
        let mut nodes = vec![a, json!({"name": "B", "kind": "switch"}), host("d1"), host("d2")];
        let mut links = vec![trunk, link("B", "d1", 149.76, 1.0), link("B", "d2", 100.0, 3.0)];
        for i in 1..=3 {
            nodes.push(host(&format!("h{i}")));
            links.push(link(&format!("h{i}"), "A", 155.52, 1.0));
            let d = if i == 1 { "d1" } else { "d2" };
            conns.push(json!({"name": format!("u{i}"), "route": [format!("h{i}"), "A", "B", d],
                "category": "ubr", "source": {"kind": "onoff", "peak_mbps": 90.0,
                "duty_cycle": 0.6, "period_s": 0.003, "exponential": true, "frame_bytes": 1500}}));
        }
        let sc = json!({"description": "sinks", "run": {"duration_s": 0.2, "warmup_s": 0.03,
            "sample_interval_s": 0.001, "seed": seed},
            "nodes": nodes, "links": links, "connections": conns});
        alike(&format!("lossy seed={seed} {discard}"), &sc, 2);
    }
}

/// One cell every 2 ms over h -> S -> d, the last link 1,000 km (5 ms), at 42.4 Mb/s (cell
/// time 10 us exactly): each cell reaches d at a whole millisecond, the instant of a sample
/// (every 1 ms). Its `Arrive` event was scheduled when it was sent (the cell ahead arrived
/// 2 ms earlier), before that sample's event (1 ms earlier): with events the sample counts
/// it, and so must the sinks' way (`Simulation::sinks_at_sample`). The same with the samples
/// every 10 ms (still after the sending: counted) and with the link 100 m long (0.5 us: the
/// cell is sent after the sample's event is scheduled, so that sample does not count it).
#[test]
fn sample_ties_follow_the_event_order() {
    for (sample_s, km) in [(0.001, 1000.0), (0.01, 1000.0), (0.001, 0.1)] {
        let last = 0.001 * km / 200.0; // 5 us/km
        // sent at 6 ms - (two cell times + 1 km + the last link): arrivals at whole ms
        let start = 0.006 - 20e-6 - 5e-6 - last;
        let sc = json!({"description": "tie", "run": {"duration_s": 0.05,
            "sample_interval_s": sample_s},
            "nodes": [host("h"), {"name": "S", "kind": "switch"}, host("d")],
            "links": [link("h", "S", 42.4, 1.0), link("S", "d", 42.4, km)],
            "connections": [{"name": "c", "route": ["h", "S", "d"], "category": "cbr",
                "source": {"kind": "cbr", "rate_mbps": 0.212, "start_s": start}}]});
        alike(&format!("tie sample={sample_s} km={km}"), &sc, 1);
    }
}

/// Cell-level applications at both ends of bidirectional connections (each end receives what
/// the other sends, and only counts it), over a satellite hop, with samples and a warm-up.
#[test]
fn bidirectional_cell_sources_alike() {
    let mut conns = vec![];
    for i in 0..3 {
        conns.push(json!({"name": format!("c{i}"), "route": [format!("h{i}"), "A", "B", format!("d{i}")],
            "category": "ubr", "bidirectional": true,
            "source": {"kind": "onoff", "peak_mbps": 60.0, "duty_cycle": 0.5, "period_s": 0.01,
                "exponential": true},
            "reverse_source": {"kind": "cbr", "rate_mbps": 5.0 + i as f64, "frame_bytes": 500}}));
    }
    let mut nodes = vec![json!({"name": "A", "kind": "switch", "buffer_cells": 300}),
        json!({"name": "B", "kind": "switch", "buffer_cells": 300})];
    let mut links = vec![link("A", "B", 149.76, 8000.0)];
    for i in 0..3 {
        nodes.push(host(&format!("h{i}")));
        nodes.push(host(&format!("d{i}")));
        links.push(link(&format!("h{i}"), "A", 149.76, 1.0));
        links.push(link("B", &format!("d{i}"), 149.76, 1.0));
    }
    let sc = json!({"description": "bidirectional", "run": {"duration_s": 0.3, "warmup_s": 0.05,
        "sample_interval_s": 0.002},
        "nodes": nodes, "links": links, "connections": conns});
    // B -> d_i and A -> h_i
    alike("bidirectional", &sc, 6);
}

/// Where the far end answers (a TCP receiver acknowledges, an ABR destination turns RM cells
/// round) its cells keep their events: no sink link.
#[test]
fn answering_ends_are_not_sinks() {
    let tcp = json!({"description": "tcp", "run": {"duration_s": 0.01},
        "nodes": [host("h"), {"name": "A", "kind": "switch"}, host("d")],
        "links": [link("h", "A", 149.76, 1.0), link("A", "d", 149.76, 1.0)],
        "connections": [{"name": "t", "route": ["h", "A", "d"], "category": "ubr",
            "source": {"kind": "tcp", "tcp": {"mss_bytes": 9140, "window_bytes": 65535}}}]});
    let abr = json!({"description": "abr", "run": {"duration_s": 0.01},
        "nodes": [host("h"), {"name": "A", "kind": "switch", "abr": {"scheme": "erica"}}, host("d")],
        "links": [link("h", "A", 149.76, 1.0), link("A", "d", 149.76, 1.0)],
        "connections": [{"name": "x", "route": ["h", "A", "d"], "category": "abr", "abr": {},
            "source": {"kind": "persistent"}}]});
    for sc in [tcp, abr] {
        let sim = build_from_json(&sc.to_string()).expect("valid scenario");
        assert_eq!(sim.sink_links(), 0, "{}", sc["description"]);
    }
}

/// A sink behind a port that defers its departures (an ERICA port: `sim/defer.rs`), beside an
/// ABR connection sharing the trunk: the cells a settle puts on the sink's link are delivered
/// as they arrive.
#[test]
fn sink_behind_a_deferring_port_alike() {
    let sw = |n: &str| json!({"name": n, "kind": "switch", "buffer_cells": 500, "abr": {"scheme": "erica"}});
    let sc = json!({"description": "deferred sink", "run": {"duration_s": 0.1, "warmup_s": 0.01,
        "sample_interval_s": 0.001},
        "nodes": [host("h1"), host("h2"), sw("A"), sw("B"), host("d1"), host("d2")],
        "links": [link("h1", "A", 149.76, 1.0), link("h2", "A", 149.76, 1.0),
            link("A", "B", 149.76, 100.0), link("B", "d1", 149.76, 1.0), link("B", "d2", 149.76, 1.0)],
        "connections": [
            {"name": "x", "route": ["h1", "A", "B", "d1"], "category": "abr", "abr": {},
             "source": {"kind": "persistent"}},
            {"name": "v", "route": ["h2", "A", "B", "d2"], "category": "rt-vbr",
             "source": {"kind": "onoff", "peak_mbps": 100.0, "duty_cycle": 0.5, "period_s": 0.004,
                "exponential": true, "frame_bytes": 1000}}]});
    alike("deferred sink", &sc, 1);
}
