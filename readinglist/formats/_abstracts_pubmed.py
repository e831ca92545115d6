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
    """True when ``text`` is a list of PubMed records: numbered citations each with a
    ``PMID:`` ("Abstract" format), or numbered titles each with an author line, a
    citation line and a ``PMID:`` ("Summary" format, :func:`_summary_records`)."""
    starts = len(_START.findall(text))
    if starts > 0 and len(_PMID.findall(text)) >= max(1, starts // 2 + starts % 2):
        return True
    return bool(_summary_records(text))


#: PubMed's "Summary" format (the search results page pasted, or Save as "Summary
#: (text)"): a numbered title, the author line, the citation line, then ``PMID:``::
#:
#:     1. Deep learning predicts protein stability.
#:     Smith J, Doe A.
#:     Nat Commun. 2020 Mar 2;11(1):1234. doi: 10.1038/s41467-020-15000-1.
#:     PMID: 32123456 Free PMC article.
#: The labels of PubMed's results page between records (pasted with them), not text.
_PAGE_LABELS = re.compile(
    r"^(?:Free (?:PMC )?article|Review|Similar articles|Cite|Share|Item in Clipboard|"
    r"Clinical Trial|Meta-Analysis|Systematic Review|Comment|Erratum)\.?$",
    re.I,
)
_SUMMARY_START = re.compile(r"^(\d{1,6})\.\s+(?=\S)", re.M)
_CITATION_LINE = re.compile(r"^(?P<journal>[^.\n]{2,200}?)\.\s+(?P<year>(?:1[89]|20)\d\d)\b")


def _summary_records(text: str) -> list[tuple[int, list[str]]]:
    """The records of a "Summary" list: ``(first line, lines without the number)``,
    numbered 1, 2, 3 ... in order (a number inside a title is no record); empty unless
    every record has an author line, a citation line after it and a ``PMID:``."""
    starts, expected = [], None
    for match in _SUMMARY_START.finditer(text):
        number = int(match.group(1))
        if expected is None or number == expected:
            starts.append(match)
            expected = number + 1
    records = []
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        lines = [" ".join(line.split()) for line in text[match.end() : end].split("\n")]
        lines = [line for line in lines if line]
        if _summary_parts(lines) is None or not _PMID.search(text, match.start(), end):
            return []
        records.append((text.count("\n", 0, match.start()) + 1, lines))
    return records


def _summary_parts(lines: list[str]) -> tuple[int, int] | None:
    """``(author line index, citation line index)`` of one "Summary" record, or None."""
    for index in range(1, len(lines) - 1):
        if _AUTHORS.fullmatch(lines[index]) and _CITATION_LINE.match(lines[index + 1]):
            return index, index + 1
    return None


def _summary_paper(line: int, lines: list[str]) -> PaperRecord:
    """The paper of one "Summary" record (:func:`_summary_records`)."""
    parts = _summary_parts(lines)
    assert parts is not None
    authors_at, cited_at = parts
    cited = _CITATION_LINE.match(lines[cited_at])
    assert cited is not None
    citation = _CITATION.match(lines[cited_at][cited.end() :])
    rest = []
    for text in lines[cited_at + 1 :]:
        if _TRAILER.match(text):
            break
        if not _PAGE_LABELS.match(text):
            rest.append(text)
    whole = " ".join(lines)
    return _record(
        title=" ".join(lines[:authors_at]).rstrip("."),
        authors=_people(lines[authors_at]),
        journal=cited.group("journal"),
        year=int(cited.group("year")),
        citation=citation,
        abstract=" ".join(rest) or None,
        whole=whole,
        line=line,
    )


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
    summary = _summary_records(text) if not starts else []
    if summary:
        return [_summary_paper(line, lines) for line, lines in summary]
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
    title, authors, abstract = _split_body(body)
    return _record(
        title=title,
        authors=authors,
        journal=start.group("journal"),
        year=int(start.group("year")),
        citation=citation,
        abstract=abstract,
        whole=" ".join(paragraphs),
        line=line,
    )


def _record(
    *,
    title: str | None,
    authors: tuple[Person, ...],
    journal: str,
    year: int,
    citation: re.Match[str] | None,
    abstract: str | None,
    whole: str,
    line: int,
) -> PaperRecord:
    """A PubMed record's paper: the citation's volume, issue, pages and date, and the
    PMID, PMCID and DOI found anywhere in the record's text ``whole``."""
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
        year=year,
        month=_month(citation.group("date") if citation else ""),
        venue=journal.strip(),
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
