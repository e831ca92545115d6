"""Duplicate detection: is an incoming record the same paper as one we have?

Identity, strongest first (issue 4, "Duplicates on import"):
1. the same DOI, 2. the same arXiv id (versions ignored), 3. the same normalized
title with years within one and the same first-author family name, 4. for lists of
abstracts without titles, the same abstract words (:func:`abstract_key`).
An identifier match whose titles clearly differ is a *conflict*, not a duplicate:
real bibliographies hold two papers under one DOI. Titles are compared with
rapidfuzz's ``token_set_ratio`` on normalized titles.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from rapidfuzz import fuzz

from readinglist.records import PaperRecord
from readinglist.text import fold, search_tokens, title_key

#: Below this rapidfuzz similarity (0..100) two titles are "clearly different".
TITLE_CONFLICT_THRESHOLD = 60.0


def abstract_key(abstract: str | None) -> str | None:
    """Return a SHA-1 hex digest of the abstract's folded words, or None without an abstract.

    Whitespace, case, accents, LaTeX and Markdown markup do not change it.
    """
    if not abstract:
        return None
    return abstract_key_of_words(search_tokens(abstract.replace("*", "").replace("_", " ")))


def abstract_key_of_words(words: Sequence[str]) -> str | None:
    """Return :func:`abstract_key` from the abstract's search words, None for no words.

    For an abstract without ``*`` or ``_`` these are ``search_tokens(abstract)``, which
    an import computes anyway for the search text (issue 9: each abstract folded once).
    """
    if not words:
        return None
    return hashlib.sha1(" ".join(words).encode()).hexdigest()


def first_family(record: PaperRecord) -> str:
    """Return the folded family name (or literal) of the first author, '' when unknown."""
    for person in record.authors:
        if not person.is_others:
            return fold(f"{person.von} {person.family}".strip() or person.literal)
    return ""


def titles_conflict(a: str | None, b: str | None) -> bool:
    """True when both titles are known and clearly different (similarity below the threshold)."""
    if not a or not b:
        return False
    return fuzz.token_set_ratio(title_key(a), title_key(b)) < TITLE_CONFLICT_THRESHOLD


def years_close(a: int | None, b: int | None) -> bool:
    """True when either year is unknown or they differ by at most one."""
    return a is None or b is None or abs(a - b) <= 1


#: At or above this rapidfuzz ``ratio`` (0..100) two normalized titles are the same title.
TITLE_SAME_THRESHOLD = 90.0


def titles_same(a: str | None, b: str | None) -> bool:
    """True when the titles are the same up to small edits, or either is missing.

    Stricter than :func:`titles_conflict`'s inverse: used where only a citation
    key links two records, so "One Paper" and "A Different Paper" stay apart.
    """
    if not a or not b:
        return True
    return fuzz.ratio(title_key(a), title_key(b)) >= TITLE_SAME_THRESHOLD
