//! The scenario file model: serde structures with defaults and documentation, strict parsing
//! (unknown keys are errors), semantic validation with key paths, and the JSON Schema export.
//!
//! Every key's name, documentation, default and range live here, once. A key whose absence
//! means a fixed value is a plain field with that value as its serde default, so the exported
//! schema (`atmsim schema`) shows it; a key whose absence means something else (a value derived
//! from other keys or from the network, "unlimited", "none") is an `Option` whose doc comment
//! says what absence means. The builder reads the values; it adds no defaults of its own.
//! Validation ([`validate`]) needs no network: it checks everything a run could refuse,
//! admission of permanent connections by CAC included.
//!
//! The schema is defined here once. The Python front end reads TOML, resolves `extends` and
//! `--set`, and hands the merged document to [`parse`] as JSON; every error comes back as a
//! [`ScenarioError`] with a key path such as `connections[3].source.rate_mbps`.
//!
//! This file holds parsing and the schema export, the top of the module: the other files use
//! nothing of it but the re-exports. The root of a document ([`Scenario`], [`RunSpec`]) is in
//! `root`, and the sections of a scenario have one file each (`topology`: nodes, ports, links;
//! `category`: the service categories; `connection`: connections, contracts, UPC, QoS; `abr`:
//! ABR switch schemes and end-system parameters; `source`: traffic sources; `calls`: switched
//! calls and CAC; `fabric`, `host`, `video`, `xtpx`, `workload_spec`: the rest). The semantic
//! checks live in `check`, which calls one file per topic (`check_nodes`, `check_links`,
//! `check_connection`, `check_source`, `check_abr`, `check_video`, `check_calls`, `check_cac`,
//! `check_fabric`); they share the error type, the small numeric checkers and the name rules of
//! `check_util`, which uses no other file. Every type is re-exported here, so
//! `crate::scenario::X` names it whatever file it is in.

mod abr;
mod calls;
mod category;
mod check;
mod check_abr;
mod check_cac;
mod check_calls;
mod check_connection;
mod check_fabric;
mod check_links;
mod check_nodes;
mod check_resources;
mod check_shape;
mod check_source;
mod check_util;
mod check_video;
mod connection;
mod echo;
mod fabric;
pub mod host;
mod root;
mod run_trace;
mod check_trace;
mod source;
mod topology;
mod video;
pub mod workload;
pub mod workload_parse;
mod workload_spec;
mod xtpx;

pub use abr::*;
pub use run_trace::*;
pub use calls::*;
pub use category::*;
pub use check::validate;
pub(crate) use check_cac::{admit_permanent, permanent_reservation};
pub use check_resources::{estimate, memory_limit, Estimate, SLICE_ROWS};
pub use check_util::{compact, ScenarioError};
pub(crate) use check_util::{non_negative, positive, positive_int, Res};
pub use connection::*;
pub use echo::*;
pub use fabric::*;
pub use host::{HostPreset, HostSpec};
pub use root::*;
pub use source::*;
pub use topology::*;
pub use video::*;
pub use workload_spec::*;
pub use xtpx::*;

/// Parse a scenario from JSON text: the shape against the schema (tables where tables are
/// meant, integers, nesting), then unknown keys and wrong types with their path, the semantic
/// checks of [`validate`] and every number within the schema's range, and the resource estimate
/// against the memory limit ([`estimate`], [`memory_limit`]).
///
/// A valid document is read straight from its text ([`parse_text`]); any other goes through
/// the document tree ([`parse_tree`]), which names its error as before.
pub fn parse(json: &str) -> Res<Scenario> {
    let text = parse_text(json);
    // the crate's tests hold both paths to it on every document they parse
    #[cfg(test)]
    same_as_tree(json, &text);
    text.map_or_else(|| parse_tree(json), Ok)
}

/// Panics unless [`parse_text`]'s answer is [`parse_tree`]'s: the same scenario (every field,
/// compared through `Debug`), or `None` where the tree path refuses the document.
#[cfg(test)]
pub(crate) fn same_as_tree(json: &str, text: &Option<Scenario>) {
    match (text, parse_tree(json)) {
        (Some(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{json}"),
        (Some(_), Err(e)) => panic!("read from the text, refused by the tree: {e}: {json}"),
        (None, _) => {}
    }
}

/// The scenario read from the text without a document tree (issue 13: the tree was the peak
/// memory of building a network of 15,000 VCs), or `None` if any check fails.
///
/// Exactly [`parse_tree`]'s scenario whenever it returns one: the text walk
/// ([`check_shape::text_passes`]) passes only documents whose every value passes the tree's
/// shape and range walks, and serde reads the same structs from the text as from the tree
/// (the same number parser, every struct field set by its own key, whatever the key order).
/// The one difference, a key written twice (the tree keeps the last; a struct read from the text
/// refuses it), fails here and takes the tree path. Every error, of whatever kind, is left to
/// [`parse_tree`], so the messages and their precedence are the tree path's own: a document
/// refused here costs a second reading, which only a bad document pays.
fn parse_text(json: &str) -> Option<Scenario> {
    if !check_shape::text_passes(json) {
        return None;
    }
    let sc: Scenario = serde_json::from_str(json).ok()?;
    validate(&sc).ok()?;
    check_resources::check(&sc).ok()?;
    Some(sc)
}

/// [`parse`] through the document tree: every check in its order, the first error named.
fn parse_tree(json: &str) -> Res<Scenario> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| {
        ScenarioError::new(
            "",
            format!(
                "not a valid document: {}",
                clean_serde_message(&e.to_string())
            ),
        )
    })?;
    check_shape::shape(&value)?;
    // the range check reads the document tree, which the typed deserialization below consumes
    // (it frees the tree as it goes, so the tree and the scenario are not both whole in memory
    // at once: issue 13, memory per VC); its result is used after the semantic checks, as before
    let range = check_shape::ranges(&value);
    let sc: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let message = clean_serde_message(&e.inner().to_string());
        let path = if path == "." {
            // a key missing at the top level: name it (below, the table's path names it)
            let missing = message.strip_prefix("missing field `");
            missing
                .and_then(|m| m.split('`').next())
                .unwrap_or("")
                .to_string()
        } else {
            path
        };
        ScenarioError::new(path, message)
    })?;
    // the semantic checks' messages are the more specific, unless a value out of its range
    // elsewhere is what upset them (a link rate of 1e-300 makes an ABR PCR derived from it
    // wrong): then the range error names the key to change
    match (validate(&sc), range) {
        (Err(semantic), Err(range)) if range.path != semantic.path => return Err(range),
        (Err(semantic), _) => return Err(semantic),
        (Ok(()), range) => range?,
    }
    check_resources::check(&sc)?;
    Ok(sc)
}

fn clean_serde_message(m: &str) -> String {
    // serde_json appends " at line L column C" (of the generated JSON, meaningless to users)
    match m.rfind(" at line ") {
        Some(i) => m[..i].to_string(),
        None => m.to_string(),
    }
}

/// The JSON Schema of the scenario format.
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Scenario)).expect("schema serializes")
}

#[cfg(test)]
pub(crate) mod tests;
