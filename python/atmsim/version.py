"""The installed atmsim's version, ``__version__`` (``0.0.0+unknown`` in a source tree without an
install). Its own module, imported by the package's ``__init__`` and by the modules that record
the version (the CLI, the study store, reproduction reports), so none of them imports the
package's ``__init__``."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("atmsim")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
