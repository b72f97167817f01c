//! Scenario-level tests of the core: closed-form results, conservation, determinism.

use atmsim_core::build_from_json;
use atmsim_core::metrics::ConnectionSummary;
use atmsim_core::sim::Simulation;
use atmsim_core::time::{cell_time_ps, mbps_to_bps, CELL_BIT_PS};
use serde_json::{json, Value};

fn host(n: &str) -> Value {
    json!({"name": n, "kind": "host"})
}
fn switch(n: &str, extra: Value) -> Value {
    let mut v = json!({"name": n, "kind": "switch"});
    v.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    v
}
/// A link of `km` (0: no propagation delay, given as `delay_us`, since a length must be > 0).
fn link(a: &str, b: &str, rate: f64, km: f64) -> Value {
    if km == 0.0 {
        json!({"a": a, "b": b, "rate_mbps": rate, "delay_us": 0.0})
    } else {
        json!({"a": a, "b": b, "rate_mbps": rate, "length_km": km})
    }
}
fn run(sc: &Value) -> Simulation {
    let mut sim = build_from_json(&sc.to_string()).expect("valid scenario");
    sim.run();
    sim
}
fn conn<'a>(s: &'a atmsim_core::metrics::Summary, name: &str) -> &'a ConnectionSummary {
    &s.connections[name]
}

fn ceil_cell_ps(mbps: f64) -> u64 {
    CELL_BIT_PS.div_ceil(mbps_to_bps(mbps))
}

#[test]
fn cbr_closed_form_count_and_delay() {
    // 42.4 Mb/s = one cell every 10 us exactly; three hops of different rates and lengths
    let sc = json!({
        "description": "closed form",
        "run": {"duration_s": 0.01},
        "nodes": [host("h1"), switch("A", json!({"fabric_delay_us": 3.0})), switch("B", json!({"fabric_delay_us": 7.5})), host("h2")],
        "links": [link("h1", "A", 155.52, 1.0), link("A", "B", 149.76, 1000.0), link("B", "h2", 100.0, 0.2)],
        "connections": [{"name": "c", "route": ["h1", "A", "B", "h2"], "category": "cbr",
                         "source": {"kind": "cbr", "rate_mbps": 42.4}}]
    });
    let sim = run(&sc);
    let s = sim.summary();
    let c = conn(&s, "c");
    // per hop: transmission (ceil of the exact cell time in ps) + 5 us/km; plus fabric delays
    let d_ps = ceil_cell_ps(155.52)
        + ceil_cell_ps(149.76)
        + ceil_cell_ps(100.0)
        + 5_000_000 * 1
        + 5_000_000 * 1000
        + 1_000_000
        + 3_000_000
        + 7_500_000;
    let d_us = d_ps as f64 / 1e6;
    assert_eq!(c.ctd_min_us.unwrap(), d_us);
    assert_eq!(c.ctd_max_us.unwrap(), d_us);
    assert_eq!(c.cdv_p2p_us.unwrap(), 0.0);
    // cells created at 0, 10 us, ... 9990 us; delivered if created + D <= 10 ms
    assert_eq!(c.cells_sent, 1000);
    let delivered = (0..1000u64)
        .filter(|k| k * 10_000_000 + d_ps <= 10_000_000_000)
        .count() as u64;
    assert_eq!(c.cells_delivered, delivered);
    assert_eq!(c.cells_in_flight, 1000 - delivered);
    assert_eq!(c.cells_dropped, 0);
    // stop the source at 10 ms and run on until every cell has arrived: 1000 cells x 3 links
    let mut sc2 = sc.clone();
    sc2["connections"][0]["source"]["stop_s"] = 0.01.into();
    sc2["run"]["duration_s"] = 0.02.into();
    let s2 = run(&sc2).summary();
    assert_eq!(conn(&s2, "c").cells_delivered, 1000);
    assert_eq!(s2.cell_hops, 3000);
}

#[test]
fn overload_queue_grows_at_excess_rate_then_drops_the_excess() {
    // two persistent sources at 70 Mb/s into a 100 Mb/s port: excess 40 Mb/s = 94,339.6 cells/s
    let buffer = 5000u32;
    let mk = |warmup: f64, dur: f64| {
        json!({
            "description": "overload",
            "run": {"duration_s": dur, "warmup_s": warmup, "sample_interval_s": 0.001},
            "nodes": [host("h1"), host("h2"), switch("A", json!({"buffer_cells": buffer})), host("d")],
            "links": [link("h1", "A", 155.52, 0.0), link("h2", "A", 155.52, 0.0), link("A", "d", 100.0, 0.0)],
            "connections": [
                {"name": "s1", "route": ["h1", "A", "d"], "category": "ubr", "source": {"kind": "persistent", "peak_mbps": 70.0}},
                {"name": "s2", "route": ["h2", "A", "d"], "category": "ubr", "source": {"kind": "persistent", "peak_mbps": 70.0}}
            ]
        })
    };
    let excess_cells_per_s = 40e6 / 424.0;
    let fill_s = buffer as f64 / excess_cells_per_s; // 53 ms
    let sim = run(&mk(0.0, 0.05));
    let pi = sim.port_index("A->d").unwrap() as u32;
    let ports = sim.series().table("ports").unwrap();
    let col = |name: &str| ports.column(name).unwrap();
    let (time_s, port) = (
        col("time_s").as_f64().unwrap(),
        col("port").as_u32().unwrap(),
    );
    let queue_cells = col("queue_cells").as_u32().unwrap();
    let mut checked = 0;
    for i in 0..time_s.len() {
        if port[i] == pi {
            let t = time_s[i];
            let expect = excess_cells_per_s * t;
            assert!(
                (queue_cells[i] as f64 - expect).abs() <= 2.0,
                "t {t}: {} vs {expect}",
                queue_cells[i]
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 50);
    // after the buffer is full, the drops per second equal the excess
    let (w, d) = (fill_s + 0.01, fill_s + 0.51);
    let sim = run(&mk(w, d));
    let s = sim.summary();
    let p = &s.ports["A->d"];
    assert_eq!(p.max_queue_cells, buffer);
    let expect = excess_cells_per_s * (d - w);
    assert!(
        (p.cells_dropped as f64 - expect).abs() <= 3.0,
        "{} vs {expect}",
        p.cells_dropped
    );
    assert!((p.utilization - 1.0).abs() < 1e-4);
    assert_eq!(p.drops["port_buffer_full"], p.cells_dropped);
}

#[test]
fn strict_priority_cbr_delay_unaffected_by_ubr_load() {
    let mk = |ubr_on: bool| {
        let mut conns = vec![
            json!({"name": "cbr", "route": ["h1", "A", "d"], "category": "cbr",
                                    "source": {"kind": "cbr", "rate_mbps": 30.0}}),
        ];
        if ubr_on {
            conns.push(
                json!({"name": "ubr", "route": ["h2", "A", "d"], "category": "ubr",
                              "source": {"kind": "persistent", "peak_mbps": 155.52}}),
            );
        }
        json!({
            "description": "priority",
            "run": {"duration_s": 0.2},
            "nodes": [host("h1"), host("h2"), switch("A", json!({"buffer_cells": 1000, "class_buffer_cells": {"ubr": 500}})), host("d")],
            "links": [link("h1", "A", 155.52, 10.0), link("h2", "A", 155.52, 10.0), link("A", "d", 149.76, 100.0)],
            "connections": conns
        })
    };
    let base = run(&mk(false)).summary();
    let loaded = run(&mk(true)).summary();
    let (b, l) = (conn(&base, "cbr"), conn(&loaded, "cbr"));
    assert!(
        conn(&loaded, "ubr").cells_dropped > 0,
        "the UBR load must overload the port"
    );
    assert_eq!(l.cells_dropped, 0);
    assert_eq!(l.cells_delivered, b.cells_delivered);
    // non-preemptive priority: a CBR cell waits at most for the one UBR cell on the line
    let one_cell_us = cell_time_ps(mbps_to_bps(149.76)) as f64 / 1e6 + 1e-6;
    assert!(l.ctd_max_us.unwrap() <= b.ctd_max_us.unwrap() + one_cell_us);
    assert!(l.ctd_mean_us.unwrap() <= b.ctd_mean_us.unwrap() + one_cell_us);
}

/// F: frames of 100 bytes = ceil(108/48) = 3 cells, one cell every 10 cell times T; F's cell k
/// reaches the switch at (10k + 1) T. G: a burst of 20 cells at 3C from `g_start` T keeps the
/// switch's 1-cell buffer full for about 6.7 T, so exactly one F cell meets a full buffer.
fn aal5_loss_case(g_start: f64) -> atmsim_core::metrics::Summary {
    let c = 100.0;
    let t_cell = 424.0 / (c * 1e6);
    let sc = json!({
        "description": "aal5 loss",
        "run": {"duration_s": 0.01},
        "nodes": [host("hf"), host("hg"), switch("A", json!({"buffer_cells": 1})), host("d")],
        "links": [link("hf", "A", c, 0.0), link("hg", "A", 3.0 * c, 0.0), link("A", "d", c, 0.0)],
        "connections": [
            {"name": "F", "route": ["hf", "A", "d"], "category": "ubr",
             "source": {"kind": "cbr", "rate_mbps": c / 10.0, "frame_bytes": 100, "stop_s": 300.0 * t_cell}},
            {"name": "G", "route": ["hg", "A", "d"], "category": "ubr",
             "source": {"kind": "cbr", "rate_mbps": 3.0 * c, "start_s": g_start * t_cell, "stop_s": (g_start + 6.6) * t_cell}}
        ]
    });
    run(&sc).summary()
}

#[test]
fn aal5_frame_cells_and_one_lost_cell_loses_exactly_that_frame() {
    // G's burst covers F's cell 4 (arrives at 41 T), the middle cell of frame 1
    let s = aal5_loss_case(38.0);
    let f = conn(&s, "F");
    assert_eq!(f.cells_sent, 30);
    assert_eq!(f.frames_sent, 10);
    assert_eq!(
        f.cells_sent / f.frames_sent,
        atmsim_core::wire::aal5_cells(100) as u64
    );
    assert_eq!(
        f.cells_dropped, 1,
        "setup: exactly one F cell meets the full buffer"
    );
    assert_eq!(f.frames_lost, 1);
    assert_eq!(f.frames_delivered, 9);
    assert_eq!(f.cells_delivered, 29);
    assert!((f.user_throughput_mbps - 9.0 * 100.0 * 8.0 / 0.01 / 1e6).abs() < 1e-9);
}

#[test]
fn aal5_lost_end_of_frame_cell_merges_two_frames() {
    // G's burst covers F's cell 5 (51 T), the end-of-frame cell of frame 1: the receiver joins
    // frames 1 and 2 into one bad CPCS-PDU, so both are lost (I.363.5 reassembly)
    let s = aal5_loss_case(48.0);
    let f = conn(&s, "F");
    assert_eq!(
        f.cells_dropped, 1,
        "setup: exactly one F cell meets the full buffer"
    );
    assert_eq!(f.frames_lost, 2);
    assert_eq!(f.frames_delivered, 8);
}

fn lossy_random_scenario(seed: u64) -> Value {
    json!({
        "description": "conservation",
        "run": {"duration_s": 0.3, "warmup_s": 0.05, "seed": seed},
        "nodes": [host("h1"), host("h2"), host("h3"), switch("A", json!({"buffer_cells": 300, "fabric_delay_us": 2.0})),
                  switch("B", json!({"buffer_cells": 200, "class_buffer_cells": {"ubr": 50},
                                     "shared_buffers": [{"ports": ["d1", "d2"], "buffer_cells": 180}]})),
                  host("d1"), host("d2")],
        "links": [link("h1", "A", 155.52, 5.0), link("h2", "A", 155.52, 50.0), link("h3", "B", 155.52, 1.0),
                  link("A", "B", 149.76, 300.0), link("B", "d1", 100.0, 1.0), link("B", "d2", 60.0, 1.0)],
        "connections": [
            {"name": "on1", "route": ["h1", "A", "B", "d1"], "category": "rt-vbr",
             "source": {"kind": "onoff", "peak_mbps": 120.0, "duty_cycle": 0.5, "period_s": 0.004, "exponential": true, "frame_bytes": 1500}},
            {"name": "on2", "route": ["h2", "A", "B", "d2"], "category": "ubr",
             "source": {"kind": "onoff", "peak_mbps": 150.0, "duty_cycle": 0.4, "period_s": 0.002, "exponential": true}},
            {"name": "cbr", "route": ["h3", "B", "d2"], "category": "cbr", "bidirectional": true,
             "source": {"kind": "cbr", "rate_mbps": 20.0},
             "reverse_source": {"kind": "persistent", "peak_mbps": 5.0}}
        ]
    })
}

#[test]
fn conservation_sent_equals_delivered_dropped_in_flight() {
    for seed in [1, 2, 3] {
        let sim = run(&lossy_random_scenario(seed));
        let s = sim.summary();
        let mut dropped = 0;
        for (name, c) in &s.connections {
            assert!(c.cells_sent > 0, "{name}");
            assert_eq!(
                c.cells_sent,
                c.cells_delivered + c.cells_dropped + c.cells_in_flight,
                "{name}"
            );
            assert_eq!(
                c.frames_sent,
                c.frames_delivered + c.frames_lost + c.frames_in_network,
                "{name}"
            );
            dropped += c.cells_dropped;
        }
        assert!(
            dropped > 0,
            "the scenario must lose cells to test conservation under loss"
        );
        for reason in [
            "port_buffer_full",
            "class_buffer_full",
            "shared_buffer_full",
        ] {
            assert!(
                s.ports.values().map(|p| p.drops[reason]).sum::<u64>() > 0,
                "{reason}"
            );
        }
        assert!(s.connections.contains_key("cbr.reverse"));
    }
}

/// Issue 26: frames whose end-of-frame cell waits in the source shaper are on their way, not
/// lost. 1,000-byte frames (21 cells) at 10 Mb/s shaped to a 5 Mb/s PCR: the shaper's queue
/// grows by half the cells sent, no cell is dropped, and frames and their bytes conserve with
/// the ones in the shaper counted in the network.
#[test]
fn frames_waiting_in_the_source_shaper_are_in_the_network() {
    let sc = json!({
        "description": "shaper", "run": {"duration_s": 0.1},
        "nodes": [host("h1"), switch("S", json!({})), host("h2")],
        "links": [link("h1", "S", 149.76, 1.0), link("S", "h2", 149.76, 1.0)],
        "connections": [{"name": "c", "route": ["h1", "S", "h2"], "category": "cbr",
                         "contract": {"pcr_mbps": 5.0, "cdvt_us": 0.0},
                         "source": {"kind": "cbr", "rate_mbps": 10.0, "frame_bytes": 1000, "shape": true}}]
    });
    let s = run(&sc).summary();
    let c = conn(&s, "c");
    assert_eq!(c.cells_dropped, 0);
    assert_eq!(c.frames_lost, 0, "{c:?}");
    assert!(
        c.frames_in_network * 2 >= c.frames_sent - 1,
        "about half wait: {c:?}"
    );
    assert_eq!(c.frames_sent, c.frames_delivered + c.frames_in_network);
    assert_eq!(c.frame_bytes_sent, 1000 * c.frames_sent);
    assert_eq!(c.frame_bytes_in_network, 1000 * c.frames_in_network);
    assert_eq!(c.frame_bytes_lost, 0);
}

#[test]
fn determinism_same_seed_same_bytes_other_seed_differs() {
    let a = serde_json::to_string(&run(&lossy_random_scenario(7)).summary()).unwrap();
    let b = serde_json::to_string(&run(&lossy_random_scenario(7)).summary()).unwrap();
    let c = serde_json::to_string(&run(&lossy_random_scenario(8)).summary()).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn chunked_run_equals_one_run() {
    let one = serde_json::to_string(&run(&lossy_random_scenario(3)).summary()).unwrap();
    let mut sim = build_from_json(&lossy_random_scenario(3).to_string()).unwrap();
    while !sim.advance(777) {}
    assert_eq!(serde_json::to_string(&sim.summary()).unwrap(), one);
}

fn impaired(im: Value, seed: u64) -> atmsim_core::metrics::Summary {
    let mut trunk = link("A", "B", 149.76, 10.0);
    trunk["impairment"] = im;
    let sc = json!({
        "description": "impairment",
        "run": {"duration_s": 1.0, "seed": seed},
        "nodes": [host("h1"), host("h2"), switch("A", json!({})), switch("B", json!({})), host("d1"), host("d2")],
        "links": [link("h1", "A", 149.76, 1.0), link("h2", "A", 149.76, 1.0), trunk, link("B", "d1", 149.76, 1.0), link("B", "d2", 149.76, 1.0)],
        "connections": [
            {"name": "c1", "route": ["h1", "A", "B", "d1"], "category": "cbr", "source": {"kind": "cbr", "rate_mbps": 42.4, "stop_s": 0.9}},
            {"name": "c2", "route": ["h2", "A", "B", "d2"], "category": "cbr", "source": {"kind": "cbr", "rate_mbps": 21.2, "stop_s": 0.9, "frame_bytes": 1000}}
        ]
    });
    run(&sc).summary()
}

/// |measured - p| within 4 standard deviations of a binomial proportion over n trials.
fn within_ci(measured: f64, p: f64, n: u64) {
    let sd = (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        (measured - p).abs() <= 4.0 * sd,
        "measured {measured} vs p {p} (sd {sd}, n {n})"
    );
}

#[test]
fn impairment_loss_error_misinsertion_match_their_probabilities() {
    let p = 0.01;
    for seed in [1, 2] {
        let s = impaired(json!({"loss_probability": p}), seed);
        let c = conn(&s, "c1");
        assert_eq!(c.cells_sent, 90_000);
        within_ci(c.clr, p, c.cells_sent);
        assert_eq!(c.drops["link_loss"], c.cells_dropped);
        assert_eq!(
            c.cells_sent,
            c.cells_delivered + c.cells_dropped + c.cells_in_flight
        );
    }
    let s = impaired(json!({"error_probability": p}), 3);
    let c = conn(&s, "c1");
    within_ci(c.cer, p, c.cells_delivered);
    assert_eq!(c.cells_dropped, 0);
    // every frame with an errored cell fails its CRC: frames of 21 cells, P(frame ok) = 0.99^21
    let f = conn(&s, "c2");
    let cells = atmsim_core::wire::aal5_cells(1000) as i32;
    within_ci(
        f.frames_lost as f64 / f.frames_sent as f64,
        1.0 - (1.0 - p).powi(cells),
        f.frames_sent,
    );
    // misinsertion: a corrupted c1 cell lands on c2 (the only other connection) and vice versa
    let s = impaired(json!({"misinsertion_probability": p}), 4);
    let (c1, c2) = (conn(&s, "c1"), conn(&s, "c2"));
    within_ci(
        c1.drops["misinserted"] as f64 / c1.cells_sent as f64,
        p,
        c1.cells_sent,
    );
    assert_eq!(c2.cells_misinserted, c1.drops["misinserted"]);
    assert_eq!(c1.cells_misinserted, c2.drops["misinserted"]);
    assert!(
        (c2.cmr_per_s - c2.cells_misinserted as f64).abs() < 1e-9,
        "1 s window"
    );
    for c in [c1, c2] {
        assert_eq!(
            c.cells_sent,
            c.cells_delivered + c.cells_dropped + c.cells_in_flight
        );
    }
}

#[test]
fn impairment_delay_and_variation_keep_order() {
    let base = conn(&impaired(json!({}), 1), "c2").ctd_min_us.unwrap();
    let s = impaired(
        json!({"extra_delay_us": 100.0, "delay_variation_us": 50.0}),
        1,
    );
    let c = conn(&s, "c2");
    assert!(c.ctd_min_us.unwrap() >= base + 100.0);
    // in order: a cell waits at most for its predecessor, so the delay stays below
    // base + extra + variation + a few cell times
    assert!(c.ctd_max_us.unwrap() <= base + 150.0 + 10.0);
    assert!(c.cdv_p2p_us.unwrap() > 25.0);
    assert_eq!(c.frames_lost, 0, "no reordering, no loss");
}

#[test]
fn mpeg2_video_multiplex_carries_the_accepted_rate_and_has_priority_over_ubr() {
    // seed 000 section 4: 9 sources, m = 7.5, s = 7, H = 0.8; rates outside [0, 15] skipped.
    // Its throughput must match the mean of a normal truncated to [0, 15] (the skipping), times 9.
    let sc = json!({
        "description": "video",
        "run": {"duration_s": 60.0, "warmup_s": 1.0, "seed": 5},
        "nodes": [host("v"), host("u"), switch("A", json!({"buffer_cells": 5000, "class_buffer_cells": {"ubr": 4000}})), host("d")],
        "links": [link("v", "A", 155.52, 1.0), link("u", "A", 155.52, 1.0), link("A", "d", 149.76, 1.0)],
        "connections": [
            {"name": "vbr", "route": ["v", "A", "d"], "category": "rt-vbr",
             "source": {"kind": "mpeg2", "mean_mbps": 7.5, "std_mbps": 7.0, "sources": 9}},
            {"name": "ubr", "route": ["u", "A", "d"], "category": "ubr", "source": {"kind": "persistent", "peak_mbps": 155.52}}
        ]
    });
    let s = run(&sc).summary();
    let v = conn(&s, "vbr");
    // truncated normal mean: m + s (phi(a) - phi(b)) / (Phi(b) - Phi(a)), a = -m/s, b = (15-m)/s
    let (m, sd) = (7.5f64, 7.0f64);
    let phi = |x: f64| (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let cdf = |x: f64| 0.5 * (1.0 + erf(x / 2f64.sqrt()));
    let (a, b) = (-m / sd, (15.0 - m) / sd);
    let mean = m + sd * (phi(a) - phi(b)) / (cdf(b) - cdf(a));
    let cell_rate = v.throughput_mbps * 53.0 / 48.0;
    // long-range dependence makes a 59 s mean vary by several percent
    assert!(
        (cell_rate / (9.0 * mean) - 1.0).abs() < 0.1,
        "{cell_rate} vs {}",
        9.0 * mean
    );
    assert_eq!(v.cells_dropped, 0, "VBR has strict priority over UBR");
    assert!(conn(&s, "ubr").cells_dropped > 0);
}

/// Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.3275911 * x.abs());
    let y = 1.0
        - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
            + 0.254829592)
            * t
            * (-x * x).exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

fn discard_case(discard: &str) -> atmsim_core::metrics::Summary {
    let mut a = json!({"buffer_cells": 2000});
    if discard != "tail" {
        a["discard"] = discard.into();
    }
    if discard.starts_with("epd") {
        a["epd_threshold_cells"] = 1000.into();
    }
    let mut conns = vec![];
    let mut nodes = vec![switch("A", a), host("d")];
    let mut links = vec![link("A", "d", 149.76, 1.0)];
    for i in 1..=3 {
        nodes.push(host(&format!("h{i}")));
        links.push(link(&format!("h{i}"), "A", 155.52, 1.0));
        conns.push(json!({"name": format!("u{i}"), "route": [format!("h{i}"), "A", "d"], "category": "ubr",
                          "source": {"kind": "persistent", "peak_mbps": 100.0, "frame_bytes": 9180}}));
    }
    let sc = json!({"description": "EPD/PPD", "run": {"duration_s": 1.0, "warmup_s": 0.1},
                    "nodes": nodes, "links": links, "connections": conns});
    run(&sc).summary()
}

#[test]
fn epd_and_ppd_save_goodput_under_overload() {
    // three 100 Mb/s sources of 9180-byte frames (192 cells) into 149.76 Mb/s
    let goodput = |s: &atmsim_core::metrics::Summary| {
        (1..=3)
            .map(|i| conn(s, &format!("u{i}")).user_throughput_mbps)
            .sum::<f64>()
    };
    let best = 149.76 * 9180.0 / (192.0 * 53.0); // every cell on the link in a whole frame
    let (tail, ppd, epd) = (
        discard_case("tail"),
        discard_case("ppd"),
        discard_case("epd"),
    );
    let (g_tail, g_ppd, g_epd) = (goodput(&tail), goodput(&ppd), goodput(&epd));
    // EPD: at most three frames in progress can pass the threshold (1000 + 3 x 192 < 2000), so
    // the buffer never overflows, no frame is cut, and the link carries only whole frames
    assert_eq!(epd.ports["A->d"].drops["port_buffer_full"], 0);
    assert!(epd.ports["A->d"].drops["epd"] > 0);
    assert!(epd.ports["A->d"].max_queue_cells <= 1000 + 3 * 192);
    assert!(g_epd > 0.99 * best, "EPD goodput {g_epd} vs {best}");
    // tail drop cuts frames and wastes the link on their remains
    assert!(g_tail < 0.8 * best, "tail {g_tail}");
    // PPD: under this persistent overload the room it frees goes to other frames that get cut
    // too, so goodput barely moves (Romanow and Floyd saw PPD help far less than EPD); its
    // exact behaviour is checked in `ppd_drops_the_rest_of_a_cut_frame_but_its_last_cell`
    assert!(ppd.ports["A->d"].drops["ppd"] > 0);
    assert!(
        g_ppd > 0.97 * g_tail && g_ppd < g_epd,
        "tail {g_tail} ppd {g_ppd} epd {g_epd}"
    );
}

#[test]
fn ppd_drops_the_rest_of_a_cut_frame_but_its_last_cell() {
    // F: frames of 200 bytes = 5 cells, one cell every 10 T; its cell k reaches A at (10k + 1) T.
    // G's burst (as in the AAL5 tests) fills A's 1-cell buffer around 61 T: F's cell 6, the second
    // cell of frame 1, is lost; PPD then drops cells 7 and 8 and keeps 9, the end of frame 1.
    let c = 100.0;
    let t_cell = 424.0 / (c * 1e6);
    let mk = |discard: &str| {
        let mut a = json!({"buffer_cells": 1});
        if discard != "tail" {
            a["discard"] = discard.into();
        }
        json!({
            "description": "ppd",
            "run": {"duration_s": 0.01},
            "nodes": [host("hf"), host("hg"), switch("A", a), host("d")],
            "links": [link("hf", "A", c, 0.0), link("hg", "A", 3.0 * c, 0.0), link("A", "d", c, 0.0)],
            "connections": [
                {"name": "F", "route": ["hf", "A", "d"], "category": "ubr",
                 "source": {"kind": "cbr", "rate_mbps": c / 10.0, "frame_bytes": 200, "stop_s": 300.0 * t_cell}},
                {"name": "G", "route": ["hg", "A", "d"], "category": "ubr",
                 "source": {"kind": "cbr", "rate_mbps": 3.0 * c, "start_s": 58.0 * t_cell, "stop_s": 64.6 * t_cell}}
            ]
        })
    };
    let tail = run(&mk("tail")).summary();
    let ppd = run(&mk("ppd")).summary();
    let (ft, fp) = (conn(&tail, "F"), conn(&ppd, "F"));
    assert_eq!(ft.cells_sent, 30);
    assert_eq!(
        ft.cells_dropped, 1,
        "setup: one F cell meets the full buffer"
    );
    assert_eq!((ft.frames_lost, ft.frames_delivered), (1, 5));
    assert_eq!(fp.drops["port_buffer_full"], 1);
    assert_eq!(
        fp.drops["ppd"], 2,
        "cells 7 and 8 dropped, 9 (end of frame) kept"
    );
    assert_eq!(
        (fp.frames_lost, fp.frames_delivered),
        (1, 5),
        "the next frame is unharmed"
    );
}

#[test]
fn misinserted_cells_lost_downstream_do_not_count_against_their_new_connection() {
    let mut trunk = link("A", "B", 149.76, 10.0);
    trunk["impairment"] = json!({"misinsertion_probability": 0.1});
    let mut tail = link("B", "d2", 149.76, 1.0);
    tail["impairment"] = json!({"loss_probability": 0.5});
    let sc = json!({
        "description": "misinsertion then loss",
        "run": {"duration_s": 0.5, "seed": 9},
        "nodes": [host("h1"), host("h2"), switch("A", json!({})), switch("B", json!({})), host("d1"), host("d2")],
        "links": [link("h1", "A", 149.76, 1.0), link("h2", "A", 149.76, 1.0), trunk, link("B", "d1", 149.76, 1.0), tail],
        "connections": [
            {"name": "c1", "route": ["h1", "A", "B", "d1"], "category": "cbr", "source": {"kind": "cbr", "rate_mbps": 42.4}},
            {"name": "c2", "route": ["h2", "A", "B", "d2"], "category": "cbr", "source": {"kind": "cbr", "rate_mbps": 21.2}}
        ]
    });
    let s = run(&sc).summary();
    for name in ["c1", "c2"] {
        let c = conn(&s, name);
        assert_eq!(
            c.cells_sent,
            c.cells_delivered + c.cells_dropped + c.cells_in_flight,
            "{name}"
        );
    }
    assert!(conn(&s, "c2").cells_misinserted > 0);
}

/// Two saturating sources of different categories into one 149.76 Mb/s port with `sw` settings.
fn two_class(sw: Value, a: (&str, f64), b: (&str, f64)) -> atmsim_core::metrics::Summary {
    // each category its own 2500 cells, so one saturating category cannot take the other's room
    let mut s = json!({"buffer_cells": 5000, "class_buffer_cells": {"cbr": 2500, "nrt-vbr": 2500, "ubr": 2500}});
    s.as_object_mut()
        .unwrap()
        .extend(sw.as_object().unwrap().clone());
    let sc = json!({"description": "schedulers", "run": {"duration_s": 0.5, "warmup_s": 0.1},
    "nodes": [host("ha"), host("hb"), switch("A", s), host("d")],
    "links": [link("ha", "A", 622.08, 1.0), link("hb", "A", 622.08, 1.0), link("A", "d", 149.76, 1.0)],
    "connections": [
        {"name": "a", "route": ["ha", "A", "d"], "category": a.0, "source": {"kind": "persistent", "peak_mbps": a.1}},
        {"name": "b", "route": ["hb", "A", "d"], "category": b.0, "source": {"kind": "persistent", "peak_mbps": b.1}}
    ]});
    run(&sc).summary()
}

fn cell_rate(s: &atmsim_core::metrics::Summary, n: &str) -> f64 {
    conn(s, n).throughput_mbps * 53.0 / 48.0
}

#[test]
fn per_class_maximum_caps_even_an_idle_link() {
    let s = two_class(
        json!({"class_max_mbps": {"ubr": 30.0}}),
        ("ubr", 100.0),
        ("nrt-vbr", 1.0),
    );
    assert!(
        (cell_rate(&s, "a") - 30.0).abs() < 0.1,
        "{}",
        cell_rate(&s, "a")
    );
    assert!(s.ports["A->d"].utilization < 0.25);
}

#[test]
fn per_class_minimum_guarantee_beats_strict_priority() {
    // CBR offered above the link rate takes it all under strict priority: nrt-VBR starves
    let starve = two_class(json!({}), ("cbr", 155.0), ("nrt-vbr", 100.0));
    assert!(cell_rate(&starve, "b") < 1.0, "{}", cell_rate(&starve, "b"));
    let s = two_class(
        json!({"class_min_mbps": {"nrt-vbr": 40.0}}),
        ("cbr", 155.0),
        ("nrt-vbr", 100.0),
    );
    assert!(
        (cell_rate(&s, "b") - 40.0).abs() < 0.5,
        "{}",
        cell_rate(&s, "b")
    );
    assert!(
        (cell_rate(&s, "a") - (149.76 - 40.0)).abs() < 0.5,
        "{}",
        cell_rate(&s, "a")
    );
}

#[test]
fn weighted_round_robin_shares_by_weight() {
    let s = two_class(
        json!({"scheduler": "wrr", "class_weights": {"cbr": 3, "ubr": 1}}),
        ("cbr", 149.76),
        ("ubr", 149.76),
    );
    let (a, b) = (cell_rate(&s, "a"), cell_rate(&s, "b"));
    assert!(
        (a / 149.76 - 0.75).abs() < 0.005 && (b / 149.76 - 0.25).abs() < 0.005,
        "{a} {b}"
    );
}

/// A scenario whose links may hold billions of cells in flight (the schema's fastest and
/// longest link: 1 Tb/s over 10^6 km, 5 s) and whose switch buffers 10^9 cells builds and runs
/// when its memory bound allows it: a pipe reserves room for at most `Link::RESERVE_MAX` cells
/// up front and grows with the cells actually sent (reserving the bandwidth-delay product and
/// the buffer, about 10^10 cells, aborted the process for want of memory).
#[test]
fn a_huge_bandwidth_delay_product_is_not_reserved_up_front() {
    let sc = json!({
        "description": "huge pipe",
        "run": {"duration_s": 0.001, "max_memory_mb": 1_000_000_000u64},
        "nodes": [host("h1"), switch("A", json!({"buffer_cells": 1_000_000_000u64})), host("h2")],
        "links": [link("h1", "A", 1e6, 1e6), link("A", "h2", 1e6, 1e6)],
        "connections": [{"name": "c", "route": ["h1", "A", "h2"], "category": "ubr",
                         "source": {"kind": "cbr", "rate_mbps": 424.0}}]
    });
    let sim = run(&sc);
    // 424 Mb/s = a cell every microsecond: 1,000 cells sent, none arrived yet (5 s away)
    let s = sim.summary();
    assert_eq!(conn(&s, "c").cells_sent, 1000);
    assert_eq!(conn(&s, "c").cells_in_flight, 1000);
}
