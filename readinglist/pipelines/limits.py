"""The limits every imported record is held to, the same on SQLite and PostgreSQL (issue 18).

PostgreSQL enforces the lengths of ``VARCHAR`` columns and SQLite does not: a
300-character citation key used to import on SQLite and end a PostgreSQL import
with a traceback, losing every entry. :func:`check` applies the rule of
:mod:`readinglist.bounds` (column lengths, entry type names) to each record before
it reaches the library, rejecting only the offending entry with its file and line; and it bounds
the authors (and editors) kept per paper (:data:`MAX_PEOPLE`), so that a record with
a million authors cannot make every later listing slow.

This module imports the Core tables (SQLAlchemy); the reader process imports it
only when it starts reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from readinglist import bounds
from readinglist.errors import InvalidInput
from readinglist.records import PaperRecord, ParseProblem, Person

#: Authors (and, separately, editors) kept per paper; past it the list is cut and ends
#: with ``and others``, with a warning naming the entry.
MAX_PEOPLE = 5000


#: The bounded columns and the longest tag (:mod:`readinglist.bounds`, their one home).
LIMITS = bounds.LIMITS
MAX_TAG = bounds.MAX_TAG


def check(record: PaperRecord, source: str) -> tuple[PaperRecord | None, list[ParseProblem]]:
    """Hold ``record`` (read from ``source``) to the limits.

    Returns ``(record, problems)``: the record is None, with one error naming the
    field, its length and the limit, when a bounded column or a tag is too long
    (the entry is rejected); an author or editor list longer than
    :data:`MAX_PEOPLE` is cut to its first ``MAX_PEOPLE`` people followed by
    ``and others``, with a warning.
    """
    wrong = bounds.record_problem(record)
    if wrong is not None:
        return None, [ParseProblem(wrong, source, record.line)]
    problems: list[ParseProblem] = []
    authors = _bounded(record.authors, "authors", source, record.line, problems)
    editors = _bounded(record.editors, "editors", source, record.line, problems)
    if problems:
        record = replace(record, authors=authors, editors=editors)
    return record, problems


def check_tags(tags: Sequence[str]) -> None:
    """Refuse an ``import --tag`` that is not a usable tag (:func:`bounds.tag_problem`:
    characters and length). Raises InvalidInput (exit 5), as for an imported value."""
    for tag in tags:
        problem = bounds.tag_problem(tag.strip())
        if problem is not None:
            raise InvalidInput(problem)


def _bounded(
    people: tuple[Person, ...],
    role: str,
    source: str,
    line: int | None,
    problems: list[ParseProblem],
) -> tuple[Person, ...]:
    if len(people) <= MAX_PEOPLE:
        return people
    problems.append(
        ParseProblem(
            f"{len(people):,} {role}; kept the first {MAX_PEOPLE:,} followed by 'and others'",
            source,
            line,
            "warning",
        )
    )
    return (*people[:MAX_PEOPLE], Person(literal="others"))


def check_all(
    records: Sequence[PaperRecord], source: str, problems: list[ParseProblem]
) -> list[PaperRecord]:
    """Return the records of ``records`` that pass :func:`check`, appending its problems
    to ``problems``."""
    kept: list[PaperRecord] = []
    for record in records:
        checked, found = check(record, source)
        problems.extend(found)
        if checked is not None:
            kept.append(checked)
    return kept
