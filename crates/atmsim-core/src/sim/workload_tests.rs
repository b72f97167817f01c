//! Workload scripts in whole runs (docs/workloads.md): request-response time under slow start
//! in round trips (closed form), window-limited bulk throughput = window / RTT, bytes conserved
//! per bundled connection, determinism.

use crate::app::workload::draw_size;
use crate::app::AnyApp;
use crate::build_from_json;
use crate::host::Socket;
use crate::metrics::workload::WorkloadSummary;
use crate::rng::stream;
use crate::scenario::workload_parse::parse;
use crate::sim::Simulation;
use crate::time::CELL_BIT_PS;
use serde_json::{json, Value};

/// A -- S -- B, both links at `mbps` with one-way propagation `delay_ms` each (so the RTT
/// without transmission is 4 x delay_ms), switch transit 0; connection "w" A -> B runs
/// `script` over TCP with MSS `mss` and window `window`, no delayed ACKs.
fn net(script: &str, mbps: f64, delay_ms: f64, mss: u32, window: u32, extra: Value) -> Value {
    let mut workload = json!({"script": script});
    for (k, v) in extra.as_object().unwrap() {
        workload[k] = v.clone();
    }
    json!({
        "description": "workload test",
        "run": {"duration_s": 400.0, "seed": 3},
        "nodes": [{"name": "A", "kind": "host"}, {"name": "B", "kind": "host"},
                  {"name": "S", "kind": "switch", "fabric_delay_us": 0.0}],
        "links": [{"a": "A", "b": "S", "rate_mbps": mbps, "delay_us": delay_ms * 1e3},
                  {"a": "S", "b": "B", "rate_mbps": mbps, "delay_us": delay_ms * 1e3}],
        "connections": [{"name": "w", "route": ["A", "S", "B"], "category": "ubr",
            "source": {"kind": "workload", "workload": workload,
                       "tcp": {"mss_bytes": mss, "window_bytes": window, "mtu_bytes": 9180,
                               "recovery": "reno", "delayed_ack": false}}}]
    })
}

fn run(sc: &Value) -> Simulation {
    let mut sim = build_from_json(&sc.to_string()).expect("valid scenario");
    sim.run();
    sim
}

fn workload(sim: &Simulation) -> WorkloadSummary {
    sim.summary().connections["w"]
        .workload
        .clone()
        .expect("a workload")
}

/// One end of a workload: per connection, the bytes its application wrote and its socket.
struct End<'a> {
    conns: Vec<Conn<'a>>,
}

struct Conn<'a> {
    written: u64,
    sock: &'a Socket,
}

fn hosts(sim: &Simulation) -> Vec<End<'_>> {
    sim.endpoints
        .iter()
        .filter_map(|e| match e.app.host() {
            Some(h) => match &h.app {
                AnyApp::Workload(w) => Some(End {
                    conns: w
                        .conns
                        .iter()
                        .zip(&h.socks)
                        .map(|(c, sock)| Conn {
                            written: c.written,
                            sock,
                        })
                        .collect(),
                }),
                _ => None,
            },
            None => None,
        })
        .collect()
}

/// The time a frame of `sdu` bytes takes on one link, s (AAL5: 8 B trailer, 48 B per cell).
fn frame_s(sdu: u32, mbps: f64) -> f64 {
    let cells = (sdu + 8).div_ceil(48) as f64;
    // CELL_BIT_PS is one cell's time at 1 b/s, in ps
    cells * CELL_BIT_PS as f64 / 1e12 / (mbps * 1e6)
}

/// Request-response with slow start: a request of n full segments (initial window 1 segment,
/// every segment acknowledged, the window restarting after each idle period) needs
/// r = ceil(log2(n + 1)) rounds of the window (1, 2, 4 ... segments), the response (one small
/// segment) comes back in the last one: the transaction time is r round trips, plus the
/// transmission of the frames on the way (bounded here by (n + 2) segment frames over 2 hops).
#[test]
fn rr_time_is_the_round_trips_slow_start_needs() {
    let (mbps, delay_ms, mss) = (1000.0, 25.0, 8192u32);
    let rtt = 4.0 * delay_ms / 1e3;
    for n in 1..=7u32 {
        let q = n * mss;
        let sc = net(
            &format!("1 rr {q},1024*3;"),
            mbps,
            delay_ms,
            mss,
            65_535,
            json!({"idle_restart": "always"}),
        );
        let w = workload(&run(&sc));
        assert!(w.complete);
        let rounds = (32 - (n).leading_zeros()) as f64; // ceil(log2(n + 1))
        let eps = (n + 2) as f64 * 2.0 * frame_s(mss + 48, mbps) + 1e-4;
        let t = w.statements[0].members[0].runs[0].transaction_ms.unwrap();
        for x in [t.min, t.max] {
            let x = x / 1e3;
            assert!(
                x >= rounds * rtt && x <= rounds * rtt + eps,
                "n = {n}: transaction {x} s, want {rounds} x {rtt} s (+ {eps})"
            );
        }
    }
}

/// A window-limited bulk transfer: with a window of 4 full segments (no delayed ACK) the
/// sender sends 1, 2, then 4 segments per round trip: S segments take
/// rounds = 2 + ceil((S - 3) / 4); the last segment leaves at the start of the last round and
/// arrives half a round trip later. So the run lasts (rounds - 1 + 1/2) RTT plus the
/// transmission of the frames (< 1 segment frame and 1 ACK frame per round on 2 hops), and
/// the throughput tends to window / RTT.
#[test]
fn window_limited_bulk_throughput_is_window_over_rtt() {
    let (mbps, delay_ms, mss) = (1000.0, 25.0, 8192u32);
    let rtt = 4.0 * delay_ms / 1e3;
    let window = 4 * mss;
    let segs = 400u32;
    for op in ["bulk_get", "bulk_put"] {
        let sc = net(
            &format!("1 {op} {mss}*{segs};"),
            mbps,
            delay_ms,
            mss,
            window,
            json!({}),
        );
        let w = workload(&run(&sc));
        let r = &w.statements[0].members[0].runs[0];
        let dur = r.end_s.unwrap() - r.start_s;
        let rounds = 2.0 + ((segs - 3) as f64 / 4.0).ceil();
        let want = (rounds - 0.5) * rtt;
        let eps = rounds * 2.0 * (frame_s(mss + 48, mbps) + frame_s(48, mbps)) + 1e-4;
        assert!(
            dur >= want && dur <= want + eps,
            "{op}: {dur} s, want {want} (+ {eps})"
        );
        assert_eq!(r.bytes, (segs * mss) as u64);
        let tp = r.throughput_kbps.unwrap() * 1e3;
        let ideal = window as f64 / rtt;
        assert!(tp < ideal && tp > 0.98 * ideal, "{op}: {tp} B/s vs {ideal}");
    }
}

/// Mixed bidirectional bundle (bulk_get, bulk_put, rr, with interarrivals): per connection and
/// direction, stopped mid-way the bytes written = delivered + still unacknowledged or in
/// flight (delivered <= written, written - delivered <= unacknowledged); at the end of the
/// script every byte of the script's sizes (replayed from the connection's size stream) was
/// delivered on its own connection.
#[test]
fn bundled_connections_conserve_bytes_per_connection() {
    let script = "2 parallel: 1 bulk_get 70000*6 | 1 bulk_put bivalued(10,9000,0.9)*40 exp(0.01) \
                  | 1 rr bivalued(100,3000,0.5),exp(500)*10;\n1 bulk_get 9000*3;";
    for (duration, done) in [(0.35, false), (60.0, true)] {
        let mut sc = net(script, 10.0, 2.0, 9140, 65_535, json!({"connections": 4}));
        sc["run"]["duration_s"] = json!(duration);
        let sim = run(&sc);
        let h = hosts(&sim);
        assert_eq!(h.len(), 2);
        let (a, b) = (&h[0], &h[1]);
        assert_eq!(a.conns.len(), 4);
        for k in 0..4 {
            for (tx, rx) in [(&a.conns[k], &b.conns[k]), (&b.conns[k], &a.conns[k])] {
                let delivered = rx.sock.consumed() + rx.sock.delivered();
                assert!(delivered <= tx.written, "conn {k}");
                assert!(
                    tx.written - delivered <= tx.sock.send_buffered(),
                    "conn {k}"
                );
                if done {
                    assert_eq!(tx.written, delivered, "conn {k}");
                    assert_eq!(tx.sock.send_buffered(), 0);
                }
            }
        }
        if done {
            let w = workload(&sim);
            assert!(w.complete);
            // replay each connection's size stream: the data both ways
            let parsed = parse(script).unwrap();
            for k in 0..4 {
                let mut shared = stream(3, &format!("connections.w.workload#{k}"));
                let (mut fwd, mut back) = (0u64, 0u64);
                for st in &parsed.statements {
                    let members = st.members();
                    let Some((runs, op)) = members.get(k) else {
                        continue;
                    };
                    for _ in 0..st.runs * runs {
                        for _ in 0..op.count {
                            let q = draw_size(&op.size, &mut shared);
                            match &op.kind {
                                crate::scenario::workload::OpKind::BulkGet => back += q,
                                crate::scenario::workload::OpKind::BulkPut => fwd += q,
                                crate::scenario::workload::OpKind::Rr { response } => {
                                    fwd += q;
                                    back += draw_size(response, &mut shared);
                                }
                            }
                        }
                    }
                }
                let ctrl = 16u64;
                let (mut cf, mut cb) = (0u64, 0u64);
                for st in &parsed.statements {
                    if let Some((runs, op)) = st.members().get(k) {
                        let n = (st.runs * runs) as u64;
                        match op.kind {
                            crate::scenario::workload::OpKind::BulkGet => cf += n * ctrl,
                            crate::scenario::workload::OpKind::BulkPut => cb += n * ctrl,
                            _ => {}
                        }
                    }
                }
                assert_eq!(a.conns[k].written, fwd + cf, "conn {k} forward");
                assert_eq!(b.conns[k].written, back + cb, "conn {k} back");
            }
            // per-connection results: every member's runs finished, bulk bytes as drawn
            let st = &w.statements[0];
            assert_eq!(st.members.len(), 3);
            for m in &st.members {
                assert_eq!(m.runs.len(), 2, "{}", m.op);
                assert!(m.runs.iter().all(|r| r.end_s.is_some()));
                assert!(m.throughput_kbps.is_some());
            }
            assert_eq!(st.members[0].runs[0].bytes, 6 * 70_000);
            assert!(st.members[2].transaction_ms.is_some());
            assert!(st.members[0].transaction_ms.is_none());
        }
    }
}

#[test]
fn same_seed_same_results() {
    let script =
        "2 parallel 2: 1 bulk_get bivalued(10,9000,0.75)*30 exp(0.01) | 1 rr 2000,exp(800)*5;";
    let sc = net(script, 10.0, 2.0, 9140, 32_768, json!({}));
    let a = serde_json::to_string(&run(&sc).summary()).unwrap();
    let b = serde_json::to_string(&run(&sc).summary()).unwrap();
    assert_eq!(a, b);
    let mut sc2 = sc.clone();
    sc2["run"]["seed"] = json!(4);
    let c = serde_json::to_string(&run(&sc2).summary()).unwrap();
    assert_ne!(a, c, "the sizes and interarrivals are random");
}

/// The same scenario over XTPX (`transport = "xtpx"`, `source.xtpx` instead of `source.tcp`).
fn over_xtpx(mut sc: Value, xtpx: Value) -> Value {
    let src = &mut sc["connections"][0]["source"];
    src.as_object_mut().unwrap().remove("tcp");
    src["xtpx"] = xtpx;
    src["workload"]["transport"] = json!("xtpx");
    sc
}

/// A rate-controlled XTPX bulk_get: B bytes per interval I, data units of B bytes: S units
/// leave one per interval, so the run (first write to last byte read) lasts (S - 1) I plus at
/// most one interval, the one-way delay and a frame's transmission: throughput ~ B / I whatever
/// the RTT (seed 001 section 9).
#[test]
fn xtpx_rate_controlled_workload_runs_at_b_over_i() {
    let (b, i_ms, units) = (8000u32, 20.0, 100u32);
    for delay_ms in [1.0, 25.0] {
        let sc = over_xtpx(
            net(
                &format!("1 bulk_get {b}*{units};"),
                1000.0,
                delay_ms,
                9140,
                65_535,
                json!({}),
            ),
            json!({"rate_control": true, "burst_bytes": b, "interval_ms": i_ms}),
        );
        let w = workload(&run(&sc));
        assert_eq!(w.transport, "xtpx");
        let r = &w.statements[0].members[0].runs[0];
        assert_eq!(r.bytes, (b * units) as u64);
        let dur = r.end_s.unwrap() - r.start_s;
        let lo = (units - 1) as f64 * i_ms / 1e3;
        let hi = lo + i_ms / 1e3 + 2.0 * delay_ms / 1e3 + 2.0 * frame_s(9180, 1000.0);
        assert!(
            dur >= lo && dur <= hi,
            "delay {delay_ms} ms: {dur} s not in [{lo}, {hi}]"
        );
    }
}

/// Bytes conserved per connection over XTPX too (a bidirectional bundle).
#[test]
fn xtpx_bundle_conserves_bytes() {
    let script =
        "1 parallel: 1 bulk_get 20000*4 | 1 bulk_put bivalued(10,9000,0.5)*20 | 1 rr 3000,700*5;";
    let sc = over_xtpx(
        net(script, 10.0, 2.0, 9140, 65_535, json!({})),
        json!({"window_bytes": 65_535}),
    );
    let sim = run(&sc);
    let w = workload(&sim);
    assert!(w.complete);
    let h = hosts(&sim);
    for k in 0..3 {
        for (tx, rx) in [
            (&h[0].conns[k], &h[1].conns[k]),
            (&h[1].conns[k], &h[0].conns[k]),
        ] {
            assert_eq!(
                rx.sock.consumed() + rx.sock.delivered(),
                tx.written,
                "conn {k}"
            );
        }
    }
    assert_eq!(w.statements[0].members[0].runs[0].bytes, 80_000);
}

/// A homogeneous unidirectional bundle on a link-limited path (seed 001 section 8.1): four
/// bulk_get connections share the 10 Mb/s link; together they carry the link's payload rate
/// (MSS 9140: 9140 B in 192 cells of 53 B, 89.8 %) less the reverse control messages' share
/// (none on this direction); each connection gets its own throughput.
#[test]
fn a_bundle_shares_the_link_payload_rate() {
    let script = "1 parallel 4: 1 bulk_get 9140*60 | 1 bulk_get 9140*60 | 1 bulk_get 9140*60 | 1 bulk_get 9140*60;";
    let mut sc = net(script, 10.0, 0.5, 9140, 65_535, json!({}));
    sc["nodes"][0]["buffer_cells"] = json!(100_000);
    sc["nodes"][1]["buffer_cells"] = json!(100_000);
    sc["nodes"][2]["buffer_cells"] = json!(100_000);
    let w = workload(&run(&sc));
    assert!(w.complete);
    let ms = &w.statements[0].members;
    assert_eq!(ms.len(), 4);
    let start = ms
        .iter()
        .map(|m| m.runs[0].start_s)
        .fold(f64::INFINITY, f64::min);
    let end = ms
        .iter()
        .map(|m| m.runs[0].end_s.unwrap())
        .fold(0.0, f64::max);
    let bytes: u64 = ms.iter().map(|m| m.runs[0].bytes).sum();
    assert_eq!(bytes, 4 * 60 * 9140);
    let payload_rate = 10e6 / 8.0 * 9140.0 / (192.0 * 53.0);
    let agg = bytes as f64 / (end - start);
    assert!(
        agg <= payload_rate && agg > 0.97 * payload_rate,
        "{agg} B/s vs {payload_rate}"
    );
    for m in ms {
        let tp = m.throughput_kbps.unwrap().mean * 1e3;
        assert!(tp > 0.0 && tp <= payload_rate, "{tp}");
    }
}

/// Members with several runs run them in turn, the statement's runs one after the other, and
/// the next statement starts when every member of the previous one has ended.
#[test]
fn runs_and_statements_are_sequential() {
    let script =
        "2 parallel: 3 bulk_get 3000*2 | 1 rr 100,100*2 | 2 bulk_put 500*3;\n1 rr 10,10*1;";
    let w = workload(&run(&net(script, 10.0, 1.0, 9140, 65_535, json!({}))));
    assert!(w.complete);
    let st = &w.statements[0];
    let want = [6, 2, 4];
    for (m, n) in st.members.iter().zip(want) {
        assert_eq!(m.runs.len(), n, "{}", m.op);
        for p in m.runs.windows(2) {
            assert!(p[1].start_s >= p[0].end_s.unwrap(), "{}", m.op);
        }
    }
    // the statement's second run starts after every member's first-run share ended
    let first_end =
        |m: &crate::metrics::workload::MemberSummary, per: usize| m.runs[per - 1].end_s.unwrap();
    let barrier = st
        .members
        .iter()
        .zip([3, 1, 2])
        .map(|(m, per)| first_end(m, per))
        .fold(0.0, f64::max);
    for (m, per) in st.members.iter().zip([3usize, 1, 2]) {
        assert!(m.runs[per].start_s >= barrier, "{}", m.op);
    }
    let last = st
        .members
        .iter()
        .map(|m| m.runs.last().unwrap().end_s.unwrap())
        .fold(0.0, f64::max);
    assert!(w.statements[1].members[0].runs[0].start_s >= last);
}

/// On hosts with a model (seed 001's WAN preset: processing costs, a 16 KB socket send buffer)
/// the workload runs to its end, each connection's bytes conserved, and it takes longer than
/// on ideal hosts.
#[test]
fn a_workload_on_modelled_hosts_completes_and_conserves_bytes() {
    let script = "1 parallel: 1 bulk_get 70000*10 | 1 bulk_put 30000*10 | 1 rr 20000,1024*10;";
    let ideal = net(script, 10.0, 2.0, 9140, 65_535, json!({}));
    let mut hosted = ideal.clone();
    for n in [0, 1] {
        hosted["nodes"][n]["host"] = json!({"preset": "seed001-wan"});
    }
    let mut ends = vec![];
    for sc in [&ideal, &hosted] {
        let sim = run(sc);
        let w = workload(&sim);
        assert!(w.complete);
        let h = hosts(&sim);
        for k in 0..3 {
            for (tx, rx) in [
                (&h[0].conns[k], &h[1].conns[k]),
                (&h[1].conns[k], &h[0].conns[k]),
            ] {
                assert_eq!(
                    rx.sock.consumed() + rx.sock.delivered(),
                    tx.written,
                    "conn {k}"
                );
            }
        }
        ends.push(w.end_s.unwrap());
    }
    assert!(ends[1] > ends[0], "costs take time: {ends:?}");
}
