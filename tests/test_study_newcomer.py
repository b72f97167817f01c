"""Studies users need (issue 29 item 4): a discard policy crossed with its parameters, aggregate
metrics over every connection or port, intervals that stay in the range of a bounded quantity,
zipped axes drawn as one curve."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim.cli import main
from atmsim.errors import ScenarioError
from atmsim.study.metrics import aggregate, bounds, columns_of, with_metrics
from atmsim.study.stats import t_interval

from conftest import EXAMPLES

DEMO = EXAMPLES / "demo.toml"
SHORT = {"run.duration_s": 0.05, "run.warmup_s": 0.01}


def test_pattern_names_entities_not_nested_tables() -> None:
    cols = ["connections.c1.category", "connections.c1.frames_sent", "connections.c1.video.frames_sent",
            "connections.c1.reverse.category", "connections.c1.reverse.frames_sent",
            "connections.c2.category", "connections.c2.frames_sent", "ports.A->B.node", "ports.A->B.utilization"]
    assert columns_of(cols, "connections.*.frames_sent") == [
        "connections.c1.frames_sent", "connections.c1.reverse.frames_sent", "connections.c2.frames_sent"]
    assert columns_of(cols, "ports.*.utilization") == ["ports.A->B.utilization"]
    assert columns_of(cols, "connections.*") == [] and columns_of(cols, "*.frames_sent") == []


def test_aggregates_closed_forms() -> None:
    assert aggregate("sum", [1.0, 2.0, 3.0]) == 6.0
    assert aggregate("mean", [1.0, 2.0, 3.0]) == 2.0
    assert aggregate("max", [1.0, 5.0, 3.0]) == 5.0 and aggregate("min", [4.0, 2.0]) == 2.0
    assert aggregate("jain", [7.0, 7.0, 7.0, 7.0]) == pytest.approx(1.0)  # equal shares: 1
    assert aggregate("jain", [9.0, 0.0, 0.0]) == pytest.approx(1 / 3)  # one takes all: 1/n
    assert aggregate("jain", [1.0, 3.0]) == pytest.approx(16 / 20)  # (1 + 3)^2 / (2 (1 + 9))
    frame = pd.DataFrame({"connections.a.category": ["cbr"], "connections.a.x_mbps": [1.0],
                          "connections.b.category": ["ubr"], "connections.b.x_mbps": [3.0]})
    assert with_metrics(frame, ["sum(connections.*.x_mbps)"])["sum(connections.*.x_mbps)"].tolist() == [4.0]


def test_bounded_intervals_stay_in_range() -> None:
    values = [0.0, 0.0, 0.3]  # a CLR: the t interval reaches below 0
    free = t_interval(values, 0.95)
    assert free["low"] < 0  # so the check below can fail
    ci = t_interval(values, 0.95, bounds("connections.c1.clr"))
    assert ci["low"] == 0.0 and ci["high"] == free["high"] and ci["half_width"] == free["half_width"]
    util = t_interval([0.99, 0.6, 0.98], 0.95, bounds("ports.A->B.utilization"))
    assert util["high"] == 1.0
    assert bounds("sum(ports.*.utilization)") == (0.0, math.inf)  # a sum of ratios can pass 1
    assert bounds("jain(connections.*.throughput_mbps)") == (0.0, 1.0)
    assert bounds("connections.c1.tcp.goodput_mbps") == (0.0, math.inf)
    assert bounds("wall_time_s")[0] == 0.0 and bounds("something_else") == (-math.inf, math.inf)


def test_discard_crossed_with_its_threshold(tmp_path: Path, capsys) -> None:
    """EPD's threshold is ignored at the tail-drop points: 1 + 2 points per buffer size, the
    tail-drop point run once, its threshold column empty."""
    res = atmsim.sweep(DEMO, tmp_path / "s", grid={
        "nodes.A.discard": ["tail", "epd"], "nodes.A.epd_threshold_cells": [500, 1000],
        "nodes.A.buffer_cells": [1500, 2000]}, set=SHORT, replications=2, jobs=1,
        metrics=["sum(connections.*.user_throughput_mbps)", "jain(connections.*.throughput_mbps)"])
    runs = res.runs
    assert len(runs) == (1 + 2) * 2 * 2 and set(runs["status"]) == {"ok"}
    tail = runs[runs["set.nodes.A.discard"] == "tail"]
    assert len(tail) == 4 and tail["set.nodes.A.epd_threshold_cells"].isna().all()
    epd = runs[runs["set.nodes.A.discard"] == "epd"]
    assert sorted(set(epd["set.nodes.A.epd_threshold_cells"])) == [500, 1000]
    # the aggregate is the sum of the three connections' columns, run by run
    names = ("cbr1", "vbr1", "ubr1")
    total = sum(runs[f"connections.{n}.user_throughput_mbps"] for n in names)
    points = res.points[res.points["metric"] == "sum(connections.*.user_throughput_mbps)"]
    for _, p in points.iterrows():
        mine = total[runs["point"] == p["point"]]
        assert p["mean"] == pytest.approx(mine.mean())
    jain = res.points[res.points["metric"] == "jain(connections.*.throughput_mbps)"]
    assert ((jain["mean"] > 1 / 3 - 1e-12) & (jain["mean"] <= 1 + 1e-12)).all()
    # a threshold with tail drop and nothing else varying is still an error (not silently dropped)
    with pytest.raises(ScenarioError, match="only used with"):
        atmsim.sweep(DEMO, tmp_path / "t", grid={"nodes.A.epd_threshold_cells": [500, 1000]}, set=SHORT, jobs=1)
    # a set key of one choice is left out where it does not apply
    res = atmsim.sweep(DEMO, tmp_path / "u", grid={"nodes.A.discard": ["tail", "epd"]},
                       set={**SHORT, "nodes.A.epd_threshold_cells": 800}, replications=1, jobs=1)
    assert len(res.runs) == 2 and set(res.runs["status"]) == {"ok"}


def test_aggregate_metric_on_the_command_line(tmp_path: Path, capsys) -> None:
    out = tmp_path / "s"
    assert main(["sweep", str(DEMO), "--grid", "connections.vbr1.source.peak_mbps=[50, 80]", "-r", "1", "--set", "run.duration_s=0.05",
                 "--set", "run.warmup_s=0.01", "-m", "sum(connections.*.user_throughput_mbps)", "-j", "1",
                 "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["sweep", str(DEMO), "--grid", "connections.vbr1.source.peak_mbps=[50, 80]", "-r", "1", "--set", "run.duration_s=0.05",
                 "--set", "run.warmup_s=0.01", "-m", "sum(connections.*.no_such_key)", "-j", "1",
                 "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert "matches nothing in the run summary" in err and len(err.splitlines()) == 1


def test_zipped_axes_are_one_curve() -> None:
    plotly = pytest.importorskip("plotly.graph_objects")
    from atmsim.report.study import _curves, curve_axes

    grid, zipped = ["set.g"], ["set.a", "set.b"]
    axes = curve_axes(grid, zipped)
    assert ("set.a", ["set.g"]) in axes and ("set.g", ["set.a"]) in axes and len(axes) == 2
    sub = pd.DataFrame({"set.g": [1, 1, 1, 2, 2, 2], "set.a": [10, 20, 30] * 2, "set.b": [3, 2, 1] * 2,
                        "mean": [1.0, 2, 3, 4, 5, 6], "low": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5],
                        "high": [1.5, 2.5, 3.5, 4.5, 5.5, 6.5], "n": [3] * 6})
    fig = _curves(plotly, sub, "set.a", ["set.g"], zipped, "m", 0.95)
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert len(lines) == 2 and all(len(t.x) == 3 for t in lines)  # two curves of three points
    one = _curves(plotly, sub[sub["set.a"] == 10], "set.a", ["set.g"], zipped, "m", 0.95)
    assert all(t.error_y.array is not None for t in one.data if t.mode == "lines+markers")  # error bars, not a band
