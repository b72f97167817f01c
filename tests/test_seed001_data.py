"""Seed 001's published tables as data (python/atmsim/reproduce/data/seed001/) and the pieces of
`atmsim reproduce seed001` that do not need a run: the transcription against the seed file, the
seed's KB read from its own arithmetic, the scripts against the seed's printed ones, the PVC's
payload rate."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from atmsim import reproduce as rep
from atmsim.reproduce import seed001
from atmsim.reproduce.seed001_compare import pvc_payload_kBps
from atmsim.reproduce.seed001_data import TABLES, load_tables, seed_rows

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "001_08abd1994ada50f6.txt"
needs_seed = pytest.mark.skipif(not SEED.exists(), reason="../shared/seeds/ is not here (the transcription is checked against it)")

#: rows per table, counted in the seed file (Table 9 is printed on three pages, 10-12 on two)
HAND_COUNTS = {9: 65, 10: 56, 11: 40, 12: 40, 13: 16, 14: 16, 15: 17, 16: 12, 17: 10, 18: 10, 19: 6, 20: 6}


def test_every_table_is_there_with_its_source() -> None:
    tables = load_tables()
    assert sorted(tables) == list(TABLES)
    for n, t in tables.items():
        assert len(t.rows) == HAND_COUNTS[n], n
        assert t.meta["section"].startswith("12.1") and t.meta["quote"] and t.meta["units"]
        assert len(t.meta["printed"]) == len(t.meta["columns"]) == 3
        assert t.network in ("wan", "lan")
        # rows in the order of the seed file
        lines = [r["seed_line"] for r in t.rows]
        assert lines == sorted(lines) and len(set(lines)) == len(lines)


@needs_seed
def test_transcription_matches_the_seed_file_row_by_row() -> None:
    parsed = seed_rows(SEED)
    tables = load_tables()
    for n in TABLES:
        assert len(parsed[n]) == len(tables[n].rows), f"Table {n}: {len(parsed[n])} rows in the seed, {len(tables[n].rows)} in the data"
        for (line, cells), row in zip(parsed[n], tables[n].rows):
            assert row["seed_line"] == line, (n, line)
            for cell, col in zip(cells, tables[n].meta["columns"]):
                want = None if cell == "-" else float(cell)
                assert row[col] == want, (n, line, col, cell, row[col])


def test_the_seeds_kb_is_1000_bytes_from_its_own_arithmetic() -> None:
    """Tables 11 and 12: throughput = request x 50 transactions / time, with KB = 1,000 B (1,024
    would be 2.4 % off); Table 12's time is in 10 ms units; Table 11's 200000 row repeats the
    160000 row. Tables 19, 20: normalized time x throughput = 1000."""
    t = load_tables()
    for n, scale in ((11, 1.0), (12, 100.0)):
        for r in t[n].rows:
            calc = r["request_bytes"] * 50 / (r[t[n].meta["columns"][2]] / scale) / 1000
            if n == 11 and r["request_bytes"] == 200000:
                assert r["throughput_KBps"] == 228.59 and abs(calc / r["throughput_KBps"] - 1) > 0.2
                continue
            assert abs(calc / r["throughput_KBps"] - 1) < 0.01, (n, r)
            assert abs(calc * 1000 / 1024 / r["throughput_KBps"] - 1) > 0.015, (n, r)
    for n in (19, 20):
        for r in t[n].rows:
            assert r["normalized_time"] * r["throughput_KBps"] == pytest.approx(1000, rel=0.005)


def _norm(s: str) -> str:
    s = re.sub(r"\b(bvalue|bivalve|bivalue)\(", "bivalued(", s)
    return re.sub(r"\s+", " ", s).strip()


@needs_seed
def test_our_scripts_are_the_seeds_printed_scripts() -> None:
    """At scale 1 and the seed's 5 runs, the bundling scripts are the lines the seed prints."""
    text = _norm(SEED.read_text(encoding="utf-8").replace("```", " "))
    cases = [(13, 2, 1), (13, 2, 2), (13, 2, 4), (13, 1, 2), (13, 1, 4), (15, 1, 1), (15, 1, 3), (15, 2, 2), (15, 2, 4)]
    for table, curve, k in cases:
        s = seed001.bundle_script(table, curve, k, 5, 1.0)
        assert _norm(s) in text, s
    for curve, k in ((1, 2), (1, 4), (1, 6), (2, 2), (2, 6)):
        s = seed001.bundle_script(17, curve, k, 5, 1.0)
        assert _norm(s) in text, s
    assert _norm(seed001.rr_script(5, 3000, 50)) in text
    # the table's k is the number of members
    assert seed001.bundle_script(17, 1, 20, 5, 0.2).count("|") == 19
    assert seed001.bundle_script(13, 1, 21, 2, 0.2).count("exp(0.2)") == 20


def test_bulk_volume_rule() -> None:
    assert seed001.bulk_script(3, 50, 4_000_000) == "3 bulk_put 50*1000;"  # the seed's 1000 iterations
    assert seed001.bulk_script(3, 111700, 4_000_000) == "3 bulk_put 111700*36;"  # ceil(4e6 / 111700)


def test_pvc_payload_rate_closed_form() -> None:
    # 10 Mb/s of cells = 23,584.9 cells/s; a 9148 B segment + 56 B of headers and trailer = 192 cells
    assert pvc_payload_kBps(10.0, 9188) == pytest.approx(10e6 / 424 / 192 * 9148 / 1000)
    assert math.ceil((9148 + 56) / 48) == 192
    # BALI: 149.76 Mb/s, MSS 9140: 192 cells as well
    assert pvc_payload_kBps(149.76, 9180) == pytest.approx(149.76e6 / 424 / 192 * 9140 / 1000)


def test_registered_and_runs_skip_what_this_build_cannot_run() -> None:
    assert "seed001" in rep.experiment_names()
    ref = rep.load_reference(rep.get_experiment("seed001"))
    assert {c["id"] for c in ref["claim"]} >= {"window", "small_tsdu", "slowstart", "delack", "bundle", "xtpx"}
    for spec in seed001.runs(True):
        assert seed001.missing(spec.params["net"], spec.params["family"]) is None
    names = [s.name for s in seed001.runs(False)]
    assert len(names) == len(set(names))


class _Fake:
    """A run result carrying only a summary in the agreed workload format (docs/workloads.md)."""

    def __init__(self, members: list[dict]) -> None:
        self.summary = {"connections": {"pvc": {"workload": {"transport": "tcp", "statements": [{"line": 1, "members": members}]}}}}


def _member(conn: int, tp: float | None = None, tx: tuple[float, float, float] | None = None, ends: list[float] | None = None) -> dict:
    runs = [{"start_s": 0.0, "end_s": e, "bytes": 1, "units": 1, "throughput_kBps": tp or 0.0,
             "transaction_ms": None if tx is None else {"mean": tx[0], "min": tx[1], "max": tx[2], "std": 0.0}}
            for e in (ends or [1.0])]
    return {"connection": conn, "op": "rr" if tx else "bulk_get", "runs": runs,
            "throughput_kBps": {"mean": tp or 0.0, "min": tp or 0.0, "max": tp or 0.0, "std": 0.0},
            "transaction_ms": None if tx is None else {"mean": tx[0], "min": tx[1], "max": tx[2], "std": 0.0}}


def test_claim_rules_on_synthetic_results() -> None:
    """The verdicts follow the stated rules (seed001_compare's tolerances), both ways."""
    from atmsim.reproduce import seed001_compare as cmp

    tables = load_tables()
    ref = rep.load_reference(rep.get_experiment("seed001"))
    claims = {c["id"]: c for c in ref["claim"]}
    t12 = tables[12]
    for artefact, want in ((True, True), (False, False)):
        specs, results = [], {}
        for i, r in enumerate(t12.rows[:8]):  # 1000..8000: the seed has 5000+ at ~195 ms
            size = int(r["request_bytes"])
            ms = 194.0 if artefact and size >= 5000 else 2.2
            name = f"r{i}"
            specs.append(rep.RunSpec(name, "x", params={"table": 12, "request": size, "count": 50}))
            results[name] = _Fake([_member(0, tx=(ms, ms, ms))])
        rows = cmp._rr(t12, results, specs, claims)
        claim = [r for r in rows if r.quantity.startswith("claim")]
        assert len(claim) == 1 and claim[0].held is want
        # time of 50 transactions in the seed's unit (s x 100) and request / time
        first = next(r for r in rows if "time of 50" in r.quantity)
        assert first.ours == pytest.approx(2.2 * 50 / 1000 * 100)
    t13 = tables[13]
    specs, results = [], {}
    for k, tp in ((1, 300.0), (2, 290.0), (4, 170.0), (8, 65.0)):
        for curve in (1, 2):
            name = f"b{k}{curve}"
            specs.append(rep.RunSpec(name, "x", params={"table": 13, "connections": k, "curve": curve}))
            results[name] = _Fake([_member(0, tp=tp if curve == 2 else 300.0 - k)])
    rows = cmp._bundle(t13, results, specs, claims)
    verdicts = {r.quantity: r.held for r in rows if r.quantity.startswith("claim")}
    assert sorted(verdicts.values()) == [False, True, True]  # curve 1 barely falls, curve 2 falls, 2 faster than 1
    assert cmp.outlasted(_Fake([_member(0, tx=(1, 1, 1), ends=[5.0]), _member(1, tp=1, ends=[4.0])])) is False
    assert cmp.outlasted(_Fake([_member(0, tx=(1, 1, 1), ends=[5.0]), _member(1, tp=1, ends=[6.0])])) is True
