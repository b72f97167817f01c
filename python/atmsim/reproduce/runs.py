"""A reproduction's runs as a study: each ``RunSpec`` is one run of a study of kind
``reproduce`` stored in the reproduction's output directory (all cores or Dask, resumable, every
run kept), and the report files written beside the store (``REPORT_NAMES``), replaced when the
new ones are all complete and only where they are atmsim's (``atmsim.outdir.install``, called by
``atmsim.reproduce.reproduce``). (Was ``atmsim.study.reproduction``; ``reproduce_all`` is now in
``atmsim.reproduce``.)"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ScenarioError, SimulationError
from ..study.execute import DaskExecutor, Task, make_executor
from ..study.runner import run_id_of, run_tasks
from ..study.store import Store, results

__all__ = ["run_specs", "link_runs", "REPORT_NAMES"]

KIND = "reproduce"
#: what a reproduction writes beside its store (replaced together when it is complete)
REPORT_NAMES = ("report.md", "comparison.csv", "plots/", "runs/")


def run_specs(
    experiment: str,
    specs: Sequence[Any],
    resolved: Mapping[str, tuple[dict[str, Any], Any]],
    target: Path,
    jobs: int | None = None,
    dask: str | None = None,
    log: Callable[[str], Any] | None = None,
    quick: bool = False,
    force: bool = False,
) -> tuple[Store, dict[str, str], dict[str, float]]:
    """Run (or find stored) every spec; returns the store, run name -> run_id and run name ->
    wall time (s). A run that failed is retried once when the reproduction is started again; if
    one still fails, ``SimulationError`` names it (the others stay stored). The directory is
    claimed (``Store.open``, with the report's names) before anything runs; ``force`` as there."""
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
        store = Store.open(target, KIND, experiment, spec, force=force, writes=REPORT_NAMES)
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


def link_runs(directory: Path, final: Path, store: Store, ids: Mapping[str, str]) -> None:
    """``directory/RUN`` -> the run's series directory in the store (symbolic links relative to
    ``final``, where ``directory`` will be moved), so ``runs/RUN/summary.json`` reads as before."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, rid in ids.items():
        if "/" in name or name in (".", ".."):
            raise ScenarioError("", "", f"run name {name!r} cannot be a directory name")
        rel = os.path.relpath(store.series_path(rid), final)
        os.symlink(rel, directory / name, target_is_directory=True)
