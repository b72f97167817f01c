"""A newcomer's first hour (issue 29): shell completion driven as a shell drives it, -v / -q
through ``logging``, progress bars only on a terminal, the package's API listed and its
submodules loaded on first use, a missing extra named in one line."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from atmsim.cli import main

from conftest import EXAMPLES, REPO


def _wrapper(tmp_path: Path) -> dict[str, str]:
    """An ``atmsim`` command on PATH (what the completion scripts call), as after ``make run``."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    cmd = bindir / "atmsim"
    cmd.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m atmsim "$@"\n')
    cmd.chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}
    env.pop("_ATMSIM_COMPLETE", None)
    return env


# ------------------------------------------------------------------------------------ completion


def test_bash_completion_completes_in_bash(tmp_path: Path) -> None:
    """The script 'atmsim completion bash' prints, loaded into bash, completes a command name and
    an option, as bash calls it on TAB (COMP_WORDS, COMP_CWORD, then the completion function)."""
    env = _wrapper(tmp_path)
    script = (
        'eval "$(atmsim completion bash)"\n'
        "complete -p atmsim\n"
        "COMP_WORDS=(atmsim sw); COMP_CWORD=1; _atmsim_completion atmsim sw atmsim; echo \"words: ${COMPREPLY[*]}\"\n"
        "COMPREPLY=(); COMP_WORDS=(atmsim sweep --gr); COMP_CWORD=2; _atmsim_completion atmsim --gr sweep; echo \"options: ${COMPREPLY[*]}\"\n"
    )
    r = subprocess.run(["bash", "--noprofile", "--norc", "-c", script], env=env, capture_output=True, text=True,
                       timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "_atmsim_completion" in lines[0]
    assert "words: sweep" in lines, r.stdout
    assert "options: --grid" in lines, r.stdout


@pytest.mark.skipif(not Path("/usr/bin/fish").exists() and not Path("/usr/bin/zsh").exists(),
                    reason="neither fish nor zsh installed (the scripts are still printed: test_cli_ux)")
def test_zsh_or_fish_script_loads(tmp_path: Path) -> None:
    env = _wrapper(tmp_path)
    for shell, load in (("zsh", 'autoload -U compinit; compinit -u; eval "$(atmsim completion zsh)"'),
                        ("fish", "atmsim completion fish | source")):
        if Path(f"/usr/bin/{shell}").exists():
            r = subprocess.run([f"/usr/bin/{shell}", "-c", load], env=env, capture_output=True, text=True, timeout=120)
            assert r.returncode == 0, (shell, r.stderr)


# ------------------------------------------------------------------------------------ logging


def test_verbose_and_quiet_go_through_logging(tmp_path: Path, capsys) -> None:
    demo = str(EXAMPLES / "demo.toml")
    short = ["--set", "run.duration_s=0.05", "--set", "run.warmup_s=0.01"]
    assert main(["run", demo, *short, "--out", str(tmp_path / "a"), "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["run", demo, *short, "--out", str(tmp_path / "a"), "-q", "-v"]) == 0  # -q wins
    assert capsys.readouterr().err == ""
    for args in (["-v", "run", demo, *short], ["run", demo, *short, "-v"]):  # before or after the command
        assert main([*args, "--out", str(tmp_path / "b")]) == 0
        err = capsys.readouterr().err
        assert "atmsim: [atmsim.run] building" in err and "events" in err, err
    assert main(["validate", demo, "-q"]) == 0 and main(["-q", "validate", demo]) == 0
    capsys.readouterr()
    assert logging.getLogger("atmsim").level == logging.WARNING  # the last invocation's -q


def test_library_logs_to_the_application_handler(tmp_path: Path) -> None:
    """As a library atmsim prints nothing itself; a handler the application adds gets the records."""
    import atmsim

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("atmsim.run")
    handler = Keep(level=logging.DEBUG)
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        atmsim.run(EXAMPLES / "demo.toml", overrides={"run.duration_s": 0.05, "run.warmup_s": 0.01})
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
    assert any("building" in r.getMessage() for r in records)


def test_reproduce_lines_are_log_records_quieted_by_q(tmp_path: Path) -> None:
    env = {**os.environ, "ATMSIM_MAX_DURATION_S": "0.05"}
    base = [sys.executable, "-m", "atmsim", "reproduce", "paper003", "--quick", "--jobs", "1"]
    r = subprocess.run([*base, "--out", str(tmp_path / "a")], env=env, capture_output=True, text=True, timeout=600, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip(), "the per-run lines are shown by default"
    r = subprocess.run([sys.executable, "-m", "atmsim", "-q", *base[3:], "--out", str(tmp_path / "b")],
                       env=env, capture_output=True, text=True, timeout=600, cwd=REPO)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "wrote" in r.stdout


def test_no_progress_bar_in_a_pipe(tmp_path: Path) -> None:
    """tqdm only on a terminal: 'run' and 'sweep' write no carriage return into a pipe."""
    env = {**os.environ, "ATMSIM_MAX_DURATION_S": "0.3"}
    r = subprocess.run([sys.executable, "-m", "atmsim", "run", str(EXAMPLES / "demo.toml"), "--out", str(tmp_path / "r")],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "\r" not in r.stderr and "\r" not in r.stdout
