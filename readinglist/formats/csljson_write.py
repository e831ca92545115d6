"""CSL-JSON writing: PaperRecords -> CSL items (the mapping of :mod:`readinglist.formats.csljson`).

The inverse of :func:`readinglist.formats.csljson.read`, split from it along the
format's two directions; the vocabularies (types, variables) live with the reader.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from readinglist.formats.csljson import (
    _DATE_VARIABLES,
    _DAY,
    _FIELD_VARIABLES,
    _KEPT_OTHERWISE,
    _NAME_VARIABLES,
    _UPPER,
    CSL_TYPES,
    ENTRY_TYPES,
    _name_object,
)
from readinglist.formats.csljson_syntax import latex_rich_text
from readinglist.formats.rules import (
    MASTERS,
    arxiv_abs_url,
    keywords_of,
    plain_fields,
    publisher_of,
)
from readinglist.records import PaperRecord, named_people, provisional_marks
from readinglist.text import readable

__all__ = ["write", "write_chunks"]


def _written_type(record: PaperRecord) -> str:
    """The ``csl_type`` the record was read with when it still fits, else :data:`CSL_TYPES`."""
    csl_type = record.fields.get("csl_type", "")
    if not csl_type or ENTRY_TYPES.get(csl_type, "misc") != record.entry_type:
        csl_type = CSL_TYPES.get(record.entry_type, "article")
    return csl_type


def _main_variables(record: PaperRecord, index: int, tags_as_keywords: bool) -> dict[str, Any]:
    """``id``, ``citation-key``, title, names, ``issued``, venue, DOI, URL, abstract, keywords."""
    item: dict[str, Any] = {}
    # A made-up id has a space, so reading it back does not take it for a citation key.
    item["id"] = record.citekey or record.fields.get("csl_id") or f"item {index}"
    if record.citekey:
        item["citation-key"] = record.citekey
    if record.title:
        item["title"] = _rich_text(record, "title") or record.title
    for variable, people in (("author", record.authors), ("editor", record.editors)):
        if named := named_people(people)[0]:
            item[variable] = [_name_object(p) for p in named]
    if record.year is not None:
        parts: list[int] = [record.year] + ([record.month] if record.month is not None else [])
        day = _DAY.match(record.fields.get("date", ""))
        if day and (int(day.group(1)), int(day.group(2))) == (record.year, record.month):
            parts.append(int(day.group(3)))
        item["issued"] = {"date-parts": [parts]}
    if record.venue:
        venue = next(
            (n for n in ("journal", "journaltitle", "booktitle") if n in record.fields), ""
        )
        item["container-title"] = _rich_text(record, venue) or record.venue
    if record.doi:
        item["DOI"] = record.doi
    url = record.url or (arxiv_abs_url(record.arxiv) if record.arxiv else None) or record.code_url
    if url:
        item["URL"] = url
    if abstract := readable(record.abstract):
        item["abstract"] = abstract
    if keywords := keywords_of(record, tags_as_keywords):
        item["keyword"] = ", ".join(keywords)
    return item


def _rich_text(record: PaperRecord, name: str) -> str | None:
    """The CSL rich text of the raw LaTeX of field ``name`` (a title: ``\\emph{}`` ->
    ``<i>``, ``{BERT}`` -> ``<span class="nocase">``, ``$_{2}$`` -> ``<sub>``;
    :func:`~readinglist.formats.csljson_syntax.latex_rich_text`), or None: no such raw
    value or no markup in it. A raw value comes from a BibTeX source or from CSL rich
    text read (:func:`~readinglist.formats.csljson_syntax.rich_text_latex`, written by
    this package with the text escaped), whatever the record's ``latex_fields``. So CSL
    keeps the markup the BibTeX source and CSL rich text give, as pandoc does, where
    ``show``, Markdown and RIS print the text (CSL-JSON is never read as LaTeX)."""
    raw = record.fields.get(name) if name else None
    if not raw:
        return None
    from readinglist.formats.bibtex.fields import decode_text

    return latex_rich_text(raw, decode_text)


def _custom_object(record: PaperRecord) -> dict[str, Any]:
    """``custom``: the kept ``csl_custom`` plus our data without a CSL variable."""
    custom: dict[str, Any] = {}
    if "csl_custom" in record.fields:
        try:
            loaded = json.loads(record.fields["csl_custom"])
            if isinstance(loaded, dict):
                custom.update(loaded)
        except ValueError:
            pass
    if record.arxiv:
        custom["arxiv"] = record.arxiv
    if record.code_url:
        custom["code_url"] = record.code_url
        if record.url == record.code_url:
            custom["url"] = record.url  # else the reader takes URL for the copied code link
    if record.short_name:
        custom["short_name"] = record.short_name
    # CSL has no "et al." of a name list: the roles truncated (records.named_people).
    truncated = [
        role
        for role, people in (("author", record.authors), ("editor", record.editors))
        if named_people(people)[1]
    ]
    if truncated:
        custom["et_al"] = truncated
    custom.update(_marks_object(record))
    return custom


def _marks_object(record: PaperRecord) -> dict[str, bool]:
    """The provisional marks (:func:`readinglist.records.provisional_marks`) as
    ``custom`` keys: ``title_provisional``, ``citekey_provisional`` (true)."""
    names = {"title": "title_provisional", "key": "citekey_provisional"}
    return {names[mark]: True for mark in provisional_marks(record)}


def _field_variables(record: PaperRecord, csl_type: str) -> dict[str, Any]:
    """number (``issue``, or ``number`` for reports and patents), ``page``, the
    :data:`_FIELD_VARIABLES`, the publisher fallback and a master's thesis ``genre``, as
    plain text (:func:`~readinglist.formats.rules.plain_fields`)."""
    fields = plain_fields(record)
    item: dict[str, Any] = {}
    if fields.get("number"):
        item["issue" if csl_type not in ("report", "patent") else "number"] = fields["number"]
    if fields.get("pages"):
        item["page"] = fields["pages"].replace("--", "–")
    for variable, name in _FIELD_VARIABLES.items():
        if fields.get(name):
            item[variable] = fields[name]
    if "publisher" not in item and (publisher := publisher_of(fields)):
        item["publisher"] = publisher
    if record.entry_type == "mastersthesis" and "genre" not in item:
        item["genre"] = MASTERS
    return item


def _kept_variables(fields: Mapping[str, str], item: Mapping[str, Any]) -> dict[str, Any]:
    """Each ``csl_<variable>`` field not in ``item`` back to its variable (JSON for the
    date and name variables)."""
    kept: dict[str, Any] = {}
    for name, value in fields.items():
        if not name.startswith("csl_") or name in _KEPT_OTHERWISE:
            continue
        variable = _UPPER.get(name[4:], name[4:])
        if variable in item or variable in kept:
            continue
        kept[variable] = value
        if variable in _DATE_VARIABLES or variable in _NAME_VARIABLES:
            with contextlib.suppress(ValueError):
                kept[variable] = json.loads(value)
    return kept


def _item(record: PaperRecord, index: int, tags_as_keywords: bool) -> dict[str, Any]:
    """One record as a CSL item (mapping in the module docstring)."""
    csl_type = _written_type(record)
    item = {"type": csl_type, **_main_variables(record, index, tags_as_keywords)}
    if custom := _custom_object(record):
        item["custom"] = custom
    item.update(_field_variables(record, csl_type))
    item.update(_user_variables(record, item))
    item.update(_kept_variables(record.fields, item))
    return item


def _user_variables(record: PaperRecord, item: Mapping[str, Any]) -> dict[str, Any]:
    """The user's notes after the ``note`` variable (a blank line between them), and the
    user's tags in ``custom.tags`` too (the ``keyword`` variable holds them already, for
    other tools; ``custom.tags`` tells them from the source's keywords when read back)."""
    out: dict[str, Any] = {}
    notes = [note.text.strip() for note in record.notes if note.text.strip()]
    if notes:
        out["note"] = "\n\n".join([*([item["note"]] if item.get("note") else []), *notes])
    if record.tags:
        out["custom"] = {**item.get("custom", {}), "tags": list(record.tags)}
    return out


def write(records: Iterable[PaperRecord], *, tags_as_keywords: bool = True) -> str:
    """Write ``records`` as CSL-JSON: a JSON array, indent 2, UTF-8 text, sorted keys.

    The inverse of :func:`read` (see the module table). ``id`` is the citation key
    (else the ``id`` the record was read with, else ``item N``); ``issued`` holds ``[[year, month]]``;
    ``page`` uses an en dash for ``--``; keywords (then the user's tags, unless
    ``tags_as_keywords`` is False) are joined with ``", "``; the abstract is
    readable text (LaTeX decoded, :func:`readinglist.text.readable`); the user's
    notes follow the ``note`` field in ``note``; ``custom`` carries the arXiv
    id, code URL, short name, provisional-title flag and the user's tags
    (``tags``), which have no CSL variable. Fields with neither a CSL variable nor a ``csl_`` prefix (BibTeX-only
    fields such as ``pdf``) are not written.

    Returns the text ending in a newline (``"[]\\n"`` for no records).
    Deterministic: keys sorted, records in the given order.
    """
    return "".join(write_chunks(records, tags_as_keywords=tags_as_keywords))


def write_chunks(
    records: Iterable[PaperRecord], *, tags_as_keywords: bool = True, chunk: int = 500
) -> Iterator[str]:
    """Yield the text of :func:`write` ``chunk`` items at a time, reading ``records`` as
    it goes (an export streams them and writes each piece, issue 17): the pieces joined
    are exactly the text of ``json.dumps`` of the whole array with ``indent=2``, each
    item dumped alone one level deep (``jsontext.dumps``, the same text without the
    pure-Python encoder)."""
    from readinglist import jsontext

    opening = "[\n  "
    pending: list[str] = []
    for index, record in enumerate(records, 1):
        item = _item(record, index, tags_as_keywords)
        pending.append(opening + jsontext.dumps(item, sort_keys=True, newline="\n  "))
        opening = ",\n  "
        if len(pending) == chunk:
            yield "".join(pending)
            pending = []
    pending.append("[]\n" if opening == "[\n  " else "\n]\n")
    yield "".join(pending)
