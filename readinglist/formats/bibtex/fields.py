"""BibTeX field values <-> record columns: decoding raw values, and the ``fields`` contract.

Second floor of :mod:`readinglist.formats.bibtex` (imports :mod:`.values`). The
reader hands :func:`record_from_fields` the field values of an entry after macro and
``#`` resolution; this module decodes them into the columns of a
:class:`~readinglist.records.PaperRecord`. LaTeX is decoded by
:mod:`readinglist.text` (:func:`~readinglist.text.simple_latex` with
``bibtex=True``, then pylatexenc through :func:`~readinglist.text.latex_to_unicode`);
here it is only cached per value, with white space collapsed.

Name lists are split with bibtexparser's ``split_multiple_persons_names`` and
``parse_single_name_into_parts`` (non-strict), which implement the BibTeX rules of
``bibtex.web`` (First von Last / von Last, First / von Last, Jr, First); a name that
is one brace group (``{{European Space Agency}}`` in the file) is a corporate name
(``Person(literal=...)``) and ``and others`` gives ``Person(literal="others")``.

The ``fields`` contract
-----------------------
``PaperRecord.fields`` maps every lower-case field name to its value *after* macro
and ``#`` resolution, with the outer delimiters removed and nothing else changed,
except for the fields decoded into a column:

=====================  =================================  =====================================
column                 source field(s)                    raw value also kept in ``fields``
=====================  =================================  =====================================
title                  ``title``                          when it differs from the decoded title
authors, editors       ``author``, ``editor``             when it differs from ``" and "``-joined
                                                          :meth:`Person.display` forms
year                   ``year`` (else biblatex ``date``)  when it differs from ``str(year)``
month                  ``month`` (else ``date``)          unless it is one month name, abbreviation
                                                          or number (``jan``, ``{June}``, ``6``)
venue                  ``journal``/``booktitle``/         always (it says which field it was)
                       ``journaltitle``
abstract               ``abstract``                       never (the column holds the raw value)
doi                    ``doi``                            when it differs from the normalized DOI
arxiv                  ``eprint`` (arXiv), ``arxiv``,     when it differs from the id, or the
                       ``arxivid``                        field is not ``eprint``
url                    ``url``                            when it differs from the stripped value
keywords               ``keywords``                       when it differs from ``", "``-joined
=====================  =================================  =====================================

Two fields are ours or biblatex's and also set record attributes:
``readinglist-provisional = {title, key}`` (:data:`readinglist.records.PROVISIONAL_FIELD`,
written by our exports of provisional papers) sets ``title_provisional`` /
``citekey_provisional`` and is not kept in ``fields``; biblatex ``ids`` (other keys of
the entry) gives ``aliases`` and is kept as it is.

A source field whose value cannot be decoded (``year = {in press}``, ``month =
{Summer}``) leaves the column ``None`` and is kept as it is. ``date``,
``archiveprefix`` and ``eprinttype`` are always kept. DOIs and arXiv ids are
normalized by :mod:`readinglist.identifiers`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import TypeVar

from bibtexparser.middlewares.names import (
    parse_single_name_into_parts,
    split_multiple_persons_names,
)

from readinglist.formats.bibtex.values import (
    MONTH_ABBREV,
    MONTH_WORDS,
    ValueSyntaxError,
    matching_brace,
)
from readinglist.identifiers import (
    arxiv_from_doi,
    arxiv_from_venue,
    is_arxiv_url,
    normalize_arxiv,
    normalize_doi,
)
from readinglist.records import (
    PROVISIONAL_FIELD,
    PaperRecord,
    ParseProblem,
    Person,
    parse_marks,
    with_marks,
)
from readinglist.text import (
    CACHE_SIZE,
    bibtex_latex,
    group_spaced_commands,
    latex_to_unicode,
    simple_latex,
)

#: Entry types whose venue is a journal first (biblatex's periodicals included).
ARTICLE_TYPES = frozenset({"article", "periodical", "suppperiodical"})
_VENUE_FIELDS_ARTICLE = ("journal", "journaltitle", "booktitle")
_VENUE_FIELDS_OTHER = ("booktitle", "journal", "journaltitle")
#: The fields an arXiv id is read from, in order of preference.
_ARXIV_SOURCES = ("eprint", "arxiv", "arxivid")
#: The fields that say which archive ``eprint`` belongs to (BibTeX, biblatex).
ARXIV_PREFIX_FIELDS = ("archiveprefix", "eprinttype")

#: Runs of white space collapsed in decoded values (ASCII only, as BibTeX does).
WS = re.compile(r"[ \t\r\n]+")
_LATEX_SPECIAL = re.compile(r"[\\{}$~]")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_ISO_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{2}))?")
_WORDS = re.compile(r"[A-Za-z]+")
#: Names parsed and kept by :func:`parse_person`: people recur in a bibliography more
#: than other values (the first 10,000 ACL Anthology entries name 19,002 people 83,959
#: times; a cache of ``CACHE_SIZE`` parsed 23,406 names, this one each once; a few MiB).
PERSON_CACHE_SIZE = 1 << 15


# --- decoding raw values into columns ------------------------------------------------


@lru_cache(maxsize=CACHE_SIZE)
def decode_text(raw: str) -> str:
    """LaTeX -> Unicode with runs of ASCII white space collapsed; plain text skips all decoding.

    A bare ``&`` is taken as the character (pylatexenc would read an alignment tab).
    """
    text = raw
    if _LATEX_SPECIAL.search(text):
        text = bibtex_latex(text)
        fast = simple_latex(text, bibtex=True)
        text = fast if fast is not None else latex_to_unicode(text)
    return WS.sub(" ", text).strip()


def decode_title(raw: str) -> str | None:
    """The title column of a raw title: decoded, None when that leaves nothing."""
    return decode_text(raw) or None


def _is_single_group(name: str) -> bool:
    """True if ``name`` is one brace group ``{...}`` (not a ``{\\...}`` special character)."""
    if len(name) < 2 or name[0] != "{" or name[-1] != "}" or name.startswith("{\\"):
        return False
    try:
        return matching_brace(name, 0) == len(name) - 1
    except ValueSyntaxError:
        return False


#: One ``key=value`` part of biblatex's extended name format (biblatex manual section
#: 3.4, "Name lists": ``family=Jong, given=Karel, prefix=de, useprefix=true``).
_EXTENDED_PART = re.compile(r"^\s*([A-Za-z]+(?:-i)?)\s*=\s*(.*?)\s*$", re.DOTALL)
#: The name parts of the extended format, as :class:`Person` fields.
_EXTENDED_PARTS = {"family": "family", "given": "given", "prefix": "von", "suffix": "jr"}


def extended_name_parts(name: str) -> dict[str, str] | None:
    """The parts of a name in biblatex's extended name format (``family=Jong,
    given=Karel, prefix=de, useprefix=true``), raw, keyed ``family``/``given``/
    ``prefix``/``suffix`` and the options (``useprefix``, ``given-i``); None when
    ``name`` is a classic BibTeX name. A name is extended when every part between its
    commas outside braces is ``key=value`` and one key is a name part (biblatex
    manual section 3.4). A value may be braced or quoted (``given={Anna Maria}``)."""
    if "=" not in name:
        return None
    parts: dict[str, str] = {}
    for piece in top_level_commas(name):
        match = _EXTENDED_PART.match(piece)
        if match is None:
            return None
        value = match.group(2)
        if len(value) >= 2 and value[0] + value[-1] in ('""', "{}"):
            value = value[1:-1]
        parts[match.group(1).lower()] = value
    return parts if any(key in _EXTENDED_PARTS for key in parts) else None


def top_level_commas(name: str) -> list[str]:
    """``name`` split at the commas outside braces (BibTeX counts only those)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(name):
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif char == "," and depth == 0:
            parts.append(name[start:index])
            start = index + 1
    parts.append(name[start:])
    return parts


@lru_cache(maxsize=PERSON_CACHE_SIZE)
def parse_person(name: str) -> Person:
    """One name of a BibTeX name list as a decoded :class:`Person` (rules in the module
    doc); a name in biblatex's extended format (:func:`extended_name_parts`) gives its
    ``family``, ``given``, ``prefix`` (von) and ``suffix`` (jr) parts."""
    name = WS.sub(" ", name).strip()
    if name.lower() == "others":
        return Person(literal="others")
    if _is_single_group(name):
        return Person(literal=decode_text(name[1:-1]))
    extended = extended_name_parts(name)
    if extended is not None:
        found = {
            _EXTENDED_PARTS[k]: decode_text(v) for k, v in extended.items() if k in _EXTENDED_PARTS
        }
        return Person(**found)
    parts = parse_single_name_into_parts(group_spaced_commands(name), strict=False)
    return Person(
        family=decode_text(" ".join(parts.last)),
        given=decode_text(" ".join(parts.first)),
        von=decode_text(" ".join(parts.von)),
        jr=decode_text(" ".join(parts.jr)),
    )


@lru_cache(maxsize=CACHE_SIZE)
def split_names(raw: str) -> tuple[str, ...]:
    """The names of a BibTeX name list (``A and B and others``) as written, stripped, empty
    ones left out (bibtexparser's ``split_multiple_persons_names``: ``and`` at brace depth
    0). Cached: the reader checks a list (``repair.repair_name_list``) and then parses it."""
    return tuple(name.strip() for name in split_multiple_persons_names(raw) if name.strip())


@lru_cache(maxsize=CACHE_SIZE)
def parse_names(raw: str) -> tuple[Person, ...]:
    """Split a BibTeX name list (``A and B and others``) into decoded people."""
    return tuple(parse_person(name) for name in split_names(raw))


def names_display(people: Sequence[Person]) -> str:
    """The ``" and "``-joined display forms: the raw name list a column stands for as is."""
    return " and ".join(p.display() for p in people)


#: What a name in biblatex's extended format holds (:func:`extended_name_parts`).
_EXTENDED_HINT = re.compile(r"[{\s,](?:family|given|prefix|suffix)\s*=", re.IGNORECASE)


def mentions_extended_names(source_text: str) -> bool:
    """True when the entry text ``source_text`` may hold a name list in biblatex's
    extended format (``family=``, ``given=`` ...): the cheap test a ``bibtex`` export
    makes before copying an entry as written (a false alarm only regenerates it);
    the entry's fields (all of them, not only those an IntactEntry carries) then
    decide (:func:`has_extended_names`)."""
    return _EXTENDED_HINT.search(source_text) is not None


@lru_cache(maxsize=CACHE_SIZE)
def has_extended_names(raw: str) -> bool:
    """True when a name of the list ``raw`` is in biblatex's extended name format
    (:func:`extended_name_parts`), which classic BibTeX cannot read."""
    return "=" in raw and any(extended_name_parts(name) for name in split_names(raw))


@lru_cache(maxsize=CACHE_SIZE)
def _names_as_displayed(raw: str) -> bool:
    """True when the name list ``raw`` is :func:`names_display` of its people, so the
    author/editor column gives it back and the raw field need not be kept (cached with
    :func:`parse_names`: an editor list recurs in every entry of its proceedings)."""
    return raw == names_display(parse_names(raw))


def decode_year(raw: str) -> int | None:
    """The first run of exactly four digits (``{2016a}``, ``c. 1998``), else None."""
    match = _YEAR.search(raw)
    return int(match.group(1)) if match else None


def decode_month(raw: str) -> int | None:
    """Month 1..12 from ``January``, ``jan``, ``6``, ``{20--22 Jun}`` (first month word wins)."""
    text = raw.strip().strip("{}").strip().rstrip(".")
    if text.isdigit():
        number = int(text)
        return number if 1 <= number <= 12 else None
    for word in _WORDS.findall(raw):
        month = MONTH_WORDS.get(word.lower())
        if month is not None:
            return month
    return None


def month_is_simple(raw: str) -> bool:
    """True when the raw month is exactly one month name, abbreviation or number."""
    text = raw.strip().strip("{}").strip().rstrip(".").lower()
    if text.isdigit():
        return 1 <= int(text) <= 12 and str(int(text)) == text
    return text in MONTH_WORDS


#: A ``month`` field in an entry's text, up to the start of its value.
_MONTH_FIELD = re.compile(r"[,\s]month\s*=\s*", re.IGNORECASE)
_BARE_VALUE = re.compile(r"[^\s,{}\"#]+")


def month_needs_macro(source_text: str) -> bool:
    """True when the entry text ``source_text`` writes a month that names one month
    (:func:`month_is_simple`: ``{Sept.}``, ``"9"``, ``September``, ``9``) other than as
    one of BibTeX's twelve month macros (``jan`` ... ``dec``, bare): BibTeX styles print
    and sort the macro, so a ``bibtex`` export writes it (``month = sep``). A value
    joined with ``#`` (``jan # "~15"``) is left as it is."""
    match = _MONTH_FIELD.search(source_text)
    if match is None:
        return False
    start = match.end()
    opener = source_text[start : start + 1]
    try:
        if opener == "{":
            end = matching_brace(source_text, start) + 1
        elif opener == '"':
            end = source_text.index('"', start + 1) + 1
        else:
            bare = _BARE_VALUE.match(source_text, start)
            if bare is None:
                return False
            end = bare.end()
    except (ValueSyntaxError, ValueError):
        return False
    if source_text[end:].lstrip().startswith("#"):
        return False
    value = source_text[start:end]
    if value in MONTH_ABBREV:
        return False
    return month_is_simple(value.strip('"'))


def decode_date(raw: str) -> tuple[int | None, int | None]:
    """Year and month of a biblatex ``date`` (ISO 8601 ``YYYY[-MM[-DD]]``, ranges allowed)."""
    match = _ISO_DATE.match(raw)
    if not match:
        return None, None
    month = int(match.group(2)) if match.group(2) else None
    return int(match.group(1)), month if month and 1 <= month <= 12 else None


def decode_keywords(raw: str) -> tuple[str, ...]:
    """Keywords separated by ``,`` or ``;``, decoded, empty ones dropped."""
    return tuple(k for k in (part.strip() for part in re.split(r"[,;]", decode_text(raw))) if k)


def decode_url(raw: str) -> str | None:
    """The URL column: the raw value stripped, None when empty."""
    return raw.strip() or None


# --- the record of one entry ---------------------------------------------------------


def venue_candidates(entry_type: str) -> tuple[str, ...]:
    """The fields a venue is read from, in order: the first one present names it."""
    return _VENUE_FIELDS_ARTICLE if entry_type in ARTICLE_TYPES else _VENUE_FIELDS_OTHER


def arxiv_source(fields: Mapping[str, str]) -> str | None:
    """The field an arXiv id is read from / written to, if any is present."""
    if "eprint" in fields:
        prefix = next((fields[f] for f in ARXIV_PREFIX_FIELDS if f in fields), None)
        if prefix is None or prefix.strip().lower() == "arxiv":
            return "eprint"
    for name in _ARXIV_SOURCES[1:]:
        if name in fields:
            return name
    return None


_T = TypeVar("_T")


def _column(
    fields: dict[str, str],
    name: str,
    decode: Callable[[str], _T | None],
    redundant: Callable[[str, _T], bool],
) -> _T | None:
    """Decode field ``name`` into its column value (None when absent or undecodable) and
    delete the raw value from ``fields`` when ``redundant(raw, value)`` says the column
    gives it back exactly."""
    raw = fields.get(name)
    if raw is None:
        return None
    value = decode(raw)
    if value is not None and value != () and redundant(raw, value):
        del fields[name]
    return value


def _same(raw: str, value: object) -> bool:
    return raw == value


def _arxiv_elsewhere(fields: Mapping[str, str], venue: str | None, doi: str | None) -> str | None:
    """The arXiv id given other than by ``eprint``: arXiv's own DOI ``10.48550/arXiv.X``,
    a venue ``arXiv preprint arXiv:X``, an ``arxiv.org/abs|pdf`` URL (rules in
    :mod:`readinglist.identifiers`); the fields stay as they are."""
    found = arxiv_from_doi(doi) or arxiv_from_venue(venue)
    if found is None:
        url = fields.get("url")
        if url is not None and is_arxiv_url(url):
            found = normalize_arxiv(url)
    return found


def record_from_fields(
    key: str | None,
    entry_type: str,
    values: dict[str, str],
    raw: str,
    line: int | None,
    strings_read: int | None = None,
) -> PaperRecord:
    """Turn the resolved field values of an entry into a record.

    Args:
        key: the citation key (None for an entry without one).
        entry_type: the lower-case entry type.
        values: lower-case field name -> value after macro and ``#`` resolution.
        raw: the entry as written (``source_text``).
        line: its first line in the file (1-based).
        strings_read: the ``@string`` blocks read before it (``PaperRecord.strings_read``).

    Returns:
        The record, by the ``fields`` contract of the module docstring. Never raises.
    """
    fields = dict(values)
    has_year, has_month = "year" in fields, "month" in fields
    title = _column(fields, "title", decode_title, _same)
    authors = _column(fields, "author", parse_names, lambda r, _: _names_as_displayed(r))
    editors = _column(fields, "editor", parse_names, lambda r, _: _names_as_displayed(r))
    year = _column(fields, "year", decode_year, lambda r, y: r == str(y))
    month = _column(fields, "month", decode_month, lambda r, _: month_is_simple(r))
    if "date" in fields:
        date_year, date_month = decode_date(fields["date"])
        year = year if has_year else date_year
        month = month if has_month else date_month
    venue_field = next((n for n in venue_candidates(entry_type) if n in fields), None)
    arxiv_field = arxiv_source(fields)
    arxiv = normalize_arxiv(fields[arxiv_field]) if arxiv_field else None
    if arxiv is not None and arxiv_field == "eprint" and fields["eprint"] == arxiv:
        del fields["eprint"]
    venue = (decode_text(fields[venue_field]) or None) if venue_field else None
    doi = _column(fields, "doi", normalize_doi, _same)
    if arxiv is None:
        arxiv = _arxiv_elsewhere(fields, venue, doi)
    marks = parse_marks(fields.pop(PROVISIONAL_FIELD, ""))
    record = PaperRecord(
        citekey=key,
        entry_type=entry_type,
        title=title,
        authors=authors or (),
        editors=editors or (),
        year=year,
        month=month,
        venue=venue,
        abstract=fields.pop("abstract", None),
        doi=doi,
        arxiv=arxiv,
        url=_column(fields, "url", decode_url, _same),
        keywords=_column(fields, "keywords", decode_keywords, lambda r, k: r == ", ".join(k)) or (),
        aliases=decode_ids(fields.get("ids", "")),
        fields=fields,
        source_text=raw,
        line=line,
        strings_read=strings_read,
    )
    return with_marks(record, marks)


def decode_ids(raw: str) -> tuple[str, ...]:
    """The keys of a biblatex ``ids`` field (a comma-separated list of other keys of
    the entry, biblatex manual section 2.2.3), in order, without repeats."""
    return tuple(dict.fromkeys(key.strip() for key in raw.split(",") if key.strip()))


#: A digit: a ``year`` holding one but no year of four digits is warned about.
_NUMBER = re.compile(r"\d")


def value_checks(
    source: str, key: str, values: Mapping[str, str], field_lines: Mapping[str, int], line: int
) -> Iterator[ParseProblem]:
    """Warnings about values that are read but doubtful: a ``date`` that contradicts
    ``year``, a year that is a number but not of four digits (``20215``, ``0``: out
    of the range the year column holds), a month that names no month, a ``date``/``urldate``
    that is not an ISO 8601 date (biber ignores it: biblatex manual section 2.3.8).
    ``source`` and ``line`` (the entry's first line; ``field_lines`` by field) place them."""
    name = key or "(no key)"
    for field in ("date", "urldate"):
        if field in values and decode_date(values[field])[0] is None:
            yield ParseProblem(
                f"entry {name!r}: {field} {values[field]!r} is not an ISO 8601 date "
                "(YYYY-MM-DD), which biber ignores; kept as written",
                source,
                field_lines.get(field, line),
                "warning",
            )
    if "date" in values and "year" in values:
        date_year = decode_date(values["date"])[0]
        year = decode_year(values["year"])
        if date_year is not None and year is not None and date_year != year:
            yield ParseProblem(
                f"entry {name!r}: date {values['date']!r} contradicts year "
                f"{values['year']!r}; the year is kept",
                source,
                field_lines.get("date", line),
                "warning",
            )
    if "year" in values and decode_year(values["year"]) is None and _NUMBER.search(values["year"]):
        yield ParseProblem(
            f"entry {name!r}: year {values['year']!r} is not a year of four digits; "
            "kept as written in the entry's fields, the paper has no year",
            source,
            field_lines.get("year", line),
            "warning",
        )
    if "month" in values and decode_month(values["month"]) is None:
        yield ParseProblem(
            f"entry {name!r}: month {values['month']!r} names no month; kept as written",
            source,
            field_lines.get("month", line),
            "warning",
        )
