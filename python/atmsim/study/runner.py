"""Running a list of tasks into a store: skip what is stored, run the rest on an executor, show
progress (runs done / total, failures, ETA)."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .execute import DaskExecutor, LocalExecutor, Task
from .store import Store

__all__ = ["run_id_of", "run_tasks", "Progress", "STORED", "interrupted_line"]

#: per store directory this process ran a study in, the runs stored there when it began (what
#: an interrupted command compares with to say what it kept)
STORED: dict[str, set[str]] = {}


def run_id_of(doc: dict[str, Any]) -> str:
    """The key of a run: a hash of its resolved scenario (file content, overrides, seed) and the
    atmsim version."""
    from ..version import __version__

    blob = json.dumps({"scenario": doc, "atmsim": __version__}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


class Progress:
    """tqdm on stderr: runs done / total (stored ones count as done), failures, ETA."""

    def __init__(self, total: int, initial: int, enabled: bool, desc: str = "runs") -> None:
        self.failed = 0
        self.bar: Any = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=initial, unit="run", desc=desc, file=sys.stderr, dynamic_ncols=True, leave=False)
            self.bar.set_postfix_str("failed=0")

    def grow(self, n: int) -> None:
        if self.bar is not None and n:
            self.bar.total += n
            self.bar.refresh()

    def step(self, row: dict[str, Any]) -> None:
        if row.get("status") != "ok":
            self.failed += 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"failed={self.failed}", refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def run_tasks(
    store: Store,
    tasks: Sequence[Task],
    executor: LocalExecutor | DaskExecutor,
    progress: Progress | None = None,
    retry_failed: bool = False,
    on_row: Callable[[dict[str, Any]], bool] | None = None,
) -> tuple[int, int]:
    """Run the tasks whose row is not stored (with ``retry_failed``, failed ones again too).
    ``on_row(row)`` returning True stops the study (runs in progress still finish and are
    stored). Returns (runs finished now, runs skipped as stored)."""
    done = store.done_ids()
    STORED.setdefault(str(store.dir), set(done))
    if retry_failed and done:
        from .store import results

        table = results(store.dir)
        done -= set(table.loc[table["status"] != "ok", "run_id"])
    todo: list[Task] = []
    seen: set[str] = set()
    for t in tasks:
        if t.run_id in done or t.run_id in seen:
            continue
        seen.add(t.run_id)
        todo.append(t)
    stop = False
    ran = 0

    def finished(row: dict[str, Any]) -> None:
        nonlocal stop, ran
        ran += 1
        if progress is not None:
            progress.step(row)
        if on_row is not None and on_row(row):
            stop = True

    try:
        executor.run(todo, finished, lambda: stop)
    finally:
        store.compact()  # the rows of this session into runs.parquet
        store.remove_stale()  # again: a killed process seen alive (not yet reaped) at the start
    return ran, len(tasks) - len(todo)


def interrupted_line(prog: str, resumes: str) -> str:
    """What an interrupted study or reproduction says it kept, truthfully (issue 31: a SIGTERM'd
    ``reproduce`` said "no output written" though it had stored 3 runs): the runs this process
    stored and where; ``resumes`` says what the same command does with them."""
    kept = {}
    for d, before in STORED.items():
        try:
            n = len(Store(d).done_ids() - before)
        except Exception:  # a damaged store: it says nothing kept
            n = 0
        if n:
            kept[d] = n
    if not kept:
        return f"{prog}: interrupted; no run finished, nothing new stored"
    total = sum(kept.values())
    where = ", ".join(sorted(kept))
    runs = "run" if total == 1 else "runs"
    return f"{prog}: interrupted; {total} {runs} finished and stored in {where}; {resumes}"
