"""`atmsim reproduce seed000 / seed002`: run lists, reference data, the seed's metrics computed from
results, and shortened end-to-end runs."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pytest

import atmsim
from atmsim import reproduce as rep
from atmsim.reproduce import seed000, seed002

from conftest import REPO


@pytest.mark.parametrize("name", ["seed000", "seed002"])
def test_reference_data_cites_the_seed(name: str) -> None:
    exp = rep.get_experiment(name)
    ref = rep.load_reference(exp)
    assert ref["seed_file"] == exp.seed_file
    assert (REPO / "python" / "atmsim" / "reproduce" / "reference" / f"{name}.toml").is_file()
    rows = ref.get("row") or ref.get("reference")
    assert rows
    for r in rows:
        assert r.get("where") or r.get("quote"), r


def test_seed000_runs_cover_every_table_row() -> None:
    full = seed000.runs(False)
    ref = rep.load_reference(rep.get_experiment("seed000"))
    keys = {(s.params["config"], s.params["mss"], s.params.get("mean"), s.params.get("std")) for s in full}
    for r in ref["row"]:
        assert (r["config"], r["mss"], float(r["mean"]), float(r["std"])) in keys
    # WAN rows are replicated over three seeds, satellite rows run their full 170 s
    wan = [s for s in full if s.params["config"] == "wan" and s.params["mss"] == 512 and s.params["mean"] == 5.0]
    assert sorted(s.params["seed"] for s in wan) == [1, 2, 3]
    assert all(s.params["duration_s"] == 170.0 for s in full if s.params["config"].startswith("sat"))
    quick = seed000.runs(True)
    assert all(s.params["duration_s"] == seed000.QUICK_SAT_S for s in quick if s.params["config"].startswith("sat"))
    assert len(quick) < len(full)


def test_seed000_efficiency_follows_the_seed_definition() -> None:
    # the seed's worked example (section 7.1, Table 1a row 1): ABR capacity 149.76 - 56.44, max
    # TCP throughput 78% of it, TCP 68.72 Mb/s -> 94.4%
    vbr_payload = 56.44 * 48 / 53
    summary = {
        "ports": {"Sw1->Sw2": {"max_queue_cells": 6775}},
        "connections": {
            "tcp1": {"tcp": {"goodput_mbps": 68.72, "max_payload_fraction": 512 / (12 * 53) * 31 / 32}},
            "vbr": {"throughput_mbps": vbr_payload},
        },
    }
    m = seed000.measures(summary, 149.76)
    assert m["abr_throughput_mbps"] == pytest.approx(93.32)
    assert m["efficiency_percent"] == pytest.approx(68.72 / (0.7803 * 93.32) * 100, rel=1e-3)
    assert m["efficiency_percent"] == pytest.approx(94.4, abs=0.1)


def test_seed000_short_wan_run_end_to_end(tmp_path: Path) -> None:
    spec = next(s for s in seed000.runs(True) if s.params["config"] == "wan" and s.params["mss"] == 9140 and s.params["mean"] == 7.5)
    short = rep.replace(spec, overrides={**spec.overrides, "run.duration_s": 1.0})
    report = rep.reproduce("seed000", runs=[short], out=tmp_path / "r")
    share = [r for r in report.rows if r.quantity.startswith("max TCP payload share")]
    # the core's encapsulation model against the closed form: 9140 / (192 x 53) x 31/32
    assert share and share[0].ours == pytest.approx(9140 / (192 * 53) * 31 / 32, rel=1e-12)
    assert share[0].published == 0.87 and abs(share[0].ours - 0.87) < 0.001
    # efficiency (seed 000 section 7.1) = TCP goodput / (encapsulation ceiling x ABR capacity),
    # recomputed from the run's summary with the ceiling from its formula: a 9140-byte segment
    # plus TCP/IP/LLC-SNAP (48 B) and the AAL5 trailer is one frame of ceil(9196 / 48) = 192 cells
    # (map_traffic's cells_per_tsdu), and one cell in Nrm is an RM cell; ABR capacity = LINK1's
    # rate less the VBR connection's cells. Same formula: equal up to float rounding (1e-9)
    scen = tomllib.loads((REPO / "scenarios" / "seed000" / "wan.toml").read_text())
    link_mbps, nrm = scen["links"][0]["rate_mbps"], scen["connections"][0]["abr"]["nrm"]
    cells = atmsim.map_traffic(1, 1, 0, 9140, "tcp")["cells_per_tsdu"]
    assert cells == math.ceil((9140 + 48 + 8) / 48) == 192
    ceiling = 9140 / (cells * 53) * (nrm - 1) / nrm
    summary = json.loads((tmp_path / "r" / "runs" / short.name / "summary.json").read_text())
    conns = summary["connections"]
    tcp_mbps = sum(c["tcp"]["goodput_mbps"] for c in conns.values() if c.get("tcp"))
    abr_mbps = link_mbps - conns["vbr"]["throughput_mbps"] * 53 / 48
    eff = next(r for r in report.rows if r.quantity == "efficiency (%)")
    assert eff.ours == pytest.approx(100 * tcp_mbps / (ceiling * abr_mbps), rel=1e-9)
    # and the ceiling is one: TCP cannot deliver more payload than that share of the capacity
    assert tcp_mbps <= ceiling * abr_mbps
    assert (tmp_path / "r" / "report.md").is_file() and (tmp_path / "r" / "plots" / "wan-mss9140.png").is_file()


def test_seed002_runs_match_every_reference() -> None:
    ref = rep.load_reference(rep.get_experiment("seed002"))
    specs = seed002.runs(False)
    for r in ref["reference"]:
        assert sum(seed002._match(r, s) for s in specs) == 1, r["id"]
    for s in specs:
        doc, _ = rep.resolve_run(s)  # every run's scenario and overrides validate
        assert doc["description"].startswith("Seed 002")


def test_seed002_ubr_queue_approaches_the_sum_of_windows(tmp_path: Path) -> None:
    # 5 windows of 8,704,000 B = 5 x 17,000 segments x 12 cells; the queue holds what the 550 ms
    # round trip does not: the sum of the windows less about one bandwidth-delay product
    spec = next(s for s in seed002.runs(True) if s.params["scheme"] == "ubr")
    report = rep.reproduce("seed002", runs=[spec], out=tmp_path / "r")
    row = next(r for r in report.rows if r.quantity.startswith("max switch queue vs the sum"))
    assert row.published == 5 * 17_000 * 12
    bdp = 0.55 * 149.76e6 / 424
    assert row.published - 1.1 * bdp < row.ours < row.published


@pytest.mark.parametrize("path", sorted((REPO / "scenarios" / "seed000").glob("*.toml")) + sorted((REPO / "scenarios" / "seed002").glob("*.toml")), ids=lambda p: p.name)
def test_tcp_seed_scenarios_validate_and_cite(path: Path) -> None:
    doc, _ = atmsim.load_scenario(path)
    assert doc["description"].startswith("Seed 00")
    assert any(c["source"]["kind"] == "tcp" for c in doc["connections"])
    assert not math.isnan(doc["run"]["duration_s"])


@pytest.mark.parametrize(
    "setting, path",
    [
        ("connections.tcp1.source.tcp.mss_bytes=0", "connections[0].source.tcp.mss_bytes"),
        ("connections.tcp1.source.tcp.window_bytes=100", "connections[0].source.tcp.window_bytes"),
        ("connections.tcp1.source.tcp.timer_granularity_ms=0", "connections[0].source.tcp.timer_granularity_ms"),
        ("connections.vbr.source.hurst=1.2", "connections[15].source.hurst"),
        ("connections.vbr.source.interval_min_s=0.5", "connections[15].source.interval_min_s"),
    ],
)
def test_tcp_and_video_bad_input_on_the_cli(capsys, tmp_path: Path, setting: str, path: str) -> None:
    from conftest import run_bad

    line = run_bad(capsys, tmp_path, REPO / "scenarios" / "seed000" / "wan.toml", "--set", setting)
    assert f": {path}: " in line, line


def _abr_tcp(doc: dict) -> list[dict]:
    return [c for c in doc["connections"] if c["source"]["kind"] == "tcp" and c.get("abr")]


@pytest.mark.parametrize("path", sorted((REPO / "scenarios" / "seed000").glob("*.toml")) + sorted((REPO / "scenarios" / "seed002").glob("n*.toml")), ids=lambda p: p.name)
def test_tcp_seed_sources_start_at_the_stated_icr(path: Path) -> None:
    # seed 002 lists "ICR = 10 Mbps" among the source parameters "selected to maximize ACR": the
    # scenarios skip TM 4.0's set-up rule ICR <- min(ICR, TBE/FRTT) and say so
    doc, _ = atmsim.load_scenario(path)
    conns = _abr_tcp(doc)
    assert conns and all(c["abr"]["icr_mbps"] == 10.0 and c["abr"]["icr_tbe_limit"] is False for c in conns)
    assert "icr_tbe_limit = false" in doc["description"]


def test_icr_tbe_limit_decides_the_first_acr() -> None:
    # the first ACR sample of a source that has had no feedback yet (550 ms loop, 2 ms run) is ICR
    # itself, or with the set-up rule TBE/FRTT = 512 cells x 424 bits / FRTT, FRTT being twice the
    # route's one-way propagation (275 ms + 2 x 1 km at 5 us/km; node fabric delays are zero here)
    path = REPO / "scenarios" / "seed000" / "sat-sat.toml"
    first = {}
    for limit in (False, True):
        sets = [f"connections.tcp{i}.abr.icr_tbe_limit={str(limit).lower()}" for i in range(1, 16)]
        sets += ["run.duration_s=0.002", "run.sample_interval_s=0.001"]
        res = atmsim.run(path, sets)
        acr = res.series("abr_sources")
        first[limit] = float(acr[acr["connection"] == "tcp1"].sort_values("time_s")["acr_mbps"].iloc[0])
    assert first[False] == pytest.approx(10.0, rel=1e-6)
    frtt = 2 * (0.275 + 2 * 1.0 * 5e-6)
    assert first[True] == pytest.approx(512 * 424 / frtt / 1e6, rel=0.01)  # 0.395 Mb/s


def test_seed000_sat_sat_vbr_link_is_one_km_and_onoff_runs_sample_its_period() -> None:
    # section 7.4: "replacing the links in the feedback path to sources with satellite link. All
    # other links are of length 1 km each." The VBR connection has no feedback path
    doc, _ = atmsim.load_scenario(REPO / "scenarios" / "seed000" / "sat-sat.toml")
    links = {(lk["a"], lk["b"]): lk for lk in doc["links"]}
    assert links[("vbr_src", "Sw1")].get("length_km") == 1.0 and "delay_us" not in links[("vbr_src", "Sw1")]
    assert all(links[(f"src{i}", "Sw1")]["delay_us"] == 275000.0 for i in range(1, 16))
    # the ON-OFF runs sample well inside the 6 ms OFF phase; one runs the seed's averaging
    # interval, the other (a labelled check) a timed-only one
    onoff = [s for s in seed000.runs(True) if s.params["config"] == seed000.ONOFF]
    assert len(onoff) == 2
    assert all(s.overrides["run.sample_interval_s"] <= 0.006 / 2 for s in onoff)
    assert [bool(s.params.get("timed_interval")) for s in onoff] == [False, True]
    assert "nodes.Sw1.abr.interval_cells" not in onoff[0].overrides


def test_video_model_mean_is_the_truncated_normal_mean() -> None:
    # symmetric bounds around the mean (7.5 +- 7.5) leave the mean where it is: 9 x 7.5
    assert seed000.video_model_mean(7.5, 7.0) == pytest.approx(67.5, rel=1e-12)
    # otherwise the mean of the normal conditioned on [0, 15], checked against rejection sampling
    import numpy as np

    rng = np.random.default_rng(1)
    for m, s in ((5.0, 5.0), (10.0, 5.0)):
        x = rng.normal(m, s, 2_000_000)
        x = x[(x >= 0) & (x <= 15)]
        assert seed000.video_model_mean(m, s) == pytest.approx(9 * x.mean(), rel=2e-3)


def test_seed002_satellite_rows_share_one_window_the_ubr_row_bears_out() -> None:
    # every satellite row uses seed 000's satellite window (256 x 34,000 B); the UBR row's
    # published queue, 817,819 cells, is about 5 such windows less one 550 ms round trip of cells
    ref = rep.load_reference(rep.get_experiment("seed002"))
    rtt_cells = ref["parameters"]["rtt_ms"] * ref["parameters"]["cells_per_ms"]
    windows = set()
    for path in sorted((REPO / "scenarios" / "seed002").glob("*.toml")):
        doc, _ = atmsim.load_scenario(path)
        windows |= {c["source"]["tcp"]["window_bytes"] for c in doc["connections"] if c["source"]["kind"] == "tcp"}
    assert windows == {256 * 34_000}
    ubr = next(r for r in ref["reference"] if r["scheme"] == "ubr")
    assert 5 * seed002.window_cells(256 * 34_000, 512) - rtt_cells == pytest.approx(ubr["published"], rel=1e-3)
    # the VBR background's peak is seed 000's number for "80% of link rate"
    assert seed002.VBR_ON["peak_mbps"] == 124.41
    # ERICA's check runs (target 0.9) exist for every ERICA row and match no reference row
    specs = seed002.runs(True)
    erica = [s for s in specs if s.params["scheme"] == "erica"]
    assert sum(s.params["check"] for s in erica) == sum(not s.params["check"] for s in erica) == 3
    assert all(s.overrides["nodes.Sw1.abr"]["target_utilization"] == 0.9 for s in erica if s.params["check"])
