"""Inline markup in pasted text (Markdown, HTML, LaTeX emphasis) turned into plain Unicode.

Shared by the contribution naming (:mod:`readinglist.naming.scan` marks emphasis with
private-use characters, so that an emphasised phrase can be a name) and the abstracts
reader (:func:`clean_inline` for titles, :func:`strip_markup` for layout tests).
LaTeX is decoded only by :func:`readinglist.text.latex_to_unicode`; pylatexenc drops
``\\texttt{..}`` inside math (``$\\texttt{Name}$`` decodes to nothing), so such text
commands are unwrapped here first. Imports the standard library and
:mod:`readinglist.text`.
"""

from __future__ import annotations

import html
import re

from readinglist.text import dollar_signs_escaped, latex_to_unicode

#: Start and end of an emphasised span in marked text (Unicode private use area).
EM0, EM1 = "\ue000", "\ue001"

HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]{0,200}>")

_MD_LINK = re.compile(r"\[([^\[\]\n]{1,500})\]\(\s*<?([^()\s<>]+)>?\s*\)")

#: (pattern, replacement) pairs that mark emphasis, in the order they are applied.
_MARKUP_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # $\texttt{Name}$: pylatexenc drops text commands inside math, so unwrap first.
    (
        re.compile(
            r"\$\s*\\(?:texttt|textbf|textit|textsc|textsf|textrm|text|mathtt|mathbf|"
            r"mathrm|mathsf|mathit|emph|operatorname)\s*\{([^{}$]{2,})\}\s*\$"
        ),
        EM0 + r"\1" + EM1,
    ),
    (
        re.compile(
            r"\\(?:textbf|textit|texttt|textsc|textsf|emph|underline|textsl)\s*"
            r"\{((?:[^{}]|\{[^{}]*\})*)\}"
        ),
        EM0 + r"\1" + EM1,
    ),
    (re.compile(r"\{\\(?:bf|em|it|tt|sc|sl)\s+([^{}]*)\}"), EM0 + r"\1" + EM1),
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), EM0 + r"\2" + EM1),
    (
        re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*\n]{1,200}?)(?<=[^\s*\\])\*(?![\w*])"),
        EM0 + r"\1" + EM1,
    ),
    (
        re.compile(r"(?<![\w\\$])_(?=[^\s_$])([^_\n$]{1,200}?)(?<=[^\s_\\$])_(?![\w$])"),
        EM0 + r"\1" + EM1,
    ),
    (
        re.compile(r"<(b|strong|em|i|code|tt|u)>(.{0,300}?)</\1\s*>", re.I),
        EM0 + r"\2" + EM1,
    ),
    (re.compile(r"(?<![`\w])`([^`'\n]{1,100})`(?!`)"), EM0 + r"\1" + EM1),
)

#: A character each rule of _MARKUP_RULES needs, to skip rules cheaply.
_MARKUP_HINTS: tuple[tuple[str, ...], ...] = (
    ("$",),
    ("\\",),
    ("{\\",),
    ("**", "__"),
    ("*",),
    ("_",),
    ("<",),
    ("`",),
)

WHITESPACE = re.compile(r"\s+")

_MD_STRONG = re.compile(r"(\*\*|__)(.+?)\1")

_MD_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")


def strip_markup(text: str) -> str:
    """Return ``text`` without Markdown emphasis, link syntax and HTML tags, stripped.

    LaTeX is kept: this is the cheap cleaning used to judge a line's layout. Raises nothing.
    """
    if "](" in text:
        text = _MD_LINK.sub(r"\1", text)
    if "<" in text:
        text = HTML_TAG.sub("", text)
    if "*" in text or "__" in text:
        text = _MD_STRONG.sub(r"\2", text)
        text = _MD_EMPHASIS.sub(r"\1", text)
    return text.strip()


_HEADING_MARK = re.compile(r"^\s{0,3}#{1,6}\s+")

URL_COMMAND = re.compile(r"\\(?:url|href)\{([^{}]*)\}")


def clean_inline(text: str) -> str:
    """Return ``text`` as title-quality Unicode: no Markdown, HTML or LaTeX markup, single spaces.

    Emphasis is unwrapped, ``\\url{..}`` keeps its address, HTML entities and LaTeX are
    decoded (:func:`inline_latex`, then :func:`readinglist.text.latex_to_unicode`); a
    ``$`` that opens no formula by pandoc's rule (:func:`readinglist.text.inline_formulas`:
    ``costs $5 and $10``) stays a dollar sign. ``""`` for an empty text; raises nothing.
    """
    if not text:
        return ""
    source = inline_latex(text)
    if "$" in source:
        source = dollar_signs_escaped(source)
    return WHITESPACE.sub(" ", latex_to_unicode(source)).strip()


def inline_latex(text: str) -> str:
    """``text`` without its Markdown and HTML markup: the LaTeX source :func:`clean_inline`
    decodes (emphasis unwrapped, ``\\url{..}`` its address, HTML entities decoded, LaTeX
    and its ``$...$`` math as written; white space as given). Raises nothing."""
    text = strip_markup(text)
    text = _HEADING_MARK.sub("", text)
    text = URL_COMMAND.sub(r"\1", text) if "\\" in text else text
    text = unwrap_markers(apply_markup_rules(text))
    return html.unescape(text)


def apply_markup_rules(text: str) -> str:
    """Return ``text`` with emphasis markup (LaTeX, Markdown, HTML) replaced by markers.

    Each emphasised span becomes ``EM0 + span + EM1``; other text is unchanged.
    """
    for (pattern, replacement), hint in zip(_MARKUP_RULES, _MARKUP_HINTS, strict=True):
        if any(h in text for h in hint):
            text = pattern.sub(replacement, text)
    return text


def unwrap_markers(text: str) -> str:
    """Return ``text`` without the emphasis markers :data:`EM0` and :data:`EM1`."""
    return text.replace(EM0, "").replace(EM1, "")


def decode(text: str) -> str:
    """Return a short string that goes into a record decoded: markers, HTML entities and LaTeX.

    White space is collapsed and stripped. Use only for short strings (names, phrases):
    decoding whole abstracts is slow.
    """
    text = unwrap_markers(text)
    if "&" in text:
        text = html.unescape(text)
    return WHITESPACE.sub(" ", latex_to_unicode(text)).strip()
