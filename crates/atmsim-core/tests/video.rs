//! Video streams over UDP (seed 004) in whole runs: a trace player delivers exactly its trace's
//! bytes at its frame rate, a frame of n cells is lost with probability 1 - (1-p)^n under
//! independent cell loss p, offsets and determinism.

use atmsim_core::build_from_json;
use atmsim_core::metrics::Summary;
use atmsim_core::transport::udp::cells_per_message;
use serde_json::{json, Value};

fn scenario(trace: Vec<u64>, video: Value, duration: f64, loss: f64, streams: usize) -> Value {
    let mut l2 = json!({"a": "S", "b": "r", "rate_mbps": 100.0, "delay_us": 5.0});
    if loss > 0.0 {
        l2["impairment"] = json!({"loss_probability": loss});
    }
    let conns: Vec<Value> = (0..streams)
        .map(|i| {
            json!({"name": format!("v{i}"), "route": ["h", "S", "r"], "category": "ubr",
                   "source": {"kind": "video", "video": video.clone()}})
        })
        .collect();
    json!({
        "description": "video test", "run": {"duration_s": duration, "seed": 5},
        "traces": {"t": {"frames": trace}},
        "nodes": [{"name": "h", "kind": "host"}, {"name": "S", "kind": "switch"}, {"name": "r", "kind": "host"}],
        "links": [{"a": "h", "b": "S", "rate_mbps": 100.0, "delay_us": 5.0}, l2],
        "connections": conns,
    })
}

fn run(sc: &Value) -> Summary {
    let mut sim = build_from_json(&sc.to_string()).expect("valid scenario");
    sim.run();
    sim.summary()
}

#[test]
fn a_trace_player_delivers_exactly_the_trace_bytes_at_its_frame_rate() {
    let trace = vec![100u64, 20_000, 30, 4000, 5, 0];
    // 24 frames/s from the first frame at 0 for 10 s of frames, then 1 s to drain
    let v = json!({"trace": "t", "frame_rate": 24.0, "random_offset": false, "mtu_bytes": 1500});
    let mut sc = scenario(trace.clone(), v, 11.0, 0.0, 1);
    sc["connections"][0]["source"]["stop_s"] = 10.0.into();
    let s = run(&sc);
    let c = &s.connections["v0"];
    let vid = c.video.as_ref().unwrap();
    // frames at 0, 1/24, ... < 10 s: 240 frames, 40 whole loops of the trace
    assert_eq!(vid.frames_sent, 240);
    assert_eq!(
        vid.frames_received, 240,
        "the last frame is received whole too"
    );
    assert_eq!(vid.frames_lost, 0);
    let cells: u64 = (0..240)
        .map(|m| cells_per_message(trace[m % 6] as u32, 1500) as u64)
        .sum();
    assert_eq!(
        c.cells_sent, cells,
        "cells = the closed form of UDP/AAL5 per frame"
    );
    assert_eq!(c.cells_delivered, cells);
    // user bytes in whole AAL5 frames: the trace's bytes plus 36 B of headers per datagram
    let datagrams: u64 = (0..240).map(|m| (trace[m % 6]).div_ceil(1472).max(1)).sum();
    assert_eq!(vid.datagrams_sent, datagrams);
    assert_eq!(c.frames_delivered, datagrams);
    // received intervals: all within [0, 2) frame intervals on an idle network
    assert_eq!(vid.intervals, 239);
    assert_eq!(vid.interval_hist, [239, 0, 0, 0]);
    assert!(vid.frame_delay_max_ms.unwrap() < 1000.0 / 24.0);
}

#[test]
fn frame_loss_under_independent_cell_loss() {
    // One frame size per run, so every frame has n cells; p = 1% per cell on the last link.
    // A frame is lost if any of its n cells is: 1 - (1-p)^n. AAL5 adds one more way: when the
    // end-of-frame cell of the previous frame's last datagram (c cells) is lost, the receiver
    // appends this frame's first datagram to what it holds of that one, and the merged PDU
    // fails its length and CRC check (I.363.5), unless it held nothing (c = 1, or all c - 1
    // other cells lost too). So P(lost) = 1 - (1-p)^n (1 - p (1 - p^(c-1))).
    let p: f64 = 0.01;
    for (bytes, mtu, n, c) in [
        (4u64, 9180i64, 1u32, 1u32),
        (1000, 9180, 22, 22),
        (3000, 1500, 67, 3),
    ] {
        assert_eq!(cells_per_message(bytes as u32, mtu as u32), n);
        let v = json!({"trace": "t", "frame_rate": 500.0, "mtu_bytes": mtu});
        let s = run(&scenario(vec![bytes], v, 40.0, p, 1));
        let vid = s.connections["v0"].video.as_ref().unwrap().clone();
        let decided = (vid.frames_received + vid.frames_lost) as f64;
        assert!(decided > 19_900.0, "{decided}");
        let lost = vid.frames_lost as f64 / decided;
        let own = 1.0 - (1.0 - p).powi(n as i32);
        let expected = 1.0 - (1.0 - p).powi(n as i32) * (1.0 - p * (1.0 - p.powi(c as i32 - 1)));
        let se = (expected * (1.0 - expected) / decided).sqrt();
        assert!(
            (lost - expected).abs() < 4.0 * se + 1e-9,
            "n = {n}: lost {lost}, expected {expected} (own cells alone {own}; se {se})"
        );
    }
}

#[test]
fn streams_start_at_their_own_offsets_and_runs_repeat() {
    let trace: Vec<u64> = (0..1000).map(|i| 500 + (i * 37) % 4000).collect();
    let v = json!({"trace": "t", "frame_rate": 24.0});
    let sc = scenario(trace, v, 1.0, 0.0, 4);
    let a = run(&sc);
    let offsets: Vec<u64> = (0..4)
        .map(|i| {
            a.connections[&format!("v{i}")]
                .video
                .as_ref()
                .unwrap()
                .trace_offset
        })
        .collect();
    let mut uniq = offsets.clone();
    uniq.sort();
    uniq.dedup();
    assert_eq!(uniq.len(), 4, "offsets {offsets:?}");
    let b = run(&sc);
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        serde_json::to_value(&b).unwrap()
    );
    let mut sc2 = sc.clone();
    sc2["run"]["seed"] = 6.into();
    let c = run(&sc2);
    assert_ne!(
        c.connections["v0"].video.as_ref().unwrap().trace_offset,
        offsets[0]
    );
}
