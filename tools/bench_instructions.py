"""Instructions per cell-hop of scenario files (``make bench``, issue 27's seed 004 row): each file's
core document (``tools/bench_scenario_json.py``'s, as ``atmsim run`` builds it) runs as
``atmsim-bench --one f T`` (``ATMSIM_BENCH_F_JSON`` names the document) under
``valgrind --tool=cachegrind --cache-sim=no`` at two simulated durations T1 < T2, and
instructions per cell-hop is (I(T2) - I(T1)) / (hops(T2) - hops(T1)): building the network and
the run's start cancel out, as in ``atmsim-bench``'s own counts. Without valgrind it says so
and writes nothing (Debian/Ubuntu: ``apt-get install -y valgrind``).

Default: Experiment 3 of seed 004 on both fabrics (``scenarios/seed004/exp3-{fore,cisco}-4to4-n96.toml``,
2 s and 4 s), and the ratio Cisco / Fore (goal <= 1.25). Merged into ``target/bench.json`` under
``instructions``.

    .venv/bin/python tools/bench_instructions.py [--t1 2] [--t2 4] [--no-write] [NAME=SCENARIO.toml ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "target" / "release" / "atmsim-bench"
DEFAULT = {
    "seed004_fore": REPO / "scenarios" / "seed004" / "exp3-fore-4to4-n96.toml",
    "seed004_cisco": REPO / "scenarios" / "seed004" / "exp3-cisco-4to4-n96.toml",
}


def count(document: Path, seconds: float) -> tuple[int, dict]:
    """(instructions, ``--one f`` figures) of one run under cachegrind."""
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         str(BENCH), "--one", "f", repr(seconds)],
        capture_output=True, text=True, env={**os.environ, "ATMSIM_BENCH_F_JSON": str(document)},
    )
    if out.returncode != 0:
        raise SystemExit(f"bench_instructions: atmsim-bench failed under valgrind: {out.stderr.strip()[-1000:]}")
    # cachegrind's summary line: "==pid== I   refs:      1,234,567"
    line = next((ln for ln in out.stderr.splitlines() if "I" in ln and "refs:" in ln), None)
    if line is None:
        raise SystemExit("bench_instructions: no instruction count in valgrind's output")
    return int(line.split("refs:")[1].strip().replace(",", "")), json.loads(out.stdout)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--t1", type=float, default=2.0)
    ap.add_argument("--t2", type=float, default=4.0)
    ap.add_argument("--no-write", action="store_true", help="do not touch target/bench.json")
    ap.add_argument("files", nargs="*", help="NAME=SCENARIO.toml (default: seed 004 Experiment 3, both fabrics)")
    a = ap.parse_args(argv)
    if not 0 < a.t1 < a.t2:
        ap.error("need 0 < --t1 < --t2")
    if shutil.which("valgrind") is None:
        print("bench_instructions: valgrind not found (apt-get install -y valgrind): no instruction counts")
        return 0
    if not BENCH.exists():
        raise SystemExit(f"bench_instructions: {BENCH} missing (cargo build --release -p atmsim-core --bin atmsim-bench)")
    files = dict(f.split("=", 1) for f in a.files) if a.files else {k: str(v) for k, v in DEFAULT.items()}
    from atmsim.api import prepare
    from atmsim.scenario import document_json

    entry: dict = {"t1_s": a.t1, "t2_s": a.t2, "runs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, scenario in files.items():
            doc, prov = prepare(scenario)
            document = Path(tmp) / f"{name}.json"
            document.write_text(document_json(doc, prov), encoding="utf-8")
            (i1, v1), (i2, v2) = count(document, a.t1), count(document, a.t2)
            hops = v2["cell_hops"] - v1["cell_hops"]
            events = v2["events"] - v1["events"]
            r = {"scenario": os.path.relpath(scenario, REPO), "instructions_t1": i1, "instructions_t2": i2,
                 "cell_hops_t1": v1["cell_hops"], "cell_hops_t2": v2["cell_hops"],
                 "instructions_per_cell_hop": (i2 - i1) / hops, "events_per_cell_hop": events / hops}
            entry["runs"][name] = r
            print(f"  {name}: {r['instructions_per_cell_hop']:.1f} instructions, "
                  f"{r['events_per_cell_hop']:.3f} events per cell-hop ({a.t1:g} s and {a.t2:g} s)", flush=True)
    runs = entry["runs"]
    if "seed004_cisco" in runs and "seed004_fore" in runs:
        ratio = runs["seed004_cisco"]["instructions_per_cell_hop"] / runs["seed004_fore"]["instructions_per_cell_hop"]
        entry["seed004_cisco_over_fore"] = ratio
        print(f"seed 004 Cisco / Fore, instructions per cell-hop: {ratio:.3f} (goal <= 1.25)")
    if not a.no_write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_seed004 import merge_bench_json

        merge_bench_json(entry, key="instructions")
        print("wrote the instructions key of target/bench.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
