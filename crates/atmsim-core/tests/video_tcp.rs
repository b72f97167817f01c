//! Video streams over TCP (seed 004 Experiment 4) in whole runs: the stream delivers exactly the
//! trace's bytes and loses no frame even when cells are lost; on an uncongested path every frame
//! has the same end-to-end delay, the closed form of its cells' journey, so every received
//! interval is one frame interval; determinism.

use atmsim_core::build_from_json;
use atmsim_core::metrics::Summary;
use atmsim_core::wire::aal5_cells;
use serde_json::{json, Value};

/// `streams` TCP video streams h -> S -> r over 100 Mb/s links of 5 us.
fn scenario(trace: Vec<u64>, video: Value, tcp: Value, duration: f64, streams: usize) -> Value {
    let conns: Vec<Value> = (0..streams)
        .map(|i| {
            let mut v = video.clone();
            v["transport"] = "tcp".into();
            json!({"name": format!("v{i}"), "route": ["h", "S", "r"], "category": "ubr",
                   "source": {"kind": "video", "video": v, "tcp": tcp.clone()}})
        })
        .collect();
    json!({
        "description": "video over TCP test", "run": {"duration_s": duration, "seed": 5},
        "traces": {"t": {"frames": trace}},
        "nodes": [{"name": "h", "kind": "host"}, {"name": "S", "kind": "switch"}, {"name": "r", "kind": "host"}],
        "links": [{"a": "h", "b": "S", "rate_mbps": 100.0, "delay_us": 5.0},
                  {"a": "S", "b": "r", "rate_mbps": 100.0, "delay_us": 5.0}],
        "connections": conns,
    })
}

fn run(sc: &Value) -> Summary {
    let mut sim = build_from_json(&sc.to_string()).expect("valid scenario");
    sim.run();
    sim.summary()
}

#[test]
fn a_tcp_video_stream_delivers_exactly_the_trace_bytes_and_loses_no_frame() {
    // sizes around the MSS (512): a short frame, several segments, an empty frame, a frame of
    // whole segments; 240 frames in 10 s, then 20 s to drain
    let trace = vec![100u64, 20_000, 30, 4000, 0, 1024];
    let v = json!({"trace": "t", "frame_rate": 24.0, "random_offset": false});
    for loss in [0.0, 0.002] {
        let mut sc = scenario(
            trace.clone(),
            v.clone(),
            json!({"recovery": "reno"}),
            30.0,
            1,
        );
        sc["connections"][0]["source"]["stop_s"] = 10.0.into();
        if loss > 0.0 {
            sc["links"][0]["impairment"] = json!({"loss_probability": loss});
        }
        let s = run(&sc);
        let c = &s.connections["v0"];
        let vid = c.video.as_ref().unwrap();
        let tcp = c.tcp.as_ref().unwrap();
        let bytes: u64 = (0..240).map(|m| trace[m % 6]).sum();
        assert_eq!(vid.frames_sent, 240);
        assert_eq!(vid.frames_received, 240, "loss {loss}: every frame arrives");
        assert_eq!(vid.frames_lost, 0);
        assert_eq!(vid.frame_loss_pct, Some(0.0));
        assert_eq!(
            tcp.bytes_delivered, bytes,
            "loss {loss}: exactly the trace's bytes, in order"
        );
        if loss > 0.0 {
            assert!(
                tcp.retransmitted_segments > 0,
                "lost cells were repaired by retransmission"
            );
            assert!(c.cells_dropped > 0);
        } else {
            assert_eq!(tcp.retransmitted_segments, 0);
        }
    }
}

#[test]
fn a_send_buffer_smaller_than_a_frame_delays_frames_and_loses_no_byte() {
    // the sending host's socket takes 4,000 bytes at a time: a 20,000-byte frame waits in the
    // application and is written as ACKs free the buffer; every byte still arrives, in order
    let trace = vec![100u64, 20_000, 30, 4000, 0, 1024];
    let v = json!({"trace": "t", "frame_rate": 24.0, "random_offset": false});
    let mut sc = scenario(trace.clone(), v, json!({}), 30.0, 1);
    sc["connections"][0]["source"]["stop_s"] = 10.0.into();
    sc["nodes"][0]["host"] = json!({"send_buffer_bytes": 4000});
    let s = run(&sc);
    let c = &s.connections["v0"];
    let vid = c.video.as_ref().unwrap();
    assert_eq!(vid.frames_received, 240);
    assert_eq!(vid.frames_lost, 0);
    assert_eq!(
        c.tcp.as_ref().unwrap().bytes_delivered,
        (0..240).map(|m| trace[m % 6]).sum::<u64>()
    );
    // the 20,000-byte frame: 16,000 bytes wait while the socket holds 4,000
    assert_eq!(vid.send_backlog_max_bytes, Some(16_000));
}

#[test]
fn on_an_uncongested_path_every_frame_takes_the_same_time_and_every_interval_is_one_frame() {
    // Frames of exactly 3 full segments (MSS 1460), a window of 65,535 B (> one frame), no
    // delayed ACKs: after warm-up (slow start is over by then) every frame leaves as 3 segments
    // back to back the moment it is due, on an idle path. Its last cell leaves the host after
    // 3 x c cell times, crosses the first link (5 us), leaves the switch one cell time later
    // and crosses the second link (5 us): delay = (3c + 1) x 4.24 us + 10 us for every frame.
    // A constant delay makes each received interval equal to the interval between the due
    // times: one frame interval (to the picosecond rounding of the due times).
    let mss = 1460u64;
    let c = aal5_cells(mss as u32 + 48) as u64; // 20 + 20 + 8 bytes of TCP, IP, LLC/SNAP
    assert_eq!(c, 32);
    let v = json!({"trace": "t", "frame_rate": 24.0, "random_offset": false});
    let tcp = json!({"mss_bytes": mss, "window_bytes": 65535, "delayed_ack": false});
    let mut sc = scenario(vec![3 * mss], v, tcp, 6.0, 1);
    sc["run"]["warmup_s"] = 1.0.into();
    let s = run(&sc);
    let vid = s.connections["v0"].video.as_ref().unwrap();
    // frames due at 1 s .. 6 s: 5 s x 24; the last may still be on its way at the end
    assert!(vid.frames_received >= 119, "{}", vid.frames_received);
    let cell_us = 53.0 * 8.0 / 100.0;
    let closed_ms = ((3 * c + 1) as f64 * cell_us + 10.0) / 1e3;
    let (mean, max) = (
        vid.frame_delay_mean_ms.unwrap(),
        vid.frame_delay_max_ms.unwrap(),
    );
    assert!(
        (max - closed_ms).abs() < 1e-9,
        "max delay {max} ms, closed form {closed_ms} ms"
    );
    assert!(
        (mean - closed_ms).abs() < 1e-9,
        "mean delay {mean} ms, closed form {closed_ms} ms"
    );
    // one interval per counted frame (the first one's from the last warm-up frame)
    assert_eq!(vid.intervals, vid.frames_received);
    assert_eq!(vid.interval_hist, [vid.intervals, 0, 0, 0]);
    assert_eq!(vid.beyond_playout_pct, Some(0.0));
}

#[test]
fn tcp_video_runs_repeat() {
    // 12 streams of a varied trace into one 100 Mb/s port (about 55 Mb/s offered: queues form
    // at the switch), random offsets: the same seed gives the same summary
    let trace: Vec<u64> = (0..400).map(|i| 2_000 + (i * 7_919) % 50_000).collect();
    let v = json!({"trace": "t", "frame_rate": 24.0});
    let sc = scenario(trace, v, json!({"mss_bytes": 9140}), 3.0, 12);
    let a = run(&sc);
    let b = run(&sc);
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        serde_json::to_value(&b).unwrap()
    );
    let got: u64 = a
        .connections
        .values()
        .filter_map(|c| Some(c.video.as_ref()?.frames_received))
        .sum();
    assert!(got > 12 * 60, "{got}");
}

/// A frame of no bytes has no byte to arrive: it is received once the frame before it is and
/// its time has passed, never before the sender played it (issue 26: the receiver took every
/// empty frame after a whole one at once, so at times more frames were received than sent).
#[test]
fn a_frame_of_no_bytes_is_received_only_once_played() {
    let trace = vec![4000u64, 0, 0, 0, 700];
    let v = json!({"trace": "t", "frame_rate": 24.0, "random_offset": false});
    let sc = scenario(trace, v, json!({}), 1.0, 1);
    let mut sim = build_from_json(&sc.to_string()).expect("valid scenario");
    let mut looks = 0;
    while !sim.advance(50) {
        let s = sim.summary();
        let vid = s.connections["v0"].video.clone().unwrap();
        assert!(
            vid.frames_received <= vid.frames_sent,
            "at {} s: {} received, {} sent",
            s.sim_time_s,
            vid.frames_received,
            vid.frames_sent
        );
        assert_eq!(vid.frames_sent, vid.frames_received + vid.frames_in_network);
        looks += 1;
    }
    assert!(looks > 20);
    let vid = sim.summary().connections["v0"].video.clone().unwrap();
    assert_eq!(
        (vid.frames_sent, vid.frames_received, vid.frames_lost),
        (24, 24, 0)
    );
    // an empty frame is received at its time (1 ps after it), not with the next frame that has
    // bytes (which would make its delay up to three frame intervals)
    assert!(vid.frame_delay_max_ms.unwrap() < 1e3 / 24.0, "{vid:?}");
}
