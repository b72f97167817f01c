//! Semantic checks of a traffic source: only the keys of its kind, their ranges, the MPEG-2
//! model's parameters (errors mapped to the key that set them) and the TCP parameters.

use super::{
    default_hurst, default_interval_max_s, default_interval_min_s, default_max_rate_mbps,
    default_min_rate_mbps, default_video_sources, non_negative, positive, FgnMethodSpec, Res,
    ScenarioError, SourceKind, SourceSpec, TcpSpec, XtpxSpec,
};

/// The largest burst and window, bytes (as TCP's largest scaled window, about 1 GB).
const MAX_XTPX_BYTES: i64 = 1 << 30;

/// The XTPX keys beyond the schema's ranges (seed 001 section 5.2's bad input: I = 0, B = 0, a
/// window smaller than one packet).
pub(crate) fn validate_xtpx(p: &str, x: &XtpxSpec) -> Res<()> {
    let err = |k: &str, m: String| Err(ScenarioError::new(format!("{p}.{k}"), m));
    if !(64..=crate::wire::AAL5_MAX_SDU as i64).contains(&x.mtu_bytes) {
        return err(
            "mtu_bytes",
            format!("must be in 64..=65535 (AAL5 CPCS-SDU), got {}", x.mtu_bytes),
        );
    }
    if !(1..=1024).contains(&x.header_bytes) || x.header_bytes >= x.mtu_bytes {
        return err(
            "header_bytes",
            format!(
                "must be in 1..=1024 and below mtu_bytes ({}), got {}",
                x.mtu_bytes, x.header_bytes
            ),
        );
    }
    let max_payload = x.mtu_bytes - x.header_bytes;
    if let Some(b) = x.packet_bytes {
        if !(1..=max_payload).contains(&b) {
            return err(
                "packet_bytes",
                format!("must be in 1..={max_payload} (mtu_bytes - header_bytes), got {b}"),
            );
        }
    }
    if x.rate_control {
        match x.burst_bytes {
            None => return err("burst_bytes", "required when rate_control = true".into()),
            Some(b) if !(1..=MAX_XTPX_BYTES).contains(&b) => {
                return err(
                    "burst_bytes",
                    format!("B must be in 1..=2^30 bytes per interval, got {b}"),
                )
            }
            _ => {}
        }
        match x.interval_ms {
            None => return err("interval_ms", "required when rate_control = true".into()),
            Some(i) if !(i.is_finite() && i > 0.0) => {
                return err("interval_ms", format!("I must be > 0, got {i}"))
            }
            _ => {}
        }
    } else {
        for (k, given) in [
            ("burst_bytes", x.burst_bytes.is_some()),
            ("interval_ms", x.interval_ms.is_some()),
        ] {
            if given {
                return err(k, "needs rate_control = true".into());
            }
        }
    }
    if !x.rate_control && x.window_bytes.is_none() {
        return Err(ScenarioError::new(
            p.to_string(),
            "needs rate_control = true or window_bytes (or both): with neither nothing limits the sender (the host's interface is not a limit in this model)",
        ));
    }
    if let Some(w) = x.window_bytes {
        if w > MAX_XTPX_BYTES {
            return err("window_bytes", format!("must be at most 2^30, got {w}"));
        }
        if w < x.payload() {
            return err(
                "window_bytes",
                format!(
                    "must be at least one packet ({} payload bytes), got {w}",
                    x.payload()
                ),
            );
        }
    }
    if !(1..=1_000_000).contains(&x.status_every_packets) {
        return err(
            "status_every_packets",
            format!("must be in 1..=1000000, got {}", x.status_every_packets),
        );
    }
    positive(&format!("{p}.timer_ms"), x.timer_ms)?;
    positive(&format!("{p}.timer_max_s"), x.timer_max_s)?;
    if x.timer_max_s * 1e3 < x.timer_ms {
        return err(
            "timer_max_s",
            format!("must be >= timer_ms ({} ms)", x.timer_ms),
        );
    }
    if let Some(b) = x.bytes {
        if !(1..=1 << 50).contains(&b) {
            return err("bytes", format!("must be in 1..=2^50, got {b}"));
        }
    }
    Ok(())
}

pub(crate) fn validate_tcp(p: &str, t: &TcpSpec) -> Res<()> {
    let d = TcpSpec::default();
    let int_in = |k: &str, v: i64, lo: i64, hi: i64, why: &str| -> Res<()> {
        if (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(ScenarioError::new(
                format!("{p}.{k}"),
                format!("must be in {lo}..={hi}{why}, got {v}"),
            ))
        }
    };
    int_in(
        "mtu_bytes",
        t.mtu_bytes,
        88,
        65_527,
        " (an AAL5 frame holds at most 65,535 bytes with LLC/SNAP)",
    )?;
    // the MSS is checked against the MTU when given (the default MSS is taken whatever the MTU)
    if t.mss_bytes != d.mss_bytes {
        int_in(
            "mss_bytes",
            t.mss_bytes,
            1,
            t.mtu_bytes - 40,
            " (MTU minus 40 bytes of TCP/IP headers)",
        )?;
    }
    let max_win = if t.window_scale {
        65_535i64 << 14
    } else {
        65_535
    };
    let why = if t.window_scale {
        " (65,535 x 2^14 with window scaling)"
    } else {
        " (set window_scale = true for larger windows)"
    };
    int_in(
        "window_bytes",
        t.window_bytes,
        t.mss_bytes,
        max_win,
        &format!(" (at least one MSS{why})"),
    )?;
    if let Some(c) = t.mcl_bytes {
        if !(256..=65_536).contains(&c) || c.count_ones() != 1 {
            return Err(ScenarioError::new(
                format!("{p}.mcl_bytes"),
                format!("must be a power of two in 256..=65536 (the mbuf cluster, MCLBYTES), got {c}"),
            ));
        }
    }
    if let Some(n) = t.tsdu_bytes {
        int_in("tsdu_bytes", n, 1, 1 << 30, "")?;
        if t.bytes.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.tsdu_bytes"),
                "a TSDU writer sends for the whole run: not with bytes",
            ));
        }
    }
    for (k, v) in [
        ("delack_ms", Some(t.delack_ms)),
        ("timer_granularity_ms", Some(t.timer_granularity_ms)),
        ("rto_min_ms", t.rto_min_ms),
        ("rto_initial_s", Some(t.rto_initial_s)),
        ("rto_max_s", Some(t.rto_max_s)),
    ] {
        if let Some(v) = v {
            positive(&format!("{p}.{k}"), v)?;
        }
    }
    // the largest RTO must not be below the smallest (the sender clamps the RTO between them);
    // the error names the key that was given
    let rto_min_s = t.rto_min_ms() / 1e3;
    if t.rto_max_s < rto_min_s {
        let (key, msg) = if t.rto_max_s != d.rto_max_s {
            ("rto_max_s", format!("must be >= rto_min ({rto_min_s} s)"))
        } else if t.rto_min_ms.is_some() {
            (
                "rto_min_ms",
                format!("must be <= rto_max_s ({} s)", t.rto_max_s),
            )
        } else {
            (
                "timer_granularity_ms",
                format!(
                    "two ticks (the smallest RTO when rto_min_ms is absent) must be <= rto_max_s ({} s)",
                    t.rto_max_s
                ),
            )
        };
        return Err(ScenarioError::new(format!("{p}.{key}"), msg));
    }
    int_in(
        "initial_cwnd_segments",
        t.initial_cwnd_segments,
        1,
        1000,
        "",
    )?;
    if let Some(b) = t.bytes {
        int_in("bytes", b, 1, 1 << 50, "")?;
    }
    Ok(())
}

/// A traffic source at path `p` (`connections[i].source` or `.reverse_source`): its kind's keys
/// only, their values, and what every kind shares.
pub(crate) fn validate_source(p: &str, s: &SourceSpec) -> Res<()> {
    let kind = serde_json::to_string(&s.kind).unwrap();
    validate_keys(p, s, &kind)?;
    {
        let k = s.bundle;
        if !(1..=1024).contains(&k) {
            return Err(ScenarioError::new(
                format!("{p}.bundle"),
                format!("must be an integer in 1..=1024, got {k}"),
            ));
        }
    }
    validate_kind(p, s, &kind)?;
    validate_common(p, s)
}

/// The keys a source of kind `kind` takes.
fn allowed_keys(kind: SourceKind) -> &'static [&'static str] {
    use SourceKind::*;
    match kind {
        Cbr => &["rate_mbps", "start_s", "stop_s", "frame_bytes"],
        Persistent => &["peak_mbps", "start_s", "stop_s", "frame_bytes"],
        Onoff => &[
            "peak_mbps",
            "duty_cycle",
            "period_s",
            "exponential",
            "start_s",
            "stop_s",
            "frame_bytes",
        ],
        Mpeg2 => &[
            "mean_mbps",
            "std_mbps",
            "hurst",
            "fgn",
            "sources",
            "min_rate_mbps",
            "max_rate_mbps",
            "peak_mbps",
            "interval_min_s",
            "interval_max_s",
            "start_s",
            "stop_s",
            "frame_bytes",
        ],
        Tcp => &["tcp", "start_s", "bundle"],
        Xtpx => &["xtpx", "start_s", "bundle"],
        Video => &["video", "start_s", "stop_s", "tcp"],
        Workload => &["workload", "tcp", "xtpx", "start_s"],
        Echo => &["echo", "tcp", "xtpx", "start_s"],
        None => &[],
    }
}

/// Only the keys of the source's kind (`kind`, as the file writes it) are given.
fn validate_keys(p: &str, s: &SourceSpec, kind: &str) -> Res<()> {
    let allowed = allowed_keys(s.kind);
    // a key with a default counts as given when its value differs from the default
    let present = [
        ("rate_mbps", s.rate_mbps.is_some()),
        ("peak_mbps", s.peak_mbps.is_some()),
        ("duty_cycle", s.duty_cycle.is_some()),
        ("period_s", s.period_s.is_some()),
        ("exponential", s.exponential),
        ("start_s", s.start_s != 0.0),
        ("stop_s", s.stop_s.is_some()),
        ("frame_bytes", s.frame_bytes.is_some()),
        ("shape", s.shape && s.kind == SourceKind::None),
        ("mean_mbps", s.mean_mbps.is_some()),
        ("std_mbps", s.std_mbps.is_some()),
        ("hurst", s.hurst != default_hurst()),
        ("fgn", s.fgn != FgnMethodSpec::default()),
        ("sources", s.sources != default_video_sources()),
        ("min_rate_mbps", s.min_rate_mbps != default_min_rate_mbps()),
        ("max_rate_mbps", s.max_rate_mbps != default_max_rate_mbps()),
        (
            "interval_min_s",
            s.interval_min_s != default_interval_min_s(),
        ),
        (
            "interval_max_s",
            s.interval_max_s != default_interval_max_s(),
        ),
        ("tcp", s.tcp.is_some()),
        ("xtpx", s.xtpx.is_some()),
        ("bundle", s.bundle != 1),
        ("video", s.video.is_some()),
        ("workload", s.workload.is_some()),
        ("echo", s.echo.is_some()),
    ];
    for (k, has) in present {
        if has && !allowed.contains(&k) {
            return Err(ScenarioError::new(
                format!("{p}.{k}"),
                format!(
                    "not used by kind {kind}; its keys are: {}",
                    if allowed.is_empty() {
                        "none".into()
                    } else {
                        allowed.join(", ")
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// The keys the source's kind requires, their ranges, and the models' own checks.
fn validate_kind(p: &str, s: &SourceSpec, kind: &str) -> Res<()> {
    use SourceKind::*;
    let need = |k: &str, v: Option<f64>| {
        v.ok_or_else(|| ScenarioError::new(format!("{p}.{k}"), format!("required for kind {kind}")))
    };
    match s.kind {
        Cbr => positive(&format!("{p}.rate_mbps"), need("rate_mbps", s.rate_mbps)?)?,
        Persistent => {
            if let Some(v) = s.peak_mbps {
                positive(&format!("{p}.peak_mbps"), v)?
            }
        }
        Onoff => {
            positive(&format!("{p}.peak_mbps"), need("peak_mbps", s.peak_mbps)?)?;
            let d = need("duty_cycle", s.duty_cycle)?;
            if !(d > 0.0 && d <= 1.0) {
                return Err(ScenarioError::new(
                    format!("{p}.duty_cycle"),
                    format!("must be in (0, 1], got {d}"),
                ));
            }
            positive(&format!("{p}.period_s"), need("period_s", s.period_s)?)?;
        }
        Mpeg2 => {
            need("mean_mbps", s.mean_mbps)?;
            need("std_mbps", s.std_mbps)?;
            validate_mpeg2(p, s)?;
        }
        Tcp => validate_tcp(
            &format!("{p}.tcp"),
            s.tcp.as_deref().unwrap_or(&TcpSpec::default()),
        )?,
        Xtpx => validate_xtpx(
            &format!("{p}.xtpx"),
            s.xtpx.as_deref().unwrap_or(&XtpxSpec::default()),
        )?,
        Workload => validate_workload_source(p, s)?,
        Echo => validate_echo_source(p, s)?,
        None | Video => {} // video: with the traces, in check_video
    }
    Ok(())
}

/// `source.echo` and the keys of the transport it names (`scenario/echo.rs`).
fn validate_echo_source(p: &str, s: &SourceSpec) -> Res<()> {
    let e = s
        .echo
        .as_ref()
        .ok_or_else(|| ScenarioError::new(format!("{p}.echo"), "required for kind echo"))?;
    super::echo::validate_echo(&format!("{p}.echo"), e, s.tcp.is_some(), s.xtpx.is_some())?;
    if let Some(t) = &s.tcp {
        validate_tcp(&format!("{p}.tcp"), t)?;
        if t.bytes.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.tcp.bytes"),
                "the echo's count and request size say what is sent",
            ));
        }
    }
    if let Some(x) = &s.xtpx {
        validate_xtpx(&format!("{p}.xtpx"), x)?;
        if x.bytes.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.xtpx.bytes"),
                "the echo's count and request size say what is sent",
            ));
        }
    }
    Ok(())
}

/// The MPEG-2 model's parameters, each error named by the key that set it.
fn validate_mpeg2(p: &str, s: &SourceSpec) -> Res<()> {
    let n = s.sources;
    if !(1..=1000).contains(&n) {
        return Err(ScenarioError::new(
            format!("{p}.sources"),
            format!("must be an integer in 1..=1000, got {n}"),
        ));
    }
    use crate::app::mpeg2::VideoError as V;
    use crate::stats::fgn::FgnError as F;
    if let Err(e) = s.video_params().validate() {
        let key = match &e {
            V::Fgn(F::HurstOutOfRange(_)) => "hurst",
            V::Fgn(F::BadStd(_)) => "std_mbps",
            // a bound the file or --set gives is named: "a rate bound below the mean"
            V::MeanOutsideBounds { mean, max, .. }
                if mean > max && s.max_rate_mbps != default_max_rate_mbps() =>
            {
                "max_rate_mbps"
            }
            V::MeanOutsideBounds { mean, min, .. }
                if mean < min && s.min_rate_mbps != default_min_rate_mbps() =>
            {
                "min_rate_mbps"
            }
            V::Fgn(_) | V::NonPositiveMean(_) | V::MeanOutsideBounds { .. } => "mean_mbps",
            V::RateBounds { .. } => "max_rate_mbps",
            V::Peak(_) => "peak_mbps",
            V::Interval { .. } => "interval_min_s",
            V::NoSources => "sources",
        };
        return Err(ScenarioError::new(format!("{p}.{key}"), e.to_string()));
    }
    Ok(())
}

/// A workload source: its script, and the one transport it names.
fn validate_workload_source(p: &str, s: &SourceSpec) -> Res<()> {
    let w = s
        .workload
        .as_ref()
        .ok_or_else(|| ScenarioError::new(format!("{p}.workload"), "required for kind workload"))?;
    super::workload_spec::validate_workload(&format!("{p}.workload"), w)?;
    use super::WorkloadTransport as T;
    let (unused, name) = match w.transport {
        T::Tcp => (s.xtpx.is_some().then_some("xtpx"), "tcp"),
        T::Xtpx => (s.tcp.is_some().then_some("tcp"), "xtpx"),
    };
    if let Some(k) = unused {
        return Err(ScenarioError::new(
            format!("{p}.{k}"),
            format!("not used: the workload's transport is {name} (workload.transport)"),
        ));
    }
    let bytes = match w.transport {
        T::Tcp => {
            let t = s.tcp.clone().unwrap_or_default();
            validate_tcp(&format!("{p}.tcp"), &t)?;
            t.bytes.is_some()
        }
        T::Xtpx => {
            let x = s.xtpx.clone().unwrap_or_default();
            validate_xtpx(&format!("{p}.xtpx"), &x)?;
            x.bytes.is_some()
        }
    };
    if bytes {
        return Err(ScenarioError::new(
            format!("{p}.{name}.bytes"),
            "the workload script says what is sent",
        ));
    }
    Ok(())
}

/// What every kind shares: rates at most 1 Tb/s, the start and stop times, the frame size.
fn validate_common(p: &str, s: &SourceSpec) -> Res<()> {
    for k in ["rate_mbps", "peak_mbps"] {
        let v = if k == "rate_mbps" {
            s.rate_mbps
        } else {
            s.peak_mbps
        };
        if let Some(v) = v {
            if v > 1e6 {
                return Err(ScenarioError::new(
                    format!("{p}.{k}"),
                    "must be at most 1e6",
                ));
            }
        }
    }
    non_negative(&format!("{p}.start_s"), s.start_s)?;
    if let Some(stop) = s.stop_s {
        if !(stop.is_finite() && stop > s.start_s) {
            return Err(ScenarioError::new(
                format!("{p}.stop_s"),
                format!("must be > start_s ({})", s.start_s),
            ));
        }
    }
    if let Some(f) = s.frame_bytes {
        if !(1..=crate::wire::AAL5_MAX_SDU as i64).contains(&f) {
            return Err(ScenarioError::new(
                format!("{p}.frame_bytes"),
                format!("must be an integer in 1..=65535 (AAL5 CPCS-SDU), got {f}"),
            ));
        }
    }
    Ok(())
}
