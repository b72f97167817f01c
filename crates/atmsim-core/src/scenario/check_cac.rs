//! Admission of permanent connections by CAC (seed 001 section 6.2), checked from the specs
//! alone: a permanent connection with a contract holds its share of every CAC port on its route
//! for the whole run, so a scenario whose permanent connections do not fit is refused before any
//! network is built. The builder admits them again through the same functions to record what
//! each port holds, so both say the same thing.

use super::check_util::{positive, Res, ScenarioError};
use super::{
    default_cac_buffer_cells, default_cac_clr, CacPolicySpec, CacSpec, Category, ConnectionSpec,
    NodeKind, Scenario,
};
use crate::cac::PortCac;
use crate::policing::Contract;
use std::collections::BTreeMap;

/// What a permanent connection reserves at CAC ports, and the key that sets it. ABR connections
/// are admitted on their MCR whatever their contract says (TM 4.0 section 5.10: the network
/// commits to MCR only); UBR carries no commitment and reserves nothing (its contract's PCR is
/// for policing); other categories reserve their contract, if they have one.
pub(crate) fn permanent_reservation(c: &ConnectionSpec) -> Option<(Contract, &'static str)> {
    match (c.category, &c.contract, &c.abr) {
        (Category::Abr, _, Some(a)) if a.mcr_mbps > 0.0 => {
            Some((Contract::cbr(a.mcr_mbps, 0), "abr.mcr_mbps"))
        }
        (Category::Abr | Category::Ubr, _, _) => None,
        (_, Some(k), _) => Some((k.contract(), "contract")),
        _ => None,
    }
}

/// Admit `connections[i]`'s `contract` (set by `key`) at the CAC of port `port` ("A->B"), or
/// the error that names the connection's key and the port.
pub(crate) fn admit_permanent(
    cac: &mut PortCac,
    contract: &Contract,
    i: usize,
    key: &str,
    port: &str,
) -> Res<()> {
    let (need, free) = (
        cac.policy().bandwidth(contract),
        cac.available_bps() as f64 / 1e6,
    );
    match cac.admit(contract) {
        Some(_held_for_the_run) => Ok(()),
        None => Err(ScenarioError::new(
            format!("connections[{i}].{key}"),
            format!(
                "CAC at port {port} cannot admit it: needs {need:.6} Mb/s, {free:.6} Mb/s free"
            ),
        )),
    }
}

/// Every permanent connection fits the CAC ports on its route, admitted in file order (the
/// connections, then the hops of each route), as the built network admits them.
pub(crate) fn validate_permanent_cac(sc: &Scenario) -> Res<()> {
    // the CAC ports: (switch, neighbour) -> admission state at the link's rate
    let mut ports: BTreeMap<(&str, &str), PortCac> = BTreeMap::new();
    for n in sc.nodes.iter().filter(|n| n.kind == NodeKind::Switch) {
        let Some(spec) = &n.cac else { continue };
        for l in &sc.links {
            let to = if l.a == n.name {
                &l.b
            } else if l.b == n.name {
                &l.a
            } else {
                continue;
            };
            ports.insert(
                (n.name.as_str(), to.as_str()),
                PortCac::new(l.rate_mbps, spec.policy()),
            );
        }
    }
    if ports.is_empty() {
        return Ok(());
    }
    for (i, c) in sc.connections.iter().enumerate() {
        let Some((contract, key)) = permanent_reservation(c) else {
            continue;
        };
        for w in c.route.windows(2) {
            if let Some(cac) = ports.get_mut(&(w[0].as_str(), w[1].as_str())) {
                admit_permanent(cac, &contract, i, key, &format!("{}->{}", w[0], w[1]))?;
            }
        }
    }
    Ok(())
}

/// A switch's CAC settings (`nodes[i].cac`, path `p`).
pub(crate) fn validate_cac(p: &str, c: &CacSpec) -> Res<()> {
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
