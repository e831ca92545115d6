"""Repairs of values BibTeX would misread, each said: name lists and repeated lists.

A floor above :mod:`.fields` (the reader's helpers, split from :mod:`.reader`): a name
list that separates people by commas (:func:`repair_names`, :func:`repair_name_list`),
``and OTHERS,`` / ``and et al.`` (:func:`normalize_others`), a ``keywords`` field given twice
(:func:`join_list`), which ``@comment`` blocks are JabRef's metadata
(:func:`is_jabref_meta`), and the warnings about values an export cannot copy
(:class:`EscapeReport`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache

from readinglist.formats.bibtex.fields import extended_name_parts, split_names, top_level_commas
from readinglist.formats.bibtex.inert import preamble_offending
from readinglist.formats.bibtex.values import ValueSyntaxError, evaluate
from readinglist.records import ParseProblem
from readinglist.text import CACHE_SIZE, counted, plural

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


class EscapeReport:
    """What a BibTeX import says about values an export cannot copy: the first entry
    with a value to escape; each of the first :attr:`NAMED` entries with values not
    inert (written as the text they display), then how many more (:meth:`summary`)."""

    NAMED = 20

    def __init__(self, source: str) -> None:
        self.source = source
        self.escaping_reported = False
        self.as_text = 0

    def problems(
        self, key: str, escaped: bool, as_text: Mapping[str, str], line: int
    ) -> Iterator[ParseProblem]:
        """The warnings for entry ``key`` (:func:`escaping_needs`'s answers)."""
        name = repr(key) if key else "(no key)"
        if escaped and not self.escaping_reported:
            self.escaping_reported = True
            yield ParseProblem(
                f"entry {name} has a bare & % # _ or an unbalanced $ or brace in a value; "
                "such entries are exported with those escaped (reported for the first "
                "entry only)",
                self.source,
                line,
                "warning",
            )
        if as_text:
            self.as_text += 1
            if self.as_text <= self.NAMED:
                listed = ", ".join(f"{field} ({piece})" for field, piece in as_text.items())
                yield ParseProblem(
                    f"entry {name}: {listed}: LaTeX that is not inert markup (accents, "
                    "font commands, symbols, math); exported as the text it displays",
                    self.source,
                    line,
                    "warning",
                )

    def preamble(self, text: str, macros: Mapping[str, str], line: int) -> Iterator[ParseProblem]:
        """The warning for a ``@preamble`` block that is not inert markup
        (:func:`~.inert.preamble_offending`), which exports leave out."""
        piece = preamble_offending(text, macros)
        if piece is not None:
            yield ParseProblem(
                f"@preamble: {piece} is not inert LaTeX markup; exports leave the preamble out",
                self.source,
                line,
                "warning",
            )

    def summary(self) -> Iterator[ParseProblem]:
        """The count of the entries with values written as text beyond the first
        :attr:`NAMED` (nothing when none)."""
        more = self.as_text - self.NAMED
        if more > 0:
            yield ParseProblem(
                f"{counted(more, 'more entry', 'more entries')} "
                f"{plural(more, 'has', 'have')} LaTeX that is not inert markup; exported as "
                "the text it displays",
                self.source,
                None,
                "warning",
            )


def repair_names(
    key: str, values: dict[str, str], lines: Mapping[str, int], line: int, source: str
) -> Iterator[ParseProblem]:
    """Rewrite an author/editor list BibTeX rejects (:func:`repair_name_list`),
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


_INITIALS = re.compile(r"^(?:[A-Z][a-z]?\.?[\s~-]*){1,4}$")


@lru_cache(maxsize=CACHE_SIZE)
def repair_name_list(raw: str) -> str | None:
    """A raw ``author``/``editor`` list that BibTeX rejects, rewritten so that it reads
    it as the people meant; None when BibTeX reads ``raw`` as it is (cached: a
    proceedings' editor list recurs in every entry of it).

    BibTeX stops with "Too many commas in name" for a name of more than two commas
    and "has a comma at the end" for a name ending in one (BibTeX manual, "Tame the
    BeaST" section 11). Both come from commas used to separate people:

    * ``Miller, D., Firby, J. and Dean, T.`` -> ``Miller, D. and Firby, J. and Dean, T.``
      (``Family, Initials`` pairs);
    * ``Ryszard Michalski, Jaime G. Carbonell, and Tom M. Mitchell`` ->
      ``Ryszard Michalski and Jaime G. Carbonell and Tom M. Mitchell`` (a comma-separated
      list of ``First Last`` names);
    * any other name with too many commas: each comma-separated part is a name.

    Commas inside braces are not counted, as BibTeX does not count them.
    """
    repaired: list[str] = []
    changed = False
    for name in split_names(raw):
        if name.count(",") <= 2 and not name.endswith(","):  # too few commas to be wrong
            repaired.append(name)
            continue
        if extended_name_parts(name) is not None:  # biblatex's key=value form
            repaired.append(name)
            continue
        parts = [p.strip() for p in top_level_commas(name)]
        trailing = len(parts) > 1 and parts[-1] == ""
        if trailing:
            parts = parts[:-1]
        if len(parts) <= 3 and not trailing:
            repaired.append(name)
            continue
        changed = True
        parts = [p for p in parts if p]
        if len(parts) % 2 == 0 and all(_INITIALS.match(p) for p in parts[1::2]):
            repaired.extend(
                f"{family}, {given}" for family, given in zip(parts[::2], parts[1::2], strict=True)
            )
        elif trailing and len(parts) == 2 and not all(" " in p for p in parts):
            repaired.append(", ".join(parts))  # "Family, Given," with a stray comma
        else:
            repaired.extend(parts)
    return " and ".join(repaired) if changed else None
