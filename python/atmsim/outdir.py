"""Output directories that are atmsim's only (issue 31 item 1).

A command that writes an output directory (``atmsim run`` / ``Result.write``, ``sweep``,
``reproduce``, ``reproduce all``, ``plot``) first *claims* it (``claim``): the directory must not
exist, be empty, or carry the marker file ``.atmsim-output.json`` of an earlier run of the same
command. Anything else is refused with a ``ScenarioError`` (one line, exit code 2 from the CLI),
unless ``force``: then atmsim writes beside the files there. Either way only atmsim's own files
are ever replaced or removed: those the marker lists, each a regular file (or a symbolic link
atmsim made that points inside the directory); a FIFO, a device, a directory, a link pointing
elsewhere or a file the marker does not list is never renamed over, written through or deleted.

The marker is JSON: ``{"command": "run", "atmsim_version": ..., "files": [...]}``, ``files``
being the paths (relative, ``/``-separated; a directory atmsim made ends with ``/``) of what
atmsim wrote there, by this command or by one that adds to its output (``plot``'s PNGs,
``report``'s ``report.html``).

Writing keeps the atomic behaviour of before: a new directory is built as a temporary sibling
and renamed into place; into an existing directory the files are built in a temporary directory
inside it (``.atmsim.tmp-<pid>-<random>``) and moved into place one by one with SIGINT / SIGTERM
deferred (``install``), so an interrupted or failed run leaves the earlier complete result. A
single file (``atmsim report --out FILE``, a plot) is written to a temporary sibling and renamed
(``replace_file``): an existing file there is replaced only if it is a regular file that its
directory's marker lists or that carries atmsim's signature (``report.html``'s generator tag,
a PNG's ``Software`` text).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import ScenarioError

__all__ = [
    "MARKER", "OutputDir", "claim", "install", "replace_file", "read_marker", "signals_deferred", "pid_alive",
    "remove_stale_temporaries", "make_temp_dir", "swap_into_place",
]

#: the marker file of a directory atmsim wrote
MARKER = ".atmsim-output.json"
#: what each command's directory is called in messages
NOUNS = {
    "run": "a run's output directory", "sweep": "a study directory", "reproduce": "a reproduction directory",
    "reproduce-all": "a 'reproduce all' directory", "plot": "a run's output directory",
}
#: temporaries: ``.NAME.tmp-<pid>-<random>`` / ``.NAME.old-<pid>-<random>`` (the pid owns it)
_TEMP_RE = re.compile(r"\.(?P<name>.+)\.(?:tmp|old)-(?P<pid>[0-9]+)-[^/]*")
#: a temporary directory inside an output directory
_INSIDE = "atmsim"
_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device", stat.S_IFSOCK: "a socket",
          stat.S_IFDIR: "a directory", stat.S_IFLNK: "a symbolic link"}


def _refuse(where: str, message: str) -> ScenarioError:
    return ScenarioError(where, "", message)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _clean_rel(text: Any) -> str | None:
    """A marker entry if it is a plain relative path inside the directory (no ``..``, not
    absolute, no empty part), else None: a forged marker names nothing outside."""
    if not isinstance(text, str) or not text or "\\" in text or "\0" in text:
        return None
    is_dir = text.endswith("/")
    p = PurePosixPath(text.rstrip("/"))
    if p.is_absolute() or not p.parts or any(part in ("", ".", "..") for part in p.parts):
        return None
    return str(p) + ("/" if is_dir else "")


def read_marker(directory: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The marker of ``directory`` (``command``, ``files`` as a set), or None if it has none (or
    it is not a regular file, or not a marker)."""
    path = Path(directory) / MARKER
    st = _lstat(path)
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_size > 16 * 1024 * 1024:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("command"), str) or not isinstance(data.get("files"), list):
        return None
    files = {r for r in (_clean_rel(f) for f in data["files"]) if r is not None}
    return {"command": data["command"], "files": files}


def _write_marker(directory: Path, command: str, files: Iterable[str]) -> None:
    from .version import __version__

    data = {"command": command, "atmsim_version": __version__, "files": sorted(set(files))}
    tmp = directory / f".{MARKER}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, directory / MARKER)
    finally:
        if tmp.exists():
            tmp.unlink()


def _is_temporary(name: str) -> bool:
    """A temporary atmsim makes inside an output directory (its own, or the marker's)."""
    m = _TEMP_RE.fullmatch(name)
    return m is not None and m.group("name") in (_INSIDE, MARKER)


@dataclass
class OutputDir:
    """A claimed output directory (``claim``): where it is, whether it existed, and what in it
    is atmsim's (the marker's ``files``)."""

    path: Path
    command: str
    shown: str
    existed: bool
    ours: set[str] = field(default_factory=set)

    def owns(self, rel: str) -> bool:
        """Whether ``rel`` (a file, or a top-level directory name) is atmsim's here."""
        rel = rel.rstrip("/")
        return rel in self.ours or rel + "/" in self.ours or any(o.startswith(rel + "/") for o in self.ours)

    def where(self, rel: str) -> str:
        return os.path.join(self.shown, rel)

    def check(self, rel: str) -> None:
        """Refuse (``ScenarioError``) unless atmsim may put a file at ``rel``: every directory on
        the way is a real directory, and what is there now, if anything, is atmsim's and a
        regular file (or, for ``dir/``, a directory), or a symbolic link atmsim made that points
        inside the directory."""
        parts = PurePosixPath(rel.rstrip("/")).parts
        for i in range(1, len(parts)):
            st = _lstat(self.path.joinpath(*parts[:i]))
            if st is None:
                return
            if not stat.S_ISDIR(st.st_mode):
                raise _refuse(self.where("/".join(parts[:i])), f"is {_kind(st.st_mode)} where atmsim writes a directory; move it away or choose another output directory")
        target = self.path.joinpath(*parts)
        st = _lstat(target)
        if st is None:
            return
        if not self.owns(rel):
            raise _refuse(self.where(rel.rstrip("/")), "exists and was not written by atmsim (atmsim never replaces a file it did not write); move it away or choose another output directory")
        mode = st.st_mode
        if rel.endswith("/"):
            if stat.S_ISDIR(mode):
                return
        elif stat.S_ISREG(mode) or (stat.S_ISLNK(mode) and self._link_inside(target)):
            return
        raise _refuse(self.where(rel.rstrip("/")), f"is {_kind(mode)}, not a file atmsim wrote; atmsim does not replace it: move it away or choose another output directory")

    def _link_inside(self, link: Path) -> bool:
        try:
            return Path(os.path.realpath(link)).is_relative_to(self.path)
        except (OSError, ValueError):
            return False

    def check_marker(self) -> None:
        """Refuse if something that is not atmsim's marker sits at its name."""
        st = _lstat(self.path / MARKER)
        if st is not None and read_marker(self.path) is None:
            raise _refuse(self.where(MARKER), f"is {_kind(st.st_mode) if not stat.S_ISREG(st.st_mode) else 'a file'} that is not atmsim's marker; move it away")

    def ensure(self) -> None:
        """Create the directory (and its marker) if it does not exist yet."""
        if _lstat(self.path) is None:
            self.path.mkdir(parents=True, exist_ok=True)
        if read_marker(self.path) is None:
            self.check_marker()
            _write_marker(self.path, self.command, self.ours)

    def add(self, rels: Iterable[str]) -> None:
        """Record ``rels`` as atmsim's in the marker."""
        self.ours.update(r for r in (_clean_rel(x) for x in rels) if r is not None)
        marker = read_marker(self.path)
        command = marker["command"] if marker is not None else self.command
        _write_marker(self.path, command, self.ours | (marker["files"] if marker else set()))

    def write_file(self, rel: str, write: Callable[[Path], None]) -> Path:
        """``rel`` written by ``write(tmp)`` into a temporary sibling, then renamed into place
        (after ``check``) and recorded in the marker."""
        self.check(rel)
        target = self.path / rel
        tmp = target.parent / f".{target.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            write(tmp)
            self.check(rel)
            os.replace(tmp, target)
        finally:
            if _lstat(tmp) is not None:
                tmp.unlink()
        self.add([rel])
        return target

    def temp_dir(self) -> Path:
        """An empty temporary directory to build the output in: a sibling of a directory that
        does not exist yet (renamed into place at the end), else inside it (same file system as
        the files it will replace)."""
        if self.existed:
            remove_stale_temporaries(self.path / _INSIDE)
            return make_temp_dir(self.path / _INSIDE)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(self.path)
        return make_temp_dir(self.path)


def _resolve(directory: str | os.PathLike[str], shown: str) -> Path:
    """``directory`` as an absolute path without symbolic links (as ``Path.resolve``); a link
    to a directory is followed (the output goes where it points), one to anything else (or to
    nothing) is refused."""
    p = Path(os.path.abspath(directory))
    st = _lstat(p)
    if st is not None and stat.S_ISLNK(st.st_mode) and not p.is_dir():
        raise _refuse(shown, "output path exists and is not a directory")
    return Path(os.path.realpath(p))


def claim(
    directory: str | os.PathLike[str],
    command: str,
    *,
    force: bool = False,
    accept: Iterable[str] = (),
    writes: Iterable[str] = (),
) -> OutputDir:
    """Check that ``directory`` may take the output of ``command`` (see the module docstring)
    and that each top-level name in ``writes`` is absent or atmsim's there; returns the claim.
    ``accept``: other commands whose directories this one adds to (``plot`` adds to ``run``)."""
    shown = os.fspath(directory)
    path = _resolve(directory, shown)
    st = _lstat(path)
    if st is None:
        out = OutputDir(path, command, shown, existed=False)
    elif not stat.S_ISDIR(st.st_mode):
        raise _refuse(shown, "output path exists and is not a directory")
    else:
        out = _claim_existing(path, command, shown, force, tuple(accept))
    for name in writes:
        out.check(name)
    return out


def _claim_existing(path: Path, command: str, shown: str, force: bool, accept: tuple[str, ...]) -> OutputDir:
    marker = read_marker(path)
    noun = NOUNS.get(command, f"an output directory of 'atmsim {command}'")
    if marker is not None:
        if marker["command"] != command and marker["command"] not in accept:
            raise _refuse(shown, f"holds the output of 'atmsim {marker['command']}', not {noun}; choose another output directory")
        return OutputDir(path, command, shown, existed=True, ours=set(marker["files"]))
    try:
        entries = sorted(e for e in os.listdir(path) if not _is_temporary(e))
    except OSError as e:
        raise _refuse(shown, f"cannot read the output directory: {e.strerror or e}") from None
    if entries and not force:
        raise _refuse(
            shown,
            f"is not empty and is not {noun} written by atmsim (it holds {entries[0]!r} and no {MARKER}); "
            "choose another output directory, or add --force (force=True in Python) to write beside its files "
            "(atmsim replaces only files it wrote)",
        )
    return OutputDir(path, command, shown, existed=True)


def _tree(root: Path) -> list[str]:
    """The relative paths under ``root`` (directories with a trailing ``/``, parents first)."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        for d in sorted(dirnames):
            p = (rel / d).as_posix()
            if os.path.islink(os.path.join(dirpath, d)):
                out.append(p)  # a link is installed as a file
            else:
                out.append(p + "/")
        out.extend((rel / f).as_posix() for f in sorted(filenames))
    return out


def install(out: OutputDir, built: Path, scope: Iterable[str] | None = None) -> None:
    """Put what ``built`` holds at ``out`` and remove ``built``. A directory that did not exist
    is ``built`` renamed into place; into an existing one each file is moved to its place
    (``OutputDir.check`` first, for all of them: a refusal leaves everything as it was), then the
    files of atmsim's earlier output that this one does not have are removed (only those whose
    top-level name is in ``scope``, when given), all with SIGINT / SIGTERM deferred."""
    new = _tree(built)
    if not out.existed:
        if _lstat(out.path) is None:
            _write_marker(built, out.command, new)
            try:
                swap_into_place(built, out.path)
                out.ours = set(new)
                return
            except (ScenarioError, OSError):
                # another writer (a thread of this process, another process) put it there
                # between the look and the rename: go on as below; anything else is raised
                if _lstat(out.path) is None:
                    raise
        # it appeared while the output was built: claimed as any existing directory (no force)
        again = _claim_existing(_resolve(out.path, out.shown), out.command, out.shown, False, ())
        out.existed, out.ours = True, again.ours
    out.check_marker()
    for rel in new:
        out.check(rel)
    top = None if scope is None else set(scope)
    stale = [r for r in out.ours if r not in new and (top is None or r.split("/", 1)[0].rstrip("/") in top)]
    with signals_deferred():
        _write_marker(out.path, out.command, out.ours | set(new))  # what is about to be there is listed first
        for rel in new:
            if rel.endswith("/"):
                (out.path / rel).mkdir(exist_ok=True)
            else:
                os.replace(built / rel, out.path / rel)
        gone = _remove_stale(out, stale)
        out.ours = (out.ours | set(new)) - gone
        _write_marker(out.path, out.command, out.ours)
        shutil.rmtree(built, ignore_errors=True)


def _remove_stale(out: OutputDir, stale: list[str]) -> set[str]:
    """Remove the files of ``stale`` that are still atmsim's to remove (a regular file or a link
    of ours pointing inside, under real directories), then the directories left empty."""
    gone: set[str] = set()
    for rel in sorted(stale, key=lambda r: (r.endswith("/"), -r.count("/"))):
        try:
            out.check(rel)
        except ScenarioError:
            continue  # no longer atmsim's to touch: left alone (and listed no more)
        target = out.path / rel.rstrip("/")
        st = _lstat(target)
        with contextlib.suppress(OSError):
            if st is None:
                pass
            elif rel.endswith("/"):
                os.rmdir(target)  # only when empty
            else:
                os.unlink(target)
        if _lstat(target) is None:
            gone.add(rel)
    return gone


def replace_file(path: str | os.PathLike[str], write: Callable[[Path], None], ours: Callable[[Path], bool]) -> Path:
    """Write one file at ``path`` (``write(tmp)`` into a temporary sibling, then a rename). An
    existing ``path`` is replaced only if it is a regular file that its directory's marker lists
    or that ``ours(path)`` recognises (atmsim's signature in it); then the marker, if the
    directory has one, lists it."""
    target = Path(path)
    shown = os.fspath(path)
    st = _lstat(target)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise _refuse(shown, f"is {_kind(st.st_mode)}, not a file atmsim wrote; atmsim does not replace it: choose another file")
    parent = target.parent
    marker = read_marker(parent)
    if st is not None and not ((marker is not None and target.name in marker["files"]) or ours(target)):
        raise _refuse(shown, "exists and was not written by atmsim (atmsim never replaces a file it did not write); choose another file or move it away")
    tmp = parent / f".{target.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        if _lstat(tmp) is not None:
            tmp.unlink()
    if marker is not None and target.name not in marker["files"]:
        out = OutputDir(parent, marker["command"], os.fspath(parent), existed=True, ours=set(marker["files"]))
        out.add([target.name])
    return target


def file_head_holds(path: Path, signatures: Iterable[bytes], size: int = 4096) -> bool:
    """Whether the first ``size`` bytes of the regular file ``path`` hold one of ``signatures``."""
    try:
        with open(path, "rb") as f:
            head = f.read(size)
    except OSError:
        return False
    return any(s in head for s in signatures)


# --------------------------------------------------------------------- temporaries and signals


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` may still exist (what is not ours to judge counts as alive)."""
    if pid <= 0:
        return True  # not ours to judge
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, another user's
    except OSError:
        return True
    return True


def remove_stale_temporaries(target: str | os.PathLike[str]) -> list[Path]:
    """Remove the ``.NAME.tmp-<pid>-*`` / ``.NAME.old-<pid>-*`` siblings of ``target`` whose
    process no longer exists (left by a run killed with SIGKILL). Those of live processes, this
    one included, and names without a pid are kept. Returns what was removed."""
    target = Path(target)
    parent = target.parent if str(target.parent) else Path(".")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        m = _TEMP_RE.fullmatch(entry.name)
        if not m or m.group("name") != target.name:
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        pid = int(m.group("pid"))
        if pid == os.getpid() or pid_alive(pid):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


def make_temp_dir(target: str | os.PathLike[str], kind: str = "tmp") -> Path:
    """Create the empty sibling ``.NAME.<kind>-<pid>-<random>`` of ``target`` with the usual
    permissions (``os.mkdir``: 0777 minus the umask; ``tempfile.mkdtemp`` would give 0700)."""
    target = Path(target)
    parent = target.parent if str(target.parent) else Path(".")
    for _ in range(100):
        path = parent / f".{target.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            os.mkdir(path, 0o777)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"cannot create a temporary directory next to {target}")


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # no /proc: read it by setting it (and put it back at once)
    os.umask(mask)
    return mask


_DEFERRED = (signal.SIGINT, getattr(signal, "SIGTERM", signal.SIGINT))


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM arriving inside the block are delivered when it ends (to the handlers
    in place before it), so a short critical step (swapping directories, removing a temporary
    one) is never cut in half. Only the main thread can do this; elsewhere it is a no-op.
    Signals that are ignored stay ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def record(signum: int, frame: Any) -> None:
        pending.append(signum)

    saved: dict[int, Any] = {}
    try:
        for sig in dict.fromkeys(_DEFERRED):
            previous = signal.getsignal(sig)
            if previous in (signal.SIG_IGN, None):
                continue
            saved[sig] = signal.signal(sig, record)
        yield
    finally:
        for sig, previous in saved.items():
            signal.signal(sig, previous)
        for sig in dict.fromkeys(pending):
            signal.raise_signal(sig)


def swap_into_place(new: Path, target: Path) -> None:
    """Put the complete directory ``new`` at ``target``, which must not exist (an existing
    directory is never replaced whole: ``install`` moves files into it), with the usual
    permissions and signals deferred."""
    with signals_deferred():
        os.chmod(new, 0o777 & ~_umask())
        remove_stale_temporaries(target)
        if _lstat(Path(target)) is not None:
            raise _refuse(str(target), "appeared while the output was written; nothing replaced")
        os.rename(new, target)
