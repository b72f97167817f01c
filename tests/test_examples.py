"""Every example runs as pasted (issue 29 item 1): the examples of every ``--help`` (the group's and
each command's, sub-commands included), and every fenced ``sh`` / ``python`` block of README.md and
docs/*.md, are extracted and run, shortened by ``ATMSIM_MAX_DURATION_S`` (every run's simulated
time capped; ``atmsim.scenario``).

Each source runs in a sandbox of its own, a directory with links to the repository's
``scenarios/``, ``studies/`` and ``tools/`` and an ``atmsim`` command both on PATH and at
``.venv/bin/atmsim`` (as after ``make run``), the examples in order, as a user would paste them:
shell blocks by ``bash -e -o pipefail`` with ``failglob`` (an unquoted ``[...]`` that matches no
file is an error, as in zsh: an example that only works in bash because nothing matched the
pattern fails here), Python blocks by the interpreter running the tests. A test fails on

- a non-zero exit of any line, and
- a stray file: anything written in the sandbox outside ``results/``, an ``--out`` the example
  names, and the target of a redirection it writes as one (`` > FILE``, blank before the ``>``),
  e.g. the file ``B.max_queue_cells`` that an unquoted ``-m ports.A->B.max_queue_cells`` made;
  and anything written into the repository itself (``git status`` before and after).

The blocks that cannot run here (they need a cluster) are listed in ``NOT_RUNNABLE`` with the
reason; each entry must still match a block, so the list cannot go stale silently.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from atmsim.cli import cli

from conftest import REPO

#: simulated seconds per run while the examples run
CAP_S = "0.05"
#: a longer cap where a document's example needs it: docs/tracing.md traces 0.1-0.15 s of a run
CAP_BY_DOC = {"tracing.md": "0.2"}
#: a block containing this text is not run, for the reason given
NOT_RUNNABLE = {
    "make test": "the build and the test suite themselves (this test runs inside 'make test')",
    "helm install dask": "needs a Kubernetes cluster and helm",
    "SLURMCluster(": "needs a SLURM cluster and dask-jobqueue",
}
#: the order the help examples run in, one sandbox for all: commands that write a results
#: directory before the ones that read it (a command not named here runs at the end)
HELP_ORDER = ["run", "validate", "schema", "plot", "map", "completion", "sweep", "results", "results query",
              "report", "reproduce", ""]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


# ------------------------------------------------------------------------------------ extraction


def help_text(path: str) -> str:
    import click.testing

    result = click.testing.CliRunner().invoke(cli, [*path.split(), "--help"], prog_name="atmsim")
    assert result.exit_code == 0, result.output
    return result.output


def help_examples(text: str) -> list[str]:
    """The lines of the help's example block(s): the indented lines after a line holding
    'Example', up to a blank line; a line ending in a backslash continues on the next."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if "Example" in lines[i] and lines[i].strip().endswith(":"):
            i += 1
            while i < len(lines) and lines[i].strip():
                out.append(lines[i].strip())
                i += 1
        i += 1
    joined: list[str] = []
    for line in out:
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1].rstrip() + " " + line
        else:
            joined.append(line)
    return joined


def command_paths() -> list[str]:
    import click

    paths = [""]
    for name, cmd in cli.commands.items():
        paths.append(name)
        if isinstance(cmd, click.Group):
            paths += [f"{name} {sub}" for sub in cmd.commands]
    order = {p: i for i, p in enumerate(HELP_ORDER)}
    return sorted(paths, key=lambda p: order.get(p, len(order)))


def doc_blocks(path: Path) -> list[tuple[int, str, str]]:
    """(line, language, text) of the fenced sh / bash / python blocks of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        lang = m.group(1)
        if lang in ("sh", "bash", "shell", "python"):
            out.append((text.count("\n", 0, m.start()) + 1, "python" if lang == "python" else "sh", m.group(2)))
    return out


def _skip_reason(text: str) -> str | None:
    return next((why for mark, why in NOT_RUNNABLE.items() if mark in text), None)


# ------------------------------------------------------------------------------------ running


class Sandbox:
    def __init__(self, root: Path, cap_s: str = CAP_S) -> None:
        self.root = root
        (root / "home").mkdir()
        bindir = root / ".venv" / "bin"
        bindir.mkdir(parents=True)
        wrapper = bindir / "atmsim"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m atmsim "$@"\n')
        wrapper.chmod(0o755)
        for name in ("scenarios", "studies", "tools"):
            (root / name).symlink_to(REPO / name)
        self.env = {
            **os.environ,
            "HOME": str(root / "home"),
            "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
            "ATMSIM_MAX_DURATION_S": cap_s,
            "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "python"), os.environ.get("PYTHONPATH", "")) if p),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self.env.pop("_ATMSIM_COMPLETE", None)

    def files(self) -> set[Path]:
        found = set()
        for dirpath, dirnames, filenames in os.walk(self.root):
            d = Path(dirpath)
            for n in filenames + [x for x in dirnames if (d / x).is_symlink()]:
                found.add((d / n).relative_to(self.root))
        return found

    def run(self, lang: str, text: str, where: str) -> None:
        before = self.files()
        if lang == "python":
            cmd = [sys.executable, "-c", text]
        else:
            cmd = ["bash", "--noprofile", "--norc", "-O", "failglob", "-e", "-o", "pipefail", "-c", text]
        r = subprocess.run(cmd, cwd=self.root, env=self.env, capture_output=True, text=True, timeout=600,
                           stdin=subprocess.DEVNULL)
        assert r.returncode == 0, f"{where}: exit code {r.returncode}\n--- example:\n{text}\n--- stderr:\n{r.stderr[-3000:]}"
        stray = sorted(str(p) for p in self.files() - before if not allowed(p, text, self.root))
        assert not stray, f"{where}: stray files {stray}\n--- example:\n{text}"


def allowed(path: Path, text: str, root: Path) -> bool:
    """Written where the example says it writes: results/, an --out it names, a redirection's
    target (the sandbox's home: what the example writes into ~)."""
    parts = path.parts
    if parts[0] in ("results", "home"):
        return True
    targets = re.findall(r"--out[ =](\S+)", text) + re.findall(r"""(?:^|\s)>>?\s*([^\s;&|'"]+)""", text)
    targets += re.findall(r"""out=["']([^"']+)["']""", text)  # the API's out=
    for t in targets:
        t = t.strip("'\"")
        p = Path(t)
        if p.is_absolute():
            continue
        if path == p or p in path.parents:
            return True
    return False


def _repo_status() -> str:
    r = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO, capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ""


# ------------------------------------------------------------------------------------ the tests


def test_help_examples_run_as_pasted(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    status = _repo_status()
    count = 0
    for path in command_paths():
        for line in help_examples(help_text(path)):
            box.run("sh", line, f"atmsim {path} --help".replace("  ", " "))
            count += 1
    assert count >= 20, count
    assert _repo_status() == status, "an example wrote into the repository"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_doc_examples_run_as_pasted(doc: Path, tmp_path: Path) -> None:
    blocks = doc_blocks(doc)
    if not blocks:
        pytest.skip(f"{doc.name} has no sh or python block")
    box = Sandbox(tmp_path, CAP_BY_DOC.get(doc.name, CAP_S))
    status = _repo_status()
    for line, lang, text in blocks:
        if _skip_reason(text):
            continue
        box.run(lang, text, f"{doc.relative_to(REPO)}:{line}")
    assert _repo_status() == status, "an example wrote into the repository"


def test_not_runnable_list_is_current() -> None:
    texts = [t for d in DOCS for _, _, t in doc_blocks(d)]
    for mark in NOT_RUNNABLE:
        assert any(mark in t for t in texts), f"NOT_RUNNABLE entry {mark!r} matches no block any more"


# ------------------------------------------------------------------------------------ the checks can fail


def test_stray_file_check_catches_an_unquoted_arrow(tmp_path: Path) -> None:
    """The issue's case: '-m ports.A->B.max_queue_cells' unquoted redirects into a file."""
    box = Sandbox(tmp_path)
    with pytest.raises(AssertionError, match="stray files.*B.max_queue_cells"):
        box.run("sh", "echo -m ports.A->B.max_queue_cells", "test")
    box.run("sh", "echo -m 'ports.A->C.max_queue_cells'", "test")
    box.run("sh", "echo x > written.txt", "test")  # an intended redirection is no stray file


def test_failing_example_fails(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    with pytest.raises(AssertionError, match="exit code 2"):
        box.run("sh", "atmsim run scenarios/examples/no-such.toml", "test")
    with pytest.raises(AssertionError, match="exit code 1"):  # zsh's 'no matches found'
        box.run("sh", "atmsim validate scenarios/examples/demo.toml --set links[3].rate_mbps=100", "test")


def test_help_examples_are_found() -> None:
    assert help_examples(help_text("sweep"))[0].startswith("atmsim sweep scenarios/examples/demo.toml --grid")
