"""Experiment ``seed001``: transport flow control over trans-Atlantic and LAN ATM (EXPERIMENTS.md S001).

Seed 001 (Lamont, Miloucheva, Stering, CRC report 96-007) measured TCP over a 10 Mb/s CBR PVC
across the Atlantic (RTT 100 ms) and a 155 Mb/s CBR PVC in Berlin (BALI, RTT 2-4 ms) with xtcp
and SPIMS workload scripts, and gives the values as Tables 9-20 (``data/seed001/``, read by
``seed001_data``). The runs are the files of ``scenarios/seed001/`` (one per network and
experiment family) with the row's SPIMS script set by ``--set``; the claims of the text are in
``reference/seed001.toml``. Helpers ``seed001_compare`` (the rows of Tables 9-20),
``seed001_xtpx`` (Figure 28's runs and rows) and ``seed001_plots`` (the figures) hold the rest;
each imports only the ones before it in ``seed001_data`` -> ``seed001_compare`` ->
``seed001_xtpx`` -> ``seed001_plots`` -> this module.

Our volumes are smaller than the seed's (its xtcp rows move 1000 TSDUs 10 times, its bundles
250 TSDUs per connection 5 times): every reduction is one rule for a whole table, stated in
``METHOD`` and applied to every row alike; nothing is tuned per row.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..result import Result
from .experiment import Experiment, Row, RunSpec
from .seed001_compare import compare_rows
from .seed001_data import DURATION_S, MTU, SEED, load_tables, missing, scenario
from .seed001_plots import draw
from .seed001_xtpx import xtpx_rows, xtpx_runs

CONN = "pvc"
KEY_SCRIPT = f"connections.{CONN}.source.workload.script"
KEY_WINDOW = f"connections.{CONN}.source.tcp.window_bytes"
KEY_MSS = f"connections.{CONN}.source.tcp.mss_bytes"
NETWORKS = ("wan", "lan")
FAMILIES = ("bulk", "rr", "bundle", "mixed", "xtpx")

#: bulk rows (Tables 9, 10): runs per row and the bytes one run moves at most (iterations =
#: min(1000, ceil(bytes / TSDU))), full and quick
BULK = {False: {"runs": 3, "bytes": {"wan": 4_000_000, "lan": 20_000_000}},
        True: {"runs": 1, "bytes": {"wan": 1_000_000, "lan": 5_000_000}}}
#: Figure 12 / 15: the windows (KB of 1,024 B) and TSDU sizes of the window sweep
WINDOWS_KB = (4, 8, 16, 32, 50)
WINDOW_TSDUS = {False: (1024, 9000, 65536), True: (9000,)}
#: rr rows (Tables 11, 12): runs and transactions per run (the seed's: 5 and 50)
RR = {False: {"runs": 5, "count": 50}, True: {"runs": 1, "count": 10}}
#: bundles (Tables 13-18): every count of the seed's scripts times `scale`, runs per row
BUNDLE = {False: {"runs": 2, "scale": 0.2}, True: {"runs": 1, "scale": 0.04}}
#: mixed (Tables 19, 20): runs, rr transactions per run, TSDUs per bulk connection
#: (TSDUs per bulk connection by network: enough to outlast the rr member, checked per run)
MIXED = {False: {"runs": 2, "count": 20, "bulk": {"wan": 2000, "lan": 8000}},
         True: {"runs": 1, "count": 5, "bulk": {"wan": 400, "lan": 2000}}}

QUICK_ROWS = {
    9: (50, 900, 9000, 65536),
    10: (1000, 9000, 50181, 120000),
    11: (1000, 5000, 20000, 50000),
    12: (1000, 5000, 14000, 45000, 55000),
    13: (1, 4), 14: (1, 4), 15: (1, 4), 16: (1, 4), 17: (2, 4), 18: (2, 4),
    19: (0, 2), 20: (0, 2),
}


# ------------------------------------------------------------------------------------ scripts


def bulk_script(runs: int, tsdu: int, budget: int) -> str:
    iterations = max(1, min(1000, math.ceil(budget / tsdu)))
    return f"{runs} bulk_put {tsdu}*{iterations};"


def rr_script(runs: int, request: int, count: int) -> str:
    return f"{runs} rr {request},1024*{count};"


def _count(n: int, scale: float) -> int:
    return max(1, round(n * scale))


def bundle_script(table: int, curve: int, k: int, runs: int, scale: float) -> str:
    """The seed's bundling scripts (appendix 1, Scenarios 8.1 and 8.2) for ``k`` connections,
    every TSDU count times ``scale``. ``curve`` is the table's column (1 = the first after the
    connection count)."""
    n250, n100 = _count(250, scale), _count(100, scale)
    small = f"1 bulk_get bivalued(10,9000,0.75)*{n250} exp(0.2)"
    if table in (13, 14):
        first = f"1 bulk_get 70000*{n250}"
        others = [first] * (k - 1) if curve == 2 else [small] * (k - 1)
    elif table in (15, 16):
        first = f"1 bulk_get bivalued(100,70000,0.75)*{n250}" + (" exp(0.2)" if curve == 2 else "")
        others = [small] * (k - 1)
    else:  # 17, 18: k connections = k / 2 GET/PUT pairs
        put = f"1 bulk_put 70000*{n100}" if curve == 1 else f"1 bulk_put bivalued(10,9000,0.9)*{n100}"
        members = [f"1 bulk_get 70000*{n100}", put] * (k // 2)
        return f"{runs} parallel: " + " | ".join(members) + ";"
    if k == 1:
        return f"{runs} {first[2:]};"
    return f"{runs} parallel: " + " | ".join([first, *others]) + ";"


def mixed_script(k: int, runs: int, count: int, bulk: int) -> str:
    rr = f"rr 70000,1024*{count}"
    if k == 0:
        return f"{runs} {rr};"
    return f"{runs} parallel: 1 {rr} | " + " | ".join([f"1 bulk_put 9000*{bulk}"] * k) + ";"


# ------------------------------------------------------------------------------------ runs


def _spec(name: str, net: str, family: str, script: str, params: dict[str, Any], window: int | None = None) -> RunSpec:
    ov: dict[str, Any] = {KEY_SCRIPT: script, "run.duration_s": DURATION_S[net],
                          "run.sample_interval_s": DURATION_S[net] / 2000}
    if window is not None:
        ov[KEY_WINDOW] = window
        mss = MTU[net] - 40
        if window < mss:
            # a window below one segment (Figure 12's 4 and 8 KB with MTU 9188): BSD sends
            # segments of at most the window (tcp_output: len = min(len, win)); our TCP refuses a
            # window below the MSS, so the MSS is the window for these runs
            ov[KEY_MSS] = window
    return RunSpec(name=name, scenario=scenario(net, family), overrides=ov,
                   params={"net": net, "family": family, "script": script, **params})


def _keep(quick: bool, table: int, key: float) -> bool:
    return not quick or key in QUICK_ROWS[table]


def runs(quick: bool) -> list[RunSpec]:
    tables = load_tables()
    out: list[RunSpec] = []
    b = BULK[quick]
    for t in (9, 10):
        net = tables[t].network
        if missing(net, "bulk"):
            continue
        for i, row in enumerate(tables[t].rows):
            size = int(row["tsdu_bytes"])
            if _keep(quick, t, size):
                out.append(_spec(f"t{t}-{i:02d}-tsdu{size}", net, "bulk", bulk_script(b["runs"], size, b["bytes"][net]),
                                 {"table": t, "row": i, "tsdu": size}))
        have = {s.params["tsdu"] for s in out if s.params.get("table") == t}
        for w in WINDOWS_KB if not quick else (8, 32, 50):
            for size in WINDOW_TSDUS[quick]:
                if w == 50 and size in have:  # the table's run (window 50 KB is the file's)
                    continue
                out.append(_spec(f"{net}-window{w}k-tsdu{size}", net, "bulk", bulk_script(b["runs"], size, b["bytes"][net]),
                                 {"figure": "window", "window_kb": w, "tsdu": size}, window=w * 1024))
    r = RR[quick]
    for t in (11, 12):
        net = tables[t].network
        if missing(net, "rr"):
            continue
        for i, row in enumerate(tables[t].rows):
            size = int(row["request_bytes"])
            if _keep(quick, t, size) and not any(s.params.get("request") == size and s.params["table"] == t for s in out):
                out.append(_spec(f"t{t}-{i:02d}-req{size}", net, "rr", rr_script(r["runs"], size, r["count"]),
                                 {"table": t, "row": i, "request": size, "count": r["count"]}))
    bd = BUNDLE[quick]
    for t in range(13, 19):
        net = tables[t].network
        if missing(net, "bundle"):
            continue
        cols = tables[t].meta["columns"][1:]
        for i, row in enumerate(tables[t].rows):
            k = int(row["connections"])
            if not _keep(quick, t, k):
                continue
            for curve, col in enumerate(cols, start=1):
                if row[col] is None:
                    continue
                out.append(_spec(f"t{t}-k{k}-c{curve}", net, "bundle", bundle_script(t, curve, k, bd["runs"], bd["scale"]),
                                 {"table": t, "row": i, "connections": k, "curve": curve, "column": col}))
    m = MIXED[quick]
    for t in (19, 20):
        net = tables[t].network
        if missing(net, "mixed"):
            continue
        for i, row in enumerate(tables[t].rows):
            k = int(row["bulk_connections"])
            if _keep(quick, t, k):
                out.append(_spec(f"t{t}-k{k}", net, "mixed", mixed_script(k, m["runs"], m["count"], m["bulk"][net]),
                                 {"table": t, "row": i, "bulk_connections": k, "count": m["count"]}))
    out += xtpx_runs(quick)
    return out


# ------------------------------------------------------------------------------------ compare


def compare(results: Mapping[str, Result], reference: dict[str, Any], specs: Sequence[RunSpec]) -> list[Row]:
    """The rows of Tables 9-20, then Figure 28's."""
    claims = {c["id"]: c for c in reference.get("claim", [])}
    return compare_rows(results, reference, specs) + xtpx_rows(results, reference, specs, claims)


def plots(results: Mapping[str, Result], specs: Sequence[RunSpec], directory: Path) -> list[Path]:
    return draw(results, specs, directory)


def _method() -> str:
    b, r, bd, m = BULK[False], RR[False], BUNDLE[False], MIXED[False]
    return f"""
- **Runs**: the files of `scenarios/seed001/` (their headers give every reading of the seed:
  the networks, RTT placement, TCP as SunOS 4.1.x), one run per table row with the row's SPIMS
  script set by `--set {KEY_SCRIPT}=...`. The seed's scripts are used as printed; volumes are
  reduced by one rule per table (never per row):
  - Tables 9, 10 (xtcp, "Iterations: 1000", "Runs: 10"): `{b['runs']} bulk_put TSDU*N;` with N =
    min(1000, ceil(budget / TSDU)), budget {b['bytes']['wan']:,} B on the WAN and
    {b['bytes']['lan']:,} B on the LAN (`--quick`: 1 run, a quarter of the budget, 4-5 rows).
    The window sweep of Figures 12 and 15 (4, 8, 16, 32, 50 KB; no published values besides
    Table 9's 50 KB) is run at TSDUs {', '.join(map(str, WINDOW_TSDUS[False]))}.
  - Tables 11, 12: the seed's `5 rr N,1024*50;` ({r['runs']} runs of {r['count']}).
  - Tables 13-18: the seed's `parallel` scripts for each k with every TSDU count times
    {bd['scale']} (250 -> {_count(250, bd['scale'])}, 100 -> {_count(100, bd['scale'])}), {bd['runs']} runs instead of 5.
  - Tables 19, 20 (script not printed): `{m['runs']} parallel: 1 rr 70000,1024*{m['count']} | k x 1 bulk_put 9000*N;`
    with N = {m['bulk']['wan']} on the WAN and {m['bulk']['lan']} on the LAN
    (k = 0: the rr alone); the bulk members must outlast the rr member, checked per run.
- **Hosts**: the host model's presets `seed001-wan` / `seed001-lan` on the hosts
  (docs/hosts.md): the workload's writes and reads are system calls (`per_tsdu_us` each), its
  packets pay the per-packet and per-byte costs, and its sockets have the hosts' buffers; BSD's
  mbuf cluster (`mcl_bytes = 4096`: the MSS, 8,192 B, and writes handed to TCP cluster by
  cluster) and ACKs after the application's read (docs/tcp.md).
- **XTPX** (Figure 28): a workload over XTPX, k members `bulk_put 20000*N` (N = R x 8 s / 20,000,
  200 when unrestricted), window 29,120 B, R = B / I with I = 10 ms; ours is the mean of the k
  connections' throughputs, compared with min(R, PVC payload / k).
- **Units**: the seed's KB/s are 1,000 B/s (`data/seed001/tables.toml`: Table 11's rows give
  request x 50 / time with 1,000), the same unit as the workload summary's `throughput_kBps`.
- **Bulk throughput** (Tables 9, 10, 13-18): the member's `throughput_kBps` (application bytes
  delivered in a run / the run's duration), mean over runs, our standard deviation beside it.
  For bundles the first member (connection 0), for Tables 17-18 the first GET.
- **Request-response** (Tables 11, 12, 19, 20): the time of a run of 50 transactions = 50 x
  the mean transaction time (the seed prints the run's time: Table 12 in units of 10 ms);
  throughput = request bytes / mean transaction time; normalized time = 1000 / throughput (the
  seed's columns satisfy it in every row).
- **Claims** (`held`): judged by fixed rules stated in each row (tolerances chosen once, before
  any comparison): WAN window rows within 0.80-1.05 of min(window / RTT, PVC payload rate);
  small TSDUs: our 50 B row below half our 9000 B row; slow start: on the WAN the first
  transaction of a run longer than the later ones by at least one RTT for requests over two
  segments, transaction times near whole RTTs; LAN: some request sizes at 150 ms or more per
  transaction and others under 20 ms (the seed: "seems to depend more on system scheduling"; that
  the slow ones are delayed-ACK periods is our reading); bundles: the first connection's
  throughput at the largest k below 80 % of that at the smallest k; XTPX: within 5 % of R on both
  networks.
- **Rows no model has** (the seed's dips at particular TSDU sizes, e.g. Table 10's 5125, 13317,
  25605, ... at about 4,000-4,500 KB/s among 5,500-6,000): shown beside ours and counted in the
  'dips' row; nothing is tuned to them.
"""


EXPERIMENT = Experiment(
    name="seed001",
    title="paper001: transport flow control over trans-Atlantic and LAN ATM (Tables 9-20, Figures 12-28)",
    seed_file=SEED,
    runs=runs,
    compare=compare,
    plots=plots,
    method=_method(),
)
