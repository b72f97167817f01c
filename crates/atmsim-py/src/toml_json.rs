//! A scenario file's TOML as the JSON text of the same document, for the front end's fast path
//! (issue 27 item 5: a file of many connections read without a Python object per value while
//! parsing). Parsed by `basic_toml` (dtolnay's fork of the `toml` crate's version 0.5: a small
//! tree, tables in the file's order; the format-preserving `toml` 0.8 document took three times
//! the memory and time on 15,000 connections, and `toml` 0.9 on reads TOML 1.1, which tomllib
//! does not), after `plain` turned away what it accepts and TOML 1.0 does not. Anything the fast path does not reproduce exactly gives `None`, and the front end reads
//! the file with `tomllib` as before (so every error message is unchanged): a text that is not
//! TOML, a date or time (tomllib gives Python `datetime` objects, written as `str()` of them), a
//! float that is not finite, tables and arrays nested `MAX_DEPTH` levels deep or more.

use std::fmt::Write;

/// The front end's `scenario.MAX_DEPTH`: a table or array at this depth (the document's own
/// tables at depth 0) is refused by `_check_numbers`, so the fast path leaves it to that check.
pub const MAX_DEPTH: usize = 32;

/// The JSON text of TOML `text`, or None (see the module docs).
pub fn toml_to_json(text: &str) -> Option<String> {
    if !plain(text) {
        return None;
    }
    let doc: Node = basic_toml::from_str(text).ok()?;
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    doc.write(0, &mut out)?;
    Some(out)
}

/// Whether `text` has none of what `basic_toml` (a fork of the `toml` crate's version 0.5, before
/// TOML 1.0) accepts and TOML 1.0 (tomllib) refuses, as far as we found (tests/test_front_end.py
/// holds the cases): a byte-order mark, a control character other than tab, newline and
/// carriage return (DEL included, in a comment as well), a sign before a hexadecimal, octal or
/// binary integer. Conservative: such a text, even inside a string, goes to tomllib.
fn plain(text: &str) -> bool {
    let b = text.as_bytes();
    if text.starts_with('\u{feff}') {
        return false;
    }
    for (i, &c) in b.iter().enumerate() {
        if (c < 0x20 && c != b'\t' && c != b'\n' && c != b'\r') || c == 0x7f {
            return false;
        }
        if (c == b'+' || c == b'-')
            && b.get(i + 1) == Some(&b'0')
            && matches!(b.get(i + 2), Some(b'x' | b'o' | b'b'))
        {
            return false;
        }
    }
    true
}

/// A TOML value as read, tables' keys in the file's order (a tree far smaller than a
/// format-preserving document's).
enum Node {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Array(Vec<Node>),
    Table(Vec<(String, Node)>),
    /// A date or time (tomllib's `datetime` objects: left to it).
    Other,
}

impl<'de> serde::Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a TOML value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Node, E> {
                i64::try_from(v).map(Node::Int).map_err(E::custom)
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Str(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Node, E> {
                Ok(Node::Str(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut v = Vec::new();
                while let Some(e) = a.next_element()? {
                    v.push(e);
                }
                Ok(Node::Array(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut v: Vec<(String, Node)> = Vec::new();
                while let Some(k) = a.next_key::<String>()? {
                    if k.starts_with("$__toml_private") {
                        let _: serde::de::IgnoredAny = a.next_value()?;
                        return Ok(Node::Other);
                    }
                    v.push((k, a.next_value()?));
                }
                Ok(Node::Table(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl Node {
    /// Write the JSON text of this node (at `depth`: the document's own table is at 0).
    fn write(&self, depth: usize, out: &mut String) -> Option<()> {
        match self {
            Node::Str(s) => write_str(s, out),
            Node::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Node::Float(f) => {
                if !f.is_finite() {
                    return None;
                }
                // serde_json writes the shortest text that reads back as the same f64 (ryu),
                // with a ".0" or an exponent, so json.loads gives a float equal to tomllib's
                out.push_str(&serde_json::to_string(f).ok()?);
            }
            Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Node::Other => return None,
            Node::Array(a) => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                out.push('[');
                for (i, e) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    e.write(depth + 1, out)?;
                }
                out.push(']');
            }
            Node::Table(t) => {
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
                    v.write(depth + 1, out)?;
                }
                out.push('}');
            }
        }
        Some(())
    }
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
        let text =
            "b = 1\na = [1.5, -0.0, 1e300, \"x\\n\\\"y\\\"\"]\n[t]\nz = true\ny = { q = 2 }\n";
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
