"""The parts of a report about a reproduction (published against ours, the experiment's plots,
its runs) and the index page of ``atmsim reproduce all``."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from .page import Page

__all__ = ["add_reproduction", "add_index"]


def _value(text: str) -> float | str | None:
    if text == "":
        return None
    try:
        return float(text)
    except ValueError:
        return text


def _rows_from_csv(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8", newline="") as f:
        return [
            {k: (_value(v) if k in ("published", "ours", "difference", "ours_sd") else v) for k, v in row.items()}
            for row in csv.DictReader(f)
        ]


def _comparison(page: Page, rows: list[dict[str, Any]], title: str) -> None:
    """The published-vs-ours table (with held / not held for qualitative claims) and a figure of
    ours against published for the numeric rows (the diagonal = agreement)."""
    import plotly.graph_objects as go

    headers = ["quantity", "run", "published", "ours", "difference", "relative", "claim", "source"]
    table, classes = [], []
    for r in rows:
        pub, ours, diff = r.get("published"), r.get("ours"), r.get("difference")
        rel = diff / pub if isinstance(diff, float) and isinstance(pub, float) and pub else None
        held = r.get("held")
        if isinstance(held, str):  # comparison.csv: "true" / "false" / "" (not a claim)
            held = {"true": True, "false": False}.get(held)
        if held is None:  # not a claim (a text row without a verdict: seed 001's dips, a range)
            claim = "not judged" if isinstance(pub, str) else ""
        else:
            claim = "held" if held else "not held"
        if isinstance(ours, float) and isinstance(r.get("ours_sd"), float):
            ours = f"{ours:.6g} +- {r['ours_sd']:.3g}"
        table.append([r.get("quantity"), r.get("run"), pub, ours, diff, f"{rel:+.1%}" if rel is not None else "", claim, r.get("source")])
        classes.append(["", "", "", "", "", "", {"held": "held", "not held": "not-held"}.get(claim, ""), ""])
    page.table(headers, table, classes)
    nums = [r for r in rows if isinstance(r.get("published"), float) and isinstance(r.get("ours"), float)
            and math.isfinite(r["published"]) and math.isfinite(r["ours"])]
    if nums:
        fig = go.Figure()
        for quantity in dict.fromkeys(r["quantity"] for r in nums):
            sub = [r for r in nums if r["quantity"] == quantity]
            fig.add_trace(go.Scatter(
                x=[r["published"] for r in sub], y=[r["ours"] for r in sub], mode="markers", name=str(quantity)[:60],
                text=[r["run"] for r in sub], hovertemplate="%{text}: published %{x:.4g}, ours %{y:.4g}",
            ))
        lo = min(min(r["published"], r["ours"]) for r in nums)
        hi = max(max(r["published"], r["ours"]) for r in nums)
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="ours = published", line=dict(dash="dot", color="#888")))
        fig.update_layout(title=f"{title}: ours against published (numeric rows)", xaxis_title="published",
                          yaxis_title="ours", xaxis_type="log" if lo > 0 else None, yaxis_type="log" if lo > 0 else None)
        page.figure(fig)


def add_reproduction(page: Page, directory: Path) -> None:
    from ..study import results
    from ..study.store import read_study

    info = read_study(directory) or {}
    spec = info.get("spec") or {}
    page.text(f"Experiment {spec.get('experiment')}" + (" (--quick)" if spec.get("quick") else "")
              + f"; atmsim {info.get('atmsim_version')}. Published values come from the paper's text or a formula "
              "on its parameters, never from our output; difference = ours - published.", "note")
    csv_path = directory / "comparison.csv"
    if csv_path.is_file():
        page.heading("Published and ours")
        _comparison(page, _rows_from_csv(csv_path), str(spec.get("experiment", directory.name)))
    else:
        page.text("No comparison.csv yet (the reproduction has not finished).", "note")
    plots = sorted((directory / "plots").glob("*.png")) if (directory / "plots").is_dir() else []
    if plots:
        page.heading("Figures")
        for p in plots:
            page.image(p, p.stem)
    runs = results(directory)
    if not runs.empty:
        page.heading("Runs")
        cols = [c for c in ("run", "scenario", "overrides", "seed", "status", "run_wall_s", "sim_time_s", "events") if c in runs.columns]
        page.table(cols, runs[cols].itertuples(index=False))  # type: ignore[arg-type]


def add_index(page: Page, directory: Path, index: dict[str, Any]) -> None:
    page.text("Every experiment of atmsim reproduce" + (" (--quick)" if index.get("quick") else "")
              + ": our values beside the published ones; qualitative claims marked held or not. "
              "Each experiment's own report is NAME/report.html beside this page.", "note")
    summary = []
    for e in index.get("experiments", []):
        rows = e.get("rows") or []
        held = sum(1 for r in rows if r.get("held") is True)
        judged = sum(1 for r in rows if r.get("held") is not None)
        summary.append([e["name"], e.get("title", ""), len(rows), f"{held} of {judged}" if judged else "",
                        e.get("runs", ""), e.get("wall_time_s"), e.get("error", "")])
    page.table(["experiment", "title", "rows", "claims held", "runs", "wall s", "error"], summary)
    for e in index.get("experiments", []):
        page.heading(f"{e['name']}: {e.get('title', '')}")
        if e.get("error"):
            page.text(f"failed: {e['error']}", "not-held")
            continue
        page.text(f"paper: {e.get('seed_file')}; report: {e.get('dir')}/report.html", "note")
        rows = [
            {**r, "published": _num(r.get("published")), "ours": _num(r.get("ours")), "difference": _num(r.get("difference")),
             "ours_sd": _num(r.get("spread"))}
            for r in e.get("rows") or []
        ]
        _comparison(page, rows, e["name"])


def _num(x: Any) -> Any:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else x
