//! XTPX at scenario level (seed 001 sections 5.2 and 9): rate-limited throughput is B / I
//! whatever the round trip, window-limited throughput is window / RTT, both error controls
//! deliver every byte once over a lossy trunk and selective repeat resends less, bundles of
//! rate-controlled connections each get their rate, runs are deterministic.

use atmsim_core::build_from_json;
use atmsim_core::metrics::{Summary, XtpxSummary};
use atmsim_core::wire::aal5_cells;
use serde_json::{json, Value};

const LINK: f64 = 149.76;

fn run(sc: &Value) -> Summary {
    let mut sim = build_from_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.summary()
}

/// h -- A -- B -- d; the trunk A-B is `km` long (5 us/km); every link 149.76 Mb/s.
fn path(km: f64, xtpx: Value, bundle: i64, trunk: Value, run: Value) -> Value {
    let mut t = json!({"a": "A", "b": "B", "rate_mbps": LINK, "length_km": km});
    t.as_object_mut()
        .unwrap()
        .extend(trunk.as_object().unwrap().clone());
    json!({"description": "xtpx", "run": run,
           "nodes": [{"name": "h", "kind": "host"}, {"name": "A", "kind": "switch"}, {"name": "B", "kind": "switch"}, {"name": "d", "kind": "host"}],
           "links": [{"a": "h", "b": "A", "rate_mbps": LINK, "delay_us": 0.0}, t, {"a": "B", "b": "d", "rate_mbps": LINK, "delay_us": 0.0}],
           "connections": [{"name": "x", "route": ["h", "A", "B", "d"], "category": "ubr",
                            "source": {"kind": "xtpx", "bundle": bundle, "xtpx": xtpx}}]})
}

fn xtpx(s: &Summary) -> XtpxSummary {
    s.connections["x"].xtpx.clone().expect("an XTPX summary")
}

fn cell_time() -> f64 {
    424.0 / (LINK * 1e6)
}

#[test]
fn rate_limited_throughput_is_b_over_i_whatever_the_round_trip() {
    // B = 20,480 B per I = 10 ms: R = 2,048,000 payload bytes/s. Each burst is two packets of
    // 9,148 B and one of 2,184 B (the credit left), 192 + 192 + 47 = 431 cells; it reaches the
    // receiver within 1.3 ms of its interval's start + the one-way delay, so the 200 intervals
    // that start in the measurement window [1 s, 3 s) deliver exactly 200 bursts into it for
    // a one-way delay of 5 ms (RTT 10 ms) and of 50 ms (RTT 100 ms). The window is 20 bursts (400 KB, 200 ms of R):
    // larger than R x RTT for both, so it never limits.
    let (b, i_ms) = (20_480u64, 10.0);
    let x = json!({"rate_control": true, "burst_bytes": b, "interval_ms": i_ms, "window_bytes": 409600});
    let cells = 2 * aal5_cells(9148 + 32) as u64 + aal5_cells(2184 + 32) as u64;
    assert_eq!(cells, 431);
    let mut got = vec![];
    for km in [1000.0, 10_000.0] {
        let s = run(&path(
            km,
            x.clone(),
            1,
            json!({}),
            json!({"duration_s": 3.0, "warmup_s": 1.0}),
        ));
        let t = xtpx(&s);
        assert_eq!(t.bytes_delivered, 200 * b, "{km} km");
        assert_eq!(t.rate_bytes_per_s, Some(2_048_000.0));
        assert!((t.throughput_kbytes_s - 2048.0).abs() < 1e-9);
        assert_eq!(t.retransmitted_packets, 0);
        // the cells on the wire: 431 per burst (headers and AAL5 padding included)
        let c = &s.connections["x"];
        let rx_cells = c.throughput_mbps * 1e6 * 2.0 / 384.0;
        assert!((rx_cells - 200.0 * cells as f64).abs() < 1e-6, "{rx_cells}");
        eprintln!(
            "B {b} B per I {i_ms} ms, {km} km: {} kB/s (R = {} kB/s), {rx_cells} cells",
            t.throughput_kbytes_s,
            t.rate_bytes_per_s.unwrap() / 1e3
        );
        got.push(t.goodput_mbps);
    }
    assert_eq!(got[0], got[1], "the same throughput for both round trips");
}

#[test]
fn window_limited_throughput_is_window_over_rtt() {
    // window 4 full packets (4 x 9,148 B), no rate control, a status request on every packet.
    // RTT: 2 x the trunk's propagation; a packet's last cell leaves the host after 192 cell
    // times and crosses 2 more links (2), the 2-cell CNTL (52 B) crosses 3 links (2 + 1 + 1).
    let w = 4 * 9148;
    for km in [1000.0, 2000.0] {
        let s = run(&path(
            km,
            json!({"window_bytes": w}),
            1,
            json!({}),
            json!({"duration_s": 3.0, "warmup_s": 1.0}),
        ));
        let t = xtpx(&s);
        let rtt = 2.0 * km * 5e-6 + (192.0 + 2.0 + 2.0 + 2.0) * cell_time();
        let expect = w as f64 * 8.0 / rtt / 1e6;
        eprintln!(
            "window {w} B, {km} km: goodput {:.3} Mb/s, window / RTT {expect:.3} Mb/s",
            t.goodput_mbps
        );
        assert!(
            (t.goodput_mbps / expect - 1.0).abs() < 0.01,
            "{km} km: {} vs {expect}",
            t.goodput_mbps
        );
        assert_eq!(t.retransmitted_packets, 0);
        assert_eq!(t.window_bytes, Some(w));
        assert_eq!(t.rate_bytes_per_s, None);
    }
}

fn lossy(error_control: &str) -> Summary {
    // a 4 MB transfer, window 16 packets, over a trunk losing cells with probability 2e-4 both
    // ways (a 192-cell packet is lost with probability 3.8%)
    let x = json!({"window_bytes": 16 * 9148, "error_control": error_control, "bytes": 4_000_000, "timer_ms": 100.0});
    run(&path(
        1000.0,
        x,
        1,
        json!({"impairment": {"loss_probability": 2e-4}}),
        json!({"duration_s": 20.0, "seed": 7}),
    ))
}

#[test]
fn both_error_controls_deliver_every_byte_once_and_selective_repeat_resends_less() {
    let (gbn, sr) = (lossy("go_back_n"), lossy("selective_repeat"));
    let (g, r) = (xtpx(&gbn), xtpx(&sr));
    for (t, name) in [(&g, "go_back_n"), (&r, "selective_repeat")] {
        // bytes_delivered counts in-order bytes handed to the application (duplicates are
        // dropped, out-of-order data wait): the whole transfer, exactly
        assert_eq!(t.bytes_delivered, 4_000_000, "{name}");
        assert!(t.completed_s.is_some(), "{name}");
        assert!(
            t.retransmitted_packets > 0,
            "{name}: the trunk lost packets"
        );
    }
    assert!(gbn.connections["x"].cells_dropped > 0);
    eprintln!(
        "retransmitted packets: go_back_n {} (of {} sent), selective_repeat {} (of {} sent)",
        g.retransmitted_packets, g.packets_sent, r.retransmitted_packets, r.packets_sent
    );
    assert!(
        r.retransmitted_packets < g.retransmitted_packets,
        "sr {} gbn {}",
        r.retransmitted_packets,
        g.retransmitted_packets
    );
}

#[test]
fn without_error_control_a_lost_packet_is_skipped() {
    let s = lossy("none");
    let t = xtpx(&s);
    assert_eq!(t.retransmitted_packets, 0);
    assert!(t.bytes_delivered < 4_000_000);
    assert!(t.completed_s.is_some(), "the window slides past the gaps");
}

#[test]
fn xtpx_runs_are_deterministic() {
    let a = serde_json::to_string(&lossy("selective_repeat")).unwrap();
    let b = serde_json::to_string(&lossy("selective_repeat")).unwrap();
    assert_eq!(a, b);
}

#[test]
fn each_bundled_connection_gets_its_rate() {
    // seed 001 section 9 (Figure 28): k rate-controlled connections on one VC each get R as
    // long as k R fits the link: 4 x 1,000,000 B/s
    let x = json!({"rate_control": true, "burst_bytes": 10_000, "interval_ms": 10.0, "window_bytes": 100_000});
    let s = run(&path(
        1000.0,
        x,
        4,
        json!({}),
        json!({"duration_s": 2.0, "warmup_s": 1.0}),
    ));
    let all = s.connections["x"].xtpx_bundle.clone().expect("a bundle");
    assert_eq!(all.len(), 4);
    for t in &all {
        assert_eq!(t.bytes_delivered, 100 * 10_000);
    }
}
