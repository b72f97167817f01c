"""`atmsim reproduce`: the shared mechanism and the seed003 experiment."""

from __future__ import annotations

import csv
import math
import json
from pathlib import Path

import pytest

import atmsim
from atmsim import reproduce as rep
from atmsim.cli import main
from atmsim.errors import ScenarioError
from atmsim.reproduce import seed003

from conftest import REPO

SEED003 = REPO / "scenarios" / "seed003"


def test_registry_and_reference_data() -> None:
    assert "seed003" in rep.experiment_names()
    exp = rep.get_experiment("seed003")
    ref = rep.load_reference(exp)
    assert (REPO.parent / "shared" / "seeds" / ref["seed_file"]).name == exp.seed_file
    ids = [r["id"] for r in ref["reference"]]
    assert len(ids) == len(set(ids))
    for r in ref["reference"]:
        assert r["config"] in seed003.SCENARIOS, r
        assert r.get("where"), r
        kinds = [k for k in ("published", "maxmin", "formula", "settle", "port", "last_data") if k in r]
        assert kinds, f"reference {r['id']} has no value and nothing to measure"
        if "published" in r or "maxmin" in r or "formula" in r:
            assert r.get("quote"), f"reference {r['id']} has a value but no quote"
    with pytest.raises(ScenarioError, match="no experiment named 'nope'; available: paper000, paper001, paper002, paper003, paper004"):
        rep.get_experiment("nope")


def test_quick_and_full_run_lists() -> None:
    quick = seed003.runs(True)
    full = seed003.runs(False)
    assert sorted({s.params["nrm"] for s in quick}) == [8, 32, 256]
    assert sorted({s.params["nrm"] for s in full}) == [2, 4, 8, 16, 32, 64, 128, 256]
    assert {s.params["config"] for s in full} == {"transient", "fairness"}
    assert len(full) == 16 and len(quick) == 6


def test_abr_keys_reach_every_abr_connection() -> None:
    spec = rep.RunSpec("t", "seed003/fairness.toml", abr={"nrm": 8})
    doc, _ = rep.resolve_run(spec)
    assert [c["abr"]["nrm"] for c in doc["connections"]] == [8] * 17


def test_seed003_scenarios_take_nrm_from_set() -> None:
    doc, _ = atmsim.load_scenario(SEED003 / "transient.toml", ["connections.s1.abr.nrm=8"])
    assert doc["connections"][0]["abr"]["nrm"] == 8 and doc["connections"][1]["abr"]["nrm"] == 32
    with pytest.raises(ScenarioError) as e:
        atmsim.load_scenario(SEED003 / "transient.toml", ["connections.s1.abr.nrm=7"])
    assert e.value.file == "--set" and e.value.path == "connections[0].abr.nrm"


@pytest.mark.parametrize(
    "path", sorted(SEED003.glob("*.toml")) + sorted((REPO / "scenarios" / "examples").glob("abr-*.toml")), ids=lambda p: p.name
)
def test_abr_scenarios_validate_and_cite(path: Path) -> None:
    doc, _ = atmsim.load_scenario(path)
    assert doc["description"]
    if path.parent.name == "seed003":
        assert "Seed 003" in doc["description"] and "ATM Forum/98-0807" in doc["description"]
    assert any(c["category"] == "abr" for c in doc["connections"])


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_reproduce_seed003_quick_cli(tmp_path: Path, capsys) -> None:
    out = tmp_path / "rep"
    assert main(["reproduce", "seed003", "--quick", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"wrote {out}" in captured.out
    assert "quantity" in captured.out and "published" in captured.out
    assert "[6/6]" in captured.err
    report = (out / "report.md").read_text()
    assert "003_292a67b7518dce36.txt" in report and "| quantity | run | published | ours | difference | source |" in report
    rows = _read_csv(out / "comparison.csv")
    assert list(rows[0]) == list(rep.COLUMNS) + list(rep.CSV_EXTRA)
    runs = {r["run"] for r in rows}
    assert {"transient-nrm8", "transient-nrm32", "transient-nrm256", "fairness-nrm8", "fairness-nrm256"} <= runs
    by = {(r["quantity"], r["run"]): r for r in rows}
    # published values come from the seed text / max-min formula, never from our outputs
    assert float(by[("s1 settled ACR, alone (Mb/s)", "transient-nrm32")]["published"]) == 140.0
    assert float(by[("s1 settled ACR, with s2 (Mb/s)", "transient-nrm8")]["published"]) == 70.0
    assert float(by[("c1 settled ACR (Mb/s)", "fairness-nrm32")]["published"]) == pytest.approx(9.3312)
    assert float(by[("c16 settled ACR (Mb/s)", "fairness-nrm32")]["published"]) == pytest.approx(65.3184)
    assert float(by[("s1 RM overhead (RM cells / cells sent)", "transient-nrm8")]["published"]) == 0.125
    # every measured value is there, and the difference is ours - published
    for r in rows:
        if r["published"] and r["ours"] and r["difference"]:
            assert float(r["difference"]) == pytest.approx(float(r["ours"]) - float(r["published"]))
        assert r["source"].startswith("003_292a67b7518dce36.txt")
    for q in ("s1 settled ACR, alone (Mb/s)", "c1 settled ACR (Mb/s)", "s1 RM overhead (RM cells / cells sent)"):
        for nrm in (8, 32, 256):
            run = ("transient" if q.startswith("s1") else "fairness") + f"-nrm{nrm}"
            assert by[(q, run)]["ours"] != "", (q, run)
    # the RM overhead the sources measure is 1/Nrm (TM 4.0 rule 3a)
    for nrm in (8, 32, 256):
        assert float(by[("s1 RM overhead (RM cells / cells sent)", f"transient-nrm{nrm}")]["ours"]) == pytest.approx(1 / nrm, rel=0.02)
    # the model settles where ERICA's target and max-min fairness say: s1 at 0.9 x 155.52 alone,
    # half of it each with s2; in the fairness configuration c1, c16, c17 at the max-min rates for
    # every Nrm (the seed: Nrm 256 converges too, only more slowly)
    for nrm in (8, 32, 256):
        run = f"transient-nrm{nrm}"
        assert float(by[("s1 settled ACR, alone (Mb/s)", run)]["ours"]) == pytest.approx(0.9 * 155.52, rel=0.01)
        assert float(by[("s1 settled ACR, with s2 (Mb/s)", run)]["ours"]) == pytest.approx(0.45 * 155.52, rel=0.01)
        assert float(by[("s1 settled ACR, after s2 stops (Mb/s)", run)]["ours"]) == pytest.approx(0.9 * 155.52, rel=0.01)
    for nrm in (8, 32, 256):
        assert float(by[("c1 settled ACR (Mb/s)", f"fairness-nrm{nrm}")]["ours"]) == pytest.approx(0.9 * 155.52 / 15, rel=0.05)
        assert float(by[("c16 settled ACR (Mb/s)", f"fairness-nrm{nrm}")]["ours"]) == pytest.approx(
            (0.9 * 155.52 - 0.9 * 155.52 / 15) / 2, rel=0.05
        )
        assert by[("c1 settle time, from start (ms)", f"fairness-nrm{nrm}")]["ours"] != ""
        # Sw1's first load factor is the feed over ERICA's target: 15 sources x 10 Mb/s of data in
        # 9180-byte frames (192 cells) plus one RM cell in Nrm, over 0.9 x 155.52 (the seed: "starts
        # at around 1.3"); at the end it is close to 1
        z0 = 15 * 10 * 192 * 53 / 9180 * nrm / (nrm - 1) / (0.9 * 155.52)
        assert float(by[("Sw1->Sw2 load factor z, first 25 ms", f"fairness-nrm{nrm}")]["ours"]) == pytest.approx(z0, rel=0.05)
        assert float(by[("Sw1->Sw2 load factor z, last 50 ms", f"fairness-nrm{nrm}")]["ours"]) == pytest.approx(1.0, abs=0.02)
    # s2 is a fixed volume: its application hands 150 Mb/s x (0.7933 - 0.7) s of cells to the ABR
    # source, and every one of them is delivered (none dropped, none left), whatever Nrm is; the
    # time it takes grows as Nrm shrinks (the RM cells take a larger share of the ACR)
    volume = 150e6 * (0.7933333333333333 - 0.7) / 424
    for nrm in (8, 32, 256):
        summary = json.loads((out / "runs" / f"transient-nrm{nrm}" / "summary.json").read_text())
        s2 = summary["connections"]["s2"]
        assert abs(s2["cells_sent"] - s2["rm_cells_sent"] - volume) <= 1  # data cells; the rest are FRMs
        assert s2["cells_delivered"] == s2["cells_sent"] and s2["cells_dropped"] == s2["cells_in_flight"] == 0
    verdict = by[("s2 time from its start to its last delivered data (ms): ordering by Nrm", "transient-all")]
    assert verdict["published"] == "longer for smaller Nrm" and verdict["ours"].startswith("yes")
    # the seed states no ordering for s1 alone ("In all cases, source 1 ACR quickly comes down"):
    # the row does not claim one
    alone = by[("s1 settle time, alone: ordering by Nrm", "transient-all")]
    assert "faster for smaller Nrm" not in alone["published"]
    # every claim row (published text: the seed's qualitative statement) is judged
    claims = [r for r in rows if r["published"] and not _is_number(r["published"])]
    assert len(claims) == 8 and all(r["held"] in ("true", "false") for r in claims), claims
    assert alone["held"] == "true" and alone["ours"].startswith("settled for every Nrm")
    # plots: one per run (Figures 6-11) and the by-Nrm overlays; the runs' results
    for name in ("transient-nrm8", "transient-nrm32", "transient-nrm256", "fairness-nrm8", "fairness-nrm32", "fairness-nrm256"):
        assert (out / "plots" / f"{name}.png").stat().st_size > 0
        summary = json.loads((out / "runs" / name / "summary.json").read_text())
        assert (out / "runs" / name / "abr_sources.parquet").is_file()
        assert summary["connections"]["s1" if name.startswith("t") else "c1"]["acr_final_mbps"] > 0
    assert (out / "plots" / "transient-s1-acr-by-nrm.png").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".rep.")], "temporary directories left"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_ordering_verdict() -> None:
    from atmsim.reproduce.seed003 import ordering_verdict

    assert ordering_verdict([0.01, 0.02, 0.05]) == "yes"
    assert ordering_verdict([0.01, 0.01, math.nan]) == "yes"  # the largest Nrm never settled
    assert ordering_verdict([0.0235, 0.0235, 0.0235]) == "equal"
    assert ordering_verdict([0.02, 0.01, 0.03]) == "no"
    assert ordering_verdict([math.nan, math.nan]) == "n/a (never settled)"
    # "longer for smaller Nrm": never increasing with Nrm, the smallest strictly longest
    assert ordering_verdict([0.209, 0.189, 0.184], decreasing=True) == "yes"
    assert ordering_verdict([0.184, 0.189, 0.209], decreasing=True) == "no"
    assert ordering_verdict([0.2, 0.2], decreasing=True) == "equal"


def _short_runs() -> list[rep.RunSpec]:
    """Two shortened seed003 runs (transient to 0.8 s, fairness to 0.6 s)."""
    return [
        rep.RunSpec("transient-nrm32", "seed003/transient.toml", {"run.duration_s": 0.8}, {"nrm": 32}, {"config": "transient", "nrm": 32}),
        rep.RunSpec("fairness-nrm32", "seed003/fairness.toml", {"run.duration_s": 0.6}, {"nrm": 32}, {"config": "fairness", "nrm": 32}),
    ]


def test_reproduce_parallel_matches_sequential(tmp_path: Path) -> None:
    a = rep.reproduce("seed003", out=tmp_path / "a", jobs=1, runs=_short_runs())
    b = rep.reproduce("seed003", out=tmp_path / "b", jobs=2, runs=_short_runs())
    strip = lambda rows: [(r.quantity, r.run, r.published, str(r.ours)) for r in rows]  # noqa: E731
    assert strip(a.rows) == strip(b.rows)
    assert (tmp_path / "b" / "report.md").is_file() and (tmp_path / "b" / "comparison.csv").is_file()


def test_failed_reproduction_keeps_earlier_output(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "rep"
    rep.reproduce("seed003", out=out, runs=_short_runs()[:1])
    before = (out / "comparison.csv").read_text()

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    exp = rep.get_experiment("seed003")
    monkeypatch.setattr(seed003, "EXPERIMENT", rep.replace(exp, plots=boom))
    with pytest.raises(KeyboardInterrupt):
        rep.reproduce("seed003", out=out, runs=_short_runs()[:1])
    assert (out / "comparison.csv").read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["rep"], "temporary directories left"


def test_bad_input_fails_before_running(tmp_path: Path, capsys) -> None:
    out = tmp_path / "rep"
    bad = [rep.RunSpec("x", "seed003/transient.toml", {}, {"nrm": 12}, {"config": "transient", "nrm": 12})]
    with pytest.raises(ScenarioError) as e:
        rep.reproduce("seed003", out=out, runs=bad)
    assert e.value.path == "connections[0].abr.nrm"
    assert not out.exists() and not list(tmp_path.iterdir())
    assert main(["reproduce", "nope", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == "atmsim: error: no experiment named 'nope'; available: paper000, paper001, paper002, paper003, paper004"
    assert main(["reproduce", "seed003", "--jobs", "0", "--out", str(out)]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1
    assert not out.exists()
    afile = tmp_path / "file"
    afile.write_text("x")
    assert main(["reproduce", "seed003", "--quick", "--out", str(afile)]) == 2
    assert capsys.readouterr().err.strip() == f"atmsim: error: {afile}: output path exists and is not a directory"


def test_list(capsys) -> None:
    assert main(["reproduce", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["paper000", "paper001", "paper002", "paper003", "paper004"]
    assert all(not line.split(": ", 1)[1].startswith(line.split(":")[0]) for line in lines), "name printed twice"


def test_paper_and_seed_names_are_one_experiment() -> None:
    """Issue 29: the experiments are spoken of as paper NNN (not 'seed', read as a random seed);
    the old names still work."""
    assert rep.get_experiment("paper003") is rep.get_experiment("seed003")
    assert rep.public_names() == ["paper000", "paper001", "paper002", "paper003", "paper004"]
    with pytest.raises(ScenarioError, match="available: paper000"):
        rep.get_experiment("paper009")


def test_seed003_ordering_rows_carry_their_verdict() -> None:
    """A stated ordering holds only when the times bear it out ('yes'); 'equal', 'no' and no run
    settled do not. Where the seed states no ordering, the row holds when every Nrm settles."""
    from atmsim.reproduce.seed003 import _held, _settled_in_all, ordering_verdict

    assert _held(ordering_verdict([1.0, 2.0, 3.0])) is True
    assert _held(ordering_verdict([3.0, 2.0, 1.0])) is False
    assert _held(ordering_verdict([2.0, 2.0])) is False
    assert _held(ordering_verdict([math.nan, math.nan])) is False
    assert _settled_in_all([0.0235, 0.0235, 0.0235]) is True
    assert _settled_in_all([0.02, math.nan]) is False
