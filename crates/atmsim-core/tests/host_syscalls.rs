//! The write/read system call (`per_tsdu`, docs/hosts.md) for every application writing or
//! reading through a socket on a host with a model (one mechanism, `host/socket.rs`): closed
//! forms for a workload's bulk_put on a CPU-bound host, an rr transaction's four system calls,
//! and seed 004's keep-up flag for a video sender over TCP.

use atmsim_core::build_from_json;
use atmsim_core::metrics::Summary;
use serde_json::{json, Value};

fn run(sc: &Value) -> Summary {
    let mut sim = build_from_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.summary()
}

/// A -- S -- B at 1 Gb/s, 10 us per link, connection "w" A -> B running `script` over TCP;
/// `ha`, `hb`: the host tables of A and B.
fn workload(script: &str, ha: Option<Value>, hb: Option<Value>) -> Value {
    let mut a = json!({"name": "A", "kind": "host"});
    let mut b = json!({"name": "B", "kind": "host"});
    if let Some(x) = ha {
        a["host"] = x;
    }
    if let Some(x) = hb {
        b["host"] = x;
    }
    json!({"description": "system call test", "run": {"duration_s": 200.0, "seed": 3},
           "nodes": [a, b, {"name": "S", "kind": "switch", "fabric_delay_us": 0.0}],
           "links": [{"a": "A", "b": "S", "rate_mbps": 1000.0, "delay_us": 10.0},
                     {"a": "S", "b": "B", "rate_mbps": 1000.0, "delay_us": 10.0}],
           "connections": [{"name": "w", "route": ["A", "S", "B"], "category": "ubr",
               "source": {"kind": "workload", "workload": {"script": script},
                          "tcp": {"mss_bytes": 9140, "window_bytes": 1 << 20,
                                  "window_scale": true, "mtu_bytes": 9180,
                                  "recovery": "reno", "delayed_ack": false}}}]})
}

/// A workload bulk_put of N TSDUs of S bytes from a CPU-bound host: each TSDU costs its write
/// system call T, the per-packet cost P for each of its ceil(S / MSS) packets and S x b, so
/// the transfer takes N (T + ceil(S / MSS) P + S b) plus one trip through the network (under
/// 1 ms here), as for the bulk TSDU writer (tests/hosts.rs). S is below the MSS or a multiple
/// of it: the round trip (under 0.1 ms) is shorter than a TSDU's cost, so each TSDU leaves
/// as its own ceil(S / MSS) packets.
#[test]
fn workload_bulk_put_on_a_cpu_bound_host_runs_at_tsdu_over_its_cost() {
    let mss: f64 = 9140.0;
    let n = 400.0;
    for (s, t_us, p_us, b_ns) in [
        (512.0f64, 300.0, 0.0, 0.0),
        (4096.0, 200.0, 50.0, 20.0),
        (2.0 * mss, 100.0, 150.0, 30.0),
    ] {
        let host = json!({"per_tsdu_us": t_us, "per_packet_send_us": p_us,
                          "per_byte_send_ns": b_ns, "send_buffer_bytes": 262144});
        let sum = run(&workload(&format!("1 bulk_put {s}*{n};"), Some(host), None));
        let w = sum.connections["w"].workload.as_ref().unwrap();
        assert!(w.complete);
        let r = &w.statements[0].members[0].runs[0];
        let dur = r.end_s.unwrap() - r.start_s;
        let per = t_us * 1e-6 + (s / mss).ceil() * p_us * 1e-6 + s * b_ns * 1e-9;
        let want = n * per;
        assert!(
            dur >= want && dur <= want + 1e-3,
            "S = {s}: {dur} s, want {want} s (+ 1 ms)"
        );
        assert!(sum.hosts["A"].system_calls >= n as u64);
    }
}

/// Request-response on hosts whose only cost is the system call T: a transaction is the
/// initiator's write, the responder's read and write, the initiator's read, one after the
/// other: with T doubled it is exactly 4 T longer (nothing else on the CPUs, so no call waits
/// for another). Against ideal hosts it is 4 T longer less at most two pure ACKs (2 cells each
/// at 1 Gb/s): on an ideal host an ACK can still be on the link when the request or the
/// response is sent right behind it.
#[test]
fn an_rr_transaction_pays_two_writes_and_two_reads() {
    let t_us = 700.0;
    let script = "1 rr 2000,3000*5;";
    let tm = |h: Option<Value>| {
        let s = run(&workload(script, h.clone(), h));
        let w = s.connections["w"].workload.clone().unwrap();
        assert!(w.complete);
        w.statements[0].members[0].runs[0].transaction_ms.unwrap()
    };
    let ideal = tm(None);
    let one = tm(Some(json!({"per_tsdu_us": t_us})));
    let two = tm(Some(json!({"per_tsdu_us": 2.0 * t_us})));
    let ack_ms = 2.0 * 424.0 / 1000.0 / 1e3;
    for (i, a, b) in [(ideal.min, one.min, two.min), (ideal.max, one.max, two.max)] {
        assert!(
            (b - a - 4.0 * t_us / 1e3).abs() < 1e-6,
            "{a} ms at T, {b} ms at 2 T"
        );
        let d = a - i - 4.0 * t_us / 1e3;
        assert!(
            d <= 1e-9 && d >= -2.0 * ack_ms - 1e-9,
            "{i} ms ideal, {a} ms at T"
        );
    }
}

/// A video stream over TCP: frames of 1,000 B at 10 frames/s (interval 100 ms) from a host
/// whose only cost is the write system call T. A frame's write takes effect T after it is due
/// while T <= 100 ms (frames then take effect every 100 ms); beyond, the writes run back to
/// back, one every T. So the mean send time per frame is max(T, 100 ms) and the sender is
/// flagged exactly when T > 100 ms.
#[test]
fn tcp_video_keep_up_flag_set_exactly_when_the_mean_send_time_exceeds_the_interval() {
    for (t_ms, overloaded) in [
        (90.0f64, false),
        (100.0, false),
        (100.001, true),
        (120.0, true),
    ] {
        let sc = json!({"description": "tcp video keep-up", "run": {"duration_s": 3.0, "seed": 3},
            "traces": {"t": {"frames": [1000]}},
            "nodes": [{"name": "h", "kind": "host",
                       "host": {"per_tsdu_us": t_ms * 1e3, "keep_up_tolerance_ms": 0.0}},
                      {"name": "S", "kind": "switch"}, {"name": "r", "kind": "host"}],
            "links": [{"a": "h", "b": "S", "rate_mbps": 100.0, "delay_us": 5.0},
                      {"a": "S", "b": "r", "rate_mbps": 100.0, "delay_us": 5.0}],
            "connections": [{"name": "v", "route": ["h", "S", "r"], "category": "ubr",
                "source": {"kind": "video", "video": {"trace": "t", "frame_rate": 10.0,
                           "random_offset": false, "transport": "tcp"},
                           "tcp": {"mss_bytes": 9140}}}]});
        let s = run(&sc);
        let k = &s.hosts["h"].video_senders["v"];
        assert_eq!(k.overloaded, overloaded, "T = {t_ms} ms");
        assert_eq!(s.hosts["h"].sender_overloaded, overloaded);
        let mean = k.mean_send_time_ms.unwrap();
        let expect = t_ms.max(100.0);
        assert!(
            (mean - expect).abs() < 1e-6,
            "T = {t_ms}: {mean} vs {expect}"
        );
        assert_eq!(k.frame_interval_ms, 100.0);
    }
}
