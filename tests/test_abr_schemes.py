"""The switch schemes of issue 30 (EPRCA, APRC, CAPC, OSU, Phantom, Charny, UCSC;
docs/abr-schemes.md), each on a simulated case with a closed form or a published behaviour, and
`atmsim suite abr`: its files, the oracle beside the settled rates, bit-for-bit reproducibility
and the report in a browser. The schemes' own arithmetic is tested in their Rust files
(`abr/switch/*.rs`)."""

from __future__ import annotations

import csv
import json
import math

import pytest

import atmsim
from atmsim import abrsuite
from atmsim import topology as T

C = T.OC3


def _acr(doc, scheme):
    r = atmsim.run(doc)
    return r, abrsuite.score_run(doc, T.scheme_table(scheme) if isinstance(scheme, str) else scheme, r.summary,
                                 r.series("abr_sources"))


def test_capc_settles_at_its_target_share() -> None:
    """CAPC's fixed point is z = 1: n greedy sources through one port share U x C equally."""
    doc = T.dumbbell(4, scheme="capc", distance="lan", duration_s=0.3)
    _, f = _acr(doc, "capc")
    for settled, oracle in f["rates"].values():
        assert oracle == pytest.approx(0.9 * C / 4)
        assert settled == pytest.approx(oracle, rel=0.01)


def test_phantom_reaches_its_fixed_point() -> None:
    """Phantom (Afek, Mansour, Ostfeld): with n sessions bottlenecked at a port, each gets
    UF C / (1 + n UF); UF = 1: C / (n + 1), the share of n + 1 sessions."""
    for n in (1, 3):
        doc = T.dumbbell(n, scheme="phantom", distance="lan", duration_s=0.5)
        _, f = _acr(doc, "phantom")
        for settled, _ in f["rates"].values():
            assert settled == pytest.approx(C / (n + 1), rel=0.02), (n, settled)


def test_osu_converges_to_the_target_utilization() -> None:
    """The OSU scheme drives the load factor into its target band [1 - delta, 1 + delta] around
    90 % of the link (Jain, Kalyanaraman, Viswanathan, ATM Forum/94-0883)."""
    doc = T.dumbbell(4, scheme="osu", distance="lan", duration_s=0.3)
    r, f = _acr(doc, "osu")
    total = sum(s for s, _ in f["rates"].values())
    assert 0.9 * 0.9 * C <= total <= 1.1 * 0.9 * C, total
    assert 0.9 * 0.9 <= r.summary["ports"]["L->R"]["z_mean"] * 0.9 <= 1.1 * 0.9


def test_eprca_is_unfair_on_the_wan_parking_lot_where_erica_is_fair() -> None:
    """EPRCA (queue-threshold congestion, MACR-based reduction) leaves the parking lot's
    connections unequal on the WAN lot (the published unfairness: Jain's 1996 survey on EPRCA's
    threshold detection, "throughput depends on how soon or how late you started"); ERICA,
    basic variant, settles every connection within 1 % of max-min on the same network."""
    _, eprca = _acr(T.parking_lot(4, scheme="eprca", distance="wan"), "eprca")
    _, erica = _acr(T.parking_lot(4, scheme={"scheme": "erica", "variant": "basic"}, distance="wan"),
                    {"scheme": "erica", "variant": "basic"})
    assert abs(eprca["worst_distance"]) > 0.05 and eprca["jain_index"] < 0.999
    assert abs(erica["worst_distance"]) < 0.01 and erica["jain_index"] > 0.9999


def test_aprc_keeps_the_link_busy_with_a_bounded_queue() -> None:
    """APRC (EPRCA with congestion = queue growth) fills a single bottleneck, its queue held
    below the heavy-congestion threshold's order of magnitude, without loss."""
    r, f = _acr(T.dumbbell(4, scheme="aprc", distance="lan", duration_s=0.3, buffer_cells=20_000), "aprc")
    port = r.summary["ports"]["L->R"]
    assert port["utilization"] > 0.9 and port["cells_dropped"] == 0 and port["max_queue_cells"] < 5000


@pytest.mark.parametrize("config,distance", [("gfc2", "lan"), ("upstream-bottleneck", "wan"), ("gfc1", "wan")])
def test_charny_consistent_marking_reaches_max_min(config: str, distance: str) -> None:
    """Charny's consistent marking converges to the max-min allocation of the capacities it
    shares out (Charny 1994; Charny, Clark, Jain 1995): every connection within 0.1 % of the
    oracle's rate at 0.9 of each link, on multi-bottleneck networks."""
    doc = T.generate(config, scheme="charny", distance=distance)
    _, f = _acr(doc, "charny")
    assert abs(f["worst_distance"]) < 1e-3, f
    assert not math.isnan(f["converge_time_s"])


@pytest.mark.parametrize("config,distance", [("gfc2", "wan"), ("upstream-bottleneck", "lan"), ("parking-lot", "wan")])
def test_ucsc_reaches_max_min(config: str, distance: str) -> None:
    """The UCSC scheme (Kalampoukas, Varma, Ramakrishnan, 1995) converges to the max-min
    allocation of the capacities it shares out: at its fixed point the VCs bottlenecked at a
    port are unrestricted and share what the restricted ones leave equally. Every connection
    within 0.1 % of the oracle's rate at 0.9 of each link, and the run converges (5 %)."""
    doc = T.generate(config, scheme="ucsc", distance=distance)
    _, f = _acr(doc, "ucsc")
    assert abs(f["worst_distance"]) < 1e-3, f
    assert not math.isnan(f["converge_time_s"])
    assert f["cells_lost"] == 0


def test_suite_buffers_hold_two_round_trips() -> None:
    """The suite's switch buffers: 20,000 cells, or two round trips of the longest connection at
    the fastest link (seed 002: "2 to 4 times RTT buffers in the switches are sufficient with
    ABR"). The satellite parking lot by hand: 275 ms up the access hop, then three 1 km trunks
    and a 1 km access link at 5 us/km, both ways, at 155.52 Mb/s of 424-bit cells."""
    configs = {c.name: c for c in abrsuite.configurations(quick=False)}
    rtt = 2 * (0.275 + 4 * 5e-6)
    for name, want in (("parking-lot-satellite", math.ceil(2 * rtt * 155.52e6 / 424)), ("parking-lot-lan", 20_000)):
        doc = configs[name].doc(abrsuite.SCHEMES["erica"], 1)
        assert {n["buffer_cells"] for n in doc["nodes"] if n["kind"] == "switch"} == {want}, name


def test_erica_plus_queue_is_bounded_over_satellite() -> None:
    """Seed 002 ("Effect of Long Feedback Delay"): with 550 ms of feedback delay ERICA+'s queue
    stays under 1.6 x RTT, where ERICA's is unbounded. On the suite's satellite parking lot
    (buffers of two round trips) ERICA+ loses no cell and its largest queue is under 1.6 RTT of
    cells at the link rate."""
    config = {c.name: c for c in abrsuite.configurations(quick=False)}["parking-lot-satellite"]
    doc = config.doc(abrsuite.SCHEMES["erica+"], 1)
    r, f = _acr(doc, abrsuite.SCHEMES["erica+"])
    assert f["cells_lost"] == 0
    assert f["max_queue_cells"] < 1.6 * abrsuite.longest_rtt_s(doc) * C * 1e6 / 424


def test_new_schemes_leave_erica_untouched() -> None:
    """The extension point: an ERICA port behaves as before beside ports of the new schemes."""
    doc = T.parking_lot(3, distance="lan", duration_s=0.1)
    a = atmsim.run(doc).summary["connections"]
    doc["nodes"][-1]["abr"] = T.scheme_table("capc")  # a switch no connection leaves by
    b = atmsim.run(doc).summary["connections"]
    assert {k: v.get("acr_final_mbps") for k, v in a.items()} == {k: v.get("acr_final_mbps") for k, v in b.items()}


@pytest.mark.parametrize("key,value,scheme", [("dpf", 1.5, "eprca"), ("eru", 0.5, "capc"), ("uf", 0.0, "phantom"),
                                              ("delta", 1.0, "osu"), ("rup", 0.1, "eprca"), ("dqt_cells", 10, "eprca"),
                                              ("qt_cells", 10, "ucsc")])
def test_bad_scheme_keys_are_refused(key: str, value: float, scheme: str) -> None:
    doc = T.parking_lot(3, scheme={"scheme": scheme, key: value}, distance="lan", duration_s=0.01)
    with pytest.raises(atmsim.ScenarioError, match=key):
        atmsim.run(doc)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    base = tmp_path_factory.mktemp("suite")
    kw = dict(quick=True, jobs=2, schemes=["erica", "eprca", "capc"], configs=["parking-lot-lan", "gfc2-lan"])
    first = abrsuite.run_suite(base / "a", seed=5, **kw)
    again = abrsuite.run_suite(base / "b", seed=5, **kw)
    return first, again


def test_suite_writes_the_scorecard_and_its_files(suite) -> None:
    first, _ = suite
    out = first.out
    rows = list(csv.DictReader((out / "scorecard.csv").open()))
    assert [(r["scheme"], r["config"]) for r in rows] == [
        (s, c) for c in ("parking-lot-lan", "gfc2-lan") for s in ("erica", "eprca", "capc")]
    assert set(abrsuite.SCORE_COLUMNS) == set(rows[0])
    rates = list(csv.DictReader((out / "rates.csv").open()))
    gfc2 = {r["connection"]: float(r["oracle_mbps"]) for r in rates if r["config"] == "gfc2-lan" and r["scheme"] == "erica"}
    assert gfc2["H1"] == pytest.approx(47.25) and len(gfc2) == 22
    for c in ("parking-lot-lan", "gfc2-lan"):
        assert T.max_min(__import__("tomllib").loads((out / "configs" / f"{c}.toml").read_text()))
    runs = atmsim.results(out)
    assert len(runs) == 6 and {"scheme", "config", "jain_index", "summary.ports.R6->R7.max_queue_cells"} <= set(runs.columns)
    marker = json.loads((out / ".atmsim-output.json").read_text())
    assert marker["command"] == "suite" and "scorecard.csv" in marker["files"] and "report.html" in marker["files"]
    capc = next(r for r in rows if r["scheme"] == "capc" and r["config"] == "gfc2-lan")
    assert abs(float(capc["worst_distance"])) < 0.03


def test_suite_is_reproducible_bit_for_bit(suite) -> None:
    first, again = suite
    for name in ("scorecard.csv", "rates.csv"):
        assert (first.out / name).read_bytes() == (again.out / name).read_bytes()


def test_suite_refuses_a_foreign_directory(tmp_path) -> None:
    (tmp_path / "mine.txt").write_text("x")
    with pytest.raises(atmsim.ScenarioError, match="not empty"):
        abrsuite.run_suite(tmp_path, quick=True, schemes=["erica"], configs=["parking-lot-lan"])
    with pytest.raises(atmsim.ScenarioError, match="unknown"):
        abrsuite.run_suite(tmp_path / "new", quick=True, schemes=["nope"])


def test_suite_report_renders_in_chromium(suite, tmp_path) -> None:
    from test_report_browser import _RENDERED, _need_browser

    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    from test_report_browser import CHROMIUM, DRIVER, FLAGS

    page = suite[0].out / "report.html"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={tmp_path / 'profile'}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        driver.get(page.as_uri())
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
        WebDriverWait(driver, 30).until(
            lambda d: all(p["plotly"] and p["svgs"] > 0 and p["traces"] > 0 for p in d.execute_script(_RENDERED)))
        plots = driver.execute_script(_RENDERED)
        assert len(plots) == 2  # one panel per configuration
        assert all(p["traces"] >= 4 and p["height"] > 100 for p in plots)  # 3 schemes + the oracle
    finally:
        driver.quit()
