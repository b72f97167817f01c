"""A reproduction holds only what it compares (issue 27 item 6): ``Result.read`` reads the summary
and leaves the series on disk until asked for, a series read is not kept by the result, and
``reproduce()`` reads only the columns and rows of the series its plots draw, with the same
comparison and the same plots as from series loaded whole."""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import atmsim
from atmsim import reproduce as rep
from atmsim.reproduce import seed000
from atmsim.reproduce.analysis import entity_series, series_of
from atmsim.result import Result

from conftest import minimal_scenario


@pytest.fixture
def parquet_reads(monkeypatch) -> list[tuple[Path, tuple[str, ...] | None, object]]:
    """Every Parquet file read from now on (pandas reads through ``pyarrow.parquet.read_table``):
    (path, columns, filters)."""
    reads: list[tuple[Path, tuple[str, ...] | None, object]] = []
    real = pq.read_table

    def counting(source, *args, columns=None, filters=None, **kwargs):
        reads.append((Path(source), None if columns is None else tuple(columns), filters))
        return real(source, *args, columns=columns, filters=filters, **kwargs)

    monkeypatch.setattr(pq, "read_table", counting)
    return reads


def test_read_loads_no_series_until_asked_and_keeps_none(tmp_path: Path, parquet_reads) -> None:
    doc = minimal_scenario(0.05)
    doc["run"]["sample_interval_s"] = 1e-3
    memory = atmsim.run(doc)
    atmsim.run(doc, out=tmp_path / "out")
    parquet_reads.clear()
    lazy = Result.read(tmp_path / "out")
    assert lazy.series_names == memory.series_names == ["connections", "ports"]
    assert lazy.summary["sim_time_s"] == memory.summary["sim_time_s"]
    assert parquet_reads == []  # the summary only
    frame = lazy.series("ports")
    assert [p.name for p, _, _ in parquet_reads] == ["ports.parquet"]
    pd.testing.assert_frame_equal(frame, memory.series("ports"))
    ref = weakref.ref(frame)
    del frame
    gc.collect()
    assert ref() is None  # the result did not keep it
    # some columns and the rows of one port: the same as selecting them from the whole series,
    # from disk and from memory alike
    port = memory.series("ports")["port"].iloc[-1]
    whole = memory.series("ports")
    expect = whole[whole["port"] == port][["time_s", "port", "queue_cells"]].reset_index(drop=True)
    for r in (lazy, memory):
        got = r.series("ports", columns=["queue_cells", "port", "time_s", "no_such_column"], where={"port": port})
        pd.testing.assert_frame_equal(got, expect)
    assert parquet_reads[-1][1] == ("time_s", "port", "queue_cells")
    assert lazy.series("ports", where={"port": "no such port"}).empty


def test_read_reports_a_damaged_series_file(tmp_path: Path) -> None:
    atmsim.run(minimal_scenario(0.01), out=tmp_path / "out")
    (tmp_path / "out" / "ports.parquet").write_bytes(b"not parquet")
    with pytest.raises(atmsim.ScenarioError, match="cannot read results"):
        Result.read(tmp_path / "out")


def _eager(directory: Path) -> Result:
    """A run's result with every series loaded whole (what ``Result.read`` did before)."""
    summary = json.loads((directory / "summary.json").read_text())
    return Result(summary, {p.stem: pd.read_parquet(p) for p in sorted(directory.glob("*.parquet"))})


def test_reproduction_reads_only_the_series_it_plots(tmp_path: Path, parquet_reads) -> None:
    """Two seeds of one seed 000 row (shortened): the comparison uses the summaries, the plot the
    first seed's bottleneck queue and VBR rate; no other series is read in the reproducing
    process, and the comparison and the plot are those of the series loaded whole."""
    full = seed000.runs(False)
    specs = [
        rep.replace(s, overrides={**s.overrides, "run.duration_s": 0.3})
        for s in full
        if s.params["config"] == "wan" and s.params["mss"] == 9140 and s.params["mean"] == 7.5 and s.params["seed"] in (1, 2)
    ]
    assert [s.params["seed"] for s in specs] == [1, 2]
    out = tmp_path / "r"
    report = rep.reproduce("seed000", runs=specs, out=out, jobs=1)
    first = specs[0].name
    reads = [(p.parent.resolve(), p.name, cols, filters) for p, cols, filters in parquet_reads]
    run_dir = (out / "runs" / first).resolve()
    assert reads == [
        (run_dir, "ports.parquet", ("time_s", "port", "queue_cells"), [("port", "==", seed000.PORT)]),
        (run_dir, "connections.parquet", ("time_s", "connection", "throughput_mbps"), [("connection", "==", "vbr")]),
    ]
    # ... though every run has more: the ABR and TCP series, and the second seed's
    for s in specs:
        assert {p.name for p in (out / "runs" / s.name).glob("*.parquet")} >= {"abr_ports.parquet", "tcp.parquet", "ports.parquet"}

    # the same figures from series loaded whole (the plot's data, then the files)
    eager = {s.name: _eager(out / "runs" / s.name) for s in specs}
    lazy = Result.read(out / "runs" / first)
    for series, key, name, value in (("ports", "port", seed000.PORT, "queue_cells"), ("connections", "connection", "vbr", "throughput_mbps")):
        t0, v0 = series_of(eager[first].series(series), key, name, value)
        t1, v1 = entity_series(lazy, series, key, name, value)
        assert len(t0) > 0
        np.testing.assert_array_equal(t0, t1)
        np.testing.assert_array_equal(v0, v1)
    exp = rep.get_experiment("seed000")
    rows = exp.compare(eager, rep.load_reference(exp), specs)
    assert rep.comparison_csv(rows) == (out / "comparison.csv").read_text()
    plots = exp.plots(eager, specs, tmp_path / "eager-plots")
    assert [p.name for p in plots] == [p.name for p in report.plots] == ["wan-mss9140.png"]
    assert plots[0].read_bytes() == (out / "plots" / "wan-mss9140.png").read_bytes()
