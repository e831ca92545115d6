"""The readers of a library: their rows (made on a first write), lookups and counts.

A shared library (a lab on one PostgreSQL database) has several readers; each has
their own status, priority, status history and undo (written only by :mod:`.marks`),
and their own private notes. A personal library has one implicit reader,
:data:`readinglist.decided.DEFAULT_READER`, so it works as before with no setting. The
current reader and the SQL expressions of decisions are :mod:`readinglist.decided`'s.
Core only: importing this module imports no ORM.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, func, select

from readinglist.bounds import check_reader_name
from readinglist.decided import CURRENT_ID, DEFAULT_READER, current, fold, id_of, note_created
from readinglist.errors import NotFound, UsageError
from readinglist.library._sql import insert_or_ignore
from readinglist.tables import DECISIONS, READERS, Executor, utcnow


def find(session: Executor, name: str | None = None) -> int | None:
    """The id of the reader ``name`` (None: the current one), None when it has no row.

    A row whose stored fold is older than :func:`~readinglist.decided.fold`'s NFKC (a
    full-width ``Ａｎａ`` stored as ``ａｎａ``) is its look-alike's reader too; raises
    UsageError (exit 2) naming them when several rows are look-alikes of ``name``."""
    folded = fold(current() if name is None else name)
    found = session.execute(select(READERS.c.id).where(READERS.c.name_folded == folded))
    value = found.scalar()
    if value is not None:
        return int(value)
    alike = [
        (int(row.id), str(row.name))
        for row in session.execute(select(READERS.c.id, READERS.c.name))
        if fold(row.name) == folded
    ]
    if len(alike) > 1:
        listed = ", ".join(repr(n) for _, n in sorted(alike, key=lambda pair: pair[1]))
        raise UsageError(
            f"reader {name or current()!r} looks like several readers of this library "
            f"({listed}: the same name up to case, width or Unicode compatibility forms, "
            "which are one reader); refused: which of them is meant is unclear"
        )
    return alike[0][0] if alike else None


def names(session: Executor) -> list[str]:
    """Every reader's name, case-insensitively sorted."""
    return list(session.scalars(select(READERS.c.name).order_by(READERS.c.name_folded)))


def require(session: Executor, name: str | None = None) -> str:
    """Return the reader ``name`` (None: the current one) as stored; raise NotFound (exit 3)
    naming the known readers when it has no row. The implicit :data:`DEFAULT_READER`
    always exists: a personal library reads as before even with no decision yet."""
    wanted = current() if name is None else check_reader_name(name)
    row = session.execute(
        select(READERS.c.name).where(READERS.c.name_folded == fold(wanted))
    ).first()
    if row is not None:
        return str(row[0])
    if fold(wanted) == fold(DEFAULT_READER):
        return DEFAULT_READER
    known = names(session)
    listed = ", ".join(known) if known else "none yet"
    raise NotFound(
        f"no reader {wanted!r} in this library (readers: {listed}); "
        "a reader is created by their first decision"
    )


def ensure(session: Executor, name: str | None = None) -> int:
    """Return the id of the reader ``name`` (None: the current one), creating its row when
    it has none (recorded for :func:`created`, except the implicit default reader, whose
    row a personal library makes silently). Safe when two runs create the same reader at
    once: ``INSERT ... ON CONFLICT DO NOTHING`` (SQLite and PostgreSQL), then read back."""
    wanted = current() if name is None else check_reader_name(name)
    found = find(session, wanted)
    if found is not None:
        return found
    session.execute(
        insert_or_ignore(session, READERS).values(
            name=wanted, name_folded=fold(wanted), created_at=utcnow()
        )
    )
    made = find(session, wanted)
    if made is None:  # pragma: no cover - the insert or a concurrent one made it
        raise NotFound(f"reader {wanted!r} could not be created")
    if fold(wanted) != fold(DEFAULT_READER):
        note_created(wanted)
    return made


def count(session: Executor) -> int:
    """How many readers have a row."""
    return int(session.execute(select(func.count()).select_from(READERS)).scalar_one())


_STATES = select(
    DECISIONS.c.paper_id, DECISIONS.c.status, DECISIONS.c.priority, DECISIONS.c.read_at
).where(
    DECISIONS.c.reader_id == CURRENT_ID,
    DECISIONS.c.paper_id.in_(bindparam("ids", expanding=True)),
)


def states(
    session: Executor, ids: Sequence[int], reader: str | None = None
) -> dict[int, tuple[str, int | None, Any]]:
    """``paper id -> (status, priority code, read_at)`` of the papers ``ids`` for ``reader``
    (None: the current one); papers with no row are missing (new, no priority)."""
    stmt = _STATES
    if reader is not None:
        stmt = (
            select(
                DECISIONS.c.paper_id, DECISIONS.c.status, DECISIONS.c.priority, DECISIONS.c.read_at
            )
            .where(DECISIONS.c.reader_id == id_of(reader))
            .where(DECISIONS.c.paper_id.in_(bindparam("ids", expanding=True)))
        )
    found: dict[int, tuple[str, int | None, Any]] = {}
    for start in range(0, len(ids), 1000):
        part = list(ids[start : start + 1000])
        for pid, status, priority, read_at in session.execute(stmt, {"ids": part}):
            found[int(pid)] = (str(status), priority, read_at)
    return found


def status_of(session: Executor, ids: Sequence[int], reader: str | None = None) -> dict[int, str]:
    """``paper id -> status`` for every paper of ``ids`` for ``reader`` (``new`` without a row)."""
    found = states(session, ids, reader)
    return {pid: found[pid][0] if pid in found else "new" for pid in ids}


def priority_of(
    session: Executor, ids: Sequence[int], reader: str | None = None
) -> dict[int, int | None]:
    """``paper id -> priority code or None`` for every paper of ``ids`` for ``reader``."""
    found = states(session, ids, reader)
    return {pid: found[pid][1] if pid in found else None for pid in ids}


def reader_counts(session: Executor) -> list[dict[str, Any]]:
    """Each reader with their counts, by folded name: ``{"reader", "created", "decided",
    "to-read", "reading", "read", "skipped"}``; ``decided`` counts the papers whose status
    is not ``new``."""
    rows = session.execute(
        select(READERS.c.id, READERS.c.name, READERS.c.created_at).order_by(READERS.c.name_folded)
    ).all()
    counts: dict[int, dict[str, int]] = {}
    for rid, status, n in session.execute(
        select(DECISIONS.c.reader_id, DECISIONS.c.status, func.count()).group_by(
            DECISIONS.c.reader_id, DECISIONS.c.status
        )
    ):
        counts.setdefault(int(rid), {})[str(status)] = int(n)
    result = []
    for rid, name, created_at in rows:
        mine = counts.get(int(rid), {})
        entry: dict[str, Any] = {"reader": name, "created": created_at}
        entry["decided"] = sum(n for status, n in mine.items() if status != "new")
        for status in ("to-read", "reading", "read", "skipped"):
            entry[status] = mine.get(status, 0)
        result.append(entry)
    return result
