"""Experiment ``seed003``: effect of the RM cell interval (Nrm) on ABR feedback (EXPERIMENTS.md S003).

Seed 003 (Goyal, Fahmy, Jain, Vandalore, Narayanaswamy, ATM Forum/98-0807) runs two
configurations for every allowed Nrm: the two-source transient of Figure 4
(``scenarios/seed003/transient.toml``) and the upstream-bottleneck fairness configuration of Figure
5 (``scenarios/seed003/fairness.toml``), and plots the sources' ACR, the bottleneck utilization and
the switch queue (Figures 6-11). The references are in ``reference/seed003.toml``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..result import Result
from .analysis import entity_series, figure, series_of, settle_time, window_mean
from .experiment import Experiment, Row, RunSpec, resolve_run
from .maxmin import max_min_fair

SCENARIOS = {"transient": "seed003/transient.toml", "fairness": "seed003/fairness.toml"}
NRM_QUICK = (8, 32, 256)
NRM_ALL = (2, 4, 8, 16, 32, 64, 128, 256)

#: per configuration, per phase: (time of the change that starts the phase, end of the phase,
#: (start, end) of the window whose mean ACR is the phase's settled value)
PHASES: dict[str, dict[str, tuple[float, float, tuple[float, float]]]] = {
    "transient": {
        "alone": (0.5, 0.7, (0.65, 0.70)),   # s1 starts at 0.5 s; s2 starts at 0.7 s
        # s2 sends a fixed volume from 0.7 s; it takes about 200 ms, more for small Nrm (its last
        # data arrive between 0.88 s at Nrm 256 and 1.08 s at Nrm 2), so the phase is cut at 0.85 s
        "both": (0.7, 0.85, (0.80, 0.85)),
        # s2 stopped; the settle time is the rise from the shared rate (RISE_FROM), not from
        # 0.9 s; run ends at 1.5 s
        "after": (0.9, 1.5, (1.40, 1.50)),
    },
    "fairness": {
        "settled": (0.5, 1.0, (0.95, 1.00)),  # all start at 0.5 s; run ends at 1.0 s
    },
}
PHASE_LABEL = {"alone": "alone", "both": "both sending", "after": "rise after s2 stops", "settled": "from start"}
#: phases whose settle time is a rise: it starts at the last sample (after the named phase began)
#: at which the source was still within the tolerance above its rate of the named phase. s2's
#: fixed volume ends at a time that depends on Nrm, and the seed's claim is about "the rate of
#: increase of ACR" once it rises
RISE_FROM = {("transient", "after"): "both"}
SETTLE_TOLERANCE = 0.05

#: sources whose ACR is plotted, bottleneck port (utilization, queue), seed figure numbers by Nrm
PLOT = {
    "transient": (["s1", "s2"], "Sw1->Sw2", {8: 6, 32: 7, 256: 8}, "Two-source transient configuration"),
    "fairness": (["c1", "c16", "c17"], "Sw2->Sw3", {8: 9, 32: 10, 256: 11}, "Upstream-bottleneck fairness configuration"),
}

def _w(config: str, phase: str) -> str:
    lo, hi = PHASES[config][phase][2]
    return f"{lo:.2f}-{hi:.2f} s"


METHOD = f"""
- **Settled ACR**: the mean of the ACR samples (series `abr_sources`, every 0.5 ms) over the last
  part of each phase: transient, s1 alone {_w('transient', 'alone')}, both sources
  {_w('transient', 'both')}, s1 after s2's data ended {_w('transient', 'after')}; fairness
  {_w('fairness', 'settled')}.
- **Settle time**: from the change that starts the phase (s1 starts 0.5 s, s2 starts 0.7 s;
  fairness: all start 0.5 s; after s2 stops: the rise, from s1's last sample within
  {SETTLE_TOLERANCE:.0%} above the shared 70 Mb/s, since s2's fixed volume ends at a time that
  depends on Nrm and the seed speaks of "the rate of increase of ACR") to the first sample from
  which the ACR stays within {SETTLE_TOLERANCE:.0%} of the rate it should settle at (the seed's
  value, or the max-min fair rate) until the phase ends (both sending: 0.85 s); `n/a` if it is outside that band at the phase's end. The seed gives no
  number. Where it states an ordering ("faster for smaller Nrm": s1 after s2 stops; c1, c16, c17)
  the `all` row checks it: `yes` when the times never decrease with Nrm and the smallest Nrm is
  strictly faster than the largest, `equal` when all are the same, `no` otherwise; `held` only
  for `yes` (not when no run settled). Where it states none (s1 alone: "In all cases, source 1
  ACR quickly comes down to its target value"; both sending: "brought down to 70 Mbps") the row
  is held when every Nrm's run settles before the phase ends ("quickly" is not judged), and
  describes the order of ours beside it (`equal` agrees with the seed).
- **s2's fixed volume** (transient): s2's application hands 14 Mbit of cells (33,019 cells: the
  seed's 70 Mb/s for its "about 200 ms") to its ABR source from 0.7 s, which sends them at its
  ACR. The seed's "the high RM cell overhead causes the data of the second source to take a longer
  time to be transmitted" is checked by the time from 0.7 s to s2's last delivered data
  (`connections` series) against Nrm: 'longer for smaller Nrm'.
- **Max-min fair rates** (fairness): water-filling (`atmsim.reproduce.maxmin`) on the seed's
  network: both trunks at ERICA's target, 0.9 x 155.52 = 139.968 Mb/s; sources 1..15 limited to
  their 10 Mb/s of data as cells (11.085 Mb/s), 16 and 17 to their 100 Mb/s (110.85 Mb/s).
  Sw1->Sw2 carries 15 x 11.085 > 139.968 Mb/s, so each of c1..c15 is entitled to 9.331 Mb/s, and
  c16, c17 to (139.968 - 9.331) / 2 = 65.318 Mb/s.
- **RM overhead**: `rm_overhead` of the connection in `summary.json` (RM cells / all cells it
  sent), against 1/Nrm: section 1, "ABR sources send an RM cell after every Nrm-1 (usually Nrm = 32)
  cells".
- **Load factor z**: mean over the averaging intervals (series `abr_ports`) ending in the window;
  the seed: "starts at around 1.3 and eventually decreases till it is very close to 1".
- **Max queue**: `max_queue_cells` of the port (exact) over the whole run; the seed only plots it.
- Scenario choices the seed leaves open are stated in the scenario files' descriptions (link
  lengths 767 km for the 23 ms round trip, ICR 150 Mb/s, s2 as a fixed volume, "10 Mbps" and
  "100 Mbps load" as the applications' data rates in 9180-byte AAL5 frames, unbounded switch
  buffers).
"""


def runs(quick: bool) -> list[RunSpec]:
    nrms = NRM_QUICK if quick else NRM_ALL
    return [
        RunSpec(
            name=f"{config}-nrm{nrm}",
            scenario=SCENARIOS[config],
            abr={"nrm": nrm},
            params={"config": config, "nrm": nrm},
        )
        for config in ("transient", "fairness")
        for nrm in nrms
    ]


# ------------------------------------------------------------------------------------ comparison


def maxmin_rates(reference: Mapping[str, Any], name: str) -> dict[str, float]:
    """Max-min fair rates of the ``[maxmin.NAME]`` network of the reference data."""
    params = reference["parameters"]
    spec = reference["maxmin"][name]
    capacity = params["target_utilization"] * params["link_rate_mbps"]
    capacities = {link: capacity for link in spec["links"]}
    demands = {c: params["source_limit_mbps"] for c in spec["demands"]["source_limited"]}
    demands.update({c: float(v) for c, v in spec["demands"].get("limits", {}).items()})
    return max_min_fair(capacities, spec["paths"], demands)


def _source(ref: Mapping[str, Any], reference: Mapping[str, Any]) -> str:
    seed = reference.get("seed_file", "")
    text = f"{seed}, {ref.get('where', '')}"
    if ref.get("maxmin"):
        mm = reference["maxmin"].get("fairness", {})
        text += f' (max-min of the seed\'s network; "{mm.get("quote", "")}")'
    if ref.get("quote"):
        text += f': "{ref["quote"]}"'
    return text


def _acr(result: Result, conn: str) -> tuple[np.ndarray, np.ndarray]:
    if not result.has_series("abr_sources"):
        return np.array([]), np.array([])
    return entity_series(result, "abr_sources", "connection", conn, "acr_mbps")


def compare(results: Mapping[str, Result], reference: dict[str, Any], specs: Sequence[RunSpec]) -> list[Row]:
    rows: list[Row] = []
    by_config: dict[str, list[RunSpec]] = {}
    for s in specs:
        by_config.setdefault(s.params["config"], []).append(s)
    for config in by_config:
        by_config[config].sort(key=lambda s: s.params["nrm"])
    maxmin = {name: maxmin_rates(reference, name) for name in reference.get("maxmin", {})}
    # the rate each source should settle at in each phase: the seed's value or the max-min rate
    targets = {
        (ref["config"], ref["connection"], ref["phase"]): (
            float(ref["published"]) if "published" in ref else maxmin[ref["config"]][ref["maxmin"]]
        )
        for ref in reference["reference"]
        if "phase" in ref and ("published" in ref or "maxmin" in ref)
    }

    for ref in reference["reference"]:
        config = ref["config"]
        source = _source(ref, reference)
        config_specs = by_config.get(config, [])
        if "settle" in ref:
            rows += _settle_rows(ref, config, config_specs, results, source, targets)
            continue
        if "last_data" in ref:
            rows += _last_data_rows(ref, config, config_specs, results, source)
            continue
        for s in config_specs:
            r = results[s.name]
            nrm = s.params["nrm"]
            published: float | str | None = None
            if "published" in ref:
                published = float(ref["published"])
            elif "maxmin" in ref:
                published = maxmin[config][ref["maxmin"]]
            elif "formula" in ref:
                if ref["formula"] != "1/Nrm":
                    raise ValueError(f"unknown formula {ref['formula']!r} in reference {ref['id']}")
                published = 1.0 / nrm
            ours: float | None
            digits = 4
            if "phase" in ref:
                t, v = _acr(r, ref["connection"])
                ours = window_mean(t, v, *PHASES[config][ref["phase"]][2])
            elif "formula" in ref:
                ours = _get(r.summary, "connections", ref["connection"], "rm_overhead")
            elif "window" in ref:
                ours = math.nan
                if r.has_series("abr_ports"):
                    t, z = entity_series(r, "abr_ports", "port", ref["port"], "z")
                    lo, hi = ref["window"]
                    sel = (t > lo) & (t <= hi + 1e-12)  # intervals *ending* in the window
                    ours = float(np.mean(z[sel])) if sel.any() else math.nan
            elif "port" in ref:
                ours = _get(r.summary, "ports", ref["port"], "max_queue_cells")
                digits = 6
            else:
                raise ValueError(f"reference {ref['id']} says nothing to measure")
            rows.append(Row(ref["quantity"], s.name, published, ours, source, digits))
    return rows


def _get(summary: Mapping[str, Any], *keys: str) -> float | None:
    node: Any = summary
    for k in keys:
        if not isinstance(node, Mapping) or k not in node:
            return None
        node = node[k]
    return float(node) if isinstance(node, (int, float)) else None


def ordering_verdict(seq: Sequence[float], decreasing: bool = False) -> str:
    """Whether times ordered by increasing Nrm bear out "faster for smaller Nrm": ``yes`` when
    they never decrease and the smallest Nrm is strictly faster than the largest (a run that
    never settled counts as slowest), ``equal`` when all are the same, ``no`` otherwise.
    ``decreasing=True`` asks the opposite ('longer for smaller Nrm'): never increasing, and the
    smallest Nrm strictly longer than the largest."""
    seq = [x if math.isfinite(x) else math.inf for x in seq]
    if all(math.isinf(x) for x in seq):
        return "n/a (never settled)"
    if all(abs(x - seq[0]) < 1e-9 for x in seq):
        return "equal"
    if decreasing:
        seq = [-x for x in seq]
    return "yes" if all(a <= b + 1e-9 for a, b in zip(seq, seq[1:])) and seq[0] < seq[-1] else "no"


def _held(verdict: str) -> bool:
    """Whether a stated ordering held: ``yes`` holds; ``no``, ``equal`` and ``n/a`` (no run
    settled: nothing shows the ordering) do not."""
    return verdict == "yes"


def _settled_in_all(times: Sequence[float]) -> bool:
    """The claim of a row where the seed states no ordering ("In all cases, source 1 ACR quickly
    comes down to its target value"; both "brought down to 70 Mbps"): held when the run of every
    Nrm settles (its settle time is finite: within the tolerance of the rate before the phase
    ends)."""
    return all(math.isfinite(x) for x in times)


def last_data_s(result: Result, conn: str) -> float:
    """Time of the last sample in which data cells of ``conn`` were delivered (series
    ``connections``), NaN if none."""
    if not result.has_series("connections"):
        return math.nan
    t, v = entity_series(result, "connections", "connection", conn, "throughput_mbps")
    sel = v > 0
    return float(t[sel][-1]) if sel.any() else math.nan


def _last_data_rows(
    ref: Mapping[str, Any], config: str, specs: Sequence[RunSpec], results: Mapping[str, Result], source: str
) -> list[Row]:
    """How long the connection's fixed volume takes: from its start to its last delivered data."""
    conn, start = ref["last_data"], float(ref["start_s"])
    rows: list[Row] = []
    times: list[tuple[int, float]] = []
    for s in specs:
        d = last_data_s(results[s.name], conn) - start
        times.append((s.params["nrm"], d))
        rows.append(Row(ref["quantity"], s.name, None, d * 1e3, source, 4))
    if len(times) > 1:
        verdict = ordering_verdict([x for _, x in times], decreasing=True)
        detail = ", ".join(f"Nrm {n}: {x * 1e3:.1f}" for n, x in times)
        rows.append(
            Row(
                f"{ref['quantity']}: ordering by Nrm", f"{config}-all", str(ref.get("qualitative", "")),
                f"{verdict} ({detail} ms)", source, held=_held(verdict),
            )
        )
    return rows


def _settle_rows(
    ref: Mapping[str, Any],
    config: str,
    specs: Sequence[RunSpec],
    results: Mapping[str, Result],
    source: str,
    targets: Mapping[tuple[str, str, str], float],
) -> list[Row]:
    rows: list[Row] = []
    for conn, phase in ref["settle"]:
        t_phase, t_end, window = PHASES[config][phase]
        target = targets.get((config, conn, phase))
        times: list[tuple[int, float]] = []
        for s in specs:
            t_change = t_phase
            t, v = _acr(results[s.name], conn)
            if (config, phase) in RISE_FROM:
                before = RISE_FROM[(config, phase)]
                level = targets.get((config, conn, before))
                sel = (t >= PHASES[config][before][0]) & (v <= (level or 0.0) * (1 + SETTLE_TOLERANCE))
                t_change = float(t[sel][-1]) if level is not None and sel.any() else math.nan
            settled = target if target is not None else window_mean(t, v, *window)
            st = settle_time(t, v, t_change, t_end, settled, SETTLE_TOLERANCE)
            times.append((s.params["nrm"], st))
            rows.append(Row(f"{conn} settle time, {PHASE_LABEL[phase]} (ms)", s.name, None, st * 1e3, source, 3))
        if len(times) > 1:
            verdict = ordering_verdict([x for _, x in times])  # by increasing Nrm
            held = _held(verdict)
            if not ref.get("ordering", True):
                held = _settled_in_all([x for _, x in times])
                verdict = {"yes": "faster for smaller Nrm", "no": "not ordered by Nrm"}.get(verdict, verdict)
                verdict = f"{'settled' if held else 'not settled'} for every Nrm; {verdict}"
            detail = ", ".join(f"Nrm {n}: {'n/a' if not math.isfinite(x) else f'{x * 1e3:.1f}'}" for n, x in times)
            rows.append(
                Row(
                    f"{conn} settle time, {PHASE_LABEL[phase]}: ordering by Nrm",
                    f"{config}-all",
                    str(ref.get("qualitative", "")),
                    f"{verdict} ({detail} ms)",
                    source,
                    held=held,
                )
            )
    return rows


# ------------------------------------------------------------------------------------ plots


def plots(results: Mapping[str, Result], specs: Sequence[RunSpec], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    for s in specs:
        out.append(_runfigure(results[s.name], s, directory / f"{s.name}.png"))
    for config, (sources, _, _, title) in PLOT.items():
        cs = sorted((s for s in specs if s.params["config"] == config), key=lambda s: s.params["nrm"])
        if len(cs) > 1:
            out.append(_by_nrm(results, cs, sources[0], title, directory / f"{config}-{sources[0]}-acr-by-nrm.png"))
    return out


def _runfigure(result: Result, spec: RunSpec, path: Path) -> Path:
    config, nrm = spec.params["config"], spec.params["nrm"]
    sources, port, figs, title = PLOT[config]
    active = _active_periods(spec, float(result.summary.get("sim_time_s") or 0.0), result)
    fig = figure(9.0, 9.0)
    ax_acr, ax_util, ax_q = fig.subplots(3, 1, sharex=True)
    for conn in sources:
        t, v = _acr(result, conn)
        lo, hi = active.get(conn, (0.0, math.inf))
        v = np.where((t >= lo) & (t <= hi + 1e-9), v, np.nan)  # ACR only while the source sends
        ax_acr.plot(t, v, label=conn, linewidth=1.0)
    ax_acr.set_ylabel("ACR (Mb/s)")
    ax_acr.set_ylim(bottom=0)
    ax_acr.legend(fontsize="small")
    ports = result.series("ports", columns=["time_s", "port", "utilization", "queue_cells"], where={"port": port}) if result.has_series("ports") else None
    if ports is not None:
        t, u = series_of(ports, "port", port, "utilization")
        ax_util.plot(t, u, color="tab:green", linewidth=1.0)
        t, q = series_of(ports, "port", port, "queue_cells")
        ax_q.plot(t, q, color="tab:red", linewidth=1.0)
    ax_util.set_ylabel(f"utilization {port}")
    ax_util.set_ylim(0, 1.05)
    ax_q.set_ylabel(f"queue {port} (cells)")
    ax_q.set_xlabel("simulated time (s)")
    first = min((lo for lo, _ in active.values()), default=0.0)
    ax_q.set_xlim(max(0.0, first - 0.05), None)  # the seed's first 0.5 s is connection set-up
    for ax in (ax_acr, ax_util, ax_q):
        ax.grid(True, alpha=0.3)
    ref = f" (cf. seed 003 Figure {figs[nrm]})" if nrm in figs else ""
    ax_acr.set_title(f"{title}, Nrm={nrm}{ref}")
    fig.savefig(path)
    return path


def _active_periods(spec: RunSpec, end: float, result: Result | None = None) -> dict[str, tuple[float, float]]:
    """``{connection: (start_s, stop_s)}`` of the run's sources (from its scenario). A finite
    feed into an ABR source (s2 of the transient) sends on after its feed stops: with a result,
    its period ends at its last delivered data instead."""
    doc, _ = resolve_run(spec)
    out = {}
    for c in doc.get("connections") or []:
        src = c.get("source") or {}
        stop = float(src.get("stop_s", end))
        if result is not None and "stop_s" in src:
            last = last_data_s(result, c["name"])
            if math.isfinite(last):
                stop = max(stop, last)
        out[c["name"]] = (float(src.get("start_s", 0.0)), stop)
    return out


def _by_nrm(results: Mapping[str, Result], specs: Sequence[RunSpec], conn: str, title: str, path: Path) -> Path:
    fig = figure(9.0, 4.5)
    ax = fig.add_subplot()
    first = math.inf
    for s in specs:
        t, v = _acr(results[s.name], conn)
        lo, hi = _active_periods(s, math.inf, results[s.name]).get(conn, (0.0, math.inf))
        first = min(first, lo)
        v = np.where((t >= lo) & (t <= hi + 1e-9), v, np.nan)
        ax.plot(t, v, label=f"Nrm={s.params['nrm']}", linewidth=1.0)
    if math.isfinite(first):
        ax.set_xlim(max(0.0, first - 0.05), None)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel(f"ACR of {conn} (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", ncol=2)
    ax.set_title(f"{title}: ACR of {conn} for each Nrm")
    fig.savefig(path)
    return path


EXPERIMENT = Experiment(
    name="seed003",
    title="paper003: effect of the RM cell interval (Nrm) on ABR feedback (paper 003, ATM Forum/98-0807)",
    seed_file="003_292a67b7518dce36.txt",
    runs=runs,
    compare=compare,
    plots=plots,
    method=METHOD,
)
