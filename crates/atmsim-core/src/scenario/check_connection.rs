//! Semantic checks of the connections (`connections[]`) and of one connection or call template:
//! its name, route, source (`check_source`), traffic contract, UPC, QoS and adaptive proposal
//! (seed 001), its ABR parameters (`check_abr`), the transports each direction carries, and the
//! bundles of adaptive proposals.

use super::check_abr::validate_connection_abr;
use super::check_source::validate_source;
use super::check_util::{
    check_name, names, non_negative, positive, positive_int, Res, ScenarioError,
};
use super::{Category, ConnectionSpec, NodeKind, ProposeSpec, QosSpec, Scenario, SourceKind};
use std::collections::{BTreeMap, BTreeSet};

/// Every connection in file order, between the nodes of `kinds` over the links of `adj`;
/// returns their names.
pub(crate) fn validate_connections<'a>(
    sc: &'a Scenario,
    kinds: &BTreeMap<&str, NodeKind>,
    adj: &BTreeSet<(&str, &str)>,
) -> Res<BTreeSet<&'a str>> {
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
        validate_connection(&p, c, sc, kinds, adj)?;
    }
    Ok(conn_names)
}

/// The adaptive proposals' bundles (`propose_contract.bundle`): a bundle's name is no
/// connection's (`conn_names`), and its connections share their parameters.
pub(crate) fn validate_bundles(sc: &Scenario, conn_names: &BTreeSet<&str>) -> Res<()> {
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
    Ok(())
}

/// Route, source, contract and ABR checks of one connection (or call template) at path `p`.
pub(crate) fn validate_connection(
    p: &str,
    c: &ConnectionSpec,
    sc: &Scenario,
    kinds: &BTreeMap<&str, NodeKind>,
    adj: &BTreeSet<(&str, &str)>,
) -> Res<()> {
    validate_route(p, c, kinds, adj)?;
    validate_source(&format!("{p}.source"), &c.source)?;
    validate_contract(p, c)?;
    validate_xtpx_connection(p, c)?;
    validate_connection_abr(p, c, sc)?;
    validate_transports(p, c)?;
    validate_reverse_source(p, c)
}

/// The route: at least two nodes, hosts at the ends and switches inside, no loop, a link between
/// each two, at most 250 nodes.
fn validate_route(
    p: &str,
    c: &ConnectionSpec,
    kinds: &BTreeMap<&str, NodeKind>,
    adj: &BTreeSet<(&str, &str)>,
) -> Res<()> {
    if c.route.len() < 2 {
        return Err(ScenarioError::new(
            format!("{p}.route"),
            "needs at least two nodes",
        ));
    }
    let mut on_route = BTreeSet::new();
    for (k, n) in c.route.iter().enumerate() {
        // the key path only when there is an error to name (issue 13: a route per connection)
        let rp = || format!("{p}.route[{k}]");
        let Some(kind) = kinds.get(n.as_str()) else {
            return Err(ScenarioError::new(
                rp(),
                format!("unknown node \"{n}\"; nodes are {}", names(kinds)),
            ));
        };
        let end = k == 0 || k == c.route.len() - 1;
        if end && *kind != NodeKind::Host {
            return Err(ScenarioError::new(
                rp(),
                format!("\"{n}\" is a switch; a route starts and ends at a host"),
            ));
        }
        if !end && *kind != NodeKind::Switch {
            return Err(ScenarioError::new(
                rp(),
                format!("\"{n}\" is a host; only switches may be inside a route"),
            ));
        }
        if !on_route.insert(n.as_str()) {
            return Err(ScenarioError::new(
                rp(),
                format!("\"{n}\" appears twice; routes must not loop"),
            ));
        }
        if k > 0 && !adj.contains(&(c.route[k - 1].as_str(), n.as_str())) {
            return Err(ScenarioError::new(
                rp(),
                format!("no link between \"{}\" and \"{n}\"", c.route[k - 1]),
            ));
        }
    }
    if c.route.len() > 250 {
        return Err(ScenarioError::new(
            format!("{p}.route"),
            "at most 250 nodes",
        ));
    }
    Ok(())
}

/// What XTPX leaves out: a reverse source of XTPX data, any reverse source.
fn validate_xtpx_connection(p: &str, c: &ConnectionSpec) -> Res<()> {
    if c.reverse_source
        .as_ref()
        .is_some_and(|r| r.kind == SourceKind::Xtpx)
    {
        return Err(ScenarioError::new(
            format!("{p}.reverse_source.kind"),
            "XTPX data flows one way per connection; the reverse direction carries its status reports",
        ));
    }
    if c.source.kind == SourceKind::Xtpx {
        if c.reverse_source.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.reverse_source"),
                "an XTPX connection's reverse direction carries its status reports",
            ));
        }
    }
    Ok(())
}

/// What the TCP and workload sources ask of the connection: its reverse direction, bundles and
/// a TSDU writer (over ABR: `check_abr`).
fn validate_transports(p: &str, c: &ConnectionSpec) -> Res<()> {
    let reverse_tcp = c
        .reverse_source
        .as_ref()
        .is_some_and(|r| r.kind == SourceKind::Tcp);
    if reverse_tcp && c.source.kind != SourceKind::Tcp {
        return Err(ScenarioError::new(
            format!("{p}.reverse_source.kind"),
            "TCP data on the reverse direction is the other half of a TCP connection: needs source.kind = \"tcp\"",
        ));
    }
    if c.reverse_source.as_ref().is_some_and(|r| r.bundle != 1) {
        return Err(ScenarioError::new(
            format!("{p}.reverse_source.bundle"),
            "a bundle is set on source: each bundled connection carries data both ways",
        ));
    }
    if c.source.kind == SourceKind::Echo {
        let refuse = [
            ("abr", c.abr.is_some()),
            ("reverse_source", c.reverse_source.is_some()),
            ("bidirectional", c.bidirectional),
        ];
        if let Some((k, _)) = refuse.into_iter().find(|r| r.1) {
            return Err(ScenarioError::new(
                format!("{p}.{k}"),
                "an echo runs over a plain (non-ABR) connection whose reverse direction carries the server's responses",
            ));
        }
    }
    if c.source.kind == SourceKind::Workload {
        if c.reverse_source.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.reverse_source"),
                "a workload's reverse direction carries the responder's data and the ACKs; no reverse_source",
            ));
        }
    }
    if c.source.kind == SourceKind::Tcp
        && c.source
            .tcp
            .as_ref()
            .is_some_and(|t| t.tsdu_bytes.is_some())
        && (c.abr.is_some() || reverse_tcp || c.source.bundle > 1)
    {
        return Err(ScenarioError::new(
            format!("{p}.source.tcp.tsdu_bytes"),
            "a TSDU writer runs on one-way, unbundled TCP without ABR",
        ));
    }
    if c.source.kind == SourceKind::Tcp {
        if c.reverse_source.is_some() && !(reverse_tcp && c.abr.is_none()) {
            return Err(ScenarioError::new(
                format!("{p}.reverse_source"),
                "a TCP connection's reverse direction carries its ACKs, or TCP data of its own (reverse_source.kind = \"tcp\", not over ABR)",
            ));
        }
    }
    Ok(())
}

/// The reverse direction's source: only on a bidirectional connection, checked as a source.
fn validate_reverse_source(p: &str, c: &ConnectionSpec) -> Res<()> {
    if let Some(rs) = &c.reverse_source {
        if !c.bidirectional {
            return Err(ScenarioError::new(
                format!("{p}.reverse_source"),
                "needs bidirectional = true",
            ));
        }
        validate_source(&format!("{p}.reverse_source"), rs)?;
    }
    Ok(())
}

fn validate_contract(p: &str, c: &ConnectionSpec) -> Res<()> {
    if let Some(k) = &c.contract {
        let cp = format!("{p}.contract");
        positive(&format!("{cp}.pcr_mbps"), k.pcr_mbps)?;
        non_negative(&format!("{cp}.cdvt_us"), k.cdvt_us)?;
        let vbr = matches!(c.category, Category::RtVbr | Category::NrtVbr);
        match (vbr, k.scr_mbps, k.mbs_cells) {
            (true, None, _) => {
                return Err(ScenarioError::new(
                    format!("{cp}.scr_mbps"),
                    format!("required for category \"{}\"", c.category.name()),
                ))
            }
            (true, _, None) => {
                return Err(ScenarioError::new(
                    format!("{cp}.mbs_cells"),
                    format!("required for category \"{}\"", c.category.name()),
                ))
            }
            (false, Some(_), _) => {
                return Err(ScenarioError::new(
                    format!("{cp}.scr_mbps"),
                    "SCR applies to rt-vbr and nrt-vbr only",
                ))
            }
            (false, _, Some(_)) => {
                return Err(ScenarioError::new(
                    format!("{cp}.mbs_cells"),
                    "MBS applies to rt-vbr and nrt-vbr only",
                ))
            }
            _ => {}
        }
        if let Some(scr) = k.scr_mbps {
            positive(&format!("{cp}.scr_mbps"), scr)?;
            if scr > k.pcr_mbps {
                return Err(ScenarioError::new(
                    format!("{cp}.scr_mbps"),
                    format!("must be <= pcr_mbps ({}), got {scr}", k.pcr_mbps),
                ));
            }
        }
        if let Some(m) = k.mbs_cells {
            if !(1..=u32::MAX as i64).contains(&m) {
                return Err(ScenarioError::new(
                    format!("{cp}.mbs_cells"),
                    format!("must be an integer >= 1, got {m}"),
                ));
            }
        }
    }
    if c.source.shape && c.contract.is_none() {
        return Err(ScenarioError::new(
            format!("{p}.source.shape"),
            "needs a contract to shape to",
        ));
    }
    if c.source.shape && c.abr.is_some() {
        return Err(ScenarioError::new(
            format!("{p}.source.shape"),
            "an ABR source is paced by its ACR; shaping does not apply",
        ));
    }
    if c.upc.is_some() && c.contract.is_none() {
        return Err(ScenarioError::new(
            format!("{p}.upc"),
            "needs a contract to police",
        ));
    }
    if c.upc.is_some() && c.route.len() < 3 {
        return Err(ScenarioError::new(
            format!("{p}.upc"),
            "UPC runs at the first switch; the route has none",
        ));
    }
    if let Some(m) = &c.propose_contract {
        positive(&format!("{p}.propose_contract.window_s"), m.window_s)?;
        non_negative(&format!("{p}.propose_contract.scr_margin"), m.scr_margin)?;
        let v = m.tolerance;
        if !(v.is_finite() && (0.0..1.0).contains(&v)) {
            return Err(ScenarioError::new(
                format!("{p}.propose_contract.tolerance"),
                format!("must be a share in [0, 1), got {v}"),
            ));
        }
    }
    if let Some(q) = &c.qos {
        let qp = format!("{p}.qos");
        if let Some(v) = q.max_ctd_us {
            positive(&format!("{qp}.max_ctd_us"), v)?;
        }
        if let Some(v) = q.cdv_us {
            positive(&format!("{qp}.cdv_us"), v)?;
        }
        if let Some(v) = q.clr {
            if !(0.0..=1.0).contains(&v) {
                return Err(ScenarioError::new(
                    format!("{qp}.clr"),
                    format!("must be in [0, 1], got {v}"),
                ));
            }
        }
        positive_int(&format!("{qp}.secb_block_cells"), q.secb_block_cells)?;
        // checked against the block size when given (the default is taken whatever the size)
        let v = q.secb_max_bad;
        if v != QosSpec::default().secb_max_bad && !(0..=q.secb_block_cells).contains(&v) {
            return Err(ScenarioError::new(
                format!("{qp}.secb_max_bad"),
                "must be in 0..=secb_block_cells",
            ));
        }
    }
    Ok(())
}
