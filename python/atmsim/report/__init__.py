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


def kind_of(directory: Path) -> str:
    """``run`` (summary.json), ``study`` / ``reproduction`` (study.json of that kind) or
    ``index`` (index.json of ``atmsim reproduce all``)."""
    if (directory / "index.json").is_file():
        return "index"
    if (directory / "study.json").is_file():  # a run's report needs no study extra
        from ..study.store import read_study

        info = read_study(directory)
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
        from ..study.store import read_study
        from .study import add_study

        info = read_study(d) or {}
        page = Page(f"atmsim study: {Path(str((info.get('spec') or {}).get('scenario', d.name))).name}")
        add_study(page, d, info)
    elif kind == "reproduction":
        from .reproduction import add_reproduction

        page = Page(f"atmsim reproduction: {d.name}")
        add_reproduction(page, d)
    else:
        from .reproduction import add_index

        index = json.loads((d / "index.json").read_text(encoding="utf-8"))
        page = Page("atmsim: every paper experiment reproduced")
        add_index(page, d, index)
    return page.write(target)
