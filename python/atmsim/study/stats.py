"""Confidence intervals per grid point (Student's t over the replications), clipped to the range
a bounded quantity can take (``atmsim.study.metrics.bounds``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

__all__ = ["t_interval", "point_table"]


def t_interval(
    values: Sequence[float], confidence: float = 0.95, bounds: tuple[float, float] = (-math.inf, math.inf)
) -> dict[str, Any]:
    """``n``, ``mean``, ``sd`` (n - 1 in the denominator), ``half_width`` = t(1 - (1-c)/2, n-1)
    * sd / sqrt(n), ``low``, ``high`` and ``rel_half_width`` (half_width / |mean|) of ``values``;
    with fewer than two values the half-width is NaN. ``low`` and ``high`` are clipped to
    ``bounds``, the range the quantity can take: the true mean lies in it, so the clipped interval
    holds it whenever the t interval does (the same coverage), and never leaves the range."""
    from scipy.stats import t as student_t

    xs = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    n = len(xs)
    mean = sum(xs) / n if n else math.nan
    if n >= 2:
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
        hw = float(student_t.ppf(1 - (1 - confidence) / 2, n - 1)) * sd / math.sqrt(n)
    else:
        sd = hw = math.nan
    rel = hw / abs(mean) if n >= 2 and mean != 0 else (0.0 if n >= 2 and hw == 0 else math.nan)
    lo, hi = bounds
    low, high = mean - hw, mean + hw
    if n >= 2:
        low, high = max(low, lo), min(high, hi)
    return {"n": n, "mean": mean, "sd": sd, "half_width": hw, "low": low, "high": high, "rel_half_width": rel}


def point_table(runs: pd.DataFrame, metrics: Sequence[str], params: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """One row per (grid point, metric) over the runs with ``status == "ok"``: the point's
    parameters, ``metric``, ``n`` and the t interval; also ``failed`` (runs of the point that
    failed). Aggregate metrics (``sum(connections.*.X)`` ...) are computed from the columns they
    stand for; intervals are clipped to the metric's range (``metrics.bounds``)."""
    from .metrics import bounds, with_metrics

    runs = with_metrics(runs, metrics)
    rows = []
    if runs.empty:
        return pd.DataFrame(columns=["point", *params, "metric", "n", "failed", "mean", "sd", "half_width", "low", "high", "rel_half_width"])
    for point, group in runs.groupby("point", sort=True):
        ok = group[group["status"] == "ok"]
        first = group.iloc[0]
        for m in metrics:
            values = ok[m].tolist() if m in ok.columns else []
            row: dict[str, Any] = {"point": int(point)}
            row.update({p: first[p] for p in params if p in group.columns})
            row.update(metric=m, failed=int((group["status"] != "ok").sum()))
            row.update(t_interval(values, confidence, bounds(m)))
            rows.append(row)
    return pd.DataFrame(rows)
