"""The time series as the core declares them: the columns of every series are the declarations
(``atmsim._core.series_schema()``), keys are handed over as names, and the ``connections``
throughput counts data cells only, like the summary."""

from __future__ import annotations

from pathlib import Path

import pytest

import atmsim
from atmsim import _core
from atmsim.cli import main
from atmsim.result import series_schema

from conftest import abr_scenario


def _tcp_over_abr(duration_s: float = 0.02) -> dict:
    doc = abr_scenario(duration_s)
    doc["connections"][0]["source"] = {"kind": "tcp"}
    return doc


def _every_series(duration_s: float = 0.02) -> dict:
    """TCP over ABR, and an XTPX connection beside it: every optional table has rows."""
    doc = _tcp_over_abr(duration_s)
    doc["connections"].append(
        {"name": "x1", "route": ["h1", "S", "h2"], "category": "ubr", "source": {"kind": "xtpx", "xtpx": {"window_bytes": 65536}}}
    )
    return doc


def test_the_core_declares_every_series() -> None:
    raw = _core.series_schema()
    assert list(raw) == ["ports", "connections", "abr_sources", "abr_ports", "tcp", "xtpx"]
    schema = series_schema()
    for name, table in schema.items():
        assert table.doc, name
        assert table.column_names[0] == "time_s"
        assert table.columns[1].is_key and table.key.name in ("port", "connection")
        assert [c["name"] for c in raw[name]["columns"]] == table.column_names
        for col in table.columns:
            assert col.doc and col.kind in ("f64", "u32", "u64", "port", "flow"), (name, col)
        if table.active:
            assert table.column(table.active) is not None
    assert schema["ports"].column("queue_cells").unit == "cells"
    assert schema["connections"].column("throughput_mbps").unit == "Mb/s"
    assert schema["abr_sources"].column("acr_mbps").plot == "acr"
    assert schema["tcp"].column("cwnd_bytes").kind == "u64"


def test_series_columns_equal_the_declarations(tmp_path: Path) -> None:
    r = atmsim.run(_every_series())
    schema = series_schema()
    assert r.series_names == sorted(schema)
    for name in r.series_names:
        frame = r.series(name)
        assert list(frame.columns) == schema[name].column_names, name
        assert r.schema(name) == schema[name]
        assert len(frame) > 0, name
        key = schema[name].key
        names = r.summary["ports"] if key.kind == "port" else r.summary["connections"]
        assert set(frame[key.name]) <= set(names), name
    back = atmsim.Result.read(r.write(tmp_path / "out"))
    for name in r.series_names:
        assert list(back.series(name).columns) == schema[name].column_names, name


def test_optional_series_appear_only_when_filled() -> None:
    from conftest import minimal_scenario

    r = atmsim.run(minimal_scenario())
    schema = series_schema()
    assert r.series_names == sorted(n for n, t in schema.items() if t.always)


def test_abr_throughput_series_counts_data_cells_like_the_summary() -> None:
    nrm, dt, warmup = 8, 0.001, 0.01
    doc = abr_scenario(0.05)
    doc["run"].update(sample_interval_s=dt, warmup_s=warmup)
    doc["connections"][0]["abr"]["nrm"] = nrm
    r = atmsim.run(doc)
    c1 = r.summary["connections"]["c1"]
    assert c1["rm_cells_sent"] > 0
    conns = r.series("connections")
    rows = conns[(conns["connection"] == "c1") & (conns["time_s"] > warmup + 1e-9)]
    assert len(rows) == round((r.summary["sim_time_s"] - warmup) / dt)
    series_mb = float(rows["throughput_mbps"].sum()) * dt
    summary_mb = c1["throughput_mbps"] * (r.summary["sim_time_s"] - warmup)
    one_sample = float(rows["throughput_mbps"].max()) * dt
    assert abs(series_mb - summary_mb) <= one_sample
    # counting the RM cells too would overstate by 1 / (Nrm - 1), several samples' worth here
    assert summary_mb / (nrm - 1) > 2 * one_sample
    # the reverse direction carries only backward RM cells: delivered, but no throughput
    back = r.summary["connections"]["c1.reverse"]
    assert back["cells_delivered"] > 0 and back["throughput_mbps"] == 0
    rev = conns[conns["connection"] == "c1.reverse"]
    assert len(rev) == round(r.summary["sim_time_s"] / dt)
    assert (rev["throughput_mbps"] == 0).all()


def test_plots_follow_the_declarations(tmp_path: Path) -> None:
    from atmsim.plots import plot_all

    r = atmsim.run(_every_series())
    names = sorted(p.name for p in plot_all(r, tmp_path))
    figures = {c.plot for t in series_schema().values() for c in t.columns if c.plot}
    assert names == sorted({f"{f}.png" for f in figures} | {"utilization.png"})
    assert names == [
        "abr_ports.png", "acr.png", "cwnd.png", "outstanding.png", "queues.png", "throughput.png", "utilization.png"
    ]


def test_cli_prints_the_series_declarations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--series"]) == 0
    out = capsys.readouterr().out
    for name, table in series_schema().items():
        assert f"{name}: {table.doc}" in out
        for col in table.columns:
            assert col.name in out and col.doc in out
