"""Who decides and what they decided, as SQL expressions (Core only, no session).

The current reader of a run is named by ``--reader NAME``, else ``READINGLIST_READER``,
else ``reader = "NAME"`` in the configuration file (:func:`readinglist.config.reader_name`),
else :data:`DEFAULT_READER`; :func:`use` sets it once per run (a context variable, so
code called without a reader acts for it). Statements name the current reader by
:data:`CURRENT_ID`, a scalar subquery over its folded name evaluated when the statement
runs, so reading needs no lookup first and a reader with no row yet (a new library, a
new reader) reads every paper as ``new``.

A decision is a row of :data:`~readinglist.tables.DECISIONS` (paper, reader); a paper
with no row for a reader is ``new`` with no priority and no read time for them. The
expressions here are what the query compiler, the listings and the ORM model read
(correlated scalar subqueries on the primary key ``(paper_id, reader_id)``: one index
probe per paper shown) and the filters a query uses (``papers.id IN`` the reader's rows
of a status, served by ``ix_decisions_reader_status``). Writes are
:mod:`readinglist.library.marks`'s alone; the rows of readers are
:mod:`readinglist.library.readers`'s. "Wanting" a paper is
:data:`readinglist.records.WANTED_STATUSES`; ``wanted-by:N`` counts the readers who want it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Join,
    ScalarSelect,
    and_,
    bindparam,
    func,
    literal,
    or_,
    select,
)

from readinglist.bounds import check_reader_name, fold_reader_name
from readinglist.records import STATUSES, WANTED_STATUSES
from readinglist.tables import DECISIONS, PAPERS, READERS

#: The implicit reader of a personal library: every decision made before readers
#: existed is theirs (migration 0008).
DEFAULT_READER = "default"


@dataclass
class _Current:
    """The current reader's name and the readers this run created (in order)."""

    name: str = DEFAULT_READER
    created: list[str] = field(default_factory=list)


_CURRENT: ContextVar[_Current | None] = ContextVar("readinglist_reader", default=None)


def _state() -> _Current:
    """The current reader's state, made (as the default reader's) on first use."""
    state = _CURRENT.get()
    if state is None:
        state = _Current()
        _CURRENT.set(state)
    return state


def fold(name: str) -> str:
    """The folded form of a reader name (``readers.name_folded``):
    :func:`readinglist.bounds.fold_reader_name`."""
    return fold_reader_name(name)


def use(name: str | None) -> str:
    """Make ``name`` (checked by :func:`readinglist.bounds.check_reader_name`; UsageError)
    the current reader of this run; None: :data:`DEFAULT_READER`. Returns the name."""
    clean = DEFAULT_READER if name is None else check_reader_name(name)
    _CURRENT.set(_Current(clean))
    return clean


@contextmanager
def acting_as(name: str | None) -> Iterator[str]:
    """Make ``name`` the current reader inside the block (None: leave it as it is), then
    put the previous one back: for work done for a reader other than the run's own,
    such as a kept Markdown export refreshed after another reader's change."""
    if name is None:
        yield current()
        return
    token = _CURRENT.set(_Current(check_reader_name(name), _state().created))
    try:
        yield name
    finally:
        _CURRENT.reset(token)


def current() -> str:
    """The current reader's name (:func:`use`; :data:`DEFAULT_READER` unless set)."""
    return _state().name


def note_created(name: str) -> None:
    """Record that this run created the reader ``name`` (:func:`created`)."""
    state = _state()
    if name not in state.created:
        state.created.append(name)


def created() -> list[str]:
    """The readers this run created (:func:`ensure`), to be said on stderr."""
    return list(_state().created)


def _current_folded() -> str:
    return fold(current())


def id_of(name: str | None = None) -> ScalarSelect[Any]:
    """The id of the reader ``name`` (None: the current reader, resolved when the statement
    runs) as a scalar subquery: NULL for a reader with no row, so it matches no decision."""
    value = (
        bindparam("current_reader", callable_=_current_folded, type_=READERS.c.name_folded.type)
        if name is None
        else bindparam(None, fold(name), type_=READERS.c.name_folded.type, unique=True)
    )
    return select(READERS.c.id).where(READERS.c.name_folded == value).scalar_subquery()


#: The current reader's id in a statement (:func:`id_of`).
CURRENT_ID = id_of()


def visible_note(notes: Any) -> ColumnElement[bool]:
    """True for a note (of ``notes``, the table or an alias) the current reader sees: a
    shared note or one of their own."""
    return or_(notes.c.shared.is_(True), notes.c.reader_id == CURRENT_ID)


def _reader(reader: str | None) -> ColumnElement[Any]:
    return CURRENT_ID if reader is None else id_of(reader)


#: The decision columns a paper has for a reader, with their value when it has no row.
COLUMNS: dict[str, Any] = {"status": "new", "priority": None, "read_at": None}


def column(name: str, reader: str | None = None, paper_id: Any = None) -> ColumnElement[Any]:
    """The decision column ``name`` (``status``, ``priority``, ``read_at``) of the paper
    ``paper_id`` (default ``papers.id``, correlated) for ``reader`` (None: the current
    one), labelled ``name``: its value, or :data:`COLUMNS`'s when the reader has no row."""
    pid = PAPERS.c.id if paper_id is None else paper_id
    value: ColumnElement[Any] = (
        select(DECISIONS.c[name])
        .where(DECISIONS.c.paper_id == pid, DECISIONS.c.reader_id == _reader(reader))
        .scalar_subquery()
    )
    if COLUMNS[name] is not None:
        value = func.coalesce(value, literal(COLUMNS[name]))
    return value.label(name)


def with_decisions(reader: str | None = None) -> Join:
    """``papers LEFT JOIN decisions`` of ``reader`` (None: the current one): for a whole
    library read at once (counts, the interest model), where one join beats a probe per
    paper. The status is then ``coalesce(decisions.status, 'new')`` (:func:`joined_status`)."""
    return PAPERS.outerjoin(
        DECISIONS,
        and_(DECISIONS.c.paper_id == PAPERS.c.id, DECISIONS.c.reader_id == _reader(reader)),
    )


def joined_status() -> ColumnElement[str]:
    """The status in :func:`with_decisions`: ``new`` where the reader has no row."""
    return func.coalesce(DECISIONS.c.status, literal("new"))


def paper_column(name: str, reader: str | None = None) -> ColumnElement[Any]:
    """A column of a paper as listings read it: a decision column (:data:`COLUMNS`) of
    ``reader`` (:func:`column`), else the ``papers`` column ``name`` (KeyError if none)."""
    return column(name, reader) if name in COLUMNS else PAPERS.c[name]


def status_in(statuses: Iterable[str], reader: str | None = None) -> ColumnElement[bool]:
    """True for the papers whose status for ``reader`` is one of ``statuses``: ``papers.id
    IN`` the reader's rows with those statuses, or for ``new`` ``NOT IN`` their rows with
    another status (a paper without a row is new)."""
    wanted = set(statuses)
    rows = select(DECISIONS.c.paper_id).where(DECISIONS.c.reader_id == _reader(reader))
    if "new" in wanted:
        others = [s for s in STATUSES if s not in wanted]
        if not others:
            return literal(True)
        return PAPERS.c.id.not_in(rows.where(DECISIONS.c.status.in_(others)))
    return PAPERS.c.id.in_(rows.where(DECISIONS.c.status.in_(sorted(wanted))))


def priority_is(code: int | None, reader: str | None = None) -> ColumnElement[bool]:
    """True for the papers whose priority code for ``reader`` is ``code`` (None: none)."""
    rows = select(DECISIONS.c.paper_id).where(DECISIONS.c.reader_id == _reader(reader))
    if code is None:
        return PAPERS.c.id.not_in(rows.where(DECISIONS.c.priority.is_not(None)))
    return PAPERS.c.id.in_(rows.where(DECISIONS.c.priority == code))


def wanted_count() -> ColumnElement[int]:
    """How many readers want the paper (``papers.id``, correlated;
    ``records.WANTED_STATUSES``)."""
    return (
        select(func.count())
        .select_from(DECISIONS)
        .where(DECISIONS.c.paper_id == PAPERS.c.id, DECISIONS.c.status.in_(WANTED_STATUSES))
        .scalar_subquery()
    )
