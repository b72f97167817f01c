//! Checks of a switch's fabric (`nodes[].fabric`): ranges, and the port keys a credit fabric
//! replaces (its output buffer is `output_buffer_cells`, and its outputs never drop).

use super::{non_negative, positive, positive_int, DiscardSpec, FabricSpec, NodeKind, NodeSpec};
use super::{Res, ScenarioError};

/// Checks node `n` (key path `p`, e.g. `nodes[2]`).
pub(crate) fn validate_fabric(p: &str, n: &NodeSpec) -> Res<()> {
    let Some(FabricSpec::Credit(c)) = &n.fabric else {
        if n.fabric.is_some() && n.kind != NodeKind::Switch {
            return Err(ScenarioError::new(
                format!("{p}.fabric"),
                "applies to switches only",
            ));
        }
        return Ok(());
    };
    let f = format!("{p}.fabric");
    if n.kind != NodeKind::Switch {
        return Err(ScenarioError::new(f, "applies to switches only"));
    }
    positive_int(&format!("{f}.input_buffer_cells"), c.input_buffer_cells)?;
    positive_int(&format!("{f}.output_buffer_cells"), c.output_buffer_cells)?;
    if let Some(k) = c.credits {
        positive_int(&format!("{f}.credits"), k)?;
        if k > c.output_buffer_cells {
            return Err(ScenarioError::new(
                format!("{f}.credits"),
                format!(
                    "must not exceed output_buffer_cells ({}), got {k}",
                    c.output_buffer_cells
                ),
            ));
        }
    }
    if c.input_buffer_cells > u32::MAX as i64 / 2 || c.output_buffer_cells > u32::MAX as i64 / 2 {
        return Err(ScenarioError::new(
            format!("{f}.input_buffer_cells"),
            "too large (at most 2^31 cells)",
        ));
    }
    non_negative(&format!("{f}.credit_delay_us"), c.credit_delay_us)?;
    non_negative(&format!("{f}.latency_us"), c.latency_us)?;
    positive(&format!("{f}.bus_mbps"), c.bus_mbps)?;
    if c.bus_mbps < 1e-3 {
        return Err(ScenarioError::new(
            format!("{f}.bus_mbps"),
            "must be at least 0.001",
        ));
    }
    // what the credit fabric replaces, or would let an output drop
    let replaced: [(&str, bool, &str); 8] = [
        (
            "fabric_delay_us",
            n.fabric_delay_us != 0.0,
            "use fabric.latency_us",
        ),
        (
            "buffer_cells",
            n.buffer_cells.is_some(),
            "the output buffer is fabric.output_buffer_cells",
        ),
        (
            "class_buffer_cells",
            n.class_buffer_cells.is_some(),
            "the output buffer is fabric.output_buffer_cells",
        ),
        (
            "shared_buffers",
            !n.shared_buffers.is_empty(),
            "the output buffer is fabric.output_buffer_cells",
        ),
        (
            "clp1_threshold_cells",
            n.clp1_threshold_cells.is_some(),
            "a credit fabric's outputs never drop",
        ),
        (
            "discard",
            n.discard != DiscardSpec::Tail,
            "a credit fabric's outputs never drop",
        ),
        (
            "abr",
            n.abr.is_some(),
            "ABR feedback is not modelled with a credit fabric",
        ),
        (
            "ports",
            n.ports.iter().any(|q| {
                q.buffer_cells.is_some()
                    || q.class_buffer_cells.is_some()
                    || q.clp1_threshold_cells.is_some()
                    || q.abr.is_some()
            }),
            "per-port buffers and ABR are not used with a credit fabric",
        ),
    ];
    for (key, set, why) in replaced {
        if set {
            return Err(ScenarioError::new(
                format!("{p}.{key}"),
                format!("not allowed with fabric.kind = \"credit\" ({why})"),
            ));
        }
    }
    Ok(())
}
