"""The abstracts reader's PubMed records: numbered citations as PubMed prints them (:func:`read_pubmed`).

PubMed's "Abstract" text format (Save / Send to, format "Abstract"; also what a
search page pastes as) numbers each record and starts it with its citation::

    1. Nat Commun. 2020 Mar 2;11(1):1234. doi: 10.1038/s41467-020-15000-1.

    Deep learning predicts protein stability.

    Smith J(1), Doe A(2).

    Author information:
    (1)Department of ...

    Protein stability is central to design. We ...

    PMID: 32123456

Pasted into one line per record, the same pieces follow each other as sentences
(``1. Journal. 2020;12:34. Title. Authors. Abstract ... PMID: 1``). Each record
(a numbered citation up to the next one) gives exactly one paper: title, authors
("Family Initials" -> given names as initials), journal as venue, year, month,
volume, issue, pages, DOI, PMID and PMCID; the abstract is the text between the
author line (and "Author information") and the record's trailing ``DOI:``/``PMID:``
lines or copyright line. Layout rules after PubMed's own output; no library reads it.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field

from readinglist.formats.rules import initials_person
from readinglist.identifiers import normalize_doi
from readinglist.records import PaperRecord, Person
from readinglist.text import latex_to_unicode

#: The start of a record: number, journal abbreviation, then the year of its citation.
_START = re.compile(
    r"^(?P<num>\d{1,6})\.\s+(?P<journal>[^.\n]{2,200}?)\.\s+(?P<year>(?:1[89]|20)\d\d)\b", re.M
)
_PMID = re.compile(r"\bPMID:\s*(\d{1,9})")
_PMCID = re.compile(r"\bPMCID:\s*(PMC\d+)")
_DOI = re.compile(r"\bdoi:\s*(10\.\S+?)\.?(?=\s|$)", re.I)
#: The citation after the year: "2020 Mar 2;11(1):1234." then optional "doi: ..." and "Epub ...".
_CITATION = re.compile(
    r"^(?P<date>[^;:.\n]*)(?:;(?P<volume>[^(:.\s]*)(?:\((?P<issue>[^)]*)\))?)?(?::(?P<pages>[^\s.]+))?\."
    r"(?:\s+doi:\s*10\.\S+?\.(?=\s|$))?(?:\s+Epub[^.]*\.)?(?:\s+Print[^.]*\.)?"
)
#: One author as PubMed writes them: family name words, then initials ("van der Berg JH").
_AUTHOR = r"[^\W\d_][\w'\u2019-]*(?:\s[\w'\u2019-]+){0,3}\s[A-Z]{1,4}(?:\(\d+(?:,\d+)*\))?"
#: A group author after the people ("Smith J, Doe A; COVID-19 Genomics UK Consortium.").
_GROUP = r";\s(?P<group>[^;.\n]{2,200})"
_AUTHORS = re.compile(rf"{_AUTHOR}(?:,\s{_AUTHOR})*(?:{_GROUP})?\.")
#: Paragraphs (or sentences) that end the abstract: identifiers, copyright, disclosures.
_TRAILER = re.compile(
    r"^(?:DOI:|PMID:|PMCID:|\u00a9|Copyright|Conflict of interest|Erratum in|Comment in|"
    r"Update of|Retraction in|Keywords:)",
    re.I,
)
_SKIPPED = re.compile(
    r"^(?:Author information:|Collaborators:|Comment (?:in|on)\b|Erratum in|Update of)"
)


def looks_like_pubmed(text: str) -> bool:
    """True when ``text`` is a list of PubMed records: numbered citations each with a ``PMID:``."""
    starts = len(_START.findall(text))
    return starts > 0 and len(_PMID.findall(text)) >= max(1, starts // 2 + starts % 2)


@dataclass
class PubmedRecord:
    """One PubMed record's pieces, before it becomes a :class:`PaperRecord`."""

    line: int
    head: str  # the citation: "Nat Commun. 2020 Mar 2;11(1):1234. doi: ..."
    body: list[str] = field(default_factory=list)  # the paragraphs after the citation


def read_pubmed(text: str) -> list[PaperRecord]:
    """Read every PubMed record of ``text`` (see the module docstring), one paper each.

    Input: the whole list (LF line ends). Output: the papers in file order, with
    ``line`` the record's first line; a record's text before the first record (a
    header) is left out. Never raises.
    """
    starts = list(_START.finditer(text))
    papers = []
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        chunk = text[match.start() : end].strip()
        paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", chunk) if p.strip()]
        line = text.count("\n", 0, match.start()) + 1
        papers.append(_paper(match, paragraphs, line))
    return papers


def _paper(start: re.Match[str], paragraphs: list[str], line: int) -> PaperRecord:
    """Build the paper of one record from its paragraphs (the first holds the citation)."""
    first = paragraphs[0][start.end() - start.start() :]
    citation = _CITATION.match(first)
    if len(paragraphs) > 1:  # printed layout: the first paragraph is the citation alone
        body = paragraphs[1:]
    else:
        rest = first[citation.end() :].strip() if citation else first
        body = [rest] if rest else []
    whole = " ".join(paragraphs)
    title, authors, abstract = _split_body(body)
    fields: dict[str, str] = {}
    if citation:
        for name, group in (("volume", "volume"), ("number", "issue"), ("pages", "pages")):
            if citation.group(group):
                fields[name] = citation.group(group).replace("-", "--")
    for name, pattern in (("pmid", _PMID), ("pmcid", _PMCID)):
        found = pattern.search(whole)
        if found:
            fields[name] = found.group(1)
    doi = _DOI.search(whole)
    return PaperRecord(
        entry_type="article",
        title=latex_to_unicode(title) if title else "Untitled",
        authors=authors,
        year=int(start.group("year")),
        month=_month(citation.group("date") if citation else ""),
        venue=start.group("journal").strip(),
        abstract=abstract,
        doi=normalize_doi(doi.group(1)) if doi else None,
        fields=fields,
        line=line,
        latex_fields=False,
    )


def _split_body(body: list[str]) -> tuple[str | None, tuple[Person, ...], str | None]:
    """Title, authors and abstract of a record's text after its citation.

    Paragraphs (the printed layout) are taken in order: title, author line, skipped
    paragraphs ("Author information: ..."), abstract paragraphs up to a trailer.
    One paragraph alone (the pasted one-line layout) is cut at its author sentence.
    """
    if len(body) == 1:
        body = _sentences_of_one_line(body[0])
    title = body[0].rstrip(".") if body else None
    index = 1
    authors: tuple[Person, ...] = ()
    if index < len(body) and _AUTHORS.fullmatch(body[index]):
        authors = _people(body[index])
        index += 1
    abstract: list[str] = []
    for paragraph in body[index:]:
        if _TRAILER.match(paragraph):
            break
        if not _SKIPPED.match(paragraph) and not re.match(r"\(\d+\)", paragraph):
            abstract.append(_PMID.split(paragraph)[0].strip())
    text = "\n\n".join(p for p in abstract if p)
    return title, authors, text or None


def _sentences_of_one_line(text: str) -> list[str]:
    """Cut a one-line record into title, author sentence and the rest (see :func:`_split_body`)."""
    for match in re.finditer(r"(?<=\.)\s+", text):
        after = text[match.end() :]
        authors = _AUTHORS.match(after)
        if authors and (authors.end() == len(after) or after[authors.end()] == " "):
            rest = after[authors.end() :].strip()
            trailer = re.search(r"\s(?:PMID|PMCID|DOI):|\s\u00a9|\sCopyright\b", " " + rest)
            abstract = rest[: trailer.start()].strip() if trailer else rest
            return [text[: match.start()], authors.group(0), abstract]
    return [text]


def _people(line: str) -> tuple[Person, ...]:
    """People of a PubMed author line: "Smith J, Pérez AM." -> family Smith, given "J."; a
    group author after ``;`` ("...; CMS Collaboration.") is one literal name."""
    people = []
    names, _, group = line.rstrip(".").partition("; ")
    for name in names.split(", "):
        name = re.sub(r"\(\d+(?:,\d+)*\)", "", name).strip()
        family, _, initials = name.rpartition(" ")
        given = " ".join(f"{letter}." for letter in initials)
        people.append(initials_person(name) or Person(family=family, given=given))
    if group.strip():
        people.append(Person(literal=group.strip()))
    return tuple(people)


def _month(date: str) -> int | None:
    """The month of a citation date ("2020 Mar 2", "2021 Jan-Feb"), or None."""
    found = re.search(r"\b([A-Z][a-z]{2})\b", date)
    abbreviations = list(calendar.month_abbr)
    return (
        abbreviations.index(found.group(1)) if found and found.group(1) in abbreviations else None
    )
