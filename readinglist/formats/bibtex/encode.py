"""Record columns and raw field values as BibTeX text: the inverse of :mod:`.fields`.

Fourth floor of :mod:`readinglist.formats.bibtex`, beside :mod:`.reader` (imports
:mod:`.values` and :mod:`.fields`, to check that a name written splits back into the
same parts). Rules, used by :mod:`.writer` for generated entries:

* a column is encoded so that it decodes back to itself: ``\\ { } $ & % # _ ~ ^``
  and the TeX ligatures ``--``, two backquotes, ``''``, ``?```, ``!``` are escaped,
  and in a title each capital that BibTeX's ``change.case$`` would lower-case is
  protected word by word (``{B}ayesian``, ``{GPU}``), never the whole title;
* in every other field except verbatim ones (:data:`VERBATIM_FIELDS`, names ending
  in ``url``, and values that are a bare URL) a bare ``& % $ # _`` outside ``$...$``
  math and ``\\url``/``\\path``/``\\href`` arguments is escaped; ``\\%`` and
  ``$\\to$`` stay; unbalanced braces become ``\\textbraceleft{}`` /
  ``\\textbraceright{}``;
* text with inline math (a pasted title, :func:`math_title`; a plain-text abstract,
  :func:`latex_of_text`) keeps each formula as written when it is inert math LaTeX reads
  as written (:func:`kept_formulas`); the text around it is encoded as above;
* ``dialect="bibtex"`` writes ASCII: non-ASCII characters become LaTeX (pylatexenc's
  ``UnicodeToLatexEncoder`` in the ``{\\"o}`` form BibTeX treats as one special
  character); a character pylatexenc cannot encode so that it decodes back is kept
  as UTF-8.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, Literal

from readinglist.bounds import is_entry_type_name
from readinglist.citekeys import inert_key
from readinglist.formats.bibtex.fields import decode_text, parse_names
from readinglist.formats.bibtex.inert import is_inert, is_kernel_math, offending
from readinglist.formats.bibtex.values import ValueSyntaxError, matching_brace
from readinglist.records import LIST_FIELD_PREFIX, Person
from readinglist.text import (
    LATEX_ACCENTS,
    has_markup,
    is_escaped,
    latex_to_unicode,
    readable,
    readable_pieces,
)

Dialect = Literal["bibtex", "biblatex"]

#: Fields written without any escaping (biblatex's verbatim fields and ``pdf``).
VERBATIM_FIELDS: frozenset[str] = frozenset(
    {"url", "doi", "eprint", "file", "pdf", "urlraw", "verba", "verbb", "verbc"}
)
_BARE_URL = re.compile(r"^\s*(?:https?|ftp)://\S+\s*$")

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


#: The accent command of each combining mark LaTeX's accents give (``latex_fast``'s table).
_ACCENT_OF_MARK = {mark: command for command, mark in LATEX_ACCENTS.items()}


def _accented(char: str, exact: bool) -> str:
    """:func:`_encode_char` of ``char``; when that leaves it non-ASCII and it is a letter
    with LaTeX accents (``ǿ``: ``ø`` + U+0301, NFD), those accent commands on the letter's
    LaTeX (``{\\'{\\o}}``)."""
    latex = _encode_char(char, exact)
    if latex.isascii():
        return latex
    decomposed = unicodedata.normalize("NFD", char)
    base, marks = decomposed[0], decomposed[1:]
    if not marks or any(mark not in _ACCENT_OF_MARK for mark in marks):
        return latex
    piece = base if base.isascii() else _encode_char(base, exact)
    if not piece.isascii():
        return latex
    for mark in marks:
        inner = piece[1:-1] if piece.startswith("{\\") and piece.endswith("}") else piece
        piece = f"{{\\{_ACCENT_OF_MARK[mark]}{{{inner}}}}}"
    return piece


def ascii_latex(text: str, exact: bool = False) -> str:
    """Replace non-ASCII characters by LaTeX (bibtex dialect); see :func:`_encode_char`.
    ASCII text is returned as it is.

    The text is first put in Unicode normal form C, so ``e`` + U+0301 is ``é`` and
    written ``{\\'e}`` as a precomposed one is; a combining mark left over (no
    precomposed form: ``q`` + U+0301) that is one of LaTeX's accents becomes that accent
    command on the character before it (``{\\'{q}}``)."""
    if text.isascii():
        return text
    out: list[str] = []
    previous = ""
    for ch in unicodedata.normalize("NFC", text):
        if ch.isascii():
            out.append(ch)
        elif previous.isalpha() and out[-1].isascii() and ch in _ACCENT_OF_MARK:
            base = out.pop()  # a letter: ``q`` or its LaTeX (``{\\o}``)
            inner = base[1:-1] if base.startswith("{\\") and base.endswith("}") else base
            out.append(f"{{\\{_ACCENT_OF_MARK[ch]}{{{inner}}}}}")
        else:
            out.append(_accented(ch, exact))
        previous = ch if not unicodedata.combining(ch) else previous
    return "".join(out)


_BRACES = re.compile(r"[{}]")


def _braces_balanced(text: str) -> bool:
    if "}" not in text:
        return "{" not in text
    depth = 0
    for brace in _BRACES.findall(text):  # the braces only: abstracts are long
        if brace == "{":
            depth += 1
        else:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def escape_literal(text: str, dialect: Dialect) -> str:
    """Encode plain Unicode text so that it decodes back to itself (the inverse of
    :func:`~readinglist.formats.bibtex.fields.decode_text`)."""
    if _LITERAL_RE.search(text):
        balanced = _braces_balanced(text)
        left = "\\{" if balanced else "\\textbraceleft{}"
        right = "\\}" if balanced else "\\textbraceright{}"
        table = {**_LITERAL_CHARS, "{": left, "}": right}
        text = _LITERAL_RE.sub(lambda m: table[m.group()], text)
    if "-" in text or "`" in text or "'" in text:
        text = _LIGATURES.sub(lambda m: m.group() + "{}", text)
    return ascii_latex(text, exact=True) if dialect == "bibtex" else text


_TITLE_WORD = re.compile(r"[^\W_]+")


def encode_title(title: str, dialect: Dialect) -> str:
    """Encode a title, protecting each word with a capital BibTeX's ``change.case$ "t"``
    would lower.

    ``change.case$`` keeps the first character of the title and the first character
    after a colon followed by white space, and leaves brace groups alone (BibTeX
    manual, "Tame the BeaST" section 4). Each word with such a capital is wrapped
    whole, as Better BibTeX does (``{Bayesian}``, ``{GPU}``, ``{iPhone}``, ``{FedAST}``),
    never letter by letter (``{B}ayesian``): a diff of a re-written entry shows words.
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
        if capitals == [0] and kept:
            continue
        protected, end = word, match.end()
        out.append(escape_literal(title[pos:start], dialect))
        out.append("{" + escape_literal(protected, dialect) + "}")
        pos = end
    out.append(escape_literal(title[pos:], dialect))
    return "".join(out)


#: Stands for one formula while :func:`encode_title` protects the words around it: a
#: private-use character, neither a word character nor one :func:`escape_literal` changes.
_FORMULA_MARK = "\ue000"


#: An escaped character (``\\%``) or a control word: what :func:`kept_formulas` skips.
_ESCAPED = re.compile(r"\\.")


def kept_formulas(pieces: Sequence[tuple[str, bool]]) -> bool:
    """True when each formula of a paragraph's ``(text, is_math)`` pieces
    (:func:`readinglist.text.readable_pieces`, whose formulas are where pandoc's rule
    puts them, :func:`readinglist.text.inline_formulas`: ``$5 and $10`` are prices, no
    formula) may be written as the math it is: no bare ``% # &`` (in math a comment, a
    parameter, an alignment tab: LaTeX stops), balanced braces, and kernel math only
    (:func:`~.inert.is_kernel_math`: ``$\\input{x}$``, ``$\\item$``, ``$\\cite{*}$`` and
    ``$\\frac$`` are not)."""
    for piece, is_math in pieces:
        if not is_math:
            continue
        bare = _ESCAPED.sub("", piece)
        if any(ch in bare for ch in "%#&") or not _braces_balanced(piece):
            return False
        if not is_kernel_math(piece):
            return False
    return True


def math_title(source: str) -> str | None:
    """A title written as TeX source with inline math, as a pasted list gives it
    (``Global Identifiability of $\\ell_1$-based Dictionary Learning``), as the raw LaTeX
    a BibTeX paper's ``title`` holds, or None.

    Each formula (a ``$...$`` piece of :func:`readinglist.text.readable_pieces`) is kept
    as written, in braces when it holds a capital (``{$M$}-estimation``: BibTeX's
    ``change.case$`` lowers letters outside braces, math included, "Tame the BeaST"
    section 4); the text between formulas is the text the display rule shows, encoded as
    :func:`encode_title` encodes a title (words with capitals protected, specials
    escaped), the formulas counted as neither words nor white space. The result is UTF-8
    (the bibtex dialect makes it ASCII on export, as every raw value).

    None when ``source`` has no formula (no ``$``, or only dollar signs by pandoc's rule:
    ``costs $5 and $10``, :func:`readinglist.text.inline_formulas`), more than one paragraph, or a formula that is not kernel math (:func:`~.inert.is_kernel_math`:
    ``$\\input{x}$``; the title is then written as the text it displays, as before).
    Never raises.
    """
    if "$" not in source or _FORMULA_MARK in source:
        return None
    paragraphs = readable_pieces(source)
    if len(paragraphs) != 1 or not any(is_math for _, is_math in paragraphs[0]):
        return None
    formulas = [piece for piece, is_math in paragraphs[0] if is_math]
    if not kept_formulas(paragraphs[0]):
        return None
    text = "".join(_FORMULA_MARK if is_math else piece for piece, is_math in paragraphs[0])
    encoded = encode_title(text, "biblatex").split(_FORMULA_MARK)
    if len(encoded) != len(formulas) + 1:  # the text decoded to the mark itself
        return None
    out = [encoded[0]]
    for formula, after in zip(formulas, encoded[1:], strict=True):
        out.append("{" + formula + "}" if any(ch.isupper() for ch in formula) else formula)
        out.append(after)
    return "".join(out)


_VERBATIM_MACROS = re.compile(r"\\(?:url|path|nolinkurl|href|verb)\b")


def escape_raw(value: str, dialect: Dialect) -> str:
    """:func:`_escape_specials` then :func:`_balance_braces`: an inert LaTeX value
    (:func:`~.inert.is_inert`) that BibTeX can read and LaTeX typesets as it reads."""
    return _balance_braces(_escape_specials(value, dialect))


def copy_latex(value: str, dialect: Dialect, display: Callable[[str], str] = decode_text) -> str:
    """A LaTeX value (read from BibTeX, unchanged since) as an export writes it: copied
    (:func:`escape_raw`) when it is inert markup (:func:`~.inert.is_inert`), else the
    text it displays (``display``: :func:`~.fields.decode_text`, the display rule of a
    field; the value itself when that is blank) escaped as text, so ``\\input{x}`` or ``\\UseName{write}18`` never reach
    LaTeX as commands (the allow-list rule of :mod:`.inert`)."""
    if is_inert(value):
        return escape_raw(value, dialect)
    shown = display(value)  # nothing shown (``\\input{x}``): the value, as text
    text = escape_literal(shown if shown.strip() else value, "biblatex")
    return ascii_latex(text) if dialect == "bibtex" else text


#: A ``~`` between two words or before a bracket (``Optimization~(IFPO)``, ``Fig.~3``):
#: the tie the display rule shows as a no-break space, kept a tie (``~``) in BibTeX.
_TIE = re.compile(r"(?<=\S)~(?=\S)")


def latex_of_text(name: str, value: str) -> str:
    """Plain text (a value from RIS, CSL-JSON, a pasted list, an online answer, the
    command line) as the LaTeX a BibTeX paper's field ``name`` holds (UTF-8 kept; the
    ``bibtex`` dialect makes it ASCII on export). The one rule for text that enters
    LaTeX, used by the writer for papers of such sources and by merges into BibTeX
    papers: nothing of it is ever copied raw.

    * verbatim values (:func:`is_verbatim`: URLs, DOIs, eprints, files) get their
      ``\\ { } ^`` percent-encoded (RFC 3986: they are not URL characters);
    * ``pages``: each side of a ``--`` range escaped, the ``--`` kept (plain text
      writes its range dash so; ``-{}-`` would print two hyphens);
    * ``abstract`` holding LaTeX commands or math (a pasted conference abstract's
      ``$20\\%$``) or a tie (``Optimization~(IFPO)``): its formulas kept as written when
      each may be (:func:`kept_formulas`), the text the display rule shows around them
      (:func:`readinglist.text.readable_pieces`: a tie is a no-break space, written ``~``)
      escaped; when one formula may not (``$\\input{x}$``), the whole
      text the display rule shows (:func:`readinglist.text.readable`), escaped;
    * anything else: :func:`escape_literal`.
    """
    if is_verbatim(name, value):
        return value.translate(_URL_TEX)
    if name == "pages":
        return "--".join(escape_literal(p, "biblatex") for p in normalize_pages(value).split("--"))
    if name == "abstract" and (has_markup(value) or _TIE.search(value)):
        return _abstract_latex(value)
    return escape_literal(value, "biblatex")


def _abstract_latex(value: str) -> str:
    """A plain-text abstract with LaTeX markup as LaTeX: its formulas kept as written
    when each may be (:func:`kept_formulas`), the text around them as the display rule
    shows it, escaped; else the whole text the display rule shows, escaped."""
    paragraphs = readable_pieces(value)
    if not all(kept_formulas(pieces) for pieces in paragraphs):
        return escape_literal(readable(value), "biblatex")
    return "\n\n".join(
        "".join(piece if is_math else escape_literal(piece, "biblatex") for piece, is_math in p)
        for p in paragraphs
    )


#: The characters without which :func:`escape_raw` (biblatex) changes nothing.
_RAW_SPECIALS = re.compile(r"[&%$#_{}\\^]")


def needs_escaping(value: str) -> bool:
    """True when a raw (LaTeX) text value cannot be copied as written: a bare ``& % # _``
    outside math, an unbalanced ``$`` or brace, or markup that is not inert
    (:func:`~.inert.is_inert`)."""
    if _RAW_SPECIALS.search(value) is None:  # most values: nothing to look at
        return False
    return not is_inert(value) or escape_raw(value, "biblatex") != value


def must_rewrite(name: str, value: str) -> bool:
    """True when the raw value of field ``name`` cannot be copied as written: markup
    that is not inert (:func:`~.inert.offending`), or (not verbatim) a bare
    ``& % # _``, an unbalanced ``$`` or brace. :func:`escaping_needs` for one value:
    what an export replaces in place (:mod:`.patch`)."""
    if _RAW_SPECIALS.search(value) is None:  # most values: nothing to look at
        return False
    if offending(value) is not None:
        return True
    return not is_verbatim(name, value) and escape_raw(value, "biblatex") != value


def escaping_needs(values: Mapping[str, str]) -> tuple[bool, dict[str, str]]:
    """What an entry's raw ``values`` need before an export may write them: whether one
    (not verbatim) has a bare ``& % # _``, an unbalanced ``$`` or brace (escaped on
    export), and, by field name, the first piece that is not inert LaTeX
    (:func:`~.inert.offending`) of each value written as text on export. Either makes
    the entry's text unfit to be copied."""
    escaped, as_text = False, {}
    for name, value in values.items():
        if _RAW_SPECIALS.search(value) is None:  # most values: nothing to look at
            continue
        piece = offending(value)
        if piece is not None:
            as_text[name] = piece
        elif not escaped and not is_verbatim(name, value):
            escaped = escape_raw(value, "biblatex") != value
    return escaped, as_text


def _balance_braces(value: str) -> str:
    """Replace braces that have no partner by ``\\textbraceleft{}`` / ``\\textbraceright{}``.

    BibTeX counts every brace, escaped or not ("Tame the BeaST", section 2.2): one
    stray ``}`` in an abstract ends the field early and loses the rest of the
    entry. An unmatched brace written as LaTeX's control symbol ``\\{`` / ``\\}`` (its
    backslash not itself escaped: ``\\\\{`` is a line break and a brace) is one
    character, a literal brace: the pair is replaced whole (``Thi\\{'ebaux`` ->
    ``Thi\\textbraceleft{}'ebaux``, which decodes to the same text; replacing the
    brace alone would leave ``\\\\textbraceleft``, a line break and a word). Balanced
    values are returned unchanged.
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
    out: list[str] = []
    for i, ch in enumerate(value):
        if i not in unmatched:
            out.append(ch)
            continue
        if is_escaped(value, i):
            out.pop()  # the backslash of ``\\{``: the pair is the one literal brace
        out.append("\\textbraceleft{}" if ch == "{" else "\\textbraceright{}")
    return "".join(out)


#: The characters :func:`_escape_specials` looks at; it copies the text between them.
_SPECIAL_OR_COMMAND = re.compile(r"[\\$&%#_]")


def _escape_specials(value: str, dialect: Dialect) -> str:
    """Escape bare ``& % $ # _`` outside math and URL arguments; keep existing LaTeX.

    A ``$`` opens math only when a closing ``$`` follows; otherwise it is escaped.
    Arguments of ``\\url``, ``\\path``, ``\\nolinkurl``, ``\\href`` (first) and
    ``\\verb`` are copied unchanged.
    """
    if not any(ch in value for ch in "&%$#_"):
        return ascii_latex(value) if dialect == "bibtex" else value
    out: list[str] = []
    i = 0
    n = len(value)
    in_math = False
    while i < n:
        found = _SPECIAL_OR_COMMAND.search(value, i)
        if found is None:
            out.append(value[i:])
            break
        if found.start() > i:  # plain text up to the next character that matters
            out.append(value[i : found.start()])
            i = found.start()
        ch = value[i]
        if ch == "\\":
            macro = _VERBATIM_MACROS.match(value, i)
            if macro and not in_math:
                j = macro.end()
                while j < n and value[j] == " ":
                    j += 1
                if j < n and value[j] == "{":
                    try:
                        j = matching_brace(value, j) + 1
                    except ValueSyntaxError:
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
    return ascii_latex(text) if dialect == "bibtex" else text


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


#: Characters a URL never holds unencoded (RFC 3986) but TeX reads as commands, groups
#: and ``^^`` notation.
_URL_TEX = str.maketrans({"\\": "%5C", "{": "%7B", "}": "%7D", "^": "%5E"})


def safe_verbatim(name: str, value: str, *, text: bool = False) -> str:
    """Return a verbatim value (:func:`is_verbatim`) that LaTeX can only print.

    ``text``: the value did not come from a BibTeX source, so it holds no LaTeX: its
    ``\\ { }`` are percent-encoded whatever the field (a DOI, eprint or file name from
    RIS or CSL-JSON), as for a URL below (:func:`latex_of_text`).

    A URL (a field whose name ends in ``url``, or a value that is one bare URL) gets its
    ``\\ { }`` percent-encoded (RFC 3986: they are not URL characters, and a style
    without the url package typesets the field as ordinary text, where
    ``{\\immediate\\write18{...}}`` would run); other verbatim fields (``doi``,
    ``eprint``, ``file`` ...) are copied when inert (:func:`~.inert.is_inert`), else
    percent-encoded too. Source of the rule: a hostile-input run, which ran a command
    through a CSL-JSON ``URL`` and ``note``.
    """
    if text or name.endswith("url") or _BARE_URL.match(value) is not None:
        return value.translate(_URL_TEX)
    return value if is_inert(value) else value.translate(_URL_TEX)


def is_verbatim(name: str, value: str) -> bool:
    """True for a field written without escaping: a verbatim field, a name ending in
    ``url``, or a value that is one bare URL."""
    return name in VERBATIM_FIELDS or name.endswith("url") or _BARE_URL.match(value) is not None


#: Prefixes of the fields the RIS and CSL-JSON readers keep for their own writers
#: (``ris_n1``, ``csl_accessed``) and of a pasted list's labels
#: (:data:`readinglist.records.LIST_FIELD_PREFIX`): data without a BibTeX field.
FOREIGN_PREFIXES = ("ris_", "csl_", LIST_FIELD_PREFIX)


def is_foreign(name: str) -> bool:
    """True for a field no BibTeX field holds (:data:`FOREIGN_PREFIXES`): kept for the RIS
    or CSL-JSON export, or a pasted list's label.

    BibTeX and biblatex exports leave such fields out: no style reads them, and
    ``biber --validate-datamodel`` warns about each ("Field 'ris_n1' invalid in data
    model"), which an export must not cause (issue 15, the real-tools test). They stay
    in the library and in the RIS and CSL-JSON exports.
    """
    return name.startswith(FOREIGN_PREFIXES)


#: An initial (``M.``) run into the next letter: ``M.R.C.E.L.`` (CSL ``given``, RIS).
_RUN_INITIALS = re.compile(r"(?<=\b[A-Z]\.)(?=[A-Z](?:\.|\b))")


def spaced_initials(given: str) -> str:
    """``given`` with a space after each initial run into the next (``M.R.C.E.L.`` ->
    ``M. R. C. E. L.``): BibTeX takes ``M.R.`` for one token, abbreviates it to ``M.``
    and loses the other initials ("Tame the BeaST" section 11, name tokens are split
    at spaces, ties and hyphens only); ``J.-P.`` and ``Ph.D.`` are left as they are."""
    return _RUN_INITIALS.sub(" ", given) if "." in given else given


def _format_person(person: Person, dialect: Dialect) -> str:
    """Write one name so that BibTeX's rules split it back into the same parts; a given
    name's run-together initials are spaced first (:func:`spaced_initials`)."""
    if person.given and (spaced := spaced_initials(person.given)) != person.given:
        person = replace(person, given=spaced)
    if person.literal:
        if person.is_others:
            return "others"
        literal = escape_literal(person.literal, dialect)
        # "{\\&}" would be a special character, not a corporate name: brace it once more.
        return "{{" + literal + "}}" if literal.startswith("\\") else "{" + literal + "}"

    def enc(part: str) -> str:
        return escape_literal(part, dialect)

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
        if parse_names(text) == (person,):
            return text
    return candidates[2]


def format_names(people: Sequence[Person], dialect: Dialect) -> str:
    """A BibTeX name list (``A and B``) that splits back into ``people``; a person with
    no name at all (a literal that displayed as nothing) is left out: ``A and , {}``
    makes biber 2.18's btparse crash."""
    named = [p for p in people if p.literal or p.family or p.given or p.von or p.jr]
    return " and ".join(_format_person(p, dialect) for p in named)


def normalize_pages(value: str) -> str:
    """``12-34``, ``12 – 34``, ``12---34`` -> ``12--34``; any other value as it is."""
    match = re.fullmatch(r"\s*(\w+)\s*(?:-{1,3}|\u2013|\u2014)\s*(\w+)\s*", value)
    return f"{match.group(1)}--{match.group(2)}" if match else value


def entry_type_name(entry_type: str) -> str:
    """The entry type as written after ``@``: lower case, or ``misc`` when it is not an
    entry type name (:func:`readinglist.bounds.is_entry_type_name`: a letter, then
    letters, digits, ``-`` or ``_``), so that no stored value can end the entry or
    start another one (a type with braces or a newline injected an entry)."""
    name = entry_type.strip().lower()
    return name if is_entry_type_name(name) else "misc"


def valid_citekey(key: str, dialect: Dialect = "bibtex") -> str:
    """Return ``key`` made safe to write as a BibTeX/biblatex citation key.

    Each run of characters a key may not hold (:data:`readinglist.citekeys.BAD_KEY_RUN`:
    what BibTeX refuses and what TeX reads as markup) becomes ``-``
    (:func:`readinglist.citekeys.inert_key`). For the ``bibtex`` dialect
    non-ASCII letters lose their accents (``Müller`` -> ``Muller``) and other
    non-ASCII characters become ``-``. A valid key is returned unchanged.
    """
    if dialect == "bibtex" and not key.isascii():
        key = unicodedata.normalize("NFKD", key)
        key = "".join(ch for ch in key if not unicodedata.combining(ch))
        key = re.sub(r"[^\x00-\x7f]+", "-", key)
    return inert_key(key)
