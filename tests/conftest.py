"""Shared helpers for the Python-surface tests: small valid scenarios and TOML writing."""

from __future__ import annotations

import copy
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import tomli_w

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "scenarios" / "examples"


def minimal_scenario(duration_s: float = 0.01, **run: Any) -> dict[str, Any]:
    """A small valid scenario: h1 -> switch S -> h2, one 10 Mb/s CBR connection c1."""
    return {
        "description": "test scenario: h1 -> S -> h2, one CBR connection (atmsim tests/conftest.py)",
        "run": {"duration_s": duration_s, "seed": 1, "sample_interval_s": duration_s / 10, **run},
        "nodes": [
            {"name": "h1", "kind": "host"},
            {"name": "S", "kind": "switch", "buffer_cells": 100},
            {"name": "h2", "kind": "host"},
        ],
        "links": [
            {"a": "h1", "b": "S", "rate_mbps": 149.76, "length_km": 1.0},
            {"a": "S", "b": "h2", "rate_mbps": 149.76, "length_km": 1.0},
        ],
        "connections": [
            {
                "name": "c1",
                "route": ["h1", "S", "h2"],
                "category": "cbr",
                "source": {"kind": "cbr", "rate_mbps": 10.0},
            }
        ],
    }


def onoff_scenario(duration_s: float = 0.05) -> dict[str, Any]:
    """Two sources into one 149.76 Mb/s port: an exponential ON-OFF rt-VBR one and a UBR one."""
    doc = minimal_scenario(duration_s)
    doc["nodes"].insert(0, {"name": "h0", "kind": "host"})
    doc["links"].insert(0, {"a": "h0", "b": "S", "rate_mbps": 149.76, "length_km": 1.0})
    doc["connections"] = [
        {
            "name": "vbr",
            "route": ["h0", "S", "h2"],
            "category": "rt-vbr",
            "source": {"kind": "onoff", "peak_mbps": 100.0, "duty_cycle": 0.5, "period_s": 0.002, "exponential": True},
        },
        {
            "name": "ubr",
            "route": ["h1", "S", "h2"],
            "category": "ubr",
            "source": {"kind": "persistent", "peak_mbps": 100.0},
        },
    ]
    return doc


def write_toml(path: Path, doc: dict[str, Any]) -> Path:
    path.write_bytes(tomli_w.dumps(doc).encode("utf-8"))
    return path


@pytest.fixture
def scenario_dict() -> dict[str, Any]:
    return copy.deepcopy(minimal_scenario())


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    return write_toml(tmp_path / "small.toml", minimal_scenario())


def abr_scenario(duration_s: float = 0.02, scheme: str = "erica") -> dict[str, Any]:
    """``minimal_scenario`` with c1 as a persistent ABR connection and an ABR scheme at S."""
    doc = minimal_scenario(duration_s)
    doc["description"] = "test scenario: h1 -> S -> h2, one persistent ABR connection (atmsim tests/conftest.py)"
    doc["nodes"][1]["abr"] = {"scheme": scheme}
    doc["connections"][0].update(category="abr", source={"kind": "persistent"}, abr={"nrm": 32})
    return doc


def run_bad(capsys, tmp_path: Path, scenario: Path, *extra: str) -> str:
    """Run the CLI on bad input: exit code 2, exactly one stderr line, no traceback and no output
    directory. Returns that line."""
    from atmsim.cli import main

    out = tmp_path / "out"
    code = main(["run", str(scenario), "--out", str(out), "--quiet", *extra])
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert code == 2, captured
    assert len(lines) == 1, lines
    assert lines[0].startswith("atmsim: error: "), lines
    assert "Traceback" not in captured.err
    assert not out.exists(), "output directory created for bad input"
    assert not (tmp_path / "results").exists()
    return lines[0]


def _handled_signals(pid: int) -> int | None:
    """The mask of signals process ``pid`` catches or ignores (``SigCgt`` | ``SigIgn`` of
    ``/proc/PID/status``: bit n-1 for signal n), or None where there is no such file."""
    masks = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("SigCgt", "SigIgn"):
                masks[key] = int(value.split()[0], 16)
    except (OSError, ValueError, IndexError):
        return None
    return masks.get("SigCgt", 0) | masks.get("SigIgn", 0) if masks else None


def wait_for_core(proc: subprocess.Popen) -> None:
    """Wait until the child ``proc`` is inside the command: the core extension is loaded (by
    ``import atmsim``, which re-exports its exception classes) and the CLI catches SIGTERM (its
    handler is set in ``atmsim.cli.main`` once the imports are done). Start-up can take many
    seconds on a loaded machine: a fixed pause after the core was loaded was not enough there
    (a SIGTERM before the handler ends the process by the default action, exit -15, which tests
    nothing of ours). Then a little more, so that a signal sent next lands inside the run."""
    maps = Path(f"/proc/{proc.pid}/maps")
    deadline = time.monotonic() + 120.0
    while maps.exists() and time.monotonic() < deadline and proc.poll() is None:
        # the CLI sets its handler unless SIGTERM was ignored when it started
        handled = _handled_signals(proc.pid)
        term_ready = handled is None or bool(handled >> (signal.SIGTERM - 1) & 1)
        if term_ready and "_core" in maps.read_text(errors="replace"):
            break
        time.sleep(0.1)
    time.sleep(1.5 if maps.exists() else 3.0)
