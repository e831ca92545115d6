"""Rows for a BibTeX export: the ``@string``/``@preamble`` context of the papers
exported and their records streamed with what the writer copies verbatim (the intact
source text). Split from :mod:`.rows` (its rules, its records), which stays the home of
rows <-> records.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import (
    Select,
    Text,
    bindparam,
    case,
    exists,
    null,
    or_,
    select,
)
from sqlalchemy import cast as sql_cast

from readinglist.library.rows import (
    RECORD_CHUNK,
    aliases_by_paper,
    bibtex_batch_ids,
    notes_by_paper,
    people_by_paper,
    person_key,
    record_of,
    split_keywords,
    strings_read,
    tags_by_paper,
)
from readinglist.records import (
    IntactEntry,
    NoteRecord,
    PaperRecord,
)
from readinglist.records import Person as PersonRecord
from readinglist.tables import (
    IMPORT_BATCHES,
    PAPER_PEOPLE,
    PAPERS,
    PEOPLE,
    Executor,
    connection_of,
)

if TYPE_CHECKING:
    pass


class BibtexContext(NamedTuple):
    """What :func:`bibtex_context` returns: ``strings`` (the ``@string`` blocks, joined
    by line breaks, or None), ``preamble`` (or None) and ``parts``, the ``(batch id,
    @string text)`` pairs ``strings`` joins, in order."""

    strings: str | None
    preamble: str | None
    parts: tuple[tuple[int, str], ...] = ()


def bibtex_context(session: Executor, ids: Iterable[int]) -> BibtexContext:
    """Return the ``@string`` definitions and ``@preamble`` text for exporting ``ids``.

    Each BibTeX import keeps its file's ``@string``/``@preamble`` text with its batch
    (migration 0002; every ``@string`` block in order since 0004). For the papers
    ``ids`` this joins the text of the batches that added at least one of them,
    oldest batch first (None for none), and says which batch gave which part: a
    paper's ``source_strings_read`` counts the blocks of its own batch's text, so
    the writer (``formats.bibtex.Writer``) can give each copied entry the macro
    values it was read with, whatever another import or a later block of the same
    file defines (``formats.bibtex.string_offsets``). Identical preambles are
    written once. One query for the batches and one for their papers.
    """
    # Core statements on the tables: the ORM's mappers are not configured for them.
    connection = connection_of(session)
    batches = connection.execute(
        select(
            IMPORT_BATCHES.c.id, IMPORT_BATCHES.c.bibtex_strings, IMPORT_BATCHES.c.bibtex_preamble
        )
        .where(
            or_(
                IMPORT_BATCHES.c.bibtex_strings.is_not(None),
                IMPORT_BATCHES.c.bibtex_preamble.is_not(None),
            )
        )
        .order_by(IMPORT_BATCHES.c.id)
    ).all()
    if not batches:
        return BibtexContext(None, None)
    wanted = set(ids)
    used = {
        batch_id
        for paper_id, batch_id in connection.execute(
            select(PAPERS.c.id, PAPERS.c.batch_id).where(
                PAPERS.c.batch_id.in_([b.id for b in batches])
            )
        ).all()
        if paper_id in wanted
    }
    parts = tuple((b.id, b.bibtex_strings) for b in batches if b.id in used and b.bibtex_strings)
    preambles = list(
        dict.fromkeys(
            b.bibtex_preamble.strip() for b in batches if b.id in used and b.bibtex_preamble
        )
    )
    strings = "\n".join(text for _, text in parts)
    return BibtexContext(strings or None, "\n".join(preambles) or None, parts)


class _BibtexRow(NamedTuple):
    """A ``papers`` row as the BibTeX writer reads it (:func:`iter_bibtex_records`): the
    columns :func:`record_of` takes for a ``.bib`` entry, then the user state no entry
    holds (status, priority, dates, short name, code URL), not read: None. A tuple is
    built and read several times faster than a SimpleNamespace (issue 17)."""

    id: int
    citekey: str
    entry_type: str
    title: str | None
    title_provisional: bool
    citekey_provisional: bool
    year: int | None
    month: int | None
    venue: str | None
    abstract: str | None
    doi: str | None
    arxiv: str | None
    url: str | None
    keywords: str | None
    fields: dict[str, str] | None
    source_text: str | None
    source_digest: str | None
    source_check: str | None
    source_strings_read: int | None
    batch_id: int | None
    short_name: None = None
    code_url: None = None
    status: None = None
    priority: None = None
    added_at: None = None
    read_at: None = None


#: The ``papers`` columns the BibTeX writer reads (:func:`iter_bibtex_records`): no
#: user state (status, priority, dates: the writer prints none), no search text.
BIBTEX_COLUMNS = _BibtexRow._fields[: -len(_BibtexRow._field_defaults)]


def iter_bibtex_records(
    session: Executor,
    ids: Sequence[int],
    *,
    string_offsets: Mapping[int, int] | None = None,
    with_tags: bool = False,
    with_notes: bool = False,
    chunk: int = RECORD_CHUNK,
    intact_fields: Sequence[str] | None = None,
    with_aliases: bool = True,
) -> Iterator[PaperRecord | IntactEntry]:
    """Yield, for each paper of ``ids`` in that order (unknown ids skipped), the
    PaperRecord the BibTeX writer needs: what :func:`iter_records` gives with
    ``checked_source=True``, except the user state no ``.bib`` entry holds (status,
    priority, added and read dates, short name, code URL: None), and tags and notes
    only when asked (``with_tags`` for ``--keywords``, ``with_notes`` for
    ``--annote``).

    With ``intact_fields`` (the fields the writer's copy rules read,
    ``formats.bibtex.COPY_RULE_FIELDS``), a paper whose row vouches that its data is
    still its source text's (``source_intact``, with a ``source_check``), whose title
    is not provisional and which has an author other than ``others`` is yielded as an
    :class:`~readinglist.records.IntactEntry` instead: its people and its other
    fields are not read (issue 17 item 2: at 100,000 papers, decoding them and
    recomputing the digest was most of the export).

    Per chunk of papers: Core queries on the session's connection (no ORM execution,
    no identity map) for :data:`BIBTEX_COLUMNS` (the intact entries' row first, the
    others' then), the people, the aliases, and the tags and notes when asked; no
    digest is computed for a row with a ``source_check`` (the writer checks it,
    :func:`record_of`). ``string_offsets`` as for :func:`iter_records`.
    ``with_aliases=False`` leaves the old keys out (``aliases`` empty, one query per
    chunk less): a writer that prints none (``formats.bibtex.Writer.reads_aliases``).
    """
    bibtex_batches = bibtex_batch_ids(session)
    intact_query = _intact_query(intact_fields) if intact_fields is not None else None
    for start in range(0, len(ids), chunk):
        part = list(ids[start : start + chunk])
        tags = tags_by_paper(session, part) if with_tags else {}
        aliases = aliases_by_paper(session, part) if with_aliases else {}
        notes = notes_by_paper(session, part) if with_notes else {}
        intact: dict[int, IntactEntry] = {}
        if intact_query is not None and intact_fields is not None:
            intact = _intact_rows(session, intact_query, part, intact_fields, string_offsets)
        rest = [pid for pid in part if pid not in intact]
        records = (
            _bibtex_records(session, rest, string_offsets, bibtex_batches, tags, notes)
            if rest
            else {}
        )
        for pid in part:
            found = intact.get(pid)
            if found is not None:
                if pid in aliases or pid in tags or pid in notes:
                    found = found._replace(
                        aliases=aliases.get(pid, ()),
                        tags=tuple(tags.get(pid, ())),
                        notes=tuple(notes.get(pid, ())),
                    )
                yield found
                continue
            record = records.get(pid)
            if record is None:
                continue
            yield replace(record, aliases=aliases[pid]) if pid in aliases else record


def _intact_query(intact_fields: Sequence[str]) -> Select[Any]:
    """The query of :func:`_intact_rows` (the ids an expanding parameter ``ids``: built
    once, not per chunk; 1,000 literals per statement cost more than the query)."""
    papers = PAPERS
    links = PAPER_PEOPLE
    people = PEOPLE
    # A first author that is not the ``and others`` mark (records.Person.is_others)
    # makes ``citation_problems`` find an author: one probe of the links' primary key,
    # the mark's person found by the unique ``name_key`` (a scan of ``people`` for
    # ``literal`` per chunk cost more than the rest of the query).
    others = select(people.c.id).where(
        people.c.name_key == person_key(PersonRecord(literal="others"))
    )
    authored = exists().where(
        links.c.paper_id == papers.c.id,
        links.c.role == "author",
        links.c.position == 0,
        links.c.person_id.not_in(others),
    )
    # ``fields`` is read only when its JSON text names one of them (a superset: then
    # decoded and looked up): most rows name none, and their fields are never read.
    fields_text = sql_cast(papers.c.fields, Text)
    named = or_(
        *(fields_text.contains(json.dumps(name), autoescape=True) for name in intact_fields)
    )
    return select(
        papers.c.id,
        papers.c.citekey,
        papers.c.entry_type,
        papers.c.citekey_provisional,
        papers.c.keywords,
        case((named, fields_text), else_=None) if intact_fields else null(),
        papers.c.source_text,
        papers.c.source_check,
        papers.c.source_strings_read,
        papers.c.batch_id,
    ).where(
        papers.c.id.in_(bindparam("ids", expanding=True)),
        papers.c.source_intact.is_(True),
        papers.c.source_check.is_not(None),
        papers.c.source_text.is_not(None),
        papers.c.title_provisional.is_(False),
        authored,
    )


def _intact_rows(
    session: Executor,
    query: Select[Any],
    part: list[int],
    intact_fields: Sequence[str],
    string_offsets: Mapping[int, int] | None,
) -> dict[int, IntactEntry]:
    """The papers of ``part`` :func:`iter_bibtex_records` yields as IntactEntry (without
    aliases, tags and notes yet), by id: ``query`` (:func:`_intact_query`), no people;
    ``fields`` read only when its JSON text names one of ``intact_fields`` (then
    decoded, only those kept)."""
    found: dict[int, IntactEntry] = {}
    for pid, key, entry_type, key_mark, keywords, some_fields, text, check, read, batch in (
        connection_of(session).execute(query, {"ids": part}).all()
    ):
        fields: dict[str, str] = {}
        if some_fields:
            decoded = json.loads(some_fields)
            fields = {name: decoded[name] for name in intact_fields if name in decoded}
        found[pid] = IntactEntry(
            pid,
            key,
            entry_type,
            bool(key_mark),
            split_keywords(keywords),
            fields,
            text,
            check,
            strings_read(string_offsets, batch, read),
        )
    return found


def _bibtex_records(
    session: Executor,
    part: list[int],
    string_offsets: Mapping[int, int] | None,
    bibtex_batches: frozenset[int],
    tags: Mapping[int, list[str]],
    notes: Mapping[int, list[NoteRecord]],
) -> dict[int, PaperRecord]:
    """The whole records of papers ``part`` for :func:`iter_bibtex_records` (without
    aliases), by id."""
    papers = PAPERS
    columns = [papers.c[name] for name in BIBTEX_COLUMNS]
    rows = {
        row[0]: row
        for row in connection_of(session)
        .execute(select(*columns).where(papers.c.id.in_(part)))
        .all()
    }
    authors, editors = people_by_paper(session, part)
    records: dict[int, PaperRecord] = {}
    for pid, values in rows.items():
        row = _BibtexRow(*values)
        read = strings_read(string_offsets, row.batch_id, row.source_strings_read)
        records[pid] = record_of(
            row,
            tuple(authors.get(pid, ())),
            tuple(editors.get(pid, ())),
            tuple(tags.get(pid, ())),
            tuple(notes.get(pid, ())),
            latex_fields=bool(row.source_text) or row.batch_id in bibtex_batches,
            checked_source=True,
            strings_read=read,
        )
    return records
