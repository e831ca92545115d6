"""The atomic file writer: a temporary file in the same directory, then ``os.replace``.

ARCHITECTURE.md "Transactions": exports go to a temporary file, then ``os.replace``,
so a failed or killed export leaves an existing file as it was.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from readinglist.text import counted

#: Signals that end an export cleanly (the temporary file removed) while it writes.
CLEANUP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
#: A temporary file not written to for this long is stale, whatever its process id says.
STALE_SECONDS = 3600


@contextmanager
def open_atomically(path: Path, removed: list[Path] | None = None) -> Iterator[TextIO]:
    """Yield a UTF-8 text file (LF line ends) that replaces ``path`` when the block ends
    without error.

    The text goes to a temporary file in the same directory, is flushed to disk, then
    renamed over ``path`` (``os.replace``); on any error the temporary file is removed
    and an existing ``path`` is left as it was. The new file gets the mode a new file
    would get (or the mode of the file it replaces). A symbolic link is followed to the
    file it names; a FIFO or a device (not a regular file) is written to directly,
    since renaming over it would replace it. Raises OSError.

    Leftovers (issue 18): the temporary file is ``.NAME.PID.XXXX.tmp``; SIGTERM and
    SIGHUP during the write remove it (then exit 128+signal), and one left by a
    process that no longer exists (killed with SIGKILL), or not written to for
    :data:`STALE_SECONDS` (its process id since taken by another process), is removed by
    the next write of the same file (:func:`remove_stale`); those removed are added to
    ``removed`` when given, so the caller can say so (:func:`stale_message`).
    """
    given = path.expanduser()
    try:
        kind = given.stat().st_mode  # through links: /dev/stdout is a link to a pipe
    except FileNotFoundError:
        kind = stat.S_IFREG
    if not stat.S_ISREG(kind):  # opened as given: /dev/stdout's real path is no file name
        with open(given, "w", encoding="utf-8", newline="\n") as stream:
            yield stream
        return
    path = Path(os.path.realpath(given))
    directory = path.parent if str(path.parent) else Path(".")
    stale = remove_stale(directory, path.name)
    if removed is not None:
        removed.extend(stale)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=directory)
    previous = _exit_on_signals()
    try:
        os.chmod(tmp, _mode_for(path))  # mkstemp creates 0600
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def stale_message(removed: list[Path]) -> str:
    """What a write says of the leftovers :func:`remove_stale` removed (one line)."""
    names = ", ".join(path.name for path in removed[:3]) + (", ..." if len(removed) > 3 else "")
    count = counted(len(removed), "temporary file")
    return f"removed {count} left by an interrupted write (killed?): {names}"


#: The middle of a temporary file's name of :func:`open_atomically` (``PID.XXXXXXXX``,
#: ``tempfile.mkstemp``'s random characters, no dot) or of an older write without the
#: process id: nothing else, so the temporary file of another name that starts alike
#: (``refs.999`` beside ``refs``) is never taken for one of ours.
_OWN_MIDDLE = re.compile(r"(?:(?P<pid>[0-9]+)\.)?[a-z0-9_]+")


def remove_stale(directory: Path, name: str) -> list[Path]:
    """Remove the temporary files of earlier writes of ``name`` in ``directory``
    (``.NAME.PID.XXXX.tmp``, :func:`open_atomically`'s names) whose process is gone or
    that were not written to for :data:`STALE_SECONDS` (a live writer keeps its file's
    mtime fresh; an old one's process id may have been reused), and those without a
    process id older than that; return them. Errors are ignored (it is tidying)."""
    removed: list[Path] = []
    prefix = f".{name}."
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
            continue
        own = _OWN_MIDDLE.fullmatch(entry.name[len(prefix) : -len(".tmp")])
        if own is None:  # another file's (``.refs.999.PID.XXXX.tmp`` of refs.999)
            continue
        pid = own.group("pid")
        try:
            fresh = time.time() - entry.stat().st_mtime < STALE_SECONDS
            if pid is not None:
                if fresh and _alive(int(pid)):
                    continue
            elif fresh:
                continue
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _exit_on_signals() -> dict[int, Any]:
    """Make SIGTERM and SIGHUP raise SystemExit (so the temporary file is removed);
    return the handlers to restore. Only the main thread may set handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    previous: dict[int, Any] = {}
    for signum in CLEANUP_SIGNALS:
        if signal.getsignal(signum) in (signal.SIG_DFL, None):
            previous[signum] = signal.signal(signum, stop)
    return previous


def _mode_for(path: Path) -> int:
    """The permission bits of ``path`` if it exists, else those a new file gets (umask)."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
