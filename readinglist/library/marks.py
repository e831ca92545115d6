"""Status and priority of papers: single-column writes in Core, the one home of their rules.

``mark`` and ``priority`` run these on a Core Connection (no ORM imported, no row
graph loaded; issue 17); ``library.papers.set_status``/``set_priority``, ``triage``
and an import run them in their Session. Each function takes an
:data:`~readinglist.tables.Executor` and never commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, insert, select, update

from readinglist.errors import UsageError
from readinglist.library._sql import CHUNK
from readinglist.records import PRIORITY_CODES, PRIORITY_LEVELS, STATUSES
from readinglist.tables import PAPERS, STATUS_EVENTS, Executor, utcnow


def write_status(
    session: Executor, current: Mapping[int, str], status: str, *, at: datetime | None = None
) -> list[int]:
    """Set the read status of the papers ``current`` maps (paper id -> status now) to
    ``status``; return the ids that changed, in order. The one home of the status rule.

    ``status`` is one of ``records.STATUSES`` (else UsageError). Moving to ``read``
    sets ``read_at``; leaving ``read`` clears it; ``updated_at`` is ``at`` (default
    now). Papers already at ``status`` are left alone; every change is recorded in the
    status history (a StatusEvent row). Core statements on the tables, a chunk of
    papers at a time (issue 17: ``mark -q`` on 100,000 papers was one ORM unit of work
    per paper; ``mark`` configures no mapper): status, ``read_at`` and ``updated_at``
    only, so no relationship is loaded; the search text does not contain the status,
    so it needs no refresh.
    """
    if status not in STATUSES:
        raise UsageError(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
    when = at or utcnow()
    changed = [paper_id for paper_id, old in current.items() if old != status]
    if not changed:
        return []
    session.execute(
        insert(STATUS_EVENTS),
        [
            {"paper_id": pid, "from_status": current[pid], "to_status": status, "at": when}
            for pid in changed
        ],
    )
    update_columns(session, changed, status_values(status, when))
    return changed


def status_values(status: str, when: datetime) -> dict[str, Any]:
    """The columns a change to ``status`` at ``when`` writes (:func:`write_status`)."""
    return {"status": status, "read_at": when if status == "read" else None, "updated_at": when}


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
) -> list[int]:
    """Set the priority of the papers ``current`` maps (paper id -> priority code now)
    to ``level`` (:func:`priority_code`; UsageError); return the ids that changed, in
    order. One Core UPDATE per chunk of papers (``priority`` and ``updated_at``, at
    ``at``, default now), as in :func:`write_status`."""
    code = priority_code(level)
    changed = [paper_id for paper_id, old in current.items() if old != code]
    if changed:
        update_columns(session, changed, {"priority": code, "updated_at": at or utcnow()})
    return changed


def latest_status_change(session: Executor) -> datetime | None:
    """Return the time of the library's newest read-status change (its newest status
    event, aware UTC), or None when no paper's status was ever changed.

    Markdown exports write it into their marker (``decided=``) so that syncing the list
    back leaves a status changed since alone (:func:`status_changed_since`)."""
    latest: datetime | None = session.execute(select(func.max(STATUS_EVENTS.c.at))).scalar_one()
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
    """Return the ids among ``paper_ids`` whose read status changed after ``when`` (a
    status event later than it), a chunk of ids at a time."""
    found: set[int] = set()
    for start in range(0, len(paper_ids), CHUNK):
        chunk = paper_ids[start : start + CHUNK]
        found.update(
            session.scalars(
                select(STATUS_EVENTS.c.paper_id)
                .where(STATUS_EVENTS.c.paper_id.in_(chunk), STATUS_EVENTS.c.at > when)
                .distinct()
            )
        )
    return found
