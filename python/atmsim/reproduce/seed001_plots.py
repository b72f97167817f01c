"""Seed 001's figures: the published values of Tables 9-20 and ours, in the layout of Figures 12-28.

Each plot draws the seed's column (markers, 'seed') and ours (line, 'ours') against the table's
first column; plots of tables whose runs are missing show the seed's values alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..result import Result
from .analysis import figure
from .experiment import RunSpec
from .seed001_compare import throughput, transaction_ms
from .seed001_data import load_tables
from .seed001_xtpx import per_connection

FIGS = {9: "fig12-14-wan-bulk", 10: "fig15-17-lan-bulk", 11: "fig18-wan-rr", 12: "fig19-lan-rr",
        13: "fig20-wan-bundle", 14: "fig21-lan-bundle", 15: "fig22-wan-bundle-biv", 16: "fig23-lan-bundle-biv",
        17: "fig24-wan-bidir", 18: "fig25-lan-bidir", 19: "fig26-wan-mixed", 20: "fig27-lan-mixed"}


def _ours(t: int, key: float, results: Mapping[str, Result], specs: Sequence[RunSpec], curve: int = 1) -> float | None:
    for s in specs:
        p = s.params
        if p.get("table") != t:
            continue
        if t in (9, 10) and p.get("tsdu") == key:
            return throughput(results[s.name])[0]
        if t in (11, 12) and p.get("request") == key:
            ms = transaction_ms(results[s.name])[0]
            return None if ms is None else ms * 50 / 1000 * (1 if t == 11 else 100)
        if t in range(13, 19) and p.get("connections") == key and p.get("curve") == curve:
            return throughput(results[s.name])[0]
        if t in (19, 20) and p.get("bulk_connections") == key:
            ms = transaction_ms(results[s.name])[0]
            return None if not ms else 1000 / (70000 / ms)
    return None


def draw(results: Mapping[str, Result], specs: Sequence[RunSpec], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    tables = load_tables()
    out: list[Path] = []
    for n, stem in FIGS.items():
        t = tables[n]
        cols = t.meta["columns"]
        x0 = cols[0]
        ycols = [cols[2]] if n in (11, 12) else ([cols[1]] if n in (19, 20) else cols[1:] if n >= 13 else [cols[1]])
        fig = figure(7.5, 4.5)
        ax = fig.add_subplot()
        for i, yc in enumerate(ycols):
            curve = i + 1 if n in range(13, 19) else 1
            pts = sorted((r[x0], r[yc]) for r in t.rows if r[yc] is not None)
            (line,) = ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", ms=4, label=f"seed: {yc}")
            ours = [(x, _ours(n, x, results, specs, curve)) for x, _ in pts]
            ours = [(x, y) for x, y in ours if y is not None]
            if ours:
                ax.plot([p[0] for p in ours], [p[1] for p in ours], "-", color=line.get_color(), label=f"ours: {yc}")
        if n in (9, 10):
            ax.set_xscale("log")
        ax.set_xlabel(t.meta["printed"][0])
        ax.set_ylabel(t.meta["printed"][2] if n in (11, 12) else t.meta["printed"][1] if n in (19, 20) else "Throughput [KB/s]")
        ax.set_title(f"seed 001 {t.title[:70]}", fontsize="small")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
        path = directory / f"{stem}.png"
        fig.savefig(path)
        out.append(path)
    out += _window_plot(results, specs, directory)
    out += _xtpx_plot(results, specs, directory)
    return out


def _window_plot(results: Mapping[str, Result], specs: Sequence[RunSpec], directory: Path) -> list[Path]:
    ws = [s for s in specs if s.params.get("figure") == "window"]
    if not ws:
        return []
    out = []
    for net in sorted({s.params["net"] for s in ws}):
        fig = figure(7.0, 4.5)
        ax = fig.add_subplot()
        for tsdu in sorted({s.params["tsdu"] for s in ws if s.params["net"] == net}):
            pts = sorted((s.params["window_kb"], throughput(results[s.name])[0]) for s in ws
                         if s.params["net"] == net and s.params["tsdu"] == tsdu)
            pts = [p for p in pts if p[1] is not None]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"ours, TSDU {tsdu} B")
        if net == "wan":
            xs = [4, 8, 16, 32, 50]
            ax.plot(xs, [w * 1024 / 0.1 / 1000 for w in xs], "k--", label="window / 100 ms")
        ax.set_xlabel("TCP send window (KB of 1,024 B)")
        ax.set_ylabel("Throughput [KB/s]")
        ax.set_title(f"seed 001 {'Figure 12' if net == 'wan' else 'Figure 15'}: window sweep ({net})", fontsize="small")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
        path = directory / f"{'fig12' if net == 'wan' else 'fig15'}-{net}-windows.png"
        fig.savefig(path)
        out.append(path)
    return out


def _xtpx_plot(results: Mapping[str, Result], specs: Sequence[RunSpec], directory: Path) -> list[Path]:
    xs = [s for s in specs if s.params.get("figure") == 28]
    if not xs:
        return []
    fig = figure(7.0, 4.5)
    ax = fig.add_subplot()
    for net in sorted({s.params["net"] for s in xs}):
        for rate in sorted({s.params["rate"] for s in xs}, key=lambda r: -1 if r is None else r):
            pts = []
            for s in sorted((s for s in xs if s.params["net"] == net and s.params["rate"] == rate), key=lambda s: s.params["connections"]):
                v = per_connection(results[s.name], s.params["connections"])
                if v:
                    pts.append((s.params["connections"], sum(v) / len(v)))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-" if net == "lan" else "s--",
                    label=f"ours {net}, {'unrestricted' if rate is None else f'{rate} KB/s'}")
    ax.plot([12], [200], "k*", ms=10, label="seed: 12 connections at 200 KB/s")
    ax.set_yscale("log")
    ax.set_xlabel("simultaneous connections")
    ax.set_ylabel("Throughput per connection [KB/s]")
    ax.set_title("seed 001 Figure 28: XTPX rate control", fontsize="small")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="x-small")
    path = directory / "fig28-xtpx.png"
    fig.savefig(path)
    return [path]
