"""Experiment ``seed002``: TCP/IP over ABR and UBR over satellite networks (EXPERIMENTS.md S002).

Seed 002 (Kalyanaraman, Jain, Goyal, Fahmy; slides) gives four tables of the maximum switch queue
in the "n Source + VBR" configuration with a 550 ms round trip: the number of sources against the
feedback delay (ERICA+), a long feedback delay (ERICA against ERICA+), a high-frequency ON-OFF VBR
background (ERICA against ERICA+), and UBR. References: ``reference/seed002.toml``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..result import Result
from . import Experiment, Row, RunSpec
from .analysis import figure, series_of

PORT = "Sw1->Sw2"
#: the seed's high-frequency VBR: 1 ms ON at 80% of the link, 1 ms OFF, from t = 2 ms
VBR_ON = {"kind": "onoff", "peak_mbps": 0.8 * 149.76, "duty_cycle": 0.5, "period_s": 0.002, "start_s": 0.002}
#: ERICA's rows: a constant target of the full capacity (the seed does not state it; with a
#: target below 1 the headroom drains any queue, and the comparison is about queue control)
ERICA = {"scheme": "erica", "target_utilization": 1.0, "interval_cells": 100, "interval_s": 0.001}
DURATION_S = 20.0
QUICK_S = 14.0
#: a queue is "not drained" when its mean over the second half of the run is above this share
#: of its maximum
KEPT = 0.5


def _scenario(n: int, fd: float | None) -> str:
    if fd is None:
        return "seed002/ubr-n5.toml"
    if fd >= 500:
        return "seed002/n15-fd550.toml"
    return f"seed002/n{n}-fd{'001' if fd < 1 else '10'}.toml"


def runs(quick: bool) -> list[RunSpec]:
    cases: list[tuple[str, int, float | None, str, bool]] = []
    for n in (5, 15):
        for fd in (0.01, 10.0):
            cases.append((f"n{n}-fd{fd:g}-erica+", n, fd, "erica+", False))
    cases.append(("n15-fd550-erica", 15, 550.0, "erica", False))
    cases.append(("n15-fd550-erica+", 15, 550.0, "erica+", False))
    for fd in (0.01, 10.0):
        for scheme in ("erica", "erica+"):
            cases.append((f"n15-vbr-fd{fd:g}-{scheme}", 15, fd, scheme, True))
    cases.append(("ubr-n5", 5, None, "ubr", False))
    out = []
    for name, n, fd, scheme, vbr in cases:
        ov: dict[str, Any] = {}
        if scheme == "erica":
            for sw in ("Sw1", "Sw2"):
                ov[f"nodes.{sw}.abr"] = dict(ERICA)
        if vbr:
            ov["connections.vbr.source"] = dict(VBR_ON)
        duration = QUICK_S if quick else DURATION_S
        if scheme == "ubr":
            duration = 30.0 if not quick else 20.0  # the windows fill after about 15 round trips
        ov["run.duration_s"] = duration
        out.append(
            RunSpec(
                name=name,
                scenario=_scenario(n, fd),
                overrides=ov,
                params={"n": n, "feedback_ms": fd, "scheme": scheme, "vbr": vbr, "duration_s": duration},
            )
        )
    return out


def _match(ref: Mapping[str, Any], spec: RunSpec) -> bool:
    p = spec.params
    if ref["scheme"] == "ubr":
        return p["scheme"] == "ubr"
    return (
        p["scheme"] == ref["scheme"]
        and p["n"] == ref["n"]
        and p["vbr"] == ref["vbr"]
        and p["feedback_ms"] is not None
        and math.isclose(p["feedback_ms"], ref["feedback_ms"])
    )


def second_half_mean(result: Result) -> float:
    """Mean bottleneck queue over the second half of the run (sampled series)."""
    t, q = series_of(result.series("ports"), "port", PORT, "queue_cells")
    if len(t) == 0:
        return math.nan
    second = q[t > t[-1] / 2.0]
    return float(second.mean()) if len(second) else math.nan


def window_cells(window_bytes: int, mss: int) -> int:
    """A full window in cells: whole segments x cells per segment (MSS + 48 B of TCP/IP/LLC
    headers + the 8 B AAL5 trailer, in 48-byte payloads)."""
    return window_bytes // mss * math.ceil((mss + 48 + 8) / 48)


def compare(results: Mapping[str, Result], reference: dict[str, Any], specs: Sequence[RunSpec]) -> list[Row]:
    params = reference["parameters"]
    rtt_cells = params["rtt_ms"] * params["cells_per_ms"]
    seed = reference.get("seed_file", "")
    rows: list[Row] = []
    for ref in reference.get("reference", []):
        for s in specs:
            if not _match(ref, s):
                continue
            r = results[s.name]
            q = float(r.summary["ports"][PORT]["max_queue_cells"])
            src = f'{seed}, "{ref["table"]}": "{ref["quote"]}"'
            run = f"{s.name} ({s.params['duration_s']:g} s)"
            if "published" in ref:
                rows.append(Row("max switch queue (cells)", run, ref["published"], q, src, digits=4))
            elif "rtt_multiple" in ref:
                pub = ref["rtt_multiple"] * rtt_cells
                rows.append(Row(f"max switch queue (cells), {ref['rtt_multiple']} x RTT of cells", run, pub, q, src, digits=4))
            if "qualitative" in ref or "rtt_multiple" in ref:
                m2 = second_half_mean(r)
                verdict = "not drained" if m2 > KEPT * q else "drained"
                want = ref.get("qualitative", "bounded")
                rows.append(Row("queue: max, mean over the 2nd half (cells)", run, want, f"{verdict}: {q:.0f}, {m2:.0f}", src))
            if ref["scheme"] == "ubr":
                from ..scenario import load_scenario
                from . import scenarios_dir

                doc, _ = load_scenario(scenarios_dir() / s.scenario)
                tcps = [c for c in doc["connections"] if c["source"]["kind"] == "tcp"]
                total = sum(window_cells(c["source"]["tcp"]["window_bytes"], c["source"]["tcp"]["mss_bytes"]) for c in tcps)
                windows = sorted({c["source"]["tcp"]["window_bytes"] for c in tcps})
                label = (
                    f"max switch queue vs the sum of the windows, {len(tcps)} x {windows[0]:,} B (cells)"
                    if len(windows) == 1
                    else "max switch queue vs the sum of the windows (cells)"
                )
                # the published column is the slide's rule (queue = sum of windows) applied to this
                # scenario's windows, not a number the slide prints
                rows.append(Row(label, run, float(total), q,
                                f'{seed}, "UBR Service": "Buffer requirement = \u03a3Window_i" applied to the scenario\'s windows', digits=4))
    return rows


def plots(results: Mapping[str, Result], specs: Sequence[RunSpec], directory: Path) -> list[Path]:
    """The bottleneck queue against time, one figure per table."""
    directory.mkdir(parents=True, exist_ok=True)
    groups = {
        "sources": [s for s in specs if s.params["scheme"] == "erica+" and not s.params["vbr"] and (s.params["feedback_ms"] or 0) < 500],
        "long-feedback": [s for s in specs if (s.params["feedback_ms"] or 0) >= 500],
        "vbr": [s for s in specs if s.params["vbr"]],
        "ubr": [s for s in specs if s.params["scheme"] == "ubr"],
    }
    out = []
    for name, group in groups.items():
        if not group:
            continue
        fig = figure(9.0, 4.5)
        ax = fig.add_subplot()
        for s in group:
            t, q = series_of(results[s.name].series("ports"), "port", PORT, "queue_cells")
            ax.plot(t, q, linewidth=0.8, label=s.name)
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel(f"queue {PORT} (cells)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        ax.set_title(f"seed 002: {name}")
        path = directory / f"{name}.png"
        fig.savefig(path)
        out.append(path)
    return out


METHOD = f"""
- **Max switch queue**: `max_queue_cells` of Sw1->Sw2 over the whole run (exact). The slides give
  no run length; every ABR run is {DURATION_S:g} s ({QUICK_S:g} s with `--quick`), the UBR run 30 s
  (20 s), long enough for the windows to fill at a 550 ms round trip.
- **x RTT**: the slides write queues as multiples of the round trip in cells; the reference is
  X x 550 ms x 367 cells/ms (seed 000's cells per ms at 155.52 Mb/s).
- **Unbounded**: a finite run cannot show it. With 15 windows of 24,576 cells the TCP sources can
  put at most about 369,000 cells into the network, so no queue grows past that. We report the
  maximum queue and its mean over the second half of the run (sampled every 10 ms): "not drained"
  when that mean is above {KEPT:g} x the maximum (the scheme never brings the queue back down, so
  it is limited only by what TCP's windows hold), "drained" otherwise.
- **ERICA rows**: ERICA without queue control, target utilization 1.0 and the same averaging
  interval (the slides do not give ERICA's target; with a target below 1 its headroom drains any
  queue). ERICA+ as in the scenario files (min(100 cells, 1 ms), T0 500 us, a 1.15, b 1.05,
  QDLF 0.5).
- **VBR**: 1 ms ON at 80% of the 149.76 Mb/s link, 1 ms OFF, from t = 2 ms, with priority over ABR.
- **UBR**: 5 TCP connections, window 8,704,000 B (the satellite window of seed 000): the slide's
  garbled row is read as the maximum queue for that window; the second row compares the queue with
  the sum of the windows in cells (window / MSS x 12 cells), the slide's "buffer requirement".

**Where ours differ from the published values** (`atmsim reproduce seed002`): the qualitative
results hold (ERICA's queue is never drained with 550 ms feedback or with the 1 ms ON-OFF VBR,
ERICA+'s is; UBR needs about the sum of the windows less one bandwidth-delay product). The ERICA+
maxima with short feedback delays are 0.5-0.75 x the published ones (581 / 1555 cells against
1229 / 2059 at 0.01 ms, 8573 / 8980 against 18,356 / 17,309 at 10 ms), and 0.6 x with 550 ms
(191,562 against 1.6 x RTT = 322,960). The maximum comes from the start-up transient, and the
slides give neither the sources' start times nor ERICA+'s exact variant; we have not found a
reading of them that closes the gap and did not tune one. The VBR rows are 1.1-1.45 x the
published (2917 / 6356 against 2006 / 5824).
"""

EXPERIMENT = Experiment(
    name="seed002",
    title="seed002: TCP/IP over ABR and UBR over satellite networks: switch queues (seed 002, OSU slides)",
    seed_file="002_f3fdcbb887599c6c.txt",
    runs=runs,
    compare=compare,
    plots=plots,
    method=METHOD,
)
