"""The command line: run, validate, schema, plot, --version, python -m atmsim."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from atmsim.cli import main

from conftest import EXAMPLES, REPO, wait_for_core

PORT_KEYS = {
    "node", "to", "rate_mbps", "max_queue_cells", "mean_queue_cells", "utilization",
    "cells_transmitted", "cells_dropped", "drops",
}
CONN_KEYS = {
    "category", "cells_sent", "cells_delivered", "cells_dropped", "cells_in_flight", "throughput_mbps",
    "user_throughput_mbps", "frames_sent", "frames_delivered", "ctd_mean_us", "ctd_max_us", "ctd_min_us",
    "cdv_p2p_us", "clr", "drops",
}


def test_run_writes_summary_and_series(scenario_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert f"wrote {out}" in stdout
    assert "S->h2" in stdout and "c1" in stdout  # the summary tables
    summary = json.loads((out / "summary.json").read_text())
    for key in ("sim_time_s", "cell_hops", "events", "seed", "warmup_s", "ports", "connections", "wall_time_s", "scenario"):
        assert key in summary, key
    assert set(summary["ports"]) >= {"h1->S", "S->h2"}
    assert PORT_KEYS <= set(summary["ports"]["S->h2"])
    assert CONN_KEYS <= set(summary["connections"]["c1"])
    assert summary["scenario"]["file"] == str(scenario_file)
    assert (out / "ports.parquet").is_file() and (out / "connections.parquet").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")], "temporary directories left"


def test_run_default_out_dir_and_overrides(scenario_file: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    duration_s, rate_mbps = "0.02", 20
    args = ["run", str(scenario_file), "--quiet", "--seed", "7", "--duration", duration_s,
            "--set", f"connections.c1.source.rate_mbps={rate_mbps}"]
    assert main(args) == 0
    assert capsys.readouterr().out.strip() == f"wrote {Path('results') / 'small'}"
    summary = json.loads((tmp_path / "results" / "small" / "summary.json").read_text())
    assert summary["seed"] == 7
    assert summary["sim_time_s"] == pytest.approx(float(duration_s))
    # CBR c1 sends one 53-byte cell every 424 bits / 20 Mb/s = 21.2 us from t = 0 (no warm-up),
    # each one before the end of the run counted: ceil(duration x rate / 424 bits) = 944
    cells = math.ceil(Fraction(duration_s) * rate_mbps * 10**6 / (53 * 8))
    assert summary["connections"]["c1"]["cells_sent"] == cells


def test_run_replaces_earlier_result(scenario_file: Path, tmp_path: Path) -> None:
    """An earlier run's output is replaced; a directory of other files is refused, not emptied
    (issue 31; tests/test_output_safety.py has the rest)."""
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "--quiet", "--seed", "3"]) == 0
    assert main(["run", str(scenario_file), "--out", str(out), "--quiet"]) == 0
    names = ["connections.parquet", "ports.parquet", "summary.json"]
    assert sorted(p.name for p in out.iterdir()) == [".atmsim-output.json"] + names
    assert json.loads((out / "summary.json").read_text())["seed"] == 1
    other = tmp_path / "other"
    other.mkdir()
    (other / "stale.txt").write_text("old")
    assert main(["run", str(scenario_file), "--out", str(other), "--quiet"]) == 2
    assert sorted(p.name for p in other.iterdir()) == ["stale.txt"]


def test_validate(scenario_file: Path, capsys) -> None:
    assert main(["validate", str(scenario_file)]) == 0
    assert capsys.readouterr().out.strip() == f"{scenario_file}: ok (3 nodes, 2 links, 1 connections)"


@pytest.mark.parametrize("name", ["demo.toml", "base-two-hosts.toml", "two-hosts-faster.toml"])
def test_examples_validate(name: str, capsys) -> None:
    assert main(["validate", str(EXAMPLES / name)]) == 0
    assert ": ok (" in capsys.readouterr().out


def test_schema_is_json(capsys) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert {"description", "run", "nodes", "links", "connections"} <= set(schema["properties"])
    # the defaults the simulator uses, not null
    defs = schema["$defs"]
    assert defs["AbrSchemeSpec"]["properties"]["target_utilization"]["default"] == 0.9
    assert defs["AbrSpec"]["properties"]["nrm"]["default"] == 32
    assert defs["AbrSpec"]["properties"]["tbe"]["default"] == 16777215
    assert defs["QosSpec"]["properties"]["secb_block_cells"]["default"] == 128


def test_plot_makes_pngs(scenario_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["plot", str(out)]) == 0
    printed = capsys.readouterr().out.split()
    assert len(printed) == 3
    for p in printed:
        data = Path(p).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 1000
        assert Path(p).parent == out


def test_plot_without_results(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["plot", str(empty)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("atmsim: error: ") and str(empty) in err[0]
    assert main(["plot", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "nowhere" in err[0]


def test_version(capsys) -> None:
    import atmsim

    assert main(["--version"]) == 0
    assert atmsim.__version__ in capsys.readouterr().out


def test_usage_error_is_one_line(capsys) -> None:
    assert main(["run"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("atmsim: error: ")


def test_python_m_atmsim_entry_point(scenario_file: Path, tmp_path: Path) -> None:
    """The real process: exit code 2 and a single stderr line, no traceback."""
    bad = tmp_path / "missing.toml"
    proc = subprocess.run(
        [sys.executable, "-m", "atmsim", "run", str(bad), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"atmsim: error: {bad}: file not found"]
    proc = subprocess.run(
        [sys.executable, "-m", "atmsim", "validate", str(scenario_file)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{scenario_file}: ok")


def test_console_script(scenario_file: Path) -> None:
    script = Path(sys.executable).parent / "atmsim"
    if not script.exists():
        pytest.skip("atmsim console script not installed next to this Python")
    proc = subprocess.run([str(script), "validate", str(scenario_file)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{scenario_file}: ok")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_interrupt_writes_nothing(tmp_path: Path) -> None:
    import signal
    import time

    out = tmp_path / "out"
    # a test run started in the background (no job control) inherits SIGINT ignored, and Python
    # keeps it ignored: give the child the default disposition, as a terminal would
    proc = subprocess.Popen(
        [sys.executable, "-m", "atmsim", "run", str(EXAMPLES / "demo.toml"), "--duration", "3000", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    wait_for_core(proc)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stderr.splitlines() == ["atmsim: interrupted; no output written"]
    assert stdout == ""
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []
