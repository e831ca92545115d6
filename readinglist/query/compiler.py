"""The query tree -> one SQLAlchemy WHERE clause over ``papers``, for SQLite or PostgreSQL.

Every term becomes one boolean SQL expression and the tree becomes ``AND``/``OR``/``NOT``
of them, so negation and OR apply to full-text terms too (those come from
:mod:`readinglist.query.fulltext`). Relations (authors, tags, aliases, notes) are
``IN (subquery)`` semi-joins, never one query per paper. Every term is two-valued (false,
never NULL, for a missing value), so ``-year:2024`` keeps papers without a year and
``-priority:high`` those without a priority. Every value the user typed is a bound
parameter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, exists, false, func, not_, or_, select, true

from readinglist import decided, versions
from readinglist.query.fulltext import matches_words, text_clause
from readinglist.query.tree import (
    And,
    Arxiv,
    DateRange,
    Doi,
    Everything,
    Has,
    Is,
    Key,
    Not,
    Or,
    Priority,
    Query,
    Status,
    Substring,
    TagTerm,
    Text,
    WantedBy,
    Year,
    walk,
)
from readinglist.tables import (
    ALIASES,
    DECISIONS,
    NOTES,
    PAPER_PEOPLE,
    PAPER_TAGS,
    PAPERS,
    PEOPLE,
    TAGS,
    Executor,
    dialect_name,
)
from readinglist.text import search_tokens

#: At most this many people matched by an ``author:`` term are bound as values.
PEOPLE_INLINE = 1000
#: At most this many paper ids a term selects are bound as values (``Builder.resolved``),
#: and at most INLINE_BUDGET in one query (SQLite allows 32766 parameters).
INLINE_IDS = 2000
INLINE_BUDGET = 10_000


def known(col: Any, condition: ColumnElement[bool]) -> ColumnElement[bool]:
    """Return ``col IS NOT NULL AND condition``: false, never NULL, for a missing value.

    SQL's three-valued logic would make ``NOT (year = 2024)`` NULL, not true, for a
    paper without a year, so ``-year:2024`` would drop it; every term is two-valued.
    """
    return and_(col.is_not(None), condition)


class Builder:
    """Turn a query tree into SQL for one dialect (``sqlite`` or ``postgresql``).

    ``now`` is the time relative dates count back from; ``venues`` the library's distinct
    venue strings (read at the first ``venue:`` term); ``session``, when given, is used to
    look up the few ids of selective terms first (:meth:`resolved`). See :func:`to_clause`.
    """

    def __init__(
        self,
        dialect: str,
        now: datetime,
        venues: Iterable[str],
        session: Executor | None = None,
    ) -> None:
        self.dialect = dialect
        self.now = now
        self.venue_words: list[tuple[str, str]] | None = None
        self._venues = venues
        self.session = session
        self.inline_budget = INLINE_BUDGET
        self._notes: list[tuple[int, list[str]]] | None = None
        self._matches: dict[Text, list[int]] = {}

    def clause(self, node: Query) -> ColumnElement[bool]:
        """Return the condition of ``node`` (the method ``_<node class>`` builds it)."""
        method = getattr(self, "_" + type(node).__name__.lower())
        result: ColumnElement[bool] = method(node)
        return result

    def _everything(self, node: Everything) -> ColumnElement[bool]:
        return true()

    def _not(self, node: Not) -> ColumnElement[bool]:
        return not_(self.clause(node.child))

    def _and(self, node: And) -> ColumnElement[bool]:
        return and_(*(self.clause(c) for c in node.children))

    def _or(self, node: Or) -> ColumnElement[bool]:
        return or_(*(self.clause(c) for c in node.children))

    def _text(self, node: Text) -> ColumnElement[bool]:
        """The index (papers' text, tags, shared notes) or the current reader's own
        private notes: those are not in the index every reader's search reads."""
        mine = self.private_matches(node)
        found = text_clause(node, self.dialect)
        return or_(found, PAPERS.c.id.in_(mine)) if mine else found

    def private_matches(self, node: Text) -> list[int]:
        """The papers whose private note of the current reader holds ``node`` (found once
        per term: the relevance order and the filter both ask)."""
        if node not in self._matches:
            notes = self._private_notes()
            self._matches[node] = sorted({p for p, words in notes if matches_words(node, words)})
        return self._matches[node]

    def _private_notes(self) -> list[tuple[int, list[str]]]:
        """``(paper id, search words)`` of the current reader's private notes, read once
        per query (a reader's own notes: few); none without a session."""
        if self._notes is None:
            self._notes = []
            if self.session is not None:
                rows = self.session.execute(
                    select(NOTES.c.paper_id, NOTES.c.body).where(
                        NOTES.c.reader_id == decided.CURRENT_ID, NOTES.c.shared.is_(False)
                    )
                )
                self._notes = [(int(pid), search_tokens(body)) for pid, body in rows]
        return self._notes

    def _substring(self, node: Substring) -> ColumnElement[bool]:
        if node.field == "title":
            return self._title(node.value)
        if node.field == "venue":
            names = self.matching_venues(node.value)
            return known(PAPERS.c.venue, PAPERS.c.venue.in_(names)) if names else false()
        return self._author(node.value, node.given)

    def _title(self, words: str) -> ColumnElement[bool]:
        matches = known(PAPERS.c.title_key, PAPERS.c.title_key.contains(words, autoescape=True))
        # looked up through the narrow ix_papers_title_key instead of the wide rows
        return self.resolved(select(PAPERS.c.id).where(matches), lambda: matches)

    def _author(self, name: str, given: str | None) -> ColumnElement[bool]:
        if given is not None:
            person = and_(
                PEOPLE.c.family_folded == name,
                PEOPLE.c.name_folded.startswith(given, autoescape=True),
            )
        else:
            person = PEOPLE.c.name_folded.contains(name, autoescape=True)
        # People first: PostgreSQL cannot estimate how many names LIKE '%smith%'
        # matches, and its plans for a wrong guess are ten times slower either way.
        people: Any = select(PEOPLE.c.id).where(person)
        if self.session is not None:
            found = list(self.session.scalars(people.limit(PEOPLE_INLINE + 1)))
            if not found:
                return false()
            if len(found) <= PEOPLE_INLINE:
                people = found

        def authored() -> ColumnElement[bool]:
            return exists().where(
                PAPER_PEOPLE.c.paper_id == PAPERS.c.id,
                PAPER_PEOPLE.c.role == "author",
                PAPER_PEOPLE.c.person_id.in_(people),
            )

        if not isinstance(people, list):
            return authored()  # many people: let the search stop at the first papers
        ids = select(PAPER_PEOPLE.c.paper_id).where(
            PAPER_PEOPLE.c.person_id.in_(people), PAPER_PEOPLE.c.role == "author"
        )
        return self.resolved(ids, authored)

    def resolved(
        self, ids: Select[Any], otherwise: Callable[[], ColumnElement[bool]]
    ) -> ColumnElement[bool]:
        """Return ``papers.id IN (ids looked up now)`` when the term selects few papers.

        Both planners misjudge how many papers a substring or a relation selects
        (no statistics for ``LIKE '%x%'``), and the plan for a wrong guess is many
        times slower: scanning every paper in sort order for a rare author, or
        collecting every id for a common one. So, given a session, up to
        :data:`INLINE_IDS` ids are looked up first (a cheap, bounded query) and bound
        as values, whose number both planners then know; a term that selects more
        uses ``otherwise()``, a condition checked paper by paper, which stops early
        under ``--limit``. Without a session (rendering SQL only) it is
        ``otherwise()``. The selection is the same either way.
        """
        if self.session is None or self.inline_budget <= 0:
            return otherwise()
        cap = min(INLINE_IDS, self.inline_budget)
        found = list(self.session.scalars(ids.distinct().limit(cap + 1)))
        if len(found) > cap:
            return otherwise()
        self.inline_budget -= len(found)
        return PAPERS.c.id.in_(found) if found else false()

    def matching_venues(self, words: str) -> list[str]:
        """Return the stored venue strings whose folded words contain ``words``."""
        if self.venue_words is None:
            self.venue_words = [(v, " ".join(search_tokens(v))) for v in self._venues if v]
        return sorted({venue for venue, folded in self.venue_words if words in folded})

    def _tagterm(self, node: TagTerm) -> ColumnElement[bool]:
        if node.prefix:
            wanted = self.prefix(TAGS.c.name_folded, node.name)
        else:
            wanted = or_(
                TAGS.c.name_folded == node.name, self.prefix(TAGS.c.name_folded, node.name + "/")
            )
        # tags first, then their papers through ix_paper_tags_tag_id
        tags: Any = select(TAGS.c.id).where(wanted)
        if self.session is not None:
            tags = list(self.session.scalars(tags))
            if not tags:
                return false()

        tagged = select(PAPER_TAGS.c.paper_id).where(PAPER_TAGS.c.tag_id.in_(tags))
        # Many papers: still a semi-join (its cost grows with the papers tagged, which
        # combines better with other terms than a check per paper).
        return self.resolved(tagged, lambda: PAPERS.c.id.in_(tagged))

    def _status(self, node: Status) -> ColumnElement[bool]:
        return decided.status_in([node.value], node.reader)

    def _priority(self, node: Priority) -> ColumnElement[bool]:
        return decided.priority_is(node.code, node.reader)

    def _wantedby(self, node: WantedBy) -> ColumnElement[bool]:
        count = decided.wanted_count()
        parts: list[ColumnElement[bool]] = []
        if node.low is not None:
            parts.append(count >= node.low)
        if node.high is not None:
            parts.append(count <= node.high)
        return and_(*parts)

    def _year(self, node: Year) -> ColumnElement[bool]:
        if node.low == node.high:
            return known(PAPERS.c.year, PAPERS.c.year == node.low)
        parts: list[ColumnElement[bool]] = [PAPERS.c.year.is_not(None)]
        if node.low is not None:
            parts.append(PAPERS.c.year >= node.low)
        if node.high is not None:
            parts.append(PAPERS.c.year <= node.high)
        return and_(*parts)

    def _daterange(self, node: DateRange) -> ColumnElement[bool]:
        read = node.field != "added"
        col = DECISIONS.c.read_at if read else PAPERS.c.added_at
        parts: list[ColumnElement[bool]] = [col.is_not(None)]
        if node.low is not None:
            parts.append(col >= node.low.period(self.now)[0])
        if node.high is not None:
            end = node.high.period(self.now)[1]
            if end is not None:
                parts.append(col < end)
        if read:  # the current reader's read times
            mine = DECISIONS.c.reader_id == decided.CURRENT_ID
            return PAPERS.c.id.in_(select(DECISIONS.c.paper_id).where(mine, *parts))
        return and_(*parts)

    def _key(self, node: Key) -> ColumnElement[bool]:
        if node.prefix:
            own = self.prefix(PAPERS.c.citekey_folded, node.key)
            alias = self.prefix(ALIASES.c.alias_folded, node.key)
        else:
            own = PAPERS.c.citekey_folded == node.key
            alias = ALIASES.c.alias_folded == node.key
        return or_(own, PAPERS.c.id.in_(select(ALIASES.c.paper_id).where(alias)))

    def prefix(self, col: Any, value: str) -> ColumnElement[bool]:
        """``col`` starts with ``value`` (a LIKE with escaping); on SQLite also a range
        ``value <= col < next(value)`` so that the column's index can be used (SQLite's
        LIKE is case-insensitive and cannot use a BINARY index; its text comparison is
        bytewise, so the range is exact). PostgreSQL's collation may order otherwise,
        so it gets the LIKE alone."""
        like: ColumnElement[bool] = col.startswith(value, autoescape=True)
        if self.dialect != "sqlite" or not value or ord(value[-1]) >= 0x10FFFF:
            return like
        following = ord(value[-1]) + 1
        if 0xD800 <= following <= 0xDFFF:  # no text holds surrogates: skip past them
            following = 0xE000
        upper = value[:-1] + chr(following)
        return and_(col >= value, col < upper, like)

    def _doi(self, node: Doi) -> ColumnElement[bool]:
        return self._identifier(PAPERS.c.doi, node.doi, node.prefix)

    def _arxiv(self, node: Arxiv) -> ColumnElement[bool]:
        return self._identifier(PAPERS.c.arxiv, node.arxiv, node.prefix)

    def _identifier(self, col: Any, value: str, prefix: bool) -> ColumnElement[bool]:
        """A stored normalized identifier equal to ``value``, or starting with it."""
        if prefix:
            return known(col, self.prefix(col, value))
        return known(col, col == value)

    def _has(self, node: Has) -> ColumnElement[bool]:
        if node.what == "notes":  # notes the current reader sees
            return PAPERS.c.id.in_(select(NOTES.c.paper_id).where(decided.visible_note(NOTES)))
        if node.what == "priority":
            return PAPERS.c.id.in_(
                select(DECISIONS.c.paper_id).where(
                    DECISIONS.c.reader_id == decided.CURRENT_ID, DECISIONS.c.priority.is_not(None)
                )
            )
        if node.what == "tags":
            return PAPERS.c.id.in_(select(PAPER_TAGS.c.paper_id))
        if node.what == "authors":
            return PAPERS.c.id.in_(
                select(PAPER_PEOPLE.c.paper_id).where(PAPER_PEOPLE.c.role == "author")
            )
        col = {
            "abstract": PAPERS.c.abstract,
            "arxiv": PAPERS.c.arxiv,
            "code": PAPERS.c.code_url,
            "doi": PAPERS.c.doi,
            "url": PAPERS.c.url,
            "venue": PAPERS.c.venue,
            "year": PAPERS.c.year,
        }[node.what]
        if node.what == "year":
            return col.is_not(None)
        return and_(col.is_not(None), col != "")

    def _is(self, node: Is) -> ColumnElement[bool]:
        if node.what == "preprint":
            return preprint_clause()
        # ``= true`` (not ``IS 1``): SQLite uses a partial index only for a WHERE term
        # equal to the index's own (``title_provisional = 1``, migration 0002).
        return PAPERS.c.title_provisional == true()


def _given(value: ColumnElement[Any]) -> ColumnElement[bool]:
    return and_(value.is_not(None), value != "")


def _field(name: str) -> ColumnElement[Any]:
    value: ColumnElement[Any] = PAPERS.c.fields[name].as_string()
    return value


def _server(value: ColumnElement[Any]) -> ColumnElement[bool]:
    """SQL of ``versions.is_preprint_venue`` (lower case; accents are not folded)."""
    text = func.lower(func.trim(value))
    return and_(
        _given(value),
        or_(
            *(
                or_(
                    text == name,
                    *(text.like(f"{name}{sep}%") for sep in versions.SERVER_SEPARATORS),
                )
                for name in versions.PREPRINT_SERVERS
            )
        ),
    )


def published_clause() -> ColumnElement[bool]:
    """SQL of ``versions.is_published`` on ``papers`` (its rule, its constants)."""
    kind = PAPERS.c.entry_type
    book = and_(
        kind.in_(sorted(versions.BOOK_TYPES)),
        or_(*(and_(_given(_field(n)), ~_server(_field(n))) for n in versions.PUBLISHER_FIELDS)),
    )
    placed = and_(
        _given(PAPERS.c.venue),
        ~_server(PAPERS.c.venue),
        kind.not_in(sorted(versions.UNPUBLISHED_TYPES)),
        or_(
            and_(_given(PAPERS.c.doi), ~PAPERS.c.doi.like(f"{versions.ARXIV_DOI_PREFIX}%")),
            *(_given(_field(n)) for n in versions.PLACEMENT),
        ),
    )
    return or_(book, placed)


def preprint_clause() -> ColumnElement[bool]:
    """SQL of ``versions.is_preprint`` on ``papers`` (``is:preprint``)."""
    kind = PAPERS.c.entry_type
    marked = or_(
        _given(PAPERS.c.arxiv),
        PAPERS.c.doi.like(f"{versions.ARXIV_DOI_PREFIX}%"),
        _server(PAPERS.c.venue),
        _server(_field("howpublished")),
        and_(kind.in_(sorted(versions.PREPRINT_TYPES)), _server(_field("publisher"))),
        and_(kind.in_(("misc", "unpublished")), _given(_field("eprint"))),
    )
    return and_(marked, func.coalesce(published_clause(), false()) == false())


def to_clause(
    query: Query,
    dialect: str,
    *,
    now: datetime | None = None,
    venues: Iterable[str] = (),
    session: Executor | None = None,
) -> ColumnElement[bool]:
    """Return the WHERE clause over ``papers`` that selects what ``query`` describes.

    Args:
        query: a tree from :func:`readinglist.query.parse`.
        dialect: ``"sqlite"`` or ``"postgresql"`` (the full-text syntax differs).
        now: the time relative dates count back from (default: now, UTC).
        venues: the distinct venue strings of the library; ``venue:`` matches those
            whose folded words contain the value (there is no folded venue column,
            so this is done in Python over the few distinct venues). Only read when
            the query has a ``venue:`` term.
        session: when given, the papers of ``title:``, ``author:`` and ``tag:`` terms
            (and the people of ``author:``) are looked up first and, when few, bound
            as values, which gives both planners the right plan (see
            ``Builder.resolved``); the selection is the same either way.

    Every user value is a bound parameter; no text of the query is written into SQL.
    """
    return Builder(dialect, now or datetime.now(UTC), venues, session).clause(query)


def uses_venue(query: Query) -> bool:
    """True when ``query`` has a ``venue:`` term (which needs :func:`distinct_venues`)."""
    return any(isinstance(n, Substring) and n.field == "venue" for n, _ in walk(query))


def distinct_venues(session: Executor) -> list[str]:
    """Return the distinct non-empty venue strings of the library."""
    return [v for v in session.scalars(select(PAPERS.c.venue).distinct()) if v]


def session_builder(session: Executor, query: Query, now: datetime | None = None) -> Builder:
    """Return a :class:`Builder` for ``query`` on the session's database.

    The dialect is the session's; the venues are read only when ``query`` has a
    ``venue:`` term; ``now`` defaults to now (UTC). Raises nothing itself.
    """
    venues = distinct_venues(session) if uses_venue(query) else ()
    dialect = dialect_name(session)
    return Builder(dialect, now or datetime.now(UTC), venues, session)
