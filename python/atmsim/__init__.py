"""atmsim: a cell-level ATM network simulator.

The engine and every model live in a Rust core (``atmsim._core``); this package loads scenario
files, runs them and hands back results::

    import atmsim
    result = atmsim.run("scenarios/examples/demo.toml", overrides=["run.duration_s=0.2"])
    result.summary["connections"]["c1"]["throughput_mbps"]
    result.series("ports")          # pandas.DataFrame
    result.write("results/demo")     # summary.json + ports.parquet + connections.parquet
    atmsim.map_traffic(10, 2, 10_000, 512, "tcp")   # PCR / SCR / MBS (seed 001 Table 7)
"""

from __future__ import annotations

from typing import Any

from .errors import AtmsimError, ScenarioError, SimulationError
from .version import __version__


def __getattr__(name: str) -> Any:
    """The heavier parts (pandas, pyarrow) load on first use, so that ``atmsim`` on the command
    line can answer an interrupt during start-up with its own one-line message (the core itself
    loads at once: it defines the exception classes that ``atmsim.errors`` re-exports). Each
    name's import is written out, not computed, so that tests/test_architecture.py sees it."""
    value: Any
    if name == "run":
        from .api import run as value
    elif name == "map_traffic":
        from .mapping import map_traffic as value
    elif name == "Result":
        from .result import Result as value
    elif name == "load_scenario":
        from .scenario import load_scenario as value
    elif name == "sweep":
        from .study import sweep as value
    elif name == "results":
        from .study import results as value
    elif name == "topology":  # a submodule: ``from . import`` would come back here
        import importlib

        value = importlib.import_module("atmsim.topology")
    else:
        raise AttributeError(f"module 'atmsim' has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "run",
    "map_traffic",
    "Result",
    "load_scenario",
    "sweep",
    "results",
    "AtmsimError",
    "ScenarioError",
    "SimulationError",
    "__version__",
]
