"""The layout rules our Markdown reading list shares between writing and reading it.

The first line of every list :mod:`readinglist.formats.markdown` writes is a marker, an
HTML comment (CommonMark 0.31.2 section 4.6: not rendered) naming the format, its version,
the grouping and the ``decided=`` stamp::

    <!-- readinglist:markdown v1 group-by=status decided=2026-12-06T10:00:00.000000Z -->

This module is the one home of that marker's syntax (:func:`marker_line` writes it,
:data:`MARKER_LINE` reads it), of the ``decided=`` time (:func:`decided_stamp`,
:func:`decided_time`) and of the status group headings both sides use. Stdlib only.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

__all__ = [
    "FORMAT_VERSION",
    "GROUP_BY",
    "MARKER",
    "MARKER_LINE",
    "STATUS_HEADINGS",
    "STATUS_ORDER",
    "as_utc",
    "decided_stamp",
    "decided_time",
    "is_readinglist_markdown",
    "marker_line",
]

#: Version of the list layout written in the marker line.
FORMAT_VERSION = 1
#: Start of the marker comment on the first line of every list we write.
MARKER = "<!-- readinglist:markdown"
#: Accepted values of ``write(group_by=...)``.
GROUP_BY: tuple[str, ...] = ("status", "tag", "venue", "year", "priority", "none")
#: Order of the status groups: the papers to act on first (triage order).
STATUS_ORDER: tuple[str, ...] = ("reading", "to-read", "new", "read", "skipped")
#: The level-2 heading of each status group (reading the list maps them back).
STATUS_HEADINGS = {
    "reading": "Reading",
    "to-read": "To read",
    "new": "New",
    "read": "Read",
    "skipped": "Skipped",
}
#: The marker line as :func:`marker_line` writes it (older lists lack ``decided=``).
MARKER_LINE = re.compile(
    r"^<!-- readinglist:markdown v(?P<version>\d+)(?: group-by=(?P<group>[a-z]+))?"
    r"(?: decided=(?P<decided>\S+?))?(?: reader=(?P<reader>[A-Za-z0-9][A-Za-z0-9._-]*))?"
    r" -->\s*$"
)


def marker_line(group_by: str, decided: str | None, reader: str | None = None) -> str:
    """The marker line (no newline) for a list grouped by ``group_by``, holding the
    decisions of ``reader`` (``reader=``; None: the implicit reader, left out), with the ``decided=``
    value ``decided`` (:func:`decided_stamp`; None leaves it out). Never raises."""
    stamp = f" decided={decided}" if decided else ""
    who = f" reader={reader}" if reader else ""
    return f"{MARKER} v{FORMAT_VERSION} group-by={group_by}{stamp}{who} -->"


def is_readinglist_markdown(text: str) -> bool:
    """True when ``text`` is a list written by :func:`readinglist.formats.markdown.write`: its first non-blank line is our marker.

    Input: the whole document (a leading BOM is ignored). Never raises.
    """
    for line in text.lstrip("\ufeff").split("\n", 20)[:20]:
        if line.strip():
            return line.strip().startswith(MARKER)
    return False


def decided_stamp(decided: datetime | None) -> str:
    """The marker's ``decided=`` value for the time of the library's newest read-status
    change: ISO 8601 in UTC to the microsecond with a ``Z`` (naive values are taken as
    UTC), or ``none`` when the library has no status change. :func:`decided_time` reads it."""
    if decided is None:
        return "none"
    return as_utc(decided).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def decided_time(stamp: str | None) -> datetime | None:
    """The time a ``decided=`` value (:func:`decided_stamp`) names, as an aware UTC datetime:
    every read-status change the library held when the list was written was made at or
    before it. ``none`` (no change then) gives the earliest time, so any change since is
    later; a time without microseconds is read too. None when there is no value (a list
    written before the marker carried one) or it is not such a time (:func:`readinglist.formats.markdown.read` warns):
    then stale and edited cannot be told apart. Never raises."""
    if not stamp:
        return None
    if stamp == "none":
        return datetime.min.replace(tzinfo=UTC)
    for layout in ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ"):
        try:
            return datetime.strptime(stamp, layout).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def as_utc(moment: datetime) -> datetime:
    """``moment`` in UTC: a naive value is taken as UTC, an aware one converted. Never raises."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
