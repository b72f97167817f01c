"""The table of issue 27 from ``target/bench.json`` (``make bench``'s last step): every figure with
its goal and whether it is met, printed and merged under the key ``issue27``. It measures
nothing itself: each figure comes from the key its writer merged (each ratio's two sides from
one run of one writer), and a figure whose key is missing is shown as not measured, naming the
key it needs.

    .venv/bin/python tools/bench_table.py [--no-write]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCH_JSON = REPO / "target" / "bench.json"


def get(data: dict, path: str) -> Any:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def ratio(data: dict, num: str, den: str) -> float | None:
    a, b = get(data, num), get(data, den)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b:
        return a / b
    return None


#: (figure, how it is computed from target/bench.json (and the keys it reads), goal text, test)
Row = tuple[str, str, Callable[[dict], float | None], str, Callable[[float], bool]]
ROWS: list[Row] = [
    ("(a) instructions per cell-hop", "core.a.instructions_per_cell_hop (atmsim-bench, cachegrind)",
     lambda d: get(d, "core.a.instructions_per_cell_hop"), "<= 400", lambda x: x <= 400),
    ("(ref) instructions per cell-hop", "core.ref.instructions_per_cell_hop",
     lambda d: get(d, "core.ref.instructions_per_cell_hop"), "(the reference)", lambda x: True),
    ("(a) speed / reference, same run", "core.a.speed_over_reference (atmsim-bench, median of rounds)",
     lambda d: get(d, "core.a.speed_over_reference"), ">= 1.0", lambda x: x >= 1.0),
    ("(f) seed 000 satellite, speed / (a)", "core.f.cell_hops_per_s / core.a.cell_hops_per_s",
     lambda d: ratio(d, "core.f.cell_hops_per_s", "core.a.cell_hops_per_s"), ">= 0.6", lambda x: x >= 0.6),
    ("(d) 15,000 VCs through atmsim run, speed / 15 VCs", "front.speed_d_over_c (tools/bench_front.py)",
     lambda d: get(d, "front.speed_d_over_c"), ">= 0.5", lambda x: x >= 0.5),
    ("(d) through atmsim run, peak RSS per VC, bytes", "front.peak_rss_per_vc_bytes",
     lambda d: get(d, "front.peak_rss_per_vc_bytes"), "<= 2048", lambda x: x <= 2048),
    ("seed 004 Cisco / Fore, instructions per cell-hop",
     "instructions.seed004_cisco_over_fore (tools/bench_instructions.py)",
     lambda d: get(d, "instructions.seed004_cisco_over_fore"), "<= 1.25", lambda x: x <= 1.25),
    ("full atmsim reproduce seed000, 2 cores, wall s", "reproduce.wall_s (tools/bench_reproduce.py)",
     lambda d: get(d, "reproduce.wall_s"), "<= 300", lambda x: x <= 300),
    ("full atmsim reproduce seed000, peak RSS, MB (process tree)", "reproduce.peak_tree_rss_bytes",
     lambda d: None if get(d, "reproduce.peak_tree_rss_bytes") is None
     else get(d, "reproduce.peak_tree_rss_bytes") / 2**20, "<= 1024", lambda x: x <= 1024),
    ("32-switch chain at 1,000 km, speed / 8-switch chain", "core.chain32.cell_hops_per_s / core.chain8.cell_hops_per_s",
     lambda d: ratio(d, "core.chain32.cell_hops_per_s", "core.chain8.cell_hops_per_s"), ">= 0.9", lambda x: x >= 0.9),
]


def table(data: dict) -> list[dict[str, Any]]:
    out = []
    for figure, source, value, goal, met in ROWS:
        v = value(data)
        out.append({"figure": figure, "value": v, "goal": goal, "source": source,
                    "met": None if v is None else bool(met(v))})
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-write", action="store_true", help="do not touch target/bench.json")
    a = ap.parse_args(argv)
    data = json.loads(BENCH_JSON.read_text(encoding="utf-8")) if BENCH_JSON.exists() else {}
    rows = table(data)
    print("issue 27, from target/bench.json:")
    for r in rows:
        if r["value"] is None:
            print(f"  {r['figure']:<58} not measured (needs {r['source']})")
        else:
            state = "" if r["goal"].startswith("(") else ("met" if r["met"] else "not met")
            print(f"  {r['figure']:<58} {r['value']:>10.3f}  goal {r['goal']:<8} {state}")
    if not a.no_write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_seed004 import merge_bench_json

        merge_bench_json({"rows": rows}, key="issue27")
        print("wrote the issue27 key of target/bench.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
