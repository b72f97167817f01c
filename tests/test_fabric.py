"""Switch fabrics from the front end (seed 004): the credit fabric runs from a scenario file and
reports its counters; bad fabric keys give one line naming the file and key path, exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import atmsim
from conftest import minimal_scenario, run_bad, write_toml


def credit_scenario(**fabric: Any) -> dict[str, Any]:
    doc = minimal_scenario(0.02)
    s = doc["nodes"][1]
    del s["buffer_cells"]
    s["fabric"] = {"kind": "credit", "input_buffer_cells": 20, "output_buffer_cells": 5, **fabric}
    # two senders at 120 Mb/s each into one 149.76 Mb/s output: the inputs overflow
    doc["nodes"].insert(0, {"name": "h0", "kind": "host"})
    doc["links"].insert(0, {"a": "h0", "b": "S", "rate_mbps": 149.76, "length_km": 1.0})
    doc["connections"] = [
        {"name": f"c{i}", "route": [h, "S", "h2"], "category": "ubr",
         "source": {"kind": "cbr", "rate_mbps": 120.0}}
        for i, h in enumerate(["h0", "h1"])
    ]
    return doc


def test_credit_fabric_runs_and_reports(tmp_path: Path) -> None:
    f = write_toml(tmp_path / "credit.toml", credit_scenario())
    r = atmsim.run(str(f))
    fab = r.summary["fabrics"]["S"]
    assert fab["kind"] == "credit"
    assert fab["input_drops"] > 0
    assert r.summary["ports"]["S->h2"]["cells_dropped"] == 0
    dropped = sum(r.summary["ports"][p]["drops"].get("input_buffer_full", 0) for p in ("h0->S", "h1->S"))
    assert dropped == fab["input_drops"]
    assert fab["max_credits_used"] <= 5
    # an output-buffered switch has no fabric counters and no input_buffer_full key
    r2 = atmsim.run(str(write_toml(tmp_path / "plain.toml", minimal_scenario())))
    assert "fabrics" not in r2.summary
    assert "input_buffer_full" not in r2.summary["ports"]["h1->S"]["drops"]


@pytest.mark.parametrize(
    "change, path, words",
    [
        (lambda s: s["fabric"].update(input_buffer_cells=0), "nodes[2].fabric.input_buffer_cells", "integer"),
        (lambda s: s["fabric"].update(output_buffer_cells=0), "nodes[2].fabric.output_buffer_cells", "integer"),
        (lambda s: s["fabric"].update(credits=6), "nodes[2].fabric.credits", "must not exceed output_buffer_cells (5)"),
        (lambda s: s["fabric"].update(kind="crossbar"), "nodes[2].fabric.kind", "unknown variant `crossbar`"),
        (lambda s: s["fabric"].update(bus_mbps=0), "nodes[2].fabric.bus_mbps", ""),
        (lambda s: s["fabric"].update(credit_delay_us=-1), "nodes[2].fabric.credit_delay_us", ""),
        (lambda s: s["fabric"].update(queueing="lifo"), "nodes[2].fabric", "unknown variant `lifo`, expected `fifo` or `voq`"),
        (lambda s: s.update(buffer_cells=100), "nodes[2].buffer_cells", "not allowed with fabric.kind = \"credit\""),
        (lambda s: s.update(fabric_delay_us=3.0), "nodes[2].fabric_delay_us", "latency_us"),
        (lambda s: s.update(discard="epd", epd_threshold_cells=3), "nodes[2].", ""),
    ],
)
def test_bad_fabric(tmp_path: Path, capsys, change, path: str, words: str) -> None:
    doc = credit_scenario()
    change(doc["nodes"][2])
    f = write_toml(tmp_path / "bad.toml", doc)
    line = run_bad(capsys, tmp_path, f)
    assert f"atmsim: error: {f}: {path}" in line, line
    assert words in line, line


def test_fabric_on_a_host_is_refused(tmp_path: Path, capsys) -> None:
    doc = credit_scenario()
    doc["nodes"][0]["fabric"] = {"kind": "output-buffered"}
    f = write_toml(tmp_path / "bad.toml", doc)
    line = run_bad(capsys, tmp_path, f)
    assert f"{f}: nodes[0].fabric: applies to switches only" in line
