"""Counting a library for ``readinglist stats``: the rules, and a read without SQLAlchemy.

:func:`tally` is the one home of what ``stats`` counts and how (papers by status and
priority, tags by use, papers read per month); ``library.paper_stats`` feeds it the
rows of its Core queries (a query's papers, or PostgreSQL), :func:`sqlite_stats` the
same rows read with the standard library's ``sqlite3``.

Why a second reader: ``stats`` of a whole library runs a few aggregate queries (~0.1 s
on 100,000 papers), while importing SQLAlchemy and our ORM models costs ~0.45 s CPU
(issue 17: 3x the stdlib floor, the counting itself a fraction). :func:`sqlite_stats`
opens an SQLite library read-only and answers only when it is at the schema revision
this code knows (:data:`readinglist.schema.HEAD`); for anything else (another
revision, no such file, a lock, a damaged file) it returns None and the command takes
its usual path, which upgrades the library or refuses it as every command does.
``tests/test_stats.py`` runs the same expectations through both readers.
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from readinglist.lookup import sqlite_uri
from readinglist.records import PRIORITY_LEVELS, PRIORITY_NAMES, STATUSES, WANTED_STATUSES
from readinglist.schema import HEAD

#: The statements :func:`sqlite_stats` runs (a whole library), in :func:`tally`'s
#: order of arguments: the same as ``library.paper_stats``'s Core queries without a
#: selection of papers.
#: Each names the reader by ``:reader``, the folded name (``readers.name_folded``):
#: a reader with no row reads every paper as new.
_READER = "(SELECT id FROM readers WHERE name_folded = :reader)"
SQLITE_QUERIES = (
    "SELECT coalesce(d.status, 'new'), count(*) FROM papers p LEFT JOIN decisions d "
    f"ON d.paper_id = p.id AND d.reader_id = {_READER} GROUP BY coalesce(d.status, 'new')",
    "SELECT d.priority, count(*) FROM papers p LEFT JOIN decisions d "
    f"ON d.paper_id = p.id AND d.reader_id = {_READER} GROUP BY d.priority",
    f"SELECT paper_id, read_at FROM decisions WHERE reader_id = {_READER} AND read_at IS NOT NULL",
    "SELECT tags.name, count(*) FROM tags JOIN paper_tags ON paper_tags.tag_id = tags.id "
    "GROUP BY tags.id, tags.name",
    f"SELECT paper_id, at FROM status_events WHERE to_status = 'read' AND reader_id = {_READER} "
    "AND undoes IS NULL AND id NOT IN "
    "(SELECT undoes FROM status_events WHERE undoes IS NOT NULL)",
)

#: The stopping aid of screening (what ASReview LAB and Rayyan users watch): the papers
#: now skipped whose last skip came after the newest change to a wanted status
#: (to-read, reading, read) that is not an undo nor undone (migration 0006). Plain SQL
#: that SQLite and PostgreSQL both run, for :func:`sqlite_stats` and
#: ``library.paper_stats`` alike (the whole library, whatever the query).
#: Of the reader ``:reader`` (their decisions and history only).
SKIPPED_SINCE_WANTED = (
    "SELECT count(DISTINCT e.paper_id) FROM status_events e JOIN decisions p "
    "ON p.paper_id = e.paper_id AND p.reader_id = e.reader_id "
    f"WHERE e.reader_id = {_READER} AND e.to_status = 'skipped' AND p.status = 'skipped' "
    "AND e.undoes IS NULL "
    "AND e.id > coalesce((SELECT max(w.id) FROM status_events w "
    f"WHERE w.reader_id = {_READER} "
    f"AND w.to_status IN ({', '.join(repr(s) for s in WANTED_STATUSES)}) "
    "AND w.undoes IS NULL "
    "AND NOT EXISTS (SELECT 1 FROM status_events u WHERE u.undoes = w.id)), 0)"
)
#: (Read from the history's side: the skips after the last wanted change, each paper
#: once, whose decision is still skipped; an undo back to skipped is no new skip. The same count as "skipped papers whose last
#: skip is newer", without a look-up of every skipped paper's history: a cost of the
#: skips since the last wanted paper, not of all the reader's decisions.)


def _month(moment: datetime | str) -> str:
    """``YYYY-MM`` of a stored time: a datetime (SQLAlchemy) or SQLite's text of one
    (``YYYY-MM-DD HH:MM:SS[.ffffff]``, UTC, as SQLAlchemy stores it)."""
    return moment[:7] if isinstance(moment, str) else moment.strftime("%Y-%m")


def tally(
    status_counts: Iterable[tuple[str, int]],
    priority_counts: Iterable[tuple[int | None, int]],
    read_at: Iterable[tuple[int, datetime | str]],
    tag_counts: Iterable[tuple[str, int]],
    read_events: Iterable[tuple[int, datetime | str]],
    skipped_since_wanted: int = 0,
) -> dict[str, Any]:
    """Return ``stats``'s counts from the rows of its queries (each iterable may come in
    several chunks: counts of one value are added up).

    Inputs: ``(status, n)``, ``(priority code or None, n)`` (``records.PRIORITY_CODES``), ``(paper id, read_at)`` of the papers with a read time,
    ``(tag name, n)``, ``(paper id, at)`` of the status changes to ``read``, and the
    count of :data:`SKIPPED_SINCE_WANTED` (returned as ``skipped_since_wanted``).
    Returns ``{"papers": n, "status": {status: n} (every status of records.STATUSES,
    in that order), "priority": {"high"|"medium"|"low"|"none": n}, "tags": [(name,
    n)] (most used first, then by name), "read_per_month": [("YYYY-MM", n)] (oldest
    first)}``. A paper counts as read in every month (UTC) in which its status
    history moved it to ``read``; a paper marked read without history (imported so)
    counts in the month of its ``read_at``. Never raises for well-formed rows.
    """
    status: Counter[str] = Counter()
    for name, count in status_counts:
        status[name] += count
    priority: Counter[str] = Counter()
    for code, count in priority_counts:
        priority[PRIORITY_NAMES.get(code, "none") if code is not None else "none"] += count
    tags: Counter[str] = Counter()
    for tag, count in tag_counts:
        tags[str(tag)] += count
    months: dict[str, set[int]] = defaultdict(set)
    with_events: set[int] = set()
    for pid, at in read_events:
        with_events.add(int(pid))
        months[_month(at)].add(int(pid))
    for pid, when in read_at:
        if int(pid) not in with_events:
            months[_month(when)].add(int(pid))
    return {
        "papers": sum(status.values()),
        "status": {name: status.get(name, 0) for name in STATUSES},
        "priority": {name: priority.get(name, 0) for name in PRIORITY_LEVELS},
        "tags": sorted(tags.items(), key=lambda item: (-item[1], item[0].lower(), item[0])),
        "read_per_month": [(month, len(months[month])) for month in sorted(months)],
        "skipped_since_wanted": int(skipped_since_wanted),
    }


def sqlite_stats(path: Path, reader: str) -> dict[str, Any] | None:
    """:func:`tally` of the whole SQLite library at ``path`` for the reader whose folded
    name is ``reader``, read with the standard library (read-only, one snapshot); None
    when ``path`` is no file, or not a library at :data:`~readinglist.schema.HEAD`, or
    cannot be read now, or names a reader the library does not have (the caller then
    counts through ``library.paper_stats``, whose session upgrades, refuses or waits, or
    says which readers there are)."""
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(sqlite_uri(str(path.resolve())), uri=True, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        conn.execute("BEGIN")  # one snapshot for every query
        revisions = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        if revisions != [(HEAD,)]:
            return None
        known = conn.execute("SELECT 1 FROM readers WHERE name_folded = ?", (reader,)).fetchone()
        if known is None and reader != "default":  # the usual path names the readers (exit 3)
            return None
        status, priority, read_at, tags, read_events = (
            conn.execute(sql, {"reader": reader}).fetchall() for sql in SQLITE_QUERIES
        )
        since = int(conn.execute(SKIPPED_SINCE_WANTED, {"reader": reader}).fetchone()[0])
        return tally(status, priority, read_at, tags, read_events, since)
    except sqlite3.Error:
        return None
    finally:
        conn.close()
