"""`atmsim reproduce` on the study machinery (issue 17 item 4): runs stored as a study, resumed,
`reproduce all` and its index page."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import atmsim
from atmsim import reproduce as rep
from atmsim.cli import main
from atmsim.reproduce import seed002, seed003


def _seed003_runs(quick: bool = True) -> list[rep.RunSpec]:
    return [
        rep.RunSpec(f"transient-nrm{n}", "seed003/transient.toml", {"run.duration_s": 0.8}, {"nrm": n}, {"config": "transient", "nrm": n})
        for n in (8, 32)
    ]


def test_reproduction_is_a_resumable_study(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    lines: list[str] = []
    first = rep.reproduce("seed003", out=out, runs=_seed003_runs(), jobs=2, log=lines.append)
    assert len([x for x in lines if x.startswith("[")]) == 2
    table = atmsim.results(out)
    assert sorted(table["run"]) == ["transient-nrm32", "transient-nrm8"] and set(table["status"]) == {"ok"}
    for name in ("transient-nrm8", "transient-nrm32"):
        stored = json.loads((out / "runs" / name / "summary.json").read_text())
        row = table[table["run"] == name].iloc[0]
        assert stored["connections"]["s1"]["acr_final_mbps"] == row["connections.s1.acr_final_mbps"]
    stored = atmsim.results(out)[["run_id", "worker", "run_wall_s"]]
    lines.clear()
    again = rep.reproduce("seed003", out=out, runs=_seed003_runs(), jobs=2, log=lines.append)
    assert lines == [f"2 run(s) already stored in {out} were not run again"]
    assert atmsim.results(out)[["run_id", "worker", "run_wall_s"]].equals(stored)  # not run again
    strip = lambda rows: [(r.quantity, r.run, r.published, str(r.ours)) for r in rows]  # noqa: E731
    assert strip(first.rows) == strip(again.rows)
    # another experiment cannot take the directory
    with pytest.raises(atmsim.ScenarioError, match="holds another study"):
        rep.reproduce("seed002", out=out, runs=seed002.runs(True)[:1])


def test_reproduce_all_writes_the_index(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(rep, "EXPERIMENT_MODULES", ("seed003", "seed002"))
    short002 = rep.replace(seed002.runs(True)[0], overrides={"run.duration_s": 1.0})
    monkeypatch.setattr(seed003, "EXPERIMENT", rep.replace(seed003.EXPERIMENT, runs=_seed003_runs))
    monkeypatch.setattr(seed002, "EXPERIMENT", rep.replace(seed002.EXPERIMENT, runs=lambda quick: [short002]))
    out = tmp_path / "all"
    assert main(["reproduce", "all", "--quick", "--out", str(out), "-q", "-j", "2"]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out / 'index.html'}"
    index = json.loads((out / "index.json").read_text())
    assert [e["name"] for e in index["experiments"]] == ["seed003", "seed002"] and index["quick"] is True
    for e in index["experiments"]:
        with open(out / e["name"] / "comparison.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        assert [(r["quantity"], r["run"]) for r in rows] == [(r["quantity"], r["run"]) for r in e["rows"]]
        for r, c in zip(e["rows"], rows):
            # one mechanism: the index carries each row's held (Row.held), as comparison.csv does
            assert r["held"] == {"true": True, "false": False}.get(c["held"])
        assert (out / e["name"] / "report.html").is_file()
    judged = [r for e in index["experiments"] for r in e["rows"] if r["held"] is not None]
    assert judged, "no qualitative claim was judged"
    page = (out / "index.html").read_text()
    assert "seed003" in page and "seed002" in page and ("held" in page)
