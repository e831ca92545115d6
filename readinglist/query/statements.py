"""Query text -> a sorted, limited SELECT over ``papers``: what commands call.

:func:`paper_ids` and :func:`paper_keys` run it; :func:`statement` returns it for callers
that add columns; :func:`filter_clause` gives just the WHERE clause.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, case, select

from readinglist import decided
from readinglist.errors import UsageError
from readinglist.query.compiler import Builder, session_builder
from readinglist.query.fulltext import rank_postgresql, rank_sqlite
from readinglist.query.parser import parse
from readinglist.query.tree import And, Everything, Query, Text, ranked_terms
from readinglist.tables import PAPERS, Executor

#: Sort orders of :func:`paper_ids` (``--sort``).
SORT_KEYS: tuple[str, ...] = ("added", "year", "title", "key", "priority", "status", "relevance")
#: Read statuses in triage order, the order of ``--sort status``.
STATUS_ORDER: tuple[str, ...] = ("reading", "to-read", "new", "read", "skipped")


def filter_clause(
    session: Executor, text: str, *, now: datetime | None = None
) -> ColumnElement[bool]:
    """Parse ``text`` and return its WHERE clause for the session's database.

    For commands that build their own SELECT over ``papers`` (``stats`` grouping by
    status, for instance). ``now`` is the time relative dates count back from (default:
    now, UTC). Raises InvalidQuery.
    """
    tree = parse(text)
    return session_builder(session, tree, now).clause(tree)


def statement(
    session: Executor,
    text: str,
    columns: Sequence[Any] = (PAPERS.c.id,),
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
    now: datetime | None = None,
) -> Select[Any]:
    """Build the SELECT of ``columns`` over the papers ``text`` selects, sorted and limited.

    Sort orders (:data:`SORT_KEYS`): ``added`` (order of addition, then id; the
    default without free text), ``year`` (papers without a year last), ``title``
    (folded title; untitled last), ``key`` (case-insensitive), ``priority`` (high
    first, none last), ``status`` (triage order: reading, to-read, new, read,
    skipped), ``relevance`` (the default when the query has free text; papers the
    free-text terms do not match come last, and without free text it is ``added``).
    Ties are broken by order of addition. ``reverse`` reverses the whole order,
    except that papers without a year, title or relevance stay last.

    Raises:
        InvalidQuery: the query is malformed.
        UsageError: ``sort`` is not a sort order.
    """
    if sort is not None and sort not in SORT_KEYS:
        raise UsageError(f"unknown sort order {sort!r}; use one of {', '.join(SORT_KEYS)}")
    tree = parse(text)
    builder = session_builder(session, tree, now)
    terms = ranked_terms(tree)
    sort = sort or ("relevance" if terms else "added")
    stmt = select(*columns).select_from(PAPERS)
    where: Query = tree
    if sort == "relevance" and terms:
        stmt, where, order = _by_relevance(builder, stmt, tree, terms, reverse)
    else:
        order = _by_column(sort, builder.dialect, reverse)
    order += [_direction(PAPERS.c.added_at, reverse), _direction(PAPERS.c.id, reverse)]
    if not isinstance(where, Everything):
        stmt = stmt.where(builder.clause(where))
    stmt = stmt.order_by(*order)
    if limit is not None:
        stmt = stmt.limit(limit)
    return stmt


def _direction(expr: Any, reverse: bool) -> Any:
    return expr.desc() if reverse else expr.asc()


def _by_column(sort: str, dialect: str, reverse: bool) -> list[Any]:
    """The ORDER BY keys of a sort order other than relevance (``relevance``: none)."""

    def bytewise(col: Any) -> Any:
        # SQLite compares text bytewise (BINARY); PostgreSQL by the database's collation,
        # which may ignore spaces and punctuation (en_US): "C" gives SQLite's order.
        return col.collate("C") if dialect == "postgresql" else col

    if sort == "year":
        return [PAPERS.c.year.is_(None), _direction(PAPERS.c.year, reverse)]
    if sort == "title":
        return [PAPERS.c.title_key.is_(None), _direction(bytewise(PAPERS.c.title_key), reverse)]
    if sort == "key":
        return [_direction(bytewise(PAPERS.c.citekey_folded), reverse)]
    if sort == "priority":
        return [
            _direction(decided.column("priority").is_(None), reverse),
            _direction(decided.column("priority"), reverse),
        ]
    if sort == "status":
        rank = case(
            {status: position for position, status in enumerate(STATUS_ORDER)},
            value=decided.column("status"),
            else_=len(STATUS_ORDER),
        )
        return [_direction(rank, reverse)]
    return []


def _by_relevance(
    builder: Builder, stmt: Select[Any], tree: Query, terms: list[Text], reverse: bool
) -> tuple[Select[Any], Query, list[Any]]:
    """Return (the statement joined to the ranking if needed, what is left to filter, keys).

    When a ranked term is one of the top-level conjuncts and no private note of the
    reader matches a term, every paper selected matches it in the index: no
    "unmatched last" key is needed, and on SQLite an inner join with the ranking is the
    filter of that term too (FTS5 is read once).
    """
    conjuncts = tree.children if isinstance(tree, And) else (tree,)
    required = any(isinstance(c, Text) for c in conjuncts)
    order: list[Any] = []
    if builder.dialect != "sqlite":
        # each use of search_vector decompresses it again: no CASE unless needed
        matched, score = rank_postgresql(terms)
        if not required or any(builder.private_matches(term) for term in terms):
            order.append(case((matched, 0), else_=1))
        order.append(score.asc() if reverse else score.desc())
        return stmt, tree, order
    ranking = rank_sqlite(terms)
    where = tree
    # The ranking reads the index, which holds shared notes only: a paper found by the
    # words of the reader's own private note alone (Builder._text) has no score, so the
    # ranking cannot be the filter then.
    if required and not any(builder.private_matches(term) for term in terms):
        stmt = stmt.join(ranking, ranking.c.rid == PAPERS.c.id)
        if len(terms) == 1 and terms[0] in conjuncts:
            rest = tuple(c for c in conjuncts if c != terms[0])
            where = And(rest) if len(rest) > 1 else rest[0] if rest else Everything()
    else:
        stmt = stmt.outerjoin(ranking, ranking.c.rid == PAPERS.c.id)
        order.append(ranking.c.score.is_(None))
    order.append(_direction(ranking.c.score, reverse))
    return stmt, where, order


def paper_ids(
    session: Executor,
    text: str,
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
    now: datetime | None = None,
) -> list[int]:
    """Return the ids of the papers ``text`` selects, in the order of ``sort``.

    See :func:`statement` for the sort orders and :func:`readinglist.query.parse` for the
    language; ``limit`` keeps the first N (N >= 1). Raises InvalidQuery or UsageError.
    """
    stmt = statement(session, text, sort=sort, limit=limit, reverse=reverse, now=now)
    return list(session.scalars(stmt))


def paper_keys(
    session: Executor,
    text: str,
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
    now: datetime | None = None,
) -> list[str]:
    """Return the citation keys of the papers ``text`` selects, in order (one query).

    Like :func:`paper_ids` but without loading papers: ``list -k`` on a large library.
    """
    stmt = statement(
        session, text, (PAPERS.c.citekey,), sort=sort, limit=limit, reverse=reverse, now=now
    )
    return list(session.scalars(stmt))
