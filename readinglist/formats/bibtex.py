"""BibTeX and biblatex: read ``.bib`` text into :class:`PaperRecord` values and write them back.

Reading
=======
:func:`read` splits the text with bibtexparser 2.x (``parse_string`` with an empty
parse stack, i.e. its ``Splitter`` only) and does everything after the split here,
because the library falls short for this job in five places:

* ``ResolveStringReferencesMiddleware`` resolves a value only when the whole value is
  one macro; it does not evaluate ``#`` concatenation (``jan # "~10"``), nor use the
  macros in the order they are defined. :func:`_evaluate` evaluates a value as BibTeX
  does ("Tame the BeaST", section 2.2): quoted or braced pieces, numbers and macro
  names joined by ``#``, with ``@string`` definitions applied in file order and the
  month macros ``jan`` .. ``dec`` predefined (as every standard ``.bst`` does).
* A key used twice, and every second, third ... entry without a key (``@article{,``
  as Mendeley writes them), become ``DuplicateBlockKeyBlock`` failures. We take the
  entry back out of the failed block (``ignore_error_block``) and keep it; repeated
  non-empty keys (compared case-insensitively, as BibTeX does) give a warning naming
  both lines.
* An entry with a repeated field becomes a ``DuplicateFieldKeyBlock``; we keep the
  entry with the *first* value of each field (what BibTeX itself does) and warn.
* Its splitter takes a brace after a backslash as escaped, so a value ending in the
  line break ``\\\\`` (some ACL Anthology abstracts) does not end at its brace and
  the entry is lost. BibTeX has no such escape; even runs of backslashes before a
  brace are hidden from the splitter (see ``_HIDDEN``) and put back afterwards.
* bibtexparser logs every failed block on the ``bibtexparser`` logger; we attach a
  ``NullHandler`` so nothing reaches stderr unasked, and report the failures as
  :class:`ParseProblem` values (``file:line``) instead.

Name lists are split with bibtexparser's ``split_multiple_persons_names`` and
``parse_single_name_into_parts`` (non-strict), which implement the BibTeX rules of
``bibtex.web`` (First von Last / von Last, First / von Last, Jr, First); a name that
is one brace group (``{{European Space Agency}}`` in the file) is a corporate name
(``Person(literal=...)``) and ``and others`` gives ``Person(literal="others")``.
LaTeX in titles, names, venues and keywords is decoded to Unicode, white space
collapsed. Plain text is returned as it is. pylatexenc (through
:func:`readinglist.text.latex_to_unicode`) costs about 2 ms per value, so the LaTeX
bibliographies mostly use -- case-protecting braces, accents (``{\\"o}``,
``\\'{e}``, ``\\c{c}``), letters (``{\\ss}``, ``{\\aa}``), ``\\&``, ``~``, font
commands and commands pylatexenc does not know (``\\geoname{Ecuador}`` -> ``Ecuador``)
-- is decoded by :func:`_fast_decode`, which gives the same text as pylatexenc (a
test checks it on samples; on the 12,000 LaTeX values of the test bibliographies
the two differ only where pylatexenc drops the argument of ``\\texttt``). Other
LaTeX (math, unknown symbols) goes to pylatexenc, after mapping
``\\textbraceleft{}``, ``\\textbraceright{}`` and ``\\textasciicircum{}`` (which
pylatexenc 2.11 decodes to nothing or to U+02C6) and escaping a bare ``&`` (which it
reads as an alignment tab). Both results are cached per value.

The ``fields`` contract
-----------------------
``PaperRecord.fields`` maps every lower-case field name to its value *after* macro
and ``#`` resolution, with the outer delimiters removed and nothing else changed,
except for the fields decoded into a column:

=====================  =================================  =====================================
column                 source field(s)                    raw value also kept in ``fields``
=====================  =================================  =====================================
title                  ``title``                          when it differs from the decoded title
authors, editors       ``author``, ``editor``             when it differs from ``" and "``-joined
                                                          :meth:`Person.display` forms
year                   ``year`` (else biblatex ``date``)  when it differs from ``str(year)``
month                  ``month`` (else ``date``)          unless it is one month name, abbreviation
                                                          or number (``jan``, ``{June}``, ``6``)
venue                  ``journal``/``booktitle``/         always (it says which field it was)
                       ``journaltitle``
abstract               ``abstract``                       never (the column holds the raw value)
doi                    ``doi``                            when it differs from the normalized DOI
arxiv                  ``eprint`` (arXiv), ``arxiv``,     when it differs from the id, or the
                       ``arxivid``                        field is not ``eprint``
url                    ``url``                            when it differs from the stripped value
keywords               ``keywords``                       when it differs from ``", "``-joined
=====================  =================================  =====================================

A source field whose value cannot be decoded (``year = {in press}``, ``month =
{Summer}``) leaves the column ``None`` and is kept as it is. ``date``,
``archiveprefix`` and ``eprinttype`` are always kept. ``ParseResult.meta`` holds
``"strings"`` (the ``@string`` blocks as written, one per macro, last definition
wins, in order of first definition) and ``"preamble"`` (the ``@preamble`` blocks as
written), when the text has them.

Writing
=======
:func:`write` emits an entry whose bibliographic data is unchanged since it was read
byte for byte as its ``source_text``. "Unchanged" is decided here, by re-deriving:
``source_text`` is read again (with the macros given in ``strings``) and its
:func:`bibliographic_fingerprint` compared with the record's (this costs about as
much as reading the entry: 0.3 to 1 ms). The fingerprint covers the citation key, entry type, every bibliographic
column and ``fields``; read status, priority, tags, notes, dates and provenance are
not bibliographic data. Because the check re-reads, an entry that uses a macro is
only copied when ``strings`` defines it; otherwise it is regenerated with the
resolved values, so the output never refers to an undefined macro; the same holds
for an entry that used an earlier definition of a macro the file defines again
later (``strings`` keeps the last one). The ``@string`` definitions that copied
entries use (and those they use in turn) are written at the top, in the order of
``strings``.

Every other entry is generated deterministically:

* fields in :data:`FIELD_ORDER`, then the remaining fields alphabetically, lower-case
  names, two-space indent, ``name = {value}``, no comma after the last field;
* ``month = jan`` as a bare macro; pages ``1--2``;
* a column still equal to the decoded raw value in ``fields`` is written as that raw
  value (so ``{B}ayesian`` or ``Schr{\\"o}dinger`` survive; a title that had no LaTeX
  is taken from the re-read ``source_text``), except the DOI, which is always
  written normalized; otherwise a column is encoded:
  ``\\ { } $ & % # _ ~ ^`` and the TeX ligatures ``--``, ````` `` `````, ``''``, ``?```,
  ``!``` are escaped so that the text decodes back to the same column value, and in a
  title each capital that BibTeX's ``change.case$`` would lower-case is protected word
  by word (``{B}ayesian``, ``{GPU}``), never the whole title;
* in every other field except verbatim ones (:data:`VERBATIM_FIELDS`, names ending in
  ``url``, and values that are a bare URL) a bare ``& % $ # _`` outside ``$...$`` math
  and ``\\url``/``\\path``/``\\href`` arguments is escaped; ``\\%`` and ``$\\to$`` stay;
* ``dialect="bibtex"`` writes ASCII: non-ASCII characters become LaTeX (pylatexenc's
  ``UnicodeToLatexEncoder`` in the ``{\\"o}`` form BibTeX treats as one special
  character); a character pylatexenc cannot encode so that it decodes back is kept
  as UTF-8. ``journaltitle`` is written as ``journal``; arXiv ids get
  ``archiveprefix = {arXiv}``.
* ``dialect="biblatex"`` writes UTF-8, ``journaltitle`` for ``journal``, ``date``
  (``2016`` or ``2016-06``, or the raw ``date`` if it still matches) instead of
  ``year``/``month`` (a raw month such as ``{20--22 Jun}`` is dropped, biber would
  reject it; one that never decoded, ``{Summer}``, is kept) and
  ``eprinttype = {arxiv}``.

Copied entries are never re-encoded, whichever the dialect: they are the user's own
bytes. Records are ordered by citation key (case-insensitively, records without a
key last, ties in input order).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import Any, Literal

from bibtexparser.entrypoint import parse_string
from bibtexparser.middlewares.names import (
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ParsingFailedBlock,
    Preamble,
    String,
)

from readinglist.identifiers import normalize_arxiv, normalize_doi
from readinglist.records import PaperRecord, ParseProblem, ParseResult, Person
from readinglist.text import (
    CACHE_SIZE,
    LATEX_LETTERS,
    accented_letter,
    join_latex_segments,
    latex_to_unicode,
)

__all__ = [
    "FIELD_ORDER",
    "VERBATIM_FIELDS",
    "Dialect",
    "bibliographic_data",
    "bibliographic_fingerprint",
    "iter_read",
    "normalize_arxiv",
    "normalize_doi",
    "read",
    "read_aux",
    "valid_citekey",
    "write",
]

# Failed blocks are reported as ParseProblem values; keep bibtexparser's own log
# records from reaching stderr through logging's last-resort handler.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

Dialect = Literal["bibtex", "biblatex"]

#: Order of the fields in a generated entry; other fields follow alphabetically.
FIELD_ORDER: tuple[str, ...] = (
    "author",
    "title",
    "editor",
    "booktitle",
    "journal",
    "journaltitle",
    "year",
    "date",
    "month",
    "volume",
    "number",
    "pages",
    "publisher",
    "address",
    "doi",
    "eprint",
    "archiveprefix",
    "eprinttype",
    "primaryclass",
    "url",
)
_ORDER_INDEX = {name: i for i, name in enumerate(FIELD_ORDER)}

#: Fields written without any escaping (biblatex's verbatim fields and ``pdf``).
VERBATIM_FIELDS: frozenset[str] = frozenset(
    {"url", "doi", "eprint", "file", "pdf", "urlraw", "verba", "verbb", "verbc"}
)

#: A bare word where a field value or a ``#`` piece begins: a possible macro use.
_MACRO_USE = re.compile(r'[=#][ \t\r\n]*([^\s"{}#,=()0-9][^\s"{}#,=()]*)')


#: A bare word that begins a ``@preamble`` value or follows ``#`` in it.
_PREAMBLE_MACRO_USE = re.compile(
    r'(?:@preamble[ \t\r\n]*[{(]|#)[ \t\r\n]*([^\s"{}#,=()0-9][^\s"{}#,=()]*)', re.IGNORECASE
)


def macro_names(source_text: str) -> tuple[str, ...]:
    """Return the lower-case names ``source_text`` may use as ``@string`` macros, sorted.

    Every bare word that begins a field value or follows ``#`` (BibTeX's only macro
    positions, "BibTeXing" section 4) outside nothing: a word after ``=`` or ``#``
    inside a braced or quoted value is listed too. A superset, so a comparison of
    the values of these names (:func:`macro_values`) never misses a macro in use.
    Month names are included like any other.
    """
    return tuple(sorted({name.lower() for name in _MACRO_USE.findall(source_text)}))


def source_check(record: PaperRecord, macros: Mapping[str, str]) -> str | None:
    """Return the digest that tells whether ``record.source_text`` can be copied as is.

    64 hex characters: 32 of SHA-256 over :func:`bibliographic_fingerprint`
    ``(record)`` (the data), then 32 of SHA-256 over the value in ``macros``
    (lower-case name -> value, months included; None when undefined) of each of
    :func:`macro_names` ``(record.source_text)`` (what the text's macros mean). The
    reader stores it on each record it reads (``PaperRecord.source_check``);
    :class:`Writer` computes it again with the export's macros: equal halves mean the
    data is what the text reads to and every macro the text may use means what it
    meant then, so the text is written without being parsed again; an equal first
    half alone means the data is as read, so the entry is regenerated from the
    record without parsing the text either. None without ``source_text``.
    """
    if record.source_text is None:
        return None
    values = [(name, macros.get(name)) for name in macro_names(record.source_text)]
    blob = json.dumps(values, ensure_ascii=False)
    meaning = hashlib.sha256(blob.encode("utf-8")).hexdigest()
    return bibliographic_fingerprint(record)[:32] + meaning[:32]


#: BibTeX's month macros as plain.bst defines them (``MACRO {jan} {"January"}``).
_MONTH_MACROS: dict[str, str] = {
    "jan": "January",
    "feb": "February",
    "mar": "March",
    "apr": "April",
    "may": "May",
    "jun": "June",
    "jul": "July",
    "aug": "August",
    "sep": "September",
    "oct": "October",
    "nov": "November",
    "dec": "December",
}
_MONTH_ABBREV = tuple(_MONTH_MACROS)
_MONTH_WORDS: dict[str, int] = {}
for _i, (_abbr, _full) in enumerate(_MONTH_MACROS.items(), start=1):
    _MONTH_WORDS[_abbr] = _i
    _MONTH_WORDS[_full.lower()] = _i
_MONTH_WORDS["sept"] = 9

_ARTICLE_TYPES = frozenset({"article", "periodical", "suppperiodical"})
_VENUE_FIELDS_ARTICLE = ("journal", "journaltitle", "booktitle")
_VENUE_FIELDS_OTHER = ("booktitle", "journal", "journaltitle")
_ARXIV_SOURCES = ("eprint", "arxiv", "arxivid")
_ARXIV_PREFIX_FIELDS = ("archiveprefix", "eprinttype")

#: A line that starts a block: the boundaries bibtexparser's splitter always honours.
_BLOCK_START_LINE = re.compile(r"\n[^\S\n]*@\w*[ \t]*[{(]")
_BATCH_CHARS = 1 << 20

_WS = re.compile(r"[ \t\r\n]+")
_LATEX_SPECIAL = re.compile(r"[\\{}$~]")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_ISO_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{2}))?")
_WORDS = re.compile(r"[A-Za-z]+")
_BARE_URL = re.compile(r"^\s*(?:https?|ftp)://\S+\s*$")


# ---------------------------------------------------------------------------
# Value evaluation: macros and # concatenation
# ---------------------------------------------------------------------------


class _ValueError(Exception):
    """A field value that is not a valid BibTeX expression."""


_BRACE_TOKEN = re.compile(r"\\.|[{}]", re.DOTALL)
_QUOTE_TOKEN = re.compile(r'\\.|[{}"]', re.DOTALL)


def _matching_brace(text: str, start: int) -> int:
    """Index of the ``}`` closing the ``{`` at ``start`` (backslash-escaped braces skipped,
    the splitter's convention). Raises _ValueError when unbalanced."""
    depth = 0
    for match in _BRACE_TOKEN.finditer(text, start):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                return match.start()
    raise _ValueError("unbalanced braces")


def _closing_quote(text: str, start: int) -> int:
    """Index of the ``"`` closing the quoted piece opened at ``start`` (quotes in braces skipped)."""
    depth = 0
    for match in _QUOTE_TOKEN.finditer(text, start + 1):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif token == '"' and depth == 0:
            return match.start()
    raise _ValueError("unterminated quoted string")


def _evaluate(expr: str, macros: Mapping[str, str]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Evaluate a field value as BibTeX does.

    Args:
        expr: the value as split from the file (``{...}``, ``"..."``, ``2016``,
            ``jan``, ``j-FOO # " (2nd ed.)"``), surrounding white space allowed.
        macros: lower-case macro name -> value.

    Returns:
        ``(value, used, undefined)``: the text with outer delimiters removed and
        pieces joined; the lower-case macro names used; the macro names not defined
        (their name is kept as the value, where BibTeX would put nothing).

    Raises:
        _ValueError: for an unbalanced or unterminated piece.
    """
    expr = expr.strip()
    if not expr:
        return "", (), ()
    first = expr[0]
    if "#" not in expr:
        # One piece: by far the most common case.
        if first == "{" and expr[-1] == "}":
            inner = expr[1:-1]
            if ("{" not in inner and "}" not in inner and not inner.endswith("\\")) or (
                _matching_brace(expr, 0) == len(expr) - 1
            ):
                return expr[1:-1], (), ()
        elif first == '"' and expr[-1] == '"' and len(expr) > 1:
            inner = expr[1:-1]
            if ('"' not in inner and "{" not in inner and "}" not in inner) or (
                _closing_quote(expr, 0) == len(expr) - 1
            ):
                return expr[1:-1], (), ()
        elif expr.isdigit():
            return expr, (), ()
    pieces: list[str] = []
    used: list[str] = []
    undefined: list[str] = []
    i = 0
    n = len(expr)
    while True:
        while i < n and expr[i].isspace():
            i += 1
        if i >= n:
            raise _ValueError("missing value after '#'")
        ch = expr[i]
        if ch == "{":
            j = _matching_brace(expr, i)
            pieces.append(expr[i + 1 : j])
            i = j + 1
        elif ch == '"':
            j = _closing_quote(expr, i)
            pieces.append(expr[i + 1 : j])
            i = j + 1
        else:
            j = i
            while j < n and not expr[j].isspace() and expr[j] not in '#{}"':
                j += 1
            token = expr[i:j]
            if not token:
                raise _ValueError(f"unexpected {ch!r}")
            if token.isdigit():
                pieces.append(token)
            else:
                name = token.lower()
                if name in macros:
                    pieces.append(macros[name])
                    used.append(name)
                else:
                    pieces.append(token)
                    undefined.append(token)
            i = j
        while i < n and expr[i].isspace():
            i += 1
        if i >= n:
            break
        if expr[i] != "#":
            raise _ValueError(f"expected '#' or the end of the value, found {expr[i]!r}")
        i += 1
    return "".join(pieces), tuple(used), tuple(undefined)


# ---------------------------------------------------------------------------
# Decoding raw values into columns
# ---------------------------------------------------------------------------

_PYLATEXENC_GAPS = (
    ("\\textbraceleft{}", "\\{"),
    ("\\textbraceright{}", "\\}"),
    ("\\textasciicircum{}", "^"),
)


_ESCAPED = {"&": "&", "%": "%", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}"}
_FAST_TOKEN = re.compile(
    r"""\\(?:
        (?P<sym>[`'^"~=.])\s*(?:\{(?P<a1>\\?[A-Za-z])\}|(?P<a2>\\?[A-Za-z]))
      | (?P<cmd>[cvuHkrdb])(?:\{(?P<b1>\\?[A-Za-z])\}|\s+(?P<b2>[A-Za-z]))
      | (?P<letter>ss|aa|AA|ae|AE|oe|OE|[oOlLij])(?![A-Za-z])(?:\{\}|(?![ \t\r\n]*\n\n)[ \t\r\n]*)
      | (?P<esc>[&%$#_{}])
      | (?P<macro>[A-Za-z]+)(?=\{)
    )""",
    re.VERBOSE,
)
_FAST_SPECIAL = re.compile(r"[{}\\$~]")


#: Font commands whose argument pylatexenc prints as it is.
_FONT_COMMANDS = frozenset(
    {"emph", "textit", "textbf", "textsc", "texttt", "textrm", "textsf", "textsl", "textup"}
)


@lru_cache(maxsize=1_000)
def _drops_to_argument(name: str) -> bool:
    """True if pylatexenc decodes ``\\name{x}`` as ``x``: a font command, or a command
    it does not know (it drops those and keeps the group that follows)."""
    if name in _FONT_COMMANDS:
        return True
    from pylatexenc.latex2text import get_default_latex_context_db as text_db
    from pylatexenc.latexwalker import get_default_latex_context_db as walker_db

    return text_db().get_macro_spec(name) is None and walker_db().get_macro_spec(name) is None


def _fast_decode(text: str) -> str | None:
    """Decode the common LaTeX of bibliographies without pylatexenc, or return None.

    Handles case-protecting braces, accent commands (``\\'e``, ``{\\"o}``,
    ``\\c{c}``, ``\\"{\\i}``), letter commands (``\\ss``, ``{\\aa}``, ``\\o``),
    escaped specials (``\\&``), ``~``, font commands (``\\emph{x}``) and commands
    pylatexenc does not know (``\\geoname{x}`` is ``x``), giving what ``latex_to_unicode`` gives
    (checked on the project's test bibliographies), and TeX's input ligatures
    (``--``, ``````, ``''``) within one brace group as pylatexenc does. Anything
    else (other commands, math) returns None. pylatexenc costs about 2 ms per
    value; this costs microseconds.
    """
    segments: list[str] = []
    current: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        special = _FAST_SPECIAL.search(text, i)
        if special is None:
            current.append(text[i:])
            break
        if special.start() > i:
            current.append(text[i : special.start()])
        i = special.start()
        ch = text[i]
        if ch == "{" or ch == "}":
            segments.append("".join(current))
            current = []
            i += 1
        elif ch == "\\":
            match = _FAST_TOKEN.match(text, i)
            if match is None:
                return None
            segments.append("".join(current))
            current = []
            if match.group("macro"):
                if not _drops_to_argument(match.group("macro")):
                    return None
                i = match.end()
                continue
            if match.group("esc"):
                out = _ESCAPED[match.group("esc")]
            elif match.group("letter"):
                out = LATEX_LETTERS[match.group("letter")]
            else:
                accented = accented_letter(match)
                if accented is None:
                    return None
                out = accented
            segments.append("\x00" + out)  # marks text that takes no part in ligatures
            i = match.end()
        elif ch == "$":
            return None
        else:  # "~"
            current.append("\u00a0")
            i += 1
    segments.append("".join(current))
    return join_latex_segments(segments)


_BARE_AMPERSAND = re.compile(r"(?<!\\)&")


@lru_cache(maxsize=CACHE_SIZE)
def _decode_text(raw: str) -> str:
    """LaTeX -> Unicode with runs of ASCII white space collapsed; plain text skips all decoding.

    A bare ``&`` is taken as the character (pylatexenc would read an alignment tab).
    """
    text = raw
    if _LATEX_SPECIAL.search(text):
        if "\\text" in text:
            for latex, simpler in _PYLATEXENC_GAPS:
                text = text.replace(latex, simpler)
        fast = _fast_decode(text)
        if fast is not None:
            text = fast
        else:
            if "&" in text:
                text = _BARE_AMPERSAND.sub(r"\\&", text)
            text = latex_to_unicode(text)
    return _WS.sub(" ", text).strip()


def _decode_title(raw: str) -> str | None:
    return _decode_text(raw) or None


def _is_single_group(name: str) -> bool:
    """True if ``name`` is one brace group ``{...}`` (not a ``{\\...}`` special character)."""
    if len(name) < 2 or name[0] != "{" or name[-1] != "}" or name.startswith("{\\"):
        return False
    try:
        return _matching_brace(name, 0) == len(name) - 1
    except _ValueError:
        return False


@lru_cache(maxsize=CACHE_SIZE)
def _parse_person(name: str) -> Person:
    name = _WS.sub(" ", name).strip()
    if name.lower() == "others":
        return Person(literal="others")
    if _is_single_group(name):
        return Person(literal=_decode_text(name[1:-1]))
    parts = parse_single_name_into_parts(name, strict=False)
    return Person(
        family=_decode_text(" ".join(parts.last)),
        given=_decode_text(" ".join(parts.first)),
        von=_decode_text(" ".join(parts.von)),
        jr=_decode_text(" ".join(parts.jr)),
    )


@lru_cache(maxsize=CACHE_SIZE)
def _parse_names(raw: str) -> tuple[Person, ...]:
    """Split a BibTeX name list (``A and B and others``) into decoded people."""
    return tuple(_parse_person(name) for name in split_multiple_persons_names(raw) if name.strip())


def _names_display(people: Sequence[Person]) -> str:
    return " and ".join(p.display() for p in people)


def _decode_year(raw: str) -> int | None:
    match = _YEAR.search(raw)
    return int(match.group(1)) if match else None


def _decode_month(raw: str) -> int | None:
    """Month 1..12 from ``January``, ``jan``, ``6``, ``{20--22 Jun}`` (first month word wins)."""
    text = raw.strip().strip("{}").strip().rstrip(".")
    if text.isdigit():
        number = int(text)
        return number if 1 <= number <= 12 else None
    for word in _WORDS.findall(raw):
        month = _MONTH_WORDS.get(word.lower())
        if month is not None:
            return month
    return None


def _month_is_simple(raw: str) -> bool:
    """True when the raw month is exactly one month name, abbreviation or number."""
    text = raw.strip().strip("{}").strip().rstrip(".").lower()
    if text.isdigit():
        return 1 <= int(text) <= 12 and str(int(text)) == text
    return text in _MONTH_WORDS


def _decode_date(raw: str) -> tuple[int | None, int | None]:
    """Year and month of a biblatex ``date`` (ISO 8601 ``YYYY[-MM[-DD]]``, ranges allowed)."""
    match = _ISO_DATE.match(raw)
    if not match:
        return None, None
    month = int(match.group(2)) if match.group(2) else None
    return int(match.group(1)), month if month and 1 <= month <= 12 else None


def _decode_keywords(raw: str) -> tuple[str, ...]:
    return tuple(k for k in (part.strip() for part in re.split(r"[,;]", _decode_text(raw))) if k)


def _decode_url(raw: str) -> str | None:
    return raw.strip() or None


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


@dataclass
class _Parsed:
    """One read entry and the macros its fields used."""

    record: PaperRecord
    used_macros: frozenset[str]


class _Reader:
    """State carried across the batches of one input: macros, preambles, keys seen."""

    def __init__(
        self, source: str, macros: Mapping[str, str] | None = None, *, checks: bool = True
    ) -> None:
        self.source = source
        self.checks = checks  # compute PaperRecord.source_check (not when re-reading)
        self.macros: dict[str, str] = dict(_MONTH_MACROS)
        if macros:
            self.macros.update(macros)
        self.string_raw: dict[str, str] = {}
        self.string_deps: dict[str, frozenset[str]] = {}
        self.preambles: list[str] = []
        self.seen_keys: dict[str, int] = {}
        self.undefined_reported: set[str] = set()
        self._hidden = False

    def meta(self) -> dict[str, str]:
        meta: dict[str, str] = {}
        if self.string_raw:
            meta["strings"] = "\n".join(self.string_raw.values())
        if self.preambles:
            meta["preamble"] = "\n".join(self.preambles)
        return meta

    def feed(
        self, text: str, line_offset: int, final: bool = True
    ) -> Iterator[_Parsed | ParseProblem]:
        """Read the blocks of ``text``, whose first line is line ``line_offset + 1``;
        ``final`` is False when more text follows (a block cut off at the end of
        ``text`` was cut by the next block start)."""
        self._hidden = False
        if "\\\\" in text and _HIDDEN not in text and _ESCAPED_BACKSLASHES.search(text):
            text = _ESCAPED_BACKSLASHES.sub(_hide_backslashes, text)
            self._hidden = True
        library = parse_string(text, parse_stack=[])
        for block in library.blocks:
            line = line_offset + (block.start_line or 0) + 1
            if isinstance(block, (DuplicateBlockKeyBlock, DuplicateFieldKeyBlock)):
                inner = block.ignore_error_block
                if isinstance(inner, String):
                    self._string(inner, line)
                elif isinstance(inner, Entry):
                    yield from self._entry(inner, line, line_offset)
                continue
            if isinstance(block, ParsingFailedBlock):
                yield self._failed(block, line, final)
            elif isinstance(block, Entry):
                yield from self._entry(block, line, line_offset)
            elif isinstance(block, String):
                self._string(block, line)
            elif isinstance(block, Preamble):
                self.preambles.append(self._restore(block.raw or ""))

    def _restore(self, text: str) -> str:
        return text.replace(_HIDDEN, "\\") if self._hidden else text

    def _failed(self, block: ParsingFailedBlock, line: int, final: bool) -> ParseProblem:
        raw = self._restore(block.raw or "")
        head = re.match(r"@(\w*)\s*[{(]\s*([^,\s]*)", raw)
        if head is None:
            what = "block"
        elif head.group(1).lower() in ("comment", "preamble", "string"):
            what = f"@{head.group(1).lower()} block"
        else:
            what = f"@{head.group(1).lower()} entry"
            if head.group(2):
                what += f" {head.group(2)!r}"
        reason = (getattr(block.error, "abort_reason", None) or str(block.error)).strip()
        # The splitter's wording depends on where a batch ends; say what happened instead.
        if reason.startswith("Unexpected block start") or (
            reason.startswith("Unexpectedly reached end of file") and not final
        ):
            reason = "not closed before the next entry starts"
        elif reason.startswith("Unexpectedly reached end of file"):
            reason = "not closed before the end of the text"
        return ParseProblem(f"malformed {what}: {reason}; skipped", self.source, line)

    def _string(self, block: String, line: int) -> None:
        name = self._restore(block.key).strip().lower()
        try:
            value, used, _undefined = _evaluate(self._restore(block.value), self.macros)
        except _ValueError:
            value, used = self._restore(block.value), ()
        self.macros[name] = value
        # The latest definition wins; a dict keeps the position of the first one.
        self.string_raw[name] = self._restore(block.raw or "")
        self.string_deps[name] = frozenset(used)

    def _entry(self, entry: Entry, line: int, line_offset: int) -> Iterator[_Parsed | ParseProblem]:
        key = self._restore(entry.key).strip()
        if key:
            folded = key.casefold()
            first_line = self.seen_keys.get(folded)
            if first_line is not None:
                yield ParseProblem(
                    f"citation key {key!r} is used twice (lines {first_line} and {line}); "
                    "both entries were read",
                    self.source,
                    line,
                    "warning",
                )
            else:
                self.seen_keys[folded] = line
        values: dict[str, str] = {}
        field_lines: dict[str, int] = {}
        used: set[str] = set()
        for fld in entry.fields:
            name = fld.key.strip().lower()
            fline = line_offset + (fld.start_line or 0) + 1
            if name in values:
                yield ParseProblem(
                    f"entry {key or '(no key)'!r} has field {name!r} twice "
                    f"(lines {field_lines[name]} and {fline}); kept the first value",
                    self.source,
                    fline,
                    "warning",
                )
                continue
            raw_value = self._restore(str(fld.value))
            try:
                value, used_here, undefined = _evaluate(raw_value, self.macros)
            except _ValueError as err:
                yield ParseProblem(
                    f"entry {key or '(no key)'!r}, field {name!r}: {err}; kept the value as written",
                    self.source,
                    fline,
                    "warning",
                )
                value, used_here, undefined = raw_value, (), ()
            for macro in undefined:
                if macro.lower() in self.undefined_reported:
                    continue
                self.undefined_reported.add(macro.lower())
                yield ParseProblem(
                    f"undefined @string macro {macro!r} in field {name!r} of entry "
                    f"{key or '(no key)'!r}; its name is kept as the value "
                    "(reported at its first use only)",
                    self.source,
                    fline,
                    "warning",
                )
            used.update(used_here)
            values[name] = value
            field_lines[name] = fline
        record = _record_from_fields(
            key or None, entry.entry_type.lower(), values, self._restore(entry.raw or ""), line
        )
        if record.source_text is not None and self.checks:
            record = replace(record, source_check=source_check(record, self.macros))
        yield _Parsed(record, frozenset(used))


# bibtexparser's splitter takes a brace or quote after a backslash as escaped (one
# character of look-behind), so the line break ``\\`` before a closing brace hides
# the brace (the ACL Anthology has such abstracts). BibTeX has no escapes: braces
# count wherever they are. Before splitting, each even run of backslashes before a
# brace is replaced by as many NUL characters (same length: lines and offsets are
# kept), and put back in everything read from the batch.
_HIDDEN = "\x00"
_ESCAPED_BACKSLASHES = re.compile(r"(?:\\\\)+(?=\\?[{}])")


def _hide_backslashes(match: re.Match[str]) -> str:
    return _HIDDEN * len(match.group())


def _venue_candidates(entry_type: str) -> tuple[str, ...]:
    return _VENUE_FIELDS_ARTICLE if entry_type in _ARTICLE_TYPES else _VENUE_FIELDS_OTHER


def _arxiv_source(fields: Mapping[str, str]) -> str | None:
    """The field an arXiv id is read from / written to, if any is present."""
    if "eprint" in fields:
        prefix = next((fields[f] for f in _ARXIV_PREFIX_FIELDS if f in fields), None)
        if prefix is None or prefix.strip().lower() == "arxiv":
            return "eprint"
    for name in _ARXIV_SOURCES[1:]:
        if name in fields:
            return name
    return None


def _record_from_fields(
    key: str | None, entry_type: str, values: dict[str, str], raw: str, line: int | None
) -> PaperRecord:
    """Turn resolved field values into a record (the ``fields`` contract in the module doc)."""
    fields = dict(values)
    title = authors = editors = None
    title_raw = fields.get("title")
    if title_raw is not None:
        title = _decode_title(title_raw)
        if title is not None and title_raw == title:
            del fields["title"]
    for name in ("author", "editor"):
        names_raw = fields.get(name)
        if names_raw is None:
            continue
        people = _parse_names(names_raw)
        if name == "author":
            authors = people
        else:
            editors = people
        if people and names_raw == _names_display(people):
            del fields[name]

    year = month = None
    year_raw = fields.get("year")
    if year_raw is not None:
        year = _decode_year(year_raw)
        if year is not None and year_raw == str(year):
            del fields["year"]
    month_raw = fields.get("month")
    if month_raw is not None:
        month = _decode_month(month_raw)
        if month is not None and _month_is_simple(month_raw):
            del fields["month"]
    date_raw = fields.get("date")
    if date_raw is not None:
        date_year, date_month = _decode_date(date_raw)
        if year_raw is None:
            year = date_year
        if month_raw is None:
            month = date_month

    venue = None
    for name in _venue_candidates(entry_type):
        if name in fields:
            venue = _decode_text(fields[name]) or None
            break

    abstract = fields.pop("abstract", None)

    doi = None
    doi_raw = fields.get("doi")
    if doi_raw is not None:
        doi = normalize_doi(doi_raw)
        if doi is not None and doi_raw == doi:
            del fields["doi"]

    arxiv = None
    source = _arxiv_source(fields)
    if source is not None:
        arxiv = normalize_arxiv(fields[source])
        if arxiv is not None and source == "eprint" and fields[source] == arxiv:
            del fields[source]

    url = None
    url_raw = fields.get("url")
    if url_raw is not None:
        url = _decode_url(url_raw)
        if url is not None and url_raw == url:
            del fields["url"]

    keywords: tuple[str, ...] = ()
    keywords_raw = fields.get("keywords")
    if keywords_raw is not None:
        keywords = _decode_keywords(keywords_raw)
        if keywords and keywords_raw == ", ".join(keywords):
            del fields["keywords"]

    return PaperRecord(
        citekey=key,
        entry_type=entry_type,
        title=title,
        authors=authors or (),
        editors=editors or (),
        year=year,
        month=month,
        venue=venue,
        abstract=abstract,
        doi=doi,
        arxiv=arxiv,
        url=url,
        keywords=keywords,
        fields=fields,
        source_text=raw,
        line=line,
    )


def _batches(text: str, size: int = _BATCH_CHARS) -> Iterator[tuple[str, int, bool]]:
    """Cut ``text`` into pieces of about ``size`` characters at lines that start a block.

    Yields ``(piece, line_offset, is_last)``. A line starting with ``@type{`` or ``@type(``
    ends any open block in bibtexparser's splitter too, so cutting there changes
    nothing in how the text is read.
    """
    start = 0
    line = 0
    n = len(text)
    while start < n:
        cut = n
        if n - start > size:
            match = _BLOCK_START_LINE.search(text, start + size)
            if match is not None:
                cut = match.start() + 1
        piece = text[start:cut]
        yield piece, line, cut >= n
        line += piece.count("\n")
        start = cut


def read(text: str, source: str = "<stdin>") -> ParseResult:
    """Read BibTeX or biblatex text into records.

    Args:
        text: the whole ``.bib`` text (any entry types, ``{}``- or ``()``-delimited
            entries, ``@string``, ``@preamble``, ``@comment``, text between entries).
        source: the file name used in problems (``<stdin>`` for standard input).

    Returns:
        A :class:`ParseResult`: one record per entry in file order, with
        ``citekey=None`` for an entry without a key, ``source_text`` the entry exactly
        as written and ``line`` its first line (1-based); problems in file order
        (``"error"``: a malformed block that was skipped; ``"warning"``: a key used
        twice, a repeated field, an undefined macro); ``meta`` with ``"strings"`` and
        ``"preamble"`` (see the module docstring). Never raises for bad input.
    """
    reader = _Reader(source)
    records: list[PaperRecord] = []
    problems: list[ParseProblem] = []
    for piece, offset, last in _batches(text):
        for item in reader.feed(piece, offset, last):
            if isinstance(item, _Parsed):
                records.append(item.record)
            else:
                problems.append(item)
    return ParseResult(records, problems, reader.meta())


def iter_read(
    chunks: Iterable[str],
    source: str = "<stdin>",
    *,
    meta: dict[str, str] | None = None,
    batch_chars: int = _BATCH_CHARS,
) -> Iterator[PaperRecord | ParseProblem]:
    """Read ``.bib`` text arriving in chunks, yielding records and problems as they come.

    Args:
        chunks: pieces of the text in order, cut anywhere (e.g. ``iter(lambda:
            f.read(1 << 20), "")``).
        source: the file name used in problems.
        meta: if given, filled with ``"strings"`` / ``"preamble"`` as :func:`read`'s
            ``ParseResult.meta`` (complete once the iterator is exhausted).
        batch_chars: about how many characters are split at a time.

    Yields:
        The same records and problems, in the same order, as :func:`read` on the
        joined text. ``@string`` macros carry across chunks. Only one batch of text
        and its blocks is held at a time, so memory stays bounded by the batch size
        plus whatever the caller keeps.
    """
    reader = _Reader(source)
    buffer = ""
    line = 0
    cut = 0  # the last block start seen in the buffer (0: none yet)
    for chunk in chunks:
        scanned = max(0, buffer.rfind("\n"))  # a block start may span the chunk boundary
        buffer += chunk
        for match in _BLOCK_START_LINE.finditer(buffer, scanned):
            cut = match.start() + 1
        if len(buffer) < batch_chars or cut == 0:
            continue
        piece, buffer = buffer[:cut], buffer[cut:]
        cut = 0
        for item in reader.feed(piece, line, final=False):
            yield item.record if isinstance(item, _Parsed) else item
        line += piece.count("\n")
    if buffer:
        for item in reader.feed(buffer, line):
            yield item.record if isinstance(item, _Parsed) else item
    if meta is not None:
        meta.update(reader.meta())


# ---------------------------------------------------------------------------
# Fingerprints and the bibliographic view of a record
# ---------------------------------------------------------------------------


def _people_data(people: Sequence[Person]) -> list[list[str]]:
    return [[p.family, p.given, p.von, p.jr, p.literal] for p in people]


def bibliographic_fingerprint(record: PaperRecord) -> str:
    """Return a SHA-256 hex digest of the record's bibliographic data.

    Covered: citation key, entry type (case-insensitive), title, authors, editors,
    year, month, venue, abstract, DOI, arXiv id, url, keywords and every entry of
    ``fields`` (raw values included). Not covered: status, priority, tags, notes,
    ``added``/``read_at``, ``title_provisional``, ``short_name``, ``code_url``,
    ``source_text`` and ``line``. Two records with equal fingerprints are written
    identically by :func:`write`. The library may store it at import and compare at
    export; :func:`write` itself compares the record with its re-read
    ``source_text``.
    """
    data = [
        "bibtex-fp-1",
        record.citekey,
        record.entry_type.lower(),
        record.title,
        _people_data(record.authors),
        _people_data(record.editors),
        record.year,
        record.month,
        record.venue,
        record.abstract,
        record.doi,
        record.arxiv,
        record.url,
        list(record.keywords),
        sorted(record.fields.items()),
    ]
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _consistent(raw: str | None, column: object, decode: Callable[[str], object]) -> bool:
    return raw is not None and column is not None and column != () and decode(raw) == column


def bibliographic_data(record: PaperRecord) -> dict[str, Any]:
    """Return what a record means bibliographically, without the raw forms of its columns.

    The columns (as in :func:`bibliographic_fingerprint`) plus ``fields`` minus each
    raw source field that decodes to its column (``title = {{B}ayesian}`` next to
    the title ``Bayesian``; the venue field; ``eprint``/``archiveprefix`` next to the
    arXiv id; a biblatex ``date`` equal to year and month). Two records with equal
    data are the same reference, written with possibly different LaTeX.
    ``read(write(records))`` preserves this view (see the tests).
    """
    fields = dict(record.fields)

    def drop_if(name: str, column: object, decode: Callable[[str], object]) -> None:
        if _consistent(fields.get(name), column, decode):
            del fields[name]

    drop_if("title", record.title, _decode_title)
    drop_if("author", record.authors, _parse_names)
    drop_if("editor", record.editors, _parse_names)
    drop_if("year", record.year, _decode_year)
    drop_if("month", record.month, _decode_month)
    if "date" in fields and _decode_date(fields["date"]) in {
        (record.year, record.month),
        (record.year, None),
    }:
        del fields["date"]
    for name in _venue_candidates(record.entry_type.lower()):
        if name in fields:
            drop_if(name, record.venue, _decode_text)
            break
    drop_if("doi", record.doi, normalize_doi)
    source = _arxiv_source(fields)
    if source is not None:
        drop_if(source, record.arxiv, normalize_arxiv)
    if record.arxiv is not None:
        for name in _ARXIV_PREFIX_FIELDS:
            if fields.get(name, "").strip().lower() == "arxiv":
                del fields[name]
    drop_if("url", record.url, _decode_url)
    drop_if("keywords", record.keywords, _decode_keywords)
    return {
        "citekey": record.citekey,
        "entry_type": record.entry_type.lower(),
        "title": record.title,
        "authors": record.authors,
        "editors": record.editors,
        "year": record.year,
        "month": record.month,
        "venue": record.venue,
        "abstract": record.abstract,
        "doi": record.doi,
        "arxiv": record.arxiv,
        "url": record.url,
        "keywords": record.keywords,
        "fields": fields,
    }


# ---------------------------------------------------------------------------
# Encoding columns and fields as BibTeX
# ---------------------------------------------------------------------------

_LITERAL_CHARS = {
    "\\": "\\textbackslash{}",
    "$": "\\$",
    "&": "\\&",
    "%": "\\%",
    "#": "\\#",
    "_": "\\_",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
    "\u00a0": "~",
}
_LITERAL_RE = re.compile(r"[\\$&%#_~^\u00a0{}]")
# TeX input ligatures that pylatexenc (and TeX) would turn into other characters.
_LIGATURES = re.compile(r"-(?=-)|`(?=`)|'(?=')|[?!](?=`)")


@lru_cache(maxsize=1)
def _unicode_encoder() -> Any:
    from pylatexenc.latexencode import UnicodeToLatexEncoder

    return UnicodeToLatexEncoder(
        non_ascii_only=True,
        replacement_latex_protection="braces-all",
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


@lru_cache(maxsize=10_000)
def _encode_char(char: str, exact: bool) -> str:
    """LaTeX for one non-ASCII character (pylatexenc), or the character itself.

    With ``exact``, the LaTeX is used only if it decodes back to the same character
    (``{\\ensuremath{\\cdot}}`` decodes to U+00B7, not U+22C5): column text must
    survive a round trip. Without, any ASCII form is used (raw LaTeX fields).
    """
    latex = str(_unicode_encoder().unicode_to_latex(char))
    if latex == char or not latex.isascii():
        return char
    if exact and latex_to_unicode("{x}" + latex + "{x}") != "x" + char + "x":
        return char
    return latex


def _ascii_latex(text: str, exact: bool = False) -> str:
    """Replace non-ASCII characters by LaTeX (bibtex dialect); see :func:`_encode_char`."""
    if text.isascii():
        return text
    return "".join(ch if ch.isascii() else _encode_char(ch, exact) for ch in text)


def _braces_balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _escape_literal(text: str, dialect: Dialect) -> str:
    """Encode plain Unicode text so that it decodes back to itself (the ``_decode_text`` inverse)."""
    if _LITERAL_RE.search(text):
        balanced = _braces_balanced(text)
        left = "\\{" if balanced else "\\textbraceleft{}"
        right = "\\}" if balanced else "\\textbraceright{}"
        table = {**_LITERAL_CHARS, "{": left, "}": right}
        text = _LITERAL_RE.sub(lambda m: table[m.group()], text)
    if "-" in text or "`" in text or "'" in text:
        text = _LIGATURES.sub(lambda m: m.group() + "{}", text)
    return _ascii_latex(text, exact=True) if dialect == "bibtex" else text


_TITLE_WORD = re.compile(r"[^\W_]+")


def _encode_title(title: str, dialect: Dialect) -> str:
    """Encode a title, protecting each capital BibTeX's ``change.case$ "t"`` would lower.

    ``change.case$`` keeps the first character of the title and the first character
    after a colon followed by white space, and leaves brace groups alone (BibTeX
    manual, "Tame the BeaST" section 4). A word whose only capital is its first
    letter gets ``{B}ayesian``; a word with other capitals is wrapped whole
    (``{GPU}``, ``{iPhone}``).
    """
    out: list[str] = []
    pos = 0
    for match in _TITLE_WORD.finditer(title):
        word = match.group()
        capitals = [i for i, ch in enumerate(word) if ch.isupper() or ch.istitle()]
        if not capitals:
            continue
        start = match.start()
        kept = start == 0 or re.search(r":\s+$", title[:start]) is not None
        if capitals == [0]:
            if kept:
                continue
            protected, end = word[0], start + 1
        else:
            protected, end = word, match.end()
        out.append(_escape_literal(title[pos:start], dialect))
        out.append("{" + _escape_literal(protected, dialect) + "}")
        pos = end
    out.append(_escape_literal(title[pos:], dialect))
    return "".join(out)


_VERBATIM_MACROS = re.compile(r"\\(?:url|path|nolinkurl|href|verb)\b")


def _escape_raw(value: str, dialect: Dialect) -> str:
    """:func:`_escape_specials`, then :func:`_balance_braces`: a value BibTeX can read."""
    return _balance_braces(_escape_specials(value, dialect))


def _balance_braces(value: str) -> str:
    """Replace braces that have no partner by ``\\textbraceleft{}`` / ``\\textbraceright{}``.

    BibTeX counts every brace, escaped or not ("Tame the BeaST", section 2.2): one
    stray ``}`` in an abstract ends the field early and loses the rest of the
    entry. Balanced values are returned unchanged.
    """
    if _braces_balanced(value):
        return value
    unmatched: set[int] = set()
    opened: list[int] = []
    for i, ch in enumerate(value):
        if ch == "{":
            opened.append(i)
        elif ch == "}":
            if opened:
                opened.pop()
            else:
                unmatched.add(i)
    unmatched.update(opened)
    return "".join(
        ("\\textbraceleft{}" if ch == "{" else "\\textbraceright{}") if i in unmatched else ch
        for i, ch in enumerate(value)
    )


def _escape_specials(value: str, dialect: Dialect) -> str:
    """Escape bare ``& % $ # _`` outside math and URL arguments; keep existing LaTeX.

    A ``$`` opens math only when a closing ``$`` follows; otherwise it is escaped.
    Arguments of ``\\url``, ``\\path``, ``\\nolinkurl``, ``\\href`` (first) and
    ``\\verb`` are copied unchanged.
    """
    if not any(ch in value for ch in "&%$#_"):
        return _ascii_latex(value) if dialect == "bibtex" else value
    out: list[str] = []
    i = 0
    n = len(value)
    in_math = False
    while i < n:
        ch = value[i]
        if ch == "\\":
            macro = _VERBATIM_MACROS.match(value, i)
            if macro and not in_math:
                j = macro.end()
                while j < n and value[j] == " ":
                    j += 1
                if j < n and value[j] == "{":
                    try:
                        j = _matching_brace(value, j) + 1
                    except _ValueError:
                        j = n
                elif j < n:
                    close = value.find(value[j], j + 1)
                    j = n if close < 0 else close + 1
                out.append(value[i:j])
                i = j
                continue
            out.append(value[i : i + 2])
            if value.startswith("\\(", i) or value.startswith("\\[", i):
                in_math = True
            elif value.startswith("\\)", i) or value.startswith("\\]", i):
                in_math = False
            i += 2
            continue
        if ch == "$":
            if in_math:
                in_math = False
                out.append("$$" if value.startswith("$$", i) else "$")
                i += 2 if value.startswith("$$", i) else 1
                continue
            double = value.startswith("$$", i)
            opener = "$$" if double else "$"
            if _find_unescaped(value, opener, i + len(opener)) >= 0:
                in_math = True
                out.append(opener)
                i += len(opener)
            else:
                out.append("\\$")
                i += 1
            continue
        if ch in "&%#_" and not in_math:
            out.append("\\" + ch)
        else:
            out.append(ch)
        i += 1
    text = "".join(out)
    return _ascii_latex(text) if dialect == "bibtex" else text


def _find_unescaped(value: str, needle: str, start: int) -> int:
    i = value.find(needle, start)
    while i >= 0:
        backslashes = 0
        j = i - 1
        while j >= 0 and value[j] == "\\":
            backslashes += 1
            j -= 1
        if backslashes % 2 == 0:
            return i
        i = value.find(needle, i + 1)
    return -1


def _is_verbatim(name: str, value: str) -> bool:
    return name in VERBATIM_FIELDS or name.endswith("url") or _BARE_URL.match(value) is not None


def _format_person(person: Person, dialect: Dialect) -> str:
    """Write one name so that BibTeX's rules split it back into the same parts."""
    if person.literal:
        if person.is_others:
            return "others"
        literal = _escape_literal(person.literal, dialect)
        # "{\\&}" would be a special character, not a corporate name: brace it once more.
        return "{{" + literal + "}}" if literal.startswith("\\") else "{" + literal + "}"

    def enc(part: str) -> str:
        return _escape_literal(part, dialect)

    def build(brace_family: bool, brace_all: bool, comma: bool) -> str:
        family = enc(person.family)
        if brace_family or brace_all:
            family = "{" + family + "}"
        last = f"{enc(person.von)} {family}" if person.von else family
        given = enc(person.given)
        jr = enc(person.jr)
        if brace_all:
            given = "{" + given + "}" if given else given
            jr = "{" + jr + "}" if jr else jr
        if jr:
            return f"{last}, {jr}, {given or '{}'}"
        if given or comma:
            # "van Gogh" alone would read as given "van", family "Gogh".
            return f"{last}, {given or '{}'}"
        return last

    candidates = [
        build(False, False, False),
        build(False, False, True),
        build(True, False, True),
        build(True, True, True),
    ]
    for text in candidates:
        if _parse_names(text) == (person,):
            return text
    return candidates[2]


def _format_names(people: Sequence[Person], dialect: Dialect) -> str:
    return " and ".join(_format_person(p, dialect) for p in people)


def _normalize_pages(value: str) -> str:
    match = re.fullmatch(r"\s*(\w+)\s*(?:-{1,3}|\u2013|\u2014)\s*(\w+)\s*", value)
    return f"{match.group(1)}--{match.group(2)}" if match else value


_KEY_ILLEGAL = re.compile(r"[\s,{}()\"#%'=\\~]+")


def valid_citekey(key: str, dialect: Dialect = "bibtex") -> str:
    """Return ``key`` made safe to write as a BibTeX/biblatex citation key.

    BibTeX's scanner ends a key at white space, ``,`` and the delimiters, and its
    ``.bst`` functions choke on ``" # % ' ( ) = { } \\ ~`` (``bibtex.web``, class
    ``legal_id_char``); each run of those becomes ``-``. For the ``bibtex`` dialect
    non-ASCII letters lose their accents (``Müller`` -> ``Muller``) and other
    non-ASCII characters become ``-``. A valid key is returned unchanged.
    """
    if dialect == "bibtex" and not key.isascii():
        key = unicodedata.normalize("NFKD", key)
        key = "".join(ch for ch in key if not unicodedata.combining(ch))
        key = re.sub(r"[^\x00-\x7f]+", "-", key)
    return _KEY_ILLEGAL.sub("-", key)


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


@dataclass
class _Strings:
    """The ``@string`` definitions handed to :func:`write`."""

    macros: dict[str, str]
    raw: dict[str, str]
    deps: dict[str, frozenset[str]]

    @classmethod
    def parse(cls, text: str | None) -> _Strings:
        """Read ``@string`` definitions: the last one of each name wins (its raw text,
        in the order of first definition), month names excepted (an export never
        redefines ``jan``: its generated entries write ``month = jan`` for BibTeX's
        own). ``macros`` holds the values the definitions give *as they will be
        written*, in that order, so a macro that uses another one redefined later in
        ``text`` gets the value a BibTeX run of the export gives it."""
        if not text:
            return cls({}, {}, {})
        reader = _Reader("<strings>", checks=False)
        for piece, offset, last in _batches(text):
            for _ in reader.feed(piece, offset, last):
                pass
        raw = {k: v for k, v in reader.string_raw.items() if k not in _MONTH_MACROS}
        written = _Reader("<strings>", checks=False)
        for _ in written.feed("\n".join(raw.values()), 0):
            pass
        macros = {k: v for k, v in written.macros.items() if k in raw}
        deps = {k: written.string_deps.get(k, frozenset()) for k in raw}
        return cls(macros, raw, deps)

    def closure(self, used: Iterable[str]) -> list[str]:
        """Raw definitions of ``used`` and of the macros they use, in definition order."""
        needed: set[str] = set()
        stack = [name for name in used if name in self.raw]
        while stack:
            name = stack.pop()
            if name in needed:
                continue
            needed.add(name)
            stack.extend(dep for dep in self.deps.get(name, ()) if dep in self.raw)
        return [raw for name, raw in self.raw.items() if name in needed]


def _reread(source_text: str, macros: Mapping[str, str]) -> _Parsed | None:
    reader = _Reader("<source_text>", macros, checks=False)
    parsed = [item for item in reader.feed(source_text, 0) if isinstance(item, _Parsed)]
    return parsed[0] if len(parsed) == 1 else None


def _merged_keywords(record: PaperRecord) -> tuple[str, ...]:
    seen = {k.casefold() for k in record.keywords}
    merged = list(record.keywords)
    for tag in record.tags:
        if tag.casefold() not in seen:
            seen.add(tag.casefold())
            merged.append(tag)
    return tuple(merged)


def _merged_annote(record: PaperRecord) -> str | None:
    existing = record.fields.get("annote")
    texts = [note.text.strip() for note in record.notes if note.text.strip()]
    if existing:
        # Notes already there as paragraphs of their own are not repeated (a substring
        # test would drop a note whose text happens to occur in the annote).
        paragraphs = {part.strip() for part in re.split(r"\n[ \t]*\n", existing)}
        texts = [t for t in texts if t not in paragraphs]
    if not texts:
        return existing
    return "\n\n".join(([existing] if existing else []) + texts)


def _column_value(
    raw: str | None,
    column: object,
    decode: Callable[[str], object],
    encode: Callable[[], str],
    reencode_raw: Callable[[str], str],
    trusted: bool = False,
) -> str | None:
    """The generic rule: raw if it still decodes to the column, else the encoded column,
    else the raw value when it never decoded to anything, else nothing. ``trusted``:
    the record is as read from its raw values, so a raw value and its column agree
    without decoding it again."""
    if raw is not None and column not in (None, ()) and (trusted or decode(raw) == column):
        return reencode_raw(raw)
    if column not in (None, ()):
        return encode()
    if raw is not None and decode(raw) in (None, ()):
        return reencode_raw(raw)
    return None


def _entry_fields(
    record: PaperRecord,
    dialect: Dialect,
    keywords: bool,
    annote: bool,
    source: PaperRecord | None = None,
    trusted: bool = False,
) -> dict[str, str]:
    """Field name -> value text (already delimited: ``{...}`` or a bare macro) for a record.

    ``source`` is the record re-read from ``record.source_text``, if any: a title
    written without LaTeX in the file has no raw form in ``fields``, and is re-emitted
    as it was (without added case protection) while the title column equals it.
    """
    fields = dict(record.fields)
    if (
        "title" not in fields
        and source is not None
        and source.title is not None
        and source.title == record.title
        and "title" not in source.fields
    ):
        fields["title"] = source.title
    out: dict[str, str] = {}
    entry_type = record.entry_type.lower()
    column_value = partial(_column_value, trusted=trusted)

    def raw_as_is(raw: str) -> str:
        return _ascii_latex(raw, exact=True) if dialect == "bibtex" else raw

    def put(name: str, value: str | None) -> None:
        if value is not None:
            out[name] = "{" + value + "}"

    put(
        "title",
        column_value(
            fields.pop("title", None),
            record.title,
            _decode_title,
            lambda: _encode_title(record.title or "", dialect),
            raw_as_is,
        ),
    )
    for name, people in (("author", record.authors), ("editor", record.editors)):
        put(
            name,
            column_value(
                fields.pop(name, None),
                people,
                _parse_names,
                partial(_format_names, people, dialect),
                raw_as_is,
            ),
        )

    # Venue: the first candidate field present names it; dialects rename journal(title).
    venue_name = next((n for n in _venue_candidates(entry_type) if n in fields), None)
    venue_raw = fields.pop(venue_name, None) if venue_name else None
    if venue_name is None:
        venue_name = "journal" if entry_type in _ARTICLE_TYPES else "booktitle"
    if dialect == "bibtex" and venue_name == "journaltitle":
        venue_name = "journal"
    elif dialect == "biblatex" and venue_name == "journal":
        venue_name = "journaltitle"
    put(
        venue_name,
        column_value(
            venue_raw,
            record.venue,
            lambda raw: _decode_text(raw) or None,
            lambda: _escape_literal(record.venue or "", dialect),
            raw_as_is,
        ),
    )

    # Year, month, date: year/month fields for bibtex, one ISO date for biblatex.
    year_raw = fields.pop("year", None)
    month_raw = fields.pop("month", None)
    date_raw = fields.pop("date", None)
    date_parts = _decode_date(date_raw) if date_raw is not None else None
    if dialect == "biblatex" and record.year is not None:
        if date_raw is not None and date_parts == (record.year, record.month):
            put("date", date_raw)
        else:
            put("date", f"{record.year:04d}" + (f"-{record.month:02d}" if record.month else ""))
        # Raw year/month forms that still decode to the columns are replaced by the date;
        # a month the columns could not take ("Summer") is kept as it is.
        if record.month is None and month_raw is not None and _decode_month(month_raw) is None:
            put("month", month_raw)
    else:
        put(
            "year",
            column_value(year_raw, record.year, _decode_year, lambda: str(record.year), raw_as_is),
        )
        month = column_value(
            month_raw,
            record.month,
            _decode_month,
            lambda: _MONTH_ABBREV[(record.month or 1) - 1],
            raw_as_is,
        )
        if month is not None:
            if month_raw is None or _decode_month(month_raw) != record.month:
                out["month"] = month  # bare macro
            else:
                put("month", month)
        if date_raw is not None and (
            date_parts in {(record.year, record.month), (record.year, None), (None, None)}
        ):
            put("date", date_raw)

    # A DOI is written normalized (a resolver prefix in ``doi`` breaks biblatex's links).
    doi_raw = fields.pop("doi", None)
    put("doi", column_value(None, record.doi, normalize_doi, lambda: record.doi or "", str))
    if record.doi is None and doi_raw is not None and normalize_doi(doi_raw) is None:
        put("doi", doi_raw)
    arxiv_field = _arxiv_source(fields)
    arxiv_raw = fields.pop(arxiv_field, None) if arxiv_field else None
    arxiv = column_value(arxiv_raw, record.arxiv, normalize_arxiv, lambda: record.arxiv or "", str)
    if arxiv is not None:
        arxiv_field = arxiv_field or "eprint"
        put(arxiv_field, arxiv)
        if (
            arxiv_field == "eprint"
            and record.arxiv is not None
            and not any(f in fields for f in _ARXIV_PREFIX_FIELDS)
        ):
            if dialect == "biblatex":
                out["eprinttype"] = "{arxiv}"
            else:
                out["archiveprefix"] = "{arXiv}"
    put(
        "url",
        column_value(
            fields.pop("url", None), record.url, _decode_url, lambda: record.url or "", str
        ),
    )

    keyword_values = _merged_keywords(record) if keywords else record.keywords
    put(
        "keywords",
        column_value(
            fields.pop("keywords", None),
            keyword_values,
            _decode_keywords,
            lambda: ", ".join(_escape_literal(k, dialect) for k in keyword_values),
            raw_as_is,
        ),
    )
    if record.abstract is not None:
        put("abstract", _escape_raw(record.abstract, dialect))
    fields.pop("abstract", None)
    if annote:
        annote_value = _merged_annote(record)
        fields.pop("annote", None)
        if annote_value is not None:
            put("annote", _escape_raw(annote_value, dialect))

    for name, value in fields.items():
        if name in out:
            continue
        if _is_verbatim(name, value):
            put(name, value)
        elif name == "pages":
            put(name, _escape_raw(_normalize_pages(value), dialect))
        else:
            put(name, _escape_raw(value, dialect))
    return out


def _format_entry(
    record: PaperRecord,
    dialect: Dialect,
    keywords: bool,
    annote: bool,
    source: PaperRecord | None = None,
    trusted: bool = False,
) -> str:
    fields = _entry_fields(record, dialect, keywords, annote, source, trusted)
    names = sorted(fields, key=lambda n: (_ORDER_INDEX.get(n, len(_ORDER_INDEX)), n))
    key = valid_citekey(record.citekey, dialect) if record.citekey else ""
    lines = [f"@{record.entry_type.lower()}{{{key},"]
    lines.extend(f"  {name} = {fields[name]}," for name in names)
    if names:
        lines[-1] = lines[-1][:-1]
    lines.append("}")
    return "\n".join(lines)


def _needs_user_state(record: PaperRecord, keywords: bool, annote: bool) -> bool:
    if keywords and _merged_keywords(record) != record.keywords:
        return True
    return annote and _merged_annote(record) != record.fields.get("annote")


def entry_order(citekey: str | None, index: int) -> tuple[bool, str, str, int]:
    """Return the sort key of the entry at ``index`` (input order) with ``citekey``:
    the writer's order, by key case-insensitively, then case-sensitively, no key last,
    ties in input order. An exporter that writes in chunks sorts by it first."""
    key = citekey or ""
    return (not key, key.casefold(), key, index)


def _sort_key(item: tuple[int, PaperRecord]) -> tuple[bool, str, str, int]:
    index, record = item
    return entry_order(record.citekey, index)


class Writer:
    """A ``.bib`` text written in pieces: entries chunk after chunk, then the header.

    ``Writer(...).entries(records)`` formats a chunk of records (see :func:`write`
    for what is copied and what is generated) and remembers which ``@string`` macros
    the copied entries use; :meth:`head` then gives the ``@preamble`` and the
    definitions of those macros, which belong before every entry. An exporter that
    streams a large library writes the chunks somewhere, then puts :meth:`head`
    first (``readinglist.pipelines.exporting``); :func:`write` does both in one call.

    Args:
        dialect, keywords, annote, strings, preamble: as for :func:`write`.
    """

    def __init__(
        self,
        *,
        dialect: Dialect = "bibtex",
        keywords: bool = False,
        annote: bool = False,
        strings: str | None = None,
        preamble: str | None = None,
    ) -> None:
        self.dialect: Dialect = dialect
        self.keywords = keywords
        self.annote = annote
        self.preamble = preamble
        self.macros = _Strings.parse(strings)
        #: Macro name -> value as a reader would have them: months and ``strings``.
        self.table: dict[str, str] = {**_MONTH_MACROS, **self.macros.macros}
        self.used_macros: set[str] = set()

    def entries(self, records: Sequence[PaperRecord]) -> str:
        """Return the entries of ``records``, ordered by citation key case-insensitively
        (no key last, ties in input order), separated by one blank line, without a
        final newline; empty for no records."""
        blocks: list[str] = []
        for _, record in sorted(enumerate(records), key=_sort_key):
            text = None
            again = None
            if record.source_text and record.source_check is not None:
                check = source_check(record, self.table)
                if check == record.source_check and not _needs_user_state(
                    record, self.keywords, self.annote
                ):
                    # Unchanged since it was read, and every macro it may use means
                    # what it meant then: copy it without reading it again.
                    blocks.append(record.source_text)
                    self.used_macros.update(macro_names(record.source_text))
                    continue
                if check is not None and check[:32] == record.source_check[:32]:
                    # The data is as read (a macro means something else now, or the
                    # entry gets tags or notes): the record stands for its re-read, and
                    # unless tags or notes change its keywords or annote, its raw values
                    # agree with its columns without being decoded again.
                    trusted = not _needs_user_state(record, self.keywords, self.annote)
                    blocks.append(
                        _format_entry(
                            record, self.dialect, self.keywords, self.annote, record, trusted
                        )
                    )
                    continue
            if record.source_text:
                again = _reread(record.source_text, self.macros.macros)
                if (
                    again is not None
                    and not _needs_user_state(record, self.keywords, self.annote)
                    and bibliographic_fingerprint(again.record) == bibliographic_fingerprint(record)
                ):
                    text = record.source_text
                    self.used_macros.update(again.used_macros)
            if text is None:
                source = again.record if again is not None else None
                text = _format_entry(record, self.dialect, self.keywords, self.annote, source)
            blocks.append(text)
        return "\n\n".join(blocks)

    def head(self) -> str:
        """Return the ``@preamble`` blocks and the ``@string`` definitions that the
        entries written so far and the preambles use (and those they use in turn, in
        the order of ``strings``), separated by one blank line, without a final
        newline; empty when there is neither. The preambles come first unless they use
        a macro, which must be defined before them."""
        preamble = (self.preamble or "").strip()
        in_preamble = {name.lower() for name in _PREAMBLE_MACRO_USE.findall(preamble)} & set(
            self.macros.raw
        )
        definitions = "\n".join(self.macros.closure(self.used_macros | in_preamble))
        parts = [definitions, preamble] if in_preamble else [preamble, definitions]
        return "\n\n".join(part for part in parts if part)


def write(
    records: Sequence[PaperRecord],
    *,
    dialect: Dialect = "bibtex",
    keywords: bool = False,
    annote: bool = False,
    strings: str | None = None,
    preamble: str | None = None,
) -> str:
    """Write records as a ``.bib`` text.

    Args:
        records: the records to write, in any order; they are written ordered by
            citation key, case-insensitively (no key last, ties in input order).
        dialect: ``"bibtex"`` (ASCII, ``journal``, ``year``/``month``) or
            ``"biblatex"`` (UTF-8, ``journaltitle``, ``date``) for generated entries.
        keywords: add each record's tags to ``keywords`` (merged with the keywords it
            has, case-insensitively).
        annote: add each record's notes to ``annote`` (after an existing annote,
            separated by blank lines; notes already there are not repeated).
        strings: ``@string`` definitions as BibTeX text (``ParseResult.meta
            ["strings"]``); those used by entries copied as ``source_text`` are
            written first.
        preamble: ``@preamble`` blocks as BibTeX text, written first as they are.

    Returns:
        The text, blocks separated by one blank line, ending in a newline (empty
        for no records and nothing else). An entry whose bibliographic data is
        unchanged since it was read (see the module docstring) and that gets no
        tags or notes is its ``source_text``; any other entry is generated.
    """
    writer = Writer(
        dialect=dialect, keywords=keywords, annote=annote, strings=strings, preamble=preamble
    )
    body = writer.entries(records)
    parts = [part for part in (writer.head(), body) if part]
    return "\n\n".join(parts) + "\n" if parts else ""


# ---------------------------------------------------------------------------
# LaTeX .aux files
# ---------------------------------------------------------------------------

_AUX_CITATION = re.compile(
    r"\\citation\{([^}]*)\}|\\abx@aux@cite\{(?:[^}]*)\}\{([^}]*)\}|\\abx@aux@cite\{([^}]*)\}(?!\{)"
)


def read_aux(text: str) -> list[str]:
    """Return the citation keys of a LaTeX ``.aux`` file, in first-cited order, once each.

    Understands BibTeX's ``\\citation{a,b}`` lines and biblatex's
    ``\\abx@aux@cite{<refsection>}{key}`` (biblatex >= 3.12) and older
    ``\\abx@aux@cite{key}``. ``\\citation{*}`` (``\\nocite{*}``) gives the key
    ``"*"``, which callers may take as "every entry". Never raises.
    """
    keys: dict[str, None] = {}
    for match in _AUX_CITATION.finditer(text):
        group = match.group(1)
        names = group.split(",") if group is not None else [match.group(2) or match.group(3)]
        for name in names:
            name = name.strip()
            if name:
                keys.setdefault(name, None)
    return list(keys)
