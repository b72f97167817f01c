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

from importlib.metadata import PackageNotFoundError, version as _version
from typing import Any

from .errors import AtmsimError, ScenarioError, SimulationError

#: the heavier parts (pandas, pyarrow) load on first use, so that ``atmsim`` on the command line
#: can answer an interrupt during start-up with its own one-line message (the core itself loads
#: at once: it defines the exception classes that ``atmsim.errors`` re-exports)
_LAZY = {
    "run": "api", "map_traffic": "mapping", "Result": "result", "load_scenario": "scenario",
    "sweep": "study", "results": "study",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'atmsim' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value

try:
    __version__ = _version("atmsim")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"

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
