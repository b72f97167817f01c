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
    ours = text.replace(bundle, "")
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
