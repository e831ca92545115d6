"""Free-text terms in SQL, per dialect: SQLite FTS5 and PostgreSQL ``tsvector``.

A full-text term is ``papers.id IN (SELECT rowid FROM paper_fts WHERE paper_fts MATCH :q)``
on SQLite (FTS5 syntax: ``"w1 w2"`` phrases, ``"w"*`` prefixes) and
``papers.search_vector @@ to_tsquery('simple', :q)`` on PostgreSQL (``w1 <-> w2``, ``w:*``).
Both databases index the same pre-folded ``[a-z0-9]+`` words (the search text of
:mod:`readinglist.text`) with neither stemming nor stop words, so a term selects the same
papers on both; only the ranking differs (SQLite FTS5 ``bm25``, PostgreSQL ``ts_rank``).
The query text is always a bound parameter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, String, column, func, literal, literal_column, select, table
from sqlalchemy.sql.elements import ColumnClause

from readinglist.query.tree import Text
from readinglist.tables import PAPERS

_FTS = table("paper_fts", column("rowid"))
_FTS_TABLE: ColumnClause[Any] = literal_column("paper_fts")
_SEARCH_VECTOR: ColumnClause[Any] = literal_column("papers.search_vector")
_SIMPLE: ColumnClause[Any] = literal_column("'simple'")


def fts5_expression(term: Text) -> str:
    """Return the SQLite FTS5 query of a free-text term: ``"w1 w2"`` with ``*`` for a prefix.

    The words are ``[a-z0-9]+`` (FTS5 "strings", sqlite.org/fts5.html section 3.1).
    """
    return '"' + " ".join(term.words) + '"' + ("*" if term.prefix else "")


def tsquery_expression(term: Text) -> str:
    """Return the PostgreSQL ``to_tsquery`` text of a free-text term: ``w1 <-> w2``, ``w:*``.

    Source: PostgreSQL manual, "Parsing Queries" (``<->`` follows-by, ``:*`` prefix).
    """
    words = list(term.words)
    if term.prefix:
        words[-1] += ":*"
    return " <-> ".join(words)


def _fts5_match(expression: str) -> ColumnElement[bool]:
    """``paper_fts MATCH :expression``."""
    return _FTS_TABLE.op("MATCH", is_comparison=True)(literal(expression, String))


def text_clause(term: Text, dialect: str) -> ColumnElement[bool]:
    """Return the condition on ``papers`` that the free-text ``term`` matches.

    ``dialect`` is ``"sqlite"`` (an FTS5 semi-join) or anything else (PostgreSQL's
    ``search_vector @@ to_tsquery``). Raises nothing.
    """
    if dialect == "sqlite":
        return PAPERS.c.id.in_(select(_FTS.c.rowid).where(_fts5_match(fts5_expression(term))))
    tsquery = func.to_tsquery(_SIMPLE, literal(tsquery_expression(term), String))
    return _SEARCH_VECTOR.op("@@", is_comparison=True)(tsquery)


def matches_words(term: Text, words: Sequence[str]) -> bool:
    """True when the search words ``words`` (``text.search_tokens`` of a text) hold the
    free-text ``term`` as the index would match it: its words in a row, the last one a
    prefix when ``term.prefix`` (FTS5 phrase and ``*``, tsquery ``<->`` and ``:*``)."""
    wanted = list(term.words)
    if not wanted:
        return False
    last, head = wanted[-1], wanted[:-1]
    for start in range(len(words) - len(wanted) + 1):
        found = words[start + len(head)]
        if list(words[start : start + len(head)]) == head and (
            found.startswith(last) if term.prefix else found == last
        ):
            return True
    return False


def rank_sqlite(terms: Sequence[Text]) -> Any:
    """Return a subquery ``(rid, score)`` of FTS5 bm25 scores (lower is better).

    A paper matching any of ``terms`` (at least one) has a row; others have none.
    """
    expression = " OR ".join(fts5_expression(t) for t in terms)
    return (
        select(_FTS.c.rowid.label("rid"), func.bm25(_FTS_TABLE).label("score"))
        .where(_fts5_match(expression))
        .subquery("relevance")
    )


def rank_postgresql(terms: Sequence[Text]) -> tuple[ColumnElement[bool], Any]:
    """Return (whether any of ``terms`` matches, ``ts_rank`` of the terms): higher is better.

    ``ts_rank`` is 0, not NULL, where nothing matches, so the match is returned
    too, to keep those papers last in both directions as on SQLite.
    """
    expression = " | ".join(f"({tsquery_expression(t)})" for t in terms)
    tsquery = func.to_tsquery(_SIMPLE, literal(expression, String))
    matched = _SEARCH_VECTOR.op("@@", is_comparison=True)(tsquery)
    return matched, func.ts_rank(_SEARCH_VECTOR, tsquery)
