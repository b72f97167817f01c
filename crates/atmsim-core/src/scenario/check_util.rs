//! The lowest file of the scenario checks, which uses no other file of `scenario/`: the error
//! every check returns ([`ScenarioError`], [`Res`]) and how its message writes numbers
//! ([`compact`]), the range checks the others share ([`positive`], [`non_negative`],
//! [`positive_int`]), and the rules and messages of names ([`check_name`], [`names`]).

use std::collections::BTreeMap;

/// A scenario error: the key path and what is wrong or allowed there.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    /// One line: control characters (a newline inside a quoted value or key) are escaped, and
    /// numbers longer than 20 characters in `message` are written compactly (`1e308`).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: one_line(&path.into()),
            message: one_line(&compact_numbers(&message.into())),
        }
    }
}

fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

pub(crate) type Res<T> = Result<T, ScenarioError>;

/// A number in at most about 20 characters: `1e308`, `1e-300`, `0.25`, `4294967295`.
pub fn compact(v: f64) -> String {
    let plain = format!("{v}");
    let tiny = v != 0.0 && v.abs() < 1e-4;
    if plain.len() <= 12 && !tiny {
        plain
    } else {
        format!("{v:e}")
    }
}

/// `message` with every number longer than 20 characters (Rust prints `1e308` as 309 digits)
/// written as [`compact`] does.
pub(crate) fn compact_numbers(message: &str) -> String {
    let b = message.as_bytes();
    let mut out = String::with_capacity(message.len());
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            let tok = &message[start..i];
            let digits = tok.bytes().filter(u8::is_ascii_digit).count();
            match tok.trim_end_matches('.').parse::<f64>() {
                Ok(x) if digits > 20 => {
                    out.push_str(&format!("{x:e}"));
                    if tok.ends_with('.') {
                        out.push('.');
                    }
                }
                _ => out.push_str(tok),
            }
        } else {
            let ch = message[i..].chars().next().expect("in bounds");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

pub(crate) fn positive(path: &str, v: f64) -> Res<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("must be a number > 0, got {v}"),
        ))
    }
}

pub(crate) fn non_negative(path: &str, v: f64) -> Res<()> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("must be a number >= 0, got {v}"),
        ))
    }
}

pub(crate) fn positive_int(path: &str, v: i64) -> Res<()> {
    if v > 0 && v <= u32::MAX as i64 {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("must be an integer in 1..={}, got {v}", u32::MAX),
        ))
    }
}

/// Longest name of a node or a connection.
pub const NAME_MAX_CHARS: usize = 64;

/// The name syntax of nodes, connections and call classes (`docs/scenarios.md`, "Names"):
/// 1 to 64 characters, letters and digits (any script), `_`, `-`, `.`, `+`, `:`, `/` and `@`,
/// beginning with a letter, a digit or `_`; never `->` (ports are named `NODE->NEIGHBOUR`), and
/// for connections never the suffix `.reverse` (the reverse direction of a bidirectional
/// connection is `NAME.reverse`). `#` is reserved for the calls of a class (`NAME#k`);
/// spaces, quotes, brackets, `=` and `,` would make key paths and port names ambiguous.
pub(crate) fn check_name(path: &str, name: &str, connection: bool) -> Res<()> {
    let allowed = "letters, digits, _ - . + : / @ (1 to 64, first a letter, digit or _)";
    let bad = |why: String| {
        Err(ScenarioError::new(
            path,
            format!("{why}; a name has {allowed}"),
        ))
    };
    if name.is_empty() {
        return bad("must not be empty".into());
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return bad(format!("is {} characters long", name.chars().count()));
    }
    if let Some(ch) = name
        .chars()
        .find(|&ch| !(ch.is_alphanumeric() || "_-.+:/@".contains(ch)))
    {
        return bad(format!("must not contain {ch:?}"));
    }
    let first = name.chars().next().expect("not empty");
    if !(first.is_alphanumeric() || first == '_') {
        return bad(format!("must not begin with {first:?}"));
    }
    if name.contains("->") {
        return bad("must not contain \"->\" (ports are named NODE->NEIGHBOUR)".into());
    }
    if connection && name.ends_with(".reverse") {
        return Err(ScenarioError::new(
            path,
            "must not end in \".reverse\" (reserved: a bidirectional connection's reverse direction is NAME.reverse)",
        ));
    }
    Ok(())
}

/// The keys of `kinds` (node names) for an error message: at most 12, then how many in all.
pub(crate) fn names<V>(kinds: &BTreeMap<&str, V>) -> String {
    let v: Vec<&str> = kinds.keys().copied().collect();
    if v.len() > 12 {
        format!("{}, ... ({} in all)", v[..12].join(", "), v.len())
    } else {
        v.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_numbers_are_compact() {
        let big = format!("got {}", 1e308);
        assert!(big.len() > 300);
        assert_eq!(compact_numbers(&big), "got 1e308");
        assert_eq!(
            compact_numbers(&format!("got {}, ok", 1e-300)),
            "got 1e-300, ok"
        );
        assert_eq!(
            compact_numbers("in 0..=18446744073709551615"),
            "in 0..=18446744073709551615"
        );
        assert_eq!(compact(0.25), "0.25");
        assert_eq!(compact(1e-300), "1e-300");
        assert_eq!(compact(1e-9), "1e-9");
        assert_eq!(compact(1e6), "1000000");
        assert_eq!(compact(4294967295.0), "4294967295");
    }
}
