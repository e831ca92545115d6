"""The abstracts reader's header rules: venue and year of a pasted list (:func:`parse_header`).

Part of the ``abstracts`` format (:mod:`readinglist.formats.abstracts`); also reads the
"(ICML 2024)" after a title and a ``Year:`` label (:func:`to_year`).
"""

from __future__ import annotations

import re

from readinglist.naming.markup import clean_inline
from readinglist.naming.words import FIELD_TERMS, word_list

#: Generic header words that are not a venue even next to a year ("Papers 2025").
HEADER_STOP: frozenset[str] = word_list(
    """
    papers paper accepted orals oral posters poster spotlights session sessions
    proceedings conference workshop volume vol track list reading issue spring summer
    fall autumn winter january february march april may june july august september
    october november december jan feb mar apr jun jul aug sep sept oct nov dec the of in
    and top best my our new selected abstracts list week day edition digest newsletter
    part utc gmt ct et pt cet cest est edt cst cdt pst pdt bst ist
    """
)

#: A year from 1950 to 2099 standing alone (not inside a longer number or a time).
YEAR = re.compile(r"(?<![\d:.,/])(19[5-9]\d|20\d\d)(?![\d:])")

_SHORT_YEAR = re.compile(r"['\u2018\u2019](\d\d)\b")

_VENUE_BEFORE_YEAR = re.compile(
    r"(?<![\w-])([A-Z][A-Za-z&-]*[A-Za-z])\s*(?:['\u2018\u2019]\d\d\b|-?(?:19[5-9]\d|20\d\d)(?!\d))"
)

_ACRONYM_TOKEN = re.compile(r"(?<![\w-])([A-Z][A-Za-z]*[A-Z][A-Za-z]*|[A-Z]{3,})(?![\w-])")

_VENUE_PHRASE = re.compile(
    r"\b((?:International |Annual |European |Asian |North American )*"
    r"(?:Conference|Symposium|Workshop|Meeting) on (?:[A-Z][\w-]*|and|of|for|in|&)"
    r"(?:\s+(?:[A-Z][\w-]*|and|of|for|in|&))*)"
)


def parse_header(text: str) -> dict[str, str]:
    """Read venue and year from a list's header line(s).

    ``"ICML 2026 Papers"`` gives ``{"venue": "ICML", "year": "2026", "list_title":
    "ICML 2026 Papers"}``; ``"CVPR'25 orals"`` gives venue CVPR, year 2025;
    ``"Proceedings of ACL 2024"`` venue ACL. The venue is the capitalised token
    written against a year (``NeurIPS 2025``, ``CVPR'25``), else the first
    acronym of two or more capitals that is not a field's term (ICML, EMNLP),
    else a "Conference on ..." phrase. ``list_title`` is the first non-empty line
    cleaned of Markdown. Keys are present only when found; values are str.
    """
    lines = [clean_inline(line) for line in text.split("\n")]
    lines = [line for line in lines if line]
    if not lines:
        return {}
    meta: dict[str, str] = {"list_title": lines[0]}
    joined = " \n ".join(lines)
    venue = _header_venue(joined)
    if venue:
        meta["venue"] = venue
    year = _header_year(joined)
    if year:
        meta["year"] = year
    return meta


def to_year(value: str | None) -> int | None:
    """Return the first year (1950-2099) written in ``value`` as an int, or None."""
    if not value:
        return None
    match = YEAR.search(str(value))
    return int(match.group(1)) if match else None


def _header_venue(text: str) -> str | None:
    """The venue a header names (see :func:`parse_header`), or None."""
    for match in _VENUE_BEFORE_YEAR.finditer(text):
        token = match.group(1)
        if token.lower() not in HEADER_STOP and token.lower() not in FIELD_TERMS:
            return token
    for match in _ACRONYM_TOKEN.finditer(text):
        token = match.group(1)
        if len(token) >= 3 and token.lower() not in HEADER_STOP | FIELD_TERMS:
            return token
    phrase = _VENUE_PHRASE.search(text)
    return phrase.group(1).strip() if phrase else None


def _header_year(text: str) -> str | None:
    """The year a header names, four digits or ``'25`` (read as 2025), or None."""
    match = YEAR.search(text)
    if match:
        return match.group(1)
    short = _SHORT_YEAR.search(text)
    return f"20{short.group(1)}" if short else None
