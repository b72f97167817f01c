"""Studies under faults and odd input (issue 31 items 4 and 5): the workers of a SIGKILLed sweep
die with it, two sweeps on one study do not both run it, an interrupted command says what it
stored, and the sweep's odd inputs (huge ranges, a text metric, a seed axis, a million
replications, a number as the until metric) are one-line errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from atmsim import ScenarioError
from atmsim.cli import main
from atmsim.study import make_spec
from atmsim.study.runner import STORED, interrupted_line
from atmsim.study.store import Store

from conftest import REPO, minimal_scenario, onoff_scenario, write_toml

VENV_BIN = Path(sys.executable).parent
posix_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: /proc and the parent-death signal")


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _long_sweep(tmp_path: Path, out: Path, jobs: int = 2, duration_s: float = 60) -> list[str]:
    f = write_toml(tmp_path / "onoff.toml", onoff_scenario(0.05))
    return [str(VENV_BIN / "atmsim"), "sweep", str(f), "-r", "4", "--set", f"run.duration_s={duration_s:g}",
            "--out", str(out), "-j", str(jobs), "-q"]


def _descendants(pid: int) -> list[int]:
    out = []
    for c in _children(pid):
        out += [c, *_descendants(c)]
    return out


def _killed_sweeps_workers_end(cmd: list[str], started: Callable[[list[int]], bool], settle_s: float) -> None:
    """Start the sweep ``cmd``, wait until its worker processes (spawned Python processes
    among its descendants; the resource tracker is one too) satisfy ``started``, give them
    ``settle_s`` seconds, SIGKILL the sweep (no handler of it runs) and check that every worker
    ends within 30 s."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    try:
        deadline = time.monotonic() + 120
        workers: list[int] = []
        while time.monotonic() < deadline and proc.poll() is None:
            workers = [p for p in _descendants(proc.pid)
                       if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")]
            if started(workers):
                break
            time.sleep(0.1)
        assert workers and started(workers), "the sweep started no workers"
        time.sleep(settle_s)
        # those alive now (a spawned helper process may have come and gone meanwhile)
        workers = [p for p in workers if _alive(p)]
        assert workers, "no worker is running a run"
        proc.kill()
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in workers), "workers outlived their killed sweep"
    finally:
        if proc.poll() is None:
            proc.kill()
        for p in _descendants(proc.pid):
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


@posix_only
def test_a_sigkilled_sweeps_workers_die_with_it(tmp_path: Path) -> None:
    """SIGKILL of a sweep's main process (no handler runs) used to leave its workers running
    for minutes; they now get the parent-death signal (1 s: inside their initializer's prctl
    for sure)."""
    _killed_sweeps_workers_end(_long_sweep(tmp_path, tmp_path / "s"), lambda w: len(w) >= 2, 1.0)


@posix_only
def test_a_sigkilled_sweeps_local_dask_workers_die_with_it(tmp_path: Path) -> None:
    """The same for ``--dask local``: the LocalCluster's worker process is a child of the sweep
    (its nanny lives in the sweep's process). It ends by Dask's own watch of its parent
    (``distributed.process.AsyncProcess``: the worker leaves at once when the pipe from its
    parent closes), which is what this test relies on and checks, 3 s into a run."""
    pytest.importorskip("distributed")
    out = tmp_path / "s"
    # runs of 3000 s simulated: on an idle machine 4 runs of 60 s ended within the 3 s
    _killed_sweeps_workers_end([*_long_sweep(tmp_path, out, duration_s=3000), "--dask", "local"],
                               lambda w: bool(w) and (out / "study.json").is_file(), 3.0)


@posix_only
def test_two_sweeps_on_one_study_do_not_both_run_it(tmp_path: Path) -> None:
    """The second sweep on a study directory in use is refused with one line (exit 2) and
    writes nothing; before, both ran every run."""
    out = tmp_path / "s"
    proc = subprocess.Popen(_long_sweep(tmp_path, out, jobs=1), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, cwd=REPO)
    try:
        deadline = time.monotonic() + 120
        while not (out / "study.json").is_file() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert (out / "study.json").is_file(), "the first sweep did not start its study"
        second = subprocess.run(_long_sweep(tmp_path, out, jobs=1), capture_output=True, text=True, cwd=REPO, timeout=120)
        assert second.returncode == 2, second.stderr
        lines = second.stderr.splitlines()
        assert len(lines) == 1 and "another atmsim process is running this study now" in lines[0], lines
        assert proc.poll() is None  # the first goes on
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def test_the_lock_is_per_directory_and_given_back(tmp_path: Path) -> None:
    a = Store.open(tmp_path / "a", "sweep", "id", {})
    with pytest.raises(ScenarioError) as info:
        Store.open(tmp_path / "a", "sweep", "id", {})
    assert "another atmsim process" in info.value.message
    b = Store.open(tmp_path / "b", "sweep", "id", {})  # another directory: its own lock
    a.release()
    Store.open(tmp_path / "a", "sweep", "id", {}).release()
    b.release()


def test_an_interrupted_command_says_what_it_stored(tmp_path: Path) -> None:
    """A SIGTERM'd reproduce said "no output written" though it had stored runs: the line now
    counts the runs stored since the command began, where."""
    STORED.clear()
    try:
        store = Store.open(tmp_path / "s", "reproduce", "x", {})
        STORED[str(store.dir)] = set()
        assert interrupted_line("atmsim", "r") == "atmsim: interrupted; no run finished, nothing new stored"
        for i in range(3):
            store.write_row({"run_id": f"r{i}", "point": i, "replication": 0, "seed": 1, "status": "ok"})
        assert interrupted_line("atmsim", "the same command reuses them") == (
            f"atmsim: interrupted; 3 runs finished and stored in {store.dir}; the same command reuses them")
        store.release()
    finally:
        STORED.clear()


# --------------------------------------------------------------------------- odd sweep input


@pytest.mark.parametrize(
    "args, words",
    [
        (["--grid", "x=range(0,1e300,1e-300)"], "gives more than 100000 values"),
        (["--grid", "x=geom(1,1e300,1.0000001)"], "gives more than 100000 values"),
        (["-r", "1000000"], "replications: must be at most 10000"),
        (["--grid", "run.seed=[1,2]", "-r", "2"], "a study sets run.seed itself"),
        (["--set", "run.seed=5"], "a study sets run.seed itself"),
        (["--grid", "connections.c1.source.rate_mbps=range(1,100000,1)", "-r", "5"], "runs, more than 100000"),
    ],
)
def test_odd_sweep_input_is_one_line(tmp_path: Path, capsys, args: list[str], words: str) -> None:
    f = write_toml(tmp_path / "s.toml", minimal_scenario())
    start = time.monotonic()
    assert main(["sweep", str(f), "--out", str(tmp_path / "out"), "-q", "-j", "1", *args]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and words in err[0], err
    assert not (tmp_path / "out").exists()
    assert time.monotonic() - start < 60  # planned nothing (a million runs took > 40 s to plan)


def test_a_text_metric_is_one_line(tmp_path: Path, capsys) -> None:
    """``-m scenario.description`` raised ValueError after the runs were stored."""
    f = write_toml(tmp_path / "s.toml", minimal_scenario())
    assert main(["sweep", str(f), "--out", str(tmp_path / "out"), "-q", "-j", "1", "-r", "1",
                 "-m", "scenario.description"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"atmsim: error: --metric: scenario.description: not a number in the run summary (it is str)"], err


def test_until_metric_must_be_text(tmp_path: Path) -> None:
    """``[study.until] metric = 5`` raised AttributeError."""
    scen = write_toml(tmp_path / "s.toml", minimal_scenario())
    study = tmp_path / "study.toml"
    study.write_text(f'[study]\nscenario = "{scen.name}"\n[study.until]\nmetric = 5\nrel_half_width = 0.1\n'
                     "max_replications = 4\n")
    with pytest.raises(ScenarioError) as info:
        make_spec(study)
    assert info.value.path == "until.metric" and "got 5" in info.value.message


# --------------------------------------------------------------------- damaged results, Dask


@pytest.fixture(scope="module")
def a_study(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("study")
    f = write_toml(d / "s.toml", minimal_scenario())
    assert main(["sweep", str(f), "--out", str(d / "out"), "-q", "-j", "1", "-r", "1"]) == 0
    return d / "out"


@pytest.mark.parametrize(
    "name, content, words",
    [
        ("study.json", "[]", "is not a study written by atmsim (not a JSON object)"),
        ("study.json", "{}", "is not a study written by atmsim"),
        ("study.json", "garbage", "is not valid JSON"),
        ("runs.parquet", "garbage", "cannot read the study's tables"),
    ],
)
def test_report_on_a_damaged_study_is_one_line(a_study: Path, tmp_path: Path, capsys, name: str, content: str,
                                               words: str) -> None:
    import shutil

    d = tmp_path / "copy"
    shutil.copytree(a_study, d)
    (d / name).write_text(content)
    assert main(["report", str(d), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and words in err[0] and "Traceback" not in err[0], err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    "name, content, words",
    [
        ("summary.json", "[1,2]", "not a run summary of atmsim (not a JSON object)"),
        ("index.json", "garbage", "is not valid JSON"),
        ("index.json", '{"experiments": 5}', "experiments is not a list"),
        ("index.json", '{"experiments": [5]}', "a file here is damaged or not atmsim's"),
    ],
)
def test_report_on_a_damaged_run_or_index_is_one_line(tmp_path: Path, capsys, name: str, content: str, words: str) -> None:
    d = tmp_path / "d"
    d.mkdir()
    (d / name).write_text(content)
    assert main(["report", str(d), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and words in err[0], err


def _serve(handler_kind: str) -> tuple[int, object]:
    """A local server that is no Dask scheduler: python's http.server (it waits for a request
    line the Dask handshake never ends) or one answering HTTP 400 at once."""
    import socket
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    if handler_kind == "http.server":
        ThreadingHTTPServer.daemon_threads = True  # a handler waiting on a request line does not block shutdown
        srv = ThreadingHTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        return srv.server_address[1], srv.shutdown
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)

    def loop() -> None:
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            try:
                c.recv(65536)
                c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass
            c.close()

    threading.Thread(target=loop, daemon=True).start()
    return s.getsockname()[1], s.close


@pytest.mark.parametrize("kind", ["http.server", "http 400"])
def test_dask_at_a_web_server_is_one_line(kind: str) -> None:
    """--dask at ``python -m http.server`` hung past 40 s; at a server answering HTTP 400 it
    raised MemoryError (distributed read a length of 3 EiB)."""
    pytest.importorskip("distributed")
    from atmsim.study.execute import DaskExecutor

    port, stop = _serve(kind)
    try:
        ex = DaskExecutor(f"tcp://127.0.0.1:{port}", connect_timeout=1.0)
        start = time.monotonic()
        with pytest.raises(ScenarioError) as info:
            ex.connect()
        assert time.monotonic() - start < 60
        assert info.value.file == "--dask" and "cannot reach a Dask scheduler" in info.value.message
        assert "\n" not in str(info.value)
    finally:
        stop()


def test_ten_threads_writing_the_same_output(tmp_path: Path, monkeypatch) -> None:
    """10 threads running into the same ``out=`` left a ``.same.old-*`` folder and 2 failed;
    one that finds the directory made by another between its look and its rename now writes
    into it as into any directory of its own command."""
    import threading

    import atmsim

    monkeypatch.chdir(tmp_path)
    for _ in range(3):
        errors: list[str] = []

        def go() -> None:
            try:
                atmsim.run(minimal_scenario(0.01), out="same")
            except Exception as e:  # noqa: BLE001 - collected for the assertion
                errors.append(repr(e))

        threads = [threading.Thread(target=go) for _ in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert sorted(p.name for p in tmp_path.iterdir()) == ["same"]
        assert sorted(p.name for p in (tmp_path / "same").iterdir()) == [
            ".atmsim-output.json", "connections.parquet", "ports.parquet", "summary.json"]
        assert atmsim.Result.read(tmp_path / "same").summary["events"] > 0
        import shutil

        shutil.rmtree(tmp_path / "same")


@pytest.mark.parametrize("sql", ["", "   ", ";", "/* nothing */"])
def test_an_empty_query_is_one_line(a_study: Path, capsys, sql: str) -> None:
    """``atmsim results query D ""`` crashed."""
    assert main(["results", "query", str(a_study), sql]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "no SQL statement given" in err[0], err


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs")
def test_a_study_file_that_is_a_device_or_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in (("/dev/zero", "a character device"), (str(fifo), "a FIFO (named pipe)")):
        r = subprocess.run([str(VENV_BIN / "atmsim"), "sweep", path, "--out", str(tmp_path / "o"), "-q"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and r.stderr.splitlines() == [f"atmsim: error: {path}: is {kind}, not a regular file"], r.stderr
