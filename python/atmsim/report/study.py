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
        for metric in metrics:
            sub = points[points["metric"] == metric]
            if not params:
                fig = go.Figure(go.Bar(x=[metric], y=sub["mean"], error_y=dict(type="data", array=sub["half_width"])))
                fig.update_layout(title=f"{metric}: mean with {confidence:.0%} interval", yaxis_title=metric)
                page.figure(fig)
                continue
            for x in params:
                others = [p for p in params if p != x]
                fig = go.Figure()
                groups = sub.groupby(others, sort=True) if others else [((), sub)]
                for i, (key, g) in enumerate(groups):
                    g = g.sort_values(x)
                    color = _PALETTE[i % len(_PALETTE)]
                    key = key if isinstance(key, tuple) else (key,)
                    name = ", ".join(f"{o.removeprefix('set.')}={v}" for o, v in zip(others, key)) or metric
                    xs = g[x].tolist()
                    fig.add_trace(go.Scatter(x=xs + xs[::-1], y=g["high"].tolist() + g["low"].tolist()[::-1], fill="toself",
                                             fillcolor=_rgba(color, 0.18), line=dict(width=0), hoverinfo="skip",
                                             showlegend=False, name=f"{name} interval"))
                    fig.add_trace(go.Scatter(x=xs, y=g["mean"], mode="lines+markers", name=name, line=dict(color=color),
                                             customdata=list(zip(g["n"], g["half_width"])),
                                             hovertemplate="%{x}: %{y:.6g} +- %{customdata[1]:.3g} (n=%{customdata[0]})"))
                fig.update_layout(title=f"{metric} against {x.removeprefix('set.')} (band: {confidence:.0%} interval)",
                                  xaxis_title=x.removeprefix("set."), yaxis_title=metric)
                page.figure(fig)
    failed = runs[runs["status"] != "ok"] if not runs.empty else runs
    if not failed.empty:
        page.heading("Failed runs")
        page.table(["run_id", "point", "replication", "error"], failed[["run_id", "point", "replication", "error"]].itertuples(index=False))  # type: ignore[arg-type]
    if not runs.empty:
        page.heading("Runs")
        shown = ["run_id", "point", "replication", "seed", "status", "run_wall_s", *params, *[m for m in metrics if m in runs.columns]]
        page.table([c.removeprefix("set.") for c in shown], runs[shown].itertuples(index=False))  # type: ignore[arg-type]
