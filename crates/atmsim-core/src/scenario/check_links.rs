//! Semantic checks of the links (`links[]`): their ends, rate, length or delay, impairment, and
//! one link per node pair.

use super::check_util::{names, non_negative, positive, Res, ScenarioError};
use super::{ImpairmentSpec, NodeKind, Scenario};
use std::collections::{BTreeMap, BTreeSet};

/// Every link in file order, between the nodes of `kinds`; returns the adjacency (both
/// directions of each link).
pub(crate) fn validate_links<'a>(
    sc: &'a Scenario,
    kinds: &BTreeMap<&str, NodeKind>,
) -> Res<BTreeSet<(&'a str, &'a str)>> {
    let mut adj: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (i, l) in sc.links.iter().enumerate() {
        let p = format!("links[{i}]");
        for (k, v) in [("a", &l.a), ("b", &l.b)] {
            if !kinds.contains_key(v.as_str()) {
                return Err(ScenarioError::new(
                    format!("{p}.{k}"),
                    format!("unknown node \"{v}\"; nodes are {}", names(kinds)),
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
            validate_impairment(&p, im)?;
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
    Ok(adj)
}

/// `links[i].impairment` (`p` = "links[i]").
fn validate_impairment(p: &str, im: &ImpairmentSpec) -> Res<()> {
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
    Ok(())
}
