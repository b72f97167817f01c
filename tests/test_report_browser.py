"""HTML reports (issue 17: a run, a study, a reproduction, a `reproduce all` index) opened in a
real headless Chromium: no console errors, every plot element rendered (an SVG with traces, not an
empty div), a screenshot that is not blank.

Needs Debian's `chromium` and `chromium-driver` (`make test` installs them with apt-get when it
can). Without them the test is skipped with the reason, except under CI (CI=true), where it fails.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

import atmsim
from atmsim import reproduce as rep
from atmsim.report import report

from conftest import onoff_scenario, write_toml

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,2000"]


def _need_browser() -> None:
    missing = [p for p in (CHROMIUM, DRIVER) if not os.access(p, os.X_OK)]
    if missing:
        reason = f"Chromium not installed ({', '.join(missing)} missing): apt-get install chromium chromium-driver"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (CI=true: the browser test must run)")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="atmsim-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("reports")
    scenario = write_toml(base / "onoff.toml", onoff_scenario(0.05))
    run_dir = base / "run"
    atmsim.run(scenario).write(run_dir)
    study = base / "study"
    atmsim.sweep(scenario, study, grid={"connections.vbr.source.peak_mbps": [60, 80, 100]}, replications=3,
                 metrics=["connections.vbr.throughput_mbps", "ports.S->h2.max_queue_cells"], jobs=2)
    repro = base / "repro"
    spec = rep.replace(next(s for s in rep.get_experiment("seed003").runs(True) if s.name == "transient-nrm32"),
                       overrides={"run.duration_s": 0.8})
    rep.reproduce("seed003", runs=[spec], out=repro, jobs=1)
    from atmsim.reproduce import seed003
    from atmsim.reproduce import reproduce_all

    with pytest.MonkeyPatch.context() as mp:  # `reproduce all` over one shortened experiment
        mp.setattr(rep, "EXPERIMENT_MODULES", ("seed003",))
        mp.setattr(seed003, "EXPERIMENT", rep.replace(seed003.EXPERIMENT, runs=lambda quick: [spec]))
        index = reproduce_all(quick=True, out=base / "all", jobs=1)
    return {"run": report(run_dir), "study": report(study), "reproduction": report(repro), "index": index}


_RENDERED = """
const plots = Array.from(document.querySelectorAll('div.atmsim-plot'));
return plots.map(p => ({
  id: p.id,
  plotly: p.classList.contains('js-plotly-plot'),
  svgs: p.querySelectorAll('svg.main-svg').length,
  traces: p.querySelectorAll('g.trace').length,
  height: p.getBoundingClientRect().height,
}));
"""


@pytest.mark.parametrize("kind", ["run", "study", "reproduction", "index"])
def test_report_renders_in_chromium(kind: str, reports: dict[str, Path], browser, tmp_path: Path) -> None:
    page = reports[kind]
    text = page.read_text(encoding="utf-8")
    from plotly.offline import get_plotlyjs

    bundle = get_plotlyjs()
    assert text.count(bundle) == 1, "plotly.js is to be embedded once"
    from atmsim.report.network import CYTOSCAPE

    cytoscape = CYTOSCAPE.read_text(encoding="utf-8")
    assert text.count(cytoscape) == (1 if kind == "run" else 0), "Cytoscape.js: once in a run's report (its network)"
    ours = text.replace(bundle, "").replace(cytoscape, "")
    assert not re.search(r"<(script|link|img)[^>]*\b(src|href)=[\"']?(https?:)?//", ours), "the page must load nothing"
    expected = text.count('class="plot atmsim-plot"')
    assert expected >= {"run": 3, "study": 2, "reproduction": 1, "index": 1}[kind]  # study: 2 metrics x 1 axis
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(page.as_uri())
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
    WebDriverWait(browser, 30).until(
        lambda d: all(p["plotly"] and p["svgs"] > 0 and p["traces"] > 0 for p in d.execute_script(_RENDERED))
    )
    plots = browser.execute_script(_RENDERED)
    assert len(plots) == expected
    for p in plots:
        assert p["plotly"] and p["svgs"] > 0 and p["traces"] > 0 and p["height"] > 100, p
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert not errors, errors
    shot = tmp_path / f"{kind}.png"
    assert browser.save_screenshot(str(shot))
    from matplotlib.image import imread

    pixels = imread(str(shot))[..., :3]
    assert pixels.shape[0] > 100 and pixels.shape[1] > 100
    not_white = np.any(pixels < 0.95, axis=-1).mean()
    assert not_white > 0.02, f"screenshot is blank ({not_white:.2%} non-white pixels)"
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50, "screenshot has almost no colours"


# --- the network view (issue 28 item 4) -------------------------------------------------------

#: the shipped examples, and seed 000's WAN with a trace of tcp1 (its drops, if any, in the view)
NETWORK_CASES = sorted(p.name for p in (Path(__file__).resolve().parent.parent / "scenarios" / "examples").glob("*.toml"))
NETWORK_CASES += ["seed000/wan.toml"]

_NETWORK_STATE = """
const root = document.querySelector('div.atmsim-network');
if (!root || root.getAttribute('data-ready') !== '1') return null;
const cy = root.atmsimCy;
return {nodes: cy.nodes().map(n => n.id()), edges: cy.edges().map(e => [e.source().id(), e.target().id()]),
        colours: cy.edges().map(e => e.style('line-gradient-stop-colors')), frame: root.getAttribute('data-frame'),
        canvases: root.querySelectorAll('canvas').length};
"""


def _rgb(hex_colour: str) -> str:
    return "rgb({},{},{})".format(*(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)))


@pytest.mark.parametrize("case", NETWORK_CASES)
def test_network_view_draws_the_scenario_and_the_slider_recolours(case: str, browser, tmp_path: Path) -> None:
    """One node per scenario node and one edge per link (counted against the scenario file);
    moving the slider to a frame where a port's utilization differs recolours that port's half of
    its link with the colour of its value (the scale of atmsim.netview.colour), and the drawing's
    pixels change."""
    import json

    from atmsim import netview
    from atmsim.api import prepare
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    scenario = Path(__file__).resolve().parent.parent / "scenarios" / ("" if "/" in case else "examples") / case
    over = ["run.warmup_s=0"]
    if case.startswith("seed000"):
        over += ['run.trace.connections=["tcp1"]', "run.trace.from_s=0.01", "run.trace.to_s=0.03"]
    doc, _ = prepare(str(scenario), over, None, 0.04)
    out = tmp_path / "run"
    atmsim.run(scenario, overrides=over, duration=0.04, out=out)
    page = report(out)
    text = page.read_text(encoding="utf-8")
    data = json.loads(re.search(r'class="atmsim-network-data">(.*?)</script>', text, re.S).group(1).replace("<\\/", "</"))
    browser.get_log("browser")
    browser.get(page.as_uri())
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(_NETWORK_STATE) is not None)
    state = browser.execute_script(_NETWORK_STATE)
    assert sorted(state["nodes"]) == sorted("n:" + n["name"] for n in doc["nodes"])
    assert sorted(map(sorted, state["edges"])) == sorted(sorted(("n:" + e["a"], "n:" + e["b"])) for e in doc["links"])
    assert state["canvases"] > 0 and state["frame"] == "0"

    # the frame where some port's utilization differs most from frame 0's
    util = data["frames"]["util"]
    assert util, "the run has a ports series"
    diff = lambda k: max(abs((v[k] or 0) - (v[0] or 0)) for v in util.values())  # noqa: E731
    k = max(range(len(data["frames"]["t"])), key=diff)
    moving = diff(k) > 0.01  # a constant-rate network (base-two-hosts: one CBR source) has nothing to animate
    if case in ("demo.toml", "abr-parking-lot.toml", "abr-n-sources.toml", "seed000/wan.toml"):
        assert moving, "these networks' loads change over their first 40 ms"
    port = max(util, key=lambda p: abs((util[p][k] or 0) - (util[p][0] or 0)))

    def edge_of(p: str) -> int:  # the edge of port p's link (network.js keeps the links' order)
        return next(i for i, e in enumerate(data["links"]) if p in (f"{e['a']}->{e['b']}", f"{e['b']}->{e['a']}"))

    def half_of(p: str) -> int:  # the first stop of the half at the port's node (A->B: A's half)
        e = data["links"][edge_of(p)]
        return 0 if p == f"{e['a']}->{e['b']}" else 2

    Select(browser.find_element(By.CSS_SELECTOR, "select.atmsim-metric")).select_by_value("util")
    graph = browser.find_element(By.CSS_SELECTOR, ".atmsim-network-graph")
    browser.execute_script("arguments[0].scrollIntoView()", graph)
    before = graph.screenshot_as_png
    util_state = browser.execute_script(_NETWORK_STATE)  # frame 0, coloured by utilization
    assert util_state["colours"][edge_of(port)].split(" ")[half_of(port)] == _rgb(netview.colour(util[port][0]))
    browser.execute_script(
        "const s = document.querySelector('input.atmsim-slider'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", k)
    after_state = browser.execute_script(_NETWORK_STATE)
    assert after_state["frame"] == str(k)
    assert after_state["colours"][edge_of(port)].split(" ")[half_of(port)] == _rgb(netview.colour(util[port][k]))
    if moving:
        assert after_state["colours"] != util_state["colours"]
        import io

        from matplotlib.image import imread

        assert not np.array_equal(imread(io.BytesIO(before)), imread(io.BytesIO(graph.screenshot_as_png))), "the drawing did not change"
    # hovering a connection's name highlights its route: its nodes and the links of its hops
    for c in data["connections"][:3]:
        lit = browser.execute_script(
            "const tr = document.querySelector('tr[data-connection=\"' + arguments[0] + '\"]');"
            "tr.dispatchEvent(new MouseEvent('mouseenter'));"
            "const cy = document.querySelector('div.atmsim-network').atmsimCy;"
            "const out = [cy.nodes('.route').map(n => n.id()).sort(), cy.edges('.route').length];"
            "tr.dispatchEvent(new MouseEvent('mouseleave')); return out;", c["name"])
        assert lit[0] == sorted({"n:" + n for n in c["route"]}) and lit[1] == len({frozenset(h) for h in zip(c["route"], c["route"][1:])})
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert not errors, errors
