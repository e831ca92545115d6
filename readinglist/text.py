"""Text normalization shared by importers, the library and the search index.

* :func:`latex_to_unicode` decodes LaTeX markup to Unicode through pylatexenc
  (``LatexNodes2Text``), with a fast path for plain text and a cache, so each
  distinct string is decoded once (issue 9: decoding is the expensive part of
  an import).
* :func:`simple_latex` is that fast path, the only LaTeX decoder besides
  pylatexenc: common markup decoded in microseconds, exactly as pylatexenc would.
  The BibTeX reader uses it with ``bibtex=True`` on values prepared by
  :func:`bibtex_latex`.
* :func:`fold` gives the comparison form used for duplicate detection and
  search: LaTeX decoded, accents removed, typographic punctuation mapped to ASCII,
  case folded, white space collapsed.
* :func:`search_tokens` splits folded text into the ``[a-z0-9]+`` words that both
  SQLite FTS5 and PostgreSQL's ``simple`` text-search configuration index the
  same way, so one query returns the same papers on both databases.
* :func:`plural` and :func:`counted` are the one plural rule of messages ("1 paper",
  "2 papers", "1 entry").

Imports nothing of the package; pylatexenc is imported on first use.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

# The fast decoder lives in its own module; these names are the text module's API too.
from readinglist.latex_fast import FONT_COMMANDS as FONT_COMMANDS
from readinglist.latex_fast import LATEX_ACCENTS as LATEX_ACCENTS
from readinglist.latex_fast import LATEX_LETTERS as LATEX_LETTERS
from readinglist.latex_fast import _join_segments
from readinglist.latex_fast import bibtex_latex as bibtex_latex
from readinglist.latex_fast import group_spaced_commands as group_spaced_commands
from readinglist.latex_fast import lost_braces as lost_braces
from readinglist.latex_fast import simple_latex as simple_latex

_LATEX_CHARS = re.compile(r"[\\{}$~]")
_BARE_PERCENT = re.compile(r"(?<!\\)%")
#: A ``$`` not escaped (``\$``) and not half of ``$$``.
_DOLLAR = re.compile(r"(?<![\\$])\$(?!\$)")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[0-9a-z]+")
#: A word that starts like a number in scientific notation and goes on with a letter
#: (``7e0l``, ``3868e8e0``): PostgreSQL's text-search parser reads the number as its
#: own token (type ``sfloat``) and the rest as another, while SQLite FTS5 keeps one
#: word. Splitting it the same way here keeps both indexes equal (found by comparing
#: ``to_tsvector('simple', ...)`` with our tokens on random words).
_SCI_PREFIX = re.compile(r"(?<![0-9a-z])([0-9]+e[0-9]+)(?=[a-z])")
#: What every match of :data:`_SCI_PREFIX` contains; a search for it is several times faster.
_SCI_HINT = re.compile(r"e[0-9]")
#: PostgreSQL ignores words longer than this (``to_tsvector``: "word is too long").
MAX_WORD = 2047

#: Characters that Unicode decomposition does not reduce to ASCII, mapped by hand.
#: Source: the Latin-1 Supplement / Latin Extended-A letters without a canonical
#: decomposition, plus typographic punctuation (General Punctuation block).
_FOLD_TABLE = str.maketrans(
    {
        "ß": "ss",
        "æ": "ae",
        "Æ": "ae",
        "œ": "oe",
        "Œ": "oe",
        "ø": "o",
        "Ø": "o",
        "ł": "l",
        "Ł": "l",
        "đ": "d",
        "Đ": "d",
        "ð": "d",
        "Ð": "d",
        "þ": "th",
        "Þ": "th",
        "ı": "i",
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # figure dash
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2015": "-",  # horizontal bar
        "\u2212": "-",  # minus sign
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\u2026": "...",
    }
)


@lru_cache(maxsize=1)
def _converter(math: str) -> Any:
    import logging

    from pylatexenc.latex2text import LatexNodes2Text

    # pylatexenc logs recoverable markup errors (e.g. a bare ``\url``) as warnings on
    # stderr; we fall back to the raw text instead, so keep them out of the CLI output.
    logging.getLogger("pylatexenc").setLevel(logging.ERROR)

    return LatexNodes2Text(latex_context=_latex_context(), math_mode=math, strict_latex_spaces=True)


@lru_cache(maxsize=1)
def _latex_context() -> Any:
    """pylatexenc's default text rules, with :data:`FONT_COMMANDS` printing their argument."""
    from pylatexenc.latex2text import MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    context.add_context_category(
        "readinglist-font-commands",
        macros=[MacroTextSpec(name, discard=False) for name in sorted(FONT_COMMANDS)],
        prepend=True,
    )
    return context


#: Values longer than this (abstracts, notes) are decoded and folded without caching: they
#: are rarely seen twice, and a cache of them would hold every abstract of an import.
CACHED_LENGTH = 300
#: Entries kept by each of the decoding caches (here and in formats.bibtex.fields): repeated
#: names, venues and journal words hit them. Measured on the ACL Anthology import
#: (issue 9): 4,096 entries are as fast as 200,000 and hold about 100 MiB less.
CACHE_SIZE = 4096


def has_latex(value: str) -> bool:
    """True when ``value`` holds LaTeX markup as the display rule reads it: one of
    ``\\ { } $ ~`` (:func:`latex_to_unicode` decodes such a value, :func:`readable_paragraphs`
    such a paragraph; a value without them is plain text, returned unchanged by the
    decoder's fast path). Never raises."""
    return _LATEX_CHARS.search(value) is not None


def latex_to_unicode(value: str, math: str = "text") -> str:
    """Decode LaTeX markup in ``value`` to Unicode text.

    Args:
        value: a field value as written in a BibTeX file or an abstract list
            (``Schr{\\"o}dinger``, ``\\textbf{S}upport``, ``{B}ayesian``).
        math: pylatexenc's ``math_mode``: ``"text"`` renders ``$\\alpha$`` as
            ``α``; ``"verbatim"`` keeps math as written.

    Returns:
        The decoded string; braces used for case protection are dropped; a control
        word unknown to LaTeX and pylatexenc without an argument is kept as text
        (``latex_fast.lost_braces``, as a BibTeX export writes it).
        Strings without ``\\ { } $ ~`` are returned unchanged without calling
        pylatexenc (the fast path). Text pylatexenc cannot parse is returned as
        given rather than raising. Results for values up to :data:`CACHED_LENGTH`
        characters are cached.
    """
    if not has_latex(value):
        return value
    value = lost_braces(value)  # \emphcorrelation: its words, not nothing
    if len(value) <= CACHED_LENGTH:
        return _latex_to_unicode_cached(value, math)
    return _latex_to_unicode(value, math)


def _latex_to_unicode(value: str, math: str) -> str:
    # A bare % is text in a field value, not a LaTeX comment (it would eat the line).
    value = _BARE_PERCENT.sub(r"\\%", value)
    value = _lone_dollar_escaped(value)
    decoded = simple_latex(value, formula=_formula_text if math == "text" else None)
    if decoded is None:
        try:
            cached = len(value) <= SLOW_PATH_LONGEST
            decoded = (_pylatexenc_text if cached else _pylatexenc_uncached)(value, math)
        except Exception:  # pylatexenc raises assorted errors on broken markup
            return value
    return _SPACE.sub(" ", decoded).strip() if "\n" in decoded else decoded


#: Values of any length that only pylatexenc decodes, kept: an import decodes each such
#: abstract four or five times (matching key, merge, search text; measured on the ICML 2015
#: proceedings: 160 pylatexenc runs for 40 abstracts, 60% of the import's CPU). Few values
#: need pylatexenc, so this holds far fewer abstracts than a cache of every long value would.
SLOW_PATH_CACHE_SIZE = 256
#: The longest value kept there (characters): abstracts are a few thousand; a longer value
#: (a hostile or broken file) is decoded each time, so the cache holds at most
#: 256 x 20,000 characters and their text, whatever the input.
SLOW_PATH_LONGEST = 20_000


def _pylatexenc_uncached(value: str, math: str) -> str:
    """pylatexenc's text of ``value`` (``math``: its ``math_mode``), for values
    :func:`simple_latex` leaves to it. Raises whatever pylatexenc raises on broken markup
    (not cached: the caller returns the value as given)."""
    return str(_converter(math).latex_to_text(value))


#: :func:`_pylatexenc_uncached`, kept for the last values up to :data:`SLOW_PATH_LONGEST`.
_pylatexenc_text = lru_cache(maxsize=SLOW_PATH_CACHE_SIZE)(_pylatexenc_uncached)


@lru_cache(maxsize=CACHE_SIZE)
def _formula_text(formula: str) -> str:
    """pylatexenc's text of one inline formula ``$...$`` (:data:`_FORMULA`), for
    :func:`simple_latex`, as ``latex_to_text`` computes it.

    Raises ValueError unless pylatexenc reads ``formula`` as one math node that ends at
    its last ``$``: a command whose arguments are missing takes the closing ``$`` as one
    (``$\\frac{}$``), and what it reads then depends on the text after the formula.
    """
    from pylatexenc.latexwalker import LatexMathNode, LatexWalker

    try:
        nodes = LatexWalker(formula).get_latex_nodes()[0]
        whole = (
            len(nodes) == 1
            and isinstance(nodes[0], LatexMathNode)
            and nodes[0].pos == 0
            and nodes[0].len == len(formula)
            # (pylatexenc's tolerant parser ends the node there even when a command took it)
            and all(node.pos + node.len < len(formula) for node in nodes[0].nodelist)
        )
        if whole:
            return str(_converter("text").nodelist_to_text(nodes))
    except Exception as exc:  # pylatexenc raises assorted errors on broken markup
        raise ValueError(formula) from exc
    raise ValueError(formula)


def _lone_dollar_escaped(value: str) -> str:
    """``value`` with its last ``$`` escaped when it has no partner: an odd number of
    ``$`` leaves the last one outside math, a dollar sign (``The cost is $5``), as the
    BibTeX writer reads it (``encode._escape_specials``: a ``$`` opens math only when a
    closing one follows). pylatexenc would read it as math and drop it (issue 15)."""
    dollars = [m.start() for m in _DOLLAR.finditer(value)]
    if len(dollars) % 2 == 0:
        return value
    last = dollars[-1]
    return value[:last] + "\\" + value[last:]


_latex_to_unicode_cached = lru_cache(maxsize=CACHE_SIZE)(_latex_to_unicode)


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_LIGATURE_HINT = re.compile(r"--|``|''|\?`|!`")
_LINE_BREAK = re.compile(r"[ \t]*\n\s*")


def inline_formulas(text: str) -> list[tuple[int, int]]:
    """Where the inline formulas of one paragraph are: the ``(start, end)`` of each
    ``$...$``, its dollars included, in text that writes math as Markdown does (a pasted
    list, an abstract).

    pandoc's ``tex_math_dollars`` rule (pandoc's manual, "Math"): the opening ``$`` has a
    non-space character right after it; the formula ends at the next ``$`` not escaped,
    which must have a non-space character (or an escaped space) right before it and no
    digit right after it;
    ``\\$`` is a dollar sign, never a delimiter. A ``$`` that opens no formula is a dollar
    sign, and the scan goes on after it (``costs $5 and $10``: no formula; ``$5 and $x$``:
    ``$x$``). A paragraph with ``$$`` (display math) has no inline formula.

    The one home of this rule: the display rule (:func:`readable_pieces`,
    :func:`paragraph_latex`), the titles of pasted lists (``naming.markup.clean_inline``)
    and the BibTeX writer's kept formulas (``formats.bibtex.encode.kept_formulas``) ask
    it. (A BibTeX field is LaTeX: :func:`latex_to_unicode` pairs its dollars as TeX does,
    ``$ x $`` is math there.) Never raises."""
    return _dollar_scan(text)[0]


def _dollar_scan(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """The formulas of :func:`inline_formulas` and the positions of the other bare ``$``
    (dollar signs); none of either in a paragraph with ``$$``, whose dollars are left to
    the LaTeX decoder (display math)."""
    formulas: list[tuple[int, int]] = []
    signs: list[int] = []
    if "$" not in text or "$$" in text:
        return formulas, signs
    at, size = 0, len(text)
    while (at := text.find("$", at)) >= 0:
        if is_escaped(text, at):
            at += 1
            continue
        end = _closing_dollar(text, at) if at + 1 < size and not text[at + 1].isspace() else -1
        if end < 0:
            signs.append(at)
            at += 1
            continue
        formulas.append((at, end + 1))
        at = end + 1
    return formulas, signs


def is_escaped(text: str, at: int) -> bool:
    """True when ``text[at]`` follows an odd number of backslashes: the symbol of a
    control symbol (``\\$``, ``\\{``), not the character itself; an even run
    (``\\\\$``) is escaped backslashes and leaves it bare."""
    start = at
    while start > 0 and text[start - 1] == "\\":
        start -= 1
    return (at - start) % 2 == 1


def _closing_dollar(text: str, opening: int) -> int:
    """Where the formula opened at ``text[opening]`` ends (its closing ``$``), or -1: the
    next ``$`` not escaped, after a non-space and before no digit (:func:`inline_formulas`)."""
    at = opening + 1
    while (at := text.find("$", at)) >= 0 and is_escaped(text, at):
        at += 1
    if at < 0 or text[at + 1 : at + 2].isdigit():
        return -1
    if text[at - 1].isspace() and not is_escaped(text, at - 1):  # ``\\ $`` is a control space
        return -1
    return at


def dollar_signs_escaped(text: str) -> str:
    """``text`` (one paragraph) with each ``$`` that is a dollar sign, not a formula's
    (:func:`inline_formulas`), escaped as ``\\$``: the LaTeX decoders then show it as
    written (``costs $5 and $10``) instead of reading ``$5 and $`` as math. Never raises."""
    signs = _dollar_scan(text)[1]
    if not signs:
        return text
    out, at = [], 0
    for sign in signs:
        out.append(text[at:sign] + "\\")
        at = sign
    out.append(text[at:])
    return "".join(out)


def readable_paragraphs(value: str | None) -> list[str]:
    """The paragraphs of a stored text (an abstract) as people read them: LaTeX decoded.

    The one display rule of abstracts, shared by ``show``, the Markdown, RIS and
    CSL-JSON exports (issue 15 "Display and exchange"). Paragraphs are split at blank
    lines; each is decoded once by :func:`latex_to_unicode` (``\\textbf{S}`` -> ``S``,
    ``20\\%`` -> ``20%``, ``$\\to$`` -> ``→``), and TeX's input ligatures become their
    characters also in a paragraph with no other markup (``---`` -> em dash, two
    backquotes -> ``“``), as they do where there is markup. A paragraph with nothing to
    decode is kept as it is (stripped); empty paragraphs are dropped. A ``$`` that opens no
    formula (:func:`inline_formulas`, pandoc's rule) stays a dollar sign. A line break inside a
    paragraph, with the indentation around it, is one space: a hard-wrapped abstract of
    a .bib file is one paragraph, as TeX typesets it. Never raises.
    """
    paragraphs = []
    for raw in _PARAGRAPH_BREAK.split(value or ""):
        text = raw.strip()
        if not text:
            continue
        if has_latex(text):
            text = latex_to_unicode(paragraph_latex(text)).strip()
        elif _LIGATURE_HINT.search(text):
            text = _join_segments([text])
        if "\n" in text:  # hard-wrapped: one line, as TeX and Markdown join it
            text = _LINE_BREAK.sub(" ", text)
        if text:
            paragraphs.append(text)
    return paragraphs


def readable_pieces(value: str | None) -> list[list[tuple[str, bool]]]:
    """:func:`readable_paragraphs` with each paragraph's inline math kept as written: a
    paragraph is a list of ``(text, is_math)`` pieces, a formula (``$[U,2U]$``, between
    two bare ``$``, with its dollars) verbatim, the text between decoded as
    :func:`readable_paragraphs` decodes a paragraph (white space at the edges kept).

    For writers whose readers render TeX math themselves (Markdown on GitHub and in
    Obsidian: ``$...$``). The formulas are those of :func:`inline_formulas` (pandoc's
    rule); a paragraph without any (``costs $5 and $10``, a ``$$``) is one text piece,
    decoded whole, its dollars signs. Never raises.
    """
    paragraphs = []
    for raw in _PARAGRAPH_BREAK.split(value or ""):
        text = _LINE_BREAK.sub(" ", raw.strip())
        if not text:
            continue
        formulas = inline_formulas(text)
        if not formulas:
            decoded = [(p, False) for p in readable_paragraphs(text)]
            if decoded:  # a paragraph that decodes to nothing (a lone brace) is dropped
                paragraphs.append(decoded)
            continue
        pieces: list[tuple[str, bool]] = []
        at = 0
        for start, end in formulas:
            pieces.append((_readable_piece(text[at:start]), False))
            pieces.append((text[start:end], True))
            at = end
        pieces.append((_readable_piece(text[at:]), False))
        kept = [piece for piece in pieces if piece[0]]
        if kept:
            paragraphs.append(kept)
    return paragraphs


def _readable_piece(text: str) -> str:
    """One piece of a paragraph between formulas, decoded (its edge spaces kept)."""
    core = text.strip()
    if not core:
        return " " if text else ""
    decoded = readable_paragraphs(core)
    shown = " ".join(decoded)
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    return f"{lead}{shown}{trail}"


def has_markup(value: str) -> bool:
    """True when ``value`` holds LaTeX commands or math: a ``\\`` or a ``$``. The BibTeX
    export writes an abstract from another source that has them as the text the display
    rule shows (``$20\\%$`` -> ``20%``). Braces, ``~`` and ligatures alone do not count:
    in a plain-text source (RIS) they are as often literal (``{x}`` in code), and the
    export escapes them as text. Never raises."""
    return "\\" in value or "$" in value


def paragraph_latex(text: str) -> str:
    """One paragraph of a stored text as the LaTeX the display rule reads in it: a ``$``
    that opens no formula (:func:`inline_formulas`: ``$5 and $10``) is a dollar sign, not
    math, a bare ``%`` a percent sign, not a comment; each comes back escaped
    (:func:`dollar_signs_escaped`: ``\\$``; ``\\%``). And as in
    a BibTeX value (:func:`bibtex_latex`), a bare ``&`` is an ampersand, not an alignment
    tab (pylatexenc printed ``A & \\emph{B}`` as ``A     B``), and ``\\textasciicircum{}``
    a ``^``. Never raises."""
    text = dollar_signs_escaped(text)  # a price, not math: "$5 and $10"
    return _BARE_PERCENT.sub(r"\\%", bibtex_latex(text))


#: What gives :func:`readable_paragraphs` something to do: a line break (a paragraph
#: break needs one), LaTeX (:data:`_LATEX_CHARS`) or an input ligature (:data:`_LIGATURE_HINT`).
_READABLE_WORK = re.compile(r"[\n\\{}$~`]|--|''")


def readable(value: str | None) -> str:
    """:func:`readable_paragraphs` joined by blank lines (``""`` for None or empty text).

    A value with nothing to decode (no line break, LaTeX or ligature) is its one
    paragraph, stripped, without splitting (the RIS and CSL-JSON exports read most
    fields so, issue 17)."""
    if not value:
        return ""
    if not _READABLE_WORK.search(value):
        return value.strip()
    return "\n\n".join(readable_paragraphs(value))


def fold(value: str) -> str:
    """Return the comparison form of ``value``: decoded, accent-free, ASCII punctuation, case-folded.

    ``fold('Schr{\\"o}dinger')== fold("Schrödinger") == "schrodinger"``; the
    non-breaking hyphen U+2011 and dashes become ``-``; runs of white space become
    one space. Input and output are ``str``; never raises. Cached for values up to
    :data:`CACHED_LENGTH` characters.
    """
    if len(value) <= CACHED_LENGTH:
        return _fold_cached(value)
    return _fold(value)


def _fold(value: str) -> str:
    return _SPACE.sub(" ", _fold_characters(value)).strip()


def _fold_characters(value: str) -> str:
    """:func:`fold` without its white-space rule: each character decoded, accent-free,
    case-folded; white space as it was (search words do not depend on it)."""
    text = latex_to_unicode(value)
    if not text.isascii():  # _FOLD_TABLE maps non-ASCII characters only
        text = _translated(text, _FOLD_TABLE)
    if not text.isascii():
        # Drop combining marks and map again (_UNMARK, issue 9).
        text = _translated(unicodedata.normalize("NFKD", text), _UNMARK)
    return text.casefold()


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _translated(text: str, table: dict[int, Any]) -> str:
    """``text.translate(table)`` for a table that maps non-ASCII characters to ASCII text,
    to nothing (None) or to themselves: one ``str.replace`` per distinct non-ASCII
    character of ``text`` that the table changes. ``str.translate`` looks every character
    up in the table; on an abstract with a few non-ASCII characters this is several times
    faster (issue 17 item 5: a quarter of the search words' CPU on the ACL Anthology)."""
    for char in set(_NON_ASCII.findall(text)):
        code = ord(char)
        # _UNMARK fills itself (__missing__); _FOLD_TABLE keeps what it does not list.
        new = table[code] if code in table or isinstance(table, _Unmark) else code
        if new is None:
            text = text.replace(char, "")
        elif new != code and new != char:
            text = text.replace(char, new if isinstance(new, str) else chr(new))
    return text


_fold_cached = lru_cache(maxsize=CACHE_SIZE)(_fold)


class _Unmark(dict[int, Any]):
    """``str.translate`` table: combining characters deleted, :data:`_FOLD_TABLE` applied,
    every other character kept. Filled lazily, one entry per distinct character seen,
    so it gives what ``"".join(c for c in s if not unicodedata.combining(c))`` followed
    by ``.translate(_FOLD_TABLE)`` gives, at C speed."""

    def __missing__(self, code: int) -> Any:
        value = None if unicodedata.combining(chr(code)) else _FOLD_TABLE.get(code, code)
        self[code] = value
        return value


_UNMARK = _Unmark()


def search_tokens(value: str) -> list[str]:
    """Split ``value`` into folded search words (``[0-9a-z]+``), in order.

    ``search_tokens("Self‑Correction in 3DGS!") == ["self", "correction", "in", "3dgs"]``.
    These are the only tokens written to the full-text index on either database.
    """
    # A long value (an abstract) is folded without collapsing its white space: one pass
    # less over it, the same words.
    folded = fold(value) if len(value) <= CACHED_LENGTH else _fold_characters(value)
    if _SCI_HINT.search(folded):
        folded = _SCI_PREFIX.sub(r"\1 ", folded)
    words = _WORD.findall(folded)
    if len(folded) <= MAX_WORD:
        return words
    return [w for w in words if len(w) <= MAX_WORD]


def search_document(*parts: str | None) -> str:
    """Join the search words of every non-empty part with single spaces (the indexed text)."""
    words: list[str] = []
    for part in parts:
        if part:
            words.extend(search_tokens(part))
    return " ".join(words)


def tag_key(name: str) -> str:
    """The form under which two tag names are one tag (``Tag.name_folded``): the name
    stripped and lower-cased, so ``Mast cell`` and ``mast cell `` are one tag."""
    return name.strip().lower()


def unique_tags(names: Iterable[str]) -> list[str]:
    """``names`` less blank names and later spellings of one tag (:func:`tag_key`), in
    order: the tags a paper ends up with when all of ``names`` are added to it."""
    unique: dict[str, str] = {}
    for name in names:
        if name.strip():
            unique.setdefault(tag_key(name), name)
    return list(unique.values())


def title_key(title: str) -> str:
    """Return a normalized title for duplicate detection: search words joined by one space."""
    return " ".join(search_tokens(title))


def plural(count: int, singular: str, many: str | None = None) -> str:
    """Return the form of a word for ``count`` things: ``singular`` for exactly one,
    else ``many`` (default: ``singular`` + "s"). ``plural(n, "has", "have")`` agrees a
    verb. The one plural rule of messages (fresh-user find: "exported 1 papers")."""
    if count == 1:
        return singular
    return many if many is not None else singular + "s"


def counted(count: int, singular: str, many: str | None = None) -> str:
    """Return ``count`` and its noun: ``"1 paper"``, ``"0 papers"``, ``counted(2,
    "entry", "entries")`` -> ``"2 entries"`` (:func:`plural`)."""
    return f"{count} {plural(count, singular, many)}"
