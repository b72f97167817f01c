"""Jupyter: a result as HTML (``Result._repr_html_``): the run's headline, the topology as an
SVG picture (``atmsim.netview.svg``: no script), then the summary's tables of ports and
connections (their scalar fields), and the trace's size if there is one."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

import pandas as pd


def _table(entries: Mapping[str, Any], key: str) -> str:
    """``{name: {field: value}}`` as an HTML table of the scalar fields (nested ones left out)."""
    rows = []
    for name, fields in entries.items():
        if not isinstance(fields, Mapping):
            continue
        row = {key: name}
        row.update({k: v for k, v in fields.items() if isinstance(v, (int, float, str, bool)) or v is None})
        rows.append(row)
    if not rows:
        return ""
    return pd.DataFrame(rows).to_html(index=False, border=0, na_rep="", float_format=lambda v: f"{v:.6g}")


def result_html(result: Any) -> str:
    s = result.summary
    run = s.get("run", {}) if isinstance(s.get("run"), Mapping) else {}
    scen = s.get("scenario", {}) if isinstance(s.get("scenario"), Mapping) else {}
    head = [f"<b>atmsim result</b>: {html.escape(str(scen.get('description', '')))}"]
    facts = {k: run.get(k) for k in ("duration_s", "seed", "warmup_s") if k in run}
    if facts:
        head.append(", ".join(f"{k} = {html.escape(str(v))}" for k, v in facts.items()))
    if result.has_trace:
        rows = s.get("trace", {}).get("rows")
        head.append(f"trace: {rows if rows is not None else '?'} rows (<code>Result.trace()</code>)")
    head.append("series: " + (", ".join(html.escape(n) for n in result.series_names) or "none"))
    parts = ["<div>" + "<br>".join(head) + "</div>"]
    from .netview import network, svg

    picture = svg(network(s), s)
    if picture:
        parts.append("<h4>Network</h4>" + picture + '<div style="font-size: smaller">each half of a link: the output port '
                     "at its end, coloured by its utilization over the run (grey 0, amber 0.5, red 1)</div>")
    for title, key, name in (("Ports", "ports", "port"), ("Connections", "connections", "connection")):
        entries = s.get(key)
        if isinstance(entries, Mapping) and entries:
            parts.append(f"<h4>{title}</h4>" + _table(entries, name))
    return "\n".join(parts)
