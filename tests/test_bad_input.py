"""Every kind of bad input, through the CLI: exit code 2, exactly one stderr line naming the file
and the key path, no traceback, and no output directory created."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from atmsim.cli import main

from conftest import minimal_scenario, write_toml, run_bad




def bad_file(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    doc = minimal_scenario()
    change(doc)
    return write_toml(tmp_path / "bad.toml", doc)


def expect(line: str, file: str, path: str) -> None:
    assert f"atmsim: error: {file}: {path}: " in line, line


# ------------------------------------------------------------------------------- files


def test_file_missing(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nope.toml"
    line = run_bad(capsys, tmp_path, missing)
    assert line == f"atmsim: error: {missing}: file not found"


def test_not_toml(tmp_path: Path, capsys) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('description = "x"\n[run\nduration_s = 1\n')
    line = run_bad(capsys, tmp_path, f)
    assert line.startswith(f"atmsim: error: {f}: not valid TOML: ")


def test_extends_cycle(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text('extends = "b.toml"\ndescription = "a"\n')
    b.write_text('extends = "a.toml"\ndescription = "b"\n')
    line = run_bad(capsys, tmp_path, a)
    # the file whose `extends` closes the cycle, and the whole chain
    expect(line, str(b), "extends")
    assert f"cycle: {a} -> {b} -> {a}" in line


def test_extends_missing_base(tmp_path: Path, capsys) -> None:
    a = tmp_path / "a.toml"
    a.write_text('extends = "gone.toml"\ndescription = "a"\n')
    line = run_bad(capsys, tmp_path, a)
    expect(line, str(a), "extends")
    assert "gone.toml" in line


# ------------------------------------------------------------------------------- keys and types


def test_unknown_key_top_level(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d.__setitem__("conections", []))
    line = run_bad(capsys, tmp_path, f)
    assert f"atmsim: error: {f}: " in line and "conections" in line


def test_unknown_key_nested(tmp_path: Path, capsys) -> None:
    def change(d):
        d["connections"][0]["source"]["rate_mbs"] = 5.0

    f = bad_file(tmp_path, change)
    line = run_bad(capsys, tmp_path, f)
    assert f"atmsim: error: {f}: connections[0].source" in line and "rate_mbs" in line


def test_wrong_type(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["run"].__setitem__("duration_s", "fast"))
    expect(run_bad(capsys, tmp_path, f), str(f), "run.duration_s")


@pytest.mark.parametrize("value", [0, -5.0])
def test_link_rate_not_positive(tmp_path: Path, capsys, value) -> None:
    f = bad_file(tmp_path, lambda d: d["links"][0].__setitem__("rate_mbps", value))
    expect(run_bad(capsys, tmp_path, f), str(f), "links[0].rate_mbps")


def test_link_length_negative(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["links"][0].__setitem__("length_km", -1.0))
    expect(run_bad(capsys, tmp_path, f), str(f), "links[0].length_km")


def test_link_length_zero(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["links"][0].__setitem__("length_km", 0.0))
    err = run_bad(capsys, tmp_path, f)
    expect(err, str(f), "links[0].length_km")
    assert "delay_us = 0" in err


@pytest.mark.parametrize("value", [0, -1.0])
def test_duration_not_positive(tmp_path: Path, capsys, value) -> None:
    f = bad_file(tmp_path, lambda d: d["run"].__setitem__("duration_s", value))
    expect(run_bad(capsys, tmp_path, f), str(f), "run.duration_s")


@pytest.mark.parametrize("value", [0, -3])
def test_buffer_not_positive(tmp_path: Path, capsys, value) -> None:
    f = bad_file(tmp_path, lambda d: d["nodes"][1].__setitem__("buffer_cells", value))
    expect(run_bad(capsys, tmp_path, f), str(f), "nodes[1].buffer_cells")


def test_cbr_rate_not_positive(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["connections"][0]["source"].__setitem__("rate_mbps", 0))
    expect(run_bad(capsys, tmp_path, f), str(f), "connections[0].source.rate_mbps")


# ------------------------------------------------------------------------------- names and routes


def test_link_unknown_node(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["links"][1].__setitem__("b", "h9"))
    line = run_bad(capsys, tmp_path, f)
    expect(line, str(f), "links[1].b")
    assert "h9" in line


def test_route_unknown_node(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["connections"][0].__setitem__("route", ["h1", "X", "h2"]))
    line = run_bad(capsys, tmp_path, f)
    assert f"atmsim: error: {f}: connections[0].route" in line and "X" in line


def test_route_hop_without_link(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["connections"][0].__setitem__("route", ["h1", "h2"]))
    line = run_bad(capsys, tmp_path, f)
    assert f"atmsim: error: {f}: connections[0].route" in line


def test_duplicate_node_names(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["nodes"].append({"name": "S", "kind": "switch"}))
    line = run_bad(capsys, tmp_path, f)
    expect(line, str(f), "nodes[3].name")
    assert "duplicate" in line


def test_duplicate_connection_names(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["connections"].append(dict(d["connections"][0])))
    line = run_bad(capsys, tmp_path, f)
    expect(line, str(f), "connections[1].name")
    assert "duplicate" in line


# ------------------------------------------------------------------------------- --set


def test_set_unknown_path(tmp_path: Path, scenario_file: Path, capsys) -> None:
    line = run_bad(capsys, tmp_path, scenario_file, "--set", "run.durration_s=3")
    expect(line, "--set", "run.durration_s")
    assert "no such key; allowed here: " in line and "duration_s" in line


def test_set_unknown_nested_path(tmp_path: Path, scenario_file: Path, capsys) -> None:
    line = run_bad(capsys, tmp_path, scenario_file, "--set", "connections.c1.source.rate=3")
    expect(line, "--set", "connections[0].source.rate")
    assert "rate_mbps" in line


def test_set_unknown_element_name(tmp_path: Path, scenario_file: Path, capsys) -> None:
    line = run_bad(capsys, tmp_path, scenario_file, "--set", "connections.c7.source.rate_mbps=3")
    assert "atmsim: error: --set: connections.c7.source.rate_mbps: " in line and "c1" in line


def test_set_index_out_of_range(tmp_path: Path, scenario_file: Path, capsys) -> None:
    line = run_bad(capsys, tmp_path, scenario_file, "--set", "links[5].rate_mbps=3")
    assert "atmsim: error: --set: links[5].rate_mbps: " in line and "out of range" in line


def test_set_wrong_type(tmp_path: Path, scenario_file: Path, capsys) -> None:
    line = run_bad(capsys, tmp_path, scenario_file, "--set", "run.duration_s=fast")
    expect(line, "--set", "run.duration_s")


def test_set_without_equals(tmp_path: Path, scenario_file: Path, capsys) -> None:
    line = run_bad(capsys, tmp_path, scenario_file, "--set", "run.duration_s")
    assert line.startswith("atmsim: error: --set: run.duration_s: ")


def test_seed_flag_bad_duration(tmp_path: Path, scenario_file: Path, capsys) -> None:
    line = run_bad(capsys, tmp_path, scenario_file, "--duration", "-1")
    expect(line, "--duration", "run.duration_s")


# ------------------------------------------------------------------------------- provenance


def test_error_in_base_file_names_base(tmp_path: Path, capsys) -> None:
    doc = minimal_scenario()
    doc["links"][0]["rate_mbps"] = -1.0
    write_toml(tmp_path / "base.toml", doc)
    child = tmp_path / "child.toml"
    child.write_text('extends = "base.toml"\ndescription = "child"\n[run]\nseed = 3\n')
    expect(run_bad(capsys, tmp_path, child), str(tmp_path / "base.toml"), "links[0].rate_mbps")


def test_validate_reports_the_same(tmp_path: Path, capsys) -> None:
    f = bad_file(tmp_path, lambda d: d["links"][0].__setitem__("length_km", -2.0))
    assert main(["validate", str(f)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    expect(err[0], str(f), "links[0].length_km")


# ------------------------------------------------------------------------------- transports


def _tcp(d: dict[str, Any], **source: Any) -> None:
    c = d["connections"][0]
    c["category"] = "ubr"
    c["source"] = {"kind": "tcp", **source}


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        (lambda d: _tcp(d, bundle=0), "connections[0].source.bundle", "1..=1024"),
        (lambda d: _tcp(d, bundle=2000), "connections[0].source.bundle", "1..=1024"),
        (
            lambda d: d["connections"][0]["source"].__setitem__("bundle", 2),
            "connections[0].source.bundle",
            "not used by kind",
        ),
        (
            lambda d: (
                d["connections"][0].update(
                    bidirectional=True, reverse_source={"kind": "tcp"}
                )
            ),
            "connections[0].reverse_source.kind",
            'needs source.kind = "tcp"',
        ),
        (
            lambda d: (
                _tcp(d),
                d["connections"][0].update(
                    bidirectional=True, reverse_source={"kind": "cbr", "rate_mbps": 1.0}
                ),
            ),
            "connections[0].reverse_source",
            "carries its ACKs",
        ),
        (
            lambda d: (
                _tcp(d, bundle=2),
                d["connections"][0].update(
                    bidirectional=True, reverse_source={"kind": "tcp", "bundle": 2}
                ),
            ),
            "connections[0].reverse_source.bundle",
            "set on source",
        ),
    ],
)
def test_bad_transport_keys(tmp_path: Path, capsys, change, path: str, words: str) -> None:
    f = bad_file(tmp_path, change)
    line = run_bad(capsys, tmp_path, f)
    expect(line, str(f), path)
    assert words in line, line
