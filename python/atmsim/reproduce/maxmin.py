"""Max-min fair rates by water-filling (progressive filling).

The reference allocation that ABR explicit-rate schemes such as ERICA aim at (Jain et al.; Bertsekas
and Gallager, *Data Networks*, section 6.5.2): raise every unfrozen connection's rate at the same
pace; a connection freezes when it reaches its own demand or when a link it crosses is full; repeat
until all are frozen. Deliberately independent of the simulator: it only sees capacities, paths and
demands.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

__all__ = ["max_min_fair"]

_EPS = 1e-12


def max_min_fair(
    capacities: Mapping[str, float],
    paths: Mapping[str, Sequence[str]],
    demands: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Max-min fair rate of each connection.

    ``capacities``: link name -> capacity (for ERICA, target utilization x link rate);
    ``paths``: connection name -> the links it crosses; ``demands``: connection name -> the most
    it can use (absent or ``math.inf`` = unlimited, e.g. a persistent source). Returns connection
    name -> rate, in the units of the inputs.
    """
    demands = dict(demands or {})
    for link, cap in capacities.items():
        if not cap >= 0:
            raise ValueError(f"capacity of {link!r} must be >= 0, got {cap!r}")
    for conn, path in paths.items():
        for link in path:
            if link not in capacities:
                raise ValueError(f"connection {conn!r} crosses unknown link {link!r}")
        d = demands.get(conn, math.inf)
        if not d >= 0:
            raise ValueError(f"demand of {conn!r} must be >= 0, got {d!r}")
        if not path and math.isinf(d):
            raise ValueError(f"connection {conn!r} crosses no link and has no demand limit")
    for conn in demands:
        if conn not in paths:
            raise ValueError(f"demand given for unknown connection {conn!r}")

    rate = {c: 0.0 for c in paths}
    left = {link: float(cap) for link, cap in capacities.items()}
    active = {c for c in paths if demands.get(c, math.inf) > _EPS}
    while active:
        users = {link: sum(1 for c in active if link in paths[c]) for link in left}
        steps = [left[link] / n for link, n in users.items() if n]
        steps += [demands.get(c, math.inf) - rate[c] for c in active]
        step = max(0.0, min(steps))
        for c in active:
            rate[c] += step
        for link, n in users.items():
            left[link] -= step * n
        full = {link for link, n in users.items() if n and left[link] <= _EPS * max(1.0, capacities[link])}
        done = {
            c
            for c in active
            if rate[c] >= demands.get(c, math.inf) - _EPS or any(link in full for link in paths[c])
        }
        if not done:  # cannot happen: the smallest step always fills a link or meets a demand
            raise RuntimeError("water-filling made no progress")
        active -= done
    return rate
