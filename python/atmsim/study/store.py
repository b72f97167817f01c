"""The results store of a study: one directory, written run by run.

::

    DIR/study.json                       the study: kind, identity, spec, atmsim version
    DIR/runs.parquet                     the run table: one row per run
    DIR/table/<run_id>.json              rows of runs finished since runs.parquet was last written
    DIR/series/run_id=<run_id>/          the run's summary.json and series (Result.write),
                                         so DIR/series/run_id=*/ports.parquet is a dataset
                                         partitioned by run

A run is stored when it completes: its series directory first (atomically, by ``Result.write``),
then its row, ``table/<run_id>.json`` (written to a temporary file and renamed), so the row is the
mark of a finished run and an interrupted study loses only the runs in progress. At the end of a
session (``compact``) the pending rows are merged into ``runs.parquet`` (written atomically, then
the merged row files removed); readers take ``runs.parquet`` plus any pending rows, so the table is
whole at every moment. (One Parquet file per run would cost ~10 ms to write and to read for a
summary of a few hundred scalars; a row file costs well under 1 ms.) ``run_id`` is a hash of the
run's resolved scenario (file content, overrides and seed) and the atmsim version: a study started
again skips the runs whose row exists.

``query(DIR, SQL)`` runs DuckDB over the files: the view ``runs`` is the run table, and each
series (``ports``, ``connections``, ``abr_sources``, ``abr_ports``, ``tcp``) is a view with a
``run_id`` column, e.g. ``SELECT run_id, max(queue_cells) FROM ports GROUP BY run_id``. The
query is one read-only statement and the connection reads nothing but the study's tables
(``connect``, ``query``).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import ScenarioError
from ..outdir import OutputDir, claim, pid_alive, read_marker

__all__ = ["Store", "results", "query", "flatten", "META_COLUMNS"]

STUDY_FILE = "study.json"
RUNS_FILE = "runs.parquet"
TABLE = "table"
SERIES = "series"
#: the columns every row has, in this order (then the parameters ``set.KEY``, then the summary)
META_COLUMNS = ("run_id", "point", "replication", "seed", "status", "error", "run_wall_s", "worker")
#: what a store writes at its top level (directories with a trailing /)
STORE_NAMES = (STUDY_FILE, RUNS_FILE, TABLE + "/", SERIES + "/")
_TMP_FILE = re.compile(r"\.(?P<name>.+)\.tmp-(?P<pid>[0-9]+)-[0-9a-f]+")


def flatten(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every scalar of a summary, keyed by its dotted key path (``ports.A->B.max_queue_cells``);
    list elements as ``key[i]``; ``None`` values left out."""
    out: dict[str, Any] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                walk(v, f"{path}.{k}" if path else str(k))
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]")
        elif value is not None:
            out[path] = value

    walk(summary, prefix)
    return out


class Store:
    """A study's directory (see the module docstring)."""

    def __init__(self, directory: str | os.PathLike[str], out: OutputDir | None = None) -> None:
        self.dir = Path(directory).resolve() if out is None else out.path
        self.table_dir = self.dir / TABLE
        self.series_dir = self.dir / SERIES
        #: the claim of the directory (``open``): what the store may replace; None for readers
        self.out = out
        #: the descriptor holding the study's lock (``open``; None for readers)
        self._lock: int | None = None

    def release(self) -> None:
        """Give up the study's lock (``open`` took it; also when the store is collected)."""
        if self._lock is not None:
            try:
                os.close(self._lock)
            except OSError:
                pass
            self._lock = None

    def __del__(self) -> None:
        self.release()

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(
        cls, directory: str | os.PathLike[str], kind: str, identity: str, spec: Mapping[str, Any],
        force: bool = False, writes: tuple[str, ...] = (),
    ) -> "Store":
        """Open (or create) the store for a study of ``kind`` (the command: ``sweep`` or
        ``reproduce``) with ``identity``. The directory must not exist, be empty, or carry
        atmsim's marker of the same command (``atmsim.outdir``; a study written before the
        marker existed is recognised by its ``study.json`` of this kind and identity); anything
        else is refused (``ScenarioError``) unless ``force``. A directory holding another study,
        or a file atmsim did not write at a name the store (or ``writes``: the other top-level
        names the command will write) uses, is refused even then; a refused directory is left as
        it is."""
        from ..version import __version__

        existing = read_study(directory) if Path(directory).is_dir() else None
        if not isinstance(existing, dict):
            existing = None  # not a study.json of ours: the claim below judges the directory
        if existing is not None and (existing.get("kind") != kind or existing.get("identity") != identity):
            raise ScenarioError(
                str(directory), "",
                f"holds another study ({existing.get('kind')} {existing.get('identity')}; this one is {kind} {identity}): "
                "choose another --out or remove it",
            )
        _adopt_legacy(Path(directory), kind, existing)
        out = claim(directory, kind, force=force, writes=STORE_NAMES + tuple(writes))
        out.ensure()
        store = cls(out.path, out)
        store._lock = _lock_study(out.path, str(directory))
        store.table_dir.mkdir(exist_ok=True)
        store.series_dir.mkdir(exist_ok=True)
        out.add([TABLE + "/", SERIES + "/"])
        store.remove_stale()
        info = {"kind": kind, "identity": identity, "atmsim_version": __version__, "spec": dict(spec)}
        store.write_text(STUDY_FILE, json.dumps(info, indent=2, sort_keys=True, default=str) + "\n")
        return store

    def remove_stale(self) -> None:
        """Temporary files and directories left by killed processes (their pid is gone)."""
        for folder in (self.table_dir, self.series_dir, self.dir):
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for e in entries:
                m = _TMP_FILE.fullmatch(e.name) or re.fullmatch(r"\.(?P<name>.+)\.(?:tmp|old)-(?P<pid>[0-9]+)-[^/]*", e.name)
                if not m:
                    continue
                pid = int(m.group("pid"))
                if pid == os.getpid() or pid_alive(pid):
                    continue
                if e.is_dir(follow_symlinks=False):
                    shutil.rmtree(e.path, ignore_errors=True)
                else:
                    try:
                        os.unlink(e.path)
                    except OSError:
                        pass

    # ------------------------------------------------------------------ writing
    def write_text(self, name: str, text: str) -> Path:
        """``DIR/name`` written atomically (temporary file, then rename), replacing only a file
        atmsim wrote (``OutputDir.write_file``)."""
        return self._claimed().write_file(name, lambda tmp: tmp.write_text(text, encoding="utf-8"))

    def _claimed(self) -> OutputDir:
        """The store's claim (``open``); a store made with ``Store(DIR)`` claims its directory
        now: it must be a study (atmsim's marker of ``sweep`` or ``reproduce``)."""
        if self.out is None:
            marker = read_marker(self.dir)
            if marker is None or marker["command"] not in ("sweep", "reproduce"):
                raise ScenarioError(str(self.dir), "", "not a study directory written by atmsim (no marker)")
            self.out = claim(self.dir, marker["command"])
        return self.out

    def series_path(self, run_id: str) -> Path:
        return self.series_dir / f"run_id={run_id}"

    def write_row(self, row: Mapping[str, Any]) -> Path:
        """The run's row, atomically: ``table/<run_id>.json``."""
        run_id = str(row["run_id"])
        target = self.table_dir / f"{run_id}.json"
        tmp = self.table_dir / f".{run_id}.json.tmp-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            tmp.write_text(json.dumps(dict(row), default=str), encoding="utf-8")
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                tmp.unlink()
        return target

    # ------------------------------------------------------------------ reading
    def pending(self) -> list[Path]:
        """Row files not yet merged into ``runs.parquet``."""
        try:
            return sorted(Path(e.path) for e in os.scandir(self.table_dir) if e.name.endswith(".json") and not e.name.startswith("."))
        except FileNotFoundError:
            return []

    def done_ids(self) -> set[str]:
        """Run ids with a stored row."""
        import pyarrow.parquet as pq

        ids = {p.name[: -len(".json")] for p in self.pending()}
        if (self.dir / RUNS_FILE).is_file():
            ids.update(pq.read_table(self.dir / RUNS_FILE, columns=["run_id"]).column("run_id").to_pylist())
        return ids

    def pending_table(self) -> tuple[Any, list[Path]]:
        """The pending rows as an Arrow table (None without any) and their files."""
        files = self.pending()
        rows = []
        for f in files:
            try:
                rows.append(json.loads(f.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue  # removed by a concurrent compaction
        return (rows_table(rows) if rows else None), files

    def compact(self) -> None:
        """Merge the pending rows into ``runs.parquet`` (a row file replaces an older row of the
        same run), write it atomically, then remove the merged row files."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        new, files = self.pending_table()
        if new is None:
            return
        path = self.dir / RUNS_FILE
        table = new
        if path.is_file():
            old = pq.read_table(path)
            old = old.filter(pc.invert(pc.is_in(old.column("run_id"), value_set=new.column("run_id"))))
            table = pa.concat_tables([old, new], promote_options="permissive")
        table = table.sort_by([("point", "ascending"), ("replication", "ascending"), ("run_id", "ascending")])
        self._claimed().write_file(RUNS_FILE, lambda tmp: pq.write_table(table, tmp))
        for f in files:
            try:
                f.unlink()
            except FileNotFoundError:
                pass

    def study(self) -> dict[str, Any]:
        return read_study(self.dir) or {}


def rows_table(rows: list[Mapping[str, Any]]) -> Any:
    """Rows (dicts with possibly different keys) as an Arrow table: the meta columns first, then
    the other keys in order of first appearance; a column whose values mix types becomes text."""
    import pyarrow as pa

    keys: dict[str, None] = dict.fromkeys(k for k in META_COLUMNS)
    for r in rows:
        keys.update(dict.fromkeys(r))
    arrays, fields = [], []
    for k in keys:
        values = [r.get(k) for r in rows]
        kind = _column_type(k, values)
        try:
            arr = pa.array(values, type=kind) if kind is not None else pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            arr = pa.array([None if v is None else str(v) for v in values], type=pa.string())
        arrays.append(arr)
        fields.append(pa.field(k, arr.type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _column_type(key: str, values: list[Any]) -> Any:
    """bool, int64, float64 (ints and floats mixed) or string for the column's non-null values."""
    import pyarrow as pa

    present = [v for v in values if v is not None]
    fixed = _arrow_type(key, None)
    if key in META_COLUMNS or not present:
        return fixed
    if all(isinstance(v, bool) for v in present):
        return pa.bool_()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.int64() if all(-(2**63) <= v < 2**63 for v in present) else pa.float64()
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.float64()
    return pa.string()


def _arrow_type(key: str, value: Any) -> Any:
    import pyarrow as pa

    if key in ("run_id", "status", "error", "worker"):
        return pa.string()
    if key in ("point", "replication", "seed"):
        return pa.int64()
    if key == "run_wall_s":
        return pa.float64()
    if value is None:
        return pa.null()
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64() if -(2**63) <= value < 2**63 else pa.float64()
    if isinstance(value, float):
        return pa.float64()
    return pa.string()


def _lock_study(directory: Path, shown: str) -> int | None:
    """An exclusive lock on the study directory (``flock`` on the directory itself, so nothing
    is added to it), held by the returned descriptor until ``Store.release`` or the process
    ends (a killed process's lock goes with it). A second study process on the same directory
    would run every run the first is running (issue 31: two sweeps on one study ran each run
    twice), so it is refused at once with one line. None where ``flock`` does not exist."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ScenarioError(
            shown, "",
            "another atmsim process is running this study now; wait until it ends (or stop it), then start "
            "again: the runs it stored are kept and not run twice",
        ) from None
    except OSError:
        os.close(fd)  # a file system without locks: go on without one
        return None
    return fd


def _adopt_legacy(directory: Path, kind: str, existing: Mapping[str, Any] | None) -> None:
    """A study written before the marker existed (``study.json`` of this kind and identity, no
    marker) gets the marker, listing the store's own files that are there; nothing else in the
    directory counts as atmsim's (a report beside it must be moved away once)."""
    if existing is None or read_marker(directory) is not None or (directory / ".atmsim-output.json").exists():
        return
    present = [n for n in STORE_NAMES if (directory / n.rstrip("/")).exists()]
    if kind == "sweep" and (directory / "points.csv").is_file():
        present.append("points.csv")
    out = OutputDir(directory.resolve(), kind, str(directory), existed=True, ours=set(present))
    out.ensure()


def read_study(directory: str | os.PathLike[str]) -> dict[str, Any] | None:
    p = Path(directory) / STUDY_FILE
    if not p.is_file():
        return None
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ScenarioError(str(p), "", f"cannot read the study: {e}") from None


# ------------------------------------------------------------------------------------- queries


def _sql_path(p: Path) -> str:
    return _sql_text(str(p))


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


#: what ``query`` runs: one statement of these kinds (SELECT covers WITH ... SELECT, FROM ...,
#: VALUES, TABLE, DESCRIBE, SHOW and SUMMARIZE, which DuckDB parses as queries)
_READ_ONLY = ("SELECT",)


def connect(directory: str | os.PathLike[str]) -> Any:
    """A locked-down DuckDB connection with the views ``runs`` and one per series name (see the
    module docstring). Raises ``ScenarioError`` if ``directory`` is not a study.

    The connection reads only the study's tables: the views are made first, then DuckDB's
    external access is turned off except for ``runs.parquet`` and the ``series/`` folder
    (``allowed_paths``, ``allowed_directories``: no other file, directory listing, ATTACH,
    COPY or EXPORT outside them), extensions are neither installed nor loaded (autoinstall,
    autoload and community extensions off) and the configuration is locked, so a query cannot
    turn any of this back on. Writing is refused before execution by ``query`` (one read-only
    statement only), since DuckDB would let COPY write into an allowed folder."""
    import duckdb

    d = Path(directory)
    if read_study(d) is None:
        raise ScenarioError(str(directory), "", f"not a study directory (no {STUDY_FILE})")
    d = d.resolve()  # DuckDB compares the allowed paths with the files' resolved paths
    con = duckdb.connect(":memory:", config={
        "autoinstall_known_extensions": False, "autoload_known_extensions": False, "allow_community_extensions": False,
    })
    try:
        try:
            _create_views(con, d)
        except duckdb.Error as e:
            # runs.parquet or a series file that is not Parquet (truncated, replaced)
            raise ScenarioError(str(directory), "", f"cannot read the study's tables: {_duckdb_message(e)}") from None
        con.execute(f"SET allowed_paths = [{_sql_path(d / RUNS_FILE)}]")
        con.execute(f"SET allowed_directories = [{_sql_text(str(d / SERIES) + os.sep)}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def _create_views(con: Any, d: Path) -> None:
    """The view ``runs`` (``runs.parquet`` and the pending rows) and one view per series."""
    con.execute("SET enable_progress_bar = false")
    store = Store(d)
    pending, _ = store.pending_table()
    runs_file = d / RUNS_FILE
    parts = []
    if runs_file.is_file():
        parts.append(f"SELECT * FROM read_parquet({_sql_path(runs_file)})"
                     + (" WHERE run_id NOT IN (SELECT run_id FROM pending_rows)" if pending is not None else ""))
    if pending is not None:
        con.register("pending_rows", pending)
        parts.append("SELECT * FROM pending_rows")
    if parts:
        con.execute(f"CREATE VIEW runs AS SELECT * FROM ({' UNION ALL BY NAME '.join(parts)}) ORDER BY point, replication, run_id")
    else:
        con.execute(
            "CREATE VIEW runs AS SELECT * FROM (SELECT NULL::VARCHAR AS run_id, NULL::BIGINT AS point, NULL::BIGINT AS replication, "
            "NULL::BIGINT AS seed, NULL::VARCHAR AS status, NULL::VARCHAR AS error, NULL::DOUBLE AS run_wall_s, "
            "NULL::VARCHAR AS worker) WHERE false"
        )
    names: set[str] = set()
    series = d / SERIES
    if series.is_dir():
        for run in os.scandir(series):
            if run.name.startswith("run_id=") and run.is_dir():
                names.update(p[: -len(".parquet")] for p in os.listdir(run.path) if p.endswith(".parquet"))
    for name in sorted(names):
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name == "runs":
            continue
        con.execute(
            f'CREATE VIEW "{name}" AS SELECT * FROM read_parquet({_sql_path(series / "run_id=*" / (name + ".parquet"))}, '
            "hive_partitioning=true, union_by_name=true)"
        )


def _check_read_only(con: Any, directory: str | os.PathLike[str], sql: str) -> None:
    """``sql`` must be exactly one read-only query; anything else is refused before it runs."""
    import duckdb

    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as e:
        raise ScenarioError(str(directory), "", f"query failed: {_duckdb_message(e)}") from None
    if not statements:
        raise ScenarioError(str(directory), "", "no SQL statement given; e.g. 'SELECT * FROM runs'")
    kinds = [str(s.type).rsplit(".", 1)[-1] for s in statements]
    if len(kinds) != 1 or kinds[0] not in _READ_ONLY:
        shown = ", ".join(dict.fromkeys(k for k in kinds if k not in _READ_ONLY)) or f"{len(kinds)} statements"
        raise ScenarioError(
            str(directory), "",
            f"refused: results query runs one read-only query (SELECT, WITH ... SELECT, DESCRIBE, SHOW), not {shown}",
        )


def _duckdb_message(e: Exception) -> str:
    """DuckDB's message on one line: its first line, and the hints that follow it ("Candidate
    bindings", "Did you mean"); never the quoted SQL with its caret, nor the lines DuckDB quotes
    from a file it read ("Original Line", the reader's options), so no file's contents show."""
    lines = str(e).splitlines()
    keep = lines[:1]
    for line in lines[1:]:
        if not line.strip():
            break
        if line.startswith(("Candidate bindings", "Did you mean")):
            keep.append(line)
    return " ".join(" ".join(keep).split())


def query(directory: str | os.PathLike[str], sql: str) -> pd.DataFrame:
    """Run ``sql``, one read-only query, over the study in ``directory`` (DuckDB, locked down:
    see ``connect``; the module docstring lists the views). Anything but one SELECT (COPY,
    ATTACH, INSTALL, SET, PRAGMA, several statements, ...) is refused (``ScenarioError``)."""
    import duckdb

    con = connect(directory)
    try:
        _check_read_only(con, directory, sql)
        return con.execute(sql).df()
    except duckdb.Error as e:
        raise ScenarioError(str(directory), "", f"query failed: {_duckdb_message(e)}") from None
    finally:
        con.close()


def results(directory: str | os.PathLike[str], sql: str | None = None) -> pd.DataFrame:
    """The run table of the study in ``directory`` (one row per run), or the result of ``sql``."""
    return query(directory, sql or "SELECT * FROM runs")
