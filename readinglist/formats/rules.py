"""Field rules the RIS and CSL-JSON mappings share, each stated once.

Both formats carry plain Unicode (no LaTeX), a citation key that may be any
identifier, a date whose text starts ``YYYY/MM`` or ``YYYY-MM``, links that may be
an arXiv page or a code repository, and BibTeX-named fields such as ``publisher``.
:mod:`readinglist.formats.ris` and :mod:`readinglist.formats.csljson` read and
write these through the functions here, so the two formats cannot drift apart.
DOI and arXiv identifiers themselves follow :mod:`readinglist.identifiers`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from readinglist.identifiers import is_arxiv_url, is_web_link, normalize_arxiv
from readinglist.records import LIST_FIELD_PREFIX, PaperRecord, ParseProblem, Person, Severity
from readinglist.text import readable

__all__ = [
    "MASTERS",
    "arxiv_abs_url",
    "arxiv_link",
    "date_of",
    "initials_person",
    "is_code_host",
    "is_masters",
    "keywords_of",
    "looks_like_key",
    "one_line",
    "plain_fields",
    "publisher_of",
    "without_empty",
    "year_month",
]

#: The thesis kind written for a ``mastersthesis`` (RIS ``M3``, CSL ``genre``).
MASTERS = "Master's thesis"
#: Fields whose value is written as the publisher when ``publisher`` is absent: the
#: publishing body of a report, thesis and manual in BibTeX (btxdoc, "BibTeXing", 1988).
PUBLISHER_FIELDS = ("publisher", "institution", "school", "organization")

#: A value taken for a citation key: a letter somewhere, no white space, none of the
#: characters BibTeX does not allow in a key (``,{}()"#%'=\\~``).
_KEY = re.compile(r"^(?=.*[A-Za-z])[^\s,{}()\"#%'=\\~]+$")
#: Links read as the code link: the repository hosts of ML papers.
_CODE_HOSTS = re.compile(
    r"(?i)^https?://(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org)/"
)
#: ``YYYY``, then optionally ``/MM`` or ``-MM`` (RIS ``PY``/``DA``, CSL ``raw`` dates).
_DATE = re.compile(r"^\s*(?P<year>\d{4})(?:[/-](?P<month>\d{1,2})?)?")


#: ASCII white space (``str.split()`` would also take the no-break space U+00A0).
_ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")


def one_line(text: str) -> str:
    """``text`` with every run of ASCII white space (newlines included) made one space,
    stripped. A no-break space (U+00A0, TeX's tie ``~``) is a character of the text,
    kept, so a title read back is the title written."""
    return _ASCII_SPACE.sub(" ", text).strip(" \t\n\r\f\v")


def looks_like_key(value: str) -> bool:
    """True when ``value`` can be a citation key (see ``_KEY``); an id such as
    ``"item 3"`` or a PubMed URL is not one."""
    return bool(_KEY.match(value))


def is_code_host(link: str) -> bool:
    """True for a link to github.com, gitlab.com, huggingface.co or bitbucket.org."""
    return bool(_CODE_HOSTS.match(link))


def is_masters(kind: str | None) -> bool:
    """True when a thesis kind (RIS ``M3``, CSL ``genre``) names a master's thesis."""
    return bool(kind) and "master" in (kind or "").casefold()


def year_month(text: str) -> tuple[int | None, int | None]:
    """Year and month of a date written ``YYYY[/-MM...]``; ``(None, None)`` without a year.

    A month outside 1..12 (CSL seasons 13..16, typos) is None.
    """
    match = _DATE.match(text)
    if match is None:
        return None, None
    month = int(match.group("month")) if match.group("month") else None
    return int(match.group("year")), month if month and 1 <= month <= 12 else None


_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WORDS = re.compile(r"[A-Za-z]+\.?|\d+")


def date_of(text: str) -> tuple[int | None, int | None, int | None]:
    """Year, month and day of a date written as people and tools write one.

    ``YYYY[/-MM[/-DD]]`` (RIS ``DA``, ISO 8601, CSL ``raw``) as :func:`year_month`
    reads it, else the words of the text: a four-digit number is the year, a month
    name or its abbreviation (``Feb``, ``Sept.``, ``february``) the month, a number
    1..31 next to it the day (``2024 Feb 21``, ``21 February 2024``). Parts not found
    are None; ``(None, None, None)`` without a year. Never raises.
    """
    year, month = year_month(text)
    if year is not None and month is not None:
        iso = re.match(r"^\s*\d{4}[/-]\d{1,2}[/-](\d{1,2})\b", text)
        day = int(iso.group(1)) if iso and month and 1 <= int(iso.group(1)) <= 31 else None
        return year, month, day
    words = _WORDS.findall(text)
    years = [w for w in words if w.isdigit() and len(w) == 4]
    if not years:
        return None, None, None
    named = [i for i, w in enumerate(words) if w[:3].casefold() in _MONTH_NAMES and w[0].isalpha()]
    if not named:
        return int(years[0]), None, None
    index = named[0]
    month = _MONTH_NAMES.index(words[index][:3].casefold()) + 1
    near = [words[j] for j in (index + 1, index - 1) if 0 <= j < len(words)]
    days = [int(w) for w in near if w.isdigit() and len(w) <= 2 and 1 <= int(w) <= 31]
    return int(years[0]), month, days[0] if days else None


def arxiv_abs_url(arxiv: str) -> str:
    """The arXiv abstract page of an id, as written for a record's arXiv id."""
    return f"https://arxiv.org/abs/{arxiv}"


def arxiv_link(link: str) -> tuple[str | None, bool]:
    """The arXiv id a link names, and whether the link is nothing but its abstract page.

    The id follows :func:`readinglist.identifiers.normalize_arxiv` for links
    :func:`readinglist.identifiers.is_arxiv_url` accepts (``abs``, ``pdf``, ``html``
    pages, any version); ``(None, False)`` for other links. Only the plain abstract
    page (``http(s)://arxiv.org/abs/ID``) is "just the id": a reader drops it as a URL,
    as :func:`arxiv_abs_url` gives it back on writing.
    """
    found = normalize_arxiv(link) if is_arxiv_url(link) else None
    if found is None:
        return None, False
    page = link.rstrip("/")
    return found, page in (arxiv_abs_url(found), f"http://arxiv.org/abs/{found}")


#: Fields kept from RIS, CSL-JSON and pasted lists under their own names: plain text
#: already, written back as they were read.
_FOREIGN_PREFIXES = ("ris_", "csl_", LIST_FIELD_PREFIX)


def plain_fields(record: PaperRecord) -> Mapping[str, str]:
    """The record's fields as the plain text RIS and CSL-JSON carry.

    A paper read from BibTeX keeps its fields as LaTeX (``PaperRecord.latex_fields``);
    here each value is decoded by the display rule of abstracts
    (:func:`readinglist.text.readable`) when a writer reads it, once: ``publisher =
    {Barnes {\\&} Noble}`` is written ``PB  - Barnes & Noble``, never the LaTeX, which a
    later import of that RIS would take as text and escape again. Fields kept from RIS,
    CSL-JSON or a pasted list (``ris_``, ``csl_``, ``list_``) and every field of a paper
    from any other source are plain text already and stay as they are. Decoding only
    what is read matters: a Beebe paper has twenty fields the writers never write, and
    decoding them all made the RIS export of 100,000 papers take 285 s. Never raises.
    """
    return _PlainFields(record.fields, record.latex_fields)


class _PlainFields(Mapping[str, str]):
    """The mapping :func:`plain_fields` returns: values decoded on first reading."""

    __slots__ = ("_decoded", "_fields", "_latex")

    def __init__(self, fields: Mapping[str, str], latex: bool) -> None:
        self._fields = fields
        self._latex = latex
        self._decoded: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        value = self._fields[name]
        if not self._latex or not value or name.startswith(_FOREIGN_PREFIXES):
            return value
        decoded = self._decoded.get(name)
        if decoded is None:
            decoded = self._decoded[name] = readable(value)
        return decoded

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        """``self[name]``, or ``default`` for a field the record lacks (without the
        KeyError that ``Mapping.get`` raises and catches: the writers ask for a dozen
        absent fields per paper)."""
        if name not in self._fields:
            return default
        return self[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)


#: A name written "Family Initials" (MEDLINE and PubMed ``Smith AM``, Embase RIS
#: ``Fanning E.``, ``van der Berg JH``): family words, then 1-4 capital initials, bare or
#: each with a period.
_INITIALS_NAME = re.compile(
    r"^(?P<family>[^\W\d_][\w'\u2019-]*(?:\s[\w'\u2019-]+){0,3})"
    r"\s(?:(?P<bare>[A-Z]{1,4})|(?P<dotted>(?:[A-Z]\.\s?){1,4}))$"
)


def initials_person(name: str, *, bare: bool = True) -> Person | None:
    """The person of a name written "Family Initials" without a comma, else None.

    ``Smith AM`` -> family ``Smith``, given ``A. M.``; ``Fanning E.`` -> ``Fanning``,
    ``E.``; ``van der Berg JH`` -> ``van der Berg``, ``J. H.``. PubMed's author lines and
    RIS names from Embase are written so; read as one literal name, ``Fanning E.`` did
    not match the same paper's ``Fanning, Eric`` from BibTeX, and an import made a
    duplicate. A name ending in another word (``WHO Collaborating Group``) gives None;
    so do bare initials (``Team B``, ``Google AI``: a corporate name as likely as a
    person) unless ``bare`` (a PubMed author line, where every name has this form).
    """
    match = _INITIALS_NAME.match(name.strip())
    if match is None or (match.group("bare") and not bare):
        return None
    letters = match.group("bare") or re.sub(r"[.\s]", "", match.group("dotted"))
    return Person(family=match.group("family"), given=" ".join(f"{c}." for c in letters))


def publisher_of(fields: Mapping[str, str]) -> str | None:
    """The first non-empty of :data:`PUBLISHER_FIELDS` in ``fields``, else None."""
    return next((fields[name] for name in PUBLISHER_FIELDS if fields.get(name)), None)


def keywords_of(record: PaperRecord, tags_as_keywords: bool) -> list[str]:
    """The record's keywords, followed (with ``tags_as_keywords``) by its tags not among them."""
    keywords = list(record.keywords)
    if tags_as_keywords:
        keywords.extend(tag for tag in record.tags if tag not in keywords)
    return keywords


def _names_a_paper(record: PaperRecord) -> bool:
    """A title, a DOI, an arXiv id or a web link (:func:`is_web_link`)."""
    return bool(record.title or record.doi or record.arxiv or is_web_link(record.url))


def without_empty(
    records: list[PaperRecord], problems: list[ParseProblem], source: str, what: str
) -> list[PaperRecord]:
    """The records of a RIS or CSL-JSON file that hold a paper: a title or an identifier
    (DOI, arXiv id, web link). Neither format requires a field (RIS spec: only ``TY``/``ER``;
    CSL-JSON schema: only ``id`` and ``type``), so a record without both carries nothing
    that names a paper: a JSON object of other data (``{"a": 1}``), a reference manager's
    blank record.

    Args:
        records: the records read, in order.
        problems: the reader's problems, extended here.
        source: the file name; ``what``: the format's word for a record (``item``).

    Returns:
        The records kept. When some hold a paper, each other one is left out with a
        warning at its line and one warning says how many and why; when none does, each
        is an error (the file is refused, nothing imported) and none is kept.
    """
    kept = [r for r in records if _names_a_paper(r)]
    if len(kept) == len(records):
        return records
    empty = [r for r in records if not _names_a_paper(r)]
    why = "no title and no identifier (DOI, arXiv id, URL)"
    severity: Severity = "warning" if kept else "error"
    action = "skipped" if kept else "not a reference"  # the import adds "rejected"
    for record in empty:
        problems.append(ParseProblem(f"{what} with {why}: {action}", source, record.line, severity))
    if kept:
        problems.append(
            ParseProblem(
                f"{len(empty)} of {len(records)} {what}s skipped: {why}", source, None, "warning"
            )
        )
    return kept
