"""Exception hierarchy of atmsim.

``AtmsimError`` is the root; ``ScenarioError`` is bad input (a scenario file, a ``--set``
override, a results directory) and carries where the problem is: the file, the key path inside
the scenario (``connections[0].source.rate_mbps``) and a message. ``SimulationError`` is a failure
while running a valid scenario. The CLI turns each into one line on stderr and exit code 2.
"""

from __future__ import annotations

__all__ = ["AtmsimError", "ScenarioError", "SimulationError"]


class AtmsimError(Exception):
    """Base class of every error raised by atmsim."""


class ScenarioError(AtmsimError):
    """Bad input: ``file`` (or ``"--set"``), key ``path`` and ``message``.

    ``str(err)`` is ``"{file}: {path}: {message}"`` with empty parts left out.
    """

    def __init__(self, file: str | None = "", path: str | None = "", message: str = "") -> None:
        self.file = str(file) if file else ""
        self.path = path or ""
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        return ": ".join(part for part in (self.file, self.path, self.message) if part)

    def __repr__(self) -> str:
        return f"ScenarioError(file={self.file!r}, path={self.path!r}, message={self.message!r})"

    def __reduce__(self):  # keep pickling (e.g. across processes) working
        return (type(self), (self.file, self.path, self.message))


class SimulationError(AtmsimError):
    """A valid scenario failed while it was being built or run."""
