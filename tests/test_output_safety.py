"""Output directories are ours only (issue 31 item 1): every command that writes an output
directory (``atmsim run``, ``Result.write``, ``atmsim.run(out=)``, ``sweep``, ``reproduce``,
``reproduce all``, ``plot``, ``report``) writes into a directory that does not exist, is empty, or
carries atmsim's marker file from an earlier run of the same command; anything else is refused
with one line (exit 2) unless ``--force``, and even then only atmsim's own files are replaced.
A device, a FIFO or a symbolic link pointing out of the directory is never renamed over."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim
from atmsim import reproduce as rep
from atmsim.cli import main
from atmsim.errors import ScenarioError
from atmsim.reproduce import seed003

from conftest import EXAMPLES, REPO, abr_scenario, minimal_scenario, write_toml

MARKER = ".atmsim-output.json"


def _refused(capsys, code: int, *words: str) -> str:
    """Exit code 2 and one line on stderr holding ``words``; returns the line."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2, captured
    assert len(lines) == 1 and lines[0].startswith("atmsim: error: "), captured.err
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def _tree(d: Path) -> dict[str, str]:
    """Every entry under ``d`` (not following links): file contents, link targets, kinds."""
    out = {}
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            p = Path(root) / name
            rel = str(p.relative_to(d))
            mode = os.lstat(p).st_mode
            if stat.S_ISLNK(mode):
                out[rel] = "link:" + os.readlink(p)
            elif stat.S_ISREG(mode):
                out[rel] = "file:" + p.read_text(errors="replace")
            elif stat.S_ISDIR(mode):
                out[rel] = "dir"
            else:
                out[rel] = f"special:{stat.S_IFMT(mode)}"
    return out


@pytest.fixture
def mydocs(tmp_path: Path) -> Path:
    d = tmp_path / "mydocs"
    d.mkdir()
    (d / "thesis.tex").write_text("x\n")
    return d


def _short_seed003() -> list[rep.RunSpec]:
    return [rep.RunSpec("transient-nrm32", "seed003/transient.toml", {"run.duration_s": 0.3}, {"nrm": 32},
                        {"config": "transient", "nrm": 32})]


# ---------------------------------------------------------------------------------- atmsim run


def test_run_refuses_a_directory_of_user_files(scenario_file: Path, mydocs: Path, capsys) -> None:
    """The issue's case: `atmsim run ... --out mydocs` left only the run's files in mydocs."""
    before = _tree(mydocs)
    line = _refused(capsys, main(["run", str(scenario_file), "--out", str(mydocs), "-q"]), str(mydocs), "--force")
    assert "thesis.tex" in line
    assert _tree(mydocs) == before
    assert sorted(p.name for p in mydocs.parent.iterdir()) == ["mydocs", "small.toml"]  # no temporaries


def test_run_out_pwd_keeps_the_working_directory(tmp_path: Path) -> None:
    """The issue's case: `--out "$PWD"` emptied the working directory (in a subprocess: the run
    used to rename its working directory away)."""
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "keep.txt").write_text("mine")
    (work / "sub" / "deep.txt").write_text("mine too")
    before = _tree(work)
    for out in (str(work), "."):
        proc = subprocess.run(
            [sys.executable, "-m", "atmsim", "run", str(EXAMPLES / "demo.toml"), "--set", "run.duration_s=0.02",
             "--set", "run.warmup_s=0", "--out", out, "-q"],
            cwd=work, capture_output=True, text=True, timeout=300,
        )
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "--force" in proc.stderr
        assert _tree(work) == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["work"]


def test_run_force_writes_beside_user_files(scenario_file: Path, mydocs: Path, capsys) -> None:
    assert main(["run", str(scenario_file), "--out", str(mydocs), "-q", "--force"]) == 0
    names = sorted(p.name for p in mydocs.iterdir())
    assert names == sorted([MARKER, "connections.parquet", "ports.parquet", "summary.json", "thesis.tex"])
    assert (mydocs / "thesis.tex").read_text() == "x\n"
    marker = json.loads((mydocs / MARKER).read_text())
    assert marker["command"] == "run" and sorted(marker["files"]) == ["connections.parquet", "ports.parquet", "summary.json"]
    # the marker makes the directory ours: the same command runs again without --force
    assert main(["run", str(scenario_file), "--out", str(mydocs), "-q", "--seed", "5"]) == 0
    assert (mydocs / "thesis.tex").read_text() == "x\n"
    assert json.loads((mydocs / "summary.json").read_text())["seed"] == 5


def test_force_never_replaces_a_file_atmsim_did_not_write(scenario_file: Path, mydocs: Path, capsys) -> None:
    (mydocs / "summary.json").write_text("my own summary")
    before = _tree(mydocs)
    _refused(capsys, main(["run", str(scenario_file), "--out", str(mydocs), "-q", "--force"]), "summary.json")
    assert _tree(mydocs) == before


def test_rerun_replaces_only_its_own_files(tmp_path: Path, capsys) -> None:
    """A run into its own earlier output: the new files replace the old, the old run's files the
    new one does not write go, a file the user added stays."""
    out = tmp_path / "out"
    abr = write_toml(tmp_path / "abr.toml", abr_scenario(0.01))
    plain = write_toml(tmp_path / "plain.toml", minimal_scenario(0.01))
    assert main(["run", str(abr), "--out", str(out), "-q"]) == 0
    assert (out / "abr_sources.parquet").is_file()
    (out / "notes.txt").write_text("mine")
    assert main(["run", str(plain), "--out", str(out), "-q"]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [MARKER, "connections.parquet", "notes.txt", "ports.parquet", "summary.json"])
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(atmsim.Result.read(out).series_names) == ["connections", "ports"]


def test_rerun_never_renames_over_a_fifo_or_a_link_out_of_the_directory(scenario_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "-q"]) == 0
    outside = tmp_path / "outside.txt"
    outside.write_text("outside")
    (out / "ports.parquet").unlink()
    os.mkfifo(out / "ports.parquet")
    (out / "summary.json").unlink()
    (out / "summary.json").symlink_to(outside)
    before = _tree(out)
    _refused(capsys, main(["run", str(scenario_file), "--out", str(out), "-q"]), str(out))
    assert _tree(out) == before and outside.read_text() == "outside"
    assert stat.S_ISFIFO(os.lstat(out / "ports.parquet").st_mode)
    # --force does not change that
    _refused(capsys, main(["run", str(scenario_file), "--out", str(out), "-q", "--force"]))
    assert _tree(out) == before and outside.read_text() == "outside"


def test_out_that_is_not_a_directory(scenario_file: Path, tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    _refused(capsys, main(["run", str(scenario_file), "--out", str(fifo), "-q"]), "not a directory")
    _refused(capsys, main(["run", str(scenario_file), "--out", str(fifo), "-q", "--force"]), "not a directory")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    afile = tmp_path / "afile"
    afile.write_text("mine")
    _refused(capsys, main(["run", str(scenario_file), "--out", str(afile), "-q"]), "not a directory")
    assert afile.read_text() == "mine"


def test_out_a_link_to_a_directory_writes_there(scenario_file: Path, tmp_path: Path, capsys) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    for _ in range(2):
        assert main(["run", str(scenario_file), "--out", str(link), "-q"]) == 0
        assert link.is_symlink() and (real / "summary.json").is_file()


# ----------------------------------------------------------------------------- the Python API


def test_api_refuses_before_running(scenario_dict, mydocs: Path, monkeypatch) -> None:
    before = _tree(mydocs)
    from atmsim import _core

    class NoRun:
        def __init__(self, *args, **kwargs):
            raise AssertionError("the run started before the output directory was checked")

    monkeypatch.setattr(_core, "Simulation", NoRun)
    with pytest.raises(ScenarioError, match="--force|force=True"):
        atmsim.run(scenario_dict, out=mydocs)
    assert _tree(mydocs) == before


def test_result_write_refuses_and_force_writes_beside(scenario_dict, mydocs: Path) -> None:
    result = atmsim.run(scenario_dict)
    with pytest.raises(ScenarioError, match="thesis.tex"):
        result.write(mydocs)
    assert sorted(p.name for p in mydocs.iterdir()) == ["thesis.tex"]
    result.write(mydocs, force=True)
    assert (mydocs / "thesis.tex").read_text() == "x\n" and (mydocs / "summary.json").is_file()
    result.write(mydocs)  # ours now
    assert (mydocs / "thesis.tex").read_text() == "x\n"
    assert json.loads((mydocs / MARKER).read_text())["command"] == "run"


def test_a_forged_marker_names_nothing_outside(scenario_file: Path, tmp_path: Path, capsys) -> None:
    """Entries of the marker that leave the directory (``..``, absolute paths) or go through a
    symbolic link are never removed as stale files of an earlier run."""
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "-q"]) == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "deep.txt").write_text("keep too")
    (out / "sub").symlink_to(elsewhere, target_is_directory=True)
    marker = json.loads((out / MARKER).read_text())
    marker["files"] += ["../victim.txt", str(victim), "sub/deep.txt", "sub/", "./../victim.txt"]
    (out / MARKER).write_text(json.dumps(marker))
    assert main(["run", str(scenario_file), "--out", str(out), "-q"]) == 0
    assert victim.read_text() == "keep" and (elsewhere / "deep.txt").read_text() == "keep too"
    assert (out / "sub").is_symlink()


def test_a_study_from_before_the_marker_is_resumed(scenario_file: Path, tmp_path: Path, capsys) -> None:
    """A study written by an atmsim without the marker is recognised by its study.json (the same
    study): started again it goes on; a report file beside it is not taken as atmsim's."""
    d = tmp_path / "study"
    args = ["sweep", str(scenario_file), "--grid", "connections.c1.source.rate_mbps=[10, 20]", "-r", "1",
            "--out", str(d), "-q", "-j", "1"]
    assert main(args) == 0
    (d / MARKER).unlink()
    capsys.readouterr()
    assert main(args) == 0
    assert "0 run now, 2 already stored" in capsys.readouterr().out
    assert json.loads((d / MARKER).read_text())["command"] == "sweep"
    # another study's directory is still another study
    _refused(capsys, main(args[:3] + ["connections.c1.source.rate_mbps=[30]"] + args[4:]), "holds another study")
    # a reproduction from before the marker: its study is adopted, its report.md is not
    r = tmp_path / "rep"
    rep.reproduce("seed003", out=r, runs=_short_seed003())
    (r / MARKER).unlink()
    before = (r / "report.md").read_text()
    with pytest.raises(ScenarioError, match="report.md"):
        rep.reproduce("seed003", out=r, runs=_short_seed003())
    assert (r / "report.md").read_text() == before


# ---------------------------------------------------------------------------------- reproduce


def test_reproduce_keeps_a_users_plots_and_report(tmp_path: Path, monkeypatch, capsys) -> None:
    """The issue's case: `atmsim reproduce seed003 --quick --out D` deleted D/plots/ and D/report.md."""
    monkeypatch.setattr(seed003, "EXPERIMENT", rep.replace(seed003.EXPERIMENT, runs=lambda quick: _short_seed003()))
    d = tmp_path / "D"
    (d / "plots").mkdir(parents=True)
    (d / "plots" / "figure1.png").write_text("my figure")
    (d / "report.md").write_text("my report")
    before = _tree(d)
    _refused(capsys, main(["reproduce", "seed003", "--quick", "--out", str(d), "-q"]), str(d), "--force")
    assert _tree(d) == before
    # with --force: still never replaced; refused before anything runs
    _refused(capsys, main(["reproduce", "seed003", "--quick", "--out", str(d), "-q", "--force"]), "report.md")
    assert _tree(d) == before
    with pytest.raises(ScenarioError):
        rep.reproduce("seed003", out=d, runs=_short_seed003(), force=True)
    assert _tree(d) == before


def test_reproduce_force_writes_beside_and_reruns(tmp_path: Path, capsys) -> None:
    d = tmp_path / "D"
    d.mkdir()
    (d / "notes.txt").write_text("mine")
    with pytest.raises(ScenarioError, match="force"):
        rep.reproduce("seed003", out=d, runs=_short_seed003())
    assert sorted(p.name for p in d.iterdir()) == ["notes.txt"]
    rep.reproduce("seed003", out=d, runs=_short_seed003(), force=True)
    assert (d / "report.md").is_file() and (d / "notes.txt").read_text() == "mine"
    (d / "plots" / "mine.png").write_text("my own figure, in atmsim's folder")
    rep.reproduce("seed003", out=d, runs=_short_seed003())  # ours now: no --force needed
    assert (d / "notes.txt").read_text() == "mine"
    assert (d / "plots" / "mine.png").read_text() == "my own figure, in atmsim's folder"
    assert (d / "runs" / "transient-nrm32" / "summary.json").is_file()


def test_reproduce_all_keeps_a_users_index(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(rep, "EXPERIMENT_MODULES", ("seed003",))
    monkeypatch.setattr(seed003, "EXPERIMENT", rep.replace(seed003.EXPERIMENT, runs=lambda quick: _short_seed003()))
    b = tmp_path / "all"
    b.mkdir()
    (b / "index.html").write_text("my index")
    before = _tree(b)
    _refused(capsys, main(["reproduce", "all", "--quick", "--out", str(b), "-q"]), str(b))
    assert _tree(b) == before
    _refused(capsys, main(["reproduce", "all", "--quick", "--out", str(b), "-q", "--force"]), "index.html")
    assert _tree(b) == before


# -------------------------------------------------------------------------------------- sweep


def test_sweep_keeps_a_users_points_and_report(scenario_file: Path, tmp_path: Path, capsys) -> None:
    d = tmp_path / "D"
    d.mkdir()
    (d / "points.csv").write_text("my points")
    (d / "report.md").write_text("my report")
    before = _tree(d)
    args = ["sweep", str(scenario_file), "--grid", "connections.c1.source.rate_mbps=[10, 20]", "-r", "1",
            "-m", "connections.c1.throughput_mbps", "--out", str(d), "-q", "-j", "1"]
    _refused(capsys, main(args), str(d), "--force")
    assert _tree(d) == before
    _refused(capsys, main(args + ["--force"]), "points.csv")
    assert _tree(d) == before
    (d / "points.csv").unlink()
    assert main(args + ["--force"]) == 0
    assert (d / "report.md").read_text() == "my report" and (d / "points.csv").is_file()
    capsys.readouterr()
    assert main(args) == 0  # ours now


# ------------------------------------------------------------------------------- plot, report


def test_plot_never_overwrites_a_users_file(scenario_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "-q"]) == 0
    outside = tmp_path / "outside.png"
    outside.write_text("outside")
    (out / "queues.png").symlink_to(outside)
    (out / "utilization.png").write_text("my own picture")
    before = _tree(out)
    _refused(capsys, main(["plot", str(out)]), "png")
    assert _tree(out) == before and outside.read_text() == "outside"
    (out / "queues.png").unlink()
    (out / "utilization.png").unlink()
    for _ in range(2):  # then ours, replaced
        assert main(["plot", str(out)]) == 0
    assert len(capsys.readouterr().out.split()) == 6


def test_report_never_replaces_a_fifo_a_link_or_a_users_file(scenario_file: Path, tmp_path: Path, capsys) -> None:
    """The issue's case: `atmsim report X --out /dev/full` (as root) replaced the device node."""
    run = tmp_path / "run"
    assert main(["run", str(scenario_file), "--out", str(run), "-q"]) == 0
    fifo = tmp_path / "fifo.html"
    os.mkfifo(fifo)
    outside = tmp_path / "outside.txt"
    outside.write_text("outside")
    link = tmp_path / "link.html"
    link.symlink_to(outside)
    mine = tmp_path / "mine.html"
    mine.write_text("<html>my page</html>")
    for target in (fifo, link, mine):
        _refused(capsys, main(["report", str(run), "--out", str(target)]), str(target))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.readlink(link) == str(outside) and outside.read_text() == "outside"
    assert mine.read_text() == "<html>my page</html>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.html", "link.html", "mine.html", "outside.txt", "run", "small.toml"]
    for _ in range(2):  # a report of ours is replaced, in the run's directory or elsewhere
        assert main(["report", str(run)]) == 0
        assert main(["report", str(run), "--out", str(tmp_path / "r.html")]) == 0
    assert (run / "report.html").is_file() and (tmp_path / "r.html").is_file()


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_report_never_replaces_a_device(scenario_file: Path, tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    assert main(["run", str(scenario_file), "--out", str(run), "-q"]) == 0
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # what /dev/full is
    _refused(capsys, main(["report", str(run), "--out", str(full)]), str(full))
    assert stat.S_ISCHR(os.lstat(full).st_mode) and os.lstat(full).st_rdev == os.makedev(1, 7)


def test_marker_and_force_are_documented() -> None:
    readme = (REPO / "README.md").read_text()
    assert MARKER in readme and "--force" in readme
