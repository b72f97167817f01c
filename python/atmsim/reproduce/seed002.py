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
from .analysis import entity_series, figure
from .experiment import Experiment, Row, RunSpec, scenarios_dir

PORT = "Sw1->Sw2"
#: the seed's high-frequency VBR: "1 ms on (80%), 1 ms off, start at $t = 2\text{ms}$"; 80% read as seed
#: 000's "The maximum amplitude of the VBR source is 124.41 Mbps (80% of link rate)"
VBR_ON = {"kind": "onoff", "peak_mbps": 124.41, "duty_cycle": 0.5, "period_s": 0.002, "start_s": 0.002}
#: ERICA's rows: the slides give no ERICA parameters. Target utilization 1.0 and ERICA+'s averaging
#: interval make ERICA differ from ERICA+ only by the queue control (ERICA+ "tries to achieve 100%
#: utilization with queueing delay equal to a target value", seed 000 section 6), which is what
#: the slides compare ("Need averaging schemes or ERICA+ queue control"). Not because a lower
#: target would drain the queue: at ERICA's usual 0.9 the rows stay 'not drained' too (see METHOD).
ERICA = {"scheme": "erica", "target_utilization": 1.0, "interval_cells": 100, "interval_s": 0.001}
DURATION_S = 20.0
QUICK_S = 14.0
#: the ERICA target utilization of the check runs, and their name suffix
CHECK_TARGET = 0.9
CHECK_SUFFIX = "-target0.9"
#: a queue is 'not drained' when its mean over the second half of the run is above this share
#: of its maximum
KEPT = 0.5
#: the slides' word for a queue -> our verdict that bears it out: the claim row holds when our
#: verdict is this one ("Unbounded": not drained; 'bounded', the ERICA+ rows given as x RTT: drained)
HOLDS_WHEN = {"unbounded": "not drained", "bounded": "drained"}


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
    # checks, not the seed's rows: ERICA's rows again at ERICA's usual target utilization 0.9
    checks = [(f"{name}{CHECK_SUFFIX}", n, fd, scheme, vbr) for name, n, fd, scheme, vbr in cases if scheme == "erica"]
    out = []
    for name, n, fd, scheme, vbr in cases + checks:
        ov: dict[str, Any] = {}
        check = name.endswith(CHECK_SUFFIX)
        if scheme == "erica":
            for sw in ("Sw1", "Sw2"):
                ov[f"nodes.{sw}.abr"] = dict(ERICA, target_utilization=CHECK_TARGET) if check else dict(ERICA)
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
                params={"n": n, "feedback_ms": fd, "scheme": scheme, "vbr": vbr, "duration_s": duration, "check": check},
            )
        )
    return out


def _match(ref: Mapping[str, Any], spec: RunSpec, check: bool = False) -> bool:
    """Whether run ``spec`` is the seed's row ``ref`` (``check=True``: a check run of that row)."""
    p = spec.params
    if bool(p.get("check")) != check:
        return False
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
    t, q = entity_series(result, "ports", "port", PORT, "queue_cells")
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
            if _match(ref, s, check=True):
                # the check: only the drained / not drained verdict, beside the seed's claim
                r = results[s.name]
                q = float(r.summary["ports"][PORT]["max_queue_cells"])
                m2 = second_half_mean(r)
                verdict = "not drained" if m2 > KEPT * q else "drained"
                run = f"{s.name} ({s.params['duration_s']:g} s; check: ERICA target {CHECK_TARGET:g}, not the row's reading)"
                src = f'{seed}, "{ref["table"]}": "{ref["quote"]}"'
                want = ref.get("qualitative", "bounded")
                rows.append(Row("queue: max, mean over the 2nd half (cells)", run, want, f"{verdict}: {q:.0f}, {m2:.0f}", src,
                                held=verdict == HOLDS_WHEN[want.lower()]))
                continue
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
                rows.append(Row("queue: max, mean over the 2nd half (cells)", run, want, f"{verdict}: {q:.0f}, {m2:.0f}", src,
                                held=verdict == HOLDS_WHEN[want.lower()]))
            if ref["scheme"] == "ubr":
                from ..scenario import load_scenario

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
            t, q = entity_series(results[s.name], "ports", "port", PORT, "queue_cells")
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
- **Windows**: every satellite row, ABR and UBR, uses seed 000's satellite window, 8,704,000 B
  (17,000 segments of 512 B = 204,000 cells per connection): seed 000 section 6, "For satellite
  simulations, we used a window size of 256*34000 = 8.704 *10^6 bytes"; the UBR row's 817,819
  cells is about 5 x 204,000 less one 550 ms round trip (201,850 cells). The slide's "Max window
  = $16 \\times 64 \\text{{ kB}} = 24576 \\text{{ cells}}$" comes with "One-way delay = 15
  ms", the WAN layout; five such windows (122,880 cells) could not fill the 550 ms loop.
- **ICR**: the sources start at ICR = 10 Mb/s (`icr_tbe_limit = false`): the slide lists "ICR = 10
  Mbps" under "Source: Parameters selected to maximize ACR"; TM 4.0's set-up rule ICR <- min(ICR,
  TBE/FRTT) with TBE = 512 would start them at 0.395 Mb/s with a 550 ms loop.
- **Unbounded**: a finite run cannot show it. We report the maximum queue and its mean over the
  second half of the run (sampled every 10 ms): 'not drained' when that mean is above {KEPT:g} x
  the maximum (the scheme never brings the queue back down), 'drained' otherwise. With 15 windows
  of 204,000 cells the sources can put up to 3.06 million cells into the network. The row is a
  claim (`held`): held when our verdict is the slide's, 'not drained' for "Unbounded" and
  'drained' for the ERICA+ row the slide bounds at 1.6 x RTT.
- **ERICA rows**: the slides give no ERICA parameters. We run ERICA without queue control at
  target utilization 1.0 with ERICA+'s averaging interval, so that ERICA differs from ERICA+ only
  by the queue control ("Need averaging schemes or ERICA+ queue control"; ERICA+ "tries to achieve
  100% utilization with queueing delay equal to a target value", seed 000 section 6). The rows
  marked 'check' run ERICA at its usual target of {CHECK_TARGET:g}: they stay 'not drained' too, so
  the verdict does not hinge on the target. ERICA+ as in the scenario files (min(100 cells, 1
  ms), T0 500 us, a 1.15, b 1.05, QDLF 0.5).
- **VBR**: 1 ms ON, 1 ms OFF, from t = 2 ms, with priority over ABR; ON at 124.41 Mb/s, the slide's
  "1 ms on (80%)" read as seed 000's "The maximum amplitude of the VBR source is 124.41 Mbps (80%
  of link rate)".
- **UBR**: 5 TCP connections, window 8,704,000 B: the slide's garbled row is read as the maximum
  queue for that window; the second row compares the queue with the sum of the windows in cells
  (window / MSS x 12 cells), the slide's "Buffer requirement = ΣWindow_i".

**Where ours differ from the published values** (`atmsim reproduce seed002`): the qualitative
results hold (ERICA's queue is never drained with 550 ms feedback or with the 1 ms ON-OFF VBR,
ERICA+'s is; UBR needs about the sum of the windows less one bandwidth-delay product). The ERICA+
maxima (full run, n = 5 / 15) are below the published ones with short feedback delays (611 / 1,522
cells against 1,229 / 2,059 at 0.01 ms, 6,059 / 10,605 against 18,356 / 17,309 at 10 ms), far below
with 550 ms (71,222 against 1.6 x RTT = 322,960; with TM 4.0's ICR rule, sources starting at 0.395
Mb/s, it is 234,192), and above with the VBR background (3,531 / 8,270 against 2,006 / 5,824). The
slides give neither the sources' start times nor ERICA+'s exact variant ("and other values"); we
have not found a reading of them that closes the gap and did not tune one: cause unknown.
"""

EXPERIMENT = Experiment(
    name="seed002",
    title="paper002: TCP/IP over ABR and UBR over satellite networks: switch queues (paper 002, OSU slides)",
    seed_file="002_f3fdcbb887599c6c.txt",
    runs=runs,
    compare=compare,
    plots=plots,
    method=METHOD,
)
