"""Measurements taken from run results for the comparison tables: settled values and settle times
of a sampled series, and window averages."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["window_mean", "settle_time", "series_of", "entity_series", "figure"]


def series_of(frame: pd.DataFrame, key: str, name: str, value: str) -> tuple[np.ndarray, np.ndarray]:
    """``(time_s, value)`` arrays of one entity (``frame[key] == name``), sorted by time."""
    if frame.empty or key not in frame or value not in frame:
        return np.array([]), np.array([])
    part = frame[frame[key] == name].sort_values("time_s")
    return part["time_s"].to_numpy(dtype=float), part[value].to_numpy(dtype=float)


def entity_series(result: Any, series: str, key: str, name: str, value: str) -> tuple[np.ndarray, np.ndarray]:
    """``series_of(result.series(series), key, name, value)`` reading only what it returns: the
    columns ``time_s``, ``key`` and ``value`` of the rows of ``name`` (a series on disk is read
    for this call alone and not kept; ``KeyError`` when the result has no such series)."""
    frame = result.series(series, columns=["time_s", key, value], where={key: name})
    return series_of(frame, key, name, value)


def window_mean(t: np.ndarray, v: np.ndarray, t0: float, t1: float) -> float:
    """Mean of the samples with ``t0 <= t < t1`` (NaN if there are none)."""
    sel = (t >= t0 - 1e-12) & (t < t1 - 1e-12)
    if not sel.any():
        return math.nan
    return float(np.mean(v[sel]))


def settle_time(
    t: np.ndarray, v: np.ndarray, t_change: float, t_end: float, settled: float, tolerance: float = 0.05
) -> float:
    """Seconds from ``t_change`` until the series enters, for good, the band
    ``settled x (1 +- tolerance)``: the time of the first sample in ``[t_change, t_end)`` from which
    every later sample up to ``t_end`` is inside the band. NaN if the last sample is outside (never
    settled) or there are no samples or no settled value."""
    if not math.isfinite(settled):
        return math.nan
    sel = (t >= t_change - 1e-12) & (t < t_end - 1e-12)
    ts, vs = t[sel], v[sel]
    if len(ts) == 0:
        return math.nan
    outside = np.abs(vs - settled) > tolerance * abs(settled)
    if not outside.any():
        return float(ts[0] - t_change)
    last = int(np.nonzero(outside)[0][-1])
    if last == len(ts) - 1:
        return math.nan
    return float(ts[last + 1] - t_change)


def finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def figure(width: float, height: float) -> Any:
    """A matplotlib Figure drawn by the Agg backend (no display needed, nothing global)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig
