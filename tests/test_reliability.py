"""Complete validation (issue 12 item 1), one test per class of bad input: huge and tiny values of
every numeric key, integers kept as integers, arrays for tables, deep nesting, reserved name
syntax and name clashes, and the resource estimates. Every rejection is one line with the key
path, exit code 2 from the CLI; the issue's own examples are among them."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

import atmsim
from atmsim import ScenarioError
from atmsim.scenario import _Schema, _types, check_document, load_scenario, schema

from conftest import minimal_scenario, run_bad, write_toml

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "scenarios" / "examples" / "demo.toml"
# scenarios that between them use every kind of numeric key a source, a link, ABR and TCP have
COVER = [DEMO, REPO / "scenarios/examples/abr-parking-lot.toml", REPO / "scenarios/seed002/ubr-n5.toml",
         REPO / "scenarios/contracts/cac-blocking.toml", REPO / "scenarios/contracts/impairment.toml",
         REPO / "scenarios/contracts/qos-under-load.toml"]
WALKER = _Schema(schema())


def _reject(doc: dict[str, Any]) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        check_document(doc)
    e = info.value
    assert "\n" not in str(e) and len(str(e)) < 400, str(e)
    return e


def _numeric_keys(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _numeric_keys(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _numeric_keys(v, prefix + (i,))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out.append(prefix)
    return out


def _bounds(path: tuple) -> tuple[float | None, float | None]:
    sch: Any = WALKER.root
    for tok in path:
        variants = WALKER.variants(sch)
        if isinstance(tok, int):
            sch = next(v["items"] for v in variants if isinstance(v.get("items"), dict))
        else:
            sch = next(v["properties"][tok] for v in variants if tok in v.get("properties", {}))
    for v in WALKER.variants(sch):
        if _types(v) & {"number", "integer"}:
            return v.get("minimum"), v.get("maximum")
    return None, None


def _fmt(path: tuple) -> str:
    return "".join(f"[{t}]" if isinstance(t, int) else ("." if i else "") + t for i, t in enumerate(path))


@pytest.mark.parametrize("value", [1e308, -1e308, 1e-300, -1e-300, 5e12, -1])
def test_huge_and_tiny_values_of_every_numeric_key(value: float) -> None:
    """Every numeric key of the covering scenarios declares a range in the schema; a value outside
    it is refused with one line naming that key (and the number written compactly, never 300
    digits); the run does not start."""
    seen = 0
    for f in COVER:
        base, _ = load_scenario(f, validate=False)
        for path in _numeric_keys(base):
            lo, hi = _bounds(path)
            assert lo is not None and hi is not None, f"{_fmt(path)} has no range in the schema"
            doc = copy.deepcopy(base)
            node = doc
            for t in path[:-1]:
                node = node[t]
            integer = isinstance(node[path[-1]], int) and path[-1] != "seed"
            node[path[-1]] = int(value) if integer and abs(value) < 2**63 and value == int(value) else value
            if lo <= node[path[-1]] <= hi:
                continue
            seen += 1
            e = _reject(doc)
            assert e.path.startswith(_fmt(path).rsplit(".", 1)[0]), (_fmt(path), str(e))
            assert len(e.message) < 300 and "0" * 25 not in e.message, str(e)
    assert seen > 20


def test_the_issues_examples_are_one_line_errors(tmp_path: Path, capsys) -> None:
    """Link delay 1e9 km or delay_us = 5e12, sample_interval_s = 1e-9, a rate of 1e-300 Mb/s, a
    seed of 2^64, 1e308: exit 2, one line naming the key (run_bad checks the line and that no
    output directory appears)."""
    doc = minimal_scenario()
    f = write_toml(tmp_path / "s.toml", doc)
    cases = {
        "links[1].length_km=1e9": "links[1].length_km",
        "run.sample_interval_s=1e-9": "run.sample_interval_s",
        "connections[0].source.rate_mbps=1e-300": "connections[0].source.rate_mbps",
        "run.seed=18446744073709551616": "run.seed",
        "run.warmup_s=1e308": "run.warmup_s",
        "connections[0].source.rate_mbps=1e308": "connections[0].source.rate_mbps",
    }
    for override, key in cases.items():
        line = run_bad(capsys, tmp_path, f, "--set", override)
        assert f": {key}: " in line, line
        assert "e+" not in line and "1.8446" not in line and "0000000000" not in line, line
    doc["links"][1].pop("length_km")
    doc["links"][1]["delay_us"] = 5e12
    line = run_bad(capsys, tmp_path, write_toml(tmp_path / "d.toml", doc))
    assert ": links[1].delay_us: must be in [0, 10000000]" in line, line


def test_integers_stay_integers() -> None:
    doc = minimal_scenario()
    doc["run"]["seed"] = 2**64 - 1
    check_document(doc)  # the largest seed is fine
    doc["run"]["seed"] = 2**64
    e = _reject(doc)
    assert e.path == "run.seed" and "18446744073709551615" in e.message and "e19" not in e.message
    doc["run"]["seed"] = 1.5
    e = _reject(doc)
    assert e.path == "run.seed" and "must be an integer" in e.message
    doc = minimal_scenario()
    doc["nodes"][1]["buffer_cells"] = 1e12
    e = _reject(doc)
    assert e.path == "nodes[1].buffer_cells" and "must be an integer" in e.message


@pytest.mark.parametrize(
    "path", ["run", "nodes[0]", "links[0]", "connections[0]", "connections[0].source", "nodes[1].class_buffer_cells"]
)
def test_arrays_for_tables(path: str) -> None:
    """An array where a table is meant is refused (serde would read it positionally: `run = [1,
    2]` ran with seed 2), through the Python API's dict as through files."""
    doc = minimal_scenario()
    doc["nodes"][1]["class_buffer_cells"] = {"ubr": 10}
    tokens = path.replace("[", ".").replace("]", "").split(".")
    node: Any = doc
    for t in tokens[:-1]:
        node = node[int(t)] if t.isdigit() else node[t]
    last = int(tokens[-1]) if tokens[-1].isdigit() else tokens[-1]
    node[last] = list(node[last].values())
    with pytest.raises(ScenarioError) as info:
        atmsim.run(doc)
    assert info.value.path == path and "must be a table" in info.value.message


def test_deep_nesting_is_one_line(tmp_path: Path, capsys) -> None:
    text = 'description = "x"\n[run]\nduration_s = 1\nseed = ' + "[" * 2000 + "]" * 2000 + "\n"
    f = tmp_path / "deep.toml"
    f.write_text(text)
    line = run_bad(capsys, tmp_path, f)
    assert "nested too deeply" in line and "RecursionError" not in line, line
    doc = minimal_scenario()
    v: Any = 1
    for _ in range(100):
        v = [v]
    doc["run"]["seed"] = v
    e = _reject(doc)
    assert "nested too deeply" in e.message and e.path.startswith("run.seed")


@pytest.mark.parametrize(
    "where, name, why",
    [
        ("node", "a->b", "'>'"),
        ("node", "   ", "' '"),
        ("node", "", "empty"),
        ("node", "x" * 65, "65 characters"),
        ("connection", "c#1", "'#'"),
        ("connection", "-c", "begin"),
        ("connection", "c\nd", "'\\n'"),
    ],
)
def test_reserved_name_syntax(where: str, name: str, why: str) -> None:
    doc = minimal_scenario()
    if where == "node":
        old = doc["nodes"][0]["name"]
        doc["nodes"][0]["name"] = name
        doc["links"][0]["a"] = name
        doc["connections"][0]["route"][0] = name
        path = "nodes[0].name"
        assert old == "h1"
    else:
        doc["connections"][0]["name"] = name
        path = "connections[0].name"
    e = _reject(doc)
    assert e.path == path and why in e.message and "a name has" in e.message, str(e)


def test_reverse_suffix_clash() -> None:
    """A connection named X.reverse beside a bidirectional X would merge two flows (one was
    dropped from the summary): the suffix is reserved."""
    doc = minimal_scenario()
    c = doc["connections"][0]
    c["bidirectional"] = True
    other = copy.deepcopy(c)
    other["bidirectional"] = False
    other["name"] = "c1.reverse"
    doc["connections"].append(other)
    e = _reject(doc)
    assert e.path == "connections[1].name" and ".reverse" in e.message


def test_resource_estimates_refuse_before_the_run(tmp_path: Path, capsys, monkeypatch) -> None:
    """Memory above the limit (run.max_memory_mb, or ATMSIM_MAX_MEMORY_MB), series rows and events
    above their bounds: refused by validate and run alike, naming the key that causes it."""
    from atmsim.cli import main

    doc = minimal_scenario()
    # 100,000 connections: 100,000 x 32 KiB = 3.1 GB by the estimate
    doc["connections"] = [
        {**copy.deepcopy(doc["connections"][0]), "name": f"c{i}"} for i in range(100_000)
    ]
    monkeypatch.setenv("ATMSIM_MAX_MEMORY_MB", "1000")
    e = _reject(doc)
    assert e.path == "connections" and "more than the 1000 MB allowed (ATMSIM_MAX_MEMORY_MB)" in e.message
    monkeypatch.delenv("ATMSIM_MAX_MEMORY_MB")
    doc["run"]["max_memory_mb"] = 2000
    e = _reject(doc)
    assert e.path == "connections" and "(run.max_memory_mb)" in e.message

    # 10 connections of 1,000 MPEG-2 video sources: 10 x 1,000 x 1.25 MiB = 12.2 GB
    doc = minimal_scenario()
    doc["connections"] = [
        {**copy.deepcopy(doc["connections"][0]), "name": f"v{i}", "category": "ubr",
         "source": {"kind": "mpeg2", "mean_mbps": 0.1, "std_mbps": 0.05, "sources": 1000}}
        for i in range(10)
    ]
    doc["run"]["max_memory_mb"] = 4000
    e = _reject(doc)
    assert e.path.endswith(".source.sources") and "video sources" in e.message, str(e)
    doc["run"]["max_memory_mb"] = 20_000
    check_document(doc)  # fits the larger limit

    # a 1e6 km link at 1 Tb/s reserves room for 5 s of cells: about 660 TB
    doc = minimal_scenario()
    doc["links"][1].update(length_km=1e6, rate_mbps=1e6)
    e = _reject(doc)
    assert e.path in ("links[1].length_km", "run.duration_s"), str(e)
    doc["run"]["max_memory_mb"] = 100_000  # 100 GB: still far too little
    doc["run"]["duration_s"] = 0.001
    e = _reject(doc)
    assert e.path == "links[1].length_km" and "cells in flight" in e.message

    # 1e6 s sampled every microsecond: 1e12 samples of 3 rows
    doc = minimal_scenario(duration_s=1e6)
    doc["run"]["sample_interval_s"] = 1e-6
    e = _reject(doc)
    assert e.path == "run.sample_interval_s" and "rows" in e.message
    # 1e6 s of two 1 Tb/s links: about 1e19 cell events
    doc = minimal_scenario(duration_s=1e6)
    for link in doc["links"]:
        link["rate_mbps"] = 1e6
    e = _reject(doc)
    assert e.path == "run.duration_s" and "events" in e.message

    # the same through the CLI: exit 2, one line, for validate and run
    f = write_toml(tmp_path / "s.toml", minimal_scenario())
    assert main(["validate", str(f), "--set", "run.max_memory_mb=10"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "MB allowed (run.max_memory_mb)" in err[0]
    line = run_bad(capsys, tmp_path, f, "--set", "run.max_memory_mb=10")
    assert "MB allowed (run.max_memory_mb)" in line


def test_resource_estimate_counts_a_credit_switchs_latency() -> None:
    """A credit switch's latency_us is folded into its incoming links' delay (NodeSpec.transit_us),
    so the cells-in-flight room those links reserve grows with it: 10 s at 1 Tb/s is about 1.3 TB,
    refused under a 100 GB limit; with no latency the same network fits."""
    doc = minimal_scenario()
    doc["run"]["max_memory_mb"] = 100_000
    doc["nodes"][1] = {"name": "S", "kind": "switch",
                       "fabric": {"kind": "credit", "input_buffer_cells": 100, "output_buffer_cells": 50,
                                  "latency_us": 1e7}}
    for link in doc["links"]:
        link["rate_mbps"] = 1e6
    e = _reject(doc)
    # both links have a direction arriving at S: either may be named as the largest part
    assert e.path in ("links[0].length_km", "links[1].length_km"), str(e)
    assert "cells in flight" in e.message and "switch transit" in e.message, str(e)
    doc["nodes"][1]["fabric"]["latency_us"] = 0.0
    check_document(doc)
