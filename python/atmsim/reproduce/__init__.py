"""Reproduction of the source papers' experiments: ``atmsim reproduce EXPERIMENT``.

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
complete report intact; ``DIR`` is atmsim's only (``atmsim.outdir``: a directory of other files
is refused unless ``force``, and a file atmsim did not write is never replaced). ``reproduce_all`` does every experiment and writes the index page. See
``docs/reproduce.md`` for how to add an experiment.

The modules, each importing only those before it: ``experiment`` (the data types and shared
pieces, re-exported here), ``analysis`` and ``maxmin`` (measurements), ``runs`` (a
reproduction's runs as a study), the experiment modules ``seedNNN`` (loaded by name from
``EXPERIMENT_MODULES``), then this one.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import ScenarioError, SimulationError
from ..result import Result
from .experiment import (
    COLUMNS,
    CSV_EXTRA,
    REFERENCE_DIR,
    Experiment,
    Report,
    Row,
    RunSpec,
    comparison_csv,
    format_table,
    load_reference,
    markdown_table,
    replace,
    resolve_run,
    scenarios_dir,
)

__all__ = [
    "RunSpec",
    "Row",
    "Experiment",
    "Report",
    "EXPERIMENT_MODULES",
    "experiment_names",
    "public_name",
    "public_names",
    "get_experiment",
    "load_reference",
    "scenarios_dir",
    "reproduce",
    "reproduce_all",
    "COLUMNS",
    # defined in .experiment, importable from here too
    "CSV_EXTRA",
    "REFERENCE_DIR",
    "comparison_csv",
    "format_table",
    "markdown_table",
    "replace",
    "resolve_run",
]

#: modules of ``atmsim.reproduce`` that each define ``EXPERIMENT`` (an ``Experiment``)
EXPERIMENT_MODULES: tuple[str, ...] = ("seed000", "seed001", "seed002", "seed003", "seed004")

# ------------------------------------------------------------------------------------ registry


def experiment_names() -> list[str]:
    return [_module(m).EXPERIMENT.name for m in EXPERIMENT_MODULES]


def public_name(name: str) -> str:
    """The name users see: ``paperNNN`` for the experiment ``seedNNN`` of source paper NNN
    (``../shared/seeds/``; "seed 003" read like a random seed, issue 29). Others unchanged."""
    if len(name) == 7 and name.startswith("seed") and name[4:].isdigit():
        return "paper" + name[4:]
    return name


def public_names() -> list[str]:
    return [public_name(n) for n in experiment_names()]


def _module(name: str) -> Any:
    return importlib.import_module(f"{__name__}.{name}")


def get_experiment(name: str) -> Experiment:
    """The registered experiment called ``name`` (raises ``ScenarioError`` if there is none)."""
    for m in EXPERIMENT_MODULES:
        exp = _module(m).EXPERIMENT
        if name in (exp.name, public_name(exp.name)):
            return exp
    raise ScenarioError("", "", f"no experiment named {name!r}; available: {', '.join(public_names())}")


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
    force: bool = False,
) -> Report:
    """Run experiment ``name`` and write its report into ``out`` (see the module docstring).

    ``out`` must not exist, be empty, or hold this experiment's earlier reproduction (atmsim's
    marker); anything else raises ``ScenarioError`` before anything runs, unless ``force``
    (then the reproduction goes beside the files there; one atmsim did not write at a name it
    uses, such as ``report.md`` or ``plots``, is refused even then: ``atmsim.outdir``).

    The runs are a study (``atmsim.study``): on ``jobs`` local processes (default one per core;
    1 = in this process) or a Dask cluster (``dask``), each stored in ``out`` as it completes, so
    a reproduction started again runs only what it does not have. ``runs`` replaces the
    experiment's own list (tests use shortened runs). ``log`` receives one line per finished run.
    Raises ``ScenarioError`` for bad input before anything is written.
    """
    from ..outdir import install
    from .runs import REPORT_NAMES, link_runs, run_specs

    started = time.perf_counter()
    exp = get_experiment(name)
    name = exp.name  # paperNNN and seedNNN are one experiment (one store identity)
    specs = list(runs) if runs is not None else exp.runs(quick)
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ScenarioError("", "", f"experiment {name!r} has duplicate run names")
    if jobs is not None and jobs < 1:
        raise ScenarioError("--jobs", "", f"must be at least 1, got {jobs}")
    resolved = {s.name: resolve_run(s) for s in specs}  # every problem with the input shows up here
    reference = load_reference(exp)

    target = Path(out) if out is not None else default_out(name)
    store, ids, walls = run_specs(name, specs, resolved, target, jobs, dask, log, quick, force)
    claimed = store.out
    assert claimed is not None  # Store.open claims its directory
    tmp = claimed.temp_dir()
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
        link_runs(tmp / "runs", claimed.path / "runs", store, ids)
        (tmp / "plots").mkdir(exist_ok=True)
        install(claimed, tmp, scope=[n.rstrip("/") for n in REPORT_NAMES])
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
        + ". Published values come from the paper's text or from a formula evaluated on the paper's "
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
    from ..version import __version__

    return __version__


# ------------------------------------------------------------------------------------ reproduce all


def reproduce_all(
    quick: bool = False,
    out: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    log: Callable[[str], Any] | None = None,
    force: bool = False,
) -> Path:
    """Every experiment of ``EXPERIMENT_MODULES`` into ``OUT/NAME`` (default
    ``results/reproduce``), each with its ``report.html``; then ``OUT/index.json`` and the index
    page ``OUT/index.html``: each experiment's rows beside the published values, each qualitative
    claim marked held or not. An experiment whose run fails is listed with its error and the others
    go on; ``SimulationError`` names the failures at the end. Returns the index page's path.
    ``OUT`` is claimed first (``atmsim.outdir``: empty, absent or an earlier ``reproduce all``'s,
    else refused unless ``force``; ``index.json``, ``index.html`` and ``NAME`` must be absent or
    atmsim's)."""
    from ..outdir import claim
    from ..report import report

    base = Path(out) if out is not None else Path("results") / "reproduce"
    names = experiment_names()
    claimed = claim(base, "reproduce-all", force=force, writes=["index.json", "index.html", *(n + "/" for n in names)])
    entries = []
    failures = []
    for name in names:
        exp = get_experiment(name)
        if log is not None:
            log(f"== {name}: {exp.title}")
        started = time.perf_counter()
        entry: dict[str, Any] = {"name": name, "title": exp.title, "seed_file": exp.seed_file, "dir": name}
        claimed.ensure()
        claimed.add([name + "/"])
        try:
            rpt = reproduce(name, quick=quick, out=base / name, jobs=jobs, log=log, dask=dask)
        except SimulationError as e:
            entry.update(error=str(e), rows=[], wall_time_s=time.perf_counter() - started)
            failures.append(f"{name}: {e}")
            entries.append(entry)
            continue

        def num(x: Any) -> Any:
            return None if isinstance(x, float) and not math.isfinite(x) else x

        entry["wall_time_s"] = rpt.wall_time_s
        entry["runs"] = len(rpt.runs)
        entry["rows"] = [
            {"quantity": r.quantity, "run": r.run, "published": num(r.published), "ours": num(r.ours),
             "difference": num(r.difference), "source": r.source, "spread": num(r.spread),
             "replications": r.replications, "held": r.held}
            for r in rpt.rows
        ]
        report(base / name)
        entries.append(entry)
    index = {"quick": quick, "experiments": entries}
    claimed.ensure()
    claimed.write_file("index.json", lambda tmp: tmp.write_text(json.dumps(index, indent=2, default=str) + "\n", encoding="utf-8"))
    page = report(base, base / "index.html")
    if failures:
        raise SimulationError("; ".join(failures) + f" (index written to {page})")
    return page
