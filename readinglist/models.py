"""Typed SQLAlchemy 2.x ORM classes of the reading list (ARCHITECTURE.md "Data model").

Only mappings, relationships and tiny invariants live here; the tables, columns,
indexes and types are :mod:`readinglist.tables` (each class maps its ``__table__``;
the ``Mapped[...]`` annotations type the attributes), and queries live in ``library``
and ``query``. A command that needs only Core statements imports ``tables`` and
never this module nor ``sqlalchemy.orm`` (issue 17).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_
from sqlalchemy.orm import DeclarativeBase, Mapped, column_property, relationship

from readinglist import decided, tables
from readinglist.records import PRIORITY_CODES as PRIORITY_CODES  # re-exported: its old home
from readinglist.records import PRIORITY_NAMES as PRIORITY_NAMES

# Re-exported from their home, readinglist.tables: the Core tables of the classes below
# (a statement made only of table columns runs without configuring the ORM's mappers,
# ~55 ms CPU the first time in a process; issue 17), the naming convention, the
# UTC timestamp type and the callable default.
from readinglist.tables import ALIASES as ALIASES
from readinglist.tables import IMPORT_BATCHES as IMPORT_BATCHES
from readinglist.tables import NAMING_CONVENTION as NAMING_CONVENTION
from readinglist.tables import NOTES as NOTES
from readinglist.tables import PAPER_PEOPLE as PAPER_PEOPLE
from readinglist.tables import PAPER_TAGS as PAPER_TAGS
from readinglist.tables import PAPERS as PAPERS
from readinglist.tables import PEOPLE as PEOPLE
from readinglist.tables import STATUS_EVENTS as STATUS_EVENTS
from readinglist.tables import TAGS as TAGS
from readinglist.tables import UTCDateTime as UTCDateTime
from readinglist.tables import utcnow as utcnow


class Base(DeclarativeBase):
    """Declarative base on the tables' :data:`readinglist.tables.METADATA`."""

    metadata = tables.METADATA


class ImportBatch(Base):
    """One run of ``readinglist import`` over one source: provenance and undo."""

    __table__ = tables.IMPORT_BATCHES

    id: Mapped[int]
    source: Mapped[str]
    format: Mapped[str]
    started_at: Mapped[datetime]
    added: Mapped[int]
    merged: Mapped[int]
    rejected: Mapped[int]
    #: The ``@string`` blocks of a BibTeX import as written (``ParseResult.meta``): all
    #: of them in file order since migration 0004, the last of each macro before.
    bibtex_strings: Mapped[str | None]
    #: The ``@preamble`` blocks of a BibTeX import as written.
    bibtex_preamble: Mapped[str | None]

    def __repr__(self) -> str:
        return f"ImportBatch(id={self.id!r}, source={self.source!r}, format={self.format!r})"


class Paper(Base):
    """A paper of the library: bibliographic data plus the user's triage state.

    ``citekey_folded`` is the case-folded key and carries the case-insensitive
    uniqueness (portable across SQLite and PostgreSQL). ``fields`` holds every
    source field without a column, verbatim. ``search_text`` is the folded word
    list indexed for full-text search (``readinglist.text.search_document``).
    ``title_key`` and ``abstract_key`` are the normalized title and a digest of the
    abstract's words, for duplicate detection (``readinglist.dedupe``).
    ``source_digest`` fingerprints the bibliographic data at import so export can
    tell an untouched entry and write ``source_text`` byte for byte.
    """

    __table__ = tables.PAPERS

    id: Mapped[int]
    citekey: Mapped[str]
    citekey_folded: Mapped[str]
    #: True for a key generated while the paper had no real data (a provisional title,
    #: no authors): a merge bringing real data replaces it (migration 0003, issue 13).
    citekey_provisional: Mapped[bool]
    entry_type: Mapped[str]
    title: Mapped[str | None]
    title_provisional: Mapped[bool]
    title_key: Mapped[str | None]
    short_name: Mapped[str | None]
    year: Mapped[int | None]
    month: Mapped[int | None]
    venue: Mapped[str | None]
    abstract: Mapped[str | None]
    abstract_key: Mapped[str | None]
    doi: Mapped[str | None]
    arxiv: Mapped[str | None]
    url: Mapped[str | None]
    code_url: Mapped[str | None]
    keywords: Mapped[str | None]
    fields: Mapped[dict[str, Any]]
    source_text: Mapped[str | None]
    source_digest: Mapped[str | None]
    #: The BibTeX reader's ``PaperRecord.source_check`` (migration 0002): lets export
    #: copy ``source_text`` without parsing it again.
    source_check: Mapped[str | None]
    #: The BibTeX reader's ``PaperRecord.strings_read`` (migration 0004): how many
    #: ``@string`` blocks of its batch's ``bibtex_strings`` came before the entry, so
    #: export gives its macros the values it was read with.
    source_strings_read: Mapped[int | None]
    #: True while the bibliographic data is what ``source_text`` was read to (the
    #: data half of ``source_check`` holds without being recomputed; migration 0005):
    #: set by an import, cleared by every change (``library.rows.sources_changed``).
    #: NULL: unknown, the export recomputes.
    source_intact: Mapped[bool | None]
    search_text: Mapped[str]
    #: The current reader's decision (:mod:`readinglist.library.decisions`): read-only
    #: here, written by :mod:`readinglist.library.marks` alone.
    status: Mapped[str] = column_property(decided.column("status"))
    priority: Mapped[int | None] = column_property(decided.column("priority"))
    added_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    read_at: Mapped[datetime | None] = column_property(decided.column("read_at"))
    batch_id: Mapped[int | None]

    people: Mapped[list[PaperPerson]] = relationship(
        back_populates="paper",
        cascade="all, delete-orphan",
        order_by="(PaperPerson.role, PaperPerson.position)",
        lazy="selectin",
    )
    tags: Mapped[list[Tag]] = relationship(
        secondary="paper_tags", back_populates="papers", lazy="selectin", order_by="Tag.name_folded"
    )
    #: The notes the current reader sees: shared ones and their own
    #: (:func:`readinglist.library.rows.visible_note`).
    notes: Mapped[list[Note]] = relationship(
        back_populates="paper",
        cascade="all, delete-orphan",
        order_by="Note.id",
        primaryjoin=lambda: and_(
            Paper.id == Note.paper_id,
            decided.visible_note(tables.NOTES),
        ),
    )
    #: The current reader's status history of the paper.
    events: Mapped[list[StatusEvent]] = relationship(
        back_populates="paper",
        cascade="all, delete-orphan",
        order_by="StatusEvent.id",
        primaryjoin=lambda: and_(
            Paper.id == StatusEvent.paper_id, StatusEvent.reader_id == decided.CURRENT_ID
        ),
    )
    aliases: Mapped[list[Alias]] = relationship(
        back_populates="paper", cascade="all, delete-orphan"
    )

    @property
    def priority_name(self) -> str | None:
        """The priority as ``"high"``/``"medium"``/``"low"``, or None."""
        return PRIORITY_NAMES.get(self.priority) if self.priority is not None else None

    def __repr__(self) -> str:
        return f"Paper(id={self.id!r}, citekey={self.citekey!r})"


class Person(Base):
    """A person (or corporate literal) with BibTeX's name parts; shared by papers.

    ``name_key`` is the exact identity of the parts (``family|given|von|jr|literal``),
    unique, so the same spelling is stored once. ``family_folded`` (von + family, or
    the literal, folded) serves duplicate detection; ``name_folded`` (the whole name,
    folded) serves ``author:`` queries.
    """

    __table__ = tables.PEOPLE

    id: Mapped[int]
    name_key: Mapped[str]
    family: Mapped[str]
    given: Mapped[str]
    von: Mapped[str]
    jr: Mapped[str]
    literal: Mapped[str]
    family_folded: Mapped[str]
    name_folded: Mapped[str]

    def __repr__(self) -> str:
        return f"Person(id={self.id!r}, name_key={self.name_key!r})"


class PaperPerson(Base):
    """The ordered link of a paper to an author or editor (``role``)."""

    __table__ = tables.PAPER_PEOPLE

    paper_id: Mapped[int]
    role: Mapped[str]
    position: Mapped[int]
    person_id: Mapped[int]

    paper: Mapped[Paper] = relationship(back_populates="people")
    person: Mapped[Person] = relationship(lazy="joined")

    def __repr__(self) -> str:
        return f"PaperPerson(paper_id={self.paper_id!r}, role={self.role!r}, position={self.position!r})"


class Tag(Base):
    """A tag; names are unique case-insensitively through ``name_folded``."""

    __table__ = tables.TAGS

    id: Mapped[int]
    name: Mapped[str]
    name_folded: Mapped[str]

    papers: Mapped[list[Paper]] = relationship(secondary="paper_tags", back_populates="tags")

    def __repr__(self) -> str:
        return f"Tag(id={self.id!r}, name={self.name!r})"


class PaperTag(Base):
    """The association of papers and tags."""

    __table__ = tables.PAPER_TAGS

    paper_id: Mapped[int]
    tag_id: Mapped[int]


class Note(Base):
    """A Markdown note on a paper, with UTC creation and update times."""

    __table__ = tables.NOTES

    id: Mapped[int]
    paper_id: Mapped[int]
    #: The author (a reader); ``shared``: every reader sees it, else only the author.
    reader_id: Mapped[int]
    shared: Mapped[bool]
    body: Mapped[str]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    paper: Mapped[Paper] = relationship(back_populates="notes")

    def __repr__(self) -> str:
        return f"Note(id={self.id!r}, paper_id={self.paper_id!r})"


class StatusEvent(Base):
    """One change of read status (``from_status`` is None for the first), at a UTC time."""

    __table__ = tables.STATUS_EVENTS

    id: Mapped[int]
    paper_id: Mapped[int]
    reader_id: Mapped[int]
    from_status: Mapped[str | None]
    to_status: Mapped[str]
    at: Mapped[datetime]
    undoes: Mapped[int | None]

    paper: Mapped[Paper] = relationship(back_populates="events")

    def __repr__(self) -> str:
        return f"StatusEvent(paper_id={self.paper_id!r}, {self.from_status!r}->{self.to_status!r})"


class Alias(Base):
    """An old citation key that still resolves to a paper (after ``rekey`` or ``merge``)."""

    __table__ = tables.ALIASES

    alias_folded: Mapped[str]
    alias: Mapped[str]
    paper_id: Mapped[int]

    paper: Mapped[Paper] = relationship(back_populates="aliases")

    def __repr__(self) -> str:
        return f"Alias(alias={self.alias!r}, paper_id={self.paper_id!r})"


class MergeConflict(Base):
    """A value a merge did not take because the paper had another (migration 0003).

    ``field`` is a ``PaperRecord`` name (``venue``, ``authors``) or a BibTeX field name
    (``pages``); ``value`` is the other value as JSON (people as ``Person`` part
    dicts); ``source`` names where it came from (a file, a citation key). ``readinglist
    merge --take REF FIELD`` takes the latest one of a field (issue 13).
    """

    __table__ = tables.MERGE_CONFLICTS

    id: Mapped[int]
    paper_id: Mapped[int]
    field: Mapped[str]
    value: Mapped[dict[str, Any]]
    source: Mapped[str]
    at: Mapped[datetime]

    def __repr__(self) -> str:
        return f"MergeConflict(paper_id={self.paper_id!r}, field={self.field!r})"


class NotDuplicate(Base):
    """Two papers the user said are different (``readinglist not-duplicate A B``):
    never offered as duplicates nor merged again. ``low_id < high_id``."""

    __table__ = tables.NOT_DUPLICATES

    low_id: Mapped[int]
    high_id: Mapped[int]
    at: Mapped[datetime]
