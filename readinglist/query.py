"""The query language: text -> a typed query tree -> one SQLAlchemy WHERE clause.

Grammar (issue 6; shaped after beets' ``dbcore/queryparse.py`` and Gmail's search box)::

    query    := group* EOF                     (empty: every paper)
    group    := either ("AND"? either)*        terms side by side are ANDed
    either   := unary ("OR" unary)*            OR binds tighter than the implicit AND
    unary    := ("-" | "NOT") unary | "(" group ")" | term
    term     := word | "phrase" | field ":" value

Worked examples (``parse(text)`` on the left):

* ``diffusion`` -> ``Text(("diffusion",))``: the word in the full-text index (title,
  short name, abstract, authors, editors, venue, keywords, tags, notes).
* ``diffus*`` -> ``Text(("diffus",), prefix=True)``: words that begin with ``diffus``.
* ``"self correction"`` and ``self-correction`` -> ``Text(("self", "correction"))``:
  a phrase (the words next to each other, in order). A bare word that folds into
  several words is a phrase too. ``"self corr"*``: the last word is a prefix.
* ``Schrödinger``, ``Schr{\\"o}dinger``, ``schrodinger`` -> ``Text(("schrodinger",))``:
  words are folded like the index (:func:`readinglist.text.search_tokens`: LaTeX
  decoded, accents dropped, typographic hyphens and quotes made ASCII, lower case).
* ``attention — all`` -> ``And((Text(("attention",)), Text(("all",))))``: a word
  without letters or digits (``—``, ``&``) is left out, as the index has no such
  words; a query of nothing else is an error.
* ``tag:rl`` -> ``TagTerm("rl")``: the tag ``rl`` or any ``rl/...`` below it.
* ``-tag:old`` -> ``Not(TagTerm("old"))``; ``year:2024 tag:a OR tag:b`` ->
  ``And((Year(2024, 2024), Or((TagTerm("a"), TagTerm("b")))))``; parentheses group.
  ``OR``, ``AND`` and ``NOT`` are operators only in capitals (``or`` is a word).
* ``status:foo`` -> InvalidQuery ``unknown status 'foo'; use one of new, to-read, ...``;
  ``foo:bar`` -> InvalidQuery ``unknown field 'foo'`` (quote text with a colon).

Fields (case-insensitive names; values are folded as described per field):

=============== ==================================================================
``title:``      folded substring of the title's words (``papers.title_key``)
``author:``     folded substring of an author's full name; ``author:"Family, Given"``
                matches the family name exactly and the given name as a prefix
``venue:``      folded substring of the venue's words
``tag:``        the tag or its sub-tags (``tag:a`` matches ``a`` and ``a/b``); ``tag:a*``
``status:``     one of ``records.STATUSES``
``priority:``   ``high``, ``medium``, ``low`` or ``none``
``year:``       ``2024``, ``2020..2024``, ``..2019``, ``2020..``
``added:``      a date (``2026-05-01``, ``2026-05``, ``2026``), ``today``, ``yesterday``,
                a time before now (``-7d``, ``-2w``, ``-1m``, ``-1y``; alone it means
                "since then"), or a range of them (``2026-05-01..2026-06-01``,
                ``-7d..``); ends are inclusive at their precision; all UTC
``read:``       as ``added:``, on the time the paper was marked read
``key:``        the citation key or an alias (exact; ``key:smith*`` for a prefix)
``doi:``        a DOI in any usual form (normalized; ``doi:10.1145/*`` for a prefix)
``arxiv:``      an arXiv id or URL (normalized, version dropped; ``arxiv:2401.*``)
``has:``        ``abstract``, ``arxiv``, ``authors``, ``code``, ``doi``, ``notes``,
                ``priority``, ``tags``, ``url``, ``venue``, ``year``
``is:``         ``provisional`` (the title is still one an importer made up)
=============== ==================================================================

SQL (:func:`to_clause`): every term becomes one boolean SQL expression and the tree
becomes ``AND``/``OR``/``NOT`` of them, so negation and OR apply to full-text terms
too. A full-text term is ``papers.id IN (SELECT rowid FROM paper_fts WHERE paper_fts
MATCH :q)`` on SQLite (FTS5 syntax: ``"w1 w2"`` phrases, ``"w"*`` prefixes) and
``papers.search_vector @@ to_tsquery('simple', :q)`` on PostgreSQL (``w1 <-> w2``,
``w:*``). Relations (authors, tags, aliases, notes) are ``IN (subquery)`` semi-joins,
never one query per paper. Every term is two-valued (false, never NULL, for a
missing value), so ``-year:2024`` keeps papers without a year and ``-priority:high``
those without a priority. Every value the user typed is a bound parameter. Both
databases index the same pre-folded ``[a-z0-9]+`` words with neither stemming nor
stop words, so a query selects the same papers on both; only the ranking differs
(SQLite FTS5 ``bm25``, PostgreSQL ``ts_rank``).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeAlias

from sqlalchemy import (
    ColumnElement,
    Select,
    String,
    and_,
    case,
    column,
    exists,
    false,
    func,
    literal,
    literal_column,
    not_,
    or_,
    select,
    table,
    true,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnClause

from readinglist.errors import InvalidQuery, UsageError
from readinglist.identifiers import normalize_arxiv, normalize_doi
from readinglist.models import (
    PRIORITY_CODES,
    Alias,
    Note,
    Paper,
    PaperPerson,
    PaperTag,
    Person,
    Tag,
)
from readinglist.records import STATUSES
from readinglist.text import fold, search_tokens

#: Field names of ``field:value`` terms with a one-line description (help, completion).
FIELDS: dict[str, str] = {
    "title": "words in the title (folded substring)",
    "author": 'an author\'s name (folded substring; "Family, Given" also works)',
    "venue": "words in the venue (folded substring)",
    "tag": "a tag or its sub-tags (tag:a matches a and a/b)",
    "status": "read status: " + ", ".join(STATUSES),
    "priority": "high, medium, low or none",
    "year": "2024, 2020..2024, ..2019, 2020..",
    "added": "when added: 2026-05-01, 2026-05, today, -7d, -2w, -1m, -1y, ranges a..b",
    "read": "when marked read (same forms as added:)",
    "key": "citation key or alias (key:smith* for a prefix)",
    "doi": "DOI (any usual form; doi:10.1145/* for a prefix)",
    "arxiv": "arXiv id or URL (arxiv:2401.* for a prefix)",
    "has": "has:abstract|arxiv|authors|code|doi|notes|priority|tags|url|venue|year",
    "is": "is:provisional (title made up by an importer)",
}
#: Sort orders of :func:`paper_ids` (``--sort``).
SORT_KEYS: tuple[str, ...] = ("added", "year", "title", "key", "priority", "status", "relevance")
#: Values of ``priority:``.
PRIORITY_VALUES: tuple[str, ...] = ("high", "medium", "low", "none")
#: Values of ``has:`` and ``is:``.
HAS_VALUES: tuple[str, ...] = (
    "abstract",
    "arxiv",
    "authors",
    "code",
    "doi",
    "notes",
    "priority",
    "tags",
    "url",
    "venue",
    "year",
)
IS_VALUES: tuple[str, ...] = ("provisional",)
#: Read statuses in triage order, the order of ``--sort status``.
STATUS_ORDER: tuple[str, ...] = ("reading", "to-read", "new", "read", "skipped")
#: Upper limits that keep SQL expressions far below SQLite's expression depth (1000).
MAX_TERMS = 200
MAX_DEPTH = 32
#: At most this many people matched by an ``author:`` term are bound as values.
PEOPLE_INLINE = 1000
#: At most this many paper ids a term selects are bound as values (``_Builder.resolved``),
#: and at most INLINE_BUDGET in one query (SQLite allows 32766 parameters).
INLINE_IDS = 2000
INLINE_BUDGET = 10_000

_KEYWORDS = frozenset({"OR", "AND", "NOT"})
_FIELD_PREFIX = re.compile(r"([A-Za-z][A-Za-z_]*):")
_YEAR = re.compile(r"\d{1,4}")
_DATE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_RELATIVE = re.compile(r"-(\d{1,5})([dwmy])")
_DOI_PREFIX = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^(?:arxiv:\s*|https?://arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE)
#: Typographic double quotes accepted as query quotes (they fold to ASCII ``"``).
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"'})


# --- the query tree -------------------------------------------------------------------------


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
    """``status:`` with one of ``records.STATUSES``."""

    value: str


@dataclass(frozen=True)
class Priority:
    """``priority:``: a code of ``models.PRIORITY_CODES`` (1 high .. 3 low) or None."""

    code: int | None


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
    """``has:``: one of :data:`HAS_VALUES`."""

    what: str


@dataclass(frozen=True)
class Is:
    """``is:``: one of :data:`IS_VALUES`."""

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


# --- parsing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    kind: Literal["(", ")", "-", "OR", "AND", "NOT", "term"]
    node: Query | None = None
    word: str = ""  # a bare word not yet folded (node None)
    prefix: bool = False


class _Lexer:
    """Split a query string into tokens; field values are checked as they are read."""

    def __init__(self, text: str) -> None:
        self.source = text
        self.text = text.translate(_QUOTES)
        self.pos = 0
        self.depth = 0
        self.dropped: list[str] = []

    def fail(self, reason: str) -> InvalidQuery:
        return InvalidQuery(self.source, reason)

    def tokens(self) -> list[_Token]:
        out: list[_Token] = []
        text, n = self.text, len(self.text)
        while self.pos < n:
            char = text[self.pos]
            if char.isspace():
                self.pos += 1
            elif char == "(":
                self.depth += 1
                if self.depth > MAX_DEPTH:
                    raise self.fail(f"parentheses nested deeper than {MAX_DEPTH}")
                out.append(_Token("("))
                self.pos += 1
            elif char == ")":
                if self.depth == 0:
                    raise self.fail("')' without a matching '('")
                self.depth -= 1
                out.append(_Token(")"))
                self.pos += 1
            elif char == "-":
                if self.pos + 1 >= n or text[self.pos + 1].isspace():
                    raise self.fail("'-' must be followed directly by the term it excludes")
                out.append(_Token("-"))
                self.pos += 1
            elif char == '"':
                words, prefix = self.phrase()
                self.add_text(out, words, prefix, quoted=True)
            else:
                token = self.word_or_field()
                if token.kind == "term" and token.node is None:
                    self.add_text(out, token.word, token.prefix)
                else:
                    out.append(token)
            if len(out) > MAX_TERMS * 4:
                raise self.fail(f"more than {MAX_TERMS} terms")
        if self.depth:
            raise self.fail("'(' without a matching ')'")
        if not out and self.dropped:
            raise self.fail(f"{self.dropped[0]!r} has no letters or digits to search for")
        return out

    def add_text(
        self, out: list[_Token], words: str, prefix: bool, *, quoted: bool = False
    ) -> None:
        """Append a free-text term; one without letters or digits (``—``, ``&``) is left
        out, with a ``-``/``NOT`` right before it, as the index has no such words."""
        tokens = tuple(search_tokens(words))
        if tokens:
            out.append(_Token("term", Text(tokens, prefix)))
            return
        self.dropped.append(f'"{words}"' if quoted else words + ("*" if prefix else ""))
        if out and out[-1].kind in ("-", "NOT"):
            out.pop()

    def phrase(self) -> tuple[str, bool]:
        """Read ``"..."`` (``\\x`` inside is kept as written); return (content, prefix)."""
        text, n = self.text, len(self.text)
        start = self.pos + 1
        index = start
        while index < n and text[index] != '"':
            index += 2 if text[index] == "\\" else 1
        if index >= n:
            raise self.fail("a quote '\"' is not closed")
        content = text[start:index]
        self.pos = index + 1
        prefix = self.pos < n and text[self.pos] == "*"
        if prefix:
            self.pos += 1
        return content, prefix

    def bare(self) -> str:
        """Read a bare word: up to white space, or a ')' that closes a group."""
        text, n = self.text, len(self.text)
        start = self.pos
        inner = 0
        while self.pos < n:
            char = text[self.pos]
            if char.isspace():
                break
            if char == "(":
                inner += 1
            elif char == ")":
                if inner:
                    inner -= 1
                elif self.depth:
                    break
                else:
                    raise self.fail("')' without a matching '('")
            self.pos += 1
        return text[start : self.pos]

    def word_or_field(self) -> _Token:
        match = _FIELD_PREFIX.match(self.text, self.pos)
        if match:
            name = match.group(1).lower()
            if name not in FIELDS:
                raise self.fail(
                    f"unknown field {match.group(1)!r}; fields are {', '.join(FIELDS)} "
                    '(put text with a colon in quotes: "a:b")'
                )
            self.pos = match.end()
            if self.pos < len(self.text) and self.text[self.pos] == '"':
                value, prefix = self.phrase()
                value += "*" if prefix else ""
            else:
                value = self.bare()
            if not value.strip():
                raise self.fail(f"{name}: needs a value")
            return _Token("term", self.field_term(name, value))
        word = self.bare()
        if word in _KEYWORDS:
            return _Token(word)  # type: ignore[arg-type]
        prefix = word.endswith("*")
        return _Token("term", word=word.rstrip("*") if prefix else word, prefix=prefix)

    # --- field values -------------------------------------------------------------------

    def field_term(self, name: str, value: str) -> Query:
        value = value.strip()
        if name in ("title", "venue"):
            words = " ".join(search_tokens(value))
            if not words:
                raise self.fail(f"{name}:{value} has no letters or digits to search for")
            return Substring(name, words)  # type: ignore[arg-type]
        if name == "author":
            return self.author(value)
        if name == "tag":
            prefix = value.endswith("*")
            tag = value.rstrip("*").strip().lower()
            if not tag:
                raise self.fail(f"tag:{value} names no tag")
            return TagTerm(tag, prefix)
        if name == "status":
            status = value.lower()
            if status not in STATUSES:
                raise self.fail(f"unknown status {value!r}; use one of {', '.join(STATUSES)}")
            return Status(status)
        if name == "priority":
            level = value.lower()
            if level not in PRIORITY_VALUES:
                raise self.fail(
                    f"unknown priority {value!r}; use one of {', '.join(PRIORITY_VALUES)}"
                )
            return Priority(PRIORITY_CODES.get(level))
        if name == "year":
            return self.year(value)
        if name in ("added", "read"):
            return self.dates(name, value)
        if name == "key":
            prefix = value.endswith("*")
            key = value.rstrip("*").strip().lower()
            if not key:
                raise self.fail(f"key:{value} names no key")
            return Key(key, prefix)
        if name == "doi":
            return self.doi(value)
        if name == "arxiv":
            return self.arxiv(value)
        if name == "has":
            if value.lower() not in HAS_VALUES:
                raise self.fail(f"unknown has:{value}; use one of {', '.join(HAS_VALUES)}")
            return Has(value.lower())
        if value.lower() not in IS_VALUES:
            raise self.fail(f"unknown is:{value}; use one of {', '.join(IS_VALUES)}")
        return Is(value.lower())

    def author(self, value: str) -> Substring:
        family, comma, given = value.partition(",")
        if comma:
            family_folded, given_folded = fold(family), fold(given)
            if not family_folded:
                raise self.fail(f"author:{value} has no family name before the comma")
            return Substring("author", family_folded, given_folded)
        folded = fold(value)
        if not folded:
            raise self.fail(f"author:{value} names nobody")
        return Substring("author", folded)

    def year(self, value: str) -> Year:
        def one(part: str) -> int | None:
            if not part:
                return None
            if not _YEAR.fullmatch(part):
                raise self.fail(
                    f"year:{value} is not a year or a range such as 2020..2024, ..2019, 2020.."
                )
            return int(part)

        if ".." in value:
            low_text, _, high_text = value.partition("..")
            low, high = one(low_text), one(high_text)
            if low is None and high is None:
                raise self.fail(f"year:{value} needs at least one end")
        else:
            low = high = one(value)
        if low is not None and high is not None and low > high:
            raise self.fail(f"year:{value} starts after it ends")
        return Year(low, high)

    def dates(self, name: str, value: str) -> DateRange:
        field: Literal["added", "read"] = "added" if name == "added" else "read"
        if ".." in value:
            low_text, _, high_text = value.partition("..")
            low = self.date(name, value, low_text) if low_text else None
            high = self.date(name, value, high_text) if high_text else None
            if low is None and high is None:
                raise self.fail(f"{name}:{value} needs at least one end")
            if low and high and low.kind == high.kind == "date":
                fixed = datetime(2000, 1, 1, tzinfo=UTC)
                if low.period(fixed)[0] >= (
                    high.period(fixed)[1] or datetime.max.replace(tzinfo=UTC)
                ):
                    raise self.fail(f"{name}:{value} starts after it ends")
            return DateRange(field, low, high)
        spec = self.date(name, value, value)
        if spec.kind == "ago":
            return DateRange(field, spec, None)
        return DateRange(field, spec, spec)

    def date(self, name: str, value: str, part: str) -> DateSpec:
        lowered = part.lower()
        if lowered in ("today", "yesterday"):
            return DateSpec("day", amount=0 if lowered == "today" else 1)
        relative = _RELATIVE.fullmatch(lowered)
        if relative:
            return DateSpec("ago", amount=int(relative.group(1)), unit=relative.group(2))
        match = _DATE.fullmatch(part)
        if match:
            year = int(match.group(1))
            month = int(match.group(2)) if match.group(2) else None
            day = int(match.group(3)) if match.group(3) else None
            try:
                datetime(year, month or 1, day or 1)
            except ValueError:
                raise self.fail(f"{name}:{value}: {part!r} is not a date") from None
            return DateSpec("date", year=year, month=month, day=day)
        raise self.fail(
            f"{name}:{value}: {part!r} is not a date; use 2026-05-01, 2026-05, 2026, "
            "today, yesterday or -7d, -2w, -1m, -1y"
        )

    def doi(self, value: str) -> Doi:
        if value.endswith("*"):
            stem = _DOI_PREFIX.sub("", value.rstrip("*").strip()).lower()
            if not stem:
                raise self.fail(f"doi:{value} names no DOI prefix")
            return Doi(stem, prefix=True)
        doi = normalize_doi(value)
        if doi is None:
            raise self.fail(f"doi:{value} is not a DOI (expected 10.NNNN/...)")
        return Doi(doi)

    def arxiv(self, value: str) -> Arxiv:
        if value.endswith("*"):
            stem = _ARXIV_PREFIX.sub("", value.rstrip("*").strip()).lower()
            if not stem:
                raise self.fail(f"arxiv:{value} names no arXiv id prefix")
            return Arxiv(stem, prefix=True)
        arxiv = normalize_arxiv(value)
        if arxiv is None:
            raise self.fail(
                f"arxiv:{value} is not an arXiv id (expected 2401.01234 or hep-th/9901001)"
            )
        return Arxiv(arxiv)


class _Parser:
    """Recursive descent over the lexer's tokens (the grammar of the module docstring)."""

    def __init__(self, text: str, tokens: list[_Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.index = 0
        self.terms = 0

    def fail(self, reason: str) -> InvalidQuery:
        return InvalidQuery(self.text, reason)

    def peek(self) -> str | None:
        return self.tokens[self.index].kind if self.index < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def group(self, depth: int) -> Query:
        children: list[Query] = []
        while self.peek() not in (None, ")"):
            if self.peek() == "AND":
                self.take()
                if not children or self.peek() in (None, ")", "OR", "AND"):
                    raise self.fail("AND needs a term on both sides")
            children.append(self.either(depth))
        if not children:
            raise self.fail("empty parentheses '()'")
        return children[0] if len(children) == 1 else And(tuple(children))

    def either(self, depth: int) -> Query:
        if self.peek() == "OR":
            raise self.fail("OR needs a term on both sides")
        children = [self.unary(depth)]
        while self.peek() == "OR":
            self.take()
            if self.peek() in (None, ")", "OR", "AND"):
                raise self.fail("OR needs a term on both sides")
            children.append(self.unary(depth))
        return children[0] if len(children) == 1 else Or(tuple(children))

    def unary(self, depth: int) -> Query:
        if depth > MAX_DEPTH:
            raise self.fail(f"terms nested deeper than {MAX_DEPTH}")
        kind = self.peek()
        if kind in ("-", "NOT"):
            self.take()
            if self.peek() in (None, ")", "OR", "AND"):
                raise self.fail(f"{'NOT' if kind == 'NOT' else '-'} needs a term after it")
            child = self.unary(depth + 1)
            return child.child if isinstance(child, Not) else Not(child)
        if kind == "(":
            self.take()
            inner = self.group(depth + 1)
            self.take()  # ")": the lexer checked the balance
            return inner
        if kind == "term":
            self.terms += 1
            if self.terms > MAX_TERMS:
                raise self.fail(f"more than {MAX_TERMS} terms")
            node = self.take().node
            assert node is not None
            return node
        raise self.fail(f"{kind} needs a term on both sides")


def parse(text: str) -> Query:
    """Parse a query string into a query tree (see the module docstring for the grammar).

    Args:
        text: the query as typed (any string; typographic double quotes count as ``"``).

    Returns:
        :class:`Everything` for an empty or blank string, else the tree.

    Raises:
        InvalidQuery: for anything malformed, with one line naming the problem and
            quoting the query (unknown field or value, unbalanced quote or parenthesis,
            a dangling ``OR``/``-``, only words without letters or digits, more than
            :data:`MAX_TERMS` terms or deeper than :data:`MAX_DEPTH`). Never raises
            anything else.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # lone surrogates: bytes of the command line that were not UTF-8
        raise InvalidQuery(text, "the query holds bytes that are not UTF-8 text") from None
    tokens = _Lexer(text).tokens()
    if not tokens:
        return Everything()
    parser = _Parser(text, tokens)
    tree = parser.group(0)
    if parser.index != len(tokens):  # pragma: no cover - the lexer balances parentheses
        raise parser.fail("')' without a matching '('")
    return tree


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


# --- command-line words -> query text -------------------------------------------------------


def join_words(words: Sequence[str]) -> str:
    """Join command-line arguments into one query string.

    Each argument is a query fragment, except that an argument containing white
    space is a phrase: ``foo bar`` -> ``"foo bar"``, ``title:foo bar`` ->
    ``title:"foo bar"`` (when ``title`` is a known field), ``-foo bar`` ->
    ``-"foo bar"``. Double quotes inside such a phrase are dropped (they are not
    letters or digits, so the phrase's words stay the same); ``\\"`` as in LaTeX
    ``{\\"o}`` is kept.
    """
    parts: list[str] = []
    for word in words:
        if not any(ch.isspace() for ch in word):
            parts.append(word)
            continue
        stripped = word.strip()
        if stripped.translate(_QUOTES).startswith('"') and _is_one_phrase(stripped):
            parts.append(stripped)
            continue
        sign = ""
        body = word
        if body.startswith("-") and len(body) > 1 and not body[1].isspace():
            sign, body = "-", body[1:]
        match = _FIELD_PREFIX.match(body)
        if match and match.group(1).lower() in FIELDS:
            parts.append(f"{sign}{match.group(0)}{_quote(body[match.end() :])}")
        else:
            parts.append(f"{sign}{_quote(body)}")
    return " ".join(parts).strip()


def _is_one_phrase(word: str) -> bool:
    try:
        tokens = _Lexer(word).tokens()
    except InvalidQuery:
        return False
    return len(tokens) == 1 and isinstance(tokens[0].node, Text)


def _quote(content: str) -> str:
    """Return ``content`` as a ``"..."`` phrase that the lexer reads back unchanged."""
    out: list[str] = []
    index = 0
    content = content.translate(_QUOTES)
    while index < len(content):
        char = content[index]
        if char == "\\":
            pair = content[index : index + 2]
            out.append(pair if len(pair) == 2 else "\\ ")
            index += 2
            continue
        out.append(" " if char == '"' else char)
        index += 1
    return '"' + "".join(out) + '"'


# --- SQL -------------------------------------------------------------------------------------

_FTS = table("paper_fts", column("rowid"))
_FTS_TABLE: ColumnClause[Any] = literal_column("paper_fts")
_SEARCH_VECTOR: ColumnClause[Any] = literal_column("papers.search_vector")
_SIMPLE: ColumnClause[Any] = literal_column("'simple'")


def fts5_expression(term: Text) -> str:
    """Return the SQLite FTS5 query of a free-text term: ``"w1 w2"`` with ``*`` for a prefix.

    The words are ``[a-z0-9]+`` (FTS5 "strings", sqlite.org/fts5.html section 3.1).
    """
    return '"' + " ".join(term.words) + '"' + ("*" if term.prefix else "")


def tsquery_expression(term: Text) -> str:
    """Return the PostgreSQL ``to_tsquery`` text of a free-text term: ``w1 <-> w2``, ``w:*``.

    Source: PostgreSQL manual, "Parsing Queries" (``<->`` follows-by, ``:*`` prefix).
    """
    words = list(term.words)
    if term.prefix:
        words[-1] += ":*"
    return " <-> ".join(words)


def _known(col: Any, condition: ColumnElement[bool]) -> ColumnElement[bool]:
    """Return ``col IS NOT NULL AND condition``: false, never NULL, for a missing value.

    SQL's three-valued logic would make ``NOT (year = 2024)`` NULL, not true, for a
    paper without a year, so ``-year:2024`` would drop it; every term is two-valued.
    """
    return and_(col.is_not(None), condition)


class _Builder:
    """Turn a query tree into SQL for one dialect (``sqlite`` or ``postgresql``)."""

    def __init__(
        self,
        dialect: str,
        now: datetime,
        venues: Iterable[str],
        session: Session | None = None,
    ) -> None:
        self.dialect = dialect
        self.now = now
        self.venue_words: list[tuple[str, str]] | None = None
        self._venues = venues
        self.session = session
        self.inline_budget = INLINE_BUDGET

    def clause(self, node: Query) -> ColumnElement[bool]:
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
        if self.dialect == "sqlite":
            match = _FTS_TABLE.op("MATCH", is_comparison=True)(
                literal(fts5_expression(node), String)
            )
            return Paper.id.in_(select(_FTS.c.rowid).where(match))
        tsquery = func.to_tsquery(_SIMPLE, literal(tsquery_expression(node), String))
        return _SEARCH_VECTOR.op("@@", is_comparison=True)(tsquery)

    def _substring(self, node: Substring) -> ColumnElement[bool]:
        if node.field == "title":
            matches = _known(Paper.title_key, Paper.title_key.contains(node.value, autoescape=True))
            # looked up through the narrow ix_papers_title_key instead of the wide rows
            return self.resolved(select(Paper.id).where(matches), lambda: matches)
        if node.field == "venue":
            names = self.matching_venues(node.value)
            return _known(Paper.venue, Paper.venue.in_(names)) if names else false()
        if node.given is not None:
            person = and_(
                Person.family_folded == node.value,
                Person.name_folded.startswith(node.given, autoescape=True),
            )
        else:
            person = Person.name_folded.contains(node.value, autoescape=True)
        # People first: PostgreSQL cannot estimate how many names LIKE '%smith%'
        # matches, and its plans for a wrong guess are ten times slower either way.
        people: Any = select(Person.id).where(person)
        if self.session is not None:
            found = list(self.session.scalars(people.limit(PEOPLE_INLINE + 1)))
            if not found:
                return false()
            if len(found) <= PEOPLE_INLINE:
                people = found

        def authored() -> ColumnElement[bool]:
            return exists().where(
                PaperPerson.paper_id == Paper.id,
                PaperPerson.role == "author",
                PaperPerson.person_id.in_(people),
            )

        if not isinstance(people, list):
            return authored()  # many people: let the search stop at the first papers
        ids = select(PaperPerson.paper_id).where(
            PaperPerson.person_id.in_(people), PaperPerson.role == "author"
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
        return Paper.id.in_(found) if found else false()

    def matching_venues(self, words: str) -> list[str]:
        """Return the stored venue strings whose folded words contain ``words``."""
        if self.venue_words is None:
            self.venue_words = [(v, " ".join(search_tokens(v))) for v in self._venues if v]
        return sorted({venue for venue, folded in self.venue_words if words in folded})

    def _tagterm(self, node: TagTerm) -> ColumnElement[bool]:
        if node.prefix:
            wanted = self.prefix(Tag.name_folded, node.name)
        else:
            wanted = or_(
                Tag.name_folded == node.name, self.prefix(Tag.name_folded, node.name + "/")
            )
        # tags first, then their papers through ix_paper_tags_tag_id
        tags: Any = select(Tag.id).where(wanted)
        if self.session is not None:
            tags = list(self.session.scalars(tags))
            if not tags:
                return false()

        tagged = select(PaperTag.paper_id).where(PaperTag.tag_id.in_(tags))
        # Many papers: still a semi-join (its cost grows with the papers tagged, which
        # combines better with other terms than a check per paper).
        return self.resolved(tagged, lambda: Paper.id.in_(tagged))

    def _status(self, node: Status) -> ColumnElement[bool]:
        return Paper.status == node.value

    def _priority(self, node: Priority) -> ColumnElement[bool]:
        if node.code is None:
            return Paper.priority.is_(None)
        return _known(Paper.priority, Paper.priority == node.code)

    def _year(self, node: Year) -> ColumnElement[bool]:
        if node.low == node.high:
            return _known(Paper.year, Paper.year == node.low)
        parts: list[ColumnElement[bool]] = [Paper.year.is_not(None)]
        if node.low is not None:
            parts.append(Paper.year >= node.low)
        if node.high is not None:
            parts.append(Paper.year <= node.high)
        return and_(*parts)

    def _daterange(self, node: DateRange) -> ColumnElement[bool]:
        col = Paper.added_at if node.field == "added" else Paper.read_at
        parts: list[ColumnElement[bool]] = [col.is_not(None)]
        if node.low is not None:
            parts.append(col >= node.low.period(self.now)[0])
        if node.high is not None:
            end = node.high.period(self.now)[1]
            if end is not None:
                parts.append(col < end)
        return and_(*parts)

    def _key(self, node: Key) -> ColumnElement[bool]:
        if node.prefix:
            own = self.prefix(Paper.citekey_folded, node.key)
            alias = self.prefix(Alias.alias_folded, node.key)
        else:
            own = Paper.citekey_folded == node.key
            alias = Alias.alias_folded == node.key
        return or_(own, Paper.id.in_(select(Alias.paper_id).where(alias)))

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
        if node.prefix:
            return _known(Paper.doi, self.prefix(Paper.doi, node.doi))
        return _known(Paper.doi, Paper.doi == node.doi)

    def _arxiv(self, node: Arxiv) -> ColumnElement[bool]:
        if node.prefix:
            return _known(Paper.arxiv, self.prefix(Paper.arxiv, node.arxiv))
        return _known(Paper.arxiv, Paper.arxiv == node.arxiv)

    def _has(self, node: Has) -> ColumnElement[bool]:
        if node.what == "notes":
            return Paper.id.in_(select(Note.paper_id))
        if node.what == "tags":
            return Paper.id.in_(select(PaperTag.paper_id))
        if node.what == "authors":
            return Paper.id.in_(select(PaperPerson.paper_id).where(PaperPerson.role == "author"))
        col = {
            "abstract": Paper.abstract,
            "arxiv": Paper.arxiv,
            "code": Paper.code_url,
            "doi": Paper.doi,
            "priority": Paper.priority,
            "url": Paper.url,
            "venue": Paper.venue,
            "year": Paper.year,
        }[node.what]
        if node.what in ("priority", "year"):
            return col.is_not(None)
        return and_(col.is_not(None), col != "")

    def _is(self, node: Is) -> ColumnElement[bool]:
        # ``= true`` (not ``IS 1``): SQLite uses a partial index only for a WHERE term
        # equal to the index's own (``title_provisional = 1``, migration 0002).
        return Paper.title_provisional == true()

    # --- ranking ----------------------------------------------------------------------------

    def rank_sqlite(self, terms: Sequence[Text]) -> Any:
        """Return a subquery ``(rid, score)`` of FTS5 bm25 scores (lower is better)."""
        expression = " OR ".join(fts5_expression(t) for t in terms)
        match = _FTS_TABLE.op("MATCH", is_comparison=True)(literal(expression, String))
        return (
            select(_FTS.c.rowid.label("rid"), func.bm25(_FTS_TABLE).label("score"))
            .where(match)
            .subquery("relevance")
        )

    def rank_postgresql(self, terms: Sequence[Text]) -> tuple[ColumnElement[bool], Any]:
        """Return (whether any term matches, ``ts_rank`` of the terms): higher is better.

        ``ts_rank`` is 0, not NULL, where nothing matches, so the match is returned
        too, to keep those papers last in both directions as on SQLite.
        """
        expression = " | ".join(f"({tsquery_expression(t)})" for t in terms)
        tsquery = func.to_tsquery(_SIMPLE, literal(expression, String))
        matched = _SEARCH_VECTOR.op("@@", is_comparison=True)(tsquery)
        return matched, func.ts_rank(_SEARCH_VECTOR, tsquery)


def to_clause(
    query: Query,
    dialect: str,
    *,
    now: datetime | None = None,
    venues: Iterable[str] = (),
    session: Session | None = None,
) -> ColumnElement[bool]:
    """Return the WHERE clause over ``papers`` that selects what ``query`` describes.

    Args:
        query: a tree from :func:`parse`.
        dialect: ``"sqlite"`` or ``"postgresql"`` (the full-text syntax differs).
        now: the time relative dates count back from (default: now, UTC).
        venues: the distinct venue strings of the library; ``venue:`` matches those
            whose folded words contain the value (there is no folded venue column,
            so this is done in Python over the few distinct venues). Only read when
            the query has a ``venue:`` term.
        session: when given, the papers of ``title:``, ``author:`` and ``tag:`` terms
            (and the people of ``author:``) are looked up first and, when few, bound
            as values, which gives both planners the right plan (see
            ``_Builder.resolved``); the selection is the same either way.

    Every user value is a bound parameter; no text of the query is written into SQL.
    """
    return _Builder(dialect, now or datetime.now(UTC), venues, session).clause(query)


def _uses_venue(query: Query) -> bool:
    return any(isinstance(n, Substring) and n.field == "venue" for n, _ in walk(query))


def distinct_venues(session: Session) -> list[str]:
    """Return the distinct non-empty venue strings of the library."""
    return [v for v in session.scalars(select(Paper.venue).distinct()) if v]


def filter_clause(
    session: Session, text: str, *, now: datetime | None = None
) -> ColumnElement[bool]:
    """Parse ``text`` and return its WHERE clause for the session's database.

    For commands that build their own SELECT over ``papers`` (``stats`` grouping by
    status, for instance). Raises InvalidQuery.
    """
    tree = parse(text)
    venues = distinct_venues(session) if _uses_venue(tree) else ()
    dialect = session.get_bind().dialect.name
    return to_clause(tree, dialect, now=now, venues=venues, session=session)


def statement(
    session: Session,
    text: str,
    columns: Sequence[Any] = (Paper.id,),
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
    now: datetime | None = None,
) -> Select[Any]:
    """Build the SELECT of ``columns`` over the papers ``text`` selects, sorted and limited.

    Sort orders (:data:`SORT_KEYS`): ``added`` (order of addition, then id; the
    default without free text), ``year`` (papers without a year last), ``title``
    (folded title; untitled last), ``key`` (case-insensitive), ``priority`` (high
    first, none last), ``status`` (triage order: reading, to-read, new, read,
    skipped), ``relevance`` (the default when the query has free text; papers the
    free-text terms do not match come last, and without free text it is ``added``).
    Ties are broken by order of addition. ``reverse`` reverses the whole order,
    except that papers without a year, title or relevance stay last.

    Raises:
        InvalidQuery: the query is malformed.
        UsageError: ``sort`` is not a sort order.
    """
    if sort is not None and sort not in SORT_KEYS:
        raise UsageError(f"unknown sort order {sort!r}; use one of {', '.join(SORT_KEYS)}")
    tree = parse(text)
    dialect = session.get_bind().dialect.name
    venues = distinct_venues(session) if _uses_venue(tree) else ()
    builder = _Builder(dialect, now or datetime.now(UTC), venues, session)
    terms = ranked_terms(tree)
    sort = sort or ("relevance" if terms else "added")
    stmt = select(*columns).select_from(Paper)
    where = tree

    def direction(expr: Any) -> Any:
        return expr.desc() if reverse else expr.asc()

    def bytewise(col: Any) -> Any:
        # SQLite compares text bytewise (BINARY); PostgreSQL by the database's collation,
        # which may ignore spaces and punctuation (en_US): "C" gives SQLite's order.
        return col.collate("C") if dialect == "postgresql" else col

    order: list[Any] = []
    if sort == "relevance" and terms:
        # When a ranked term is one of the top-level conjuncts, every paper selected
        # matches it: no "unmatched last" key is needed, and on SQLite an inner join
        # with the ranking is the filter of that term too (FTS5 is read once).
        conjuncts = tree.children if isinstance(tree, And) else (tree,)
        required = any(isinstance(c, Text) for c in conjuncts)
        if dialect == "sqlite":
            ranking = builder.rank_sqlite(terms)
            if required:
                stmt = stmt.join(ranking, ranking.c.rid == Paper.id)
                if len(terms) == 1 and terms[0] in conjuncts:
                    rest = tuple(c for c in conjuncts if c != terms[0])
                    where = And(rest) if len(rest) > 1 else rest[0] if rest else Everything()
            else:
                stmt = stmt.outerjoin(ranking, ranking.c.rid == Paper.id)
                order.append(ranking.c.score.is_(None))
            order.append(direction(ranking.c.score))
        else:
            # each use of search_vector decompresses it again: no CASE unless needed
            matched, score = builder.rank_postgresql(terms)
            if not required:
                order.append(case((matched, 0), else_=1))
            order.append(score.asc() if reverse else score.desc())
    elif sort == "year":
        order += [Paper.year.is_(None), direction(Paper.year)]
    elif sort == "title":
        order += [Paper.title_key.is_(None), direction(bytewise(Paper.title_key))]
    elif sort == "key":
        order.append(direction(bytewise(Paper.citekey_folded)))
    elif sort == "priority":
        order += [direction(Paper.priority.is_(None)), direction(Paper.priority)]
    elif sort == "status":
        rank = case(
            {status: position for position, status in enumerate(STATUS_ORDER)},
            value=Paper.status,
            else_=len(STATUS_ORDER),
        )
        order.append(direction(rank))
    order += [direction(Paper.added_at), direction(Paper.id)]
    if not isinstance(where, Everything):
        stmt = stmt.where(builder.clause(where))
    stmt = stmt.order_by(*order)
    if limit is not None:
        stmt = stmt.limit(limit)
    return stmt


def paper_ids(
    session: Session,
    text: str,
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
    now: datetime | None = None,
) -> list[int]:
    """Return the ids of the papers ``text`` selects, in the order of ``sort``.

    See :func:`statement` for the sort orders and :func:`parse` for the language;
    ``limit`` keeps the first N (N >= 1). Raises InvalidQuery or UsageError.
    """
    stmt = statement(session, text, sort=sort, limit=limit, reverse=reverse, now=now)
    return list(session.scalars(stmt))


def paper_keys(
    session: Session,
    text: str,
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
    now: datetime | None = None,
) -> list[str]:
    """Return the citation keys of the papers ``text`` selects, in order (one query).

    Like :func:`paper_ids` but without loading papers: ``list -k`` on a large library.
    """
    stmt = statement(
        session, text, (Paper.citekey,), sort=sort, limit=limit, reverse=reverse, now=now
    )
    return list(session.scalars(stmt))


# --- dates -----------------------------------------------------------------------------------


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
