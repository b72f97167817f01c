//! Semantic checks of the switched calls (`calls[]`): each call's connection template, as a
//! connection's (`check_connection`), and what a call adds (a contract for CAC, arrivals, holding
//! times, a CAC switch on the route).

use super::check_connection::validate_connection;
use super::check_util::{check_name, non_negative, positive, Res, ScenarioError};
use super::{CallSpec, NodeKind, Scenario, SourceKind};
use std::collections::{BTreeMap, BTreeSet};

/// Every call in file order; a call's connection name joins `conn_names` (those of the
/// connections), where it must be new.
pub(crate) fn validate_calls<'a>(
    sc: &'a Scenario,
    kinds: &BTreeMap<&str, NodeKind>,
    adj: &BTreeSet<(&str, &str)>,
    conn_names: &mut BTreeSet<&'a str>,
) -> Res<()> {
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
        validate_connection(&format!("{p}.connection"), c, sc, kinds, adj)?;
        if c.propose_contract.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.connection.propose_contract"),
                "the adaptive proposal monitors permanent connections only",
            ));
        }
        validate_call(&p, call, sc)?;
    }
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
            SourceKind::Tcp | SourceKind::Xtpx | SourceKind::Workload | SourceKind::Echo
        )
    {
        return Err(ScenarioError::new(
            format!("{p}.connection"),
            "calls are one-way non-ABR connections of cell-level sources for now",
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
