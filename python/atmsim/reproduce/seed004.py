"""Experiment ``seed004``: VBR video over two switch architectures (EXPERIMENTS.md S004).

Seed 004 (Tsang, Hsieh, Du) sends MPEG-1 (and JPEG, MPEG-2) streams as UDP datagrams through a
Fore ASX-200 (output buffers) and a Cisco Hyperswitch (input and output buffers with credits) and
reports the frame loss across the streams of a run: Figure 7 (4 or 2 senders to 1 receiver),
Figure 8 (4 senders to 4 receivers), the same MPEG-1 streams over TCP (Experiment 4, Figure 9:
the share of frames whose received interval is 2-4, 4-6 or over 6 frame intervals), and
qualitative claims (Experiment 1: MPEG-1 < JPEG < MPEG-2; TCP against UDP).
References: ``reference/seed004.toml``. The runs are the files of ``scenarios/seed004/`` with
their connections replaced to set the stream count (streams spread evenly over the senders).
"""

from __future__ import annotations

import statistics as st
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..result import Result
from .analysis import figure
from .experiment import Experiment, Row, RunSpec, load_reference, scenarios_dir

DURATION_S = 220.0  # the seed's 3 min 40 s
QUICK_S = 20.0
FIG7 = {"4to1": {16, 20, 24, 28, 32}, "2to1": {16, 20, 24, 28}}
FIG8 = {80, 96, 112, 128}
FIG9 = {20, 24, 28, 32}
#: Figure 9's check runs (delayed ACKs off): the smallest and largest counts
CHECK_STREAMS = (20, 32)
CODEC_STREAMS = (16, 20, 24)
#: the seed's limits: "a loss of more than 10% ... unacceptable", "more than 10% of the frames are
#: delayed (beyond 3 fixed frame intervals)"
LIMIT_PCT = 10.0
RATES = {"jpeg": 15, "mpeg1": 24, "mpeg2": 24}
#: replications: the run's seed draws each stream's offset into the trace and phase
SEEDS_FULL = (1, 2, 3)


def _connections(senders: int, receivers: int, n: int, rate: int,
                 source: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """``n`` streams spread evenly over the senders, sender ``i`` to receiver ``i mod receivers``;
    ``source`` (default: UDP video of the trace at ``rate``) is each connection's source."""
    per = n // senders
    src = source or {"kind": "video", "video": {"trace": "starwars", "frame_rate": rate}}
    return [
        {"name": f"s{i}v{j}", "route": [f"s{i}", "S", f"r{i % receivers}"], "category": "ubr", "source": src}
        for i in range(senders) for j in range(per)
    ]


def _first_source(scenario: str) -> dict[str, Any]:
    """The source table of the scenario file's first connection (Experiment 4: the TCP video
    stream with its TCP parameters, stated once, in the file)."""
    with (scenarios_dir() / scenario).open("rb") as f:
        return dict(tomllib.load(f)["connections"][0]["source"])


def runs(quick: bool) -> list[RunSpec]:
    out: list[RunSpec] = []
    for seed in (1,) if quick else SEEDS_FULL:
        for spec in _runs(quick):
            if "check" in spec.params and seed != 1:
                continue  # the check runs: one replication
            p = {**spec.params, "seed": seed}
            out.append(RunSpec(name=f"{spec.name}-s{seed}", scenario=spec.scenario,
                               overrides={**spec.overrides, "run.seed": seed}, params=p))
    return out


def _runs(quick: bool) -> list[RunSpec]:
    d = QUICK_S if quick else DURATION_S
    out: list[RunSpec] = []
    for cfg, counts in FIG7.items():
        senders = int(cfg[0])
        for sw in ("fore", "cisco"):
            for n in sorted(counts if not quick else {24}):
                out.append(RunSpec(
                    name=f"fig7-{cfg}-{sw}-n{n}", scenario=f"seed004/exp2-{sw}-{cfg}-n24.toml",
                    overrides={"connections": _connections(senders, 1, n, 24), "run.duration_s": d},
                    params={"figure": "Figure 7", "config": cfg, "switch": sw, "streams": n, "duration_s": d}))
    for sw in ("fore", "cisco"):
        for n in sorted(FIG8 if not quick else {96}):
            out.append(RunSpec(
                name=f"fig8-4to4-{sw}-n{n}", scenario=f"seed004/exp3-{sw}-4to4-n96.toml",
                overrides={"connections": _connections(4, 4, n, 24), "run.duration_s": d},
                params={"figure": "Figure 8", "config": "4to4", "switch": sw, "streams": n, "duration_s": d}))
    for sw in ("fore", "cisco"):
        scenario = f"seed004/exp4-{sw}-4to1-n20.toml"
        source = _first_source(scenario)
        for n in sorted(FIG9 if not quick else {24}):
            out.append(RunSpec(
                name=f"fig9-4to1-{sw}-n{n}", scenario=scenario,
                overrides={"connections": _connections(4, 1, n, 24, source), "run.duration_s": d},
                params={"figure": "Figure 9", "config": "4to1", "switch": sw, "streams": n, "duration_s": d,
                        "transport": "tcp"}))
        if not quick:
            # a check of our reading, not a tuning: the same runs without delayed ACKs
            plain = {**source, "tcp": {**source.get("tcp", {}), "delayed_ack": False}}
            for n in CHECK_STREAMS:
                out.append(RunSpec(
                    name=f"fig9check-4to1-{sw}-n{n}", scenario=scenario,
                    overrides={"connections": _connections(4, 1, n, 24, plain), "run.duration_s": d},
                    params={"figure": "Figure 9 check", "config": "4to1", "switch": sw, "streams": n,
                            "duration_s": d, "transport": "tcp", "check": "delayed_ack = false"}))
    for codec, rate in RATES.items():
        for n in (CODEC_STREAMS if not quick else (20,)):
            out.append(RunSpec(
                name=f"fig6-{codec}-n{n}", scenario=f"seed004/exp1-{codec}-4to1-n20.toml",
                overrides={"connections": _connections(4, 1, n, rate), "run.duration_s": d},
                params={"figure": "Figure 6", "config": "4to1", "switch": "fore", "codec": codec,
                        "streams": n, "duration_s": d}))
    return out


def loss_stats(result: Result) -> dict[str, float]:
    """Frame loss % across the streams of a run: max, min, mean, standard deviation. A stream's
    loss is (sent - received - still on its way) / sent (docs/video.md); it is None only for a
    stream that sent nothing, which has no loss to average (NaN when no stream sent anything)."""
    vids = [c["video"] for c in result.summary["connections"].values() if "video" in c]
    loss = [v["frame_loss_pct"] for v in vids if v["frame_loss_pct"] is not None]
    if not loss:
        return {k: float("nan") for k in ("max", "min", "avg", "sd")}
    return {"max": max(loss), "min": min(loss), "avg": st.mean(loss), "sd": st.pstdev(loss)}


#: Figure 9's bins: (label, first bin of our interval_hist, last bin) over [0,2) [2,4) [4,6) [6,inf)
DELAY_BINS = (("2_4", 1, 1), ("4_6", 2, 2), ("6_inf", 3, 3), ("4_inf", 2, 3), ("2_inf", 1, 3))


def delay_stats(result: Result) -> dict[str, float]:
    """Received intervals of a run's streams by Figure 9's bins: per stream the percentage of its
    received intervals in each bin, then the mean across streams (``pct_<bin>``) and, for the
    spread claim, the population standard deviation across streams (``sd_<bin>``)."""
    out: dict[str, float] = {}
    vids = [c["video"] for c in result.summary["connections"].values() if "video" in c]
    for label, a, b in DELAY_BINS:
        per = [100.0 * sum(v["interval_hist"][a:b + 1]) / v["intervals"] if v["intervals"] else 0.0 for v in vids]
        out[f"pct_{label}"] = st.mean(per)
        out[f"sd_{label}"] = st.pstdev(per)
    out["lost"] = float(sum(v["frames_lost"] for v in vids))
    return out


def _verdict(pairs: list[tuple[float, float]]) -> tuple[str, bool | None]:
    """Each pair (a, b): the claim says a < b. Held when it does in every pair (a pair where
    neither loses a frame does not show it); None (no row) without pairs."""
    if not pairs:
        return "no runs", None
    if all(a == 0 and b == 0 for a, b in pairs):
        return "not shown: no frame lost in either", False
    held = sum(a < b for a, b in pairs)
    both0 = sum(a == 0 and b == 0 for a, b in pairs)
    tail = f" ({both0} with no frame lost in either)" if both0 else ""
    return f"holds in {held} of {len(pairs)}{tail}", held == len(pairs)


def _ceiling(values: Mapping[int, float], limit: float) -> int | None:
    """The largest stream count tested up to which every count stays within ``limit`` (None if
    the smallest does not)."""
    best = None
    for n in sorted(values):
        if values[n] > limit:
            break
        best = n
    return best


def compare(results: Mapping[str, Result], reference: dict[str, Any], specs: Sequence[RunSpec]) -> list[Row]:
    seed = reference.get("seed_file", "")
    rows: list[Row] = []
    # Figures 7 and 8 (MPEG-1, both switches) keyed by (config, switch, streams, 'mpeg1'); the
    # codec runs of Figure 6 separately (Fore, 4 to 1), keyed by codec; the TCP runs of Figure 9
    # by (config, switch, streams); each key has one run per replication (seed)
    by: dict[tuple[str, str, int, str], list[RunSpec]] = {}
    codec_runs: dict[tuple[str, str, int, str], list[RunSpec]] = {}
    tcp_runs: dict[tuple[str, str, int], list[RunSpec]] = {}
    check_runs: dict[tuple[str, str, int], list[RunSpec]] = {}
    for s in specs:
        p = s.params
        if p["figure"] == "Figure 9":
            tcp_runs.setdefault((p["config"], p["switch"], p["streams"]), []).append(s)
            continue
        if p["figure"] == "Figure 9 check":
            check_runs.setdefault((p["config"], p["switch"], p["streams"]), []).append(s)
            continue
        codec = p.get("codec", "mpeg1")
        target = codec_runs if p["figure"] == "Figure 6" else by
        target.setdefault((p["config"], p["switch"], p["streams"], codec), []).append(s)
    udp_specs = [s for s in specs if not s.params["figure"].startswith("Figure 9")]
    per_run = {s.name: loss_stats(results[s.name]) for s in udp_specs}
    per_tcp = {s.name: delay_stats(results[s.name])
               for g in [*tcp_runs.values(), *check_runs.values()] for s in g}

    def mean_of(group: list[RunSpec], q: str) -> float:
        return st.mean(per_run[s.name][q] for s in group)

    def tcp_mean(group: list[RunSpec], q: str) -> float:
        return st.mean(per_tcp[s.name][q] for s in group)

    def run_label(group: list[RunSpec]) -> str:
        first = group[0]
        return f"{first.name.rsplit('-s', 1)[0]} ({first.params['duration_s']:g} s)"

    stats = {k: {q: mean_of(g, q) for q in ("max", "min", "avg", "sd")} for k, g in by.items()}
    codec_stats = {k: {q: mean_of(g, q) for q in ("max", "min", "avg", "sd")} for k, g in codec_runs.items()}
    for ref in reference.get("reference", []):
        key = (ref["config"], ref["switch"], ref["streams"], "mpeg1")
        if key not in by:
            continue
        group = by[key]
        src = f'{seed}, {ref["where"]}: "{ref["quote"]}"'
        for q, k in (("avg", "avg_pct"), ("max", "max_pct"), ("min", "min_pct"), ("sd", "sd")):
            vals = [per_run[s.name][q] for s in group]
            rows.append(Row(f"frame loss across streams, {q} (%)", run_label(group), ref[k], st.mean(vals), src,
                            digits=3, spread=st.stdev(vals) if len(vals) > 1 else None, replications=len(vals)))
    for runs_of, prefix in ((tcp_runs, "TCP"), (check_runs, "TCP check, delayed_ack = false")):
        for ref in reference.get("figure9", []):
            key = (ref["config"], ref["switch"], ref["streams"])
            if key not in runs_of:
                continue
            group = runs_of[key]
            src = f'{seed}, {ref["where"]}: "{ref["quote"]}"'
            for label, k, name in (("2_4", "pct_2_4", "[2, 4)"), ("4_6", "pct_4_6", "[4, 6)"),
                                   ("6_inf", "pct_6_inf", "[6, inf)")):
                vals = [per_tcp[s.name][f"pct_{label}"] for s in group]
                rows.append(Row(f"{prefix}: frames with received interval in {name} frame intervals, "
                                "mean over streams (%)", run_label(group), ref[k], st.mean(vals), src, digits=3,
                                spread=st.stdev(vals) if len(vals) > 1 else None, replications=len(vals)))
    for key, group in sorted(tcp_runs.items()):
        lost = sum(per_tcp[s.name]["lost"] for s in group)
        rows.append(Row("TCP: frames lost (all streams, all replications)", run_label(group), 0, lost,
                        f'{seed}, section 4.3, Experiment 4: "we did not observe any loss for any of the TCP experiments"',
                        digits=0))
    claims = {c["id"]: c for c in reference.get("claim", [])}

    def claim_row(cid: str, label: str, ours: str, held: bool | None) -> None:
        """A claim's row, judged (``held`` true or false); none when the run list has no runs
        that bear on it (``held`` None: e.g. one stream count per configuration with --quick)."""
        if held is None:
            return
        c = claims[cid]
        said = f'"{c["quote"]}"' if "quote" in c else f"our reading of the tables, not the seed's words: {c['reading']}"
        rows.append(Row(label, "all runs", "holds", ours, f'{seed}, {c["where"]}: {said}', held=held))

    pairs = [(stats[(c, "cisco", n, "mpeg1")]["avg"], stats[(c, "fore", n, "mpeg1")]["avg"])
             for (c, sw, n, codec) in by if sw == "fore" and codec == "mpeg1" and (c, "cisco", n, "mpeg1") in by]
    claim_row("credit", "claim: credit switch loses fewer frames than output-buffered (avg, equal load)",
              *_verdict(pairs))
    pairs = [(stats[("2to1", sw, n, "mpeg1")]["avg"], stats[("4to1", sw, n, "mpeg1")]["avg"])
             for (c, sw, n, codec) in by if c == "4to1" and codec == "mpeg1" and ("2to1", sw, n, "mpeg1") in by]
    claim_row("senders", "claim: 2 senders to 1 lose less than 4 to 1 (avg, same streams)", *_verdict(pairs))
    pairs = []
    for (c, sw, n, codec) in by:
        more = sorted(m for (c2, sw2, m, k2) in by if (c2, sw2, k2) == (c, sw, codec) and m > n)
        if more:
            pairs.append((stats[(c, sw, n, codec)]["avg"], stats[(c, sw, more[0], codec)]["avg"]))
    claim_row("streams", "claim: loss grows with the number of streams (avg, next count up)", *_verdict(pairs))
    pairs = []
    for n in sorted({k[2] for k in codec_runs}):
        a, b, c = (codec_stats.get(("4to1", "fore", n, k), {}).get("avg") for k in ("mpeg1", "jpeg", "mpeg2"))
        if None not in (a, b, c):
            pairs += [(a, b), (b, c)]  # type: ignore[list-item]
    claim_row("codec", "claim: MPEG-1 < JPEG < MPEG-2 in frame loss (avg, Fore, 4 to 1)", *_verdict(pairs))
    claim_row("tcp", "claim: TCP carries more streams within 10% delayed beyond 3 intervals than UDP within 10% lost",
              *_tcp_claim(stats, {k: {q: tcp_mean(g, q) for q in ("pct_4_inf",)} for k, g in tcp_runs.items()}))
    udp_cv = [m["sd"] / m["avg"] for m in [*stats.values(), *codec_stats.values()] if m["avg"] > 0]
    tcp_cv = [per_tcp[s.name]["sd_2_inf"] / per_tcp[s.name]["pct_2_inf"]
              for g in tcp_runs.values() for s in g if per_tcp[s.name]["pct_2_inf"] > 0]
    claim_row("spread", "claim: per-stream spread small for TCP (delayed frames), large for UDP (frame loss)",
              *_spread_claim(udp_cv, tcp_cv))
    return rows


def _tcp_claim(udp: Mapping[tuple[str, str, int, str], Mapping[str, float]],
               tcp: Mapping[tuple[str, str, int], Mapping[str, float]]) -> tuple[str, bool | None]:
    """Per switch, 4 senders to 1: the largest stream count within 10% of received intervals of 4
    or more frame intervals over TCP (the seed's "exceeding 3": its 28-stream Fore row has 6% in
    [4, 6) and 3% in [6, inf), "only 9% ... exceeding 3") against the largest within 10% frame
    loss over UDP (Figure 7). Held if TCP's is larger on both switches; not held when, on a
    switch, both reach the largest count tested (the runs do not show TCP carrying more; the
    comparison is cut off there). Only stream counts run over both transports are compared; None
    (no row) without them."""
    parts, verdicts = [], []
    for sw in ("fore", "cisco"):
        u = {n: m["avg"] for (c, s, n, k), m in udp.items() if (c, s, k) == ("4to1", sw, "mpeg1")}
        t = {n: m["pct_4_inf"] for (c, s, n), m in tcp.items() if (c, s) == ("4to1", sw)}
        # only the stream counts run over both transports
        both = set(u) & set(t)
        u, t = {n: u[n] for n in both}, {n: t[n] for n in both}
        if not both:
            continue
        cu, ct = _ceiling(u, LIMIT_PCT), _ceiling(t, LIMIT_PCT)
        top_u, top_t = max(u), max(t)
        fmt = lambda c, top: "none tested" if c is None else f"{c}" + (" (all tested)" if c == top else "")  # noqa: E731
        parts.append(f"{sw}: TCP {fmt(ct, top_t)}, UDP {fmt(cu, top_u)}")
        a, b = ct or 0, cu or 0
        if a > b:
            verdicts.append(True)
        elif ct == top_t and cu == top_u:
            verdicts.append(None)
        else:
            verdicts.append(False)
    if not verdicts:
        return "no runs", None
    held = all(v is True for v in verdicts)
    word = ("holds" if held else "not shown: both within 10% up to the largest count tested" if False not in verdicts
            else "does not hold")
    return f"{word}: largest stream count within 10%, {'; '.join(parts)}", held


def _spread_claim(udp_cv: list[float], tcp_cv: list[float]) -> tuple[str, bool | None]:
    """Spread across the streams of a run as the coefficient of variation (sd / mean across
    streams) of each run's per-stream values: TCP's share of received intervals of 2 or more
    frame intervals, UDP's frame loss; only runs where the mean is above 0. Held if TCP's median
    is below UDP's; not held without such runs on both sides (nothing to show the spread by)."""
    if not udp_cv or not tcp_cv:
        missing = " and ".join(x for x, v in (("UDP run with loss", udp_cv), ("TCP run with delays", tcp_cv)) if not v)
        return f"not shown: no {missing}", False
    mu, mt = st.median(udp_cv), st.median(tcp_cv)
    held = mt < mu
    return (f"{'holds' if held else 'does not hold'}: sd / mean across streams, median TCP {mt:.2f} "
            f"({len(tcp_cv)} runs) vs UDP {mu:.2f} ({len(udp_cv)} runs)"), held


def plots(results: Mapping[str, Result], specs: Sequence[RunSpec], directory: Path) -> list[Path]:
    """Average frame loss against the stream count (mean over replications), ours, per
    configuration and switch (Figure 6: per codec)."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for fig_name, title in (("Figure 7", "fig7"), ("Figure 8", "fig8"), ("Figure 6", "fig6")):
        group = [s for s in specs if s.params["figure"] == fig_name]
        if not group:
            continue
        fig = figure(7.0, 4.5)
        ax = fig.add_subplot()
        lines: dict[str, dict[int, list[float]]] = {}
        for s in group:
            label = f"{s.params['config']} {s.params.get('codec', s.params['switch'])}"
            lines.setdefault(label, {}).setdefault(s.params["streams"], []).append(loss_stats(results[s.name])["avg"])
        for label, pts in sorted(lines.items()):
            xs = sorted(pts)
            ax.plot(xs, [st.mean(pts[x]) for x in xs], marker="o", label=label)
        ax.set_xlabel("streams")
        ax.set_ylabel("frame loss, average over streams (%)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        ax.set_title(f"seed 004 {fig_name} (ours)")
        path = directory / f"{title}.png"
        fig.savefig(path)
        out.append(path)
    group = [s for s in specs if s.params["figure"] == "Figure 9"]
    if group:
        out.append(_plot_fig9(results, group, directory))
    return out


def _plot_fig9(results: Mapping[str, Result], group: Sequence[RunSpec], directory: Path) -> Path:
    """Figure 9: share of received intervals per bin against the stream count, one panel per
    switch, ours (mean over replications, bars: their standard deviation) solid, the seed's
    dashed."""
    ref = load_reference(EXPERIMENT).get("figure9", [])
    fig = figure(10.0, 4.5)
    axes = fig.subplots(1, 2, sharey=True)
    for ax, sw in zip(axes, ("fore", "cisco")):
        for (label, key), colour in zip((("[2, 4)", "2_4"), ("[4, 6)", "4_6"), ("[6, inf)", "6_inf")),
                                        ("tab:blue", "tab:orange", "tab:red")):
            pts: dict[int, list[float]] = {}
            for s in group:
                if s.params["switch"] == sw:
                    pts.setdefault(s.params["streams"], []).append(delay_stats(results[s.name])[f"pct_{key}"])
            xs = sorted(pts)
            ax.errorbar(xs, [st.mean(pts[x]) for x in xs], yerr=[st.pstdev(pts[x]) for x in xs], marker="o",
                        color=colour, label=f"{label} ours")
            pub = sorted((r["streams"], r[f"pct_{key}"]) for r in ref if r["switch"] == sw)
            ax.plot([p[0] for p in pub], [p[1] for p in pub], ls="--", marker="x", color=colour,
                    label=f"{label} seed")
        ax.set_title(f"{'Fore ASX-200' if sw == 'fore' else 'Cisco Hyperswitch'}, TCP, 4 to 1")
        ax.set_xlabel("streams")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("received intervals in bin, mean over streams (%)")
    axes[1].legend(fontsize="small")
    path = directory / "fig9.png"
    fig.savefig(path)
    return path


METHOD = f"""
- **Runs**: the files of `scenarios/seed004/` (their headers give the readings) with the stream
  count set by replacing the connections, streams spread evenly over the senders; every run is
  {DURATION_S:g} s, the seed's 3 min 40 s ({QUICK_S:g} s and one stream count per figure with
  `--quick`), 1 s of warm-up; replications with seeds 1, 2, 3 (one with `--quick`): ours is their
  mean, with their standard deviation. The claims compare those means.
- **Frame loss** (Figures 7, 8, UDP): per stream, frames lost / frames sent for frames due after
  warm-up, where lost = sent - received whole - still on their way at the end (a frame is lost if
  any of its cells is; docs/video.md); then max, min, mean and population standard deviation
  across the streams of the run.
- **Delayed frames** (Figure 9, TCP, `exp4-*` files): a frame is received when its last byte is
  delivered in order; per stream, the share of received intervals (between consecutive frames'
  receipt) in [2, 4), [4, 6), [6, inf) frame intervals, then the mean across streams. The seed
  reads its bins as whole intervals ("Packets which are delayed between x fixed frame intervals and
  $y - 1$ fixed frame intervals are said to be delayed by $[x, y)$") and its "exceeding 3 fixed frame
  intervals" is [4, inf) (28 streams, Fore: 6% + 3% = "only 9%"); the TCP claim uses our [4, inf)
  share against its 10% limit. TCP parameters: the seed gives none; ours are BSD's defaults
  (Reno, Nagle, delayed ACKs on the 200 ms timer), MSS 9,140, window 65,535 B (docs/video.md).
  The 'check' rows repeat 20 and 32 streams without delayed ACKs (seed 1 only), to show what
  that reading does.
- **Claims**: a pair comparison holds when it does in every pair ('held' false when a pair
  shows no difference, e.g. no frame lost in either). TCP against UDP: per switch, 4 to 1, the
  largest stream count (of those run over both) up to which every count stays within 10%
  (UDP: average frame loss; TCP: [4, inf) share); held if TCP's is larger on both switches, not
  held when both reach the largest count run (not shown). Spread: sd / mean across the streams
  of a run (TCP: share of intervals of 2 or more frame intervals; UDP: frame loss), medians over
  the runs with a mean above 0; held if TCP's is smaller, not held without such runs. Loss
  growing with the number of streams is our reading of the seed's Figures 7 and 8 (their avg, max
  and std dev columns rise at every step; the min column does not), not the seed's words; the
  row compares our average loss at each stream count with the next count up. Every claim row is
  judged ('held' true or false); a claim the run list has no runs for (with `--quick`, the
  streams claim: one count per configuration) has no row.
- **Traces**: the synthetic MPEG-1 / JPEG / MPEG-2 model of the seed's clip (`atmsim.synth`,
  docs/video.md), each stream from its own random offset.
- **Hosts**: the receiving host has the host model (docs/hosts.md, the section on paper 004's
  receiving host): the `seed004` preset's receive, read and per-byte costs (our readings: no published
  measurement of the RS/6000's UDP path was found) and one datagram socket of 41,600 B (AIX's
  default `udp_recvspace`) for every stream, read by one process: "the receiving host receives
  the packets and demultiplexes them according to sender host id and port number". The sending
  hosts are ideal, so no run is discarded as overloaded (the seed leaves out runs where "the
  sending host was overloaded").

**Where ours differ from the published values**: with the seed's mean frame size (5,184 B x 24/s
= 1.0 Mb/s per MPEG-1 stream), 32 streams offer 32 Mb/s to a 100 Mb/s output and 128 streams 32
Mb/s to each of 4 outputs: our network loses no MPEG-1 frame in any run, and neither does our
receiving host (its CPU is busy 6-13% of the time, so its one socket never fills), where the seed
reports 0.98-72.25% average loss. What loses frames in the testbed is not in our model; we have
not established it (cause unknown; docs/video.md lists what we tried, with numbers). MPEG-2 streams (5.0 Mb/s each) do lose frames once the offered
load passes the output's 100 Mb/s. Over TCP the network is just as idle: our delayed frames come
from the hosts' TCP alone (a frame longer than one MSS ends in a short segment that Nagle holds
until the delayed ACK of the segment before it), the same on both switches and at every stream
count, where the seed's grow with the count and are smaller on the Cisco; without delayed ACKs
(check rows) no interval reaches 2 frame intervals.
"""

EXPERIMENT = Experiment(
    name="seed004",
    title="paper004: VBR video over two ATM switch architectures: frame loss and delayed frames (paper 004, Figures 6-9)",
    seed_file="004_a04ec9171cbd6bc6.txt",
    runs=runs,
    compare=compare,
    plots=plots,
    method=METHOD,
)
