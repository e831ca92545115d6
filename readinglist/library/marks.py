"""Status and priority of papers, per reader: Core writes, the one home of their rules.

A decision is a row of ``decisions`` (paper, reader); every function here acts for
the current reader (:mod:`.readers`) unless given another (``reader``, a name), and
creates the reader's row on their first write (:func:`.readers.ensure`).

``mark`` and ``priority`` run these on a Core Connection (no ORM imported, no row
graph loaded; issue 17); ``library.papers.set_status``/``set_priority``, ``triage``
and an import run them in their Session. Each function takes an
:data:`~readinglist.tables.Executor` and never commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, func, insert, select, update

from readinglist import decided
from readinglist.decided import column as decision_column
from readinglist.errors import Conflict, NotFound, UsageError
from readinglist.library import readers
from readinglist.library._sql import CHUNK, upsert
from readinglist.records import PRIORITY_CODES, PRIORITY_LEVELS, STATUSES
from readinglist.tables import (
    DECISIONS,
    PAPERS,
    READERS,
    STATUS_EVENTS,
    Executor,
    utcnow,
)


def write_status(
    session: Executor,
    current: Mapping[int, str],
    status: str,
    *,
    at: datetime | None = None,
    undoes: Mapping[int, int] | None = None,
    reader: str | None = None,
) -> list[int]:
    """Set the read status of the papers ``current`` maps (paper id -> status now) to
    ``status``; return the ids that changed, in order. The one home of the status rule.

    ``status`` is one of ``records.STATUSES`` (else UsageError). Moving to ``read``
    sets ``read_at``; leaving ``read`` clears it; ``updated_at`` is ``at`` (default
    now). Papers already at ``status`` are left alone; every change is recorded in the
    status history (a StatusEvent row; ``undoes`` maps a paper id to the id of the
    change this one undoes, see :func:`undo_status`). The decision is ``reader``'s (a
    name; None: the current reader), whose row is made on the first write. Core
    statements, a chunk of papers at a time (``mark -q`` on 100,000 papers; ``mark``
    configures no mapper); the search text does not contain the status, so it needs no
    refresh, and the paper row is not touched.
    """
    if status not in STATUSES:
        raise UsageError(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
    when = at or utcnow()
    changed = [paper_id for paper_id, old in current.items() if old != status]
    if not changed:
        return []
    reader_id = readers.ensure(session, reader)
    session.execute(
        insert(STATUS_EVENTS),
        [
            {
                "paper_id": pid,
                "reader_id": reader_id,
                "from_status": current[pid],
                "to_status": status,
                "at": when,
                "undoes": (undoes or {}).get(pid),
            }
            for pid in changed
        ],
    )
    write_decisions(session, reader_id, changed, status_values(status, when))
    return changed


def import_statuses(
    session: Executor, statuses: Mapping[int, str], *, at: datetime | None = None
) -> None:
    """Give new papers (id -> status, one of ``records.STATUSES``, else UsageError) the
    status an imported list says, as the current reader's decision and without a status
    event: the paper had no status before (a first status is not a change)."""
    reader_id: int | None = None
    by_status: dict[str, list[int]] = {}
    for pid, status in statuses.items():
        if status not in STATUSES:
            raise UsageError(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
        by_status.setdefault(status, []).append(pid)
    for status, ids in by_status.items():
        reader_id = reader_id or readers.ensure(session)
        write_decisions(session, reader_id, ids, {"status": status, "updated_at": at or utcnow()})


def status_values(status: str, when: datetime) -> dict[str, Any]:
    """The decision columns a change to ``status`` at ``when`` writes (:func:`write_status`)."""
    return {"status": status, "read_at": when if status == "read" else None, "updated_at": when}


def write_decisions(
    session: Executor, reader_id: int, ids: Sequence[int], values: dict[str, Any]
) -> None:
    """Set ``values`` (decision columns) of the reader ``reader_id``'s decisions about the
    papers ``ids``, inserting a row (``new``, no priority, then ``values``) for a paper
    that has none: one ``INSERT ... ON CONFLICT (paper_id, reader_id) DO UPDATE`` per
    chunk (SQLite >= 3.24 and PostgreSQL), so two runs deciding the same paper at once
    neither fail nor lose a write."""
    row = {"status": "new", "priority": None, "read_at": None, "updated_at": utcnow(), **values}
    stmt = upsert(session, DECISIONS, ("paper_id", "reader_id"), list(values))
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        session.execute(stmt, [{**row, "paper_id": pid, "reader_id": reader_id} for pid in chunk])


def update_columns(session: Executor, ids: Sequence[int], values: dict[str, Any]) -> None:
    """``UPDATE papers SET values WHERE id IN ids``, a chunk of ids at a time (Core):
    columns of the paper row only, no relationship loaded."""
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        session.execute(update(PAPERS).where(PAPERS.c.id.in_(chunk)).values(**values))


def priority_code(level: str | None) -> int | None:
    """The stored code of a priority ``level`` (``models.PRIORITY_CODES``); None for
    ``none``/None. Raises UsageError for anything else."""
    if level is None or level == "none":
        return None
    if level in PRIORITY_CODES:
        return PRIORITY_CODES[level]
    raise UsageError(f"unknown priority {level!r}; use one of {', '.join(PRIORITY_LEVELS)}")


def write_priority(
    session: Executor,
    current: Mapping[int, int | None],
    level: str | None,
    *,
    at: datetime | None = None,
    reader: str | None = None,
) -> list[int]:
    """Set the priority of the papers ``current`` maps (paper id -> priority code now)
    to ``level`` (:func:`priority_code`; UsageError) for ``reader`` (None: the current
    one); return the ids that changed, in order. :func:`write_decisions` of ``priority``
    and ``updated_at`` (at ``at``, default now), as in :func:`write_status`."""
    code = priority_code(level)
    changed = [paper_id for paper_id, old in current.items() if old != code]
    if changed:
        reader_id = readers.ensure(session, reader)
        write_decisions(
            session, reader_id, changed, {"priority": code, "updated_at": at or utcnow()}
        )
    return changed


def latest_status_change(session: Executor) -> datetime | None:
    """Return the time of the current reader's newest read-status change (their newest
    status event, aware UTC), or None when they never changed a paper's status.

    Markdown exports write it into their marker (``decided=``) so that syncing the list
    back leaves a status changed since alone (:func:`status_changed_since`)."""
    latest: datetime | None = session.execute(
        select(func.max(STATUS_EVENTS.c.at)).where(STATUS_EVENTS.c.reader_id == decided.CURRENT_ID)
    ).scalar_one()
    return latest


#: The time ``decided=none`` names (:func:`readinglist.formats.markdown.decided_time`):
#: before every status change, so a list stamped so keeps each one the library made.
EARLIEST = datetime.min.replace(tzinfo=UTC)


def checked_stamp(session: Executor, decided: datetime | None) -> tuple[datetime | None, str]:
    """A Markdown list's ``decided`` time held to what it can be, and why not ("" when it
    is kept): the time of the library's newest status change when the list was written
    (:func:`latest_status_change`), so never in the future and never after the library's
    newest change now. A stamp past either was forged or comes from another library: a
    forged ``decided=2100-...`` made a stale list overwrite every newer decision. It is
    read as :data:`EARLIEST` (``decided=none``: a status the library changed is kept).
    None (a list that carries no stamp) stays None."""
    if decided is None or decided == EARLIEST:
        return decided, ""
    latest = latest_status_change(session)
    if decided > utcnow():
        why = "is in the future"
    elif latest is None or decided > latest:
        why = "is after the library's newest status change"
    else:
        return decided, ""
    stamp = decided.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return EARLIEST, (
        f"the list's decided={stamp} {why}: it was not written from this library as it is; "
        "read as decided=none (a status the library has changed is kept)"
    )


def status_changed_since(session: Executor, paper_ids: Sequence[int], when: datetime) -> set[int]:
    """Return the ids among ``paper_ids`` whose read status for the current reader changed
    after ``when`` (a status event of theirs later than it), a chunk of ids at a time."""
    found: set[int] = set()
    for start in range(0, len(paper_ids), CHUNK):
        chunk = paper_ids[start : start + CHUNK]
        found.update(
            session.scalars(
                select(STATUS_EVENTS.c.paper_id)
                .where(
                    STATUS_EVENTS.c.paper_id.in_(chunk),
                    STATUS_EVENTS.c.at > when,
                    STATUS_EVENTS.c.reader_id == decided.CURRENT_ID,
                )
                .distinct()
            )
        )
    return found


# --- the undo stack: the status history without the undos and what they undid -------------


def _live(event: Any) -> ColumnElement[bool]:
    """True for a change of ``event`` (an alias of the history) that is neither an undo
    nor undone by a later one: what the undo stack holds."""
    undo = STATUS_EVENTS.alias("undo")
    return and_(event.c.undoes.is_(None), ~exists().where(undo.c.undoes == event.c.id))


def _in_force(event: Any) -> ColumnElement[bool]:
    """True when ``event`` is on the stack (:func:`_live`, a change from a status) and
    its reader's decision still has its status with no live change of it since: nobody
    changed that decision after it, except by undoing (compare-and-set). Each reader's
    history is their own: another reader's decision about the paper does not count."""
    later = STATUS_EVENTS.alias("later")
    decided_now = (
        select(DECISIONS.c.status)
        .where(DECISIONS.c.paper_id == event.c.paper_id, DECISIONS.c.reader_id == event.c.reader_id)
        .scalar_subquery()
    )
    return and_(
        event.c.from_status.is_not(None),
        _live(event),
        decided_now == event.c.to_status,
        ~exists().where(
            later.c.paper_id == event.c.paper_id,
            later.c.reader_id == event.c.reader_id,
            later.c.id > event.c.id,
            _live(later),
        ),
    )


def last_undoable(
    session: Executor, scope: Sequence[int] | None = None
) -> tuple[int, int, str, str] | None:
    """Return the top of the current reader's undo stack, ``(event id, paper id, from,
    to)``, or None.

    The stack is the status history newest first without the undos and the changes
    they undid (:func:`undo_status` records which), so it survives quitting: an undo
    after quitting takes the last change not yet undone and never re-applies an
    undone one. A change is on top only while in force (its paper has its status, no
    other change since); a first status (no ``from``) is not a decision. ``scope``
    (paper ids; None: all) limits the papers, a chunk of ids at a time.
    """
    event = STATUS_EVENTS.alias("event")
    base = (
        select(event.c.id, event.c.paper_id, event.c.from_status, event.c.to_status)
        .where(event.c.reader_id == decided.CURRENT_ID, _in_force(event))
        .order_by(event.c.id.desc())
        .limit(1)
    )
    chunks = (
        [None]
        if scope is None
        else [sorted(scope)[i : i + CHUNK] for i in range(0, len(scope), CHUNK)]
    )
    best: tuple[int, int, str, str] | None = None
    for chunk in chunks:
        stmt = base if chunk is None else base.where(event.c.paper_id.in_(chunk))
        row = session.execute(stmt).first()
        if row is not None and (best is None or row[0] > best[0]):
            best = (int(row[0]), int(row[1]), str(row[2]), str(row[3]))
    return best


def last_change_of(session: Executor, paper_id: int) -> int | None:
    """Return the id of the current reader's newest status event of ``paper_id`` (None
    without one)."""
    found = session.execute(
        select(func.max(STATUS_EVENTS.c.id)).where(
            STATUS_EVENTS.c.paper_id == paper_id,
            STATUS_EVENTS.c.reader_id == decided.CURRENT_ID,
        )
    ).scalar_one()
    return None if found is None else int(found)


def undo_status(session: Executor, event_id: int) -> tuple[int, str, str]:
    """Undo the status change ``event_id``: put its paper back to the status before it,
    recorded as a change that ``undoes`` it; return ``(paper id, from, to)`` of the
    undone change. Compare-and-set on the status history: only while the change is
    in force (:func:`_in_force`: the paper still has its status and nobody changed
    it since, the paper row locked meanwhile on PostgreSQL, SQLite's write lock held);
    otherwise Conflict, naming the status the paper has now, and nothing is written.
    Moving back to ``read`` restores the paper's last read date before the change.
    NotFound when the change or its paper is gone.
    """
    event = STATUS_EVENTS.alias("event")
    row = session.execute(
        select(event.c.paper_id, event.c.from_status, event.c.to_status, event.c.reader_id).where(
            event.c.id == event_id
        )
    ).first()
    if row is None:
        raise NotFound("that decision is no longer in the status history")
    pid, old, new = int(row[0]), row[1], str(row[2])
    name = session.execute(select(READERS.c.name).where(READERS.c.id == row[3])).scalar_one()
    locked = session.execute(
        select(PAPERS.c.citekey).where(PAPERS.c.id == pid).with_for_update()
    ).first()
    if locked is None:
        raise NotFound("that paper was removed meanwhile")
    now = (
        locked[0],
        session.execute(select(decision_column("status", name, paper_id=pid))).scalar_one(),
    )
    in_force = session.execute(select(_in_force(event)).where(event.c.id == event_id))
    if old is None or not in_force.scalar():
        raise Conflict(
            f"{now[0]} was changed meanwhile (now {now[1]}), not by this undo; left as it is"
        )
    write_status(session, {pid: new}, str(old), undoes={pid: event_id}, reader=name)
    if old == "read":
        read_at = session.execute(
            select(func.max(STATUS_EVENTS.c.at)).where(
                STATUS_EVENTS.c.paper_id == pid,
                STATUS_EVENTS.c.reader_id == row[3],
                STATUS_EVENTS.c.id < event_id,
                STATUS_EVENTS.c.to_status == "read",
                STATUS_EVENTS.c.undoes.is_(None),
            )
        ).scalar_one()
        reader_id = readers.ensure(session, name)
        write_decisions(session, reader_id, [pid], {"read_at": read_at})
    return pid, str(old), new
