"""Studies (issue 17): sweeps with replications, the results store, resuming, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim.cli import main
from atmsim.errors import ScenarioError, SimulationError
from atmsim.study import derive_seed, t_interval
from atmsim.study.spec import parse_values, toml_value
from atmsim.study.store import flatten

from conftest import EXAMPLES, REPO, onoff_scenario, write_toml

VENV_BIN = Path(sys.executable).parent
PEAK = "connections.vbr.source.peak_mbps"
THROUGHPUT = "connections.vbr.throughput_mbps"


def _strip(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "wall_time_s"}


@pytest.fixture
def onoff_file(tmp_path: Path) -> Path:
    return write_toml(tmp_path / "onoff.toml", onoff_scenario(0.05))


def test_axis_values_and_seeds() -> None:
    assert parse_values("range(10, 50, 10)", "w", "k") == [10, 20, 30, 40, 50]
    assert parse_values("range(0.1, 0.3, 0.1)", "w", "k") == [0.1, 0.2, 0.3]
    assert parse_values("geom(2, 256, 2)", "w", "k") == [2, 4, 8, 16, 32, 64, 128, 256]
    assert parse_values("linspace(0, 1, 5)", "w", "k") == [0, 0.25, 0.5, 0.75, 1.0]
    assert parse_values("[1, 2.5]", "w", "k") == [1, 2.5]
    for bad in ("[]", "range(5, 1, 1)", "linspace(0, 1, 0)", "geom(0, 4, 2)", "oops"):
        with pytest.raises(ScenarioError):
            parse_values(bad, "w", "k")
    seeds = [derive_seed(7, r) for r in range(50)]
    assert len(set(seeds)) == 50 and all(0 <= s < 2**63 for s in seeds)
    assert seeds == [derive_seed(7, r) for r in range(50)]  # deterministic
    assert derive_seed(8, 0) != seeds[0]


def test_t_interval_closed_form() -> None:
    # n = 4, mean 2.5, sd = sqrt(5/3); t(0.975, 3) = 3.182446305284263
    ci = t_interval([1, 2, 3, 4], 0.95)
    assert ci["mean"] == 2.5 and ci["n"] == 4
    assert ci["sd"] == pytest.approx((5 / 3) ** 0.5)
    assert ci["half_width"] == pytest.approx(3.182446305284263 * (5 / 3) ** 0.5 / 2)


def test_sweep_runs_equal_single_runs(onoff_file: Path, tmp_path: Path, capsys) -> None:
    """Each stored run is what `atmsim run` gives with the same overrides and seed."""
    out = tmp_path / "study"
    assert main(["sweep", str(onoff_file), "--grid", f"{PEAK}=[60, 100]", "-r", "2", "-m", THROUGHPUT,
                 "--out", str(out), "-j", "2", "-q"]) == 0
    capsys.readouterr()
    table = atmsim.results(out)
    assert len(table) == 4 and set(table["status"]) == {"ok"}
    assert sorted(table[f"set.{PEAK}"]) == [60, 60, 100, 100]
    for row in table.to_dict("records"):
        single = tmp_path / f"single-{row['run_id']}"
        assert main(["run", str(onoff_file), "--set", f"{PEAK}={toml_value(row[f'set.{PEAK}'])}",
                     "--seed", str(row["seed"]), "--out", str(single), "-q"]) == 0
        ours = json.loads((single / "summary.json").read_text())
        stored = json.loads((out / "series" / f"run_id={row['run_id']}" / "summary.json").read_text())
        assert _strip(stored) == _strip(ours)
        flat = flatten(ours)
        assert row[THROUGHPUT] == flat[THROUGHPUT]
        assert row["ports.S->h2.max_queue_cells"] == flat["ports.S->h2.max_queue_cells"]
        for name in ("ports", "connections"):
            pd.testing.assert_frame_equal(
                pd.read_parquet(out / "series" / f"run_id={row['run_id']}" / f"{name}.parquet"),
                pd.read_parquet(single / f"{name}.parquet"),
            )
    capsys.readouterr()


def test_replications_differ_and_cover_the_long_run_mean(onoff_file: Path, tmp_path: Path) -> None:
    """10 replications of 50 ms of an exponential ON-OFF source (2 ms period): their throughputs
    differ, and the 99% t interval holds the mean of one 2 s run (40x longer)."""
    res = atmsim.sweep(onoff_file, tmp_path / "s", replications=10, seed=11, metrics=[THROUGHPUT], confidence=0.99, jobs=2)
    values = res.runs[THROUGHPUT].tolist()
    assert len(set(values)) == 10 and len(set(res.runs["seed"])) == 10
    row = res.points.iloc[0]
    assert row["n"] == 10 and row["half_width"] > 0
    long = atmsim.run(onoff_file, overrides={"run.duration_s": 2.0, "run.sample_interval_s": 0.01}, seed=99)
    long_mean = long.summary["connections"]["vbr"]["throughput_mbps"]
    assert row["low"] <= long_mean <= row["high"], (row.to_dict(), long_mean)


def test_duckdb_query_equals_pandas(onoff_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "s"
    atmsim.sweep(onoff_file, out, grid={PEAK: [50, 80, 100]}, replications=2, metrics=[THROUGHPUT], jobs=2)
    assert not list((out / "table").iterdir()), "rows left out of runs.parquet"
    frame = pd.read_parquet(out / "runs.parquet")
    by_pandas = frame.groupby(f"set.{PEAK}")[THROUGHPUT].mean().sort_index()
    q = atmsim.results(out, f'SELECT "set.{PEAK}" AS peak, avg("{THROUGHPUT}") AS m FROM runs GROUP BY peak ORDER BY peak')
    assert q["peak"].tolist() == by_pandas.index.tolist()
    assert q["m"].tolist() == pytest.approx(by_pandas.tolist(), rel=1e-12)
    # the series, partitioned by run
    parts = []
    for d in (out / "series").iterdir():
        p = pd.read_parquet(d / "ports.parquet")
        p["run_id"] = d.name.removeprefix("run_id=")
        parts.append(p)
    ports = pd.concat(parts)
    expect = ports.groupby("run_id")["queue_cells"].max().sort_index()
    got = atmsim.results(out, "SELECT run_id, max(queue_cells) AS q FROM ports GROUP BY run_id ORDER BY run_id")
    assert got["run_id"].tolist() == expect.index.tolist() and got["q"].tolist() == expect.tolist()
    # every scalar of each summary is a column of its row (but the network kept for drawing)
    from atmsim.study.execute import NOT_STORED

    row = frame.iloc[0].to_dict()
    summary = json.loads((out / "series" / f"run_id={row['run_id']}" / "summary.json").read_text())
    assert any(k.startswith(NOT_STORED) for k in flatten(summary))
    for key, value in flatten(summary).items():
        if key not in ("seed", "wall_time_s") and not key.startswith(NOT_STORED):
            assert row[key] == value, key


def test_study_file_zip_and_cross(tmp_path: Path, onoff_file: Path) -> None:
    study = tmp_path / "study.toml"
    study.write_text(
        '[study]\nscenario = "onoff.toml"\nreplications = 1\nseed = 3\nmetrics = ["connections.vbr.throughput_mbps"]\n'
        '[study.grid]\n"connections.ubr.source.peak_mbps" = "range(20, 40, 20)"\n'
        '[study.zip]\n"connections.vbr.source.peak_mbps" = [50, 100, 120]\n"connections.vbr.source.duty_cycle" = [0.2, 0.4, 0.6]\n'
    )
    res = atmsim.sweep(study, tmp_path / "out", jobs=1)
    got = sorted(zip(res.runs["set.connections.ubr.source.peak_mbps"], res.runs[f"set.{PEAK}"],
                     res.runs["set.connections.vbr.source.duty_cycle"]))
    assert got == sorted((u, p, d) for u in (20, 40) for p, d in ((50, 0.2), (100, 0.4), (120, 0.6)))
    spec = json.loads((tmp_path / "out" / "study.json").read_text())
    assert spec["kind"] == "sweep" and spec["spec"]["zip"][PEAK] == [50, 100, 120]


def test_until_adds_replications_up_to_the_target_or_cap(onoff_file: Path, tmp_path: Path) -> None:
    res = atmsim.sweep(onoff_file, tmp_path / "s", grid={PEAK: [60, 100]}, replications=2, metrics=[THROUGHPUT],
                       until=(THROUGHPUT, 0.08), max_replications=12, jobs=2)
    for row in res.points.to_dict("records"):
        assert 2 <= row["n"] <= 12
        assert row["rel_half_width"] < 0.08 or row["n"] == 12
        assert row["n"] > 2  # 2 replications of this scenario are far from 8%
    # started again: nothing more to run
    again = atmsim.sweep(onoff_file, tmp_path / "s", grid={PEAK: [60, 100]}, replications=2, metrics=[THROUGHPUT],
                         until=(THROUGHPUT, 0.08), max_replications=12, jobs=2)
    assert again.ran == 0 and len(again.runs) == len(res.runs)


def test_failed_run_is_recorded_and_the_study_goes_on(onoff_file: Path, tmp_path: Path, monkeypatch) -> None:
    import atmsim.api

    real = atmsim.api.run_document
    bad_seed = derive_seed(1, 1)

    def flaky(doc, prov=None, **kw):
        if doc["run"]["seed"] == bad_seed:
            raise SimulationError("simulation failed: injected")
        return real(doc, prov, **kw)

    monkeypatch.setattr(atmsim.api, "run_document", flaky)
    res = atmsim.sweep(onoff_file, tmp_path / "s", grid={PEAK: [60, 100]}, replications=3, metrics=[THROUGHPUT], jobs=1)
    failed = res.runs[res.runs["status"] == "failed"]
    assert len(res.runs) == 6 and len(failed) == 2
    assert set(failed["replication"]) == {1} and set(failed["error"]) == {"simulation failed: injected"}
    assert set(res.points["n"]) == {2} and set(res.points["failed"]) == {1}
    # a restart skips them; --retry-failed runs them again (now they pass)
    monkeypatch.setattr(atmsim.api, "run_document", real)
    assert atmsim.sweep(onoff_file, tmp_path / "s", grid={PEAK: [60, 100]}, replications=3, jobs=1).ran == 0
    again = atmsim.sweep(onoff_file, tmp_path / "s", grid={PEAK: [60, 100]}, replications=3, jobs=1, retry_failed=True)
    assert again.ran == 2 and again.failed == 0


def _rows(out: Path) -> dict[str, tuple[str, float]]:
    """Stored rows, read straight from the files (pending row files and runs.parquet): run_id ->
    (worker host:pid, run wall time), which a run done again would change."""
    rows = {}
    if (out / "runs.parquet").is_file():
        for r in pd.read_parquet(out / "runs.parquet").to_dict("records"):
            rows[r["run_id"]] = (r["worker"], r["run_wall_s"])
    for f in (out / "table").glob("*.json") if (out / "table").is_dir() else []:
        try:
            r = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        rows[r["run_id"]] = (r["worker"], r["run_wall_s"])
    return rows


def _wait_group_gone(pgid: int, timeout: float = 30) -> None:
    """Until no process of group ``pgid`` is left (the killed workers are reaped by init)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = []
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[2]) == pgid:
                    left.append(d.name)
        if not left:
            return
        time.sleep(0.05)


def _sweep_cmd(scenario: Path, out: Path) -> list[str]:
    # 16 runs of 2 s simulated: long enough that the sweep is still running when the tests below
    # signal it after its first rows are stored (with 0.3 s runs a fast machine finished first)
    return [str(VENV_BIN / "atmsim"), "sweep", str(scenario), "--grid", f"{PEAK}=range(40, 110, 10)",
            "-r", "2", "--set", "run.duration_s=2", "--out", str(out), "-j", "2", "-q"]


def test_killed_sweep_restarts_without_repeating_or_losing_runs(onoff_file: Path, tmp_path: Path) -> None:
    """SIGKILL to the whole sweep (parent and workers) midway; started again, it runs exactly the
    missing runs: the rows stored before the kill are untouched, all 16 end up stored."""
    out = tmp_path / "s"
    proc = subprocess.Popen(_sweep_cmd(onoff_file, out), start_new_session=True, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while len(_rows(out)) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _wait_group_gone(proc.pid)
    before = _rows(out)
    assert 3 <= len(before) < 16, "the sweep was not killed midway"
    done = subprocess.run(_sweep_cmd(onoff_file, out), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = _rows(out)
    assert len(after) == 16
    assert {k: after[k] for k in before} == before, "a run stored before the kill was run again"
    assert not list((out / "table").iterdir()), "rows left out of runs.parquet"
    assert f"({16 - len(before)} run now, {len(before)} already stored, 0 failed)" in done.stdout
    table = atmsim.results(out)
    assert len(table) == 16 and set(table["status"]) == {"ok"} and table["run_id"].is_unique
    assert sorted(p.name for p in out.iterdir()) == [".atmsim-output.json", "runs.parquet", "series", "study.json", "table"]
    assert not [p for p in (out / "table").iterdir() if p.name.startswith(".")], "temporary files left"
    assert not [p for p in (out / "series").iterdir() if p.name.startswith(".")], "temporary directories left"


def _children(pid: int) -> list[int]:
    kids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"spawn_main" in cmd:
                kids.append(int(d.name))
    return kids


def test_local_worker_killed_runs_are_retried(onoff_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "s"
    proc = subprocess.Popen(_sweep_cmd(onoff_file, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(_rows(out)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = _children(proc.pid)
    assert workers, "no worker process found"
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    table = atmsim.results(out)
    assert len(table) == 16 and set(table["status"]) == {"ok"}


def test_bad_input_one_line_exit_2_nothing_lost(onoff_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "s"
    assert main(["sweep", str(onoff_file), "--grid", f"{PEAK}=[60]", "-r", "1", "--out", str(out), "-q", "-j", "1"]) == 0
    capsys.readouterr()
    before = _rows(out)
    study = (out / "study.json").read_text()
    cases = [
        (["--grid", "connections.vbr.source.nope=[1, 2]"], "--grid: connections[0].source.nope: no such key"),
        (["--grid", "connections.nope.source.peak_mbps=[1]"], "no element named 'nope'"),
        (["--grid", f"{PEAK}=[\"fast\"]"], "invalid type"),
        (["--grid", f"{PEAK}=[]"], "the grid axis is empty"),
        (["--grid", f"{PEAK}=range(5, 1, 1)"], "gives no values"),
        (["-r", "0"], "must be an integer >= 1"),
        (["--until", f"{THROUGHPUT}<0.1"], "--max-replications"),
        (["--grid", f"{PEAK}=[70]", "--dask", "tcp://127.0.0.1:9"], "cannot reach a Dask scheduler at tcp://127.0.0.1:9"),
        (["--grid", f"{PEAK}=[70]", "--seed", "5"], "holds another study"),
        (["--grid", f"{PEAK}=[60]", "-r", "1", "-m", "connections.vbr.nope"], "connections.vbr.nope: not a number in the run summary"),
    ]
    for args, message in cases:
        code = main(["sweep", str(onoff_file), *args, "--out", str(out), "-q", "-j", "1"])
        err = capsys.readouterr().err
        assert code == 2, (args, err)
        assert len(err.strip().splitlines()) == 1 and message in err, (args, err)
        assert "Traceback" not in err
        assert _rows(out) == before, args
    assert (out / "study.json").read_text() == study
    other = tmp_path / "other"
    other.mkdir()
    (other / "mine.txt").write_text("keep")
    assert main(["sweep", str(onoff_file), "--out", str(other), "-q", "-j", "1"]) == 2
    assert "is not a study directory" in capsys.readouterr().err and (other / "mine.txt").read_text() == "keep"
    assert main(["results", "query", str(other), "SELECT 1"]) == 2
    assert "not a study directory" in capsys.readouterr().err
    assert main(["results", "query", str(out), "SELECT nope FROM runs"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_example_study_file_plans() -> None:
    from atmsim.study import make_spec, plan_tasks

    spec = make_spec(REPO / "studies" / "demo-peak.toml")
    assert [p.params["connections.vbr1.source.peak_mbps"] for p in spec.points()] == [50, 60, 70, 80, 90, 100]
    tasks = plan_tasks(spec, Path("/nonexistent"))
    assert len(tasks) == 30 and len({t.run_id for t in tasks}) == 30
    assert {t.doc["run"]["duration_s"] for t in tasks} == {0.5}


def test_sigint_keeps_finished_runs_and_says_how_to_resume(onoff_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "s"
    # a test run started in the background (no job control) inherits SIGINT ignored, and Python
    # keeps an ignored SIGINT ignored: give the child the default disposition (as test_cli does)
    proc = subprocess.Popen(_sweep_cmd(onoff_file, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while len(_rows(out)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    kept = _rows(out)
    assert proc.returncode == 130 and 2 <= len(kept) < 16
    runs = "run" if len(kept) == 1 else "runs"
    assert err.strip().splitlines()[-1] == (
        f"atmsim: interrupted; {len(kept)} {runs} finished and stored in {out.resolve()}; the same command resumes")
    assert len(atmsim.results(out)) == len(kept)
