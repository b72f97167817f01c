"""Saturation throughput of an N x N switch with FIFO input queues and uniform destinations.

The exact Markov chain of Karol, Hluchyj and Morgan (IEEE Trans. Commun. 35(12), 1987, section
III): every input always has a head-of-line (HOL) cell with a uniformly random output; each slot,
each output with at least one HOL cell addressed to it sends one, and the inputs that sent draw new
HOL cells. The state is the number of HOL cells per output (sorted: outputs are symmetric). The
throughput per output is E[outputs busy] / N in the stationary distribution.

Used to check the values of the paper's Table I that the credit fabric's test cites
(crates/atmsim-core/src/net/switch/credit_tests.rs). Run: ``python tools/hol_saturation.py 2 3 4 8``.
"""

from __future__ import annotations

import sys
from itertools import combinations_with_replacement
from math import factorial

import numpy as np


def compositions(m: int, n: int):
    """All ways to put m indistinguishable cells into n ordered outputs."""
    for bars in combinations_with_replacement(range(n), m):
        counts = [0] * n
        for b in bars:
            counts[b] += 1
        yield counts


def throughput(n: int) -> float:
    # enumerate states reachable from the start (all HOL cells to distinct outputs)
    start = tuple([1] * n)
    index: dict[tuple[int, ...], int] = {}
    rows: list[dict[int, float]] = []
    todo = [start]
    index[start] = 0
    rows.append({})
    comp_cache: dict[int, list[tuple[list[int], float]]] = {}
    while todo:
        s = todo.pop()
        i = index[s]
        full = list(s) + [0] * (n - len(s))
        m = sum(1 for k in full if k > 0)
        rest = [max(k - 1, 0) for k in full]
        if m not in comp_cache:
            comp_cache[m] = [
                (c, factorial(m) / np.prod([factorial(a) for a in c]) / n**m)
                for c in compositions(m, n)
            ]
        for c, p in comp_cache[m]:
            t = tuple(sorted((a + b for a, b in zip(rest, c)), reverse=True))
            t = tuple(k for k in t if k > 0)
            if t not in index:
                index[t] = len(rows)
                rows.append({})
                todo.append(t)
            j = index[t]
            rows[i][j] = rows[i].get(j, 0.0) + p
    k = len(rows)
    P = np.zeros((k, k))
    for i, r in enumerate(rows):
        for j, p in r.items():
            P[i, j] = p
    # stationary distribution: pi (P - I) = 0, sum pi = 1
    A = np.vstack([(P.T - np.eye(k)), np.ones(k)])
    b = np.zeros(k + 1)
    b[-1] = 1.0
    pi = np.linalg.lstsq(A, b, rcond=None)[0]
    busy = np.array([len(s) for s in sorted(index, key=index.get)], dtype=float)
    return float(pi @ busy) / n


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["2", "3", "4", "8"]:
        n = int(arg)
        print(f"N={n}: {throughput(n):.6f}")
    print(f"N->inf: 2 - sqrt(2) = {2 - 2 ** 0.5:.4f}")
