"""atmsim: a cell-level ATM network simulator.

The engine and every model live in a Rust core (``atmsim._core``); this package loads scenario
files, runs them and hands back results::

    import atmsim
    result = atmsim.run("scenarios/examples/demo.toml", overrides=["run.duration_s=0.2"])
    result.summary["connections"]["c1"]["throughput_mbps"]
    result.series("ports")          # pandas.DataFrame
    result.write("results/demo")     # summary.json + ports.parquet + connections.parquet
    atmsim.map_traffic(10, 2, 10_000, 512, "tcp")   # PCR / SCR / MBS (paper 001 Table 7)
"""

from __future__ import annotations

from typing import Any

import logging as _logging

from .errors import AtmsimError, ScenarioError, SimulationError
from .version import __version__

# a library logs, the application decides where to (atmsim.logs; the CLI: -v / -q)
_logging.getLogger("atmsim").addHandler(_logging.NullHandler())


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
    elif name in SUBMODULES:
        import importlib

        try:
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module 'atmsim' has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module 'atmsim' has no attribute {name!r}")
    globals()[name] = value
    return value


#: the submodules, each loaded on first use (``atmsim.report.report(...)`` with no import of its
#: own); ``dir(atmsim)`` lists the API and those of them that are present
SUBMODULES = (
    "abrsuite", "api", "cli", "errors", "extras", "logs", "mapping", "outdir", "plots", "report", "reproduce", "result",
    "scenario", "study", "synth", "tables", "topology", "traces", "version",
)


def __dir__() -> list[str]:
    import importlib.util

    present = [m for m in SUBMODULES if m in globals() or importlib.util.find_spec(f"{__name__}.{m}") is not None]
    return sorted(set(__all__) | set(present) | {n for n in globals() if n.startswith("__")})


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
