"""What the triage loop reads from the library beyond one paper: the whole inbox, the
last decision of an earlier run (from the status history), titles for the overview
and the papers a search selects; and where a run starts (:func:`open_inbox`: the queue in
its order, for the terminal and the page alike).

Functions of a Session that never write (the loop writes through ``library``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from readinglist import decided, library, query
from readinglist.errors import InvalidQuery
from readinglist.library import marks
from readinglist.models import Paper
from readinglist.tables import PAPERS, connection_of

#: Above this many papers a column of a list of papers is read in one scan of the
#: papers table and filtered here, not in chunks of ``library.CHUNK`` ids: the 61,000
#: papers of a first triage were 250 queries of ``IN (...)`` (seconds before the first
#: screen); a scan is one query.
SCAN_ABOVE = 4 * library.CHUNK


def of_papers(session: Session, pids: Sequence[int], name: str) -> dict[int, Any]:
    """Return ``{paper id: value of the column name}`` of the papers ``pids`` that exist
    (a decision column such as ``status`` is the current reader's, :mod:`readinglist.decided`),
    read in chunks of ids, or in one scan of the table for more than
    :data:`SCAN_ABOVE` (Core rows on the session's connection: no ORM row handling)."""
    column, execute = decided.paper_column(name), connection_of(session).execute
    if len(pids) > SCAN_ABOVE:
        wanted = set(pids)
        if name == "status":  # the current reader's: one join, not a probe per paper
            scan = select(PAPERS.c.id, decided.joined_status()).select_from(
                decided.with_decisions()
            )
        else:
            scan = select(PAPERS.c.id, column)
        return {int(pid): value for pid, value in execute(scan) if pid in wanted}
    found: dict[int, Any] = {}
    for start in range(0, len(pids), library.CHUNK):
        chunk = pids[start : start + library.CHUNK]
        stmt = select(PAPERS.c.id, column).where(PAPERS.c.id.in_(chunk))
        found.update((int(pid), value) for pid, value in execute(stmt))
    return found


def statuses(session: Session, pids: Sequence[int]) -> dict[int, str]:
    """Return ``{paper id: read status}`` of the papers ``pids`` that exist."""
    return {pid: str(status) for pid, status in of_papers(session, pids, "status").items()}


def inbox_decided(
    session: Session,
    queue: Sequence[int],
    scope: Collection[int] | None = None,
    batches: Collection[int] | None = None,
) -> dict[int, str]:
    """Return ``{paper id: status}`` of the inbox's papers decided before this run.

    The inbox of a triage run is every paper of the import batches its queue (the
    papers still ``new``) comes from, so that after a resume the progress line counts
    the whole inbox (decided so far / total), not only the papers left. ``scope``
    (the papers the run's query selects; None: every paper) limits it; papers in
    ``queue`` and papers still ``new`` are left out. ``batches``: the queue's import
    batches when known (``library.triage_batches``), else read from its papers.
    """
    if batches is None:
        batches = {b for b in of_papers(session, queue, "batch_id").values() if b is not None}
    found: dict[int, str] = {}
    ordered = sorted(batches)
    for start in range(0, len(ordered), library.CHUNK):
        stmt = select(Paper.id, Paper.status).where(
            Paper.batch_id.in_(ordered[start : start + library.CHUNK]), Paper.status != "new"
        )
        found.update((int(pid), str(status)) for pid, status in session.execute(stmt))
    queued = set(queue)
    return {
        pid: status
        for pid, status in found.items()
        if pid not in queued and (scope is None or pid in scope)
    }


def last_decision(
    session: Session, *, scope: Collection[int] | None = None
) -> tuple[int, int, str, str] | None:
    """Return ``(event id, paper id, citation key, to)`` of the top of the undo stack
    kept in the status history (``library.marks.last_undoable``: the newest decision
    not undone and still in force), among the papers of ``scope`` (None: all); None
    when there is nothing left to undo."""
    found = marks.last_undoable(session, None if scope is None else sorted(scope))
    if found is None:
        return None
    event, pid, _, new = found
    key = session.scalar(select(Paper.citekey).where(Paper.id == pid))
    return event, pid, str(key), new


def undoable_inbox(session: Session, scope: Collection[int] | None = None) -> dict[int, str]:
    """Return the inbox of the newest decision ``u`` could undo, when no paper is new.

    ``{paper id: status}`` of that paper and the decided papers of its import batches
    (:func:`inbox_decided`), so that triage opens on its end screen (``u`` undoes, the
    progress line counts that inbox); empty when there is nothing to undo.
    """
    found = last_decision(session, scope=scope)
    if found is None:
        return {}
    _, pid, _, status = found
    return {**inbox_decided(session, [pid], scope), pid: status}


def titles(session: Session, pids: Sequence[int]) -> dict[int, str]:
    """Return ``{paper id: title}`` (provisional titles marked as on the card)."""
    from readinglist.render import PROVISIONAL_MARK

    stmt = select(Paper.id, Paper.title, Paper.title_provisional).where(Paper.id.in_(pids))
    return {
        int(pid): (title or "(no title)") + (PROVISIONAL_MARK if provisional else "")
        for pid, title, provisional in session.execute(stmt)
    }


def matching(session: Session, text: str) -> set[int]:
    """Return the ids of the papers ``text`` selects: a query, else its words.

    Text that is not a valid query (``RL: a survey``) is searched as its words, each a
    full-text term. Raises InvalidQuery when neither works.
    """
    try:
        return set(query.paper_ids(session, text))
    except InvalidQuery:
        words = "".join(c if c.isalnum() else " " for c in text).split()
        if not words:
            raise
        return set(query.paper_ids(session, " ".join(f'"{w}"' for w in words)))


@dataclass
class Inbox:
    """What a triage run starts from (:func:`open_inbox`): the queue (paper ids in the
    order shown), the papers ``u`` may undo earlier decisions of (``scope``; None:
    every paper), the inbox's papers decided before (``earlier``), the ranker
    re-ordering the queue after each decision (None: the order of addition) and the
    statuses of the queue's papers when the queue's query gave them (``new``, without
    ``--all``; None: :class:`readinglist.triage.Triage` reads them)."""

    ids: list[int]
    scope: set[int] | None
    earlier: dict[int, str]
    ranker: Any
    only_new: bool
    statuses: dict[int, str] | None = None


def open_inbox(
    session: Session,
    url: str,
    query_text: str,
    *,
    include_all: bool = False,
    order: str = "interest",
    like: str | None = None,
    on_build: Callable[[str], None] | None = None,
) -> Inbox:
    """Return the :class:`Inbox` of a triage run over ``query_text`` in the library at
    ``url``, for ``readinglist triage`` and ``readinglist serve`` alike.

    The papers still ``new`` the query selects (all of them with ``include_all`` or a
    ``status:`` term), oldest import first; with ``order="interest"`` highest learned
    interest first (``ranking.ranker.Ranker``, ``like`` ranks by a description too;
    ``on_build`` is told before the index is rebuilt). With nothing new, ``earlier`` is
    the inbox of the decision ``u`` could undo (:func:`undoable_inbox`), so the run
    opens on its end screen. Raises InvalidQuery for a bad query.
    """
    from readinglist import triage

    only_new = not include_all and not triage.query_sets_status(query_text)
    ids = library.triage_queue(session, query_text, only_new=only_new)
    scope = (
        set(library.triage_queue(session, query_text, only_new=False))
        if query_text.strip()
        else None
    )
    batches = library.triage_batches(session, query_text) if only_new else None
    earlier = inbox_decided(session, ids, scope, batches) if only_new else {}
    if not ids and only_new:
        earlier = undoable_inbox(session, scope)
    ranker = None
    if ids and order == "interest":
        from readinglist.ranking.ranker import Ranker

        ranker = Ranker.open(session, url, like=like, on_build=on_build)
        ids = ranker.order(ids)
    statuses = dict.fromkeys(ids, "new") if only_new else None  # what the queue selected
    return Inbox(ids, scope, earlier, ranker, only_new, statuses)
