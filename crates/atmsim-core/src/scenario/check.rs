//! Semantic checks of a scenario. [`validate`] is the top: it runs the checks of each topic in
//! their order and returns the first error with its key path. The topics have a file each:
//! `check_nodes` (nodes, their host model, ports and shared buffers), `check_links`,
//! `check_connection` (connections: route, contract, UPC, QoS, transports; bundles), with
//! `check_source` (traffic sources) and `check_abr` (ABR switch schemes and end-system
//! parameters), `check_video`, `check_calls`, `check_cac` (CAC settings and the admission of
//! permanent connections) and `check_fabric`; they share the helpers of `check_util`, the lowest
//! file. No topic file uses this one.

use super::check_cac::validate_permanent_cac;
use super::check_calls::validate_calls;
use super::check_connection::{validate_bundles, validate_connections};
use super::check_links::validate_links;
use super::check_nodes::{validate_nodes, validate_ports};
use super::check_util::{non_negative, positive, Res, ScenarioError};
use super::check_trace::validate_trace;
use super::check_video::validate_video;
use super::Scenario;

/// Semantic checks: ranges, names, routes. Returns the first error found, with its key path.
pub fn validate(sc: &Scenario) -> Res<()> {
    validate_run(sc)?;
    let kinds = validate_nodes(sc)?;
    let adj = validate_links(sc, &kinds)?;
    validate_ports(sc, &adj)?;
    let mut conn_names = validate_connections(sc, &kinds, &adj)?;
    validate_video(sc)?;
    validate_bundles(sc, &conn_names)?;
    validate_calls(sc, &kinds, &adj, &mut conn_names)?;
    // last, as the built network would: permanent connections must fit the CAC ports
    validate_permanent_cac(sc)?;
    validate_trace(sc)?;
    Ok(())
}

/// The description and the run settings (`run`).
fn validate_run(sc: &Scenario) -> Res<()> {
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
    Ok(())
}
