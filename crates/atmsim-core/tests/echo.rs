//! The echo application (`source.kind = "echo"`, `app/echo.rs`), the worked example of a new
//! application over any transport: closed-form round trips over UDP and TCP, the same counts
//! over every transport, and the client's accounting (requests = responses + lost +
//! outstanding) at any instant.

use atmsim_core::build_from_json;
use atmsim_core::metrics::Summary;
use serde_json::{json, Value};

/// 42.4 Mb/s: one cell (424 bits) takes exactly 10 us.
const LINK: f64 = 42.4;
const CELL_S: f64 = 10e-6;
const DELAY_S: f64 = 1e-3;

fn run(sc: &Value) -> Summary {
    let mut sim = build_from_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.summary()
}

/// Client h and server d on one link (1 ms each way); `source` the connection's source.
fn echo(source: Value, duration_s: f64) -> Value {
    json!({"description": "echo test", "run": {"duration_s": duration_s},
           "nodes": [{"name": "h", "kind": "host"}, {"name": "d", "kind": "host"}],
           "links": [{"a": "h", "b": "d", "rate_mbps": LINK, "delay_us": DELAY_S * 1e6}],
           "connections": [{"name": "e", "route": ["h", "d"], "category": "ubr",
                            "source": source}]})
}

fn section(s: &Summary) -> Value {
    s.connections["e"].sections["echo"].clone()
}

/// One round trip on an idle link: the request's cells, the propagation, the response's cells,
/// the propagation back: 2 (n t + d) for a request and a response of n cells each.
fn rtt_ms(cells: u32) -> f64 {
    2.0 * (cells as f64 * CELL_S + DELAY_S) * 1e3
}

#[test]
fn round_trip_over_udp_is_two_frames_and_two_propagations() {
    // 100 payload bytes + 36 of LLC/SNAP, IP and UDP + 8 of AAL5 trailer: 3 cells
    let src =
        json!({"kind": "echo", "echo": {"transport": "udp", "request_bytes": 100, "count": 50}});
    let e = section(&run(&echo(src, 1.0)));
    assert_eq!(e["transport"], "udp");
    assert_eq!(e["requests"], 50);
    assert_eq!(e["responses"], 50);
    for k in ["rtt_min_ms", "rtt_max_ms", "rtt_mean_ms"] {
        let got = e[k].as_f64().unwrap();
        assert!(
            (got - rtt_ms(3)).abs() < 1e-9,
            "{k}: {got} vs {}",
            rtt_ms(3)
        );
    }
}

#[test]
fn round_trip_over_tcp_carries_the_ack_on_the_response() {
    // 100 bytes + 48 of TCP/IP/LLC headers + 8 of AAL5 trailer: 4 cells. With delayed ACKs the
    // response carries the ACK of the request and the next request the ACK of the response
    // (BSD piggybacking), so every round trip is 2 (4 t + d); without them the server sends a
    // pure ACK (48 + 8 bytes: 2 cells, 2 t) ahead of its response, and from the second request
    // on the client one ahead of its request: 2 t more, then 4 t more
    for (delayed, min, max) in [(true, 0.0, 0.0), (false, 2.0, 4.0)] {
        let src = json!({"kind": "echo", "tcp": {"delayed_ack": delayed},
                         "echo": {"transport": "tcp", "request_bytes": 100, "count": 50}});
        let e = section(&run(&echo(src, 1.0)));
        assert_eq!(e["transport"], "tcp");
        assert_eq!(e["responses"], 50);
        for (k, extra) in [("rtt_min_ms", min), ("rtt_max_ms", max)] {
            let got = e[k].as_f64().unwrap();
            let want = rtt_ms(4) + extra * CELL_S * 1e3;
            assert!(
                (got - want).abs() < 1e-9,
                "delayed {delayed}, {k}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn every_transport_completes_the_same_requests() {
    for t in ["tcp", "xtpx", "udp"] {
        let src = json!({"kind": "echo", "echo": {"transport": t, "request_bytes": 20000,
                                                  "count": 20, "interval_s": 0.01}});
        let e = section(&run(&echo(src, 2.0)));
        assert_eq!(e["transport"], t);
        assert_eq!(e["requests"], 20, "{t}");
        assert_eq!(e["responses"], 20, "{t}");
        assert_eq!(e["lost"], 0, "{t}");
    }
}

#[test]
fn requests_are_responses_lost_and_outstanding_at_any_instant() {
    // runs cut at arbitrary instants, some with a request in flight; over UDP a receive buffer
    // of one byte on a host with a model drops every datagram: all requests are lost
    for (t, dur) in [("tcp", 0.0171), ("udp", 0.0333), ("xtpx", 0.05)] {
        let src = json!({"kind": "echo", "echo": {"transport": t, "request_bytes": 3000}});
        let e = section(&run(&echo(src, dur)));
        let n = |k: &str| e[k].as_u64().unwrap();
        assert_eq!(
            n("requests"),
            n("responses") + n("lost") + n("outstanding"),
            "{t}: {e}"
        );
        assert!(n("responses") > 0, "{t}: {e}");
    }
    let mut sc = echo(
        json!({"kind": "echo", "echo": {"transport": "udp", "request_bytes": 100, "count": 5,
                                        "timeout_s": 0.1}}),
        2.0,
    );
    sc["nodes"][1]["host"] = json!({"receive_buffer_bytes": 1});
    let e = section(&run(&sc));
    assert_eq!(
        (e["requests"].as_u64(), e["lost"].as_u64()),
        (Some(5), Some(5)),
        "{e}"
    );
    assert_eq!(e["responses"], 0);
}

#[test]
fn same_scenario_same_results() {
    let src = json!({"kind": "echo", "echo": {"transport": "tcp", "request_bytes": 5000}});
    let a = section(&run(&echo(src.clone(), 0.5)));
    let b = section(&run(&echo(src, 0.5)));
    assert_eq!(a, b);
}

#[test]
fn bad_echo_input_names_the_key() {
    for (src, key) in [
        (json!({"kind": "echo"}), "connections[0].source.echo"),
        (
            json!({"kind": "echo", "echo": {"transport": "udp"}, "tcp": {}}),
            "connections[0].source.tcp",
        ),
        (
            json!({"kind": "echo", "echo": {"timeout_s": 2.0}}),
            "connections[0].source.echo.timeout_s",
        ),
        (
            json!({"kind": "echo", "echo": {"request_bytes": 0}}),
            "connections[0].source.echo.request_bytes",
        ),
    ] {
        let e = build_from_json(&echo(src, 1.0).to_string())
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains(key), "{e}");
    }
}
