"""The HTML report of ``atmsim suite abr``: the scorecard, then one panel per configuration with
every scheme's settled rates beside the max-min (oracle) rates and that configuration's rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .page import Page

__all__ = ["write_report"]

_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
            "#7f7f7f", "#aec7e8", "#98df8a")
_COLUMNS = ("scheme", "converge_time_s", "jain_index", "worst_connection", "worst_distance", "oracle_worst_rate_mbps",
            "link_utilization", "max_queue_cells", "mean_queue_cells", "rate_cov", "cells_lost")


def write_report(result: Any, path: Path) -> Path:
    """``result``: an ``atmsim.abrsuite.SuiteResult``."""
    import plotly.graph_objects as go

    page = Page("atmsim suite abr: ABR switch schemes on the ATM Forum configurations")
    page.text("Each panel: the settled rate (mean ACR over the last 20% of the run, first replication) of every "
              "connection under each scheme, and its max-min fair rate from the water-filling oracle at the scheme's "
              "target utilization (black: at ERICA's 0.9; schemes with other targets have their own oracle in "
              "rates.csv). Definitions: docs/abr-schemes.md.")
    configs = list(dict.fromkeys(r["config"] for r in result.scorecard))
    for config in configs:
        page.heading(config)
        rows = [r for r in result.scorecard if r["config"] == config]
        page.table(list(_COLUMNS), [[r[c] for c in _COLUMNS] for r in rows])
        rates = [r for r in result.rates if r["config"] == config and r["replication"] == 0]
        fig = go.Figure()
        schemes = list(dict.fromkeys(r["scheme"] for r in rates))
        for i, scheme in enumerate(schemes):
            mine = [r for r in rates if r["scheme"] == scheme]
            fig.add_trace(go.Scatter(x=[r["connection"] for r in mine], y=[r["settled_mbps"] for r in mine],
                                     mode="markers", name=scheme, marker=dict(color=_PALETTE[i % len(_PALETTE)], size=8)))
        ref = [r for r in rates if r["scheme"] == ("erica" if "erica" in schemes else schemes[0])]
        fig.add_trace(go.Scatter(x=[r["connection"] for r in ref], y=[r["oracle_mbps"] for r in ref], mode="lines+markers",
                                 name="max-min (oracle)", line=dict(color="black", dash="dash"),
                                 marker=dict(symbol="line-ew-open", size=14, color="black")))
        fig.update_layout(title=f"{config}: settled rates and max-min rates", xaxis_title="connection",
                          yaxis_title="rate (Mb/s)", legend=dict(orientation="v", x=1.02, y=1))
        page.figure(fig)
    return page.write(path)
