//! Semantic checks of the nodes (`nodes[]`): names, delays, buffers, the host model, CAC
//! settings, frame discard, per-class buffers, weights and rates, the priority order, and, once
//! the links are known, the output ports and shared buffers. A node's fabric is checked in
//! `check_fabric`, its ABR scheme in `check_abr`, its CAC settings in `check_cac`.

use super::check_abr::{validate_node_abr, validate_port_abr};
use super::check_cac::validate_cac;
use super::check_fabric::validate_fabric;
use super::check_util::{check_name, non_negative, positive, positive_int, Res, ScenarioError};
use super::{ClassBuffers, DiscardSpec, NodeKind, NodeSpec, Scenario, SchedulerSpec};
use std::collections::{BTreeMap, BTreeSet};

/// Every node in file order; returns the kind of each, by name.
pub(crate) fn validate_nodes(sc: &Scenario) -> Res<BTreeMap<&str, NodeKind>> {
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
        validate_node(&p, n)?;
    }
    Ok(kinds)
}

/// The checks of node `n` at path `p` (`nodes[i]`) that need no other node.
fn validate_node(p: &str, n: &NodeSpec) -> Res<()> {
    non_negative(&format!("{p}.fabric_delay_us"), n.fabric_delay_us)?;
    validate_fabric(p, n)?;
    validate_host(p, n)?;
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
    validate_discard(p, n)?;
    class_buffers(&format!("{p}.class_buffer_cells"), &n.class_buffer_cells)?;
    validate_node_abr(p, n)?;
    validate_scheduling(p, n)
}

/// Checks of `nodes[i].host` (`p` = "nodes[i]").
fn validate_host(p: &str, n: &NodeSpec) -> Res<()> {
    let Some(h) = &n.host else { return Ok(()) };
    if n.kind != NodeKind::Host {
        return Err(ScenarioError::new(
            format!("{p}.host"),
            "a host model belongs on kind = \"host\" nodes",
        ));
    }
    for (k, v) in [
        ("per_tsdu_us", h.per_tsdu_us),
        ("per_packet_send_us", h.per_packet_send_us),
        ("per_packet_recv_us", h.per_packet_recv_us),
        ("per_byte_send_ns", h.per_byte_send_ns),
        ("per_byte_recv_ns", h.per_byte_recv_ns),
        ("keep_up_tolerance_ms", h.keep_up_tolerance_ms),
    ] {
        if let Some(v) = v {
            non_negative(&format!("{p}.host.{k}"), v)?;
            if v > 1e9 {
                return Err(ScenarioError::new(
                    format!("{p}.host.{k}"),
                    "must be <= 1e9",
                ));
            }
        }
    }
    for (k, v) in [
        ("send_buffer_bytes", h.send_buffer_bytes),
        ("receive_buffer_bytes", h.receive_buffer_bytes),
        (
            "adapter_receive_buffer_bytes",
            h.adapter_receive_buffer_bytes,
        ),
    ] {
        if let Some(v) = v {
            positive_int(&format!("{p}.host.{k}"), v)?;
        }
    }
    Ok(())
}

/// Frame-aware discard: the EPD threshold is given exactly when EPD is on, and fits the buffer.
fn validate_discard(p: &str, n: &NodeSpec) -> Res<()> {
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
    Ok(())
}

/// Each category's buffer of a `class_buffer_cells` table at `path`.
fn class_buffers(path: &str, cb: &Option<ClassBuffers>) -> Res<()> {
    if let Some(cb) = cb {
        for (cat, v) in cb.entries() {
            if let Some(v) = v {
                positive_int(&format!("{path}.{}", cat.name()), v)?;
            }
        }
    }
    Ok(())
}

/// The scheduler's per-class weights and rates, and the priority order of the categories.
fn validate_scheduling(p: &str, n: &NodeSpec) -> Res<()> {
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
    Ok(())
}

/// The output ports (`nodes[].ports`) and shared buffers (`nodes[].shared_buffers`) of every
/// node, each of which must name a neighbour over a link (`adj`: both directions of each link).
pub(crate) fn validate_ports(sc: &Scenario, adj: &BTreeSet<(&str, &str)>) -> Res<()> {
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
                validate_port_abr(&pp, a)?;
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
    Ok(())
}
