"""What a name looks like: the shape tests every naming rule shares, and the result type.

:class:`ContributionName` is what the naming returns. :func:`name_shape`,
:func:`acceptable_name` and :func:`is_acronym` judge a word or phrase by its
capitalisation and the word lists of :mod:`readinglist.naming.words`;
:func:`initials_span` matches an acronym to the words it abbreviates. All are pure
functions of their arguments and raise nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from readinglist.naming.markup import decode
from readinglist.naming.words import (
    ADJECTIVE_SUFFIX,
    BOUNDARY_WORDS,
    CONNECTORS,
    FIELD_TERMS,
    HEAD_NOUNS,
    STOP_NAMES,
)


@dataclass(frozen=True)
class ContributionName:
    """A named contribution found in an abstract.

    ``name`` is Unicode ("SPAR"); ``expansion`` the spelled-out form given with it
    ("Support-Preserving Action Rectification") or None; ``description`` the
    appositive describing it ("a framework designed to ...") or None;
    ``position`` the character offset in the scanned abstract (for ordering).
    """

    name: str
    expansion: str | None = None
    description: str | None = None
    position: int = 0


_HYPHENS = re.compile(r"[-\u2010\u2011\u2013/]")

_STRONG_PART = re.compile(r"[A-Z].*[A-Z]|[a-z][A-Z]")


def name_shape(word: str) -> str:
    """``"strong"`` (inner capital, two capitals, digit, ``+``), ``"cap"`` (capitalised) or ``""``.

    Hyphenated parts are judged one by one, so "Data-Driven" is only ``"cap"``
    while "MM-DeceptionBench" and "rPPG-Toolbox" are ``"strong"``.
    """
    if not word or not any(c.isalpha() for c in word):
        return ""
    if "+" in word or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word)):
        return "strong"
    if any(_STRONG_PART.search(part) for part in _HYPHENS.split(word)):
        return "strong"
    return "cap" if word[0].isupper() else ""


def modifies_next_word(text: str, position: int) -> bool:
    """True when the word after ``position`` is lower case and not a head noun ("(SQ) lower")."""
    words = re.findall(r"[a-z][\w-]*|\S", text[position : position + 60])[:3]
    if not words or not words[0][0].islower():
        return False
    if words[0] in CONNECTORS or words[0] in BOUNDARY_WORDS:
        return False
    # A compound noun ending in a head noun is fine: "(DG-SCT) attention mechanism".
    for word in words:
        if word in HEAD_NOUNS:
            return False
        if not word[0].islower():
            break
    return True


def is_acronym(token: str) -> bool:
    """An acronym-like name: two or more capitals (or one and a digit), not a field's term."""
    if "$" in token:
        token = decode(token)  # "$\\chi$SPN" -> "χSPN"
    if not 2 <= len(token) <= 20 or not token[0].isalnum():
        return False
    capitals = sum(1 for c in token if c.isupper())
    if capitals < 2 and not (capitals == 1 and re.search(r"\d", token)):
        return False
    return acceptable_name(token)


def acceptable_name(name: str, *, all_caps_ok: bool = False) -> bool:
    """False for ordinary words, a field's terms, plural acronyms and adjectives ("DiT-based").

    ``all_caps_ok`` lets an all-capitals stop word through ("AND: Adversarial ...").
    """
    stripped = name.strip()
    if not 2 <= len(stripped) <= 80 or len(stripped.split()) > 6:
        return False
    lowered = stripped.lower()
    if lowered in FIELD_TERMS and not (all_caps_ok and not stripped.isupper()):
        return False
    if lowered in STOP_NAMES and not (all_caps_ok and stripped.isupper()):
        return False
    if re.fullmatch(r"[A-Z0-9\-]{2,}s", stripped):
        return False  # a plural acronym (LLMs, CNNs) names a class of things, not a contribution
    if ADJECTIVE_SUFFIX.search(stripped) or re.fullmatch(r"[\d.,\-+%]+", stripped):
        return False
    return any(c.isalpha() for c in stripped)


def initials_span(before: str, acronym: str) -> tuple[int, str] | None:
    """Find the words ending ``before`` whose initials spell ``acronym``; return (offset, words)."""
    letters = [
        c.lower()
        for i, c in enumerate(acronym)
        if c.isupper() or c.isdigit() or (i == 0 and c.isalpha())
    ]
    if len(letters) < 2:
        return None
    words = list(
        re.finditer(r"[^\s\-\u2010\u2011/`'\"\u201c\u201d\u2018\u2019(]+", before.rstrip())
    )
    for first in range(len(words) - 1, max(-1, len(words) - 12), -1):
        if words[first].group(0)[:1].lower() != letters[0]:
            continue
        k = 0
        skipped = 0
        for word in words[first:]:
            w = word.group(0)
            candidates = [w[:1].lower()] + [c.lower() for c in w[1:] if c.isupper()]
            used = False
            for ch in candidates:
                if k < len(letters) and ch == letters[k]:
                    k += 1
                    used = True
            if not used and w.lower() not in CONNECTORS:
                skipped += 1
        if k == len(letters) and skipped <= 1:
            start = words[first].start()
            return start, before[start:].strip()
    return None
