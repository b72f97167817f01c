//! Semantic checks of one connection or call template: its route, source, traffic contract,
//! UPC, QoS and adaptive proposal (seed 001), and its ABR end-system parameters (TM 4.0
//! section 5.10 ranges).

use super::check_source::validate_source;
use super::check_util::names;
use super::{
    non_negative, positive, positive_int, AbrSpec, Category, ConnectionSpec, NodeKind, QosSpec,
    Res, Scenario, ScenarioError, SourceKind,
};
use std::collections::{BTreeMap, BTreeSet};

/// Route, source, contract and ABR checks of one connection (or call template) at path `p`.
pub(crate) fn validate_connection(
    p: &str,
    c: &ConnectionSpec,
    sc: &Scenario,
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
    validate_source(&format!("{p}.source"), &c.source)?;
    validate_contract(p, c)?;
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
        if c.abr.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.abr"),
                "XTPX paces itself by rate control; XTPX over ABR is not supported",
            ));
        }
        if c.reverse_source.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.reverse_source"),
                "an XTPX connection's reverse direction carries its status reports",
            ));
        }
    }
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
            if c.source.kind == SourceKind::Persistent && c.source.peak_mbps.is_some() {
                return Err(ScenarioError::new(
                    format!("{p}.source.peak_mbps"),
                    "an ABR source sends at its ACR; set abr.pcr_mbps instead",
                ));
            }
            if c.bidirectional {
                // both directions under ABR control, each end also the other's destination
                if c.source.kind == SourceKind::Tcp
                    || c.reverse_source
                        .as_ref()
                        .is_some_and(|r| r.kind == SourceKind::Tcp)
                {
                    return Err(ScenarioError::new(
                        format!("{p}.bidirectional"),
                        "TCP over ABR uses the reverse direction for its ACKs; a bidirectional ABR connection carries persistent, cbr, onoff, mpeg2 or none sources",
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
                        format!("ABR connection \"{}\" crosses port {}->{} which has no ABR scheme; set scheme = \"erica\", \"erica+\", \"efci\", \"rr\" or \"none\"", c.name, c.route[k], c.route[k + 1]),
                    ));
                }
            }
        }
        (None, _) => {}
    }
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
    if c.source.kind == SourceKind::Workload {
        if c.abr.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.abr"),
                "a workload runs over a plain (non-ABR) connection",
            ));
        }
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
        if c.abr.is_some() && c.source.bundle > 1 {
            return Err(ScenarioError::new(
                format!("{p}.source.bundle"),
                "bundles of TCP connections over one ABR source are not supported: the ABR source paces one frame stream",
            ));
        }
        if c.abr.is_some() {
            for k in 1..c.route.len() - 1 {
                if sc
                    .nodes
                    .iter()
                    .find(|n| n.name == c.route[k])
                    .and_then(|n| n.abr.as_ref())
                    .is_some_and(|a| a.vsvd)
                {
                    return Err(ScenarioError::new(format!("{p}.route"), format!("TCP over ABR through a VS/VD switch (\"{}\") is not supported: the ACKs would end at the virtual source", c.route[k])));
                }
            }
        }
    }
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
