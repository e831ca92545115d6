"""The abstracts reader's people: author lines (:func:`parse_authors`) and names (:func:`parse_name`).

Also decides whether a line reads as an author line at all (:func:`looks_like_authors`),
which the layout rules of :mod:`readinglist.formats._abstracts_blocks` ask.
"""

from __future__ import annotations

import re

from readinglist.naming.markup import WHITESPACE, strip_markup
from readinglist.naming.words import FUNCTION_WORDS, word_list
from readinglist.records import Person
from readinglist.text import latex_to_unicode

#: Lower-case particles that form a von part ("van der Berg", "de la Cruz").
_NAME_PARTICLES = word_list(
    """
    van von der den de del della di da dos das du le la los las ter ten bin ibn al el y
    e zu
    """
)

#: Capitalised particles that begin a family name of two words when they stand just before
#: the last word ("Salwa Al Khatib" -> family "Al Khatib", "Vincent Van Gogh"). BibTeX
#: itself would take such a capitalised word for a given name; a list written for people
#: means the family name. Only particles that are not also common given or family names
#: on their own ("Le", "La", "Da", "Di" are), and only when a given name comes first
#: ("Mohamed El Amine Boudjoghra" keeps "El Amine" in the given names).
_FAMILY_PREFIXES = frozenset(
    {"Al", "El", "Abu", "Abd", "Bin", "Ibn", "Van", "Von", "De", "Del", "Della", "Dos", "Das"}
    | {"Du", "Ter", "Ten"}
)

#: Suffixes that form the jr part ("Martin Luther King Jr.").
_NAME_SUFFIXES = word_list("jr jr. sr sr. ii iii iv v")


def parse_authors(text: str) -> tuple[Person, ...]:
    """Split an author line into people.

    Accepts "A. Name, B. Name and C. Name", "Name1 · Name2", "Name1; Name2",
    "Family, Given; Family, Given", an Oxford comma, affiliation marks
    (digits, ``*``, daggers) and "et al." (-> the ``others`` marker). Names are
    LaTeX-decoded and split by :func:`parse_name`. Returns ``()`` for no names.
    """
    cleaned = strip_markup(text)
    cleaned = re.sub(r"^\s*(?:by|authors?)\s*:?\s+", "", cleaned, flags=re.I)
    people: list[Person] = []
    for part in _author_parts(cleaned):
        if re.fullmatch(r"et\.?\s*al\.?|others", part, re.I):
            people.append(Person(literal="others"))
            continue
        person = parse_name(part)
        if person.family or person.literal:
            people.append(person)
    return tuple(people)


def parse_name(name: str) -> Person:
    """Split one personal name into BibTeX's given / von / family / jr parts.

    Follows BibTeX's rules ("Tame the BeaST" section 11): "Family, Given",
    "von Family, Jr, Given", or "Given von Family" where the von part is the
    run of lower-case words before the family name. A suffix such as "Jr." at
    the end of the "Given Family" form becomes ``jr``; a capitalised particle just
    before the family name joins it (:data:`_FAMILY_PREFIXES`). A name in lower case only
    ("jie liu") is read as given names then family. LaTeX is decoded.
    """
    name = WHITESPACE.sub(" ", latex_to_unicode(name.strip())).strip(" ,;")
    if not name:
        return Person()
    if "," in name:
        pieces = [p.strip() for p in name.split(",")]
        last, rest = pieces[0], [p for p in pieces[1:] if p]
        jr = rest[0] if len(rest) > 1 else ""
        given = rest[-1] if rest else ""
        von, family = _split_von(last.split())
        return Person(family=family, given=given, von=von, jr=jr)
    words = name.split()
    jr = ""
    if len(words) > 2 and words[-1].lower() in _NAME_SUFFIXES:
        jr = words.pop()
    if len(words) == 1:
        return Person(family=words[0], jr=jr)
    if all(not w[:1].isupper() for w in words):
        return Person(family=words[-1], given=" ".join(words[:-1]), jr=jr)
    given_words: list[str] = []
    index = 0
    while index < len(words) - 1 and not _is_lower_word(words[index]):
        given_words.append(words[index])
        index += 1
    von, family = _split_von(words[index:])
    if not von and len(given_words) >= 2 and given_words[-1] in _FAMILY_PREFIXES:
        family = f"{given_words.pop()} {family}"
    return Person(family=family, given=" ".join(given_words), von=von, jr=jr)


def _is_lower_word(word: str) -> bool:
    """A von word: lower case and a known particle ("van", "de", "della", "d'...").

    BibTeX takes every lower-case word for a von part; pasted lists are written
    carelessly ("lincan Cai"), so only known particles count here.
    """
    letter = next((c for c in word if c.isalpha()), "")
    return letter.islower() and (
        word in _NAME_PARTICLES or bool(re.match(r"[a-z]{1,2}['\u2019]", word))
    )


def _split_von(words: list[str]) -> tuple[str, str]:
    """Split ``von Family`` words: the von part runs to the last lower-case word before the end."""
    if not words:
        return "", ""
    last_lower = max((i for i, w in enumerate(words[:-1]) if _is_lower_word(w)), default=-1)
    return " ".join(words[: last_lower + 1]), " ".join(words[last_lower + 1 :])


_AUTHOR_SPLIT = re.compile(r"\s*(?:[;\u00b7\u2022\u2219|\u3001\uff0c]|,|\s&\s|\band\b)\s*")

_NAME_TOKEN = re.compile(
    r"^(?:[A-Z\u00c0-\u00de][\w'\u2019.\-]*|[A-Z]\.(?:-?[A-Z]\.)*|[a-z]{1,4}|"
    r"[^\W\d_][\w'\u2019.\-]*|\{[^{}]*\}[\w'.\-]*|\\\S+)$"
)

_AFFILIATION_MARKS = re.compile(
    r"[\d*\u2020\u2021\u00a7\u00b6#\u00b9\u00b2\u00b3\u2070-\u2079\u2709]+"
)


def _author_parts(text: str) -> list[str]:
    """Split an author line into name strings (see :func:`parse_authors`)."""
    previous = None
    while previous != text:  # nested: arXiv's "A (1), B (2) ((1) MIT, (2) ETH)"
        previous, text = text, re.sub(r"\([^()]*\)", " ", text)
    text = re.sub(r",?\s+et\.?\s*al\b\.?", ", et al.", text)
    pieces = [p for p in re.split(r"\s*;\s*|\s+and\s+", text) if p.strip()]
    if pieces and all(p.count(",") == 1 for p in pieces) and not _comma_list(pieces):
        pass  # "Family, Given; Family, Given" or BibTeX's "Family, Given and Family, Given"
    else:
        pieces = _AUTHOR_SPLIT.split(text)
    out = []
    for piece in pieces:
        piece = WHITESPACE.sub(" ", _AFFILIATION_MARKS.sub(" ", piece)).strip(" ,;")
        last = piece.rsplit(" ", 1)[-1]
        if piece.endswith(".") and len(last) > 3 and last.lower() not in _NAME_SUFFIXES:
            piece = piece[:-1]  # a sentence period, not an initial or "Jr."
        if piece:
            out.append(piece)
    return out


def _comma_list(pieces: list[str]) -> bool:
    """True when a single comma separates two full names ("Ana Pérez, Wei Zhang")."""
    if len(pieces) != 1:
        return False
    left, right = (side.split() for side in pieces[0].split(","))
    return len(left) != 1 or not 1 <= len(right) <= 3


def looks_like_authors(line: str) -> bool:
    """True when ``line`` reads as a list of personal names (not prose, not a title)."""
    text = strip_markup(line).strip()
    text = re.sub(r"^(?:by|authors?)\s*:?\s+", "", text, flags=re.I)
    if not text or len(text) > 2000 or re.search(r"[.!?]\s+[a-z]", text):
        return False
    if text.endswith(".") and not re.search(r"(?:\b[A-Z]|\bal)\.$", text):
        return False
    parts = _author_parts(text)
    if not parts:
        return False
    for part in parts:
        if re.fullmatch(r"et\.?\s*al\.?|others", part, re.I):
            continue
        tokens = part.split()
        if not 1 <= len(tokens) <= 6:
            return False
        if any(
            t.lower() in FUNCTION_WORDS - {"de", "van", "von", "da", "di", "le", "la"}
            for t in tokens
        ):
            return False
        if not all(_NAME_TOKEN.match(t.strip(",")) for t in tokens):
            return False
        upper = sum(1 for t in tokens if t[:1].isupper())
        if upper == 0:
            return False
        if len(parts) == 1 and len(tokens) == 1:
            return False
    return len(parts) >= 2 or 2 <= len(parts[0].split()) <= 4


def looks_like_author_list(line: str) -> bool:
    """True when ``line`` is surely a list of people: :func:`looks_like_authors`, with two
    or more names of two to five words each ("A. Name, B. Name and C. Name").

    Stricter than :func:`looks_like_authors`, which also takes "Deep Residual Learning"
    for one person: used where a line could be a title instead (a paragraph's first
    line, a paragraph of its own after a title).
    """
    if not looks_like_authors(line):
        return False
    text = re.sub(r"^(?:by|authors?)\s*:?\s+", "", strip_markup(line).strip(), flags=re.I)
    names = [p for p in _author_parts(text) if not re.fullmatch(r"et\.?\s*al\.?|others", p, re.I)]
    return len(names) >= 2 and all(2 <= len(name.split()) <= 5 for name in names)
