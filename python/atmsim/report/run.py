"""The parts of a report about one run: summary tables and interactive time series."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..result import Result
from .network import add_network
from .page import Page, thin

__all__ = ["add_run"]

#: per-port / per-connection summary columns shown in the tables (when present)
PORT_COLUMNS = ("max_queue_cells", "mean_queue_cells", "utilization", "cells_transmitted", "cells_dropped",
                "z_mean", "fairshare_mbps", "abr_capacity_mbps")
CONNECTION_COLUMNS = ("cells_sent", "cells_delivered", "cells_dropped", "throughput_mbps", "ctd_mean_us", "ctd_max_us",
                      "cdv_p2p_us", "clr", "acr_final_mbps", "acr_mean_mbps", "rm_overhead")
TCP_COLUMNS = ("goodput_mbps", "bytes_delivered", "retransmitted_segments", "timeouts", "max_cwnd_bytes", "srtt_ms")


def _entity_table(page: Page, title: str, items: dict[str, Any], columns: tuple[str, ...], keep: Any = None) -> None:
    names = sorted(n for n, v in items.items() if keep is None or keep(v))
    cols = [c for c in columns if any(c in items[n] for n in names)]
    if not names or not cols:
        return
    page.heading(title, 3)
    page.table([title.split()[0].lower()] + cols, [[n] + [items[n].get(c) for c in cols] for n in names])


def _busy(port: dict[str, Any]) -> bool:
    return bool(port.get("cells_transmitted") or port.get("cells_dropped") or port.get("max_queue_cells"))


def add_run(page: Page, result: Result, label: str = "") -> None:
    """Summary tables (ports that did something, connections, TCP) and one interactive figure
    per declared column of every series the run has, one line per port / connection."""
    import plotly.graph_objects as go

    s = result.summary
    prefix = f"{label}: " if label else ""
    facts = [
        ("simulated s", s.get("sim_time_s")), ("warm-up s", s.get("warmup_s")), ("seed", s.get("seed")),
        ("events", s.get("events")), ("cell hops", s.get("cell_hops")), ("core wall s", s.get("wall_time_s")),
    ]
    page.heading(prefix + "summary")
    scen = s.get("scenario") or {}
    if scen.get("description"):
        page.text(str(scen["description"]), "note")
    page.table([k for k, _ in facts], [[v for _, v in facts]])
    _entity_table(page, "Ports (idle ones left out)", s.get("ports") or {}, PORT_COLUMNS, _busy)
    _entity_table(page, "Connections", s.get("connections") or {}, CONNECTION_COLUMNS)
    tcp = {n: c["tcp"] for n, c in (s.get("connections") or {}).items() if isinstance(c.get("tcp"), dict)}
    _entity_table(page, "TCP connections", tcp, TCP_COLUMNS)
    add_network(page, result, label)

    page.heading(prefix + "time series")
    from ..plots import time_unit

    unit, scale = time_unit(float(s.get("sim_time_s") or 0.0))  # as in the PNGs of the same run
    for name in result.series_names:
        table = result.schema(name)
        frame = result.series(name)
        if table is None or frame.empty:
            continue
        key = table.key.name
        if table.active and table.active in frame:
            busy = frame.groupby(key)[table.active].max()
            busy = busy[busy > 0].index
            if len(busy):
                frame = frame[frame[key].isin(busy)]
        for col in table.columns:
            if col.is_key or col.name == "time_s" or col.name not in frame or not pd.api.types.is_numeric_dtype(frame[col.name]):
                continue
            fig = go.Figure()
            for k, group in frame.groupby(key, sort=True):
                g = thin(group)
                fig.add_trace(go.Scatter(x=g["time_s"].to_numpy() * scale, y=g[col.name].to_numpy(), mode="lines", name=str(k)))
            fig.update_layout(title=f"{prefix}{col.label or col.name} per {key} ({name})",
                              xaxis_title=f"simulated time ({unit})", yaxis_title=col.axis_label)
            page.figure(fig)
