"""Exception hierarchy of atmsim.

``AtmsimError`` is the root; ``ScenarioError`` is bad input (a scenario file, a ``--set``
override, a results directory) and carries where the problem is: the file, the key path inside
the scenario (``connections[0].source.rate_mbps``) and a message. ``SimulationError`` is a failure
while running a valid scenario. The CLI turns each into one line on stderr and exit code 2.

The classes are defined once, in the binding (``crates/atmsim-py/src/error.rs``), which also maps
the core's errors to them; this module re-exports them. ``ScenarioError(file, path, message)``:
``str(err)`` is ``"{file}: {path}: {message}"`` with empty parts left out, and it pickles. The core
does not know files: it raises ``ScenarioError("", path, message)`` and the front end raises it
again with the file (or ``--set``) that wrote the key.
"""

from __future__ import annotations

from ._core import AtmsimError, ScenarioError, SimulationError

__all__ = ["AtmsimError", "ScenarioError", "SimulationError"]
