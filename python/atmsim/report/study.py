"""The parts of a report about a study: the runs, the per-point intervals, the sweep curves with
their confidence bands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .page import Page

__all__ = ["add_study"]

_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def _rgba(color: str, alpha: float) -> str:
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def curve_axes(grid: list[str], zipped: list[str]) -> list[tuple[str, list[str]]]:
    """The sweep curves to draw: (x axis, the axes whose values tell the curves apart). Each grid
    axis is an x axis, with one curve per value of the other grid axes and of the zipped axes;
    the zipped axes, which move together, are one x axis (the first of them), so their points
    make one curve per value of the grid axes instead of one point each."""
    out = []
    for x in grid:
        out.append((x, [g for g in grid if g != x] + zipped[:1]))
    if zipped:
        out.append((zipped[0], list(grid)))
    return out


def _curves(go: Any, sub: pd.DataFrame, x: str, others: list[str], zipped: list[str], metric: str, confidence: float) -> Any:
    """One figure: ``metric`` against ``x``, one curve (band = interval) per value of ``others``; a
    curve of one point shows its interval as an error bar, a band needs two."""
    fig = go.Figure()
    groups = sub.groupby(others, sort=True, dropna=False) if others else [((), sub)]
    for i, (key, g) in enumerate(groups):
        g = g.sort_values(x)
        color = _PALETTE[i % len(_PALETTE)]
        key = key if isinstance(key, tuple) else (key,)
        name = ", ".join(f"{o.removeprefix('set.')}={v}" for o, v in zip(others, key)) or metric
        xs = g[x].tolist()
        text = None
        if zipped[1:]:
            text = [", ".join(f"{z.removeprefix('set.')}={v}" for z, v in zip(zipped[1:], vals))
                    for vals in zip(*(g[z].tolist() for z in zipped[1:]))]
        if len(xs) > 1:
            fig.add_trace(go.Scatter(x=xs + xs[::-1], y=g["high"].tolist() + g["low"].tolist()[::-1], fill="toself",
                                     fillcolor=_rgba(color, 0.18), line=dict(width=0), hoverinfo="skip",
                                     showlegend=False, name=f"{name} interval"))
            error = None
        else:
            error = dict(type="data", symmetric=False, array=(g["high"] - g["mean"]).tolist(),
                         arrayminus=(g["mean"] - g["low"]).tolist(), color=color)
        fig.add_trace(go.Scatter(x=xs, y=g["mean"], mode="lines+markers", name=name, line=dict(color=color),
                                 error_y=error, text=text, customdata=list(zip(g["n"], g["low"], g["high"])),
                                 hovertemplate="%{x}: %{y:.6g} [%{customdata[1]:.4g}, %{customdata[2]:.4g}] "
                                               "(n=%{customdata[0]})" + (" %{text}" if text else "")))
    label = x.removeprefix("set.")
    if zipped[1:]:
        label += " (zipped with " + ", ".join(z.removeprefix("set.") for z in zipped[1:]) + ")"
    fig.update_layout(title=f"{metric} against {label} (band: {confidence:.0%} interval)", xaxis_title=label,
                      yaxis_title=metric)
    return fig


def add_study(page: Page, directory: Path, info: dict[str, Any]) -> None:
    import plotly.graph_objects as go

    from ..study import param_column, point_table, results

    spec = info.get("spec") or {}
    runs = results(directory)
    ok = int((runs["status"] == "ok").sum()) if not runs.empty else 0
    page.heading("Study")
    page.table(
        ["scenario", "master seed", "replications", "confidence", "runs", "ok", "failed", "atmsim"],
        [[spec.get("scenario"), spec.get("seed"), spec.get("replications"), spec.get("confidence"), len(runs), ok,
          len(runs) - ok, info.get("atmsim_version")]],
    )
    axes = [(k, "grid") for k in spec.get("grid") or {}] + [(k, "zip") for k in spec.get("zip") or {}]
    if axes:
        page.table(["key path", "kind", "values"], [[k, kind, ", ".join(map(str, (spec.get(kind) or {})[k]))] for k, kind in axes])
    if spec.get("set"):
        page.table(["fixed key path", "value"], [[k, str(v)] for k, v in spec["set"].items()])
    metrics = list(spec.get("metrics") or [])
    if metrics and not runs.empty:
        from ..study.metrics import with_metrics

        runs = with_metrics(runs, metrics)  # aggregates (sum(connections.*.X) ...) as columns
    if not metrics:
        page.text("No metrics were named (--metric): the run table is below; 'atmsim results query' reads it all.", "note")
    params = [param_column(k) for k, _ in axes]
    params = [p for p in params if p in runs.columns]
    confidence = float(spec.get("confidence") or 0.95)
    points = point_table(runs, metrics, params, confidence) if metrics else pd.DataFrame()
    if not points.empty:
        page.heading(f"Per point: mean and {confidence:.0%} Student-t interval")
        cols = [*params, "metric", "n", "failed", "mean", "sd", "half_width", "low", "high", "rel_half_width"]
        page.table([c.removeprefix("set.") for c in cols], points[cols].itertuples(index=False))  # type: ignore[arg-type]
        page.heading("Sweep curves")
        grid = [param_column(k) for k in spec.get("grid") or {} if param_column(k) in runs.columns]
        zipped = [param_column(k) for k in spec.get("zip") or {} if param_column(k) in runs.columns]
        for metric in metrics:
            sub = points[points["metric"] == metric]
            if not params:
                fig = go.Figure(go.Bar(x=[metric], y=sub["mean"], error_y=dict(type="data", array=sub["half_width"])))
                fig.update_layout(title=f"{metric}: mean with {confidence:.0%} interval", yaxis_title=metric)
                page.figure(fig)
                continue
            for x, others in curve_axes(grid, zipped):
                page.figure(_curves(go, sub, x, others, zipped if x in zipped else [], metric, confidence))
    failed = runs[runs["status"] != "ok"] if not runs.empty else runs
    if not failed.empty:
        page.heading("Failed runs")
        page.table(["run_id", "point", "replication", "error"], failed[["run_id", "point", "replication", "error"]].itertuples(index=False))  # type: ignore[arg-type]
    if not runs.empty:
        page.heading("Runs")
        shown = ["run_id", "point", "replication", "seed", "status", "run_wall_s", *params, *[m for m in metrics if m in runs.columns]]
        page.table([c.removeprefix("set.") for c in shown], runs[shown].itertuples(index=False))  # type: ignore[arg-type]
