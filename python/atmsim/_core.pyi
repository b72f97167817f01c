"""Type stubs of the compiled Rust core (crates/atmsim-py)."""

def schema() -> str:
    """JSON Schema of a scenario document (without the Python-only ``extends``)."""

def check(json: str) -> tuple[str, str] | None:
    """``None`` if the scenario JSON is valid, else ``(key path, message)``."""

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
