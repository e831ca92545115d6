"""Generated ``.bib`` entries: a record's fields written anew, field by field.

Third floor of :mod:`readinglist.formats.bibtex` under :mod:`.writer` (imports
:mod:`.encode`, :mod:`.fields`, :mod:`.inert`, :mod:`.values`). :func:`format_entry`
writes the entries :mod:`.writer` does not copy as their own bytes, by the rules in the
writer's module docstring: fields in :data:`FIELD_ORDER`, then alphabetically; a column
still equal to the decoded raw value is written as that raw value when it is inert
LaTeX (:func:`~.inert.is_inert`), else the column is encoded; a paper's fields are
written by provenance: LaTeX copied when inert, else the text it displays escaped
(:func:`~.encode.copy_latex`), text escaped (:func:`~.encode.latex_of_text`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Protocol

from readinglist.formats.bibtex.encode import (
    Dialect,
    ascii_latex,
    copy_latex,
    encode_title,
    entry_type_name,
    escape_literal,
    format_names,
    is_foreign,
    is_verbatim,
    latex_of_text,
    normalize_pages,
    safe_verbatim,
    valid_citekey,
)
from readinglist.formats.bibtex.fields import (
    ARTICLE_TYPES,
    ARXIV_PREFIX_FIELDS,
    arxiv_source,
    decode_date,
    decode_ids,
    decode_keywords,
    decode_month,
    decode_text,
    decode_title,
    decode_url,
    decode_year,
    has_extended_names,
    parse_names,
    venue_candidates,
)
from readinglist.formats.bibtex.inert import is_inert
from readinglist.formats.bibtex.values import MONTH_ABBREV
from readinglist.identifiers import normalize_arxiv, normalize_doi
from readinglist.records import (
    PROVISIONAL_FIELD,
    NoteRecord,
    PaperRecord,
    format_marks,
    provisional_marks,
)
from readinglist.text import readable

#: Order of the fields in a generated entry; other fields follow alphabetically.
FIELD_ORDER: tuple[str, ...] = (
    "author",
    "title",
    "editor",
    "booktitle",
    "journal",
    "journaltitle",
    "year",
    "date",
    "month",
    "volume",
    "number",
    "pages",
    "publisher",
    "address",
    "doi",
    "eprint",
    "archiveprefix",
    "eprinttype",
    "primaryclass",
    "url",
)
_ORDER_INDEX = {name: i for i, name in enumerate(FIELD_ORDER)}


class Facts(Protocol):
    """What the rules for copying an entry's text read (:meth:`Writer._stale`,
    :meth:`Writer._read`): a PaperRecord, or an IntactEntry, which holds no more."""

    @property
    def keywords(self) -> tuple[str, ...]: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def notes(self) -> tuple[NoteRecord, ...]: ...
    @property
    def fields(self) -> Mapping[str, str]: ...
    @property
    def citekey(self) -> str | None: ...
    @property
    def aliases(self) -> tuple[str, ...]: ...
    @property
    def source_text(self) -> str | None: ...
    @property
    def strings_read(self) -> int | None: ...
    @property
    def title_provisional(self) -> bool: ...
    @property
    def citekey_provisional(self) -> bool: ...


def merged_keywords(record: Facts) -> tuple[str, ...]:
    seen = {k.casefold() for k in record.keywords}
    merged = list(record.keywords)
    for tag in record.tags:
        if tag.casefold() not in seen:
            seen.add(tag.casefold())
            merged.append(tag)
    return tuple(merged)


def merged_annote(record: Facts) -> str | None:
    existing = record.fields.get("annote")
    texts = [note.text.strip() for note in record.notes if note.text.strip()]
    if existing:
        # Notes already there as paragraphs of their own are not repeated (a substring
        # test would drop a note whose text happens to occur in the annote).
        paragraphs = {part.strip() for part in re.split(r"\n[ \t]*\n", existing)}
        texts = [t for t in texts if t not in paragraphs]
    if not texts:
        return existing
    return "\n\n".join(([existing] if existing else []) + texts)


def _column_value(
    raw: str | None,
    column: object,
    decode: Callable[[str], object],
    encode: Callable[[], str],
    reencode_raw: Callable[[str], str],
    trusted: bool = False,
) -> str | None:
    """The generic rule: raw if it still decodes to the column, else the encoded column,
    else the raw value when it never decoded to anything, else nothing. ``trusted``:
    the record is as read from its raw values, so a raw value and its column agree
    without decoding it again."""
    if raw is not None and column not in (None, ()) and (trusted or decode(raw) == column):
        return reencode_raw(raw)
    if column not in (None, ()):
        return encode()
    if raw is not None and decode(raw) in (None, ()):
        return reencode_raw(raw)
    return None


#: ``@`` at the start of a line inside a value (after a line break and blanks).
_AT_LINE_START = re.compile(r"(\n[^\S\n]*)@")


class _EntryFields:
    """The fields of one generated entry, built column by column by :meth:`build`:
    ``out`` maps a field name to its delimited value text (``{...}`` or a bare macro);
    ``fields`` holds the raw values not written yet.

    ``source`` is the record re-read from ``record.source_text``, if any: a title
    written without LaTeX in the file has no raw form in ``fields``, and is re-emitted
    as it was (without added case protection) while the title column equals it.
    ``trusted``: the record is as read from its raw values (see :func:`_column_value`).
    """

    def __init__(
        self, record: PaperRecord, dialect: Dialect, source: PaperRecord | None, trusted: bool
    ) -> None:
        self.record = record
        self.dialect: Dialect = dialect
        self.trusted = trusted
        #: False: the fields are plain text, not LaTeX (``PaperRecord.latex_fields``).
        self.latex = record.latex_fields
        self.fields = dict(record.fields)
        # A title written without LaTeX has no raw form in ``fields``: re-emit it as it
        # was in the file (no added case protection) while the title column equals it.
        if (
            "title" not in self.fields
            and source is not None
            and source.title is not None
            and source.title == record.title
            and "title" not in source.fields
        ):
            self.fields["title"] = source.title
        self.out: dict[str, str] = {}

    def build(self, keywords: bool, annote: bool) -> dict[str, str]:
        """Field name -> value text for the record (``keywords``/``annote``: merge the
        tags and notes, as for :func:`write`)."""
        self.title_and_names()
        self.venue()
        self.dates()
        self.identifiers()
        self.keywords_and_texts(keywords, annote)
        self.marks_and_ids()
        self.other_fields()
        return self.out

    def put(self, name: str, value: str | None) -> None:
        """Write ``{value}`` as field ``name``; nothing for None. A line of the value that
        starts with ``@`` gets it braced (``{@}``): readers (bibtexparser, ours) start a new
        entry at such a line, and the rest of the entry was lost (issue 18's fuzz test)."""
        if value is not None:
            if "@" in value and "\n" in value:
                value = _AT_LINE_START.sub(r"\1{@}", value)
            self.out[name] = "{" + value + "}"

    def text(self, value: str, name: str = "") -> str:
        """A value of the record's field ``name``: LaTeX from a BibTeX source copied when
        inert, else the text it displays escaped (:func:`~.encode.copy_latex`); a value
        of any other source escaped as text (:func:`~.encode.latex_of_text`:
        ``\\input`` is printed, never run)."""
        if self.latex:
            return copy_latex(value, self.dialect)
        text = latex_of_text(name, value)
        return ascii_latex(text) if self.dialect == "bibtex" else text

    def abstract(self, value: str) -> str:
        """The abstract: as :meth:`text`, except that one from a source other than BibTeX
        holding LaTeX commands or math (:func:`readinglist.text.has_markup`: a pasted
        conference abstract's ``$20\\%$``, ``\\textbf{(1) attacks}``) keeps its inert
        formulas as written (``$20\\%$``) and is otherwise written as the text the display
        rule shows (``(1) attacks``), escaped as text like every value from such a source
        (:func:`~.encode.latex_of_text`). LaTeX then typesets the math and prints the rest
        as ``show`` does, never the markup spelled out; nothing else of the markup is run,
        and an entry read back displays the same."""
        if self.latex:
            return copy_latex(value, self.dialect, readable)
        return self.text(value, "abstract")

    def pages(self, value: str) -> str:
        """A ``pages`` value, ranges normalized (:func:`~.encode.normalize_pages`). In plain
        text (RIS, CSL-JSON, PubMed) ``--`` is already the range dash those readers
        write, so it stays ``--`` (never ``-{}-``, which prints two hyphens)."""
        return self.text(normalize_pages(value), "pages")

    def verbatim(self, name: str, value: str) -> str:
        """A verbatim value (DOI, URL, eprint ...), made safe by provenance
        (:func:`~.encode.safe_verbatim`)."""
        return safe_verbatim(name, value, text=not self.latex)

    def raw_as_is(self, raw: str) -> str:
        """The raw LaTeX form of a column (title, names, venue) as written, with what is
        not valid LaTeX escaped (:func:`~.encode.escape_raw`), made ASCII for the bibtex
        dialect; one that is not inert markup as the text it displays, escaped
        (:func:`~.encode.copy_latex`; :meth:`value` writes the column instead).

        Only a BibTeX source gives a column a raw form, and :func:`_column_value` uses it
        only while it still decodes to the column's value, so it is LaTeX whatever the
        paper's first source was: a pasted paper completed by the proceedings' BibTeX
        keeps its title's math (``$\\ell_{1,p}$``; provenance is per value here, not per
        paper as for the other fields, issue 15)."""
        raw = copy_latex(raw, "biblatex")
        return ascii_latex(raw, exact=True) if self.dialect == "bibtex" else raw

    def value(
        self,
        raw: str | None,
        column: object,
        decode: Callable[[str], object],
        encode: Callable[[], str],
        reencode_raw: Callable[[str], str] | None = None,
    ) -> str | None:
        """:func:`_column_value` for this entry (raw LaTeX kept as is by default). A raw
        form that is not inert markup (:func:`~.inert.is_inert`) is never copied: the
        column is encoded instead, or, without a column, the raw value's display text
        is written escaped (:meth:`raw_as_is`)."""
        reencode = reencode_raw or self.raw_as_is
        if raw is not None and not is_inert(raw):
            reencode = self.raw_as_is
            raw = None if column not in (None, ()) else raw
        return _column_value(raw, column, decode, encode, reencode, self.trusted)

    def title_and_names(self) -> None:
        """The title, authors and editors."""
        record, dialect = self.record, self.dialect
        title = self.fields.pop("title", None)
        encode = partial(encode_title, record.title or "", dialect)
        self.put("title", self.value(title, record.title, decode_title, encode))
        for name, people in (("author", record.authors), ("editor", record.editors)):
            raw = self.fields.pop(name, None)
            if raw is not None and dialect == "bibtex" and has_extended_names(raw):
                raw = None  # biblatex's key=value names: BibTeX reads each part as a name
            encode = partial(format_names, people, dialect)
            self.put(name, self.value(raw, people, parse_names, encode))

    def venue(self) -> None:
        """The first candidate field present names the venue; dialects rename journal(title)."""
        entry_type = self.record.entry_type.lower()
        name = next((n for n in venue_candidates(entry_type) if n in self.fields), None)
        raw = self.fields.pop(name, None) if name else None
        if name is None:
            name = "journal" if entry_type in ARTICLE_TYPES else "booktitle"
        if self.dialect == "bibtex" and name == "journaltitle":
            name = "journal"
        elif self.dialect == "biblatex" and name == "journal":
            name = "journaltitle"
        encode = partial(escape_literal, self.record.venue or "", self.dialect)
        self.put(name, self.value(raw, self.record.venue, _decode_venue, encode))

    def dates(self) -> None:
        """Year and month fields for bibtex, one ISO date for biblatex."""
        record = self.record
        year_raw = self.fields.pop("year", None)
        month_raw = self.fields.pop("month", None)
        date_raw = self.fields.pop("date", None)
        date_parts = decode_date(date_raw) if date_raw is not None else None
        if self.dialect == "biblatex" and record.year is not None:
            if date_raw is not None and date_parts == (record.year, record.month):
                self.put("date", self.text(date_raw))
            else:
                suffix = f"-{record.month:02d}" if record.month else ""
                self.put("date", f"{record.year:04d}{suffix}")
            # Raw year/month forms that still decode to the columns are replaced by the
            # date; a month the columns could not take ("Summer") is kept as it is.
            if record.month is None and month_raw is not None and decode_month(month_raw) is None:
                self.put("month", self.text(month_raw))
            return
        year = self.value(year_raw, record.year, decode_year, lambda: str(record.year))
        self.put("year", year)
        month = self.value(
            month_raw, record.month, decode_month, lambda: MONTH_ABBREV[(record.month or 1) - 1]
        )
        if month is not None:
            if month_raw is None or decode_month(month_raw) != record.month:
                self.out["month"] = month  # bare macro
            else:
                self.put("month", month)
        # Classic BibTeX has no ``date``: one that year and month give back is left out;
        # one that says more (a contradicting year, an undecodable form) is kept as data.
        if date_raw is not None and date_parts not in {
            (record.year, record.month),
            (record.year, None),
        }:
            self.put("date", self.text(date_raw))

    def identifiers(self) -> None:
        """DOI, arXiv id and URL (the DOI always normalized: a resolver prefix in
        ``doi`` breaks biblatex's links)."""
        record, fields = self.record, self.fields
        doi_raw = fields.pop("doi", None)
        doi = self.value(None, record.doi, normalize_doi, lambda: record.doi or "", str)
        self.put("doi", None if doi is None else self.verbatim("doi", doi))
        if record.doi is None and doi_raw is not None and normalize_doi(doi_raw) is None:
            self.put("doi", self.verbatim("doi", doi_raw))
        arxiv_field = arxiv_source(fields)
        arxiv_raw = fields.pop(arxiv_field, None) if arxiv_field else None
        arxiv = self.value(
            arxiv_raw, record.arxiv, normalize_arxiv, lambda: record.arxiv or "", str
        )
        if arxiv is not None:
            arxiv_field = arxiv_field or "eprint"
            self.put(arxiv_field, arxiv)
            if (
                arxiv_field == "eprint"
                and record.arxiv is not None
                and not any(f in fields for f in ARXIV_PREFIX_FIELDS)
            ):
                if self.dialect == "biblatex":
                    self.out["eprinttype"] = "{arxiv}"
                else:
                    self.out["archiveprefix"] = "{arXiv}"
        url_raw = fields.pop("url", None)
        url = self.value(url_raw, record.url, decode_url, lambda: record.url or "", str)
        self.put("url", None if url is None else self.verbatim("url", url))

    def keywords_and_texts(self, keywords: bool, annote: bool) -> None:
        """Keywords (with the tags when ``keywords``), the abstract, and the annote
        (with the notes when ``annote``)."""
        record, dialect = self.record, self.dialect
        values = merged_keywords(record) if keywords else record.keywords
        raw = self.fields.pop("keywords", None)
        encode = partial(_encode_keywords, values, dialect)
        self.put("keywords", self.value(raw, values, decode_keywords, encode))
        if record.abstract is not None:
            self.put("abstract", self.abstract(record.abstract))
        self.fields.pop("abstract", None)
        if annote:
            annote_value = merged_annote(record)
            self.fields.pop("annote", None)
            if annote_value is not None:
                self.put("annote", self.text(annote_value))

    def marks_and_ids(self) -> None:
        """The provisional marks (:func:`~readinglist.records.provisional_marks`, as
        ``readinglist-provisional = {title, key}``), and for biblatex the paper's old
        keys as ``ids`` (biblatex manual 2.2.3: ``\\cite{oldkey}`` then resolves)."""
        self.fields.pop(PROVISIONAL_FIELD, None)
        marks = provisional_marks(self.record)
        if marks:
            self.put(PROVISIONAL_FIELD, format_marks(marks))
        if self.dialect == "biblatex":
            aliases = tuple(valid_citekey(alias, self.dialect) for alias in self.record.aliases)
            raw = self.fields.pop("ids", None)
            self.put("ids", self.value(raw, aliases, decode_ids, lambda: ", ".join(aliases), str))

    def other_fields(self) -> None:
        """Every raw field not written yet: verbatim, pages normalized, or escaped; not
        those kept only for RIS and CSL-JSON (:func:`~.encode.is_foreign`)."""
        for name, value in self.fields.items():
            if name in self.out or is_foreign(name):
                continue
            if is_verbatim(name, value):
                self.put(name, self.verbatim(name, value))
            elif name == "pages":
                self.put(name, self.pages(value))
            else:
                self.put(name, self.text(value, name))


def _decode_venue(raw: str) -> str | None:
    return decode_text(raw) or None


def _encode_keywords(keywords: Sequence[str], dialect: Dialect) -> str:
    return ", ".join(escape_literal(k, dialect) for k in keywords)


def entry_fields(
    record: PaperRecord,
    dialect: Dialect,
    keywords: bool = False,
    annote: bool = False,
    source: PaperRecord | None = None,
    trusted: bool = False,
) -> dict[str, str]:
    """Field name (lower-case) -> delimited value text (``{...}`` or a bare month
    macro) of the entry :func:`format_entry` writes for ``record``: the one home of
    how each value is written anew, also for the values an export replaces in place
    (:mod:`.patch`). Arguments as for :func:`format_entry`."""
    return _EntryFields(record, dialect, source, trusted).build(keywords, annote)


def format_entry(
    record: PaperRecord,
    dialect: Dialect,
    keywords: bool,
    annote: bool,
    source: PaperRecord | None = None,
    trusted: bool = False,
) -> str:
    """The entry of ``record`` written anew: its :func:`entry_fields` in
    :data:`FIELD_ORDER`, then alphabetically, two-space indent, lower-case entry type
    and names (``source``: the record re-read from its text, ``trusted``: the record
    is as read from its raw values; see :class:`_EntryFields`)."""
    fields = entry_fields(record, dialect, keywords, annote, source, trusted)
    names = sorted(fields, key=lambda n: (_ORDER_INDEX.get(n, len(_ORDER_INDEX)), n))
    key = valid_citekey(record.citekey, dialect) if record.citekey else ""
    lines = [f"@{entry_type_name(record.entry_type)}{{{key},"]
    lines.extend(f"  {name} = {fields[name]}," for name in names)
    if names:
        lines[-1] = lines[-1][:-1]
    lines.append("}")
    return "\n".join(lines)
