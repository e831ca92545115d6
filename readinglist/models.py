"""Typed SQLAlchemy 2.x models of the reading list (ARCHITECTURE.md "Data model").

Only mappings and tiny invariants live here; queries live in ``library`` and
``query``. Alembic migrations under ``alembic/versions`` create exactly this
schema (a test runs ``alembic check``), plus what metadata cannot describe: the
SQLite FTS5 table ``paper_fts`` with its triggers, and PostgreSQL's generated
``papers.search_vector`` column with its GIN index.

Timestamps are stored as UTC and read back as timezone-aware UTC datetimes on
both databases (:class:`UTCDateTime`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    TypeDecorator,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from readinglist.records import PRIORITY_CODES as PRIORITY_CODES  # re-exported: its old home
from readinglist.records import PRIORITY_NAMES as PRIORITY_NAMES

#: Constraint names as the Alembic "naming" docs recommend, so migrations can name them.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """Return the current time as a timezone-aware UTC datetime (a callable default)."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC; values come back timezone-aware (``tzinfo=UTC``).

    SQLite has no time zones: values are stored naive in UTC. PostgreSQL stores
    ``timestamp with time zone``. Naive datetimes passed in are taken as UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    """Declarative base with the naming convention and JSON mapping for ``dict`` columns."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {dict[str, Any]: JSON, datetime: UTCDateTime}


class ImportBatch(Base):
    """One run of ``readinglist import`` over one source: provenance and undo."""

    __tablename__ = "import_batches"

    id: Mapped[int] = mapped_column(primary_key=True)
    source: Mapped[str] = mapped_column(Text)
    format: Mapped[str] = mapped_column(String(32))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    added: Mapped[int] = mapped_column(default=0)
    merged: Mapped[int] = mapped_column(default=0)
    rejected: Mapped[int] = mapped_column(default=0)
    #: The ``@string`` blocks of a BibTeX import as written (``ParseResult.meta``): all
    #: of them in file order since migration 0004, the last of each macro before.
    bibtex_strings: Mapped[str | None] = mapped_column(Text)
    #: The ``@preamble`` blocks of a BibTeX import as written.
    bibtex_preamble: Mapped[str | None] = mapped_column(Text)

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

    __tablename__ = "papers"
    __table_args__ = (
        # ``list -k`` and the default sort read (added_at, id) in order and want the key:
        # a covering index spares reading 100,000 wide rows (migration 0002). The partial
        # index for ``is:provisional`` is created by that migration and not declared
        # here: its dialect options would import both dialects at every start-up.
        Index("ix_papers_added_keys", "added_at", "id", "citekey"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    citekey: Mapped[str] = mapped_column(String(255))
    citekey_folded: Mapped[str] = mapped_column(String(255), unique=True)
    #: True for a key generated while the paper had no real data (a provisional title,
    #: no authors): a merge bringing real data replaces it (migration 0003, issue 13).
    citekey_provisional: Mapped[bool] = mapped_column(Boolean, default=False)
    entry_type: Mapped[str] = mapped_column(String(64), default="misc")
    title: Mapped[str | None] = mapped_column(Text)
    title_provisional: Mapped[bool] = mapped_column(Boolean, default=False)
    title_key: Mapped[str | None] = mapped_column(Text, index=True)
    short_name: Mapped[str | None] = mapped_column(String(255))
    year: Mapped[int | None] = mapped_column(Integer, index=True)
    month: Mapped[int | None] = mapped_column(SmallInteger)
    venue: Mapped[str | None] = mapped_column(Text)
    abstract: Mapped[str | None] = mapped_column(Text)
    abstract_key: Mapped[str | None] = mapped_column(String(40), index=True)
    doi: Mapped[str | None] = mapped_column(String(255), index=True)
    arxiv: Mapped[str | None] = mapped_column(String(64), index=True)
    url: Mapped[str | None] = mapped_column(Text)
    code_url: Mapped[str | None] = mapped_column(Text)
    keywords: Mapped[str | None] = mapped_column(Text)
    fields: Mapped[dict[str, Any]] = mapped_column(default=dict)
    source_text: Mapped[str | None] = mapped_column(Text)
    source_digest: Mapped[str | None] = mapped_column(String(64))
    #: The BibTeX reader's ``PaperRecord.source_check`` (migration 0002): lets export
    #: copy ``source_text`` without parsing it again.
    source_check: Mapped[str | None] = mapped_column(String(64))
    #: The BibTeX reader's ``PaperRecord.strings_read`` (migration 0004): how many
    #: ``@string`` blocks of its batch's ``bibtex_strings`` came before the entry, so
    #: export gives its macros the values it was read with.
    source_strings_read: Mapped[int | None] = mapped_column(Integer)
    #: True while the bibliographic data is what ``source_text`` was read to (the
    #: data half of ``source_check`` holds without being recomputed; migration 0005):
    #: set by an import, cleared by every change (``library.rows.sources_changed``).
    #: NULL: unknown, the export recomputes.
    source_intact: Mapped[bool | None] = mapped_column(Boolean)
    search_text: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(16), default="new", index=True)
    priority: Mapped[int | None] = mapped_column(SmallInteger, index=True)
    added_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    read_at: Mapped[datetime | None] = mapped_column()
    batch_id: Mapped[int | None] = mapped_column(
        ForeignKey("import_batches.id", ondelete="SET NULL"), index=True
    )

    people: Mapped[list[PaperPerson]] = relationship(
        back_populates="paper",
        cascade="all, delete-orphan",
        order_by="(PaperPerson.role, PaperPerson.position)",
        lazy="selectin",
    )
    tags: Mapped[list[Tag]] = relationship(
        secondary="paper_tags", back_populates="papers", lazy="selectin", order_by="Tag.name_folded"
    )
    notes: Mapped[list[Note]] = relationship(
        back_populates="paper", cascade="all, delete-orphan", order_by="Note.id"
    )
    events: Mapped[list[StatusEvent]] = relationship(
        back_populates="paper", cascade="all, delete-orphan", order_by="StatusEvent.id"
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

    __tablename__ = "people"

    id: Mapped[int] = mapped_column(primary_key=True)
    name_key: Mapped[str] = mapped_column(Text, unique=True)
    family: Mapped[str] = mapped_column(Text, default="")
    given: Mapped[str] = mapped_column(Text, default="")
    von: Mapped[str] = mapped_column(Text, default="")
    jr: Mapped[str] = mapped_column(Text, default="")
    literal: Mapped[str] = mapped_column(Text, default="")
    family_folded: Mapped[str] = mapped_column(Text, default="", index=True)
    name_folded: Mapped[str] = mapped_column(Text, default="")

    def __repr__(self) -> str:
        return f"Person(id={self.id!r}, name_key={self.name_key!r})"


class PaperPerson(Base):
    """The ordered link of a paper to an author or editor (``role``)."""

    __tablename__ = "paper_people"

    paper_id: Mapped[int] = mapped_column(
        ForeignKey("papers.id", ondelete="CASCADE"), primary_key=True
    )
    role: Mapped[str] = mapped_column(String(16), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)

    paper: Mapped[Paper] = relationship(back_populates="people")
    person: Mapped[Person] = relationship(lazy="joined")

    def __repr__(self) -> str:
        return f"PaperPerson(paper_id={self.paper_id!r}, role={self.role!r}, position={self.position!r})"


class Tag(Base):
    """A tag; names are unique case-insensitively through ``name_folded``."""

    __tablename__ = "tags"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    name_folded: Mapped[str] = mapped_column(String(255), unique=True)

    papers: Mapped[list[Paper]] = relationship(secondary="paper_tags", back_populates="tags")

    def __repr__(self) -> str:
        return f"Tag(id={self.id!r}, name={self.name!r})"


class PaperTag(Base):
    """The association of papers and tags."""

    __tablename__ = "paper_tags"

    paper_id: Mapped[int] = mapped_column(
        ForeignKey("papers.id", ondelete="CASCADE"), primary_key=True
    )
    tag_id: Mapped[int] = mapped_column(
        ForeignKey("tags.id", ondelete="CASCADE"), primary_key=True, index=True
    )


class Note(Base):
    """A Markdown note on a paper, with UTC creation and update times."""

    __tablename__ = "notes"

    id: Mapped[int] = mapped_column(primary_key=True)
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    paper: Mapped[Paper] = relationship(back_populates="notes")

    def __repr__(self) -> str:
        return f"Note(id={self.id!r}, paper_id={self.paper_id!r})"


class StatusEvent(Base):
    """One change of read status (``from_status`` is None for the first), at a UTC time."""

    __tablename__ = "status_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)
    from_status: Mapped[str | None] = mapped_column(String(16))
    to_status: Mapped[str] = mapped_column(String(16))
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)

    paper: Mapped[Paper] = relationship(back_populates="events")

    def __repr__(self) -> str:
        return f"StatusEvent(paper_id={self.paper_id!r}, {self.from_status!r}->{self.to_status!r})"


class Alias(Base):
    """An old citation key that still resolves to a paper (after ``rekey`` or ``merge``)."""

    __tablename__ = "aliases"

    alias_folded: Mapped[str] = mapped_column(String(255), primary_key=True)
    alias: Mapped[str] = mapped_column(String(255))
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)

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

    __tablename__ = "merge_conflicts"

    id: Mapped[int] = mapped_column(primary_key=True)
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)
    field: Mapped[str] = mapped_column(String(64))
    value: Mapped[dict[str, Any]] = mapped_column()
    source: Mapped[str] = mapped_column(Text, default="")
    at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return f"MergeConflict(paper_id={self.paper_id!r}, field={self.field!r})"


class NotDuplicate(Base):
    """Two papers the user said are different (``readinglist not-duplicate A B``):
    never offered as duplicates nor merged again. ``low_id < high_id``."""

    __tablename__ = "not_duplicates"

    low_id: Mapped[int] = mapped_column(
        ForeignKey("papers.id", ondelete="CASCADE"), primary_key=True
    )
    high_id: Mapped[int] = mapped_column(
        ForeignKey("papers.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    at: Mapped[datetime] = mapped_column(default=utcnow)


# The tables of the classes above, for Core statements. A statement made only of table
# columns runs without configuring the ORM's mappers, which costs ~55 ms CPU the first
# time in a process (issue 17): the query compiler builds its statements from these,
# so `list QUERY` loads no ORM object and configures nothing.
PAPERS = cast(Table, Paper.__table__)
PEOPLE = cast(Table, Person.__table__)
PAPER_PEOPLE = cast(Table, PaperPerson.__table__)
TAGS = cast(Table, Tag.__table__)
PAPER_TAGS = cast(Table, PaperTag.__table__)
NOTES = cast(Table, Note.__table__)
ALIASES = cast(Table, Alias.__table__)
STATUS_EVENTS = cast(Table, StatusEvent.__table__)
IMPORT_BATCHES = cast(Table, ImportBatch.__table__)
