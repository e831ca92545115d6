"""Rows for a listing or a text export: the columns ``list`` and the writers read
(decision columns of the current reader among them, :mod:`readinglist.decided`) and
the records streamed from them in bounded memory. Split from :mod:`.rows` (its rules,
its records), which stays the home of rows <-> records.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    bindparam,
    select,
)

from readinglist import decided
from readinglist.library.rows import (
    RECORD_CHUNK,
    notes_by_paper,
    people_by_paper,
    split_keywords,
    tags_by_paper,
)
from readinglist.records import (
    PRIORITY_NAMES,
    PaperRecord,
)
from readinglist.tables import (
    PAPERS,
    Executor,
    connection_of,
)

if TYPE_CHECKING:
    pass


#: The ``papers`` columns a listing shows (``list`` tables and ``--json``, issue 17).
LISTING_COLUMNS = (
    "id",
    "citekey",
    "entry_type",
    "title",
    "title_provisional",
    "short_name",
    "year",
    "venue",
    "abstract",
    "status",
    "priority",
    "doi",
    "arxiv",
    "url",
    "code_url",
    "added_at",
    "read_at",
)


#: The ``papers`` columns a table of papers shows (``list`` without ``--json``).
TABLE_COLUMNS = ("id", "citekey", "title", "title_provisional", "year", "status", "priority")


#: The ``papers`` columns that hold a PaperRecord's data and user state, without
#: :data:`SOURCE_COLUMNS` (``id`` first): what RIS and CSL-JSON export read (issue 17).
RECORD_COLUMNS = (
    "id",
    "citekey",
    "entry_type",
    "title",
    "title_provisional",
    "citekey_provisional",
    "short_name",
    "year",
    "month",
    "venue",
    "abstract",
    "doi",
    "arxiv",
    "url",
    "code_url",
    "keywords",
    "fields",
    "status",
    "priority",
    "added_at",
    "read_at",
)


#: The PaperRecord field of a ``papers`` column whose name differs.
_FIELD_OF_COLUMN = {"added_at": "added"}


def record_columns(names: Iterable[str]) -> tuple[str, ...]:
    """Return the ``papers`` columns that hold the PaperRecord fields ``names`` (``id``
    first), for :func:`iter_listing_records`: a writer names what it reads (e.g.
    ``formats.markdown.RECORD_FIELDS``), the reader selects only that. People, tags and
    notes are not columns (:func:`iter_listing_records` reads them by its flags); a
    name that is neither a column nor one of those raises KeyError."""
    papers = PAPERS
    column_of = {field: column for column, field in _FIELD_OF_COLUMN.items()}
    columns = ["id"]
    for name in names:
        if name in ("authors", "editors", "tags", "notes"):
            continue
        column = column_of.get(name, name)
        if column not in papers.c and column not in decided.COLUMNS:
            raise KeyError(f"no papers column holds the record field {name!r}")
        if column not in columns:
            columns.append(column)
    return tuple(columns)


def _priority_name(code: int | None) -> str | None:
    return PRIORITY_NAMES.get(code) if code is not None else None


#: How a ``papers`` value becomes its PaperRecord field's value (others are taken as read).
_CONVERT: dict[str, Any] = {
    "priority": _priority_name,
    "keywords": split_keywords,
    "fields": lambda value: dict(value or {}),
    "citekey_provisional": bool,
}


def iter_listing_records(
    session: Executor,
    ids: Sequence[int],
    *,
    chunk: int = RECORD_CHUNK,
    columns: Sequence[str] = LISTING_COLUMNS,
    with_tags: bool = True,
    with_editors: bool = False,
    with_notes: bool = False,
    shared_notes_only: bool = False,
) -> Iterator[tuple[int, PaperRecord]]:
    """Yield, for each paper of ``ids`` in that order, its id and a PaperRecord with what
    a listing or a text export shows: the ``columns`` (:data:`LISTING_COLUMNS`,
    :data:`TABLE_COLUMNS` for a table, or :func:`record_columns` of what a writer reads;
    ``id`` first), authors (in order), editors (with ``with_editors``), tags (by folded
    name, as the ORM relationship orders them; none without ``with_tags``) and notes (oldest
    first, with ``with_notes``: those the current reader sees, or with
    ``shared_notes_only`` the shared ones alone).

    Streams in bounded memory (issue 17): per chunk of papers a few Core queries on
    the session's connection (those columns only, people joined to their links,
    tags, notes), each fetched at once; no ORM objects, no identity map, no digest,
    no ``source_text``; other fields keep their defaults (``aliases`` empty,
    ``latex_fields`` True). Unknown ids are skipped.
    """
    papers = PAPERS
    selected = [decided.paper_column(name) for name in columns]
    names = [_FIELD_OF_COLUMN.get(name, name) for name in columns[1:]]
    converted = [(i, _CONVERT[name]) for i, name in enumerate(columns[1:]) if name in _CONVERT]
    connection = connection_of(session)
    # One statement, its ids an expanding parameter: compiled once, not per chunk.
    query = select(*selected).where(papers.c.id.in_(bindparam("ids", expanding=True)))
    for start in range(0, len(ids), chunk):
        part = list(ids[start : start + chunk])
        rows = {row[0]: row for row in connection.execute(query, {"ids": part}).all()}
        authors, editors = people_by_paper(session, part, with_editors=with_editors)
        tags = tags_by_paper(session, part) if with_tags else {}
        notes = notes_by_paper(session, part, shared_only=shared_notes_only) if with_notes else {}
        for pid in part:
            row = rows.get(pid)
            if row is None:
                continue
            values = list(row[1:])
            for index, convert in converted:
                values[index] = convert(values[index])
            record = dict(zip(names, values, strict=True))
            record["authors"] = tuple(authors.get(pid, ()))
            if with_editors:
                record["editors"] = tuple(editors.get(pid, ()))
            if with_tags:
                record["tags"] = tuple(tags.get(pid, ()))
            if with_notes:
                record["notes"] = tuple(notes.get(pid, ()))
            yield pid, PaperRecord(**record)
