"""The command line for people and for process managers: SIGTERM like SIGINT, stale temporary
directories of killed runs, output permissions, usage without arguments, examples in every help,
idle ports hidden in the summary table (issue 12 items 4 and 5)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from atmsim.cli import cli, main

from conftest import EXAMPLES, REPO, wait_for_core

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid



# ------------------------------------------------------------------------------------ SIGTERM


@posix_only
def test_sigterm_during_run_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "atmsim", "run", str(EXAMPLES / "demo.toml"),
         "--set", "run.duration_s=3000", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL),
    )
    wait_for_core(proc)
    assert proc.poll() is None, "the run ended before the signal"
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stderr.splitlines() == ["atmsim: interrupted; no output written"]
    assert stdout == ""
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@posix_only
def test_sigterm_during_write_leaves_no_temporaries(scenario_file: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    """SIGTERM while the Parquet files go into the temporary directory (the series stream there as
    row groups while the run goes): nothing is left, the same message and exit code as an
    interrupt, and the SIGTERM disposition is put back afterwards."""
    import pyarrow.parquet as pq

    real = pq.ParquetWriter.write_table

    def write_then_terminate(self, *args, **kwargs):
        real(self, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends
        raise AssertionError("SIGTERM was not handled")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", write_then_terminate)
    before = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "--quiet"]) == 130
    captured = capsys.readouterr()
    assert captured.err.splitlines() == ["atmsim: interrupted; no output written"]
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.toml"]
    assert signal.getsignal(signal.SIGTERM) == before


@posix_only
def test_sigterm_keeps_an_earlier_result(scenario_file: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "--quiet"]) == 0
    earlier = (out / "summary.json").read_text()
    import pyarrow.parquet as pq

    def terminate(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", terminate)
    assert main(["run", str(scenario_file), "--out", str(out), "--quiet", "--seed", "9"]) == 130
    assert (out / "summary.json").read_text() == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "small.toml"]


@posix_only
def test_signals_deferred_during_critical_step() -> None:
    from atmsim.result import signals_deferred

    def raise_interrupt(signum, frame):
        raise KeyboardInterrupt()

    previous = signal.signal(signal.SIGTERM, raise_interrupt)
    try:
        steps = []
        with pytest.raises(KeyboardInterrupt):
            with signals_deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.2)
                steps.append("finished")
        assert steps == ["finished"]
        assert signal.getsignal(signal.SIGTERM) is raise_interrupt
    finally:
        signal.signal(signal.SIGTERM, previous)


# ----------------------------------------------------------------------- temporary directories


def test_stale_temporaries_of_dead_processes_are_removed(scenario_file: Path, tmp_path: Path) -> None:
    dead = _dead_pid()
    stale = [tmp_path / f".out.tmp-{dead}-x", tmp_path / f".out.old-{dead}-y"]
    live = [tmp_path / f".out.tmp-{os.getpid()}-x", tmp_path / f".out.tmp-1-z"]  # ours, init's
    others = [tmp_path / f".other.tmp-{dead}-x", tmp_path / ".out.tmp-nopid"]  # another target; no pid
    for d in stale + live + others:
        d.mkdir()
        (d / "summary.json").write_text("{}")
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "--quiet"]) == 0
    for d in stale:
        assert not d.exists(), d
    for d in live + others:
        assert d.is_dir(), d
    assert (out / "summary.json").is_file()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["out", "small.toml"] + [d.name for d in live + others])


@pytest.mark.parametrize("umask, mode", [(0o022, 0o755), (0o027, 0o750)])
def test_output_directory_permissions(scenario_file: Path, tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        out = tmp_path / "out"
        assert main(["run", str(scenario_file), "--out", str(out), "--quiet"]) == 0
        assert stat.S_IMODE(out.stat().st_mode) == mode
        # replacing an earlier result gives the same
        assert main(["run", str(scenario_file), "--out", str(out), "--quiet"]) == 0
        assert stat.S_IMODE(out.stat().st_mode) == mode
        # a directory made by mkdtemp (0700), as reproduce does, is given the usual mode too
        from atmsim.result import swap_into_place

        new = Path(tempfile.mkdtemp(prefix=".rep.tmp-", dir=tmp_path))
        swap_into_place(new, tmp_path / "rep")
        assert stat.S_IMODE((tmp_path / "rep").stat().st_mode) == mode
    finally:
        os.umask(old)


# --------------------------------------------------------------------------------- first use


def test_no_arguments_prints_usage_with_examples(capsys) -> None:
    assert main([]) == 2  # as click does for a group without a command
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert lines[0] == "Usage: atmsim [OPTIONS] COMMAND [ARGS]..."
    assert "Examples" in captured.err
    assert "  atmsim run scenarios/examples/demo.toml --out results/demo" in lines
    for name in cli.commands:
        assert any(line.startswith(f"  {name} ") for line in lines), name
    assert len(lines) < 30
    assert "error" not in captured.err


def test_run_without_file_names_it(capsys) -> None:
    assert main(["run"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("atmsim: error: ")
    assert "FILE" in lines[0] and "usage: atmsim run [OPTIONS] FILE" in lines[0]


@pytest.mark.parametrize("command", [[]] + [[name] for name in sorted(cli.commands)])
def test_every_help_has_a_working_example(command: list[str], capsys, monkeypatch) -> None:
    assert main(command + ["--help"]) == 0
    text = capsys.readouterr().out
    assert "Example" in text
    examples = [line.strip() for line in text.splitlines() if line.strip().startswith("atmsim ")]
    assert examples, text
    for line in examples:
        for path in re.findall(r"scenarios/\S+", line):
            assert (REPO / path).is_file(), path
    monkeypatch.chdir(REPO)
    for line in examples:  # the cheap ones run here
        if line.startswith(("atmsim validate", "atmsim map", "atmsim reproduce --list", "atmsim schema --series")):
            assert main(shlex.split(line)[1:]) == 0, line
            capsys.readouterr()


@pytest.mark.parametrize("command", [[]] + [[name] for name in sorted(cli.commands)])
def test_help_examples_paste_into_a_shell(command: list[str], capsys) -> None:
    """A key path's '->' in an example is quoted: unquoted, the shell reads '>' as a redirection
    (issue 29: '-m ports.A->B.max_queue_cells' wrote a file named 'B.max_queue_cells')."""
    assert main(command + ["--help"]) == 0
    text = capsys.readouterr().out
    lines = [line.strip() for line in text.splitlines() if "atmsim " in line and "->" in line]
    for line in lines:
        lexer = shlex.shlex(line.rstrip("\\").strip(), posix=True, punctuation_chars=True)
        tokens = list(lexer)  # raises on an unbalanced quote
        assert ">" not in tokens, f"unquoted '>' in: {line}"


def test_shell_example_check_can_fail() -> None:
    tokens = list(shlex.shlex("atmsim sweep x -m ports.A->B.q", posix=True, punctuation_chars=True))
    assert ">" in tokens
    tokens = list(shlex.shlex("atmsim sweep x -m 'ports.A->B.q'", posix=True, punctuation_chars=True))
    assert ">" not in tokens


def _atmsim(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "atmsim", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300, cwd=REPO)


def test_shell_completion_works() -> None:
    """'atmsim completion SHELL' prints click's script, and the completion mode it calls (the
    command with no arguments and _ATMSIM_COMPLETE set) answers instead of printing the usage."""
    for shell, mark in [("bash", "_atmsim_completion"), ("zsh", "#compdef atmsim"), ("fish", "complete")]:
        r = _atmsim(["completion", shell])
        assert r.returncode == 0 and mark in r.stdout, (shell, r.stderr)
    r = _atmsim([], {"_ATMSIM_COMPLETE": "bash_source"})
    assert r.returncode == 0 and "_atmsim_completion" in r.stdout, r.stderr
    r = _atmsim([], {"_ATMSIM_COMPLETE": "bash_complete", "COMP_WORDS": "atmsim sw", "COMP_CWORD": "1"})
    assert r.returncode == 0 and "sweep" in r.stdout, r.stderr
    assert _atmsim([]).returncode == 2  # without the variable: the usage, exit 2


def test_sweep_shows_no_progress_bar_in_a_pipe(tmp_path: Path) -> None:
    """tqdm only on a terminal: in a pipe or a log the sweep writes no carriage returns."""
    # (a run.seed axis, which the replication seeds silently replaced, is refused since issue 31)
    r = _atmsim(["sweep", str(EXAMPLES / "demo.toml"), "--grid", "connections.cbr1.source.rate_mbps=[10, 20]", "-r", "1",
                 "--set", "run.duration_s=0.02", "--set", "run.warmup_s=0.01", "--jobs", "1", "--out", str(tmp_path / "s")])
    assert r.returncode == 0, r.stderr
    assert "\r" not in r.stderr and "it/s" not in r.stderr and "run/s" not in r.stderr, r.stderr


def test_run_help_explains_the_columns(capsys) -> None:
    assert main(["run", "--help"]) == 0
    text = capsys.readouterr().out
    for column in ("max queue", "mean queue", "utilization", "drops", "sent", "delivered", "dropped",
                   "Mb/s", "CTD mean us", "CTD max us", "CDV p2p us", "CLR", "--all-ports"):
        assert column in text, column


def test_table_hides_idle_ports(scenario_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    # h1 -> S -> h2 carries c1; S->h1 and h2->S carry nothing
    assert "h1->S" in text and "S->h2" in text
    assert "S->h1" not in text and "h2->S" not in text
    assert "2 idle ports not shown; --all-ports shows them" in text
    assert main(["run", str(scenario_file), "--out", str(out), "--all-ports"]) == 0
    text = capsys.readouterr().out
    assert "S->h1" in text and "h2->S" in text and "not shown" not in text
