"""The value of a ``field:value`` term -> its query node, one small reader per field.

:func:`field_term` looks the field up in a table; each reader checks what was typed and
raises through ``fail`` (which makes an :class:`~readinglist.errors.InvalidQuery` quoting
the whole query) when it is not a value of the field. The rules come from their homes:
text folding from :mod:`readinglist.text`, DOIs and arXiv ids from
:mod:`readinglist.identifiers`, statuses and priorities from :mod:`readinglist.records`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal, TypeAlias

from readinglist.bounds import check_reader_name
from readinglist.errors import InvalidQuery, UsageError
from readinglist.identifiers import arxiv_stem, doi_stem, normalize_arxiv, normalize_doi
from readinglist.query.tree import (
    Arxiv,
    DateRange,
    DateSpec,
    Doi,
    Has,
    Is,
    Key,
    Priority,
    Query,
    Status,
    Substring,
    TagTerm,
    WantedBy,
    Year,
)
from readinglist.query.vocabulary import HAS_VALUES, IS_VALUES, PRIORITY_VALUES
from readinglist.records import PRIORITY_CODES, STATUSES
from readinglist.text import fold, search_tokens

#: Makes the error for a reason (the lexer's ``fail``: it quotes the whole query).
Fail: TypeAlias = Callable[[str], InvalidQuery]

_YEAR = re.compile(r"\d{1,4}")
_DATE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_RELATIVE = re.compile(r"-(\d{1,5})([dwmy])")


def field_term(name: str, value: str, fail: Fail) -> Query:
    """Return the node of ``name:value``.

    Args:
        name: a lower-case key of :data:`readinglist.query.vocabulary.FIELDS`.
        value: the value as typed (a phrase's content, ``*`` kept when it followed).
        fail: makes the error to raise for a reason.

    Raises:
        InvalidQuery: from ``fail``, when ``value`` is not a value of the field.
    """
    return _READERS[name](name, value.strip(), fail)


def _words(name: str, value: str, fail: Fail) -> Substring:
    words = " ".join(search_tokens(value))
    if not words:
        raise fail(f"{name}:{value} has no letters or digits to search for")
    return Substring(name, words)  # type: ignore[arg-type]


def _author(name: str, value: str, fail: Fail) -> Substring:
    family, comma, given = value.partition(",")
    if comma:
        family_folded, given_folded = fold(family), fold(given)
        if not family_folded:
            raise fail(f"author:{value} has no family name before the comma")
        return Substring("author", family_folded, given_folded)
    folded = fold(value)
    if not folded:
        raise fail(f"author:{value} names nobody")
    return Substring("author", folded)


def _stem(name: str, value: str, what: str, fail: Fail) -> tuple[str, bool]:
    """Return (the lower-case value without a trailing ``*``, whether it had one)."""
    stem = value.rstrip("*").strip().lower()
    if not stem:
        raise fail(f"{name}:{value} names no {what}")
    return stem, value.endswith("*")


def _tag(name: str, value: str, fail: Fail) -> TagTerm:
    return TagTerm(*_stem(name, value, "tag", fail))


def _key(name: str, value: str, fail: Fail) -> Key:
    return Key(*_stem(name, value, "key", fail))


def _one_of(value: str, allowed: tuple[str, ...], unknown: str, fail: Fail) -> str:
    """Return ``value`` lower-cased when it is one of ``allowed``, else raise ``unknown``."""
    lowered = value.lower()
    if lowered not in allowed:
        raise fail(f"{unknown}; use one of {', '.join(allowed)}")
    return lowered


def _at_reader(name: str, value: str, fail: Fail) -> tuple[str, str | None]:
    """Split ``value@reader`` (``status:to-read@ana``) into the value and the reader name
    (``bounds.check_reader_name``), or ``(value, None)`` without ``@``."""
    if "@" not in value:
        return value, None
    value, _, reader = value.rpartition("@")
    try:
        return value, check_reader_name(reader)
    except UsageError as err:
        raise fail(f"{name}:{value}@{reader}: {err}") from err


def _status(name: str, value: str, fail: Fail) -> Status:
    value, reader = _at_reader(name, value, fail)
    return Status(_one_of(value, STATUSES, f"unknown status {value!r}", fail), reader)


def _priority(name: str, value: str, fail: Fail) -> Priority:
    value, reader = _at_reader(name, value, fail)
    level = _one_of(value, PRIORITY_VALUES, f"unknown priority {value!r}", fail)
    return Priority(PRIORITY_CODES.get(level), reader)


def _wanted_by(name: str, value: str, fail: Fail) -> WantedBy:
    """``wanted-by:2`` (exactly two readers), ``2..`` (two or more), ``..1``, ``1..3``."""
    span = _year(name, value, fail, what="a number of readers")
    return WantedBy(span.low, span.high)


def _has(name: str, value: str, fail: Fail) -> Has:
    return Has(_one_of(value, HAS_VALUES, f"unknown has:{value}", fail))


def _is(name: str, value: str, fail: Fail) -> Is:
    return Is(_one_of(value, IS_VALUES, f"unknown is:{value}", fail))


def _year(name: str, value: str, fail: Fail, *, what: str = "") -> Year:
    def one(part: str) -> int | None:
        if not part:
            return None
        if what and part.isascii() and part.isdigit() and len(part) <= 6:
            return int(part)
        if what or not _YEAR.fullmatch(part):
            form = what or "a year"
            example = "2..5, ..1, 2.." if what else "2020..2024, ..2019, 2020.."
            raise fail(f"{name}:{value} is not {form} or a range such as {example}")
        return int(part)

    if ".." in value:
        low_text, _, high_text = value.partition("..")
        low, high = one(low_text), one(high_text)
        if low is None and high is None:
            raise fail(f"{name}:{value} needs at least one end")
    else:
        low = high = one(value)
    if low is not None and high is not None and low > high:
        raise fail(f"{name}:{value} starts after it ends")
    return Year(low, high)


def _dates(name: str, value: str, fail: Fail) -> DateRange:
    field: Literal["added", "read"] = "added" if name == "added" else "read"
    if ".." in value:
        low_text, _, high_text = value.partition("..")
        low = _date(name, value, low_text, fail) if low_text else None
        high = _date(name, value, high_text, fail) if high_text else None
        if low is None and high is None:
            raise fail(f"{name}:{value} needs at least one end")
        if low and high and low.kind == high.kind == "date":
            fixed = datetime(2000, 1, 1, tzinfo=UTC)
            if low.period(fixed)[0] >= (high.period(fixed)[1] or datetime.max.replace(tzinfo=UTC)):
                raise fail(f"{name}:{value} starts after it ends")
        return DateRange(field, low, high)
    spec = _date(name, value, value, fail)
    if spec.kind == "ago":
        return DateRange(field, spec, None)
    return DateRange(field, spec, spec)


def _date(name: str, value: str, part: str, fail: Fail) -> DateSpec:
    """Read one end ``part`` of the date range ``value``."""
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
            raise fail(f"{name}:{value}: {part!r} is not a date") from None
        return DateSpec("date", year=year, month=month, day=day)
    raise fail(
        f"{name}:{value}: {part!r} is not a date; use 2026-05-01, 2026-05, 2026, "
        "today, yesterday or -7d, -2w, -1m, -1y"
    )


def _identifier(
    value: str,
    fail: Fail,
    stem: Callable[[str], str],
    normalize: Callable[[str], str | None],
    no_prefix: str,
    not_one: str,
) -> tuple[str, bool]:
    """Return (the normalized id, False), or for ``...*`` (its normalized start, True)."""
    if value.endswith("*"):
        start = stem(value.rstrip("*"))
        if not start:
            raise fail(no_prefix)
        return start, True
    found = normalize(value)
    if found is None:
        raise fail(not_one)
    return found, False


def _doi(name: str, value: str, fail: Fail) -> Doi:
    no_prefix = f"doi:{value} names no DOI prefix"
    not_one = f"doi:{value} is not a DOI (expected 10.NNNN/...)"
    return Doi(*_identifier(value, fail, doi_stem, normalize_doi, no_prefix, not_one))


def _arxiv(name: str, value: str, fail: Fail) -> Arxiv:
    no_prefix = f"arxiv:{value} names no arXiv id prefix"
    not_one = f"arxiv:{value} is not an arXiv id (expected 2401.01234 or hep-th/9901001)"
    return Arxiv(*_identifier(value, fail, arxiv_stem, normalize_arxiv, no_prefix, not_one))


#: The reader of each field of :data:`readinglist.query.vocabulary.FIELDS`.
_READERS: dict[str, Callable[[str, str, Fail], Query]] = {
    "title": _words,
    "venue": _words,
    "author": _author,
    "tag": _tag,
    "status": _status,
    "priority": _priority,
    "wanted-by": _wanted_by,
    "year": _year,
    "added": _dates,
    "read": _dates,
    "key": _key,
    "doi": _doi,
    "arxiv": _arxiv,
    "has": _has,
    "is": _is,
}
