"""A study on a real Dask cluster on localhost (issue 17): a `dask scheduler` and two
`dask worker` processes started here on 127.0.0.1 and stopped at the end. The run table equals
the local executor's, and the study survives one worker being killed midway."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import atmsim

from conftest import onoff_scenario, write_toml

VENV_BIN = Path(sys.executable).parent
PEAK = "connections.vbr.source.peak_mbps"
#: what depends on where and when a run ran, not on the run
VARYING = {"run_wall_s", "worker", "wall_time_s"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@pytest.fixture
def cluster(tmp_path: Path):
    port = _free_port()
    env = dict(os.environ, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="5")
    procs = []

    def start(*args: str) -> subprocess.Popen:
        p = subprocess.Popen([str(VENV_BIN / "dask"), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=env, cwd=tmp_path, start_new_session=True)
        procs.append(p)
        return p

    start("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    _wait_port(port)
    address = f"tcp://127.0.0.1:{port}"
    workers = [
        start("worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny", "--no-dashboard",
              "--name", f"w{i}", "--local-directory", str(tmp_path / f"w{i}"))
        for i in range(2)
    ]
    from distributed import Client

    with Client(address, timeout=30) as c:
        c.wait_for_workers(2, timeout=60)
    try:
        yield address, workers
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def _table(directory: Path):
    t = atmsim.results(directory)
    keep = [c for c in t.columns if c not in VARYING]
    return t[keep].sort_values("run_id").reset_index(drop=True)


def test_dask_cluster_gives_the_local_table_and_survives_a_killed_worker(cluster, tmp_path: Path) -> None:
    address, workers = cluster
    scenario = write_toml(tmp_path / "onoff.toml", onoff_scenario(0.05))
    grid = {PEAK: "range(40, 110, 10)"}
    local = atmsim.sweep(scenario, tmp_path / "local", grid=grid, replications=2, set={"run.duration_s": 0.2}, jobs=2)
    assert len(local.runs) == 16

    import threading

    out = tmp_path / "dask"
    killed: list[int] = []

    def kill_one_worker() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            n = len(list((out / "table").glob("*.json"))) if (out / "table").is_dir() else 0
            if n >= 3:
                os.killpg(workers[0].pid, signal.SIGKILL)
                killed.append(n)
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_one_worker)
    killer.start()
    res = atmsim.sweep(scenario, out, grid=grid, replications=2, set={"run.duration_s": 0.2}, dask=address)
    killer.join()
    assert killed and killed[0] < 16, "the worker was not killed midway"
    assert workers[0].wait(timeout=10) != 0
    assert res.failed == 0 and len(res.runs) == 16
    assert len(pd.read_parquet(out / "runs.parquet")) == 16
    a, b = _table(tmp_path / "local"), _table(out)
    assert list(a.columns) == list(b.columns)
    assert a.equals(b)
    # the surviving worker finished the study
    assert (atmsim.results(out)["worker"] == f"{socket.gethostname()}:{workers[1].pid}").any()


def test_local_dask_cluster_threads_give_the_local_table(tmp_path: Path) -> None:
    """--dask local: one worker process running the runs on two threads (the core releases the
    GIL); same table as the local process pool."""
    scenario = write_toml(tmp_path / "onoff.toml", onoff_scenario(0.05))
    grid = {PEAK: [50, 100]}
    local = atmsim.sweep(scenario, tmp_path / "local", grid=grid, replications=2, jobs=2)
    threads = atmsim.sweep(scenario, tmp_path / "threads", grid=grid, replications=2, jobs=2, dask="local")
    assert threads.failed == 0 and len(threads.runs) == len(local.runs) == 4
    assert threads.runs["worker"].nunique() == 1  # one process
    assert _table(tmp_path / "local").equals(_table(tmp_path / "threads"))


def test_default_executor_uses_every_core() -> None:
    from atmsim.study.execute import LocalExecutor, make_executor

    ex = make_executor(None, None)
    assert isinstance(ex, LocalExecutor) and ex.jobs == (os.cpu_count() or 1)
