"""CSL-JSON items <-> PaperRecord.

CSL-JSON is the citation data of Zotero, Pandoc and citeproc: a JSON array of items,
each an object of CSL variables. Source: the CSL-JSON schema
(``csl-data.json``, citation-style-language/schema, CSL 1.0.2) and the CSL 1.0.2
specification, "Appendix IV - Variables" (citationstyles.org). Entry types map as
citeproc-lua's "Bib CSL mapping" (zepinglee/citeproc-lua, ``bib-csl-mapping.md``)
does, which follows biblatex's own documentation.

Mapping (reading; writing is the inverse):

==========================  =====================================================
``type``                    entry type (tables :data:`ENTRY_TYPES`,
                            :data:`CSL_TYPES`); a type that writing would not give
                            back is kept as ``fields["csl_type"]``
``citation-key``, ``id``    citation key (``id`` only when it looks like a key:
                            a letter, no spaces, no ``://``); an unused ``id`` is kept as
                            ``fields["csl_id"]``
``title``                   title; ``title-short`` -> ``fields["shorttitle"]``
``author``, ``editor``      Person: ``family``, ``given``, ``non-dropping-particle``
                            and ``dropping-particle`` (-> ``von``), ``suffix``
                            (-> ``jr``), ``literal``
``issued``                  year and month from ``date-parts`` (or ``raw``); the
                            day is not kept
``container-title``         venue; ``collection-title`` -> ``fields["series"]``
``DOI``                     DOI, normalized (lower case, no resolver prefix)
``URL``                     URL (a code-host link: the code link; the arXiv
                            abstract page: the arXiv id)
``abstract``, ``keyword``   abstract; keywords (the comma-separated string)
``volume``, ``issue``,      ``fields`` volume, number, pages (an en dash becomes
``page``, ``number``        ``--``); ``number`` is ``fields["number"]`` only when
                            there is no ``issue``
``publisher``, ...          ``fields`` by their BibTeX names: publisher,
                            address (``publisher-place``), issn, isbn, edition,
                            language, note, type (``genre``), chapter
                            (``chapter-number``), pagetotal (``number-of-pages``)
``custom``                  CSL 1.0.2's object for data without a variable: our
                            ``arxiv``, ``code_url``, ``short_name`` and
                            ``title_provisional``; other keys -> ``csl_custom``
anything else               ``fields["csl_<variable>"]``: strings as they are, other
                            values as compact JSON (``accessed``, ``translator`` ...)
==========================  =====================================================
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from readinglist.identifiers import normalize_doi
from readinglist.records import PaperRecord, ParseProblem, ParseResult, Person

__all__ = ["CSL_TYPES", "ENTRY_TYPES", "read", "write"]

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
_MASTERS = "Master's thesis"

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
_CUSTOM_KEYS = ("arxiv", "code_url", "short_name", "title_provisional", "url")

_ARXIV_ID = r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})"
_ARXIV_URL = re.compile(
    rf"(?i)^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/{_ARXIV_ID}(?:v\d+)?(?:\.pdf)?/?$"
)
_ARXIV_DOI = re.compile(rf"^10\.48550/arxiv\.{_ARXIV_ID}$")
_ARXIV_NUMBER = re.compile(rf"(?i)^arxiv:\s*{_ARXIV_ID}(?:v\d+)?$")
_CODE_HOSTS = re.compile(
    r"(?i)^https?://(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org)/"
)
_KEY = re.compile(r"^(?=.*[A-Za-z])[^\s,{}()\"#%'=\\~]+$")
_RAW_DATE = re.compile(r"^\s*(?P<year>\d{4})(?:[-/](?P<month>\d{1,2}))?")


def _text(value: Any) -> str | None:
    """A CSL string-or-number value as stripped text (None for other JSON types / empty)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return value.strip() or None
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# --- names and dates --------------------------------------------------------------------------


def _person(name: Any) -> Person | None:
    """A CSL name object (or a bare string) as a Person; None when it holds no name."""
    if isinstance(name, str):
        return Person(literal=_one_line(name)) if name.strip() else None
    if not isinstance(name, Mapping):
        return None
    literal = _text(name.get("literal"))
    if literal:
        return Person(literal=_one_line(literal))
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
        family=_one_line(family), given=_one_line(given), von=_one_line(von), jr=_one_line(jr)
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


def _year_month(date: Any) -> tuple[int | None, int | None]:
    """Year and month (1..12) of a CSL date object (``date-parts`` or ``raw``)."""
    if not isinstance(date, Mapping):
        return None, None
    parts = date.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        first = parts[0]
        try:
            year = int(str(first[0]).strip())
        except ValueError:
            return None, None
        month = None
        if len(first) > 1:
            try:
                month = int(str(first[1]).strip())
            except ValueError:
                month = None
        # 13..16 are seasons (CSL 1.0.1 "Date-parts"), not months.
        return year, month if month is not None and 1 <= month <= 12 else None
    raw = date.get("raw") or date.get("literal")
    if isinstance(raw, str) and (match := _RAW_DATE.match(raw)):
        month = int(match.group("month")) if match.group("month") else None
        return int(match.group("year")), month if month and 1 <= month <= 12 else None
    return None, None


# --- reading ----------------------------------------------------------------------------------


def _item_lines(text: str) -> list[int]:
    """The 1-based line on which each element of a valid top-level JSON array starts.

    Walks the array with ``json.JSONDecoder.raw_decode`` (the stdlib's own parser),
    since ``json.loads`` reports no positions for values it accepts.
    """
    decoder = json.JSONDecoder()
    space = re.compile(r"[ \t\n\r]*")
    index = space.match(text, 0).end() + 1  # type: ignore[union-attr]
    lines: list[int] = []
    line, counted = 1, 0
    while True:
        index = space.match(text, index).end()  # type: ignore[union-attr]
        if index >= len(text) or text[index] == "]":
            return lines
        line += text.count("\n", counted, index)
        counted = index
        lines.append(line)
        _, index = decoder.raw_decode(text, index)
        index = space.match(text, index).end()  # type: ignore[union-attr]
        if index < len(text) and text[index] == ",":
            index += 1


def _record(
    item: Mapping[str, Any], line: int | None, source: str
) -> tuple[PaperRecord, list[ParseProblem]]:
    problems: list[ParseProblem] = []
    fields: dict[str, str] = {}

    def warn(message: str) -> None:
        problems.append(ParseProblem(message, source, line, "warning"))

    csl_type = _text(item.get("type"))
    if csl_type is None:
        warn("item without a 'type'; read as misc")
    entry_type = ENTRY_TYPES.get(csl_type or "", "misc")
    genre = _text(item.get("genre"))
    if csl_type == "thesis" and genre and "master" in genre.casefold():
        entry_type = "mastersthesis"
    if csl_type and CSL_TYPES.get(entry_type, "article") != csl_type:
        fields["csl_type"] = csl_type

    citekey = _text(item.get("citation-key"))
    raw_id = item.get("id")
    item_id = _text(raw_id)
    if citekey is None and item_id and _KEY.match(item_id) and "://" not in item_id:
        citekey = item_id
    elif raw_id is not None and item_id != citekey:
        fields["csl_id"] = item_id if item_id is not None else _compact(raw_id)

    title = _text(item.get("title"))
    if title is None:
        warn("item without a 'title'")

    people: dict[str, list[Person]] = {"author": [], "editor": []}
    for role in people:
        names = item.get(role)
        if names is None:
            continue
        if not isinstance(names, list):
            warn(f"'{role}' is not a list of names; ignored")
            continue
        for name in names:
            person = _person(name)
            if person is None:
                warn(f"an entry of '{role}' holds no name: {_compact(name)}")
            else:
                people[role].append(person)

    year = month = None
    if "issued" in item:
        year, month = _year_month(item["issued"])
        if year is None:
            warn(f"'issued' holds no year: {_compact(item['issued'])}; kept as csl_issued")
            fields["csl_issued"] = _compact(item["issued"])

    doi = None
    raw_doi = _text(item.get("DOI"))
    if raw_doi:
        doi = normalize_doi(raw_doi)
        if doi is None:
            warn(f"DOI {raw_doi!r} is not a DOI (10.prefix/suffix); kept as csl_doi")
            fields["csl_doi"] = raw_doi

    custom = item.get("custom")
    ours: dict[str, Any] = {}
    if isinstance(custom, Mapping):
        ours = {k: custom[k] for k in _CUSTOM_KEYS if k in custom}
        rest = {k: v for k, v in custom.items() if k not in _CUSTOM_KEYS}
        if rest:
            fields["csl_custom"] = _compact(rest)
    elif custom is not None:
        fields["csl_custom"] = _compact(custom)

    arxiv = _text(ours.get("arxiv"))
    code_url = _text(ours.get("code_url"))
    if arxiv is None and doi and (match := _ARXIV_DOI.match(doi)):
        arxiv = match.group("id")
    url = _text(item.get("URL"))
    if url:
        url_match = _ARXIV_URL.match(url)
        found = url_match.group("id") if url_match else None
        if found and arxiv is None:
            arxiv = found
        if (
            found
            and url.rstrip("/")
            in (
                f"https://arxiv.org/abs/{found}",
                f"http://arxiv.org/abs/{found}",
            )
        ) or url == code_url:
            url = None
        elif code_url is None and _CODE_HOSTS.match(url):
            code_url, url = url, None

    if ours.get("url") is not None:
        # The record's own URL equal to its code link (see write): keep both.
        url = _text(ours.get("url"))

    issue, number = _text(item.get("issue")), _text(item.get("number"))
    if number and arxiv is None and (match := _ARXIV_NUMBER.match(number)):
        arxiv = match.group("id")
    if issue:
        fields["number"] = issue
        if number:
            fields["csl_number"] = number
    elif number:
        fields["number"] = number
    page = _text(item.get("page"))
    if page:
        fields["pages"] = page.replace("–", "--")
    for variable, name in _FIELD_VARIABLES.items():
        value = _text(item.get(variable))
        if value is None:
            if isinstance(item.get(variable), list | dict):
                fields[f"csl_{variable.lower()}"] = _compact(item[variable])
        elif not (variable == "genre" and value == _MASTERS and entry_type == "mastersthesis"):
            fields[name] = value
    for variable, value in item.items():
        if variable in _HANDLED or value is None or (isinstance(value, str) and not value.strip()):
            continue
        fields[f"csl_{variable.lower()}"] = value if isinstance(value, str) else _compact(value)

    keywords: tuple[str, ...] = ()
    keyword = _text(item.get("keyword"))
    if keyword:
        keywords = tuple(dict.fromkeys(k.strip() for k in keyword.split(",") if k.strip()))

    record = PaperRecord(
        citekey=citekey,
        entry_type=entry_type,
        title=_one_line(title) if title else None,
        title_provisional=ours.get("title_provisional") is True,
        short_name=_text(ours.get("short_name")),
        authors=tuple(people["author"]),
        editors=tuple(people["editor"]),
        year=year,
        month=month,
        venue=_one_line(v) if (v := _text(item.get("container-title"))) else None,
        abstract=_text(item.get("abstract")),
        doi=doi,
        arxiv=arxiv,
        url=url,
        code_url=code_url,
        keywords=keywords,
        fields=dict(sorted(fields.items())),
        line=line,
    )
    return record, problems


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
        without year, a name without parts, a DOI that is no DOI. Never raises.
    """
    text = text.lstrip("\ufeff")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg} (column {exc.colno})"
        return ParseResult(records=[], problems=[ParseProblem(message, source, exc.lineno)])
    except (ValueError, RecursionError) as exc:
        return ParseResult(records=[], problems=[ParseProblem(f"invalid JSON: {exc}", source, 1)])
    if isinstance(data, dict):
        items: list[Any] = [data]
        lines: list[int | None] = [text.count("\n", 0, text.find("{")) + 1]
    elif isinstance(data, list):
        items = data
        try:
            lines = list(_item_lines(text))
        except (ValueError, IndexError, AttributeError):  # cannot happen for valid JSON
            lines = []
        if len(lines) != len(items):
            lines = [None] * len(items)
    else:
        problem = ParseProblem(
            f"expected a JSON array of CSL-JSON items, found {type(data).__name__}", source, 1
        )
        return ParseResult(records=[], problems=[problem])
    records: list[PaperRecord] = []
    problems: list[ParseProblem] = []
    for item, line in zip(items, lines, strict=True):
        if not isinstance(item, dict):
            problems.append(
                ParseProblem(
                    f"expected a CSL-JSON item (an object), found {type(item).__name__}",
                    source,
                    line,
                )
            )
            continue
        try:
            record, more = _record(item, line, source)
        except Exception as exc:  # a last guard: one odd item must not stop the import
            problems.append(ParseProblem(f"could not read this item: {exc}", source, line))
            continue
        records.append(record)
        problems.extend(more)
    return ParseResult(records=records, problems=problems)


# --- writing ----------------------------------------------------------------------------------


def _variable_name(suffix: str) -> str:
    return _UPPER.get(suffix, suffix)


def _item(record: PaperRecord, index: int, tags_as_keywords: bool) -> dict[str, Any]:
    fields = dict(record.fields)
    item: dict[str, Any] = {}
    csl_type = fields.get("csl_type", "")
    if not csl_type or ENTRY_TYPES.get(csl_type, "misc") != record.entry_type:
        csl_type = CSL_TYPES.get(record.entry_type, "article")
    item["type"] = csl_type
    # A made-up id has a space, so reading it back does not take it for a citation key.
    item["id"] = record.citekey or fields.get("csl_id") or f"item {index}"
    if record.citekey:
        item["citation-key"] = record.citekey
    if record.title:
        item["title"] = record.title
    if record.authors:
        item["author"] = [_name_object(p) for p in record.authors]
    if record.editors:
        item["editor"] = [_name_object(p) for p in record.editors]
    if record.year is not None:
        parts: list[int] = [record.year] + ([record.month] if record.month is not None else [])
        item["issued"] = {"date-parts": [parts]}
    if record.venue:
        item["container-title"] = record.venue
    if record.doi:
        item["DOI"] = record.doi
    arxiv_url = f"https://arxiv.org/abs/{record.arxiv}" if record.arxiv else None
    url = record.url or arxiv_url or record.code_url
    if url:
        item["URL"] = url
    if record.abstract:
        item["abstract"] = record.abstract
    keywords = list(record.keywords)
    if tags_as_keywords:
        keywords.extend(t for t in record.tags if t not in keywords)
    if keywords:
        item["keyword"] = ", ".join(keywords)

    custom: dict[str, Any] = {}
    if "csl_custom" in fields:
        try:
            loaded = json.loads(fields["csl_custom"])
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
    if record.title_provisional:
        custom["title_provisional"] = True
    if custom:
        item["custom"] = custom

    if fields.get("number"):
        item["issue" if csl_type not in ("report", "patent") else "number"] = fields["number"]
    if fields.get("pages"):
        item["page"] = fields["pages"].replace("--", "–")
    for variable, name in _FIELD_VARIABLES.items():
        if fields.get(name):
            item[variable] = fields[name]
    if "publisher" not in item:
        for name in ("institution", "school", "organization"):
            if fields.get(name):
                item["publisher"] = fields[name]
                break
    if record.entry_type == "mastersthesis" and "genre" not in item:
        item["genre"] = _MASTERS
    for name, value in fields.items():
        if not name.startswith("csl_") or name in ("csl_type", "csl_id", "csl_custom"):
            continue
        variable = _variable_name(name[4:])
        if variable in item:
            continue
        if variable in _DATE_VARIABLES or variable in _NAME_VARIABLES:
            try:
                item[variable] = json.loads(value)
            except ValueError:
                item[variable] = value
        else:
            item[variable] = value
    return item


def write(records: Sequence[PaperRecord], *, tags_as_keywords: bool = False) -> str:
    """Write ``records`` as CSL-JSON: a JSON array, indent 2, UTF-8 text, sorted keys.

    The inverse of :func:`read` (see the module table). ``id`` is the citation key
    (else the ``id`` the record was read with, else ``item N``); ``issued`` holds ``[[year, month]]``;
    ``page`` uses an en dash for ``--``; keywords (plus tags when
    ``tags_as_keywords``) are joined with ``", "``; ``custom`` carries the arXiv
    id, code URL, short name and provisional-title flag, which have no CSL
    variable. Fields with neither a CSL variable nor a ``csl_`` prefix (BibTeX-only
    fields such as ``pdf``) are not written.

    Returns the text ending in a newline (``"[]\\n"`` for no records).
    Deterministic: keys sorted, records in the given order.
    """
    items = [_item(record, index, tags_as_keywords) for index, record in enumerate(records, 1)]
    return json.dumps(items, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
