"""Seed 001 section 9 (Figure 28): XTPX rate control, runs and rows.

Figure 28 has no table; the text states the rates (unrestricted, 500, 200, 20 KB/s), the setup
(window 29,120 B, 50 KB buffers, TSDU 20 KB) and one value: with 12 connections each stream is
restricted to 200 KB/s. Ours: k connections, at rate R = B / I,
on the BALI LAN and on the WAN (the claim: the rate, not the RTT, sets the throughput): a
workload over XTPX, one ``bulk_put`` member of TSDUs of 20,000 B per connection.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..result import Result
from .experiment import Row, RunSpec
from .seed001_compare import throughput
from .seed001_data import DURATION_S, MTU, SEED, figure28, missing, scenario

#: XTPX (Figure 28): connections and rates (KB/s of 1,000 B; None = unrestricted)
XTPX_CONNECTIONS = {False: (1, 4, 8, 12), True: (1, 12)}
XTPX_RATES = {False: (None, 500, 200, 20), True: (200,)}
#: the rate's interval I (ms); the burst B = R x I (section 5.2: "R = B / I")
INTERVAL_MS = 10.0
#: TSDU ("TSDU length = 20 KB", KB = 1,000 B as the scripts' 70 KB = 70000)
TSDU = 20000
#: seconds of sending per run at the rate R: TSDUs per connection N = max(2, ceil(R x T / TSDU));
#: unrestricted: N = UNRESTRICTED_N
SECONDS = {False: 8.0, True: 3.0}
UNRESTRICTED_N = {False: 200, True: 50}
TOLERANCE = 0.05
#: override keys of the XTPX scenario files (a workload over XTPX, s22-work / s22-xtpx)
KEY_SCRIPT = "connections.pvc.source.workload.script"
KEY_XTPX = "connections.pvc.source.xtpx"


def script(k: int, n: int) -> str:
    """One run, k connections each writing n TSDUs of 20,000 B."""
    if k == 1:
        return f"1 bulk_put {TSDU}*{n};"
    return "1 parallel: " + " | ".join([f"1 bulk_put {TSDU}*{n}"] * k) + ";"


def xtpx_runs(quick: bool) -> list[RunSpec]:
    out: list[RunSpec] = []
    for net in ("lan", "wan"):
        if missing(net, "xtpx"):
            continue
        for rate in XTPX_RATES[quick]:
            for k in XTPX_CONNECTIONS[quick]:
                xt: dict[str, Any] = {"window_bytes": 29120, "error_control": "selective_repeat", "mtu_bytes": MTU[net]}
                if rate is None:
                    n = UNRESTRICTED_N[quick]
                    xt["rate_control"] = False
                else:
                    n = max(2, math.ceil(rate * 1000 * SECONDS[quick] / TSDU))
                    xt.update(rate_control=True, burst_bytes=int(round(rate * INTERVAL_MS)), interval_ms=INTERVAL_MS)
                ov: dict[str, Any] = {KEY_SCRIPT: script(k, n), KEY_XTPX: xt, "run.duration_s": DURATION_S[net],
                                      "run.sample_interval_s": DURATION_S[net] / 2000}
                name = f"f28-{net}-{'unrestricted' if rate is None else f'r{rate}'}-k{k}"
                out.append(RunSpec(name, scenario(net, "xtpx"), ov,
                                   params={"net": net, "family": "xtpx", "figure": 28, "rate": rate, "connections": k,
                                           "script": script(k, n)}))
    return out


def pvc_payload_xtpx_kBps(pvc_mbps: float, burst: int, mtu: int, header: int = 32) -> float:
    """Payload a CBR PVC carries in XTPX packets of min(B, MTU - header) bytes (header + 8 B AAL5
    trailer per frame), kB/s."""
    payload = min(burst, mtu - header)
    cells = math.ceil((payload + header + 8) / 48)
    return pvc_mbps * 1e6 / 424 * payload / cells / 1000


def per_connection(result: Result, k: int) -> list[float]:
    """Each connection's throughput, kB/s (members 0..k-1 of the workload's statement)."""
    vals = [throughput(result, m)[0] for m in range(k)]
    return [v for v in vals if v is not None]


def xtpx_rows(results: Mapping[str, Result], reference: dict[str, Any], specs: Sequence[RunSpec], claims: dict[str, Any]) -> list[Row]:
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
        vals = per_connection(results[s.name], k)
        mean = sum(vals) / len(vals) if vals else None
        spread = (max(vals) - min(vals)) if len(vals) > 1 else None
        stated = next((x for x in f["stated"] if x["connections"] == k and x["per_connection_KBps"] == rate), None)
        if rate is None:
            rows.append(Row(f"Figure 28 ({net}): throughput per connection (KB/s), unrestricted, {k} connections", s.name, None, mean, src, digits=4))
            continue
        net_ref = reference["network"][net]
        cap = pvc_payload_xtpx_kBps(net_ref["pvc_mbps"], int(round(rate * INTERVAL_MS)), net_ref["mtu_bytes"]) / k
        expect = min(float(rate), cap)
        held = None if mean is None else abs(mean / expect - 1) <= TOLERANCE and (spread is None or spread <= TOLERANCE * expect)
        if held is not None:
            ok[net].append(held)
        pub_src = f'{src}: "{stated["quote"]}"' if stated else f"{src}: R = B / I (section 5.2), R = {rate} KB/s"
        if cap < rate:
            pub_src += f"; {k} x R exceeds the PVC ({net_ref['pvc_mbps']:g} Mb/s: {cap * k:.1f} kB/s of XTPX payload), so min(R, PVC / k) = {cap:.1f}"
        rows.append(Row(f"Figure 28 ({net}): throughput per connection (KB/s), R = {rate} KB/s, {k} connections"
                        + ("" if spread is None else f" (max - min over connections {spread:.2f})"),
                        s.name, expect, mean, pub_src, digits=4, held=held))
    if ok["lan"] or ok["wan"]:
        held = all(ok["lan"]) and all(ok["wan"]) and bool(ok["lan"]) and bool(ok["wan"])
        rows.append(Row(f"claim: XTPX throughput is set by its rate (min(R, PVC / k)) on both the LAN (RTT 2 ms) and the WAN (RTT 100 ms), within {TOLERANCE:.0%}",
                        "f28 rows", "yes", f"{'yes' if held else 'no'}: LAN {sum(ok['lan'])} of {len(ok['lan'])}, WAN {sum(ok['wan'])} of {len(ok['wan'])}",
                        csrc, held=held))
    return rows
