"""Type stubs of the compiled Rust core (crates/atmsim-py)."""

def schema() -> str:
    """JSON Schema of a scenario document (without the Python-only ``extends``)."""

def check(json: str) -> tuple[str, str] | None:
    """``None`` if the scenario JSON is valid, else ``(key path, message)``."""

def fgn(n: int, hurst: float, method: str = "paxson", seed: int = 0) -> list[float]:
    """``n`` values of fractional Gaussian noise (mean 0, variance 1, Hurst parameter ``hurst``)
    by ``method`` ("paxson": ``n`` a power of two; or "davies_harte") from the random stream
    "fgn" of ``seed``. Raises ``ValueError`` for a bad method, ``n`` or ``hurst``."""

def map_traffic(max_mbps: float, mean_mbps: float, burst_bytes: int, tsdu_bytes: int, header_bytes: int) -> str:
    """Seed 001 Table 7 mapping as JSON: ``{"plain": {...}, "aal5": {...}, "cells_per_tsdu": n}``;
    each form has ``pcr_cells_per_s``, ``scr_cells_per_s``, ``pcr_mbps``, ``scr_mbps``,
    ``mbs_cells``. Raises ``ValueError`` unless 0 < mean <= max and tsdu_bytes >= 1."""

class Simulation:
    """One run of a scenario; raises ``ValueError`` if the scenario is invalid."""

    def __init__(self, json: str) -> None: ...
    def advance(self, max_events: int) -> bool:
        """Process up to ``max_events`` events (GIL released); ``True`` once the run has finished."""
    @property
    def sim_time_s(self) -> float: ...
    @property
    def end_time_s(self) -> float: ...
    @property
    def events(self) -> int: ...
    def summary_json(self) -> str: ...
    def series(self) -> dict[str, dict[str, list]]:
        """Every series the run produced, by name (``ports``, ``connections`` and, with ABR,
        ``abr_sources`` / ``abr_ports``), each a table as ``{column: values}``."""
