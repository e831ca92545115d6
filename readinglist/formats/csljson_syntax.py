"""CSL-JSON text -> its items, each with the line it starts on.

CSL-JSON (``csl-data.json``, citation-style-language/schema, CSL 1.0.2) is a JSON
array of item objects; Better BibTeX and citeproc also accept a single object. This
module decodes the JSON (the stdlib ``json``) and finds where each element starts;
:mod:`readinglist.formats.csljson` maps an item's variables to a PaperRecord.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from readinglist.records import ParseProblem

__all__ = ["elements", "rich_text_latex"]

_SPACE = re.compile(r"[ \t\n\r]*")


def elements(text: str, source: str) -> tuple[list[tuple[Any, int | None]], list[ParseProblem]]:
    """The top-level elements of CSL-JSON ``text``, each with its 1-based line.

    A leading BOM is ignored; a single object is one element. Returns the elements
    (any JSON value: the caller checks they are objects; line None when it cannot
    be told) and the problems: an error with the line and column from
    ``json.JSONDecodeError`` for invalid JSON, or for a top level that is neither
    array nor object; no elements then. Never raises.
    """
    text = text.lstrip("\ufeff")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg} (column {exc.colno})"
        return [], [ParseProblem(message, source, exc.lineno)]
    except (ValueError, RecursionError) as exc:
        return [], [ParseProblem(f"invalid JSON: {exc}", source, 1)]
    if isinstance(data, dict):
        return [(data, text.count("\n", 0, text.find("{")) + 1)], []
    if not isinstance(data, list):
        found = type(data).__name__
        message = f"expected a JSON array of CSL-JSON items, found {found}"
        return [], [ParseProblem(message, source, 1)]
    try:
        lines: list[int | None] = list(_item_lines(text))
    except (ValueError, IndexError, AttributeError):  # cannot happen for valid JSON
        lines = []
    if len(lines) != len(data):
        lines = [None] * len(data)
    return list(zip(data, lines, strict=True)), []


def _item_lines(text: str) -> list[int]:
    """The 1-based line on which each element of a valid top-level JSON array starts.

    Walks the array with ``json.JSONDecoder.raw_decode`` (the stdlib's own parser),
    since ``json.loads`` reports no positions for values it accepts.
    """
    decoder = json.JSONDecoder()
    index = _SPACE.match(text, 0).end() + 1  # type: ignore[union-attr]
    lines: list[int] = []
    line, counted = 1, 0
    while True:
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if index >= len(text) or text[index] == "]":
            return lines
        line += text.count("\n", counted, index)
        counted = index
        lines.append(line)
        _, index = decoder.raw_decode(text, index)
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if index < len(text) and text[index] == ",":
            index += 1


# --- rich text (CSL 1.0.2, "Rich Text Formatting" / CSL-JSON "HTML-like" markup) --------------

#: CSL's markup in a string variable -> the LaTeX written for it (``%s`` the content).
#: ``nocase`` is case protection, which BibTeX writes as braces.
_MARKUP: dict[tuple[str, str], str] = {
    ("i", ""): "\\textit{%s}",
    ("b", ""): "\\textbf{%s}",
    ("sub", ""): "$_{%s}$",
    ("sup", ""): "$^{%s}$",
    ("span", 'class="nocase"'): "{%s}",
    ("span", 'style="font-variant:small-caps;"'): "\\textsc{%s}",
}
#: Text that may sit in math mode unescaped, as in ``$_{2}$``.
_MATH_SAFE = re.compile(r"^[A-Za-z0-9+\-=(),. ]*$")
_TEXT_SCRIPT = {"$_{%s}$": "\\textsubscript{%s}", "$^{%s}$": "\\textsuperscript{%s}"}
_TAG = re.compile(r"<(/?)(i|b|sub|sup|span)((?:\s+[a-z-]+=\"[^\"]*\")?)\s*>")


def _markup_of(name: str, attributes: str) -> str | None:
    """The LaTeX pattern of a start tag, or None when it is no CSL markup."""
    attributes = " ".join(attributes.replace(": ", ":").split())
    if name == "span" and attributes.startswith('style="') and not attributes.endswith(';"'):
        attributes = attributes[:-1] + ';"'
    return _MARKUP.get((name, attributes))


def rich_text_latex(value: str, escape: Callable[[str], str]) -> str | None:
    """The LaTeX form of a CSL string holding rich-text markup, or None when it holds none.

    CSL 1.0.2 ("Rich Text Formatting") lets titles carry ``<i>``, ``<b>``, ``<sub>``,
    ``<sup>``, ``<span class="nocase">`` and ``<span style="font-variant:small-caps;">``;
    they become ``\\textit{}``, ``\\textbf{}``, ``$_{}$``, ``$^{}$`` (``\\textsubscript{}``
    / ``\\textsuperscript{}`` for text math mode would mangle), ``{}`` (case
    protection) and ``\\textsc{}``. Text between tags goes through ``escape`` (plain
    Unicode -> LaTeX that decodes back to it). A tag that is not CSL markup, or is not
    closed in order, is text. Never raises.
    """
    matches = list(_TAG.finditer(value))
    if not matches:
        return None
    # (pattern, parts) per open tag; the bottom entry is the whole value.
    stack: list[tuple[str, list[str], str]] = [("%s", [], "")]
    pos, used = 0, False
    for match in matches:
        stack[-1][1].append(escape(value[pos : match.start()]))
        pos = match.end()
        closing, name = match.group(1), match.group(2)
        pattern = None if closing else _markup_of(name, match.group(3).strip())
        if pattern is not None:
            stack.append((pattern, [], name))
        elif closing and len(stack) > 1 and stack[-1][2] == name:
            pattern, parts, _ = stack.pop()
            content = "".join(parts)
            if pattern in _TEXT_SCRIPT and not _MATH_SAFE.match(value_text(content)):
                pattern = _TEXT_SCRIPT[pattern]
            stack[-1][1].append(pattern.replace("%s", content, 1))
            used = True
        else:
            stack[-1][1].append(escape(match.group()))
    stack[-1][1].append(escape(value[pos:]))
    while len(stack) > 1:  # unclosed tags: their text stays, the tag is text
        _, parts, name = stack.pop()
        stack[-1][1].append(escape(f"<{name}>") + "".join(parts))
    return "".join(stack[0][1]) if used else None


def value_text(latex: str) -> str:
    """``latex`` without its backslashes and braces (only to test it for math safety)."""
    return re.sub(r"[\\{}]", "", latex)
