"""The Python API: ``atmsim.run(scenario) -> Result``."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from collections.abc import Callable, Mapping
from typing import Any

from .errors import ScenarioError, SimulationError
from .netview import network_of
from .outdir import claim
from .result import SUMMARY_FILE, Result, SeriesSink, streamed_output
from .scenario import Provenance, document_json, load_scenario, with_file
from .tracing import TRACE_CHUNK_EVENTS, TRACE_FILE, TraceSink

__all__ = ["run", "prepare", "DEFAULT_CHUNK_EVENTS"]

log = logging.getLogger("atmsim.run")

#: events per call into the core between progress reports (and KeyboardInterrupt checks)
DEFAULT_CHUNK_EVENTS = 2_000_000

ProgressFn = Callable[[float, float, int], Any]


def prepare(
    scenario: str | os.PathLike[str] | Mapping[str, Any],
    overrides: Any = None,
    seed: int | None = None,
    duration: float | None = None,
) -> tuple[dict[str, Any], Provenance]:
    """Load and override a scenario; returns ``(doc, provenance)``.

    Only what Python checks itself (files, ``extends``, override key paths) is checked here: the
    core validates the document when ``run_document`` builds it, so a run builds once.
    """
    extra: list[tuple[str, dict[str, Any]]] = []
    if seed is not None:
        extra.append(("--seed", {"run.seed": seed}))
    if duration is not None:
        extra.append(("--duration", {"run.duration_s": duration}))
    return load_scenario(scenario, overrides, validate=False, extra_overrides=extra)


def run(
    scenario: str | os.PathLike[str] | Mapping[str, Any],
    overrides: Any = None,
    seed: int | None = None,
    duration: float | None = None,
    progress: ProgressFn | None = None,
    *,
    chunk_events: int = DEFAULT_CHUNK_EVENTS,
    out: str | os.PathLike[str] | None = None,
    force: bool = False,
) -> Result:
    """Run one simulation and return its ``Result``.

    ``scenario`` is a TOML file path or a dict (a dict's ``extends`` is relative to the current
    directory). ``overrides`` are ``KEY=VALUE`` strings or a ``{key path: value}`` dict (see
    ``atmsim.scenario``); ``seed`` and ``duration`` set ``run.seed`` and ``run.duration_s``.
    ``progress(sim_time_s, end_time_s, events)`` is called between chunks of work.
    Raises ``ScenarioError`` for bad input and ``SimulationError`` if the core fails.
    The core releases the GIL while it runs, so runs on separate threads proceed in parallel.

    With ``out``, the series stream to ``out/<series>.parquet`` while the run goes (memory stays
    flat however long the run) and ``summary.json`` joins them at the end; the directory appears
    only once the run is complete (an earlier result there is replaced then). ``out`` must not
    exist, be empty, or hold an earlier run's output (its marker file ``.atmsim-output.json``):
    anything else raises ``ScenarioError`` before the run starts, unless ``force`` (then the
    result goes beside the files there; a file atmsim did not write is never replaced). Such a
    result reads its series and its summary from the directory when they are asked for (the core
    writes ``summary.json``). Without ``out`` the series are kept in memory (as Arrow tables, about 8 bytes per number): that
    memory grows with the run's length and sampling rate, so long runs should write to a
    directory.
    """
    doc, prov = prepare(scenario, overrides, seed, duration)
    return run_document(doc, prov, progress=progress, chunk_events=chunk_events, out=out, force=force)


def run_document(
    doc: dict[str, Any],
    provenance: Provenance | None = None,
    progress: ProgressFn | None = None,
    chunk_events: int = DEFAULT_CHUNK_EVENTS,
    out: str | os.PathLike[str] | None = None,
    force: bool = False,
) -> Result:
    """Run an already loaded (and overridden) scenario document (``out``, ``force``: see ``run``;
    the output directory is checked before the simulation is built).

    Building the simulation validates the document (once): a problem is raised as
    ``ScenarioError`` naming the file (or ``--set``) that wrote the offending key.
    The core runs in slices that end after ``chunk_events`` events or once the series hold
    ``_core.SERIES_SLICE_ROWS`` rows; after each, the rows are drained into a ``SeriesSink``.
    """
    from . import _core

    prov = provenance or Provenance()
    if isinstance(chunk_events, bool) or not isinstance(chunk_events, int) or chunk_events < 1:
        raise ScenarioError("", "chunk_events", f"must be an integer >= 1, got {chunk_events!r}")
    claimed = claim(out, "run", force=force) if out is not None else None
    text = document_json(doc, prov)
    run_info = doc.get("run") if isinstance(doc.get("run"), dict) else {}
    log.debug("building %s: %s s simulated, seed %s%s", prov.file or "a scenario", run_info.get("duration_s"),
              run_info.get("seed"), f", output {out}" if out is not None else "")
    start = time.perf_counter()
    try:
        sim = _core.Simulation(text)
    except ScenarioError as e:
        raise with_file(e, prov) from None
    except Exception as e:
        raise SimulationError(f"cannot build the simulation: {e}") from e
    scenario_info = {"description": doc.get("description", ""), "file": prov.file, "network": network_of(doc)}
    log.debug("built in %.3f s", time.perf_counter() - start)
    if claimed is None:
        traces = TraceSink(sim, None) if sim.tracing else None
        try:
            extra, series = _run_slices(sim, SeriesSink(None), progress, chunk_events, traces)
        except ScenarioError as e:  # a queue crossed the memory limit while the run went
            raise with_file(e, prov) from None
        summary = json.loads(sim.summary_json())
        summary.update(extra)
        summary["wall_time_s"] = time.perf_counter() - start
        summary["scenario"] = scenario_info
        return Result(summary, series, trace=traces.close() if traces else None)
    target = Path(claimed.shown)
    try:
        with streamed_output(claimed) as tmp:
            traces = TraceSink(sim, tmp) if sim.tracing else None
            extra, series = _run_slices(sim, SeriesSink(tmp), progress, chunk_events, traces)
            if traces is not None:
                traces.close()
            extra["wall_time_s"] = time.perf_counter() - start
            extra["scenario"] = scenario_info
            # the core writes summary.json from its structs, the front end's keys after its own
            # (issue 27 item 5: no Python object per connection, no pure-Python encoder)
            sim.write_summary(tmp / SUMMARY_FILE, json.dumps(extra))
    except ScenarioError as e:
        raise with_file(e, prov) from None
    except OSError as e:
        raise ScenarioError(str(target), "", f"cannot write results: {e.strerror or e}") from None
    trace = target / TRACE_FILE if traces is not None else None
    return Result(target / SUMMARY_FILE, {name: target / path.name for name, path in series.items()}, trace=trace)


def _run_slices(
    sim: Any, sink: SeriesSink, progress: ProgressFn | None, chunk_events: int, traces: TraceSink | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run ``sim`` to its end, its series into ``sink``; returns the front end's additions to the
    summary (``trace``) and the series ``sink.close`` gives."""
    from . import _core
    from .interrupts import raise_if_requested

    if traces is not None:  # the trace's rows of a slice stay few (docs/tracing.md)
        chunk_events = min(chunk_events, TRACE_CHUNK_EVENTS)
    try:
        while True:
            done = sim.advance(int(chunk_events), _core.SERIES_SLICE_ROWS)
            raise_if_requested()  # an interrupt whose exception Python dropped (atmsim.interrupts)
            sink.add_buffers(sim.drain_series_buffers(), sim)
            if traces is not None:
                traces.add(sim.drain_trace())
            if progress is not None:
                progress(sim.sim_time_s, sim.end_time_s, sim.events)
            if done:
                break
        series = sink.close(sim.series_tables())
        log.debug("ran to %.6g s simulated: %s events", sim.sim_time_s, sim.events)
        extra: dict[str, Any] = {}
        if traces is not None:
            extra["trace"] = {"rows": sim.trace_rows_total, "file": TRACE_FILE}
    except (KeyboardInterrupt, MemoryError, OSError, ScenarioError):
        sink.abort()
        if traces is not None:
            traces.abort()
        raise
    except Exception as e:
        sink.abort()
        if traces is not None:
            traces.abort()
        raise SimulationError(f"simulation failed: {type(e).__name__}: {e}") from e
    return extra, series
