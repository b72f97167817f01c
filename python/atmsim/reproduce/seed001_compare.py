"""Seed 001's comparison rows: every row of Tables 9-20 beside ours, and the claims with ``held``.

Our values come from the workload results of ``summary.json`` (``connections.pvc.workload``,
docs/workloads.md): statement 0 of the run, member m (connection m of the bundle). A table whose
runs could not be made in this build (``seed001_data.missing``) keeps its published rows with an
empty ``ours`` and the reason in the ``run`` column.
"""

from __future__ import annotations

import math
import statistics as st
from collections.abc import Mapping, Sequence
from typing import Any

from ..result import Result
from .experiment import Row, RunSpec
from .seed001_data import SEED, Table, load_tables, missing

#: tolerances of the claims, fixed before any comparison (see seed001.METHOD)
WINDOW_BAND = (0.80, 1.05)
SMALL_RATIO = 0.5
ARTEFACT_MS, FAST_MS = 150.0, 20.0
BUNDLE_FALL = 0.8
DIP = 0.85
NOT_RUN = "not in this run list (--quick or a shortened list)"
AAL5_OVERHEAD = 56  # TCP 20 + IP 20 + LLC/SNAP 8 + AAL5 trailer 8 (docs/tcp.md)


# ------------------------------------------------------------------------------------ summary access


def workload(result: Result) -> dict[str, Any] | None:
    conns = result.summary.get("connections") or {}
    if isinstance(conns, list):
        entry = next((c for c in conns if c.get("name") == "pvc"), conns[0] if conns else {})
    else:
        entry = conns.get("pvc") or next(iter(conns.values()), {})
    return entry.get("workload")


def member(result: Result, m: int = 0, statement: int = 0) -> dict[str, Any] | None:
    wl = workload(result)
    if not wl:
        return None
    try:
        members = wl["statements"][statement]["members"]
    except (KeyError, IndexError):
        return None
    return next((x for x in members if x.get("connection") == m), members[m] if m < len(members) else None)


def label(name: str, result: Result) -> str:
    """The run's name, marked when its workload had not finished by the end of the run."""
    wl = workload(result)
    if wl is not None and wl.get("complete") is False:
        return f"{name} (workload not finished by the run's end)"
    return name


def _stat(d: Any, key: str = "mean") -> float | None:
    if isinstance(d, dict) and isinstance(d.get(key), (int, float)) and math.isfinite(d[key]):
        return float(d[key])
    return None


def throughput(result: Result, m: int = 0) -> tuple[float | None, float | None, int]:
    """(mean, sd over runs, runs) of the member's throughput in kB/s."""
    mb = member(result, m)
    if not mb:
        return None, None, 0
    runs = [r.get("throughput_kBps") for r in mb.get("runs", [])]
    runs = [float(x) for x in runs if isinstance(x, (int, float))]
    return _stat(mb.get("throughput_kBps")), (st.stdev(runs) if len(runs) > 1 else None), len(runs)


def transaction_ms(result: Result, m: int = 0) -> tuple[float | None, int]:
    """(mean transaction time over the runs, runs) of an rr member, ms."""
    mb = member(result, m)
    if not mb:
        return None, 0
    return _stat(mb.get("transaction_ms")), len(mb.get("runs", []))


def first_run_excess_ms(result: Result, m: int = 0) -> float | None:
    """Longest minus shortest transaction of the first run (slow start shows in the first)."""
    mb = member(result, m)
    if not mb or not mb.get("runs"):
        return None
    tm = mb["runs"][0].get("transaction_ms")
    hi, lo = _stat(tm, "max"), _stat(tm, "min")
    return None if hi is None or lo is None else hi - lo


def outlasted(result: Result) -> bool | None:
    """Mixed runs: did every bulk member end no earlier than the rr member, in every run?"""
    wl = workload(result)
    if not wl:
        return None
    ms = wl["statements"][0]["members"]
    if len(ms) < 2:
        return True
    for j, r in enumerate(ms[0].get("runs", [])):
        ends = [b["runs"][j]["end_s"] for b in ms[1:] if j < len(b.get("runs", []))]
        if ends and min(ends) < r["end_s"]:
            return False
    return True


# ------------------------------------------------------------------------------------ helpers


def _src(t: Table, row: dict[str, Any] | None = None, col: str | None = None) -> str:
    where = f", seed line {row['seed_line']}" if row else ""
    c = f", column \"{t.meta['printed'][t.meta['columns'].index(col)]}\"" if col else ""
    return f"{SEED}, {t.title} (section {t.meta['section']}){where}{c}"


def pvc_payload_kBps(pvc_mbps: float, mtu: int) -> float:
    """Application bytes per second a CBR PVC carries in full-MSS TCP segments, kB/s."""
    mss = mtu - 40
    cells = math.ceil((mss + AAL5_OVERHEAD) / 48)
    return pvc_mbps * 1e6 / 424 * mss / cells / 1000


def _by(specs: Sequence[RunSpec], **kw: Any) -> RunSpec | None:
    return next((s for s in specs if all(s.params.get(k) == v for k, v in kw.items())), None)


def _not_run(t: Table, reason: str) -> list[Row]:
    rows = [Row(f"Table {t.number}: not reproduced in this build", "-", f"{len(t.rows)} rows", f"not run: {reason}", _src(t), held=None)]
    short = "not run (see above)"
    for r in t.rows:
        for c in t.meta["columns"][1:]:
            if r[c] is not None:
                rows.append(Row(f"Table {t.number}: {c}, {t.meta['columns'][0]} {r[t.meta['columns'][0]]:g}", short, r[c], None, _src(t, r, c)))
    return rows


def _rank_corr(xs: Sequence[float], ys: Sequence[float]) -> float:
    if len(xs) < 3:
        return math.nan
    import numpy as np

    rx, ry = np.argsort(np.argsort(xs)), np.argsort(np.argsort(ys))
    c = np.corrcoef(rx, ry)[0, 1]
    return float(c)


# ------------------------------------------------------------------------------------ tables


def compare_rows(results: Mapping[str, Result], reference: dict[str, Any], specs: Sequence[RunSpec]) -> list[Row]:
    """The rows of Tables 9-20 and their claims (Figure 28's are ``seed001_xtpx.xtpx_rows``)."""
    tables = load_tables()
    claims = {c["id"]: c for c in reference.get("claim", [])}
    rows: list[Row] = []
    for t in (9, 10):
        why = missing(tables[t].network, "bulk")
        rows += _not_run(tables[t], why) if why else _bulk(tables[t], results, specs, claims, reference)
    for t in (11, 12):
        why = missing(tables[t].network, "rr")
        rows += _not_run(tables[t], why) if why else _rr(tables[t], results, specs, claims)
    for t in range(13, 19):
        why = missing(tables[t].network, "bundle")
        rows += _not_run(tables[t], why) if why else _bundle(tables[t], results, specs, claims)
    for t in (19, 20):
        why = missing(tables[t].network, "mixed")
        rows += _not_run(tables[t], why) if why else _mixed(tables[t], results, specs, claims)
    return rows


def _claim_src(claims: dict[str, Any], cid: str) -> str:
    c = claims[cid]
    return f'{SEED}, {c["where"]}: "{c["quote"]}"'


def _bulk(t: Table, results: Mapping[str, Result], specs: Sequence[RunSpec], claims: dict[str, Any], reference: dict[str, Any]) -> list[Row]:
    rows: list[Row] = []
    ours_by_size: dict[int, float] = {}
    for r in t.rows:
        size = int(r["tsdu_bytes"])
        s = _by(specs, table=t.number, tsdu=size)
        what = f"TSDU {size} B, window 50 KB"
        if s is None:
            rows.append(Row(f"Table {t.number}: throughput (KB/s), {what}", NOT_RUN, r["throughput_KBps"], None, _src(t, r, "throughput_KBps")))
            rows.append(Row(f"Table {t.number}: standard deviation over runs (KB/s), {what}", NOT_RUN, r["std_KBps"], None, _src(t, r, "std_KBps")))
            continue
        mean, sd, n = throughput(results[s.name])
        if mean is not None:
            ours_by_size[size] = mean
        rows.append(Row(f"Table {t.number}: throughput (KB/s), {what}", label(s.name, results[s.name]), r["throughput_KBps"], mean,
                        _src(t, r, "throughput_KBps"), digits=4, spread=sd, replications=max(n, 1)))
        rows.append(Row(f"Table {t.number}: standard deviation over runs (KB/s), {what}", s.name, r["std_KBps"], sd,
                        _src(t, r, "std_KBps"), digits=3))
    net = reference["network"][t.network]
    payload = pvc_payload_kBps(net["pvc_mbps"], net["mtu_bytes"])
    rtts = net["rtt_s"] if isinstance(net["rtt_s"], list) else [net["rtt_s"]]
    for s in [x for x in specs if x.params.get("figure") == "window" and x.params["net"] == t.network] + \
            [x for x in specs if x.params.get("table") == t.number and x.params["tsdu"] in _window_tsdus(specs, t.network)]:
        w = s.params.get("window_kb", 50)
        mean, sd, n = throughput(results[s.name])
        bounds = sorted(min(w * 1024 / rtt / 1000, payload) for rtt in rtts)
        fig = "Figure 12" if t.network == "wan" else "Figure 15"
        q = f"{fig}: throughput (KB/s), window {w} KB, TSDU {s.params['tsdu']} B, against min(window / RTT, PVC payload)"
        src = _claim_src(claims, "window") + f"; RTT and PVC: {net['where']}: \"{net['quote']}\"; PVC payload {payload:.1f} kB/s in {net['mtu_bytes'] - 40} B segments"
        if len(bounds) == 1:
            held = None if mean is None else WINDOW_BAND[0] <= mean / bounds[0] <= WINDOW_BAND[1]
            rows.append(Row(q, label(s.name, results[s.name]), bounds[0], mean, src, digits=4, spread=sd, replications=max(n, 1), held=held))
        else:
            rows.append(Row(q, label(s.name, results[s.name]), f"{bounds[0]:.0f}-{bounds[1]:.0f} (RTT 4-2 ms)", mean, src, digits=4, spread=sd, replications=max(n, 1)))
    if t.number == 9:
        small, big = ours_by_size.get(50), ours_by_size.get(9000)
        pub = {int(r["tsdu_bytes"]): r["throughput_KBps"] for r in t.rows}
        if small is not None and big is not None:
            held = small < SMALL_RATIO * big
            rows.append(Row(f"claim: small TSDUs lose throughput on the WAN (TSDU 50 B below {SMALL_RATIO:g} x TSDU 9000 B)", "t9 rows",
                            f"yes: {pub[50]:g} vs {pub[9000]:g} KB/s", f"{'yes' if held else 'no'}: {small:.1f} vs {big:.1f} kB/s",
                            _claim_src(claims, "small_tsdu"), held=held))
    rows += _dips(t, ours_by_size, claims)
    return rows


def _window_tsdus(specs: Sequence[RunSpec], net: str) -> set[int]:
    return {s.params["tsdu"] for s in specs if s.params.get("figure") == "window" and s.params["net"] == net}


def _dips(t: Table, ours: dict[int, float], claims: dict[str, Any]) -> list[Row]:
    big = [r for r in t.rows if r["tsdu_bytes"] >= 4096]
    med = st.median(r["throughput_KBps"] for r in big)
    seed_dips = [int(r["tsdu_bytes"]) for r in big if r["throughput_KBps"] < DIP * med]
    ob = {k: v for k, v in ours.items() if k >= 4096}
    if not ob:
        return []
    omed = st.median(ob.values())
    our_dips = sorted(k for k, v in ob.items() if v < DIP * omed)
    shown = [k for k in seed_dips if k in ob]
    return [Row(f"Table {t.number}: rows below {DIP:g} x the table's median at TSDU >= 4096 B (dips)", f"{len(ob)} rows run",
                f"{len(seed_dips)}: {', '.join(map(str, seed_dips))}",
                f"{len(our_dips)}: {', '.join(map(str, our_dips)) or 'none'}; of the seed's run here: {len(set(shown) & set(our_dips))} of {len(shown)}",
                _claim_src(claims, "dips") + " (host scheduling effects; no model of ours has them)")]


def _rr(t: Table, results: Mapping[str, Result], specs: Sequence[RunSpec], claims: dict[str, Any]) -> list[Row]:
    rows: list[Row] = []
    per_tx: dict[int, float] = {}
    excess: dict[int, float | None] = {}
    scale = 1.0 if t.number == 11 else 100.0
    tcol = t.meta["columns"][2]
    pub_tx: dict[int, float] = {}
    for r in t.rows:
        size = int(r["request_bytes"])
        s = _by(specs, table=t.number, request=size)
        lab = f"request {size} B, response 1024 B"
        unit = "s" if t.number == 11 else "s x 100"
        if s is None:
            rows.append(Row(f"Table {t.number}: throughput (KB/s), {lab}", NOT_RUN, r["throughput_KBps"], None, _src(t, r, "throughput_KBps")))
            rows.append(Row(f"Table {t.number}: time of 50 transactions ({unit}), {lab}", NOT_RUN, r[tcol], None, _src(t, r, tcol)))
            continue
        ms, n = transaction_ms(results[s.name])
        count = s.params["count"]
        pub_tx[size] = r[tcol] / scale / 50 * 1000
        time_run = None if ms is None else ms * count / 1000  # s
        # the seed's time is for 50 transactions; ours scaled to 50 when a run has fewer
        time_50 = None if ms is None else ms * 50 / 1000 * scale
        tp = None if ms is None or ms <= 0 else size / ms  # bytes per ms = kB/s
        if ms is not None:
            per_tx[size] = ms
            excess[size] = first_run_excess_ms(results[s.name])
        rows.append(Row(f"Table {t.number}: throughput (KB/s), {lab}", label(s.name, results[s.name]), r["throughput_KBps"], tp, _src(t, r, "throughput_KBps"), digits=4))
        rows.append(Row(f"Table {t.number}: time of 50 transactions ({unit}), {lab}", s.name + ("" if count == 50 else f" ({count} per run, x 50/{count})"),
                        r[tcol], time_50, _src(t, r, tcol), digits=4))
        del time_run
    if t.number == 11 and per_tx:
        rtt = 100.0
        sizes = sorted(per_tx)
        steps = [round(per_tx[x] / rtt) for x in sizes]
        mono = all(a <= b for a, b in zip(steps, steps[1:]))
        distinct = len(set(steps))
        held = mono and distinct >= 3
        pub_steps = [round(pub_tx[x] / rtt) for x in sizes]
        rows.append(Row("claim: WAN transaction time grows in round-trip steps (round(time / 100 ms) non-decreasing in request size, >= 3 levels)",
                        "t11 rows", f"levels {sorted(set(pub_steps))}", f"{'yes' if held else 'no'}: levels {sorted(set(steps))}{'' if mono else ', not monotone'}",
                        _claim_src(claims, "slowstart"), held=held))
        mss = 9188 - 40
        big = {x: e for x, e in excess.items() if x > 2 * mss and e is not None}
        if big:
            ok = [x for x, e in big.items() if e >= rtt]
            held = len(ok) == len(big)
            rows.append(Row("claim: slow start: the first run's longest transaction exceeds its shortest by >= 1 RTT (requests > 2 segments)",
                            "t11 rows", "yes (\"the response time increases quickly (i.e. exponentially over RTT)\")",
                            f"{'yes' if held else 'no'}: {len(ok)} of {len(big)} request sizes", _claim_src(claims, "slowstart"), held=held))
    if t.number == 12 and per_tx:
        slow = sorted(x for x, v in per_tx.items() if v >= ARTEFACT_MS)
        fast = sorted(x for x, v in per_tx.items() if v < FAST_MS)
        pslow = sorted({x for x, v in pub_tx.items() if v >= ARTEFACT_MS and x in per_tx})
        agree = sum((per_tx[x] >= ARTEFACT_MS) == (pub_tx[x] >= ARTEFACT_MS) for x in per_tx)
        held = bool(slow) and bool(fast)
        rows.append(Row(f"claim: LAN transaction times in two classes: some request sizes take >= {ARTEFACT_MS:g} ms per transaction, others < {FAST_MS:g} ms "
                        "(that the slow ones are delayed-ACK periods is our reading; the seed puts the LAN's response time down to system scheduling)",
                        "t12 rows", f"yes: {len(pslow)} sizes at ~195 ms ({', '.join(map(str, pslow))})",
                        f"{'yes' if held else 'no'}: {len(slow)} sizes >= {ARTEFACT_MS:g} ms ({', '.join(map(str, slow)) or 'none'}), {len(fast)} < {FAST_MS:g} ms; "
                        f"same class as the seed in {agree} of {len(per_tx)}",
                        _claim_src(claims, "delack"), held=held))
    return rows


def _bundle(t: Table, results: Mapping[str, Result], specs: Sequence[RunSpec], claims: dict[str, Any]) -> list[Row]:
    rows: list[Row] = []
    cols = t.meta["columns"][1:]
    ours: dict[int, dict[int, float]] = {1: {}, 2: {}}
    pub: dict[int, dict[int, float]] = {1: {}, 2: {}}
    for r in t.rows:
        k = int(r["connections"])
        for curve, col in enumerate(cols, start=1):
            if r[col] is None:
                continue
            pub[curve][k] = r[col]
            s = _by(specs, table=t.number, connections=k, curve=curve)
            what = "first GET connection" if t.number >= 17 else "first connection"
            if s is None:
                rows.append(Row(f"Table {t.number}: {what} throughput (KB/s), {col}, k = {k}", NOT_RUN, r[col], None, _src(t, r, col)))
                continue
            mean, sd, n = throughput(results[s.name])
            if mean is not None:
                ours[curve][k] = mean
            rows.append(Row(f"Table {t.number}: {what} throughput (KB/s), {col}, k = {k}", label(s.name, results[s.name]), r[col], mean,
                            _src(t, r, col), digits=4, spread=sd, replications=max(n, 1)))
    cid = "bidir" if t.number >= 17 else "bundle"
    for curve, col in enumerate(cols, start=1):
        o, p = ours[curve], pub[curve]
        if len(o) < 2:
            continue
        k0, k1 = min(o), max(o)
        held = o[k1] < BUNDLE_FALL * o[k0]
        rows.append(Row(f"claim: Table {t.number} {col}: the first connection's throughput falls with k (k = {k1} below {BUNDLE_FALL:g} x k = {k0})",
                        f"t{t.number} rows", f"{p[k0]:g} -> {p[k1]:g}" if k0 in p and k1 in p else None,
                        f"{'yes' if held else 'no'}: {o[k0]:.1f} -> {o[k1]:.1f}", _claim_src(claims, cid), held=held))
    common = sorted(set(ours[1]) & set(ours[2]))
    if len(common) >= 2:
        k0, k1 = common[0], common[-1]
        # the heavier curve: homogeneous 70 KB (13/14 column 2, 17/18 column 1); 15/16: no delay (column 1)
        heavy, light = (2, 1) if t.number in (13, 14) else (1, 2)
        rh, rl = ours[heavy][k1] / ours[heavy][k0], ours[light][k1] / ours[light][k0]
        held = rh < rl
        ph = pub[heavy].get(k1, math.nan) / pub[heavy].get(k0, math.nan) if k0 in pub[heavy] and k1 in pub[heavy] else math.nan
        pl = pub[light].get(k1, math.nan) / pub[light].get(k0, math.nan) if k0 in pub[light] and k1 in pub[light] else math.nan
        rows.append(Row(f"claim: Table {t.number}: {cols[heavy - 1]} falls faster than {cols[light - 1]} (k = {k0} -> {k1})",
                        f"t{t.number} rows", f"x{ph:.2f} vs x{pl:.2f}", f"{'yes' if held else 'no'}: x{rh:.2f} vs x{rl:.2f}",
                        _claim_src(claims, cid), held=held))
    return rows


def _mixed(t: Table, results: Mapping[str, Result], specs: Sequence[RunSpec], claims: dict[str, Any]) -> list[Row]:
    rows: list[Row] = []
    norm: dict[int, float] = {}
    pub: dict[int, float] = {}
    for r in t.rows:
        k = int(r["bulk_connections"])
        s = _by(specs, table=t.number, bulk_connections=k)
        if s is None:
            rows.append(Row(f"Table {t.number}: normalized time (1000 / KB/s), {k} bulk connections", NOT_RUN, r["normalized_time"], None, _src(t, r, "normalized_time")))
            rows.append(Row(f"Table {t.number}: rr throughput (KB/s), {k} bulk connections", NOT_RUN, r["throughput_KBps"], None, _src(t, r, "throughput_KBps")))
            continue
        pub[k] = r["normalized_time"]
        ms, n = transaction_ms(results[s.name])
        tp = None if ms is None or ms <= 0 else 70000 / ms
        nt = None if tp is None else 1000 / tp
        if nt is not None:
            norm[k] = nt
        ok = outlasted(results[s.name])
        label_ = label(s.name, results[s.name]) + ("" if ok in (True, None) else " (a bulk member ended before the rr member)")
        rows.append(Row(f"Table {t.number}: normalized time (1000 / KB/s), {k} bulk connections", label_, r["normalized_time"], nt,
                        _src(t, r, "normalized_time"), digits=4))
        rows.append(Row(f"Table {t.number}: rr throughput (KB/s), {k} bulk connections", label_, r["throughput_KBps"], tp,
                        _src(t, r, "throughput_KBps"), digits=4))
    if len(norm) >= 2:
        k0, k1 = min(norm), max(norm)
        up = norm[k1] / norm[k0]
        pup = pub[k1] / pub[k0]
        if t.number == 19:
            held = up > 1.2
            q = f"claim: WAN response time increases with the bulk connections (k = {k1} over 1.2 x k = {k0})"
        else:
            held = up < 1.2
            q = f"claim: LAN response time does not increase significantly (k = {k1} under 1.2 x k = {k0})"
        cid = "mixed" if t.number == 19 else "mixed_lan"
        rows.append(Row(q, f"t{t.number} rows", f"x{pup:.2f}", f"{'yes' if held else 'no'}: x{up:.2f}", _claim_src(claims, cid), held=held))
    return rows
