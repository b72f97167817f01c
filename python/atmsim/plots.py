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

import os
from pathlib import Path
from typing import Any

from .outdir import claim, file_head_holds, replace_file
from .result import Result, SeriesTable

__all__ = ["plot_series", "plot_utilization", "plot_all", "figures"]

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
    return _save(fig, path)


#: how a unit is shown on an axis: (shown unit, factor)
_DISPLAY_UNITS = {"bytes": ("KB", 1 / 1024)}


def _active(frame: Any, key: str, column: str) -> tuple[Any, bool]:
    """Only the keys whose ``column`` was ever positive (idle ports clutter a plot), when some
    but not all were; also whether some were left out."""
    if not column or frame.empty or key not in frame or column not in frame:
        return frame, False
    busy = frame.groupby(key)[column].max()
    busy = busy[busy > 0].index
    if 0 < len(busy) < frame[key].nunique():
        return frame[frame[key].isin(busy)], True
    return frame, False


def figures(table: SeriesTable) -> list[str]:
    """The figures the declarations of ``table`` ask for, in declaration order."""
    return list(dict.fromkeys(c.plot for c in table.columns if c.plot))


def plot_series(result: Result, name: str, figure: str, path: str | os.PathLike[str]) -> Path:
    """Every column of series ``name`` whose declaration names ``figure``, one panel each, against
    time, one line per port or connection. Keys never active (the table's declared ``active``
    column never positive) are left out when others were."""
    table = result.schema(name)
    if table is None:
        raise KeyError(f"the core declares no series {name!r}")
    cols = [c for c in table.columns if c.plot == figure]
    if not cols:
        raise KeyError(f"no column of series {name!r} is drawn in figure {figure!r}")
    key = table.key.name
    frame, omitted = _active(result.series(name), key, table.active)
    fig = _figure(9.0, 4.5 if len(cols) == 1 else 3.5 * len(cols))
    axes = fig.subplots(len(cols), 1, sharex=True, squeeze=False)[:, 0]
    what = " and ".join(c.label or c.name for c in cols)
    title = f"{what} per {key}" + (f"; {key}s never active omitted" if omitted else "")
    axes[0].set_title(_title(result, title[0].upper() + title[1:]))
    n = 0
    for ax, col in zip(axes, cols):
        shown, factor = _DISPLAY_UNITS.get(col.unit, (col.unit, 1.0))
        if factor != 1.0 and col.name in frame:
            frame = frame.assign(**{col.name: frame[col.name] * factor})
        n = _lines(ax, frame, key, col.name, 1e3)
        label = col.label or col.name
        ax.set_ylabel(f"{label} ({shown})" if shown else label)
        ax.set_ylim(bottom=0)
        if ax is not axes[-1]:
            _decorate(ax, n)
    axes[-1].set_xlabel("simulated time (ms)")
    return _finish(fig, axes[-1], n, Path(path))


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
    return _save(fig, Path(path))


def plot_all(result: Result, directory: str | os.PathLike[str], force: bool = False) -> list[Path]:
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
            plot_utilization(result, path)
        else:
            plot_series(result, series, figure, path)
        claimed.add([path.name])
        out.append(d / path.name)
    return out
