"""One self-contained HTML page: plotly's JavaScript embedded once, figures as divs, tables,
images as data URIs. Nothing is fetched from the network when it is opened."""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["Page", "MAX_POINTS", "GENERATOR", "SIGNATURES"]

#: the tag that marks a page as atmsim's (in the head, before plotly's script)
GENERATOR = '<meta name="generator" content="atmsim report">'
#: how a report of atmsim's begins: with the tag, or (pages written before it) with its title
SIGNATURES = (
    GENERATOR.encode(),
    b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n<title>atmsim',
)

#: points per trace in the embedded figures: longer series are thinned to every k-th sample
MAX_POINTS = 4000

_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 1.5em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table.data { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
table.data th, table.data td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
table.data th { background: #f4f4f4; } table.data td.text { text-align: left; }
.held { color: #176f2c; font-weight: 600; } .not-held { color: #b00020; font-weight: 600; }
div.wide { overflow-x: auto; } .note { color: #555; font-size: 0.9em; } .plot { min-height: 360px; } img.png { max-width: 100%; }
.atmsim-network-graph { height: 520px; border: 1px solid #ddd; background: #fff; }
.atmsim-controls { margin: 0.4em 0; } .atmsim-slider { width: 50%; vertical-align: middle; }
table.atmsim-acr { border: none; } table.atmsim-acr td { border: none; padding: 0 4px; }
td.atmsim-acr-cell { width: 160px; } .atmsim-acr-bar { height: 10px; background: #0969da; width: 0; }
tr[data-connection]:hover { background: #eef4ff; }
"""


def thin(frame: pd.DataFrame, limit: int = MAX_POINTS) -> pd.DataFrame:
    """Every k-th row so that at most ``limit`` rows are left (the first and order are kept)."""
    if len(frame) <= limit:
        return frame
    step = math.ceil(len(frame) / limit)
    return frame.iloc[::step]


def fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


class Page:
    """Sections appended in order, then ``write(path)``."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.parts: list[str] = []
        self.figures = 0
        #: scripts the page embeds once, in the head, in order: name -> file
        self.scripts: dict[str, Path] = {}

    def heading(self, text: str, level: int = 2) -> None:
        self.parts.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def text(self, text: str, cls: str = "") -> None:
        attr = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{attr}>{html.escape(text)}</p>")

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[Any]], classes: Sequence[Sequence[str]] | None = None) -> None:
        rows = [list(r) for r in rows]
        # a float a million times smaller than the largest of its column is shown as 0: a queue
        # of 3.4e-08 cells beside queues of hundreds is float noise to a reader, not a figure
        for j in range(len(headers)):
            floats = [abs(r[j]) for r in rows if j < len(r) and isinstance(r[j], float) and math.isfinite(r[j])]
            big = max(floats, default=0.0)
            if big > 0:
                for r in rows:
                    if j < len(r) and isinstance(r[j], float) and math.isfinite(r[j]) and abs(r[j]) < big * 1e-6:
                        r[j] = 0.0
        out = ['<div class="wide"><table class="data"><thead><tr>']
        out += [f"<th>{html.escape(str(h))}</th>" for h in headers]
        out.append("</tr></thead><tbody>")
        for i, row in enumerate(rows):
            out.append("<tr>")
            for j, cell in enumerate(row):
                text = fmt(cell)
                cls = "text" if not isinstance(cell, (int, float)) or isinstance(cell, bool) else ""
                if classes is not None and classes[i][j]:
                    cls = (cls + " " + classes[i][j]).strip()
                out.append(f'<td class="{cls}">{html.escape(text)}</td>' if cls else f"<td>{html.escape(text)}</td>")
            out.append("</tr>")
        out.append("</tbody></table></div>")
        self.parts.append("".join(out))

    def frame(self, frame: pd.DataFrame) -> None:
        self.table(list(frame.columns), frame.itertuples(index=False))  # type: ignore[arg-type]

    def figure(self, fig: Any) -> None:
        """A plotly figure (its data inline; the library is embedded once in the page)."""
        self.figures += 1
        fig.update_layout(template="plotly_white", margin=dict(l=60, r=20, t=50, b=50), height=420)
        self.parts.append(
            fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"plot{self.figures}",
                        config={"displaylogo": False, "responsive": True})
            .replace('<div id="plot', '<div class="plot atmsim-plot" id="plot', 1)
        )

    def raw(self, markup: str, scripts: dict[str, Path] | None = None) -> None:
        """Markup of ours as it is, and the script files it needs (each embedded once)."""
        self.parts.append(markup)
        for name, path in (scripts or {}).items():
            self.scripts.setdefault(name, path)

    def image(self, path: Path, caption: str = "") -> None:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        self.parts.append(
            f'<figure><img class="png" alt="{html.escape(caption or path.stem)}" src="data:image/png;base64,{data}">'
            f"<figcaption class=\"note\">{html.escape(caption or path.name)}</figcaption></figure>"
        )

    def render(self) -> str:
        from plotly.offline import get_plotlyjs

        return "\n".join([
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            GENERATOR,
            f"<title>{html.escape(self.title)}</title>",
            f"<style>{_CSS}</style>",
            f'<script type="text/javascript">{get_plotlyjs()}</script>',
            *(f'<script type="text/javascript" data-name="{html.escape(name)}">{path.read_text(encoding="utf-8")}</script>'
              for name, path in self.scripts.items()),
            "</head><body>",
            f"<h1>{html.escape(self.title)}</h1>",
            *self.parts,
            "</body></html>",
        ])

    def write(self, path: Path) -> Path:
        """Written atomically (a temporary file renamed into place). An existing file at
        ``path`` is replaced only if it is a report atmsim wrote (its generator tag, or listed in
        its directory's marker file); a file of someone else's, a link, a FIFO or a device is
        refused (``ScenarioError``; ``atmsim.outdir.replace_file``)."""
        from ..outdir import file_head_holds, replace_file

        text = self.render()
        return replace_file(path, lambda tmp: tmp.write_text(text, encoding="utf-8"),
                            ours=lambda p: file_head_holds(p, SIGNATURES, 512))
