"""A study's metrics: summary key paths, aggregates over every port, connection or call class
(``sum(connections.*.user_throughput_mbps)``), and the range each can take.

A metric is a run-table column (``ports.A->B.max_queue_cells``) or ``FUNC(PATTERN)``: FUNC is
``sum``, ``mean``, ``max``, ``min`` or ``jain`` (Jain's fairness index, (sum x)^2 / (n sum x^2),
1 when all are equal, 1/n when one takes everything); PATTERN is a key path with one ``*`` standing
for the name of every entity of its section: ``connections.*.X`` is X of every connection (the
reverse direction of a bidirectional one, ``NAME.reverse``, included; a section nested in a
connection such as ``video`` is not an entity), ``ports.*.X`` of every port, ``calls.*.X`` of every
call class. Entities without X are left out of the aggregate.

Bounds (``bounds``): the interval of a quantity that cannot leave a range (utilization, CLR and
the other ratios in [0, 1], rates, counts, delays and sizes at least 0, Jain's index in [0, 1]) is
clipped to it: the t interval intersected with the range still holds the true mean whenever the
t interval does (the mean of a quantity in a range lies in it), so its coverage is kept, and no
interval claims a goodput below 0 or a utilization above 1.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

__all__ = ["AGGREGATES", "parse", "is_aggregate", "entities", "columns_of", "aggregate", "with_metrics", "bounds",
           "check_metric"]

AGGREGATES = ("sum", "mean", "max", "min", "jain")
_AGG = re.compile(r"^\s*(" + "|".join(AGGREGATES) + r")\s*\(\s*([^()]+?)\s*\)\s*$")
#: the key every entity of a section has: how its names are told from nested tables
_MARKER = {"connections": "category", "ports": "node", "calls": "offered"}

#: leaf names in [0, 1]
_UNIT = {"utilization", "clr", "clr_clp0", "cer", "secbr", "rm_overhead", "blocking_probability", "erlang_b"}
_UNIT_SUFFIX = ("_fraction", "_ratio", "_probability", "_share")
_PERCENT_SUFFIX = ("_pct", "_percent")
#: leaf names at least 0
_NONNEG_SUFFIX = ("_mbps", "_cells", "_us", "_ms", "_s", "_bytes", "_kBps", "_per_s", "_mean_mbps")
_NONNEG_PART = ("cells", "frames", "bytes", "packets", "segments", "timeouts", "retransmit", "events", "hops",
                "offered", "admitted", "blocked", "count", "delivered", "sent", "lost", "dropped")


def parse(metric: str) -> tuple[str | None, str]:
    """``(function, pattern)`` of an aggregate, ``(None, metric)`` of a plain key path."""
    m = _AGG.match(metric)
    return (m.group(1), m.group(2)) if m else (None, metric)


def is_aggregate(metric: str) -> bool:
    return parse(metric)[0] is not None


def entities(columns: Iterable[str], section: str) -> list[str]:
    """The names of the entities of ``section`` among run-table ``columns``."""
    cols = list(columns)
    marker = _MARKER.get(section)
    prefix = section + "."
    if marker is not None:
        tail = "." + marker
        return sorted({c[len(prefix):-len(tail)] for c in cols if c.startswith(prefix) and c.endswith(tail)})
    return sorted({c[len(prefix):].split(".", 1)[0] for c in cols if c.startswith(prefix) and "." in c[len(prefix):]})


def columns_of(columns: Iterable[str], pattern: str) -> list[str]:
    """The run-table columns ``pattern`` (with one ``*``) stands for."""
    cols = list(columns)
    if pattern.count("*") != 1:
        return [pattern] if pattern in cols else []
    head, tail = pattern.split("*")
    section = head.rstrip(".")
    if not head.endswith(".") or "." in section or not tail.startswith("."):
        return []  # '*' stands for a whole name: SECTION.*.KEY
    present = set(cols)
    return [c for c in (f"{head}{name}{tail}" for name in entities(cols, section)) if c in present]


def aggregate(function: str, values: Sequence[float]) -> float:
    xs = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not xs:
        return math.nan
    if function == "sum":
        return math.fsum(xs)
    if function == "mean":
        return math.fsum(xs) / len(xs)
    if function == "max":
        return max(xs)
    if function == "min":
        return min(xs)
    squares = math.fsum(x * x for x in xs)  # jain
    return math.fsum(xs) ** 2 / (len(xs) * squares) if squares > 0 else math.nan


def with_metrics(table: pd.DataFrame, metrics: Iterable[str]) -> pd.DataFrame:
    """``table`` with a column for each aggregate metric (named by the metric as written), from
    the columns its pattern stands for, row by row."""
    out = table
    for metric in metrics:
        function, pattern = parse(metric)
        if function is None or metric in out.columns:
            continue
        cols = columns_of(out.columns, pattern)
        if out is table:
            out = table.copy()
        if not cols:
            out[metric] = math.nan
            continue
        numbers = out[cols].apply(pd.to_numeric, errors="coerce")
        out[metric] = [aggregate(function, list(row)) for row in numbers.itertuples(index=False)]
    return out


def check_metric(metric: str, row: Mapping[str, Any]) -> str | None:
    """Why ``metric`` cannot be read from a run's row (None when it can)."""
    function, pattern = parse(metric)
    if function is None:
        return None if metric in row else "not a number in the run summary"
    if pattern.count("*") != 1 and pattern not in row:
        return f"{pattern} is not in the run summary (an aggregate's key path has one '*' for the names)"
    if not columns_of(row.keys(), pattern):
        return f"{pattern} matches nothing in the run summary (SECTION.*.KEY, e.g. connections.*.throughput_mbps)"
    return None


def bounds(metric: str) -> tuple[float, float]:
    """The range ``metric`` can take, from its name: ``(-inf, inf)`` when nothing is known."""
    function, pattern = parse(metric)
    if function == "jain":
        return (0.0, 1.0)
    leaf = pattern.rsplit(".", 1)[-1]
    leaf = re.sub(r"\[\d+\]$", "", leaf)
    if leaf in _UNIT or leaf.endswith(_UNIT_SUFFIX):
        lo, hi = 0.0, 1.0
    elif leaf.endswith(_PERCENT_SUFFIX):
        lo, hi = 0.0, 100.0
    elif leaf.endswith(_NONNEG_SUFFIX) or any(p in leaf for p in _NONNEG_PART):
        lo, hi = 0.0, math.inf
    else:
        return (-math.inf, math.inf)
    if function == "sum":
        hi = math.inf if lo >= 0 else hi
    return (lo, hi)
