"""CSL-JSON items <-> PaperRecord.

CSL-JSON is the citation data of Zotero, Pandoc and citeproc: a JSON array of items,
each an object of CSL variables. Source: the CSL-JSON schema
(``csl-data.json``, citation-style-language/schema, CSL 1.0.2) and the CSL 1.0.2
specification, "Appendix IV - Variables" (citationstyles.org). Entry types map as
citeproc-lua's "Bib CSL mapping" (zepinglee/citeproc-lua, ``bib-csl-mapping.md``)
does, which follows biblatex's own documentation.
:mod:`readinglist.formats.csljson_syntax` decodes the JSON and finds each item's line;
this module maps the variables, one small function per group below.

Mapping (reading; writing is the inverse):

==========================  =====================================================
``type``                    entry type (tables :data:`ENTRY_TYPES`,
                            :data:`CSL_TYPES`); a type that writing would not give
                            back is kept as ``fields["csl_type"]``
``citation-key``, ``id``    citation key (``id`` only when it looks like a key:
                            a letter, no spaces, no ``://``); an unused ``id`` is kept as
                            ``fields["csl_id"]`` (a warning names it)
``title``                   title; ``title-short`` -> ``fields["shorttitle"]``;
                            CSL rich text (``<i>``, ``<sub>``, nocase ...) in
                            title and ``container-title``: the LaTeX form in
                            ``fields`` (``title``, ``journal``/``booktitle``), the
                            column its Unicode decoding
``author``, ``editor``      Person: ``family``, ``given``, ``non-dropping-particle``
                            and ``dropping-particle`` (-> ``von``), ``suffix``
                            (-> ``jr``), ``literal``
``issued``                  year and month from ``date-parts`` (numbers or
                            strings), ``raw``, ``literal`` or a bare string; a
                            day -> ``fields["date"]`` (ISO)
``container-title``         venue; ``collection-title`` -> ``fields["series"]``
``DOI``                     DOI, normalized (lower case, no resolver prefix); an
                            arXiv DOI (``10.48550/arXiv.ID``) also gives the arXiv id
``URL``                     URL (a code-host link: the code link; an arXiv link
                            gives the arXiv id, and the abstract page is no URL);
                            ``number`` ``arXiv:ID`` gives the arXiv id too
``abstract``, ``keyword``   abstract; keywords (the comma-separated string),
                            less the tags ``custom.tags`` names
``volume``, ``issue``,      ``fields`` volume, number, pages (an en dash becomes
``page``, ``number``        ``--``); ``number`` is ``fields["number"]`` only when
                            there is no ``issue``
``publisher``, ...          ``fields`` by their BibTeX names: publisher,
                            address (``publisher-place``), issn, isbn, edition,
                            language, note, type (``genre``), chapter
                            (``chapter-number``), pagetotal (``number-of-pages``)
``custom``                  CSL 1.0.2's object for data without a variable: our
                            ``arxiv``, ``code_url``, ``short_name``,
                            ``title_provisional``, ``citekey_provisional``
                            (the provisional marks) and ``tags`` (the paper's
                            tags); other keys -> ``csl_custom``
anything else               ``fields["csl_<variable>"]``: strings as they are, other
                            values as compact JSON (``accessed``, ``translator`` ...)
==========================  =====================================================
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from readinglist.formats.csljson_syntax import elements, rich_text_latex
from readinglist.formats.rules import (
    MASTERS,
    arxiv_link,
    date_of,
    is_code_host,
    is_masters,
    looks_like_key,
    one_line,
    without_empty,
)
from readinglist.identifiers import arxiv_from_doi, normalize_arxiv, normalize_doi
from readinglist.records import (
    PaperRecord,
    ParseProblem,
    ParseResult,
    Person,
    names_others,
)

__all__ = ["CSL_TYPES", "ENTRY_TYPES", "read", "write", "write_chunks"]

#: CSL item type -> BibTeX entry type (types not listed read as ``misc``).
ENTRY_TYPES: dict[str, str] = {
    "article-journal": "article",
    "article-magazine": "article",
    "article-newspaper": "article",
    "review": "article",
    "paper-conference": "inproceedings",
    "book": "book",
    "chapter": "incollection",
    "entry-encyclopedia": "incollection",
    "entry-dictionary": "incollection",
    "thesis": "phdthesis",
    "report": "techreport",
    "manuscript": "unpublished",
    "pamphlet": "booklet",
    "article": "misc",
    "document": "misc",
    "webpage": "misc",
}
#: BibTeX entry type -> CSL item type written (``article``, CSL's generic and
#: preprint type, for the rest).
CSL_TYPES: dict[str, str] = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "conference": "paper-conference",
    "proceedings": "book",
    "book": "book",
    "inbook": "chapter",
    "incollection": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "techreport": "report",
    "manual": "report",
    "unpublished": "manuscript",
    "booklet": "pamphlet",
    "misc": "article",
    "online": "webpage",
    "software": "software",
    "dataset": "dataset",
    "patent": "patent",
}
#: CSL variables stored in ``fields`` under a BibTeX name.
_FIELD_VARIABLES: dict[str, str] = {
    "volume": "volume",
    "publisher": "publisher",
    "publisher-place": "address",
    "ISSN": "issn",
    "ISBN": "isbn",
    "edition": "edition",
    "language": "language",
    "note": "note",
    "genre": "type",
    "chapter-number": "chapter",
    "number-of-pages": "pagetotal",
    "collection-title": "series",
    "title-short": "shorttitle",
}
#: Variables whose values are dates or name lists (CSL 1.0.2 Appendix IV): a
#: ``csl_*`` field holding one of them is JSON.
_DATE_VARIABLES = frozenset(
    {"accessed", "available-date", "event-date", "issued", "original-date", "submitted"}
)
_NAME_VARIABLES = frozenset(
    {
        "author", "chair", "collection-editor", "compiler", "composer", "container-author",
        "contributor", "curator", "director", "editor", "editor-translator",
        "editorial-director", "executive-producer", "guest", "host", "illustrator",
        "interviewer", "narrator", "organizer", "original-author", "performer", "producer",
        "recipient", "reviewed-author", "script-writer", "series-creator", "translator",
    }
)  # fmt: skip
#: CSL variables written in upper case (the schema's spelling).
_UPPER = {
    "doi": "DOI",
    "isbn": "ISBN",
    "issn": "ISSN",
    "pmcid": "PMCID",
    "pmid": "PMID",
    "url": "URL",
}
_HANDLED = frozenset(
    {
        "type", "id", "citation-key", "title", "author", "editor", "issued", "container-title",
        "DOI", "URL", "abstract", "keyword", "issue", "page", "number", "custom",
        *_FIELD_VARIABLES,
    }
)  # fmt: skip
#: The id :func:`write` gives a record without a citation key (read back silently).
_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_WRITTEN_ID = re.compile(r"^item \d+$")
_CUSTOM_KEYS = (
    "arxiv",
    "et_al",
    "citekey_provisional",
    "code_url",
    "short_name",
    "tags",
    "title_provisional",
    "url",
)

#: ``csl_*`` fields that are not a variable of their own.
_KEPT_OTHERWISE = ("csl_type", "csl_id", "csl_custom")


def _text(value: Any) -> str | None:
    """A CSL string-or-number value as stripped text (None for other JSON types / empty)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return value.strip() or None
    return None


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# --- names and dates --------------------------------------------------------------------------


def _person(name: Any) -> Person | None:
    """A CSL name object (or a bare string) as a Person; None when it holds no name."""
    if isinstance(name, str):
        name = {"literal": name}
    if not isinstance(name, Mapping):
        return None
    literal = _text(name.get("literal"))
    if literal:
        # {"literal": "et al."} ends a truncated list (records.names_others).
        return Person(literal="others" if names_others(literal) else one_line(literal))
    family = _text(name.get("family")) or ""
    given = _text(name.get("given")) or ""
    von = " ".join(
        p
        for p in (_text(name.get("dropping-particle")), _text(name.get("non-dropping-particle")))
        if p
    )
    jr = _text(name.get("suffix")) or ""
    if not (family or given or von):
        return None
    return Person(
        family=one_line(family), given=one_line(given), von=one_line(von), jr=one_line(jr)
    )


def _name_object(person: Person) -> dict[str, str]:
    """A Person as a CSL name object (``von`` -> ``non-dropping-particle``)."""
    if person.literal:
        return {"literal": person.literal}
    name = {"family": person.family}
    if person.given:
        name["given"] = person.given
    if person.von:
        name["non-dropping-particle"] = person.von
    if person.jr:
        name["suffix"] = person.jr
    return name


def _date(date: Any) -> tuple[int | None, int | None, int | None]:
    """Year, month (1..12) and day of a CSL date: an object with ``date-parts``
    (numbers or numeric strings), ``raw`` or ``literal``, or a bare string
    (``"2018-03-02"``, ``"2024 Feb 21"``; :func:`readinglist.formats.rules.date_of`)."""
    if isinstance(date, str):
        return date_of(date)
    if not isinstance(date, Mapping):
        return None, None, None
    parts = date.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        numbers: list[int | None] = []
        for part in parts[0][:3]:
            try:
                numbers.append(int(str(part).strip()))
            except ValueError:
                numbers.append(None)
        year, month, day = (*numbers, None, None)[:3]
        # 13..16 are seasons (CSL 1.0.1 "Date-parts"), not months.
        if month is None or not 1 <= month <= 12:
            return year, None, None
        return year, month, day if day is not None and 1 <= day <= 31 else None
    raw = date.get("raw") or date.get("literal")
    return date_of(raw) if isinstance(raw, str) else (None, None, None)


# --- reading ----------------------------------------------------------------------------------


@dataclass
class _Item:
    """One CSL item being mapped to a PaperRecord: its fields and its problems so far."""

    item: Mapping[str, Any]
    line: int | None
    source: str
    fields: dict[str, str] = field(default_factory=dict)
    problems: list[ParseProblem] = field(default_factory=list)

    def text(self, variable: str) -> str | None:
        return _text(self.item.get(variable))

    def warn(self, message: str) -> None:
        self.problems.append(ParseProblem(message, self.source, self.line, "warning"))


def _entry_type(it: _Item) -> str:
    """``type`` (and ``genre`` for a master's thesis) -> entry type; an odd type is kept."""
    csl_type = it.text("type")
    if csl_type is None:
        it.warn("item without a 'type'; read as misc")
    entry_type = ENTRY_TYPES.get(csl_type or "", "misc")
    if csl_type == "thesis" and is_masters(it.text("genre")):
        entry_type = "mastersthesis"
    if csl_type and CSL_TYPES.get(entry_type, "article") != csl_type:
        it.fields["csl_type"] = csl_type
    return entry_type


def _citekey(it: _Item) -> str | None:
    """``citation-key``, else an ``id`` that looks like a key; another ``id`` is kept."""
    citekey = it.text("citation-key")
    raw_id = it.item.get("id")
    item_id = _text(raw_id)
    if citekey is None and item_id and looks_like_key(item_id) and "://" not in item_id:
        citekey = item_id
    elif raw_id is not None and item_id != citekey:
        it.fields["csl_id"] = item_id if item_id is not None else _compact(raw_id)
        if citekey is None and not _WRITTEN_ID.match(it.fields["csl_id"]):
            it.warn(
                f"id {it.fields['csl_id']!r} is not a valid citation key; "
                "a key is generated (the id is kept as csl_id)"
            )
    return citekey


def _people(it: _Item, role: str, ours: Mapping[str, Any]) -> tuple[Person, ...]:
    """The people of the name variable ``role``, then the "et al." mark when our export
    wrote ``role`` in ``custom.et_al`` (CSL has no way to say a list is truncated)."""
    names = it.item.get(role)
    et_al = ours.get("et_al")
    if isinstance(et_al, list) and role in et_al:
        return (*_people(it, role, {}), Person(literal="others"))
    if names is None:
        return ()
    if not isinstance(names, list):
        it.warn(f"'{role}' is not a list of names; ignored")
        return ()
    people: list[Person] = []
    for name in names:
        person = _person(name)
        if person is None:
            it.warn(f"an entry of '{role}' holds no name: {_compact(name)}")
        else:
            people.append(person)
    return tuple(people)


def _issued(it: _Item) -> tuple[int | None, int | None]:
    """Year and month of ``issued`` (:func:`_date`); a day goes to ``fields["date"]``
    as ISO ``YYYY-MM-DD`` (biblatex's ``date``)."""
    if "issued" not in it.item:
        return None, None
    year, month, day = _date(it.item["issued"])
    if year is None:
        issued = _compact(it.item["issued"])
        it.warn(f"'issued' holds no year: {issued}; kept as csl_issued")
        it.fields["csl_issued"] = issued
    elif month is not None and day is not None:
        it.fields["date"] = f"{year:04d}-{month:02d}-{day:02d}"
    return year, month


def _doi(it: _Item) -> str | None:
    raw = it.text("DOI")
    if not raw:
        return None
    doi = normalize_doi(raw)
    if doi is None:
        it.warn(f"DOI {raw!r} is not a DOI (10.prefix/suffix); kept as csl_doi")
        it.fields["csl_doi"] = raw
    return doi


def _custom(it: _Item) -> dict[str, Any]:
    """Our keys of ``custom`` (:data:`_CUSTOM_KEYS`); the rest is kept as ``csl_custom``."""
    custom = it.item.get("custom")
    if not isinstance(custom, Mapping):
        if custom is not None:
            it.fields["csl_custom"] = _compact(custom)
        return {}
    rest = {k: v for k, v in custom.items() if k not in _CUSTOM_KEYS}
    if rest:
        it.fields["csl_custom"] = _compact(rest)
    return {k: custom[k] for k in _CUSTOM_KEYS if k in custom}


def _links(
    it: _Item, ours: Mapping[str, Any], arxiv: str | None
) -> tuple[str | None, str | None, str | None]:
    """``URL`` and ``custom`` -> ``(url, code_url, arxiv)``: a code host is the code link,
    the arXiv abstract page only the id (:func:`arxiv_link`)."""
    arxiv = _text(ours.get("arxiv")) or arxiv
    code_url = _text(ours.get("code_url"))
    url = it.text("URL")
    if url:
        found, only_id = arxiv_link(url)
        arxiv = found if arxiv is None else arxiv
        if only_id or url == code_url:
            url = None
        elif code_url is None and is_code_host(url):
            code_url, url = url, None
    if ours.get("url") is not None:
        # The record's own URL equal to its code link (see write): keep both.
        url = _text(ours.get("url"))
    return url, code_url, arxiv


def _numbers(it: _Item) -> str | None:
    """``issue``, ``number`` and ``page`` -> fields; the arXiv id a ``number`` names."""
    issue, number = it.text("issue"), it.text("number")
    if issue:
        it.fields["number"] = issue
        if number:
            it.fields["csl_number"] = number
    elif number:
        it.fields["number"] = number
    page = it.text("page")
    if page:
        it.fields["pages"] = page.replace("–", "--")
    if number and number.casefold().startswith("arxiv:"):
        return normalize_arxiv(number)
    return None


def _variables(it: _Item, entry_type: str) -> None:
    """:data:`_FIELD_VARIABLES` -> fields; every variable not mapped -> ``csl_<variable>``."""
    for variable, name in _FIELD_VARIABLES.items():
        value = it.text(variable)
        if value is None:
            if isinstance(it.item.get(variable), list | dict):
                it.fields[f"csl_{variable.lower()}"] = _compact(it.item[variable])
        elif not (variable == "genre" and value == MASTERS and entry_type == "mastersthesis"):
            it.fields[name] = value
    for variable, value in it.item.items():
        if variable in _HANDLED or value is None or (isinstance(value, str) and not value.strip()):
            continue
        it.fields[f"csl_{variable.lower()}"] = value if isinstance(value, str) else _compact(value)


def _keywords(it: _Item) -> tuple[str, ...]:
    """``keyword``: one string of comma-separated keywords (CSL 1.0.2 Appendix IV)."""
    keyword = it.text("keyword")
    if not keyword:
        return ()
    return tuple(dict.fromkeys(k.strip() for k in keyword.split(",") if k.strip()))


def _tags(ours: Mapping[str, Any]) -> tuple[str, ...]:
    """``custom.tags`` (our export writes the user's tags there): the paper's tags."""
    tags = ours.get("tags")
    if not isinstance(tags, list):
        return ()
    return tuple(dict.fromkeys(t.strip() for t in tags if isinstance(t, str) and t.strip()))


def _venue_field(entry_type: str) -> str:
    """The BibTeX field a venue of ``entry_type`` is written to (journal, booktitle ...)."""
    from readinglist.formats.bibtex.fields import venue_candidates

    return venue_candidates(entry_type)[0]


def _rich(it: _Item, variable: str, name: str) -> str | None:
    """A title-like variable, its CSL rich-text markup converted (CSL 1.0.2).

    Without markup: the text on one line. With markup: the LaTeX form
    (:func:`readinglist.formats.csljson_syntax.rich_text_latex`) goes to
    ``fields[name]`` for the BibTeX writer, and the value is that form decoded to
    Unicode by the BibTeX reader's own decoder, so the two agree and no tag is shown.
    """
    value = it.text(variable)
    if value is None:
        return None
    from readinglist.formats.bibtex.encode import escape_literal
    from readinglist.formats.bibtex.fields import decode_text

    latex = rich_text_latex(one_line(value), lambda text: escape_literal(text, "biblatex"))
    if latex is None:
        return one_line(value)
    it.fields[name] = latex
    return decode_text(latex) or None


def _record(
    item: Mapping[str, Any], line: int | None, source: str
) -> tuple[PaperRecord, list[ParseProblem]]:
    """One CSL item -> PaperRecord and its problems (mapping in the module docstring)."""
    it = _Item(item, line, source)
    entry_type = _entry_type(it)
    citekey = _citekey(it)
    title = _rich(it, "title", "title")
    if title is None:
        it.warn("item without a 'title'")
    ours = _custom(it)
    authors, editors = _people(it, "author", ours), _people(it, "editor", ours)
    year, month = _issued(it)
    doi = _doi(it)
    url, code_url, arxiv = _links(it, ours, arxiv_from_doi(doi))
    arxiv_number = _numbers(it)
    _variables(it, entry_type)
    tags = _tags(ours)
    record = PaperRecord(
        citekey=citekey,
        entry_type=entry_type,
        title=title,
        title_provisional=ours.get("title_provisional") is True,
        citekey_provisional=ours.get("citekey_provisional") is True,
        short_name=_text(ours.get("short_name")),
        authors=authors,
        editors=editors,
        year=year,
        month=month,
        venue=_rich(it, "container-title", _venue_field(entry_type)),
        abstract=it.text("abstract"),
        doi=doi,
        arxiv=arxiv if arxiv is not None else arxiv_number,
        url=url,
        code_url=code_url,
        keywords=tuple(k for k in _keywords(it) if k not in tags),
        tags=tags,
        fields=dict(sorted(it.fields.items())),
        line=line,
        latex_fields=False,
    )
    return record, it.problems


def read(text: str, source: str = "<stdin>") -> ParseResult:
    """Read CSL-JSON ``text`` into PaperRecords (mapping in the module docstring).

    Args:
        text: a JSON array of CSL items (a single item object is accepted too); a
            leading BOM is ignored.
        source: file name for problems.

    Returns:
        A ParseResult with one record per item, in order, each with ``line`` set to
        the line where the item starts. Problems: an error with the line and column
        from ``json.JSONDecodeError`` for invalid JSON (no records then); an error
        for a top level that is neither array nor object and for each element that
        is not an object; warnings for an item without type or title, a date
        without year, a name without parts, a DOI that is no DOI; an item with no title and no
        identifier is left out (:func:`~readinglist.formats.rules.without_empty`: a
        warning, or an error when no item holds a paper). Never raises.
    """
    items, problems = elements(text, source)
    records: list[PaperRecord] = []
    for item, line in items:
        if not isinstance(item, dict):
            found = type(item).__name__
            message = f"expected a CSL-JSON item (an object), found {found}"
            problems.append(ParseProblem(message, source, line))
            continue
        try:
            record, more = _record(item, line, source)
        except Exception as exc:  # a last guard: one odd item must not stop the import
            problems.append(ParseProblem(f"could not read this item: {exc}", source, line))
            continue
        records.append(record)
        problems.extend(more)
    records = without_empty(records, problems, source, "item")
    return ParseResult(records=records, problems=problems)


# --- writing (readinglist.formats.csljson_write) ---------------------------------------------


def write(records: Iterable[PaperRecord], *, tags_as_keywords: bool = True) -> str:
    """Write ``records`` as CSL-JSON (:func:`readinglist.formats.csljson_write.write`)."""
    from readinglist.formats.csljson_write import write as write_all

    return write_all(records, tags_as_keywords=tags_as_keywords)


def write_chunks(
    records: Iterable[PaperRecord], *, tags_as_keywords: bool = True, chunk: int = 500
) -> Iterator[str]:
    """The text of :func:`write` a piece at a time
    (:func:`readinglist.formats.csljson_write.write_chunks`)."""
    from readinglist.formats.csljson_write import write_chunks as pieces

    return pieces(records, tags_as_keywords=tags_as_keywords, chunk=chunk)
