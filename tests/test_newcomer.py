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


@pytest.mark.skipif(not Path("/usr/bin/fish").exists(), reason="fish not installed (make test installs it)")
def test_fish_completes_a_command_and_an_option(tmp_path: Path) -> None:
    """fish completes non-interactively (``complete -C``): the script's completions of a command
    and of one of its options, as fish would offer them at the prompt."""
    env = _wrapper(tmp_path)
    r = subprocess.run(["/usr/bin/fish", "-c", 'atmsim completion fish | source; complete -C "atmsim sw"; '
                        'complete -C "atmsim sweep --gr"'], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    words = [line.split("\t")[0] for line in r.stdout.splitlines()]
    assert "sweep" in words and "--grid" in words, r.stdout


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


# ------------------------------------------------------------------------------------ packaging

#: the modules of the extras (study: dask, duckdb, scipy; report: plotly) and of the test tools
EXTRA_MODULES = ("dask", "distributed", "duckdb", "scipy", "plotly", "pytest", "hypothesis", "selenium", "nolds")


def _without_extras(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``atmsim ARGS`` in a process where none of the extras' modules can be imported (each set
    to None in sys.modules: importing it raises ImportError, as if it were not installed)."""
    code = (
        "import sys\n"
        f"for m in {EXTRA_MODULES!r}: sys.modules[m] = None\n"
        "from atmsim.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600, cwd=cwd,
                          env={**os.environ, "ATMSIM_MAX_DURATION_S": "0.1"})


def test_core_runs_and_plots_without_the_extras(tmp_path: Path) -> None:
    r = _without_extras(["run", str(EXAMPLES / "demo.toml"), "--out", "demo"], tmp_path)
    assert r.returncode == 0, r.stderr
    r = _without_extras(["plot", "demo"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "demo" / "queues.png").is_file()
    r = _without_extras(["validate", str(EXAMPLES / "demo.toml")], tmp_path)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("args, extra", [
    (["sweep", str(EXAMPLES / "demo.toml"), "--grid", "run.seed=[1, 2]"], "study"),
    (["results", "query", "x", "SELECT 1"], "study"),
    (["reproduce", "paper003", "--quick"], "study"),
    (["reproduce", "--list"], "study"),
    (["report", "demo"], "report"),
])
def test_a_missing_extra_is_one_line_naming_it(args: list[str], extra: str, tmp_path: Path) -> None:
    r = _without_extras(args, tmp_path)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"atmsim: error: atmsim {args[0]} needs the '{extra}' extra ("), lines[0]
    assert f"pip install 'atmsim[{extra}]'" in lines[0]
    assert list(tmp_path.iterdir()) == [], "nothing written"


def test_the_api_names_the_missing_extra() -> None:
    code = (
        "import sys\n"
        f"for m in {EXTRA_MODULES!r}: sys.modules[m] = None\n"
        "import atmsim\n"
        "try:\n    atmsim.sweep\nexcept atmsim.AtmsimError as e:\n    print(type(e).__name__, e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("MissingExtraError atmsim.study needs the 'study' extra (duckdb, scipy not installed)"), r.stdout


def test_pyproject_core_and_extras() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = " ".join(project["dependencies"])
    for heavy in ("dask", "duckdb", "plotly", "scipy", "pytest", "selenium", "hypothesis"):
        assert heavy not in core, heavy
    extras = project["optional-dependencies"]
    assert any(r.startswith("dask") for r in extras["study"]) and any(r.startswith("duckdb") for r in extras["study"])
    assert any(r.startswith("plotly") for r in extras["report"])
    assert set(extras["study"]) | set(extras["report"]) <= set(extras["dev"])
    assert any(r.startswith("pytest") for r in extras["dev"])
    assert project["readme"] == "README.md" and project["license"] and project["authors"]
    assert len(project["classifiers"]) >= 10 and project["keywords"]


def test_make_run_installs_no_extra_and_make_test_adds_them() -> None:
    if subprocess.run(["make", "--version"], capture_output=True).returncode != 0:
        pytest.skip("make not installed")
    run = subprocess.run(["make", "-n", "-B", "run"], cwd=REPO, capture_output=True, text=True).stdout
    assert "maturin develop --release\n" in run and "--extras" not in run and "requirements-dev" not in run, run
    test = subprocess.run(["make", "-n", "-B", "test"], cwd=REPO, capture_output=True, text=True).stdout
    assert "requirements-dev.txt" in test, test


def test_dir_lists_the_api_and_submodules_load_lazily() -> None:
    code = (
        "import sys, atmsim\n"
        "names = dir(atmsim)\n"
        "print(all(n in names for n in ('run', 'sweep', 'results', 'Result', 'report', 'study', 'plots', 'reproduce')))\n"
        "print('atmsim.report' in sys.modules, 'pandas' in sys.modules)\n"
        "atmsim.report.report\n"
        "print('atmsim.report' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "False", "False", "True"]


# ------------------------------------------------------------------------------------ the duration cap


def test_max_duration_caps_every_run(monkeypatch, capsys) -> None:
    from atmsim.scenario import load_scenario

    monkeypatch.setenv("ATMSIM_MAX_DURATION_S", "0.05")
    doc, prov = load_scenario(EXAMPLES / "demo.toml", validate=False)  # 1 s with a 0.1 s warm-up
    assert doc["run"]["duration_s"] == 0.05 and doc["run"]["warmup_s"] == 0.025
    assert prov.file_for("run.duration_s") == "ATMSIM_MAX_DURATION_S"
    doc, _ = load_scenario(EXAMPLES / "demo.toml", {"run.duration_s": 0.02, "run.warmup_s": 0.01}, validate=False)
    assert doc["run"]["duration_s"] == 0.02 and doc["run"]["warmup_s"] == 0.01  # shorter runs are left alone
    monkeypatch.setenv("ATMSIM_MAX_DURATION_S", "soon")
    assert main(["validate", str(EXAMPLES / "demo.toml")]) == 2
    err = capsys.readouterr().err
    assert err == "atmsim: error: ATMSIM_MAX_DURATION_S: must be a number of seconds > 0, got 'soon'\n"


def test_output_into_a_closed_pipe_is_no_error(tmp_path: Path) -> None:
    """`atmsim ... | head -1` under `set -o pipefail`: the command that printed into the pipe
    ends with 0 when the reader stops early (nothing failed), and says nothing on stderr."""
    env = _wrapper(tmp_path)
    r = subprocess.run(["bash", "-o", "pipefail", "-c", "atmsim schema | head -1"], env=env,
                       capture_output=True, text=True, timeout=120)  # 100 kB: more than a pipe holds
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "{" and r.stderr == ""
    # a long event log read by head (docs/tracing.md does this)
    out = tmp_path / "t"
    assert main(["run", str(EXAMPLES / "demo.toml"), "--set", "run.duration_s=0.02", "--set", "run.warmup_s=0",
                 "--set", 'run.trace.connections=["vbr1"]', "--out", str(out), "-q"]) == 0
    r = subprocess.run(["bash", "-o", "pipefail", "-c", f"atmsim trace {out} | head -2"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "" and len(r.stdout.splitlines()) == 2, (r.returncode, r.stderr)
