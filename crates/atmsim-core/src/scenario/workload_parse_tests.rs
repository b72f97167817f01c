//! Tests of the workload parser and printer.

use super::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED001: &str = include_str!("../../testdata/seed001_section12.spims");

/// Every script quoted in seed 001 section 12 parses, with the statement count and member
/// counts the text shows, and prints to text that parses back to the same tree.
#[test]
fn every_seed001_script_parses_and_round_trips() {
    let mut scripts = 0;
    for chunk in SEED001.split("\n## ").skip(1) {
        let (head, body) = chunk.split_once('\n').unwrap();
        let s = parse(body).unwrap_or_else(|e| panic!("{head}: {e}"));
        let want = body.matches(';').count();
        assert_eq!(s.statements.len(), want, "{head}");
        for st in &s.statements {
            if let Body::Parallel(ms) = &st.body {
                assert!(ms.len() >= 2, "{head}: {st}");
            }
        }
        let again = parse(&s.to_string()).unwrap();
        assert_eq!(again.without_pos(), s.without_pos(), "{head}");
        scripts += 1;
    }
    assert_eq!(scripts, 14, "the seed quotes 14 script blocks");
    // spot checks of the tree
    let s = parse("5 rr 1000,1024*50;").unwrap();
    assert_eq!(
        s.statements[0].body,
        Body::Single(Op {
            kind: OpKind::Rr {
                response: Dist::Const(1024.0)
            },
            size: Dist::Const(1000.0),
            count: 50,
            interarrival: None,
            pos: Pos { line: 1, col: 3 },
        })
    );
    let s = parse("10 parallel 3: 1 bulk_get 1024*1000 |\n 1 bulk_get 1024*1000 |\n 1 bulk_put bvalue(10,9000,0.75)*250 exp(0.2) ;").unwrap();
    let Body::Parallel(ms) = &s.statements[0].body else {
        panic!()
    };
    assert_eq!(ms.len(), 3);
    assert_eq!(ms[2].pos, Pos { line: 3, col: 2 });
    assert_eq!(ms[2].op.kind, OpKind::BulkPut);
    assert_eq!(
        ms[2].op.size,
        Dist::Bivalued {
            a: 10.0,
            b: 9000.0,
            p: 0.75
        }
    );
    assert_eq!(ms[2].op.interarrival, Some(Dist::Exp { mean: 0.2 }));
    assert_eq!(s.max_parallel(), 3);
}

fn value(r: &mut ChaCha8Rng, positive: bool) -> f64 {
    // whole numbers, fractions and extreme magnitudes: the printer must keep every bit
    let v: f64 = match r.random_range(0..4) {
        0 => r.random_range(1..100_000) as f64,
        1 => r.random::<f64>() * 10.0,
        2 => r.random::<f64>() * 1e-9,
        _ => r.random::<f64>() * 1e12,
    };
    if positive && v == 0.0 {
        1.0
    } else {
        v
    }
}

fn dist(r: &mut ChaCha8Rng, positive: bool) -> Dist {
    match r.random_range(0..3) {
        0 => Dist::Const(value(r, positive)),
        1 => Dist::Bivalued {
            a: value(r, positive),
            b: value(r, positive),
            p: if r.random_bool(0.2) {
                r.random_range(0..2) as f64
            } else {
                r.random::<f64>()
            },
        },
        _ => Dist::Exp {
            mean: value(r, true),
        },
    }
}

fn op(r: &mut ChaCha8Rng) -> Op {
    Op {
        kind: match r.random_range(0..3) {
            0 => OpKind::BulkGet,
            1 => OpKind::BulkPut,
            _ => OpKind::Rr {
                response: dist(r, true),
            },
        },
        size: dist(r, true),
        count: r.random_range(1..1_000_000),
        interarrival: r.random_bool(0.5).then(|| dist(r, false)),
        pos: Pos::default(),
    }
}

fn script(r: &mut ChaCha8Rng) -> Script {
    let n = r.random_range(1..6);
    Script {
        statements: (0..n)
            .map(|_| Statement {
                runs: r.random_range(1..100),
                body: if r.random_bool(0.5) {
                    Body::Single(op(r))
                } else {
                    Body::Parallel(
                        (0..r.random_range(1..8))
                            .map(|_| Member {
                                runs: r.random_range(1..10),
                                op: op(r),
                                pos: Pos::default(),
                            })
                            .collect(),
                    )
                },
                pos: Pos::default(),
            })
            .collect(),
    }
}

/// Property: print a generated tree, parse the text: the same tree (2,000 trees).
#[test]
fn printed_trees_parse_back_to_the_same_tree() {
    let mut r = ChaCha8Rng::seed_from_u64(16);
    for _ in 0..2000 {
        let s = script(&mut r);
        let text = s.to_string();
        let back = parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back.without_pos(), s, "{text}");
        // and the positions point at the printed statements (one per line)
        for (i, st) in back.statements.iter().enumerate() {
            assert_eq!(
                st.pos,
                Pos {
                    line: i as u32 + 1,
                    col: 1
                }
            );
        }
    }
}

fn error(text: &str) -> (u32, u32, String) {
    let e = parse(text).expect_err(text);
    (e.line, e.col, e.message)
}

/// The bad input, each at the line and column of the token at fault.
#[test]
fn bad_scripts_give_the_line_and_column() {
    let cases: &[(&str, u32, u32, &str)] = &[
        ("5 rr 1000 1024*50;", 1, 11, "expected ','"),
        ("5 bulk_get 1024*50", 1, 19, "expected ';'"),
        (
            "5 bulk_get 1024*50;\n3 bulk_send 10*2;",
            2,
            3,
            "unknown operation 'bulk_send'",
        ),
        ("5 bulk_get 0*50;", 1, 12, "size must be > 0"),
        ("5 bulk_get -3*50;", 1, 12, "size must be > 0"),
        (
            "1 bulk_put bivalued(10,0,0.5)*4;",
            1,
            24,
            "size must be > 0",
        ),
        ("5 rr 100,0*50;", 1, 10, "size must be > 0"),
        ("5 bulk_get 10*0;", 1, 15, "at least 1"),
        ("0 bulk_get 10*5;", 1, 1, "at least 1"),
        ("2 parallel: 0 bulk_get 10*5;", 1, 13, "at least 1"),
        (
            "1 bulk_get bivalued(10,9000,1.5)*250;",
            1,
            29,
            "probability must be in [0, 1]",
        ),
        (
            "1 bulk_get bivalued(10,9000,-0.1)*250;",
            1,
            29,
            "probability must be in [0, 1]",
        ),
        ("1 bulk_get 10*250 exp(0);", 1, 23, "exp mean must be > 0"),
        ("1 bulk_get exp(-2)*250;", 1, 16, "exp mean must be > 0"),
        ("1 bulk_get 10*250 -1;", 1, 19, "time must be >= 0"),
        ("5 parallel: ;", 1, 13, "empty parallel group"),
        ("5 parallel 2: ;", 1, 15, "empty parallel group"),
        (
            "5 parallel 3: 1 bulk_get 10*2 | 1 bulk_get 10*2;",
            1,
            12,
            "'parallel 3:' has 2 members",
        ),
        (
            "5 parallel 2: 1 bulk_get 10*2 | ;",
            1,
            33,
            "expected the number of runs",
        ),
        (
            "1 bulk_get weird(3)*2;",
            1,
            12,
            "unknown distribution 'weird'",
        ),
        ("1 bulk_get 10*2.5;", 1, 15, "whole number"),
        ("1 bulk_get 10*2 $;", 1, 17, "unexpected character"),
        ("", 1, 1, "no statement"),
        ("# only a comment\n", 2, 1, "no statement"),
    ];
    for (text, line, col, msg) in cases {
        let (l, c, m) = error(text);
        assert_eq!((l, c), (*line, *col), "{text}: {m}");
        assert!(m.contains(msg), "{text}: {m}");
        assert!(!m.contains('\n'));
    }
    assert_eq!(
        parse("1 bulk_get 0*5;").unwrap_err().to_string(),
        "line 1, column 12: a size must be > 0 bytes, got 0"
    );
}

#[test]
fn comments_aliases_and_bare_numbers() {
    let a = parse(
        "# a comment\n2 request_response constant(100),bivalue(1,2,0)*3 const(0.5); # tail\n",
    )
    .unwrap();
    let b = parse("2 rr 100,bivalued(1,2,0)*3 0.5;").unwrap();
    assert_eq!(a.without_pos(), b.without_pos());
    assert_eq!(b.to_string(), "2 rr 100,bivalued(1,2,0)*3 0.5;\n");
}
