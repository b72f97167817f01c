"""Type stubs of the compiled Rust core (crates/atmsim-py)."""

import os
from typing import Any

__version__: str

class AtmsimError(Exception):
    """Base class of every error raised by atmsim."""

class ScenarioError(AtmsimError):
    """Bad input: ``file`` (or ``"--set"``), key ``path`` and ``message``; ``str(err)`` is
    ``"{file}: {path}: {message}"`` with empty parts left out. Picklable. The core raises it with
    ``file == ""`` (it does not know files); the Python front end fills the file in."""

    file: str
    path: str
    message: str
    def __init__(self, file: str | None = "", path: str | None = "", message: str = "") -> None: ...

class SimulationError(AtmsimError):
    """A valid scenario failed while it was being built or run."""

def schema() -> str:
    """JSON Schema of a scenario document (without the Python-only ``extends``)."""

def check(json: str) -> None:
    """Validate the scenario JSON without building its network (CAC admission of permanent
    connections included); raises ``ScenarioError`` (``file == ""``, key path, message) if it is
    invalid."""

def fgn(n: int, hurst: float, method: str = "paxson", seed: int = 0) -> list[float]:
    """``n`` values of fractional Gaussian noise (mean 0, variance 1, Hurst parameter ``hurst``)
    by ``method`` ("paxson": ``n`` a power of two; or "davies_harte") from the random stream
    "fgn" of ``seed``. Raises ``ValueError`` for a bad method, ``n`` or ``hurst``."""

def map_traffic(max_mbps: float, mean_mbps: float, burst_bytes: int, tsdu_bytes: int, header_bytes: int) -> str:
    """Seed 001 Table 7 mapping as JSON: ``{"plain": {...}, "aal5": {...}, "cells_per_tsdu": n}``;
    each form has ``pcr_cells_per_s``, ``scr_cells_per_s``, ``pcr_mbps``, ``scr_mbps``,
    ``mbs_cells``. Raises ``ValueError`` unless 0 < mean <= max and tsdu_bytes >= 1."""

def toml_to_json(text: str) -> str | None:
    """The JSON text of a scenario file's TOML ``text``, tables in the file's order (the ``toml``
    crate, TOML 1.0); None when the front end must read it with ``tomllib`` instead: not TOML, a
    date or time, a float that is not finite, tables or arrays nested 32 levels deep."""
def series_schema() -> dict[str, dict[str, Any]]:
    """The declarations of every series the core can produce, in order: per table its doc, its
    columns (``time_s``, the key, then the model's: name, unit ("" for a number), doc, kind, axis
    ``label`` and the ``plot`` figure it is drawn in, "" for none), whether it is produced without
    rows (``always``) and the column whose positive maximum marks a key as ``active`` ("" none):
    ``{table: {"doc": str, "columns": [{"name": str, "unit": str, "doc": str, "kind": str,
    "label": str, "plot": str}, ...], "always": bool, "active": str}}``. Kinds: "f64", "u32",
    "u64", and the keys "port" and "flow" (handed over as port / connection names)."""

#: rows the front end lets the series hold before it drains them (``advance(..., max_rows)``)
SERIES_SLICE_ROWS: int

class Simulation:
    """One run of a scenario. Building it validates the scenario: raises ``ScenarioError``
    (``file == ""``, key path, message) if it is invalid."""

    def __init__(self, json: str) -> None: ...
    def advance(self, max_events: int, max_rows: int | None = None) -> bool:
        """Process up to ``max_events`` events (GIL released); ``True`` once the run has finished.
        With ``max_rows``, also stop once the series hold that many rows (``drain_series``).
        Python's signal handlers run every 50 ms of it (SIGINT's ``KeyboardInterrupt`` stops it);
        a queue crossing the run's memory limit raises ``ScenarioError`` (path
        ``run.max_memory_mb``), and every later call raises it again."""
    @property
    def poll_batch(self) -> int:
        """Events per batch between two looks at the clock (adapted to the cost of the events)."""
    @property
    def series_rows_held(self) -> int:
        """Series rows the core holds now (not yet drained)."""
    def drain_series(self) -> dict[str, dict[str, list]]:
        """Take the rows held so far, as ``series`` gives them, only tables with rows; the core
        keeps none. The slices drained between ``advance`` calls concatenate to the whole series."""
    def drain_series_buffers(self) -> dict[str, list[tuple[str, str, bytes]]]:
        """Take the rows held so far, as ``drain_series`` does, as raw columns: per table
        ``(column, kind, bytes)``, the values in native byte order (``f64``: float64, ``u32``:
        uint32, ``u64``: uint64, keys ``port`` / ``flow``: uint32 indices into ``key_names``)."""
    def key_names(self, kind: str) -> list[str]:
        """The names a key column's indices stand for (``kind`` "port" or "flow"), in index order."""
    def write_summary(self, path: str | os.PathLike[str], extra: str) -> None:
        """Write ``summary.json`` to ``path``: the summary, then the members of the JSON object
        ``extra``, indented by two spaces; raises ``OSError`` if it cannot be written."""
    def series_tables(self) -> list[str]:
        """The series this run has (declared ``always``, or rows ever added), in order."""
    @property
    def tracing(self) -> bool:
        """Whether the run writes a trace (``run.trace``, docs/tracing.md)."""
    @property
    def trace_rows_total(self) -> int:
        """Trace rows written so far (drained or not)."""
    def trace_names(self) -> dict[str, list[str]]:
        """The name tables of the trace's index columns: kind, connection (flows), port, node,
        reason, and each flow's first and last node (flow_from, flow_to)."""
    def drain_trace(self) -> dict[str, list]:
        """Take the trace rows held so far: {column: list}; kind, connection, port, node and
        reason are indices into ``trace_names`` (reason -1: none)."""
    @property
    def sim_time_s(self) -> float: ...
    @property
    def end_time_s(self) -> float: ...
    @property
    def events(self) -> int: ...
    @property
    def cell_hops(self) -> int:
        """Cells sent onto links so far (cells x links crossed), warm-up included."""
    def summary_json(self) -> str:
        """The summary as JSON text; raises ``SimulationError`` if it cannot be serialized."""
    def series(self) -> dict[str, dict[str, list]]:
        """Every series the run produced, by name, each a table as ``{column: values}`` with the
        columns ``series_schema()`` declares for it, in that order (``time_s``, the key column,
        the model's columns); key columns hold port or connection names. ``ports`` and
        ``connections`` are always there; ``abr_sources``, ``abr_ports`` and ``tcp`` only when the
        run filled them. Holds the rows not yet taken by ``drain_series``."""
