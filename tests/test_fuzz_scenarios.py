"""Fuzzing the scenario parser and validator (issue 12 item 2) with Hypothesis.

Documents are every shipped scenario under ``scenarios/`` (``extends`` resolved) mutated one to
three times: a value replaced by a wrong type, a huge / tiny / negative / non-finite / 2^64-sized
number, a deeply nested array, an odd name; a table replaced by an array of its values; a key
removed or an unknown one added; a number set at, just outside or far outside the range the
schema declares for it (``atmsim schema``); a key the document lacks added from the schema. Each
goes through the Python API in-process (``check_document``, i.e. ``_core.check``), and some
through ``atmsim validate``. Asserted for every case:

- no panic or abort (a Rust panic reaches Python as ``PanicException``, which fails the test; an
  abort would end the test process);
- a rejection is a ``ScenarioError`` with a key path and a one-line message of reasonable length,
  and a number outside the schema's range is always rejected;
- an accepted document is truly valid: the core builds it and runs its first events.

``make test`` runs a bounded, derandomized number of examples (``ATMSIM_FUZZ_EXAMPLES``, default
400); ``make fuzz`` runs many more with fresh randomness and prints the outcomes.
"""

from __future__ import annotations

import collections
import copy
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atmsim import ScenarioError, _core
from atmsim.cli import main
from atmsim.scenario import Provenance, _Schema, _types, check_document, load_scenario, schema

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted((REPO / "scenarios").rglob("*.toml"))
EXAMPLES = int(os.environ.get("ATMSIM_FUZZ_EXAMPLES", "400"))
LONG = "ATMSIM_FUZZ_EXAMPLES" in os.environ

OUTCOMES: collections.Counter[str] = collections.Counter()


def _shipped_docs() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for p in SHIPPED:
        doc, _ = load_scenario(p, validate=False)
        docs.append((str(p.relative_to(REPO)), doc))
    return docs


DOCS = _shipped_docs()
WALKER = _Schema(schema())


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path in a document (tables, arrays and leaves)."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, prefix + (i,))
    return out


def _get(doc: Any, path: tuple) -> Any:
    for t in path:
        doc = doc[t]
    return doc


def _set(doc: Any, path: tuple, value: Any) -> None:
    _get(doc, path[:-1])[path[-1]] = value


def _schema_at(path: tuple) -> list[dict[str, Any]]:
    """The schema alternatives of a key path (as the override walker resolves them)."""
    sch: Any = WALKER.root
    for tok in path:
        variants = WALKER.variants(sch)
        if isinstance(tok, int):
            items = [v["items"] for v in variants if isinstance(v.get("items"), dict)]
            if not items:
                return []
            sch = items[0]
        else:
            props = [v["properties"][tok] for v in variants if tok in v.get("properties", {})]
            if not props:
                return []
            sch = props[0]
    return WALKER.variants(sch)


def _bounds(path: tuple) -> tuple[float | None, float | None, bool] | None:
    """(minimum, maximum, integer) of a numeric key, from the schema."""
    for v in _schema_at(path):
        t = _types(v)
        if t & {"number", "integer"}:
            return v.get("minimum"), v.get("maximum"), "number" not in t
    return None


HUGE = [1e308, -1e308, 1e-300, -1e-300, 5e12, 1e9, -1.0, 0.0, 0.5, 2**64, 2**63, -(2**63) - 1, 2**70,
        -1, 0, 1, 10**30, float("inf"), float("nan")]
NAMES = ["", " ", "   ", "a->b", "x.reverse", "c1.reverse", "a b", "n#1", "é", "ä->", "-x", "x" * 65,
         "name=1", "[x]", "a,b", "\t", "ok_name", "h1", "c1"]


def _nested(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = [v]
    return v


scalars = st.one_of(
    st.sampled_from(HUGE),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from(NAMES),
    st.text(max_size=20),
    st.booleans(),
)
odd_values = st.one_of(
    scalars,
    st.lists(scalars, max_size=3),
    st.dictionaries(st.sampled_from(["x", "name", "kind", "rate_mbps"]), scalars, max_size=2),
    st.integers(min_value=30, max_value=300).map(_nested),
)


@st.composite
def mutated(draw) -> tuple[str, dict[str, Any], list[str], bool]:
    """A shipped document with 1 to 3 mutations; returns (origin, doc, what was done, whether a
    number was put outside its declared range)."""
    origin, base = draw(st.sampled_from(DOCS))
    doc = copy.deepcopy(base)
    done: list[str] = []
    outside: tuple | None = None  # (path, value) of a number put outside its declared range
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        paths = _paths(doc)
        if not paths:
            break
        kind = draw(st.sampled_from(["value", "array", "delete", "unknown", "range", "range", "range", "name", "add", "add"]))
        numeric = [p for p in paths if isinstance(_get(doc, p), (int, float)) and not isinstance(_get(doc, p), bool)]
        named = [p for p in paths if p[-1] == "name"]
        pool = numeric if kind == "range" and numeric else named if kind == "name" and named else paths
        path = draw(st.sampled_from(pool))
        target = _get(doc, path)
        if kind == "array" and isinstance(target, dict):
            _set(doc, path, list(target.values()))
        elif kind == "delete" and isinstance(path[-1], str):
            del _get(doc, path[:-1])[path[-1]]
        elif kind == "unknown" and isinstance(target, dict):
            target["no_such_key_" + draw(st.sampled_from(["a", "b"]))] = draw(scalars)
        elif kind == "range" and (b := _bounds(path)) is not None and isinstance(target, (int, float)):
            lo, hi, integer = b
            choices = [x for x in (lo, hi) if x is not None]
            wild = []
            if lo is not None:
                wild += [lo - 1 if integer else lo - abs(lo) * 0.5 - 1e-12, -1e308 if not integer else -(2**40)]
            if hi is not None:
                wild += [hi + 1 if integer else hi * 10 + 1, 1e308 if not integer else 2**62]
            value = draw(st.sampled_from(choices + wild)) if choices + wild else 0
            if integer:
                value = int(value)
            _set(doc, path, value)
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                outside = (path, value)
        elif kind == "name" and path[-1] == "name":
            _set(doc, path, draw(st.sampled_from(NAMES)))
        elif kind == "add" and isinstance(target, dict):
            props = {}
            for v in _schema_at(path):
                props.update(v.get("properties", {}))
            missing = sorted(k for k in props if k not in target and k != "extends")
            if missing:
                key = draw(st.sampled_from(missing))
                b = _bounds(path + (key,))
                if b is not None and b[0] is not None and b[1] is not None:
                    lo, hi, integer = b
                    value: Any = draw(st.integers(int(lo), int(min(hi, 2**40))) if integer else st.floats(lo, hi))
                else:
                    value = draw(scalars)
                target[key] = value
        else:
            kind = "value"
            _set(doc, path, draw(odd_values))
        done.append(f"{kind}@{'.'.join(map(str, path))}")
    if outside is not None:  # a later mutation may have removed or replaced it
        try:
            still = _get(doc, outside[0]) == outside[1]
        except (KeyError, IndexError, TypeError):
            still = False
        outside = outside if still else None
    return origin, doc, done, outside is not None


def _classify(e: ScenarioError) -> str:
    m = e.message
    for key in ("schema's range", "must be a table", "nested too deeply", "integer out of range",
                "must be an integer", "a name has", ".reverse", "unknown field", "missing field",
                "invalid type", "the run would need", "finite"):
        if key in m:
            return f"rejected: {key}"
    return "rejected: other check"


def _check(origin: str, doc: dict[str, Any], done: list[str], outside: bool) -> None:
    try:
        text = check_document(doc, Provenance("fuzz.toml"))
    except ScenarioError as e:
        line = str(e)
        assert "\n" not in line, (origin, done, line)
        assert len(line) < 600, (origin, done, line)
        assert e.path, (origin, done, line)
        assert "RecursionError" not in line and "internal error" not in line, line
        OUTCOMES[_classify(e)] += 1
        return
    assert not outside, (origin, done, "a number outside its declared range was accepted")
    # accepted: truly valid, so the core builds it and runs its first events
    sim = _core.Simulation(text)
    sim.advance(20_000, 10_000)
    sim.drain_series()
    OUTCOMES["accepted, built and ran"] += 1


@settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG, database=None,
          suppress_health_check=list(HealthCheck))
@given(mutated())
def test_mutated_shipped_scenarios(monkeypatch, case) -> None:
    monkeypatch.setenv("ATMSIM_MAX_MEMORY_MB", "3000")
    origin, doc, done, outside = case
    _check(origin, doc, done, outside)


@settings(max_examples=max(20, EXAMPLES // 5), deadline=None, derandomize=not LONG, database=None,
          suppress_health_check=list(HealthCheck))
@given(mutated())
def test_mutated_scenarios_through_validate(tmp_path_factory, capsys, case) -> None:
    """The same through ``atmsim validate``: exit 0, or 2 with one stderr line."""
    origin, doc, done, _ = case
    try:
        text = tomli_w.dumps(doc)
    except (TypeError, ValueError, RecursionError):  # not representable in TOML (nan keys, ...)
        return
    f = tmp_path_factory.mktemp("fuzz") / "fuzz.toml"
    f.write_text(text, encoding="utf-8")
    os.environ["ATMSIM_MAX_MEMORY_MB"] = "3000"
    try:
        rc = main(["validate", str(f)])
    finally:
        del os.environ["ATMSIM_MAX_MEMORY_MB"]
    err = capsys.readouterr().err
    assert rc in (0, 2), (origin, done, rc, err)
    if rc == 2:
        assert len(err.splitlines()) == 1 and str(f) in err, (origin, done, err)
        OUTCOMES["validate: exit 2, one line"] += 1
    else:
        OUTCOMES["validate: ok"] += 1


def test_fuzz_report() -> None:
    """Prints the outcomes of the fuzz tests above (run after them, ``-s`` shows it); fails if
    they tried nothing."""
    total = sum(OUTCOMES.values())
    if total == 0:
        pytest.skip("the fuzz tests did not run in this session")
    print(f"\nfuzz: {total} cases", file=sys.stderr)
    for k, v in sorted(OUTCOMES.items(), key=lambda kv: -kv[1]):
        print(f"  {v:6d}  {k}", file=sys.stderr)
    assert OUTCOMES["accepted, built and ran"] > 0
