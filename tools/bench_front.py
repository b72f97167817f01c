"""Front-end benchmark (``make bench``, issue 27 row (d)): ``atmsim run`` on a scenario file of
15,000 VCs against the same load in 15 VCs, each run a child process of its own.

The two scenario files are ``atmsim-bench``'s cases (c) and (d) written as TOML
(``crates/atmsim-core/src/bin/bench.rs``, ``dumbbell``): 15 host pairs through switches A and B
(A-B 149.76 Mb/s over 1000 km, A's buffer 10,000 cells), 12 Mb/s per host pair as one persistent
UBR VC ((c)) or as 1,000 VCs of 0.012 Mb/s ((d)), starts staggered over the cell interval, so both
carry the same cell-hops; 1 s simulated, sampled every 10 ms. Each runs as
``atmsim run FILE --quiet --out DIR`` (the whole command: reading the file, building, running,
the series to Parquet, ``summary.json``), rounds interleaved, medians.

Figures: speed = the summary's ``cell_hops`` per CPU second of the child (user + system, from
``os.wait4``), the ratio (d) / (c) per round (goal >= 0.5); peak RSS per VC = (peak RSS (d) -
peak RSS (c)) / (15,000 - 15) (``ru_maxrss`` of the child; goal <= 2 KB). Merged into
``target/bench.json`` under the key ``front``.

    .venv/bin/python tools/bench_front.py [--rounds N] [--duration S] [--no-write] [--phases]

``--phases``: the peak RSS of (c) and (d) after each step of a run (the imports, reading the
scenario, building, running with the series written, writing ``summary.json``), and the growth
per VC: where the memory per VC comes from.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAIRS = 15


def dumbbell_toml(vcs: int, mbps: float, duration_s: float) -> str:
    """``bench.rs``'s ``dumbbell(15, vcs, mbps, length_km = 1000, stagger = true, duration)`` as a
    scenario file."""
    n = PAIRS * vcs
    interval_s = 424.0 / (mbps * 1e6)
    out = [
        'description = "benchmark (issue 27): atmsim-bench case (c) or (d) through atmsim run"',
        "[run]", f"duration_s = {duration_s!r}", "sample_interval_s = 0.01", "",
        '[[nodes]]\nname = "A"\nkind = "switch"\nbuffer_cells = 10000\n',
        '[[nodes]]\nname = "B"\nkind = "switch"\n',
    ]
    links = []
    conns = []
    for i in range(1, PAIRS + 1):
        out.append(f'[[nodes]]\nname = "s{i}"\nkind = "host"\n\n[[nodes]]\nname = "d{i}"\nkind = "host"\n')
        links.append(f'[[links]]\na = "s{i}"\nb = "A"\nrate_mbps = 149.76\nlength_km = 1.0\n')
        links.append(f'[[links]]\na = "B"\nb = "d{i}"\nrate_mbps = 149.76\nlength_km = 1.0\n')
        for v in range(vcs):
            k = v * PAIRS + (i - 1)
            name = f"c{i}" if vcs == 1 else f"c{i}v{v}"
            start = ""
            if k > 0:
                start_ps = round(interval_s * 1e12 * k / n)
                start = f", start_s = {start_ps / 1e12!r}"
            conns.append(
                f'[[connections]]\nname = "{name}"\nroute = ["s{i}", "A", "B", "d{i}"]\ncategory = "ubr"\n'
                f'source = {{ kind = "persistent", peak_mbps = {mbps!r}{start} }}\n'
            )
    links.append('[[links]]\na = "A"\nb = "B"\nrate_mbps = 149.76\nlength_km = 1000.0\n')
    return "\n".join(out + links + conns)


def run_child(scenario: Path, out: Path) -> dict[str, float]:
    """``atmsim run`` in a child process: its CPU seconds, peak RSS and the summary's figures."""
    cmd = [sys.executable, "-m", "atmsim", "run", str(scenario), "--quiet", "--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"bench_front: {' '.join(cmd)} failed (exit {proc.returncode}): {err.strip()}")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    cpu = ru.ru_utime + ru.ru_stime
    return {
        "cpu_s": cpu,
        "wall_s": wall,
        "peak_rss_bytes": ru.ru_maxrss * 1024,
        "cell_hops": summary["cell_hops"],
        "connections": len(summary["connections"]),
        "cell_hops_per_cpu_s": summary["cell_hops"] / cpu,
        "core_wall_s": summary["wall_time_s"],
    }


PHASES = """
import json, sys, tempfile
from pathlib import Path

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

import pyarrow.parquet  # noqa: F401 - the imports of a run, before the first figure
from atmsim import _core
from atmsim.api import prepare
from atmsim.result import SeriesSink
from atmsim.scenario import document_json
out = {"imports": peak()}
doc, prov = prepare(sys.argv[1])
out["scenario read (TOML to a dict)"] = peak()
text = document_json(doc, prov)
sim = _core.Simulation(text)
out["built"] = peak()
tmp = Path(tempfile.mkdtemp())
sink = SeriesSink(tmp)
while True:
    done = sim.advance(2_000_000, _core.SERIES_SLICE_ROWS)
    sink.add_buffers(sim.drain_series_buffers(), sim)
    if done:
        break
sink.close(sim.series_tables())
out["ran, series written"] = peak()
sim.write_summary(tmp / "summary.json", "{}")
out["summary.json written"] = peak()
print(json.dumps(out))
"""


def phases(files: dict[str, Path]) -> None:
    """Peak RSS after each phase of a run (in a child per case, the steps of ``api.run_document``
    made one by one), and the growth of (d) over (c) per VC: where the memory per VC is."""
    import subprocess

    got = {c: json.loads(subprocess.run([sys.executable, "-c", PHASES, str(f)], check=True, capture_output=True,
                                        text=True).stdout) for c, f in files.items()}
    vcs = 15_000 - 15
    print("peak RSS after each phase, MB (c) / (d), and (d) - (c) per VC:")
    for k in got["c"]:
        c, d = got["c"][k], got["d"][k]
        print(f"  {k:<32} {c / 2**20:7.1f} {d / 2**20:7.1f}  {(d - c) / vcs:7,.0f} B/VC")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=1.0, help="simulated seconds (default 1)")
    ap.add_argument("--no-write", action="store_true", help="do not touch target/bench.json")
    ap.add_argument("--phases", action="store_true",
                    help="only the peak RSS after each phase of a run (no timing, nothing written)")
    a = ap.parse_args(argv)
    if a.rounds < 1 or not a.duration > 0:
        ap.error("--rounds must be >= 1 and --duration > 0")
    cases = {"c": (1, 12.0), "d": (1000, 0.012)}
    runs: dict[str, list[dict[str, float]]] = {c: [] for c in cases}
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for case, (vcs, mbps) in cases.items():
            files[case] = Path(tmp) / f"case_{case}.toml"
            files[case].write_text(dumbbell_toml(vcs, mbps, a.duration), encoding="utf-8")
        if a.phases:
            phases(files)
            return 0
        for r in range(a.rounds):
            for case in cases:
                res = run_child(files[case], Path(tmp) / f"out_{case}_{r}")
                runs[case].append(res)
                print(f"  round {r + 1} ({case}) {res['connections']:>6} VCs: {res['cpu_s']:6.2f} s CPU, "
                      f"{res['wall_s']:6.2f} s wall, {res['cell_hops_per_cpu_s'] / 1e6:6.2f} M cell-hops/CPU-s, "
                      f"peak RSS {res['peak_rss_bytes'] / 2**20:6.1f} MB", flush=True)
    med = {c: {k: statistics.median(r[k] for r in runs[c]) for k in runs[c][0]} for c in cases}
    ratios = [d["cell_hops_per_cpu_s"] / c["cell_hops_per_cpu_s"] for c, d in zip(runs["c"], runs["d"])]
    vcs = med["d"]["connections"] - med["c"]["connections"]
    per_vc = (med["d"]["peak_rss_bytes"] - med["c"]["peak_rss_bytes"]) / vcs
    speed_ratio = statistics.median(ratios)
    print(f"(d) 15,000 VCs through atmsim run, speed / 15 VCs: {speed_ratio:.3f} (goal >= 0.5)")
    print(f"(d) through atmsim run, peak RSS per VC: {per_vc:,.0f} bytes (goal <= 2048)")
    if not a.no_write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_seed004 import merge_bench_json

        merge_bench_json({
            "duration_s": a.duration, "rounds": a.rounds, "c": med["c"], "d": med["d"],
            "speed_d_over_c_per_round": ratios, "speed_d_over_c": speed_ratio,
            "peak_rss_per_vc_bytes": per_vc,
        }, key="front")
        print("wrote the front key of target/bench.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
