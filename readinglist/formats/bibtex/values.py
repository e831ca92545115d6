"""BibTeX values as BibTeX evaluates them: ``@string`` macros, ``#`` concatenation, months.

The bottom floor of :mod:`readinglist.formats.bibtex`: imports nothing of the package.
:func:`evaluate` evaluates a value as BibTeX does ("Tame the BeaST", section 2.2):
quoted or braced pieces, numbers and macro names joined by ``#``, with the macros
given (the reader applies ``@string`` definitions in file order, the month macros
``jan`` .. ``dec`` predefined as every standard ``.bst`` does). bibtexparser's
``ResolveStringReferencesMiddleware`` resolves a value only when the whole value is
one macro, hence this module. :func:`macro_names` lists the macros a text may use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: A bare word where a field value begins (after ``=``) or a ``#`` piece begins: a
#: possible macro use. Two patterns, each starting with one literal character, which
#: the regex engine finds about twice as fast as a class ``[=#]`` (issue 17: 100,000
#: Beebe entries, 1.4 s -> 0.65 s); a match holds no other ``=`` or ``#``, so the two
#: find together what one ``[=#]`` pattern finds.
_MACRO_AFTER_EQUALS = re.compile(r'=[ \t\r\n]*([^\s"{}#,=()0-9][^\s"{}#,=()]*)')
_MACRO_AFTER_HASH = re.compile(r'#[ \t\r\n]*([^\s"{}#,=()0-9][^\s"{}#,=()]*)')


#: A bare word that begins a ``@preamble`` value or follows ``#`` in it.
PREAMBLE_MACRO_USE = re.compile(
    r'(?:@preamble[ \t\r\n]*[{(]|#)[ \t\r\n]*([^\s"{}#,=()0-9][^\s"{}#,=()]*)', re.IGNORECASE
)


def macro_names(source_text: str) -> tuple[str, ...]:
    """Return the lower-case names ``source_text`` may use as ``@string`` macros, sorted.

    Every bare word that begins a field value or follows ``#`` (BibTeX's only macro
    positions, "BibTeXing" section 4) outside nothing: a word after ``=`` or ``#``
    inside a braced or quoted value is listed too. A superset, so a comparison of
    the values of these names (:func:`~readinglist.formats.bibtex.digest.source_check`)
    never misses a macro in use.
    Month names are included like any other.
    """
    found = _MACRO_AFTER_EQUALS.findall(source_text)
    if "#" in source_text:
        found += _MACRO_AFTER_HASH.findall(source_text)
    names = set(found)
    # Lower-cased in one call, not one per name (a name holds no white space, which no
    # casing rule crosses); nearly every entry's names are lower-case already.
    joined = " ".join(names)
    lowered = joined.lower()
    if lowered != joined:
        names = set(lowered.split(" "))
    return tuple(sorted(names))


#: BibTeX's month macros as plain.bst defines them (``MACRO {jan} {"January"}``).
MONTH_MACROS: dict[str, str] = {
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
#: ``jan`` .. ``dec``: what a generated entry writes as a bare ``month`` macro.
MONTH_ABBREV = tuple(MONTH_MACROS)
#: Month names, abbreviations (and ``sept``), lower-case -> 1..12.
MONTH_WORDS: dict[str, int] = {}
for _i, (_abbr, _full) in enumerate(MONTH_MACROS.items(), start=1):
    MONTH_WORDS[_abbr] = _i
    MONTH_WORDS[_full.lower()] = _i
MONTH_WORDS["sept"] = 9


# ---------------------------------------------------------------------------
# Value evaluation: macros and # concatenation
# ---------------------------------------------------------------------------


class ValueSyntaxError(Exception):
    """A field value that is not a valid BibTeX expression."""


_BRACE_TOKEN = re.compile(r"\\.|[{}]", re.DOTALL)
#: BibTeX ends a quoted piece at the first ``"`` outside braces; a backslash before it
#: changes nothing ("Tame the BeaST" section 2: ``"\\"`` is one backslash). Escaped braces
#: are skipped as :func:`matching_brace` does.
_QUOTE_TOKEN = re.compile(r'\\[{}]|[{}"]')
#: The splitter's reading (bibtexparser): ``\\"`` is an escaped quote, which does not close.
_ESCAPED_QUOTE_TOKEN = re.compile(r'\\.|[{}"]', re.DOTALL)


def matching_brace(text: str, start: int) -> int:
    """Index of the ``}`` closing the ``{`` at ``start`` (backslash-escaped braces skipped,
    the splitter's convention). Raises ValueSyntaxError when unbalanced."""
    depth = 0
    for match in _BRACE_TOKEN.finditer(text, start):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                return match.start()
    raise ValueSyntaxError("unbalanced braces")


def closing_quote(text: str, start: int, *, escapes: bool = False) -> int:
    """Index of the ``"`` closing the quoted piece opened at ``start``: the first one outside
    braces, as BibTeX reads it (``"\\" # "input"`` is ``\\input``; a backslash does not
    escape a quote). With ``escapes``, the splitter's reading instead (``\\"`` does not
    close), which :func:`evaluate` falls back on for a value BibTeX cannot read
    (``"Schr\\"odinger"``). Raises ValueSyntaxError when there is none."""
    depth = 0
    tokens = _ESCAPED_QUOTE_TOKEN if escapes else _QUOTE_TOKEN
    for match in tokens.finditer(text, start + 1):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif token == '"' and depth == 0:
            return match.start()
    raise ValueSyntaxError("unterminated quoted string")


#: What :func:`evaluate` returns: ``(value, macros used, macros undefined)``.
Evaluated = tuple[str, tuple[str, ...], tuple[str, ...]]


def evaluate(expr: str, macros: Mapping[str, str]) -> Evaluated:
    """Evaluate a field value as BibTeX does.

    Args:
        expr: the value as split from the file (``{...}``, ``"..."``, ``2016``,
            ``jan``, ``j-FOO # " (2nd ed.)"``), surrounding white space allowed.
        macros: lower-case macro name -> value.

    Returns:
        ``(value, used, undefined)``: the text with outer delimiters removed and
        pieces joined; the lower-case macro names used; the macro names not defined
        (their name is kept as the value, where BibTeX would put nothing).

    A quoted piece ends at the first ``"`` outside braces, as in BibTeX
    (:func:`closing_quote`); a value BibTeX cannot read so but the splitter can (a
    quote escaped by a backslash, ``"Schr\\"odinger"``) is read the splitter's way.

    Raises:
        ValueSyntaxError: for an unbalanced or unterminated piece.
    """
    try:
        return _evaluate(expr, macros, escapes=False)
    except ValueSyntaxError:
        if '\\"' not in expr:
            raise
    return _evaluate(expr, macros, escapes=True)


def _evaluate(expr: str, macros: Mapping[str, str], *, escapes: bool) -> Evaluated:
    """:func:`evaluate`, closing quoted pieces by :func:`closing_quote` with ``escapes``."""

    expr = expr.strip()
    if not expr:
        return "", (), ()
    if "#" not in expr:
        single = _one_piece(expr, escapes)
        if single is not None:
            return single, (), ()
    pieces: list[str] = []
    used: list[str] = []
    undefined: list[str] = []
    i = 0
    n = len(expr)
    while True:
        i = _skip_space(expr, i)
        if i >= n:
            raise ValueSyntaxError("missing value after '#'")
        if expr[i] in '{"':
            if expr[i] == "{":
                j = matching_brace(expr, i)
            else:
                j = closing_quote(expr, i, escapes=escapes)
            pieces.append(expr[i + 1 : j])
            i = j + 1
        else:
            j = i
            while j < n and not expr[j].isspace() and expr[j] not in '#{}"':
                j += 1
            token = expr[i:j]
            if not token:
                raise ValueSyntaxError(f"unexpected {expr[i]!r}")
            name = token.lower()
            if token.isdigit():
                pieces.append(token)
            elif name in macros:
                pieces.append(macros[name])
                used.append(name)
            else:
                pieces.append(token)
                undefined.append(token)
            i = j
        i = _skip_space(expr, i)
        if i >= n:
            break
        if expr[i] != "#":
            raise ValueSyntaxError(f"expected '#' or the end of the value, found {expr[i]!r}")
        i += 1
    return "".join(pieces), tuple(used), tuple(undefined)


def _skip_space(expr: str, i: int) -> int:
    while i < len(expr) and expr[i].isspace():
        i += 1
    return i


def _one_piece(expr: str, escapes: bool) -> str | None:
    """The value of ``expr`` (stripped, no ``#``) when it is one braced or quoted piece
    or a number: by far the most common case. None otherwise (the general path then
    evaluates it, or reports it as malformed)."""
    first = expr[0]
    if first == "{" and expr[-1] == "}":
        inner = expr[1:-1]
        if ("{" not in inner and "}" not in inner and not inner.endswith("\\")) or (
            matching_brace(expr, 0) == len(expr) - 1
        ):
            return inner
    elif first == '"' and expr[-1] == '"' and len(expr) > 1:
        inner = expr[1:-1]
        if ('"' not in inner and "{" not in inner and "}" not in inner) or (
            closing_quote(expr, 0, escapes=escapes) == len(expr) - 1
        ):
            return inner
    elif expr.isdigit():
        return expr
    return None
