"""Results of one run: the summary (``summary.json``) and sampled time series (Parquet)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .errors import ScenarioError

__all__ = ["Result", "SeriesColumn", "SeriesTable", "series_schema"]

SUMMARY_FILE = "summary.json"


@dataclass(frozen=True)
class SeriesColumn:
    """A column of a series as the core declares it, next to the model it observes."""

    name: str
    #: "" for a pure number
    unit: str
    doc: str
    #: "f64", "u32", "u64", or a key: "port" / "flow" (values are port / connection names)
    kind: str
    #: short axis label ("" = the name) and the figure ``atmsim plot`` draws it in ("" = none)
    label: str = ""
    plot: str = ""

    @property
    def is_key(self) -> bool:
        return self.kind in ("port", "flow")

    @property
    def axis_label(self) -> str:
        text = self.label or self.name
        return f"{text} ({self.unit})" if self.unit else text


@dataclass(frozen=True)
class SeriesTable:
    """A series (one Parquet file) as the core declares it: ``time_s``, the key column (``port``
    or ``connection``), then the model's columns, in order."""

    name: str
    doc: str
    columns: tuple[SeriesColumn, ...]
    #: produced even without rows (else only when the run has some)
    always: bool = False
    #: the column whose positive maximum marks a key worth plotting ("" = every key)
    active: str = ""

    @property
    def key(self) -> SeriesColumn:
        return next(c for c in self.columns if c.is_key)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def column(self, name: str) -> SeriesColumn | None:
        return next((c for c in self.columns if c.name == name), None)


@functools.cache
def _schema() -> dict[str, SeriesTable]:
    from . import _core

    return {
        name: SeriesTable(
            name=name,
            doc=t["doc"],
            columns=tuple(SeriesColumn(**c) for c in t["columns"]),
            always=bool(t["always"]),
            active=t["active"],
        )
        for name, t in _core.series_schema().items()
    }


def series_schema() -> dict[str, SeriesTable]:
    """Every series the core can produce, by name, in the core's order, with its declared columns
    (name, unit, doc, kind). A result holds those its scenario calls for (the ABR series only with
    ABR connections / ERICA ports, ``tcp`` only with TCP): ``Result.series_names`` lists what a
    result has. ``atmsim schema --series`` prints the same."""
    return dict(_schema())


class Result:
    """What one simulation run produced.

    ``summary`` is exactly the content of ``summary.json``; ``series(name)`` returns a sampled time
    series as a ``pandas.DataFrame`` with the columns the core declares for it
    (``series_schema()``, or ``schema(name)`` here): ``time_s``, the key (``port`` or
    ``connection``), then the model's columns, e.g. ``ports`` (queue_cells, utilization),
    ``connections`` (throughput_mbps), ``abr_sources`` (acr_mbps), ``abr_ports`` (one row per
    ERICA averaging interval) and ``tcp`` (cwnd_bytes).

    ``series_names`` lists the series this result has; ``has_series(name)`` asks for one.
    """

    def __init__(self, summary: Mapping[str, Any], series: Mapping[str, Any]) -> None:
        self.summary: dict[str, Any] = dict(summary)
        self._raw: dict[str, Any] = dict(series)
        self._frames: dict[str, pd.DataFrame] = {}

    # ------------------------------------------------------------------ access
    @property
    def series_names(self) -> list[str]:
        return sorted(self._raw)

    def has_series(self, name: str) -> bool:
        return name in self._raw

    def series(self, name: str) -> pd.DataFrame:
        if name not in self._raw:
            raise KeyError(f"no series {name!r}; available: {', '.join(self.series_names) or '(none)'}")
        frame = self._frames.get(name)
        if frame is None:
            raw = self._raw[name]
            frame = raw.copy() if isinstance(raw, pd.DataFrame) else pd.DataFrame(dict(raw))
            self._frames[name] = frame
        return frame.copy()

    def schema(self, name: str) -> SeriesTable | None:
        """The core's declaration of series ``name`` (None for a series it does not declare)."""
        return _schema().get(name)

    @property
    def ports(self) -> dict[str, Any]:
        return self.summary.get("ports", {})

    @property
    def connections(self) -> dict[str, Any]:
        return self.summary.get("connections", {})

    @property
    def wall_time_s(self) -> float | None:
        return self.summary.get("wall_time_s")

    def __repr__(self) -> str:
        sim = self.summary.get("sim_time_s")
        return (
            f"<Result sim_time_s={sim} ports={len(self.ports)} connections={len(self.connections)} "
            f"series={self.series_names}>"
        )

    # ------------------------------------------------------------------ files
    def write(self, directory: str | os.PathLike[str]) -> Path:
        """Write ``summary.json`` and one ``<series>.parquet`` per series present into ``directory``.

        Atomic: everything is written into a temporary sibling directory first, which then takes
        the place of ``directory``; an earlier complete result there is replaced only once the new
        one is complete, so an interrupted or failed write never leaves a half-written output.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        target = Path(directory)
        parent = target.parent if str(target.parent) else Path(".")
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=parent))
        try:
            text = json.dumps(self.summary, indent=2, sort_keys=True) + "\n"
            (tmp / SUMMARY_FILE).write_text(text, encoding="utf-8")
            for name in self.series_names:
                table = pa.Table.from_pandas(self.series(name), preserve_index=False)
                pq.write_table(table, tmp / f"{name}.parquet")
            _swap_into_place(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return target

    @classmethod
    def read(cls, directory: str | os.PathLike[str]) -> "Result":
        """Load a result written by ``write`` (raises ``ScenarioError`` if there is none)."""
        d = Path(directory)
        summary_path = d / SUMMARY_FILE
        if not d.is_dir():
            raise ScenarioError(str(d), "", "no such results directory")
        if not summary_path.is_file():
            raise ScenarioError(str(d), "", f"no results here (missing {SUMMARY_FILE})")
        try:
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ScenarioError(str(summary_path), "", f"cannot read results: {e}") from None
        series: dict[str, Any] = {}
        for p in sorted(d.glob("*.parquet")):
            try:
                series[p.stem] = pd.read_parquet(p)
            except Exception as e:  # corrupt file: report as bad input
                raise ScenarioError(str(p), "", f"cannot read results: {e}") from None
        return cls(summary, series)


def _swap_into_place(new: Path, target: Path) -> None:
    if not target.exists() and not target.is_symlink():
        os.replace(new, target)
        return
    if not target.is_dir():
        raise ScenarioError(str(target), "", "output path exists and is not a directory")
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    old.rmdir()
    os.replace(target, old)
    try:
        os.replace(new, target)
    except BaseException:
        os.replace(old, target)  # put the earlier result back
        raise
    shutil.rmtree(old, ignore_errors=True)
