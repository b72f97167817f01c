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

from .api import run
from .errors import AtmsimError, ScenarioError, SimulationError
from .mapping import map_traffic
from .result import Result
from .scenario import load_scenario

try:
    __version__ = _version("atmsim")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"

__all__ = [
    "run",
    "map_traffic",
    "Result",
    "load_scenario",
    "AtmsimError",
    "ScenarioError",
    "SimulationError",
    "__version__",
]
