"""Results of one run: the summary (``summary.json``) and sampled time series (Parquet)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .errors import ScenarioError
from .outdir import (  # noqa: F401 - re-exported: they were defined here
    OutputDir,
    claim,
    install,
    make_temp_dir,
    pid_alive,
    remove_stale_temporaries,
    signals_deferred,
    swap_into_place,
)

__all__ = ["Result", "SeriesColumn", "SeriesTable", "SeriesSink", "series_schema", "streamed_output"]

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

    A series on disk (``Result.read``, or ``atmsim.run(out=...)``) is read from its Parquet file
    when ``series`` asks for it, and not kept: such a result holds its summary and the files'
    paths only, and a caller holds a series as long as it keeps the DataFrame. ``series(name,
    columns=..., where=...)`` reads only some columns and the rows of one port or connection.
    """

    def __init__(self, summary: Mapping[str, Any] | Path, series: Mapping[str, Any], trace: Any = None) -> None:
        #: the summary, or the ``summary.json`` to read it from when first asked for (a run that
        #: wrote its output: the core wrote the file, and a caller that never reads the summary
        #: never has it as Python objects)
        self._summary: dict[str, Any] | None = None if isinstance(summary, Path) else dict(summary)
        self._summary_file: Path | None = summary if isinstance(summary, Path) else None
        self._raw: dict[str, Any] = dict(series)
        self._frames: dict[str, pd.DataFrame] = {}
        #: the trace (``run.trace``): a ``trace.parquet`` path or an Arrow table; None without one
        self._trace: Any = trace

    @property
    def summary(self) -> dict[str, Any]:
        """The content of ``summary.json`` (a dict; read from the file at the first access when
        the result was made with its path)."""
        if self._summary is None:
            assert self._summary_file is not None
            self._summary = _read_summary(self._summary_file)
        return self._summary

    @summary.setter
    def summary(self, value: Mapping[str, Any]) -> None:
        self._summary = dict(value)

    # ------------------------------------------------------------------ trace
    @property
    def has_trace(self) -> bool:
        return self._trace is not None

    def trace(
        self,
        connection: str | Sequence[str] | None = None,
        kind: str | Sequence[str] | None = None,
        from_s: float | None = None,
        to_s: float | None = None,
        columns: Sequence[str] | None = None,
    ) -> pd.DataFrame:
        """The trace of the run (``run.trace``; docs/tracing.md has its columns) as a DataFrame
        sorted by ``time_s``, optionally only the rows of ``connection`` (its flows in both
        directions), of ``kind`` and of ``from_s <= time_s < to_s``, and only ``columns`` (with
        ``time_s``; only those are read from the file). Raises ``ScenarioError`` when the run
        wrote no trace, or for a connection or kind it cannot have."""
        from .tracing import trace_frame

        if self._trace is None:
            raise ScenarioError("", "run.trace", "this run has no trace (set run.trace in the scenario)")
        conns = [connection] if isinstance(connection, str) else connection
        kinds = [kind] if isinstance(kind, str) else kind
        return trace_frame(self._trace, conns, kinds, from_s, to_s, columns=columns)

    def _repr_html_(self) -> str:
        """Jupyter: the topology (an SVG picture) and the summary's tables (ports, connections,
        TCP, ...) as HTML."""
        from .notebook import result_html

        return result_html(self)

    # ------------------------------------------------------------------ access
    @property
    def series_names(self) -> list[str]:
        return sorted(self._raw)

    def has_series(self, name: str) -> bool:
        return name in self._raw

    def series(
        self, name: str, columns: Sequence[str] | None = None, where: Mapping[str, Any] | None = None
    ) -> pd.DataFrame:
        """Series ``name`` as a new DataFrame (the caller's: changing it changes nothing here).

        ``columns``: only these, in the series' order (a name the series lacks is left out);
        ``where``: only the rows whose columns equal the values given (``{"port": "A->B"}``), in
        their order, indexed from 0. A series on disk is read from its file at every call (only
        the columns and row groups asked for) and not kept."""
        if name not in self._raw:
            raise KeyError(f"no series {name!r}; available: {', '.join(self.series_names) or '(none)'}")
        raw = self._raw[name]
        if isinstance(raw, Path):
            return _read_parquet(raw, columns, where)
        frame = self._frames.get(name)
        if frame is None:
            frame = _frame(raw)
            self._frames[name] = frame
        return _select(frame, columns, where)

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

    def workload(self, connection: str) -> dict[str, Any] | None:
        """The workload results of one connection (``connections.NAME.workload``), or None."""
        return self.connections.get(connection, {}).get("workload")

    def workload_table(self, per: str = "member") -> pd.DataFrame:
        """Workload results as a tidy table (docs/workloads.md).

        ``per="member"`` (default): one row per connection, statement and member with the
        statistics over its runs (``throughput_kBps_mean``, ``_min``, ``_max``, ``_std``, the same
        for ``transaction_ms``); ``per="run"``: one row per run (``run``, ``start_s``, ``end_s``,
        ``bytes``, ``units``, ``throughput_kBps``, ``transaction_ms_mean`` ...).
        """
        if per not in ("member", "run"):
            raise ValueError(f"per must be 'member' or 'run', got {per!r}")
        rows: list[dict[str, Any]] = []
        for name, c in self.connections.items():
            w = c.get("workload")
            if not w:
                continue
            for si, st in enumerate(w["statements"]):
                for m in st["members"]:
                    base = {
                        "connection": name,
                        "statement": si,
                        "line": st["line"],
                        "text": st["text"],
                        "member": m["connection"],
                        "op": m["op"],
                        "transport": w["transport"],
                    }
                    if per == "member":
                        row = dict(base, runs=len(m["runs"]))
                        for q in ("throughput_kBps", "transaction_ms"):
                            stats = m.get(q) or {}
                            for k in ("mean", "min", "max", "std"):
                                row[f"{q}_{k}"] = stats.get(k, float("nan"))
                        rows.append(row)
                    else:
                        for ri, r in enumerate(m["runs"]):
                            row = dict(base, run=ri, start_s=r["start_s"], end_s=r["end_s"], bytes=r["bytes"],
                                       units=r["units"], throughput_kBps=r["throughput_kBps"])
                            t = r.get("transaction_ms") or {}
                            for k in ("mean", "min", "max", "std"):
                                row[f"transaction_ms_{k}"] = t.get(k, float("nan"))
                            rows.append(row)
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        sim = self.summary.get("sim_time_s")
        return (
            f"<Result sim_time_s={sim} ports={len(self.ports)} connections={len(self.connections)} "
            f"series={self.series_names}>"
        )

    # ------------------------------------------------------------------ files
    def write(self, directory: str | os.PathLike[str], force: bool = False) -> Path:
        """Write ``summary.json`` and one ``<series>.parquet`` per series present into ``directory``.

        ``directory`` must not exist, be empty, or hold an earlier result (atmsim's marker file
        ``.atmsim-output.json``, written with the result); anything else raises ``ScenarioError``
        unless ``force``, and even then a file atmsim did not write is never replaced (see
        ``atmsim.outdir``).

        Atomic: everything is written into a temporary directory first (a sibling
        ``.NAME.tmp-<pid>-<random>`` renamed into place when ``directory`` does not exist, else
        one inside it whose files are then moved into place); an earlier complete result there
        is replaced only once the new one is complete, and the files of the earlier result that
        this one lacks are removed, so an interrupted or failed write never leaves a half-written
        output. SIGINT / SIGTERM arriving while the files are moved or the temporary directory is
        removed wait until that is done. Temporaries left by a process that was killed
        (``kill -9``) are removed by the next write into the same place; those of live processes
        are left alone. A new directory gets the usual permissions (0777 minus the umask).
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        target = Path(directory)
        with streamed_output(target, force=force) as tmp:
            text = json.dumps(self.summary, indent=2, sort_keys=True) + "\n"
            (tmp / SUMMARY_FILE).write_text(text, encoding="utf-8")
            if isinstance(self._trace, Path):
                shutil.copyfile(self._trace, tmp / "trace.parquet")
            elif self._trace is not None:
                pq.write_table(self._trace, tmp / "trace.parquet")
            for name in self.series_names:
                raw = self._raw[name]
                if isinstance(raw, Path):  # streamed to disk during the run: copied as written
                    shutil.copyfile(raw, tmp / f"{name}.parquet")
                    continue
                table = pa.Table.from_pandas(self.series(name), preserve_index=False)
                pq.write_table(table, tmp / f"{name}.parquet")
        return target

    @classmethod
    def read(cls, directory: str | os.PathLike[str]) -> "Result":
        """A result written by ``write`` (raises ``ScenarioError`` if there is none): the summary
        is read now, each series only when ``series`` asks for it (the Parquet files' footers are
        checked now, so a file that is not Parquet is reported here)."""
        d = Path(directory)
        summary_path = d / SUMMARY_FILE
        if not d.is_dir():
            raise ScenarioError(str(d), "", "no such results directory")
        if not summary_path.is_file():
            raise ScenarioError(str(d), "", f"no results here (missing {SUMMARY_FILE})")
        summary = _read_summary(summary_path)
        import pyarrow.parquet as pq

        series: dict[str, Any] = {}
        trace = None
        for p in sorted(d.glob("*.parquet")):
            try:
                pq.read_schema(p)  # the footer only: the data are read when asked for
            except Exception as e:  # corrupt file: report as bad input
                raise ScenarioError(str(p), "", f"cannot read results: {e}") from None
            if p.name == "trace.parquet":  # the trace (docs/tracing.md), not a series
                trace = p
                continue
            series[p.stem] = p
        return cls(summary, series, trace=trace)


def _read_summary(summary_path: Path) -> dict[str, Any]:
    """A ``summary.json``'s content; ``ScenarioError`` when it cannot be read or is not one."""
    from .files import MAX_JSON_BYTES, Unreadable, read_limited

    try:
        summary = json.loads(read_limited(summary_path, MAX_JSON_BYTES).decode("utf-8"))
    except Unreadable as e:
        raise ScenarioError(str(summary_path), "", f"cannot read results: {e.reason}") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ScenarioError(str(summary_path), "", "cannot read results: not valid JSON") from None
    if not isinstance(summary, dict):
        raise ScenarioError(str(summary_path), "", "cannot read results: not a run summary of atmsim (not a JSON object)")
    return summary


def _frame(raw: Any) -> pd.DataFrame:
    """A series as a DataFrame from what a result holds in memory: an Arrow table (slices kept in
    memory), a DataFrame, or columns (a Parquet file is read by ``_read_parquet``)."""
    if isinstance(raw, pd.DataFrame):
        return raw.copy()
    if hasattr(raw, "to_pandas"):
        return raw.to_pandas()
    return pd.DataFrame(dict(raw))


def _select(frame: pd.DataFrame, columns: Sequence[str] | None, where: Mapping[str, Any] | None) -> pd.DataFrame:
    """A copy of ``frame`` with ``columns`` only and the rows ``where`` says (see ``Result.series``)."""
    if where:
        mask = pd.Series(True, index=frame.index)
        for key, value in where.items():
            mask &= frame[key] == value
        frame = frame[mask].reset_index(drop=True)
    if columns is not None:
        wanted = set(columns)
        frame = frame[[c for c in frame.columns if c in wanted]]
    return frame.copy()


def _read_parquet(path: Path, columns: Sequence[str] | None, where: Mapping[str, Any] | None) -> pd.DataFrame:
    """A series from its Parquet file, read now: ``columns`` only, rows ``where`` says (filtered
    while reading, row groups whose statistics exclude the value skipped; the rows keep their
    order)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if columns is not None:
            wanted = set(columns)
            columns = [c for c in pq.read_schema(path).names if c in wanted]
        filters = [(k, "==", v) for k, v in where.items()] if where else None
        return pd.read_parquet(path, columns=columns, filters=filters)
    except Exception as e:  # a file removed or damaged since the result was read
        raise ScenarioError(str(path), "", f"cannot read results: {e}") from None
    finally:
        # the decoded row groups are freed by now: hand their pages back (Arrow's allocator keeps
        # them otherwise, and a reproduction reads one file after another)
        pa.default_memory_pool().release_unused()


def _arrow(columns: Mapping[str, Any]) -> Any:
    """One slice of a series as an Arrow table, typed exactly as a whole series written with
    ``Result.write`` (through pandas: floats, int64, strings), so row groups concatenate to the
    same table."""
    import pyarrow as pa

    return pa.Table.from_pandas(pd.DataFrame(dict(columns)), preserve_index=False)


#: pyarrow's type of each kind of column the core hands over as bytes (drain_series_buffers)
_BUFFER_TYPES = {"f64": "float64", "u32": "uint32", "u64": "uint64", "port": "uint32", "flow": "uint32"}


def _arrow_buffers(columns: Sequence[tuple[str, str, bytes]], key_names: Callable[[str], Any],
                   schemas: dict[str, Any], name: str) -> Any:
    """One slice of a series from the core's raw columns (``_core.Simulation.drain_series_buffers``)
    as an Arrow table, typed exactly as ``_arrow`` types the same rows given as lists (float64,
    int64, large_string, and pandas' schema metadata): no Python object per value. Numbers become
    Arrow arrays over the bytes (``pyarrow.Array.from_buffers``), unsigned integers are cast to
    int64 (checked), a key column's indices take their names from ``key_names(kind)`` (an Arrow
    string array made once per run). ``schemas`` keeps each series' schema, made once from its
    first row through pandas as ``_arrow`` makes it."""
    import pyarrow as pa

    arrays = []
    for _, kind, data in columns:
        typ = getattr(pa, _BUFFER_TYPES[kind])()
        arr = pa.Array.from_buffers(typ, len(data) // typ.byte_width, [None, pa.py_buffer(data)])
        if kind in ("port", "flow"):
            arr = key_names(kind).take(arr)
        elif kind != "f64":
            arr = arr.cast(pa.int64())
        arrays.append(arr)
    names = [c for c, _, _ in columns]
    schema = schemas.get(name)
    if schema is None:
        first = pa.Table.from_arrays([a.slice(0, 1) for a in arrays], names=names)
        schema = schemas[name] = _arrow(first.to_pydict()).schema
    arrays = [a if a.type == f.type else a.cast(f.type) for a, f in zip(arrays, schema)]
    return pa.Table.from_arrays(arrays, schema=schema)


class SeriesSink:
    """Takes the series rows a run drains slice by slice (``_core.Simulation.drain_series``) and
    keeps memory flat: with a ``directory``, each slice is appended to ``<series>.parquet`` as
    row groups (``pyarrow.parquet.ParquetWriter``) at once; without one (in-memory mode) the
    slices are kept as Arrow tables, about 8 bytes per number and the key names, which grows with
    the run's length (give ``atmsim.run`` an ``out`` directory for long runs)."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self._writers: dict[str, Any] = {}
        self._chunks: dict[str, list[Any]] = {}
        self._schemas: dict[str, Any] = {}
        self._key_names: dict[str, Any] = {}
        #: rows taken so far, per series
        self.rows: dict[str, int] = {}

    def add(self, tables: Mapping[str, Mapping[str, Any]]) -> None:
        """Take one slice given as ``{series: {column: list}}`` (``_core.Simulation.drain_series``)."""
        for name, columns in tables.items():
            self._put(name, _arrow(columns))

    def add_buffers(self, tables: Mapping[str, Sequence[tuple[str, str, bytes]]], sim: Any) -> None:
        """Take one slice given as raw columns (``sim.drain_series_buffers()``; the names of the
        key columns from ``sim.key_names``): the same tables as ``add`` of the same rows, without
        a Python object per value."""
        import pyarrow as pa

        def key_names(kind: str) -> Any:
            names = self._key_names.get(kind)
            if names is None:
                names = self._key_names[kind] = pa.array(sim.key_names(kind), type=pa.large_string())
            return names

        for name, columns in tables.items():
            self._put(name, _arrow_buffers(columns, key_names, self._schemas, name))

    def _put(self, name: str, table: Any) -> None:
        import pyarrow.parquet as pq

        self.rows[name] = self.rows.get(name, 0) + table.num_rows
        if self.directory is None:
            self._chunks.setdefault(name, []).append(table)
            return
        writer = self._writers.get(name)
        if writer is None:
            writer = pq.ParquetWriter(self.directory / f"{name}.parquet", table.schema)
            self._writers[name] = writer
        elif not table.schema.equals(writer.schema, check_metadata=False):
            table = table.cast(writer.schema)
        writer.write_table(table)

    def close(self, names: list[str]) -> dict[str, Any]:
        """Finish the series ``names`` (those the run has, in order); returns ``{name: value}``
        for ``Result``: the Parquet file's path, or the Arrow table. A series without rows
        (declared ``always``) gets its declared columns and no rows."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        for writer in self._writers.values():
            writer.close()
        out: dict[str, Any] = {}
        for name in names:
            if name not in self.rows:
                decl = _schema().get(name)
                empty = _arrow({c: [] for c in (decl.column_names if decl else [])})
                if self.directory is not None:
                    pq.write_table(empty, self.directory / f"{name}.parquet")
                else:
                    self._chunks[name] = [empty]
            if self.directory is not None:
                out[name] = self.directory / f"{name}.parquet"
            else:
                chunks = self._chunks.pop(name)
                out[name] = chunks[0] if len(chunks) == 1 else pa.concat_tables(chunks)
        self._chunks.clear()
        return out

    def abort(self) -> None:
        """Close the open files (the directory is the caller's to remove)."""
        for writer in self._writers.values():
            with contextlib.suppress(Exception):
                writer.close()
        self._writers.clear()
        self._chunks.clear()


@contextlib.contextmanager
def streamed_output(directory: str | os.PathLike[str] | OutputDir, force: bool = False) -> Iterator[Path]:
    """A temporary directory to write a result into while the run goes on; when the block ends
    normally its files take their place in ``directory`` (``atmsim.outdir.install``: an earlier
    result there is replaced only then, and only atmsim's own files), and on any exception or
    interrupt it is removed, so a failed or interrupted run leaves nothing half-written.

    ``directory`` must not exist, be empty, or hold an earlier run's output (its marker file);
    else ``ScenarioError``, unless ``force`` (then the result is written beside the files there,
    never replacing one atmsim did not write). A claim made earlier (``OutputDir``) is taken as
    it is."""
    out = directory if isinstance(directory, OutputDir) else claim(directory, "run", force=force)
    tmp = out.temp_dir()
    try:
        yield tmp
        install(out, tmp)
    except BaseException:
        with signals_deferred():
            shutil.rmtree(tmp, ignore_errors=True)
        raise
