"""Tables and plots that scale (issue 29 item 5): every table the command line prints fits 100
columns, the run table has frame metrics for video and workload connections, ``atmsim plot``
picks ports and connections and stays readable with 96 connections, one time unit per run in the
PNGs and the report."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from atmsim.cli import main
from atmsim.plots import Selection, time_unit
from atmsim.tables import render

from conftest import EXAMPLES, REPO

LIMIT = 100


def _widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def test_render_fits_and_keeps_every_value() -> None:
    headers = ["name"] + [f"column number {i}" for i in range(30)]
    rows = [[f"row{r}"] + [str(r * 100000 + i) for i in range(30)] for r in range(3)]
    text = render(headers, rows, max_width=LIMIT)
    assert _widest(text) <= LIMIT
    for r in rows:
        for cell in r:
            assert cell in text
    assert text.count("row1") > 1  # the name column is repeated in each block
    wide = render(["n", "set.connections.vbr1.source.peak_mbps"], [["a", "1"]], max_width=20)
    assert _widest(wide) <= 20 and "peak_mbps" in wide  # a key path wraps at its dots
    from atmsim.tables import _pieces

    for text in ("ports.A->B.max_queue_cells", "a-b -> c.d  e", "x->", "->y", "sum(connections.*.x_mbps)"):
        assert "".join(_pieces(text)) == text  # wrapping loses no character
    arrow = render(["name", "ports.A->B.max_queue_cells"], [["a", "1"]], max_width=22)
    assert "ports.A->B." in arrow and "max_queue_cells" in arrow and _widest(arrow) <= 22
    cut = render(headers, rows, max_width=LIMIT, max_blocks=2)
    assert "more columns not shown" in cut and _widest(cut) <= LIMIT


@pytest.mark.parametrize("scenario", ["examples/demo.toml", "examples/abr-parking-lot.toml", "examples/seed004-hosts.toml",
                                      "examples/abr-hosts.toml", "contracts/qos-under-load.toml", "examples/echo.toml"])
def test_run_tables_fit_100_columns(scenario: str, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("ATMSIM_MAX_DURATION_S", "0.5")
    out = tmp_path / "r"
    assert main(["run", str(REPO / "scenarios" / scenario), "--out", str(out), "--all-ports"]) == 0
    text = capsys.readouterr().out
    assert _widest(text) <= LIMIT, text
    summary = json.loads((out / "summary.json").read_text())
    conns = summary["connections"]
    video = {n: c["video"] for n, c in conns.items() if isinstance(c.get("video"), dict)}
    work = {n: c for n, c in conns.items() if isinstance(c.get("workload"), dict)}
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "playout" in line), len(lines))
    for name, v in video.items():  # the video table's row: frames sent, received, lost, in network
        row = next(line.split() for line in lines[start:] if line.split()[:1] == [name])
        assert row[1:5] == [str(v["frames_sent"]), str(v["frames_received"]), str(v["frames_lost"]),
                            str(v["frames_in_network"])], row
    for name, c in work.items():
        row = next(line.split() for line in lines if line.split()[:2] == [name, c["workload"]["transport"]])
        assert row[2:5] == [str(c["frames_sent"]), str(c["frames_delivered"]), str(c["frames_lost"])], row
    if scenario.endswith("seed004-hosts.toml"):
        assert video, "the scenario has video streams"
    if scenario.endswith("abr-hosts.toml"):
        assert work, "the scenario has a workload"


def test_reproduce_table_fits() -> None:
    from atmsim.reproduce import Row, format_table

    rows = [Row("a quantity with a rather long name (Mb/s)", "transient-nrm256-some-run", 140.0, 139.91234,
                source="003_292a67b7518dce36.txt, section 5, Figures 6-8: \"In all cases the rates settle\"")] * 3
    text = format_table(rows)
    assert _widest(text) <= LIMIT, text
    assert "-0.0877" in text and "transient-nrm256" in text


def test_sweep_and_query_tables_fit(tmp_path: Path, capsys) -> None:
    out = tmp_path / "s"
    assert main(["sweep", str(EXAMPLES / "demo.toml"), "--grid", "connections.vbr1.source.peak_mbps=[50, 100]",
                 "-r", "2", "--set", "run.duration_s=0.05", "--set", "run.warmup_s=0.01", "-j", "1",
                 "-m", "ports.A->B.max_queue_cells", "-m", "sum(connections.*.user_throughput_mbps)", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert _widest("\n".join(line for line in text.splitlines() if not line.startswith("wrote "))) <= LIMIT, text
    assert main(["results", "query", str(out), "SELECT * FROM runs"]) == 0
    text = capsys.readouterr().out
    assert _widest(text) <= LIMIT and "more columns not shown" in text
    assert main(["results", "query", str(out), "SELECT * FROM runs", "--csv"]) == 0
    assert len(capsys.readouterr().out.splitlines()[0].split(",")) > 100  # --csv has them all


class _Fake:
    def __init__(self, summary: dict) -> None:
        self.summary = summary


def test_selection_keeps_busy_ports_and_ranks() -> None:
    ports = {
        "A->B": {"utilization": 0.93, "cells_transmitted": 1000, "max_queue_cells": 0, "cells_dropped": 0},  # the port
        "A->C": {"utilization": 0.5, "cells_transmitted": 500, "max_queue_cells": 3, "cells_dropped": 7},
        "h1->A": {"utilization": 0.0, "cells_transmitted": 0, "max_queue_cells": 0, "cells_dropped": 0},
    }
    conns = {f"c{i}": {"throughput_mbps": float(i), "cells_dropped": 10 - i} for i in range(10)}
    fake = _Fake({"ports": ports, "connections": conns})
    assert Selection().keys(fake, "port", list(ports)) == ["A->B", "A->C"]  # busy at 93 % without a queue: kept
    assert Selection(ports=("h1->*",)).keys(fake, "port", list(ports)) == ["h1->A"]  # named: shown even idle
    assert Selection(top=1).keys(fake, "port", list(ports)) == ["A->B"]
    assert Selection(top=1, by="loss").keys(fake, "port", list(ports)) == ["A->C"]
    assert Selection(top=3).keys(fake, "connection", list(conns)) == ["c7", "c8", "c9"]
    assert Selection(top=2, by="loss").keys(fake, "connection", list(conns)) == ["c0", "c1"]
    assert Selection(connections=("c1", "c1?")).keys(fake, "connection", list(conns)) == ["c1"]
    names = Selection().keys(fake, "connection", [f"s0v{i}" for i in (10, 2, 1)])
    assert names == ["s0v1", "s0v2", "s0v10"]


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    return struct.unpack(">II", head[16:24])


def test_plot_with_96_connections(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("ATMSIM_MAX_DURATION_S", "0.2")
    out = tmp_path / "big"
    assert main(["run", str(REPO / "scenarios" / "seed004" / "exp3-fore-4to4-n96.toml"), "--out", str(out), "-q"]) == 0
    assert main(["plot", str(out)]) == 0
    width, height = _png_size(out / "throughput.png")
    assert width >= 1300 and height >= 450, (width, height)  # the legend's columns beside the axes
    assert main(["plot", str(out), "--top", "5", "--legend", "inside"]) == 0
    assert _png_size(out / "throughput.png")[0] == 900  # five lines, the legend inside: 9 in at 100 dpi
    assert main(["plot", str(out), "--connections", "s0v*", "--ports", "*->r0", "--legend", "none"]) == 0
    capsys.readouterr()


def test_one_time_unit_per_run_in_pngs_and_report(tmp_path: Path, capsys, monkeypatch) -> None:
    assert time_unit(0.5) == ("ms", 1e3) and time_unit(20.0) == ("s", 1.0)
    pytest.importorskip("plotly")
    out = tmp_path / "r"
    assert main(["run", str(EXAMPLES / "demo.toml"), "--set", "run.duration_s=0.3", "--out", str(out), "-q"]) == 0
    assert main(["report", str(out)]) == 0
    html = (out / "report.html").read_text()
    assert "simulated time (ms)" in html and "simulated time (s)" not in html
    capsys.readouterr()


def test_report_table_shows_float_noise_as_zero() -> None:
    pytest.importorskip("plotly")
    from atmsim.report.page import Page

    page = Page("t")
    page.table(["port", "mean queue"], [["a", 312.5], ["b", 3.3595e-08], ["c", 0.25]])
    html = page.parts[-1]
    assert "3.3595e-08" not in html and ">0<" in html and "0.25" in html
