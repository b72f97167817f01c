"""Every scenario under scenarios/ still gives the results recorded in tests/regress/baseline.json.

The comparison is tools/regress.py (also `make regress`): each scenario with seeds 1 and 2,
durations capped, every summary scalar and a digest of every series column. A change of results
made on purpose re-records the baseline in the same commit (`make regress-record`).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _tool():
    # imported by name so that the process pool's workers can find its functions
    if str(REPO / "tools") not in sys.path:
        sys.path.insert(0, str(REPO / "tools"))
    return importlib.import_module("regress")


def test_every_scenario_matches_the_baseline() -> None:
    tool = _tool()
    base = json.loads(tool.BASELINE.read_text())
    new = tool.run_all(jobs=2, only=None)
    diffs = tool.compare(base, new, limit=40)
    assert not diffs, "results changed:\n" + "\n".join(diffs)


def test_the_comparison_sees_a_change() -> None:
    tool = _tool()
    base = {"x#seed1": {"summary": {"a": 1.0, "b": 2}, "series": {"ports.q": "abc"}}}
    same = json.loads(json.dumps(base))
    assert tool.compare(base, same, 0) == []
    changed = json.loads(json.dumps(base))
    changed["x#seed1"]["summary"]["a"] = 1.0000000001
    changed["x#seed1"]["series"]["ports.q"] = "abd"
    diffs = tool.compare(base, changed, 0)
    assert len(diffs) == 2 and "summary a" in diffs[0] and "series ports.q" in diffs[1]


def test_only_the_event_count_is_left_out() -> None:
    # the engine's event count is a cost figure (issue 13 removes events on purpose); every other
    # summary value, cell_hops included, is still compared
    tool = _tool()
    base = {"x#seed1": {"summary": {"events": 10, "cell_hops": 5}, "series": {}}}
    fewer = {"x#seed1": {"summary": {"events": 7, "cell_hops": 5}, "series": {}}}
    assert tool.compare(base, fewer, 0) == []
    fewer["x#seed1"]["summary"]["cell_hops"] = 6
    assert tool.compare(base, fewer, 0) == ["x#seed1 summary cell_hops: 5 -> 6"]
