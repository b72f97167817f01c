//! A scenario file's TOML as the JSON text of the same document, for the front end's fast path
//! (issue 27 item 5: a file of many connections read without a Python object per value while
//! parsing). Parsed by the `toml` crate (TOML 1.0, as Python's `tomllib`), tables in the file's
//! order. Anything the fast path does not reproduce exactly gives `None`, and the front end reads
//! the file with `tomllib` as before (so every error message is unchanged): a text that is not
//! TOML, a date or time (tomllib gives Python `datetime` objects, written as `str()` of them), a
//! float that is not finite, tables and arrays nested `MAX_DEPTH` levels deep or more.

use std::fmt::Write;

/// The front end's `scenario.MAX_DEPTH`: a table or array at this depth (the document's own
/// tables at depth 0) is refused by `_check_numbers`, so the fast path leaves it to that check.
pub const MAX_DEPTH: usize = 32;

/// The JSON text of TOML `text`, or None (see the module docs).
pub fn toml_to_json(text: &str) -> Option<String> {
    let table: toml::Table = text.parse().ok()?;
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    write_table(&table, 0, &mut out)?;
    Some(out)
}

fn write_table(t: &toml::Table, depth: usize, out: &mut String) -> Option<()> {
    if depth >= MAX_DEPTH {
        return None;
    }
    out.push('{');
    for (i, (k, v)) in t.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_str(k, out);
        out.push_str(": ");
        write_value(v, depth + 1, out)?;
    }
    out.push('}');
    Some(())
}

fn write_value(v: &toml::Value, depth: usize, out: &mut String) -> Option<()> {
    match v {
        toml::Value::String(s) => write_str(s, out),
        toml::Value::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        toml::Value::Float(f) => {
            if !f.is_finite() {
                return None;
            }
            // serde_json writes the shortest text that reads back as the same f64 (ryu), with a
            // ".0" or an exponent, so json.loads gives a float equal to tomllib's
            out.push_str(&serde_json::to_string(f).ok()?);
        }
        toml::Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        toml::Value::Datetime(_) => return None,
        toml::Value::Array(a) => {
            if depth >= MAX_DEPTH {
                return None;
            }
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(e, depth + 1, out)?;
            }
            out.push(']');
        }
        toml::Value::Table(t) => write_table(t, depth, out)?,
    }
    Some(())
}

fn write_str(s: &str, out: &mut String) {
    // serde_json's escaping: quotes, backslashes and control characters
    out.push_str(&serde_json::to_string(s).expect("a str serializes"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_order() {
        let text = "b = 1\na = [1.5, -0.0, 1e300, \"x\\n\\\"y\\\"\"]\n[t]\nz = true\ny = { q = 2 }\n";
        assert_eq!(
            toml_to_json(text).unwrap(),
            r#"{"b": 1, "a": [1.5, -0.0, 1e300, "x\n\"y\""], "t": {"z": true, "y": {"q": 2}}}"#
        );
    }

    #[test]
    fn what_the_fast_path_leaves_to_tomllib() {
        assert!(toml_to_json("a = ").is_none());
        assert!(toml_to_json("a = inf").is_none());
        assert!(toml_to_json("a = nan").is_none());
        assert!(toml_to_json("a = 1979-05-27T07:32:00Z").is_none());
        let deep = |n: usize| format!("a = {}1{}", "[".repeat(n), "]".repeat(n));
        // the document's keys are at depth 1: an array holding n levels reaches depth n
        assert!(toml_to_json(&deep(MAX_DEPTH - 1)).is_some());
        assert!(toml_to_json(&deep(MAX_DEPTH)).is_none());
    }
}
