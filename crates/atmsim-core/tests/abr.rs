//! ABR at scenario level: ERICA and ERICA+ convergence, max-min fairness, RM overhead,
//! higher-priority background, and ERICA versus ERICA+ under ON-OFF VBR (seed 002).

use atmsim_core::build_from_json;
use atmsim_core::metrics::Summary;
use serde_json::{json, Value};

const C: f64 = 149.76;

fn run(sc: &Value) -> Summary {
    let mut sim = build_from_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.summary()
}

/// N persistent ABR sources h1..hN -> A -> B -> d1..dN; the A-B link of `km` km is the bottleneck.
fn n_sources(n: usize, km: f64, scheme: Value, duration: f64, extra_conns: Vec<Value>) -> Value {
    let mut nodes = vec![
        json!({"name": "A", "kind": "switch", "abr": scheme}),
        json!({"name": "B", "kind": "switch", "abr": {"scheme": "none"}}),
    ];
    let mut links = vec![json!({"a": "A", "b": "B", "rate_mbps": C, "length_km": km})];
    let mut conns = extra_conns;
    for i in 1..=n {
        nodes.push(json!({"name": format!("h{i}"), "kind": "host"}));
        nodes.push(json!({"name": format!("d{i}"), "kind": "host"}));
        links.push(json!({"a": format!("h{i}"), "b": "A", "rate_mbps": C, "length_km": 0.1}));
        links.push(json!({"a": "B", "b": format!("d{i}"), "rate_mbps": C, "length_km": 0.1}));
        conns.push(json!({"name": format!("s{i}"), "route": [format!("h{i}"), "A", "B", format!("d{i}")], "category": "abr",
                          "abr": {"icr_mbps": 10.0}, "source": {"kind": "persistent"}}));
    }
    json!({"description": "ABR test", "run": {"duration_s": duration, "warmup_s": duration * 0.6},
           "nodes": nodes, "links": links, "connections": conns})
}

fn erica(interval_s: f64) -> Value {
    json!({"scheme": "erica", "target_utilization": 0.9, "interval_s": interval_s})
}

const CASES: [(usize, f64); 6] = [
    (1, 10.0),
    (2, 10.0),
    (10, 10.0),
    (1, 5000.0),
    (2, 1000.0),
    (10, 5000.0),
];

#[test]
fn erica_n_equal_sources_settle_at_u_c_over_n() {
    // basic ERICA (steps 8, 9, 13) drives the load factor to 1: each source gets U x C / N
    for &(n, km) in &CASES {
        // RTT about 2 x 5 us/km: 0.1 ms to 50 ms; run 30 RTTs after 0.3 s to start
        let rtt = 2.0 * km * 5e-6;
        let dur = 0.3 + 30.0 * rtt;
        let mut scheme = erica(0.001f64.max(rtt / 10.0));
        scheme["variant"] = "basic".into();
        let s = run(&n_sources(n, km, scheme, dur, vec![]));
        let fair = 0.9 * C / n as f64;
        for i in 1..=n {
            let c = &s.connections[&format!("s{i}")];
            let acr = c.acr_mean_mbps.unwrap();
            assert!(
                (acr / fair - 1.0).abs() < 0.02,
                "N {n} RTT {rtt}: s{i} mean ACR {acr} vs {fair}"
            );
            let fin = c.acr_final_mbps.unwrap();
            assert!(
                (fin / fair - 1.0).abs() < 0.02,
                "N {n} RTT {rtt}: s{i} final ACR {fin} vs {fair}"
            );
        }
        let u = s.ports["A->B"].utilization;
        assert!((u - 0.9).abs() < 0.02, "N {n}: utilization {u}");
    }
}

#[test]
fn erica_maxalloc_settles_equal_within_the_delta_band() {
    // with steps 10-12 the load factor may rest anywhere in [1, 1 + delta]: equal sources stay
    // equal, and their sum lies between U x C and (1 + delta) U x C
    for &(n, km) in &CASES {
        let rtt = 2.0 * km * 5e-6;
        let dur = 0.3 + 30.0 * rtt;
        let s = run(&n_sources(
            n,
            km,
            erica(0.001f64.max(rtt / 10.0)),
            dur,
            vec![],
        ));
        let acrs: Vec<f64> = (1..=n)
            .map(|i| s.connections[&format!("s{i}")].acr_mean_mbps.unwrap())
            .collect();
        let mean = acrs.iter().sum::<f64>() / n as f64;
        for a in &acrs {
            assert!((a / mean - 1.0).abs() < 0.02, "N {n} RTT {rtt}: {acrs:?}");
        }
        let total = mean * n as f64;
        assert!(
            total > 0.98 * 0.9 * C && total < 1.1 * 0.9 * C * 1.01,
            "N {n} RTT {rtt}: total {total}"
        );
    }
}

#[test]
fn erica_plus_settles_at_full_capacity_with_queue_near_t0() {
    for &n in &[2usize, 10] {
        let plus =
            json!({"scheme": "erica+", "interval_s": 0.001, "t0_us": 500.0, "variant": "basic"});
        let s = run(&n_sources(n, 100.0, plus, 1.0, vec![]));
        let fair = C / n as f64;
        for i in 1..=n {
            let acr = s.connections[&format!("s{i}")].acr_mean_mbps.unwrap();
            assert!(
                (acr / fair - 1.0).abs() < 0.03,
                "N {n}: s{i} mean ACR {acr} vs {fair}"
            );
        }
        let p = &s.ports["A->B"];
        let t0_cells = 500e-6 * C * 1e6 / 424.0; // 176.6 cells
        assert!(p.utilization > 0.98, "utilization {}", p.utilization);
        assert!(
            (p.mean_queue_cells / t0_cells - 1.0).abs() < 0.3,
            "mean queue {} vs T0 x C = {t0_cells}",
            p.mean_queue_cells
        );
    }
}

#[test]
fn rm_overhead_is_one_over_nrm() {
    for nrm in [8i64, 32, 256] {
        let mut sc = n_sources(1, 10.0, erica(0.001), 0.2, vec![]);
        sc["connections"][0]["abr"]["nrm"] = nrm.into();
        let s = run(&sc);
        let c = &s.connections["s1"];
        let share = c.rm_overhead.unwrap();
        assert!(
            (share - 1.0 / nrm as f64).abs() < 0.5 / c.cells_sent as f64 + 1e-3,
            "nrm {nrm}: {share}"
        );
        // the backward direction carries exactly the turned-around FRMs (minus those in flight)
        let back = &s.connections["s1.reverse"];
        assert!(back.rm_cells_sent <= c.rm_cells_sent && back.rm_cells_sent + 2 >= c.rm_cells_sent);
    }
}

#[test]
fn erica_gives_abr_what_cbr_leaves() {
    // a 40 Mb/s CBR connection shares A->B: ABR capacity 109.76, target 0.9 x that
    let cbr = json!({"name": "cbr", "route": ["hc", "A", "B", "dc"], "category": "cbr", "source": {"kind": "cbr", "rate_mbps": 40.0}});
    let mut sc = n_sources(2, 10.0, erica(0.002), 0.5, vec![cbr]);
    for (n, l) in [("hc", "A"), ("dc", "B")] {
        sc["nodes"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": n, "kind": "host"}));
        sc["links"]
            .as_array_mut()
            .unwrap()
            .push(json!({"a": n, "b": l, "rate_mbps": C, "length_km": 0.1}));
    }
    let s = run(&sc);
    let fair = 0.9 * (C - 40.0) / 2.0;
    for i in 1..=2 {
        let acr = s.connections[&format!("s{i}")].acr_mean_mbps.unwrap();
        assert!((acr / fair - 1.0).abs() < 0.02, "s{i}: {acr} vs {fair}");
    }
    let cap = s.ports["A->B"].abr_capacity_mbps.unwrap();
    assert!(
        (cap - (C - 40.0)).abs() < 1.0,
        "measured ABR capacity {cap}"
    );
}

/// Max-min fair rates by water-filling: raise all unfrozen rates together; freeze the
/// connections of a link when it fills, and a connection when it reaches its demand.
fn water_fill(capacity: &[f64], paths: &[Vec<usize>], demand: &[f64]) -> Vec<f64> {
    let n = paths.len();
    let mut rate = vec![0.0; n];
    let mut frozen = vec![false; n];
    while frozen.iter().any(|f| !f) {
        let mut step = f64::INFINITY;
        for (l, &cap) in capacity.iter().enumerate() {
            let users: Vec<usize> = (0..n).filter(|&i| paths[i].contains(&l)).collect();
            let free = users.iter().filter(|&&i| !frozen[i]).count();
            if free > 0 {
                let used: f64 = users.iter().map(|&i| rate[i]).sum();
                step = step.min((cap - used) / free as f64);
            }
        }
        for i in 0..n {
            if !frozen[i] {
                step = step.min(demand[i] - rate[i]);
            }
        }
        for i in 0..n {
            if !frozen[i] {
                rate[i] += step;
            }
        }
        for i in 0..n {
            if !frozen[i] && rate[i] >= demand[i] - 1e-9 {
                frozen[i] = true;
            }
        }
        for (l, &cap) in capacity.iter().enumerate() {
            let used: f64 = (0..n)
                .filter(|&i| paths[i].contains(&l))
                .map(|i| rate[i])
                .sum();
            if used >= cap - 1e-9 {
                for i in 0..n {
                    if paths[i].contains(&l) {
                        frozen[i] = true;
                    }
                }
            }
        }
    }
    rate
}

#[test]
fn water_fill_by_hand() {
    // two links of 10; a crosses both, b only the first, c only the second
    let r = water_fill(
        &[10.0, 10.0],
        &[vec![0, 1], vec![0], vec![1]],
        &[f64::INFINITY; 3],
    );
    assert_eq!(r, vec![5.0, 5.0, 5.0]);
    let r = water_fill(
        &[10.0, 12.0],
        &[vec![0, 1], vec![0, 1], vec![1]],
        &[1.0, f64::INFINITY, f64::INFINITY],
    );
    assert_eq!(r, vec![1.0, 5.5, 5.5]);
}

#[test]
fn parking_lot_settles_at_max_min_rates() {
    // S1 -> S2 -> S3 -> S4 (links L0 = S1-S2 at 149.76, L1 = S2-S3 at 100, L2 = S3-S4 at 149.76)
    // long: S1..S4; a: S1..S2; b: S2..S3 (twice); c: S3..S4, limited to 20 Mb/s by its source
    // delta = 0: without the tolerance band of step 9 ERICA converges to the max-min point itself
    // (with delta > 0 an unconstrained link may carry up to (1 + delta) x its target)
    let caps = [C, 100.0, C];
    let conns = [
        ("long", 0usize, 3usize, None),
        ("a", 0, 1, None),
        ("b1", 1, 2, None),
        ("b2", 1, 2, None),
        ("c", 2, 3, Some(20.0)),
    ];
    let sw = ["S1", "S2", "S3", "S4"];
    let mut nodes: Vec<Value> = sw.iter().map(|s| json!({"name": s, "kind": "switch", "abr": {"scheme": "erica", "interval_s": 0.002, "delta": 0.0}})).collect();
    let mut links: Vec<Value> = (0..3)
        .map(|l| json!({"a": sw[l], "b": sw[l + 1], "rate_mbps": caps[l], "length_km": 200.0}))
        .collect();
    let mut cs = vec![];
    let mut paths = vec![];
    let mut demand = vec![];
    for (name, from, to, lim) in conns {
        let (h, d) = (format!("h_{name}"), format!("d_{name}"));
        nodes.push(json!({"name": h, "kind": "host"}));
        nodes.push(json!({"name": d, "kind": "host"}));
        links.push(json!({"a": h, "b": sw[from], "rate_mbps": C, "length_km": 1.0}));
        links.push(json!({"a": sw[to], "b": d, "rate_mbps": C, "length_km": 1.0}));
        let mut route = vec![json!(h)];
        route.extend((from..=to).map(|k| json!(sw[k])));
        route.push(json!(d));
        let source = match lim {
            Some(r) => json!({"kind": "cbr", "rate_mbps": r}),
            None => json!({"kind": "persistent"}),
        };
        cs.push(json!({"name": name, "route": route, "category": "abr", "abr": {"icr_mbps": 20.0}, "source": source}));
        paths.push((from..to).collect::<Vec<usize>>());
        // a source-limited connection's cell rate includes one RM cell per Nrm = 32
        demand.push(lim.map(|r| r * 32.0 / 31.0).unwrap_or(f64::INFINITY));
    }
    let sc = json!({"description": "parking lot", "run": {"duration_s": 1.5, "warmup_s": 1.0},
                    "nodes": nodes, "links": links, "connections": cs});
    let s = run(&sc);
    let target: Vec<f64> = caps.iter().map(|c| 0.9 * c).collect();
    let expect = water_fill(&target, &paths, &demand);
    for (i, (name, ..)) in conns.iter().enumerate() {
        let c = &s.connections[*name];
        // the cell rate the connection actually used: data + RM cells
        let used = (c.throughput_mbps * 53.0 / 48.0) * c.cells_sent as f64
            / (c.cells_sent - c.rm_cells_sent) as f64;
        assert!(
            (used / expect[i] - 1.0).abs() < 0.03,
            "{name}: {used} vs max-min {}",
            expect[i]
        );
    }
}

/// 15 persistent sources and a 1 ms ON / 1 ms OFF VBR source at 80% of the link (seed 002).
fn vbr_case(scheme: Value, duration: f64) -> Summary {
    let vbr = json!({"name": "vbr", "route": ["hv", "A", "B", "dv"], "category": "rt-vbr",
                     "source": {"kind": "onoff", "peak_mbps": 0.8 * C, "duty_cycle": 0.5, "period_s": 0.002, "start_s": 0.002}});
    let mut sc = n_sources(15, 1000.0, scheme, duration, vec![vbr]);
    for (n, l) in [("hv", "A"), ("dv", "B")] {
        sc["nodes"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": n, "kind": "host"}));
        sc["links"]
            .as_array_mut()
            .unwrap()
            .push(json!({"a": n, "b": l, "rate_mbps": C, "length_km": 0.1}));
    }
    sc["run"]["warmup_s"] = 0.0.into();
    run(&sc)
}

#[test]
fn erica_queue_grows_under_on_off_vbr_erica_plus_stays_bounded() {
    let interval = |plus: bool| {
        let mut v = json!({"scheme": if plus { "erica+" } else { "erica" }, "interval_cells": 100, "interval_s": 0.001});
        if !plus {
            v["target_utilization"] = 1.0.into();
        }
        v
    };
    let q = |plus, d| vbr_case(interval(plus), d).ports["A->B"].max_queue_cells as f64;
    let (e1, e2) = (q(false, 0.5), q(false, 1.0));
    let (p1, p2) = (q(true, 0.5), q(true, 1.0));
    assert!(
        e2 > 1.5 * e1,
        "ERICA max queue should grow with the run: {e1} -> {e2}"
    );
    assert!(
        p2 < 1.1 * p1 + 100.0,
        "ERICA+ max queue should stay bounded: {p1} -> {p2}"
    );
    assert!(p2 < e2, "ERICA+ {p2} vs ERICA {e2}");
}

/// Binary schemes: the queue must stay near the thresholds while the link stays busy.
fn binary_case(scheme: &str) -> Summary {
    let s = if scheme == "none" {
        json!({"scheme": "none"})
    } else {
        json!({"scheme": scheme, "high_cells": 200, "low_cells": 100})
    };
    let mut sc = n_sources(5, 100.0, s, 2.0, vec![]);
    for c in sc["connections"].as_array_mut().unwrap() {
        c["abr"]["rdf"] = (1.0 / 16.0).into();
        c["abr"]["rif"] = (1.0 / 64.0).into();
    }
    sc["nodes"][0]["buffer_cells"] = 100_000.into();
    run(&sc)
}

#[test]
fn efci_marking_controls_the_queue() {
    let s = binary_case("efci");
    let p = &s.ports["A->B"];
    // binary feedback oscillates: the link is not kept full all the time
    assert!(p.utilization > 0.8, "utilization {}", p.utilization);
    assert!(p.cells_dropped == 0);
    // without marking five persistent sources would add RIF x PCR per RM cell until PCR: the
    // queue would grow by about 4 x 149.76 Mb/s; with EFCI it stays within a few thresholds
    assert!(
        p.max_queue_cells < 20_000,
        "max queue {}",
        p.max_queue_cells
    );
    // all five get about the same share
    let acrs: Vec<f64> = (1..=5)
        .map(|i| s.connections[&format!("s{i}")].acr_mean_mbps.unwrap())
        .collect();
    let mean = acrs.iter().sum::<f64>() / 5.0;
    assert!(
        acrs.iter().all(|a| (a / mean - 1.0).abs() < 0.15),
        "{acrs:?}"
    );
}

#[test]
fn relative_rate_marking_controls_the_queue() {
    let s = binary_case("rr");
    let p = &s.ports["A->B"];
    assert!(p.utilization > 0.9, "utilization {}", p.utilization);
    assert!(
        p.max_queue_cells < 20_000,
        "max queue {}",
        p.max_queue_cells
    );
}

#[test]
fn no_scheme_means_no_feedback() {
    // scheme "none": sources climb to PCR, the bottleneck overflows
    let s = binary_case("none");
    let acr = s.connections["s1"].acr_final_mbps.unwrap();
    assert_eq!(acr, C);
}

/// h1, h2 -> A -> B -> C -> d1, d2 with A a virtual source / virtual destination; the B-C link
/// (100 Mb/s) is the bottleneck, the A-B hop is long (2000 km).
/// Two ABR connections h_i -> A -> B -> C -> d_i with ERICA at A and B (switch specs `a`, `b`),
/// a 2000 km A-B hop and the 100 Mb/s B-C bottleneck; `source(i)` is connection i's source.
fn three_switches(a: Value, b: Value, source: impl Fn(usize) -> Value, what: &str) -> Summary {
    let mut nodes = vec![
        json!({"name": "A", "kind": "switch", "abr": a}),
        json!({"name": "B", "kind": "switch", "abr": b}),
        json!({"name": "C", "kind": "switch", "abr": {"scheme": "none"}}),
    ];
    let mut links = vec![
        json!({"a": "A", "b": "B", "rate_mbps": C, "length_km": 2000.0}),
        json!({"a": "B", "b": "C", "rate_mbps": 100.0, "length_km": 100.0}),
    ];
    let mut conns = vec![];
    for i in 1..=2 {
        nodes.push(json!({"name": format!("h{i}"), "kind": "host"}));
        nodes.push(json!({"name": format!("d{i}"), "kind": "host"}));
        links.push(json!({"a": format!("h{i}"), "b": "A", "rate_mbps": C, "length_km": 1.0}));
        links.push(json!({"a": "C", "b": format!("d{i}"), "rate_mbps": C, "length_km": 1.0}));
        conns.push(json!({"name": format!("s{i}"), "route": [format!("h{i}"), "A", "B", "C", format!("d{i}")], "category": "abr",
                          "abr": {"icr_mbps": 20.0}, "source": source(i)}));
    }
    run(
        &json!({"description": what, "run": {"duration_s": 1.5, "warmup_s": 1.0},
                "nodes": nodes, "links": links, "connections": conns}),
    )
}

fn vsvd_case(vsvd: bool) -> Summary {
    three_switches(
        json!({"scheme": "erica", "interval_s": 0.002, "vsvd": vsvd}),
        json!({"scheme": "erica", "interval_s": 0.002}),
        |_| json!({"kind": "persistent", "frame_bytes": 1000}),
        "VS/VD",
    )
}

#[test]
fn vsvd_splits_the_loop_and_keeps_max_min_rates() {
    let s = vsvd_case(true);
    let fair = 0.9 * 100.0 / 2.0;
    for i in 1..=2 {
        let up = &s.connections[&format!("s{i}")];
        let down = &s.connections[&format!("s{i}.seg1")];
        // each segment has its own ABR source: the host's and the virtual source's at A
        let (a_up, a_down) = (up.acr_mean_mbps.unwrap(), down.acr_mean_mbps.unwrap());
        assert!(
            (a_down / fair - 1.0).abs() < 0.03,
            "s{i} segment 1 ACR {a_down} vs {fair}"
        );
        assert!(
            (a_up / fair - 1.0).abs() < 0.05,
            "s{i} segment 0 ACR {a_up} vs {fair}"
        );
        // the per-VC queue at the virtual source stays bounded
        let q = down.source_queue_max_cells.unwrap();
        assert!(q < 5_000, "s{i} VS queue {q}");
        // end to end: the last segment's delay includes both propagation delays and its frames
        // are the source's frames (AAL5 bits and sequence carried through the VS)
        assert!(down.ctd_min_us.unwrap() > 5.0 * (2000.0 + 100.0 + 2.0));
        assert!(down.frames_delivered > 0 && down.frames_lost == 0);
        assert_eq!(down.cells_dropped, 0);
    }
    for (name, c) in &s.connections {
        assert_eq!(
            c.cells_sent,
            c.cells_delivered + c.cells_dropped + c.cells_in_flight,
            "{name}"
        );
    }
    // without VS/VD the same network also settles at the max-min rates (one loop per VC)
    let s = vsvd_case(false);
    for i in 1..=2 {
        let a = s.connections[&format!("s{i}")].acr_mean_mbps.unwrap();
        assert!((a / fair - 1.0).abs() < 0.05, "no VS/VD: s{i} {a}");
        assert!(!s.connections.contains_key(&format!("s{i}.seg1")));
    }
}

#[test]
fn setup_limits_icr_by_tbe_over_frtt_and_derives_crm() {
    // TM 4.0 at setup: ICR <- min(ICR, TBE / FRTT) in cells, CRM <- ceil(TBE / Nrm)
    let mk = |abr: Value| {
        let mut sc = n_sources(1, 10.0, erica(0.005), 0.01, vec![]);
        sc["connections"][0]["abr"] = abr;
        build_from_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"))
    };
    let sim = mk(json!({"icr_mbps": 100.0, "tbe": 64, "frtt_us": 10000.0, "nrm": 32}));
    let s = sim.abr_source(sim.flow_index("s1").unwrap()).unwrap();
    let tbe_over_frtt = 64.0 * 424.0 / 0.01 / 1e6; // 2.7136 Mb/s
    assert!((s.p.icr - tbe_over_frtt).abs() < 1e-9, "{}", s.p.icr);
    assert_eq!(s.p.crm, 2);
    assert_eq!(s.acr, s.p.icr, "rule 2: ACR starts at ICR");
    // a large TBE leaves ICR alone; CRM rounds up
    let sim = mk(json!({"icr_mbps": 100.0, "tbe": 4000, "frtt_us": 10000.0, "nrm": 64}));
    let s = sim.abr_source(sim.flow_index("s1").unwrap()).unwrap();
    assert_eq!((s.p.icr, s.p.crm), (100.0, 63)); // TBE/FRTT = 169.6 Mb/s; ceil(4000 / 64) = 63
                                                 // FRTT measured at setup when not given: the round trip's propagation, so a longer trunk
                                                 // gives a smaller ICR for the same TBE
    let frtt_icr = |km: f64| {
        let mut sc = n_sources(1, km, erica(0.005), 0.01, vec![]);
        sc["connections"][0]["abr"] = json!({"icr_mbps": 100.0, "tbe": 64});
        let sim = build_from_json(&sc.to_string()).unwrap();
        sim.abr_source(sim.flow_index("s1").unwrap()).unwrap().p.icr
    };
    assert!(frtt_icr(1000.0) < frtt_icr(100.0));
}

#[test]
fn icr_tbe_limit_false_starts_the_source_at_the_given_icr() {
    // icr_tbe_limit = false skips the set-up rule ICR <- min(ICR, TBE / FRTT): the first ACR
    // is ICR itself; CRM is still ceil(TBE / Nrm) (rule 6 keeps TBE's other use)
    let mk = |limit: bool, km: f64| {
        let mut sc = n_sources(1, km, erica(0.005), 0.01, vec![]);
        sc["connections"][0]["abr"] =
            json!({"icr_mbps": 10.0, "tbe": 512, "nrm": 32, "icr_tbe_limit": limit});
        build_from_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"))
    };
    for km in [10.0, 1000.0, 50_000.0] {
        let sim = mk(false, km);
        let s = sim.abr_source(sim.flow_index("s1").unwrap()).unwrap();
        assert_eq!((s.p.icr, s.acr, s.p.crm), (10.0, 10.0, 16), "{km} km");
    }
    // with the rule (the default) the long loop starts at TBE/FRTT < ICR: FRTT = 2 x the
    // route's one-way propagation, so the first ACR is 512 x 424 bits / FRTT
    let sim = mk(true, 50_000.0);
    let s = sim.abr_source(sim.flow_index("s1").unwrap()).unwrap();
    assert!(s.p.icr < 10.0 && s.acr == s.p.icr, "{}", s.p.icr);
    let frtt_s = 512.0 * 424.0 / s.p.icr / 1e6;
    assert!(
        frtt_s > 2.0 * 50_000.0 * 5e-6,
        "FRTT {frtt_s} s covers both trunk directions"
    );
}

/// h -> A -> B -> d and back: one bidirectional ABR connection, ERICA on every switch port.
fn two_way(reverse: Value, duration: f64) -> Value {
    let er = erica(0.005);
    json!({"description": "bidirectional ABR", "run": {"duration_s": duration, "warmup_s": duration * 0.6},
        "nodes": [{"name": "h", "kind": "host"}, {"name": "A", "kind": "switch", "abr": er},
                  {"name": "B", "kind": "switch", "abr": er}, {"name": "d", "kind": "host"}],
        "links": [{"a": "h", "b": "A", "rate_mbps": C, "length_km": 0.1}, {"a": "A", "b": "B", "rate_mbps": C, "length_km": 1000.0},
                  {"a": "B", "b": "d", "rate_mbps": C, "length_km": 0.1}],
        "connections": [{"name": "x", "route": ["h", "A", "B", "d"], "category": "abr", "bidirectional": true,
                         "abr": {"icr_mbps": 10.0}, "source": {"kind": "persistent"}, "reverse_source": reverse}]})
}

#[test]
fn bidirectional_abr_runs_both_loops_with_in_rate_turnaround() {
    // both directions persistent: each settles at ERICA's target of its own direction's links
    // (one VC per direction, U x C), and each end turns the other's FRMs around in rate, so a
    // direction's RM share is its own FRMs (1/Nrm) plus the other's BRMs: one BRM per FRM of the
    // other direction (DES rule 2), fewer when a newer FRM overwrote a waiting one (rule 3)
    let mut sim =
        build_from_json(&two_way(json!({"kind": "persistent"}), 1.0).to_string()).unwrap();
    sim.run();
    let s = sim.summary();
    for name in ["x", "x.reverse"] {
        let c = &s.connections[name];
        let acr = c.acr_final_mbps.unwrap();
        assert!((acr - 0.9 * C).abs() < 0.02 * 0.9 * C, "{name}: ACR {acr}");
        assert_eq!(c.cells_dropped, 0);
    }
    let (fx, fr) = (
        sim.flow_index("x").unwrap(),
        sim.flow_index("x.reverse").unwrap(),
    );
    let (ax, ar) = (sim.abr_source(fx).unwrap(), sim.abr_source(fr).unwrap());
    // every FRM one end sent came back from the other end (less those still on their way, and
    // those whose contents a newer FRM overwrote before an opportunity came)
    assert!(ar.brm_sent + ar.brm_overwritten <= ax.frm_sent);
    // (FRMs on their way at the end: about 10,000 a second over a 10 ms round trip)
    assert!(ax.frm_sent - (ar.brm_sent + ar.brm_overwritten) < 200);
    assert!(ax.brm_sent + ax.brm_overwritten <= ar.frm_sent);
    // rule 3b with data waiting: at most one BRM per FRM interval, so a source sending at ACR
    // into a persistent backlog never overwrites (it has Nrm - 1 slots per FRM of the other side)
    assert_eq!((ax.brm_overwritten, ar.brm_overwritten), (0, 0));
    // RM share of each direction's cells: own FRMs 1/32, plus the other side's BRMs (same ACR)
    let rm = s.connections["x"].rm_overhead.unwrap();
    assert!((rm - 2.0 / 32.0).abs() < 0.003, "RM share {rm}");
}

#[test]
fn a_silent_end_still_turns_rm_cells_around() {
    // the reverse direction sends no data: its end turns the forward FRMs around in rate (rule
    // 3b with no data waiting) and the forward loop converges as in the one-way case
    let mut sim = build_from_json(&two_way(json!({"kind": "none"}), 0.6).to_string()).unwrap();
    sim.run();
    let s = sim.summary();
    let acr = s.connections["x"].acr_final_mbps.unwrap();
    assert!((acr - 0.9 * C).abs() < 0.02 * 0.9 * C, "ACR {acr}");
    let r = &s.connections["x.reverse"];
    assert!(r.cells_sent > 0 && r.throughput_mbps == 0.0, "{r:?}");
    let ar = sim
        .abr_source(sim.flow_index("x.reverse").unwrap())
        .unwrap();
    assert!(ar.brm_sent > 100 && ar.frm_sent == 0);
}

#[test]
fn overwriting_turned_around_cells_when_the_reverse_rate_is_low() {
    // DES rule 3: a silent reverse end never gets feedback of its own, so its ACR stays at ICR
    // = 1 Mb/s: 2358 opportunities a second against the forward source's FRMs, one per 32 cells
    // at about 135 Mb/s (about 10,000 a second). The waiting turned-around cell is overwritten
    // by newer contents, never more than one waits, the reverse end sends no faster than its ACR,
    // and the forward loop still converges on the newest feedback
    let mut sc = two_way(json!({"kind": "none"}), 0.6);
    sc["connections"][0]["abr"] = json!({"icr_mbps": 1.0});
    let mut sim = build_from_json(&sc.to_string()).unwrap();
    sim.run();
    let s = sim.summary();
    let acr = s.connections["x"].acr_final_mbps.unwrap();
    assert!((acr - 0.9 * C).abs() < 0.02 * 0.9 * C, "ACR {acr}");
    let (fx, fr) = (
        sim.flow_index("x").unwrap(),
        sim.flow_index("x.reverse").unwrap(),
    );
    let (ax, ar) = (sim.abr_source(fx).unwrap(), sim.abr_source(fr).unwrap());
    assert_eq!(ar.acr, 1.0);
    let slots = 0.6 * 1e6 / 424.0; // opportunities at 1 Mb/s over the run
    assert!(
        ar.brm_sent as f64 <= slots + 1.0,
        "{} BRMs in {slots} slots",
        ar.brm_sent
    );
    assert!(
        ar.brm_sent as f64 > 0.95 * slots,
        "{} of {slots} slots used",
        ar.brm_sent
    );
    assert!(
        ar.brm_overwritten > 3 * ar.brm_sent,
        "{} overwritten",
        ar.brm_overwritten
    );
    // every FRM was turned around or overwritten, but those on their way at the end
    let in_flight = ax.frm_sent - (ar.brm_sent + ar.brm_overwritten);
    assert!(in_flight < 200, "{in_flight}");
}

#[test]
fn connection_series_counts_data_cells_like_the_summary() {
    // the `connections` series integrates to the summary's data-cell throughput (RM cells are
    // not counted), and a `.reverse` flow that carries only backward RM cells shows nothing
    let (dur, dt) = (0.1, 0.001);
    let mut sc = n_sources(2, 10.0, erica(0.001), dur, vec![]);
    sc["run"]["sample_interval_s"] = dt.into();
    let mut sim = build_from_json(&sc.to_string()).unwrap();
    sim.run();
    let s = sim.summary();
    let t = sim.series().table("connections").unwrap();
    let time_s = t.column("time_s").unwrap().as_f64().unwrap();
    let key = t.column("connection").unwrap().as_u32().unwrap();
    let mbps = t.column("throughput_mbps").unwrap().as_f64().unwrap();
    let warmup = s.warmup_s;
    for name in ["s1", "s2"] {
        let fi = sim.flow_index(name).unwrap() as u32;
        let rows: Vec<(f64, f64)> = (0..time_s.len())
            .filter(|&i| key[i] == fi && time_s[i] > warmup + 1e-9)
            .map(|i| (time_s[i], mbps[i] * dt))
            .collect();
        assert_eq!(rows.len(), ((dur - warmup) / dt).round() as usize);
        let series_mb: f64 = rows.iter().map(|r| r.1).sum();
        let c = &s.connections[name];
        let summary_mb = c.throughput_mbps * (dur - warmup);
        let one_sample = rows.iter().map(|r| r.1).fold(0.0, f64::max);
        assert!(
            (series_mb - summary_mb).abs() <= one_sample,
            "{name}: series {series_mb} Mb vs summary {summary_mb} Mb (one sample {one_sample})"
        );
        assert!(c.rm_cells_sent > 0 && summary_mb > 0.0);
        let back = sim.flow_index(&format!("{name}.reverse")).unwrap() as u32;
        assert!(s.connections[&format!("{name}.reverse")].cells_delivered > 0);
        let n = (0..time_s.len())
            .filter(|&i| key[i] == back)
            .inspect(|&i| assert_eq!(mbps[i], 0.0, "{name}.reverse at {}", time_s[i]))
            .count();
        assert_eq!(n, (dur / dt).round() as usize);
    }
}

/// The parking lot of `scenarios/examples/abr-parking-lot.toml` (switches S1-S4 joined by
/// 155.52 Mb/s, 200 km trunks; `long` S1..S4, `ab` S1-S2, `bc1`, `bc2` S2-S3, `cd` S3-S4), ERICA
/// with delta = 0 at every switch and VS/VD at switch `vsvd` (None: no VS/VD).
fn vsvd_parking_lot(vsvd: Option<usize>, warmup_s: f64) -> (Summary, Vec<&'static str>, Vec<f64>) {
    const L: f64 = 155.52;
    let conns = [
        ("long", 0usize, 3usize),
        ("ab", 0, 1),
        ("bc1", 1, 2),
        ("bc2", 1, 2),
        ("cd", 2, 3),
    ];
    let sw = ["S1", "S2", "S3", "S4"];
    let mut nodes: Vec<Value> = sw
        .iter()
        .enumerate()
        .map(|(k, s)| json!({"name": s, "kind": "switch", "abr": {"scheme": "erica", "interval_s": 0.005,
                                                                     "delta": 0.0, "vsvd": vsvd == Some(k)}}))
        .collect();
    let mut links: Vec<Value> = (0..3)
        .map(|l| json!({"a": sw[l], "b": sw[l + 1], "rate_mbps": L, "length_km": 200.0}))
        .collect();
    let (mut cs, mut paths) = (vec![], vec![]);
    for (name, from, to) in conns {
        let (h, d) = (format!("h_{name}"), format!("d_{name}"));
        nodes.push(json!({"name": h, "kind": "host"}));
        nodes.push(json!({"name": d, "kind": "host"}));
        links.push(json!({"a": h, "b": sw[from], "rate_mbps": L, "length_km": 1.0}));
        links.push(json!({"a": sw[to], "b": d, "rate_mbps": L, "length_km": 1.0}));
        let mut route = vec![json!(h)];
        route.extend((from..=to).map(|k| json!(sw[k])));
        route.push(json!(d));
        cs.push(
            json!({"name": name, "route": route, "category": "abr", "abr": {"icr_mbps": 20.0},
                       "source": {"kind": "persistent"}}),
        );
        paths.push((from..to).collect::<Vec<usize>>());
    }
    let sc = json!({"description": "parking lot with VS/VD", "run": {"duration_s": 1.5, "warmup_s": warmup_s},
                    "nodes": nodes, "links": links, "connections": cs});
    let expect = water_fill(&[0.9 * L; 3], &paths, &[f64::INFINITY; 5]);
    (run(&sc), conns.iter().map(|c| c.0).collect(), expect)
}

/// The cell rate (data + RM) a segment flow used after warm-up.
fn used_rate(c: &atmsim_core::metrics::ConnectionSummary) -> f64 {
    (c.throughput_mbps * 53.0 / 48.0) * c.cells_sent as f64
        / (c.cells_sent - c.rm_cells_sent) as f64
}

#[test]
fn vsvd_at_each_parking_lot_switch_settles_at_max_min_with_bounded_queues() {
    // issue 18 item 1: with VS/VD at S2, S2->S3 (the VS/VD switch's own port, the bottleneck of
    // long, bc1, bc2) reached 109,067 cells and bc1, bc2 settled at 84 Mb/s against 46.66
    let (reference, ..) = vsvd_parking_lot(None, 0.0);
    for k in [None, Some(0), Some(1), Some(2), Some(3)] {
        let (s, names, expect) = vsvd_parking_lot(k, 1.0);
        for (i, name) in names.iter().enumerate() {
            // every segment of the connection carries the max-min rate (within 2%)
            let segs: Vec<_> = s
                .connections
                .iter()
                .filter(|(n, _)| *n == name || n.starts_with(&format!("{name}.seg")))
                .filter(|(n, _)| !n.ends_with(".reverse"))
                .collect();
            assert!(!segs.is_empty());
            for (n, c) in segs {
                let used = used_rate(c);
                assert!(
                    (used / expect[i] - 1.0).abs() < 0.02,
                    "VS/VD at {k:?}: {n} uses {used} vs max-min {}",
                    expect[i]
                );
                // the source (host or virtual) is held at the rate it uses
                let acr = c.acr_final_mbps.unwrap();
                assert!(
                    (acr / expect[i] - 1.0).abs() < 0.02 || n.contains(".seg"),
                    "VS/VD at {k:?}: {n} ACR {acr} vs {}",
                    expect[i]
                );
            }
        }
        // conservation per segment flow (forward and backward)
        for (n, c) in &s.connections {
            assert_eq!(
                c.cells_sent,
                c.cells_delivered + c.cells_dropped + c.cells_in_flight,
                "VS/VD at {k:?}: {n}"
            );
            assert_eq!(c.cells_dropped, 0, "VS/VD at {k:?}: {n}");
        }
        // steady state (after 1 s): ERICA at 90% target keeps every port's queue at a few
        // cells (2 at most measured); 50 leaves room for RM-cell bunching
        for (n, p) in &s.ports {
            assert!(
                p.max_queue_cells < 50,
                "VS/VD at {k:?}: port {n} {}",
                p.max_queue_cells
            );
        }
        // queues over the whole run, start-up included (ICR 20 Mb/s; before ERICA's first 5 ms
        // interval closes a port's FairShare is its whole target, so S2->S3 queues about 1,800
        // cells at start-up with or without VS/VD). Bound: 2,200 cells, 6 ms of a trunk: the
        // first 5 ms interval, in which every port gives its whole target, and half a trunk
        // round trip for the first measured feedback to arrive; before the fix the VS/VD port
        // grew to 109,067.
        // A virtual source's queue: below 733 cells (2 ms of a trunk, one trunk round trip)
        // and back to at most 10 cells at the end.
        let (s, ..) = vsvd_parking_lot(k, 0.0);
        for (n, p) in &s.ports {
            let (q, q0) = (p.max_queue_cells, reference.ports[n].max_queue_cells);
            assert!(
                q < 2_200,
                "VS/VD at {k:?}: port {n} max queue {q}, without VS/VD {q0}"
            );
        }
        for (n, c) in &s.connections {
            if let Some(q) = c.source_queue_final_cells {
                assert!(n.contains(".seg"));
                assert!(c.source_queue_max_cells.unwrap() < 733, "{n}");
                assert!(q <= 10, "VS/VD at {k:?}: {n} VS queue {q} at the end");
            }
        }
    }
}

/// h1, h2 -> A -> B -> C -> d1, d2 with B a virtual source / virtual destination: the A-B hop
/// is long (2000 km, a 20 ms round trip for the first segment), B->C (100 Mb/s) the bottleneck,
/// the VS/VD switch's own port. s2 starts at 0.5 s: the virtual source of s1 is cut from 90 to
/// 45 Mb/s at once, while s1's host keeps sending 90 Mb/s for a round trip of the first segment.
fn vsvd_transient(drain_s: f64) -> Summary {
    three_switches(
        json!({"scheme": "erica", "interval_s": 0.002, "delta": 0.0}),
        json!({"scheme": "erica", "interval_s": 0.002, "delta": 0.0, "vsvd": true, "vs_drain_s": drain_s}),
        |i| json!({"kind": "persistent", "start_s": if i == 1 { 0.0 } else { 0.5 }}),
        "VS/VD transient",
    )
}

#[test]
fn vsvd_queue_drains_after_a_transient() {
    let s = vsvd_transient(0.005);
    let fair = 0.9 * 100.0 / 2.0;
    let q = &s.connections["s1.seg1"];
    let (qmax, qend) = (
        q.source_queue_max_cells.unwrap(),
        q.source_queue_final_cells.unwrap(),
    );
    // the transient: about (90 - 45) Mb/s for 20 ms, some 2,000 cells, queue at the VS
    assert!(qmax > 1_000, "s1.seg1 VS queue max {qmax}");
    // the queue term drains it: back to near zero long before the end
    assert!(qend <= 10, "s1.seg1 VS queue {qend} at the end");
    for name in ["s1", "s1.seg1", "s2", "s2.seg1"] {
        let c = &s.connections[name];
        assert!(
            (used_rate(c) / fair - 1.0).abs() < 0.03,
            "{name}: {} vs {fair}",
            used_rate(c)
        );
        assert_eq!(c.source_queue_final_cells.is_some(), name.contains(".seg"));
    }
    for (n, c) in &s.connections {
        assert_eq!(
            c.cells_sent,
            c.cells_delivered + c.cells_dropped + c.cells_in_flight,
            "{n}"
        );
    }
    // without the queue term (ER upstream at most the VS's ACR) the queue never drains: the
    // first segment is held at exactly the rate the virtual source sends
    let s = vsvd_transient(0.0);
    let q = s.connections["s1.seg1"].source_queue_final_cells.unwrap();
    assert!(q > 1_000, "no queue term: s1.seg1 VS queue {q} at the end");
}

#[test]
fn erica_keeps_per_vc_state_only_for_the_vcs_crossing_its_port() {
    // issue 13: a port's per-VC state grows with the VCs crossing it, not with the network's
    use atmsim_core::abr::switch::PortScheme;
    let sc = n_sources(3, 1.0, erica(0.005), 0.01, vec![]);
    let sim = build_from_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let mut erica_ports = 0;
    for (p, port) in sim.ports.iter().enumerate() {
        if let PortScheme::Erica(e) = &port.scheme {
            let crossing = sim
                .flows
                .iter()
                .filter(|f| f.ports.contains(&(p as u32)))
                .count();
            assert_eq!(e.vcs.len(), crossing, "port {p}");
            assert!(crossing < sim.flows.len());
            erica_ports += 1;
        }
    }
    // A's four ports: to B (the three forward flows) and back to each source (one backward flow)
    assert_eq!(erica_ports, 4);
}
