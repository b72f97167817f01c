"""The network view of a run (issue 28 item 4; atmsim.netview, report/network.py) without a
browser: the topology kept with the run equals the scenario's, the layout places every node, the
animation's frames merge the series' samples without losing what they say (maxima, means, and
the trace's drops adding up to the summary's), the page stays small, and Jupyter's picture has
one element per node and link. tests/test_report_browser.py drives the page in Chromium."""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import atmsim
from atmsim import netview
from atmsim.api import prepare

from conftest import REPO, abr_scenario, onoff_scenario

pytest.importorskip("plotly")
from atmsim.report import report  # noqa: E402
from atmsim.report.network import CYTOSCAPE, network_data  # noqa: E402

#: sha256 of the vendored Cytoscape.js (python/atmsim/report/vendor/README.md)
CYTOSCAPE_SHA256 = "71fa9ebec21a7ca2c40cff6aacc30d1f6464e363662ad4b2c197e1adc770cd94"
SCENARIOS = sorted((REPO / "scenarios").rglob("*.toml"))


def test_vendored_library_is_the_one_noted() -> None:
    assert hashlib.sha256(CYTOSCAPE.read_bytes()).hexdigest() == CYTOSCAPE_SHA256
    note = (CYTOSCAPE.parent / "README.md").read_text(encoding="utf-8")
    assert CYTOSCAPE_SHA256 in note and "3.35.0" in note
    assert 'cf.version="3.35.0"' in CYTOSCAPE.read_text(encoding="utf-8")[-400:]
    assert "MIT" in note and (CYTOSCAPE.parent / "cytoscape.LICENSE").read_text().startswith("Copyright (c) 2016")


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.relative_to(REPO / "scenarios").as_posix())
def test_every_scenario_has_its_network_and_a_layout(path: Path) -> None:
    doc, _ = prepare(str(path), [], None, None)
    net = netview.network_of(doc)
    assert [n["name"] for n in net["nodes"]] == [n["name"] for n in doc["nodes"]]
    assert [(e["a"], e["b"]) for e in net["links"]] == [(e["a"], e["b"]) for e in doc["links"]]
    assert len(net["connections"]) == len(doc.get("connections", [])) + len(doc.get("calls", []))
    pairs = {frozenset((e["a"], e["b"])) for e in net["links"]}
    for c in net["connections"]:  # the core refuses a route hop without a link: each is drawn
        assert all(frozenset(h) in pairs for h in zip(c["route"], c["route"][1:])), c["name"]
    pos = netview.layout(net)
    assert set(pos) == {n["name"] for n in net["nodes"]}
    assert len(set(pos.values())) == len(pos), "two nodes drawn at one place"
    assert all(math.isfinite(x) and math.isfinite(y) for x, y in pos.values())


def test_layout_puts_each_hop_of_a_one_way_network_left_to_right() -> None:
    net = netview.network_of(prepare(str(REPO / "scenarios/examples/abr-parking-lot.toml"), [], None, None)[0])
    pos = netview.layout(net)
    for c in net["connections"]:  # no connection goes the other way here: every hop moves right
        assert all(pos[u][0] < pos[v][0] for u, v in zip(c["route"], c["route"][1:])), c["name"]


@pytest.fixture(scope="module")
def onoff_run(tmp_path_factory) -> atmsim.Result:
    """The ON-OFF and UBR sources into a 100-cell buffer (drops), 1 ms samples of 0.2 s, and a
    trace of every drop from time 0 (no warm-up: the summary counts what the trace does)."""
    doc = onoff_scenario(0.2)
    doc["run"].update({"sample_interval_s": 1e-4, "trace": {"kinds": ["drop"]}})
    out = tmp_path_factory.mktemp("netview") / "run"
    atmsim.run(doc, out=out)
    return atmsim.Result.read(out)


def test_the_run_keeps_its_network(onoff_run: atmsim.Result) -> None:
    net = netview.network(onoff_run.summary)  # as read back from summary.json
    assert [n["name"] for n in net["nodes"]] == ["h0", "h1", "S", "h2"]
    assert [c["route"] for c in net["connections"]] == [["h0", "S", "h2"], ["h1", "S", "h2"]]
    assert net["links"][0] == {"a": "h0", "b": "S", "rate_mbps": 149.76, "length_km": 1.0}


def test_frames_merge_samples_and_keep_what_they_say(onoff_run: atmsim.Result) -> None:
    ports = onoff_run.series("ports")
    times = np.unique(ports["time_s"])
    fr = netview.frames(onoff_run, netview.network(onoff_run.summary), limit=400)
    step = math.ceil(len(times) / 400)
    assert len(times) > 400 and fr["samples_per_frame"] == step and len(fr["t"]) == math.ceil(len(times) / step) <= 400
    for port, group in ports.groupby("port"):
        q, u = group["queue_cells"].to_numpy(), group["utilization"].to_numpy()
        # the largest queue of the frames is the largest sample; the frames' means, weighted by
        # their samples, are the mean of the samples
        assert max(fr["queue"][port]) == q.max()
        weights = [min(step, len(q) - k * step) for k in range(len(fr["t"]))]
        assert np.average(fr["util"][port], weights=weights) == pytest.approx(u.mean(), abs=1e-3)
    assert fr["queue_max"] == ports["queue_cells"].max() > 0


def test_trace_drops_per_frame_add_up_to_the_summary(onoff_run: atmsim.Result) -> None:
    fr = netview.frames(onoff_run, netview.network(onoff_run.summary))
    assert fr["drops_from_trace"]
    dropped = {p: v["cells_dropped"] for p, v in onoff_run.summary["ports"].items() if v.get("cells_dropped")}
    assert dropped and {p: sum(v) for p, v in fr["drops"].items()} == dropped


def test_abr_frames_hold_each_source_acr(tmp_path: Path) -> None:
    r = atmsim.run(abr_scenario(0.05), out=tmp_path / "abr")
    fr = network_data(r)["frames"]
    acr = r.series("abr_sources")
    assert set(fr["acr"]) == set(acr["connection"])
    for c, values in fr["acr"].items():
        a = acr[acr["connection"] == c]["acr_mbps"]
        assert a.min() - 1e-3 <= min(values) and max(values) <= a.max() + 1e-3


def test_the_page_stays_small_however_many_samples(tmp_path: Path) -> None:
    doc = onoff_scenario(0.5)
    doc["run"]["sample_interval_s"] = 1e-5  # 50,000 samples of each of 6 ports
    run = tmp_path / "run"
    atmsim.run(doc, out=run)
    page = report(run).read_text(encoding="utf-8")
    data = re.search(r'<script type="application/json" class="atmsim-network-data">(.*?)</script>', page, re.S)
    assert data is not None
    frames = json.loads(data.group(1))["frames"]
    assert len(frames["t"]) == netview.MAX_FRAMES
    assert len(data.group(1)) < 60_000  # 400 frames x 6 ports x (queue, utilization)
    assert page.count(CYTOSCAPE.read_text(encoding="utf-8")) == 1


def test_a_run_without_its_network_is_drawn_from_its_ports(onoff_run: atmsim.Result) -> None:
    s = dict(onoff_run.summary)
    s["scenario"] = {k: v for k, v in s["scenario"].items() if k != "network"}
    net = netview.network(s)
    assert {n["name"] for n in net["nodes"]} == {"h0", "h1", "S", "h2"}
    assert {frozenset((e["a"], e["b"])) for e in net["links"]} == {frozenset(p) for p in (("h0", "S"), ("h1", "S"), ("S", "h2"))}
    assert net["connections"] == []


def test_jupyter_picture_has_one_element_per_node_and_link(onoff_run: atmsim.Result) -> None:
    text = onoff_run._repr_html_()
    assert text.count('<g class="node">') == 4 and text.count('<g class="link">') == 3
    assert "<script" not in text
    # each half of S->h2's link is coloured by its port's utilization over the run
    u = onoff_run.summary["ports"]["S->h2"]["utilization"]
    assert netview.colour(u) in text


def test_colour_scale_ends() -> None:
    assert netview.colour(0.0) == "#d0d7de" and netview.colour(1.0) == "#d1242f" and netview.colour(0.5) == "#f2b600"
    assert netview.colour(None) == netview.colour(float("nan")) == "#eeeeee" and netview.colour(7.0) == "#d1242f"


def test_a_study_stores_no_network_columns(tmp_path: Path) -> None:
    """The network is for drawing: a study's run table keeps the summary's numbers, not a column
    per link (atmsim.study.execute.NOT_STORED)."""
    from conftest import write_toml

    f = write_toml(tmp_path / "s.toml", onoff_scenario(0.01))
    res = atmsim.sweep(f, tmp_path / "study", grid={"connections.vbr.source.peak_mbps": [60, 80]}, replications=1,
                       metrics=["connections.vbr.throughput_mbps"], jobs=1)
    assert "scenario.file" in res.runs.columns
    assert not [c for c in res.runs.columns if c.startswith("scenario.network")]
