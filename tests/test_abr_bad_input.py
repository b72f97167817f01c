"""Bad ABR input through the CLI: exit code 2, one stderr line naming the file and the key path
(checked by the core: crates/atmsim-core/src/scenario.rs), no output directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from atmsim.cli import main

from conftest import abr_scenario, write_toml, run_bad




def conn_abr(**keys: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["connections"][0]["abr"].update(keys)


def switch_abr(**keys: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["nodes"][1].__setitem__("abr", keys)


CASES = [
    # (id, change, key path, words the message must contain)
    ("nrm-not-power-of-two", conn_abr(nrm=12), "connections[0].abr.nrm", ["power of two"]),
    ("nrm-too-large", conn_abr(nrm=512), "connections[0].abr.nrm", ["256"]),
    ("nrm-too-small", conn_abr(nrm=1), "connections[0].abr.nrm", ["2"]),
    ("rif-above-1", conn_abr(rif=2.0), "connections[0].abr.rif", ["power of two"]),
    ("rif-not-power-of-two", conn_abr(rif=0.3), "connections[0].abr.rif", ["power of two"]),
    ("rif-too-small", conn_abr(rif=1 / 65536), "connections[0].abr.rif", ["1/32768"]),
    ("rdf-zero", conn_abr(rdf=0.0), "connections[0].abr.rdf", ["power of two"]),
    ("cdf-too-small", conn_abr(cdf=1 / 128), "connections[0].abr.cdf", ["1/64"]),
    ("mcr-above-pcr", conn_abr(mcr_mbps=100.0, pcr_mbps=50.0), "connections[0].abr.mcr_mbps", ["PCR"]),
    ("icr-above-pcr", conn_abr(icr_mbps=120.0, pcr_mbps=100.0), "connections[0].abr.icr_mbps", ["MCR", "PCR"]),
    ("pcr-above-link-rate", conn_abr(pcr_mbps=1000.0), "connections[0].abr.pcr_mbps", ["first link"]),
    ("icr-below-mcr", conn_abr(icr_mbps=5.0, mcr_mbps=10.0), "connections[0].abr.icr_mbps", ["MCR", "PCR"]),
    ("erica+-t0-zero", switch_abr(scheme="erica+", t0_us=0), "nodes[1].abr.t0_us", ["> 0"]),
    ("erica+-t0-negative", switch_abr(scheme="erica+", t0_us=-5.0), "nodes[1].abr.t0_us", ["> 0"]),
    ("erica+-a-is-1", switch_abr(scheme="erica+", a=1.0), "nodes[1].abr.a", ["> 1"]),
    ("erica+-b-below-1", switch_abr(scheme="erica+", b=0.9), "nodes[1].abr.b", ["> 1"]),
    ("erica+-qdlf-zero", switch_abr(scheme="erica+", qdlf=0.0), "nodes[1].abr.qdlf", ["(0, 1]"]),
    ("erica+-qdlf-above-1", switch_abr(scheme="erica+", qdlf=1.5), "nodes[1].abr.qdlf", ["(0, 1]"]),
    ("unknown-scheme", switch_abr(scheme="erika"), "nodes[1].abr.scheme", ["erika", "erica+"]),
    (
        "unknown-port-scheme",
        lambda d: (d["nodes"][1].pop("abr"), d["nodes"][1].__setitem__("ports", [{"to": "h2", "abr": {"scheme": "bogus"}}])),
        "nodes[1].ports[0].abr.scheme",
        ["bogus"],
    ),
    ("switch-without-scheme", lambda d: d["nodes"][1].pop("abr"), "nodes[1].abr", ["no ABR scheme", "S->h2"]),
    ("abr-table-on-cbr", lambda d: d["connections"][0].update(category="cbr", source={"kind": "cbr", "rate_mbps": 10.0}),
     "connections[0].abr", ["abr"]),
    ("abr-table-missing", lambda d: d["connections"][0].pop("abr"), "connections[0].abr", ["required"]),
    ("erica+-key-on-erica", switch_abr(scheme="erica", t0_us=100.0), "nodes[1].abr.t0_us", ["erica"]),
    ("efci-without-thresholds", switch_abr(scheme="efci"), "nodes[1].abr.high_cells", ["required"]),
    ("bidirectional-tcp-over-abr",
     lambda d: d["connections"][0].update(bidirectional=True, source={"kind": "tcp"}),
     "connections[0].bidirectional", ["receiving host's frames"]),
    ("bidirectional-through-vsvd",
     lambda d: (d["nodes"][1]["abr"].update(vsvd=True), d["connections"][0].update(bidirectional=True)),
     "connections[0].bidirectional", ["VS/VD"]),
]


@pytest.mark.parametrize("change,path,words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_abr_input(tmp_path: Path, capsys, change, path: str, words: list[str]) -> None:
    doc = abr_scenario()
    change(doc)
    f = write_toml(tmp_path / "bad.toml", doc)
    line = run_bad(capsys, tmp_path, f)
    assert f"atmsim: error: {f}: {path}: " in line, line
    for w in words:
        assert w in line, line


def test_bad_nrm_from_set(tmp_path: Path, capsys) -> None:
    f = write_toml(tmp_path / "ok.toml", abr_scenario())
    line = run_bad(capsys, tmp_path, f, "--set", "connections.c1.abr.nrm=48")
    assert line.startswith("atmsim: error: --set: connections[0].abr.nrm: "), line


def test_good_abr_scenario_runs(tmp_path: Path, capsys) -> None:
    f = write_toml(tmp_path / "ok.toml", abr_scenario())
    assert main(["run", str(f), "--out", str(tmp_path / "out"), "--set", "connections.c1.abr.nrm=8"]) == 0
    out = capsys.readouterr().out
    from atmsim.tables import headers_of

    heads = headers_of(out)  # headers wrap to fit 100 columns
    assert "ACR final" in heads and "RM overhead" in heads and "z mean" in heads
