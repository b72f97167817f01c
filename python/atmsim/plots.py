"""Plots of a run, driven by the core's declarations of the series: each declared column that
names a figure (``plot``) is drawn in ``<figure>.png`` against time, one line per port or
connection, columns naming the same figure one panel each (today: queue length per port,
throughput per connection, ACR per ABR source, load factor z and fair share per ERICA port,
congestion window per TCP sender); plus ``utilization.png``, per port from the summary.

Uses matplotlib's object API with the Agg canvas (no pyplot state, no display needed), so it
works headless and from several threads.

Each PNG is written to a temporary file and renamed into place, carrying atmsim's name in its
``Software`` text; an existing file is replaced only if it is atmsim's (``atmsim.outdir``).
"""

from __future__ import annotations

import fnmatch
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .outdir import claim, file_head_holds, replace_file
from .result import Result, SeriesTable

__all__ = ["plot_series", "plot_utilization", "plot_all", "figures", "Selection", "time_unit", "LEGEND_INSIDE_MAX"]

#: lines a legend holds inside the axes ("auto"); more go outside, to the right, in columns
LEGEND_INSIDE_MAX = 8
#: legend entries per column outside the axes
_LEGEND_ROWS = 32


def time_unit(seconds: float) -> tuple[str, float]:
    """The unit of a time axis and its factor from seconds: ms for runs under 2 s, else s; the
    same rule in the PNGs and the HTML reports, so one run's figures agree."""
    return ("ms", 1e3) if seconds < 2.0 else ("s", 1.0)


@dataclass(frozen=True)
class Selection:
    """Which ports and connections a figure draws: ``ports`` / ``connections`` are shell patterns
    (``A->*``, ``tcp*``; none = all), ``top`` keeps the N with the highest ``by`` (``utilization``:
    a port's utilization, a connection's throughput; ``loss``: cells dropped), ``legend`` is
    ``auto`` (inside up to 8 lines, else outside), ``outside``, ``inside`` or ``none``. Ports that
    did nothing (no cell sent or dropped, no queue: the summary's counts) are left out unless a
    pattern names them."""

    ports: Sequence[str] = ()
    connections: Sequence[str] = ()
    top: int | None = None
    by: str = "utilization"
    legend: str = "auto"

    def keys(self, result: Result, key: str, names: Sequence[str]) -> list[str]:
        """The names of ``key`` (``port`` or ``connection``) to draw, in order."""
        names = sorted((str(n) for n in names), key=_natural)
        if key == "port":
            patterns, table = self.ports, result.summary.get("ports") or {}
        elif key == "connection":
            patterns, table = self.connections, result.summary.get("connections") or {}
        else:
            return names
        if patterns:
            names = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
        elif key == "port":
            names = [n for n in names if n not in table or _busy(table[n])]
        if self.top is not None:
            def score(n: str) -> float:
                entry = table.get(n) or {}
                if self.by == "loss":
                    value = entry.get("cells_dropped")
                else:
                    value = entry.get("utilization" if key == "port" else "throughput_mbps")
                return float(value) if isinstance(value, (int, float)) else -math.inf

            names = sorted(sorted(names, key=score, reverse=True)[: self.top], key=_natural)
        return names


def _natural(name: str) -> list[Any]:
    """s0v2 before s0v10."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def _busy(port: dict[str, Any]) -> bool:
    return bool(port.get("cells_transmitted") or port.get("cells_dropped") or port.get("max_queue_cells"))

#: the ``Software`` text of atmsim's PNGs, as it appears in the file (a tEXt chunk)
_PNG_SIGNATURE = b"Software\x00atmsim"


def _save(fig: Any, path: Path) -> Path:
    """``fig`` as a PNG at ``path`` (``atmsim.outdir.replace_file``: never over a file atmsim
    did not write, a link, a FIFO or a device)."""
    from .version import __version__

    path.parent.mkdir(parents=True, exist_ok=True)
    return replace_file(
        path, lambda tmp: fig.savefig(tmp, format="png", metadata={"Software": f"atmsim {__version__}"}),
        ours=lambda p: file_head_holds(p, [_PNG_SIGNATURE]),
    )


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


def _styles(n: int) -> list[dict[str, Any]]:
    """A colour and line style per line, distinct for up to 80 lines: tab10 up to 10, tab20 up to
    20, then 20 colours of a perceptual map cycled with four line styles."""
    from matplotlib import colormaps

    if n <= 10:
        return [{"color": colormaps["tab10"](i)} for i in range(n)]
    if n <= 20:
        return [{"color": colormaps["tab20"](i)} for i in range(n)]
    cmap = colormaps["turbo"]
    dashes = ["-", "--", ":", "-."]
    return [{"color": cmap((i % 20) / 19 * 0.9 + 0.05), "linestyle": dashes[(i // 20) % 4]} for i in range(n)]


def _lines(ax: Any, frame: Any, key: str, value: str, scale: float = 1.0, names: Sequence[str] | None = None) -> int:
    if frame.empty or key not in frame or value not in frame:
        return 0
    groups = dict(tuple(frame.groupby(key, sort=True)))
    order = [n for n in (names if names is not None else sorted(groups)) if n in groups]
    for name, style in zip(order, _styles(len(order))):
        group = groups[name]
        ax.plot(group["time_s"].to_numpy() * scale, group[value].to_numpy(), label=str(name), linewidth=1.0, **style)
    return len(order)


def _decorate(ax: Any, n: int, legend: str = "auto") -> None:
    if not n:
        ax.text(0.5, 0.5, "no samples", ha="center", va="center", transform=ax.transAxes)
    elif legend == "inside" or (legend == "auto" and n <= LEGEND_INSIDE_MAX):
        ax.legend(fontsize="small", loc="best", ncol=max(1, n // 12))
    elif legend != "none":
        ax.legend(fontsize="x-small" if n > 20 else "small", loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0.0, ncol=math.ceil(n / _LEGEND_ROWS), frameon=False)
    ax.grid(True, alpha=0.3)


def _legend_width(n: int, legend: str) -> float:
    """Inches the figure grows by for a legend outside the axes."""
    if legend == "none" or legend == "inside" or (legend == "auto" and n <= LEGEND_INSIDE_MAX) or not n:
        return 0.0
    return 1.6 * math.ceil(n / _LEGEND_ROWS)


def _finish(fig: Any, ax: Any, n: int, path: Path, legend: str = "auto") -> Path:
    _decorate(ax, n, legend)
    return _save(fig, path)


#: how a unit is shown on an axis: (shown unit, factor)
_DISPLAY_UNITS = {"bytes": ("KB", 1 / 1024)}


def figures(table: SeriesTable) -> list[str]:
    """The figures the declarations of ``table`` ask for, in declaration order."""
    return list(dict.fromkeys(c.plot for c in table.columns if c.plot))


def plot_series(
    result: Result, name: str, figure: str, path: str | os.PathLike[str], select: Selection | None = None
) -> Path:
    """Every column of series ``name`` whose declaration names ``figure``, one panel each, against
    time, one line per port or connection (those ``select`` keeps: every connection and every
    port that did something by default)."""
    table = result.schema(name)
    if table is None:
        raise KeyError(f"the core declares no series {name!r}")
    cols = [c for c in table.columns if c.plot == figure]
    if not cols:
        raise KeyError(f"no column of series {name!r} is drawn in figure {figure!r}")
    select = select or Selection()
    key = table.key.name
    # only the columns this figure draws (a series on disk is read column by column)
    frame = result.series(name, columns=["time_s", key] + [c.name for c in cols])
    present = list(frame[key].unique()) if key in frame else []
    names = select.keys(result, key, present)
    omitted = len(present) - len(names)
    if key in frame:
        frame = frame[frame[key].isin(names)]
    unit, scale = time_unit(float(result.summary.get("sim_time_s") or 0.0))
    legend_w = _legend_width(len(names), select.legend)
    height = 4.5 if len(cols) == 1 else 3.5 * len(cols)
    if legend_w:  # the legend's column of up to 32 entries fits beside the axes
        height = max(height, 0.155 * min(len(names), _LEGEND_ROWS) + 0.9)
    fig = _figure(9.0 + legend_w, height)
    axes = fig.subplots(len(cols), 1, sharex=True, squeeze=False)[:, 0]
    what = " and ".join(c.label or c.name for c in cols)
    title = f"{what} per {key}" + (f" ({len(names)} of {len(present)} shown)" if omitted else "")
    if len(names) > 2 * _LEGEND_ROWS // 3 and select.top is None:
        title += f"; {len(names)} lines: --top N draws the busiest"
    axes[0].set_title(_title(result, title[0].upper() + title[1:]))
    n = 0
    for ax, col in zip(axes, cols):
        shown, factor = _DISPLAY_UNITS.get(col.unit, (col.unit, 1.0))
        if factor != 1.0 and col.name in frame:
            frame = frame.assign(**{col.name: frame[col.name] * factor})
        n = _lines(ax, frame, key, col.name, scale, names)
        label = col.label or col.name
        ax.set_ylabel(f"{label} ({shown})" if shown else label)
        ax.set_ylim(bottom=0)
        if ax is not axes[-1]:
            _decorate(ax, n, select.legend)
    axes[-1].set_xlabel(f"simulated time ({unit})")
    return _finish(fig, axes[-1], n, Path(path), select.legend)


def plot_utilization(result: Result, path: str | os.PathLike[str], select: Selection | None = None) -> Path:
    """Utilization of each output port over the run (bars), from the summary: the ports ``select``
    keeps (every port that did something by default)."""
    ports = result.summary.get("ports", {})
    names = (select or Selection()).keys(result, "port", list(ports))
    values = [float(ports[p].get("utilization", 0.0)) for p in names]
    fig = _figure(min(20.0, max(6.0, 0.3 * len(names) + 2)), 4.5)
    ax = fig.add_subplot()
    if names:
        ax.bar(range(len(names)), values, color="tab:blue")
        ax.set_xticks(range(len(names)), names, rotation=45 if len(names) <= 30 else 90,
                      ha="right" if len(names) <= 30 else "center", fontsize="small" if len(names) <= 30 else "x-small")
    else:
        ax.text(0.5, 0.5, "no ports", ha="center", va="center", transform=ax.transAxes)
    ax.set_ylim(0, max(1.0, max(values, default=0) * 1.05))
    ax.set_ylabel("utilization")
    ax.set_title(_title(result, "Output-port utilization"))
    ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, Path(path))


def plot_all(
    result: Result, directory: str | os.PathLike[str], force: bool = False, select: Selection | None = None
) -> list[Path]:
    """Write ``utilization.png`` (from the summary) and, for every series the result has, one
    ``<figure>.png`` per figure its declared columns name (``queues``, ``throughput``, ``acr``,
    ``abr_ports``, ``cwnd``, ...) into ``directory``; a series the core hands over only when it
    has rows is drawn only then.

    ``directory`` must not exist, be empty, or be atmsim's (a run's output, or earlier plots:
    its marker file); anything else raises ``ScenarioError`` unless ``force``. Every PNG's name
    is checked before any is drawn: one that exists and is not atmsim's is refused, ``force`` or
    not (``atmsim.outdir``)."""
    d = Path(directory)
    todo: list[tuple[str, str | None]] = [("utilization", None)]
    for name in result.series_names:
        table = result.schema(name)
        if table is None or not (table.always or not result.series(name, columns=["time_s"]).empty):
            continue
        todo += [(figure, name) for figure in figures(table)]
    names = [f"{figure}.png" for figure, _ in todo]
    claimed = claim(d, "plot", accept=("run",), force=force, writes=names)
    claimed.ensure()
    out = []
    for figure, series in todo:
        path = claimed.path / f"{figure}.png"
        if series is None:
            plot_utilization(result, path, select)
        else:
            plot_series(result, series, figure, path, select)
        claimed.add([path.name])
        out.append(d / path.name)
    return out
