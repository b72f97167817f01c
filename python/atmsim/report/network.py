"""The network of a run, drawn and animated in its report (issue 28 item 4): the topology
(nodes, links with rate and length, each connection's route highlighted when its name is
hovered) at the positions ``atmsim.netview.layout`` computes, a time slider and a play button
that colour each output port by its queue or utilization in each frame (``netview.frames``:
from the ``ports`` series, with the drops per port from the trace when the run has one), and
each ABR connection's ACR per frame (``abr_sources``). Drawn by Cytoscape.js (``vendor/``,
embedded once per page) with ``network.js``."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from .. import netview
from ..result import Result
from .page import Page

__all__ = ["add_network", "network_data", "CYTOSCAPE", "NETWORK_JS"]

HERE = Path(__file__).resolve().parent
#: the vendored library (vendor/README.md: version, source, checksum) and our script
CYTOSCAPE = HERE / "vendor" / "cytoscape.min.js"
NETWORK_JS = HERE / "network.js"


def network_data(result: Result, limit: int = netview.MAX_FRAMES) -> dict[str, Any]:
    """What ``network.js`` draws: nodes with positions, links with labels, connections with
    routes, the frames, and the ACR bar scale (the largest ACR of any frame, Mb/s)."""
    net = netview.network(result.summary)
    pos = netview.layout(net)
    fr = netview.frames(result, net, limit)
    acr_max = max((v for vs in fr["acr"].values() for v in vs if v is not None), default=0.0)
    return {
        "nodes": [{"name": n["name"], "kind": n.get("kind", ""), "x": pos[n["name"]][0], "y": pos[n["name"]][1]}
                  for n in net["nodes"]],
        "links": [{"a": e["a"], "b": e["b"], "label": netview.link_label(e)} for e in net["links"]
                  if e["a"] in pos and e["b"] in pos],
        "connections": net["connections"],
        "frames": fr,
        "acr_scale": acr_max or 1.0,
    }


def _connections_table(data: dict[str, Any]) -> str:
    acr = data["frames"]["acr"]
    rows = []
    for c in data["connections"]:
        name = html.escape(c["name"])
        cells = [f'<td class="text" data-connection="{name}"><b>{name}</b></td>',
                 f'<td class="text">{html.escape(c["category"])}</td>',
                 f'<td class="text">{html.escape(" > ".join(c["route"]))}</td>']
        names = [n for n in (c["name"], c["name"] + ".reverse") if n in acr] if acr else []
        if names:
            tr = [f'<tr data-acr="{html.escape(n)}"><td class="text">{html.escape(n)}</td>'
                  '<td class="atmsim-acr-cell"><div class="atmsim-acr-bar"></div></td>'
                  '<td class="atmsim-acr-value"></td></tr>' for n in names]
            cells.append('<td><table class="atmsim-acr">' + "".join(tr) + "</table></td>")
        else:
            cells.append("<td></td>")
        rows.append(f'<tr data-connection="{name}">' + "".join(cells) + "</tr>")
    if not rows:
        return '<p class="note">No routes recorded for this run (written before atmsim kept them): links only.</p>'
    head = "<tr><th>connection (hover: its route)</th><th>category</th><th>route</th><th>ACR, Mb/s (frame shown)</th></tr>"
    return f'<div class="wide"><table class="data atmsim-connections"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table></div>'


def add_network(page: Page, result: Result, label: str = "") -> None:
    """The network view (a heading, the graph with its controls, the connections' table)."""
    data = network_data(result)
    if not data["nodes"]:
        return
    fr = data["frames"]
    n = len(fr["t"])
    page.heading((f"{label}: " if label else "") + "network")
    note = (f"{len(data['nodes'])} nodes, {len(data['links'])} links. Each link's half at a node is that node's "
            f"output port; its colour is the port's queue or utilization in the frame shown ({n} frames of "
            f"{fr['samples_per_frame']} sample(s) each, from the ports series"
            + ("; drops per port from the trace" if fr["drops_from_trace"] else "") + "). Hover a link for its ports, "
            "a connection's name for its route.")
    page.text(note, "note")
    text = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    page.raw(
        '<div class="atmsim-network">'
        '<div class="atmsim-controls"><button type="button" class="atmsim-play">Play</button> '
        f'<input type="range" class="atmsim-slider" min="0" max="{max(n - 1, 0)}" step="1" value="0"> '
        '<select class="atmsim-metric"><option value="queue">queue</option><option value="util">utilization</option></select> '
        '<span class="atmsim-clock"></span></div>'
        '<div class="atmsim-legend note"></div>'
        '<div class="atmsim-network-graph"></div>'
        '<div class="atmsim-tip note">&nbsp;</div>'
        f'<script type="application/json" class="atmsim-network-data">{text}</script>'
        + _connections_table(data) + "</div>",
        scripts={"cytoscape": CYTOSCAPE, "atmsim-network": NETWORK_JS},
    )
