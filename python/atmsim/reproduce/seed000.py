"""Experiment ``seed000``: TCP over ABR with long-range-dependent VBR video background
(EXPERIMENTS.md S000).

Seed 000 (Kalyanaraman, Vandalore, Jain, Goyal, Fahmy, Kim, Kota, ATM Forum/97-0177R2) runs the
"N Source + VBR" configuration (15 TCP connections over ABR, ERICA+, 9 multiplexed MPEG-2 video
sources on a VBR connection with priority) on three link layouts: WAN (Tables 1a/1b), a satellite
bottleneck with WAN feedback (Tables 2a/2b) and satellite links in the feedback path (Tables
3a/3b), for MSS 512 and 9140 and three (mean, standard deviation) settings of the video sources;
section 7.2 compares with an ON-OFF VBR background. References: ``reference/seed000.toml``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..result import Result
from .analysis import entity_series, figure
from .experiment import Experiment, Row, RunSpec

CONFIGS = {"wan": 10.0, "sat-wan": 170.0, "sat-sat": 170.0}
MSS = (512, 9140)
VIDEO = ((5.0, 5.0), (7.5, 7.0), (10.0, 5.0))
N_TCP = 15
#: replications (seeds) of every row: the video model is random
SEEDS_FULL = {"wan": (1, 2, 3), "sat-wan": (1, 2, 3), "sat-sat": (1, 2, 3)}
#: --quick: every WAN row with one seed, the satellite configurations for the middle video row
#: only and shortened to QUICK_SAT_S simulated seconds
QUICK_SAT_S = 20.0
PORT = "Sw1->Sw2"
ONOFF = "onoff"
#: sample interval of the ON-OFF run (its VBR period is 20 ms)
ONOFF_SAMPLE_S = 0.001
#: the ON-OFF check run: an averaging-interval cell bound no interval reaches in a 5 ms interval
#: at 149.76 Mb/s (at most about 1,770 cells), so every interval ends on time
TIMED_ONLY_CELLS = 1_000_000
TIMED_SUFFIX = "-timed-5ms-interval"
#: section 7.2's claim on the ON-OFF study, "the efficiency remains high (around 90%)": held when
#: ours is within this many points of 90 either way ('around' read as +-5 points; a one-sided
#: '>= 85' rule was considered in issue 26 after the values 98.5 and 95.2 were known, and not
#: kept: a rule chosen with the answer at hand would be tuned to it)
ONOFF_EFFICIENCY_BAND = 5.0
#: the video model's bounds and multiplex (seed 000 section 4)
VIDEO_BOUNDS_MBPS = (0.0, 15.0)
VIDEO_SOURCES = 9


def video_model_mean(mean: float, std: float, lo: float = VIDEO_BOUNDS_MBPS[0], hi: float = VIDEO_BOUNDS_MBPS[1],
                     sources: int = VIDEO_SOURCES) -> float:
    """Long-run VBR cell rate of the seed's video model, Mb/s: ``sources`` x the mean of a normal
    (mean, std) truncated to [lo, hi] (the model skips rates outside the bounds, so the rates it
    keeps are the normal conditioned on the interval; the inter-MPCR interval lengths are drawn
    independently of the rates, so the time average is that mean)."""
    a, b = (lo - mean) / std, (hi - mean) / std
    pdf = lambda x: math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)  # noqa: E731
    cdf = lambda x: 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))  # noqa: E731
    return sources * (mean + std * (pdf(a) - pdf(b)) / (cdf(b) - cdf(a)))


def _overrides(mss: int, mean: float, std: float, seed: int) -> dict[str, Any]:
    ov: dict[str, Any] = {f"connections.tcp{i}.source.tcp.mss_bytes": mss for i in range(1, N_TCP + 1)}
    ov["connections.vbr.source.mean_mbps"] = mean
    ov["connections.vbr.source.std_mbps"] = std
    ov["run.seed"] = seed
    return ov


def runs(quick: bool) -> list[RunSpec]:
    out = []
    for config, duration in CONFIGS.items():
        for mss in MSS:
            for mean, std in VIDEO:
                if quick and config != "wan" and (mean, std) != (7.5, 7.0):
                    continue
                seeds = (1,) if quick else SEEDS_FULL[config]
                for seed in seeds:
                    ov = _overrides(mss, mean, std, seed)
                    dur = duration
                    if quick and config != "wan":
                        dur = QUICK_SAT_S
                        ov["run.duration_s"] = dur
                    out.append(
                        RunSpec(
                            name=f"{config}-mss{mss}-m{mean:g}-s{std:g}-seed{seed}",
                            scenario=f"seed000/{config}.toml",
                            overrides=ov,
                            params={"config": config, "mss": mss, "mean": mean, "std": std, "seed": seed, "duration_s": dur},
                        )
                    )
    # section 7.2: ON-OFF VBR (d = 0.7, p = 20 ms, 124.41 Mb/s) on the WAN, MSS 512
    ov = {f"connections.tcp{i}.source.tcp.mss_bytes": 512 for i in range(1, N_TCP + 1)}
    ov["connections.vbr.source"] = {"kind": "onoff", "peak_mbps": 124.41, "duty_cycle": 0.7, "period_s": 0.02}
    # sampled every 1 ms: the 5 ms of wan.toml would alias the 14 ms ON / 6 ms OFF VBR in the plot
    ov["run.sample_interval_s"] = ONOFF_SAMPLE_S
    out.append(
        RunSpec(
            name="wan-onoff-d0.7-p20ms",
            scenario="seed000/wan.toml",
            overrides=ov,
            params={"config": ONOFF, "mss": 512, "duration_s": CONFIGS["wan"]},
        )
    )
    # the same run with ERICA+'s averaging interval ended by time alone (5 ms, no 500-cell
    # bound): not the seed's setting for this study, a check of where the ON-OFF gap comes from
    # (the seed's 5637 cells came "with modifications to ERICA+ and a larger averaging interval")
    ov_timed = dict(ov)
    for sw in ("Sw1", "Sw2"):
        ov_timed[f"nodes.{sw}.abr.interval_cells"] = TIMED_ONLY_CELLS
    out.append(
        RunSpec(
            name=f"wan-onoff-d0.7-p20ms{TIMED_SUFFIX}",
            scenario="seed000/wan.toml",
            overrides=ov_timed,
            params={"config": ONOFF, "mss": 512, "duration_s": CONFIGS["wan"], "timed_interval": True},
        )
    )
    return out


# ------------------------------------------------------------------------------------ measures


def measures(summary: Mapping[str, Any], link_mbps: float) -> dict[str, float]:
    """The seed's columns from one run's summary.

    - max queue: ``max_queue_cells`` of Sw1->Sw2 (exact, whole run);
    - total TCP throughput: the sum of the connections' ``tcp.goodput_mbps`` (payload delivered
      in order to the receivers, whole run);
    - VBR throughput: the video connection's delivered cells as a cell rate (53-byte cells, the
      unit of the 149.76 Mb/s link rate the seed subtracts it from);
    - ABR throughput (capacity): link rate - VBR throughput;
    - efficiency: TCP throughput / (max payload fraction x ABR capacity), the fraction from the
      encapsulation model (``tcp.max_payload_fraction``: MSS / (cells per segment x 53) x 31/32).
    """
    conns = summary["connections"]
    tcp = [c["tcp"] for c in conns.values() if c.get("tcp")]
    total = sum(t["goodput_mbps"] for t in tcp)
    vbr = conns["vbr"]["throughput_mbps"] * 53.0 / 48.0
    abr = link_mbps - vbr
    frac = tcp[0]["max_payload_fraction"] if tcp else math.nan
    eff = 100.0 * total / (frac * abr) if abr > 0 else math.nan
    return {
        "max_queue_cells": float(summary["ports"][PORT]["max_queue_cells"]),
        "tcp_throughput_mbps": total,
        "vbr_throughput_mbps": vbr,
        "abr_throughput_mbps": abr,
        "efficiency_percent": eff,
        "max_payload_fraction": frac,
    }


COLUMNS = (
    ("max_queue_cells", "max queue Sw1->Sw2 (cells)", 4),
    ("tcp_throughput_mbps", "total TCP throughput (Mb/s)", 4),
    ("vbr_throughput_mbps", "VBR throughput (Mb/s)", 4),
    ("abr_throughput_mbps", "ABR capacity (Mb/s)", 4),
    ("efficiency_percent", "efficiency (%)", 3),
)


def _group(specs: Sequence[RunSpec]) -> dict[tuple, list[RunSpec]]:
    groups: dict[tuple, list[RunSpec]] = {}
    for s in specs:
        p = s.params
        key = (p["config"], p["mss"], p.get("mean"), p.get("std"), p.get("timed_interval", False))
        groups.setdefault(key, []).append(s)
    return groups


def compare(results: Mapping[str, Result], reference: dict[str, Any], specs: Sequence[RunSpec]) -> list[Row]:
    link = float(reference["parameters"]["link_rate_mbps"])
    seed = reference.get("seed_file", "")
    rows: list[Row] = []
    refs = {(r["config"], r["mss"], float(r["mean"]), float(r["std"])): r for r in reference.get("row", [])}
    for key, group in _group(specs).items():
        config, mss = key[0], key[1]
        ms = [measures(results[s.name].summary, link) for s in group]
        label = group[0].name.rsplit("-seed", 1)[0]
        dur = group[0].params.get("duration_s")
        if config != ONOFF and dur != CONFIGS[config]:
            label += f" ({dur:g} s, not {CONFIGS[config]:g})"
        if config == ONOFF:
            on = reference["onoff"]
            src = f"{seed}, {on['where']}"
            if key[4]:
                label += " (check: not the seed's interval)"
            rows.append(_row("max queue Sw1->Sw2 (cells)", label, on["max_queue_cells"], ms, "max_queue_cells", 4, f'{src}: "{on["queue_quote"]}"'))
            eff = _row(f"efficiency (%), claim: remains high, around 90 (held within {ONOFF_EFFICIENCY_BAND:g} points)", label, on["efficiency_qualitative"],
                       ms, "efficiency_percent", 3, f'{src}: "{on["efficiency_quote"]}"')
            eff.held = math.isfinite(eff.ours) and abs(eff.ours - 90.0) <= ONOFF_EFFICIENCY_BAND  # type: ignore[arg-type]
            rows.append(eff)
            continue
        ref = refs.get((config, mss, float(key[2]), float(key[3])))
        for col, name, digits in COLUMNS:
            published = ref[col] if ref else None
            src = f"{seed}, {ref['where']}" if ref else seed
            rows.append(_row(name, label, published, ms, col, digits, src))
        if (config, key[2]) == ("wan", 7.5):
            frac = ms[0]["max_payload_fraction"]
            quote = reference["parameters"]["encapsulation_quote" if mss == 512 else "encapsulation_9140_quote"]
            rows.append(Row("max TCP payload share of ABR capacity", f"mss{mss}", 0.78 if mss == 512 else 0.87, frac, f'{seed}, section 6: "{quote}"'))
    return rows


def _row(quantity: str, run: str, published: Any, ms: Sequence[Mapping[str, float]], col: str, digits: int, source: str) -> Row:
    values = [m[col] for m in ms]
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) if len(values) > 1 else None
    return Row(quantity, run, published, mean, source, digits=digits, spread=spread, replications=len(values))


# ------------------------------------------------------------------------------------ plots


def plots(results: Mapping[str, Result], specs: Sequence[RunSpec], directory: Path) -> list[Path]:
    """Per configuration and MSS: the bottleneck queue and the VBR rate against time for each
    video setting (first seed), and the ON-OFF comparison run."""
    directory.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    by: dict[tuple, list[RunSpec]] = {}
    for s in specs:
        if s.params.get("seed", 1) != 1:
            continue
        by.setdefault((s.params["config"], s.params["mss"]), []).append(s)
    for (config, mss), group in by.items():
        fig = figure(9.0, 6.5)
        ax_q, ax_v = fig.subplots(2, 1, sharex=True)
        for s in group:
            r = results[s.name]
            label = f"m={s.params.get('mean', '-')}, s={s.params.get('std', '-')}" if config != ONOFF else "ON-OFF d=0.7 p=20 ms"
            if s.params.get("timed_interval"):
                label += ", interval 5 ms timed only"
            t, q = entity_series(r, "ports", "port", PORT, "queue_cells")
            ax_q.plot(t, q, linewidth=0.8, label=label)
            t, v = entity_series(r, "connections", "connection", "vbr", "throughput_mbps")
            ax_v.plot(t, v * 53.0 / 48.0, linewidth=0.6, label=label)
        ax_q.set_ylabel(f"queue {PORT} (cells)")
        ax_q.legend(fontsize="small")
        ax_v.set_ylabel("VBR cell rate (Mb/s)")
        ax_v.set_xlabel("simulated time (s)")
        for ax in (ax_q, ax_v):
            ax.grid(True, alpha=0.3)
        ax_q.set_title(f"seed 000, {config}, MSS {mss}: bottleneck queue and VBR load")
        path = directory / f"{config}-mss{mss}.png"
        fig.savefig(path)
        out.append(path)
    return out


_MODEL = ", ".join(f"{video_model_mean(m, sd):.1f}" for m, sd in VIDEO)

METHOD = f"""
- **Max queue**: `max_queue_cells` of port Sw1->Sw2 over the whole run (exact).
- **Total TCP throughput**: the sum over the 15 connections of `tcp.goodput_mbps`, the payload
  delivered in order to the receiving application over the whole run (no warm-up: the seed's runs
  start from idle too).
- **VBR throughput**: cells of the video connection delivered, as a rate of 53-byte cells (the unit
  of the 149.76 Mb/s the seed subtracts it from); **ABR capacity** = 149.76 - VBR throughput.
- **Efficiency**: TCP throughput / (f x ABR capacity), with f = MSS / (AAL5 cells per segment x 53)
  x 31/32 computed by the encapsulation model (`tcp.max_payload_fraction`: 0.780 for MSS 512, 0.870
  for 9140; the seed's 78% and 87%, shown in the `max TCP payload share` rows).
- The video model is random: every row is the mean of three seeds (1, 2, 3) with their standard
  deviation. `--quick` runs every WAN row with one seed and the
  satellite configurations only for the middle video row, shortened to {QUICK_SAT_S:g} s (the run
  label says so): its satellite numbers are not comparable with the 170 s tables.
- **ICR**: the sources start at ICR = 10 Mb/s (`icr_tbe_limit = false`). Seed 002 lists "ICR = 10
  Mbps" and TBE = 512 under "Source: Parameters selected to maximize ACR"; TM 4.0's set-up rule
  ICR <- min(ICR, TBE/FRTT) would start them at 7.24 Mb/s on the WAN and 0.395 Mb/s with a 550 ms
  loop, which is not the stated ICR. TBE still sets CRM = TBE/Nrm = 16 (source rule 6).
- Scenario choices the seed leaves open are in the scenario files' descriptions: PCR 149.76 (the
  seed's 155.52 is the line rate), satellite hop lengths giving RTT 550 ms, all sources start at 0,
  unbounded buffers, the 9 video sources' (m, s) set per row. In `sat-sat.toml` only the TCP
  sources' links are satellite hops; the VBR source's link is 1 km (section 7.4: "replacing the
  links in the feedback path to sources with satellite link. All other links are of length 1 km
  each.").
- **ON-OFF run** (section 7.2): VBR 14 ms ON at 124.41 Mb/s ("80% of link rate", the seed's
  number), 6 ms OFF, sampled every {ONOFF_SAMPLE_S * 1e3:g} ms (the 5 ms of `wan.toml` would alias
  the 20 ms period in the plot). A second ON-OFF run, labelled 'check', ends ERICA+'s averaging
  interval on time alone (5 ms, no 500-cell bound); it is not the seed's setting, it shows where
  the gap of the first comes from. The seed's "the efficiency remains high (around 90%)" is
  the one claim row (`held`): held when ours is within {ONOFF_EFFICIENCY_BAND:g} points of 90%
  ('around' read both ways). Ours is higher: the efficiency 'remains high', but not 'around 90'.

**Where ours differ from the published values, and why** (full run, `atmsim reproduce seed000`):

- **VBR throughput.** The video model's long-run rate, computed (9 sources x the mean of a normal
  (m, s) truncated to [0, 15] Mb/s, `seed000.video_model_mean`), is {_MODEL} Mb/s for the three
  video rows. The seed prints 56.44 / 68.51 / 82.28 Mb/s in Tables 1a-1b (WAN) and 47.33 / 57.23 /
  67.55 Mb/s in every satellite table (2a-3b) for the same video parameters; its section 7.1
  explains the WAN values by the [0, 15] Mb/s bounds. The model does not depend on the links, so
  the seed's two columns cannot both be its long-run rate; ours are samples of the model's
  (10 s WAN runs vary more than 170 s satellite runs: long-range dependence). Since ABR capacity =
  149.76 - VBR, ABR capacity and TCP throughput follow the VBR difference, and efficiency (TCP
  throughput over what the ABR capacity allows) is the comparable column.
- **Efficiency in the WAN tables** is 1-8 points higher than published (largest for mean 10, MSS
  512: 88.4% published). Our TCP has no losses and ERICA+ keeps the bottleneck busy; the seed
  does not say what lowered that row (cause unknown).
- **ON-OFF comparison (section 7.2).** The seed says "Since we use the same switch algorithm
  parameters in this study, we can perform a comparison of the two studies", so the row runs this
  study's ERICA+ (averaging interval 500 ABR input cells or 5 ms): 16,816 cells against 5,637, a
  real 3x gap. What we checked (10 s WAN runs, MSS 512, seed 1): the maximum comes from the
  start-up (at 0.36 s), and after 1 s the queue still peaks at 9,574 cells and averages 5,246;
  with the averaging interval ended by time alone the maximum is 5,528 cells at 5 ms, 5,964 at
  10 ms and 6,549 at 20 ms (the 'check' row), and after 1 s the queue averages under 1,000 cells.
  So in our model the gap is the averaging interval: a 500-cell bound ends an interval in about
  2-3 ms of ABR input, shorter than the 6 ms OFF and 14 ms ON phases. The seed's 5,637 came "with
  modifications to ERICA+ and a larger averaging interval" in the earlier study; which interval,
  the seed does not say. The other readings checked change the maximum the other way: the VBR
  peak as 80% of our 149.76 Mb/s link (119.81 Mb/s) gives 18,457 cells, the VBR starting 6 ms
  later 19,145; the ICR set-up rule has no effect on this run (16,816 either way). Efficiency
  stays high, above the seed's "around 90%" (the claim row's rule).
- **Max queues** are random (the spread over seeds is shown) and of the published size: a few
  thousand cells on the WAN and SAT+WAN layouts, 1-2.5 x 10^5 with satellite feedback.
"""

EXPERIMENT = Experiment(
    name="seed000",
    title="paper000: TCP over ABR with long-range-dependent VBR video background, terrestrial and satellite (paper 000, ATM Forum/97-0177R2)",
    seed_file="000_9e5f1b39d9e0c9b2.txt",
    runs=runs,
    compare=compare,
    plots=plots,
    method=METHOD,
)
