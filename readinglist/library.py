"""Domain operations on a reading list. Every function takes a Session and never commits.

The caller (a CLI command) owns the transaction (``db.session_scope``), so an
import, a merge or a batch of marks is all-or-nothing. This module never parses
text (``formats`` do) and never prints (``render`` does).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy import text as sql_text
from sqlalchemy.orm import Session, selectinload

from readinglist import citekeys, dedupe
from readinglist.errors import NotFound
from readinglist.models import (
    PRIORITY_NAMES,
    Alias,
    ImportBatch,
    Note,
    Paper,
    PaperPerson,
    PaperTag,
    Person,
    Tag,
    utcnow,
)
from readinglist.prepare import Prepared, normalize_record, prepare_record
from readinglist.records import PRIORITY_LEVELS, NoteRecord, PaperRecord, ParseProblem
from readinglist.records import Person as PersonRecord
from readinglist.text import fold, search_document, search_tokens, title_key

#: Paper columns an import may fill when the library's value is missing.
FILLABLE = (
    "title",
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
)
#: Rows per IN (...) look-up and per bulk insert.
CHUNK = 500


# --- references -----------------------------------------------------------------------------


def find_paper(session: Session, ref: str) -> Paper | None:
    """Return the paper whose citation key or alias is ``ref`` (case-insensitive), or None."""
    folded = ref.strip().lower()
    paper = session.scalars(select(Paper).where(Paper.citekey_folded == folded)).first()
    if paper is not None:
        return paper
    return session.scalars(
        select(Paper).join(Alias, Alias.paper_id == Paper.id).where(Alias.alias_folded == folded)
    ).first()


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
    if unknown:
        names = ", ".join(repr(r) for r in unknown)
        noun = "citation key" if len(unknown) == 1 else "citation keys"
        raise NotFound(f"no paper with {noun} {names}; nothing changed")
    return papers


def key_taken(session: Session, folded: str) -> bool:
    """True when ``folded`` (a lower-case key) is a paper's key or an alias."""
    if session.scalar(select(Paper.id).where(Paper.citekey_folded == folded)) is not None:
        return True
    return session.scalar(select(Alias.paper_id).where(Alias.alias_folded == folded)) is not None


# --- records <-> rows ------------------------------------------------------------------------


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
    return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode()).hexdigest()


def _keywords_text(keywords: Iterable[str]) -> str | None:
    joined = ", ".join(k for k in keywords if k)
    return joined or None


def _split_keywords(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(k.strip() for k in text.split(",") if k.strip())


def to_record(paper: Paper, *, with_notes: bool = True) -> PaperRecord:
    """Build the PaperRecord of ``paper`` with its user state (status, priority, tags, notes).

    ``source_text`` is kept only while the bibliographic data is unchanged since
    import (the stored digest matches), so writers may reproduce it verbatim.
    """
    return _record_of(
        paper,
        tuple(_person_record(pp.person) for pp in paper.people if pp.role == "author"),
        tuple(_person_record(pp.person) for pp in paper.people if pp.role == "editor"),
        tuple(tag.name for tag in paper.tags),
        tuple(
            NoteRecord(text=n.body, created=n.created_at, updated=n.updated_at) for n in paper.notes
        )
        if with_notes
        else (),
    )


def _record_of(
    row: Any,
    authors: tuple[PersonRecord, ...],
    editors: tuple[PersonRecord, ...],
    tags: tuple[str, ...],
    notes: tuple[NoteRecord, ...],
) -> PaperRecord:
    """The PaperRecord of a paper ``row`` (a :class:`Paper` or a Core row of ``papers``)
    and its people, tags and notes; ``source_text`` (and its ``source_check``) only
    while the stored digest says the bibliographic data is as imported."""
    record = PaperRecord(
        citekey=row.citekey,
        entry_type=row.entry_type,
        title=row.title,
        title_provisional=row.title_provisional,
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
        keywords=_split_keywords(row.keywords),
        fields=dict(row.fields or {}),
        source_text=None,
        status=row.status,
        priority=PRIORITY_NAMES.get(row.priority) if row.priority is not None else None,
        tags=tags,
        notes=notes,
        added=row.added_at,
        read_at=row.read_at,
    )
    if row.source_text and row.source_digest == bibliographic_digest(record):
        record = replace(record, source_text=row.source_text, source_check=row.source_check)
    return record


def _person_record(person: Person) -> PersonRecord:
    return PersonRecord(
        family=person.family,
        given=person.given,
        von=person.von,
        jr=person.jr,
        literal=person.literal,
    )


#: People (name key -> id) an import remembers across chunks before it starts afresh.
PERSON_CACHE = 50_000

#: Papers per chunk of :func:`iter_records`.
RECORD_CHUNK = 1000


def bibtex_context(session: Session, ids: Iterable[int]) -> tuple[str | None, str | None]:
    """Return the ``@string`` definitions and ``@preamble`` text for exporting ``ids``.

    Each BibTeX import keeps its file's ``@string``/``@preamble`` text with its batch
    (migration 0002). For the papers ``ids`` this joins the text of the batches that
    added at least one of them, oldest batch first, as ``(strings, preamble)`` (None
    for none). When two imports define one macro differently the later definition
    wins; an entry that used the other one is then regenerated by the writer instead
    of copied (``formats.bibtex.Writer`` re-reads every copied entry with these
    macros), so the export never says something its source did not. Identical
    preambles are written once. One query for the batches and one for their papers.
    """
    batches = session.execute(
        select(ImportBatch.id, ImportBatch.bibtex_strings, ImportBatch.bibtex_preamble)
        .where(
            or_(ImportBatch.bibtex_strings.is_not(None), ImportBatch.bibtex_preamble.is_not(None))
        )
        .order_by(ImportBatch.id)
    ).all()
    if not batches:
        return None, None
    wanted = set(ids)
    used = {
        batch_id
        for paper_id, batch_id in session.execute(
            select(Paper.id, Paper.batch_id).where(Paper.batch_id.in_([b.id for b in batches]))
        )
        if paper_id in wanted
    }
    strings = [b.bibtex_strings for b in batches if b.id in used and b.bibtex_strings]
    preambles = list(
        dict.fromkeys(
            b.bibtex_preamble.strip() for b in batches if b.id in used and b.bibtex_preamble
        )
    )
    return ("\n".join(strings) or None, "\n".join(preambles) or None)


def iter_records(
    session: Session, ids: Sequence[int], *, with_notes: bool = True, chunk: int = RECORD_CHUNK
) -> Iterator[PaperRecord]:
    """Yield the PaperRecord of each paper of ``ids``, in that order (unknown ids skipped).

    The same records as :func:`to_record` over :func:`load_papers`, built from plain
    Core rows a chunk of papers at a time: four queries per chunk (papers, people,
    tags, notes), no ORM objects and nothing kept after a chunk, so ``export`` of a
    100,000-paper library runs in bounded memory (issue 9). Tags come in the order of
    ``ORDER BY tags.name`` and people by role and position, as the ORM relationships
    order them.
    """
    papers = Paper.__table__
    for start in range(0, len(ids), chunk):
        part = list(ids[start : start + chunk])
        rows = {row.id: row for row in session.execute(select(papers).where(papers.c.id.in_(part)))}
        people: dict[int, dict[str, list[PersonRecord]]] = defaultdict(
            lambda: {"author": [], "editor": []}
        )
        for pid, role, family, given, von, jr, literal in session.execute(
            select(
                PaperPerson.paper_id,
                PaperPerson.role,
                Person.family,
                Person.given,
                Person.von,
                Person.jr,
                Person.literal,
            )
            .join(Person, Person.id == PaperPerson.person_id)
            .where(PaperPerson.paper_id.in_(part))
            .order_by(PaperPerson.paper_id, PaperPerson.role, PaperPerson.position)
        ):
            people[pid].setdefault(role, []).append(
                PersonRecord(family=family, given=given, von=von, jr=jr, literal=literal)
            )
        tags: dict[int, list[str]] = defaultdict(list)
        for pid, name in session.execute(
            select(PaperTag.paper_id, Tag.name)
            .join(Tag, Tag.id == PaperTag.tag_id)
            .where(PaperTag.paper_id.in_(part))
            .order_by(Tag.name)
        ):
            tags[pid].append(name)
        notes: dict[int, list[NoteRecord]] = defaultdict(list)
        if with_notes:
            for pid, body, created, updated in session.execute(
                select(Note.paper_id, Note.body, Note.created_at, Note.updated_at)
                .where(Note.paper_id.in_(part))
                .order_by(Note.id)
            ):
                notes[pid].append(NoteRecord(text=body, created=created, updated=updated))
        for pid in part:
            row = rows.get(pid)
            if row is None:
                continue
            named = people.get(pid, {})
            yield _record_of(
                row,
                tuple(named.get("author", ())),
                tuple(named.get("editor", ())),
                tuple(tags.get(pid, ())),
                tuple(notes.get(pid, ())),
            )


def load_papers(
    session: Session, ids: Sequence[int] | None = None, *, lock: bool = False
) -> list[Paper]:
    """Load papers (all, or ``ids`` in that order) with people, tags and notes in few queries.

    ``lock=True`` (with ``ids``) first locks the papers' rows until the transaction
    ends (PostgreSQL ``FOR NO KEY UPDATE``, in id order; SQLite's write lock is
    already held) and reloads them, people, tags and notes, as committed by then.
    """
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
    if ids is None:
        return list(session.scalars(stmt.order_by(Paper.added_at, Paper.id)))
    found: dict[int, Paper] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        for paper in session.scalars(stmt.where(Paper.id.in_(chunk))):
            found[paper.id] = paper
    return [found[i] for i in ids if i in found]


def search_text_for(
    record: PaperRecord, tags: Iterable[str] = (), notes: Iterable[str] = ()
) -> str:
    """Return the folded words indexed for full-text search of a paper.

    Title, short name, abstract, authors, editors, venue, keywords, tags and notes.
    Tags are taken in folded-name order, so an import (tags in command-line order)
    and a later refresh (tags in the database's collation order, which differs
    between SQLite and PostgreSQL) write the same text; ``db check`` compares them.
    """
    people = " ".join(p.display() for p in (*record.authors, *record.editors))
    return search_document(
        record.title,
        record.short_name,
        record.abstract,
        people,
        record.venue,
        " ".join(record.keywords),
        " ".join(sorted(tags, key=fold)),
        " ".join(notes),
    )


def _search_text_prepared(item: Prepared, record: PaperRecord, tags: Iterable[str]) -> str:
    """:func:`search_text_for` ``(record, tags)``, reusing the title and abstract words the
    import computed for ``item`` (``record`` is ``item.record`` under its final key)."""
    people = " ".join(p.display() for p in (*record.authors, *record.editors))
    # One string per part (the title's words are its title_key): few objects to keep
    # and to pass from a reader process.
    words = [item.tkey] if item.tkey else []
    if record.short_name:
        words.extend(search_tokens(record.short_name))
    if item.abstract_words:
        words.append(item.abstract_words)
    for part in (people, record.venue, " ".join(record.keywords), " ".join(sorted(tags, key=fold))):
        if part:
            words.extend(search_tokens(part))
    return " ".join(words)


def refresh_search_text(session: Session, paper_ids: Iterable[int]) -> None:
    """Recompute ``search_text`` (and the full-text index) of the given papers from the database.

    The papers are locked and reloaded first (``load_papers(lock=True)``): on
    PostgreSQL two transactions tagging one paper at once would otherwise each
    write a text missing the other's tag.
    """
    ids = sorted(set(paper_ids))
    for paper in load_papers(session, ids, lock=True):
        record = to_record(paper)
        paper.search_text = search_text_for(
            record, (t.name for t in paper.tags), (n.body for n in paper.notes)
        )
    session.flush()


# --- import ----------------------------------------------------------------------------------


@dataclass
class ImportReport:
    """What an import did, for the summary on stderr.

    ``added``: keys of new papers. ``merged``: (key, filled column names) for
    duplicates that completed an existing paper. ``present``: keys of duplicates
    that changed nothing. ``skipped``: (description, key) of duplicates not
    imported under ``--no-merge``. ``problems``: warnings and rejections, in order.
    """

    batch_id: int | None = None
    added: list[str] = field(default_factory=list)
    merged: list[tuple[str, list[str]]] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)

    @property
    def rejected(self) -> int:
        """Number of entries rejected (problems of severity ``error``)."""
        return sum(1 for p in self.problems if p.severity == "error")


@dataclass
class _Candidate:
    """An existing or just-added paper an incoming record may duplicate."""

    paper_id: int | None
    key: str
    title: str | None
    year: int | None
    family: str
    values: dict[str, Any]
    tags: set[str] = field(default_factory=set)
    pending: dict[str, Any] | None = None  # the insert row, for papers of this import
    batch_id: int | None = None  # the import that added it


class _Index:
    """Look-up of duplicate candidates by DOI, arXiv id, title key, abstract key and
    citation key (re-importing our own export of papers without a title)."""

    def __init__(self) -> None:
        self.key: dict[str, list[_Candidate]] = defaultdict(list)
        self.doi: dict[str, list[_Candidate]] = defaultdict(list)
        self.arxiv: dict[str, list[_Candidate]] = defaultdict(list)
        self.title: dict[str, list[_Candidate]] = defaultdict(list)
        self.abstract: dict[str, list[_Candidate]] = defaultdict(list)

    def add(
        self,
        cand: _Candidate,
        doi: str | None,
        arxiv: str | None,
        tkey: str | None,
        akey: str | None,
        keys: Sequence[str | None] = (),
    ) -> None:
        for key in {k.lower() for k in keys if k}:
            self.key[key].append(cand)
        if doi:
            self.doi[doi].append(cand)
        if arxiv:
            self.arxiv[arxiv].append(cand)
        if tkey:
            self.title[tkey].append(cand)
        if akey:
            self.abstract[akey].append(cand)

    def match(
        self,
        record: PaperRecord,
        tkey: str | None,
        akey: str | None,
        family: str,
        batch_id: int | None = None,
    ) -> tuple[_Candidate | None, _Candidate | None]:
        """Return ``(duplicate, conflict)``: the same paper, or an identifier clash.

        ``batch_id`` is the running import's: a title match with a paper the same
        import added under another citation key and another year is no duplicate (one
        source listing both, e.g. the ACL Anthology's yearly "Introduction" of one
        author; the year tolerance is for one paper seen in two sources).
        """
        conflict = None
        for ident, table in ((record.doi, self.doi), (record.arxiv, self.arxiv)):
            for cand in table.get(ident or "", ()):
                if dedupe.titles_conflict(record.title, cand.title) and not (
                    record.title_provisional or cand.values.get("title_provisional")
                ):
                    conflict = conflict or cand
                else:
                    return cand, None
        if akey:
            for cand in self.abstract.get(akey, ()):
                return cand, None
        for cand in self.key.get((record.citekey or "").lower(), ()):
            # The same key from the source: the same paper unless the data disagree.
            if (
                dedupe.titles_same(record.title, cand.title)
                and dedupe.years_close(record.year, cand.year)
                and (not family or not cand.family or family == cand.family)
            ):
                return cand, None
        if tkey and not record.title_provisional:
            for cand in self.title.get(tkey, ()):
                if cand.values.get("title_provisional"):
                    continue
                if (
                    batch_id is not None
                    and cand.batch_id == batch_id
                    and record.year is not None
                    and cand.year is not None
                    and record.year != cand.year
                    and record.citekey
                    and record.citekey.lower() != cand.key.lower()
                ):
                    continue
                if dedupe.years_close(record.year, cand.year) and (
                    not family or not cand.family or family == cand.family
                ):
                    return cand, None
        return None, conflict


def _record_values(record: PaperRecord) -> dict[str, Any]:
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
        "keywords": _keywords_text(record.keywords),
    }


def _load_candidates(session: Session, prepared: Sequence[Prepared], index: _Index) -> None:
    """Fill ``index`` with existing papers sharing an identifier, title or abstract key.

    One ``IN (...)`` query per column and :data:`CHUNK` values; the matching papers
    are then loaded with their people and tags (never one query per record).
    """
    dois = {p.record.doi for p in prepared if p.record.doi}
    arxivs = {p.record.arxiv for p in prepared if p.record.arxiv}
    tkeys = {p.tkey for p in prepared if p.tkey and not p.record.title_provisional}
    akeys = {p.akey for p in prepared if p.akey}
    ckeys = {p.record.citekey.lower() for p in prepared if p.record.citekey}
    ids: set[int] = set()
    for column, values in (
        (Paper.citekey_folded, ckeys),
        (Paper.doi, dois),
        (Paper.arxiv, arxivs),
        (Paper.title_key, tkeys),
        (Paper.abstract_key, akeys),
    ):
        ordered = sorted(v for v in values if v)
        for start in range(0, len(ordered), CHUNK):
            chunk = ordered[start : start + CHUNK]
            ids.update(session.scalars(select(Paper.id).where(column.in_(chunk))))
    if not ids:
        return
    for paper in load_papers(session, sorted(ids)):
        authors = [pp.person for pp in paper.people if pp.role == "author"]
        family = authors[0].family_folded if authors else ""
        values = {name: getattr(paper, name) for name in FILLABLE}
        values["title_provisional"] = paper.title_provisional
        cand = _Candidate(
            paper.id,
            paper.citekey,
            paper.title,
            paper.year,
            family,
            values,
            {t.name_folded for t in paper.tags},
            batch_id=paper.batch_id,
        )
        index.add(
            cand, paper.doi, paper.arxiv, paper.title_key, paper.abstract_key, [paper.citekey]
        )


def import_records(
    session: Session,
    records: Sequence[PaperRecord],
    *,
    source: str,
    fmt: str,
    tags: Sequence[str] = (),
    merge: bool = True,
    problems: Sequence[ParseProblem] = (),
    progress: Callable[[int], None] | None = None,
    meta: Mapping[str, str] | None = None,
) -> ImportReport:
    """Add ``records`` to the library as one import batch; merge or report duplicates.

    Args:
        records: what a reader returned, in source order.
        source: the file name (or ``<stdin>``) recorded in the batch and messages.
        fmt: the format name recorded in the batch.
        tags: tags given on the command line, added to every imported or merged paper.
        merge: True merges duplicates into the existing paper (missing columns
            filled, tags united; the user's title, status and notes kept);
            False reports them and imports nothing for them (``--no-merge``).
        problems: the reader's problems, carried into the report.
        progress: called with the number of records handled so far.
        meta: the reader's ``ParseResult.meta`` (BibTeX ``@string``/``@preamble``
            text, kept with the batch; see :meth:`Importer.finish`).

    Returns:
        An ImportReport. Nothing is committed here: the caller's transaction
        decides (``--strict`` rolls back when the report has rejections).

    This is an :class:`Importer` fed every record at once; a caller that reads a
    large file in pieces feeds an Importer chunk by chunk instead.
    """
    importer = Importer(session, source=source, fmt=fmt, tags=tags, merge=merge, progress=progress)
    importer.add(records)
    return importer.finish(problems, meta)


class Importer:
    """One import batch, fed records in one or more chunks inside the caller's transaction.

    ``Importer(session, source=..., fmt=...)`` opens the batch; :meth:`add` takes
    records in source order (all at once, or a chunk at a time so that a reader can
    stream a large file: issue 9); :meth:`finish` writes the batch's counts and
    returns the :class:`ImportReport`. Nothing is committed here.

    Each chunk costs a fixed number of queries: ``IN (...)`` look-ups of duplicate
    candidates, of citation keys in use and of stored people (:data:`CHUNK` values
    each), then bulk inserts through SQLAlchemy Core (``executemany``). A paper that
    an earlier chunk added is already in the database (inserted, not committed), so
    a later duplicate of it is found there and merged into it like into any paper
    the library had before.
    """

    def __init__(
        self,
        session: Session,
        *,
        source: str,
        fmt: str,
        tags: Sequence[str] = (),
        merge: bool = True,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.session = session
        self.source = source
        self.merge = merge
        self.progress = progress
        self.extra_tags = list(dict.fromkeys(tags))
        self.report = ImportReport()
        self.keys = _KeyRegistry(session)
        self.person_ids: dict[str, int] = {}  # people.name_key -> id, across chunks
        self.handled = 0
        self.now = utcnow()
        _serialize_imports(session)
        self.batch_id = session.scalar(
            insert(ImportBatch).values(source=source, format=fmt).returning(ImportBatch.id)
        )
        self.report.batch_id = self.batch_id

    def add(self, records: Iterable[PaperRecord]) -> None:
        """Import one chunk of records (in source order); see :func:`import_records`."""
        self.add_prepared([prepare_record(r) for r in records])

    def add_prepared(self, prepared: list[Prepared]) -> None:
        """Import one chunk of records already passed through :func:`prepare_record`
        (in source order): what :meth:`add` does after that step, which needs no
        database (``readinglist.reader_process`` runs it beside the import)."""
        if not prepared:
            return
        session, report, source = self.session, self.report, self.source
        extra_tags = self.extra_tags
        index = _Index()
        _load_candidates(session, prepared, index)
        self.keys.prefetch(p.base for p in prepared)
        new_rows: list[dict[str, Any]] = []
        new_records: list[PaperRecord] = []
        merged_ids: dict[int, list[str]] = {}
        tag_links: list[tuple[int | dict[str, Any], list[str]]] = []
        tagged_pending: list[dict[str, Any]] = []
        aliases: list[tuple[int | dict[str, Any], str]] = []
        now = self.now

        for item in prepared:
            record, tkey, akey = item.record, item.tkey, item.akey
            self.handled += 1
            if self.progress is not None and self.handled % 1000 == 0:
                self.progress(self.handled)
            family = dedupe.first_family(record)
            dup, conflict = index.match(record, tkey, akey, family, self.batch_id)
            if dup is not None:
                if not self.merge:
                    where = f"{source}:{record.line}" if record.line else source
                    report.skipped.append((where, dup.key))
                    continue
                filled = _fill(dup, record)
                wanted = {fold(t) for t in (*record.tags, *extra_tags)} - dup.tags
                if filled and dup.pending is not None:
                    dup.pending["_refresh"] = True
                if filled or wanted:
                    report.merged.append((dup.key, filled + (["tags"] if wanted else [])))
                    dup.tags |= wanted
                    if dup.paper_id is not None:
                        merged_ids.setdefault(dup.paper_id, []).extend(filled)
                        if wanted:
                            tag_links.append((dup.paper_id, [*record.tags, *extra_tags]))
                    elif dup.pending is not None and wanted:
                        tag_links.append((dup.pending, [*record.tags, *extra_tags]))
                        tagged_pending.append(dup.pending)
                else:
                    report.present.append(dup.key)
                self._alias(record, dup, aliases)
                continue
            if conflict is not None:
                report.problems.append(
                    ParseProblem(
                        f"shares an identifier with {conflict.key!r} but the titles differ; "
                        "imported as a separate paper",
                        source,
                        record.line,
                        "warning",
                    )
                )
            key = _choose_key(record, self.keys, report, source, item.base)
            keep_source = record.source_text is not None and key == record.citekey
            # A record keeps its source text only under its own key.
            final = (
                record if key == record.citekey else replace(record, citekey=key, source_text=None)
            )
            all_tags = list(dict.fromkeys([*record.tags, *extra_tags]))
            row = {
                "citekey": key,
                "citekey_folded": key.lower(),
                "entry_type": final.entry_type,
                "title_key": tkey,
                "abstract_key": akey,
                "fields": dict(final.fields),
                "source_text": final.source_text,
                "source_digest": bibliographic_digest(final) if keep_source else None,
                "source_check": final.source_check if keep_source else None,
                "search_text": _search_text_prepared(item, final, all_tags),
                "status": record.status or "new",
                "priority": None,
                "added_at": now,
                "updated_at": now,
                "batch_id": self.batch_id,
                **_record_values(final),
            }
            new_rows.append(row)
            new_records.append(final)
            if all_tags:
                tag_links.append((row, all_tags))
            cand = _Candidate(
                None,
                key,
                final.title,
                final.year,
                family,
                row,
                {fold(t) for t in all_tags},
                row,
                self.batch_id,
            )
            index.add(cand, final.doi, final.arxiv, tkey, akey, [record.citekey, key])
            report.added.append(key)

        for row, final in zip(new_rows, new_records, strict=True):
            if row.pop("_refresh", False):
                filled_record = replace(
                    final,
                    **{k: row[k] for k in FILLABLE if k != "keywords"},
                    keywords=_split_keywords(row["keywords"]),
                )
                row["abstract_key"] = dedupe.abstract_key(row["abstract"])
                row["search_text"] = search_text_for(filled_record, [*final.tags, *extra_tags])
        ids = _insert_papers(session, new_rows)
        for row, paper_id in zip(new_rows, ids, strict=True):
            row["id"] = paper_id
        _insert_people(session, new_records, ids, self.person_ids)
        if len(self.person_ids) > PERSON_CACHE:  # bounded memory on huge files
            self.person_ids.clear()
        _apply_merges(session, merged_ids, index)
        _link_tags(session, tag_links)
        if aliases:
            session.execute(
                insert(Alias),
                [
                    {
                        "alias_folded": key.lower(),
                        "alias": key,
                        "paper_id": target if isinstance(target, int) else target["id"],
                    }
                    for target, key in aliases
                ],
            )
        # A paper of this chunk that a later record of it gave more tags: its search text
        # is computed again from the database, like that of any paper merged into.
        touched = set(merged_ids) | {t for t, _ in tag_links if isinstance(t, int)}
        touched |= {row["id"] for row in tagged_pending}
        if touched:
            refresh_search_text(session, touched)

    def _alias(
        self, record: PaperRecord, dup: Any, aliases: list[tuple[int | dict[str, Any], str]]
    ) -> None:
        """Keep a merged duplicate's own citation key as an alias of the paper it went
        into (when the key is valid and used by no paper or alias), so that a document
        citing it still resolves (``show``, ``export --aux``)."""
        key = record.citekey
        if not key or not citekeys.is_valid_key(key) or key.lower() == dup.key.lower():
            return
        if self.keys.taken(key.lower(), key):
            return
        self.keys.claim(key)
        target = dup.paper_id if dup.paper_id is not None else dup.pending
        if target is not None:
            aliases.append((target, key))

    def finish(
        self, problems: Sequence[ParseProblem] = (), meta: Mapping[str, str] | None = None
    ) -> ImportReport:
        """Record the batch's counts and return the report.

        ``problems`` are the reader's (warnings and rejections, in source order); they
        come first in ``report.problems``, before the import's own warnings. ``meta``
        is the reader's ``ParseResult.meta``: its ``"strings"`` and ``"preamble"``
        (BibTeX ``@string`` / ``@preamble`` text) are kept with the batch, so that an
        export can copy the entries that use those macros byte for byte (issue 4).
        """
        report = self.report
        report.problems = [*problems, *report.problems]
        meta = meta or {}
        self.session.execute(
            update(ImportBatch)
            .where(ImportBatch.id == self.batch_id)
            .values(
                added=len(report.added),
                merged=len(report.merged),
                rejected=report.rejected,
                # PostgreSQL text cannot hold NUL (records are cleaned the same way).
                bibtex_strings=(meta.get("strings") or "").replace("\x00", "") or None,
                bibtex_preamble=(meta.get("preamble") or "").replace("\x00", "") or None,
            )
        )
        if self.progress is not None:
            self.progress(self.handled)
        return report


#: PostgreSQL advisory lock key that serialises imports (``db`` uses 7_312_001 for schema).
IMPORT_LOCK = 7_312_002


def _serialize_imports(session: Session) -> None:
    """Let one import at a time run on PostgreSQL, until its transaction ends.

    An import reads the library (duplicates, citation keys in use, known people)
    and then writes what it decided; two at once on PostgreSQL would both add the
    same new person or key (a unique violation) or both add one paper. SQLite
    needs nothing: ``BEGIN IMMEDIATE`` already admits one writer at a time.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(IMPORT_LOCK)))


class _KeyRegistry:
    """Case-insensitive set of citation keys in use: the database's plus this import's.

    :meth:`prefetch` asks the database, in ``IN (...)`` chunks, which of a chunk's
    wanted keys are taken (papers' keys and aliases). Only a key that is taken
    needs the keys that extend it (for the ``a``, ``b``, ... suffixes): one prefix
    query per such key, index-assisted on SQLite (a range on the binary-collated
    column; ``LIKE`` is case-insensitive there and cannot use the index).
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self.sqlite = session.get_bind().dialect.name == "sqlite"
        self.local: set[str] = set()
        self.checked: set[str] = set()  # folded keys whose presence in the database is known
        self.stored: set[str] = set()  # those of them that are taken there
        self.prefixes: dict[str, set[str]] = {}

    def prefetch(self, bases: Iterable[str]) -> None:
        """Learn which of the (case-insensitive) keys ``bases`` the database already uses."""
        wanted = sorted({b.lower() for b in bases} - self.checked)
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            self.stored.update(
                self.session.scalars(
                    select(Paper.citekey_folded).where(Paper.citekey_folded.in_(chunk))
                )
            )
            self.stored.update(
                self.session.scalars(
                    select(Alias.alias_folded).where(Alias.alias_folded.in_(chunk))
                )
            )
            self.checked.update(chunk)

    def _known(self, prefix: str) -> set[str]:
        if prefix not in self.prefixes:
            keys: set[str] = set()
            for column in (Paper.citekey_folded, Alias.alias_folded):
                if self.sqlite:
                    # U+10FFFF sorts after every character: [prefix, prefix + U+10FFFF)
                    # holds every key that starts with prefix (checked again below).
                    condition = (column >= prefix) & (column < prefix + "\U0010ffff")
                else:
                    condition = column.startswith(prefix, autoescape=True)
                keys.update(k for k in self.session.scalars(select(column).where(condition)))
            self.prefixes[prefix] = {k for k in keys if k.startswith(prefix)}
        return self.prefixes[prefix]

    def taken(self, folded: str, base: str) -> bool:
        if folded in self.local:
            return True
        lowered = base.lower()
        if folded == lowered and lowered in self.checked:
            return lowered in self.stored
        return folded in self._known(lowered)

    def claim(self, key: str) -> None:
        self.local.add(key.lower())


def _choose_key(
    record: PaperRecord,
    keys: _KeyRegistry,
    report: ImportReport,
    source: str,
    base: str | None = None,
) -> str:
    given = record.citekey if record.citekey and citekeys.is_valid_key(record.citekey) else None
    base = base or given or citekeys.base_key(record)
    key = citekeys.unique_key(base, lambda folded: keys.taken(folded, base))
    if given and key != given:
        report.problems.append(
            ParseProblem(
                f"citation key {given!r} is already used by another paper; imported as {key!r}",
                source,
                record.line,
                "warning",
            )
        )
    elif record.citekey and not given:
        report.problems.append(
            ParseProblem(
                f"citation key {record.citekey!r} is not usable in BibTeX; imported as {key!r}",
                source,
                record.line,
                "warning",
            )
        )
    keys.claim(key)
    return key


def _fill(dup: _Candidate, record: PaperRecord) -> list[str]:
    """Fill the duplicate's missing columns from ``record``; return the names filled."""
    filled: list[str] = []
    incoming = _record_values(record)
    for name in FILLABLE:
        if dup.values.get(name) in (None, "") and incoming.get(name) not in (None, ""):
            if name == "title" and dup.values.get("title"):
                continue
            dup.values[name] = incoming[name]
            filled.append(name)
    if (
        dup.values.get("title_provisional")
        and record.title
        and not record.title_provisional
        and title_key(record.title) != title_key(dup.values.get("title") or "")
    ):
        # A real title replaces one we made up (our own made-up title read back from an
        # export is not a real one); a title the user set is never provisional.
        dup.values["title"] = record.title
        dup.values["title_provisional"] = False
        if dup.pending is not None:
            dup.pending["title_key"] = title_key(record.title)
        filled.append("title")
    return filled


def _insert_papers(session: Session, rows: list[dict[str, Any]]) -> list[int]:
    """Insert paper rows (and their full-text entries); return their ids in row order."""
    if not rows:
        return []
    with _fts_bulk_insert(session) as bulk:
        ids = _insert_rows(session, Paper, rows)
        if bulk:
            session.execute(
                sql_text("INSERT INTO paper_fts(rowid, search_text) VALUES (:id, :search_text)"),
                [
                    {"id": i, "search_text": row["search_text"]}
                    for i, row in zip(ids, rows, strict=True)
                ],
            )
    return ids


def _insert_rows(
    session: Session, model: type[Paper] | type[Person], rows: list[dict[str, Any]]
) -> list[int]:
    """Insert ``rows`` into ``model``'s table; return the new ids in row order.

    SQLite: ids are assigned here (``max(id) + 1`` on), and the rows go in through one
    Core ``executemany``. The caller's transaction holds SQLite's write lock already
    (an import inserts its batch first; edits write before), so no other writer can
    take those ids; SQLite itself assigns ``max(rowid) + 1`` to a table without
    AUTOINCREMENT (https://sqlite.org/autoinc.html). An ``INSERT ... RETURNING`` in
    parameter order would go row by row there (SQLAlchemy has no sentinel for it).
    PostgreSQL: ``INSERT ... RETURNING`` in batches (SQLAlchemy's insertmanyvalues).
    """
    table = model.__table__
    if session.get_bind().dialect.name == "sqlite":
        first = int(session.scalar(select(func.max(table.c.id))) or 0) + 1
        ids = list(range(first, first + len(rows)))
        _executemany(session, table, [{**row, "id": i} for i, row in zip(ids, rows, strict=True)])
        return ids
    found: list[int] = []
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        result = session.execute(
            insert(table).returning(table.c.id, sort_by_parameter_order=True), chunk
        )
        found.extend(result.scalars())
    return found


def _executemany(session: Session, table: Any, rows: list[dict[str, Any]]) -> None:
    """INSERT ``rows`` (dicts with the same keys) into ``table`` with one ``executemany``.

    SQLite: straight through the DBAPI cursor (``exec_driver_sql``), each value passed
    through the column type's own SQLAlchemy bind processor (JSON, UTC timestamps,
    booleans), so the rows stored are those a Core ``insert(table)`` stores; Core's
    per-row bookkeeping costs about 30 us a row on top (issue 9, 186,000 author links
    for the ACL Anthology). Elsewhere, and whenever a column left out of the rows has
    a Python-side default, a Core ``insert`` (which applies defaults).
    """
    if not rows:
        return
    names = list(rows[0])
    columns = [table.c[name] for name in names]
    dialect = session.get_bind().dialect
    if dialect.name != "sqlite" or any(
        column.default is not None for column in table.columns if column.name not in rows[0]
    ):
        for start in range(0, len(rows), CHUNK * 10):
            session.execute(insert(table), rows[start : start + CHUNK * 10])
        return
    quote = dialect.identifier_preparer.quote
    sql = (
        f"INSERT INTO {quote(table.name)} ({', '.join(quote(n) for n in names)}) "
        f"VALUES ({', '.join('?' for _ in names)})"
    )
    processors = [
        (name, column.type.bind_processor(dialect))
        for name, column in zip(names, columns, strict=True)
    ]
    params = [
        tuple(process(row[name]) if process else row[name] for name, process in processors)
        for row in rows
    ]
    session.connection().exec_driver_sql(sql, params)


@contextmanager
def _fts_bulk_insert(session: Session) -> Iterator[bool]:
    """On SQLite, hold back the full-text insert trigger while papers are bulk-inserted.

    Yields True when the caller must fill ``paper_fts`` itself (one ``executemany``),
    False elsewhere (PostgreSQL's index is a generated column; an SQLite file without
    the trigger). Filling the FTS5 table through the ``paper_fts_ai`` trigger of
    migration 0001 took about five times the CPU of one ``executemany`` into it
    (10,000 rows, SQLite 3.40; issue 9), so the trigger is dropped for the insert and
    created again from its own SQL, read from ``sqlite_master``, in the same
    transaction: SQLite's DDL is transactional, so a failure rolls both back, and
    other connections never see the library without it.
    """
    if session.get_bind().dialect.name != "sqlite":
        yield False
        return
    sql = session.scalar(
        sql_text("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'paper_fts_ai'")
    )
    if not sql:
        yield False
        return
    session.execute(sql_text("DROP TRIGGER paper_fts_ai"))
    try:
        yield True
    except BaseException:
        # For a caller that catches the error and goes on in this transaction.
        with suppress(Exception):
            session.execute(sql_text(sql))
        raise
    session.execute(sql_text(sql))


def _insert_people(
    session: Session,
    records: Sequence[PaperRecord],
    ids: Sequence[int],
    known: dict[str, int] | None = None,
) -> None:
    """Insert the people of new papers (reusing stored spellings) and their ordered links.

    ``known`` maps ``people.name_key`` to ids already looked up or inserted in this
    transaction (an import keeps one across its chunks); it is updated.
    """
    wanted: dict[str, PersonRecord] = {}
    for record in records:
        for person in (*record.authors, *record.editors):
            wanted.setdefault(person_key(person), person)
    if not wanted:
        return
    person_ids: dict[str, int] = known if known is not None else {}
    keys = sorted(k for k in wanted if k not in person_ids)
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        for pid, key in session.execute(
            select(Person.id, Person.name_key).where(Person.name_key.in_(chunk))
        ):
            person_ids[key] = pid
    missing = [k for k in keys if k not in person_ids]
    rows = [_person_row(k, wanted[k]) for k in missing]
    for row, pid in zip(rows, _insert_rows(session, Person, rows), strict=True):
        person_ids[row["name_key"]] = pid
    links = []
    for record, paper_id in zip(records, ids, strict=True):
        for role, people in (("author", record.authors), ("editor", record.editors)):
            for position, person in enumerate(people):
                links.append(
                    {
                        "paper_id": paper_id,
                        "role": role,
                        "position": position,
                        "person_id": person_ids[person_key(person)],
                    }
                )
    _executemany(session, PaperPerson.__table__, links)


def _person_row(key: str, person: PersonRecord) -> dict[str, Any]:
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


def _apply_merges(session: Session, merged: dict[int, list[str]], index: _Index) -> None:
    if not merged:
        return
    by_id = {
        cand.paper_id: cand
        for table in (index.key, index.doi, index.arxiv, index.title, index.abstract)
        for cands in table.values()
        for cand in cands
        if cand.paper_id is not None
    }
    for paper_id, names in merged.items():
        values = {name: by_id[paper_id].values[name] for name in set(names)}
        if "title" in values:
            values["title_provisional"] = by_id[paper_id].values["title_provisional"]
            values["title_key"] = title_key(values["title"]) if values["title"] else None
        if "abstract" in values:
            values["abstract_key"] = dedupe.abstract_key(values["abstract"])
        values["updated_at"] = utcnow()
        session.execute(update(Paper).where(Paper.id == paper_id).values(**values))


def ensure_tags(session: Session, names: Iterable[str]) -> dict[str, int]:
    """Return ``{folded name: tag id}`` for ``names``, creating the missing tags.

    Tag names are stripped; empty names are ignored; the first spelling seen is kept.
    """
    wanted: dict[str, str] = {}
    for name in names:
        clean = name.strip()
        if clean:
            wanted.setdefault(clean.lower(), clean)
    if not wanted:
        return {}
    found = dict(
        session.execute(
            select(Tag.name_folded, Tag.id).where(Tag.name_folded.in_(sorted(wanted)))
        ).all()
    )
    for folded, name in wanted.items():
        if folded not in found:
            tag_id = session.scalar(
                insert_or_ignore(session, Tag)
                .values(name=name, name_folded=folded)
                .returning(Tag.id)
            )
            if tag_id is None:  # PostgreSQL: another transaction created it meanwhile
                tag_id = session.scalar(select(Tag.id).where(Tag.name_folded == folded))
            found[folded] = tag_id
    return found


def insert_or_ignore(session: Session, model: type[Any]) -> Any:
    """Return ``INSERT ... ON CONFLICT DO NOTHING`` for ``model`` in the session's dialect.

    SQLite serialises writers (``BEGIN IMMEDIATE``), but on PostgreSQL two
    transactions may insert the same new tag, or link the same tag to the same
    paper, at once; the second would fail on the unique constraint. Both dialects
    support the clause (SQLAlchemy's ``postgresql.insert``/``sqlite.insert``).
    """
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(model).on_conflict_do_nothing()
    from sqlalchemy.dialects import sqlite

    return sqlite.insert(model).on_conflict_do_nothing()


def _link_tags(session: Session, links: list[tuple[int | dict[str, Any], list[str]]]) -> None:
    if not links:
        return
    tag_ids = ensure_tags(session, (t for _, names in links for t in names))
    pairs: set[tuple[int, int]] = set()
    for target, names in links:
        paper_id = target if isinstance(target, int) else target["id"]
        for name in names:
            if name.strip():
                pairs.add((paper_id, tag_ids[name.strip().lower()]))
    if not pairs:
        return
    existing: set[tuple[int, int]] = set()
    paper_ids = sorted({p for p, _ in pairs})
    for start in range(0, len(paper_ids), CHUNK):
        chunk = paper_ids[start : start + CHUNK]
        existing.update(
            (int(p), int(t))
            for p, t in session.execute(
                select(PaperTag.paper_id, PaperTag.tag_id).where(PaperTag.paper_id.in_(chunk))
            )
        )
    rows = [{"paper_id": p, "tag_id": t} for p, t in sorted(pairs - existing)]
    if rows:
        session.execute(insert_or_ignore(session, PaperTag), rows)


# --- reading ---------------------------------------------------------------------------------


def all_papers(session: Session) -> list[Paper]:
    """Return every paper in order of addition (oldest first), then by key."""
    return load_papers(session)


def history(session: Session, paper: Paper) -> list[dict[str, Any]]:
    """Return the paper's read-status history as ``{"from", "to", "at"}`` dicts, oldest first."""
    return [{"from": e.from_status, "to": e.to_status, "at": e.at} for e in paper.events]


def count_papers(session: Session) -> int:
    """Return the number of papers in the library."""
    return int(session.scalar(select(func.count(Paper.id))) or 0)


def delete_papers(session: Session, papers: Sequence[Paper]) -> list[str]:
    """Delete ``papers`` with their links, notes, history and aliases; return their keys."""
    keys = [p.citekey for p in papers]
    ids = [p.id for p in papers]
    for start in range(0, len(ids), CHUNK):
        session.execute(delete(Paper).where(Paper.id.in_(ids[start : start + CHUNK])))
    session.expunge_all()
    return keys


def touch(session: Session, paper_ids: Iterable[int], when: datetime | None = None) -> None:
    """Set ``updated_at`` of the given papers to ``when`` (default now)."""
    ids = sorted(set(paper_ids))
    if ids:
        session.execute(update(Paper).where(Paper.id.in_(ids)).values(updated_at=when or utcnow()))


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
    from readinglist import query

    ids = query.paper_ids(session, query_text, sort=sort, limit=limit, reverse=reverse)
    return load_papers(session, ids)


def select_ids_and_keys(session: Session, query_text: str = "") -> list[tuple[int, str]]:
    """Return ``(id, citation key)`` of the papers ``query_text`` selects, in
    :func:`select_papers` order, in one query and without loading papers (``export``).

    Raises InvalidQuery.
    """
    from readinglist import query

    stmt = query.statement(session, query_text, (Paper.id, Paper.citekey))
    return [(int(paper_id), str(key)) for paper_id, key in session.execute(stmt)]


def papers_for_keys(session: Session, refs: Sequence[str]) -> tuple[list[Paper], list[str]]:
    """Return ``(papers, missing refs)`` for citation keys or aliases, in first-seen order."""
    ids: list[int] = []
    missing: list[str] = []
    for ref in refs:
        paper = find_paper(session, ref)
        if paper is None:
            missing.append(ref)
        elif paper.id not in ids:
            ids.append(paper.id)
    return load_papers(session, ids), missing


def sync_markdown(session: Session, records: Sequence[PaperRecord], *, source: str) -> ImportReport:
    """Apply read status and tags from one of our Markdown lists, matched by citation key.

    Rules (issue 7): a ticked box sets ``read``; an unticked box on a paper that is
    read sets ``to-read``; under a status heading a paper takes that heading's
    status. Tags follow the list: a ``#tag`` added in the list is added, a tag
    deleted from the list is removed (every export writes all of a paper's tags).
    Unknown keys are reported as problems. Returns an ImportReport whose
    ``merged`` lists the changed keys with what changed.
    """
    report = ImportReport()
    for record in records:
        paper = find_paper(session, record.citekey or "")
        if paper is None:
            report.problems.append(
                ParseProblem(
                    f"no paper with citation key {record.citekey!r}", source, record.line, "warning"
                )
            )
            continue
        checked = record.fields.get("checked") == "true"
        status = record.status
        if checked:
            status = "read"
        elif paper.status == "read" and status in (None, "read"):
            status = "to-read"
        changes: list[str] = []
        if status and status != paper.status:
            set_status(session, [paper], status)
            changes.append(f"status {status}")
        have = {t.name_folded: t.name for t in paper.tags}
        listed = {t.strip().lower() for t in record.tags if t.strip()}
        new_tags = [t for t in record.tags if t.strip() and t.strip().lower() not in have]
        gone = [name for folded, name in have.items() if folded not in listed]
        if new_tags:
            add_tags(session, [paper], new_tags)
            changes.append("tags +" + ", +".join(new_tags))
        if gone:
            remove_tags(session, [paper], gone)
            changes.append("tags -" + ", -".join(gone))
        if changes:
            report.merged.append((paper.citekey, changes))
        else:
            report.present.append(paper.citekey)
    return report


# --- triage state ----------------------------------------------------------------------------


def set_status(
    session: Session, papers: Sequence[Paper], status: str, *, at: datetime | None = None
) -> list[Paper]:
    """Set the read status of ``papers``; record each change in the status history.

    ``status`` is one of ``records.STATUSES`` (else UsageError). Moving to ``read``
    sets ``read_at``; leaving ``read`` clears it. Papers already at ``status`` are
    left alone. Returns the papers that changed.
    """
    from readinglist.errors import UsageError
    from readinglist.models import StatusEvent
    from readinglist.records import STATUSES

    if status not in STATUSES:
        raise UsageError(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
    when = at or utcnow()
    changed = []
    for paper in papers:
        if paper.status == status:
            continue
        session.add(
            StatusEvent(paper_id=paper.id, from_status=paper.status, to_status=status, at=when)
        )
        paper.status = status
        paper.read_at = when if status == "read" else None
        paper.updated_at = when
        changed.append(paper)
    session.flush()
    return changed


def add_tags(session: Session, papers: Sequence[Paper], names: Sequence[str]) -> list[Paper]:
    """Add the tags ``names`` (created when new; case-insensitive) to ``papers``.

    Returns the papers that gained a tag; their search text is refreshed.
    """
    if not papers:
        return []
    tag_ids = ensure_tags(session, names)
    if not tag_ids:
        return []
    ids = [p.id for p in papers]
    existing: set[tuple[int, int]] = set()
    for start in range(0, len(ids), CHUNK):
        existing.update(
            (int(p), int(t))
            for p, t in session.execute(
                select(PaperTag.paper_id, PaperTag.tag_id).where(
                    PaperTag.paper_id.in_(ids[start : start + CHUNK]),
                    PaperTag.tag_id.in_(tag_ids.values()),
                )
            )
        )
    rows = [
        {"paper_id": pid, "tag_id": tid}
        for pid in ids
        for tid in sorted(set(tag_ids.values()))
        if (pid, tid) not in existing
    ]
    if rows:
        session.execute(insert_or_ignore(session, PaperTag), rows)
    changed_ids = {row["paper_id"] for row in rows}
    when = utcnow()
    for paper in papers:
        if paper.id in changed_ids:
            session.expire(paper, ["tags"])
            # Explicit: a tag without indexed words ("日本") leaves search_text as it
            # was, and `import --undo` must still see that the paper was tagged.
            paper.updated_at = when
    refresh_search_text(session, changed_ids)
    return [p for p in papers if p.id in changed_ids]


# --- keys and merging ------------------------------------------------------------------------


def rekey(session: Session, paper: Paper, new_key: str) -> str:
    """Rename ``paper``'s citation key to ``new_key``, keeping the old key as an alias.

    Returns the old key. Raises UsageError for a key BibTeX cannot use and Conflict
    (exit 4) when ``new_key`` is another paper's key or alias. Renaming to the same
    key in another case only changes the spelling.
    """
    from readinglist.errors import Conflict, UsageError

    new_key = new_key.strip()
    if not citekeys.is_valid_key(new_key):
        raise UsageError(f"{new_key!r} is not a usable citation key (no spaces, commas, braces)")
    old = paper.citekey
    folded = new_key.lower()
    owner = find_paper(session, new_key)
    if owner is not None and owner.id != paper.id:
        raise Conflict(f"citation key {new_key!r} is already used by {owner.citekey!r}")
    if folded != paper.citekey_folded:
        session.add(Alias(alias=old, alias_folded=paper.citekey_folded, paper_id=paper.id))
        # The new key may be one of this paper's own aliases: it stops being an alias.
        session.execute(delete(Alias).where(Alias.alias_folded == folded))
    paper.citekey = new_key
    paper.citekey_folded = folded
    paper.updated_at = utcnow()
    session.flush()
    return old


def merge_papers(session: Session, keep: Paper, others: Sequence[Paper]) -> list[str]:
    """Merge ``others`` into ``keep`` and delete them; their keys become aliases of ``keep``.

    ``keep``'s values win; its missing columns are filled from the others in order;
    tags and notes are united; the status history is moved over; ``keep``'s read
    status, priority and title stay. Returns the names of the columns filled.
    Raises UsageError when ``keep`` is among ``others``.
    """
    from readinglist.errors import UsageError
    from readinglist.models import StatusEvent

    if any(o.id == keep.id for o in others):
        raise UsageError(f"cannot merge {keep.citekey!r} into itself")
    filled: list[str] = []
    for other in others:
        for name in FILLABLE:
            if getattr(keep, name) in (None, "") and getattr(other, name) not in (None, ""):
                setattr(keep, name, getattr(other, name))
                filled.append(name)
        if keep.title_provisional and other.title and not other.title_provisional:
            keep.title, keep.title_provisional = other.title, False
            filled.append("title")
        if not any(pp.role == "author" for pp in keep.people) and other.people:
            for pp in other.people:
                keep.people.append(
                    PaperPerson(role=pp.role, position=pp.position, person_id=pp.person_id)
                )
            filled.append("authors")
        extra_fields = {k: v for k, v in (other.fields or {}).items() if k not in keep.fields}
        if extra_fields:
            keep.fields = {**keep.fields, **extra_fields}
        keep.source_digest = None  # the merged entry is no longer the one read
        session.execute(update(Note).where(Note.paper_id == other.id).values(paper_id=keep.id))
        session.execute(
            update(StatusEvent).where(StatusEvent.paper_id == other.id).values(paper_id=keep.id)
        )
        tag_names = [t.name for t in other.tags]
        aliases = [(a.alias, a.alias_folded) for a in other.aliases]
        other_key, other_folded = other.citekey, other.citekey_folded
        session.delete(other)
        session.flush()
        for alias, folded in [(other_key, other_folded), *aliases]:
            session.add(Alias(alias=alias, alias_folded=folded, paper_id=keep.id))
        if tag_names:
            add_tags(session, [keep], tag_names)
    keep.title_key = title_key(keep.title) if keep.title else None
    keep.updated_at = utcnow()
    session.flush()
    session.expire(keep)
    refresh_search_text(session, [keep.id])
    return list(dict.fromkeys(filled))


# --- triage and editing ----------------------------------------------------------------------
# Read status, priority, tags, notes, titles and hand edits (issue 5). Like everything
# here, these take a Session, flush, and leave the commit to the caller: `mark` commits
# once per command, `triage` once per decision.


def resolve_targets(session: Session, refs: Sequence[str], query_text: str | None) -> list[Paper]:
    """Return the papers a command acts on: its REFs, or every paper ``-q QUERY`` selects.

    Exactly one of ``refs`` (citation keys or aliases, all of which must exist) and
    ``query_text`` (not blank) must be given; a REF is never parsed as a query, since
    keys may contain ``:``. Raises UsageError for neither, both or a blank query;
    NotFound naming every unknown REF; InvalidQuery for a bad query.
    """
    from readinglist.errors import UsageError

    if refs and query_text is not None:
        raise UsageError("give REFs or -q QUERY, not both")
    if query_text is not None:
        if not query_text.strip():
            raise UsageError("-q needs a query (an empty one would select every paper)")
        return select_papers(session, query_text)
    if not refs:
        raise UsageError("give at least one REF (citation key or alias) or -q QUERY")
    return resolve_many(session, refs)


def set_priority(
    session: Session, papers: Sequence[Paper], level: str | None, *, at: datetime | None = None
) -> list[Paper]:
    """Set the priority of ``papers``; return the papers that changed.

    ``level`` is ``high``, ``medium`` or ``low`` (stored as ``models.PRIORITY_CODES``),
    or ``none``/None to clear it. Raises UsageError for anything else.
    """
    from readinglist.errors import UsageError
    from readinglist.models import PRIORITY_CODES

    if level is None or level == "none":
        code = None
    elif level in PRIORITY_CODES:
        code = PRIORITY_CODES[level]
    else:
        raise UsageError(f"unknown priority {level!r}; use one of {', '.join(PRIORITY_LEVELS)}")
    when = at or utcnow()
    changed = []
    for paper in papers:
        if paper.priority != code:
            paper.priority = code
            paper.updated_at = when
            changed.append(paper)
    session.flush()
    return changed


def restore_status(session: Session, paper: Paper, status: str, read_at: datetime | None) -> None:
    """Put ``paper`` back to ``status`` with its earlier ``read_at`` (triage's undo).

    The change is recorded in the status history like any other (:func:`set_status`).
    """
    set_status(session, [paper], status)
    paper.read_at = read_at if status == "read" else None
    session.flush()


def check_tag_name(name: str) -> str:
    """Return a tag name typed by the user, stripped. Hierarchical ``a/b`` names are fine.

    Raises UsageError for an empty name or one with a comma, white space, a brace, a
    double quote, a backslash or ``%``: BibTeX ``keywords`` are comma-separated and
    its values brace- or quote-delimited (LaTeX reads ``\\`` and ``%``), and ``tag:x``
    query terms and Markdown ``#tag`` marks end at white space, so such a name would
    not survive an export and re-import.
    """
    import re

    from readinglist.errors import UsageError

    clean = name.strip()
    if not clean:
        raise UsageError("a tag name cannot be empty")
    if re.search(r'[,\s{}"\\%\x00-\x1f\x7f]', clean) or re.search(r"(^/|/$|//)", clean):
        raise UsageError(
            f"tag {clean!r} is not usable: no commas, spaces, control characters, braces, "
            "quotes, backslashes or %, and / only between words; use - or / instead"
        )
    return clean


def find_tag(session: Session, name: str) -> Tag | None:
    """Return the tag called ``name`` (case-insensitive), or None."""
    return session.scalars(select(Tag).where(Tag.name_folded == name.strip().lower())).first()


def tags_named(session: Session, names: Sequence[str]) -> list[Tag]:
    """Return the tags called ``names`` (case-insensitive), in order without repeats.

    All or nothing: raises NotFound naming every unknown tag.
    """
    tags: list[Tag] = []
    unknown: list[str] = []
    for name in names:
        tag = find_tag(session, name)
        if tag is None:
            unknown.append(name)
        elif all(t.id != tag.id for t in tags):
            tags.append(tag)
    if unknown:
        noun = "tag" if len(unknown) == 1 else "tags"
        raise NotFound(f"no {noun} {', '.join(repr(n) for n in unknown)}; nothing changed")
    return tags


def _tag_links(
    session: Session, paper_ids: Sequence[int] | None, tag_ids: Sequence[int]
) -> set[tuple[int, int]]:
    """Return the ``(paper id, tag id)`` links among ``tag_ids`` (of ``paper_ids``, or all)."""
    if not tag_ids:
        return set()
    stmt = select(PaperTag.paper_id, PaperTag.tag_id).where(PaperTag.tag_id.in_(sorted(tag_ids)))
    if paper_ids is None:
        return {(int(p), int(t)) for p, t in session.execute(stmt)}
    found: set[tuple[int, int]] = set()
    ordered = sorted(set(paper_ids))
    for start in range(0, len(ordered), CHUNK):
        chunk = ordered[start : start + CHUNK]
        found.update(
            (int(p), int(t)) for p, t in session.execute(stmt.where(PaperTag.paper_id.in_(chunk)))
        )
    return found


def delete_unused_tags(session: Session, tag_ids: Sequence[int] | None = None) -> int:
    """Delete tags (of ``tag_ids``, or any) that no paper carries; return how many."""
    used = select(PaperTag.tag_id).where(PaperTag.tag_id == Tag.id).exists()
    stmt = delete(Tag).where(~used)
    if tag_ids is not None:
        if not tag_ids:
            return 0
        stmt = stmt.where(Tag.id.in_(sorted(set(tag_ids))))
    result = session.execute(stmt.execution_options(synchronize_session=False))
    return int(getattr(result, "rowcount", 0) or 0)


def remove_tags(session: Session, papers: Sequence[Paper], names: Sequence[str]) -> list[Paper]:
    """Remove the tags ``names`` (case-insensitive) from ``papers``; return those that lost one.

    Their search text is refreshed; a tag no paper carries any more is deleted.
    Raises NotFound (nothing changed) when a tag does not exist.
    """
    tag_ids = [t.id for t in tags_named(session, names)]
    changed_ids = sorted({p for p, _ in _tag_links(session, [p.id for p in papers], tag_ids)})
    for start in range(0, len(changed_ids), CHUNK):
        chunk = changed_ids[start : start + CHUNK]
        session.execute(
            delete(PaperTag).where(PaperTag.paper_id.in_(chunk), PaperTag.tag_id.in_(tag_ids))
        )
    changed = [p for p in papers if p.id in set(changed_ids)]
    when = utcnow()
    for paper in changed:
        session.expire(paper, ["tags"])
        paper.updated_at = when  # as in add_tags: the paper changed even if its search text did not
    delete_unused_tags(session, tag_ids)
    refresh_search_text(session, changed_ids)
    return changed


def tag_counts(session: Session) -> list[tuple[str, int]]:
    """Return ``(tag name, number of papers)`` for every tag in use, by folded name.

    Sorted in Python, not SQL, so that SQLite and PostgreSQL (whose collation
    depends on the server's locale) give the same order.
    """
    rows = session.execute(
        select(Tag.name, Tag.name_folded, func.count(PaperTag.paper_id))
        .join(PaperTag, PaperTag.tag_id == Tag.id)
        .group_by(Tag.id, Tag.name, Tag.name_folded)
    ).all()
    return [(str(name), int(n)) for name, _, n in sorted(rows, key=lambda r: (r[1], r[0]))]


def rename_tag(session: Session, old: str, new: str) -> tuple[str, int]:
    """Rename the tag ``old`` to ``new`` (a change of case only is fine).

    Returns ``(old spelling, number of papers carrying it)``. Raises NotFound for an
    unknown ``old``, UsageError for a bad ``new`` (:func:`check_tag_name`) and
    Conflict when ``new`` is another existing tag (``tag merge`` joins two tags).
    """
    from readinglist.errors import Conflict

    tag = tags_named(session, [old])[0]
    new = check_tag_name(new)
    other = find_tag(session, new)
    if other is not None and other.id != tag.id:
        raise Conflict(
            f"tag {other.name!r} already exists; use `readinglist tag merge {tag.name} "
            f"{other.name}` to join them"
        )
    before = tag.name
    tag.name, tag.name_folded = new, new.lower()
    session.flush()
    paper_ids = _tagged_paper_ids(session, [tag.id])
    _expire_tags(session, paper_ids)
    refresh_search_text(session, paper_ids)
    return before, len(paper_ids)


def _tagged_paper_ids(session: Session, tag_ids: Sequence[int]) -> list[int]:
    return sorted({p for p, _ in _tag_links(session, None, tag_ids)})


def _expire_tags(session: Session, paper_ids: Iterable[int]) -> None:
    """Expire the loaded ``tags`` of papers in the session so they are read again."""
    wanted = set(paper_ids)
    for obj in list(session.identity_map.values()):
        if isinstance(obj, Paper) and obj.id in wanted:
            session.expire(obj, ["tags"])


def merge_tags(session: Session, sources: Sequence[str], target: str) -> tuple[str, int]:
    """Move every paper tagged with one of ``sources`` to ``target`` and delete the sources.

    ``target`` is created when it does not exist; a source equal to the target
    (case-insensitively) is left alone. Returns ``(target name, number of papers that
    carried a source)``. Raises NotFound (nothing changed) for an unknown source and
    UsageError for a bad target name.
    """
    source_tags = tags_named(session, sources)
    target = check_tag_name(target)
    target_id = ensure_tags(session, [target])[target.lower()]
    source_ids = [t.id for t in source_tags if t.id != target_id]
    paper_ids = _tagged_paper_ids(session, source_ids)
    have = {p for p, _ in _tag_links(session, paper_ids, [target_id])}
    rows = [{"paper_id": p, "tag_id": target_id} for p in paper_ids if p not in have]
    if rows:
        session.execute(insert(PaperTag), rows)
    if source_ids:
        session.execute(delete(PaperTag).where(PaperTag.tag_id.in_(source_ids)))
        session.execute(
            delete(Tag).where(Tag.id.in_(source_ids)).execution_options(synchronize_session=False)
        )
    name = session.scalar(select(Tag.name).where(Tag.id == target_id)) or target
    _expire_tags(session, paper_ids)
    refresh_search_text(session, paper_ids)
    return str(name), len(paper_ids)


def add_note(session: Session, paper: Paper, body: str, *, at: datetime | None = None) -> Note:
    """Add a Markdown note to ``paper`` and return it (its ``id`` assigned).

    The text is kept as written, less surrounding blank lines and trailing white
    space. Created and updated times are ``at`` (default now, UTC). The paper's
    search text is refreshed. Raises UsageError for an empty note.
    """
    from readinglist.errors import UsageError

    text = body.strip("\n").rstrip()
    if not text.strip():
        raise UsageError("the note is empty; nothing added")
    when = at or utcnow()
    note = Note(paper_id=paper.id, body=text, created_at=when, updated_at=when)
    session.add(note)
    paper.updated_at = when
    session.flush()
    session.expire(paper, ["notes"])
    refresh_search_text(session, [paper.id])
    return note


def get_note(session: Session, note_id: int) -> Note:
    """Return the note with id ``note_id``. Raises NotFound naming the id."""
    note = session.get(Note, note_id)
    if note is None:
        raise NotFound(f"no note with id {note_id}")
    return note


def get_notes(session: Session, note_ids: Sequence[int]) -> list[Note]:
    """Return the notes ``note_ids`` in order without repeats; all or NotFound naming the unknown."""
    notes: list[Note] = []
    unknown: list[int] = []
    for note_id in dict.fromkeys(note_ids):
        note = session.get(Note, note_id)
        if note is None:
            unknown.append(note_id)
        else:
            notes.append(note)
    if unknown:
        noun = "note" if len(unknown) == 1 else "notes"
        raise NotFound(f"no {noun} with id {', '.join(map(str, unknown))}; nothing changed")
    return notes


def notes_of(session: Session, paper: Paper) -> list[Note]:
    """Return the notes of ``paper``, oldest first."""
    return list(session.scalars(select(Note).where(Note.paper_id == paper.id).order_by(Note.id)))


def update_note(session: Session, note: Note, body: str, *, at: datetime | None = None) -> bool:
    """Replace the text of ``note``; return False when the text is the same (nothing done).

    Raises UsageError for an empty text (``note rm`` deletes a note).
    """
    from readinglist.errors import UsageError

    text = body.strip("\n").rstrip()
    if not text.strip():
        raise UsageError(f"the new text of note {note.id} is empty; nothing changed")
    if text == note.body:
        return False
    when = at or utcnow()
    note.body = text
    note.updated_at = when
    session.execute(update(Paper).where(Paper.id == note.paper_id).values(updated_at=when))
    session.flush()
    _expire_notes(session, [note.paper_id])
    refresh_search_text(session, [note.paper_id])
    return True


def delete_notes(session: Session, notes: Sequence[Note]) -> None:
    """Delete ``notes`` and refresh the search text of their papers."""
    paper_ids = sorted({n.paper_id for n in notes})
    for note in notes:
        session.delete(note)
    session.flush()
    _expire_notes(session, paper_ids)
    refresh_search_text(session, paper_ids)


def _expire_notes(session: Session, paper_ids: Iterable[int]) -> None:
    wanted = set(paper_ids)
    for obj in list(session.identity_map.values()):
        if isinstance(obj, Paper) and obj.id in wanted:
            session.expire(obj, ["notes"])


def set_title(
    session: Session, paper: Paper, title: str | None, *, provisional: bool = False
) -> str | None:
    """Set the title of ``paper`` and return the old one.

    White space is collapsed; ``title_provisional`` becomes ``provisional`` (False: the
    user's title is never made up); ``title_key`` and the search text follow. None
    (only for triage's undo of a paper without title) clears it. Raises UsageError
    for an empty title.
    """
    from readinglist.errors import UsageError

    old = paper.title
    if title is not None:
        title = " ".join(title.split())
        if not title:
            raise UsageError("a title cannot be empty")
    paper.title = title
    paper.title_provisional = provisional
    paper.title_key = title_key(title) if title else None
    paper.updated_at = utcnow()
    session.flush()
    refresh_search_text(session, [paper.id])
    return old


#: Bibliographic fields :func:`update_paper` compares and writes (``PaperRecord`` names).
EDITABLE = (
    "entry_type",
    "title",
    "short_name",
    "authors",
    "editors",
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
)


def update_paper(
    session: Session, paper: Paper, before: PaperRecord, after: PaperRecord
) -> list[str]:
    """Apply to ``paper`` what changed from ``before`` to ``after`` (``edit``); return the names.

    ``before`` is the paper as the user was shown it and ``after`` as they left it,
    both read by the same reader, so only real edits differ. Only fields of
    :data:`EDITABLE` that differ are written (another process's change to any other
    field is kept). A changed title stops being provisional. DOI and arXiv id are
    normalized; people are relinked (stored spellings reused); ``title_key``,
    ``abstract_key``, ``updated_at`` and the search text follow. The citation key is
    not touched (see :func:`rekey`), nor is read status, priority, tags or notes.
    """
    before, after = normalize_record(before), normalize_record(after)
    changed = [name for name in EDITABLE if _edit_value(before, name) != _edit_value(after, name)]
    if not changed:
        return []
    values: dict[str, Any] = {}
    for name in changed:
        if name in ("authors", "editors"):
            continue
        if name == "keywords":
            values[name] = _keywords_text(after.keywords)
        elif name == "fields":
            values[name] = dict(after.fields)
        else:
            values[name] = getattr(after, name)
    if "title" in values:
        values["title_provisional"] = False
        values["title_key"] = title_key(after.title) if after.title else None
    if "abstract" in values:
        values["abstract_key"] = dedupe.abstract_key(after.abstract)
    values["updated_at"] = utcnow()
    for name, value in values.items():
        setattr(paper, name, value)
    roles = [role for role in ("author", "editor") if f"{role}s" in changed]
    if roles:
        # Relink only the roles that changed; the other keeps the people it has. The
        # loaded links go out of the session first, or the new rows (same primary keys)
        # would be read back as the stale objects.
        for link in list(paper.people):
            if link.role in roles:
                session.expunge(link)
        session.execute(
            delete(PaperPerson).where(PaperPerson.paper_id == paper.id, PaperPerson.role.in_(roles))
        )
        people = replace(
            after,
            authors=after.authors if "author" in roles else (),
            editors=after.editors if "editor" in roles else (),
        )
        _insert_people(session, [people], [paper.id])
    session.flush()
    session.expire(paper, ["people"])
    refresh_search_text(session, [paper.id])
    return changed


def _edit_value(record: PaperRecord, name: str) -> Any:
    value = getattr(record, name)
    if name in ("keywords", "authors", "editors"):
        return tuple(value)
    if name == "fields":
        return dict(value)
    if isinstance(value, str) and not value.strip():
        return None
    return value


def triage_queue(session: Session, query_text: str = "", *, only_new: bool = True) -> list[int]:
    """Return the ids of the papers ``triage`` walks, oldest import first (then file order).

    Those ``query_text`` selects (every paper when blank), limited to status ``new``
    when ``only_new``. Raises InvalidQuery for a bad query.
    """
    from readinglist import query

    stmt = select(Paper.id, Paper.added_at)
    if only_new:
        stmt = stmt.where(Paper.status == "new")
    if not query_text.strip():
        rows = session.execute(stmt).all()
    else:
        ids = query.paper_ids(session, query_text)
        rows = []
        for start in range(0, len(ids), CHUNK):
            rows.extend(session.execute(stmt.where(Paper.id.in_(ids[start : start + CHUNK]))))
    return [int(pid) for pid, _ in sorted(rows, key=lambda r: (r[1], r[0]))]


def paper_stats(session: Session, query_text: str = "") -> dict[str, Any]:
    """Count the papers ``query_text`` selects (all when blank) for ``stats``.

    Returns ``{"papers": n, "status": {status: n} (every status of records.STATUSES,
    in that order), "priority": {"high"|"medium"|"low"|"none": n}, "tags": [(name,
    n)] (most used first, then by name), "read_per_month": [("YYYY-MM", n)] (oldest
    first)}``. A paper counts as read in every month (UTC) in which its status
    history moved it to ``read``; a paper marked read without history (imported so)
    counts in the month of its ``read_at``. Raises InvalidQuery for a bad query.
    """
    from collections import Counter

    from readinglist import query
    from readinglist.models import StatusEvent
    from readinglist.records import STATUSES

    ids: list[int] | None = None
    if query_text.strip():
        ids = query.paper_ids(session, query_text)

    def chunks(stmt: Any, column: Any) -> Iterable[Any]:
        if ids is None:
            yield from session.execute(stmt)
            return
        for start in range(0, len(ids), CHUNK):
            yield from session.execute(stmt.where(column.in_(ids[start : start + CHUNK])))

    status: Counter[str] = Counter()
    priority: Counter[str] = Counter()
    read_at: dict[int, datetime] = {}
    papers = 0
    for pid, st, prio, when in chunks(
        select(Paper.id, Paper.status, Paper.priority, Paper.read_at), Paper.id
    ):
        papers += 1
        status[st] += 1
        priority[PRIORITY_NAMES.get(prio, "none") if prio is not None else "none"] += 1
        if when is not None:
            read_at[int(pid)] = when
    tags: Counter[str] = Counter()
    for name, _pid in chunks(
        select(Tag.name, PaperTag.paper_id).join(PaperTag, PaperTag.tag_id == Tag.id),
        PaperTag.paper_id,
    ):
        tags[str(name)] += 1
    months: dict[str, set[int]] = defaultdict(set)
    with_events: set[int] = set()
    for pid, at in chunks(
        select(StatusEvent.paper_id, StatusEvent.at).where(StatusEvent.to_status == "read"),
        StatusEvent.paper_id,
    ):
        with_events.add(int(pid))
        months[at.strftime("%Y-%m")].add(int(pid))
    for pid, when in read_at.items():
        if pid not in with_events:
            months[when.strftime("%Y-%m")].add(pid)
    return {
        "papers": papers,
        "status": {name: status.get(name, 0) for name in STATUSES},
        "priority": {name: priority.get(name, 0) for name in PRIORITY_LEVELS},
        "tags": sorted(tags.items(), key=lambda item: (-item[1], item[0].lower(), item[0])),
        "read_per_month": [(month, len(months[month])) for month in sorted(months)],
    }


# --- query helpers ---------------------------------------------------------------------------
# Light read paths for `list` and shell completion (issue 6): one SELECT each, no ORM
# objects where only keys are needed.


def select_keys(
    session: Session,
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
    from readinglist import query

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

    ids = query.paper_ids(session, query_text, sort=sort, limit=limit, reverse=reverse)
    return load_papers_for_listing(session, ids)


def load_papers_for_listing(session: Session, ids: Sequence[int]) -> list[Paper]:
    """Load papers ``ids`` in that order with people and tags but not notes (tables, JSON).

    Like :func:`load_papers` with larger chunks and without the notes a listing never shows.
    """
    stmt = select(Paper).options(
        selectinload(Paper.people).joinedload(PaperPerson.person), selectinload(Paper.tags)
    )
    found: dict[int, Paper] = {}
    step = CHUNK * 4
    for start in range(0, len(ids), step):
        for paper in session.scalars(stmt.where(Paper.id.in_(ids[start : start + step]))):
            found[paper.id] = paper
    return [found[i] for i in ids if i in found]


def keys_starting(session: Session, prefix: str, limit: int = 200) -> list[str]:
    """Return up to ``limit`` citation keys and aliases starting with ``prefix``
    (case-insensitive), sorted case-insensitively: the candidates of shell completion."""
    folded = prefix.lower()
    keys = session.scalars(
        select(Paper.citekey)
        .where(Paper.citekey_folded.startswith(folded, autoescape=True))
        .order_by(Paper.citekey_folded)
        .limit(limit)
    ).all()
    aliases = session.scalars(
        select(Alias.alias)
        .where(Alias.alias_folded.startswith(folded, autoescape=True))
        .order_by(Alias.alias_folded)
        .limit(limit)
    ).all()
    return sorted({*keys, *aliases}, key=str.lower)[:limit]


def tags_starting(session: Session, prefix: str, limit: int = 200) -> list[str]:
    """Return up to ``limit`` tag names starting with ``prefix`` (case-insensitive), sorted."""
    return list(
        session.scalars(
            select(Tag.name)
            .where(Tag.name_folded.startswith(prefix.lower(), autoescape=True))
            .order_by(Tag.name_folded)
            .limit(limit)
        )
    )
