"""Running a study's runs: one run in a worker (``execute``), and the executors that spread the
runs over local processes (``LocalExecutor``) or a Dask cluster (``DaskExecutor``).

A worker runs the scenario, writes the series into the store and then the run's row, and returns
the row; a run that fails (the core rejects it, panics) is stored as ``status = "failed"`` with
its error and the study goes on. The store must be on a file system the workers share (always
true on one machine; on a cluster, a shared directory: see docs/study.md).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ScenarioError, SimulationError

__all__ = ["Task", "execute", "LocalExecutor", "DaskExecutor", "make_executor", "MAX_ATTEMPTS"]

#: a run whose worker process dies this many times (alone on its worker) is stored as failed
MAX_ATTEMPTS = 2
#: summary key paths not stored in a study's run table: the network the report draws
#: (``scenario.network``: the same in every run but for the swept values, and a column per link)
NOT_STORED = ("scenario.network.",)


@dataclass(frozen=True)
class Task:
    """One run: its id, resolved scenario document and provenance, the store's directory and the
    columns that describe it in the run table (point, replication, seed, ``set.KEY`` ...)."""

    run_id: str
    doc: dict[str, Any]
    prov: Any
    store: str
    meta: Mapping[str, Any]


def failed_row(task: Task, error: str, wall: float = 0.0) -> dict[str, Any]:
    row: dict[str, Any] = {"run_id": task.run_id}
    row.update(task.meta)
    row.update(status="failed", error=error, run_wall_s=wall, worker=f"{socket.gethostname()}:{os.getpid()}")
    return row


def execute(task: Task) -> dict[str, Any]:
    """Run ``task`` and store it (series, then row); returns the row."""
    from ..api import run_document
    from .store import META_COLUMNS, Store, flatten

    store = Store(task.store)
    start = time.perf_counter()
    row: dict[str, Any] = {"run_id": task.run_id}
    row.update(task.meta)
    row.update(status="ok", error=None, run_wall_s=0.0, worker=f"{socket.gethostname()}:{os.getpid()}")
    try:
        # series stream to the store as the run goes (flat memory however long the run)
        result = run_document(task.doc, task.prov, out=store.series_path(task.run_id))
        for k, v in flatten(result.summary).items():
            if k not in META_COLUMNS and k not in row and not k.startswith(NOT_STORED):
                row[k] = v
    except (KeyboardInterrupt, SystemExit):
        raise
    except (ScenarioError, SimulationError) as e:
        row.update(status="failed", error=" ".join(str(e).split()))
    except BaseException as e:  # a panic in the core arrives as pyo3's PanicException (a BaseException)
        row.update(status="failed", error=f"{type(e).__name__}: {' '.join(str(e).split())}")
    row["run_wall_s"] = time.perf_counter() - start
    store.write_row(row)
    return row


def _worker_init(parent: int | None = None) -> None:
    # the parent decides what an interrupt means (it stops the pool)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


def die_with_parent(parent: int | None) -> None:
    """This worker process ends when its parent does, however it ends (issue 31: the workers of
    a SIGKILLed sweep ran on for minutes): Linux's parent-death signal (``PR_SET_PDEATHSIG``,
    SIGKILL), and a parent already gone by now ends it at once. Elsewhere nothing is done."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl
            pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)


Done = Callable[[dict[str, Any]], Any]


class LocalExecutor:
    """Runs on ``jobs`` local processes (``spawn``), or in this process with ``jobs == 1`` (or a
    single run).

    A worker process that dies (killed, aborted) breaks the pool: the runs that were on it are
    retried in a new pool, each alone (so the one that kills its worker is known); a run that
    kills its worker ``MAX_ATTEMPTS`` times alone is stored as failed.
    """

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = max(1, int(jobs or os.cpu_count() or 1))

    def describe(self) -> str:
        return f"{self.jobs} local process{'es' if self.jobs != 1 else ''}" if self.jobs > 1 else "this process"

    def run(self, tasks: Iterable[Task], done: Done, stop: Callable[[], bool] = lambda: False) -> None:
        tasks = list(tasks)
        if self.jobs == 1 or len(tasks) <= 1:  # one run: no pool to start
            for t in tasks:
                if stop():
                    return
                done(execute(t))
            return
        self._pool(tasks, done, stop)

    def _pool(self, tasks: list[Task], done: Done, stop: Callable[[], bool]) -> None:
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        queue = list(reversed(tasks))  # pop() from the end keeps the order
        suspects: list[Task] = []  # were on a pool that broke: retried alone
        deaths: dict[str, int] = {}
        ctx = multiprocessing.get_context("spawn")
        while (queue or suspects) and not stop():
            isolated = bool(suspects)
            width = 1 if isolated else self.jobs
            pool = ProcessPoolExecutor(max_workers=min(width, len(queue) or 1), mp_context=ctx, initializer=_worker_init,
                                       initargs=(os.getpid(),))
            outstanding: dict[Any, Task] = {}
            broken = False
            try:
                while (queue or suspects or outstanding) and not broken:
                    while not stop() and len(outstanding) < 2 * width and (suspects if isolated else queue):
                        t = suspects.pop() if isolated else queue.pop()
                        outstanding[pool.submit(execute, t)] = t
                        if isolated:
                            break
                    if not outstanding:
                        break
                    finished, _ = wait(list(outstanding), return_when=FIRST_COMPLETED)
                    for f in finished:
                        t = outstanding.pop(f)
                        try:
                            row = f.result()
                        except BrokenProcessPool:
                            broken = True
                            if isolated:
                                deaths[t.run_id] = deaths.get(t.run_id, 0) + 1
                                if deaths[t.run_id] >= MAX_ATTEMPTS:
                                    from .store import Store

                                    row = failed_row(t, f"worker process died {deaths[t.run_id]} times running it")
                                    Store(t.store).write_row(row)
                                    done(row)
                                    continue
                            suspects.append(t)
                            continue
                        done(row)
                    if isolated and not suspects and not outstanding:
                        break  # back to full width
                if broken:
                    suspects.extend(outstanding.values())
                    outstanding.clear()
                pool.shutdown(wait=True)
            except BaseException:
                _terminate(pool)
                raise


def _terminate(pool: Any) -> None:
    """Stop a ProcessPoolExecutor's workers now (an interrupt: runs in progress are dropped, the
    store keeps every finished one)."""
    procs = list(getattr(pool, "_processes", {}).values())
    for p in procs:
        try:
            p.terminate()
        except Exception:
            pass
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.join(timeout=5)
        except Exception:
            pass


class DaskExecutor:
    """Runs on a Dask cluster: ``address`` is a scheduler (``tcp://HOST:PORT``) or ``"local"`` (a
    ``LocalCluster`` of one worker process with ``jobs`` threads: the core releases the GIL).

    Dask retries the runs of a worker that dies (up to its ``distributed.scheduler.allowed-failures``);
    a run that still cannot finish is stored as failed.
    """

    def __init__(self, address: str, jobs: int | None = None, connect_timeout: float = 5.0) -> None:
        self.address = address
        self.jobs = max(1, int(jobs or os.cpu_count() or 1))
        self.timeout = connect_timeout
        self.client: Any = None
        self.cluster: Any = None

    def describe(self) -> str:
        return "a local Dask cluster" if self.address == "local" else f"the Dask scheduler at {self.address}"

    def connect(self) -> None:
        import logging

        from ..extras import require

        require("dask", "--dask")

        from distributed import Client, LocalCluster

        logging.getLogger("distributed").setLevel(logging.ERROR)
        try:
            if self.address == "local":
                self.cluster = LocalCluster(
                    n_workers=1, threads_per_worker=self.jobs, processes=True, dashboard_address=None,
                    host="127.0.0.1",
                )
                self.client = Client(self.cluster, timeout=self.timeout)
            else:
                self.client = self._remote_client(Client)
        except (OSError, TimeoutError, ValueError) as e:
            self.close()
            raise ScenarioError("--dask", "", f"cannot reach a Dask scheduler at {self.address}: {' '.join(str(e).split())[:300]}") from None

    def _remote_client(self, client_class: Any) -> Any:
        """A client of the scheduler at ``self.address``, made in a thread of its own and
        waited for at most the timeout plus 10 s: something that is no Dask scheduler (a web
        server: ``python -m http.server`` never answered the handshake, and one answering
        "HTTP 400" made distributed read a length of exabytes, MemoryError) is one line
        instead of a hang or a traceback. A client still trying then is left to its daemon
        thread."""
        import threading

        got: dict[str, Any] = {}

        def attempt() -> None:
            try:
                got["client"] = client_class(self.address, timeout=self.timeout)
            except BaseException as e:  # noqa: BLE001 - reported below, in the caller's thread
                got["error"] = e

        t = threading.Thread(target=attempt, name="atmsim-dask-connect", daemon=True)
        t.start()
        t.join(self.timeout + 10.0)
        where = f"cannot reach a Dask scheduler at {self.address}"
        if t.is_alive():
            raise ScenarioError("--dask", "", f"{where}: no Dask answer in {self.timeout + 10.0:g} s (is it a Dask scheduler?)")
        e = got.get("error")
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise e
        if isinstance(e, MemoryError):
            raise ScenarioError("--dask", "", f"{where}: what answers there does not speak Dask's protocol") from None
        if e is not None:
            raise ScenarioError("--dask", "", f"{where}: {type(e).__name__}: {' '.join(str(e).split())[:300]}") from None
        return got["client"]

    def close(self) -> None:
        if self.client is not None:
            try:
                self.client.close()
            except Exception:
                pass
            self.client = None
        if self.cluster is not None:
            try:
                self.cluster.close()
            except Exception:
                pass
            self.cluster = None

    def run(self, tasks: Iterable[Task], done: Done, stop: Callable[[], bool] = lambda: False) -> None:
        from distributed import as_completed

        if self.client is None:
            self.connect()
        tasks = list(tasks)
        futures = {}
        for t in tasks:
            f = self.client.submit(execute, t, key=f"atmsim-run-{t.run_id}", pure=False)
            futures[f] = t
        try:
            for f in as_completed(list(futures)):
                t = futures[f]
                try:
                    row = f.result()
                except (KeyboardInterrupt, SystemExit):
                    raise
                except Exception as e:  # KilledWorker: the run took down every worker it was given
                    from .store import Store

                    row = failed_row(t, f"{type(e).__name__}: {' '.join(str(e).split())}")
                    Store(t.store).write_row(row)
                done(row)
                if stop():
                    self.client.cancel(list(futures))
                    return
        except BaseException:
            try:
                self.client.cancel(list(futures))
            except Exception:
                pass
            raise


def make_executor(jobs: int | None = None, dask: str | None = None) -> LocalExecutor | DaskExecutor:
    if jobs is not None and jobs < 1:
        raise ScenarioError("--jobs", "", f"must be at least 1, got {jobs}")
    if dask:
        return DaskExecutor(dask, jobs)
    return LocalExecutor(jobs)
