"""Limits that hold while a run goes (issue 31 items 3 and 4): the memory of every queue that
grows counts against run.max_memory_mb (stopping the run with one line naming the queue and
the key), files are read only if regular and not too large, and signals stop a run within a
fraction of a second wherever it is (the core looks at the clock after bounded batches of
events; no event takes long: a workload call takes at most ACTS_PER_CALL actions)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import atmsim
from atmsim import ScenarioError, _core
from atmsim.api import prepare
from atmsim.cli import main
from atmsim.scenario import document_json

from conftest import REPO, minimal_scenario, run_bad, wait_for_core, write_toml

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and FIFOs")


def xtpx_faster_than_its_link(duration_s: float = 1.0) -> dict[str, Any]:
    """The issue's case: an XTPX source with rate control only (no window) sending 1e6 bytes per
    ms (8 Gb/s) into a 149.76 Mb/s link: the host's port queue (no buffer limit) grows by about
    1.4 million cells per ms of simulated time."""
    doc = minimal_scenario(duration_s)
    doc["connections"] = [{
        "name": "x", "route": ["h1", "S", "h2"], "category": "ubr",
        "source": {"kind": "xtpx", "xtpx": {"rate_control": True, "burst_bytes": 1_000_000, "interval_ms": 1.0,
                                            "error_control": "selective_repeat", "mtu_bytes": 9180}},
    }]
    return doc


def workload_scenario(script: str, duration_s: float = 0.05) -> dict[str, Any]:
    doc = minimal_scenario(duration_s)
    doc["connections"] = [{
        "name": "w", "route": ["h1", "S", "h2"], "category": "ubr",
        "source": {"kind": "workload", "workload": {"script": script, "transport": "tcp"}},
    }]
    return doc


# ------------------------------------------------------------------------- memory at run time


def test_a_source_faster_than_its_link_stops_at_the_memory_limit(tmp_path: Path, capsys) -> None:
    """It passes validation (nothing is estimated for a queue that grows) and, with
    max_memory_mb = 200, used to peak at 1.45 GB in 1 s (4.4 GB and an abort in 10 s): now the
    run stops as the host port's queue crosses the limit, one line naming the port, its cells,
    the limit and the keys to change; exit 2, nothing written."""
    f = write_toml(tmp_path / "x.toml", xtpx_faster_than_its_link())
    assert main(["validate", str(f), "--set", "run.max_memory_mb=200"]) == 0
    capsys.readouterr()
    line = run_bad(capsys, tmp_path, f, "--set", "run.max_memory_mb=200")
    assert line.startswith("atmsim: error: --set: run.max_memory_mb: the run stopped at "), line
    assert "the queue of output port h1->S (" in line and "cells)" in line, line
    assert "200 MB allowed (run.max_memory_mb)" in line and "nodes[0].buffer_cells" in line, line


def test_the_limit_from_the_environment_is_named(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("ATMSIM_MAX_MEMORY_MB", "250")
    f = write_toml(tmp_path / "x.toml", xtpx_faster_than_its_link())
    line = run_bad(capsys, tmp_path, f)
    assert "250 MB allowed (ATMSIM_MAX_MEMORY_MB)" in line and "set ATMSIM_MAX_MEMORY_MB" in line, line


def test_the_api_raises_and_the_simulation_goes_no_further() -> None:
    doc = xtpx_faster_than_its_link()
    doc["run"]["max_memory_mb"] = 200
    with pytest.raises(ScenarioError) as info:
        atmsim.run(doc)
    assert info.value.path == "run.max_memory_mb" and "output port h1->S" in info.value.message
    sim = _core.Simulation(document_json(doc))
    with pytest.raises(ScenarioError):
        while not sim.advance(100_000):
            pass
    events = sim.events
    with pytest.raises(ScenarioError):  # the same error again; the state is not run further
        sim.advance(100_000)
    assert sim.events == events


def test_a_buffer_limit_on_the_port_lets_the_same_source_run(tmp_path: Path) -> None:
    """What the message proposes works: with a buffer on the host's ports the queue is bounded
    (cells are dropped there) and the run ends within the same memory limit."""
    doc = xtpx_faster_than_its_link(0.05)
    doc["run"]["max_memory_mb"] = 200
    doc["nodes"][0]["buffer_cells"] = 100_000
    r = atmsim.run(doc)
    assert r.summary["ports"]["h1->S"]["max_queue_cells"] == 100_000
    assert r.summary["ports"]["h1->S"]["drops"]["port_buffer_full"] > 0


def test_trace_frames_count_against_the_memory_limit(tmp_path: Path, capsys) -> None:
    """A trace is read line by line and its frames count against the limit while the scenario
    is read (256 bytes a frame: 200 MB less the process's 150 MB leave room for about 233,000):
    the issue's 20 M-frame trace peaked at 4.8 GB with max_memory_mb = 200."""
    (tmp_path / "t.txt").write_bytes(b"100\n" * 700_000)
    doc = minimal_scenario(0.01, max_memory_mb=200)
    doc["traces"] = {"t": {"file": "t.txt"}}
    doc["connections"] = [{"name": "v", "route": ["h1", "S", "h2"], "category": "ubr",
                           "source": {"kind": "video", "video": {"trace": "t", "frame_rate": 24}}}]
    f = write_toml(tmp_path / "v.toml", doc)
    line = run_bad(capsys, tmp_path, f)
    assert f"{f}: traces.t.file: trace file " in line and "has more than" in line, line
    assert "200 MB allowed (run.max_memory_mb)" in line, line
    assert main(["validate", str(f), "--set", "run.max_memory_mb=400"]) == 0


# ----------------------------------------------------------------------- files that are no files


def _special_files(tmp_path: Path) -> list[tuple[str, str]]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return [("/dev/zero", "a character device"), ("/dev/urandom", "a character device"),
            (str(fifo), "a FIFO (named pipe)")]


@posix_only
@pytest.mark.parametrize("where", ["scenario", "extends", "trace", "workload"])
def test_devices_and_fifos_are_refused_at_once(tmp_path: Path, where: str) -> None:
    """/dev/zero, /dev/urandom and a FIFO with no writer as a scenario, an ``extends`` base, a
    trace or a workload script file: one line, exit 2, at once (they used to exhaust the
    memory or block forever). Run in a child with a timeout, so a regression fails instead of
    hanging the test session."""
    for path, kind in _special_files(tmp_path):
        if where == "scenario":
            target = path
        else:
            doc = minimal_scenario(0.01)
            if where == "extends":
                doc = {"extends": path}
            elif where == "trace":
                doc["traces"] = {"t": {"file": path}}
                doc["connections"][0]["source"] = {"kind": "video", "video": {"trace": "t", "frame_rate": 24}}
                doc["connections"][0]["category"] = "ubr"
            else:
                doc["connections"][0]["source"] = {"kind": "workload", "workload": {"file": path, "transport": "tcp"}}
                doc["connections"][0]["category"] = "ubr"
            target = str(write_toml(tmp_path / f"{where}.toml", doc))
        proc = subprocess.run([sys.executable, "-m", "atmsim", "validate", target], capture_output=True, text=True,
                              cwd=REPO, timeout=120)
        lines = proc.stderr.splitlines()
        assert proc.returncode == 2, (where, path, proc.stderr)
        assert len(lines) == 1 and f"is {kind}, not a regular file" in lines[0], (where, path, lines)


def test_trace_sizes_are_ascii_digits(tmp_path: Path, capsys) -> None:
    """``1_000`` and Arabic-Indic digits were read as numbers by Python's int()."""
    for text in ("1_000\n", "\u0661\u0660\u0660\n", "+100\n", "1 I 0 \u0661\u0662\n"):
        (tmp_path / "t.txt").write_text("100\n" + text, encoding="utf-8")
        doc = minimal_scenario(0.01)
        doc["traces"] = {"t": {"file": "t.txt"}}
        doc["connections"][0]["source"] = {"kind": "video", "video": {"trace": "t", "frame_rate": 24}}
        doc["connections"][0]["category"] = "ubr"
        line = run_bad(capsys, tmp_path, write_toml(tmp_path / "v.toml", doc))
        assert "line 2: the frame size is not an integer (ASCII digits 0-9)" in line, (text, line)


def test_chunk_events_must_be_positive() -> None:
    """``atmsim.run(..., chunk_events=0)`` looped forever."""
    for bad in (0, -5, 1.5, True):
        with pytest.raises(ScenarioError) as info:
            atmsim.run(minimal_scenario(), chunk_events=bad)
        assert info.value.path == "chunk_events"
    assert atmsim.run(minimal_scenario(), chunk_events=1).summary["events"] > 0


# ------------------------------------------------------------------------------------ signals

#: 4 billion writes of 1000 bytes through a socket that takes each at once: minutes of work
#: (in one event, before: SIGINT and SIGTERM waited for it)
HEAVY_SCRIPT = "1 bulk_get 1000*4294967295;"


def test_a_workload_call_is_bounded() -> None:
    """The runner stops a call after ACTS_PER_CALL actions and goes on at the same instant in
    its next event: the events are short, so the core looks at the clock often."""
    doc, prov = prepare(workload_scenario(HEAVY_SCRIPT))
    sim = _core.Simulation(document_json(doc, prov))
    start = time.process_time()
    sim.advance(200)
    took = time.process_time() - start
    assert sim.events == 200 and sim.sim_time_s < 1e-3
    # before, the first event took the whole 4 billion writes (minutes); 200 bounded calls of
    # 131,072 writes take seconds at most on any machine
    assert took < 60, took


@posix_only
def test_sigint_stops_a_heavy_workload_in_process() -> None:
    """SIGINT during advance() of the heavy script (a run of minutes) raises KeyboardInterrupt
    from the core's call well before the run would end."""
    doc, prov = prepare(workload_scenario(HEAVY_SCRIPT))
    sim = _core.Simulation(document_json(doc, prov))
    sim.advance(1)
    # a test run started in the background (no job control) inherits SIGINT ignored, and Python
    # keeps it ignored (the run then ended untouched: "DID NOT RAISE"): Python's own handler here
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.advance(10**15)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    waited = time.monotonic() - start
    assert sim.sim_time_s < 0.05  # far from the end of the run
    assert waited < 30, waited  # 0.5 s plus the time to look at the clock (< 0.1 s idle)


@posix_only
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_cli_run_of_a_heavy_workload(tmp_path: Path, sig: int) -> None:
    f = write_toml(tmp_path / "w.toml", workload_scenario(HEAVY_SCRIPT))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "atmsim", "run", str(f), "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        preexec_fn=lambda: (signal.signal(signal.SIGTERM, signal.SIG_DFL), signal.signal(signal.SIGINT, signal.SIG_DFL)),
    )
    try:
        wait_for_core(proc)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(sig)
        start = time.monotonic()
        _, stderr = proc.communicate(timeout=60)
        waited = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert stderr.splitlines() == ["atmsim: interrupted; no output written"]
    assert not out.exists()
    # the run itself would take minutes; the allowance covers a loaded machine's scheduling
    assert waited < 30, waited


def test_a_dropped_interrupt_is_raised_again(tmp_path: Path) -> None:
    """An interrupt whose KeyboardInterrupt Python dropped (raised inside a finalizer) is still
    recorded (atmsim.interrupts): the run loop raises it at its next look, nothing is written.
    Here the handler's record is made without its exception, from the progress callback."""
    from atmsim import interrupts

    calls = []

    def progress(t: float, end: float, events: int) -> None:
        calls.append(events)
        if len(calls) == 2:
            interrupts.request(signal.SIGTERM)

    try:
        with pytest.raises(KeyboardInterrupt):
            atmsim.run(minimal_scenario(2.0), out=tmp_path / "out", progress=progress, chunk_events=10_000)
    finally:
        interrupts.clear()
    assert len(calls) == 2 and not (tmp_path / "out").exists()
    assert list(tmp_path.iterdir()) == []
