//! The parser and printer of workload scripts (the grammar is in [`super::workload`]'s doc).
//!
//! [`parse`] reads a script and checks it; every error carries the 1-based line and column of
//! the token at fault ([`WorkloadError`]). The printer ([`std::fmt::Display`] on [`Script`])
//! writes one statement per line in canonical spelling (`bivalued`, `rr`, `parallel K:`), and
//! its output parses back to the same tree (positions aside; tested with generated trees).
//!
//! The seed's scripts (seed 001 section 12) spell the two-valued distribution `bivalued`,
//! `bivalue`, `bivalve` and `bvalue`, and write `parallel:` without a count; all are accepted.

use super::workload::*;
use std::fmt;

/// A parse or check error at a position of the script.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("line {line}, column {col}: {message}")]
pub struct WorkloadError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64, String),
    Ident(String),
    Punct(char),
    End,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Num(_, s) => format!("number {s}"),
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::End => "the end of the script".into(),
        }
    }
}

fn err<T>(pos: Pos, message: impl Into<String>) -> Result<T, WorkloadError> {
    Err(WorkloadError {
        line: pos.line,
        col: pos.col,
        message: message.into(),
    })
}

fn lex(text: &str) -> Result<Vec<(Tok, Pos)>, WorkloadError> {
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let mut out = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        if c.is_ascii_digit() || c == '.' || c == '-' || c == '+' {
            i += 1;
            while i < chars.len() {
                let d = chars[i];
                let exp_sign = (d == '-' || d == '+') && matches!(chars[i - 1], 'e' | 'E');
                if d.is_ascii_digit() || d == '.' || d == 'e' || d == 'E' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            let s: String = chars[start..i].iter().collect();
            match s.parse::<f64>() {
                Ok(v) if v.is_finite() => out.push((Tok::Num(v, s.clone()), pos)),
                _ => return err(pos, format!("'{s}' is not a number")),
            }
            col += (i - start) as u32;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(chars[start..i].iter().collect()), pos));
            col += (i - start) as u32;
            continue;
        }
        if ";:|,*()".contains(c) {
            out.push((Tok::Punct(c), pos));
            i += 1;
            col += 1;
            continue;
        }
        return err(
            pos,
            format!("unexpected character '{}'", c.escape_default()),
        );
    }
    out.push((Tok::End, Pos { line, col }));
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, Pos)>,
    i: usize,
}

/// What a distribution stands for: its values must be > 0 (sizes) or >= 0 (times).
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Size,
    Time,
}

impl Parser {
    fn peek(&self) -> &(Tok, Pos) {
        &self.toks[self.i]
    }
    fn next(&mut self) -> (Tok, Pos) {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn expect(&mut self, c: char, what: &str) -> Result<Pos, WorkloadError> {
        let (t, pos) = self.next();
        if t == Tok::Punct(c) {
            Ok(pos)
        } else {
            err(
                pos,
                format!("expected '{c}' {what}, found {}", t.describe()),
            )
        }
    }
    fn number(&mut self, what: &str) -> Result<(f64, Pos), WorkloadError> {
        let (t, pos) = self.next();
        match t {
            Tok::Num(v, _) => Ok((v, pos)),
            t => err(pos, format!("expected {what}, found {}", t.describe())),
        }
    }
    /// A positive whole number (a run or data-unit count).
    fn count(&mut self, what: &str) -> Result<(u64, Pos), WorkloadError> {
        let (v, pos) = self.number(what)?;
        if v.fract() != 0.0 || v < 0.0 {
            return err(pos, format!("{what} must be a whole number, got {v}"));
        }
        if v == 0.0 {
            return err(pos, format!("{what} must be at least 1, got 0"));
        }
        if v > u32::MAX as f64 {
            return err(pos, format!("{what} must be at most {}, got {v}", u32::MAX));
        }
        Ok((v as u64, pos))
    }
    fn value(&mut self, role: Role) -> Result<f64, WorkloadError> {
        let what = if role == Role::Size {
            "a size"
        } else {
            "a time"
        };
        let (v, pos) = self.number(what)?;
        match role {
            Role::Size if v <= 0.0 => err(pos, format!("a size must be > 0 bytes, got {v}")),
            Role::Time if v < 0.0 => err(pos, format!("a time must be >= 0 s, got {v}")),
            _ => Ok(v),
        }
    }
    fn dist(&mut self, role: Role) -> Result<Dist, WorkloadError> {
        let (t, pos) = self.peek().clone();
        match t {
            Tok::Num(..) => Ok(Dist::Const(self.value(role)?)),
            Tok::Ident(name) => {
                self.next();
                self.expect('(', &format!("after '{name}'"))?;
                let d = match name.as_str() {
                    "const" | "constant" => Dist::Const(self.value(role)?),
                    "bivalued" | "bivalue" | "bivalve" | "bvalue" => {
                        let a = self.value(role)?;
                        self.expect(',', "between the values of bivalued(a, b, p)")?;
                        let b = self.value(role)?;
                        self.expect(',', "between the values of bivalued(a, b, p)")?;
                        let (p, ppos) = self.number("a probability")?;
                        if !(0.0..=1.0).contains(&p) {
                            return err(
                                ppos,
                                format!("a bivalued probability must be in [0, 1], got {p}"),
                            );
                        }
                        Dist::Bivalued { a, b, p }
                    }
                    "exp" => {
                        let (mean, mpos) = self.number("a mean")?;
                        if mean <= 0.0 {
                            return err(mpos, format!("an exp mean must be > 0, got {mean}"));
                        }
                        Dist::Exp { mean }
                    }
                    _ => {
                        return err(
                            pos,
                            format!(
                                "unknown distribution '{name}' (expected const, constant, \
                                 bivalued or exp)"
                            ),
                        )
                    }
                };
                self.expect(')', &format!("to close '{name}('"))?;
                Ok(d)
            }
            t => err(
                pos,
                format!(
                    "expected {} or a distribution, found {}",
                    match role {
                        Role::Size => "a size",
                        Role::Time => "a time",
                    },
                    t.describe()
                ),
            ),
        }
    }
    fn op(&mut self) -> Result<Op, WorkloadError> {
        let (t, pos) = self.next();
        let name = match t {
            Tok::Ident(n) => n,
            t => {
                return err(
                    pos,
                    format!("expected an operation, found {}", t.describe()),
                )
            }
        };
        let size = match name.as_str() {
            "bulk_get" | "bulk_put" | "rr" | "request_response" => self.dist(Role::Size)?,
            _ => {
                return err(
                    pos,
                    format!(
                        "unknown operation '{name}' (expected bulk_get, bulk_put, rr, \
                         request_response or parallel)"
                    ),
                )
            }
        };
        let kind = match name.as_str() {
            "bulk_get" => OpKind::BulkGet,
            "bulk_put" => OpKind::BulkPut,
            _ => {
                self.expect(',', "between the request and response sizes of rr")?;
                OpKind::Rr {
                    response: self.dist(Role::Size)?,
                }
            }
        };
        self.expect('*', "before the number of data units")?;
        let (count, _) = self.count("the number of data units")?;
        let interarrival = match self.peek().0 {
            Tok::Num(..) | Tok::Ident(_) => Some(self.dist(Role::Time)?),
            _ => None,
        };
        Ok(Op {
            kind,
            size,
            count,
            interarrival,
            pos,
        })
    }
    fn statement(&mut self) -> Result<Statement, WorkloadError> {
        let (runs, pos) = self.count("the number of runs")?;
        let body = match self.peek().clone() {
            (Tok::Ident(n), ppos) if n == "parallel" => {
                self.next();
                let k = match self.peek().0 {
                    Tok::Num(..) => Some(self.count("the parallel member count")?),
                    _ => None,
                };
                self.expect(':', "after 'parallel'")?;
                if let (Tok::Punct(';') | Tok::End, epos) = self.peek().clone() {
                    return err(epos, "empty parallel group");
                }
                let mut members = Vec::new();
                loop {
                    let (mruns, mpos) = self.count("the number of runs of a parallel member")?;
                    let op = self.op()?;
                    members.push(Member {
                        runs: mruns as u32,
                        op,
                        pos: mpos,
                    });
                    if self.peek().0 == Tok::Punct('|') {
                        self.next();
                    } else {
                        break;
                    }
                }
                if let Some((k, kpos)) = k {
                    if k as usize != members.len() {
                        return err(
                            kpos,
                            format!(
                                "'parallel {k}:' has {} member{}",
                                members.len(),
                                if members.len() == 1 { "" } else { "s" }
                            ),
                        );
                    }
                }
                let _ = ppos;
                Body::Parallel(members)
            }
            _ => Body::Single(self.op()?),
        };
        self.expect(';', "at the end of a statement")?;
        Ok(Statement {
            runs: runs as u32,
            body,
            pos,
        })
    }
}

/// Parse and check a workload script.
pub fn parse(text: &str) -> Result<Script, WorkloadError> {
    let mut p = Parser {
        toks: lex(text)?,
        i: 0,
    };
    let mut statements = Vec::new();
    while p.peek().0 != Tok::End {
        statements.push(p.statement()?);
    }
    if statements.is_empty() {
        return err(p.peek().1, "the script has no statement");
    }
    Ok(Script { statements })
}

impl fmt::Display for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dist::Const(v) => write!(f, "{v}"),
            Dist::Bivalued { a, b, p } => write!(f, "bivalued({a},{b},{p})"),
            Dist::Exp { mean } => write!(f, "exp({mean})"),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            OpKind::BulkGet => write!(f, "bulk_get {}", self.size)?,
            OpKind::BulkPut => write!(f, "bulk_put {}", self.size)?,
            OpKind::Rr { response } => write!(f, "rr {},{}", self.size, response)?,
        }
        write!(f, "*{}", self.count)?;
        if let Some(d) = &self.interarrival {
            write!(f, " {d}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.body {
            Body::Single(op) => write!(f, "{} {op};", self.runs),
            Body::Parallel(ms) => {
                write!(f, "{} parallel {}: ", self.runs, ms.len())?;
                for (i, m) in ms.iter().enumerate() {
                    if i > 0 {
                        write!(f, " | ")?;
                    }
                    write!(f, "{} {}", m.runs, m.op)?;
                }
                write!(f, ";")
            }
        }
    }
}

impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.statements {
            writeln!(f, "{s}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "workload_parse_tests.rs"]
mod tests;
