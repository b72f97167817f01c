"""Studies: a scenario swept over a grid of ``--set`` key paths, replicated on independent seeds,
run on local processes or a Dask cluster, stored run by run in a results directory that DuckDB
queries. ``atmsim sweep`` / ``atmsim.sweep(...)``; ``atmsim results`` / ``atmsim.results(DIR)``.
See docs/study.md.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ScenarioError
from ..extras import require

require("study", "atmsim.study")  # DuckDB and scipy: one line naming the extra, not an ImportError

from .execute import DaskExecutor, LocalExecutor, Task, make_executor
from .runner import Progress, run_id_of, run_tasks
from .spec import Axis, Point, StudySpec, derive_seed, is_study_file, load_study_file, parse_values
from .stats import point_table, t_interval
from .store import Store, query, read_study, results

__all__ = [
    "sweep",
    "results",
    "query",
    "StudySpec",
    "StudyResult",
    "Axis",
    "derive_seed",
    "t_interval",
    "point_table",
    "load_study_file",
    "make_spec",
    "plan_tasks",
    "param_column",
]

STUDY_KIND = "sweep"

log = logging.getLogger("atmsim.study")


def param_column(key: str) -> str:
    """The run-table column of grid / set key path ``key``."""
    return f"set.{key}"


@dataclass
class StudyResult:
    """What ``sweep`` did: the directory, the run table, the per-point confidence intervals,
    and how many runs were run now, skipped (already stored) and failed (in the table)."""

    out: Path
    spec: StudySpec
    runs: pd.DataFrame
    points: pd.DataFrame
    ran: int
    skipped: int

    @property
    def failed(self) -> int:
        return int((self.runs["status"] != "ok").sum()) if not self.runs.empty else 0


def make_spec(
    source: str | os.PathLike[str],
    grid: Mapping[str, Any] | None = None,
    zip: Mapping[str, Any] | None = None,  # noqa: A002 - the study file's word
    set: Mapping[str, Any] | None = None,  # noqa: A002
    replications: int | None = None,
    seed: int | None = None,
    metrics: Sequence[str] | None = None,
    confidence: float | None = None,
    until: tuple[str, float] | None = None,
    max_replications: int | None = None,
) -> StudySpec:
    """A study from a study file or a scenario file, with the arguments added or replacing the
    file's values; checked (``ScenarioError`` on bad input)."""
    path = os.fspath(source)
    from ..files import MAX_SCENARIO_BYTES, Unreadable, check_readable

    try:
        check_readable(path, MAX_SCENARIO_BYTES)  # a FIFO or a device is refused at once
    except Unreadable as e:
        raise ScenarioError(path, "", "no such file" if e.kind == "missing" else e.reason) from None
    spec = load_study_file(path) if is_study_file(path) else StudySpec(scenario=path)
    label = spec.where
    for kind, table in (("grid", grid), ("zip", zip)):
        for key, values in (table or {}).items():
            spec.axes = [a for a in spec.axes if a.key != key]
            spec.axes.append(Axis(key, tuple(parse_values(values, label or f"--{kind}", key)), kind))
    if set:
        spec.fixed.update(set)
    if replications is not None:
        spec.replications = replications
    if seed is not None:
        spec.seed = seed
    if metrics:
        spec.metrics = list(dict.fromkeys([*spec.metrics, *metrics]))
    if confidence is not None:
        spec.confidence = confidence
    if until is not None:
        spec.until_metric, spec.until_rel_half_width = until
    if max_replications is not None:
        spec.max_replications = max_replications
    spec.check()
    return spec


def _base(spec: StudySpec) -> tuple[dict[str, Any], Any]:
    from ..scenario import load_scenario

    return load_scenario(spec.scenario, spec.fixed, validate=False)


def plan_tasks(spec: StudySpec, store_dir: Path, counts: Mapping[int, int] | None = None) -> list[Task]:
    """The runs of the study: every point x replications 0..n-1 (``counts`` gives n per point;
    default ``spec.replications``). Each point is validated (``ScenarioError`` on bad input);
    replication r of every point has seed ``derive_seed(spec.seed, r)``."""
    from ..scenario import apply_overrides

    tasks = []
    seen: set[str] = set()
    for point in spec.points():
        doc, prov, kept = point_document(spec, point.params)
        same = json.dumps(kept, sort_keys=True, default=str)
        if same in seen:
            continue  # the same runs as an earlier point once a key that did not apply was left out
        seen.add(same)
        point = Point(point.index, kept)
        n = (counts or {}).get(point.index, spec.replications)
        for r in range(n):
            seed = derive_seed(spec.seed, r)
            d, p = copy.deepcopy(doc), copy.deepcopy(prov)
            apply_overrides(d, {"run.seed": seed}, p, "--seed")
            meta: dict[str, Any] = {"point": point.index, "replication": r, "seed": seed}
            meta.update({param_column(k): v for k, v in point.params.items()})
            tasks.append(Task(run_id_of(d), d, p, str(store_dir), meta))
    return tasks


#: how the core says that a key does not apply to another key's choice
_INAPPLICABLE = re.compile(r"\bonly used with\b|\bused only with\b")


def point_document(spec: StudySpec, params: Mapping[str, Any]) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    """The validated document of a grid point: ``(doc, provenance, the point's keys kept)``.

    A key of the point (or a ``set`` key) that the scenario rejects as not applying to another
    key's choice ("only used with discard = ..."), while another axis varies, is left out of that
    point: a study can cross ``discard = ["tail", "epd"]`` with ``epd_threshold_cells``, the
    threshold being ignored at the tail-drop points (their ``set.`` column empty), and points
    that become the same are run once (``plan_tasks``). Any other problem raises."""
    from ..scenario import SET, check_document, load_scenario

    kept = dict(params)
    fixed = dict(spec.fixed)
    axes = {a.key for a in spec.axes}
    while True:
        layers = [(f"{SET} {k}", {k: v}) for k, v in fixed.items()] + [(f"--grid {k}", {k: v}) for k, v in kept.items()]
        try:
            doc, prov = load_scenario(spec.scenario, None, validate=False, extra_overrides=layers)
            check_document(doc, prov)
            return doc, prov, kept
        except ScenarioError as e:
            label, _, key = e.file.partition(" ")
            others = axes - {key}
            if key and others and _INAPPLICABLE.search(e.message):
                if label == "--grid" and key in kept:
                    del kept[key]
                    continue
                if label == SET and key in fixed:
                    del fixed[key]
                    continue
            if key and label in ("--grid", SET):
                raise ScenarioError(label, e.path, e.message) from None
            raise


def _is_number(v: Any) -> bool:
    """A real number, NumPy's included (a run table's row holds NumPy scalars); not a bool."""
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _check_metrics(spec: StudySpec, row: Mapping[str, Any]) -> None:
    """Every metric is a number in the run's row (``-m scenario.description``, a text, failed
    once the runs were stored); an aggregate is checked by its own rules."""
    from .metrics import check_metric, is_aggregate

    for m in spec.metrics:
        if is_aggregate(m):
            why = check_metric(m, row)
            if why:
                raise ScenarioError(spec.where or "--metric", m, why)
    missing = [m for m in spec.metrics if not is_aggregate(m) and not _is_number(row.get(m))]
    if missing:
        m = missing[0]
        head = m.rsplit(".", 1)[0]
        near = sorted(k for k in row if k.startswith(head + ".") and isinstance(row[k], (int, float)))[:8]
        hint = ("; keys here: " + ", ".join(k.rsplit(".", 1)[1] for k in near)) if near else ""
        what = "not a number in the run summary"
        if m in row:
            what += f" (it is {type(row[m]).__name__})"
        raise ScenarioError(spec.where or "--metric", m, f"{what}{hint}")


def sweep(
    source: str | os.PathLike[str] | StudySpec,
    out: str | os.PathLike[str] | None = None,
    *,
    grid: Mapping[str, Any] | None = None,
    zip: Mapping[str, Any] | None = None,  # noqa: A002
    set: Mapping[str, Any] | None = None,  # noqa: A002
    replications: int | None = None,
    seed: int | None = None,
    metrics: Sequence[str] | None = None,
    confidence: float | None = None,
    until: tuple[str, float] | None = None,
    max_replications: int | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    retry_failed: bool = False,
    progress: bool = False,
    force: bool = False,
) -> StudyResult:
    """Run a study (see docs/study.md) into ``out`` (default ``results/sweep/<file stem>``) and
    return its run table and per-point confidence intervals.

    ``source`` is a study file, a scenario file (then ``grid`` etc. describe the study) or a
    ``StudySpec``. ``grid`` / ``zip`` map key paths to values (a list or ``"range(a, b, step)"``,
    ``"linspace(a, b, n)"``, ``"geom(a, b, factor)"``); ``set`` fixes other keys; ``until =
    (metric, x)`` adds replications to a point until the relative half-width of ``metric`` is
    below ``x``, at most ``max_replications``. ``jobs`` local processes (default: one per core)
    or ``dask = "tcp://HOST:PORT"`` / ``"local"``. Runs already stored in ``out`` are skipped.
    ``out`` must not exist, be empty, or hold this study (atmsim's marker, or its study.json);
    anything else raises ``ScenarioError`` before anything runs, unless ``force`` (then the study
    goes beside the files there, never replacing one atmsim did not write: ``atmsim.outdir``).
    Bad input raises ``ScenarioError`` before anything is written or, for a metric that is not in
    the summary, once the first run is stored (the stored runs are kept).
    """
    spec = source if isinstance(source, StudySpec) else make_spec(
        source, grid, zip, set, replications, seed, metrics, confidence, until, max_replications
    )
    if isinstance(source, StudySpec):
        spec.check()
    target = Path(out) if out is not None else Path("results") / "sweep" / Path(spec.where or spec.scenario).stem
    base_doc, _ = _base(spec)
    executor = make_executor(jobs, dask)
    tasks = plan_tasks(spec, target.resolve())  # every input problem surfaces here
    if isinstance(executor, DaskExecutor):
        executor.connect()
    try:
        identity = spec.identity(base_doc)
        existing = read_study(target) if target.is_dir() else None
        if spec.metrics and existing and existing.get("identity") == identity and Store(target).done_ids():
            ok = results(target, "SELECT * FROM runs WHERE status = 'ok' LIMIT 1")
            if not ok.empty:  # checked before the store is touched
                _check_metrics(spec, {k: v for k, v in ok.iloc[0].items() if not pd.isna(v)})
        store = Store.open(target, STUDY_KIND, identity, spec.as_dict(), force=force, writes=("points.csv",))
        stored = store.done_ids()
        live = {t.meta["point"] for t in tasks}  # points left out as the same as an earlier one have no runs
        counts = {p.index: spec.replications for p in spec.points() if p.index in live}
        if spec.adaptive and stored:
            # replications an earlier session of the study added belong to it
            have = results(store.dir, "SELECT point, max(replication) + 1 AS n FROM runs GROUP BY point")
            for point, n in have[["point", "n"]].itertuples(index=False):
                if int(point) in counts:
                    counts[int(point)] = min(max(counts[int(point)], int(n)), spec.max_replications or int(n))
            tasks = plan_tasks(spec, store.dir, counts)
        log.debug("%s: %d points, %d runs (%d stored already) on %s", store.dir, spec.point_count(), len(tasks),
                  sum(t.run_id in stored for t in tasks), executor.describe())
        bar = Progress(len(tasks), sum(t.run_id in stored for t in tasks), progress)
        problem: list[ScenarioError] = []

        def on_row(row: dict[str, Any]) -> bool:
            if row.get("status") == "ok" and spec.metrics and not problem:
                try:
                    _check_metrics(spec, row)
                except ScenarioError as e:
                    problem.append(e)
            return bool(problem)

        try:
            ran, skipped = run_tasks(store, tasks, executor, bar, retry_failed, on_row)
            if problem:
                raise problem[0]
            while spec.adaptive:
                table = results(store.dir)
                more = _more_replications(spec, table, counts)
                if not more:
                    break
                counts.update(more)
                extra = plan_tasks(spec, store.dir, counts)
                known = {t.run_id for t in tasks}
                new = [t for t in extra if t.run_id not in known]
                tasks += new
                bar.grow(len(new))
                r, s = run_tasks(store, new, executor, bar, retry_failed, on_row)
                ran += r
                skipped += s
                if problem:
                    raise problem[0]
        finally:
            bar.close()
    except BaseException:
        if "store" in locals():
            store.release()  # not kept by the traceback's frames
        raise
    finally:
        if isinstance(executor, DaskExecutor):
            executor.close()
    try:
        wanted = {t.run_id for t in tasks}
        table = results(store.dir)
        table = table[table["run_id"].isin(wanted)].reset_index(drop=True)
        params = [param_column(a.key) for a in spec.axes]
        points = point_table(table, spec.metrics, params, spec.confidence)
        if not points.empty:
            store.write_text("points.csv", points.to_csv(index=False))
    finally:
        store.release()
    return StudyResult(store.dir, spec, table, points, ran, skipped)


def _more_replications(spec: StudySpec, table: pd.DataFrame, counts: Mapping[int, int]) -> dict[int, int]:
    """Points whose interval of the ``until`` metric is still too wide: their new replication
    count, from n * (rel half-width / target)^2, at least one more, at most the cap."""
    assert spec.until_metric is not None and spec.until_rel_half_width is not None and spec.max_replications
    from .metrics import bounds, with_metrics

    more: dict[int, int] = {}
    table = with_metrics(table, [spec.until_metric])
    ok = table[table["status"] == "ok"] if not table.empty else table
    for point, n in counts.items():
        if n >= spec.max_replications:
            continue
        rows = ok[ok["point"] == point] if not ok.empty else ok
        values = rows[spec.until_metric].tolist() if spec.until_metric in rows.columns else []
        ci = t_interval(values, spec.confidence, bounds(spec.until_metric))
        rel = ci["rel_half_width"]
        if ci["n"] >= 2 and rel == rel and rel < spec.until_rel_half_width:
            continue
        if ci["n"] == 0 and n > 0 and (table["point"] == point).any():
            continue  # every run of the point failed: more would fail too
        want = n + 1
        if ci["n"] >= 2 and rel == rel:
            want = max(want, int(n * (rel / spec.until_rel_half_width) ** 2) + 1)
        more[point] = min(want, spec.max_replications)
    return more
