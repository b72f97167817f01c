"""Reproduction of the seed documents' experiments: ``atmsim reproduce EXPERIMENT``.

An *experiment* (one per seed study, e.g. ``seed003``) is

- a list of runs: scenario files under ``scenarios/`` plus overrides (``RunSpec``);
- reference values stored as data, ``reference/<experiment>.toml``, each with its source (seed
  file, figure or table, row, quote); a reference is either a number the source states or the
  inputs of a formula (such as a max-min fair allocation) that is evaluated independently of the
  simulator, never a value taken from our own output;
- a ``compare`` function that measures our value for each reference from the run results and
  returns the comparison rows;
- a ``plots`` function that draws the figures.

``reproduce(name, quick=..., out=..., jobs=..., dask=...)`` validates every run first (bad input
fails before anything runs or is written), runs them as a study (``atmsim.study``: every local
core or a Dask cluster; each run stored in ``DIR`` as it completes, so a reproduction started
again skips what it has), and writes ``DIR/report.md``, ``DIR/comparison.csv``,
``DIR/plots/*.png`` and ``DIR/runs/<run>/`` (links to each run's ``summary.json`` and Parquet
series in the store). The report files are built in a temporary directory and replace the earlier
ones only when all are complete, so an interrupted or failed reproduction leaves an earlier
complete report intact. See ``docs/reproduce.md`` for how to add an experiment.
"""

from __future__ import annotations

import csv
import dataclasses
import importlib
import io
import math
import os
import shutil
import time
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
    "EXPERIMENT_MODULES",
    "experiment_names",
    "get_experiment",
    "load_reference",
    "scenarios_dir",
    "reproduce",
    "COLUMNS",
]

#: modules of ``atmsim.reproduce`` that each define ``EXPERIMENT`` (an ``Experiment``)
EXPERIMENT_MODULES: tuple[str, ...] = ("seed000", "seed001", "seed002", "seed003", "seed004")

#: columns of ``comparison.csv`` (and of the printed table)
COLUMNS = ("quantity", "run", "published", "ours", "difference", "source")
#: extra columns of ``comparison.csv``: the standard deviation of ours over replications, and
#: their number (empty / 1 for a single run), and for a qualitative row the experiment's verdict
#: whether the seed's claim held (``true`` / ``false``, empty when not judged)
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
    #: for a qualitative row, whether the seed's claim held in ours, decided by the experiment
    #: (``None``: not judged, or left to ``study.reproduction.claim_held``'s text rule)
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
    """An entry of the registry (see the module docstring)."""

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


# ------------------------------------------------------------------------------------ registry


def experiment_names() -> list[str]:
    return [_module(m).EXPERIMENT.name for m in EXPERIMENT_MODULES]


def _module(name: str) -> Any:
    return importlib.import_module(f"{__name__}.{name}")


def get_experiment(name: str) -> Experiment:
    """The registered experiment called ``name`` (raises ``ScenarioError`` if there is none)."""
    for m in EXPERIMENT_MODULES:
        exp = _module(m).EXPERIMENT
        if exp.name == name:
            return exp
    raise ScenarioError("", "", f"no experiment named {name!r}; available: {', '.join(experiment_names())}")


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


def format_table(rows: Sequence[Row], columns: Sequence[str] = COLUMNS, source_width: int | None = 60) -> str:
    """Plain-text table of the rows (for the terminal; sources shortened to ``source_width``
    characters, in full in report.md and comparison.csv)."""
    cells = [r.cells(source_width) for r in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    numeric = {2, 3, 4}

    def line(items: Sequence[str]) -> str:
        return "  ".join(
            (s.rjust(w) if i in numeric else s.ljust(w)) for i, (s, w) in enumerate(zip(items, widths))
        ).rstrip()

    return "\n".join([line(columns), line(["-" * w for w in widths])] + [line(r) for r in cells])


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


# ------------------------------------------------------------------------------------ running


def _resolve(spec: RunSpec) -> tuple[dict[str, Any], Any]:
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


def default_out(name: str) -> Path:
    return Path("results") / "reproduce" / name


def reproduce(
    name: str,
    quick: bool = False,
    out: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    log: Callable[[str], Any] | None = None,
    runs: Sequence[RunSpec] | None = None,
    dask: str | None = None,
) -> Report:
    """Run experiment ``name`` and write its report into ``out`` (see the module docstring).

    The runs are a study (``atmsim.study``): on ``jobs`` local processes (default one per core;
    1 = in this process) or a Dask cluster (``dask``), each stored in ``out`` as it completes, so
    a reproduction started again runs only what it does not have. ``runs`` replaces the
    experiment's own list (tests use shortened runs). ``log`` receives one line per finished run.
    Raises ``ScenarioError`` for bad input before anything is written.
    """
    from ..result import make_temp_dir
    from ..study.reproduction import install_report, link_runs, run_specs

    started = time.perf_counter()
    exp = get_experiment(name)
    specs = list(runs) if runs is not None else exp.runs(quick)
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ScenarioError("", "", f"experiment {name!r} has duplicate run names")
    if jobs is not None and jobs < 1:
        raise ScenarioError("--jobs", "", f"must be at least 1, got {jobs}")
    resolved = {s.name: _resolve(s) for s in specs}  # every problem with the input shows up here
    reference = load_reference(exp)

    target = Path(out) if out is not None else default_out(name)
    if target.exists() and not target.is_dir():
        raise ScenarioError(str(target), "", "output path exists and is not a directory")
    store, ids, walls = run_specs(name, specs, resolved, target, jobs, dask, log, quick)
    tmp = make_temp_dir(target / "report")
    try:
        results = {s.name: Result.read(store.series_path(ids[s.name])) for s in specs}
        rows = exp.compare(results, reference, specs)
        plots = exp.plots(results, specs, tmp / "plots")
        wall_total = time.perf_counter() - started
        report = Report(name, target, rows, [target / p.relative_to(tmp) for p in plots], walls, wall_total)
        (tmp / "comparison.csv").write_text(comparison_csv(rows), encoding="utf-8")
        (tmp / "report.md").write_text(
            _report_markdown(exp, reference, specs, report, quick, [p.relative_to(tmp) for p in plots]),
            encoding="utf-8",
        )
        link_runs(tmp / "runs", target / "runs", store, ids)
        (tmp / "plots").mkdir(exist_ok=True)
        install_report(tmp, target, ["runs", "plots", "comparison.csv", "report.md"])
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return report


def _report_markdown(
    exp: Experiment,
    reference: dict[str, Any],
    specs: Sequence[RunSpec],
    report: Report,
    quick: bool,
    plots: Sequence[Path],
) -> str:
    cmd = f"atmsim reproduce {exp.name}" + (" --quick" if quick else "")
    lines = [
        f"# {exp.title}",
        "",
        f"Produced by `{cmd}` (atmsim {_version()}), {time.strftime('%Y-%m-%d %H:%M:%S %Z')}; "
        f"{len(specs)} runs, {report.wall_time_s:.1f} s wall time.",
        "",
        f"Source: `../shared/seeds/{exp.seed_file}`"
        + (f" ({reference['source']})" if isinstance(reference.get("source"), str) else "")
        + ". Published values come from the seed's text or from a formula evaluated on the seed's "
        "parameters (never from our own output); `difference` is ours - published.",
        "",
        markdown_table(report.rows),
        "",
    ]
    if exp.method:
        lines += ["## How our values are measured", "", exp.method.strip(), ""]
    lines += ["## Runs", "", "| run | scenario | overrides | wall s |", "|---|---|---|---|"]
    for s in specs:
        ov = ", ".join(f"abr.{k}={v} (every ABR connection)" for k, v in s.abr.items())
        ov2 = ", ".join(f"{k}={v}" for k, v in s.overrides.items())
        ov = "; ".join(x for x in (ov, ov2) if x) or "-"
        lines.append(f"| {s.name} | scenarios/{s.scenario} | {ov} | {report.runs.get(s.name, math.nan):.2f} |")
    lines += ["", "Each run's `summary.json` and series are in `runs/<run>/`.", ""]
    if plots:
        lines += ["## Plots", ""]
        lines += [f"![{p.stem}]({p.as_posix()})" for p in plots]
        lines.append("")
    return "\n".join(lines)


def _version() -> str:
    from .. import __version__

    return __version__


def replace(obj: Any, **changes: Any) -> Any:
    """A copy of a ``RunSpec`` or ``Experiment`` with some fields changed (``dataclasses.replace``)."""
    return dataclasses.replace(obj, **changes)
