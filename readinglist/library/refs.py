"""References: a REF (citation key or alias) or a query resolved to papers, and completion.

Raises NotFound naming what is unknown; the query language is ``readinglist.query``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from readinglist.errors import NotFound, UsageError
from readinglist.library.rows import load_papers
from readinglist.models import (
    Alias,
    Paper,
)
from readinglist.text import plural


def find_paper(session: Session, ref: str) -> Paper | None:
    """Return the paper whose citation key or alias is ``ref`` (case-insensitive), or None."""
    folded = ref.strip().lower()
    paper = session.scalars(select(Paper).where(Paper.citekey_folded == folded)).first()
    if paper is not None:
        return paper
    return session.scalars(
        select(Paper).join(Alias, Alias.paper_id == Paper.id).where(Alias.alias_folded == folded)
    ).first()


def keys_in_query(session: Session, query_text: str) -> list[str]:
    """The words of ``query_text`` that are citation keys or aliases, as written.

    For the hint of a query that selected nothing: a bare word is free text, which does
    not search citation keys (``list spar2026`` finds nothing; ``key:spar2026`` does).
    Words with a field (``tag:x``), quotes or operators are not looked at.
    """
    words = [w for w in query_text.split() if w.isprintable() and not set(w) & set(':"()*')]
    return [w for w in dict.fromkeys(words) if key_taken(session, w.lower())][:5]


def resolve(session: Session, ref: str) -> Paper:
    """Return the paper for ``ref`` (a citation key or alias). Raises NotFound naming it."""
    paper = find_paper(session, ref)
    if paper is None:
        raise NotFound(f"no paper with citation key {ref!r}")
    return paper


def resolve_many(session: Session, refs: Sequence[str]) -> list[Paper]:
    """Resolve every REF, in order and without repeats; all or nothing.

    Raises NotFound naming every unknown REF (nothing is changed by the caller then).
    """
    papers, unknown = _find_all(session, refs)
    if unknown:
        names = ", ".join(repr(r) for r in unknown)
        noun = plural(len(unknown), "citation key")
        raise NotFound(f"no paper with {noun} {names}; nothing changed")
    return papers


def key_taken(session: Session, folded: str) -> bool:
    """True when ``folded`` (a lower-case key) is a paper's key or an alias."""
    if session.scalar(select(Paper.id).where(Paper.citekey_folded == folded)) is not None:
        return True
    return session.scalar(select(Alias.paper_id).where(Alias.alias_folded == folded)) is not None


def resolve_targets(session: Session, refs: Sequence[str], query_text: str | None) -> list[Paper]:
    """Return the papers a command acts on: its REFs, or every paper ``-q QUERY`` selects.

    Exactly one of ``refs`` (citation keys or aliases, all of which must exist) and
    ``query_text`` (not blank) must be given; a REF is never parsed as a query, since
    keys may contain ``:``. Raises UsageError for neither, both or a blank query;
    NotFound naming every unknown REF; InvalidQuery for a bad query.
    """
    if refs and query_text is not None:
        raise UsageError("give REFs or -q QUERY, not both")
    if query_text is not None:
        if not query_text.strip():
            raise UsageError("-q needs a query (an empty one would select every paper)")
        return select_papers(session, query_text)
    if not refs:
        raise UsageError("give at least one REF (citation key or alias) or -q QUERY")
    return resolve_many(session, refs)


def select_papers(
    session: Session,
    query_text: str = "",
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
) -> list[Paper]:
    """Return the papers ``query_text`` selects (all when empty), sorted, loaded with relations.

    See ``readinglist.query`` for the language and the sort keys. Raises InvalidQuery.
    """
    from readinglist import query  # here: `show` and `mark REF` never parse a query

    ids = query.paper_ids(session, query_text, sort=sort, limit=limit, reverse=reverse)
    return load_papers(session, ids)


def select_ids_and_keys(session: Session, query_text: str = "") -> list[tuple[int, str]]:
    """Return ``(id, citation key)`` of the papers ``query_text`` selects, in
    :func:`select_papers` order, in one query and without loading papers (``export``).

    Raises InvalidQuery.
    """
    from readinglist import query

    stmt = query.statement(session, query_text, (Paper.id, Paper.citekey))
    # Columns only: run on the connection, without the ORM's row handling (100,000
    # papers: about a third of a second less, issue 17).
    rows = session.connection().execute(stmt).all()  # one fetch, not one per row
    return [(int(paper_id), str(key)) for paper_id, key in rows]


def papers_for_keys(session: Session, refs: Sequence[str]) -> tuple[list[Paper], list[str]]:
    """Return ``(papers, missing refs)`` for citation keys or aliases, in first-seen order.

    The papers come loaded with people, tags and notes (:func:`load_papers`).
    """
    found, missing = _find_all(session, refs)
    return load_papers(session, [p.id for p in found]), missing


def _find_all(session: Session, refs: Sequence[str]) -> tuple[list[Paper], list[str]]:
    """Return ``(papers of refs in first-seen order without repeats, unknown refs)``."""
    papers: list[Paper] = []
    unknown: list[str] = []
    seen: set[int] = set()
    for ref in refs:
        paper = find_paper(session, ref)
        if paper is None:
            unknown.append(ref)
        elif paper.id not in seen:
            seen.add(paper.id)
            papers.append(paper)
    return papers, unknown
