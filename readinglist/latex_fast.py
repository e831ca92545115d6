"""The fast path of :mod:`readinglist.text`'s LaTeX decoder: common markup in microseconds.

:func:`simple_latex` decodes the markup most bibliographies and abstracts hold
(case-protecting braces, accents, escaped specials, font commands, simple inline
math) exactly as pylatexenc would, and gives up (None) on anything else;
:func:`bibtex_latex` prepares a BibTeX value for it; :func:`group_spaced_commands`
reads accents written with a space as TeX does. Split from :mod:`readinglist.text`,
which re-exports them and is the one entry point (``latex_to_unicode``).

Imports nothing of the package; pylatexenc is imported on first use.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

# --- the fast path for common markup (issue 9) -------------------------------------------
# pylatexenc takes about 2 ms for a title and 9 ms for an abstract; most LaTeX in
# bibliographies and abstracts is case-protecting braces, accents, escaped specials
# and font commands. simple_latex decodes exactly that and gives up on anything else.
# It is the one fast decoder: latex_to_unicode uses it as it is, the BibTeX reader
# with ``bibtex=True`` (see simple_latex). Its output must be what pylatexenc gives,
# character for character: search text, duplicate keys and folded names stored by
# earlier versions are compared with new ones. This was checked on every distinct
# title, author list, venue and abstract with LaTeX in the ACL Anthology and Beebe
# fisheries files (benchmarks/check_latex_fast_path.py), and a hypothesis test
# (tests/test_performance_paths.py) compares the two on generated markup.

_SIMPLE_SPECIAL = re.compile(r"[{}\\$~]")
#: Inline math of letters, digits, operators, sub- and superscripts and plain groups only
#: (no commands, no ``--``, quotes or line breaks), e.g. ``$O(n^{2})$``, ``$F_1$``.
_SIMPLE_MATH = re.compile(r"\$(?!\$)((?:[A-Za-z0-9 +=()\[\],.;:/|<>!*^_{}]|-(?!-))+)\$")
#: Inline math that :data:`_SIMPLE_MATH` does not decode but whose text pylatexenc gives
#: alike alone and within its paragraph (a math node's text is its own contents' text,
#: stripped): ASCII letters, digits, operators, quotes, groups and control words
#: (``$S' \\in L(G)$``, ``$O(n^2\\varepsilon^{-2})$``); no other command, ``$``,
#: comment, alignment tab, tie or line break. Decoded by the ``formula`` argument of
#: :func:`simple_latex` (issue 17 item 5: pylatexenc over a whole abstract for one
#: formula took a tenth of the search words' CPU on the ACL Anthology).
_FORMULA = re.compile(r"\$(?!\$)((?:[A-Za-z0-9 +=()\[\],.;:/|<>!?*^_{}'-]|\\[A-Za-z]+)+)\$(?!\$)")
#: One command: an accent and its letter (across white space, but not a blank line: that
#: ends the paragraph, and pylatexenc drops the accent; a base ``\i`` only when nothing
#: that TeX would read as more of the control word, or skip after it, follows), a letter command (with the white
#: space or ``{}`` that ends it, but not a blank line), an escaped special, a control space,
#: or a command name before a ``{`` (its argument follows as a group).
_SIMPLE_TOKEN = re.compile(
    r"""\\(?:
        (?P<sym>[`'^"~=.])[ \t\r]*(?:\n[ \t\r]*)?(?:\{(?P<a1>\\?[A-Za-z])\}|(?P<a2>[A-Za-z]|\\[A-Za-z](?![A-Za-z\s])))
      | (?P<cmd>[cvuHkrdb])(?:\{(?P<b1>\\?[A-Za-z])\}|(?=\s)[ \t\r]*(?:\n[ \t\r]*)?(?P<b2>[A-Za-z]))
      | (?P<letter>ss|aa|AA|ae|AE|oe|OE|[oOlLij])(?![A-Za-z])(?:\{\}|(?![ \t\r\n]*\n\n)[ \t\r\n]*)
      | (?P<esc>[&%$#_{}])
      | (?P<space>[ ])(?=\S)
      | (?P<macro>[A-Za-z]+)(?=\{)
    )""",
    re.VERBOSE,
)
#: A letter in Unicode's sense: pylatexenc reads it as part of a command name.
_UNICODE_LETTER = re.compile(r"[^\W\d_]")
#: Font commands whose one argument is printed as it is (LaTeX's text-font commands,
#: ``\mbox`` and ``\operatorname``). pylatexenc 2.10 knows that ``\texttt``, ``\textsf``, ``\textup``,
#: ``\textmd`` and ``\mbox`` take an argument but has no text for them, so it drops the
#: argument (``we introduce $\texttt{Spotter}$`` lost the method's name); :func:`_converter`
#: gives pylatexenc the rule for every command here.
FONT_COMMANDS = frozenset(
    {
        "emph",
        "textit",
        "textbf",
        "textsc",
        "textrm",
        "textsf",
        "textsl",
        "textup",
        "texttt",
        "textmd",
        "textnormal",
        "mbox",
        "operatorname",  # amsmath's operator names in math (``$\operatorname{OU}$``)
    }
)
#: LaTeX's text-mode commands that take no argument and print nothing of their own:
#: old-style font and size declarations (``{\\sc am}``, ``{\\bf x}``), spacing and
#: line-breaking commands. pylatexenc does not know most of them and drops them, which is
#: their meaning; :func:`lost_braces` leaves them alone, and the BibTeX allow-list
#: (``formats.bibtex.inert``) counts them as inert markup.
TEXT_DECLARATIONS = frozenset(
    {
        *("it", "bf", "sc", "tt", "rm", "sf", "sl", "em", "up", "md", "normalfont"),
        *("itshape", "bfseries", "scshape", "ttfamily", "rmfamily", "sffamily", "slshape"),
        *("upshape", "mdseries"),
        *("small", "footnotesize", "scriptsize", "tiny", "large", "Large", "normalsize"),
        *("relax", "protect", "nobreak", "allowbreak", "linebreak", "newline", "par"),
        *("quad", "qquad", "enspace", "enskip", "thinspace", "space"),
        *("negthinspace", "nobreakspace", "slash", "xspace", "unskip", "noindent"),
    }
)
#: Accent commands and the combining characters pylatexenc gives for them (LaTeX's
#: OT1/T1 accents).
LATEX_ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
#: Letter commands of LaTeX's text symbols and the characters pylatexenc gives for them.
LATEX_LETTERS = {
    "ss": "ß",
    "aa": "å",
    "AA": "Å",
    "o": "ø",
    "O": "Ø",
    "l": "ł",
    "L": "Ł",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "i": "ı",
    "j": "ȷ",
}
#: An accent or letter command followed by white space, which TeX skips after a control
#: word (and before an accent's argument): ``\\c cois`` is ``\\c{c}ois``, ``\\ss e`` is
#: ``\\ss{}e``. Single-letter accents and letter commands only; ``\\t`` takes two letters.
_ACCENT_CLASS = re.escape("".join(LATEX_ACCENTS))
_LETTER_NAMES = "|".join(sorted(LATEX_LETTERS, key=len, reverse=True))
_SPACED_COMMAND = re.compile(
    rf"(?<!\\)\\(?:(?P<acc>[{_ACCENT_CLASS}])\s+(?P<arg>\\[ij](?![A-Za-z])|[A-Za-z])"
    rf"|(?P<let>{_LETTER_NAMES})\s+(?=[A-Za-z]))"
)


def group_spaced_commands(value: str) -> str:
    """Return ``value`` with each accent or letter command written with a space before its
    letter (``Fran\\c cois``, ``Sz\\H ol\\H o``, ``Stra\\ss e``) braced as one special
    character (``Fran{\\c{c}}ois``, ``Stra{\\ss}e``), as TeX reads it.

    BibTeX's name splitter (and bibtexparser's) cuts a name at every space outside braces,
    so ``Fran\\c cois Dupont`` gave the given name ``Fran\u0327`` and a ``von`` part
    ``cois``; grouped first, it is ``François Dupont``. Decoding is unchanged: the
    decoders read both forms alike. Never raises.
    """
    if "\\" not in value:
        return value
    return _SPACED_COMMAND.sub(_grouped_command, value)


def _grouped_command(match: re.Match[str]) -> str:
    if match.group("let"):
        return "{\\" + match.group("let") + "}"
    return "{\\" + match.group("acc") + "{" + match.group("arg") + "}}"


_TEX_LIGATURES = re.compile(r"---|--|``|''|\?`|!`")
_LIGATURE_CHARS = {
    "---": "\u2014",
    "--": "\u2013",
    "``": "\u201c",
    "''": "\u201d",
    "?`": "¿",
    "!`": "¡",
}
#: Marks a decoded piece among the pieces :func:`simple_latex` collects (text that
#: takes no part in ligatures).
_DECODED = "\x00"


def simple_latex(
    text: str, *, bibtex: bool = False, formula: Callable[[str], str] | None = None
) -> str | None:
    """Decode the common LaTeX of titles, names and abstracts without pylatexenc, or give up.

    Args:
        text: LaTeX text (a field value, a title from an abstract list).
        bibtex: the rules of the BibTeX reader's raw values instead of those of
            :func:`latex_to_unicode`.

    Returns:
        What pylatexenc's ``LatexNodes2Text(strict_latex_spaces=True)`` gives for
        ``text``, or None when ``text`` holds anything this does not decode (the
        caller then asks pylatexenc). Both modes decode case-protecting braces, accent
        commands (``\\'e``, ``{\\"o}``, ``\\c{c}``, ``\\"{\\i}``), letter commands
        (``\\ss``, ``{\\aa}``; a blank line after one is left to pylatexenc), escaped
        specials (``\\&``), ``~``, the font commands of :data:`FONT_COMMANDS`
        (``\\emph``, ``\\textit``, ``\\texttt``, ``\\mbox`` ...), and TeX's input
        ligatures (``--``, ``---``, two backquotes or quotes, ``?```, ``!```) within one
        brace group, as pylatexenc does.

        Only without ``bibtex``: plain inline math (``$O(n^{2})$``: letters, digits,
        operators, sub- and superscripts, groups) and control spaces (``a\\ b``); a
        bare ``&`` (an alignment tab) or a NUL gives None.

        ``formula`` (not with ``bibtex``): called with an inline formula this does not
        decode itself but whose text does not depend on what surrounds it (``$\\in$``,
        ``$S'$``: :data:`_FORMULA`), it gives that formula's text (``latex_to_unicode``
        passes pylatexenc's); None without it, or when it raises ValueError.

        Only with ``bibtex``: a command pylatexenc does not know (``\\geoname{x}``)
        gives its argument ``x``; a bare ``&`` is the
        character (the reader escapes it before asking pylatexenc); a letter command
        ends at its last ASCII letter (``\\ss\u00e9`` is ``\u00df\u00e9``, as BibTeX
        and pdfTeX read it; pylatexenc reads one unknown command ``\\ss\u00e9``); math
        gives None.
    """
    if not bibtex and ("&" in text.replace("\\&", "") or _DECODED in text):
        return None
    segments: list[str] = []
    current: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        special = _SIMPLE_SPECIAL.search(text, i)
        if special is None:
            current.append(text[i:])
            break
        if special.start() > i:
            current.append(text[i : special.start()])
        i = special.start()
        ch = text[i]
        if ch == "~":
            current.append("\u00a0")
            i += 1
            continue
        if ch in "{}":
            piece: str | None = ""  # a group boundary: ligatures end here
            i += 1
        elif ch == "\\":
            match = _SIMPLE_TOKEN.match(text, i)
            piece = None if match is None else _command(match, bibtex)
            if match is None or piece is None:
                return None
            i = match.end()
        else:  # "$"
            found = None if bibtex else _math(text, i, formula)
            if found is None:
                return None
            piece, i = found
        segments.append("".join(current))
        current = []
        if piece:
            segments.append(piece)
    segments.append("".join(current))
    return _join_segments(segments)


def _math(text: str, i: int, formula: Callable[[str], str] | None) -> tuple[str, int] | None:
    """The inline math starting at ``text[i]`` (a ``$``) as :func:`simple_latex` gives it
    (marked :data:`_DECODED`), and where it ends; None when it is not decoded here."""
    math = _SIMPLE_MATH.match(text, i)
    if math is not None and _balanced(math.group(1)):
        # pylatexenc's text for inline math: the formula less its braces and outer spaces.
        return _DECODED + math.group(1).replace("{", "").replace("}", "").strip(), math.end()
    math = _FORMULA.match(text, i)
    if math is None or formula is None or not _balanced(math.group(1)):
        return None
    try:
        return _DECODED + formula(math.group()), math.end()
    except ValueError:
        return None


def _balanced(text: str) -> bool:
    """True when every brace of ``text`` closes one opened before it and all are closed."""
    depth = 0
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _command(match: re.Match[str], bibtex: bool) -> str | None:
    """The piece for a command matched by ``_SIMPLE_TOKEN``: ``""`` for a command whose
    argument group follows as it is, the decoded text marked with ``_DECODED``, or None
    when it is left to pylatexenc (see :func:`simple_latex` for the two modes)."""
    macro = match.group("macro")
    if macro:
        known = _drops_to_argument(macro) if bibtex else macro in FONT_COMMANDS
        return "" if known else None
    if match.group("esc"):
        return _DECODED + match.group("esc")
    if match.group("space"):
        return None if bibtex else _DECODED + " "
    letter = match.group("letter")
    if letter:
        if not bibtex and _UNICODE_LETTER.match(match.string, match.end("letter")):
            return None
        return _DECODED + LATEX_LETTERS[letter]
    accented = _accented_letter(match)
    return None if accented is None else _DECODED + accented


_FONTS_LONGEST_FIRST = sorted(FONT_COMMANDS, key=len, reverse=True)


@lru_cache(maxsize=1_000)
def _drops_to_argument(name: str) -> bool:
    """True if ``\\name{x}`` is decoded as ``x`` in BibTeX values: a font command
    (:data:`FONT_COMMANDS`) or a command pylatexenc does not know (it drops those and keeps the
    group that follows)."""
    if name in FONT_COMMANDS:
        return True
    from pylatexenc.latex2text import get_default_latex_context_db as text_db
    from pylatexenc.latexwalker import get_default_latex_context_db as walker_db

    return text_db().get_macro_spec(name) is None and walker_db().get_macro_spec(name) is None


#: A control word not followed by an argument (``{`` or ``[``).
_BARE_WORD = re.compile(r"\\([A-Za-z]+)(?![A-Za-z{\[])")


def lost_braces(value: str) -> str:
    """``value`` with each control word unknown to LaTeX and pylatexenc that takes no
    argument written as text, so that a decoder (which drops unknown commands) keeps
    its words: a name that starts with a font command (:data:`FONT_COMMANDS`) is that
    command with its braces lost, as some proceedings files write ``\\emph{correlation}``
    (``\\emphcorrelation`` -> ``correlation``); any other keeps its name (``\\sqrtn`` ->
    ``sqrtn``). Commands with an argument and known commands are left alone.

    The decoder's callers apply it first (``text.latex_to_unicode``, and
    :func:`bibtex_latex` for a BibTeX reader's value), so every display of a value (``show``,
    Markdown, CSL-JSON, RIS) and an export's text of it agree. Never raises."""

    def word(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in FONT_COMMANDS or name in TEXT_DECLARATIONS or name in LATEX_LETTERS:
            return match.group(0)
        if not _drops_to_argument(name):
            return match.group(0)
        font = next((f for f in _FONTS_LONGEST_FIRST if name.startswith(f)), "")
        return name[len(font) :] if font and len(name) > len(font) else name

    return _BARE_WORD.sub(word, value) if "\\" in value else value


def _accented_letter(match: re.Match[str]) -> str | None:
    """The character of an accent command (groups ``sym``/``cmd`` for the accent,
    ``a1``/``a2``/``b1``/``b2`` for the base letter): ``\\'e`` -> ``é``, ``\\"{\\i}``
    -> ``ï`` (NFC). None for a base that is another command than dotless
    ``\\i``/``\\j`` (left to pylatexenc)."""
    accent = LATEX_ACCENTS[match.group("sym") or match.group("cmd")]
    base = next(g for g in match.group("a1", "a2", "b1", "b2") if g)
    if base.startswith("\\"):
        if base not in ("\\i", "\\j"):
            return None
        base = base[1]
    return unicodedata.normalize("NFC", base + accent)


def _join_segments(segments: list[str]) -> str:
    """Join the pieces :func:`simple_latex` collected: a piece that starts with
    ``_DECODED`` is decoded text taken as it is; in the others TeX's input ligatures
    become their characters, within the piece only, as pylatexenc does within one
    brace group."""
    parts = []
    for segment in segments:
        if segment.startswith(_DECODED):
            parts.append(segment[1:])
        elif "-" in segment or "`" in segment or "'" in segment:
            parts.append(_TEX_LIGATURES.sub(lambda m: _LIGATURE_CHARS[m.group()], segment))
        else:
            parts.append(segment)
    return "".join(parts)


#: LaTeX that pylatexenc 2.11 decodes to nothing or to U+02C6, and what gives the
#: character the writer meant (``formats.bibtex`` writes these for unbalanced braces).
_PYLATEXENC_GAPS = (
    ("\\textbraceleft{}", "\\{"),
    ("\\textbraceright{}", "\\}"),
    ("\\textasciicircum{}", "^"),
)
_BARE_AMPERSAND = re.compile(r"(?<!\\)&")


def bibtex_latex(value: str) -> str:
    """Return a BibTeX field value rewritten so that pylatexenc decodes it as BibTeX means it.

    ``\\textbraceleft{}``, ``\\textbraceright{}`` and ``\\textasciicircum{}`` (which
    pylatexenc 2.11 decodes to nothing or to U+02C6) become ``\\{``, ``\\}`` and
    ``^``; a bare ``&`` (an alignment tab for pylatexenc, a character in a
    bibliography) becomes ``\\&``; a control word that pylatexenc would drop is written as
    text (:func:`lost_braces`). Give the result to :func:`simple_latex` with
    ``bibtex=True`` and, when that gives up, to :func:`latex_to_unicode`. Never raises.
    """
    if "\\text" in value:
        for latex, simpler in _PYLATEXENC_GAPS:
            value = value.replace(latex, simpler)
    if "&" in value:
        value = _BARE_AMPERSAND.sub(r"\\&", value)
    return lost_braces(value)
