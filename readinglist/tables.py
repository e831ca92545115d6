"""The schema of the reading list as SQLAlchemy Core tables (ARCHITECTURE.md "Data model").

The one home of the tables, their columns, indexes and constraint names: Core
statements (``list QUERY``, ``show``, ``mark``, ``tag add``, ``note add``...) are built
on these alone, and :mod:`readinglist.models` maps its ORM classes onto them
(``__table__``), so a command that needs only Core never imports ``sqlalchemy.orm``
nor configures a mapper (issue 17: ~80 ms of ORM import, ~40 ms of mapping). Alembic
compares its migrations with :data:`METADATA` (``alembic/env.py``; a test runs
``alembic check``); the migrations also create what metadata cannot describe: the
SQLite FTS5 table ``paper_fts`` with its triggers, PostgreSQL's generated
``papers.search_vector`` column with its GIN index, and the partial index of
``is:provisional``.

Timestamps are stored as UTC and read back as timezone-aware UTC datetimes on
both databases (:class:`UTCDateTime`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeAlias

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
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
from sqlalchemy.engine import Connection, Dialect

from readinglist import bounds

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

#: What runs Core statements on these tables: an ORM Session (commands that load
#: objects) or a Core Connection (the commands a person types, which never import
#: ``sqlalchemy.orm``; issue 17). Both have ``execute``, ``scalar`` and ``scalars``;
#: :func:`connection_of` and :func:`dialect_name` give the rest.
Executor: TypeAlias = "Session | Connection"


def connection_of(executor: Executor) -> Connection:
    """The Core Connection of ``executor``: itself, or the Session's connection in its
    transaction (``Session.connection()``)."""
    if isinstance(executor, Connection):
        return executor
    return executor.connection()


def dialect_name(executor: Executor) -> str:
    """The name of ``executor``'s database dialect (``"sqlite"``, ``"postgresql"``)."""
    if isinstance(executor, Connection):
        return executor.dialect.name
    return executor.get_bind().dialect.name


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


#: Every table of the library, with :data:`NAMING_CONVENTION`.
METADATA = MetaData(naming_convention=NAMING_CONVENTION)


def _id() -> Column[int]:
    return Column("id", Integer, primary_key=True)


def _paper_id(*, primary_key: bool = False) -> Column[int]:
    """``paper_id``: deleted with its paper; indexed unless it leads the primary key."""
    return Column(
        "paper_id",
        Integer,
        ForeignKey("papers.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=False,
        index=not primary_key,
    )


#: One run of ``readinglist import`` over one source: provenance and undo.
#: ``bibtex_strings``: the ``@string`` blocks of a BibTeX import as written
#: (``ParseResult.meta``), all of them in file order since migration 0004, the last of
#: each macro before; ``bibtex_preamble``: its ``@preamble`` blocks as written.
IMPORT_BATCHES = Table(
    "import_batches",
    METADATA,
    _id(),
    Column("source", Text, nullable=False),
    Column("format", String(32), nullable=False),
    Column("started_at", UTCDateTime, nullable=False, default=utcnow),
    Column("added", Integer, nullable=False, default=0),
    Column("merged", Integer, nullable=False, default=0),
    Column("rejected", Integer, nullable=False, default=0),
    Column("bibtex_strings", Text),
    Column("bibtex_preamble", Text),
)

#: A paper: its bibliographic data, shared by every reader (``models.Paper`` says what
#: each column holds). Each reader's status and priority are rows of :data:`DECISIONS`.
PAPERS = Table(
    "papers",
    METADATA,
    _id(),
    Column("citekey", String(bounds.MAX_CITEKEY), nullable=False),
    Column("citekey_folded", String(bounds.MAX_CITEKEY), nullable=False, unique=True),
    # True for a key generated while the paper had no real data (migration 0003).
    Column("citekey_provisional", Boolean, nullable=False, default=False),
    Column("entry_type", String(bounds.MAX_TYPE), nullable=False, default="misc"),
    Column("title", Text),
    Column("title_provisional", Boolean, nullable=False, default=False),
    Column("title_key", Text, index=True),
    Column("short_name", String(bounds.MAX_SHORT_NAME)),
    Column("year", Integer, index=True),
    Column("month", SmallInteger),
    Column("venue", Text),
    Column("abstract", Text),
    Column("abstract_key", String(40), index=True),
    Column("doi", String(bounds.MAX_DOI), index=True),
    Column("arxiv", String(bounds.MAX_ARXIV), index=True),
    Column("url", Text),
    Column("code_url", Text),
    Column("keywords", Text),
    Column("fields", JSON, nullable=False, default=dict),
    Column("source_text", Text),
    Column("source_digest", String(64)),
    Column("source_check", String(64)),
    Column("source_strings_read", Integer),
    Column("source_intact", Boolean),
    Column("search_text", Text, nullable=False, default=""),
    Column("added_at", UTCDateTime, nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow, onupdate=utcnow),
    Column(
        "batch_id",
        Integer,
        ForeignKey("import_batches.id", ondelete="SET NULL"),
        index=True,
    ),
    # ``list -k`` and the default sort read (added_at, id) in order and want the key:
    # a covering index spares reading 100,000 wide rows (migration 0002). The partial
    # index for ``is:provisional`` is created by that migration and not declared
    # here: its dialect options would import both dialects at every start-up.
    Index("ix_papers_added_keys", "added_at", "id", "citekey"),
    # The change counter's last ``updated_at`` (``ranking.fitted.change_counter``) is a
    # look-up, not a scan (migration 0009).
    Index("ix_papers_updated_at", "updated_at"),
)

#: A person (or corporate literal) with BibTeX's name parts; shared by papers.
PEOPLE = Table(
    "people",
    METADATA,
    _id(),
    Column("name_key", Text, nullable=False, unique=True),
    Column("family", Text, nullable=False, default=""),
    Column("given", Text, nullable=False, default=""),
    Column("von", Text, nullable=False, default=""),
    Column("jr", Text, nullable=False, default=""),
    Column("literal", Text, nullable=False, default=""),
    Column("family_folded", Text, nullable=False, default="", index=True),
    Column("name_folded", Text, nullable=False, default=""),
)

#: The ordered link of a paper to an author or editor (``role``).
PAPER_PEOPLE = Table(
    "paper_people",
    METADATA,
    _paper_id(primary_key=True),
    Column("role", String(16), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("person_id", Integer, ForeignKey("people.id"), nullable=False, index=True),
)

#: A tag; names are unique case-insensitively through ``name_folded``.
TAGS = Table(
    "tags",
    METADATA,
    _id(),
    Column("name", String(bounds.MAX_TAG), nullable=False),
    Column("name_folded", String(bounds.MAX_TAG), nullable=False, unique=True),
)

#: The association of papers and tags.
PAPER_TAGS = Table(
    "paper_tags",
    METADATA,
    _paper_id(primary_key=True),
    Column(
        "tag_id",
        Integer,
        ForeignKey("tags.id", ondelete="CASCADE"),
        primary_key=True,
        index=True,
    ),
)

#: A person deciding about the papers of a shared library (migration 0008): ``name`` as
#: first written, unique case-insensitively through ``name_folded``
#: (:func:`readinglist.decided.fold`). A personal library has one, the implicit
#: reader :data:`readinglist.decided.DEFAULT_READER`.
READERS = Table(
    "readers",
    METADATA,
    _id(),
    Column("name", String(bounds.MAX_READER), nullable=False),
    Column("name_folded", String(bounds.MAX_READER), nullable=False, unique=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
)


def _reader_id(*, primary_key: bool = False) -> Column[int]:
    """``reader_id``: deleted with its reader."""
    return Column(
        "reader_id",
        Integer,
        ForeignKey("readers.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=False,
    )


#: One reader's decision about one paper (migration 0008): read status, priority code
#: (``records.PRIORITY_CODES``), when it was read, when the decision last changed. A
#: paper without a row for a reader is ``new`` with no priority for that reader.
#: ``(reader_id, status)`` and ``(reader_id, priority)`` serve ``status:``/``priority:``
#: queries and the counts of one reader.
DECISIONS = Table(
    "decisions",
    METADATA,
    _paper_id(primary_key=True),
    _reader_id(primary_key=True),
    Column("status", String(16), nullable=False, default="new"),
    Column("priority", SmallInteger),
    Column("read_at", UTCDateTime),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow, onupdate=utcnow),
    Index("ix_decisions_reader_status", "reader_id", "status", "paper_id"),
    Index("ix_decisions_reader_priority", "reader_id", "priority"),
    # The current reader's last decision time, for the change counter (migration 0009).
    Index("ix_decisions_reader_updated", "reader_id", "updated_at"),
)

#: A Markdown note on a paper, with UTC creation and update times, written by a reader
#: (``reader_id``, migration 0008); ``shared`` notes are seen by every reader, the others
#: by their author only.
NOTES = Table(
    "notes",
    METADATA,
    _id(),
    _paper_id(),
    Column(
        "reader_id",
        Integer,
        ForeignKey("readers.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("shared", Boolean, nullable=False, default=False),
    Column("body", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow, onupdate=utcnow),
)

#: One change of one reader's read status (``from_status`` is None for the first), at a
#: UTC time; ``undoes`` is the id of the change it undid (triage's ``u``, migration 0006);
#: ``reader_id`` whose decision it changed (migration 0008).
STATUS_EVENTS = Table(
    "status_events",
    METADATA,
    _id(),
    _paper_id(),
    Column(
        "reader_id",
        Integer,
        ForeignKey("readers.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("from_status", String(16)),
    Column("to_status", String(16), nullable=False),
    Column("at", UTCDateTime, nullable=False, default=utcnow, index=True),
    Column("undoes", Integer, index=True),
)

#: An old citation key that still resolves to a paper (after ``rekey`` or ``merge``).
ALIASES = Table(
    "aliases",
    METADATA,
    Column("alias_folded", String(255), primary_key=True),
    Column("alias", String(255), nullable=False),
    _paper_id(),
)

#: A value a merge did not take because the paper had another (migration 0003).
MERGE_CONFLICTS = Table(
    "merge_conflicts",
    METADATA,
    _id(),
    _paper_id(),
    Column("field", String(bounds.MAX_FIELD_NAME), nullable=False),
    Column("value", JSON, nullable=False),
    Column("source", Text, nullable=False, default=""),
    Column("at", UTCDateTime, nullable=False, default=utcnow),
)

#: Two papers the user said are different (``low_id < high_id``).
NOT_DUPLICATES = Table(
    "not_duplicates",
    METADATA,
    Column(
        "low_id",
        Integer,
        ForeignKey("papers.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column(
        "high_id",
        Integer,
        ForeignKey("papers.id", ondelete="CASCADE"),
        primary_key=True,
        index=True,
    ),
    Column("at", UTCDateTime, nullable=False, default=utcnow),
)

#: A kept export (``export ... --keep``): re-exported after every command that commits a
#: change it can show (migration 0006). ``owner`` is ``user@host`` of the account that
#: registered it (a shared PostgreSQL library holds every machine's profiles; each
#: machine refreshes its own, since ``target`` and ``aux`` are its absolute paths).
#: ``options`` holds the writer's options and ``strict`` as JSON; ``digest`` is the
#: SHA-256 of the text last written; ``status`` is ``ok``, ``failing`` or None (never run).
EXPORT_PROFILES = Table(
    "export_profiles",
    METADATA,
    _id(),
    Column("owner", String(255), nullable=False),
    Column("name", String(255), nullable=False),
    Column("format", String(16), nullable=False),
    Column("target", Text, nullable=False),
    Column("query", Text, nullable=False, default=""),
    Column("aux", Text),
    Column("options", JSON, nullable=False, default=dict),
    Column("paused", Boolean, nullable=False, default=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("last_run_at", UTCDateTime),
    Column("status", String(16)),
    Column("message", Text),
    Column("papers", Integer),
    Column("digest", String(64)),
    Index("uq_export_profiles_owner_name", "owner", "name", unique=True),
    Index("uq_export_profiles_owner_target", "owner", "target", unique=True),
)
