"""Reading the files a user names: scenario files and their ``extends``, trace files, workload
scripts, study files, and the JSON files of a results directory (issue 31 item 3).

Every such file is read with a size limit and only if it is a regular file: a FIFO (which
would block with no writer), a device (``/dev/zero`` never ends, ``/dev/urandom`` neither), a
socket or a directory is refused at once, before anything is opened for reading (``stat``), and
again on the open file (``fstat`` of a descriptor opened without blocking), so a file swapped for
a FIFO in between cannot block either. A file larger than its limit is refused without being
read; one that grows past it while read is refused too.

``read_limited`` raises ``Unreadable`` with the reason in words ("is a FIFO, not a regular
file"); the callers turn it into their ``ScenarioError`` naming the scenario file and key.
``lines_limited`` reads a text file line by line with a bound on each line, so a trace of
millions of lines is never held whole in memory as text.

``memory_limit`` is the Python side of the core's memory limit (``run.max_memory_mb``, else
``ATMSIM_MAX_MEMORY_MB``, else the memory available): what reading a trace may take is counted
against it before the document goes to the core.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "Unreadable", "read_limited", "lines_limited", "memory_limit", "MAX_SCENARIO_BYTES", "MAX_SCRIPT_BYTES",
    "MAX_TRACE_BYTES", "MAX_JSON_BYTES", "MAX_LINE_BYTES", "BASE_BYTES", "kind_of_file",
]

#: a scenario, ``extends`` or study file (the largest shipped scenario is 17 kB)
MAX_SCENARIO_BYTES = 64 * 1024 * 1024
#: a workload script file
MAX_SCRIPT_BYTES = 16 * 1024 * 1024
#: a trace file (about 100 million frames of one size per line); its frames also count against
#: the memory limit (``traces.py``)
MAX_TRACE_BYTES = 1024 * 1024 * 1024
#: a JSON file of a results directory (a run's summary.json, study.json, index.json)
MAX_JSON_BYTES = 512 * 1024 * 1024
#: one line of a trace file
MAX_LINE_BYTES = 4096
#: the process before the scenario (the core's ``BASE_BYTES``, check_resources.rs)
BASE_BYTES = 150_000_000

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory",
}


class Unreadable(Exception):
    """A file that is not read: ``reason`` in words, ``kind`` one of ``missing``,
    ``directory``, ``special`` (FIFO, device, socket), ``too large``, ``error``."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def kind_of_file(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} bytes"


def _check_mode(mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise Unreadable("directory", "is a directory")
    if not stat.S_ISREG(mode):
        raise Unreadable("special", f"is {kind_of_file(mode)}, not a regular file")


def _open(path: str | os.PathLike[str], limit: int) -> int:
    """A descriptor of the regular file ``path`` of at most ``limit`` bytes (see the module
    docstring); ``Unreadable`` otherwise."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise Unreadable("missing", "not found") from None
    except OSError as e:
        raise Unreadable("error", f"cannot be read: {e.strerror or e}") from None
    _check_mode(st.st_mode)
    if st.st_size > limit:
        raise Unreadable("too large", f"is larger than {_size(limit)}")
    try:
        # without blocking: a FIFO put there since the stat must not wait for a writer
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise Unreadable("missing", "not found") from None
    except IsADirectoryError:
        raise Unreadable("directory", "is a directory") from None
    except OSError as e:
        raise Unreadable("error", f"cannot be read: {e.strerror or e}") from None
    try:
        _check_mode(os.fstat(fd).st_mode)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_limited(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (``Unreadable``
    otherwise: see the module docstring)."""
    fd = _open(path, limit)
    chunks: list[bytes] = []
    total = 0
    try:
        while True:
            try:
                chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            except OSError as e:
                raise Unreadable("error", f"cannot be read: {e.strerror or e}") from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise Unreadable("too large", f"is larger than {_size(limit)}")
    finally:
        os.close(fd)
    return b"".join(chunks)


def lines_limited(path: str | os.PathLike[str], limit: int, line_limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """(line number, line without its end) of the regular file ``path`` of at most ``limit``
    bytes, one at a time; a line longer than ``line_limit`` bytes raises ``Unreadable`` naming
    it. The file is opened (and refused) before the first line is asked for."""
    fd = _open(path, limit)
    f = os.fdopen(fd, "rb", buffering=1 << 16)

    def gen() -> Iterator[tuple[int, bytes]]:
        total = 0
        with f:
            n = 0
            while True:
                try:
                    raw = f.readline(line_limit + 2)
                except OSError as e:
                    raise Unreadable("error", f"cannot be read: {e.strerror or e}") from None
                if not raw:
                    return
                n += 1
                total += len(raw)
                if total > limit:
                    raise Unreadable("too large", f"is larger than {_size(limit)}")
                line = raw.rstrip(b"\r\n")
                if len(line) > line_limit:
                    raise Unreadable("too large", f"line {n} is longer than {line_limit} bytes")
                yield n, line

    return gen()


def _meminfo_available() -> float | None:
    try:
        text = read_limited("/proc/meminfo", 1 << 20).decode("ascii", "replace")
    except Unreadable:
        return None
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            parts = line.split()
            try:
                return float(parts[1]) * 1024
            except (IndexError, ValueError):
                return None
    return None


def memory_limit(doc: Mapping[str, Any] | None) -> tuple[float, str] | None:
    """The memory a run of ``doc`` may use, bytes, and where that limit comes from (the core's
    ``memory_limit``: ``run.max_memory_mb``, else ``ATMSIM_MAX_MEMORY_MB``, else the memory
    available on this machine); None when none is known. Values the core would refuse are
    ignored here (it says so itself)."""
    run = doc.get("run") if isinstance(doc, Mapping) else None
    mb = run.get("max_memory_mb") if isinstance(run, Mapping) else None
    if isinstance(mb, int) and not isinstance(mb, bool) and mb >= 1:
        return mb * 1048576.0, "run.max_memory_mb"
    text = os.environ.get("ATMSIM_MAX_MEMORY_MB")
    if text is not None:
        try:
            value = int(text.strip())
        except ValueError:
            value = 0
        if value >= 1:
            return value * 1048576.0, "ATMSIM_MAX_MEMORY_MB"
        return None
    avail = _meminfo_available()
    return None if avail is None else (avail, "the memory available on this machine")


def regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file (following symbolic links), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def check_readable(path: str | os.PathLike[str] | Path, limit: int) -> None:
    """``Unreadable`` unless ``path`` is a regular file of at most ``limit`` bytes (nothing read)."""
    os.close(_open(path, limit))
