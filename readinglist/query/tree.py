"""The query tree: one frozen dataclass per kind of term, and walks over a tree.

:func:`readinglist.query.parser.parse` builds these nodes; :mod:`readinglist.query.compiler`
turns them into SQL. Nothing here touches text syntax or the database.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal, TypeAlias


@dataclass(frozen=True)
class Everything:
    """The empty query: every paper."""


@dataclass(frozen=True)
class Text:
    """Free text: folded words that must appear next to each other, in order.

    ``words`` are ``[a-z0-9]+`` tokens (at least one); ``prefix`` makes the last word
    a prefix (``diffus*``).
    """

    words: tuple[str, ...]
    prefix: bool = False


@dataclass(frozen=True)
class Substring:
    """``title:``, ``venue:`` (``value``: the folded words joined by one space) or
    ``author:`` (``value``: the folded name; with ``given`` set, ``value`` is the folded
    family name, matched exactly, and ``given`` a prefix of the given names)."""

    field: Literal["title", "venue", "author"]
    value: str
    given: str | None = None


@dataclass(frozen=True)
class TagTerm:
    """``tag:name`` (lower case): the tag and its sub-tags, or tags starting so (``prefix``)."""

    name: str
    prefix: bool = False


@dataclass(frozen=True)
class Status:
    """``status:`` with one of ``records.STATUSES``; ``reader``: whose (``status:read@ana``),
    None for the current reader."""

    value: str
    reader: str | None = None


@dataclass(frozen=True)
class Priority:
    """``priority:``: a code of ``models.PRIORITY_CODES`` (1 high .. 3 low) or None;
    ``reader``: whose (``priority:high@ana``), None for the current reader."""

    code: int | None
    reader: str | None = None


@dataclass(frozen=True)
class WantedBy:
    """``wanted-by:``: how many readers want the paper (``records.WANTED_STATUSES``),
    an inclusive range; a missing end is open."""

    low: int | None
    high: int | None


@dataclass(frozen=True)
class Year:
    """``year:``: an inclusive range; a missing end is open."""

    low: int | None
    high: int | None


@dataclass(frozen=True)
class DateSpec:
    """One end of a date range as written.

    ``kind`` is ``"date"`` (``year``, ``month``, ``day``; month and day may be None
    for a whole year or month), ``"ago"`` (``amount`` ``unit``s before now; unit is
    ``d``, ``w``, ``m`` or ``y``) or ``"day"`` (``amount`` days before today: 0 is
    today, 1 yesterday, as whole UTC days).
    """

    kind: Literal["date", "ago", "day"]
    year: int = 0
    month: int | None = None
    day: int | None = None
    amount: int = 0
    unit: str = "d"

    def period(self, now: datetime) -> tuple[datetime, datetime | None]:
        """Return ``(first instant, first instant after)`` in UTC; an "ago" is one instant.

        The end is None when it would lie past year 9999; an "ago" further back than
        year 1 starts at year 1.
        """
        if self.kind == "ago":
            point = _months_back(now, self.amount, self.unit)
            return point, point
        if self.kind == "day":
            today = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            start = today - timedelta(days=self.amount)
            return start, start + timedelta(days=1)
        start = datetime(self.year, self.month or 1, self.day or 1, tzinfo=UTC)
        try:
            if self.day is not None:
                end = start + timedelta(days=1)
            elif self.month is not None:
                end = _add_months(start, 1)
            else:
                end = start.replace(year=self.year + 1)
        except (OverflowError, ValueError):
            return start, None
        return start, end


@dataclass(frozen=True)
class DateRange:
    """``added:`` or ``read:``: from the start of ``low`` to the end of ``high``.

    A single date is both ends; a single "ago" is ``low`` only ("since then").
    """

    field: Literal["added", "read"]
    low: DateSpec | None
    high: DateSpec | None


@dataclass(frozen=True)
class Key:
    """``key:``: a lower-case citation key or alias, exact or as a prefix."""

    key: str
    prefix: bool = False


@dataclass(frozen=True)
class Doi:
    """``doi:``: a normalized DOI, exact or (``prefix``) a lower-case prefix."""

    doi: str
    prefix: bool = False


@dataclass(frozen=True)
class Arxiv:
    """``arxiv:``: a normalized arXiv id, exact or (``prefix``) a prefix."""

    arxiv: str
    prefix: bool = False


@dataclass(frozen=True)
class Has:
    """``has:``: one of :data:`readinglist.query.vocabulary.HAS_VALUES`."""

    what: str


@dataclass(frozen=True)
class Is:
    """``is:``: one of :data:`readinglist.query.vocabulary.IS_VALUES`."""

    what: str


@dataclass(frozen=True)
class Not:
    """Negation (``-term``, ``NOT term``)."""

    child: Query


@dataclass(frozen=True)
class And:
    """All of the children (terms side by side, or joined by ``AND``)."""

    children: tuple[Query, ...]


@dataclass(frozen=True)
class Or:
    """Any of the children (terms joined by ``OR``)."""

    children: tuple[Query, ...]


Query: TypeAlias = (
    Everything
    | Text
    | Substring
    | TagTerm
    | Status
    | Priority
    | WantedBy
    | Year
    | DateRange
    | Key
    | Doi
    | Arxiv
    | Has
    | Is
    | Not
    | And
    | Or
)


# --- walks ----------------------------------------------------------------------------------


def walk(query: Query) -> Iterator[tuple[Query, bool]]:
    """Yield every node of ``query`` with True when it sits under an odd number of NOTs."""

    def visit(node: Query, negated: bool) -> Iterator[tuple[Query, bool]]:
        yield node, negated
        if isinstance(node, Not):
            yield from visit(node.child, not negated)
        elif isinstance(node, And | Or):
            for child in node.children:
                yield from visit(child, negated)

    yield from visit(query, False)


def ranked_terms(query: Query) -> list[Text]:
    """Return the free-text terms that select papers (not under a NOT), in order, once each."""
    seen: dict[Text, None] = {}
    for node, negated in walk(query):
        if isinstance(node, Text) and not negated:
            seen.setdefault(node, None)
    return list(seen)


def has_free_text(query: Query) -> bool:
    """True when the query has a positive free-text term (then relevance is the default sort)."""
    return bool(ranked_terms(query))


# --- dates ----------------------------------------------------------------------------------


def _add_months(value: datetime, months: int) -> datetime:
    """Return ``value`` moved by whole calendar months, the day clamped to the month's end."""
    index = value.year * 12 + value.month - 1 + months
    year, month = divmod(index, 12)
    if year < 1:
        raise OverflowError("date before year 1")
    month += 1
    day = min(value.day, calendar.monthrange(year, month)[1])
    return value.replace(year=year, month=month, day=day)


def _months_back(now: datetime, amount: int, unit: str) -> datetime:
    """Return ``now`` minus ``amount`` days, weeks, calendar months or years (year 1 at most)."""
    try:
        if unit == "d":
            return now - timedelta(days=amount)
        if unit == "w":
            return now - timedelta(weeks=amount)
        return _add_months(now, -amount * (12 if unit == "y" else 1))
    except (OverflowError, ValueError):
        return datetime(1, 1, 1, tzinfo=UTC)


def names_other_readers(query: Query, current: str) -> bool:
    """True when ``query`` asks what other readers decided: a ``wanted-by:`` term, or a
    ``status:``/``priority:`` term whose ``@reader`` is not ``current`` (folded as
    reader names are: :func:`readinglist.bounds.fold_reader_name`). Blind screening
    (``triage --blind``, ``serve --blind``) refuses such a search: its matches would
    tell the reader the others' decisions before their own. Never raises."""
    from readinglist.bounds import fold_reader_name

    mine = fold_reader_name(current)
    for node, _ in walk(query):
        if isinstance(node, WantedBy):
            return True
        reader = node.reader if isinstance(node, Status | Priority) else None
        if reader is not None and fold_reader_name(reader) != mine:
            return True
    return False
