"""The exception hierarchy (defined once, in crates/atmsim-py/src/error.rs), the core's errors
mapped to it, one build per run, and the stubs of the compiled core."""

from __future__ import annotations

import ast
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import atmsim
from atmsim import AtmsimError, ScenarioError, SimulationError, _core, errors
from atmsim.cli import main
from atmsim.scenario import to_json

from conftest import REPO, minimal_scenario, write_toml


def test_classes_are_the_binding_s() -> None:
    assert (errors.AtmsimError, errors.ScenarioError, errors.SimulationError) == (
        _core.AtmsimError, _core.ScenarioError, _core.SimulationError
    )
    assert issubclass(AtmsimError, Exception) and not issubclass(AtmsimError, ValueError)
    assert ScenarioError.__mro__[1:3] == (AtmsimError, Exception)
    assert SimulationError.__mro__[1:3] == (AtmsimError, Exception)
    assert ScenarioError.__module__ == "atmsim._core"


@pytest.mark.parametrize(
    "args, text",
    [
        (("f.toml", "run.seed", "bad"), "f.toml: run.seed: bad"),
        (("", "run.seed", "bad"), "run.seed: bad"),
        (("f.toml", "", "bad"), "f.toml: bad"),
        ((None, None, "bad"), "bad"),
        ((Path("a/b.toml"), "x", "m"), "a/b.toml: x: m"),
    ],
)
def test_scenario_error_fields_str_repr(args, text) -> None:
    e = ScenarioError(*args)
    assert str(e) == text and e.args == (text,)
    assert (e.file, e.path, e.message) == (str(args[0]) if args[0] else "", args[1] or "", args[2])
    assert repr(e) == f"ScenarioError(file={e.file!r}, path={e.path!r}, message={e.message!r})"
    assert isinstance(e, AtmsimError)
    assert str(ScenarioError(file="f", message="m")) == "f: m"


def test_errors_pickle() -> None:
    e = ScenarioError("f.toml", "connections[0].abr.nrm", "must be >= 2")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is ScenarioError
    assert (back.file, back.path, back.message, str(back)) == (e.file, e.path, e.message, str(e))
    s = pickle.loads(pickle.dumps(SimulationError("simulation failed: boom")))
    assert type(s) is SimulationError and str(s) == "simulation failed: boom"


def _fail_in_worker() -> None:
    doc = minimal_scenario()
    doc["links"][0]["rate_mbps"] = 0
    atmsim.run(doc)


def test_scenario_error_crosses_processes() -> None:
    # multiprocessing pools (atmsim reproduce --jobs) send a worker's exception to the parent
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        with pytest.raises(ScenarioError) as info:
            pool.submit(_fail_in_worker).result(timeout=120)
    assert info.value.path == "links[0].rate_mbps" and info.value.message


def test_core_raises_scenario_error_with_path_and_no_file() -> None:
    doc = minimal_scenario()
    doc["nodes"][1]["buffer_cells"] = 0
    text = to_json(doc)
    for build in (_core.Simulation, _core.check):
        with pytest.raises(ScenarioError) as info:
            build(text)
        assert (info.value.file, info.value.path) == ("", "nodes[1].buffer_cells")
    assert _core.check(to_json(minimal_scenario())) is None


def test_check_refuses_permanent_connections_cac_cannot_admit_as_a_build_does() -> None:
    # validation needs no network: CAC of permanent connections is checked from the specs
    doc = minimal_scenario()
    doc["nodes"][1]["cac"] = {"policy": "peak"}
    c1 = doc["connections"][0]
    c1["contract"] = {"pcr_mbps": 100.0}
    doc["connections"].append({**c1, "name": "c2", "contract": {"pcr_mbps": 60.0}})
    text = to_json(doc)
    errors = []
    for build in (_core.check, _core.Simulation):
        with pytest.raises(ScenarioError) as info:
            build(text)
        errors.append((info.value.path, info.value.message))
    assert errors[0] == errors[1]
    assert errors[0] == (
        "connections[1].contract",
        "CAC at port S->h2 cannot admit it: needs 60.000000 Mb/s, 49.760000 Mb/s free",
    )


def test_front_end_names_the_file_that_set_the_key(tmp_path: Path) -> None:
    doc = minimal_scenario()
    doc["nodes"][1]["buffer_cells"] = 0
    base = write_toml(tmp_path / "base.toml", doc)
    top = tmp_path / "top.toml"
    top.write_text('extends = "base.toml"\n[run]\nseed = 3\n')
    with pytest.raises(ScenarioError) as info:
        atmsim.run(top)
    assert (info.value.file, info.value.path) == (str(base), "nodes[1].buffer_cells")
    with pytest.raises(ScenarioError) as info:
        atmsim.run(top, overrides=["nodes[1].buffer_cells=100", "links[0].rate_mbps=0"])
    assert (info.value.file, info.value.path) == ("--set", "links[0].rate_mbps")
    with pytest.raises(ScenarioError) as info:  # atmsim validate: same error, same file
        atmsim.load_scenario(top)
    assert (info.value.file, info.value.path) == (str(base), "nodes[1].buffer_cells")


# ------------------------------------------------------------------------------- one build per run


class _Counting:
    """Counts the core's entry points a run or a validation calls (``Simulation`` validates and
    builds; ``check`` validates without building)."""

    def __init__(self, monkeypatch) -> None:
        self.built: list[str] = []
        real_sim, real_check = _core.Simulation, _core.check

        def simulation(text: str):
            self.built.append("Simulation")
            return real_sim(text)

        def check(text: str):
            self.built.append("check")
            return real_check(text)

        monkeypatch.setattr(_core, "Simulation", simulation)
        monkeypatch.setattr(_core, "check", check)


def test_run_builds_once(monkeypatch, tmp_path: Path) -> None:
    counting = _Counting(monkeypatch)
    atmsim.run(minimal_scenario(), overrides=["run.seed=2"])
    assert counting.built == ["Simulation"]
    counting.built.clear()
    f = write_toml(tmp_path / "s.toml", minimal_scenario())
    assert main(["run", str(f), "--quiet", "--out", str(tmp_path / "out")]) == 0
    assert counting.built == ["Simulation"]
    # a bad scenario: the one build reports it, with the file
    counting.built.clear()
    with pytest.raises(ScenarioError) as info:
        atmsim.run(f, overrides={"nodes[1].buffer_cells": 0})
    assert counting.built == ["Simulation"]
    assert (info.value.file, info.value.path) == ("--set", "nodes[1].buffer_cells")
    # atmsim validate checks once, builds no network and runs nothing
    counting.built.clear()
    assert main(["validate", str(f)]) == 0
    assert counting.built == ["check"]


# ------------------------------------------------------------------------------- stubs


def _stub_names(node: ast.AST) -> set[str]:
    names = set()
    for n in node.body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            names.add(n.target.id)
    return names


def test_stubs_match_the_binding() -> None:
    tree = ast.parse((REPO / "python" / "atmsim" / "_core.pyi").read_text())
    public = {n for n in dir(_core) if not n.startswith("_")} | {"__version__"}
    assert _stub_names(tree) == public
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    sim = {n for n in dir(_core.Simulation) if not n.startswith("_")}
    assert _stub_names(classes["Simulation"]) - {"__init__"} == sim
    assert _stub_names(classes["ScenarioError"]) - {"__init__"} == {"file", "path", "message"}
