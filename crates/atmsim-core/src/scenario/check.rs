//! Semantic checks of a scenario: [`validate`] walks the run settings, nodes, links, ports,
//! shared buffers, connections, bundles and calls, and returns the first error with its key
//! path. The checks of one connection are in `check_connection`, those of a source in
//! `check_source`, CAC admission of the permanent connections in `check_cac`.

use super::check_cac::validate_permanent_cac;
use super::check_connection::validate_connection;
use super::check_fabric::validate_fabric;
use super::check_util::{check_name, names};
use super::check_video::validate_video;
use super::{
    class_buffers, default_cac_buffer_cells, default_cac_clr, default_delta, default_erica_plus_a,
    default_erica_plus_b, default_interval_s, default_one_feedback_per_interval, default_qdlf,
    default_t0_us, default_target_utilization, default_vs_drain_s, non_negative, positive,
    positive_int, AbrSchemeSpec, CacPolicySpec, CacSpec, CallSpec, CcrSource, DiscardSpec,
    EricaVariant, NodeKind, ProposeSpec, Res, Scenario, ScenarioError, SchedulerSpec, SchemeKind,
    SourceKind,
};
use std::collections::{BTreeMap, BTreeSet};

/// Semantic checks: ranges, names, routes. Returns the first error found, with its key path.
pub fn validate(sc: &Scenario) -> Res<()> {
    if sc.description.trim().is_empty() {
        return Err(ScenarioError::new(
            "description",
            "must say what the scenario is and cite its source",
        ));
    }
    let r = &sc.run;
    positive("run.duration_s", r.duration_s)?;
    non_negative("run.warmup_s", r.warmup_s)?;
    if r.warmup_s >= r.duration_s {
        return Err(ScenarioError::new(
            "run.warmup_s",
            format!("must be < run.duration_s ({})", r.duration_s),
        ));
    }
    if let Some(s) = r.sample_interval_s {
        positive("run.sample_interval_s", s)?;
        if s > r.duration_s {
            return Err(ScenarioError::new(
                "run.sample_interval_s",
                "must not exceed run.duration_s",
            ));
        }
    }
    if (r.duration_s * 1e12) >= u64::MAX as f64 / 2.0 {
        return Err(ScenarioError::new(
            "run.duration_s",
            "too long (at most about 100 days)",
        ));
    }

    let mut kinds: BTreeMap<&str, NodeKind> = BTreeMap::new();
    for (i, n) in sc.nodes.iter().enumerate() {
        let p = format!("nodes[{i}]");
        check_name(&format!("{p}.name"), &n.name, false)?;
        if kinds.insert(&n.name, n.kind).is_some() {
            return Err(ScenarioError::new(
                format!("{p}.name"),
                format!("duplicate node name \"{}\"", n.name),
            ));
        }
        non_negative(&format!("{p}.fabric_delay_us"), n.fabric_delay_us)?;
        validate_fabric(&p, n)?;
        super::host::validate_host(&p, n)?;
        non_negative(&format!("{p}.call_processing_us"), n.call_processing_us)?;
        if n.kind == NodeKind::Host && n.call_processing_us != 0.0 {
            return Err(ScenarioError::new(
                format!("{p}.call_processing_us"),
                "only switches process call set-up",
            ));
        }
        if n.kind == NodeKind::Host && n.fabric_delay_us != 0.0 {
            return Err(ScenarioError::new(
                format!("{p}.fabric_delay_us"),
                "applies to switches only",
            ));
        }
        if let Some(b) = n.buffer_cells {
            positive_int(&format!("{p}.buffer_cells"), b)?;
        }
        if let Some(b) = n.clp1_threshold_cells {
            positive_int(&format!("{p}.clp1_threshold_cells"), b)?;
        }
        if let Some(c) = &n.cac {
            if n.kind != NodeKind::Switch {
                return Err(ScenarioError::new(
                    format!("{p}.cac"),
                    "CAC runs at switches",
                ));
            }
            validate_cac(&format!("{p}.cac"), c)?;
        }
        let epd = matches!(n.discard, DiscardSpec::Epd | DiscardSpec::EpdPpd);
        match (epd, n.epd_threshold_cells) {
            (true, None) => {
                return Err(ScenarioError::new(
                    format!("{p}.epd_threshold_cells"),
                    "required with discard = \"epd\" or \"epd+ppd\"",
                ))
            }
            (false, Some(_)) => {
                return Err(ScenarioError::new(
                    format!("{p}.epd_threshold_cells"),
                    "only used with discard = \"epd\" or \"epd+ppd\"",
                ))
            }
            (true, Some(t)) => {
                positive_int(&format!("{p}.epd_threshold_cells"), t)?;
                let smallest = n
                    .ports
                    .iter()
                    .filter_map(|ps| ps.buffer_cells)
                    .chain(n.buffer_cells)
                    .min();
                if let Some(b) = smallest {
                    if t > b {
                        return Err(ScenarioError::new(
                            format!("{p}.epd_threshold_cells"),
                            format!("must not exceed the buffer ({b} cells), got {t}"),
                        ));
                    }
                }
            }
            _ => {}
        }
        class_buffers(&format!("{p}.class_buffer_cells"), &n.class_buffer_cells)?;
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
        if let Some(w) = &n.class_weights {
            if n.scheduler != SchedulerSpec::Wrr {
                return Err(ScenarioError::new(
                    format!("{p}.class_weights"),
                    "only used with scheduler = \"wrr\"",
                ));
            }
            for (cat, v) in w.entries() {
                if !(1..=1_000_000).contains(&v) {
                    return Err(ScenarioError::new(
                        format!("{p}.class_weights.{}", cat.name()),
                        format!("must be an integer in 1..=1000000, got {v}"),
                    ));
                }
            }
        }
        for (key, rates) in [
            ("class_min_mbps", &n.class_min_mbps),
            ("class_max_mbps", &n.class_max_mbps),
        ] {
            if let Some(r) = rates {
                for (cat, v) in r.entries() {
                    if let Some(v) = v {
                        positive(&format!("{p}.{key}.{}", cat.name()), v)?;
                    }
                }
            }
        }
        if let (Some(lo), Some(hi)) = (&n.class_min_mbps, &n.class_max_mbps) {
            for ((cat, a), (_, b)) in lo.entries().into_iter().zip(hi.entries()) {
                if let (Some(a), Some(b)) = (a, b) {
                    if a > b {
                        return Err(ScenarioError::new(
                            format!("{p}.class_min_mbps.{}", cat.name()),
                            format!("must not exceed class_max_mbps ({b})"),
                        ));
                    }
                }
            }
        }
        let pr = &n.priority;
        let set: BTreeSet<_> = pr.iter().collect();
        if pr.len() != 5 || set.len() != 5 {
            return Err(ScenarioError::new(
                format!("{p}.priority"),
                "must list each of cbr, rt-vbr, nrt-vbr, abr, ubr exactly once",
            ));
        }
    }

    let mut adj: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (i, l) in sc.links.iter().enumerate() {
        let p = format!("links[{i}]");
        for (k, v) in [("a", &l.a), ("b", &l.b)] {
            if !kinds.contains_key(v.as_str()) {
                return Err(ScenarioError::new(
                    format!("{p}.{k}"),
                    format!("unknown node \"{v}\"; nodes are {}", names(&kinds)),
                ));
            }
        }
        if l.a == l.b {
            return Err(ScenarioError::new(
                format!("{p}.b"),
                "a link must join two different nodes",
            ));
        }
        positive(&format!("{p}.rate_mbps"), l.rate_mbps)?;
        if l.rate_mbps > 1e6 {
            return Err(ScenarioError::new(
                format!("{p}.rate_mbps"),
                "must be at most 1e6 (1 Tb/s)",
            ));
        }
        match (l.length_km, l.delay_us) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    format!("{p}.delay_us"),
                    "give length_km or delay_us, not both",
                ))
            }
            (None, None) => return Err(ScenarioError::new(p, "needs length_km or delay_us")),
            (Some(km), None) => {
                if !(km.is_finite() && km > 0.0) {
                    return Err(ScenarioError::new(
                        format!("{p}.length_km"),
                        format!("must be a number > 0, got {km} (a link without propagation delay: delay_us = 0)"),
                    ));
                }
            }
            (None, Some(us)) => non_negative(&format!("{p}.delay_us"), us)?,
        }
        if let Some(im) = &l.impairment {
            for (k, v) in [
                ("loss_probability", im.loss_probability),
                ("error_probability", im.error_probability),
                ("misinsertion_probability", im.misinsertion_probability),
            ] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(ScenarioError::new(
                        format!("{p}.impairment.{k}"),
                        format!("must be a probability in [0, 1], got {v}"),
                    ));
                }
            }
            if im.loss_probability + im.error_probability + im.misinsertion_probability > 1.0 {
                return Err(ScenarioError::new(
                    format!("{p}.impairment"),
                    "loss, error and misinsertion probabilities must add up to at most 1",
                ));
            }
            non_negative(&format!("{p}.impairment.extra_delay_us"), im.extra_delay_us)?;
            non_negative(
                &format!("{p}.impairment.delay_variation_us"),
                im.delay_variation_us,
            )?;
            for (k, v) in [
                ("drop_cells_a_to_b", &im.drop_cells_a_to_b),
                ("drop_cells_b_to_a", &im.drop_cells_b_to_a),
            ] {
                if v.contains(&0) || v.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(ScenarioError::new(
                        format!("{p}.impairment.{k}"),
                        "cell numbers count from 1 and must be increasing",
                    ));
                }
            }
        }
        if !adj.insert((&l.a, &l.b)) || !adj.insert((&l.b, &l.a)) {
            return Err(ScenarioError::new(
                p,
                format!(
                    "a second link between \"{}\" and \"{}\"; one link per node pair",
                    l.a, l.b
                ),
            ));
        }
    }

    for (i, n) in sc.nodes.iter().enumerate() {
        let p = format!("nodes[{i}]");
        let mut seen = BTreeSet::new();
        for (j, ps) in n.ports.iter().enumerate() {
            let pp = format!("{p}.ports[{j}]");
            if !adj.contains(&(n.name.as_str(), ps.to.as_str())) {
                return Err(ScenarioError::new(
                    format!("{pp}.to"),
                    format!("\"{}\" has no link to \"{}\"", n.name, ps.to),
                ));
            }
            if !seen.insert(ps.to.as_str()) {
                return Err(ScenarioError::new(
                    format!("{pp}.to"),
                    format!("port to \"{}\" configured twice", ps.to),
                ));
            }
            if let Some(b) = ps.buffer_cells {
                positive_int(&format!("{pp}.buffer_cells"), b)?;
            }
            if let Some(b) = ps.clp1_threshold_cells {
                positive_int(&format!("{pp}.clp1_threshold_cells"), b)?;
            }
            class_buffers(&format!("{pp}.class_buffer_cells"), &ps.class_buffer_cells)?;
            if let Some(a) = &ps.abr {
                validate_scheme(&format!("{pp}.abr"), a)?;
                if a.vsvd || a.vs_drain_s != default_vs_drain_s() {
                    let k = if a.vsvd { "vsvd" } else { "vs_drain_s" };
                    return Err(ScenarioError::new(
                        format!("{pp}.abr.{k}"),
                        "VS/VD is set for the whole switch, in nodes[].abr",
                    ));
                }
            }
        }
        let mut grouped = BTreeSet::new();
        for (j, g) in n.shared_buffers.iter().enumerate() {
            let gp = format!("{p}.shared_buffers[{j}]");
            positive_int(&format!("{gp}.buffer_cells"), g.buffer_cells)?;
            if g.ports.is_empty() {
                return Err(ScenarioError::new(
                    format!("{gp}.ports"),
                    "must name at least one port",
                ));
            }
            for (k, to) in g.ports.iter().enumerate() {
                if !adj.contains(&(n.name.as_str(), to.as_str())) {
                    return Err(ScenarioError::new(
                        format!("{gp}.ports[{k}]"),
                        format!("\"{}\" has no link to \"{to}\"", n.name),
                    ));
                }
                if !grouped.insert(to.as_str()) {
                    return Err(ScenarioError::new(
                        format!("{gp}.ports[{k}]"),
                        format!("port to \"{to}\" is already in a shared buffer"),
                    ));
                }
            }
        }
    }

    let mut conn_names = BTreeSet::new();
    for (i, c) in sc.connections.iter().enumerate() {
        let p = format!("connections[{i}]");
        check_name(&format!("{p}.name"), &c.name, true)?;
        if !conn_names.insert(c.name.as_str()) {
            return Err(ScenarioError::new(
                format!("{p}.name"),
                format!("duplicate connection name \"{}\"", c.name),
            ));
        }
        validate_connection(&p, c, sc, &kinds, &adj)?;
    }
    validate_video(sc)?;
    // the connections of a bundle are measured with one monitor: same parameters
    let mut bundles: BTreeMap<&str, (usize, &ProposeSpec)> = BTreeMap::new();
    for (i, c) in sc.connections.iter().enumerate() {
        let Some(m) = &c.propose_contract else {
            continue;
        };
        let Some(b) = m.bundle.as_deref() else {
            continue;
        };
        if conn_names.contains(b) && b != c.name {
            return Err(ScenarioError::new(
                format!("connections[{i}].propose_contract.bundle"),
                format!("\"{b}\" is another connection's name; a bundle needs a name of its own"),
            ));
        }
        match bundles.get(b) {
            None => {
                bundles.insert(b, (i, m));
            }
            Some(&(j, first)) => {
                for (key, a, x) in [
                    ("window_s", first.window_s, m.window_s),
                    ("scr_margin", first.scr_margin, m.scr_margin),
                    ("tolerance", first.tolerance, m.tolerance),
                ] {
                    if a != x {
                        return Err(ScenarioError::new(
                            format!("connections[{i}].propose_contract.{key}"),
                            format!("differs from bundle \"{b}\"'s (connections[{j}]); a bundle is measured with one set of parameters"),
                        ));
                    }
                }
            }
        }
    }
    for (i, call) in sc.calls.iter().enumerate() {
        let p = format!("calls[{i}]");
        let c = &call.connection;
        check_name(&format!("{p}.connection.name"), &c.name, true)?;
        if !conn_names.insert(c.name.as_str()) {
            return Err(ScenarioError::new(
                format!("{p}.connection.name"),
                format!("duplicate connection name \"{}\"", c.name),
            ));
        }
        validate_connection(&format!("{p}.connection"), c, sc, &kinds, &adj)?;
        if c.propose_contract.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.connection.propose_contract"),
                "the adaptive proposal monitors permanent connections only",
            ));
        }
        validate_call(&p, call, sc)?;
    }
    // last, as the built network would: permanent connections must fit the CAC ports
    validate_permanent_cac(sc)?;
    Ok(())
}

fn validate_call(p: &str, call: &CallSpec, sc: &Scenario) -> Res<()> {
    let c = &call.connection;
    if c.contract.is_none() {
        return Err(ScenarioError::new(
            format!("{p}.connection.contract"),
            "a call needs a contract for CAC",
        ));
    }
    if c.abr.is_some()
        || c.bidirectional
        || matches!(
            c.source.kind,
            SourceKind::Tcp | SourceKind::Xtpx | SourceKind::Workload
        )
    {
        return Err(ScenarioError::new(
            format!("{p}.connection"),
            "calls are one-way non-ABR, non-TCP, non-XTPX connections for now",
        ));
    }
    if c.source.start_s != 0.0 || c.source.stop_s.is_some() {
        return Err(ScenarioError::new(
            format!("{p}.connection.source"),
            "a call's source runs from set-up to release; no start_s or stop_s",
        ));
    }
    positive(&format!("{p}.arrival_rate_per_s"), call.arrival_rate_per_s)?;
    positive(&format!("{p}.holding_s"), call.holding_s)?;
    non_negative(&format!("{p}.start_s"), call.start_s)?;
    if let Some(s) = call.stop_s {
        if !(s.is_finite() && s > call.start_s) {
            return Err(ScenarioError::new(
                format!("{p}.stop_s"),
                format!("must be > start_s ({})", call.start_s),
            ));
        }
    }
    if let Some(m) = call.max_active {
        if !(1..=100_000).contains(&m) {
            return Err(ScenarioError::new(
                format!("{p}.max_active"),
                format!("must be an integer in 1..=100000, got {m}"),
            ));
        }
    }
    let cac_on_route = c.route[1..c.route.len() - 1]
        .iter()
        .any(|n| sc.nodes.iter().any(|x| &x.name == n && x.cac.is_some()));
    if !cac_on_route {
        return Err(ScenarioError::new(
            format!("{p}.connection.route"),
            "no switch on the route does CAC; set nodes[].cac",
        ));
    }
    Ok(())
}

fn validate_cac(p: &str, c: &CacSpec) -> Res<()> {
    if c.policy != CacPolicySpec::EffectiveBandwidth
        && (c.buffer_cells != default_cac_buffer_cells() || c.clr != default_cac_clr())
    {
        return Err(ScenarioError::new(
            p,
            "buffer_cells and clr apply to policy \"effective_bandwidth\" only",
        ));
    }
    positive(&format!("{p}.buffer_cells"), c.buffer_cells)?;
    let v = c.clr;
    if !(v > 0.0 && v < 1.0) {
        return Err(ScenarioError::new(
            format!("{p}.clr"),
            format!("must be in (0, 1), got {v}"),
        ));
    }
    Ok(())
}

fn validate_scheme(p: &str, a: &AbrSchemeSpec) -> Res<()> {
    use SchemeKind::*;
    let erica = matches!(a.scheme, Erica | EricaPlus);
    // a key with a default counts as given when its value differs from the default
    let present = [
        (
            "target_utilization",
            a.target_utilization != default_target_utilization(),
            a.scheme == Erica,
        ),
        ("interval_s", a.interval_s != default_interval_s(), erica),
        ("interval_cells", a.interval_cells.is_some(), erica),
        ("variant", a.variant != EricaVariant::default(), erica),
        ("ccr", a.ccr != CcrSource::default(), erica),
        ("delta", a.delta != default_delta(), erica),
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
