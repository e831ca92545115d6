"""Query language -> SQL (placeholder ordering only; the full language comes with issue 6)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from readinglist.errors import InvalidQuery
from readinglist.models import Paper


def paper_ids(
    session: Session,
    text: str,
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
) -> list[int]:
    """Return the ids of the papers ``text`` selects, in order. Raises InvalidQuery."""
    if text.strip():
        raise InvalidQuery(text, "the query language is not implemented yet")
    order = [Paper.added_at.desc(), Paper.id.desc()] if reverse else [Paper.added_at, Paper.id]
    stmt = select(Paper.id).order_by(*order)
    if limit:
        stmt = stmt.limit(limit)
    return list(session.scalars(stmt))
