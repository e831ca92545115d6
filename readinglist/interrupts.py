"""Ctrl-C that reaches a transaction: a SIGINT Python dropped still stops the next commit.

Python's SIGINT handler raises KeyboardInterrupt in whatever Python code runs when the
signal is handled. When that is a finalizer or a weakref callback run by the garbage
collector, the exception cannot propagate: Python hands it to ``sys.unraisablehook``
(which prints "Exception ignored in: ...") and goes on (the data model's note on
``__del__``), so the command would commit what the user asked to stop (seen: an import
interrupted 0.2 s in added all of its 20,000 entries and exited 0). :func:`install`
makes the hook record such a KeyboardInterrupt instead of printing it, and every
transaction of :func:`.db_engine.make_engine`'s engines asks :func:`check` before it
commits: a recorded interrupt raises KeyboardInterrupt there, so the transaction is
rolled back and the command ends as one interrupted in time does. An interrupt delivered
normally is not recorded (it propagates by itself).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

_pending = False
_installed = False


def _on_unraisable(unraisable: Any, previous: Any) -> None:
    """``sys.unraisablehook``: record a dropped KeyboardInterrupt; hand the rest to
    ``previous`` (the hook set before :func:`install`)."""
    global _pending
    if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
        _pending = True
        return
    previous(unraisable)


def install() -> None:
    """Record the KeyboardInterrupts Python drops in this process (:func:`check`); the
    hook set before (Python's own by default) still reports every other exception."""
    global _installed
    if _installed:
        return
    previous = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: _on_unraisable(unraisable, previous)
    _installed = True


def check() -> None:
    """Raise KeyboardInterrupt when one was dropped since the last check (called before
    each commit), in the main thread only: Python runs signal handlers there, and an
    interrupt is the main thread's to act on (raised in another thread's transaction, a
    triage run's background fit, it ended that thread and the main thread went on to
    commit what the user asked to stop)."""
    global _pending
    if _pending and threading.current_thread() is threading.main_thread():
        _pending = False
        raise KeyboardInterrupt
