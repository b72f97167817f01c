"""Logging: atmsim's messages on stderr go through the standard ``logging`` module, under the
logger ``atmsim`` (``atmsim.study``, ``atmsim.reproduce``, ...).

As a library, atmsim only adds a ``NullHandler`` (the package's ``__init__``): an application
configures logging as it likes, e.g. ``logging.basicConfig(level=logging.DEBUG)``. The command
line (``setup``) sends the ``atmsim`` logger to stderr as ``atmsim: message`` lines, at INFO by
default (what a command says while it works, such as a reproduction's line per finished run),
WARNING with ``-q`` and DEBUG with ``-v`` (``-vv`` adds the libraries atmsim uses, such as Dask).
``-v`` and ``-q`` are taken before the command (``atmsim -v run ...``) or after it
(``atmsim run ... -v``): ``verbosity_options`` gives them to every command. A command's own
``--quiet`` (``run``, ``sweep``, ``reproduce``: no progress bar and no table) also quiets the
log.
"""

from __future__ import annotations

import logging
from typing import Any

import click

__all__ = ["LOGGER", "setup", "verbosity_options", "level"]

LOGGER = "atmsim"

#: what -v and -q said so far in this invocation
_state = {"verbose": 0, "quiet": False}


class _ClickHandler(logging.Handler):
    """Writes through ``click.echo(err=True)``: stderr as it is at the time (a test's capture
    included), never a stream kept from when the handler was made."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
            click.echo(text, err=True)
        except Exception:  # pragma: no cover - logging must never raise
            self.handleError(record)


class _Format(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        msg = record.getMessage()
        if record.levelno >= logging.WARNING:
            return f"atmsim: {record.levelname.lower()}: {msg}"
        if record.levelno <= logging.DEBUG:
            return f"atmsim: [{record.name}] {msg}"
        return msg


_handler: logging.Handler | None = None


def level() -> int:
    """The level -v / -q ask for."""
    if _state["quiet"]:
        return logging.WARNING
    return logging.DEBUG if _state["verbose"] else logging.INFO


def _apply() -> None:
    logger = logging.getLogger(LOGGER)
    logger.setLevel(level())
    if _state["verbose"] >= 2 and not _state["quiet"]:
        for name in ("distributed", "dask"):
            logging.getLogger(name).setLevel(logging.INFO)


def setup() -> None:
    """At the start of every command-line invocation: the handler on the ``atmsim`` logger (once),
    -v / -q forgotten, INFO."""
    global _handler
    logger = logging.getLogger(LOGGER)
    if _handler is None:
        _handler = _ClickHandler()
        _handler.setFormatter(_Format())
        logger.addHandler(_handler)
        logger.propagate = False
    _state.update(verbose=0, quiet=False)
    _apply()


def _verbose(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if value:
        _state["verbose"] += int(value)
        _apply()
    return value


def _quiet(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if value:
        _state["quiet"] = True
        _apply()
    return value


def _chain(first: Any, then: Any) -> Any:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        value = first(ctx, param, value) if first is not None else value
        return then(ctx, param, value)

    return callback


def _commands(group: click.Group) -> list[click.Command]:
    out: list[click.Command] = [group]
    for cmd in group.commands.values():
        out += _commands(cmd) if isinstance(cmd, click.Group) else [cmd]
    return out


def verbosity_options(group: click.Group) -> None:
    """``-v/--verbose`` (repeatable) and ``-q/--quiet`` for ``group`` and every command under it;
    a command that has its own ``--quiet`` keeps it (and its meaning), which now quiets the log
    too."""
    for cmd in _commands(group):
        opts = {o for p in cmd.params for o in p.opts}
        if "--verbose" not in opts and "-v" not in opts:
            cmd.params.append(click.Option(
                ["-v", "--verbose"], count=True, expose_value=False, callback=_verbose,
                help="More detail on stderr; -vv also the libraries' (Dask).",
            ))
        quiet = next((p for p in cmd.params if "--quiet" in p.opts), None)
        if quiet is None:
            cmd.params.append(click.Option(
                ["-q", "--quiet"], is_flag=True, expose_value=False, callback=_quiet,
                help="Only warnings and errors on stderr.",
            ))
        elif getattr(quiet, "_atmsim_log", False) is False:
            quiet.callback = _chain(quiet.callback, _quiet)
            quiet._atmsim_log = True  # type: ignore[attr-defined]
