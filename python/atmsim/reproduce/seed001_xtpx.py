"""Seed 001 section 9 (Figure 28): XTPX rate control, runs and rows.

Figure 28 has no table; the text states the rates (unrestricted, 500, 200, 20 KB/s), the setup
(window 29,120 B, 50 KB buffers, TSDU 20 KB) and one value: with 12 connections each stream is
restricted to 200 KB/s. Ours: k connections, each ``bulk_put`` TSDUs of 20,000 B at rate R = B / I,
on the BALI LAN and on the WAN (the claim: the rate, not the RTT, sets the throughput).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..result import Result
from . import Row, RunSpec
from .seed001_data import figure28

SEED = "001_08abd1994ada50f6.txt"
TSDU = 20000
#: the rate's interval I (s); the burst B = R x I (section 5.2: "R = B / I")
INTERVAL_S = 0.01
#: TSDUs per connection and run, full and quick
COUNT = {False: 100, True: 20}
RUNS = {False: 1, True: 1}
TOLERANCE = 0.05
#: override keys of the XTPX scenario files (source.xtpx, s22-xtpx)
KEY_BURST = "connections.pvc.source.xtpx.burst_bytes"
KEY_INTERVAL = "connections.pvc.source.xtpx.interval_s"
KEY_SCRIPT = "connections.pvc.source.workload.script"


def script(k: int, count: int, runs: int) -> str:
    if k == 1:
        return f"{runs} bulk_put {TSDU}*{count};"
    return f"{runs} parallel: " + " | ".join([f"1 bulk_put {TSDU}*{count}"] * k) + ";"


def xtpx_runs(quick: bool) -> list[RunSpec]:
    from .seed001 import DURATION_S, XTPX_CONNECTIONS, XTPX_RATES, missing, scenario

    out: list[RunSpec] = []
    for net in ("lan", "wan"):
        if missing(net, "xtpx"):
            continue
        for rate in XTPX_RATES[quick]:
            for k in XTPX_CONNECTIONS[quick]:
                s = script(k, COUNT[quick], RUNS[quick])
                ov: dict[str, Any] = {KEY_SCRIPT: s, "run.duration_s": DURATION_S[net]}
                if rate is not None:
                    ov[KEY_BURST] = int(round(rate * 1000 * INTERVAL_S))
                    ov[KEY_INTERVAL] = INTERVAL_S
                name = f"f28-{net}-{'unrestricted' if rate is None else f'r{rate}'}-k{k}"
                out.append(RunSpec(name, scenario(net, "xtpx"), ov,
                                   params={"net": net, "family": "xtpx", "figure": 28, "rate": rate, "connections": k, "script": s}))
    return out


def _per_connection(result: Result, k: int) -> list[float]:
    from .seed001_compare import throughput

    vals = [throughput(result, m)[0] for m in range(k)]
    return [v for v in vals if v is not None]


def xtpx_rows(results: Mapping[str, Result], reference: dict[str, Any], specs: Sequence[RunSpec], claims: dict[str, Any]) -> list[Row]:
    from .seed001 import missing

    f = figure28()
    src = f"{SEED}, {f['title']} (section {f['section']})"
    c = claims["xtpx"]
    csrc = f'{SEED}, {c["where"]}: "{c["quote"]}"'
    why = missing("lan", "xtpx") or missing("wan", "xtpx")
    if why:
        rows = [Row("Figure 28: not reproduced in this build", "-", "4 rates x up to 12 connections", f"not run: {why}", src)]
        for stated in f["stated"]:
            rows.append(Row(f"Figure 28: throughput per connection (KB/s), {stated['connections']} connections", "not run (see above)",
                            stated["per_connection_KBps"], None, f'{src}: "{stated["quote"]}"'))
        return rows
    rows: list[Row] = []
    ok: dict[str, list[bool]] = {"lan": [], "wan": []}
    for s in [x for x in specs if x.params.get("figure") == 28]:
        rate, k, net = s.params["rate"], s.params["connections"], s.params["net"]
        vals = _per_connection(results[s.name], k)
        mean = sum(vals) / len(vals) if vals else None
        spread = (max(vals) - min(vals)) if len(vals) > 1 else None
        stated = next((x for x in f["stated"] if x["connections"] == k and x["per_connection_KBps"] == rate), None)
        if rate is None:
            rows.append(Row(f"Figure 28 ({net}): throughput per connection (KB/s), unrestricted, {k} connections", s.name, None, mean, src, digits=4))
            continue
        held = None if mean is None else abs(mean / rate - 1) <= TOLERANCE and (spread is None or spread <= TOLERANCE * rate)
        if held is not None:
            ok[net].append(held)
        pub_src = f'{src}: "{stated["quote"]}"' if stated else f"{src}: R = B / I (section 5.2), R = {rate} KB/s"
        rows.append(Row(f"Figure 28 ({net}): throughput per connection (KB/s), R = {rate} KB/s, {k} connections"
                        + ("" if spread is None else f" (max - min over connections {spread:.2f})"),
                        s.name, float(rate), mean, pub_src, digits=4, held=held))
    if ok["lan"] or ok["wan"]:
        held = all(ok["lan"]) and all(ok["wan"]) and bool(ok["lan"]) and bool(ok["wan"])
        rows.append(Row(f"claim: XTPX throughput is set by its rate on both the LAN (RTT 2 ms) and the WAN (RTT 100 ms), within {TOLERANCE:.0%}",
                        "f28 rows", "yes", f"{'yes' if held else 'no'}: LAN {sum(ok['lan'])} of {len(ok['lan'])}, WAN {sum(ok['wan'])} of {len(ok['wan'])}",
                        csrc, held=held))
    return rows
