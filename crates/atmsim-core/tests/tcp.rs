//! TCP at scenario level: window and bottleneck limits, slow start, loss recovery, TCP over ABR
//! and over UBR with frame discard.

use atmsim_core::build_from_json;
use atmsim_core::metrics::Summary;
use serde_json::{json, Value};

const LINK: f64 = 149.76;

fn run(sc: &Value) -> Summary {
    let mut sim = build_from_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.summary()
}

/// h -- A -- B -- d; the trunk A-B is `trunk_km` long; every link 149.76 Mb/s unless changed.
fn path(conns: Value, trunk: Value, run: Value) -> Value {
    let mut t = json!({"a": "A", "b": "B", "rate_mbps": LINK, "length_km": 1000.0});
    t.as_object_mut()
        .unwrap()
        .extend(trunk.as_object().unwrap().clone());
    json!({"description": "tcp", "run": run,
           "nodes": [{"name": "h", "kind": "host"}, {"name": "A", "kind": "switch"}, {"name": "B", "kind": "switch"}, {"name": "d", "kind": "host"}],
           "links": [{"a": "h", "b": "A", "rate_mbps": LINK, "delay_us": 0.0}, t, {"a": "B", "b": "d", "rate_mbps": LINK, "delay_us": 0.0}],
           "connections": conns})
}

fn tcp_conn(category: &str, tcp: Value) -> Value {
    let mut c = json!({"name": "t", "route": ["h", "A", "B", "d"], "category": category, "source": {"kind": "tcp", "tcp": tcp}});
    if category == "abr" {
        c["abr"] = json!({});
    }
    c
}

fn cell_time() -> f64 {
    424.0 / (LINK * 1e6)
}

#[test]
fn window_limited_throughput_is_window_over_rtt() {
    // 65,535 B window, MSS 512: 127 full segments in flight (no short segment while bulk data
    // remain). RTT: 2 x 5 ms of propagation; the segment's last cell leaves the host after 12
    // cell times and crosses 2 more links (2), the 2-cell ACK crosses 3 links (2 + 1 + 1).
    let sc = path(
        json!([tcp_conn(
            "ubr",
            json!({"window_bytes": 65535, "recovery": "none"})
        )]),
        json!({}),
        json!({"duration_s": 3.0, "warmup_s": 1.0}),
    );
    let s = run(&sc);
    let t = s.connections["t"].tcp.clone().unwrap();
    let rtt = 2.0 * 1000.0 * 5e-6 + (12.0 + 2.0 + 2.0 + 2.0) * cell_time();
    let expect = 127.0 * 512.0 * 8.0 / rtt / 1e6;
    assert!(
        (t.goodput_mbps / expect - 1.0).abs() < 0.01,
        "{} vs {expect}",
        t.goodput_mbps
    );
    assert_eq!(t.retransmitted_segments, 0);
    assert_eq!(s.connections["t"].cells_dropped, 0);
}

#[test]
fn bandwidth_limited_throughput_is_the_encapsulation_limit() {
    // a 1 MB window on a 10 ms path exceeds the bandwidth-delay product: the goodput is the
    // link's cell rate x 512 / (12 x 53) (80.5% of the line, seed 000 section 6)
    for mss in [512u32, 9140] {
        let tcp = json!({"mss_bytes": mss, "window_bytes": 1 << 20, "window_scale": true, "recovery": "none"});
        let sc = path(
            json!([tcp_conn("ubr", tcp)]),
            json!({}),
            json!({"duration_s": 3.0, "warmup_s": 1.5}),
        );
        let s = run(&sc);
        let t = s.connections["t"].tcp.clone().unwrap();
        let cells = atmsim_core::wire::aal5_cells(mss + 48) as f64;
        let expect = LINK / 424.0 * 1e6 * mss as f64 * 8.0 / cells / 1e6;
        assert!(
            (t.goodput_mbps / expect - 1.0).abs() < 0.005,
            "mss {mss}: {} vs {expect}",
            t.goodput_mbps
        );
    }
}

#[test]
fn slow_start_doubles_the_window_every_round_trip() {
    let sc = path(
        json!([tcp_conn(
            "ubr",
            json!({"window_bytes": 1 << 20, "window_scale": true})
        )]),
        json!({}),
        json!({"duration_s": 0.1, "sample_interval_s": 0.0005}),
    );
    let mut sim = build_from_json(&sc.to_string()).unwrap();
    sim.run();
    let rtt = 2.0 * 1000.0 * 5e-6 + 18.0 * cell_time();
    let tcp = sim.series().table("tcp").unwrap();
    let time_s = tcp.column("time_s").unwrap().as_f64().unwrap();
    let cwnd = tcp.column("cwnd_bytes").unwrap().as_u64().unwrap();
    let cwnd_at = |t: f64| {
        let i = time_s.iter().position(|&x| x >= t).unwrap();
        cwnd[i]
    };
    for k in 0..6 {
        assert_eq!(cwnd_at((k as f64 + 0.5) * rtt), 512 << k, "round {k}");
    }
}

fn lossy(recovery: &str, drops: Value) -> Summary {
    // a 2 MB transfer over a 10 ms path, window 256 KB; the trunk loses the scripted cells
    let tcp = json!({"window_bytes": 262144, "window_scale": true, "recovery": recovery, "bytes": 2_000_000});
    let sc = path(
        json!([tcp_conn("ubr", tcp)]),
        json!({"impairment": {"drop_cells_a_to_b": drops}}),
        json!({"duration_s": 5.0}),
    );
    run(&sc)
}

#[test]
fn a_single_drop_is_recovered_by_timeout_or_by_fast_retransmit() {
    // cell 5995 is inside segment 500 (12 cells each), sent with many segments behind it
    let clean = lossy("none", json!([]));
    let tc = clean.connections["t"].tcp.clone().unwrap();
    assert_eq!(tc.retransmitted_segments, 0);
    let done_clean = tc.completed_s.unwrap();

    let none = lossy("none", json!([5995]));
    let t = none.connections["t"].tcp.clone().unwrap();
    assert_eq!(t.timeouts, 1);
    assert_eq!(t.fast_retransmits, 0);
    assert_eq!(t.bytes_delivered, 2_000_000);
    // go-back-N after the timeout: at least the lost segment again; the wait cost more than
    // one tick (an RTO of 2 ticks counts down on the 100 ms clock, so it fires 100-200 ms after
    // it was last set)
    assert!(t.retransmitted_segments >= 1);
    assert!(
        t.completed_s.unwrap() > done_clean + 0.1,
        "{:?} vs {done_clean}",
        t.completed_s
    );

    for rec in ["reno", "newreno", "tahoe"] {
        let s = lossy(rec, json!([5995]));
        let t = s.connections["t"].tcp.clone().unwrap();
        assert_eq!(t.fast_retransmits, 1, "{rec}");
        assert_eq!(t.timeouts, 0, "{rec}");
        assert_eq!(t.bytes_delivered, 2_000_000, "{rec}");
        assert!(
            t.completed_s.unwrap() < done_clean + 0.1,
            "{rec}: {:?} vs {done_clean}",
            t.completed_s
        );
        if rec != "tahoe" {
            assert_eq!(t.retransmitted_segments, 1, "{rec}");
        }
    }
}

#[test]
fn tcp_over_abr_keeps_the_switch_queue_small_and_queues_at_the_source() {
    // the trunk is the bottleneck (50 Mb/s); ERICA tells the source, so the cells wait in the
    // ABR source's queue, not at the switch ("ABR pushes the queues to the edge", seed 002)
    let tcp = json!({"window_bytes": 1 << 20, "window_scale": true, "recovery": "none"});
    let mut sc = path(
        json!([tcp_conn("abr", tcp)]),
        json!({"rate_mbps": 50.0}),
        json!({"duration_s": 2.0, "warmup_s": 1.0}),
    );
    sc["nodes"][1]["abr"] = json!({"scheme": "erica", "target_utilization": 0.9});
    sc["nodes"][2]["abr"] = json!({"scheme": "erica"});
    let s = run(&sc);
    let c = &s.connections["t"];
    let t = c.tcp.clone().unwrap();
    // goodput: 90% of 50 Mb/s of cells less one RM cell in 32, x 512 / (12 x 53)
    let expect = 0.9 * 50.0 * 31.0 / 32.0 * 512.0 / (12.0 * 53.0);
    assert!(
        (t.goodput_mbps / expect - 1.0).abs() < 0.03,
        "{} vs {expect}",
        t.goodput_mbps
    );
    assert_eq!(c.cells_dropped, 0);
    let q_switch = s.ports["A->B"].max_queue_cells as u64;
    let q_source = c.source_queue_max_cells.unwrap();
    assert!(
        q_source > 10 * q_switch,
        "source {q_source} switch {q_switch}"
    );
}

#[test]
fn tcp_over_ubr_needs_the_window_in_the_switch_buffer() {
    // the same bottleneck without feedback: with a buffer larger than the window nothing is
    // lost and the switch queue holds about the window beyond the bandwidth-delay product
    let tcp = json!({"window_bytes": 262144, "window_scale": true, "recovery": "none"});
    let sc = path(
        json!([tcp_conn("ubr", tcp)]),
        json!({"rate_mbps": 50.0}),
        json!({"duration_s": 2.0}),
    );
    let s = run(&sc);
    let c = &s.connections["t"];
    assert_eq!(c.cells_dropped, 0);
    let window_cells = 262144 / 512 * 12;
    let bdp_cells = (50e6 / 424.0 * 0.010) as u64;
    let q = s.ports["A->B"].max_queue_cells as u64;
    assert!(
        q <= window_cells && q + bdp_cells + 200 >= window_cells,
        "queue {q}, window {window_cells}, bdp {bdp_cells}"
    );
}

#[test]
fn tcp_runs_are_deterministic() {
    let sc = path(
        json!([tcp_conn("ubr", json!({"recovery": "reno"}))]),
        json!({"impairment": {"loss_probability": 1e-4}}),
        json!({"duration_s": 1.0}),
    );
    let a = serde_json::to_string(&run(&sc).connections).unwrap();
    let b = serde_json::to_string(&run(&sc).connections).unwrap();
    assert_eq!(a, b);
}

#[test]
fn a_lost_end_of_frame_cell_loses_two_segments_which_newreno_repairs_in_one_recovery() {
    // cell 6000 ends segment 500: without it the receiver's AAL5 merges segments 500 and 501
    // into one frame that fails its CRC, so two segments are lost
    let reno = lossy("reno", json!([6000]));
    let t = reno.connections["t"].tcp.clone().unwrap();
    assert_eq!(t.retransmitted_segments, 2);
    assert_eq!(
        t.fast_retransmits, 2,
        "Reno leaves recovery on the partial ACK and needs a second one"
    );
    let newreno = lossy("newreno", json!([6000]));
    let t = newreno.connections["t"].tcp.clone().unwrap();
    assert_eq!(t.retransmitted_segments, 2);
    assert_eq!(
        t.fast_retransmits, 1,
        "the partial ACK retransmits the second hole"
    );
    assert_eq!(t.timeouts, 0);
}

/// Five TCP connections over UBR into one 50 Mb/s trunk whose port holds 2,000 cells, with the
/// given frame discard policy; returns (total goodput Mb/s, trunk utilization).
fn ubr_five(discard: &str) -> (f64, f64) {
    let mut nodes = vec![
        json!({"name": "A", "kind": "switch", "buffer_cells": 2000}),
        json!({"name": "B", "kind": "switch"}),
        json!({"name": "d", "kind": "host"}),
    ];
    if discard != "tail" {
        nodes[0]["discard"] = discard.into();
        if discard.starts_with("epd") {
            nodes[0]["epd_threshold_cells"] = 1400.into();
        }
    }
    let mut links = vec![
        json!({"a": "A", "b": "B", "rate_mbps": 50.0, "length_km": 500.0}),
        json!({"a": "B", "b": "d", "rate_mbps": LINK, "delay_us": 0.0}),
    ];
    let mut conns = vec![];
    for i in 0..5 {
        let h = format!("h{i}");
        nodes.push(json!({"name": h, "kind": "host"}));
        links.push(json!({"a": h, "b": "A", "rate_mbps": LINK, "delay_us": 0.0}));
        conns.push(json!({"name": format!("t{i}"), "route": [h, "A", "B", "d"], "category": "ubr",
            "source": {"kind": "tcp", "start_s": 0.01 * i as f64, "tcp": {"mss_bytes": 9140, "window_bytes": 262144, "window_scale": true, "recovery": "reno"}}}));
    }
    let sc = json!({"description": "ubr", "run": {"duration_s": 6.0, "warmup_s": 1.0}, "nodes": nodes, "links": links, "connections": conns});
    let s = run(&sc);
    let goodput: f64 = s
        .connections
        .values()
        .filter_map(|c| c.tcp.as_ref())
        .map(|t| t.goodput_mbps)
        .sum();
    (goodput, s.ports["A->B"].utilization)
}

#[test]
fn frame_discard_raises_tcp_goodput_over_ubr() {
    // Romanow and Floyd (IEEE JSAC 13(4), 1995): with tail drop the congested port keeps sending
    // cells of frames already cut, which the receivers throw away; EPD refuses whole frames
    let (tail, u_tail) = ubr_five("tail");
    let (ppd, _) = ubr_five("ppd");
    let (epd, u_epd) = ubr_five("epd");
    // the most any policy can deliver: the trunk's cells x 9140 / (192 x 53)
    let ceiling = 50.0 * 9140.0 / (192.0 * 53.0);
    // EPD keeps the trunk busy with whole frames: near the encapsulation ceiling
    assert!(u_epd > 0.99, "{u_epd}");
    assert!(
        epd <= ceiling * 1.0001 && epd > 0.95 * ceiling,
        "{epd} vs {ceiling}"
    );
    // tail drop cuts many frames per window: Reno falls back on timeouts and the trunk idles;
    // PPD saves the cells of cut frames but still cuts them
    assert!(u_tail < u_epd, "{u_tail} {u_epd}");
    assert!(tail < ppd && ppd < epd, "tail {tail}, PPD {ppd}, EPD {epd}");
}

#[test]
fn tcp_over_abr_with_erica_plus_loses_nothing_in_a_few_rtts_of_buffer() {
    // five TCP connections over ABR into one 149.76 Mb/s, 1000 km trunk (RTT about 10 ms) whose
    // port holds three round trips of cells; ERICA+ (T0 500 us) on a constant ABR capacity: no
    // cell is lost and TCP gets within a few percent of the encapsulation maximum,
    // 149.76 x 31/32 x 512 / (12 x 53)
    let rtt_cells = (LINK * 1e6 / 424.0 * 0.010) as i64;
    let mut nodes = vec![
        json!({"name": "A", "kind": "switch", "buffer_cells": 3 * rtt_cells, "abr": {"scheme": "erica+", "interval_cells": 500, "interval_s": 0.005}}),
        json!({"name": "B", "kind": "switch", "abr": {"scheme": "erica+"}}),
        json!({"name": "d", "kind": "host"}),
    ];
    let mut links = vec![
        json!({"a": "A", "b": "B", "rate_mbps": LINK, "length_km": 1000.0}),
        json!({"a": "B", "b": "d", "rate_mbps": LINK, "delay_us": 0.0}),
    ];
    let mut conns = vec![];
    for i in 0..5 {
        let h = format!("h{i}");
        nodes.push(json!({"name": h, "kind": "host"}));
        links.push(json!({"a": h, "b": "A", "rate_mbps": LINK, "delay_us": 0.0}));
        conns.push(json!({"name": format!("t{i}"), "route": [h, "A", "B", "d"], "category": "abr",
            "abr": {"icr_mbps": 10.0, "rif": 1.0, "rdf": 0.001953125, "tbe": 512, "cdf": 0.5},
            "source": {"kind": "tcp", "tcp": {"window_bytes": 1048576, "window_scale": true, "recovery": "none"}}}));
    }
    let sc = json!({"description": "tcp over abr", "run": {"duration_s": 3.0, "warmup_s": 1.0}, "nodes": nodes, "links": links, "connections": conns});
    let s = run(&sc);
    let dropped: u64 = s.connections.values().map(|c| c.cells_dropped).sum();
    assert_eq!(dropped, 0);
    let goodput: f64 = s
        .connections
        .values()
        .filter_map(|c| c.tcp.as_ref())
        .map(|t| t.goodput_mbps)
        .sum();
    let ceiling = LINK * 31.0 / 32.0 * 512.0 / (12.0 * 53.0);
    assert!(
        goodput > 0.95 * ceiling && goodput <= ceiling * 1.0001,
        "{goodput} vs {ceiling}"
    );
}

#[test]
fn bundled_connections_share_one_vc_and_each_gets_exactly_its_bytes() {
    // seed 001 section 6.4: k TCP connections multiplexed on one VC, each with its own
    // connection number in the frames' transport header. Connection i sends its own finite
    // transfer; the receiving host must hand every frame to the right connection, so each
    // receiver ends with exactly its sender's bytes, and the VC's cells are the sum of all.
    let (k, bytes) = (4usize, 200_000u64);
    let mut c = tcp_conn("ubr", json!({"window_bytes": 32768, "bytes": bytes}));
    c["source"]["bundle"] = json!(k);
    let sc = path(json!([c]), json!({}), json!({"duration_s": 2.0}));
    let s = run(&sc);
    let conn = &s.connections["t"];
    let all = conn
        .tcp_bundle
        .clone()
        .expect("a bundle reports each connection");
    assert_eq!(all.len(), k);
    for t in &all {
        assert_eq!(
            t.bytes_delivered, bytes,
            "every connection delivers its own transfer"
        );
        assert!(t.completed_s.is_some());
        assert_eq!(t.retransmitted_segments, 0);
    }
    assert_eq!(conn.tcp.as_ref().unwrap().bytes_delivered, bytes);
    // a full segment is 512 B + 48 B of headers = 12 cells, the last one carries the rest
    let (full, rest) = (bytes / 512, (bytes % 512) as u32);
    let aal5 = atmsim_core::wire::aal5_cells;
    let per_conn = full * 12 + if rest > 0 { aal5(rest + 48) as u64 } else { 0 };
    assert_eq!(conn.frames_delivered, (full + (rest > 0) as u64) * k as u64);
    assert_eq!(conn.cells_delivered, per_conn * k as u64);
    // the ACKs of all k connections share the reverse flow
    let rev = &s.connections["t.reverse"];
    assert_eq!(rev.cells_delivered, rev.cells_sent);
}

#[test]
fn tcp_carries_data_both_ways_on_one_connection() {
    // reverse_source.kind = "tcp": each end sends its own transfer and acknowledges the
    // other's; the ACKs of one direction share the flow with the data of the other.
    let there = 300_000u64;
    let back = 120_000u64;
    let mut c = tcp_conn("ubr", json!({"window_bytes": 65535, "bytes": there}));
    c["bidirectional"] = json!(true);
    c["reverse_source"] = json!({"kind": "tcp", "tcp": {"window_bytes": 16384, "bytes": back}});
    let sc = path(json!([c]), json!({}), json!({"duration_s": 2.0}));
    let s = run(&sc);
    let fwd = s.connections["t"].tcp.clone().unwrap();
    let rev = s.connections["t.reverse"].tcp.clone().unwrap();
    assert_eq!((fwd.bytes_delivered, rev.bytes_delivered), (there, back));
    assert!(fwd.completed_s.is_some() && rev.completed_s.is_some());
    // the 16 kB window over a 10 ms round trip limits the reverse transfer: it needs at least
    // back / window round trips of 10 ms
    let min_s = (back as f64 / 16384.0).floor() * 2.0 * 1000.0 * 5e-6;
    assert!(
        rev.completed_s.unwrap() >= min_s,
        "{:?} vs {min_s}",
        rev.completed_s
    );
    // each flow carries its data segments and the other direction's ACKs
    let segs = |b: u64| (b as f64 / 512.0).ceil() as u64;
    assert!(s.connections["t"].frames_delivered > segs(there));
    assert!(s.connections["t.reverse"].frames_delivered > segs(back));
}

/// The trace (sim/trace.rs) tells a retransmission from a first send by the payload bytes of a
/// frame, its SDU less the headers TCP puts in it: the engine repeats that number, which must
/// stay the transport's.
#[test]
fn the_trace_knows_the_tcp_header_bytes() {
    assert_eq!(
        atmsim_core::sim::SEGMENT_HEADER_BYTES,
        atmsim_core::transport::tcp::TCP_IP_LLC_BYTES
    );
}
