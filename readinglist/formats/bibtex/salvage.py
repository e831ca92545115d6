"""A tolerant reader for one damaged entry: what BibTeX and biber recover, field by field.

A floor beside :mod:`.fields` (imports :mod:`.values` only). bibtexparser's splitter
either rejects a damaged entry whole (``,,`` between fields, a key-less
``@article{title = ...``) or reads it wrong (a missing comma makes one value swallow
the next field; a ``%`` line inside an entry becomes a field named ``% title``).
:func:`salvage` reads the entry text again with BibTeX's own grammar ("Tame the
BeaST", section 2) and these repairs, each reported:

* a missing comma between two fields: the second field is read on its own;
* empty fields (``,,``): skipped;
* a line starting with ``%`` between fields: skipped (BibTeX has no comments inside
  entries, biber's btparse does; either way it is not a field);
* no key before the first field: the entry has no key.

What cannot be repaired (an unbalanced brace or quote, a field without ``=``) raises
:class:`~readinglist.formats.bibtex.values.ValueSyntaxError`, so the caller rejects
just that entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from readinglist.formats.bibtex.values import ValueSyntaxError, closing_quote, matching_brace

_HEAD = re.compile(r"@\s*(\w+)\s*([{(])")
_NAME = re.compile(r"[^\s=,{}()\"#%]+")
_KEY = re.compile(r"[^\s,{}()=]*")
_BARE = re.compile(r"[^\s,#{}\"()]+")
#: A field name BibTeX or biber could read (used to tell a damaged split).
VALID_NAME = re.compile(r"[A-Za-z_][^\s=,{}()\"#%']*")


@dataclass
class Salvaged:
    """The parts of one entry read by :func:`salvage`.

    ``fields`` holds ``(name, value expression, line offset)`` (the offset counts lines
    from the entry's first line); ``repairs`` ``(message, line offset)``. ``spans``
    holds, for each of ``fields``, ``(name start, name end, value start, value end)``:
    offsets in the text given to :func:`salvage` (what an export that replaces one
    value in place needs); ``key_span`` the key's ``(start, end)`` there.
    """

    entry_type: str
    key: str
    fields: list[tuple[str, str, int]] = field(default_factory=list)
    repairs: list[tuple[str, int]] = field(default_factory=list)
    spans: list[tuple[int, int, int, int]] = field(default_factory=list)
    key_span: tuple[int, int] = (0, 0)


def salvage(raw: str) -> Salvaged:
    """Read the entry ``raw`` (from its ``@`` on) with the repairs of the module docstring.

    Raises:
        ValueSyntaxError: for damage that cannot be repaired (message says what).
    """
    head = _HEAD.match(raw.lstrip())
    if head is None:
        raise ValueSyntaxError("not an entry")
    shift = len(raw) - len(raw.lstrip())
    raw = raw.lstrip()
    closer = "}" if head.group(2) == "{" else ")"
    pos = _skip(raw, head.end())
    key_match = _KEY.match(raw, pos)
    key = key_match.group() if key_match else ""
    after = _skip(raw, pos + len(key))
    if after < len(raw) and raw[after] == "=":
        key, after = "", pos  # no key: the first field starts here
    elif after < len(raw) and raw[after] not in (",", closer):
        raise ValueSyntaxError(f"expected a comma after the key, found {raw[after]!r}")
    result = Salvaged(head.group(1).lower(), key, key_span=(shift + pos, shift + pos + len(key)))
    pos = after
    first = True
    while True:
        pos, commas = _skip_separators(raw, pos, result)
        if pos >= len(raw):
            raise ValueSyntaxError("the entry is not closed")
        if raw[pos] == closer:
            return result
        if not first and commas == 0:
            name = _NAME.match(raw, pos)
            result.repairs.append(
                (
                    f"missing comma before field {name.group() if name else raw[pos]!r}; "
                    "read it as a field of its own",
                    raw.count("\n", 0, pos),
                )
            )
        if commas > 1:
            result.repairs.append(("empty field (',,') skipped", raw.count("\n", 0, pos)))
        first = False
        name = _NAME.match(raw, pos)
        if name is None:
            raise ValueSyntaxError(f"expected a field name, found {raw[pos]!r}")
        pos = _skip(raw, name.end())
        if pos >= len(raw) or raw[pos] != "=":
            raise ValueSyntaxError(f"field {name.group()!r} has no '='")
        start = _skip(raw, pos + 1)
        end = _value_end(raw, start, closer)
        result.fields.append((name.group(), raw[start:end], raw.count("\n", 0, name.start())))
        result.spans.append((shift + name.start(), shift + name.end(), shift + start, shift + end))
        pos = end


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _skip_separators(text: str, pos: int, result: Salvaged) -> tuple[int, int]:
    """Skip white space, commas and ``%`` lines; return the new position and the commas seen."""
    commas = 0
    while True:
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == ",":
            commas += 1
            pos += 1
        elif pos < len(text) and text[pos] == "%":
            end = text.find("\n", pos)
            result.repairs.append(
                ("a '%' line inside an entry is not a field; skipped", text.count("\n", 0, pos))
            )
            pos = len(text) if end < 0 else end
        else:
            return pos, commas


def _value_end(text: str, pos: int, closer: str) -> int:
    """End of the value expression at ``pos``: pieces joined by ``#``."""
    while True:
        if pos >= len(text):
            raise ValueSyntaxError("a value is missing at the end of the entry")
        if text[pos] == "{":
            pos = matching_brace(text, pos) + 1
        elif text[pos] == '"':
            pos = closing_quote(text, pos) + 1
        else:
            bare = _BARE.match(text, pos)
            if bare is None:
                raise ValueSyntaxError(f"expected a value, found {text[pos]!r}")
            pos = bare.end()
        nxt = _skip(text, pos)
        if nxt < len(text) and text[nxt] == "#":
            pos = _skip(text, nxt + 1)
            continue
        return pos


#: ``@comment{`` at the start of a line (where bibtexparser's splitter starts blocks).
_COMMENT_START = re.compile(r"(?im)^[^\S\n]*@[^\S\n]*comment[^\S\n]*\{")
#: What every match of :data:`_COMMENT_START` contains.
_COMMENT_HINT = re.compile(r"@[^\S\n]*comment", re.IGNORECASE)
#: A line inside a comment that bibtexparser's splitter would take as a new block.
_INNER_BLOCK = re.compile(r"\n[^\S\n]*@")


def blank_comments(text: str) -> str:
    """Return ``text`` with the inside of each balanced ``@comment{...}`` block that holds a
    line starting with ``@`` made blank (newlines kept, so line numbers stay).

    Such a block is a comment to biber and bibtexparser's model (JabRef and commented-out
    entries write them), but the splitter ends a block at any line starting with ``@``
    and reported the comment as malformed (issue 18). An unbalanced ``@comment{`` is left
    as it is (reported as before). One pass over the text: each block is scanned once,
    and an unbalanced one ends the scan.
    """
    if _COMMENT_HINT.search(text) is None:  # a search from each "@": no lower-cased copy
        return text
    pieces: list[str] = []
    pos = 0
    for match in _COMMENT_START.finditer(text):
        if match.start() < pos:
            continue  # inside a comment already blanked
        opening = match.end() - 1
        try:
            closing = matching_brace(text, opening)
        except ValueSyntaxError:
            break
        body = text[opening + 1 : closing]
        if _INNER_BLOCK.search(body) is None:
            continue
        pieces.append(text[pos : opening + 1])
        pieces.append(re.sub(r"[^\n]", " ", body))
        pos = closing
    if not pieces:
        return text
    pieces.append(text[pos:])
    return "".join(pieces)
