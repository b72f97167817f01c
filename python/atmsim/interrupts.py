"""Interrupts that are not lost (issue 31 item 4).

The CLI handles SIGTERM like SIGINT by raising ``KeyboardInterrupt`` from its handler. Python
runs a handler between two bytecodes of the main thread, wherever that is: inside a finalizer
(``__del__``), a weakref or garbage-collector callback, whose exceptions Python prints as
"ignored" and drops, the interrupt would be lost and the command would run on (a 3000 s run:
``test_sigterm_during_run_writes_nothing`` once saw no exit within 120 s on a loaded machine).
So the handler also records the signal here (``request``), and the run loop
(``atmsim.api._run_slices``, between two calls into the core, every 50 ms at most) raises
again while one is pending (``raise_if_requested``). As a last resort a command that has not
ended ``GRACE_S`` seconds after the signal ends the process (``watchdog``): a process manager's
SIGTERM is always honoured.
"""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["request", "pending", "clear", "raise_if_requested", "watchdog", "GRACE_S"]

#: seconds a command has to end after SIGTERM before the process ends without its clean-up
GRACE_S = 60.0

_requested: list[int] = []
_timer: list[threading.Timer] = []


def request(signum: int) -> None:
    """Record that signal ``signum`` asked the command to stop."""
    _requested.append(signum)


def pending() -> bool:
    return bool(_requested)


def clear() -> None:
    """Forget recorded signals and stop the watchdog (a command's end)."""
    _requested.clear()
    while _timer:
        _timer.pop().cancel()


def raise_if_requested() -> None:
    """``KeyboardInterrupt`` while a recorded interrupt has not ended the command."""
    if _requested:
        raise KeyboardInterrupt()


def watchdog(prog: str, grace_s: float = GRACE_S) -> None:
    """Start (once) the timer that ends the process ``grace_s`` seconds from now, unless
    ``clear`` stops it first."""
    if _timer:
        return

    def expire() -> None:  # pragma: no cover - only when the clean-up itself hangs
        try:
            sys.stderr.write(f"{prog}: interrupted; the command did not end within {grace_s:g} s of the signal, "
                             "stopped without its clean-up\n")
            sys.stderr.flush()
        finally:
            os._exit(130)

    t = threading.Timer(grace_s, expire)
    t.daemon = True
    _timer.append(t)
    t.start()
