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
import re
from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

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
    ka, kb = title_key(a), title_key(b)
    if not ka or not kb:
        # Titles of punctuation or symbols only fold to "": no evidence (issue 18), so
        # only the very same text counts as the same title.
        return " ".join(a.split()) == " ".join(b.split())
    return fuzz.ratio(ka, kb) >= TITLE_SAME_THRESHOLD


# --- tolerant matching (issue 13) -------------------------------------------------------------

#: Titles that many different papers share ("Editorial", "Preface"): for them the title
#: is no evidence, and different bibliographic coordinates veto a merge.
GENERIC_TITLES = frozenset(
    [
        "editorial",
        "introduction",
        "preface",
        "foreword",
        "front matter",
        "back matter",
        "index",
        "erratum",
        "corrigendum",
        "errata",
        "contents",
        "table of contents",
        "book review",
        "book reviews",
        "letter to the editor",
        "in memoriam",
        "obituary",
        "guest editorial",
        "editorial board",
        "announcement",
        "news",
        "reply",
        "response",
        "comment",
        "discussion",
        "abstracts",
        "keynote",
        "invited talk",
        "panel",
        "books received",
        "publications received",
        "briefly noted",
        "book notices",
        "issue information",
        "call for papers",
        "acknowledgments",
        "acknowledgements",
        "reviewers",
        "list of reviewers",
        "author index",
        "subject index",
        "masthead",
        "correction",
        "retraction",
        "addendum",
        "calendar",
        "forthcoming papers",
        "title index",
        "advertisements",
        "advertisement",
        "front cover",
        "back cover",
        "cover",
        "front matter and table of contents",
    ]
)

#: Fields (``PaperRecord.fields`` names) that place a paper inside its venue; two
#: papers with different values are different papers.
COORDINATES: tuple[str, ...] = ("volume", "number", "issue", "pages")

#: Abstract similarity (rapidfuzz ``ratio`` of the folded words, 0..100) at or above
#: which two abstracts are the same text with small edits (a word changed, typography).
ABSTRACT_SAME = 90.0
#: Share of the shorter abstract's word 3-grams found in the longer one at or above
#: which it is the same text cut short (a sentence missing) ...
ABSTRACT_CONTAINED = 0.9
#: ... when the shorter one has at least this many words.
ABSTRACT_MIN_WORDS = 25
#: Below ``ABSTRACT_SAME`` but at or above this, a pair is offered as a candidate.
ABSTRACT_CANDIDATE = 60.0
#: Title similarity (rapidfuzz ``ratio`` of title keys) for a merge on the title alone
#: (with the same first author and year) and for a candidate.
TITLE_NEAR = 95.0
TITLE_CANDIDATE = 85.0

#: A word 3-gram in more abstracts than this ("in this paper") is no evidence of
#: identity; queries skip its postings (they would cost more than they tell).
COMMON_GRAM = 50

_COORD_SPACE = re.compile(r"[\s{}]+")


def is_generic_title(title: str | None) -> bool:
    """True when ``title`` (any case, punctuation) is one of :data:`GENERIC_TITLES`."""
    return bool(title) and title_key(title or "") in GENERIC_TITLES


def coordinates_conflict(a: Mapping[str, str], b: Mapping[str, str]) -> str | None:
    """Return the first coordinate (volume, number, issue, pages) both field maps give
    with different values (spaces, braces and ``--``/``-`` ignored), else None."""
    for name in COORDINATES:
        va, vb = a.get(name), b.get(name)
        if va and vb and _coord(va) != _coord(vb):
            return name
    return None


def pages_conflict(a: str | None, b: str | None) -> bool:
    """True when both page fields are given and start on different pages
    (``233--258`` vs ``165--195``); ``1--10`` and ``1`` (a first page alone) agree.

    Two records of one title on different pages are two publications (a workshop and
    its journal version, two issues' "Books Received"): never one paper (issue 13)."""
    first_a, first_b = _first_page(a), _first_page(b)
    return bool(first_a and first_b and first_a != first_b)


#: Fields numbering a publication inside its venue: two published records of one entry
#: type numbered differently are two publications (JabRef's DuplicateCheck: an entry
#: type's fields that conflict mean different entries).
NUMBERING: tuple[str, ...] = ("volume", "number")
_INTEGER = re.compile(r"[0-9]+")


def numbering_conflict(a: Mapping[str, str], b: Mapping[str, str]) -> str | None:
    """Return the first of :data:`NUMBERING` both field maps give with a different first
    integer (``95`` and ``Vol. 95`` agree, ``95`` and ``96`` do not; a value without
    digits is no evidence), else None."""
    for name in NUMBERING:
        va, vb = _INTEGER.search(a.get(name) or ""), _INTEGER.search(b.get(name) or "")
        if va and vb and int(va.group(0)) != int(vb.group(0)):
            return name
    return None


def _first_page(value: str | None) -> str | None:
    if not value:
        return None
    match = _FIRST_PAGE.match(_coord(value))
    return match.group(0) if match else None


_FIRST_PAGE = re.compile(r"[a-z]*[0-9ivxlcdm]+")


def _coord(value: str) -> str:
    return _COORD_SPACE.sub("", value).replace("--", "-").replace("\u2013", "-").lower()


@dataclass(frozen=True)
class Evidence:
    """Why two papers are thought the same: ``kind`` "merge" or "candidate", a score
    (0..100) and a sentence for the user ("same abstract, 97% similar")."""

    kind: str
    score: float
    text: str


def _shingles(words: Sequence[str]) -> set[int]:
    return set(map(hash, zip(words, words[1:], words[2:], strict=False)))


class AbstractIndex:
    """Near-identical abstracts found fast: an inverted index of word 3-grams.

    :meth:`add` indexes an abstract's folded words (``text.search_tokens``) under any
    hashable id; :meth:`query` returns the ids sharing the most 3-grams with an
    abstract, each scored by rapidfuzz (``fuzz.ratio`` of the folded word strings) and
    by containment (the share of the shorter one's 3-grams found in the other), so a
    changed word, a dropped sentence or typography still match, and the cost per
    query is that of its 3-grams' postings, not of the whole library.
    """

    def __init__(self) -> None:
        self.postings: dict[int, list[Hashable]] = defaultdict(list)
        self.docs: dict[Hashable, tuple[str, set[int], int]] = {}

    def add(self, ident: Hashable, words: Sequence[str]) -> None:
        """Index the abstract of ``ident`` (its folded words); fewer than 3 words: skipped."""
        grams = _shingles(words)
        if not grams:
            return
        self.docs[ident] = (" ".join(words), grams, len(words))
        for gram in grams:
            self.postings[gram].append(ident)

    def discard(self, ident: Hashable) -> None:
        """Stop offering ``ident`` (its postings stay, but it is never returned)."""
        self.docs.pop(ident, None)

    def query(self, words: Sequence[str], limit: int = 3) -> list[tuple[Hashable, Evidence]]:
        """Return up to ``limit`` ``(id, Evidence)`` for abstracts like ``words``, best first.

        Merge evidence: ratio >= :data:`ABSTRACT_SAME`, or containment >=
        :data:`ABSTRACT_CONTAINED` with the shorter abstract of >= :data:`ABSTRACT_MIN_WORDS`
        words. Candidate evidence: ratio >= :data:`ABSTRACT_CANDIDATE` or containment
        >= 0.5. Nothing weaker is returned.
        """
        grams = _shingles(words)
        if not grams:
            return []
        posted = [p for p in map(self.postings.get, grams) if p and len(p) <= COMMON_GRAM]
        counts: Counter[Hashable] = Counter(chain.from_iterable(posted))
        text = " ".join(words)
        found: list[tuple[Hashable, Evidence]] = []
        for ident, shared in counts.most_common(limit * 2):
            doc = self.docs.get(ident)
            if doc is None:
                continue
            other, other_grams, other_len = doc
            ratio = fuzz.ratio(text, other)
            contained = shared / max(1, min(len(grams), len(other_grams)))
            shorter = min(len(words), other_len)
            if ratio >= ABSTRACT_SAME:
                found.append(
                    (ident, Evidence("merge", ratio, f"same abstract, {ratio:.0f}% similar"))
                )
            elif contained >= ABSTRACT_CONTAINED and shorter >= ABSTRACT_MIN_WORDS:
                score = 100 * contained
                found.append(
                    (
                        ident,
                        Evidence(
                            "merge",
                            score,
                            f"same abstract, one cut short ({score:.0f}% of its text in the other)",
                        ),
                    )
                )
            elif ratio >= ABSTRACT_CANDIDATE or contained >= 0.5:
                score = max(ratio, 100 * contained)
                found.append(
                    (ident, Evidence("candidate", score, f"similar abstract, {score:.0f}%"))
                )
        found.sort(key=lambda pair: -pair[1].score)
        return found[:limit]


class TitleIndex:
    """Near-identical titles: title keys grouped by their rarest-first words.

    Candidates share at least one of a title's two least common words (in this
    index); each is scored with rapidfuzz ``fuzz.ratio`` of the title keys.
    """

    def __init__(self) -> None:
        self.by_word: dict[str, list[Hashable]] = defaultdict(list)
        self.keys: dict[Hashable, str] = {}

    def add(self, ident: Hashable, tkey: str) -> None:
        """Index title key ``tkey`` (``text.title_key``) of ``ident``; empty: skipped."""
        if not tkey or title_key(tkey) in GENERIC_TITLES:
            return
        self.keys[ident] = tkey
        for word in set(tkey.split()):
            self.by_word[word].append(ident)

    def discard(self, ident: Hashable) -> None:
        """Stop offering ``ident``."""
        self.keys.pop(ident, None)

    def query(self, tkey: str, limit: int = 3) -> list[tuple[Hashable, float]]:
        """Return up to ``limit`` ``(id, ratio)`` with ratio >= :data:`TITLE_CANDIDATE`."""
        words = sorted(set(tkey.split()), key=lambda w: len(self.by_word.get(w, ())))
        seen: set[Hashable] = set()
        for word in [w for w in words if w in self.by_word][:2]:
            seen.update(self.by_word[word])
        scored = []
        for ident in seen:
            other = self.keys.get(ident)
            if other is None:
                continue
            ratio = fuzz.ratio(tkey, other)
            if ratio >= TITLE_CANDIDATE:
                scored.append((ident, ratio))
        scored.sort(key=lambda pair: -pair[1])
        return scored[:limit]
