"""Repairs of values BibTeX would misread, each said: name lists and repeated lists.

A floor above :mod:`.encode` (the reader's helpers, split from :mod:`.reader`): a name
list that separates people by commas (:func:`repair_names`), ``and OTHERS,`` /
``and et al.`` (:func:`normalize_others`), a ``keywords`` field given twice
(:func:`join_list`), and which ``@comment`` blocks are JabRef's metadata
(:func:`is_jabref_meta`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from readinglist.formats.bibtex.encode import repair_name_list
from readinglist.formats.bibtex.values import ValueSyntaxError, evaluate
from readinglist.records import ParseProblem

#: JabRef's metadata in a ``@comment`` block (``jabref-meta: databaseType:bibtex;``,
#: groups, save actions): JabRef's documented way of storing library settings in
#: the .bib file, which it reads back from any place in the file.
_JABREF_META = re.compile(r"\s*jabref-meta\s*:")


def is_jabref_meta(comment: str) -> bool:
    """True when the text of an ``@comment{...}`` block is JabRef metadata."""
    return _JABREF_META.match(comment) is not None


#: Fields whose repeated values are merged, not dropped (comma-separated lists).
LIST_FIELDS = frozenset({"keywords"})
#: ``and others`` as people write it: any case, a trailing comma or ``et al.``.
_OTHERS = re.compile(r"\band\s+(?:others|et\.?\s*al\.?)\s*,?\s*$", re.IGNORECASE)


def join_list(first: str, raw_second: str, macros: Mapping[str, str]) -> str:
    try:
        second = evaluate(raw_second, macros)[0]
    except ValueSyntaxError:
        second = raw_second
    seen = {part.strip().casefold() for part in re.split(r"[,;]", first)}
    extra = [p.strip() for p in re.split(r"[,;]", second) if p.strip().casefold() not in seen]
    return ", ".join([first.strip(), *extra]) if extra else first


def repair_names(
    key: str, values: dict[str, str], lines: Mapping[str, int], line: int, source: str
) -> Iterator[ParseProblem]:
    """Rewrite an author/editor list BibTeX rejects (:func:`~.encode.repair_name_list`),
    one warning each naming its line (issue 15: the export must compile)."""
    for name in ("author", "editor"):
        value = values.get(name)
        fixed = repair_name_list(value) if value else None
        if fixed is not None:
            values[name] = fixed
            yield ParseProblem(
                f"entry {key or '(no key)'!r}: {name} {value!r} separates people by commas, "
                f"which BibTeX rejects; read as {fixed!r}",
                source,
                lines.get(name, line),
                "warning",
            )


def normalize_others(values: dict[str, str]) -> bool:
    """Write ``and OTHERS,`` / ``and et al.`` as ``and others`` (BibTeX styles compare
    with ``"others"`` exactly); True when a value changed."""
    changed = False
    for name in ("author", "editor"):
        value = values.get(name)
        if value is None:
            continue
        match = _OTHERS.search(value)
        if match and match.group() != "and others":
            values[name] = value[: match.start()] + "and others"
            changed = True
    return changed
