"""Plain-text tables that fit the terminal: at most 100 columns wide (the terminal's width when
it is narrower), as the command line prints them (``atmsim run``, ``sweep``, ``reproduce``,
``results query``).

A table that is too wide first wraps its headers onto several lines (at spaces), then the text of
the columns allowed to wrap (``wrap``: a long quantity or source), and then, if it is still too
wide, goes on in blocks of columns one under the other, each block repeating the first column
(the row's name). ``max_blocks`` cuts a very wide table (a query's 363 columns) with a line saying
what was left out.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping, Sequence

__all__ = ["WIDTH", "width", "render", "headers_of", "video_table", "workload_table", "frame"]

#: the widest a table gets
WIDTH = 100
_GAP = "  "


def width() -> int:
    """100, or the terminal's width when stdout is a narrower terminal (never below 40)."""
    cols = WIDTH
    if sys.stdout is not None and sys.stdout.isatty():
        cols = min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns)
    elif os.environ.get("COLUMNS", "").isdigit():
        cols = min(WIDTH, int(os.environ["COLUMNS"]))
    return max(40, cols)


def _total(widths: Sequence[int]) -> int:
    return sum(widths) + len(_GAP) * (len(widths) - 1)


_PIECE = re.compile(r"(?:[^\s.\-]|-(?!>))*(?:->|\.)?|\s+|.")


def _pieces(text: str) -> list[str]:
    """``text`` cut after each space, dot or arrow (a key path wraps at its dots)."""
    return [p for p in _PIECE.findall(text) if p]


def _longest_word(text: str) -> int:
    return max((len(w.strip()) for w in _pieces(text)), default=0)


def _narrower(header: str, w: int, floor: int) -> int:
    """The next width below ``w`` (not below ``floor``) at which ``header`` wraps onto one more
    line, or ``w`` when there is none."""
    lines = len(_lines(header, w))
    for cand in range(w - 1, floor - 1, -1):
        if len(_lines(header, cand)) > lines:
            return max([floor] + [len(line) for line in _lines(header, cand)])
    return w


def _lines(text: str, w: int) -> list[str]:
    if len(text) <= w:
        return [text]
    out: list[str] = []
    cur = ""
    for piece in _pieces(text):
        if len(cur) + len(piece.rstrip()) > w and cur.strip():
            out.append(cur.rstrip())
            cur = piece.lstrip()
        else:
            cur += piece
        while len(cur.rstrip()) > w:  # a piece longer than the column
            out.append(cur[:w])
            cur = cur[w:]
    if cur.strip():
        out.append(cur.rstrip())
    return out or [""]


def render(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    numeric: Sequence[int] | None = None,
    wrap: Mapping[int, int] | None = None,
    max_width: int | None = None,
    max_blocks: int | None = None,
) -> str:
    """The table of ``headers`` and ``rows`` (strings), at most ``max_width`` columns wide
    (default ``width()``). ``numeric``: the columns aligned right (default: all but the first);
    ``wrap``: column -> the width its cells wrap at when the table is too wide."""
    n = len(headers)
    limit = max_width or width()
    right = set(range(1, n)) if numeric is None else set(numeric)
    wrap = dict(wrap or {})
    cells = [[str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    if _total(widths) > limit:  # headers on several lines, the ones that gain most first
        floor = [max([_longest_word(h), 1] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
        while _total(widths) > limit:
            gains = [(widths[i] - _narrower(headers[i], widths[i], floor[i]), i) for i in range(n)]
            gain, i = max(gains)
            if gain <= 0:
                break
            widths[i] -= gain
    if _total(widths) > limit and wrap:  # then the text columns that may wrap
        for i, w in wrap.items():
            widths[i] = min(widths[i], max(w, _longest_word(headers[i])))
    blocks: list[list[int]] = []
    rest = list(range(1, n))
    while rest or not blocks:
        block = [0]
        while rest and (_total([widths[j] for j in block + [rest[0]]]) <= limit or len(block) == 1):
            block.append(rest.pop(0))
        blocks.append(block)
        if not rest:
            break
    note = ""
    if max_blocks is not None and len(blocks) > max_blocks:
        hidden = [headers[j] for b in blocks[max_blocks:] for j in b[1:]]
        blocks = blocks[:max_blocks]
        shown = ", ".join(hidden[:6]) + (", ..." if len(hidden) > 6 else "")
        note = "\n".join(_lines(f"({len(hidden)} more column{'s' if len(hidden) != 1 else ''} not shown: {shown})", limit))
    out = [_block(headers, cells, widths, b, right) for b in blocks]
    return "\n\n".join(out) + (f"\n{note}" if note else "")


def _block(headers: Sequence[str], cells: list[list[str]], widths: list[int], cols: list[int], right: set[int]) -> str:
    def line(items: Sequence[str]) -> str:
        parts = [(s.rjust(widths[j]) if j in right else s.ljust(widths[j])) for s, j in zip(items, cols)]
        return _GAP.join(parts).rstrip()

    head = [_lines(headers[j], widths[j]) for j in cols]
    depth = max(len(h) for h in head)
    head = [[""] * (depth - len(h)) + h for h in head]  # bottom-aligned
    out = [line([h[k] for h in head]) for k in range(depth)]
    out.append(line(["-" * widths[j] for j in cols]))
    rows_out: list[list[str]] = []
    for r in cells:
        parts = [_lines(r[j], widths[j]) for j in cols]
        height = max(len(p) for p in parts)
        rows_out.append([line([p[k] if k < len(p) else "" for p in parts]) for k in range(height)])
    loose = any(len(r) > 1 for r in rows_out)  # rows of several lines: a blank line between rows
    body = ("\n\n" if loose else "\n").join("\n".join(r) for r in rows_out)
    return "\n".join(out) + ("\n" + body if rows_out else "")


# ------------------------------------------------------------------------------------ run tables


def _fmt(value: object, spec: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and spec:
        return format(value, spec)
    return str(value)


def video_table(conns: Mapping[str, dict]) -> str | None:
    """One row per video connection (its ``video`` section): frames sent, received, lost and still
    in the network, the loss, the share of frame intervals beyond the playout buffer, the frame
    delays; None without one."""
    video = {n: c["video"] for n, c in conns.items() if isinstance(c.get("video"), dict)}
    if not video:
        return None
    headers = ["video connection", "frames sent", "received", "lost", "in network", "loss %", "beyond playout %",
               "delay mean ms", "delay max ms"]
    rows = [[n, _fmt(v.get("frames_sent")), _fmt(v.get("frames_received")), _fmt(v.get("frames_lost")),
             _fmt(v.get("frames_in_network")), _fmt(v.get("frame_loss_pct"), ".3f"), _fmt(v.get("beyond_playout_pct"), ".3f"),
             _fmt(v.get("frame_delay_mean_ms"), ".3f"), _fmt(v.get("frame_delay_max_ms"), ".3f")]
            for n, v in sorted(video.items())]
    return render(headers, rows)


def workload_table(conns: Mapping[str, dict]) -> str | None:
    """One row per workload connection: its AAL5 frames (sent, delivered, lost), the script's
    bytes (sent, received, in the network), its statements and whether it completed; None
    without one."""
    work = {n: c for n, c in conns.items() if isinstance(c.get("workload"), dict)}
    if not work:
        return None
    headers = ["workload connection", "transport", "frames sent", "delivered", "lost", "bytes sent", "received",
               "in network", "statements", "complete", "end s"]
    rows = []
    for n, c in sorted(work.items()):
        w = c["workload"]
        rows.append([n, _fmt(w.get("transport")), _fmt(c.get("frames_sent")), _fmt(c.get("frames_delivered")),
                     _fmt(c.get("frames_lost")), _fmt(w.get("bytes_sent")), _fmt(w.get("bytes_received")),
                     _fmt(w.get("bytes_in_network")), _fmt(len(w.get("statements") or [])), _fmt(w.get("complete")),
                     _fmt(w.get("end_s"), ".4f")])
    return render(headers, rows, numeric=range(2, len(headers)))


def frame(frame_: "object", float_format: str = ".6g", **kwargs: object) -> str:
    """A pandas DataFrame as a table (numbers right-aligned, floats as ``float_format``, missing
    values as ``-``); ``kwargs`` go to ``render``."""
    import math

    import pandas as pd

    df = frame_  # type: ignore[assignment]
    assert isinstance(df, pd.DataFrame)
    numeric = [i for i, c in enumerate(df.columns) if pd.api.types.is_numeric_dtype(df[c]) and i > 0]

    def cell(v: object) -> str:
        if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
            return "-"
        if isinstance(v, float):
            return format(v, float_format)
        return str(v)

    rows = [[cell(v) for v in r] for r in df.itertuples(index=False)]
    return render([str(c) for c in df.columns], rows, numeric=kwargs.pop("numeric", numeric), **kwargs)  # type: ignore[arg-type]


def headers_of(text: str) -> list[str]:
    """The column headers of every table in ``text`` (as ``render`` printed them, wrapped headers
    joined again with spaces), in order: for tools and tests that read a table back."""
    lines = text.splitlines()
    out: list[str] = []
    for k, line in enumerate(lines):
        if not line or set(line.replace(" ", "")) != {"-"}:
            continue
        spans = [(m.start(), m.end()) for m in re.finditer(r"-+", line)]
        head: list[str] = []
        j = k - 1
        while j >= 0 and lines[j].strip():
            head.insert(0, lines[j])
            j -= 1
        for a, b in spans:
            words = [h[a:b].strip() for h in head if h[a:b].strip()]
            out.append(" ".join(words))
    return out
