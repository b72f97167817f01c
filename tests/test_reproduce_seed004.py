"""``atmsim reproduce seed004 --quick``: the reference values are the seed's own numbers, every
Figure 7 and 8 row of the runs made is compared, and every qualitative claim gets a row."""

from __future__ import annotations

import csv
import re
import tomllib
from pathlib import Path

import pytest

from atmsim.reproduce import REFERENCE_DIR, get_experiment, reproduce

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "004_a04ec9171cbd6bc6.txt"


@pytest.mark.skipif(not SEED.exists(), reason="../shared/seeds/ is not here")
def test_reference_values_are_the_seeds_rows() -> None:
    ref = tomllib.loads((REFERENCE_DIR / "seed004.toml").read_text())
    text = SEED.read_text()
    numbers = [float(x) for x in re.findall(r"\d+\.\d+|\d+", text)]
    assert len(ref["reference"]) == 18 + 8  # Figure 7: 9 rows x 2 switches; Figure 8: 4 x 2
    lines = [ln.replace("%", "").split() for ln in text.splitlines() if re.match(r"\d+ streams \(", ln)]
    for r in ref["reference"]:
        # each row's four values are on a line of the seed's tables for its stream count
        want = [r["max_pct"], r["min_pct"], r["avg_pct"], r["sd"]]
        found = False
        for cols in lines:
            if cols[0] != str(r["streams"]):
                continue
            vals = [float(x) for x in cols if re.fullmatch(r"\d+\.\d+", x)]
            half = vals[:4] if r["switch"] == "fore" else vals[4:8]
            found = found or half == want
        assert found, r


@pytest.mark.skipif(not SEED.exists(), reason="../shared/seeds/ is not here")
def test_figure9_values_are_the_seeds_rows() -> None:
    ref = tomllib.loads((REFERENCE_DIR / "seed004.toml").read_text())
    text = SEED.read_text()
    start = text.index("number of streams\tFore ASX-200\t\t\tCisco Hyperswitch")
    table = text[start:text.index("Figure 9:", start)]
    rows = {int(m.group(1)): [int(x) for x in re.findall(r"(\d+)%", m.group(2))]
            for m in re.finditer(r"^(\d+) streams \(\d+ / sender\)(.*)$", table, re.M)}
    assert sorted(rows) == [20, 24, 28, 32]
    assert len(ref["figure9"]) == 8
    for r in ref["figure9"]:
        vals = rows[r["streams"]]
        half = vals[:3] if r["switch"] == "fore" else vals[3:]
        assert half == [r["pct_2_4"], r["pct_4_6"], r["pct_6_inf"]], r
        # the quote is the seed's row (tests/test_seed_quotes.py: verbatim), both switches' values
        assert r["quote"].startswith(f'{r["streams"]} streams (') and r["quote"].endswith("%")


def test_quick_reproduction(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    report = reproduce("seed004", quick=True, out=out)
    rows = list(csv.DictReader((out / "comparison.csv").open()))
    quantities = {r["quantity"] for r in rows}
    # every claim the quick runs bear on has a row; loss growing with the number of streams
    # needs two stream counts of one configuration, which --quick does not run: no row
    for claim in ("credit switch", "2 senders to 1", "MPEG-1 < JPEG < MPEG-2",
                  "TCP carries more streams", "per-stream spread small for TCP"):
        assert any(claim in q for q in quantities), claim
    assert not any("grows with the number of streams" in q for q in quantities)
    # every Figure 7/8 reference of a run made is compared: quick runs 24 (Fig. 7) and 96 (Fig. 8)
    runs = {r["run"].split(" ")[0] for r in rows if r["quantity"].startswith("frame loss")}
    assert runs == {"fig7-4to1-fore-n24", "fig7-4to1-cisco-n24", "fig7-2to1-fore-n24", "fig7-2to1-cisco-n24",
                    "fig8-4to4-fore-n96", "fig8-4to4-cisco-n96"}
    # Figure 9 (TCP): each bin of the quick count's row on both switches, and no frame lost
    tcp = [r for r in rows if r["quantity"].startswith("TCP: frames with received interval")]
    assert {r["run"].split(" ")[0] for r in tcp} == {"fig9-4to1-fore-n24", "fig9-4to1-cisco-n24"}
    assert len(tcp) == 6 and all(r["published"] for r in tcp)
    lost = [r for r in rows if r["quantity"].startswith("TCP: frames lost")]
    assert len(lost) == 2 and all(float(r["ours"]) == 0 for r in lost)
    # every claim row is judged: held is true or false, never empty
    for r in rows:
        if r["quantity"].startswith("claim:"):
            assert r["held"] in ("true", "false"), r
    assert (out / "report.md").exists() and report.plots
    assert any(p.name == "fig9.png" for p in report.plots)
    assert get_experiment("seed004").seed_file == SEED.name
