"""What a study is: a scenario, a grid over ``--set`` key paths, replications, metrics.

A study file is TOML with a ``[study]`` table (paths in it are relative to the file)::

    [study]
    scenario = "../examples/demo.toml"
    seed = 1                      # master seed: replication r of every point gets seed(1, r)
    replications = 5
    metrics = ["connections.vbr1.throughput_mbps", "ports.A->B.max_queue_cells"]
    confidence = 0.95
    set = { "run.duration_s" = 0.5 }            # fixed overrides
    [study.grid]                                # axes crossed with each other
    "connections.vbr1.source.peak_mbps" = [50, 100]
    "run.warmup_s" = "range(0.1, 0.2, 0.05)"
    [study.zip]                                 # axes zipped together (equal lengths), then crossed
    "connections.cbr1.source.rate_mbps" = [10, 20]
    "connections.ubr1.source.peak_mbps" = [70, 60]
    [study.until]                               # optional: replicate until precise enough
    metric = "connections.vbr1.throughput_mbps"
    rel_half_width = 0.05
    max_replications = 20

Values of an axis are a list, or ``range(START, STOP, STEP)`` (STOP included when a step lands
on it), ``linspace(START, STOP, N)`` or ``geom(START, STOP, FACTOR)`` (START, START*FACTOR, ...
up to STOP). Seeds: replication ``r`` of every point uses ``derive_seed(master, r)`` (common
random numbers across points), from ``numpy.random.SeedSequence(master, spawn_key=(r,))``.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ScenarioError

__all__ = ["StudySpec", "Axis", "parse_values", "derive_seed", "load_study_file", "Point"]

_FUNC = re.compile(r"^\s*(range|linspace|geom)\s*\((.*)\)\s*$")
#: points above this are refused (a typo in a range would otherwise plan millions of runs)
MAX_POINTS = 100_000
#: replications per point above this are refused (``-r 1000000`` planned for minutes)
MAX_REPLICATIONS = 10_000
#: runs of a study (points x replications, or x max_replications with until) above this are
#: refused: each is planned, validated and stored
MAX_RUNS = 100_000


def derive_seed(master: int, replication: int) -> int:
    """The seed of replication ``replication`` under master seed ``master``: independent streams
    from ``numpy.random.SeedSequence``, kept below 2**63 (a TOML integer)."""
    import numpy as np

    state = np.random.SeedSequence(int(master), spawn_key=(int(replication),)).generate_state(2, dtype=np.uint32)
    return int((int(state[0]) << 32 | int(state[1])) & (2**63 - 1))


def _number(text: str, where: str, key: str) -> int | float:
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise ScenarioError(where, key, f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise ScenarioError(where, key, f"{text!r} is not a finite number")
    return value


def parse_values(value: Any, where: str, key: str) -> list[Any]:
    """The values of one axis: a list, a TOML array in text, or range/linspace/geom(...)."""
    if isinstance(value, str):
        m = _FUNC.match(value)
        if m:
            kind = m.group(1)
            args = [_number(a, where, key) for a in m.group(2).split(",")]
            if len(args) != 3:
                raise ScenarioError(where, key, f"{kind}(...) takes three numbers, got {len(args)}")
            values = _expand(kind, args, where, key)
        else:
            try:
                parsed = tomllib.loads("v = " + value)["v"]
            except tomllib.TOMLDecodeError:
                parsed = None
            if not isinstance(parsed, list):
                raise ScenarioError(
                    where, key,
                    f"values must be a list like [1, 2, 4], range(START, STOP, STEP), linspace(START, STOP, N) "
                    f"or geom(START, STOP, FACTOR); got {value!r}",
                )
            values = parsed
    elif isinstance(value, (list, tuple)):
        values = list(value)
    else:
        raise ScenarioError(where, key, f"values must be a list or range/linspace/geom(...); got {value!r}")
    if not values:
        raise ScenarioError(where, key, "the grid axis is empty (no values)")
    return values


def _expand(kind: str, args: list[int | float], where: str, key: str) -> list[Any]:
    a, b, c = args
    integral = all(isinstance(x, int) for x in args)
    out: list[Any] = []
    if kind == "range":
        if c == 0 or (b - a) * c < 0:
            raise ScenarioError(where, key, f"range({a}, {b}, {c}) gives no values (STEP must move START towards STOP)")
        count = (b - a) / c  # a float: range(0, 1e300, 1e-300) is inf, not an int
        if not math.isfinite(count) or count + 1 > MAX_POINTS:
            raise ScenarioError(where, key, f"range({a}, {b}, {c}) gives more than {MAX_POINTS} values")
        n = int(math.floor(count + 1e-9)) + 1
        out = [a + i * c if integral else round(a + i * c, 12) for i in range(n)]
    elif kind == "linspace":
        if isinstance(c, bool) or not isinstance(c, int) or c < 1 or c > MAX_POINTS:
            raise ScenarioError(where, key, f"linspace N must be an integer from 1 to {MAX_POINTS}, got {c}")
        out = [a] if c == 1 else [round(a + (b - a) * i / (c - 1), 12) for i in range(c)]
    else:  # geom
        if a <= 0 or b <= 0 or c <= 1:
            raise ScenarioError(where, key, f"geom(START, STOP, FACTOR) needs START, STOP > 0 and FACTOR > 1; got {a}, {b}, {c}")
        if math.log(b / a) / math.log(c) + 1 > MAX_POINTS:
            raise ScenarioError(where, key, f"geom({a}, {b}, {c}) gives more than {MAX_POINTS} values")
        x = a
        while x <= b * (1 + 1e-12) and len(out) <= MAX_POINTS:
            out.append(x if integral else round(x, 12))
            x = x * c
    if not out:
        raise ScenarioError(where, key, f"{kind}({a}, {b}, {c}) gives no values")
    return out


@dataclass(frozen=True)
class Axis:
    key: str
    values: tuple[Any, ...]
    #: "grid" (crossed) or "zip"
    kind: str = "grid"


@dataclass(frozen=True)
class Point:
    """One grid point: its index and ``{key path: value}``."""

    index: int
    params: Mapping[str, Any]


@dataclass
class StudySpec:
    """A sweep: see the module docstring. ``scenario`` is a path; ``where`` names the source of
    the spec in error messages (the study file, or ``--grid`` etc.)."""

    scenario: str
    axes: list[Axis] = field(default_factory=list)
    fixed: dict[str, Any] = field(default_factory=dict)
    seed: int = 1
    replications: int = 3
    metrics: list[str] = field(default_factory=list)
    confidence: float = 0.95
    until_metric: str | None = None
    until_rel_half_width: float | None = None
    max_replications: int | None = None
    where: str = ""

    def check(self) -> None:
        w = self.where
        if not isinstance(self.replications, int) or isinstance(self.replications, bool) or self.replications < 1:
            raise ScenarioError(w or "--replications", "replications", f"must be an integer >= 1, got {self.replications!r}")
        if self.replications > MAX_REPLICATIONS:
            raise ScenarioError(w or "--replications", "replications", f"must be at most {MAX_REPLICATIONS}, got {self.replications}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise ScenarioError(w or "--seed", "seed", f"must be an integer >= 0, got {self.seed!r}")
        if not (isinstance(self.confidence, (int, float)) and 0 < self.confidence < 1):
            raise ScenarioError(w or "--confidence", "confidence", f"must be between 0 and 1, got {self.confidence!r}")
        keys = [a.key for a in self.axes] + list(self.fixed)
        for k in keys:
            if k.replace(" ", "") in ("run.seed", "run"):
                raise ScenarioError(
                    w or "--grid", k,
                    "a study sets run.seed itself, one seed per replication from the master seed (--seed); "
                    "vary the replications (-r) or the master seed instead",
                )
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ScenarioError(w or "--grid", dup[0], "key path set more than once (grid, zip and set must differ)")
        zipped = [a for a in self.axes if a.kind == "zip"]
        if len({len(a.values) for a in zipped}) > 1:
            lens = ", ".join(f"{a.key}: {len(a.values)}" for a in zipped)
            raise ScenarioError(w or "--zip", zipped[0].key, f"zipped axes must have equal lengths ({lens})")
        for m in self.metrics:
            if not isinstance(m, str) or not m:
                raise ScenarioError(w or "--metric", "metrics", f"a metric is a summary key path, got {m!r}")
        if self.until_metric is not None or self.until_rel_half_width is not None:
            if self.until_metric is None or self.until_rel_half_width is None:
                raise ScenarioError(w or "--until", "until", "needs both a metric and a relative half-width")
            if not isinstance(self.until_metric, str) or not self.until_metric:
                raise ScenarioError(w or "--until", "until.metric", f"must be a summary key path (text), got {self.until_metric!r}")
            if not (0 < self.until_rel_half_width):
                raise ScenarioError(w or "--until", "until.rel_half_width", f"must be > 0, got {self.until_rel_half_width}")
            if self.until_metric not in self.metrics:
                self.metrics.append(self.until_metric)
            cap = self.max_replications
            if isinstance(cap, int) and not isinstance(cap, bool) and cap > MAX_REPLICATIONS:
                raise ScenarioError(w or "--max-replications", "until.max_replications", f"must be at most {MAX_REPLICATIONS}, got {cap}")
            if cap is None or isinstance(cap, bool) or not isinstance(cap, int) or cap < max(2, self.replications):
                raise ScenarioError(
                    w or "--max-replications", "until.max_replications",
                    f"must be an integer >= max(2, replications) = {max(2, self.replications)}, got {cap!r}",
                )
        n = self.point_count()
        if n > MAX_POINTS:
            raise ScenarioError(w or "--grid", "grid", f"{n} points, more than {MAX_POINTS}")
        per_point = self.max_replications if self.adaptive and isinstance(self.max_replications, int) else self.replications
        if n * per_point > MAX_RUNS:
            raise ScenarioError(
                w or "--replications", "replications",
                f"{n} points x {per_point} replications = {n * per_point} runs, more than {MAX_RUNS}",
            )

    def point_count(self) -> int:
        crossed = [len(a.values) for a in self.axes if a.kind == "grid"]
        zipped = [len(a.values) for a in self.axes if a.kind == "zip"]
        return math.prod(crossed) * (zipped[0] if zipped else 1)

    def points(self) -> list[Point]:
        """Every grid point: crossed axes in the order given (last varies fastest), the zipped
        axes together as one more crossed axis after them."""
        crossed = [a for a in self.axes if a.kind == "grid"]
        zipped = [a for a in self.axes if a.kind == "zip"]
        dims: list[list[dict[str, Any]]] = [[{a.key: v} for v in a.values] for a in crossed]
        if zipped:
            dims.append([{a.key: a.values[i] for a in zipped} for i in range(len(zipped[0].values))])
        out = []
        for i, combo in enumerate(itertools.product(*dims)):
            params: dict[str, Any] = {}
            for part in combo:
                params.update(part)
            out.append(Point(i, params))
        return out

    @property
    def adaptive(self) -> bool:
        return self.until_metric is not None

    def identity(self, base_doc: Mapping[str, Any]) -> str:
        """What makes two studies the same (so a results directory can be resumed): the scenario
        content with the fixed overrides, the axes and the master seed. Replications, metrics,
        confidence and the stopping rule may change between sessions (a study can be extended)."""
        blob = json.dumps(
            {"scenario": base_doc, "axes": [[a.key, list(a.values), a.kind] for a in self.axes], "seed": self.seed},
            sort_keys=True, default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "scenario": self.scenario,
            "seed": self.seed,
            "replications": self.replications,
            "metrics": list(self.metrics),
            "confidence": self.confidence,
            "set": dict(self.fixed),
            "grid": {a.key: list(a.values) for a in self.axes if a.kind == "grid"},
            "zip": {a.key: list(a.values) for a in self.axes if a.kind == "zip"},
        }
        if self.adaptive:
            d["until"] = {
                "metric": self.until_metric,
                "rel_half_width": self.until_rel_half_width,
                "max_replications": self.max_replications,
            }
        return d


_STUDY_KEYS = {"scenario", "seed", "replications", "metrics", "confidence", "set", "grid", "zip", "until"}
_UNTIL_KEYS = {"metric", "rel_half_width", "max_replications"}


def is_study_file(path: str | os.PathLike[str]) -> bool:
    """A TOML file with a top-level ``[study]`` table (else it is taken as a scenario)."""
    from ..files import MAX_SCENARIO_BYTES, Unreadable, read_limited

    try:
        return isinstance(tomllib.loads(read_limited(path, MAX_SCENARIO_BYTES).decode("utf-8")).get("study"), dict)
    except (Unreadable, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False


def load_study_file(path: str | os.PathLike[str]) -> StudySpec:
    """Parse a study file (see the module docstring) into a ``StudySpec`` (not yet checked)."""
    display = os.fspath(path)
    from ..files import MAX_SCENARIO_BYTES, Unreadable, read_limited

    try:
        data = tomllib.loads(read_limited(display, MAX_SCENARIO_BYTES).decode("utf-8"))
    except Unreadable as e:
        raise ScenarioError(display, "", "no such file" if e.kind == "missing" else e.reason) from None
    except UnicodeDecodeError:
        raise ScenarioError(display, "", "invalid TOML: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(display, "", f"invalid TOML: {e}") from None
    extra = sorted(set(data) - {"study"})
    if extra:
        raise ScenarioError(display, extra[0], "no such key; a study file has one [study] table")
    st = data.get("study")
    if not isinstance(st, dict):
        raise ScenarioError(display, "study", "missing [study] table")
    unknown = sorted(set(st) - _STUDY_KEYS)
    if unknown:
        raise ScenarioError(display, f"study.{unknown[0]}", "no such key; allowed here: " + ", ".join(sorted(_STUDY_KEYS)))
    scen = st.get("scenario")
    if not isinstance(scen, str) or not scen:
        raise ScenarioError(display, "study.scenario", "required: the scenario file, relative to the study file")
    base = Path(display).resolve().parent
    spec = StudySpec(scenario=str((base / scen)), where=display)

    def typed(key: str, kind: type | tuple[type, ...], what: str) -> Any:
        v = st[key]
        if not isinstance(v, kind) or isinstance(v, bool):
            raise ScenarioError(display, f"study.{key}", f"must be {what}, got {v!r}")
        return v

    if "seed" in st:
        spec.seed = typed("seed", int, "an integer >= 0")
    if "replications" in st:
        spec.replications = typed("replications", int, "an integer >= 1")
    if "confidence" in st:
        spec.confidence = float(typed("confidence", (int, float), "a number between 0 and 1"))
    if "metrics" in st:
        spec.metrics = list(typed("metrics", list, "a list of summary key paths"))
    if "set" in st:
        spec.fixed = dict(typed("set", dict, 'a table of key path = value, e.g. { "run.duration_s" = 1 }'))
    for kind in ("grid", "zip"):
        table = st.get(kind, {})
        if not isinstance(table, dict):
            raise ScenarioError(display, f"study.{kind}", "must be a table of key path = values")
        for key, value in table.items():
            spec.axes.append(Axis(key, tuple(parse_values(value, display, f"study.{kind}.{key}")), kind))
    if "until" in st:
        until = typed("until", dict, "a table (metric, rel_half_width, max_replications)")
        bad = sorted(set(until) - _UNTIL_KEYS)
        if bad:
            raise ScenarioError(display, f"study.until.{bad[0]}", "no such key; allowed here: " + ", ".join(sorted(_UNTIL_KEYS)))
        spec.until_metric = until.get("metric")
        rhw = until.get("rel_half_width")
        if rhw is not None and (not isinstance(rhw, (int, float)) or isinstance(rhw, bool)):
            raise ScenarioError(display, "study.until.rel_half_width", f"must be a number > 0, got {rhw!r}")
        spec.until_rel_half_width = None if rhw is None else float(rhw)
        spec.max_replications = until.get("max_replications")
    return spec


def parse_axis_option(text: str, option: str) -> tuple[str, list[Any]]:
    """``KEY=VALUES`` of ``--grid`` / ``--zip``."""
    key, sep, values = text.partition("=")
    if not sep or not key.strip():
        raise ScenarioError(option, text, "expected KEY=VALUES, e.g. run.duration_s=[0.5, 1] or KEY=range(10, 50, 10)")
    return key.strip(), parse_values(values.strip(), option, key.strip())


def with_point(fixed: Mapping[str, Any], point: Point) -> dict[str, Any]:
    out = copy.deepcopy(dict(fixed))
    out.update(point.params)
    return out


def toml_value(value: Any) -> str:
    """``value`` as TOML text (what ``--set KEY=...`` takes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {value!r} as TOML")
