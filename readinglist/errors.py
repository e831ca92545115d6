"""Errors a user can act on, each with the process exit code it maps to.

Library code raises these and never prints or exits; ``readinglist.cli`` turns
them into ``Error: <message>`` on stderr and the exit code (ARCHITECTURE.md,
"Conventions / Errors"). This module imports nothing of the package.
"""

from __future__ import annotations

from typing import ClassVar


class ReadingListError(Exception):
    """Base class for errors the user can act on; ``str(self)`` is the message (exit 1)."""

    exit_code: ClassVar[int] = 1


class UsageError(ReadingListError):
    """Raised for a bad option combination or an operation refused in this context (exit 2)."""

    exit_code = 2


class InvalidQuery(UsageError):
    """Raised when a query string cannot be parsed; the message quotes the query (exit 2)."""

    def __init__(self, query: str, reason: str) -> None:
        self.query = query
        self.reason = reason
        shown = query if len(query) <= 200 else query[:200] + "…"
        super().__init__(f"invalid query {shown!r}: {reason}")


class NotFound(ReadingListError):
    """Raised when a citation key, alias, tag, note id or batch id does not exist (exit 3)."""

    exit_code = 3


class Conflict(ReadingListError):
    """Raised when an edit would collide with existing data, e.g. a key in use (exit 4)."""

    exit_code = 4


class InvalidInput(ReadingListError):
    """Raised for unreadable, binary, empty or malformed input data (exit 5).

    ``source`` names the file (or ``<stdin>``) and ``line`` the 1-based line, when known.
    """

    exit_code = 5

    def __init__(self, message: str, source: str | None = None, line: int | None = None) -> None:
        self.source = source
        self.line = line
        where = ""
        if source is not None:
            where = f"{source}:{line}: " if line is not None else f"{source}: "
        super().__init__(f"{where}{message}")


def input_error(exc: OSError, source: str, kind: str = "file") -> InvalidInput:
    """Return the InvalidInput (exit 5) for ``exc``, raised opening or reading ``source``:
    ``no such file``, ``is a directory, not a <kind>`` or ``cannot read the file
    (<strerror>)``."""
    if isinstance(exc, FileNotFoundError):
        return InvalidInput("no such file", source)
    if isinstance(exc, IsADirectoryError):
        return InvalidInput(f"is a directory, not a {kind}", source)
    return InvalidInput(f"cannot read the file ({exc.strerror})", source)


class DatabaseError(ReadingListError):
    """Raised for an unknown or newer schema revision, a failed check or an unreachable server (exit 6)."""

    exit_code = 6


class SourceUnavailable(ReadingListError):
    """Raised when an online source cannot be reached, times out, or answers an error or
    data it cannot read (``resolve --online``); nothing is changed (exit 6, the
    database/network class)."""

    exit_code = 6
