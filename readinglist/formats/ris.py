"""RIS (Research Information Systems) records <-> PaperRecord, through rispy.

RIS is the tagged format of reference managers (EndNote, Zotero, Mendeley) and
databases (PubMed, Scopus, Web of Science exports): one ``TAG  - value`` per line,
each record from ``TY  - TYPE`` to ``ER  - ``. Sources for the tags and types: the RIS
specification (Research Information Systems / Thomson Reuters, "RIS Format
Specifications", RefMan 2011) as tabulated in rispy's ``TAG_KEY_MAPPING`` and
``TYPE_OF_REFERENCE_MAPPING`` (rispy 0.10, ``rispy/config.py``).

Reading
-------
rispy (``rispy.loads``) parses the tags of each record. It falls short in ways this
module makes up for:

* it keeps no line numbers and silently drops a record that lacks ``ER`` or text
  outside records; this module splits the text into records first (tracking lines,
  reporting unclosed records and stray text) and hands rispy one record at a time;
* it joins the continuation lines of a field with a space and, for a tag repeated
  in a record, keeps only the first value; the subclass ``_RisParser`` joins
  continuation lines with a newline (so abstracts keep their paragraphs) and is run
  with ``enforce_list_tags=False`` so repeated tags become lists;
* it splits ``UR`` on ``;`` (breaking URLs that contain one); that is turned off and
  a line holding several URLs is split only before ``http(s)://``.

Tag -> PaperRecord mapping:

* ``TY``: entry type (table :data:`ENTRY_TYPES`; ``THES`` with ``M3`` naming a
  master's thesis is ``mastersthesis``); the RIS type is kept as
  ``fields["ris_ty"]`` unless writing would give it back.
* ``ID``: citation key, when it looks like one (a letter, no space or BibTeX
  special character); otherwise ``fields["ris_id"]``.
* ``TI``, else ``T1``, else (BOOK, UNPB) ``BT``: title, white space collapsed. The
  RIS spec makes ``BT`` the primary title of a whole book or unpublished work.
* ``AU``, ``A1``: authors; ``A2``, ``ED``: editors. ``Family, Given, Suffix`` ->
  Person, with a leading lower-case run of the family part as ``von`` (as BibTeX
  splits ``van der Berg``); a name without a comma is a corporate ``literal``, or a
  family name when it is one word.
* ``PY``, ``Y1``, ``DA``: year and month (``YYYY/MM/DD/other``); the day is not kept.
* ``T2``, ``JF``, ``JO``, ``BT``, ``JA``, ``J2``: venue, the first present in that
  order; for a BOOK, ``T2`` is the series (``fields["series"]``).
* ``AB``, else ``N2``: abstract (continuation lines joined by newlines).
* ``KW``: keywords.
* ``DO``: DOI, normalized (lower case, no ``https://doi.org/`` or ``doi:``); an
  arXiv DOI (``10.48550/arXiv.ID``) also gives the arXiv id.
* ``UR``: URL. A link to github.com, gitlab.com, huggingface.co or bitbucket.org is
  the code link; ``https://arxiv.org/abs/ID`` gives the arXiv id (and is no URL);
  further links go to ``fields["ris_ur"]``.
* ``VL``, ``IS``, ``SP``/``EP``: ``fields`` volume, number, pages (``SP--EP``).
* ``PB``, ``CY``, ``SN``, ``ET``, ``LA``: ``fields`` publisher, address, issn (isbn
  for books and chapters), edition, language.
* anything else: ``fields["ris_<tag>"]`` (e.g. ``ris_n1``, ``ris_ad``); repeated
  tags, and further values of a mapped tag, are joined by newlines.

Writing is the inverse, so our own output reads back to the same records
(:func:`write`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import rispy

from readinglist.identifiers import normalize_doi
from readinglist.records import PaperRecord, ParseProblem, ParseResult, Person

__all__ = ["ENTRY_TYPES", "RIS_TYPES", "read", "write"]

#: RIS reference type -> BibTeX entry type. Types not listed read as ``misc``.
#: Source: the RIS type list (rispy ``TYPE_OF_REFERENCE_MAPPING``) matched to the
#: BibTeX entry types of btxdoc ("BibTeXing", Patashnik 1988).
ENTRY_TYPES: dict[str, str] = {
    "JOUR": "article",
    "EJOUR": "article",
    "JFULL": "article",
    "MGZN": "article",
    "NEWS": "article",
    "INPR": "article",
    "CONF": "inproceedings",
    "CPAPER": "inproceedings",
    "BOOK": "book",
    "EBOOK": "book",
    "EDBOOK": "book",
    "CHAP": "incollection",
    "ECHAP": "incollection",
    "THES": "phdthesis",
    "RPRT": "techreport",
    "UNPB": "unpublished",
    "MANSCPT": "unpublished",
    "PAMP": "booklet",
    "GEN": "misc",
    "ELEC": "misc",
}
#: BibTeX entry type -> RIS type written by :func:`write` (``misc`` for the rest).
RIS_TYPES: dict[str, str] = {
    "article": "JOUR",
    "inproceedings": "CPAPER",
    "conference": "CPAPER",
    "proceedings": "CONF",
    "book": "BOOK",
    "inbook": "CHAP",
    "incollection": "CHAP",
    "phdthesis": "THES",
    "mastersthesis": "THES",
    "techreport": "RPRT",
    "unpublished": "UNPB",
    "booklet": "PAMP",
    "manual": "GEN",
    "misc": "GEN",
    "online": "ELEC",
}
_MASTERS = "Master's thesis"

#: RIS tags that map to a BibTeX field name in ``fields``.
_FIELD_TAGS = {
    "VL": "volume",
    "IS": "number",
    "PB": "publisher",
    "CY": "address",
    "ET": "edition",
    "LA": "language",
}
_VENUE_TAGS = ("T2", "JF", "JO", "BT", "JA", "J2")
_EDITOR_TAGS = ("A2", "ED")
_AUTHOR_TAGS = ("AU", "A1")
_CODE_HOSTS = re.compile(
    r"(?i)^https?://(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org)/"
)
_ARXIV_URL = re.compile(
    r"(?i)^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/"
    r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})(?:v\d+)?(?:\.pdf)?/?$"
)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(?P<id>\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})$")
_TAG_LINE = re.compile(r"^(?P<tag>[A-Z][A-Z0-9]) {1,2}-(?: (?P<value>.*)|\s*)$")
_RECORD_NUMBER = re.compile(r"^\s*\d+\.\s*$")
_DATE = re.compile(r"^\s*(?P<year>\d{4})(?:[/-](?P<month>\d{1,2})?)?")
_KEY = re.compile(r"^(?=.*[A-Za-z])[^\s,{}()\"#%'=\\~]+$")
_URL_SPLIT = re.compile(r"\s*;\s*(?=https?://)")

# --- rispy, extended --------------------------------------------------------------------------


class _RisParser(rispy.RisParser):  # type: ignore[misc]  # rispy has no type hints
    """rispy's parser, joining continuation lines with a newline instead of a space.

    rispy joins a non-list field's continuation lines with a space and appends the
    continuation of an unknown tag as a separate value; both lose structure.
    """

    def _add_single_value(
        self, record: dict[str, Any], name: str, value: Any, is_multi: bool = False
    ) -> None:
        if not is_multi:
            super()._add_single_value(record, name, value, is_multi)
            return
        current = record.get(name)
        if isinstance(current, list) and current:
            current[-1] = f"{current[-1]}\n{value}"
        elif isinstance(current, str):
            record[name] = f"{current}\n{value}"
        else:
            record[name] = value

    def _add_tag(
        self, record: dict[str, Any], tag: str, content: str, extend_multiline: bool = False
    ) -> None:
        if extend_multiline and tag not in self.mapping:
            values = record.setdefault(self.mapping[self.UNKNOWN_TAG], defaultdict(list))[tag]
            if values:
                values[-1] = f"{values[-1]}\n{content}"
            else:
                values.append(content)
            return
        super()._add_tag(record, tag, content, extend_multiline)


class _RisWriter(rispy.RisWriter):  # type: ignore[misc]
    """rispy's writer without the ``1.`` line it puts before each record."""

    def set_header(self, count: int) -> str:
        return ""


_NAME = rispy.TAG_KEY_MAPPING
_UNKNOWN = _NAME["UK"]

# --- small normalizers ------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _split_name(text: str) -> Person:
    """Parse an RIS name, ``Family, Given, Suffix`` (RIS spec, AU), into a Person.

    A leading run of lower-case words of the family part is the ``von`` part, as in
    BibTeX ("Tame the BeaST" 11): ``van der Berg, Jan`` -> von "van der", family "Berg".
    """
    text = _one_line(text)
    if "," not in text:
        return Person(family=text) if " " not in text else Person(literal=text)
    parts = [part.strip() for part in text.split(",")]
    last, given = parts[0], parts[1]
    jr = ", ".join(part for part in parts[2:] if part)
    words = last.split(" ")
    von_end = 0
    for index, word in enumerate(words[:-1]):
        if word[:1].islower():
            von_end = index + 1
        elif von_end == 0:
            break
    if von_end and words[0][:1].islower():
        return Person(
            family=" ".join(words[von_end:]), given=given, von=" ".join(words[:von_end]), jr=jr
        )
    return Person(family=last, given=given, jr=jr)


def _format_name(person: Person) -> str:
    """Return ``person`` as an RIS name: ``von Family, Given[, Jr]`` or the literal."""
    if person.literal:
        return person.literal
    last = " ".join(part for part in (person.von, person.family) if part)
    if person.jr:
        return f"{last}, {person.given}, {person.jr}"
    if person.given:
        return f"{last}, {person.given}"
    return f"{last}," if " " in last or not last else last


def _date(value: str) -> tuple[int | None, int | None]:
    match = _DATE.match(value)
    if match is None:
        return None, None
    month = int(match.group("month")) if match.group("month") else None
    return int(match.group("year")), month if month and 1 <= month <= 12 else None


def _arxiv_from_url(url: str) -> str | None:
    match = _ARXIV_URL.match(url.strip())
    return match.group("id") if match else None


# --- reading ----------------------------------------------------------------------------------


@dataclass
class _Chunk:
    """The lines of one record, canonicalized for rispy, with the line of each tag."""

    start: int
    ris_type: str
    lines: list[str] = field(default_factory=list)
    tag_lines: dict[str, int] = field(default_factory=dict)
    closed: bool = False


def _split_records(text: str, source: str) -> tuple[list[_Chunk], list[ParseProblem]]:
    problems: list[ParseProblem] = []
    chunks: list[_Chunk] = []
    current: _Chunk | None = None
    last_tag: str | None = None
    stray: int | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        match = _TAG_LINE.match(line)
        tag = match.group("tag") if match else None
        if tag == "TY":
            if current is not None:
                problems.append(
                    ParseProblem(
                        f"record starting at line {current.start} has no 'ER  - ' line; "
                        "read up to the next 'TY  - '",
                        source,
                        current.start,
                        "warning",
                    )
                )
            current = _Chunk(
                start=number, ris_type=(match.group("value") or "").strip() if match else ""
            )
            current.lines.append(f"TY  - {current.ris_type}")
            chunks.append(current)
            last_tag, stray = "TY", None
            continue
        if current is None:
            if line.strip() and not _RECORD_NUMBER.match(line) and stray is None:
                stray = number
                problems.append(
                    ParseProblem(
                        "text outside a record ignored (a record starts with 'TY  - ')",
                        source,
                        number,
                        "warning",
                    )
                )
            elif not line.strip():
                stray = None
            continue
        if tag == "ER":
            current.closed = True
            current = None
            continue
        if match is not None and tag is not None:
            current.lines.append(f"{tag}  - {(match.group('value') or '').strip()}")
            current.tag_lines.setdefault(tag, number)
            last_tag = tag
        elif last_tag == "TY":
            if line.strip():
                problems.append(
                    ParseProblem(
                        "line without a tag after 'TY  - ' ignored", source, number, "warning"
                    )
                )
        else:
            # A leading space keeps rispy from taking the line for a tag line.
            current.lines.append(" " + line)
    if current is not None:
        problems.append(
            ParseProblem(
                f"record starting at line {current.start} has no 'ER  - ' line",
                source,
                current.start,
                "warning",
            )
        )
    if not chunks and text.strip():
        problems.append(
            ParseProblem("no RIS record found (a record starts with 'TY  - ')", source, 1)
        )
    return chunks, problems


def _values(entry: Mapping[str, Any], tag: str) -> list[str]:
    """All values of ``tag`` in a rispy entry, stripped, empty ones dropped."""
    name = _NAME.get(tag)
    if name is None or tag == "UK":
        raw: Any = entry.get(_UNKNOWN, {}).get(tag, [])
    else:
        raw = entry.get(name, [])
    values = raw if isinstance(raw, list) else [raw]
    return [value.strip() for value in values if isinstance(value, str) and value.strip()]


def _all_tags(entry: Mapping[str, Any]) -> list[str]:
    reverse = {name: tag for tag, name in _NAME.items()}
    tags = [reverse[name] for name in entry if name in reverse and name != _UNKNOWN]
    tags.extend(tag for tag in entry.get(_UNKNOWN, {}) if isinstance(tag, str))
    return tags


def _record(chunk: _Chunk, source: str) -> tuple[PaperRecord, list[ParseProblem]]:
    problems: list[ParseProblem] = []
    entries = rispy.loads(
        "\n".join([*chunk.lines, "ER  - "]),
        implementation=_RisParser,
        delimiter_tags_mapping={},
        enforce_list_tags=False,
    )
    entry: Mapping[str, Any] = entries[0] if entries else {}
    used: set[str] = {"TY"}
    fields: dict[str, str] = {}

    def take(tag: str) -> list[str]:
        used.add(tag)
        return _values(entry, tag)

    def keep_rest(tag: str, values: list[str]) -> None:
        if values:
            fields[f"ris_{tag.lower()}"] = "\n".join(values)

    ris_type = chunk.ris_type.upper()
    entry_type = ENTRY_TYPES.get(ris_type, "misc")
    if not ris_type:
        problems.append(
            ParseProblem("empty 'TY' type; read as misc", source, chunk.start, "warning")
        )
    thesis_kind = take("M3")
    if ris_type == "THES" and thesis_kind and "master" in thesis_kind[0].casefold():
        entry_type = "mastersthesis"
    keep_rest("M3", thesis_kind)
    if ris_type and RIS_TYPES.get(entry_type, "GEN") != ris_type:
        fields["ris_ty"] = chunk.ris_type

    citekey = None
    ids = take("ID")
    if ids and _KEY.match(ids[0]):
        citekey = ids.pop(0)
    keep_rest("ID", ids)

    ti, t1 = take("TI"), take("T1")
    # For a whole book or unpublished work BT is the primary title (RIS spec, BT).
    bt = take("BT") if ris_type in ("BOOK", "UNPB") else []
    titles = ti + t1 + bt
    title = _one_line(titles[0]) if titles else None
    if not title:
        problems.append(ParseProblem("record without a title (TI)", source, chunk.start, "warning"))
    keep_rest("TI", ti[1:])
    keep_rest("T1", t1 if ti else t1[1:])
    keep_rest("BT", bt if ti or t1 else bt[1:])

    authors = [_split_name(name) for tag in _AUTHOR_TAGS for name in take(tag)]
    editors = [_split_name(name) for tag in _EDITOR_TAGS for name in take(tag)]

    year = month = None
    for tag in ("PY", "Y1", "DA"):
        for value in take(tag):
            y, m = _date(value)
            if y is None:
                problems.append(
                    ParseProblem(
                        f"{tag} {value!r} holds no year (YYYY); kept as ris_{tag.lower()}",
                        source,
                        chunk.tag_lines.get(tag),
                        "warning",
                    )
                )
                fields[f"ris_{tag.lower()}"] = value
                continue
            year = year if year is not None else y
            month = month if month is not None else m

    venue = None
    venue_tags = [t for t in _VENUE_TAGS if not (t == "BT" and ris_type in ("BOOK", "UNPB"))]
    venue_values = {tag: take(tag) for tag in venue_tags}
    if entry_type == "book" and venue_values["T2"]:
        fields["series"] = _one_line(venue_values["T2"].pop(0))
    for tag in venue_tags:
        if venue_values[tag] and venue is None:
            venue = _one_line(venue_values[tag].pop(0))
        keep_rest(tag, venue_values[tag])

    abstracts = take("AB")
    notes_abstract = take("N2")
    abstract = abstracts[0] if abstracts else (notes_abstract.pop(0) if notes_abstract else None)
    keep_rest("AB", abstracts[1:])
    keep_rest("N2", notes_abstract)

    keywords = tuple(dict.fromkeys(_one_line(k) for k in take("KW")))

    doi = arxiv = None
    dois = take("DO")
    bad_dois: list[str] = []
    for value in dois:
        normalized = normalize_doi(value)
        if normalized is None:
            bad_dois.append(value)
        elif doi is None:
            doi = normalized
        else:
            bad_dois.append(value)
    if bad_dois and doi is None:
        problems.append(
            ParseProblem(
                f"DO {bad_dois[0]!r} is not a DOI (10.prefix/suffix); kept as ris_do",
                source,
                chunk.tag_lines.get("DO"),
                "warning",
            )
        )
    keep_rest("DO", bad_dois)
    if doi and (match := _ARXIV_DOI.match(doi)):
        arxiv = match.group("id")

    url = code_url = None
    extra_urls: list[str] = []
    for value in take("UR"):
        for link in _URL_SPLIT.split(value):
            link = link.strip()
            found = _arxiv_from_url(link)
            if found and arxiv is None:
                arxiv = found
            if found and link.rstrip("/") in (
                f"https://arxiv.org/abs/{found}",
                f"http://arxiv.org/abs/{found}",
            ):
                continue
            if code_url is None and _CODE_HOSTS.match(link):
                code_url = link
            elif url is None:
                url = link
            else:
                extra_urls.append(link)
    keep_rest("UR", extra_urls)

    start_pages, end_pages = take("SP"), take("EP")
    if start_pages or end_pages:
        start = start_pages.pop(0) if start_pages else ""
        end = end_pages.pop(0) if end_pages else ""
        fields["pages"] = f"{start}--{end}" if start and end and start != end else (start or end)
    keep_rest("SP", start_pages)
    keep_rest("EP", end_pages)

    for tag, name in _FIELD_TAGS.items():
        values = take(tag)
        if values:
            fields[name] = _one_line(values.pop(0))
        keep_rest(tag, values)
    serials = take("SN")
    if serials:
        fields["isbn" if entry_type in ("book", "incollection") else "issn"] = serials.pop(0)
    keep_rest("SN", serials)

    for tag in _all_tags(entry):
        if tag not in used and tag != "ER":
            used.add(tag)
            keep_rest(tag, _values(entry, tag))

    record = PaperRecord(
        citekey=citekey,
        entry_type=entry_type,
        title=title,
        authors=tuple(authors),
        editors=tuple(editors),
        year=year,
        month=month,
        venue=venue,
        abstract=abstract,
        doi=doi,
        arxiv=arxiv,
        url=url,
        code_url=code_url,
        keywords=keywords,
        fields=dict(sorted(fields.items())),
        source_text=None,
        line=chunk.start,
    )
    return record, problems


def read(text: str, source: str = "<stdin>") -> ParseResult:
    """Read RIS ``text`` into PaperRecords (mapping in the module docstring).

    Args:
        text: RIS data (any line ends; a leading BOM is ignored).
        source: file name for problems.

    Returns:
        A ParseResult with one record per ``TY``..``ER`` record, in file order, each
        with ``line`` set to its ``TY`` line. Problems (with line numbers): warnings
        for text outside records, a record without ``ER``, an empty type, a record
        without title, a date without a year, a ``DO`` that is no DOI; an error when
        non-empty text holds no record at all, or when a record cannot be read.
        Never raises.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    chunks, problems = _split_records(text, source)
    records: list[PaperRecord] = []
    for chunk in chunks:
        try:
            record, more = _record(chunk, source)
        except Exception as exc:  # a last guard: one bad record must not stop the import
            problems.append(ParseProblem(f"could not read this record: {exc}", source, chunk.start))
            continue
        records.append(record)
        problems.extend(more)
    problems.sort(key=lambda p: p.line or 0)
    return ParseResult(records=records, problems=problems)


# --- writing ----------------------------------------------------------------------------------


def _value_lines(text: str) -> str:
    """Normalize a multi-line value so it reads back the same.

    Each line is stripped (readers strip them); a continuation line that would
    read as a tag line gets a leading space.
    """
    lines = [line.strip() for line in text.strip().split("\n")]
    return "\n".join(" " + line if _TAG_LINE.match(line) else line for line in lines)


def _pages(pages: str) -> tuple[str, str]:
    parts = re.split(r"\s*(?:--|–|—|-)\s*", pages.strip(), maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else (parts[0], "")


def _pairs(record: PaperRecord, tags_as_keywords: bool) -> Iterable[tuple[str, str]]:
    """Yield ``(tag, value)`` for ``record`` in the order written (TY first)."""
    fields = dict(record.fields)
    ris_type = fields.get("ris_ty", "")
    if ENTRY_TYPES.get(ris_type.upper(), "misc") != record.entry_type or not ris_type:
        ris_type = RIS_TYPES.get(record.entry_type, "GEN")
    yield "TY", ris_type
    if record.citekey:
        yield "ID", record.citekey
    if record.title:
        yield "TI", _one_line(record.title)
    for person in record.authors:
        yield "AU", _format_name(person)
    for person in record.editors:
        yield "A2", _format_name(person)
    if record.year is not None:
        yield "PY", str(record.year)
        if record.month is not None:
            yield "DA", f"{record.year:04d}/{record.month:02d}//"
    if record.entry_type == "book":
        # A book's T2 is its series; a venue (unusual for a book) goes to JO.
        if fields.get("series"):
            yield "T2", _one_line(fields["series"])
        if record.venue:
            yield "JO", _one_line(record.venue)
    elif record.venue:
        yield "T2", _one_line(record.venue)
    for name in ("volume", "number"):
        if fields.get(name):
            yield ("VL" if name == "volume" else "IS"), _one_line(fields[name])
    if fields.get("pages"):
        start, end = _pages(fields["pages"])
        yield "SP", start
        if end:
            yield "EP", end
    publisher = next(
        (
            fields[n]
            for n in ("publisher", "institution", "school", "organization")
            if fields.get(n)
        ),
        None,
    )
    if publisher:
        yield "PB", _one_line(publisher)
    for tag, name in (("CY", "address"), ("ET", "edition"), ("LA", "language")):
        if fields.get(name):
            yield tag, _one_line(fields[name])
    for name in ("issn", "isbn"):
        if fields.get(name):
            yield "SN", _one_line(fields[name])
    if record.entry_type == "mastersthesis" and "ris_m3" not in fields:
        yield "M3", _MASTERS
    if record.doi:
        yield "DO", record.doi
    for link in (record.url, record.code_url):
        if link and link.strip():
            yield "UR", _one_line(link)
    if record.arxiv:
        arxiv_url = f"https://arxiv.org/abs/{record.arxiv}"
        if arxiv_url not in (record.url, record.code_url):
            yield "UR", arxiv_url
    keywords = list(record.keywords)
    if tags_as_keywords:
        keywords.extend(tag for tag in record.tags if tag not in keywords)
    for keyword in keywords:
        if keyword.strip():
            yield "KW", _one_line(keyword)
    if record.abstract and record.abstract.strip():
        yield "AB", _value_lines(record.abstract)
    if fields.get("note"):
        yield "N1", _value_lines(fields["note"])
    for name in sorted(fields):
        if not name.startswith("ris_") or name == "ris_ty" or not fields[name].strip():
            continue
        tag = name[4:].upper()
        if not re.fullmatch(r"[A-Z][A-Z0-9]", tag) or tag in ("TY", "ER"):
            continue
        for value in fields[name].split("\n"):
            if value.strip():
                yield tag, value.strip()


def write(records: Sequence[PaperRecord], *, tags_as_keywords: bool = False) -> str:
    """Write ``records`` as RIS text through ``rispy.dumps``.

    The inverse of :func:`read`: entry type -> ``TY`` (:data:`RIS_TYPES`, or the
    ``ris_ty`` the record was read with), citation key -> ``ID``, title -> ``TI``,
    authors -> ``AU`` and editors -> ``A2`` as ``Family, Given[, Suffix]``, year
    -> ``PY`` (and ``DA YYYY/MM//`` with a month), venue -> ``T2`` (for a book:
    series -> ``T2``, venue -> ``JO``), fields volume,
    number, pages, publisher (or institution / school / organization), address,
    edition, language, issn/isbn, note -> ``VL IS SP EP PB CY ET LA SN N1``, DOI ->
    ``DO``, URL, code URL and arXiv abstract page -> ``UR``, keywords (plus tags
    when ``tags_as_keywords``) -> ``KW``, abstract -> ``AB``, and each
    ``ris_<tag>`` field back to its tag, one line per newline-separated value.
    Other fields have no RIS tag and are not written.

    Returns the text (records separated by a blank line, ending in a newline).
    Deterministic: the same records give the same text. Never raises for
    well-formed records.
    """
    references: list[dict[str, Any]] = []
    for record in records:
        reference: dict[str, Any] = {}
        for tag, value in _pairs(record, tags_as_keywords):
            if tag == "TY":
                reference[_NAME["TY"]] = value
                continue
            name = _NAME.get(tag)
            if name is None or tag == "UK":
                reference.setdefault(_UNKNOWN, {}).setdefault(tag, []).append(value)
            else:
                reference.setdefault(name, []).append(value)
        references.append(reference)
    if not references:
        return ""
    text: str = rispy.dumps(references, implementation=_RisWriter, enforce_list_tags=False)
    return text
