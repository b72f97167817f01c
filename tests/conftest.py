"""Shared helpers for the Python-surface tests: small valid scenarios and TOML writing."""

from __future__ import annotations

import copy
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


def wait_for_core(proc: subprocess.Popen) -> None:
    """Wait until the core extension is loaded in the child ``proc`` (by ``import atmsim``, which
    re-exports its exception classes; start-up can take seconds on a busy machine, and a signal
    before our code runs tests nothing of ours), then a little more, so that a signal sent next
    lands inside the command (its lazy imports or the run)."""
    maps = Path(f"/proc/{proc.pid}/maps")
    deadline = time.monotonic() + 60.0
    while maps.exists() and time.monotonic() < deadline and proc.poll() is None:
        if "_core" in maps.read_text(errors="replace"):
            break
        time.sleep(0.1)
    time.sleep(1.5 if maps.exists() else 3.0)
