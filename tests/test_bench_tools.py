"""The benchmark's Python writers (issue 27 item 7): every writer of ``target/bench.json`` keeps
the others' keys, issue 27's table computes each figure from the keys it names, and the front
end's two scenario files carry the same load. ``make bench`` itself is not run here (it takes
many minutes and its figures are the machine's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))

import bench_front  # noqa: E402
import bench_seed004  # noqa: E402
import bench_table  # noqa: E402


def test_merge_keeps_the_other_writers_keys(tmp_path: Path) -> None:
    path = tmp_path / "bench.json"
    bench_seed004.merge_bench_json({"x": 1}, path, key="front")
    assert json.loads(path.read_text()) == {"front": {"x": 1}}
    path.write_text(json.dumps({"core": {"a": {"cell_hops_per_s": 2.0}}, "front": {"old": True}}))
    bench_seed004.merge_bench_json({"x": 2}, path, key="front")
    assert json.loads(path.read_text()) == {"core": {"a": {"cell_hops_per_s": 2.0}}, "front": {"x": 2}}
    for text in ("[1]", "not json"):
        path.write_text(text)
        with pytest.raises(SystemExit):
            bench_seed004.merge_bench_json({"x": 3}, path, key="front")
        assert path.read_text() == text


def test_table_reads_each_figure_from_its_keys() -> None:
    data = {
        "core": {"a": {"cell_hops_per_s": 40e6, "speed_over_reference": 0.8, "instructions_per_cell_hop": 390.0},
                 "f": {"cell_hops_per_s": 10e6}},
        "front": {"speed_d_over_c": 0.55, "peak_rss_per_vc_bytes": 3000.0},
        "reproduce": {"wall_s": 250.0, "peak_tree_rss_bytes": 2 * 2**30},
    }
    rows = {r["figure"]: r for r in bench_table.table(data)}
    assert len(rows) == len(bench_table.ROWS)
    f = rows["(f) seed 000 satellite, speed / (a)"]
    assert (f["value"], f["met"]) == (0.25, False)
    assert rows["(a) instructions per cell-hop"]["met"] is True
    assert rows["(a) speed / reference, same run"]["met"] is False
    assert rows["(d) 15,000 VCs through atmsim run, speed / 15 VCs"]["met"] is True
    assert rows["(d) through atmsim run, peak RSS per VC, bytes"]["met"] is False
    assert rows["full atmsim reproduce seed000, 2 cores, wall s"]["met"] is True
    assert rows["full atmsim reproduce seed000, peak RSS, MB (process tree)"]["value"] == 2048
    # what no writer measured is shown as such, not as a number
    for figure in ("seed 004 Cisco / Fore, instructions per cell-hop", "32-switch chain at 1,000 km, speed / 8-switch chain"):
        assert rows[figure]["value"] is None and rows[figure]["met"] is None


def test_front_cases_carry_the_same_load(tmp_path: Path) -> None:
    """(c) and (d) as files: 15 and 15,000 VCs, the same cells over every link (each host pair's
    12 Mb/s is one VC or 1,000 of 0.012 Mb/s, starts spread over the cell interval)."""
    results = {}
    for case, (vcs, mbps) in {"c": (1, 12.0), "d": (1000, 0.012)}.items():
        path = tmp_path / f"{case}.toml"
        path.write_text(bench_front.dumbbell_toml(vcs, mbps, 0.02), encoding="utf-8")
        results[case] = atmsim.run(str(path)).summary
    assert len(results["c"]["connections"]) == 15 and len(results["d"]["connections"]) == 15_000
    assert results["c"]["cell_hops"] == results["d"]["cell_hops"] > 0
    ports = lambda s: {p: (v["cells_transmitted"], v["cells_dropped"]) for p, v in s["ports"].items()}  # noqa: E731
    assert ports(results["c"]) == ports(results["d"])


def test_make_test_does_not_run_the_benchmark() -> None:
    out = subprocess.run(["make", "-n", "test"], cwd=REPO, capture_output=True, text=True).stdout
    assert "bench" not in out
