"""The Python API: atmsim.run, Result, load_scenario; determinism and threads."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim import Result, ScenarioError, load_scenario

from conftest import EXAMPLES, minimal_scenario, onoff_scenario, write_toml


def test_run_dict(scenario_dict) -> None:
    result = atmsim.run(scenario_dict)
    assert isinstance(result, Result)
    s = result.summary
    assert s["sim_time_s"] == pytest.approx(0.01)
    assert s["wall_time_s"] > 0
    assert s["events"] > 0
    c1 = s["connections"]["c1"]
    assert c1["cells_sent"] == c1["cells_delivered"] + c1["cells_dropped"] + c1["cells_in_flight"]
    assert s["scenario"]["file"] == ""


def test_run_path_with_overrides(scenario_file: Path) -> None:
    result = atmsim.run(scenario_file, overrides={"connections.c1.source.rate_mbps": 30}, duration=0.02, seed=5)
    assert result.summary["seed"] == 5
    assert result.summary["sim_time_s"] == pytest.approx(0.02)
    # CBR at 30 Mb/s: 30e6 * 0.02 / 424 cells
    assert result.summary["connections"]["c1"]["cells_sent"] == pytest.approx(30e6 * 0.02 / 424, abs=3)


def test_series_frames(scenario_dict) -> None:
    result = atmsim.run(scenario_dict)
    assert result.series_names == ["connections", "ports"]
    ports = result.series("ports")
    assert isinstance(ports, pd.DataFrame)
    assert {"time_s", "port", "queue_cells", "utilization"} <= set(ports.columns)
    assert len(ports) > 0 and set(ports["port"]) >= {"S->h2"}
    conns = result.series("connections")
    assert {"time_s", "connection", "throughput_mbps"} <= set(conns.columns)
    with pytest.raises(KeyError, match="connections, ports"):
        result.series("queues")


def test_progress_callback(scenario_dict) -> None:
    calls = []
    atmsim.run(scenario_dict, progress=lambda t, end, ev: calls.append((t, end, ev)), chunk_events=50)
    assert len(calls) > 1
    assert calls[-1][0] == pytest.approx(calls[-1][1])
    assert [c[2] for c in calls] == sorted(c[2] for c in calls)


def _without_wall(result: Result) -> dict:
    s = json.loads(json.dumps(result.summary))
    s.pop("wall_time_s")
    return s


def test_same_seed_same_result(tmp_path: Path) -> None:
    doc = onoff_scenario()
    a, b = atmsim.run(doc, seed=11), atmsim.run(doc, seed=11)
    assert _without_wall(a) == _without_wall(b)
    a.write(tmp_path / "a")
    b.write(tmp_path / "b")
    sa = json.loads((tmp_path / "a" / "summary.json").read_text())
    sb = json.loads((tmp_path / "b" / "summary.json").read_text())
    sa.pop("wall_time_s"), sb.pop("wall_time_s")
    assert sa == sb
    pd.testing.assert_frame_equal(a.series("ports"), b.series("ports"))
    pd.testing.assert_frame_equal(a.series("connections"), b.series("connections"))


def test_different_seed_changes_onoff(tmp_path: Path) -> None:
    doc = onoff_scenario()
    a, b = atmsim.run(doc, seed=1), atmsim.run(doc, seed=2)
    assert a.summary["connections"]["vbr"]["cells_sent"] != b.summary["connections"]["vbr"]["cells_sent"]


def test_runs_on_two_threads() -> None:
    doc = onoff_scenario(0.05)
    results: dict[int, Result] = {}
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            results[seed] = atmsim.run(doc, seed=seed)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert sorted(results) == [1, 2]
    single = atmsim.run(doc, seed=1)
    assert _without_wall(results[1]) == _without_wall(single)


def test_scenario_error_attributes(scenario_dict) -> None:
    scenario_dict["links"][0]["rate_mbps"] = 0
    with pytest.raises(ScenarioError) as info:
        atmsim.run(scenario_dict)
    e = info.value
    assert (e.file, e.path) == ("", "links[0].rate_mbps")
    assert str(e) == f"links[0].rate_mbps: {e.message}"


def test_write_is_atomic(scenario_dict, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "res"
    first = atmsim.run(scenario_dict)
    first.write(out)
    before = (out / "summary.json").read_text()

    import pyarrow.parquet as pq

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", fail)
    second = atmsim.run(scenario_dict, seed=9)
    with pytest.raises(OSError):
        second.write(out)
    assert (out / "summary.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


def test_result_read_roundtrip(scenario_dict, tmp_path: Path) -> None:
    result = atmsim.run(scenario_dict)
    result.write(tmp_path / "r")
    again = Result.read(tmp_path / "r")
    assert again.summary == json.loads(json.dumps(result.summary))
    pd.testing.assert_frame_equal(again.series("ports"), result.series("ports"))


# ------------------------------------------------------------------------------- load_scenario


def test_extends_merges_tables_and_replaces_arrays() -> None:
    doc, prov = load_scenario(EXAMPLES / "two-hosts-faster.toml")
    assert "extends" not in doc
    assert doc["run"] == {"duration_s": 0.2, "seed": 1, "sample_interval_s": 0.001}
    assert len(doc["connections"]) == 1
    assert doc["connections"][0]["source"]["rate_mbps"] == 100
    assert len(doc["nodes"]) == 3
    base = str(EXAMPLES / "base-two-hosts.toml")
    child = str(EXAMPLES / "two-hosts-faster.toml")
    assert prov.files == [base, child]
    assert prov.file_for("nodes[1].buffer_cells") == base
    assert prov.file_for("run.seed") == base
    assert prov.file_for("run.duration_s") == child
    assert prov.file_for("connections[0].source.rate_mbps") == child


@pytest.mark.parametrize(
    "key",
    ["connections[0].source.rate_mbps", "connections.0.source.rate_mbps", "connections.c1.source.rate_mbps"],
)
def test_override_key_forms(key: str) -> None:
    doc, prov = load_scenario(minimal_scenario(), [f"{key}=42.5"])
    assert doc["connections"][0]["source"]["rate_mbps"] == 42.5
    assert prov.file_for("connections[0].source.rate_mbps") == "--set"
    assert prov.file_for("connections[0].route") == ""


def test_override_values_are_toml() -> None:
    doc, _ = load_scenario(
        minimal_scenario(),
        ["nodes.S.class_buffer_cells = { ubr = 50 }", "nodes.S.priority=['cbr','rt-vbr','nrt-vbr','abr','ubr']",
         "description=plain words"],
    )
    assert doc["nodes"][1]["class_buffer_cells"] == {"ubr": 50}
    assert doc["nodes"][1]["priority"][0] == "cbr"
    assert doc["description"] == "plain words"


def test_override_creates_missing_table() -> None:
    doc, _ = load_scenario(minimal_scenario(), ["nodes.S.class_buffer_cells.ubr=5"])
    assert doc["nodes"][1]["class_buffer_cells"] == {"ubr": 5}


def test_dict_extends_relative_to_cwd(tmp_path: Path, monkeypatch) -> None:
    write_toml(tmp_path / "base.toml", minimal_scenario())
    monkeypatch.chdir(tmp_path)
    doc, prov = load_scenario({"extends": "base.toml", "run": {"seed": 4}})
    assert doc["run"]["seed"] == 4 and doc["run"]["duration_s"] == 0.01
    assert prov.file_for("links[0]") == "base.toml"
