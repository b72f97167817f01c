"""``atmsim suite abr``: every ABR switch scheme on every ATM Forum test configuration, one
scorecard (issue 30 item 3; docs/abr-schemes.md).

The output directory (claimed like every atmsim output, ``atmsim.outdir``: marker file, a foreign
directory refused) holds

- ``scorecard.csv``: one row per scheme x configuration (replications averaged), the columns of
  ``SCORE_COLUMNS``;
- ``rates.csv``: every connection's settled rate beside its max-min (oracle) rate;
- ``runs.parquet`` (+ ``study.json``): the study store of ``atmsim.study`` (one row per run: the
  scheme, configuration, replication, seed, the run's figures and its whole flattened summary),
  readable with ``atmsim results DIR``;
- ``configs/NAME.toml``: the scenario of each configuration as run (with ERICA; the scheme is the
  only change between the rows of a configuration);
- ``report.html``: one panel per configuration (settled rates of every scheme beside the oracle).

Definitions (per run; the oracle is ``atmsim.topology.max_min`` of the configuration at the
scheme's target utilization, ``topology.scheme_target``):

- settled rate: a connection's mean ACR (series ``abr_sources``) over the last 20 % of the run;
- time to converge: from the configuration's last change (0, or the last source start / stop)
  to the first sample from which every connection's ACR stays within 5 % of its max-min rate
  until the end (empty when that never happens);
- Jain's index of the settled rates relative to the oracle, (sum x)^2 / (n sum x^2) with
  x = settled / max-min (Jain's fairness index against the optimal allocation);
- worst: the connection whose settled rate is farthest from its max-min rate (relative), that
  distance (signed) and the oracle's rate for it (``oracle_worst_rate_mbps``);
- link utilization: the mean, over the trunk ports the oracle saturates, of the port
  utilization after warm-up (summary);
- queues: the largest ``max_queue_cells`` and the largest ``mean_queue_cells`` among the ports;
- oscillation: the mean over connections of the coefficient of variation of ACR from the
  convergence time (else over the last 20 %) to the end;
- cells lost: every port's dropped cells (switch buffers: ``buffer_cells``, the larger of
  ``BUFFER_CELLS`` and ``BUFFER_RTTS`` round trips of the configuration's longest connection).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import topology as T

__all__ = ["SCHEMES", "configurations", "run_suite", "SuiteResult", "SCORE_COLUMNS", "score_run"]

#: the schemes, each a ``nodes[].abr`` table at its published defaults (``topology.SCHEME_DEFAULTS``;
#: ERICA's basic variant beside the default MaxAlloc one, both from SPEC-ABR.md)
SCHEMES: dict[str, dict[str, Any]] = {
    "erica": T.scheme_table("erica"),
    "erica-basic": {**T.scheme_table("erica"), "variant": "basic"},
    "erica+": T.scheme_table("erica+"),
    "efci": T.scheme_table("efci"),
    "rr": T.scheme_table("rr"),
    "eprca": T.scheme_table("eprca"),
    "aprc": T.scheme_table("aprc"),
    "capc": T.scheme_table("capc"),
    "osu": T.scheme_table("osu"),
    "phantom": T.scheme_table("phantom"),
    "charny": T.scheme_table("charny"),
    "ucsc": T.scheme_table("ucsc"),
}
#: the smallest switch port buffer in the suite, cells (our choice: about 55 ms at 155 Mb/s)
BUFFER_CELLS = 20_000
#: and at least this many round trips of the configuration's longest connection at its fastest
#: link (seed 002, the OSU satellite study: "2 to 4 times RTT buffers in the switches are
#: sufficient with ABR"; the low end of that range, fixed before any run; it exceeds
#: BUFFER_CELLS on the WAN and satellite variants only)
BUFFER_RTTS = 2
#: propagation delay of a link given by its length, s/km (as ``topology`` assumes)
_S_PER_KM = 5e-6
#: ACR samples the settled rate averages over: the last share of the run
SETTLE_SHARE = 0.2
TOLERANCE = 0.05
#: replications of a configuration with random sources (ON-OFF); others run once
REPLICATIONS = 3
SCORE_COLUMNS = (
    "scheme", "config", "replications", "converge_time_s", "jain_index", "worst_connection", "worst_rate_mbps",
    "worst_distance", "oracle_worst_rate_mbps", "link_utilization", "max_queue_cells", "mean_queue_cells",
    "rate_cov", "cells_lost",
)


@dataclass(frozen=True)
class Config:
    name: str
    kind: str
    options: tuple[tuple[str, Any], ...]

    def doc(self, scheme: dict[str, Any], seed: int) -> dict[str, Any]:
        doc = T.generate(self.kind, scheme=scheme, seed=seed, buffer_cells=BUFFER_CELLS, **dict(self.options))
        cells = buffer_cells(doc)
        for node in doc["nodes"]:
            if node.get("kind") == "switch":
                node["buffer_cells"] = cells
        return doc

    @property
    def random(self) -> bool:
        return dict(self.options).get("traffic") == "onoff"


def longest_rtt_s(doc: dict[str, Any]) -> float:
    """The longest round-trip propagation delay of the scenario's connections, s (each link's
    ``delay_us``, else its ``length_km`` at 5 us/km; the same delay both ways)."""
    delay: dict[frozenset[str], float] = {}
    for link in doc["links"]:
        d = link["delay_us"] * 1e-6 if "delay_us" in link else float(link.get("length_km", 0.0)) * _S_PER_KM
        delay[frozenset((link["a"], link["b"]))] = d
    return max((2 * sum(delay[frozenset(h)] for h in zip(c["route"], c["route"][1:])) for c in doc["connections"]),
               default=0.0)


def buffer_cells(doc: dict[str, Any]) -> int:
    """Every switch port's buffer in a configuration of the suite: ``BUFFER_CELLS``, or
    ``BUFFER_RTTS`` round trips of the longest connection at the fastest link's cell rate if that
    is more."""
    fastest = max(float(link["rate_mbps"]) for link in doc["links"])
    rtt_cells = BUFFER_RTTS * longest_rtt_s(doc) * fastest * 1e6 / 424
    return max(BUFFER_CELLS, math.ceil(rtt_cells))


def configurations(quick: bool) -> list[Config]:
    """The suite's configurations: quick, persistent sources on LAN and WAN; full, every
    configuration at every distance, plus ON-OFF and TCP variants of the parking lot and GFC-2."""
    out: list[Config] = []
    dists = ("lan", "wan") if quick else tuple(T.DISTANCES)
    kinds = ("parking-lot", "gfc1", "gfc2", "upstream-bottleneck", "link-bottleneck", "chain-transient")
    for kind in kinds:
        for dist in dists:
            if quick and dist == "lan" and kind not in ("parking-lot", "gfc2"):
                continue
            out.append(Config(f"{kind}-{dist}", kind, (("distance", dist),)))
    if not quick:
        for kind in ("parking-lot", "gfc2"):
            for traffic in ("onoff", "tcp"):
                out.append(Config(f"{kind}-wan-{traffic}", kind, (("distance", "wan"), ("traffic", traffic))))
    return out


def _seed(master: int, *parts: Any) -> int:
    """A run's seed from the master seed and its identity (stable across runs and machines)."""
    h = hashlib.sha256(json.dumps([master, *parts]).encode()).digest()
    return int.from_bytes(h[:4], "big") % (2**31 - 1) + 1


def _change_time(doc: dict[str, Any]) -> float:
    """The configuration's last change before the end: a source starting or stopping."""
    end = float(doc["run"]["duration_s"])
    times = [0.0]
    for c in doc["connections"]:
        src = c.get("source", {})
        times += [float(t) for t in (src.get("start_s"), src.get("stop_s")) if t is not None and float(t) < end]
    return max(times)


def _bottlenecks(doc: dict[str, Any], oracle: dict[str, float], util: float) -> list[str]:
    """The trunk ports (``A->B``) the oracle fills to their capacity."""
    load: dict[str, float] = {}
    for c in doc["connections"]:
        if c["name"] in oracle:
            for a, b in zip(c["route"][1:-2], c["route"][2:-1]):
                load[f"{a}->{b}"] = load.get(f"{a}->{b}", 0.0) + oracle[c["name"]]
    rates = {f"{l['a']}->{l['b']}": l["rate_mbps"] for l in doc["links"]}
    return sorted(p for p, x in load.items() if x >= util * rates[p] * (1 - 1e-6))


def score_run(doc: dict[str, Any], scheme: dict[str, Any], summary: dict[str, Any], acr: Any) -> dict[str, Any]:
    """The scorecard figures of one run (see the module docstring); ``acr``: the run's
    ``abr_sources`` series (time_s, connection, acr_mbps). Also ``rates``: connection ->
    (settled, oracle)."""
    import numpy as np

    util = T.scheme_target(scheme)
    oracle = T.max_min(doc, utilization=util)
    end = float(doc["run"]["duration_s"])
    t0 = _change_time(doc)
    wide = acr.pivot_table(index="time_s", columns="connection", values="acr_mbps").sort_index()
    times = wide.index.to_numpy()
    tail = times >= end * (1 - SETTLE_SHARE)
    settled = {c: float(wide[c].to_numpy()[tail].mean()) for c in oracle}
    ratio = {c: settled[c] / oracle[c] if oracle[c] > 0 else math.inf for c in oracle}
    x = np.array(list(ratio.values()))
    jain = float(x.sum() ** 2 / (len(x) * (x**2).sum())) if len(x) and np.isfinite(x).all() else math.nan
    worst = max(ratio, key=lambda c: abs(ratio[c] - 1))
    # convergence: the first sample after t0 from which every ACR stays within the tolerance
    inside = np.ones(len(times), dtype=bool)
    for c in oracle:
        inside &= np.abs(wide[c].to_numpy() / oracle[c] - 1) <= TOLERANCE
    after = times >= t0
    converge = math.nan
    bad = np.nonzero(after & ~inside)[0]
    first_ok = (bad[-1] + 1) if len(bad) else int(np.argmax(after))
    if first_ok < len(times) and after[first_ok:].all() and inside[first_ok:].all():
        converge = float(times[first_ok] - t0)
    since = times >= (t0 + converge if not math.isnan(converge) else end * (1 - SETTLE_SHARE))
    covs = [float(np.std(v) / np.mean(v)) for c in oracle if (v := wide[c].to_numpy()[since]).size and np.mean(v) > 0]
    ports = summary["ports"]
    bottle = _bottlenecks(doc, oracle, util)
    return {
        "converge_time_s": converge,
        "jain_index": jain,
        "worst_connection": worst,
        "worst_rate_mbps": settled[worst],
        "worst_distance": ratio[worst] - 1,
        "oracle_worst_rate_mbps": oracle[worst],
        "link_utilization": float(np.mean([ports[p]["utilization"] for p in bottle])) if bottle else math.nan,
        "max_queue_cells": max(p["max_queue_cells"] for p in ports.values()),
        "mean_queue_cells": max(p["mean_queue_cells"] for p in ports.values()),
        "rate_cov": float(np.mean(covs)) if covs else math.nan,
        "cells_lost": sum(p["cells_dropped"] for p in ports.values()),
        "rates": {c: (settled[c], oracle[c]) for c in oracle},
    }


def _run_one(task: tuple[str, Config, int, int]) -> dict[str, Any]:
    """One run in a worker process: its figures, its flattened summary, its rates."""
    from .api import run
    from .study.store import flatten

    scheme_name, config, replication, seed = task
    doc = config.doc(SCHEMES[scheme_name], seed)
    doc["run"]["max_memory_mb"] = 4096  # the same limit on every machine: results do not depend on free memory
    start = time.perf_counter()
    result = run(doc)
    figures = score_run(doc, SCHEMES[scheme_name], result.summary, result.series("abr_sources"))
    row = {"scheme": scheme_name, "config": config.name, "replication": replication, "seed": seed,
           "run_wall_s": time.perf_counter() - start}
    row.update({k: v for k, v in figures.items() if k != "rates"})
    summary = {k: v for k, v in result.summary.items() if k not in ("wall_time_s", "scenario")}
    row.update({f"summary.{k}": v for k, v in flatten(summary).items() if isinstance(v, (int, float, str, bool))})
    return {"row": row, "rates": figures["rates"]}


@dataclass
class SuiteResult:
    out: Path
    scorecard: list[dict[str, Any]]
    rates: list[dict[str, Any]]
    wall_time_s: float
    failed: list[str] = field(default_factory=list)

    def table(self) -> str:
        """The scorecard as a text table (the main columns)."""
        cols = ("scheme", "config", "converge_time_s", "jain_index", "worst_distance", "oracle_worst_rate_mbps",
                "link_utilization", "max_queue_cells", "cells_lost")
        rows = [[_fmt(r[c]) for c in cols] for r in self.scorecard]
        widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
        line = lambda cells: "  ".join(s.ljust(w) for s, w in zip(cells, widths))  # noqa: E731
        return "\n".join([line(cols)] + [line(r) for r in rows])


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4g}"
    return str(v)


def _tasks(schemes: Sequence[str], configs: Sequence[Config], seed: int) -> list[tuple[str, Config, int, int]]:
    tasks = []
    for config in configs:
        reps = REPLICATIONS if config.random else 1
        for scheme in schemes:
            for rep in range(reps):
                # the same seed for every scheme of a configuration and replication: common random numbers
                tasks.append((scheme, config, rep, _seed(seed, config.name, rep)))
    return tasks


def _aggregate(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One scorecard row per scheme x configuration: numbers averaged over replications (the
    worst connection: the one of the first replication)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["scheme"], r["config"]), []).append(r)
    out = []
    for (scheme, config), rs in groups.items():
        rs = sorted(rs, key=lambda r: r["replication"])
        row: dict[str, Any] = {"scheme": scheme, "config": config, "replications": len(rs)}
        for col in SCORE_COLUMNS[3:]:
            vals = [r[col] for r in rs]
            if isinstance(vals[0], str):
                row[col] = vals[0]
            else:
                finite = [float(v) for v in vals if not (isinstance(v, float) and math.isnan(v))]
                row[col] = sum(finite) / len(finite) if len(finite) == len(vals) else math.nan
        out.append(row)
    return out


def _csv(rows: list[dict[str, Any]], columns: Sequence[str]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow(["" if isinstance(r[c], float) and math.isnan(r[c]) else (repr(r[c]) if isinstance(r[c], float) else r[c])
                    for c in columns])
    return buf.getvalue()


def run_suite(out: str | Path, *, quick: bool = False, seed: int = 1, jobs: int | None = None, force: bool = False,
              log: Callable[[str], Any] | None = None, schemes: Sequence[str] | None = None,
              configs: Sequence[str] | None = None) -> SuiteResult:
    """Run the suite into ``out`` (see the module docstring); returns the scorecard."""
    import os

    from .errors import ScenarioError
    from .study.store import Store

    start = time.perf_counter()
    names = list(schemes or SCHEMES)
    unknown = [s for s in names if s not in SCHEMES]
    all_configs = configurations(quick)
    chosen = [c for c in all_configs if configs is None or c.name in configs]
    if unknown or (configs is not None and len(chosen) != len(set(configs))):
        bad = unknown or sorted(set(configs or ()) - {c.name for c in all_configs})
        raise ScenarioError("suite abr", "", f"unknown scheme or configuration: {', '.join(bad)}")
    spec = {"quick": quick, "seed": seed, "schemes": names, "configs": [c.name for c in chosen]}
    store = Store.open(out, "suite", "abr", spec, force=force,
                       writes=("scorecard.csv", "rates.csv", "configs/", "report.html"))
    tasks = _tasks(names, chosen, seed)
    results: list[dict[str, Any]] = []
    failed: list[str] = []
    workers = jobs or os.cpu_count() or 1
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for task, res in zip(tasks, pool.map(_run_one, tasks, chunksize=1)):
            results.append(res)
            if log:
                r = res["row"]
                log(f"{r['scheme']:>11} {r['config']:<28} rep {r['replication']}: worst {_fmt(r['worst_distance'])}, "
                    f"Jain {_fmt(r['jain_index'])} ({r['run_wall_s']:.1f} s)")
    rows = [r["row"] for r in results]
    for r in rows:
        r["run_id"] = hashlib.sha256(json.dumps([spec, r["scheme"], r["config"], r["replication"]]).encode()).hexdigest()[:16]
        r["point"], r["status"] = f"{r['scheme']}|{r['config']}", "ok"
        store.write_row(r)
    store.compact()
    order = {c.name: i for i, c in enumerate(chosen)}
    scorecard = sorted(_aggregate(rows), key=lambda r: (order[r["config"]], names.index(r["scheme"])))
    rate_rows = [
        {"scheme": r["row"]["scheme"], "config": r["row"]["config"], "replication": r["row"]["replication"],
         "connection": c, "settled_mbps": s, "oracle_mbps": o}
        for r in results for c, (s, o) in r["rates"].items()
    ]
    rate_rows.sort(key=lambda r: (order[r["config"]], names.index(r["scheme"]), r["replication"]))
    store.write_text("scorecard.csv", _csv(scorecard, SCORE_COLUMNS))
    store.write_text("rates.csv", _csv(rate_rows, ("scheme", "config", "replication", "connection", "settled_mbps", "oracle_mbps")))
    (store.dir / "configs").mkdir(exist_ok=True)
    store.out.add(["configs/"])  # type: ignore[union-attr]
    for c in chosen:
        doc = c.doc(SCHEMES["erica"], _seed(seed, c.name, 0))
        header = [f"atmsim suite abr: configuration {c.name} ({c.kind}, {dict(c.options)}); every scheme runs it with",
                  "only nodes[].abr changed (docs/abr-schemes.md)."]
        store.write_text(f"configs/{c.name}.toml", T.to_toml(doc, header))
    result = SuiteResult(store.dir, scorecard, rate_rows, time.perf_counter() - start, failed)
    from .report.abrsuite import write_report

    write_report(result, store.dir / "report.html")
    store.out.add(["report.html"])  # type: ignore[union-attr]
    return result
