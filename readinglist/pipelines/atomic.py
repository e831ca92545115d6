"""The atomic file writer: a temporary file in the same directory, then ``os.replace``.

ARCHITECTURE.md "Transactions": exports go to a temporary file, then ``os.replace``,
so a failed or killed export leaves an existing file as it was.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def open_atomically(path: Path) -> Iterator[TextIO]:
    """Yield a UTF-8 text file (LF line ends) that replaces ``path`` when the block ends
    without error.

    The text goes to a temporary file in the same directory, is flushed to disk, then
    renamed over ``path`` (``os.replace``); on any error the temporary file is removed
    and an existing ``path`` is left as it was. The new file gets the mode a new file
    would get (or the mode of the file it replaces). A symbolic link is followed to the
    file it names; a FIFO or a device (not a regular file) is written to directly,
    since renaming over it would replace it. Raises OSError.
    """
    path = Path(os.path.realpath(path.expanduser()))
    try:
        kind = path.stat().st_mode
    except FileNotFoundError:
        kind = stat.S_IFREG
    if not stat.S_ISREG(kind):
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            yield stream
        return
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
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


def _mode_for(path: Path) -> int:
    """The permission bits of ``path`` if it exists, else those a new file gets (umask)."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
