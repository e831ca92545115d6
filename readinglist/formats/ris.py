"""RIS (Research Information Systems) records <-> PaperRecord.

RIS is the tagged format of reference managers (EndNote, Zotero, Mendeley) and
databases (PubMed, Scopus, Web of Science exports): one ``TAG  - value`` per line,
each record from ``TY  - TYPE`` to ``ER  - ``. Sources for the tags and types: the RIS
specification (Research Information Systems / Thomson Reuters, "RIS Format
Specifications", RefMan 2011) as tabulated in rispy's ``TAG_KEY_MAPPING`` and
``TYPE_OF_REFERENCE_MAPPING`` (rispy 0.10, ``rispy/config.py``).
:mod:`readinglist.formats.ris_syntax` cuts the text into records and their tag
values (with line numbers); this module maps the tags.

Tag -> PaperRecord mapping (each step is a function ``_<step>(entry)`` below):

* ``TY``: entry type (table :data:`ENTRY_TYPES`; ``THES`` with ``M3`` naming a
  master's thesis is ``mastersthesis``); the RIS type is kept as
  ``fields["ris_ty"]`` unless writing would give it back.
* ``ID``: citation key, when it looks like one (a letter, no space or BibTeX
  special character); otherwise ``fields["ris_id"]``.
* ``TI``, else ``T1``, else (BOOK, UNPB) ``BT``: title, white space collapsed. The
  RIS spec makes ``BT`` the primary title of a whole book or unpublished work.
* ``AU``, ``A1``: authors; ``A2``, ``ED``: editors; a value ``A; B`` names two
  people, and a tag repeating the people of an earlier one (``AU`` and ``A1``
  both) adds only the new ones. ``TI``/``T1`` and ``AB``/``N2`` saying the same
  thing (up to case and spaces) are read once. ``Family, Given, Suffix`` ->
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
* ``UR``: URL; a line of several URLs is split before each ``http(s)://``. A link to
  github.com, gitlab.com, huggingface.co or bitbucket.org is the code link; an arXiv
  link gives the arXiv id (:func:`readinglist.identifiers.normalize_arxiv`) and the
  abstract page ``https://arxiv.org/abs/ID`` is no URL; further links go to
  ``fields["ris_ur"]``.
* ``VL``, ``IS``, ``SP``/``EP``: ``fields`` volume, number, pages (``SP--EP``).
* ``PB``, ``CY``, ``SN``, ``ET``, ``LA``: ``fields`` publisher, address, issn (isbn
  for books and chapters), edition, language.
* ``C8  - readinglist-provisional: title, key``: the provisional marks our exports
  write (:func:`readinglist.records.provisional_marks`); other ``C8`` values are kept.
* anything else: ``fields["ris_<tag>"]`` (e.g. ``ris_n1``, ``ris_ad``); repeated
  tags, and further values of a mapped tag, are joined by newlines.

Writing is the inverse, so our own output reads back to the same records
(:func:`write`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from readinglist.formats.ris_syntax import (
    TAG,
    Chunk,
    all_tags,
    dumps,
    parse,
    single_line,
    split_records,
    tag_values,
    value_lines,
)
from readinglist.formats.rules import (
    MASTERS,
    arxiv_abs_url,
    arxiv_link,
    initials_person,
    is_code_host,
    is_masters,
    keywords_of,
    looks_like_key,
    one_line,
    plain_fields,
    publisher_of,
    without_empty,
    year_month,
)
from readinglist.identifiers import arxiv_from_doi, normalize_doi
from readinglist.records import (
    PROVISIONAL_FIELD,
    PaperRecord,
    ParseProblem,
    ParseResult,
    Person,
    format_marks,
    named_people,
    names_others,
    parse_marks,
    provisional_marks,
    with_marks,
)
from readinglist.text import readable

__all__ = ["ENTRY_TYPES", "RIS_TYPES", "read", "write", "write_chunks"]

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
#: RIS types whose ``BT`` is the primary title (RIS spec, ``BT``: the title of a whole
#: book or unpublished work); for the others ``BT`` is a venue.
_BT_TITLE_TYPES = ("BOOK", "UNPB")

#: RIS tags read into a BibTeX field of ``fields``, one line each (the first value;
#: further ones are kept as ``ris_<tag>``).
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
_DATE_TAGS = ("PY", "Y1", "DA")
_URL_SPLIT = re.compile(r"\s*;\s*(?=https?://)")

# --- names ------------------------------------------------------------------------------------


def _split_name(text: str) -> Person:
    """Parse an RIS name, ``Family, Given, Suffix`` (RIS spec, AU), into a Person.

    A leading run of lower-case words of the family part is the ``von`` part, as in
    BibTeX ("Tame the BeaST" 11): ``van der Berg, Jan`` -> von "van der", family "Berg".
    """
    text = one_line(text)
    if names_others(text):
        return Person(literal="others")  # "AU  - et al.": a truncated list, not a person
    if "," not in text:
        if " " not in text:
            return Person(family=text)
        return initials_person(text, bare=False) or Person(literal=text)
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


# --- reading: one record -> PaperRecord --------------------------------------------------------


@dataclass
class _Entry:
    """One record's tags (parsed by rispy) being mapped to a PaperRecord.

    Each mapping step takes its tags once (:meth:`take`); values it does not use it
    hands to :meth:`keep`, and :meth:`keep_unused` keeps every tag no step took, so
    nothing of the record is lost (``fields["ris_<tag>"]``, values joined by newlines).
    """

    chunk: Chunk
    source: str
    tags: Mapping[str, Any] = field(default_factory=dict)
    used: set[str] = field(default_factory=lambda: {"TY"})
    fields: dict[str, str] = field(default_factory=dict)
    problems: list[ParseProblem] = field(default_factory=list)

    def take(self, tag: str) -> list[str]:
        self.used.add(tag)
        return tag_values(self.tags, tag)

    def keep(self, tag: str, values: list[str]) -> None:
        if values:
            self.fields[f"ris_{tag.lower()}"] = "\n".join(values)

    def first(self, tag: str) -> str | None:
        """The first value of ``tag`` on one line (None without one); the others are kept."""
        values = self.take(tag)
        self.keep(tag, values[1:])
        return one_line(values[0]) if values else None

    def keep_unused(self) -> None:
        for tag in all_tags(self.tags):
            if tag not in self.used and tag != "ER":
                self.used.add(tag)
                self.keep(tag, tag_values(self.tags, tag))

    def warn(self, message: str, tag: str | None = None) -> None:
        """A warning on the record's ``TY`` line, or on the first line of ``tag``."""
        line = self.chunk.start if tag is None else self.chunk.tag_lines.get(tag)
        self.problems.append(ParseProblem(message, self.source, line, "warning"))


def _entry_type(entry: _Entry, ris_type: str) -> str:
    """``TY`` (and ``M3`` for a master's thesis) -> entry type; an odd ``TY`` is kept."""
    entry_type = ENTRY_TYPES.get(ris_type, "misc")
    if not ris_type:
        entry.warn("empty 'TY' type; read as misc")
    kinds = entry.take("M3")
    if ris_type == "THES" and kinds and is_masters(kinds[0]):
        entry_type = "mastersthesis"
    entry.keep("M3", kinds)
    if ris_type and RIS_TYPES.get(entry_type, "GEN") != ris_type:
        entry.fields["ris_ty"] = entry.chunk.ris_type
    return entry_type


def _citekey(entry: _Entry) -> str | None:
    ids = entry.take("ID")
    citekey = ids.pop(0) if ids and looks_like_key(ids[0]) else None
    entry.keep("ID", ids)
    return citekey


def _title(entry: _Entry, ris_type: str) -> str | None:
    """``TI``, else ``T1``, else (:data:`_BT_TITLE_TYPES`) ``BT``."""
    ti, t1 = entry.take("TI"), entry.take("T1")
    bt = entry.take("BT") if ris_type in _BT_TITLE_TYPES else []
    titles = ti + t1 + bt
    title = one_line(titles[0]) if titles else None
    if not title:
        entry.warn("record without a title (TI)")
    rest = [t for t in titles[1:] if not (title and _same_text(t, title))]
    entry.keep("TI", [t for t in ti[1:] if t in rest])
    entry.keep("T1", [t for t in t1 if t in rest])
    entry.keep("BT", [t for t in bt if t in rest])
    return title


def _people(entry: _Entry, tags: tuple[str, ...]) -> tuple[Person, ...]:
    """The people of ``tags`` (e.g. ``AU`` then ``A1``), each listed once.

    A value ``Smith, J.; Doe, A.`` names two people (``;`` never occurs in a name;
    Web of Science and some EndNote exports join names so). A tag that repeats the
    people of an earlier one (Zotero and EndNote may write both ``AU`` and ``A1``)
    adds only those not yet listed; within one tag every name is kept.
    """
    people: list[Person] = []
    for tag in tags:
        seen = set(people)
        for value in entry.take(tag):
            names = [name for name in value.split(";") if name.strip()]
            if len(names) > 1:
                entry.warn(
                    f"{tag} {one_line(value)!r} names {len(names)} people joined by ';'; read as {len(names)}",
                    tag,
                )
            for name in names:
                if name.strip():
                    person = _split_name(name)
                    if person not in seen:
                        people.append(person)
    return tuple(people)


def _same_text(one: str, other: str) -> bool:
    """True when two values differ only in white space and case."""
    return one_line(one).casefold() == one_line(other).casefold()


def _keywords(entry: _Entry) -> tuple[str, ...]:
    """``KW``: one keyword a line (RIS spec), each once. A ``;`` is kept: a keyword
    may hold one, and RIS has no way to write it otherwise."""
    words = (one_line(value) for value in entry.take("KW"))
    return tuple(dict.fromkeys(word for word in words if word))


def _date(entry: _Entry) -> tuple[int | None, int | None]:
    """Year and month: the first found in ``PY``, ``Y1``, ``DA``; a date without a year is kept."""
    year = month = None
    for tag in _DATE_TAGS:
        for value in entry.take(tag):
            found_year, found_month = year_month(value)
            if found_year is None:
                name = f"ris_{tag.lower()}"
                entry.warn(f"{tag} {value!r} holds no year (YYYY); kept as {name}", tag)
                entry.fields[name] = value
                continue
            year = year if year is not None else found_year
            month = month if month is not None else found_month
    return year, month


def _venue(entry: _Entry, ris_type: str, entry_type: str) -> str | None:
    """The first of :data:`_VENUE_TAGS`; a book's ``T2`` is its series."""
    tags = [t for t in _VENUE_TAGS if not (t == "BT" and ris_type in _BT_TITLE_TYPES)]
    values = {tag: entry.take(tag) for tag in tags}
    if entry_type == "book" and values["T2"]:
        entry.fields["series"] = one_line(values["T2"].pop(0))
    venue = None
    for tag in tags:
        if values[tag] and venue is None:
            venue = one_line(values[tag].pop(0))
        entry.keep(tag, values[tag])
    return venue


def _abstract(entry: _Entry) -> str | None:
    abstracts, notes = entry.take("AB"), entry.take("N2")
    both = abstracts + notes
    abstract = both[0] if both else None
    rest = [a for a in both[1:] if not (abstract and _same_text(a, abstract))]
    entry.keep("AB", [a for a in abstracts[1:] if a in rest])
    entry.keep("N2", [a for a in notes if a in rest])
    return abstract


def _doi(entry: _Entry) -> str | None:
    """The first ``DO`` that holds a DOI (:func:`normalize_doi`); the others are kept."""
    doi = None
    rejected: list[str] = []
    for value in entry.take("DO"):
        normalized = normalize_doi(value)
        if normalized is not None and doi is None:
            doi = normalized
        else:
            rejected.append(value)
    if rejected and doi is None:
        entry.warn(f"DO {rejected[0]!r} is not a DOI (10.prefix/suffix); kept as ris_do", "DO")
    entry.keep("DO", rejected)
    return doi


def _links(entry: _Entry, arxiv: str | None) -> tuple[str | None, str | None, str | None]:
    """``UR`` -> ``(url, code_url, arxiv)``: a code host is the code link, an arXiv
    abstract page only the id (:func:`arxiv_link`), further links are kept."""
    url = code_url = None
    extra: list[str] = []
    for value in entry.take("UR"):
        for link in _URL_SPLIT.split(value):
            link = link.strip()
            found, only_id = arxiv_link(link)
            arxiv = found if arxiv is None else arxiv
            if only_id:
                continue
            if code_url is None and is_code_host(link):
                code_url = link
            elif url is None:
                url = link
            else:
                extra.append(link)
    entry.keep("UR", extra)
    return url, code_url, arxiv


def _fields(entry: _Entry, entry_type: str) -> None:
    """``SP``/``EP`` -> pages, :data:`_FIELD_TAGS`, ``SN`` -> isbn (books) or issn."""
    starts, ends = entry.take("SP"), entry.take("EP")
    if starts or ends:
        start = starts.pop(0) if starts else ""
        end = ends.pop(0) if ends else ""
        entry.fields["pages"] = (
            f"{start}--{end}" if start and end and start != end else start or end
        )
    entry.keep("SP", starts)
    entry.keep("EP", ends)
    for tag, name in _FIELD_TAGS.items():
        if value := entry.first(tag):
            entry.fields[name] = value
    serials = entry.take("SN")
    if serials:
        entry.fields["isbn" if entry_type in ("book", "incollection") else "issn"] = serials.pop(0)
    entry.keep("SN", serials)


def _record(chunk: Chunk, source: str) -> tuple[PaperRecord, list[ParseProblem]]:
    """One record -> PaperRecord and its problems (mapping in the module docstring)."""
    entry = _Entry(chunk, source, parse(chunk))
    ris_type = chunk.ris_type.upper()
    entry_type = _entry_type(entry, ris_type)
    citekey = _citekey(entry)
    title = _title(entry, ris_type)
    authors, editors = _people(entry, _AUTHOR_TAGS), _people(entry, _EDITOR_TAGS)
    year, month = _date(entry)
    venue = _venue(entry, ris_type, entry_type)
    abstract = _abstract(entry)
    keywords = _keywords(entry)
    doi = _doi(entry)
    url, code_url, arxiv = _links(entry, arxiv_from_doi(doi))
    _fields(entry, entry_type)
    marks = _marks(entry)
    entry.keep_unused()
    record = PaperRecord(
        citekey=citekey,
        entry_type=entry_type,
        title=title,
        authors=authors,
        editors=editors,
        year=year,
        month=month,
        venue=venue,
        abstract=abstract,
        doi=doi,
        arxiv=arxiv,
        url=url,
        code_url=code_url,
        keywords=keywords,
        fields=dict(sorted(entry.fields.items())),
        source_text=None,
        line=chunk.start,
        latex_fields=False,
    )
    return with_marks(record, marks), entry.problems


#: The RIS tag of our provisional marks (a custom field of the RIS specification).
MARK_TAG = "C8"
_MARK_PREFIX = PROVISIONAL_FIELD + ":"


def _marks(entry: _Entry) -> tuple[str, ...]:
    """The provisional marks of a ``C8  - readinglist-provisional: title, key`` line
    (:func:`readinglist.records.parse_marks`); other ``C8`` values are kept."""
    values = entry.take(MARK_TAG)
    ours = [v for v in values if v.strip().lower().startswith(_MARK_PREFIX)]
    entry.keep(MARK_TAG, [v for v in values if v not in ours])
    return tuple(m for v in ours for m in parse_marks(v.strip()[len(_MARK_PREFIX) :]))


def _mark_pairs(record: PaperRecord) -> Iterator[tuple[str, str]]:
    """``C8  - readinglist-provisional: title, key`` for a provisional record."""
    marks = provisional_marks(record)
    if marks:
        yield MARK_TAG, f"{PROVISIONAL_FIELD}: {format_marks(marks)}"


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
        non-empty text holds no record at all, or when a record cannot be read; a
        record with no title and no identifier is left out
        (:func:`~readinglist.formats.rules.without_empty`). Never raises.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    chunks, problems = split_records(text, source)
    records: list[PaperRecord] = []
    for chunk in chunks:
        try:
            record, more = _record(chunk, source)
        except Exception as exc:  # a last guard: one bad record must not stop the import
            problems.append(ParseProblem(f"could not read this record: {exc}", source, chunk.start))
            continue
        records.append(record)
        problems.extend(more)
    records = without_empty(records, problems, source, "record")
    problems.sort(key=lambda p: p.line or 0)
    return ParseResult(records=records, problems=problems)


# --- writing ----------------------------------------------------------------------------------


def _split_pages(pages: str) -> tuple[str, str]:
    parts = re.split(r"\s*(?:--|–|—|-)\s*", pages.strip(), maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else (parts[0], "")


def _written_type(record: PaperRecord) -> str:
    """The ``ris_ty`` the record was read with when it still fits, else :data:`RIS_TYPES`."""
    ris_type = record.fields.get("ris_ty", "")
    if ENTRY_TYPES.get(ris_type.upper(), "misc") != record.entry_type or not ris_type:
        ris_type = RIS_TYPES.get(record.entry_type, "GEN")
    return ris_type


def _people_pairs(record: PaperRecord) -> Iterator[tuple[str, str]]:
    """``ID``, ``TI``, ``AU``, ``A2``, ``PY`` and ``DA``."""
    if record.citekey:
        yield "ID", record.citekey
    if record.title:
        yield "TI", one_line(record.title)
    # RIS has no "et al.": a truncated list gives its people only (records.named_people).
    for person in named_people(record.authors)[0]:
        yield "AU", _format_name(person)
    for person in named_people(record.editors)[0]:
        yield "A2", _format_name(person)
    if record.year is not None:
        yield "PY", str(record.year)
        if record.month is not None:
            yield "DA", f"{record.year:04d}/{record.month:02d}//"


def _field_pairs(record: PaperRecord, fields: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """Venue (or a book's series), then ``VL IS SP EP PB CY ET LA SN`` and ``M3``."""
    if record.entry_type == "book":
        # A book's T2 is its series; a venue (unusual for a book) goes to JO.
        if fields.get("series"):
            yield "T2", one_line(fields["series"])
        if record.venue:
            yield "JO", one_line(record.venue)
    elif record.venue:
        yield "T2", one_line(record.venue)
    for tag, name in (("VL", "volume"), ("IS", "number")):
        if fields.get(name):
            yield tag, one_line(fields[name])
    if fields.get("pages"):
        start, end = _split_pages(fields["pages"])
        yield "SP", start
        if end:
            yield "EP", end
    if publisher := publisher_of(fields):
        yield "PB", one_line(publisher)
    for tag, name in _LATER_FIELDS:
        if fields.get(name):
            yield tag, one_line(fields[name])
    if record.entry_type == "mastersthesis" and "ris_m3" not in fields:
        yield "M3", MASTERS


#: Fields written after ``PB``, in this order.
_LATER_FIELDS = (
    ("CY", "address"),
    ("ET", "edition"),
    ("LA", "language"),
    ("SN", "issn"),
    ("SN", "isbn"),
)


def _link_pairs(record: PaperRecord) -> Iterator[tuple[str, str]]:
    """``DO``, then ``UR`` for the URL, the code link and the arXiv abstract page."""
    if record.doi:
        yield "DO", record.doi
    for link in (record.url, record.code_url):
        if link and link.strip():
            yield "UR", one_line(link)
    if record.arxiv:
        arxiv_url = arxiv_abs_url(record.arxiv)
        if arxiv_url not in (record.url, record.code_url):
            yield "UR", arxiv_url


def _text_pairs(
    record: PaperRecord, fields: Mapping[str, str], tags_as_keywords: bool
) -> Iterator[tuple[str, str]]:
    """``KW`` (keywords, then the user's tags), ``AB`` (readable: LaTeX decoded, by
    :func:`readinglist.text.readable`) and ``N1`` (the ``note`` field, then each of the
    user's notes)."""
    for keyword in keywords_of(record, tags_as_keywords):
        if keyword.strip():
            yield "KW", one_line(keyword)
    if abstract := readable(record.abstract):
        yield "AB", value_lines(abstract)
    yield from _note_pairs(record, fields)


def _note_pairs(record: PaperRecord, fields: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """``N1``: the ``note`` field, then one per user note (its text as written)."""
    if fields.get("note"):
        yield "N1", value_lines(fields["note"])
    for note in record.notes:
        if note.text.strip():
            yield "N1", value_lines(note.text)


def _kept_pairs(fields: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """Each ``ris_<tag>`` field back to its tag, one pair per non-empty line."""
    for name in sorted(fields):
        if not name.startswith("ris_") or name == "ris_ty" or not fields[name].strip():
            continue
        tag = name[4:].upper()
        if not TAG.fullmatch(tag) or tag in ("TY", "ER"):
            continue
        for value in fields[name].split("\n"):
            if value.strip():
                yield tag, value.strip()


def _pairs(record: PaperRecord, tags_as_keywords: bool) -> Iterator[tuple[str, str]]:
    """Yield ``(tag, value)`` for ``record`` in the order written (TY first): every
    value on one line (:func:`ris_syntax.single_line`) but the abstract's and notes'
    (``AB``, ``N1``: continuation lines, :func:`ris_syntax.value_lines`)."""
    for tag, value in _all_pairs(record, tags_as_keywords):
        yield tag, value_lines(value) if tag in ("AB", "N1") else single_line(value)


def _all_pairs(record: PaperRecord, tags_as_keywords: bool) -> Iterator[tuple[str, str]]:
    fields = plain_fields(record)
    yield "TY", _written_type(record)
    yield from _people_pairs(record)
    yield from _field_pairs(record, fields)
    yield from _link_pairs(record)
    yield from _text_pairs(record, fields, tags_as_keywords)
    yield from _mark_pairs(record)
    yield from _kept_pairs(fields)


def write(records: Iterable[PaperRecord], *, tags_as_keywords: bool = True) -> str:
    """Write ``records`` as RIS text (:func:`ris_syntax.dumps`: the text ``rispy.dumps`` gives).

    The inverse of :func:`read`: entry type -> ``TY`` (:data:`RIS_TYPES`, or the
    ``ris_ty`` the record was read with), citation key -> ``ID``, title -> ``TI``,
    authors -> ``AU`` and editors -> ``A2`` as ``Family, Given[, Suffix]``, year
    -> ``PY`` (and ``DA YYYY/MM//`` with a month), venue -> ``T2`` (for a book:
    series -> ``T2``, venue -> ``JO``), fields volume,
    number, pages, publisher (or institution / school / organization), address,
    edition, language, issn/isbn, note -> ``VL IS SP EP PB CY ET LA SN N1``, DOI ->
    ``DO``, URL, code URL and arXiv abstract page -> ``UR``, keywords (then the
    user's tags, unless ``tags_as_keywords`` is False) -> ``KW``, the abstract as
    readable text (LaTeX decoded, :func:`readinglist.text.readable`) -> ``AB``, each
    user note -> one more ``N1``, and each ``ris_<tag>`` field back to its tag, one line per newline-separated value.
    Other fields have no RIS tag and are not written.

    Returns the text (records separated by a blank line, ending in a newline).
    Deterministic: the same records give the same text. Never raises for
    well-formed records.
    """
    return "".join(write_chunks(records, tags_as_keywords=tags_as_keywords))


def write_chunks(
    records: Iterable[PaperRecord], *, tags_as_keywords: bool = True, chunk: int = 500
) -> Iterator[str]:
    """Yield the text of :func:`write` a chunk of ``chunk`` records at a time, reading
    ``records`` as it goes (an export streams them, issue 17); the pieces joined are
    exactly :func:`write`'s text."""
    batch: list[list[tuple[str, str]]] = []
    separator = ""
    for record in records:
        batch.append(list(_pairs(record, tags_as_keywords)))
        if len(batch) == chunk:
            yield separator + dumps(batch)
            separator, batch = "\n", []
    if batch:
        yield separator + dumps(batch)
