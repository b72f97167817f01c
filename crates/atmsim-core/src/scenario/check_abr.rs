//! Semantic checks of ABR: the switch schemes (`nodes[].abr`, `nodes[].ports[].abr`) with
//! VS/VD, and a connection's ABR end-system parameters (`connections[].abr`, TM 4.0 section 5.10
//! ranges) with what an ABR connection needs of its source and route.

use super::check_util::{non_negative, positive, positive_int, Res, ScenarioError};
use super::{
    default_delta, default_dqt_cells, default_eprca_qt_cells, default_erica_plus_a,
    default_erica_plus_b, default_interval_s, default_one_feedback_per_interval, default_qdlf,
    default_t0_us, default_target_utilization, default_vs_drain_s, AbrSchemeSpec, AbrSpec,
    Category, CcrSource, ConnectionSpec, EricaVariant, NodeKind, NodeSpec, Scenario, SchemeKind,
    SourceKind,
};

/// `nodes[i].abr` (`p` = "nodes[i]"): the switch's scheme, and VS/VD (a switch's only).
pub(crate) fn validate_node_abr(p: &str, n: &NodeSpec) -> Res<()> {
    if let Some(a) = &n.abr {
        validate_scheme(&format!("{p}.abr"), a)?;
        if a.vsvd && n.kind != NodeKind::Switch {
            return Err(ScenarioError::new(
                format!("{p}.abr.vsvd"),
                "only a switch can be a virtual source / virtual destination",
            ));
        }
        if a.vs_drain_s != default_vs_drain_s() {
            if !a.vsvd {
                return Err(ScenarioError::new(
                    format!("{p}.abr.vs_drain_s"),
                    "only used with vsvd = true",
                ));
            }
            non_negative(&format!("{p}.abr.vs_drain_s"), a.vs_drain_s)?;
        }
    }
    Ok(())
}

/// `nodes[i].ports[j].abr` (`pp` = "nodes[i].ports[j]"): the port's scheme; VS/VD is set for the
/// whole switch.
pub(crate) fn validate_port_abr(pp: &str, a: &AbrSchemeSpec) -> Res<()> {
    validate_scheme(&format!("{pp}.abr"), a)?;
    if a.vsvd || a.vs_drain_s != default_vs_drain_s() {
        let k = if a.vsvd { "vsvd" } else { "vs_drain_s" };
        return Err(ScenarioError::new(
            format!("{pp}.abr.{k}"),
            "VS/VD is set for the whole switch, in nodes[].abr",
        ));
    }
    Ok(())
}

fn validate_scheme(p: &str, a: &AbrSchemeSpec) -> Res<()> {
    use SchemeKind::*;
    let erica = matches!(a.scheme, Erica | EricaPlus);
    let eprca = matches!(a.scheme, Eprca | Aprc);
    let timed = erica || matches!(a.scheme, Aprc | Capc | Osu | Phantom | Charny | Ucsc);
    // a key with a default counts as given when its value differs from the default
    let present = [
        (
            "target_utilization",
            a.target_utilization != default_target_utilization(),
            matches!(a.scheme, Erica | Capc | Osu | Charny | Ucsc),
        ),
        ("interval_s", a.interval_s != default_interval_s(), timed),
        ("interval_cells", a.interval_cells.is_some(), erica),
        ("variant", a.variant != EricaVariant::default(), erica),
        ("ccr", a.ccr != CcrSource::default(), erica),
        (
            "delta",
            a.delta != default_delta(),
            erica || a.scheme == Osu,
        ),
        (
            "one_feedback_per_interval",
            a.one_feedback_per_interval != default_one_feedback_per_interval(),
            erica,
        ),
        ("t0_us", a.t0_us != default_t0_us(), a.scheme == EricaPlus),
        ("a", a.a != default_erica_plus_a(), a.scheme == EricaPlus),
        ("b", a.b != default_erica_plus_b(), a.scheme == EricaPlus),
        ("qdlf", a.qdlf != default_qdlf(), a.scheme == EricaPlus),
        (
            "high_cells",
            a.high_cells.is_some(),
            matches!(a.scheme, Efci | RelativeRate),
        ),
        (
            "low_cells",
            a.low_cells.is_some(),
            matches!(a.scheme, Efci | RelativeRate),
        ),
        ("av", a.av.is_some(), eprca || a.scheme == Phantom),
        ("dpf", a.dpf.is_some(), eprca),
        ("erf", a.erf.is_some(), eprca || a.scheme == Capc),
        ("mrf", a.mrf.is_some(), eprca),
        (
            "qt_cells",
            a.qt_cells.is_some(),
            matches!(a.scheme, Eprca | Capc),
        ),
        ("dqt_cells", a.dqt_cells.is_some(), eprca),
        ("rup", a.rup.is_some(), a.scheme == Capc),
        ("rdn", a.rdn.is_some(), a.scheme == Capc),
        ("eru", a.eru.is_some(), a.scheme == Capc),
        ("uf", a.uf.is_some(), a.scheme == Phantom),
    ];
    let name = serde_json::to_string(&a.scheme).unwrap();
    for (k, has, ok) in present {
        if has && !ok {
            return Err(ScenarioError::new(
                format!("{p}.{k}"),
                format!("not used by scheme {name}"),
            ));
        }
    }
    let u = a.target_utilization;
    if !(u > 0.0 && u <= 1.0) {
        return Err(ScenarioError::new(
            format!("{p}.target_utilization"),
            format!("must be in (0, 1], got {u}"),
        ));
    }
    positive(&format!("{p}.interval_s"), a.interval_s)?;
    if let Some(v) = a.interval_cells {
        positive_int(&format!("{p}.interval_cells"), v)?;
    }
    non_negative(&format!("{p}.delta"), a.delta)?;
    if a.scheme == Osu && a.delta >= 1.0 {
        return Err(ScenarioError::new(
            format!("{p}.delta"),
            format!(
                "the OSU scheme's band 1 - delta must be > 0: delta in [0, 1), got {}",
                a.delta
            ),
        ));
    }
    validate_new_scheme_keys(p, a)?;
    positive(&format!("{p}.t0_us"), a.t0_us)?;
    for (k, v) in [("a", a.a), ("b", a.b)] {
        if !(v.is_finite() && v > 1.0) {
            return Err(ScenarioError::new(
                format!("{p}.{k}"),
                format!("must be > 1, got {v}"),
            ));
        }
    }
    let q = a.qdlf;
    if !(q > 0.0 && q <= 1.0) {
        return Err(ScenarioError::new(
            format!("{p}.qdlf"),
            format!("must be in (0, 1], got {q}"),
        ));
    }
    if matches!(a.scheme, Efci | RelativeRate) {
        let hi = a.high_cells.ok_or_else(|| {
            ScenarioError::new(
                format!("{p}.high_cells"),
                format!("required for scheme {name}"),
            )
        })?;
        let lo = a.low_cells.ok_or_else(|| {
            ScenarioError::new(
                format!("{p}.low_cells"),
                format!("required for scheme {name}"),
            )
        })?;
        positive_int(&format!("{p}.high_cells"), hi)?;
        if !(0..=hi).contains(&lo) {
            return Err(ScenarioError::new(
                format!("{p}.low_cells"),
                format!("must be in 0..=high_cells ({hi}), got {lo}"),
            ));
        }
    }
    Ok(())
}

/// The keys of EPRCA, APRC, CAPC and Phantom (docs/abr-schemes.md): factors in (0, 1], gains
/// positive, thresholds whole cells with DQT >= QT.
fn validate_new_scheme_keys(p: &str, a: &AbrSchemeSpec) -> Res<()> {
    for (k, v) in [("av", a.av), ("dpf", a.dpf), ("erf", a.erf), ("mrf", a.mrf)] {
        if let Some(v) = v {
            if !(v > 0.0 && v <= 1.0) {
                return Err(ScenarioError::new(
                    format!("{p}.{k}"),
                    format!("must be in (0, 1], got {v}"),
                ));
            }
        }
    }
    for (k, v) in [("rup", a.rup), ("rdn", a.rdn), ("uf", a.uf)] {
        if let Some(v) = v {
            positive(&format!("{p}.{k}"), v)?;
        }
    }
    if let Some(v) = a.eru {
        if !(v.is_finite() && v >= 1.0) {
            return Err(ScenarioError::new(
                format!("{p}.eru"),
                format!("must be >= 1, got {v}"),
            ));
        }
    }
    for (k, v) in [("qt_cells", a.qt_cells), ("dqt_cells", a.dqt_cells)] {
        if let Some(v) = v {
            positive_int(&format!("{p}.{k}"), v)?;
        }
    }
    if a.scheme == SchemeKind::Eprca {
        let qt = a.qt_cells.unwrap_or(default_eprca_qt_cells());
        let dqt = a.dqt_cells.unwrap_or(default_dqt_cells());
        if dqt < qt {
            return Err(ScenarioError::new(
                format!("{p}.dqt_cells"),
                format!("must be >= qt_cells ({qt}), got {dqt}"),
            ));
        }
    }
    Ok(())
}

/// The source kinds with a host at each end of the VC (the sending host's data one way, the
/// receiving host's frames the other), which run over one-way ABR above its two end systems.
pub(crate) fn hosts_at_ends(k: SourceKind) -> bool {
    matches!(k, SourceKind::Tcp | SourceKind::Xtpx | SourceKind::Workload)
}

/// What hosts over an ABR VC need (`hosts_at_ends`): one-way ABR (validated above), no VS/VD
/// switch on the route (the receiving host's frames would end at the virtual source), one
/// frame stream (no bundle of raw connections, each its own endpoint), and ideal hosts (the
/// host model's send processing would hand frames to the adapter, where the ABR source paces
/// them: docs/abr.md).
fn validate_hosts_over_abr(p: &str, c: &ConnectionSpec, sc: &Scenario) -> Res<()> {
    if !hosts_at_ends(c.source.kind) {
        return Ok(());
    }
    let kind = format!("{:?}", c.source.kind).to_lowercase();
    if c.source.bundle > 1 && c.source.kind != SourceKind::Workload {
        return Err(ScenarioError::new(
            format!("{p}.source.bundle"),
            format!("bundles of {kind} connections over one ABR source are not supported: the ABR source paces one frame stream (a workload's connections share one host: use source.kind = \"workload\")"),
        ));
    }
    let node = |n: &String| sc.nodes.iter().find(|x| &x.name == n);
    for k in 1..c.route.len() - 1 {
        if node(&c.route[k])
            .and_then(|n| n.abr.as_ref())
            .is_some_and(|a| a.vsvd)
        {
            return Err(ScenarioError::new(format!("{p}.route"), format!("{kind} over ABR through a VS/VD switch (\"{}\") is not supported: the receiving host's frames would end at the virtual source", c.route[k])));
        }
    }
    for end in [c.route.first(), c.route.last()].into_iter().flatten() {
        if let Some(i) = sc.nodes.iter().position(|x| &x.name == end) {
            if sc.nodes[i].host.is_some() {
                return Err(ScenarioError::new(
                    format!("nodes[{i}].host"),
                    format!("the host model does not apply to a host over an ABR VC (connection \"{}\" is {kind} over ABR): leave host out of node \"{end}\"", c.name),
                ));
            }
        }
    }
    Ok(())
}

/// `connections[i].abr` (`p` = "connections[i]"): given exactly for category "abr", its
/// parameters, its source, a bidirectional connection's limits, and an ABR scheme at every port
/// on the route.
pub(crate) fn validate_connection_abr(p: &str, c: &ConnectionSpec, sc: &Scenario) -> Res<()> {
    match (&c.abr, c.category) {
        (None, Category::Abr) => {
            return Err(ScenarioError::new(
                format!("{p}.abr"),
                "required for category \"abr\" (an empty table takes the TM 4.0 defaults)",
            ))
        }
        (Some(_), cat) if cat != Category::Abr => {
            return Err(ScenarioError::new(
                format!("{p}.abr"),
                format!("only for category \"abr\", not \"{}\"", cat.name()),
            ))
        }
        (Some(a), _) => {
            let first_rate = sc
                .links
                .iter()
                .find(|l| {
                    (l.a == c.route[0] && l.b == c.route[1])
                        || (l.b == c.route[0] && l.a == c.route[1])
                })
                .map(|l| l.rate_mbps)
                .unwrap_or(0.0);
            validate_abr(&format!("{p}.abr"), a, first_rate)?;
            validate_hosts_over_abr(p, c, sc)?;
            if c.source.kind == SourceKind::Persistent && c.source.peak_mbps.is_some() {
                return Err(ScenarioError::new(
                    format!("{p}.source.peak_mbps"),
                    "an ABR source sends at its ACR; set abr.pcr_mbps instead",
                ));
            }
            if c.bidirectional {
                // both directions under ABR control, each end also the other's destination
                if hosts_at_ends(c.source.kind)
                    || c.reverse_source
                        .as_ref()
                        .is_some_and(|r| hosts_at_ends(r.kind))
                {
                    return Err(ScenarioError::new(
                        format!("{p}.bidirectional"),
                        "a tcp, xtpx or workload source over ABR uses the reverse direction for the receiving host's frames; a bidirectional ABR connection carries persistent, cbr, onoff, mpeg2 or none sources",
                    ));
                }
                let vsvd = c.route[1..c.route.len() - 1].iter().any(|n| {
                    sc.nodes
                        .iter()
                        .find(|x| &x.name == n)
                        .and_then(|x| x.abr.as_ref())
                        .is_some_and(|a| a.vsvd)
                });
                if vsvd {
                    return Err(ScenarioError::new(
                        format!("{p}.bidirectional"),
                        "a bidirectional ABR connection through a VS/VD switch is not supported",
                    ));
                }
            }
            for k in 1..c.route.len() - 1 {
                let node = sc.nodes.iter().position(|n| n.name == c.route[k]).unwrap();
                let n = &sc.nodes[node];
                let port = n
                    .ports
                    .iter()
                    .find(|ps| ps.to == c.route[k + 1])
                    .and_then(|ps| ps.abr.as_ref());
                if port.or(n.abr.as_ref()).is_none() {
                    return Err(ScenarioError::new(
                        format!("nodes[{node}].abr"),
                        format!("ABR connection \"{}\" crosses port {}->{} which has no ABR scheme; set scheme = \"erica\", \"erica+\", \"efci\", \"rr\", \"eprca\", \"aprc\", \"capc\", \"osu\", \"phantom\", \"charny\", \"ucsc\" or \"none\"", c.name, c.route[k], c.route[k + 1]),
                    ));
                }
            }
        }
        (None, _) => {}
    }
    Ok(())
}

fn power_of_two_fraction(v: f64, min_exp: i32) -> bool {
    (min_exp..=0).any(|k| v == 2f64.powi(k))
}

fn validate_abr(p: &str, a: &AbrSpec, first_rate: f64) -> Res<()> {
    let pcr = a.pcr_mbps.unwrap_or(first_rate);
    if let Some(v) = a.pcr_mbps {
        positive(&format!("{p}.pcr_mbps"), v)?;
        if v > first_rate {
            return Err(ScenarioError::new(format!("{p}.pcr_mbps"), format!("must be <= the rate of the connection's first link ({first_rate} Mb/s), got {v}")));
        }
    }
    let mcr = a.mcr_mbps;
    non_negative(&format!("{p}.mcr_mbps"), mcr)?;
    if mcr > pcr {
        return Err(ScenarioError::new(
            format!("{p}.mcr_mbps"),
            format!("must be <= PCR ({pcr} Mb/s)"),
        ));
    }
    if let Some(icr) = a.icr_mbps {
        if !(icr.is_finite() && icr >= mcr && icr <= pcr) {
            return Err(ScenarioError::new(
                format!("{p}.icr_mbps"),
                format!("must be in [MCR, PCR] = [{mcr}, {pcr}] Mb/s, got {icr}"),
            ));
        }
        if icr <= 0.0 {
            return Err(ScenarioError::new(format!("{p}.icr_mbps"), "must be > 0"));
        }
    }
    for (k, v) in [("rif", a.rif), ("rdf", a.rdf)] {
        if !power_of_two_fraction(v, -15) {
            return Err(ScenarioError::new(
                format!("{p}.{k}"),
                format!("must be a power of two from 1/32768 to 1, got {v}"),
            ));
        }
    }
    let v = a.cdf;
    if !(v == 0.0 || power_of_two_fraction(v, -6)) {
        return Err(ScenarioError::new(
            format!("{p}.cdf"),
            format!("must be 0 or a power of two from 1/64 to 1, got {v}"),
        ));
    }
    let n = a.nrm;
    if !(2..=256).contains(&n) || n.count_ones() != 1 {
        return Err(ScenarioError::new(
            format!("{p}.nrm"),
            format!("must be a power of two from 2 to 256, got {n}"),
        ));
    }
    let m = a.mrm;
    if !(1..=256).contains(&m) {
        return Err(ScenarioError::new(
            format!("{p}.mrm"),
            format!("must be an integer in 1..=256 (TM 4.0 fixes it at 2), got {m}"),
        ));
    }
    let t = a.trm_ms;
    if !(0..=7).any(|k| t == 100.0 / 2f64.powi(k)) {
        return Err(ScenarioError::new(
            format!("{p}.trm_ms"),
            format!("must be 100 x 2^-k ms for k = 0..7, got {t}"),
        ));
    }
    let t = a.tbe;
    if !(0..=16_777_215).contains(&t) {
        return Err(ScenarioError::new(
            format!("{p}.tbe"),
            format!("must be in 0..=16777215 cells, got {t}"),
        ));
    }
    if let Some(f) = a.frtt_us {
        non_negative(&format!("{p}.frtt_us"), f)?;
    }
    let t = a.adtf_s;
    if !(t.is_finite() && (0.01..=10.23).contains(&t)) {
        return Err(ScenarioError::new(
            format!("{p}.adtf_s"),
            format!("must be in 0.01 ..= 10.23 s, got {t}"),
        ));
    }
    Ok(())
}
