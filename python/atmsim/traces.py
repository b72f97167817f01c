"""Frame-size traces for video streams (seed 004): read once here, shared by every stream.

The core reads no files. A scenario names its traces in a top-level ``traces`` table; an entry
with ``file = "PATH"`` is read here (once per file, however many streams play it) and its frame
sizes are put in ``frames`` before the document goes to the core, which keeps one shared slice
per trace. ``PATH`` is relative to the scenario file that sets it (``--set``: to the current
directory).

Two formats, told apart line by line:

- one frame size in bytes per line (seed 004: "a file which consisted of an enumeration of frames
  and their corresponding byte sizes");
- four whitespace-separated columns ``frame_number type time_ms size_bytes``, the format of the
  MPEG-4 traces in ``../shared/traces/`` (Fitzek and Reisslein 2001): the size is the last
  column, frames are played in file order.

Blank lines and ``#`` comments are skipped. A missing, unreadable or empty file, a line that is
neither format, or a size that is not a non-negative integer is a ``ScenarioError`` naming the
scenario file, the key path, the trace file and the line number, never the line's text (a
scenario can name any readable file: its contents must not show in an error). A size is ASCII
digits only (``1_000``, ``+5`` and other scripts' digits are refused). The file must be a
regular file of at most 1 GiB (``atmsim.files``: a FIFO or a device is refused at once), read
line by line, and its frames count against the run's memory limit (``run.max_memory_mb``, else
``ATMSIM_MAX_MEMORY_MB``, else the memory available) at ``FRAME_BYTES`` a frame while the
scenario is read: a longer trace is refused naming its key.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from .errors import ScenarioError

#: the core's limit on one frame (scenario/check_video.rs)
MAX_FRAME_BYTES = 64 * 1024 * 1024


#: what one frame of a trace costs in memory until the run has it (a Python int and its list
#: slot, its digits in the document's JSON text, the core's parse and copy): measured 231 bytes
#: (peak RSS of `atmsim run` with a 2,000,000-frame trace less with a 1-frame one, 0.001 s),
#: with margin
FRAME_BYTES = 256

_DIGITS = re.compile(rb"[0-9]+")


def read_trace(path: Path, scenario: str, key: str, max_frames: int | None = None, limit_note: str = "") -> list[int]:
    """Frame sizes of the trace file ``path``; errors name ``scenario`` and ``key``.

    The file must be a regular file of at most ``MAX_TRACE_BYTES`` (a FIFO, a device or a
    directory is refused at once: ``atmsim.files``); it is read line by line (a line of at
    most ``MAX_LINE_BYTES``), never whole. A size is ASCII digits only (Python's ``int`` would
    take ``1_000``, ``+5`` or Arabic-Indic digits). With ``max_frames``, a trace of more frames
    is refused (``limit_note`` says which memory limit that is).
    """
    from .files import MAX_TRACE_BYTES, Unreadable, lines_limited

    shown = os.fspath(path)
    sizes: list[int] = []
    try:
        for n, raw in lines_limited(path, MAX_TRACE_BYTES):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ScenarioError(scenario, key, f"trace file {shown} is not UTF-8 text") from None
            line = text.split("#", 1)[0].strip()
            if not line:
                continue
            cols = line.split()
            if len(cols) not in (1, 4):
                raise ScenarioError(
                    scenario, key,
                    f"{shown} line {n}: expected one frame size or 4 columns "
                    f"(frame_number type time_ms size_bytes), got {len(cols)} columns",
                )
            word = cols[-1].encode("utf-8")
            if not _DIGITS.fullmatch(word):
                negative = word.startswith(b"-") and _DIGITS.fullmatch(word[1:])
                if negative:
                    raise ScenarioError(scenario, key, f"{shown} line {n}: the frame size is not in 0..={MAX_FRAME_BYTES} bytes")
                raise ScenarioError(scenario, key, f"{shown} line {n}: the frame size is not an integer (ASCII digits 0-9)")
            size = int(word) if len(word) <= 20 else MAX_FRAME_BYTES + 1
            if size > MAX_FRAME_BYTES:
                raise ScenarioError(scenario, key, f"{shown} line {n}: the frame size is not in 0..={MAX_FRAME_BYTES} bytes")
            sizes.append(size)
            if max_frames is not None and len(sizes) > max_frames:
                raise ScenarioError(
                    scenario, key,
                    f"trace file {shown} has more than {max_frames} frames, more than fit in {limit_note} "
                    f"({FRAME_BYTES} bytes a frame while the scenario is read); set run.max_memory_mb or "
                    "ATMSIM_MAX_MEMORY_MB to allow more, or use a shorter trace",
                )
    except Unreadable as e:
        if e.kind == "missing":
            raise ScenarioError(scenario, key, f"trace file not found: {shown}") from None
        if e.kind == "directory":
            raise ScenarioError(scenario, key, f"trace file is a directory: {shown}") from None
        raise ScenarioError(scenario, key, f"trace file {shown} {e.reason}") from None
    if not sizes:
        raise ScenarioError(scenario, key, f"trace file {shown} has no frame sizes")
    return sizes


def _frame_allowance(doc: dict[str, Any]) -> tuple[int | None, str]:
    """How many trace frames the memory limit leaves room for (``atmsim.files.memory_limit``
    less the process's base), and the limit in words."""
    from .files import BASE_BYTES, memory_limit

    limit = memory_limit(doc)
    if limit is None:
        return None, ""
    bytes_, source = limit
    words = f"the {int(bytes_ // 1048576)} MB allowed ({source})" if source != "the memory available on this machine" \
        else f"the {int(bytes_ // 1048576)} MB available on this machine"
    return max(0, int((bytes_ - BASE_BYTES) // FRAME_BYTES)), words


def resolve_traces(doc: dict[str, Any], file_for: Any, cache: dict[Path, list[int]] | None = None) -> None:
    """Fill ``traces.NAME.frames`` from ``traces.NAME.file`` in ``doc`` (in place).

    ``file_for(key)`` names the scenario file (or ``--set``) that set a key. Each trace file is
    read once (``cache``, by resolved path).
    """
    traces = doc.get("traces")
    if not isinstance(traces, dict):
        return
    cache = {} if cache is None else cache
    allowance, note = _frame_allowance(doc)
    for name, t in traces.items():
        if isinstance(t, dict) and "codec" in t:
            _generate(name, t, file_for)
            continue
        if not isinstance(t, dict) or "file" not in t:
            continue
        key = f"traces.{name}.file"
        src = file_for(key)
        f = t["file"]
        if not isinstance(f, str) or not f:
            raise ScenarioError(src, key, "must be a file name (a string)")
        if t.get("frames"):
            raise ScenarioError(src, f"traces.{name}.frames", "give file or frames, not both")
        base = Path.cwd() if src.startswith("--") or not src else Path(src).parent
        path = (base / f).resolve()
        if path not in cache:
            left = None if allowance is None else max(0, allowance - sum(len(v) for v in cache.values()))
            cache[path] = read_trace(path, src, key, left, note)
        t["frames"] = cache[path]


def _generate(name: str, t: dict[str, Any], file_for: Any) -> None:
    """``traces.NAME.codec``: a synthetic trace (``atmsim.synth``) into ``frames``."""
    from .synth import CODECS, synthesize

    codec = t["codec"]
    src = file_for(f"traces.{name}.codec")
    if codec not in CODECS:
        raise ScenarioError(src, f"traces.{name}.codec", f"unknown codec {codec!r}; one of: {', '.join(sorted(CODECS))}")
    for other in ("file", "frames"):
        if t.get(other):
            raise ScenarioError(src, f"traces.{name}.{other}", "give one of codec, file and frames")
    length = t.get("length")
    if length is not None and (isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= 10_000_000):
        raise ScenarioError(file_for(f"traces.{name}.length"), f"traces.{name}.length", f"must be an integer in 1..=10000000, got {length!r}")
    seed = t.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ScenarioError(file_for(f"traces.{name}.seed"), f"traces.{name}.seed", f"must be an integer >= 0, got {seed!r}")
    t["frames"] = synthesize(codec, length, seed)
