"""Regression comparison: every scenario under ``scenarios/`` against stored digests.

Refactors must change no result. This script runs every scenario file under ``scenarios/`` with
seeds 1 and 2 (durations capped so the whole set runs in a few minutes) and records, per run:

- every scalar of ``summary.json`` (flattened to ``a.b.c`` key paths), except ``wall_time_s``
  and the provenance block ``scenario``; ``events`` (how many events the engine ran, a cost
  figure that performance work changes on purpose, issue 13) is recorded but not compared;
- a SHA-256 digest of every column of every Parquet series (values as written to Parquet).

``python tools/regress.py record`` writes ``tests/regress/baseline.json``;
``python tools/regress.py check`` (``make regress``) runs the same set and lists every difference:
summary key paths whose value changed, appeared or disappeared, and series columns whose digest
changed. Exit code 0 when identical, 1 when something differs.

Differences made on purpose are recorded with ``record`` in the same commit that makes them, and
named in its message.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BASELINE = REPO / "tests" / "regress" / "baseline.json"
SEEDS = (1, 2)
#: longest simulated time per run; a scenario shorter than this runs whole
CAP_S = 3.0
#: scenarios whose events are sparse (calls) get a longer cap so they exercise their model
CAP_OVERRIDES_S = {"contracts/cac-blocking.toml": 100.0}


def scenario_files() -> list[Path]:
    return sorted(p for p in (REPO / "scenarios").rglob("*.toml"))


def _flatten(prefix: str, v: Any, out: dict[str, Any]) -> None:
    if isinstance(v, dict):
        for k in sorted(v):
            _flatten(f"{prefix}.{k}" if prefix else str(k), v[k], out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _flatten(f"{prefix}[{i}]", x, out)
    else:
        if isinstance(v, float) and not math.isfinite(v):
            v = repr(v)
        out[prefix] = v


def _column_digest(values: Any) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(values, separators=(",", ":"), allow_nan=True, default=str).encode())
    return h.hexdigest()[:20]


def run_one(args: tuple[str, int]) -> tuple[str, dict[str, Any]]:
    rel, seed = args
    import atmsim
    from atmsim.scenario import load_scenario

    path = REPO / "scenarios" / rel
    doc, _ = load_scenario(str(path))
    cap = CAP_OVERRIDES_S.get(rel, CAP_S)
    duration = min(float(doc["run"]["duration_s"]), cap)
    warmup = float(doc["run"].get("warmup_s", 0.0) or 0.0)
    overrides = {}
    if warmup >= duration:
        overrides["run.warmup_s"] = duration / 2
    r = atmsim.run(str(path), overrides=overrides or None, seed=seed, duration=duration)
    summary = dict(r.summary)
    summary.pop("wall_time_s", None)
    summary.pop("scenario", None)
    flat: dict[str, Any] = {}
    _flatten("", summary, flat)
    series: dict[str, str] = {}
    for name in r.series_names:
        df = r.series(name)
        for col in df.columns:
            series[f"{name}.{col}"] = _column_digest(df[col].tolist())
    return f"{rel}#seed{seed}", {"summary": flat, "series": series}


def run_all(jobs: int, only: str | None) -> dict[str, Any]:
    tasks = []
    for p in scenario_files():
        rel = p.relative_to(REPO / "scenarios").as_posix()
        if "/" not in rel:
            continue  # base files meant to be extended live beside the scenarios' folders
        if only and only not in rel:
            continue
        for s in SEEDS:
            tasks.append((rel, s))
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for key, val in pool.map(run_one, tasks):
            out[key] = val
            print(f"  {key}: {len(val['summary'])} summary values, {len(val['series'])} columns "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    return out


#: summary keys recorded but not compared: the engine's own work counts, not model results
#: (a run with fewer events that gives the same cells, times and series is the same run)
NOT_COMPARED = frozenset({"events"})


def compare(base: dict[str, Any], new: dict[str, Any], limit: int) -> list[str]:
    diffs: list[str] = []
    for key in sorted(set(base) | set(new)):
        if key not in new:
            diffs.append(f"{key}: run missing")
            continue
        if key not in base:
            diffs.append(f"{key}: new run (not in the baseline)")
            continue
        b, n = base[key], new[key]
        for part in ("summary", "series"):
            bp, np_ = b[part], n[part]
            for k in sorted(set(bp) | set(np_)):
                if part == "summary" and k in NOT_COMPARED:
                    continue
                if k not in np_:
                    diffs.append(f"{key} {part} {k}: removed (was {bp[k]!r})")
                elif k not in bp:
                    diffs.append(f"{key} {part} {k}: added ({np_[k]!r})")
                elif bp[k] != np_[k]:
                    diffs.append(f"{key} {part} {k}: {bp[k]!r} -> {np_[k]!r}")
    return diffs[:limit] if limit else diffs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("record", "check"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="only scenario paths containing this text")
    ap.add_argument("--limit", type=int, default=200, help="differences listed at most (0: all)")
    a = ap.parse_args()
    new = run_all(a.jobs, a.only)
    if a.action == "record":
        base = json.loads(BASELINE.read_text()) if (a.only and BASELINE.exists()) else {}
        base.update(new)
        BASELINE.parent.mkdir(parents=True, exist_ok=True)
        BASELINE.write_text(json.dumps(base, indent=0, sort_keys=True) + "\n")
        print(f"recorded {len(new)} runs into {BASELINE.relative_to(REPO)}")
        return 0
    base = json.loads(BASELINE.read_text())
    if a.only:
        base = {k: v for k, v in base.items() if a.only in k}
    diffs = compare(base, new, a.limit)
    for d in diffs:
        print(d)
    print(f"{len(new)} runs compared: {'identical' if not diffs else f'{len(diffs)} differences'}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
