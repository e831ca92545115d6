"""Indented JSON text, fast: the text of ``json.dumps(value, ensure_ascii=False, indent=2)``.

With ``indent`` set, the standard library falls back to its pure-Python encoder, a
generator per nesting level and per value; a whole-library ``list --json`` or
``export csl-json`` spent most of its JSON time there (issue 17). :func:`dumps` writes
the same text with one recursive function and the C string encoder, for the values
our writers produce (dicts with string keys, lists, tuples, strings, numbers, booleans
and None); anything else is handed to ``json.dumps`` itself, so the text never differs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring  # the C function when available
from typing import Any

_INFINITY = float("inf")


class _Unsupported(Exception):
    """A value :func:`dumps` leaves to ``json.dumps`` (another type, a non-string key)."""


def dumps(value: Any, *, sort_keys: bool = False, newline: str = "\n") -> str:
    """Return ``json.dumps(value, ensure_ascii=False, indent=2, sort_keys=sort_keys)``.

    ``newline`` is what starts each line after the first: ``"\\n"`` for a document of
    its own, ``"\\n  "`` for a value that sits one level deep in an array (its lines
    indented by two more spaces, as ``json.dumps`` lays out an array's items). Never
    raises for JSON-able values; other values raise as ``json.dumps`` does.
    """
    parts: list[str] = []
    try:
        _encode(value, newline, parts.append, sort_keys)
    except _Unsupported:
        text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=sort_keys)
        return text.replace("\n", newline) if newline != "\n" else text
    return "".join(parts)


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _encode(value: Any, newline: str, out: Callable[[str], None], sort_keys: bool) -> None:
    if isinstance(value, str):
        out(encode_basestring(value))
    elif value is None:
        out("null")
    elif value is True:
        out("true")
    elif value is False:
        out("false")
    elif isinstance(value, int):
        out(int.__repr__(value))
    elif isinstance(value, float):
        out(_float(value))
    elif isinstance(value, (list, tuple)):
        if not value:
            out("[]")
            return
        inner = newline + "  "
        out("[" + inner)
        for index, item in enumerate(value):
            if index:
                out("," + inner)
            _encode(item, inner, out, sort_keys)
        out(newline + "]")
    elif isinstance(value, dict):
        if not value:
            out("{}")
            return
        inner = newline + "  "
        items = sorted(value.items()) if sort_keys else value.items()
        first = True
        for key, item in items:
            if not isinstance(key, str):
                raise _Unsupported
            head = ("{" if first else ",") + inner + encode_basestring(key) + ": "
            first = False
            # The values of a paper's object, written without a call each (issue 17).
            kind = type(item)
            if kind is str:
                out(head + encode_basestring(item))
            elif item is None:
                out(head + "null")
            elif kind is int:
                out(head + int.__repr__(item))
            elif kind is list and item and all(type(x) is str for x in item):
                deeper = inner + "  "
                words = ("," + deeper).join(map(encode_basestring, item))
                out(head + "[" + deeper + words + inner + "]")
            else:
                out(head)
                _encode(item, inner, out, sort_keys)
        out(newline + "}")
    else:
        raise _Unsupported
