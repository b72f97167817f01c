"""A reproduction's runs as a study: each ``RunSpec`` is one run of a study of kind
``reproduce`` stored in the reproduction's output directory (all cores or Dask, resumable, every
run kept), and the report files written beside the store, each piece replaced only when the new
one is complete."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ScenarioError, SimulationError
from .execute import DaskExecutor, Task, make_executor
from .runner import run_id_of, run_tasks
from .store import Store, results

__all__ = ["run_specs", "install_report", "link_runs"]

KIND = "reproduce"


def run_specs(
    experiment: str,
    specs: Sequence[Any],
    resolved: Mapping[str, tuple[dict[str, Any], Any]],
    target: Path,
    jobs: int | None = None,
    dask: str | None = None,
    log: Callable[[str], Any] | None = None,
    quick: bool = False,
) -> tuple[Store, dict[str, str], dict[str, float]]:
    """Run (or find stored) every spec; returns the store, run name -> run_id and run name ->
    wall time (s). A run that failed is retried once when the reproduction is started again; if
    one still fails, ``SimulationError`` names it (the others stay stored)."""
    executor = make_executor(jobs, dask)
    ids: dict[str, str] = {}
    tasks: list[Task] = []
    target = Path(target)
    for i, s in enumerate(specs):
        doc, prov = resolved[s.name]
        rid = run_id_of(doc)
        ids[s.name] = rid
        meta = {
            "point": i, "replication": 0, "seed": int((doc.get("run") or {}).get("seed", 0)),
            "run": s.name, "scenario": s.scenario,
            "overrides": json.dumps({**{f"abr.{k}": v for k, v in s.abr.items()}, **dict(s.overrides)}, sort_keys=True, default=str),
        }
        tasks.append(Task(rid, doc, prov, str(target.resolve()), meta))
    spec = {
        "experiment": experiment, "quick": quick,
        "runs": [{"name": s.name, "scenario": s.scenario, "overrides": dict(s.overrides), "abr": dict(s.abr)} for s in specs],
    }
    if isinstance(executor, DaskExecutor):
        executor.connect()
    try:
        store = Store.open(target, KIND, experiment, spec)
        names = {}
        for s in specs:
            names.setdefault(ids[s.name], s.name)
        total = len(names)
        count = 0

        def on_row(row: dict[str, Any]) -> bool:
            nonlocal count
            count += 1
            if log is not None:
                status = "" if row.get("status") == "ok" else f" FAILED: {row.get('error')}"
                log(f"[{count}/{total}] {row.get('run', names.get(row['run_id'], row['run_id']))} ({row.get('run_wall_s', 0.0):.1f} s){status}")
            return False

        ran, skipped = run_tasks(store, tasks, executor, None, retry_failed=True, on_row=on_row)
        if log is not None and skipped:
            log(f"{skipped} run(s) already stored in {target} were not run again")
    finally:
        if isinstance(executor, DaskExecutor):
            executor.close()
    table = results(store.dir)
    by_id = {r["run_id"]: r for r in table.to_dict("records")}
    for s in specs:
        row = by_id.get(ids[s.name])
        if row is None or row.get("status") != "ok":
            why = row.get("error") if row else "not stored"
            raise SimulationError(f"run {s.name} of {experiment} failed: {why}")
    walls = {s.name: float(by_id[ids[s.name]].get("run_wall_s") or 0.0) for s in specs}
    return store, ids, walls


def install_report(built: Path, target: Path, names: Sequence[str]) -> None:
    """Move each of ``names`` (files or directories) from the directory ``built`` into ``target``,
    replacing what is there, with SIGINT/SIGTERM deferred so none is left half replaced; then
    remove ``built``."""
    from ..result import signals_deferred, swap_into_place

    with signals_deferred():
        for name in names:
            src = built / name
            if not src.exists() and not src.is_symlink():
                continue
            dst = target / name
            if src.is_dir() and not src.is_symlink():
                swap_into_place(src, dst)
            else:
                if dst.is_dir() and not dst.is_symlink():
                    shutil.rmtree(dst)
                os.replace(src, dst)
        shutil.rmtree(built, ignore_errors=True)


def link_runs(directory: Path, final: Path, store: Store, ids: Mapping[str, str]) -> None:
    """``directory/RUN`` -> the run's series directory in the store (symbolic links relative to
    ``final``, where ``directory`` will be moved), so ``runs/RUN/summary.json`` reads as before."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, rid in ids.items():
        if "/" in name or name in (".", ".."):
            raise ScenarioError("", "", f"run name {name!r} cannot be a directory name")
        rel = os.path.relpath(store.series_path(rid), final)
        os.symlink(rel, directory / name, target_is_directory=True)


# ------------------------------------------------------------------------------ reproduce all

#: a claim's published word -> the word our verdict starts with when the claim holds (seed 002's
#: queue rows: "bounded" holds when the queue drained, "unbounded" when it did not)
CLAIM_WORDS = {"bounded": "drained", "unbounded": "not drained"}


def claim_held(published: Any, ours: Any, held: bool | None = None) -> bool | None:
    """Whether a qualitative row (published text) held: the experiment's own verdict ``held``
    when it gives one (``Row.held``); else ours starting with ``yes`` / ``no``
    (seed 003's ordering rows), or ours starting with the verdict ``CLAIM_WORDS`` gives for the
    published word. ``None`` for numeric rows and texts this rule cannot judge."""
    if not isinstance(published, str) or not isinstance(ours, str):
        return None
    if held is not None:
        return held
    text = ours.strip().lower()
    if text.startswith("yes"):
        return True
    if text.startswith("no") and not text.startswith("not "):
        return False
    word = CLAIM_WORDS.get(published.strip().lower())
    if word is None:
        return None
    verdict = text.split(":", 1)[0].strip()
    return verdict == word


def reproduce_all(
    quick: bool = False,
    out: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    log: Callable[[str], Any] | None = None,
) -> Path:
    """Every experiment of ``EXPERIMENT_MODULES`` into ``OUT/NAME`` (default
    ``results/reproduce``), each with its ``report.html``; then ``OUT/index.json`` and the index
    page ``OUT/index.html``: each experiment's rows beside the published values, each qualitative
    claim marked held or not. An experiment whose run fails is listed with its error and the others
    go on; ``SimulationError`` names the failures at the end. Returns the index page's path."""
    import math
    import time

    from .. import reproduce as rep
    from ..report import report

    base = Path(out) if out is not None else Path("results") / "reproduce"
    if base.exists() and not base.is_dir():
        raise ScenarioError(str(base), "", "output path exists and is not a directory")
    entries = []
    failures = []
    for name in rep.experiment_names():
        exp = rep.get_experiment(name)
        if log is not None:
            log(f"== {name}: {exp.title}")
        started = time.perf_counter()
        entry: dict[str, Any] = {"name": name, "title": exp.title, "seed_file": exp.seed_file, "dir": name}
        try:
            rpt = rep.reproduce(name, quick=quick, out=base / name, jobs=jobs, log=log, dask=dask)
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
             "replications": r.replications, "held": claim_held(r.published, r.ours, r.held)}
            for r in rpt.rows
        ]
        report(base / name)
        entries.append(entry)
    from .store import Store

    index = {"quick": quick, "experiments": entries}
    Store(base).dir.mkdir(parents=True, exist_ok=True)
    Store(base).write_text("index.json", json.dumps(index, indent=2, default=str) + "\n")
    page = report(base, base / "index.html")
    if failures:
        raise SimulationError("; ".join(failures) + f" (index written to {page})")
    return page
