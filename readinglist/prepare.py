"""What an import computes of each incoming record before it touches the database.

:func:`prepare_record` normalizes a record (DOI, arXiv id, entry type, no NUL
characters) and computes its search words, normalized title, abstract digest and the
citation key it asks for. It is a pure function of the record, and this module
imports no SQLAlchemy, so that ``readinglist.pipelines.reader_process`` can run it in a light
child process beside the import (issue 9). ``readinglist.library`` re-exports these
names.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from readinglist import citekeys, dedupe
from readinglist.identifiers import normalize_arxiv, normalize_doi
from readinglist.records import PaperRecord
from readinglist.records import Person as PersonRecord
from readinglist.text import search_tokens


def normalize_record(record: PaperRecord) -> PaperRecord:
    """Return ``record`` with its DOI and arXiv id normalized and a lower-case entry type.

    The record itself is returned when nothing changes (no copy: imports call this
    once per record).
    """
    if _has_nul(record):
        record = _without_nul(record)
    doi = normalize_doi(record.doi)
    arxiv = normalize_arxiv(record.arxiv)
    entry_type = (record.entry_type or "misc").lower()
    if doi == record.doi and arxiv == record.arxiv and entry_type == record.entry_type:
        return record
    return replace(record, doi=doi, arxiv=arxiv, entry_type=entry_type)


def _has_nul(record: PaperRecord) -> bool:
    texts = [
        record.citekey,
        record.title,
        record.short_name,
        record.venue,
        record.abstract,
        record.url,
        record.code_url,
        record.source_text,
        *record.keywords,
        *record.tags,
        *record.fields.keys(),
        *record.fields.values(),
    ]
    texts += [p.family + p.given + p.von + p.jr + p.literal for p in record.authors]
    texts += [p.family + p.given + p.von + p.jr + p.literal for p in record.editors]
    # One scan of the joined texts (C speed) instead of a test per text.
    return "\x00" in "".join(filter(None, texts))


def _without_nul(record: PaperRecord) -> PaperRecord:
    """Drop NUL characters from every text of ``record``: PostgreSQL text cannot hold
    them, and no bibliographic value means one (they come from damaged files)."""

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace("\x00", "")
        if isinstance(value, tuple):
            return tuple(clean(v) for v in value)
        if isinstance(value, dict):
            return {clean(k): clean(v) for k, v in value.items()}
        if isinstance(value, PersonRecord):
            return PersonRecord(*(clean(getattr(value, f)) for f in PERSON_PARTS))
        return value

    return replace(
        record, **{f.name: clean(getattr(record, f.name)) for f in fields(record) if f.init}
    )


PERSON_PARTS = ("family", "given", "von", "jr", "literal")


@dataclass
class Prepared:
    """An incoming record with what the import computes once per record
    (:func:`prepare_record`; picklable, so a reader process can compute it)."""

    record: PaperRecord
    tkey: str | None  # normalized title (title_key), None without a title
    akey: str | None  # digest of the abstract's words (dedupe.abstract_key)
    base: str  # the citation key it asks for: its own when usable, else a generated one
    abstract_words: str  # search_tokens(abstract) joined by spaces ("" for none)


def prepare_record(record: PaperRecord) -> Prepared:
    """Normalize ``record`` (:func:`normalize_record`) and compute what the import
    needs of it once: title and abstract search words, the normalized title
    (``title_key``), the abstract digest and the citation key it asks for.

    A pure function of the record (no database), so it may run in another process.
    """
    record = normalize_record(record)
    given = record.citekey if record.citekey and citekeys.is_valid_key(record.citekey) else None
    title_words = search_tokens(record.title) if record.title else []
    abstract = record.abstract
    abstract_words = search_tokens(abstract) if abstract else []
    if abstract and ("*" in abstract or "_" in abstract):
        akey = dedupe.abstract_key(abstract)
    else:
        akey = dedupe.abstract_key_of_words(abstract_words)
    return Prepared(
        record,
        " ".join(title_words) if record.title else None,  # = title_key(record.title)
        akey,
        given or citekeys.base_key(record),
        " ".join(abstract_words),
    )
