//! `make bench`: speed, instruction counts and memory of the core on the cases of issues 2 and 13,
//! side by side with a minimal reference simulator of case (a) run in the same invocation.
//!
//! Cases (cell-level, release build, one core):
//! - (a) 15 persistent sources at 12 Mb/s each into switch A (10,000-cell buffer), A to B at
//!   149.76 Mb/s over 1000 km, B to 15 sinks, 10 simulated seconds (180 Mb/s offered: overload);
//! - (b) the same with a 270 ms A-B hop (satellite);
//! - (c) (a) with staggered source starts: source k of n starts at k/n of the sources' cell
//!   interval (in (a) all sources start at 0 and emit in phase);
//! - (d) 15,000 VCs at (a)'s load: 1,000 VCs at 0.012 Mb/s per host pair, starts staggered as in
//!   (c);
//! - (e) an OC-48 bottleneck: A to B at 2,396.16 Mb/s (16 x 149.76), 240 sources at 12 Mb/s (the
//!   same 1.2 overload as (a)), 1 simulated second;
//! - (f) seed 000's sat-sat scenario (`scenarios/seed000/sat-sat.toml`: 15 TCP over ABR with
//!   ERICA+ and an MPEG-2 VBR connection), 20 simulated seconds; its core JSON document comes from
//!   the Python front end (`make bench` writes `target/bench_f_satsat.json`; without that file the
//!   case is skipped with a message);
//! - (ref) the reference: a minimal simulator of case (a) only (`bench/reference.rs`);
//! - (a0) (a) with a 0 km A-B link, for the memory per cell in flight of (b).
//!
//! Speeds are per second of CPU time of the run (`/proc/thread-self/schedstat`), building the
//! network included (wall-clock figures are in the JSON too): the machine is shared, and a run
//! waiting for a core is not slower code.
//! Each case runs in a child process of its own (this program re-runs itself with `--one CASE`),
//! so its peak resident memory (VmHWM) is its own. The timed runs go in rounds (every case once
//! per round, `ATMSIM_BENCH_ROUNDS`, default 3) and the figures are medians; the speed ratio
//! atmsim/reference is taken per round (runs seconds apart) and its median reported: the ratio
//! survives this machine's drift, absolute speeds do not.
//!
//! Instructions per cell-hop: when `valgrind` is on the PATH (Debian/Ubuntu:
//! `apt-get install -y valgrind`), each case also runs under `valgrind --tool=cachegrind
//! --cache-sim=no` at two simulated durations T1 < T2, and instructions per cell-hop is
//! (I(T2) - I(T1)) / (hops(T2) - hops(T1)): the building of the network and the start of the run
//! cancel out. `ATMSIM_BENCH_VALGRIND=0` skips it.
//!
//! Memory per VC ((d) against (c), per VC): the peak resident memory (VmHWM, the goal's figure),
//! and from a counting allocator the heap's peak while parsing, checking and building
//! (`heap_peak_build_bytes`: the scenario model and the simulation side by side, where the peak
//! RSS comes from), what the built network keeps (`heap_after_build_bytes`) and the heap's peak
//! during the run (`heap_peak_run_bytes`).
//!
//! The figures are merged into `target/bench.json` under the key `core` (other keys, such as the
//! `seed004` key of `tools/bench_seed004.py`, are kept); the table goes to stdout.

#[path = "bench/reference.rs"]
mod reference;

/// Counts the heap bytes in use and their peak (the model's state, apart from what the process
/// keeps resident after freeing: peak RSS also holds the parsing of the scenario).
mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    pub struct Counting;
    pub static LIVE: AtomicUsize = AtomicUsize::new(0);
    pub static PEAK: AtomicUsize = AtomicUsize::new(0);

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            let p = unsafe { System.alloc(l) };
            if !p.is_null() {
                let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
                PEAK.fetch_max(now, Relaxed);
            }
            p
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            unsafe { System.dealloc(p, l) };
            LIVE.fetch_sub(l.size(), Relaxed);
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
            let q = unsafe { System.realloc(p, l, new) };
            if !q.is_null() {
                if new >= l.size() {
                    let now = LIVE.fetch_add(new - l.size(), Relaxed) + new - l.size();
                    PEAK.fetch_max(now, Relaxed);
                } else {
                    LIVE.fetch_sub(l.size() - new, Relaxed);
                }
            }
            q
        }
    }

    pub fn live() -> usize {
        LIVE.load(Relaxed)
    }

    /// Restart the peak from what is in use now.
    pub fn reset_peak() {
        PEAK.store(LIVE.load(Relaxed), Relaxed);
    }

    pub fn peak() -> usize {
        PEAK.load(Relaxed)
    }
}

#[global_allocator]
static ALLOC: heap::Counting = heap::Counting;

use atmsim_core::build_from_json;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// A dumbbell: `pairs` source hosts into switch A, A to B, B to as many sink hosts; `vcs` VCs per
/// pair at `mbps` each; `stagger`: VC k of n starts at k/n of its cell interval (k counts the
/// pairs first, so a pair's VCs are spread over the interval); `ab`: the A-B
/// link's keys besides its ends (JSON object members). Written as text directly (no JSON tree),
/// so that building the document adds little to the case's peak memory.
fn dumbbell(pairs: usize, vcs: usize, mbps: f64, ab: &str, stagger: bool, duration: f64) -> String {
    use std::fmt::Write;
    let mut nodes = String::from(
        r#"{"name": "A", "kind": "switch", "buffer_cells": 10000}, {"name": "B", "kind": "switch"}"#,
    );
    let mut links = String::new();
    let mut conns = String::new();
    let n = pairs * vcs;
    let interval_s = 424.0 / (mbps * 1e6);
    for i in 1..=pairs {
        write!(
            nodes,
            r#", {{"name": "s{i}", "kind": "host"}}, {{"name": "d{i}", "kind": "host"}}"#
        )
        .unwrap();
        write!(
            links,
            r#"{{"a": "s{i}", "b": "A", "rate_mbps": 149.76, "length_km": 1.0}}, {{"a": "B", "b": "d{i}", "rate_mbps": 149.76, "length_km": 1.0}}, "#
        )
        .unwrap();
        for v in 0..vcs {
            // interleaved over the hosts: each host's VCs are spread over the whole interval, so
            // each host link carries its 12 Mb/s evenly, as in (c)
            let k = v * pairs + (i - 1);
            let start = if stagger && k > 0 {
                // VC k of n: k/n of the cell interval, rounded to whole picoseconds
                let start_ps = (interval_s * 1e12 * k as f64 / n as f64).round();
                format!(r#", "start_s": {}"#, json!(start_ps / 1e12))
            } else {
                String::new()
            };
            let name = if vcs == 1 {
                format!("c{i}")
            } else {
                format!("c{i}v{v}")
            };
            if !conns.is_empty() {
                conns.push_str(", ");
            }
            write!(
                conns,
                r#"{{"name": "{name}", "route": ["s{i}", "A", "B", "d{i}"], "category": "ubr", "source": {{"kind": "persistent", "peak_mbps": {}{start}}}}}"#,
                json!(mbps)
            )
            .unwrap();
        }
    }
    write!(
        links,
        r#"{{"a": "A", "b": "B", "rate_mbps": 149.76, {ab}}}"#
    )
    .unwrap();
    format!(
        r#"{{"description": "benchmark (issues 2 and 13)", "run": {{"duration_s": {}, "sample_interval_s": 0.01}}, "nodes": [{nodes}], "links": [{links}], "connections": [{conns}]}}"#,
        json!(duration)
    )
}

/// A chain (issue 27, pipes): (a)'s 15 persistent sources of 12 Mb/s into switch S1 (10,000-cell
/// buffer), `switches` switches in a row joined by 149.76 Mb/s links of 1000 km each, the last
/// one to the 15 sinks: (a) with its A-B hop repeated, every hop's pipe holding about 1,766 cells.
fn chain(switches: usize, duration: f64) -> String {
    use std::fmt::Write;
    let mut nodes = String::from(r#"{"name": "S1", "kind": "switch", "buffer_cells": 10000}"#);
    let mut links = String::new();
    let mut conns = String::new();
    let route: Vec<String> = (1..=switches).map(|k| format!(r#""S{k}""#)).collect();
    for k in 2..=switches {
        write!(nodes, r#", {{"name": "S{k}", "kind": "switch"}}"#).unwrap();
        write!(
            links,
            r#"{{"a": "S{}", "b": "S{k}", "rate_mbps": 149.76, "length_km": 1000.0}}, "#,
            k - 1
        )
        .unwrap();
    }
    for i in 1..=15 {
        write!(
            nodes,
            r#", {{"name": "s{i}", "kind": "host"}}, {{"name": "d{i}", "kind": "host"}}"#
        )
        .unwrap();
        write!(
            links,
            r#"{{"a": "s{i}", "b": "S1", "rate_mbps": 149.76, "length_km": 1.0}}, {{"a": "S{switches}", "b": "d{i}", "rate_mbps": 149.76, "length_km": 1.0}}"#
        )
        .unwrap();
        if i < 15 {
            links.push_str(", ");
        }
        if i > 1 {
            conns.push_str(", ");
        }
        write!(
            conns,
            r#"{{"name": "c{i}", "route": ["s{i}", {}, "d{i}"], "category": "ubr", "source": {{"kind": "persistent", "peak_mbps": 12.0}}}}"#,
            route.join(", ")
        )
        .unwrap();
    }
    format!(
        r#"{{"description": "benchmark chain (issue 27)", "run": {{"duration_s": {}, "sample_interval_s": 0.01}}, "nodes": [{nodes}], "links": [{links}], "connections": [{conns}]}}"#,
        json!(duration)
    )
}

/// The default simulated seconds of each case (`ATMSIM_BENCH_SECONDS` sets those of the 10 s
/// cases).
fn default_seconds(case: &str) -> f64 {
    let base = std::env::var("ATMSIM_BENCH_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10.0);
    match case {
        "e" => base / 10.0,
        "f" => 20.0,
        "chain8" | "chain32" => base / 5.0,
        _ => base,
    }
}

/// The two simulated durations (T1, T2) of the instruction count.
fn valgrind_seconds(case: &str) -> (f64, f64) {
    match case {
        "e" => (0.1, 0.2),
        "f" => (5.0, 6.0),
        "chain8" | "chain32" => (0.2, 0.4),
        _ => (1.0, 2.0),
    }
}

fn f_document() -> PathBuf {
    std::env::var_os("ATMSIM_BENCH_F_JSON")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("bench_f_satsat.json"))
}

fn case_document(case: &str, duration: f64) -> Option<String> {
    const AB1000: &str = r#""length_km": 1000.0"#;
    Some(match case {
        "a" => dumbbell(15, 1, 12.0, AB1000, false, duration),
        "b" => dumbbell(15, 1, 12.0, r#""delay_us": 270000.0"#, false, duration),
        "a0" => dumbbell(15, 1, 12.0, r#""delay_us": 0.0"#, false, duration),
        "c" => dumbbell(15, 1, 12.0, AB1000, true, duration),
        "d" => dumbbell(15, 1000, 0.012, AB1000, true, duration),
        // the A-B link's own rate_mbps comes last and wins (serde keeps the last duplicate)
        "e" => dumbbell(
            240,
            1,
            12.0,
            r#""length_km": 1000.0, "rate_mbps": 2396.16"#,
            false,
            duration,
        ),
        "chain8" => chain(8, duration),
        "chain32" => chain(32, duration),
        "f" => {
            let text = std::fs::read_to_string(f_document()).ok()?;
            let mut doc: Value = serde_json::from_str(&text).expect("case (f) document is JSON");
            doc["run"]["duration_s"] = json!(duration);
            doc.to_string()
        }
        _ => panic!("unknown case {case}"),
    })
}

/// CPU time of this thread so far, seconds (`/proc/thread-self/schedstat`, nanoseconds on the
/// CPU): on a shared machine the time the run was actually on a core, which wall time is not.
fn cpu_s() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(f64::NAN, |ns| ns as f64 / 1e9)
}

fn peak_rss_bytes() -> u64 {
    rss_bytes("VmHWM:")
}

/// A line of `/proc/self/status` in bytes (`VmHWM:` the peak resident memory, `VmRSS:` now).
fn rss_bytes(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// One case in this process.
fn one(case: &str, duration: f64) -> Value {
    if case == "ref" {
        let (t0, c0) = (Instant::now(), cpu_s());
        let o = reference::run(duration);
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_s() - c0);
        return json!({
            "case": case, "sim_time_s": duration, "wall_time_s": wall, "cpu_time_s": cpu,
            "cell_hops": o.cell_hops, "events": o.events,
            "delivered": o.delivered, "dropped": o.dropped,
            "cell_hops_per_s": o.cell_hops as f64 / cpu,
            "cell_hops_per_wall_s": o.cell_hops as f64 / wall,
            "ns_per_cell_hop": cpu * 1e9 / o.cell_hops as f64,
            "cells_in_flight_at_end": o.cells_in_flight_at_end,
            "peak_rss_bytes": peak_rss_bytes(),
        });
    }
    let Some(mut sc) = case_document(case, duration) else {
        return json!({"case": case, "skipped": format!("no {}", f_document().display())});
    };
    sc.shrink_to_fit(); // the document as the front end hands it: its text, no slack
    let heap_doc = heap::live();
    heap::reset_peak();
    let (t0, c0) = (Instant::now(), cpu_s());
    let mut sim = match build_from_json(&sc) {
        Ok(sim) => sim,
        Err(e) => {
            // a duration shorter than the case's sample interval, or a bad ATMSIM_BENCH_F_JSON
            eprintln!("atmsim-bench: case {case} at {duration} s: {e}");
            std::process::exit(2);
        }
    };
    // the peak of parsing, checking and building, above the document text held before it
    let heap_build_peak = heap::peak() - heap_doc;
    let built = cpu_s() - c0;
    let (rss_built, peak_built) = (rss_bytes("VmRSS:"), peak_rss_bytes());
    drop(sc);
    let heap_built = heap::live();
    heap::reset_peak();
    // as the front end runs it: in slices, the series drained after each (there they stream to
    // Parquet files), so the series rows do not count as the core's memory
    let slice = atmsim_core::scenario::SLICE_ROWS as usize;
    while !sim.advance_bounded(u64::MAX, slice) {
        drop(sim.drain_series());
    }
    drop(sim.drain_series());
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_s() - c0);
    json!({
        "case": case,
        "sim_time_s": duration,
        "wall_time_s": wall,
        "cpu_time_s": cpu,
        "build_cpu_s": built,
        "cell_hops": sim.cell_hops(),
        "events": sim.events(),
        "flows": sim.flows.len(),
        "cell_hops_per_s": sim.cell_hops() as f64 / cpu,
        "cell_hops_per_wall_s": sim.cell_hops() as f64 / wall,
        "events_per_s": sim.events() as f64 / cpu,
        "events_per_cell_hop": sim.events() as f64 / sim.cell_hops() as f64,
        "ns_per_cell_hop": cpu * 1e9 / sim.cell_hops() as f64,
        "cells_in_flight_at_end": sim.cells_in_flight_now(),
        "peak_rss_bytes": peak_rss_bytes(),
        "rss_after_build_bytes": rss_built,
        "peak_rss_after_build_bytes": peak_built,
        "rss_at_end_bytes": rss_bytes("VmRSS:"),
        "heap_after_build_bytes": heap_built,
        "heap_peak_build_bytes": heap_build_peak,
        "heap_before_build_bytes": heap_doc,
        "heap_peak_run_bytes": heap::peak(),
        "heap_at_end_bytes": heap::live(),
    })
}

fn target_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
    std::fs::create_dir_all(&dir).ok();
    dir.canonicalize().unwrap_or(dir)
}

fn child(case: &str, duration: f64, valgrind: bool) -> (Value, Option<u64>) {
    let exe = std::env::current_exe().expect("own path");
    let args = ["--one".to_string(), case.to_string(), duration.to_string()];
    let out = if valgrind {
        Command::new("valgrind")
            .args([
                "--tool=cachegrind",
                "--cache-sim=no",
                "--cachegrind-out-file=/dev/null",
            ])
            .arg(&exe)
            .args(&args)
            .output()
    } else {
        Command::new(&exe).args(&args).output()
    }
    .expect("run bench case");
    assert!(
        out.status.success(),
        "bench case {case} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("bench output");
    // cachegrind's summary line: "==pid== I   refs:      1,234,567"
    let ir = String::from_utf8_lossy(&out.stderr)
        .lines()
        .find(|l| l.contains("I") && l.contains("refs:"))
        .and_then(|l| l.split("refs:").nth(1))
        .map(|n| n.trim().replace(',', ""))
        .and_then(|n| n.parse().ok());
    (v, ir)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn have_valgrind() -> bool {
    std::env::var("ATMSIM_BENCH_VALGRIND").as_deref() != Ok("0")
        && Command::new("valgrind")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
}

/// Merge `value` under `key` into `target/bench.json`, keeping the other keys.
fn merge_bench_json(key: &str, value: Value) -> PathBuf {
    let path = target_dir().join("bench.json");
    merge_into(&path, key, value).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// Merge `value` under `key` into the JSON object in `path` (a missing file is an empty object),
/// keeping every other key: each writer of `target/bench.json` (`atmsim-bench`'s `core`, the
/// tools' `memory`, `seed004`, `front`, ...) replaces only its own. A file that is not a JSON
/// object is an error and is left as it is. Written to a temporary file, then renamed.
fn merge_into(path: &Path, key: &str, value: Value) -> Result<(), String> {
    let mut data = match std::fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            _ => {
                return Err(format!(
                    "{} is not a JSON object; not overwriting it",
                    path.display()
                ))
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    data.insert(key.to_string(), value);
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_string_pretty(&Value::Object(data)).unwrap() + "\n";
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}

const CASES: [(&str, &str); 10] = [
    ("ref", "(ref) reference simulator of (a)"),
    ("a", "(a) 15 x 12 Mb/s, 1000 km"),
    ("b", "(b) same, 270 ms A-B hop"),
    ("c", "(c) (a), staggered starts"),
    ("d", "(d) 15,000 VCs, (a)'s load"),
    ("e", "(e) OC-48 A-B, 240 sources"),
    ("f", "(f) seed 000 sat-sat, 20 s"),
    ("a0", "(a0) (a), 0 km A-B"),
    ("chain8", "(a) through 8 switches, 1000 km hops"),
    ("chain32", "(a) through 32 switches, 1000 km hops"),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() >= 3 && args[1] == "--one" {
        let d = args
            .get(3)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| default_seconds(&args[2]));
        println!("{}", one(&args[2], d));
        return;
    }
    let only: Vec<&str> = args[1..].iter().map(|s| s.as_str()).collect();
    let cases: Vec<(&str, &str)> = CASES
        .iter()
        .copied()
        .filter(|(c, _)| only.is_empty() || only.contains(c) || *c == "ref")
        .collect();
    let rounds: usize = std::env::var("ATMSIM_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let runs = timed_rounds(&cases, rounds);
    let (valgrind, instr) = instruction_counts(&cases);
    let mut report = case_table(&cases, &runs, &instr, rounds);
    let derived = goals(&report, valgrind);
    report.insert("derived".into(), Value::Object(derived));
    report.insert("rounds".into(), json!(rounds));
    report.insert("started_unix_s".into(), json!(started));
    report.insert("valgrind".into(), json!(valgrind));
    let path = merge_bench_json("core", Value::Object(report));
    println!("wrote the core key of {}", path.display());
}

/// A number of a case's figures, NaN when absent.
fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or(f64::NAN)
}

/// The timed runs of `cases`, in `rounds` rounds (every case once per round); (a0) runs once, for
/// its memory.
fn timed_rounds(cases: &[(&str, &str)], rounds: usize) -> Vec<Vec<Value>> {
    let mut runs: Vec<Vec<Value>> = vec![vec![]; cases.len()];
    for r in 0..rounds {
        for (i, (c, _)) in cases.iter().enumerate() {
            if *c == "a0" && r > 0 {
                continue; // memory only
            }
            runs[i].push(child(c, default_seconds(c), false).0);
        }
    }
    runs
}

/// The median over the rounds of the speed ratio of case `c` to the reference, run by run.
fn per_round_ratio(cases: &[(&str, &str)], runs: &[Vec<Value>], c: &str) -> Option<f64> {
    let idx = |c: &str| cases.iter().position(|(x, _)| *x == c);
    let (i, r) = (idx(c)?, idx("ref")?);
    let v: Vec<f64> = runs[i]
        .iter()
        .zip(&runs[r])
        .map(|(x, y)| num(x, "cell_hops_per_s") / num(y, "cell_hops_per_s"))
        .filter(|x| x.is_finite())
        .collect();
    (!v.is_empty()).then(|| median(v))
}

/// Whether valgrind runs, and the instruction counts of each case under it at two durations.
fn instruction_counts(cases: &[(&str, &str)]) -> (bool, Map<String, Value>) {
    let valgrind = have_valgrind();
    let mut instr: Map<String, Value> = Map::new();
    if valgrind {
        for (c, _) in cases {
            if *c == "a0" || (*c == "f" && !f_document().exists()) {
                continue;
            }
            let (t1, t2) = valgrind_seconds(c);
            let (v1, i1) = child(c, t1, true);
            let (v2, i2) = child(c, t2, true);
            if let (Some(i1), Some(i2)) = (i1, i2) {
                let dh = num(&v2, "cell_hops") - num(&v1, "cell_hops");
                let de = num(&v2, "events") - num(&v1, "events");
                instr.insert(
                    c.to_string(),
                    json!({"t1_s": t1, "t2_s": t2, "instructions_t1": i1, "instructions_t2": i2,
                           "cell_hops_t1": v1["cell_hops"], "cell_hops_t2": v2["cell_hops"],
                           "instructions_per_cell_hop": (i2 as f64 - i1 as f64) / dh,
                           "instructions_per_event": (i2 as f64 - i1 as f64) / de,
                           "events_per_cell_hop": de / dh}),
                );
            }
        }
    }
    (valgrind, instr)
}

/// The table of the cases (printed), and the report of each: the medians over the rounds, the
/// rounds, the ratios to the reference and the instruction counts.
fn case_table(
    cases: &[(&str, &str)],
    runs: &[Vec<Value>],
    instr: &Map<String, Value>,
    rounds: usize,
) -> Map<String, Value> {
    let mut report = Map::new();
    println!("atmsim-core benchmark: release build, one core, {rounds} rounds (medians)");
    println!(
        "{:<34} {:>12} {:>9} {:>10} {:>9} {:>11} {:>9}",
        "case", "cell-hops/s", "x ref", "instr/hop", "x ref", "peak RSS MB", "CPU s"
    );
    let ref_instr = instr
        .get("ref")
        .and_then(|v| v["instructions_per_cell_hop"].as_f64());
    for (i, (c, name)) in cases.iter().enumerate() {
        if runs[i][0].get("skipped").is_some() {
            println!("{name:<34} skipped: {}", runs[i][0]["skipped"]);
            report.insert(c.to_string(), runs[i][0].clone());
            continue;
        }
        let med = |k: &str| median(runs[i].iter().map(|v| num(v, k)).collect());
        let hops_s = med("cell_hops_per_s");
        let ratio = per_round_ratio(cases, runs, c);
        let ipc = instr
            .get(*c)
            .and_then(|v| v["instructions_per_cell_hop"].as_f64());
        let iratio = ipc.zip(ref_instr).map(|(a, b)| a / b);
        let fmt = |x: Option<f64>, p: usize| x.map_or("-".to_string(), |x| format!("{x:.p$}"));
        println!(
            "{:<34} {:>12.0} {:>9} {:>10} {:>9} {:>11.1} {:>9.3}",
            name,
            hops_s,
            fmt(ratio, 3),
            fmt(ipc, 0),
            fmt(iratio, 3),
            med("peak_rss_bytes") / 1e6,
            med("cpu_time_s")
        );
        let mut entry = runs[i][0].as_object().cloned().unwrap_or_default();
        for k in [
            "heap_peak_run_bytes",
            "heap_peak_build_bytes",
            "cell_hops_per_s",
            "wall_time_s",
            "peak_rss_bytes",
            "ns_per_cell_hop",
        ] {
            if entry.contains_key(k) {
                entry.insert(k.to_string(), json!(med(k)));
            }
        }
        entry.insert("rounds".into(), json!(runs[i]));
        entry.insert("speed_over_reference".into(), json!(ratio));
        if let Some(v) = instr.get(*c) {
            entry.insert("instructions".into(), v.clone());
            entry.insert("instructions_per_cell_hop".into(), json!(ipc));
            entry.insert("instructions_over_reference".into(), json!(iratio));
        }
        report.insert(c.to_string(), Value::Object(entry));
    }
    report
}

/// The figures derived from the cases against the goals of issue 13 (printed), by key.
fn goals(report: &Map<String, Value>, valgrind: bool) -> Map<String, Value> {
    let get = |c: &str, k: &str| report.get(c).map(|v| num(v, k)).unwrap_or(f64::NAN);
    let mut derived = Map::new();
    let cost = |c: &str| get(c, "ns_per_cell_hop");
    let b_over_a = cost("b") / cost("a");
    let c_over_a_instr =
        get("c", "instructions_per_cell_hop") / get("a", "instructions_per_cell_hop");
    let c_over_a = cost("c") / cost("a");
    let f_over_a = get("f", "cell_hops_per_s") / get("a", "cell_hops_per_s");
    let d_over_a = get("d", "cell_hops_per_s") / get("a", "cell_hops_per_s");
    let vcs_d = get("d", "flows") - get("c", "flows");
    let mem_per_vc = (get("d", "peak_rss_bytes") - get("c", "peak_rss_bytes")) / vcs_d;
    let heap_per_vc = (get("d", "heap_peak_run_bytes") - get("c", "heap_peak_run_bytes")) / vcs_d;
    // the building's own peak (parsing the document, checking it, building the network: the
    // scenario model and the simulation's arrays at once), which is where peak RSS comes from
    let build_heap_per_vc =
        (get("d", "heap_peak_build_bytes") - get("c", "heap_peak_build_bytes")) / vcs_d;
    // what the run keeps per VC once built (the model's state)
    let state_per_vc =
        (get("d", "heap_after_build_bytes") - get("c", "heap_after_build_bytes")) / vcs_d;
    let mem_per_cell = (get("b", "peak_rss_bytes") - get("a0", "peak_rss_bytes"))
        / (get("b", "cells_in_flight_at_end") - get("a0", "cells_in_flight_at_end"));
    println!("goals (issue 13):");
    let show = |label: &str, x: f64, goal: &str| {
        if x.is_finite() {
            println!("  {label:<52} {x:>10.3}  (goal {goal})");
        }
    };
    show(
        "(a) speed / reference, same run",
        get("a", "speed_over_reference"),
        ">= 0.85",
    );
    show(
        "(a) instructions per cell-hop",
        get("a", "instructions_per_cell_hop"),
        "<= 420",
    );
    show("(c) / (a) wall cost per cell-hop", c_over_a, "<= 1.1");
    show(
        "(c) / (a) instructions per cell-hop",
        c_over_a_instr,
        "<= 1.1",
    );
    show("(f) / (a) cell-hops/s", f_over_a, ">= 0.8");
    show("(d) / (a) cell-hops/s", d_over_a, ">= 0.6");
    show(
        "(d) peak RSS per VC, bytes, against (c)",
        mem_per_vc,
        "<= 2048",
    );
    show(
        "(d) peak heap of the run per VC, bytes, against (c)",
        heap_per_vc,
        "<= 2048",
    );
    show(
        "(d) peak heap of the build per VC, bytes, against (c)",
        build_heap_per_vc,
        "<= 2048",
    );
    if state_per_vc.is_finite() {
        println!(
            "  {:<52} {state_per_vc:>10.3}  (the state the run keeps)",
            "(d) heap after the build per VC, bytes, against (c)"
        );
    }
    show("(b) / (a) wall cost per cell-hop", b_over_a, "<= 1.3");
    show(
        "(b) memory per cell in flight, bytes, against (a0)",
        mem_per_cell,
        "<= 64",
    );
    if !valgrind {
        println!(
            "  (no instruction counts: valgrind not found or ATMSIM_BENCH_VALGRIND=0; \
             install it with `apt-get install -y valgrind`)"
        );
    }
    for (k, v) in [
        ("b_over_a_cost_per_cell_hop", b_over_a),
        ("c_over_a_cost_per_cell_hop", c_over_a),
        ("c_over_a_instructions_per_cell_hop", c_over_a_instr),
        ("f_over_a_cell_hops_per_s", f_over_a),
        ("d_over_a_cell_hops_per_s", d_over_a),
        ("d_bytes_per_vc", mem_per_vc),
        ("d_heap_bytes_per_vc", heap_per_vc),
        ("d_build_heap_bytes_per_vc", build_heap_per_vc),
        ("d_state_heap_bytes_per_vc", state_per_vc),
        ("bytes_per_cell_in_flight", mem_per_cell),
    ] {
        derived.insert(k.into(), if v.is_finite() { json!(v) } else { Value::Null });
    }
    derived
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `atmsim-bench` alone keeps the other writers' keys (issue 27 item 7).
    #[test]
    fn merge_keeps_the_other_writers_keys() {
        let dir = std::env::temp_dir().join(format!("atmsim-bench-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bench.json");
        let _ = std::fs::remove_file(&path);
        merge_into(&path, "core", json!({"a": 1})).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&std::fs::read_to_string(&path).unwrap()).unwrap(),
            json!({"core": {"a": 1}})
        );
        std::fs::write(
            &path,
            r#"{"seed004": {"runs": [1, 2]}, "front": {"x": 0.5}, "core": {"old": true}}"#,
        )
        .unwrap();
        merge_into(&path, "core", json!({"a": 2})).unwrap();
        let got: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            got,
            json!({"seed004": {"runs": [1, 2]}, "front": {"x": 0.5}, "core": {"a": 2}})
        );
        // not a JSON object: refused, and the file is left as it was
        for text in ["[1, 2]", "not json"] {
            std::fs::write(&path, text).unwrap();
            assert!(merge_into(&path, "core", json!(1)).is_err());
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
