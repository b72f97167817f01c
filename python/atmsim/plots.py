"""Plots of a run: queue length per port, utilization per port, throughput per connection and,
for ABR scenarios, the ACR of each ABR source and the load factor z / fair share of each ERICA
port.

Uses matplotlib's object API with the Agg canvas (no pyplot state, no display needed), so it
works headless and from several threads.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .result import Result

__all__ = ["plot_queues", "plot_utilization", "plot_throughput", "plot_acr", "plot_abr_ports", "plot_all"]


def _figure(width: float = 9.0, height: float = 4.5) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _title(result: Result, what: str) -> str:
    scen = result.summary.get("scenario") or {}
    name = Path(scen.get("file") or "").stem
    return f"{what} ({name})" if name else what


def _lines(ax: Any, frame: Any, key: str, value: str, scale: float = 1.0) -> int:
    n = 0
    if frame.empty or key not in frame or value not in frame:
        return 0
    for name, group in frame.groupby(key, sort=True):
        ax.plot(group["time_s"].to_numpy() * scale, group[value].to_numpy(), label=str(name), linewidth=1.0)
        n += 1
    return n


def _decorate(ax: Any, n: int) -> None:
    if n:
        ax.legend(fontsize="small", loc="best", ncol=max(1, n // 12))
    else:
        ax.text(0.5, 0.5, "no samples", ha="center", va="center", transform=ax.transAxes)
    ax.grid(True, alpha=0.3)


def _finish(fig: Any, ax: Any, n: int, path: Path) -> Path:
    _decorate(ax, n)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path


def plot_queues(result: Result, path: str | os.PathLike[str]) -> Path:
    """Queue length (cells) against time, one line per output port."""
    fig = _figure()
    ax = fig.add_subplot()
    frame = result.series("ports")
    title = "Output-port queue length"
    if not frame.empty and {"port", "queue_cells"} <= set(frame.columns):
        busy = frame.groupby("port")["queue_cells"].max()
        busy = busy[busy > 0].index
        if 0 < len(busy) < frame["port"].nunique():
            frame = frame[frame["port"].isin(busy)]
            title += "; ports that never queued omitted"
    n = _lines(ax, frame, "port", "queue_cells", 1e3)
    ax.set_xlabel("simulated time (ms)")
    ax.set_ylabel("queue (cells)")
    ax.set_title(_title(result, title))
    return _finish(fig, ax, n, Path(path))


def plot_utilization(result: Result, path: str | os.PathLike[str]) -> Path:
    """Utilization of each output port over the run (bars), from the summary."""
    ports = result.summary.get("ports", {})
    names = sorted(ports)
    values = [float(ports[p].get("utilization", 0.0)) for p in names]
    fig = _figure(max(6.0, 0.6 * len(names) + 2), 4.5)
    ax = fig.add_subplot()
    if names:
        ax.bar(range(len(names)), values, color="tab:blue")
        ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize="small")
    else:
        ax.text(0.5, 0.5, "no ports", ha="center", va="center", transform=ax.transAxes)
    ax.set_ylim(0, max(1.0, max(values, default=0) * 1.05))
    ax.set_ylabel("utilization")
    ax.set_title(_title(result, "Output-port utilization"))
    ax.grid(True, axis="y", alpha=0.3)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p)
    return p


def plot_throughput(result: Result, path: str | os.PathLike[str]) -> Path:
    """Delivered throughput (Mb/s) against time, one line per connection."""
    fig = _figure()
    ax = fig.add_subplot()
    n = _lines(ax, result.series("connections"), "connection", "throughput_mbps", 1e3)
    ax.set_xlabel("simulated time (ms)")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_title(_title(result, "Connection throughput"))
    return _finish(fig, ax, n, Path(path))


def plot_acr(result: Result, path: str | os.PathLike[str]) -> Path:
    """Allowed cell rate (Mb/s) of each ABR source against time (series ``abr_sources``)."""
    fig = _figure()
    ax = fig.add_subplot()
    n = _lines(ax, result.series("abr_sources"), "connection", "acr_mbps", 1e3)
    ax.set_xlabel("simulated time (ms)")
    ax.set_ylabel("ACR (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.set_title(_title(result, "ABR source allowed cell rate"))
    return _finish(fig, ax, n, Path(path))


def plot_cwnd(result: Result, path: str | os.PathLike[str]) -> Path:
    """Congestion window (KB) of each TCP sender against time (series ``tcp``)."""
    fig = _figure()
    ax = fig.add_subplot()
    frame = result.series("tcp").copy()
    frame["cwnd_kb"] = frame["cwnd_bytes"] / 1024.0
    n = _lines(ax, frame, "connection", "cwnd_kb", 1e3)
    ax.set_xlabel("simulated time (ms)")
    ax.set_ylabel("congestion window (KB)")
    ax.set_ylim(bottom=0)
    ax.set_title(_title(result, "TCP congestion window"))
    return _finish(fig, ax, n, Path(path))


def _active_abr_ports(frame: Any) -> Any:
    """Only the ports that saw ABR input at some point (a switch's idle ports clutter the plot)."""
    if frame.empty or "port" not in frame:
        return frame
    if "input_mbps" in frame:
        busy = frame.groupby("port")["input_mbps"].max()
        busy = busy[busy > 0].index
        if len(busy):
            frame = frame[frame["port"].isin(busy)]
    return frame


def plot_abr_ports(result: Result, path: str | os.PathLike[str]) -> Path:
    """Load factor z (top) and fair share (bottom) of each ERICA / ERICA+ port, per averaging
    interval (series ``abr_ports``); ports that never carried ABR cells are left out."""
    fig = _figure(9.0, 7.0)
    ax_z, ax_fs = fig.subplots(2, 1, sharex=True)
    frame = _active_abr_ports(result.series("abr_ports"))
    n = _lines(ax_z, frame, "port", "z", 1e3)
    ax_z.set_ylabel("load factor z")
    ax_z.set_title(_title(result, "ERICA ports: load factor and fair share"))
    _decorate(ax_z, n)
    m = _lines(ax_fs, frame, "port", "fairshare_mbps", 1e3)
    ax_fs.set_xlabel("simulated time (ms)")
    ax_fs.set_ylabel("fair share (Mb/s)")
    ax_fs.set_ylim(bottom=0)
    return _finish(fig, ax_fs, m, Path(path))


def plot_all(result: Result, directory: str | os.PathLike[str]) -> list[Path]:
    """Write ``queues.png``, ``utilization.png``, ``throughput.png`` and, when the result has the
    ABR series, ``acr.png`` and ``abr_ports.png``, and with TCP, ``cwnd.png`` into ``directory``."""
    d = Path(directory)
    out = []
    if result.has_series("ports"):
        out.append(plot_queues(result, d / "queues.png"))
    out.append(plot_utilization(result, d / "utilization.png"))
    if result.has_series("connections"):
        out.append(plot_throughput(result, d / "throughput.png"))
    if result.has_series("abr_sources") and not result.series("abr_sources").empty:
        out.append(plot_acr(result, d / "acr.png"))
    if result.has_series("abr_ports") and not result.series("abr_ports").empty:
        out.append(plot_abr_ports(result, d / "abr_ports.png"))
    if result.has_series("tcp") and not result.series("tcp").empty:
        out.append(plot_cwnd(result, d / "cwnd.png"))
    return out
