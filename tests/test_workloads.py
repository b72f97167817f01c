"""Workload scripts from the front end (docs/workloads.md): a script inline or in a file, the
results in the summary and as a table, the schema's keys, and bad scripts (one line with the
file, line and column; exit 2; nothing written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import atmsim
from conftest import minimal_scenario, run_bad, write_toml

SCRIPT = """# a bidirectional, non-homogeneous bundle, then request-response
1 parallel 2: 1 bulk_get 20000*5 | 1 bulk_put bivalued(10,9000,0.9)*10 exp(0.001);
2 rr 3000,1024*4;
"""


def workload_scenario(duration_s: float = 2.0, **workload: Any) -> dict[str, Any]:
    doc = minimal_scenario(duration_s)
    doc["connections"] = [
        {"name": "w", "route": ["h1", "S", "h2"], "category": "ubr",
         "source": {"kind": "workload", "workload": workload or {"script": SCRIPT},
                    "tcp": {"mss_bytes": 9140, "window_bytes": 32768}}}
    ]
    return doc


def test_a_script_file_runs_and_reports_per_statement_member_and_run(tmp_path: Path) -> None:
    (tmp_path / "s.spims").write_text(SCRIPT)
    f = write_toml(tmp_path / "w.toml", workload_scenario(file="s.spims"))
    r = atmsim.run(f)
    w = r.workload("w")
    assert w["transport"] == "tcp" and w["complete"]
    st = w["statements"]
    assert [s["line"] for s in st] == [2, 3]
    assert st[1]["text"] == "2 rr 3000,1024*4;"
    assert [m["op"] for m in st[0]["members"]] == ["bulk_get", "bulk_put"]
    assert [m["connection"] for m in st[0]["members"]] == [0, 1]
    get = st[0]["members"][0]["runs"][0]
    assert get["bytes"] == 100_000 and get["units"] == 5
    assert get["throughput_kBps"] == pytest.approx(get["bytes"] / (get["end_s"] - get["start_s"]) / 1e3)
    rr = st[1]["members"][0]
    assert len(rr["runs"]) == 2 and rr["transaction_ms"]["mean"] > 0
    assert all(run["bytes"] == 4 * 3000 for run in rr["runs"])  # request bytes
    # the statements ran one after the other
    assert st[1]["members"][0]["runs"][0]["start_s"] >= max(m["runs"][0]["end_s"] for m in st[0]["members"])
    t = r.workload_table()
    assert list(t["op"]) == ["bulk_get", "bulk_put", "rr"]
    assert t.loc[2, "transaction_ms_mean"] == pytest.approx(rr["transaction_ms"]["mean"])
    runs = r.workload_table(per="run")
    assert len(runs) == 4 and set(runs["connection"]) == {"w"}
    # the same from an inline script
    inline = atmsim.run(workload_scenario(script=SCRIPT))
    assert inline.workload("w") == w


def test_schema_shows_the_workload_keys_with_ranges() -> None:
    text = json.dumps(atmsim.schema() if hasattr(atmsim, "schema") else {})
    if not text or text == "{}":
        from atmsim.scenario import schema

        text = json.dumps(schema())
    for key in ("\"workload\"", "\"script\"", "\"file\"", "\"connections\"", "\"control_bytes\"", "\"idle_restart\""):
        assert key in text, key
    from atmsim.scenario import schema

    defs = schema()["$defs"]["WorkloadSpec"]["properties"]
    assert defs["connections"]["maximum"] == 1024
    assert defs["control_bytes"]["minimum"] == 1


@pytest.mark.parametrize(
    "script, where, words",
    [
        ("5 bulk_get 1024*50", "line 1, column 19", "expected ';'"),
        ("1 bulk_get 10*2;\n5 bulk_send 10*2;", "line 2, column 3", "unknown operation 'bulk_send'"),
        ("5 bulk_get 0*50;", "line 1, column 12", "size must be > 0"),
        ("1 bulk_get bivalued(10,9000,1.5)*250;", "line 1, column 29", "probability must be in [0, 1]"),
        ("5 parallel: ;", "line 1, column 13", "empty parallel group"),
        ("5 bulk_get 10*0;", "line 1, column 15", "at least 1"),
        ("1 bulk_get 10*3 exp(0);", "line 1, column 21", "exp mean must be > 0"),
    ],
)
def test_bad_script_file_names_file_line_and_column(tmp_path: Path, capsys, script: str, where: str, words: str) -> None:
    s = tmp_path / "bad.spims"
    s.write_text(script)
    f = write_toml(tmp_path / "w.toml", workload_scenario(file="bad.spims"))
    line = run_bad(capsys, tmp_path, f)
    assert line.startswith(f"atmsim: error: {s}: {where}: "), line
    assert words in line, line
    # inline: the scenario file and the key path
    f = write_toml(tmp_path / "w2.toml", workload_scenario(script=script))
    line = run_bad(capsys, tmp_path, f)
    assert line.startswith(f"atmsim: error: {f}: connections[0].source.workload.script: {where}: "), line
    # validate reports it too
    from atmsim.cli import main

    assert main(["validate", str(tmp_path / "w.toml")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{s}: {where}: " in err[0], err


@pytest.mark.parametrize(
    "workload, path, words",
    [
        ({"file": "missing.spims"}, "connections[0].source.workload.file", "workload file not found"),
        ({"script": "1 parallel: 1 bulk_get 10*2 | 1 bulk_get 10*2;", "connections": 1},
         "connections[0].source.workload.connections", "runs 2 connections at once"),
        ({"script": "1 bulk_get 10*2;", "transport": "udp"}, "connections[0].source.workload.transport", ""),
        ({"script": "1 bulk_get 10*2;", "control_bytes": 0}, "connections[0].source.workload.control_bytes", ""),
        ({"connections": 2}, "connections[0].source.workload.script", "required"),
    ],
)
def test_bad_workload_keys(tmp_path: Path, capsys, workload: dict[str, Any], path: str, words: str) -> None:
    f = write_toml(tmp_path / "w.toml", workload_scenario(**workload))
    line = run_bad(capsys, tmp_path, f)
    assert f"{f}: {path}: " in line, line
    assert words in line, line
