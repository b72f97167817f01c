//! Workload scripts in the spirit of SPIMS (seed 001 appendix 2, section 13: "SICS Protocol
//! Implementation Measurement System"): the syntax tree the parser produces and the workload
//! runner (the application above a stream transport) executes.
//!
//! Grammar (seed 001 section 13.2: `<num runs> <application type> <data unit size>*<num data
//! units> [<timing spec>] ;`, and section 13.4's parallel composer):
//!
//! ```text
//! script     := statement+
//! statement  := RUNS body ';'
//! body       := op | 'parallel' [COUNT] ':' member ('|' member)*
//! member     := RUNS op                       (one initiator/responder pair: one transport
//!                                              connection of the bundle, in order)
//! op         := ('bulk_get' | 'bulk_put') dist '*' COUNT [dist]
//!             | ('rr' | 'request_response') dist ',' dist '*' COUNT [dist]
//! dist       := NUMBER | 'const' '(' NUMBER ')' | 'constant' '(' NUMBER ')'
//!             | ('bivalued' | 'bivalue' | 'bivalve' | 'bvalue') '(' NUMBER ',' NUMBER ',' NUMBER ')'
//!             | 'exp' '(' NUMBER ')'
//! ```
//!
//! Sizes are bytes, times seconds. The optional trailing `dist` of an op is the interarrival
//! (SPIMS "timing spec": the delay before each data unit or transaction); absent means back to
//! back. `#` starts a comment to the end of the line. `parallel K:` needs K members; `parallel:`
//! takes any number (at least one). The seed's scripts spell the two-valued distribution four
//! ways (`bivalued`, `bivalue`, `bivalve`, `bvalue`, seed 001 section 12); all are accepted.
//!
//! Checks ([`crate::scenario::workload_parse::parse`], each with the line and column): sizes
//! above 0, times >= 0, run and data-unit counts >= 1 and whole, a bivalued probability in [0, 1],
//! an exp mean above 0, no empty parallel group, `parallel K:` with exactly K members.
//!
//! This file holds the types only; the parser, the printer (the grammar round-trips) and the
//! checks live beside it (`workload_parse.rs`), the runner in `app/workload.rs`.

use serde::{Deserialize, Serialize};

/// A position in the script text, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// A size (bytes) or time (seconds) distribution (seed 001 section 13.3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Dist {
    /// `constant(v)`, `const(v)` or a bare number.
    Const(f64),
    /// `bivalued(a, b, p)`: `a` with probability `p` (0 <= p <= 1), else `b`.
    Bivalued { a: f64, b: f64, p: f64 },
    /// `exp(mean)`: exponential with this mean.
    Exp { mean: f64 },
}

/// An application type (seed 001 section 13.2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum OpKind {
    /// The responder sends `count` data units of `size` bytes to the initiator as fast as it can.
    BulkGet,
    /// The initiator sends `count` data units of `size` bytes to the responder as fast as it can.
    BulkPut,
    /// `count` transactions: the initiator sends a request of `size` bytes, the responder answers
    /// with `response` bytes once the whole request arrived; the transaction time runs from the
    /// request's first write to the response's last byte read.
    Rr { response: Dist },
}

/// One application run description: `op size[,response]*count [interarrival]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Op {
    pub kind: OpKind,
    /// Data unit (TSDU) size, or the request size of `rr`, bytes.
    pub size: Dist,
    /// Data units (transactions for `rr`) per run.
    pub count: u64,
    /// Delay before each data unit / transaction, seconds; None: back to back.
    pub interarrival: Option<Dist>,
    pub pos: Pos,
}

/// A member of a parallel group: its own run count and op, on its own transport connection.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    pub runs: u32,
    pub op: Op,
    pub pos: Pos,
}

/// What a statement runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Body {
    /// One initiator/responder pair.
    Single(Op),
    /// `parallel [k]: m1 | m2 | ...`: the members run at once, member i on transport
    /// connection i of the VC (connection bundling, seed 001 section 8).
    Parallel(Vec<Member>),
}

/// `RUNS body ;`: the body is run `runs` times, one after the other; statistics (mean, min,
/// max, standard deviation) are over the runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    pub runs: u32,
    pub body: Body,
    pub pos: Pos,
}

/// A whole script: its statements run one after the other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct Script {
    pub statements: Vec<Statement>,
}

impl Script {
    /// The most transport connections one statement uses (a `Single` uses 1).
    pub fn max_parallel(&self) -> usize {
        self.statements
            .iter()
            .map(|s| match &s.body {
                Body::Single(_) => 1,
                Body::Parallel(m) => m.len(),
            })
            .max()
            .unwrap_or(1)
    }

    /// The same tree with every position reset (to compare trees parsed from different texts).
    pub fn without_pos(&self) -> Script {
        let mut s = self.clone();
        for st in &mut s.statements {
            st.pos = Pos::default();
            match &mut st.body {
                Body::Single(op) => op.pos = Pos::default(),
                Body::Parallel(ms) => {
                    for m in ms {
                        m.pos = Pos::default();
                        m.op.pos = Pos::default();
                    }
                }
            }
        }
        s
    }
}

impl Statement {
    /// The members as (runs, op) pairs: a `Single` is one member running once per run.
    pub fn members(&self) -> Vec<(u32, Op)> {
        match &self.body {
            Body::Single(op) => vec![(1, *op)],
            Body::Parallel(ms) => ms.iter().map(|m| (m.runs, m.op)).collect(),
        }
    }
}
