"""The network of a run as data, for the drawn and animated network view of ``atmsim report``
(``report/network.py``) and the topology picture of ``Result._repr_html_``.

- ``network_of(doc)``: the nodes, links (rate, length or delay) and connection routes of a
  scenario document; ``atmsim.run`` keeps it in ``summary.json`` under ``scenario.network``
  (the provenance block, which ``make regress`` leaves out). A run written before it existed is
  drawn from its port names (``NODE->NEIGHBOUR``) without routes, rates or lengths.
- ``layout(net)``: node positions, computed here (deterministic): layers by the longest path
  over the routes' hops, a node that only sends pulled next to the layer it sends into, each
  layer ordered by the barycentre of its neighbours (Sugiyama et al. 1981's layered drawing,
  reduced to these three steps; our choice).
- ``frames(result, net)``: per animation frame, each output port's queue (the largest sample in
  the frame's interval) and utilization (the mean of its samples), each ABR source's ACR (the
  mean), and with a trace, the drops per port counted from its ``drop`` rows; at most
  ``MAX_FRAMES`` frames (consecutive samples are merged), so the page's size is bounded.
- ``svg(net, summary)``: a static picture (no script), each half of a link coloured by the
  utilization of the output port at that end over the run (summary).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["network_of", "network_from_ports", "network", "layout", "frames", "svg", "MAX_FRAMES", "colour"]

#: most frames of the animation (the series' samples are merged into at most this many)
MAX_FRAMES = 400

#: colour scale from 0 to 1 (a port's queue relative to the largest queue of the run, or its
#: utilization): grey-blue, amber, red
SCALE = ((0.0, (208, 215, 222)), (0.5, (242, 182, 0)), (1.0, (209, 36, 47)))


def colour(x: float | None) -> str:
    """``#rrggbb`` of ``x`` (0..1, clipped) on ``SCALE``; light grey for no value."""
    if x is None or not math.isfinite(x):
        return "#eeeeee"
    x = min(max(x, 0.0), 1.0)
    for (x0, c0), (x1, c1) in zip(SCALE, SCALE[1:]):
        if x <= x1:
            f = (x - x0) / (x1 - x0)
            return "#" + "".join(f"{round(a + (b - a) * f):02x}" for a, b in zip(c0, c1))
    return "#%02x%02x%02x" % SCALE[-1][1]


def network_of(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``{"nodes": [{name, kind}], "links": [{a, b, rate_mbps, length_km, delay_us}],
    "connections": [{name, route, category, bidirectional}]}`` of a scenario document (the
    connection of each call class, ``calls[].connection``, is one here); keys the document does
    not give are left out."""

    def table(x: Any) -> list[Mapping[str, Any]]:
        return [e for e in x if isinstance(e, Mapping)] if isinstance(x, list) else []

    nodes = [{"name": str(n["name"]), "kind": str(n.get("kind", "host"))} for n in table(doc.get("nodes")) if "name" in n]
    links = []
    for link in table(doc.get("links")):
        if "a" in link and "b" in link:
            e = {"a": str(link["a"]), "b": str(link["b"])}
            e.update({k: float(link[k]) for k in ("rate_mbps", "length_km", "delay_us") if isinstance(link.get(k), (int, float))})
            links.append(e)
    conns = []
    calls = [c["connection"] for c in table(doc.get("calls")) if isinstance(c.get("connection"), Mapping)]
    for c in table(doc.get("connections")) + calls:
        route = c.get("route")
        if "name" in c and isinstance(route, list):
            conns.append({"name": str(c["name"]), "route": [str(r) for r in route], "category": str(c.get("category", "")),
                          "bidirectional": bool(c.get("bidirectional", False))})
    return {"nodes": nodes, "links": links, "connections": conns}


def network_from_ports(ports: Mapping[str, Any]) -> dict[str, Any]:
    """The nodes and links named by a summary's output ports ``FROM->TO`` (a run written before
    ``scenario.network`` existed): no kinds, rates, lengths or routes."""
    names: dict[str, None] = {}
    pairs: dict[frozenset[str], tuple[str, str]] = {}
    for p in ports:
        a, sep, b = str(p).partition("->")
        if sep and a and b:
            names.update({a: None, b: None})
            pairs.setdefault(frozenset((a, b)), (a, b))
    return {"nodes": [{"name": n, "kind": ""} for n in names], "links": [{"a": a, "b": b} for a, b in pairs.values()],
            "connections": []}


def network(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The network of a run's summary: ``scenario.network``, else ``network_from_ports``."""
    scen = summary.get("scenario")
    net = scen.get("network") if isinstance(scen, Mapping) else None
    if isinstance(net, Mapping) and isinstance(net.get("nodes"), list):
        return {"nodes": list(net["nodes"]), "links": list(net.get("links") or []),
                "connections": list(net.get("connections") or [])}
    return network_from_ports(summary.get("ports") or {})


def _reaches(succ: Mapping[str, list[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        u = todo.pop()
        if u == goal:
            return True
        for v in succ[u]:
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return False


def _layers(net: Mapping[str, Any]) -> dict[str, int]:
    """Layer of each node: the longest path over the directed hops (routes first, then the
    links no route crosses), a hop that would close a cycle left out; a node with no hop into it
    is pulled to one layer before the nearest node it sends to."""
    names = [n["name"] for n in net["nodes"]]
    succ: dict[str, list[str]] = {n: [] for n in names}
    hops = [(u, v) for c in net["connections"] for u, v in zip(c["route"], c["route"][1:])]
    hops += [(e["a"], e["b"]) for e in net["links"]]
    for u, v in hops:
        if u in succ and v in succ and u != v and v not in succ[u] and u not in succ[v] and not _reaches(succ, v, u):
            succ[u].append(v)
    preds = {n: 0 for n in names}
    for u in names:
        for v in succ[u]:
            preds[v] += 1
    layer = {n: 0 for n in names}
    todo = [n for n in names if preds[n] == 0]
    left = dict(preds)
    while todo:  # Kahn's order: every hop's tail is placed before its head
        u = todo.pop(0)
        for v in succ[u]:
            layer[v] = max(layer[v], layer[u] + 1)
            left[v] -= 1
            if left[v] == 0:
                todo.append(v)
    for n in names:
        if preds[n] == 0 and succ[n]:
            layer[n] = max(0, min(layer[v] for v in succ[n]) - 1)
    return layer


def layout(net: Mapping[str, Any], dx: float = 170.0, dy: float = 70.0, aspect: float = 2.3) -> dict[str, tuple[float, float]]:
    """``{node: (x, y)}``: layers left to right (``_layers``), each ordered by the barycentre of
    its neighbours in the layers beside it (four sweeps), centred on y = 0; layers at least
    ``dx`` apart, further (up to 5 ``dx``) when the tallest layer would make the drawing
    narrower than ``aspect`` (width / height)."""
    layer = _layers(net)
    nbrs: dict[str, list[str]] = {n: [] for n in layer}
    for e in net["links"]:
        if e["a"] in nbrs and e["b"] in nbrs:
            nbrs[e["a"]].append(e["b"])
            nbrs[e["b"]].append(e["a"])
    columns: dict[int, list[str]] = {}
    for n in layer:  # scenario order to start with
        columns.setdefault(layer[n], []).append(n)
    pos = {n: float(i) for col in columns.values() for i, n in enumerate(col)}
    order = sorted(columns)
    for sweep in range(4):
        for k in (order if sweep % 2 == 0 else order[::-1]):
            col = columns[k]
            side = k - 1 if sweep % 2 == 0 else k + 1

            def centre(n: str) -> float:
                near = [pos[m] for m in nbrs[n] if layer[m] == side] or [pos[m] for m in nbrs[n]] or [pos[n]]
                return sum(near) / len(near)

            col.sort(key=lambda n: (centre(n), pos[n]))
            # positions relative to the column's centre so columns of different sizes align
            for i, n in enumerate(col):
                pos[n] = i - (len(col) - 1) / 2
    tall = max((len(c) for c in columns.values()), default=1) - 1
    if len(columns) > 1 and tall > 0:
        dx = min(max(dx, aspect * tall * dy / (max(columns) - min(columns))), 5 * dx)
    return {n: (layer[n] * dx, pos[n] * dy) for n in layer}


def _buckets(times: np.ndarray, limit: int) -> tuple[np.ndarray, int]:
    """The frame of each distinct sample time (``limit`` frames at most) and samples per frame."""
    step = max(1, math.ceil(len(times) / limit))
    return np.arange(len(times)) // step, step


def frames(result: Any, net: Mapping[str, Any], limit: int = MAX_FRAMES) -> dict[str, Any]:
    """The animation's data: ``t`` (each frame's start, s), ``t_end`` (the end of the last),
    ``queue``/``util``/``drops`` ``{port: [per frame]}``, ``acr`` ``{connection: [per frame]}``,
    ``queue_max`` (the largest queue of any port in any frame), ``samples_per_frame``."""
    out: dict[str, Any] = {"t": [], "queue": {}, "util": {}, "drops": {}, "acr": {}, "queue_max": 0,
                           "samples_per_frame": 1, "drops_from_trace": False}
    if not result.has_series("ports"):
        return out
    ports = result.series("ports", columns=["time_s", "port", "queue_cells", "utilization"])
    if ports.empty:
        return out
    times = np.unique(ports["time_s"].to_numpy())
    frame_of, step = _buckets(times, limit)
    starts = times[::step]
    out["t"] = [round(float(t), 9) for t in starts]
    out["t_end"] = float(result.summary.get("sim_time_s") or times[-1])
    out["samples_per_frame"] = step
    n = len(starts)
    ports["frame"] = frame_of[np.searchsorted(times, ports["time_s"].to_numpy())]
    g = ports.groupby(["port", "frame"], sort=True)
    queue, util = g["queue_cells"].max(), g["utilization"].mean()
    for name in ports["port"].unique():
        q = queue.loc[name].reindex(range(n))
        u = util.loc[name].reindex(range(n))
        out["queue"][str(name)] = [None if pd.isna(v) else int(v) for v in q]
        out["util"][str(name)] = [None if pd.isna(v) else round(float(v), 3) for v in u]
    out["queue_max"] = int(max((max((v for v in q if v is not None), default=0) for q in out["queue"].values()), default=0))
    if result.has_series("abr_sources"):
        acr = result.series("abr_sources", columns=["time_s", "connection", "acr_mbps"])
        if not acr.empty:
            acr["frame"] = np.clip(np.searchsorted(starts, acr["time_s"].to_numpy(), side="right") - 1, 0, n - 1)
            mean = acr.groupby(["connection", "frame"], sort=True)["acr_mbps"].mean()
            for name in acr["connection"].unique():
                out["acr"][str(name)] = [None if pd.isna(v) else round(float(v), 3) for v in mean.loc[name].reindex(range(n))]
    if result.has_trace:
        drops = result.trace(kind="drop", columns=["port"])
        out["drops_from_trace"] = True
        if not drops.empty:
            drops["frame"] = np.clip(np.searchsorted(starts, drops["time_s"].to_numpy(), side="right") - 1, 0, n - 1)
            count = drops.groupby(["port", "frame"], sort=True, observed=True).size()
            for name in drops["port"].unique():
                out["drops"][str(name)] = [int(v) for v in count.loc[name].reindex(range(n), fill_value=0)]
    return out


def link_label(e: Mapping[str, Any]) -> str:
    """``149.76 Mb/s, 1000 km`` (what the link gives)."""
    parts = []
    if "rate_mbps" in e:
        parts.append(f"{e['rate_mbps']:g} Mb/s")
    if "length_km" in e:
        parts.append(f"{e['length_km']:g} km")
    elif "delay_us" in e:
        parts.append(f"{e['delay_us']:g} us")
    return ", ".join(parts)


def svg(net: Mapping[str, Any], summary: Mapping[str, Any], width: int = 640) -> str:
    """The topology as an inline SVG: nodes (switches as squares, other nodes as circles),
    links with their rate and length, each half of a link coloured by the utilization over the
    run of the output port at its end (``summary.ports``); "" for a network without nodes."""
    if not net["nodes"]:
        return ""
    pos = layout(net, dx=150.0, dy=46.0)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    pad = 40.0
    w, h = max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
    ox, oy = pad - min(xs), pad - min(ys)
    ports = summary.get("ports") or {}

    def util(a: str, b: str) -> float | None:
        v = (ports.get(f"{a}->{b}") or {}).get("utilization")
        return float(v) if isinstance(v, (int, float)) else None

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="atmsim-topology" width="{min(width, w):.0f}" '
           f'viewBox="0 0 {w:.0f} {h:.0f}" font-family="sans-serif" font-size="10">']
    for e in net["links"]:
        if e["a"] not in pos or e["b"] not in pos:
            continue
        (x1, y1), (x2, y2) = pos[e["a"]], pos[e["b"]]
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        title = html.escape(f"{e['a']} - {e['b']}: {link_label(e)}")
        out.append(f'<g class="link"><title>{title}</title>')
        for (xa, ya), (xb, yb), u in (((x1, y1), (mx, my), util(e["a"], e["b"])), ((mx, my), (x2, y2), util(e["b"], e["a"]))):
            out.append(f'<line x1="{xa + ox:.1f}" y1="{ya + oy:.1f}" x2="{xb + ox:.1f}" y2="{yb + oy:.1f}" '
                       f'stroke="{colour(u)}" stroke-width="4"/>')
        label = link_label(e)
        if label:
            out.append(f'<text x="{mx + ox:.1f}" y="{my + oy - 4:.1f}" text-anchor="middle" fill="#555">{html.escape(label)}</text>')
        out.append("</g>")
    for n in net["nodes"]:
        x, y = pos[n["name"]]
        x, y = x + ox, y + oy
        name = html.escape(n["name"])
        shape = (f'<rect x="{x - 8:.1f}" y="{y - 8:.1f}" width="16" height="16" fill="#1f4e79"/>' if n.get("kind") == "switch"
                 else f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="#8c959f"/>')
        out.append(f'<g class="node"><title>{name} ({html.escape(str(n.get("kind") or "node"))})</title>{shape}'
                   f'<text x="{x:.1f}" y="{y + 20:.1f}" text-anchor="middle">{name}</text></g>')
    out.append("</svg>")
    return "".join(out)
