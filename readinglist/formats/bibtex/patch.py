"""An entry's own text with only the values that must change replaced in place.

Fourth floor of :mod:`readinglist.formats.bibtex`, under :mod:`.writer` (imports
:mod:`.digest`, :mod:`.encode`, :mod:`.fields`, :mod:`.generate`, :mod:`.reader`,
:mod:`.salvage`, :mod:`.values`). When an entry read from BibTeX cannot be copied
whole -- a value holds a bare ``& % # _``, an unbalanced ``$`` or markup that is not
inert (:func:`~.encode.must_rewrite`: LaTeX would break or run it), or the library
changed a value after the import (a resolve, a merge, an edit) -- :func:`patch_entry`
keeps the entry's text and replaces only those values, each by what a generated entry
writes for it (:func:`~.generate.entry_fields`): field order, indentation, the entry
type's case, the field names' case, comments between the braces and every other value
stay byte for byte, so a ``git diff`` of an export shows only what had to change. A
value written in quotes stays in quotes (and a bare number bare) when the new value
allows it.

Which values change is decided by data, not by spelling: the patched text is read
again and its :func:`~.digest.bibliographic_data` compared with the record's; a
column that differs (title, names, year, venue, DOI ...) has its fields replaced
(added when the source lacks them, removed when the generated entry has none), and
so does a raw field that differs. An entry that does not settle so (its type
changed, a value the generated entry writes cannot give the record's data back) is
left to :func:`~.generate.format_entry` (None).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from readinglist.formats.bibtex.digest import bibliographic_data
from readinglist.formats.bibtex.encode import Dialect, must_rewrite, valid_citekey
from readinglist.formats.bibtex.fields import ARXIV_PREFIX_FIELDS, venue_candidates
from readinglist.formats.bibtex.generate import entry_fields
from readinglist.formats.bibtex.reader import Parsed, Reader
from readinglist.formats.bibtex.salvage import Salvaged, salvage
from readinglist.formats.bibtex.values import (
    MONTH_MACROS,
    ValueSyntaxError,
    closing_quote,
    evaluate,
)
from readinglist.records import PaperRecord

#: The fields that give each column of :func:`~.digest.bibliographic_data` (the venue
#: and the arXiv id are looked up by entry type and field, see :func:`_fields_of`).
_COLUMN_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("title",),
    "authors": ("author",),
    "editors": ("editor",),
    "year": ("year", "date"),
    "month": ("month", "date"),
    "abstract": ("abstract",),
    "doi": ("doi",),
    "url": ("url",),
    "keywords": ("keywords",),
    "arxiv": ("eprint", "arxiv", *ARXIV_PREFIX_FIELDS),
}
#: How many rounds of "read again, replace what differs" a patch may take.
_ROUNDS = 4


@dataclass(frozen=True)
class Patched:
    """An entry's text with ``replaced`` values (lower-case field names) changed in
    place; ``text`` is the source text itself when ``replaced`` is empty."""

    text: str
    replaced: frozenset[str]


def reread(source_text: str, macros: Mapping[str, str]) -> Parsed | None:
    """Read ``source_text`` alone with ``macros``; None unless it is one entry. An entry
    naming a ``crossref`` parent is read too (nothing to inherit from: its own data)."""
    reader = Reader("<source_text>", macros, checks=False)
    items = [*reader.feed(source_text, 0), *reader.finish()]
    parsed = [item for item in items if isinstance(item, Parsed)]
    return parsed[0] if len(parsed) == 1 else None


def patch_entry(
    record: PaperRecord,
    source: str,
    macros: Mapping[str, str],
    dialect: Dialect,
    again: PaperRecord | None = None,
    stale: frozenset[str] = frozenset(),
    merge: tuple[bool, bool] = (False, False),
) -> Patched | None:
    """``source`` (``record``'s entry as read, with ``macros`` in effect) with the
    values that must change replaced in place (see the module docstring); None when
    the entry is to be generated whole. ``again``: ``source`` already read again
    with ``macros`` (its title without LaTeX is kept as written when replaced).
    ``stale``: fields the export writes anew whatever their data
    (:func:`~.copying.stale_fields`); ``merge``: whether tags and notes are merged into
    ``keywords`` and ``annote`` (as for :func:`~.writer.write`)."""
    try:
        parts = salvage(source)
    except ValueSyntaxError:
        return None
    # A key is replaced in place; one the text lacks cannot be (its comma is missing).
    key = record.citekey if (record.citekey or "") != parts.key else None
    if parts.repairs or (key is not None and not (key and parts.key)):
        return None
    env = {**MONTH_MACROS, **macros}
    replaced: set[str] = set(stale)
    for name, expr, _ in parts.fields:
        try:
            value = evaluate(expr, env)[0]
        except ValueSyntaxError:
            return None
        if must_rewrite(name.lower(), value):
            replaced.add(name.lower())
    generated: dict[str, str] | None = None
    for _ in range(_ROUNDS):
        if replaced and generated is None:
            generated = entry_fields(record, dialect, *merge, source=again)
        text = _apply(source, parts, replaced, generated or {}, key, dialect)
        now = again if text == source and again is not None else _record(text, macros)
        if now is None:
            return None
        differ = _differing(now, record, replaced)
        if differ is None:
            return None
        if not differ:
            return Patched(text, frozenset(replaced))
        if differ <= replaced:
            return None  # the generated values do not give the data back
        replaced |= differ
    return None


def _record(text: str, macros: Mapping[str, str]) -> PaperRecord | None:
    parsed = reread(text, macros)
    return None if parsed is None else parsed.record


def _fields_of(column: str, record: PaperRecord) -> tuple[str, ...]:
    if column == "venue":
        return venue_candidates(record.entry_type.lower())
    return _COLUMN_FIELDS.get(column, ())


def _differing(now: PaperRecord, want: PaperRecord, replaced: set[str]) -> set[str] | None:
    """The fields (lower-case) of ``now`` (a patched text read again) to replace so it
    reads to ``want``'s data: those of each differing column, and each raw field that
    differs, unless ``replaced`` already: a replaced value is what the generated entry
    writes (:func:`~.generate.entry_fields`), which may read to another raw form of
    the same data (``90%`` escaped ``90\\%``: the abstract column holds the raw
    value). None when the entry types differ (the text cannot be patched)."""
    have, need = bibliographic_data(now), bibliographic_data(want)
    if have["entry_type"] != need["entry_type"]:
        return None
    names: set[str] = set()
    for column in ("venue", *_COLUMN_FIELDS):
        fields = _fields_of(column, want)
        if have[column] != need[column] and not replaced.intersection(fields):
            names.update(fields)
    raw_now, raw_want = have["fields"], need["fields"]
    names.update(
        name
        for name in raw_now.keys() | raw_want.keys()
        if name not in replaced and raw_now.get(name) != raw_want.get(name)
    )
    return names


def _apply(
    source: str,
    parts: Salvaged,
    replaced: set[str],
    generated: Mapping[str, str],
    key: str | None,
    dialect: Dialect,
) -> str:
    """``source`` with each of ``replaced`` given its ``generated`` value: in place
    (delimiter style kept, :func:`_restyle`), removed when the generated entry has no
    such field, appended after the last field (its separator and ``=`` spacing
    copied) when the source has none; and the key replaced when ``key`` is given."""
    edits: list[tuple[int, int, str]] = []
    present: set[str] = set()
    spans = parts.spans
    for index, ((name, expr, _), (n_start, _n_end, v_start, v_end)) in enumerate(
        zip(parts.fields, spans, strict=True)
    ):
        lower = name.lower()
        present.add(lower)
        if lower not in replaced:
            continue
        if lower in generated:
            edits.append((v_start, v_end, _restyle(expr, generated[lower])))
        elif index:
            edits.append((spans[index - 1][3], v_end, ""))  # its separator before it
        else:
            end = spans[1][0] if len(spans) > 1 else v_end
            edits.append((n_start, end, ""))
    added = [name for name in generated if name in replaced and name not in present]
    if added and spans:
        last = spans[-1]
        before = spans[-2][3] if len(spans) > 1 else parts.key_span[1]
        comma = source.find(",", before, last[0])
        separator = source[comma + 1 : last[0]] if comma >= 0 else "\n  "
        equals = source[last[1] : last[2]]
        text = "".join(f",{separator}{name}{equals}{generated[name]}" for name in added)
        edits.append((last[3], last[3], text))
    elif added:
        return source  # no field to copy the layout from: _differing stays, None
    if key is not None:
        edits.append((*parts.key_span, valid_citekey(key, dialect)))
    text = source
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _restyle(old: str, new: str) -> str:
    """The generated value ``new`` (``{...}`` or a bare macro) in the delimiters of
    the source's value ``old``: quoted when ``old`` was and the text fits in quotes
    (no ``"`` outside braces), a bare number when ``old`` was one; else ``new``."""
    if not (new.startswith("{") and new.endswith("}")):
        return new
    inner = new[1:-1]
    if old.startswith('"'):
        quoted = f'"{inner}"'
        try:
            if closing_quote(quoted, 0) == len(quoted) - 1:
                return quoted
        except ValueSyntaxError:
            pass
    elif old.isdigit() and inner.isdigit():
        return inner
    return new
