"""Streamed time series (issue 12 item 3): the core holds at most one slice of rows, the slices
written as Parquet row groups give the same tables as a run that keeps everything, and the peak
memory of a run does not grow with its length. No timing anywhere."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

import atmsim
from atmsim import _core
from atmsim.scenario import document_json, load_scenario

from conftest import minimal_scenario

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "scenarios" / "examples" / "demo.toml"


def _demo_json(duration_s: float = 0.2) -> str:
    doc, prov = load_scenario(DEMO, {"run.duration_s": duration_s, "run.warmup_s": 0.0}, validate=False)
    return document_json(doc, prov)


def test_rows_held_are_bounded_by_the_slice() -> None:
    """With max_rows = R, the core never holds more than R - 1 rows plus one sample's (2 ports per
    link + 1 row per connection = 14 + 3 for the demo), and the drained slices concatenate to the
    series of a run that was never drained (same scenario and seed: identical)."""
    text = _demo_json(0.2)
    limit = 200
    per_sample = 2 * 7 + 3
    sim = _core.Simulation(text)
    slices: dict[str, list[pd.DataFrame]] = {}
    peak = 0
    while True:
        done = sim.advance(10**9, limit)
        peak = max(peak, sim.series_rows_held)
        assert sim.series_rows_held <= limit - 1 + per_sample
        for name, cols in sim.drain_series().items():
            slices.setdefault(name, []).append(pd.DataFrame(cols))
        assert sim.series_rows_held == 0
        if done:
            break
    assert peak >= limit  # the bound was reached, so it was what stopped the slices
    whole = _core.Simulation(text)
    assert whole.advance(10**12) is True
    full = whole.series()
    assert sorted(slices) == sorted(full) == sorted(sim.series_tables())
    for name, parts in slices.items():
        streamed = pd.concat(parts, ignore_index=True)
        pd.testing.assert_frame_equal(streamed, pd.DataFrame(full[name]))
        assert len(streamed) == 200 * (14 if name == "ports" else 3)  # 200 samples of 1 ms


def test_parquet_row_groups_give_the_same_tables(tmp_path: Path, monkeypatch) -> None:
    """A run written while it goes (small slices: many row groups) reads back as the same tables
    as the in-memory result, and as the in-memory result with the default slice."""
    doc = minimal_scenario(0.05)
    doc["run"]["sample_interval_s"] = 1e-4
    reference = atmsim.run(doc)
    monkeypatch.setattr(_core, "SERIES_SLICE_ROWS", 64)
    out = tmp_path / "out"
    streamed = atmsim.run(doc, out=out)
    in_memory = atmsim.run(doc)
    assert (out / "summary.json").is_file()
    assert json.loads((out / "summary.json").read_text())["sim_time_s"] == reference.summary["sim_time_s"]
    assert pq.ParquetFile(out / "ports.parquet").num_row_groups > 1
    read = atmsim.Result.read(out)
    assert streamed.series_names == read.series_names == reference.series_names == ["connections", "ports"]
    for name in reference.series_names:
        expect = reference.series(name)
        assert len(expect) == 500 * (4 if name == "ports" else 1)
        for other in (streamed, read, in_memory):
            pd.testing.assert_frame_equal(other.series(name), expect)


def test_interrupted_streamed_run_leaves_nothing(tmp_path: Path) -> None:
    """A failure while the series stream (here: the progress callback raises) removes the
    temporary directory; the output directory never appears."""
    doc = minimal_scenario(0.05)

    def stop(*_args) -> None:
        raise KeyboardInterrupt

    out = tmp_path / "out"
    try:
        atmsim.run(doc, out=out, progress=stop)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the interrupt did not reach the caller")
    assert list(tmp_path.iterdir()) == []


CHILD = """
import resource, sys, json
from atmsim.cli import main
doc = json.loads(sys.argv[1])
open(sys.argv[2] + ".toml", "w").write(sys.argv[3])
rc = main(["run", sys.argv[2] + ".toml", "--quiet", "--out", sys.argv[2]])
print(rc, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_kb(tmp_path: Path, duration_s: float) -> tuple[int, int]:
    import tomli_w

    doc = minimal_scenario(duration_s)
    doc["run"]["sample_interval_s"] = 1e-4
    for link in doc["links"]:
        link["rate_mbps"] = 1.0  # few cells: the run is mostly sampling
    doc["connections"][0]["source"]["rate_mbps"] = 0.5
    base = tmp_path / f"d{duration_s:g}"
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(doc), str(base), tomli_w.dumps(doc)],
        check=True, capture_output=True, text=True, cwd=tmp_path,
    ).stdout.split()
    assert out[-2] == "0"
    rows = sum(pq.ParquetFile(p).metadata.num_rows for p in base.glob("*.parquet"))
    return int(out[-1]), rows


def test_peak_memory_does_not_grow_with_the_run(tmp_path: Path) -> None:
    """Peak RSS of `atmsim run` (child processes) at 2 s and 20 s simulated with 0.1 ms sampling:
    5 rows a sample (4 ports, 1 connection), so 100,000 and 1,000,000 series rows. Kept in memory
    as before streaming (about 240 B a row) the longer run would need about 200 MB more; streamed,
    the difference must stay under 40 MB (the slice is 65,536 rows, and Parquet's buffers)."""
    short_kb, short_rows = _peak_kb(tmp_path, 2.0)
    long_kb, long_rows = _peak_kb(tmp_path, 20.0)
    assert (short_rows, long_rows) == (100_000, 1_000_000)
    assert (long_kb - short_kb) / 1024 < 40, (short_kb, long_kb)
