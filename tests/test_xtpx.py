"""XTPX through the front end (docs/xtpx.md): the example scenario runs and reports each bundled
connection at its rate B / I; seed 001's bad input (I = 0, B = 0, a window smaller than one
packet) and the other XTPX key errors give one line naming the file and the key path, exit
code 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atmsim.cli import main

from conftest import minimal_scenario, run_bad, write_toml

ROOT = Path(__file__).resolve().parents[1]


def _xtpx(d: dict[str, Any], source: dict[str, Any] | None = None, **xtpx: Any) -> None:
    c = d["connections"][0]
    c["category"] = "ubr"
    c["source"] = {"kind": "xtpx", "xtpx": xtpx, **(source or {})}


RATE = {"rate_control": True, "burst_bytes": 20480, "interval_ms": 10.0}
P = "connections[0].source.xtpx"


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        (lambda d: _xtpx(d, **{**RATE, "interval_ms": 0.0}), f"{P}.interval_ms", ""),
        (lambda d: _xtpx(d, **{**RATE, "burst_bytes": 0}), f"{P}.burst_bytes", ""),
        (lambda d: _xtpx(d, window_bytes=9147), f"{P}.window_bytes", "at least one packet (9148"),
        (lambda d: _xtpx(d), f"{P}:", "needs rate_control = true or window_bytes"),
        (lambda d: _xtpx(d, **{**RATE, "burst_bytes": 2**31}), f"{P}.burst_bytes", ""),
        (
            lambda d: _xtpx(d, window_bytes=999, packet_bytes=1000),
            f"{P}.window_bytes",
            "at least one packet (1000",
        ),
        (lambda d: _xtpx(d, rate_control=True, interval_ms=5.0), f"{P}.burst_bytes", "required"),
        (lambda d: _xtpx(d, rate_control=True, burst_bytes=5), f"{P}.interval_ms", "required"),
        (lambda d: _xtpx(d, window_bytes=65536, burst_bytes=5), f"{P}.burst_bytes", "needs rate_control"),
        (lambda d: _xtpx(d, window_bytes=65536, error_control="stop_and_wait"), f"{P}.error_control", ""),
        (lambda d: _xtpx(d, window_bytes=65536, packet_bytes=9149), f"{P}.packet_bytes", "9148"),
        (lambda d: _xtpx(d, window_bytes=65536, timer_ms=5000.0, timer_max_s=1.0), f"{P}.timer_max_s", ">= timer_ms"),
        (lambda d: _xtpx(d, window_bytes=65536, unknown_key=1), f"{P}", "unknown_key"),
        (lambda d: _xtpx(d, source={"bundle": 0}, window_bytes=65536), "connections[0].source.bundle", "1..=1024"),
        (
            lambda d: (
                _xtpx(d, window_bytes=65536),
                d["connections"][0].update(
                    bidirectional=True, reverse_source={"kind": "cbr", "rate_mbps": 1.0}
                ),
            ),
            "connections[0].reverse_source",
            "status reports",
        ),
        (
            lambda d: d["connections"][0]["source"].__setitem__("xtpx", {}),
            "connections[0].source.xtpx",
            "not used by kind",
        ),
    ],
)
def test_bad_xtpx_keys(tmp_path: Path, capsys, change, path: str, words: str) -> None:
    doc = minimal_scenario()
    change(doc)
    f = write_toml(tmp_path / "bad.toml", doc)
    line = run_bad(capsys, tmp_path, f)
    assert f"atmsim: error: {f}: {path}" in line, line
    assert words in line, line


def test_example_gives_each_bundled_connection_its_rate(tmp_path: Path) -> None:
    # 12 connections at B = 20,480 B per I = 100 ms: each delivers B per interval of the 1.5-s
    # measurement window (15 intervals), i.e. R = 204.8 kB/s, independent of the others
    out = tmp_path / "out"
    code = main(["run", str(ROOT / "scenarios/examples/xtpx-rate.toml"), "--out", str(out), "--quiet"])
    assert code == 0
    s = json.loads((out / "summary.json").read_text())
    bundle = s["connections"]["x"]["xtpx_bundle"]
    assert len(bundle) == 12
    for x in bundle:
        assert x["rate_bytes_per_s"] == pytest.approx(204_800.0)
        assert x["bytes_delivered"] == 15 * 20_480
        assert x["throughput_kBps"] == pytest.approx(204.8)
        assert x["retransmitted_packets"] == 0
