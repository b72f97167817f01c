//! Checks of video traces and streams: every trace has frames of sane sizes, every stream names a
//! trace, a positive frame rate, an MTU a datagram fits, and runs on a plain (not ABR,
//! one-way) connection.

use super::check_source::validate_tcp;
use super::{positive, Res, Scenario, ScenarioError, SourceKind, TcpSpec, VideoTransportSpec};

/// Largest frame of a trace, bytes (a frame of up to 65,535 datagrams at the smallest MTU).
pub const MAX_FRAME_BYTES: i64 = 64 * 1024 * 1024;

pub(crate) fn validate_video(sc: &Scenario) -> Res<()> {
    for (name, t) in &sc.traces {
        let p = format!("traces.{name}");
        if t.frames.is_empty() {
            return Err(ScenarioError::new(
                format!("{p}.frames"),
                if t.codec.is_some() || t.file.is_some() {
                    "empty: file and codec traces are filled in by the front end (atmsim)"
                } else {
                    "must hold at least one frame size (or give file or codec)"
                },
            ));
        }
        for (i, &b) in t.frames.iter().enumerate() {
            if !(0..=MAX_FRAME_BYTES).contains(&b) {
                return Err(ScenarioError::new(
                    format!("{p}.frames[{i}]"),
                    format!("must be a frame size in 0..={MAX_FRAME_BYTES} bytes, got {b}"),
                ));
            }
        }
    }
    for (i, c) in sc.connections.iter().enumerate() {
        let p = format!("connections[{i}].source");
        let s = &c.source;
        if s.kind != SourceKind::Video {
            continue;
        }
        let Some(v) = &s.video else {
            return Err(ScenarioError::new(
                format!("{p}.video"),
                "required for kind video (trace, frame_rate)",
            ));
        };
        if !sc.traces.contains_key(&v.trace) {
            return Err(ScenarioError::new(
                format!("{p}.video.trace"),
                format!(
                    "no trace \"{}\" in the top-level traces table (has: {})",
                    v.trace,
                    sc.traces.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        positive(&format!("{p}.video.frame_rate"), v.frame_rate)?;
        if v.frame_rate > 1e6 {
            return Err(ScenarioError::new(
                format!("{p}.video.frame_rate"),
                format!("must be at most 1e6 frames/s, got {}", v.frame_rate),
            ));
        }
        if !(29..=65_527).contains(&v.mtu_bytes) {
            return Err(ScenarioError::new(
                format!("{p}.video.mtu_bytes"),
                format!(
                    "must be an integer in 29..=65527 (28 bytes of IP/UDP headers; an AAL5 frame holds 65,535 bytes with LLC/SNAP), got {}",
                    v.mtu_bytes
                ),
            ));
        }
        positive(&format!("{p}.video.playout_intervals"), v.playout_intervals)?;
        if v.transport == VideoTransportSpec::Tcp {
            if v.mtu_bytes != super::video::default_mtu() {
                return Err(ScenarioError::new(
                    format!("{p}.video.mtu_bytes"),
                    "used by transport udp only; over tcp the segment size is source.tcp.mss_bytes (and mtu_bytes)",
                ));
            }
            validate_tcp(
                &format!("{p}.tcp"),
                s.tcp.as_deref().unwrap_or(&TcpSpec::default()),
            )?;
        } else if s.tcp.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.tcp"),
                "used only with video.transport = \"tcp\"",
            ));
        }
        let largest = sc.traces[&v.trace]
            .frames
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        let per = v.mtu_bytes - 28;
        if v.transport == VideoTransportSpec::Udp
            && (largest as u64).div_ceil(per as u64) > crate::transport::udp::MAX_DATAGRAMS as u64
        {
            return Err(ScenarioError::new(
                format!("{p}.video.mtu_bytes"),
                format!("too small for the trace's largest frame ({largest} bytes in at most 65,535 datagrams)"),
            ));
        }
        if c.abr.is_some() || c.bidirectional || c.reverse_source.is_some() {
            return Err(ScenarioError::new(
                format!("connections[{i}]"),
                "a video stream runs on a plain one-way connection (no abr, bidirectional or reverse_source)",
            ));
        }
    }
    for (i, call) in sc.calls.iter().enumerate() {
        if call.connection.source.kind == SourceKind::Video {
            return Err(ScenarioError::new(
                format!("calls[{i}].connection.source.kind"),
                "video streams are not offered as switched calls",
            ));
        }
    }
    Ok(())
}
