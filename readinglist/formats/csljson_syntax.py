"""CSL-JSON text -> its items, each with the line it starts on.

CSL-JSON (``csl-data.json``, citation-style-language/schema, CSL 1.0.2) is a JSON
array of item objects; Better BibTeX and citeproc also accept a single object. This
module decodes the JSON (the stdlib ``json``) and finds where each element starts;
:mod:`readinglist.formats.csljson` maps an item's variables to a PaperRecord.
"""

from __future__ import annotations

import json
import re
from typing import Any

from readinglist.records import ParseProblem

__all__ = ["elements"]

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
