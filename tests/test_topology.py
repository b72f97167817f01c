"""The network generators (atmsim.topology; `atmsim new`): every kind, distance and traffic
validates and runs (short), the TOML they print reads back as the same scenario, and the
oracle's max-min rates match the closed forms of the configurations' papers."""

from __future__ import annotations

import math
import subprocess
import sys
import tomllib

import pytest

import atmsim
from atmsim import topology as T

CASES = [
    (kind, dist, traffic)
    for kind in T.KINDS
    for dist in T.DISTANCES
    for traffic in (
        ("abr", "onoff", "tcp", "ubr", "ubr-tcp", "cbr", "video", "mix") if kind in T.SHAPES else T.TRAFFIC
    )
    if dist == "lan" or traffic in ("abr", "persistent", "tcp", "onoff")
]


@pytest.mark.parametrize("kind,dist,traffic", CASES)
def test_generator_validates_and_runs(kind: str, dist: str, traffic: str) -> None:
    doc = T.generate(kind, distance=dist, traffic=traffic, duration_s=0.02)
    assert tomllib.loads(T.to_toml(doc, ["a header"])) == doc
    result = atmsim.run(doc)
    names = {c["name"] for c in doc["connections"]}
    assert names <= set(result.summary["connections"])
    if any(c["category"] == "abr" for c in doc["connections"]):
        assert T.max_min(doc), "ABR connections have max-min rates"


@pytest.mark.parametrize("scheme", sorted(T.SCHEME_DEFAULTS))
def test_every_scheme_table_validates(scheme: str) -> None:
    atmsim.run(T.parking_lot(3, scheme=scheme, distance="lan", duration_s=0.02))


def test_gfc_oracle_matches_the_published_allocations() -> None:
    """GFC-2's allocation as the ERICA papers print it (A 10, B 5, C 35, D 35, E 35, F 10, G 5,
    H 52.5 Mb/s at full link rates); GFC-1's by hand (A, D 50/9; B, E 100/9; C 100/3; F 50)."""
    got = T.max_min(T.gfc2(), utilization=1.0)
    want = {"A": 10, "B": 5, "C": 35, "D": 35, "E": 35, "F": 10, "G": 5, "H": 52.5}
    for name, rate in got.items():
        assert rate == pytest.approx(want[name[0]], rel=1e-9), name
    assert len(got) == 22
    got = T.max_min(T.gfc1(), utilization=1.0)
    want1 = {"A": 50 / 9, "D": 50 / 9, "B": 100 / 9, "E": 100 / 9, "C": 100 / 3, "F": 50}
    for name, rate in got.items():
        assert rate == pytest.approx(want1[name[0]], rel=1e-9), name
    assert len(got) == 23


def test_parking_lot_upstream_link_bottleneck_and_transient_oracles() -> None:
    c = T.OC3 * 0.9
    assert all(v == pytest.approx(c / 4) for v in T.max_min(T.parking_lot(5)).values())
    up = T.max_min(T.upstream_bottleneck())
    assert up["c1"] == pytest.approx(c / 15) and up["c16"] == pytest.approx((c - c / 15) / 2)
    lb = T.max_min(T.link_bottleneck())
    assert lb["s1"] == pytest.approx(c / 4) and lb["s3"] == pytest.approx(c / 2)
    doc = T.chain_transient(3)
    end = T.max_min(doc)
    assert set(end) == {"long", "x1_1", "x2_1", "x2_2"} and end["long"] == pytest.approx(c / 3)
    assert end["x1_1"] == pytest.approx(2 * c / 3)
    assert T.max_min(doc, at=0.1) == {"long": pytest.approx(c)}
    both = T.max_min(doc, at=doc["run"]["duration_s"] * 0.5)
    assert len(both) == 7 and both["long"] == pytest.approx(c / 4) and both["x2_1"] == pytest.approx(3 * c / 8)
    assert T.max_min(T.gfc2(scheme="erica+"))["H1"] == pytest.approx(52.5)


def test_oracle_counts_non_abr_load_and_demands() -> None:
    doc = T.dumbbell(4, traffic="mix")  # abr, ubr-tcp, video, cbr
    rates = T.max_min(doc)
    assert set(rates) == {"c1"}
    # the trunk at 0.9 less the video's 7.5 and the CBR's 10 Mb/s (greedy UBR is not counted)
    assert rates["c1"] == pytest.approx(T.OC3 * 0.9 - 17.5)
    onoff = T.max_min(T.dumbbell(2, traffic="onoff"))
    assert all(v == pytest.approx(min(T.OC3 * 0.5, T.OC3 * 0.9 / 2)) for v in onoff.values())
    assert math.isclose(T.scheme_target({"scheme": "erica", "target_utilization": 0.8}), 0.8)


@pytest.mark.parametrize("kind", sorted(T.CONFIGURATIONS))
@pytest.mark.parametrize("traffic", ["mix", "ubr", "video"])
def test_configurations_take_the_new_mixes(kind: str, traffic: str) -> None:
    doc = T.generate(kind, distance="lan", traffic=traffic, duration_s=0.01)
    atmsim.run(doc)
    if traffic == "mix":
        cats = [c["category"] for c in doc["connections"]]
        assert cats[:3] == ["abr", "ubr", "rt-vbr"] and set(cats) <= {"abr", "ubr", "rt-vbr", "cbr"}


def test_topology_is_part_of_the_api() -> None:
    assert atmsim.topology is T


def _atmsim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "atmsim", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", sorted(T.KINDS))
def test_atmsim_new_prints_a_scenario_that_runs(kind: str, tmp_path) -> None:
    p = _atmsim("new", kind, "--distance", "lan", "--duration", "0.02")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("# Written by: atmsim new")
    path = tmp_path / f"{kind}.toml"
    path.write_text(p.stdout, encoding="utf-8")
    assert tomllib.loads(p.stdout) == T.generate(kind, distance="lan", duration_s=0.02)
    v = _atmsim("validate", str(path))
    assert v.returncode == 0, v.stderr
    r = _atmsim("run", str(path), "-q", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr


def test_atmsim_new_options() -> None:
    p = _atmsim("new", "parking-lot", "-n", "6", "--scheme", "capc", "--traffic", "tcp")
    doc = tomllib.loads(p.stdout)
    assert sum(n["kind"] == "switch" for n in doc["nodes"]) == 6
    assert {n["abr"]["scheme"] for n in doc["nodes"] if n["kind"] == "switch"} == {"capc"}
    assert {c["source"]["kind"] for c in doc["connections"]} == {"tcp"}
    assert p.stdout.splitlines()[0] == "# Written by: atmsim new parking-lot --scheme capc --traffic tcp --switches 6"
    ubr = tomllib.loads(_atmsim("new", "dumbbell", "--traffic", "ubr").stdout)
    assert not any("abr" in n for n in ubr["nodes"]), "no ABR connection: no scheme tables"
    bad = _atmsim("new", "gfc2", "-n", "3")
    assert bad.returncode == 2 and "does not apply" in bad.stderr
    bad = _atmsim("new", "gfc2", "--rate", "100")
    assert bad.returncode == 2 and "does not apply" in bad.stderr
