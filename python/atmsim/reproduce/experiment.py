"""What an experiment of ``atmsim reproduce`` is made of, and the pieces every experiment module
uses: ``RunSpec``, ``Row``, ``Experiment``, ``Report``; the reference data (``load_reference``),
where scenario files live (``scenarios_dir``), a run's validated scenario (``resolve_run``); the
comparison's text, Markdown and CSV forms. A claim is judged by its experiment, which sets
``Row.held`` (true or false on every claim row). The experiment modules (``seed000`` ...) import from here, and the registry and
``reproduce()`` (the package's ``__init__``) import them, so no import goes back up. Everything
here is also importable from ``atmsim.reproduce``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from ..result import Result

__all__ = [
    "RunSpec",
    "Row",
    "Experiment",
    "Report",
    "COLUMNS",
    "CSV_EXTRA",
    "REFERENCE_DIR",
    "load_reference",
    "scenarios_dir",
    "resolve_run",
    "format_table",
    "markdown_table",
    "comparison_csv",
    "replace",
]

#: columns of ``comparison.csv`` (and of the printed table)
COLUMNS = ("quantity", "run", "published", "ours", "difference", "source")
#: extra columns of ``comparison.csv``: the standard deviation of ours over replications, and
#: their number (empty / 1 for a single run), and for a qualitative row the experiment's verdict
#: whether the seed's claim held (``true`` / ``false``; empty for a row that is not a claim)
CSV_EXTRA = ("ours_sd", "replications", "held")

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"


# ------------------------------------------------------------------------------------ data types


@dataclass(frozen=True)
class RunSpec:
    """One run of an experiment.

    ``scenario`` is relative to the scenarios directory (``scenarios_dir()``); ``overrides`` are
    ``{key path: value}`` as for ``--set``; ``abr`` sets keys of the ``abr`` table of *every* ABR
    connection of the scenario (``{"nrm": 8}`` becomes ``connections.<name>.abr.nrm = 8`` for each
    connection with ``category = "abr"``), applied before ``overrides``.
    """

    name: str
    scenario: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    abr: Mapping[str, Any] = field(default_factory=dict)
    #: free-form parameters the experiment's compare/plots functions read (e.g. {"nrm": 8})
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Row:
    """One line of the comparison: a quantity of one run, the published value beside ours.

    ``published`` and ``ours`` are numbers, or text for qualitative statements, or ``None``
    (nothing published / could not be measured). ``difference`` is ``ours - published`` when both
    are numbers.
    """

    quantity: str
    run: str
    published: float | str | None
    ours: float | str | None
    source: str
    digits: int = 3
    #: replications with different seeds: ``ours`` is their mean, ``spread`` their standard
    #: deviation
    spread: float | None = None
    replications: int = 1
    #: for a claim row, whether the seed's claim held in ours, decided by the experiment by a rule
    #: it states (every claim row of every experiment sets it); ``None``: the row is not a claim
    held: bool | None = None

    @property
    def difference(self) -> float | None:
        p, o = self.published, self.ours
        if _number(p) and _number(o) and math.isfinite(p) and math.isfinite(o):  # type: ignore[arg-type]
            return float(o) - float(p)  # type: ignore[arg-type]
        return None

    @property
    def relative(self) -> float | None:
        """``difference / published`` when both are numbers and published is not 0."""
        d = self.difference
        if d is None or not self.published:
            return None
        return d / float(self.published)  # type: ignore[arg-type]

    def cells(self, source_width: int | None = None) -> list[str]:
        """Formatted cells, in ``COLUMNS`` order; the difference also as a percentage of the
        published value; ``source_width`` shortens the source (for the terminal)."""
        diff = _format(self.difference, self.digits, signed=True)
        rel = self.relative
        if rel is not None and diff:
            diff += f" ({rel:+.1%})"
        ours = _format(self.ours, self.digits)
        if self.spread is not None and ours:
            ours += f" +- {_format(self.spread, 2)} (n={self.replications})"
        source = self.source
        if source_width is not None and len(source) > source_width:
            source = source[: source_width - 3].rstrip() + "..."
        return [
            self.quantity,
            self.run,
            _format(self.published, self.digits),
            ours,
            diff,
            source,
        ]


@dataclass(frozen=True)
class Experiment:
    """An entry of the registry (see ``atmsim.reproduce``'s docstring)."""

    name: str
    title: str
    #: seed file name under ../shared/seeds/
    seed_file: str
    #: ``runs(quick)`` -> the runs; ``--quick`` must stay well under a minute
    runs: Callable[[bool], list[RunSpec]]
    #: ``compare(results, reference, specs)`` -> rows; ``results`` maps run name -> Result
    compare: Callable[[Mapping[str, Result], dict[str, Any], Sequence[RunSpec]], list[Row]]
    #: ``plots(results, specs, directory)`` -> paths of the PNG files written
    plots: Callable[[Mapping[str, Result], Sequence[RunSpec], Path], list[Path]]
    #: reference file name under reference/ (default ``<name>.toml``)
    reference: str = ""
    #: Markdown paragraphs for report.md: how our values are measured
    method: str = ""


@dataclass
class Report:
    """What ``reproduce`` produced."""

    experiment: str
    out: Path
    rows: list[Row]
    plots: list[Path]
    runs: dict[str, float]  # run name -> wall time (s)
    wall_time_s: float

    def table(self) -> str:
        return format_table(self.rows)


# ------------------------------------------------------------------------------------ reference data


def load_reference(experiment: Experiment) -> dict[str, Any]:
    """The reference data of ``experiment`` (the parsed TOML file)."""
    path = REFERENCE_DIR / (experiment.reference or f"{experiment.name}.toml")
    with open(path, "rb") as f:
        return tomllib.load(f)


def scenarios_dir() -> Path:
    """Where scenario files live: ``$ATMSIM_SCENARIOS``, else the source tree's ``scenarios/``,
    else ``./scenarios``."""
    env = os.environ.get("ATMSIM_SCENARIOS")
    if env:
        return Path(env)
    tree = Path(__file__).resolve().parents[3] / "scenarios"
    if tree.is_dir():
        return tree
    return Path("scenarios")


# ------------------------------------------------------------------------------------ formatting


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _format(x: Any, digits: int = 3, signed: bool = False) -> str:
    if x is None:
        return ""
    if _number(x):
        if isinstance(x, float) and not math.isfinite(x):
            return "n/a"
        if abs(x) >= 10**digits:  # large counts: all digits, no exponent
            return f"{x:+.0f}" if signed else f"{x:.0f}"
        return f"{x:+.{digits}g}" if signed else f"{x:.{digits}g}"
    return str(x)


def format_table(rows: Sequence[Row], columns: Sequence[str] = COLUMNS, source_width: int | None = 32) -> str:
    """Plain-text table of the rows (for the terminal; sources shortened to ``source_width``
    characters, in full in report.md and comparison.csv)."""
    from ..tables import render

    cells = [r.cells(source_width) for r in rows]
    # at most 100 columns: the quantity, run and source wrap (atmsim.tables)
    return render(columns, cells, numeric=[2, 3, 4], wrap={0: 24, 1: 16, 2: 12, 3: 12, 4: 10, len(columns) - 1: 16})


def markdown_table(rows: Sequence[Row], columns: Sequence[str] = COLUMNS) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r.cells()) + " |" for r in rows]
    return "\n".join(out)


def comparison_csv(rows: Sequence[Row]) -> str:
    """``comparison.csv``: numbers in full precision, empty cells for missing values."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS + CSV_EXTRA)

    def raw(x: Any) -> str:
        if x is None:
            return ""
        if _number(x):
            return repr(float(x)) if math.isfinite(x) else ""
        return str(x)

    for r in rows:
        w.writerow(
            [r.quantity, r.run, raw(r.published), raw(r.ours), raw(r.difference), r.source, raw(r.spread), r.replications,
             "" if r.held is None else str(r.held).lower()]
        )
    return buf.getvalue()


# ------------------------------------------------------------------------------------ a run's scenario


def resolve_run(spec: RunSpec) -> tuple[dict[str, Any], Any]:
    """Load and validate the run's scenario with its overrides: ``(doc, provenance)``."""
    from ..scenario import load_scenario

    path = scenarios_dir() / spec.scenario
    overrides: dict[str, Any] = {}
    if spec.abr:
        base, _ = load_scenario(path, validate=False)
        names = [
            c.get("name")
            for c in base.get("connections") or []
            if isinstance(c, dict) and c.get("category") == "abr"
        ]
        if not names:
            raise ScenarioError(str(path), "connections", f"run {spec.name!r} sets ABR keys but the scenario has no ABR connection")
        for n in names:
            for key, value in spec.abr.items():
                overrides[f"connections.{n}.abr.{key}"] = value
    overrides.update(spec.overrides)
    return load_scenario(path, overrides)


def replace(obj: Any, **changes: Any) -> Any:
    """A copy of a ``RunSpec`` or ``Experiment`` with some fields changed (``dataclasses.replace``)."""
    return dataclasses.replace(obj, **changes)
