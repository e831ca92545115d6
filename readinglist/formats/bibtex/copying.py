"""When an entry's text read from BibTeX can be copied as written, by what the export
asks of it: the rules that make an export write some of its values anew although its
data is unchanged (its own text says other than the export must: the reader's tags or
notes merged in, provisional marks, biblatex's old keys, or biblatex-only forms a
``bibtex`` export cannot hold), and which fields each concerns (:func:`stale_fields`:
:mod:`.patch` replaces those in place). The LaTeX rule (:mod:`.inert`) and the data rule
(:mod:`.digest`) are applied by :class:`.writer.Writer` itself.
"""

from __future__ import annotations

from readinglist.citekeys import is_inert_key
from readinglist.formats.bibtex.encode import Dialect
from readinglist.formats.bibtex.fields import (
    decode_ids,
    mentions_extended_names,
    month_needs_macro,
)
from readinglist.formats.bibtex.generate import Facts, merged_annote, merged_keywords
from readinglist.records import PROVISIONAL_FIELD, provisional_marks

#: What classic BibTeX writes for biblatex's ``date`` and ``journaltitle``.
_CLASSIC_FOR_BIBLATEX = ("date", "journaltitle", "journal", "year", "month")


def needs_user_state(record: Facts, keywords: bool, annote: bool) -> bool:
    """True when the export merges tags (``keywords``) or notes (``annote``) that
    ``record``'s ``source_text`` does not hold: the entry is then generated."""
    if keywords and merged_keywords(record) != record.keywords:
        return True
    return annote and merged_annote(record) != record.fields.get("annote")


def keys_break_rule(record: Facts, dialect: Dialect) -> bool:
    """True when ``record``'s citation key (or, for biblatex, an old key written in
    ``ids``) holds a character TeX would read as markup
    (:func:`readinglist.citekeys.is_inert_key`; a library made before that rule may
    hold such keys): its ``source_text`` holds the key as read and is never copied;
    the entry is generated, its keys made inert (:func:`~.encode.valid_citekey`)."""
    keys = (record.citekey or "", *(record.aliases if dialect == "biblatex" else ()))
    return not all(map(is_inert_key, keys))


def marks_or_ids_differ(record: Facts, dialect: Dialect) -> bool:
    """True when ``record``'s ``source_text`` cannot be copied because it says other
    than the record about the provisional marks (it has the field or not), or, for
    biblatex, about the old keys (``ids``)."""
    written = PROVISIONAL_FIELD in (record.source_text or "").lower()
    if written != bool(provisional_marks(record)):
        return True
    if dialect != "biblatex":
        return False
    have = {key.casefold() for key in decode_ids(record.fields.get("ids", ""))}
    return have != {alias.casefold() for alias in record.aliases}


#: biblatex fields that stand for a classic BibTeX field (``date`` for ``year``/``month``,
#: ``journaltitle`` for ``journal``): a BibTeX style reads none of them.
BIBLATEX_FOR_BIBTEX = ("date", "journaltitle")


def biblatex_in_bibtex(record: Facts, dialect: Dialect) -> bool:
    """True when ``record``'s ``source_text`` cannot be copied into a ``bibtex`` export
    because it gives a value only in a biblatex field (:data:`BIBLATEX_FOR_BIBTEX`):
    classic BibTeX has no ``date``, so the entry is generated with ``year``/``month``
    and ``journal``; because a name list is in biblatex's extended ``family=...`` form
    (BibTeX would take each part for a person), or because a month that names one month
    is not written as BibTeX's month macro (``{Sept.}``, ``{9}``: styles sort and
    abbreviate only the macro ``sep``)."""
    if dialect != "bibtex":
        return False
    fields = record.fields
    return any(n in fields for n in BIBLATEX_FOR_BIBTEX) or (
        record.source_text is not None
        and (mentions_extended_names(record.source_text) or month_needs_macro(record.source_text))
    )


def stale_fields(record: Facts, dialect: Dialect, keywords: bool, annote: bool) -> set[str]:
    """The fields (lower-case) the rules above ask to write anew in ``record``'s
    ``source_text``, each in place (:mod:`.patch`): ``keywords``/``annote`` with tags
    or notes merged, the provisional marks and (biblatex) ``ids``, and for ``bibtex``
    a month not written as the macro, name lists in the extended form, ``date`` and
    ``journaltitle`` (with the ``year``, ``month`` and ``journal`` written for them)."""
    names: set[str] = set()
    if keywords and needs_user_state(record, True, False):
        names.add("keywords")
    if annote and needs_user_state(record, False, True):
        names.add("annote")
    if marks_or_ids_differ(record, dialect):
        names.update((PROVISIONAL_FIELD, "ids"))
    text = record.source_text or ""
    if dialect == "bibtex":
        if any(n in record.fields for n in BIBLATEX_FOR_BIBTEX):
            names.update(_CLASSIC_FOR_BIBLATEX)
        if mentions_extended_names(text):
            names.update(("author", "editor"))
        if month_needs_macro(text):
            names.add("month")
    return names
