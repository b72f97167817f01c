//! Checks of the document against the exported JSON Schema ([`super::json_schema`]), walked
//! once over the JSON value, so the schema is the one place that says what a key takes:
//!
//! - [`shape`], before serde reads the document: a table where a table is meant (serde would
//!   read an array positionally into a struct: `run = [1, 2]` would run with seed 2), an
//!   integer where an integer is meant (a float such as `2^64` read back as `1.8e19` is named
//!   as an integer out of range, not as a float), and at most [`MAX_DEPTH`] levels of nesting;
//! - [`ranges`], with the semantic checks of [`super::validate`] (whose messages are the more
//!   specific for the same key; a value out of range elsewhere is named first): every number
//!   within the `minimum` / `maximum` that the scenario structs declare
//!   with `#[schemars(range(..))]` (the ranges the models survive and that make physical sense;
//!   `atmsim schema` shows them).

use super::check_util::{compact, Res, ScenarioError};
use super::Scenario;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;
use std::sync::OnceLock;

/// Deepest nesting of tables and arrays a scenario may use (the deepest real key, a source
/// inside a connection inside the document, is 4 levels down).
pub(crate) const MAX_DEPTH: usize = 32;

// the same checks walked over the document's text (no tree): `super::parse`'s way for a valid
// document
#[path = "check_text.rs"]
mod text;
pub(crate) use text::text_passes;

fn root() -> &'static Value {
    static ROOT: OnceLock<Value> = OnceLock::new();
    ROOT.get_or_init(|| {
        serde_json::to_value(schemars::schema_for!(Scenario)).expect("schema serializes")
    })
}

/// What the walk needs of a schema node: its alternatives ([`alternatives`]) and what follows
/// from them, worked out once per node.
#[derive(Default)]
struct NodeInfo {
    alts: Vec<&'static Value>,
    /// Every alternative is a table (and there is one): an array here is refused.
    tables_only: bool,
    /// The schema of an array's items.
    item: Option<&'static Value>,
    /// The rule of a number here.
    number: Option<NumberRule>,
}

/// The first alternative that takes a number: integer only, its bounds, an unsigned 64-bit
/// integer.
#[derive(Clone, Copy)]
struct NumberRule {
    integer: bool,
    lo: Option<f64>,
    hi: Option<f64>,
    uint64: bool,
}

impl NodeInfo {
    fn new(s: Option<&'static Value>) -> Self {
        let mut alts = Vec::new();
        if let Some(s) = s {
            alternatives(s, &mut alts, 0);
        }
        let objs: Vec<&Map<String, Value>> = alts.iter().filter_map(|a| a.as_object()).collect();
        let number = objs
            .iter()
            .find(|o| {
                let t = types(o);
                t.contains(&"integer") || t.contains(&"number")
            })
            .map(|o| NumberRule {
                integer: types(o).contains(&"integer") && !types(o).contains(&"number"),
                lo: o.get("minimum").and_then(Value::as_f64),
                hi: o.get("maximum").and_then(Value::as_f64),
                uint64: o.get("format").and_then(Value::as_str) == Some("uint64"),
            });
        NodeInfo {
            tables_only: !objs.is_empty() && objs.iter().all(|o| is_table(o)),
            item: items(&alts),
            number,
            alts,
        }
    }
}

/// The schema nodes met so far, by node: a document walks the same few nodes once per
/// connection, node or link (issue 13: resolving them anew each time was two thirds of
/// building a network of 15,000 connections). Both walks use it: the tree's here, the text's
/// (`check_text.rs`), which holds it shared.
#[derive(Default)]
struct Memo(RefCell<HashMap<*const Value, Rc<NodeInfo>>>);

impl Memo {
    fn node(&self, s: Option<&'static Value>) -> Rc<NodeInfo> {
        let at = s.map_or(std::ptr::null(), |s| s as *const Value);
        self.0
            .borrow_mut()
            .entry(at)
            .or_insert_with(|| Rc::new(NodeInfo::new(s)))
            .clone()
    }
}

/// The non-null alternatives a schema allows, `$ref`, `anyOf`, `oneOf` and `allOf` resolved.
fn alternatives<'a>(s: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    if depth > 16 {
        return;
    }
    let Some(obj) = s.as_object() else { return };
    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
        if let Some(target) = resolve(r) {
            alternatives(target, out, depth + 1);
        }
    }
    let mut nested = false;
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(list) = obj.get(key).and_then(Value::as_array) {
            nested = true;
            for a in list {
                alternatives(a, out, depth + 1);
            }
        }
    }
    let own =
        obj.contains_key("type") || obj.contains_key("properties") || obj.contains_key("items");
    if (own || !nested) && !obj.contains_key("$ref") && types(obj) != ["null"] {
        out.push(s);
    }
}

fn resolve(r: &str) -> Option<&'static Value> {
    let mut node = root();
    for part in r.strip_prefix("#/")?.split('/') {
        node = node.get(part)?;
    }
    Some(node)
}

fn types(obj: &Map<String, Value>) -> Vec<&str> {
    match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

fn is_table(obj: &Map<String, Value>) -> bool {
    types(obj).contains(&"object") || obj.contains_key("properties")
}

/// The schema of `key` in a table allowed by any of `alts`.
fn property<'a>(alts: &[&'a Value], key: &str) -> Option<&'a Value> {
    alts.iter().find_map(|a| {
        let obj = a.as_object()?;
        obj.get("properties")
            .and_then(|p| p.get(key))
            .or_else(|| obj.get("additionalProperties").filter(|v| v.is_object()))
    })
}

fn items<'a>(alts: &[&'a Value]) -> Option<&'a Value> {
    alts.iter()
        .find_map(|a| a.get("items").filter(|v| v.is_object()))
}

#[derive(Clone, Copy, PartialEq)]
enum Pass {
    Shape,
    Ranges,
}

/// Tables where tables are meant, integers where integers are meant, nesting depth.
pub(crate) fn shape(doc: &Value) -> Res<()> {
    walk_document(doc, Pass::Shape)
}

/// Every number within its declared `minimum` / `maximum`.
pub(crate) fn ranges(doc: &Value) -> Res<()> {
    walk_document(doc, Pass::Ranges)
}

fn walk_document(doc: &Value, pass: Pass) -> Res<()> {
    walk(
        doc,
        Some(root()),
        &mut String::new(),
        0,
        pass,
        &Memo::default(),
    )
}

fn walk(
    v: &Value,
    schema: Option<&'static Value>,
    path: &mut String,
    depth: usize,
    pass: Pass,
    memo: &Memo,
) -> Res<()> {
    if depth > MAX_DEPTH {
        return Err(ScenarioError::new(
            path.clone(),
            format!("nested too deeply (at most {MAX_DEPTH} levels of tables and arrays)"),
        ));
    }
    let node = memo.node(schema);
    match v {
        Value::Array(list) => {
            if pass == Pass::Shape && node.tables_only {
                return Err(ScenarioError::new(
                    path.clone(),
                    "must be a table (key = value pairs), got an array",
                ));
            }
            for (i, e) in list.iter().enumerate() {
                let len = path.len();
                write!(path, "[{i}]").expect("a String takes any text");
                walk(e, node.item, path, depth + 1, pass, memo)?;
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            for (k, e) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                walk(e, property(&node.alts, k), path, depth + 1, pass, memo)?;
                path.truncate(len);
            }
        }
        Value::Number(n) => {
            if let Some(rule) = &node.number {
                number(n, rule, path, pass)?
            }
        }
        _ => {}
    }
    Ok(())
}

fn number(n: &serde_json::Number, rule: &NumberRule, path: &str, pass: Pass) -> Res<()> {
    let NumberRule {
        integer,
        lo,
        hi,
        uint64,
    } = *rule;
    let x = n.as_f64().unwrap_or(f64::NAN);
    match pass {
        Pass::Shape => {
            if integer && !(n.is_i64() || n.is_u64()) {
                let range = match (lo, hi) {
                    (Some(lo), Some(hi)) => format!(" in {}..={}", int_text(lo), int_text(hi)),
                    _ if uint64 => {
                        format!(" in 0..={}", u64::MAX)
                    }
                    _ => String::new(),
                };
                let what = if x.fract() == 0.0 {
                    "an integer out of range"
                } else {
                    "a fraction"
                };
                return Err(ScenarioError::new(
                    path,
                    format!("must be an integer{range}, got {what} ({})", compact(x)),
                ));
            }
        }
        Pass::Ranges => {
            let below = lo.is_some_and(|lo| x < lo);
            let above = hi.is_some_and(|hi| x > hi);
            if below || above {
                let text = |b: f64| if integer { int_text(b) } else { compact(b) };
                let allowed = match (lo, hi) {
                    (Some(lo), Some(hi)) => format!("in [{}, {}]", text(lo), text(hi)),
                    (Some(lo), None) => format!(">= {}", text(lo)),
                    (None, Some(hi)) => format!("<= {}", text(hi)),
                    (None, None) => unreachable!("a bound was crossed"),
                };
                return Err(ScenarioError::new(
                    path,
                    format!("must be {allowed} (the schema's range), got {}", compact(x)),
                ));
            }
        }
    }
    Ok(())
}

fn int_text(v: f64) -> String {
    if v.abs() < 1e19 {
        format!("{}", v as i128)
    } else {
        compact(v)
    }
}
