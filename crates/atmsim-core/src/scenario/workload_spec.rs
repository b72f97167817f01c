//! `source.workload`: a workload script run over K transport connections bundled on the VC
//! (`source.kind = "workload"`, docs/workloads.md), its keys and their check.

use super::workload_parse::parse;
use super::{Res, ScenarioError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The transport the workload runs over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadTransport {
    /// TCP with the connection's `source.tcp` parameters (both directions).
    #[default]
    Tcp,
    /// XTPX with the connection's `source.xtpx` parameters (both directions; seed 001 section
    /// 5.2).
    Xtpx,
}

/// When a transport connection's congestion window starts anew.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RestartSpec {
    /// At every run (default): each run as on a freshly established connection (slow start).
    #[default]
    Run,
    /// Never: one connection per member for the whole script.
    Never,
}

/// What the sender does to its window when the application writes after an idle period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IdleRestartSpec {
    /// BSD (default): idle for at least one RTO, the window goes back to the initial window.
    #[default]
    Rto,
    /// After any idle period.
    Always,
    /// Keep the window.
    Never,
}

/// `source.workload`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// The script (grammar in docs/workloads.md); required unless `file` is given.
    #[serde(default)]
    pub script: Option<String>,
    /// A file holding the script, relative to the scenario file; read by the front end
    /// (`atmsim`, the Python API) into `script`. Absent: the script is `script`.
    #[serde(default)]
    pub file: Option<String>,
    /// "tcp" (default) or "xtpx": the transport of every connection, with the parameters of
    /// `source.tcp` or `source.xtpx`.
    #[serde(default)]
    pub transport: WorkloadTransport,
    /// Transport connections on the VC (1..=1024; at least the largest parallel group).
    /// Absent: the largest parallel group of the script.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1024))]
    pub connections: Option<i64>,
    /// "run" (default) or "never": whether each run starts with a fresh congestion window.
    #[serde(default)]
    pub restart: RestartSpec,
    /// "rto" (default, BSD), "always" or "never": the window after an idle period.
    #[serde(default)]
    pub idle_restart: IdleRestartSpec,
    /// Bytes of the control messages that start a bulk_get run and end a bulk_put run
    /// (1..=65535, default 16).
    #[serde(default = "default_control_bytes")]
    #[schemars(range(min = 1, max = 65535))]
    pub control_bytes: i64,
}

pub(crate) fn default_control_bytes() -> i64 {
    16
}

impl WorkloadSpec {
    /// The parsed script (validated).
    pub fn parsed(&self) -> super::workload::Script {
        parse(self.script.as_deref().unwrap_or("")).expect("validated workload script")
    }
    /// The number of transport connections.
    pub fn connections(&self, script: &super::workload::Script) -> usize {
        self.connections
            .map(|k| k as usize)
            .unwrap_or_else(|| script.max_parallel())
    }
}

/// Check `source.workload` at key path `p`.
pub(crate) fn validate_workload(p: &str, w: &WorkloadSpec) -> Res<()> {
    if w.file.is_some() {
        return Err(ScenarioError::new(
            format!("{p}.file"),
            "is read by the front end (atmsim, the Python API), which puts the file's text in script; give script here",
        ));
    }
    let Some(text) = &w.script else {
        return Err(ScenarioError::new(
            format!("{p}.script"),
            "required: the workload script (or file, through the front end)",
        ));
    };
    let script =
        parse(text).map_err(|e| ScenarioError::new(format!("{p}.script"), e.to_string()))?;
    let need = script.max_parallel();
    if let Some(k) = w.connections {
        if !(1..=1024).contains(&k) {
            return Err(ScenarioError::new(
                format!("{p}.connections"),
                format!("must be an integer in 1..=1024, got {k}"),
            ));
        }
        if (k as usize) < need {
            return Err(ScenarioError::new(
                format!("{p}.connections"),
                format!("the script runs {need} connections at once (its largest parallel group); got {k}"),
            ));
        }
    } else if need > 1024 {
        return Err(ScenarioError::new(
            format!("{p}.script"),
            format!("a parallel group of {need} members: at most 1024 connections on a VC"),
        ));
    }
    if !(1..=65535).contains(&w.control_bytes) {
        return Err(ScenarioError::new(
            format!("{p}.control_bytes"),
            format!("must be an integer in 1..=65535, got {}", w.control_bytes),
        ));
    }
    Ok(())
}
