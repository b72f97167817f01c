"""Seed 004 benchmark (``make bench``): the largest configuration of ``atmsim reproduce seed004``,
Experiment 3 (Figure 8), 4 senders to 4 receivers, 128 MPEG-1 streams over UDP/AAL5, 220 s
(3 min 40 s) simulated, on both switch fabrics: the Fore ASX-200 (output buffers) and the Cisco
Hyperswitch (credit fabric on a TDM bus).

The runs are the reproduction's own (``atmsim.reproduce.seed004._runs``: the scenario file of
``scenarios/seed004/`` with its connections replaced by ``_connections(4, 4, 128, 24)``), run as
the reproduction runs them (``run_document`` streaming the series into a directory), each in a
child process of its own so that its peak resident memory is its own.

Figures per fabric:
- wall s: the child's ``summary["wall_time_s"]`` (building the simulation and running it, series
  written to a temporary directory; not the Python start-up);
- cell-hops: ``summary["cell_hops"]``, the core's count of cells sent onto a link by any port (the
  senders' host ports and the switch's output ports, each cell once per link it crosses), over the
  whole run, warm-up included; the same counter ``atmsim-bench`` reports. A crossing of the Cisco
  fabric's TDM bus (input buffer to output buffer) is not a hop. cell-hops/s = cell-hops / wall s.
  For reference ``ports_cells`` is the sum of ``summary["ports"][*]["cells_transmitted"]``, the same
  cells counted after the warm-up only;
- events/s: ``summary["events"]`` (events the core processed) / wall s;
- peak RSS: the child's ``getrusage(RUSAGE_SELF).ru_maxrss`` at the end (the Python interpreter,
  the front end's imports and the run); "before run" is the same peak taken once the scenario is
  loaded, just before ``run_document`` (imports and the document only), so the difference is an
  upper bound on what the run itself added.

Prints a table and merges the figures into ``target/bench.json`` under the key ``seed004`` (other
keys are kept; the file is created if absent). Not a timed test: wall figures depend on the
machine and what else runs on it.

    .venv/bin/python tools/bench_seed004.py [--duration S] [--fabric fore|cisco ...]

``--duration`` (or the environment variable ``ATMSIM_BENCH_SEED004_S``) shortens the simulated
time for a quick check (e.g. ``--duration 20``); the default is the seed's 220 s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH_JSON = REPO / "target" / "bench.json"
FABRICS = {"fore": "Fore ASX-200, output-buffered", "cisco": "Cisco Hyperswitch, credits on a TDM bus"}

CHILD = """
import json, resource, sys
from atmsim.api import run_document
from atmsim.reproduce import replace, resolve_run
from atmsim.reproduce.seed004 import FIG8, _runs

fabric, duration, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
name = f"fig8-4to4-{fabric}-n{max(FIG8)}"
(spec,) = [s for s in _runs(quick=False) if s.name == name]
spec = replace(spec, overrides={**spec.overrides, "run.duration_s": duration})
doc, prov = resolve_run(spec)
before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
s = run_document(doc, prov, out=out).summary
print(json.dumps({
    "run": spec.name, "scenario": spec.scenario, "streams": spec.params["streams"],
    "seed": s["seed"], "sim_time_s": s["sim_time_s"], "warmup_s": s["warmup_s"],
    "wall_time_s": s["wall_time_s"], "cell_hops": s["cell_hops"], "events": s["events"],
    "ports_cells": sum(p["cells_transmitted"] for p in s["ports"].values()),
    "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "peak_rss_before_run_kb": before_kb,
}))
"""


def run_one(fabric: str, duration_s: float) -> dict:
    """One configuration in a fresh child process; its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, fabric, repr(float(duration_s)), str(Path(tmp) / "out")],
            capture_output=True, text=True, cwd=REPO,
        )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"bench_seed004: the {fabric} run failed (exit {proc.returncode})")
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    wall = r["wall_time_s"]
    r.update(
        fabric=fabric,
        cell_hops_per_s=r["cell_hops"] / wall,
        events_per_s=r["events"] / wall,
        sim_s_per_wall_s=r["sim_time_s"] / wall,
        peak_rss_bytes=r.pop("peak_rss_kb") * 1024,
        peak_rss_before_run_bytes=r.pop("peak_rss_before_run_kb") * 1024,
    )
    return r


def merge_bench_json(entry: dict, path: Path = BENCH_JSON, key: str = "seed004") -> None:
    """Write ``entry`` under ``key`` in ``path``, keeping every other key (every writer of
    ``target/bench.json`` merges its own key: ``core`` from ``atmsim-bench``, ``memory`` from
    ``tools/bench_memory.py``, ``seed004`` from here)."""
    data: dict = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            raise SystemExit(f"bench: {path} is not JSON; not overwriting it")
        if not isinstance(data, dict):
            raise SystemExit(f"bench: {path} is not a JSON object; not overwriting it")
    data[key] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=float(os.environ.get("ATMSIM_BENCH_SEED004_S", 220.0)),
                    help="simulated seconds (default 220, or $ATMSIM_BENCH_SEED004_S)")
    ap.add_argument("--fabric", choices=sorted(FABRICS), action="append",
                    help="only this fabric (repeatable; default both)")
    ap.add_argument("--no-write", action="store_true", help="do not touch target/bench.json")
    a = ap.parse_args(argv)
    if not a.duration > 0:
        ap.error("--duration must be positive")
    fabrics = a.fabric or list(FABRICS)
    started = dt.datetime.now(dt.timezone.utc)
    print(f"seed004 benchmark: Experiment 3, 4 -> 4, 128 MPEG-1 streams, {a.duration:g} s simulated, "
          f"one child process per fabric", flush=True)
    results = []
    for f in fabrics:
        r = run_one(f, a.duration)
        results.append(r)
        print(f"  {f}: done in {r['wall_time_s']:.1f} s", flush=True)
    print(f"{'fabric':<48} {'wall s':>8} {'cell-hops':>13} {'cell-hops/s':>12} {'events/s':>12} "
          f"{'peak RSS MB':>12} {'before run':>11}")
    for r in results:
        print(f"{r['fabric'] + ' (' + FABRICS[r['fabric']] + ')':<48} {r['wall_time_s']:>8.1f} "
              f"{r['cell_hops']:>13,} {r['cell_hops_per_s'] / 1e6:>10.2f} M {r['events_per_s'] / 1e6:>10.2f} M "
              f"{r['peak_rss_bytes'] / 1e6:>12.1f} {r['peak_rss_before_run_bytes'] / 1e6:>11.1f}")
    print("cell-hops: summary['cell_hops'], cells sent onto a link by any port over the whole run "
          "(warm-up included); wall: build + run in the child")
    if not a.no_write:
        merge_bench_json({
            "started_utc": started.isoformat(timespec="seconds"),
            "duration_s": a.duration,
            "load_average_at_end": list(os.getloadavg()),
            "cpus": os.cpu_count(),
            "runs": {r["fabric"]: r for r in results},
        })
        print(f"wrote the seed004 key of {BENCH_JSON}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
