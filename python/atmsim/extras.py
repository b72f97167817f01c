"""The optional parts of atmsim and what they need (pyproject.toml's extras).

``pip install atmsim`` (``make run`` in a clone) runs scenarios and plots them. The extras add:

- ``study``: ``atmsim sweep``, ``atmsim results``, ``atmsim reproduce`` and ``atmsim.study``
  (DuckDB for the results store, scipy for the intervals; Dask for ``--dask``);
- ``report``: ``atmsim report`` and ``atmsim.report`` (plotly);
- ``dev``: the test tools, and both of the above (``make test``).

A command or module that needs an extra that is not installed raises ``MissingExtraError`` (an
``AtmsimError``: one line on stderr from the CLI, exit code 2) saying which extra to install.
"""

from __future__ import annotations

import importlib.util

from .errors import AtmsimError

__all__ = ["EXTRAS", "MissingExtraError", "missing", "require"]

#: extra -> the modules of it that must import (Dask is checked only when --dask asks for it)
EXTRAS: dict[str, tuple[str, ...]] = {
    "study": ("duckdb", "scipy"),
    "report": ("plotly",),
    "dask": ("distributed",),
}
#: the extra that installs each group (dask comes with the study extra)
_INSTALLED_BY = {"study": "study", "report": "report", "dask": "study"}


class MissingExtraError(AtmsimError):
    """A part of atmsim was asked for whose optional dependencies are not installed."""


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent missing, or a module set to None in sys.modules
        return False


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported."""
    return [m for m in EXTRAS[extra] if not _importable(m)]


def require(extra: str, what: str) -> None:
    """Raise ``MissingExtraError`` naming ``what`` (a command or module) and the extra to install
    when a module of ``extra`` is missing."""
    gone = missing(extra)
    if gone:
        name = _INSTALLED_BY[extra]
        raise MissingExtraError(
            f"{what} needs the '{name}' extra ({', '.join(gone)} not installed): "
            f"pip install 'atmsim[{name}]' (in a clone of atmsim: make extras)"
        )
