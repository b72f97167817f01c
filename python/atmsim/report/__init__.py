"""HTML reports: ``atmsim report DIR`` for a run, a study, a reproduction or a ``reproduce all``
index. One self-contained file (``DIR/report.html``): plotly with its JavaScript embedded, no
network needed to open it; summary tables; interactive time series; sweep curves with
confidence bands; published-vs-ours tables for reproductions. See docs/study.md."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import ScenarioError
from ..extras import require

require("report", "atmsim.report")  # plotly: one line naming the extra, not an ImportError

from .page import Page  # noqa: E402

__all__ = ["report", "kind_of"]

REPORT_FILE = "report.html"


def _json_object(path: Path, what: str) -> dict:
    """The JSON object in ``path`` (a regular file of at most ``MAX_JSON_BYTES``), else a
    one-line ``ScenarioError`` saying what is wrong with it (never its contents)."""
    from ..files import MAX_JSON_BYTES, Unreadable, read_limited

    try:
        data = json.loads(read_limited(path, MAX_JSON_BYTES).decode("utf-8"))
    except Unreadable as e:
        raise ScenarioError(str(path), "", e.reason) from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ScenarioError(str(path), "", f"is not valid JSON: not {what} written by atmsim") from None
    if not isinstance(data, dict):
        raise ScenarioError(str(path), "", f"is not {what} written by atmsim (not a JSON object)")
    return data


def _study_info(directory: Path) -> dict | None:
    """study.json as a dict (None without one), checked for what a report reads of it."""
    p = directory / "study.json"
    if not p.is_file():
        return None
    info = _json_object(p, "a study")
    if not isinstance(info.get("kind"), str) or not isinstance(info.get("spec", {}), dict):
        raise ScenarioError(str(p), "", "is not a study written by atmsim (no kind, or its spec is not a table)")
    return info


def kind_of(directory: Path) -> str:
    """``run`` (summary.json), ``study`` / ``reproduction`` (study.json of that kind) or
    ``index`` (index.json of ``atmsim reproduce all``)."""
    if (directory / "index.json").is_file():
        return "index"
    info = _study_info(directory)
    if info is not None:
        return "reproduction" if info.get("kind") == "reproduce" else "study"
    if (directory / "summary.json").is_file():
        return "run"
    raise ScenarioError(str(directory), "", "no run (summary.json), study (study.json) or reproduction here")


def report(directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Write the HTML report of ``directory`` to ``out`` (default ``DIR/report.html``); returns
    its path. Raises ``ScenarioError`` if the directory holds nothing to report."""
    d = Path(directory)
    if not d.is_dir():
        raise ScenarioError(str(d), "", "no such directory")
    try:
        return _report(d, out)
    except (ScenarioError, KeyboardInterrupt, MemoryError, OSError):
        raise
    except Exception as e:
        # a file of the directory that is not what atmsim wrote there (edited, truncated,
        # another program's): one line, never its contents
        raise ScenarioError(
            str(d), "", f"cannot report: a file here is damaged or not atmsim's ({type(e).__name__})"
        ) from None


def _report(d: Path, out: str | os.PathLike[str] | None) -> Path:
    kind = kind_of(d)
    target = Path(out) if out is not None else d / REPORT_FILE
    if kind == "run":
        from ..result import Result
        from .run import add_run

        result = Result.read(d)
        scen = (result.summary.get("scenario") or {}).get("file") or d.name
        page = Page(f"atmsim run: {scen}")
        add_run(page, result)
    elif kind == "study":
        from .study import add_study

        info = _study_info(d) or {}
        page = Page(f"atmsim study: {Path(str((info.get('spec') or {}).get('scenario', d.name))).name}")
        add_study(page, d, info)
    elif kind == "reproduction":
        from .reproduction import add_reproduction

        page = Page(f"atmsim reproduction: {d.name}")
        add_reproduction(page, d)
    else:
        from .reproduction import add_index

        index = _json_object(d / "index.json", "an index of 'atmsim reproduce all'")
        if not isinstance(index.get("experiments", []), list):
            raise ScenarioError(str(d / "index.json"), "", "is not an index of 'atmsim reproduce all' (experiments is not a list)")
        page = Page("atmsim: every paper experiment reproduced")
        add_index(page, d, index)
    return page.write(target)
