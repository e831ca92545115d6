"""Rows <-> records: PaperRecord values built from stored papers, and people rows written.

:func:`to_record` and :func:`iter_records` build the same records (ORM objects vs.
plain Core rows a chunk at a time); :func:`bibliographic_digest` is the digest the
library stores at import to know whether ``source_text`` may be exported verbatim.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import (
    Select,
    bindparam,
    select,
    update,
)

from readinglist import decided
from readinglist.digest import json_digest
from readinglist.library._sql import CHUNK, executemany, insert_rows
from readinglist.records import (
    PRIORITY_NAMES,
    NoteRecord,
    PaperRecord,
)
from readinglist.records import Person as PersonRecord
from readinglist.tables import (
    ALIASES,
    IMPORT_BATCHES,
    NOTES,
    PAPER_PEOPLE,
    PAPER_TAGS,
    PAPERS,
    PEOPLE,
    TAGS,
    Executor,
    connection_of,
)
from readinglist.text import fold

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from readinglist.models import Paper, Person

#: Papers per chunk of :func:`iter_records`.
RECORD_CHUNK = 1000


#: People (name key -> id) an import remembers across chunks before it starts afresh.
PERSON_CACHE = 50_000


def person_key(person: PersonRecord) -> str:
    """Return the exact identity string of a person's name parts (``people.name_key``)."""
    return "|".join((person.family, person.given, person.von, person.jr, person.literal))


def bibliographic_digest(record: PaperRecord) -> str:
    """Return a SHA-256 hex digest of the record's bibliographic data.

    Covers key, entry type, title, people, year, month, venue, abstract, DOI,
    arXiv id, URLs, keywords and fields; not read status, priority, tags or notes.
    Export compares it with the digest stored at import to decide whether the
    entry is untouched and ``source_text`` can be written byte for byte.
    """
    data = [
        record.citekey,
        record.entry_type,
        record.title,
        record.short_name,
        [person_key(p) for p in record.authors],
        [person_key(p) for p in record.editors],
        record.year,
        record.month,
        record.venue,
        record.abstract,
        record.doi,
        record.arxiv,
        record.url,
        record.code_url,
        list(record.keywords),
        sorted(record.fields.items()),
    ]
    return json_digest(data)


#: The ``Paper`` attributes that hold bibliographic data (what
#: ``formats.bibtex.bibliographic_fingerprint`` covers, people included) or the source
#: text and its check: a flush that changes one clears ``papers.source_intact``.
BIBLIOGRAPHIC_ATTRIBUTES = (
    "citekey",
    "entry_type",
    "title",
    "people",
    "year",
    "month",
    "venue",
    "abstract",
    "doi",
    "arxiv",
    "url",
    "keywords",
    "fields",
    "source_text",
    "source_check",
    "source_strings_read",
)
#: ``session.info`` key of the ids of papers whose bibliographic data a flush changes
#: (the flush hooks of :mod:`readinglist.library.hooks`).
SOURCES_CHANGED = "readinglist.sources_changed"


def sources_changed(session: Executor, ids: Iterable[int]) -> None:
    """Record that the bibliographic data of papers ``ids`` changed: their
    ``papers.source_intact`` becomes NULL (a BibTeX export checks them again instead
    of trusting ``source_check``; migration 0005). The one home of "bibliographic data
    changed": the Session's flush hook calls it for ORM changes (a Paper's
    :data:`BIBLIOGRAPHIC_ATTRIBUTES`, people links added or removed),
    :func:`insert_people` for any paper it links people to after the import that made
    it, and a Core write of those columns calls it (or sets the column) itself."""
    papers = PAPERS
    wanted = sorted(set(ids))
    for start in range(0, len(wanted), CHUNK):
        session.execute(
            update(papers)
            .where(
                papers.c.id.in_(wanted[start : start + CHUNK]),
                papers.c.source_intact.is_not(None),
            )
            .values(source_intact=None)
        )


def keywords_text(keywords: Iterable[str]) -> str | None:
    """Return keywords as the ``papers.keywords`` column stores them (comma-joined), or None."""
    joined = ", ".join(k for k in keywords if k)
    return joined or None


def split_keywords(text: str | None) -> tuple[str, ...]:
    """Return the keywords of a ``papers.keywords`` value (the inverse of :func:`keywords_text`)."""
    if not text:
        return ()
    return tuple(k.strip() for k in text.split(",") if k.strip())


def record_values(record: PaperRecord) -> dict[str, Any]:
    """Return the ``papers`` column values of ``record``'s bibliographic data
    (the columns of ``records.FILLABLE`` and ``title_provisional``)."""
    return {
        "title": record.title,
        "title_provisional": record.title_provisional,
        "short_name": record.short_name,
        "year": record.year,
        "month": record.month,
        "venue": record.venue,
        "abstract": record.abstract,
        "doi": record.doi,
        "arxiv": record.arxiv,
        "url": record.url,
        "code_url": record.code_url,
        "keywords": keywords_text(record.keywords),
    }


def to_record(paper: Paper, *, with_notes: bool = True, with_aliases: bool = False) -> PaperRecord:
    """Build the PaperRecord of ``paper`` with its user state (status, priority, tags, notes).

    ``source_text`` is kept only while the bibliographic data is unchanged since
    import (the stored digest matches), so writers may reproduce it verbatim.
    ``with_aliases`` also gives its old keys (``aliases``, sorted case-insensitively;
    one more query unless loaded), as :func:`iter_records` does.
    """
    record = record_of(
        paper,
        tuple(person_record(pp.person) for pp in paper.people if pp.role == "author"),
        tuple(person_record(pp.person) for pp in paper.people if pp.role == "editor"),
        tuple(tag.name for tag in paper.tags),
        tuple(
            NoteRecord(text=n.body, created=n.created_at, updated=n.updated_at) for n in paper.notes
        )
        if with_notes
        else (),
    )
    if with_aliases:
        record = replace(record, aliases=_sorted_aliases(a.alias for a in paper.aliases))
    return record


def _sorted_aliases(aliases: Iterable[str]) -> tuple[str, ...]:
    """Old keys in the order exports write them: case-insensitively, then as written."""
    return tuple(sorted(aliases, key=lambda alias: (alias.casefold(), alias)))


#: The aliases of some papers (Core, the ids an expanding parameter: compiled once).
_ALIASES = select(ALIASES.c.paper_id, ALIASES.c.alias).where(
    ALIASES.c.paper_id.in_(bindparam("ids", expanding=True))
)


def aliases_by_paper(session: Executor, ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
    """Return the old keys (aliases) of the papers ``ids`` (one ``IN`` query), each
    paper's sorted by :func:`_sorted_aliases`; papers without any are missing."""
    found: dict[int, list[str]] = defaultdict(list)
    for pid, alias in connection_of(session).execute(_ALIASES, {"ids": list(ids)}):
        found[pid].append(alias)
    return {pid: _sorted_aliases(aliases) for pid, aliases in found.items()}


def record_of(
    row: Any,
    authors: tuple[PersonRecord, ...],
    editors: tuple[PersonRecord, ...],
    tags: tuple[str, ...],
    notes: tuple[NoteRecord, ...],
    *,
    with_source: bool = True,
    latex_fields: bool = True,
    checked_source: bool = False,
    strings_read: int | None = None,
) -> PaperRecord:
    """The PaperRecord of a paper ``row`` (a :class:`Paper` or a Core row of ``papers``)
    and its people, tags and notes; ``source_text`` (and its ``source_check``) only
    while the stored digest says the bibliographic data is as imported, never with
    ``with_source=False`` (the row then need not hold :data:`SOURCE_COLUMNS`).

    ``checked_source``: the caller checks a ``source_text`` that has a ``source_check``
    against the record itself (the BibTeX writer does, :func:`readinglist.formats.
    bibtex.source_check`, whose data half covers everything the writer writes), so
    such a row gives them (with ``strings_read``) without the digest being computed:
    100,000 papers, about 2 s less (issue 17)."""
    source: dict[str, Any] = {}
    if with_source and checked_source and row.source_text and row.source_check:
        source = {
            "source_text": row.source_text,
            "source_check": row.source_check,
            "strings_read": strings_read,
        }
    record = PaperRecord(
        citekey=row.citekey,
        entry_type=row.entry_type,
        title=row.title,
        title_provisional=row.title_provisional,
        citekey_provisional=bool(getattr(row, "citekey_provisional", False)),
        short_name=row.short_name,
        authors=authors,
        editors=editors,
        year=row.year,
        month=row.month,
        venue=row.venue,
        abstract=row.abstract,
        doi=row.doi,
        arxiv=row.arxiv,
        url=row.url,
        code_url=row.code_url,
        keywords=split_keywords(row.keywords),
        fields=dict(row.fields or {}),
        status=row.status,
        priority=PRIORITY_NAMES.get(row.priority) if row.priority is not None else None,
        tags=tags,
        notes=notes,
        added=row.added_at,
        read_at=row.read_at,
        latex_fields=latex_fields,
        **source,
    )
    if (
        with_source
        and not source
        and row.source_text
        and row.source_digest == bibliographic_digest(record)
    ):
        record = replace(
            record,
            source_text=row.source_text,
            source_check=row.source_check,
            strings_read=strings_read,
        )
    return record


def person_record(person: Person) -> PersonRecord:
    """Return the PersonRecord of a stored :class:`~readinglist.models.Person`."""
    return PersonRecord(
        family=person.family,
        given=person.given,
        von=person.von,
        jr=person.jr,
        literal=person.literal,
    )


#: The ``papers`` columns only the BibTeX writer (``source_text`` copied verbatim while
#: the digest matches) or the search index reads: other exports skip them (issue 17).
SOURCE_COLUMNS = (
    "source_text",
    "source_digest",
    "source_check",
    "source_strings_read",
    "search_text",
)


#: The ``papers`` columns no PaperRecord holds: :func:`iter_records` does not read them
#: (``search_text`` alone is about a third of a Beebe row).
_UNRECORDED = frozenset(
    {"search_text", "citekey_folded", "title_key", "abstract_key", "updated_at"}
)


@lru_cache(maxsize=1)
def _tags_query() -> Select[Any]:
    """The query of :func:`tags_by_paper`, its ids one expanding parameter (compiled
    once per process, as :func:`_people_query`)."""
    links, names = PAPER_TAGS, TAGS
    return (
        select(links.c.paper_id, names.c.name)
        .join(names, names.c.id == links.c.tag_id)
        .where(links.c.paper_id.in_(bindparam("ids", expanding=True)))
        .order_by(names.c.name_folded, names.c.name)
    )


def tags_by_paper(session: Executor, ids: Sequence[int]) -> dict[int, list[str]]:
    """Return the tag names of the papers ``ids`` (one chunk: one ``IN`` query), each
    paper's in ``ORDER BY tags.name_folded`` order, as the ORM relationship
    ``Paper.tags`` orders them (``show`` and exports list a paper's tags alike);
    untagged papers are missing from the dict."""
    tags: dict[int, list[str]] = defaultdict(list)
    # Core: no ORM row handling (issue 17)
    for pid, name in connection_of(session).execute(_tags_query(), {"ids": list(ids)}).all():
        tags[pid].append(name)
    return tags


def bibtex_batch_ids(session: Executor) -> frozenset[int]:
    """The ids of the import batches that read BibTeX: a paper one of them added (or one
    with a BibTeX ``source_text``) holds LaTeX in its fields, any other plain text
    (``PaperRecord.latex_fields``)."""
    query = select(IMPORT_BATCHES.c.id).where(IMPORT_BATCHES.c.format == "bibtex")
    return frozenset(connection_of(session).scalars(query))


def strings_read(
    string_offsets: Mapping[int, int] | None, batch_id: int | None, stored: int | None
) -> int | None:
    """The ``@string`` blocks before a stored entry in an export's text: its import
    batch's offset there (``string_offsets``) plus the count stored with the entry
    (``source_strings_read``); None when either is unknown."""
    if not string_offsets or batch_id is None or stored is None:
        return None
    before = string_offsets.get(batch_id)
    return None if before is None else before + stored


@lru_cache(maxsize=2)
def _people_query(with_editors: bool) -> Select[Any]:
    """The query of :func:`people_by_paper`, built once: its ids are one expanding
    parameter, so SQLAlchemy compiles it once per process, not once per chunk of
    1,000 literal ids (issue 17)."""
    links = PAPER_PEOPLE
    people = PEOPLE
    query = (
        select(
            links.c.paper_id,
            links.c.role,
            people.c.family,
            people.c.given,
            people.c.von,
            people.c.jr,
            people.c.literal,
        )
        .join(people, people.c.id == links.c.person_id)
        .where(links.c.paper_id.in_(bindparam("ids", expanding=True)))
        .order_by(links.c.paper_id, links.c.role, links.c.position)
    )
    return query if with_editors else query.where(links.c.role == "author")


def people_by_paper(
    session: Executor, ids: Sequence[int], *, with_editors: bool = True
) -> tuple[dict[int, list[PersonRecord]], dict[int, list[PersonRecord]]]:
    """Return ``(authors, editors)`` of the papers ``ids``: paper id -> people in their
    order, read with one Core query on the session's connection (no ORM objects).
    ``with_editors=False`` reads authors only (the editors map stays empty). The one
    reader of people for every whole-library read (issue 17)."""
    authors: dict[int, list[PersonRecord]] = defaultdict(list)
    editors: dict[int, list[PersonRecord]] = defaultdict(list)
    by_role = {"author": authors, "editor": editors}
    rows = connection_of(session).execute(_people_query(with_editors), {"ids": list(ids)})
    known = _PERSON_RECORDS
    if len(known) > PERSON_CACHE:
        known.clear()
    for row in rows.all():
        named = by_role.get(row[1])
        if named is not None:
            name = cast(tuple[str, ...], row[2:])  # family, given, von, jr, literal
            person = known.get(name)
            if person is None:
                person = known[name] = PersonRecord(*name)
            named[row[0]].append(person)
    return authors, editors


#: The PersonRecords :func:`people_by_paper` built, by their name parts: a person named
#: in many papers is one (frozen) record, not one per paper (a whole-library read meets
#: each of ~300,000 names several times; a lookup costs a twentieth of a new record).
#: Emptied when it holds more than :data:`PERSON_CACHE` names.
_PERSON_RECORDS: dict[tuple[str, ...], PersonRecord] = {}


def notes_by_paper(
    session: Executor, ids: Sequence[int], *, shared_only: bool = False
) -> dict[int, list[NoteRecord]]:
    """Return paper id -> the notes the current reader sees (:func:`visible_note`; oldest
    first) for the papers ``ids``, read with one Core query on the session's connection;
    ``shared_only``: the shared notes alone, whoever reads (the full-text index's)."""
    notes_table = NOTES
    notes: dict[int, list[NoteRecord]] = defaultdict(list)
    for pid, body, created, updated in (
        connection_of(session)
        .execute(
            select(
                notes_table.c.paper_id,
                notes_table.c.body,
                notes_table.c.created_at,
                notes_table.c.updated_at,
            )
            .where(
                notes_table.c.paper_id.in_(list(ids)),
                notes_table.c.shared.is_(True)
                if shared_only
                else decided.visible_note(notes_table),
            )
            .order_by(notes_table.c.id)
        )
        .all()
    ):
        notes[pid].append(NoteRecord(text=body, created=created, updated=updated))
    return notes


def iter_records(
    session: Executor,
    ids: Sequence[int],
    *,
    with_notes: bool = True,
    with_source: bool = True,
    chunk: int = RECORD_CHUNK,
    string_offsets: Mapping[int, int] | None = None,
    checked_source: bool = False,
) -> Iterator[PaperRecord]:
    """Yield the PaperRecord of each paper of ``ids``, in that order (unknown ids skipped).

    The same records as :func:`to_record` (``with_aliases=True``) over
    :func:`load_papers`, built from plain Core rows a chunk of papers at a time: five
    queries per chunk (papers, people, tags, aliases, notes), no ORM objects and nothing kept after a chunk, so ``export`` of a
    100,000-paper library runs in bounded memory (issue 9). Tags come in the order of
    ``ORDER BY tags.name`` and people by role and position, as the ORM relationships
    order them. ``with_source=False`` (RIS, CSL-JSON, Markdown) reads neither
    :data:`SOURCE_COLUMNS` nor computes the digest: ``source_text`` stays None.
    ``string_offsets`` (batch id -> the ``@string`` blocks before that batch's in the
    export's text, ``formats.bibtex.string_offsets``) gives a record with its source
    text its ``strings_read`` in that text; ``checked_source`` as for :func:`record_of`.
    """
    papers = PAPERS
    columns: list[Any] = [
        c
        for c in papers.c
        if c.name not in _UNRECORDED and (with_source or c.name not in SOURCE_COLUMNS)
    ]
    columns += [decided.column(name) for name in decided.COLUMNS]
    if not with_source:  # provenance without reading the source text (latex_fields)
        columns.append(papers.c.source_text.is_not(None).label("has_source"))
    bibtex_batches = bibtex_batch_ids(session)
    for start in range(0, len(ids), chunk):
        part = list(ids[start : start + chunk])
        result = session.execute(select(*columns).where(papers.c.id.in_(part)))
        names = list(result.keys())
        rows = {row[0]: row for row in result}
        authors, editors = people_by_paper(session, part)
        tags = tags_by_paper(session, part)
        aliases = aliases_by_paper(session, part)
        notes = notes_by_paper(session, part) if with_notes else {}
        for pid in part:
            if pid not in rows:
                continue
            # One plain object per row, when it is used: a Row resolves each attribute
            # by name through __getattr__, about ten times a plain attribute (issue 17).
            row = SimpleNamespace(**dict(zip(names, rows[pid], strict=True)))
            read = strings_read(
                string_offsets, row.batch_id, row.source_strings_read if with_source else None
            )
            record = record_of(
                row,
                tuple(authors.get(pid, ())),
                tuple(editors.get(pid, ())),
                tuple(tags.get(pid, ())),
                tuple(notes.get(pid, ())),
                with_source=with_source,
                latex_fields=bool(row.source_text if with_source else row.has_source)
                or row.batch_id in bibtex_batches,
                checked_source=checked_source,
                strings_read=read,
            )
            if pid in aliases:
                record = replace(record, aliases=aliases[pid])
            yield record


def load_papers(
    session: Session,
    ids: Sequence[int] | None = None,
    *,
    lock: bool = False,
    fresh: bool = False,
) -> list[Paper]:
    """Load papers (all, or ``ids`` in that order) with people, tags and notes in few queries.

    ``lock=True`` (with ``ids``) first locks the papers' rows until the transaction
    ends (PostgreSQL ``FOR NO KEY UPDATE``, in id order; SQLite's write lock is
    already held) and reloads them, people, tags and notes, as committed by then.
    ``fresh=True`` reloads objects the session holds already (papers, their people
    links and people), after Core statements changed their rows.
    """
    from sqlalchemy.orm import selectinload

    from readinglist.models import Paper, PaperPerson

    stmt = select(Paper).options(
        selectinload(Paper.people).joinedload(PaperPerson.person),
        selectinload(Paper.tags),
        selectinload(Paper.notes),
    )
    if lock:
        # key_share: does not wait for the FOR KEY SHARE locks that inserting a
        # paper_tags/notes row takes on the paper (which would deadlock two taggers).
        stmt = (
            stmt.order_by(Paper.id)
            .with_for_update(key_share=True, of=Paper)
            .execution_options(populate_existing=True)
        )
    if fresh:
        stmt = stmt.execution_options(populate_existing=True)
    if ids is None:
        return list(session.scalars(stmt.order_by(Paper.added_at, Paper.id)))
    found: dict[int, Paper] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        for paper in session.scalars(stmt.where(Paper.id.in_(chunk))):
            found[paper.id] = paper
    return [found[i] for i in ids if i in found]


def load_papers_for_listing(session: Session, ids: Sequence[int]) -> list[Paper]:
    """Load papers ``ids`` in that order with people and tags but not notes (tables, JSON).

    Like :func:`load_papers` with larger chunks and without the notes a listing never shows.
    """
    from sqlalchemy.orm import selectinload

    from readinglist.models import Paper, PaperPerson

    stmt = select(Paper).options(
        selectinload(Paper.people).joinedload(PaperPerson.person), selectinload(Paper.tags)
    )
    found: dict[int, Paper] = {}
    step = CHUNK * 4
    for start in range(0, len(ids), step):
        for paper in session.scalars(stmt.where(Paper.id.in_(ids[start : start + step]))):
            found[paper.id] = paper
    return [found[i] for i in ids if i in found]


def insert_people(
    session: Executor,
    records: Sequence[PaperRecord],
    ids: Sequence[int],
    known: dict[str, int] | None = None,
    *,
    new_papers: bool = False,
) -> None:
    """Insert the people of papers ``ids`` (reusing stored spellings) and their ordered links.

    ``known`` maps ``people.name_key`` to ids already looked up or inserted in this
    transaction (an import keeps one across its chunks); it is updated. Unless
    ``new_papers`` (the import linking the people its new rows were read with), the
    papers' bibliographic data changed (:func:`sources_changed`), whether or not
    ``records`` name anyone (the caller may have removed links first).
    """
    if not new_papers:
        sources_changed(session, ids)
    # Each occurrence's key computed once: (paper id, role, position, key).
    occurrences: list[tuple[int, str, int, str]] = []
    wanted: dict[str, PersonRecord] = {}
    for record, paper_id in zip(records, ids, strict=True):
        for role, people in (("author", record.authors), ("editor", record.editors)):
            for position, person in enumerate(people):
                key = person_key(person)
                occurrences.append((paper_id, role, position, key))
                if key not in wanted:
                    wanted[key] = person
    if not wanted:
        return
    person_ids: dict[str, int] = known if known is not None else {}
    keys = sorted(k for k in wanted if k not in person_ids)
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        for pid, key in session.execute(
            select(PEOPLE.c.id, PEOPLE.c.name_key).where(PEOPLE.c.name_key.in_(chunk))
        ):
            person_ids[key] = pid
    missing = [k for k in keys if k not in person_ids]
    rows = [person_row(k, wanted[k]) for k in missing]
    for row, pid in zip(rows, insert_rows(session, PEOPLE, rows), strict=True):
        person_ids[row["name_key"]] = pid
    links = [
        (paper_id, role, position, person_ids[key]) for paper_id, role, position, key in occurrences
    ]
    executemany(session, PAPER_PEOPLE, links, LINK_COLUMNS)


#: The columns of a ``paper_people`` link as :func:`insert_people` writes them.
LINK_COLUMNS = ("paper_id", "role", "position", "person_id")


def person_row(key: str, person: PersonRecord) -> dict[str, Any]:
    """Return the ``people`` row of ``person`` under ``key`` (:func:`person_key`),
    with the folded family and full names the queries match."""
    family = f"{person.von} {person.family}".strip() or person.literal
    return {
        "name_key": key,
        "family": person.family,
        "given": person.given,
        "von": person.von,
        "jr": person.jr,
        "literal": person.literal,
        "family_folded": fold(family),
        "name_folded": fold(" ".join(filter(None, (person.given, family, person.jr)))),
    }
