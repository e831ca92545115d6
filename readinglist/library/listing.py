"""Read-only views for ``list``, ``stats``, ``triage`` and ``history``: light queries, no writes.

Core statements on the tables (an :data:`~readinglist.tables.Executor`: ``list QUERY``
and ``show`` run them on a Connection without the ORM, issue 17), except the functions
that return ORM papers (``all_papers``, ``list_papers``), which import it when called.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select, text

from readinglist import counting, decided
from readinglist.library._sql import CHUNK
from readinglist.library.listing_rows import TABLE_COLUMNS, iter_listing_records
from readinglist.library.rows import tags_by_paper
from readinglist.records import (
    PRIORITY_NAMES,
    OutlineRecord,
    PaperRecord,
)
from readinglist.tables import (
    DECISIONS,
    MERGE_CONFLICTS,
    PAPER_TAGS,
    PAPERS,
    STATUS_EVENTS,
    TAGS,
    Executor,
    connection_of,
)
from readinglist.versions import VERSION_FIELD

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from readinglist.models import Paper


def all_papers(session: Session) -> list[Paper]:
    """Return every paper in order of addition (oldest first), then by key."""
    from readinglist.library.rows import load_papers

    return load_papers(session)


def history(session: Executor, paper_id: int) -> list[dict[str, Any]]:
    """Return the current reader's read-status history of the paper ``paper_id`` as ``{"from", "to",
    "at"}`` dicts, oldest first (in the order the changes were recorded)."""
    rows = session.execute(
        select(STATUS_EVENTS.c.from_status, STATUS_EVENTS.c.to_status, STATUS_EVENTS.c.at)
        .where(
            STATUS_EVENTS.c.paper_id == paper_id,
            STATUS_EVENTS.c.reader_id == decided.CURRENT_ID,
        )
        .order_by(STATUS_EVENTS.c.id)
    )
    return [{"from": old, "to": new, "at": at} for old, new, at in rows]


def versions_of(session: Executor, paper_id: int) -> list[dict[str, Any]]:
    """Return the versions the paper ``paper_id`` absorbed (a preprint, its published
    version), oldest first: the ``versions.VERSION_FIELD`` rows of its merge history,
    each ``{"kind", "key", "venue", "year", "where"}``."""
    rows = session.execute(
        select(MERGE_CONFLICTS.c.value)
        .where(MERGE_CONFLICTS.c.paper_id == paper_id, MERGE_CONFLICTS.c.field == VERSION_FIELD)
        .order_by(MERGE_CONFLICTS.c.id)
    )
    return [dict(value.get("value") or {}) for (value,) in rows]


def count_papers(session: Executor) -> int:
    """Return the number of papers in the library."""
    return int(session.scalar(select(func.count(PAPERS.c.id))) or 0)


def select_keys(
    session: Executor,
    query_text: str = "",
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
) -> list[str]:
    """Return the citation keys of the papers ``query_text`` selects, sorted, in one query.

    Same selection and order as :func:`select_papers` without loading any paper
    (``list -k`` on a large library). Raises InvalidQuery or UsageError.
    """
    from readinglist import query  # not at import: `show` needs no parser

    return query.paper_keys(session, query_text, sort=sort, limit=limit, reverse=reverse)


def list_papers(
    session: Session,
    query_text: str = "",
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
) -> list[Paper]:
    """Return the papers ``query_text`` selects, sorted, with people and tags (no notes).

    :func:`select_papers` for listings (``list`` tables and JSON), which never show
    notes. Raises InvalidQuery or UsageError.
    """
    from readinglist import query
    from readinglist.library.rows import load_papers_for_listing

    ids = query.paper_ids(session, query_text, sort=sort, limit=limit, reverse=reverse)
    return load_papers_for_listing(session, ids)


def listing_ids(
    session: Executor,
    query_text: str = "",
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
) -> list[int]:
    """Return the ids of the papers ``query_text`` selects, sorted: the selection and
    order of :func:`list_papers`, for :func:`iter_listing`. Raises InvalidQuery or
    UsageError."""
    from readinglist import query

    return query.paper_ids(session, query_text, sort=sort, limit=limit, reverse=reverse)


def iter_listing(
    session: Executor, ids: Sequence[int], *, table: bool = False
) -> Iterator[tuple[int, PaperRecord]]:
    """Yield ``(paper id, record)`` with what ``list`` shows for the papers ``ids``, in order.

    Streamed a chunk at a time (``listing_rows.iter_listing_records``: the shown columns,
    authors and tags; no ORM objects, no digest), so ``list`` of a whole library runs
    in bounded memory (issue 17): only the ids are held. ``table``: only what a table
    shows (``listing_rows.TABLE_COLUMNS``, authors; no tags, abstract or links).
    """
    if table:
        return iter_listing_records(session, ids, columns=TABLE_COLUMNS, with_tags=False)
    return iter_listing_records(session, ids)


#: What :func:`export_outline` reads of each paper, after its id.
_OUTLINE_COLUMNS = ("citekey", "status", "priority", "year", "venue")


def export_outline(
    session: Executor, ids: Sequence[int], *, with_tags: bool = False
) -> list[OutlineRecord]:
    """Return, for the papers ``ids`` in that order (unknown ids skipped), light records
    (:class:`~readinglist.records.OutlineRecord`) holding only what a Markdown export
    groups and orders by: id, key, status, priority, year, venue, and the tags (by name)
    when ``with_tags``.

    Two Core queries per chunk of ids (the columns, then the tags), no ORM objects, so
    ``export markdown`` of a whole library holds these small records while the full
    ones stream (``formats.markdown.write_chunks``, issue 17). Statuses, venues and
    years are shared (one object per distinct value, not one per paper: 500,000
    papers' years alone took about 14 MB).
    """
    outline: list[OutlineRecord] = []
    shared: dict[str, str] = {}  # one string per distinct status and venue
    years: dict[int, int] = {}  # one int per distinct year
    papers = PAPERS
    columns = select(*(decided.paper_column(name) for name in ("id", *_OUTLINE_COLUMNS)))
    connection = connection_of(session)
    for start in range(0, len(ids), CHUNK * 4):
        part = list(ids[start : start + CHUNK * 4])
        rows = {
            row[0]: row for row in connection.execute(columns.where(papers.c.id.in_(part))).all()
        }
        tags = tags_by_paper(session, part) if with_tags else {}
        for pid in part:
            if (row := rows.get(pid)) is not None:
                _, citekey, status, code, year, venue = row  # by position: Row.__getattr__ is slow
                outline.append(
                    OutlineRecord(
                        pid,
                        citekey,
                        shared.setdefault(status, status),
                        PRIORITY_NAMES.get(code) if code is not None else None,
                        years.setdefault(year, year) if year is not None else None,
                        shared.setdefault(venue, venue) if venue else None,
                        tuple(tags.get(pid, ())),
                    )
                )
    return outline


def triage_queue(session: Executor, query_text: str = "", *, only_new: bool = True) -> list[int]:
    """Return the ids of the papers ``triage`` walks, oldest import first (then file order:
    the id), ordered by the database over the whole library, in Python over a query's
    papers (read in chunks of ids).

    Those ``query_text`` selects (every paper when blank), limited to status ``new``
    when ``only_new``. Raises InvalidQuery for a bad query.
    """
    stmt = select(PAPERS.c.id, PAPERS.c.added_at)
    if only_new:
        stmt = stmt.where(decided.status_in(["new"]))
    if not query_text.strip():  # ordered by the database: no timestamp made per row
        ordered = stmt.with_only_columns(PAPERS.c.id).order_by(PAPERS.c.added_at, PAPERS.c.id)
        return [int(pid) for pid in session.execute(ordered).scalars()]
    from readinglist import query

    ids = query.paper_ids(session, query_text)
    rows: list[Any] = []
    for start in range(0, len(ids), CHUNK):
        rows.extend(session.execute(stmt.where(PAPERS.c.id.in_(ids[start : start + CHUNK]))))
    return [int(pid) for pid, _ in sorted(rows, key=lambda r: (r[1], r[0]))]


def paper_stats(session: Executor, query_text: str = "") -> dict[str, Any]:
    """Count the papers ``query_text`` selects (all when blank) for ``stats``.

    Returns :func:`readinglist.counting.tally`'s counts (its docstring says what is
    counted and how) of the rows of five Core queries. Raises InvalidQuery for a bad
    query.
    """
    ids: list[int] | None = None
    if query_text.strip():
        from readinglist import query

        ids = query.paper_ids(session, query_text)

    def chunks(stmt: Any, column: Any, execute: Any = session.execute) -> Iterable[Any]:
        if ids is None:
            yield from execute(stmt)
            return
        for start in range(0, len(ids), CHUNK):
            yield from execute(stmt.where(column.in_(ids[start : start + CHUNK])))

    # Counted by the database (GROUP BY), on the connection: Core rows of the tables, so
    # the ORM's mappers are never configured (~55 ms; issue 17). The rules are
    # counting.tally's (which counting.sqlite_stats feeds without SQLAlchemy).
    execute = connection_of(session).execute
    mine = decided.with_decisions()
    status = decided.joined_status()
    return counting.tally(
        chunks(
            select(status, func.count()).select_from(mine).group_by(status), PAPERS.c.id, execute
        ),
        chunks(
            select(DECISIONS.c.priority, func.count())
            .select_from(mine)
            .group_by(DECISIONS.c.priority),
            PAPERS.c.id,
            execute,
        ),
        chunks(
            select(DECISIONS.c.paper_id, DECISIONS.c.read_at).where(
                DECISIONS.c.reader_id == decided.CURRENT_ID, DECISIONS.c.read_at.is_not(None)
            ),
            DECISIONS.c.paper_id,
            execute,
        ),
        chunks(
            select(TAGS.c.name, func.count())
            .join(PAPER_TAGS, PAPER_TAGS.c.tag_id == TAGS.c.id)
            .group_by(TAGS.c.id, TAGS.c.name),
            PAPER_TAGS.c.paper_id,
            execute,
        ),
        chunks(
            select(STATUS_EVENTS.c.paper_id, STATUS_EVENTS.c.at).where(
                STATUS_EVENTS.c.to_status == "read",
                STATUS_EVENTS.c.reader_id == decided.CURRENT_ID,
                # neither an undo nor undone (triage's u): counting.SQLITE_QUERIES's rule
                STATUS_EVENTS.c.undoes.is_(None),
                STATUS_EVENTS.c.id.not_in(
                    select(STATUS_EVENTS.c.undoes).where(STATUS_EVENTS.c.undoes.is_not(None))
                ),
            ),
            STATUS_EVENTS.c.paper_id,
            execute,
        ),
        execute(
            text(counting.SKIPPED_SINCE_WANTED), {"reader": decided.fold(decided.current())}
        ).scalar_one(),
    )
