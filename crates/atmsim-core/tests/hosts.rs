//! The host model (`nodes[].host`, docs/hosts.md) in whole runs: closed forms for a CPU-bound
//! sender (per TSDU, per packet, per byte), window-limited throughput with the host's
//! processing in the round trip, a UDP receive buffer dropping exactly the excess datagrams,
//! seed 004's keep-up flag, the ideal host, determinism and bad input.

use atmsim_core::build_from_json;
use atmsim_core::metrics::Summary;
use serde_json::{json, Value};

const LINK: f64 = 149.76;

fn run(sc: &Value) -> Summary {
    let mut sim = build_from_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.summary()
}

fn cell_time() -> f64 {
    424.0 / (LINK * 1e6)
}

/// h -- A -- B -- d with a TCP connection; `hh`, `dh`: the host tables of h and d.
fn tcp_path(tcp: Value, hh: Option<Value>, dh: Option<Value>, trunk_km: f64) -> Value {
    let mut h = json!({"name": "h", "kind": "host"});
    let mut d = json!({"name": "d", "kind": "host"});
    if let Some(x) = hh {
        h["host"] = x;
    }
    if let Some(x) = dh {
        d["host"] = x;
    }
    json!({"description": "host model test", "run": {"duration_s": 3.0, "warmup_s": 1.0},
           "nodes": [h, {"name": "A", "kind": "switch"}, {"name": "B", "kind": "switch"}, d],
           "links": [{"a": "h", "b": "A", "rate_mbps": LINK, "delay_us": 0.0},
                     {"a": "A", "b": "B", "rate_mbps": LINK, "length_km": trunk_km},
                     {"a": "B", "b": "d", "rate_mbps": LINK, "delay_us": 0.0}],
           "connections": [{"name": "t", "route": ["h", "A", "B", "d"], "category": "ubr",
                            "source": {"kind": "tcp", "tcp": tcp}}]})
}

fn goodput_bytes_per_s(s: &Summary) -> f64 {
    s.connections["t"].tcp.as_ref().unwrap().goodput_mbps * 1e6 / 8.0
}

/// A CPU-bound sender writing TSDUs of S bytes: each TSDU costs the write system call T, the
/// per-packet cost P for each of its S / MSS packets and S x b per byte, so the throughput is
/// S / (T + (S / MSS) P + S b); with P = 0 it is the issue's TSDU / (per-TSDU + size x
/// per-byte), with T = 0 the per-packet form MSS / (P + MSS b).
#[test]
fn cpu_bound_sender_throughput_is_tsdu_over_its_cost() {
    let mss: f64 = 9140.0;
    for (tsdu, t_us, p_us, b_ns) in [
        (8192.0, 400.0, 0.0, 50.0),
        (4.0 * mss, 0.0, 300.0, 50.0),
        (2.0 * mss, 250.0, 200.0, 40.0),
    ] {
        let tcp = json!({"mss_bytes": mss as i64, "window_bytes": 1 << 20, "window_scale": true,
                         "recovery": "none", "tsdu_bytes": tsdu as i64});
        let host = json!({"per_tsdu_us": t_us, "per_packet_send_us": p_us,
                          "per_byte_send_ns": b_ns, "send_buffer_bytes": 262144});
        let s = run(&tcp_path(tcp, Some(host), None, 1.0));
        let cost = t_us * 1e-6 + (tsdu / mss).ceil() * p_us * 1e-6 + tsdu * b_ns * 1e-9;
        let expect = tsdu / cost;
        let got = goodput_bytes_per_s(&s);
        assert!(
            (got / expect - 1.0).abs() < 0.003,
            "tsdu {tsdu}: {got} vs {expect} B/s"
        );
        // the CPU is the bottleneck: busy all the time, the link is not
        let h = &s.hosts["h"];
        assert!(h.cpu_utilization > 0.999, "{}", h.cpu_utilization);
        assert!(got * 8.0 / 1e6 < 0.8 * LINK);
    }
}

/// The window limits and the hosts' processing is part of the round trip. MSS 1,024 (23 cells
/// per segment), a 16 KB receive buffer, 25 us per packet and 2 ns per byte at both hosts:
/// - the RTT is the network's (as in tests/tcp.rs: 2 x 5 ms of propagation, the segment's 23
///   cell times on the first link, one cell time on each further link, the 2-cell ACK's 2 + 1
///   + 1) plus the data segment's send and receive processing and the ACK's (0.1 ms, 1%);
/// - the receiver acknowledges a segment when its receive processing is done, before the
///   application has read it (BSD acknowledges in tcp_input, the process reads later): the
///   window advertised is the buffer less that segment, 15 segments.
///
/// Each host needs 52 us per segment, below the 62 us a segment takes on the link, so no
/// segment waits for a CPU and the reader reads each segment before the next arrives.
#[test]
fn window_limited_throughput_is_window_over_rtt_with_the_host_costs() {
    let host = json!({"per_packet_send_us": 25.0, "per_packet_recv_us": 25.0,
                      "per_byte_send_ns": 2.0, "per_byte_recv_ns": 2.0});
    let tcp = json!({"mss_bytes": 1024, "window_bytes": 16384, "recovery": "none"});
    let s = run(&tcp_path(
        tcp.clone(),
        Some(host.clone()),
        Some(host),
        1000.0,
    ));
    let cells = atmsim_core::wire::aal5_cells(1024 + 48) as f64;
    assert_eq!(cells, 23.0);
    let data_cost = 25e-6 + 1024.0 * 2e-9;
    let ack_cost = 25e-6;
    let rtt0 = 2.0 * 1000.0 * 5e-6 + (cells + 6.0) * cell_time();
    let rtt = rtt0 + 2.0 * data_cost + 2.0 * ack_cost;
    let expect = 15.0 * 1024.0 / rtt;
    let got = goodput_bytes_per_s(&s);
    assert!((got / expect - 1.0).abs() < 0.002, "{got} vs {expect}");
    // without host models the same path gives the network's window / RTT, 16 segments
    let ideal = goodput_bytes_per_s(&run(&tcp_path(tcp, None, None, 1000.0)));
    let expect0 = 16.0 * 1024.0 / rtt0;
    assert!(
        (ideal / expect0 - 1.0).abs() < 0.002,
        "{ideal} vs {expect0}"
    );
}

/// A sender's host table with no costs and unlimited buffers is the ideal host: the
/// connection's results are those without a table (bulk TCP and a TSDU writer). (A receiver's
/// table makes its application read, which the window then shows: see above.)
#[test]
fn a_sender_host_without_costs_is_the_ideal_host() {
    for tsdu in [None, Some(3000)] {
        let mut tcp = json!({"window_bytes": 32768, "recovery": "reno", "delayed_ack": true});
        if let Some(n) = tsdu {
            tcp["tsdu_bytes"] = json!(n);
        }
        let a = run(&tcp_path(tcp.clone(), None, None, 100.0));
        let b = run(&tcp_path(tcp, Some(json!({})), None, 100.0));
        let (x, y) = (&a.connections["t"], &b.connections["t"]);
        assert_eq!(
            serde_json::to_string(x).unwrap(),
            serde_json::to_string(y).unwrap()
        );
        assert!(x.tcp.as_ref().unwrap().bytes_delivered > 0);
    }
}

/// One video stream h -> S -> r over UDP; `rh`: the receiving host's table, `sh` the
/// sender's.
fn video(frame: u64, rate: f64, sh: Option<Value>, rh: Option<Value>, dur: f64) -> Value {
    let mut h = json!({"name": "h", "kind": "host"});
    let mut r = json!({"name": "r", "kind": "host"});
    if let Some(x) = sh {
        h["host"] = x;
    }
    if let Some(x) = rh {
        r["host"] = x;
    }
    json!({"description": "host model video test", "run": {"duration_s": dur, "seed": 3},
           "traces": {"t": {"frames": [frame]}},
           "nodes": [h, {"name": "S", "kind": "switch"}, r],
           "links": [{"a": "h", "b": "S", "rate_mbps": 100.0, "delay_us": 5.0},
                     {"a": "S", "b": "r", "rate_mbps": 100.0, "delay_us": 5.0}],
           "connections": [{"name": "v", "route": ["h", "S", "r"], "category": "ubr",
                            "source": {"kind": "video", "video": {"trace": "t", "frame_rate": rate,
                                       "random_offset": false, "mtu_bytes": 1500}}}]})
}

/// Frames of 10 datagrams (1,472 B each) reach a receiver whose read system call takes 2 ms
/// and whose receive buffer holds 4 datagrams: while the first datagram is being read the other
/// nine arrive (1.4 ms), three fit, six are dropped by the host, every frame. 11 frames (0 to
/// 1.0 s): exactly 66 drops, under their own reason, none in the network.
#[test]
fn a_full_udp_receive_buffer_drops_exactly_the_excess_datagrams() {
    let rh = json!({"per_tsdu_us": 2000.0, "receive_buffer_bytes": 4 * 1472 + 100});
    let s = run(&video(10 * 1472, 10.0, None, Some(rh), 1.05));
    let r = &s.hosts["r"];
    assert_eq!(r.drops["host_receive_buffer"], 11 * 6);
    assert_eq!(r.drops_by_connection["v"], 11 * 6);
    let c = &s.connections["v"];
    assert_eq!(c.cells_dropped, 0);
    let v = c.video.as_ref().unwrap();
    assert_eq!(v.frames_received, 0);
    // a buffer of 10 datagrams takes every frame whole
    let rh = json!({"per_tsdu_us": 2000.0, "receive_buffer_bytes": 10 * 1472});
    let s = run(&video(10 * 1472, 10.0, None, Some(rh), 1.05));
    assert_eq!(s.hosts["r"].drops["host_receive_buffer"], 0);
    assert_eq!(s.connections["v"].video.as_ref().unwrap().frames_lost, 0);
}

/// Seed 004's rule: a sender whose mean send time per frame exceeds the frame interval is
/// flagged. Frames of 10 datagrams at 10 frames/s with a send cost of P per datagram: the
/// sender keeps up while 10 P <= 100 ms (each frame's first datagram leaves P after it is
/// due, so the mean send time is the interval), and falls behind beyond (frames leave every
/// 10 P).
#[test]
fn keep_up_flag_set_exactly_when_the_mean_send_time_exceeds_the_interval() {
    for (p_ms, overloaded) in [(9.0f64, false), (10.0, false), (10.001, true), (12.0, true)] {
        let sh = json!({"per_packet_send_us": p_ms * 1e3, "keep_up_tolerance_ms": 0.0});
        let s = run(&video(10 * 1472, 10.0, Some(sh), None, 3.0));
        let k = &s.hosts["h"].video_senders["v"];
        assert_eq!(k.overloaded, overloaded, "P = {p_ms} ms");
        assert_eq!(s.hosts["h"].sender_overloaded, overloaded);
        let mean = k.mean_send_time_ms.unwrap();
        let expect = (10.0 * p_ms).max(100.0);
        assert!(
            (mean - expect).abs() < 1e-6,
            "P = {p_ms}: {mean} vs {expect}"
        );
        assert_eq!(k.frame_interval_ms, 100.0);
    }
}

#[test]
fn runs_with_host_models_are_deterministic() {
    let host = json!({"preset": "seed001-lan"});
    let tcp = json!({"tsdu_bytes": 4096, "window_bytes": 51200, "window_scale": true,
                     "delayed_ack": true});
    let sc = tcp_path(tcp, Some(host.clone()), Some(host), 10.0);
    let a = serde_json::to_string(&run(&sc)).unwrap();
    let b = serde_json::to_string(&run(&sc)).unwrap();
    assert_eq!(a, b);
    assert!(a.contains("\"preset\":\"seed001-lan\""));
}

#[test]
fn bad_host_tables_name_their_key() {
    let cases = [
        (json!({"per_tsdu_us": -1.0}), "nodes[0].host.per_tsdu_us"),
        (
            json!({"send_buffer_bytes": 0}),
            "nodes[0].host.send_buffer_bytes",
        ),
        (json!({"preset": "cray"}), "preset"),
        (json!({"per_tsdu": 1.0}), "per_tsdu"),
    ];
    for (h, key) in cases {
        let sc = tcp_path(json!({}), Some(h), None, 1.0);
        let e = build_from_json(&sc.to_string())
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains(key), "{e}");
    }
    let mut sc = tcp_path(json!({}), None, None, 1.0);
    sc["nodes"][1]["host"] = json!({});
    let e = build_from_json(&sc.to_string()).err().unwrap().to_string();
    assert!(e.contains("nodes[1].host"), "{e}");
    let sc = tcp_path(json!({"tsdu_bytes": 100, "bytes": 1000}), None, None, 1.0);
    let e = build_from_json(&sc.to_string()).err().unwrap().to_string();
    assert!(e.contains("tsdu_bytes"), "{e}");
}

/// A slow reader (20 ms per read system call) behind a 4 KB receive buffer keeps closing the
/// window; window updates and the persist timer's probes keep the transfer going, and every
/// byte arrives exactly once: the reads, not the network, set the pace.
#[test]
fn a_slow_reader_closes_the_window_and_the_transfer_still_completes() {
    let n = 200_000u64;
    let tcp = json!({"window_bytes": 4096, "recovery": "reno", "bytes": n});
    let mut sc = tcp_path(tcp, None, Some(json!({"per_tsdu_us": 20000.0})), 1.0);
    sc["run"] = json!({"duration_s": 10.0});
    let s = run(&sc);
    let t = s.connections["t"].tcp.as_ref().unwrap();
    assert_eq!(t.bytes_delivered, n);
    // at most one buffer per read: n / 4096 reads of 20 ms at least
    assert!(s.hosts["d"].system_calls as f64 >= n as f64 / 4096.0);
    assert!(s.hosts["d"].cpu_utilization > 0.9 * (n as f64 / 4096.0) * 0.02 / 10.0);
}
