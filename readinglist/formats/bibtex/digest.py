"""The digests of a BibTeX record: what it means bibliographically, and whether its text may be copied.

Third floor of :mod:`readinglist.formats.bibtex` (imports :mod:`.values` and
:mod:`.fields`). :func:`bibliographic_fingerprint` covers the citation key, entry
type, every bibliographic column and ``fields``; read status, priority, tags, notes,
dates and provenance are not bibliographic data. :func:`source_check` adds what the
macros a ``source_text`` may use mean; the writer copies an entry's text only when
both still hold (see :mod:`.writer`). :func:`bibliographic_data` is the record's
meaning without the raw LaTeX forms of its columns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from readinglist.digest import json_digest
from readinglist.formats.bibtex.fields import (
    ARXIV_PREFIX_FIELDS,
    arxiv_source,
    decode_date,
    decode_keywords,
    decode_month,
    decode_text,
    decode_title,
    decode_url,
    decode_year,
    parse_names,
    venue_candidates,
)
from readinglist.formats.bibtex.values import macro_names
from readinglist.identifiers import normalize_arxiv, normalize_doi
from readinglist.records import PaperRecord, Person

#: The macro half of the ``source_check`` of a text that may never be copied whole (a
#: value to escape or not inert, :func:`~.encode.escaping_needs`): no digest equals it,
#: so the writer always reads such a text again and replaces those values in place
#: (:mod:`.patch`), while the data half still tells the library the data is as read.
UNCHECKED = "-" * 32


def source_check(
    record: PaperRecord,
    macros: Mapping[str, str],
    names: Sequence[str] | None = None,
    cache: dict[tuple[tuple[str, str | None], ...], str] | None = None,
) -> str | None:
    """Return the digest that tells whether ``record.source_text`` can be copied as is.

    64 hex characters: 32 of SHA-256 over :func:`bibliographic_fingerprint`
    ``(record)`` (the data), then 32 of SHA-256 over the value in ``macros``
    (lower-case name -> value, months included; None when undefined) of each of
    :func:`macro_names` ``(record.source_text)`` (what the text's macros mean). The
    reader stores it on each record it reads (``PaperRecord.source_check``);
    :class:`Writer` computes it again with the export's macros: equal halves mean the
    data is what the text reads to and every macro the text may use means what it
    meant then, so the text is written without being parsed again; an equal first
    half alone means the data is as read, so the entry is regenerated from the
    record without parsing the text either. None without ``source_text``. ``names``:
    :func:`macro_names` of the text, when the caller has them already; ``cache``: a
    dict the caller keeps to compute the macro half once per set of values (a
    library's entries share a few).
    """
    if record.source_text is None:
        return None
    if names is None:
        names = macro_names(record.source_text)
    fingerprint = bibliographic_fingerprint(record)
    # Kept on the record (PaperRecord.fingerprint): the import asks for it again.
    object.__setattr__(record, "fingerprint", fingerprint)
    return fingerprint[:32] + macro_check(macros, names, cache)


def macro_check(
    macros: Mapping[str, str],
    names: Sequence[str],
    cache: dict[tuple[tuple[str, str | None], ...], str] | None = None,
) -> str:
    """Return the second half of :func:`source_check`: 32 hex characters of SHA-256
    over the value in ``macros`` (None when undefined) of each of ``names``
    (:func:`macro_names` of the text). ``cache`` as for :func:`source_check`. A
    writer that knows the data half holds (``readinglist.records.IntactEntry``)
    compares only this half."""
    values = tuple((name, macros.get(name)) for name in names)
    half = cache.get(values) if cache is not None else None
    if half is None:
        half = json_digest(list(values))[:32]
        if cache is not None:
            cache[values] = half
    return half


def _people_data(people: Sequence[Person]) -> list[list[str]]:
    return [[p.family, p.given, p.von, p.jr, p.literal] for p in people]


def bibliographic_fingerprint(record: PaperRecord) -> str:
    """Return a SHA-256 hex digest of the record's bibliographic data.

    Covered: citation key, entry type (case-insensitive), title, authors, editors,
    year, month, venue, abstract, DOI, arXiv id, url, keywords and every entry of
    ``fields`` (raw values included). Not covered: status, priority, tags, notes,
    ``added``/``read_at``, ``title_provisional``, ``short_name``, ``code_url``,
    ``source_text`` and ``line``. Two records with equal fingerprints are written
    identically by :func:`write`. The library may store it at import and compare at
    export; :func:`write` itself compares the record with its re-read
    ``source_text``. A record that holds its ``fingerprint`` (taken by
    :func:`source_check`) is not digested again.
    """
    if record.fingerprint is not None:
        return record.fingerprint
    data = [
        "bibtex-fp-1",
        record.citekey,
        record.entry_type.lower(),
        record.title,
        _people_data(record.authors),
        _people_data(record.editors),
        record.year,
        record.month,
        record.venue,
        record.abstract,
        record.doi,
        record.arxiv,
        record.url,
        list(record.keywords),
        sorted(record.fields.items()),
    ]
    return json_digest(data, compact=True)


def _consistent(raw: str | None, column: object, decode: Callable[[str], object]) -> bool:
    return raw is not None and column is not None and column != () and decode(raw) == column


def bibliographic_data(record: PaperRecord) -> dict[str, Any]:
    """Return what a record means bibliographically, without the raw forms of its columns.

    The columns (as in :func:`bibliographic_fingerprint`) plus ``fields`` minus each
    raw source field that decodes to its column (``title = {{B}ayesian}`` next to
    the title ``Bayesian``; the venue field; ``eprint``/``archiveprefix`` next to the
    arXiv id; a biblatex ``date`` equal to year and month). Two records with equal
    data are the same reference, written with possibly different LaTeX.
    ``read(write(records))`` preserves this view (see the tests).
    """
    fields = dict(record.fields)

    def drop_if(name: str, column: object, decode: Callable[[str], object]) -> None:
        if _consistent(fields.get(name), column, decode):
            del fields[name]

    drop_if("title", record.title, decode_title)
    drop_if("author", record.authors, parse_names)
    drop_if("editor", record.editors, parse_names)
    drop_if("year", record.year, decode_year)
    drop_if("month", record.month, decode_month)
    if "date" in fields and decode_date(fields["date"]) in {
        (record.year, record.month),
        (record.year, None),
    }:
        del fields["date"]
    for name in venue_candidates(record.entry_type.lower()):
        if name in fields:
            drop_if(name, record.venue, decode_text)
            break
    drop_if("doi", record.doi, normalize_doi)
    source = arxiv_source(fields)
    if source is not None:
        drop_if(source, record.arxiv, normalize_arxiv)
    if record.arxiv is not None:
        for name in ARXIV_PREFIX_FIELDS:
            if fields.get(name, "").strip().lower() == "arxiv":
                del fields[name]
    drop_if("url", record.url, decode_url)
    drop_if("keywords", record.keywords, decode_keywords)
    return {
        "citekey": record.citekey,
        "entry_type": record.entry_type.lower(),
        "title": record.title,
        "authors": record.authors,
        "editors": record.editors,
        "year": record.year,
        "month": record.month,
        "venue": record.venue,
        "abstract": record.abstract,
        "doi": record.doi,
        "arxiv": record.arxiv,
        "url": record.url,
        "keywords": record.keywords,
        "fields": fields,
    }
