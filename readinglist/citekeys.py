"""Citation-key generation and uniqueness.

A generated key is ``familyname + year + first significant title word`` in lower-case
ASCII (``vaswani2017attention``), the convention of Google Scholar's BibTeX export and
Better BibTeX's default ``auth.lower + year + shorttitle(1)``. Without authors the short
name (``spar2026``) stands in, else the first significant title word. Keys are unique
case-insensitively; a newcomer whose key is taken gets ``a``, ``b``, ..., ``z``, ``aa``,
... appended (the BibDesk / Better BibTeX disambiguation scheme).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import count, product
from string import ascii_lowercase

from readinglist.records import PaperRecord
from readinglist.text import fold

#: Words skipped when picking the "first significant title word" (articles,
#: prepositions, conjunctions: Better BibTeX's default skip-word list).
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "across",
        "after",
        "against",
        "along",
        "among",
        "an",
        "and",
        "around",
        "as",
        "at",
        "before",
        "behind",
        "below",
        "beneath",
        "beside",
        "between",
        "beyond",
        "but",
        "by",
        "despite",
        "down",
        "during",
        "except",
        "for",
        "from",
        "in",
        "inside",
        "into",
        "like",
        "near",
        "nor",
        "of",
        "off",
        "on",
        "onto",
        "or",
        "out",
        "outside",
        "over",
        "past",
        "per",
        "since",
        "so",
        "than",
        "the",
        "through",
        "throughout",
        "to",
        "toward",
        "towards",
        "under",
        "underneath",
        "until",
        "up",
        "upon",
        "versus",
        "via",
        "vs",
        "with",
        "within",
        "without",
        "yet",
    ]
)
#: Words that open sentences of abstracts ("This paper ...", "We propose ...") and so
#: the titles made up from them: never the word of a generated key (issue 13).
FILLER_WORDS = frozenset(
    [
        "this",
        "these",
        "that",
        "those",
        "here",
        "there",
        "we",
        "our",
        "us",
        "it",
        "its",
        "they",
        "their",
        "you",
        "your",
        "i",
        "one",
        "use",
        "using",
        "used",
        "problem",
        "problems",
        "approach",
        "approaches",
        "method",
        "methods",
        "paper",
        "papers",
        "work",
        "works",
        "study",
        "studies",
        "recent",
        "recently",
        "propose",
        "proposed",
        "present",
        "presents",
        "show",
        "shows",
        "new",
        "novel",
        "many",
        "most",
        "some",
        "several",
        "such",
        "existing",
        "given",
        "how",
        "what",
        "when",
        "where",
        "which",
        "while",
        "whether",
        "why",
        "although",
        "however",
        "despite",
        "can",
        "may",
        "also",
        "first",
        "is",
        "are",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "do",
        "does",
        "there",
        "each",
        "both",
        "all",
        "any",
        "other",
        "another",
    ]
)
_NON_KEY = re.compile(r"[^a-z0-9]+")
#: A run of characters a citation key may not hold, the one rule of what a key holds.
#: BibTeX ends a key at white space and ``,`` and its ``.bst`` functions refuse
#: ``" # % ' ( ) = { }`` (``bibtex.web``, ``legal_id_char``). BibTeX and biber copy the
#: key verbatim into the ``.bbl`` (``\bibitem{key}``, ``\entry{key}``) and LaTeX into
#: the ``.aux`` (``\bibcite{key}``), which TeX reads with LaTeX's category codes (The
#: TeXbook, chapters 7 and 8), so none of TeX's special characters either: ``\``
#: (escape), ``{ }`` (group), ``$`` (math), ``&`` (alignment), ``#`` (parameter), ``^``
#: (superscript: ``^^5c`` is read as ``\`` and ``^^7d`` as ``}``, so ``k^^7d^^5cinput``
#: runs ``\input``), ``%`` (comment), ``~`` (active); no control characters (C0, DEL,
#: C1: invalid, ignored or line ends in TeX). ``_``, ``:``, ``-``, ``.``, ``/``, ``+``,
#: ``@`` and non-ASCII letters stay (TeX reads them as themselves inside the key).
#: :data:`BAD_KEY_RUN` in words, for the messages refusing a key.
KEY_RULE = (
    "no spaces, commas, quotes, parentheses, '=', control characters, "
    "nor TeX's special characters \\ { } $ & # ^ % ~"
)
BAD_KEY_RUN = re.compile(r'[\s,{}()"#%~\\\'=^$&\x00-\x1f\x7f-\x9f]+')


def ascii_word(value: str) -> str:
    """Return ``value`` folded to lower-case ASCII letters and digits only."""
    return _NON_KEY.sub("", fold(value))


def _title_words(title: str) -> Iterator[tuple[str, str]]:
    """``(word as written, lower-case ASCII form)`` of each word of ``title``."""
    for word in fold(title).split():
        yield word, _NON_KEY.sub("", word)


def _key_word(clean: str) -> bool:
    r"""True for a title word a key may take: a letter first and at least two characters
    (``2017``, ``#1``, ``R``, ``$\ell_1$`` are not: a key built from them, ``r2017r``,
    names nothing, and Better BibTeX's ``shorttitle`` skips them too)."""
    return len(clean) > 1 and clean[0].isalpha() and clean.isascii()


def first_significant_word(title: str, skip: frozenset[str] = frozenset()) -> str:
    """Return the first title word that is not a stop word (nor in ``skip``) and may
    make a key (:func:`_key_word`), as lower-case ASCII ('' if none)."""
    for word, clean in _title_words(title):
        if word[:1].isalpha() and _key_word(clean) and clean not in STOP_WORDS | skip:
            return clean
    return ""


def skipped_title_words(title: str) -> list[str]:
    """The leading words of ``title`` a key skipped for not starting with a letter or
    being one character (``2017``, ``#1``, ``R``), as written; stop words are not
    counted (:func:`first_significant_word`); lower case, accents folded."""
    skipped = []
    for word, clean in _title_words(title):
        if word[:1].isalpha() and _key_word(clean) and clean not in STOP_WORDS:
            break
        if clean and clean not in STOP_WORDS:
            skipped.append(word)
    return skipped


def key_fallback(record: PaperRecord) -> str | None:
    """Why the key :func:`base_key` makes for ``record`` does not take the title's first
    word, said in the import's warning: leading title words skipped
    (:func:`skipped_title_words`); None when nothing was skipped."""
    skipped = skipped_title_words(record.title or "")
    if not skipped:
        return None
    return (
        f"leading title word(s) {' '.join(skipped)!r} skipped (a key takes a word of "
        "two or more characters, a letter first)"
    )


#: The longest name or word a generated key takes from a record: a family name or title
#: word of thousands of letters would otherwise make a key past the 255-character limit,
#: which the next import of an export rejects (issue 18's fuzz test).
KEY_PART = 60


def base_key(record: PaperRecord) -> str:
    """Return the key ``record`` would get before disambiguation (never empty, each part
    at most :data:`KEY_PART` characters).

    Authors known: ``family + year + word`` (a corporate author's whole name as the
    family); else ``short name + year``; else ``word + year``, where the word is never
    one of :data:`FILLER_WORDS` ("this", "we", "problem": the words a title made up
    from an abstract starts with); ``paper`` when nothing usable is left. The word is
    the first title word that starts with a letter (:func:`first_significant_word`).
    """
    year = str(record.year) if record.year else ""
    word = first_significant_word(record.title or "")[:KEY_PART]
    people = [p for p in (record.authors or record.editors) if not p.is_others]
    if people:
        first = people[0]
        # A corporate name ({Statistics Netherlands}) is taken whole, as Better BibTeX
        # does: its first word alone ("statistics") names no one.
        name = ascii_word(first.family or first.literal)
        if name:
            return f"{name[:KEY_PART]}{year}{word}"
    if record.short_name:
        name = ascii_word(record.short_name)
        if name:
            return f"{name[:KEY_PART]}{year}"
    word = first_significant_word(record.title or "", FILLER_WORDS)[:KEY_PART] or word
    if word:
        return f"{word}{year}"
    return f"paper{year}"


def is_provisional_key(record: PaperRecord) -> bool:
    """True when a key generated for ``record`` is provisional: the record has a made-up
    title or no author and no editor, so a later source with real data will bring a
    better key (issue 13)."""
    return record.title_provisional or not any(
        not p.is_others for p in (*record.authors, *record.editors)
    )


def looks_like_option(key: str) -> bool:
    """True for a key a shell command would take for an option (``-q``, ``--yes``):
    one starting with ``-`` (issue 18)."""
    return key.startswith("-")


def suffixes() -> Iterator[str]:
    """Yield ``a`` .. ``z``, ``aa`` .. ``zz``, ``aaa`` ... in order."""
    for length in count(1):
        for letters in product(ascii_lowercase, repeat=length):
            yield "".join(letters)


def unique_key(base: str, taken: Callable[[str], bool]) -> str:
    """Return ``base`` or the first ``base + suffix`` for which ``taken(key.lower())`` is false."""
    if not taken(base.lower()):
        return base
    for suffix in suffixes():
        candidate = f"{base}{suffix}"
        if not taken(candidate.lower()):
            return candidate
    raise AssertionError("unreachable")  # pragma: no cover


def is_valid_key(key: str) -> bool:
    """True when ``key`` may be a citation key: non-empty, at most 250 characters, not
    starting with ``-`` (:func:`looks_like_option`) and free of the characters of
    :data:`BAD_KEY_RUN` (which BibTeX/biber reject, or which TeX would read as markup
    when the key is copied into a ``.bbl`` or ``.aux`` file)."""
    return bool(key) and is_inert_key(key) and len(key) <= 250 and not looks_like_option(key)


def is_inert_key(key: str) -> bool:
    """True when ``key`` holds none of the characters of :data:`BAD_KEY_RUN`: TeX reads
    it as itself wherever BibTeX, biber or LaTeX copy it."""
    return not BAD_KEY_RUN.search(key)


def inert_key(key: str) -> str:
    """``key`` with each run of :data:`BAD_KEY_RUN` characters replaced by ``-``: what a
    BibTeX export writes for a key that breaks the rule (a library made before the rule
    held such keys); a valid key is returned unchanged."""
    return BAD_KEY_RUN.sub("-", key)
