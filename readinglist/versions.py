"""One work, several versions: is a record a preprint, a published version, or another work?

Pure rules on plain values (no database, no file format), used by the import merge,
``merge``, ``resolve``, ``duplicates``, the query language (``is:preprint``) and ``show``:

* :func:`is_preprint` / :func:`is_published`: the one predicate of each;
* :func:`same_person`, :func:`complete_people`: "Goldstein, R. A." and "Richard A.
  Goldstein" are one person; the fuller form and the longer (untruncated) list win;
* :func:`other_work`: why two records of one title are different works (an erratum, a
  review, another edition, a thesis and an article, a journal extension).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from readinglist.records import PaperRecord, Person
from readinglist.text import fold

#: The merge-history field (``merge_conflicts.field``) of a version a paper absorbed
#: (its value: ``kind`` "preprint" or "published", ``key``, ``venue``, ``year``,
#: ``where``); ``show`` lists them, ``merge --history`` and ``--take`` skip them.
VERSION_FIELD = "(version)"
#: The merge-history field marking a title the user set (``title``, ``edit``): a
#: published version never replaces it (its value: the title set).
USER_TITLE_FIELD = "(title set by you)"
#: A preprint may be dated up to this many years before its published version.
PREPRINT_YEARS = 2

#: Names of preprint servers: a venue (``journal``, ``booktitle``, ``howpublished``,
#: ``publisher``) that is one of them, or starts with one followed by a space or
#: punctuation, names a preprint, not a publication: Google Scholar's "arXiv preprint
#: arXiv:1602.01234", arXiv's "arXiv e-prints", DBLP's "CoRR", bioRxiv, SSRN ...
#: (``query.compiler`` turns the same rule into SQL for ``is:preprint``).
PREPRINT_SERVERS: tuple[str, ...] = (
    "arxiv",
    "corr",
    "biorxiv",
    "medrxiv",
    "chemrxiv",
    "psyarxiv",
    "techrxiv",
    "ssrn",
    "research square",
    "osf preprints",
    "preprints.org",
    "eprint arxiv",
)
#: What may follow a server's name in such a venue.
SERVER_SEPARATORS: tuple[str, ...] = (" ", ",", ":", ".", "/")
#: The DOI prefix arXiv registers its papers under (DataCite; https://info.arxiv.org/help/doi.html).
ARXIV_DOI_PREFIX = "10.48550/"
#: Entry types of versions that are not (yet) published.
PREPRINT_TYPES = frozenset({"misc", "unpublished", "online", "preprint", "report", "techreport"})
#: Entry types never published by themselves (no venue makes them so).
UNPUBLISHED_TYPES = frozenset({"unpublished", "online", "preprint"})
#: Entry types published by a publisher or school alone (no venue).
BOOK_TYPES = frozenset({"book", "inbook", "incollection", "phdthesis", "mastersthesis", "thesis"})
#: Fields naming a book's publisher (or a thesis's school).
PUBLISHER_FIELDS: tuple[str, ...] = ("publisher", "school", "institution")
#: ``fields`` that place a record in a publication (besides its venue).
PLACEMENT: tuple[str, ...] = ("pages", "volume", "number", "issue", "articleno", "eid")


def is_preprint_venue(venue: str | None) -> bool:
    """True when ``venue`` names a preprint server (:data:`PREPRINT_SERVERS`): "arXiv
    preprint arXiv:X", "CoRR abs/X", "bioRxiv", "SSRN" ..., not a journal or proceedings."""
    if not venue:
        return False
    text = " ".join(fold(venue).split())
    return any(
        text == name or text.startswith(tuple(name + sep for sep in SERVER_SEPARATORS))
        for name in PREPRINT_SERVERS
    )


def is_published(
    entry_type: str | None,
    venue: str | None,
    fields: Mapping[str, str],
    doi: str | None,
) -> bool:
    """True when a record is a published version: a venue that is no preprint server
    (and a type other than :data:`UNPUBLISHED_TYPES`) together with pages, a volume or
    number (:data:`PLACEMENT`) or a DOI that is not arXiv's; or a book or thesis
    (:data:`BOOK_TYPES`) with a publisher or school that is no preprint server.

    Args:
        entry_type: the lower-case BibTeX entry type.
        venue: the journal or proceedings title (the ``venue`` column).
        fields: the record's other fields (lower-case names).
        doi: the normalized DOI (lower case, no resolver).
    """
    kind = (entry_type or "misc").lower()
    if kind in BOOK_TYPES and any(
        fields.get(n) and not is_preprint_venue(fields[n]) for n in PUBLISHER_FIELDS
    ):
        return True
    if not venue or is_preprint_venue(venue) or kind in UNPUBLISHED_TYPES:
        return False
    if doi and not doi.lower().startswith(ARXIV_DOI_PREFIX):
        return True
    return any(fields.get(name) for name in PLACEMENT)


def is_preprint(
    entry_type: str | None,
    venue: str | None,
    fields: Mapping[str, str],
    doi: str | None,
    arxiv: str | None,
) -> bool:
    """True when a record is a preprint and not (also) a published version
    (:func:`is_published`): it carries an arXiv id or arXiv DOI, a venue or
    ``howpublished`` naming a preprint server, a preprint server as the publisher of a
    :data:`PREPRINT_TYPES` entry, or is ``@misc``/``@unpublished`` with an ``eprint``.
    A paper that absorbed its published version keeps its arXiv id and is no preprint.
    """
    if is_published(entry_type, venue, fields, doi):
        return False
    kind = (entry_type or "misc").lower()
    return bool(
        arxiv
        or (doi and doi.lower().startswith(ARXIV_DOI_PREFIX))
        or is_preprint_venue(venue)
        or is_preprint_venue(fields.get("howpublished"))
        or (kind in PREPRINT_TYPES and is_preprint_venue(fields.get("publisher")))
        or (kind in ("misc", "unpublished") and fields.get("eprint"))
    )


# --- people ---------------------------------------------------------------------------------

_GIVEN_PARTS = re.compile(r"[^\W\d_]+", re.UNICODE)


def _given_parts(given: str) -> list[str]:
    return [fold(p) for p in _GIVEN_PARTS.findall(given) if p]


def _family(person: Person) -> str:
    return fold(f"{person.von} {person.family}".strip() or person.literal).replace("-", " ")


def same_person(a: Person, b: Person) -> bool:
    """True when ``a`` and ``b`` name one person: the same family name (von part and
    accents folded) and given names that agree, a word with its initial ("R." and
    "Richard"), a missing middle name allowed ("R." and "Richard A.")."""
    if a.is_others or b.is_others:
        return False
    if _family(a) != _family(b) or not _family(a):
        return False
    pa, pb = _given_parts(a.given), _given_parts(b.given)
    for x, y in zip(pa, pb, strict=False):
        if len(x) > 1 and len(y) > 1:
            if x != y:
                return False
        elif x[0] != y[0]:
            return False
    return True


def _fullness(person: Person) -> tuple[int, int]:
    parts = _given_parts(person.given)
    return (sum(1 for p in parts if len(p) > 1), len(person.given))


def truncated(people: Sequence[Person]) -> bool:
    """True when a name list ends in ``and others`` (a truncated list)."""
    return bool(people) and people[-1].is_others


def people_agree(have: Sequence[Person], new: Sequence[Person]) -> bool:
    """True when two author lists are one list: the same people (:func:`same_person`)
    in the same order, one of them possibly cut short with ``and others``."""
    a = [p for p in have if not p.is_others]
    b = [p for p in new if not p.is_others]
    if not a or not b:
        return False
    if len(a) != len(b):
        shorter = a if len(a) < len(b) else b
        cut = have if shorter is a else new
        if not truncated(cut):
            return False
    return all(same_person(x, y) for x, y in zip(a, b, strict=False))


def _name_key(person: Person) -> str:
    """The family name (or literal) as letters only: "St-Denis", "St.-Denis" -> "stdenis"."""
    return "".join(_GIVEN_PARTS.findall(_family(person)))


class NamesDiffer(str):
    """A reason from the author lists that two look-alike records are two works
    (:func:`authors_conflict`): an import never merges them, ``duplicates`` offers the
    pair (a name written two ways, "Jon" and "Jonathan", is for a person to judge)."""


def authors_conflict(have: Sequence[Person], new: Sequence[Person]) -> NamesDiffer | None:
    """Why two author lists cannot be the authors of one work, or None.

    Following JabRef's DuplicateCheck (authors compared with their given-name initials):
    the first authors share a family name but not the person (:func:`same_person`:
    "Wang, Wei" and "Wang, Yan", "Smith, Jane" and "Smith, John"; "W." and "Wei", or a
    missing given name, agree); or both lists name two or more people and no co-author
    after the first has a family name (letters only) found in the other list's co-authors.
    A list cut to one person with ``and others``, or empty, is no evidence.
    """
    a = [p for p in have if not p.is_others]
    b = [p for p in new if not p.is_others]
    if not a or not b:
        return None
    if _name_key(a[0]) == _name_key(b[0]) and not same_person(a[0], b[0]):
        return NamesDiffer(f"different first authors ({a[0].display()} vs {b[0].display()})")
    shared = {_name_key(p) for p in a[1:]} & {_name_key(p) for p in b[1:]}
    if len(a) >= 2 and len(b) >= 2 and not shared:
        return NamesDiffer("no co-author in common")
    return None


def complete_people(have: Sequence[Person], new: Sequence[Person]) -> tuple[Person, ...] | None:
    """The one list two agreeing author lists (:func:`people_agree`) make: the longer
    list's order and count (an untruncated list beats an ``and others`` one of the same
    length), each person in the fuller of the two forms ("Richard A." over "R. A.").
    None when the lists do not agree."""
    if not people_agree(have, new):
        return None
    a = [p for p in have if not p.is_others]
    b = [p for p in new if not p.is_others]
    if len(b) > len(a) or (len(b) == len(a) and not truncated(new)):
        base, other, cut = b, a, truncated(new)
    else:
        base, other, cut = a, b, truncated(have)
    out = [
        other[i] if i < len(other) and _fullness(other[i]) > _fullness(person) else person
        for i, person in enumerate(base)
    ]
    if cut:
        out.append(Person(literal="others"))
    return tuple(out)


# --- different works of one title ---------------------------------------------------------

#: Title openings of a work *about* another work: errata, corrections, comments,
#: replies, retractions, reviews ("Erratum to ...", "Correction: ...", "Reply to ...").
_ABOUT = re.compile(
    r"^\s*(?:erratum|errata|corrigendum|correction|addendum|retraction|retracted|"
    r"expression of concern|comments?|reply|response|rejoinder|discussion|review|"
    r"book review|a review)\b\s*(?:to|of|on|for|:|-|—)?",
    re.IGNORECASE,
)
#: Entry types of theses.
THESES = frozenset({"phdthesis", "mastersthesis", "thesis"})
#: Entry types of technical reports.
REPORTS = frozenset({"techreport", "report"})
#: Entry types of conference papers and of journal articles.
CONFERENCE = frozenset({"inproceedings", "conference"})


def about_other_work(title: str | None) -> bool:
    """True when ``title`` names a work about another one (an erratum, a correction,
    a comment, a reply, a retraction, a review)."""
    return bool(title) and bool(_ABOUT.match(title or ""))


_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_WORD_NUMBERS = {
    w: n
    for n, words in enumerate(
        [("one", "first"), ("two", "second"), ("three", "third"), ("four", "fourth")], 1
    )
    for w in words
}
#: A numbered part of a work named in its title: "Part I", "Part 2", "Vol. 3",
#: "Volume II", "Book Two", "Chapter 4", "Task 5", "Lecture 1", "No. 7".
_PART = re.compile(
    r"\b(part|vol|volume|book|chapter|task|lecture|episode|no|number)\.?\s*"
    r"(\d{1,3}|[ivxlc]{1,6}|one|two|three|four|first|second|third|fourth)\b",
)
#: A sequel numeral ending a title or its main title: "Reasoning about Action I: ...".
_SEQUEL = re.compile(r"\s(\d{1,2}|[IVX]{1,5})\s*(?::|\.(?:\s|$)|$)")


def _numeral(text: str) -> int | None:
    word = text.lower()
    if word.isdigit():
        return int(word)
    if word in _WORD_NUMBERS:
        return _WORD_NUMBERS[word]
    values = [_ROMAN[c] for c in word]
    total = sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0], strict=True))
    return total if total > 0 else None


def title_parts(title: str | None) -> dict[str, int]:
    """The numbered parts a title names (marker -> number, roman, arabic and spelled
    numerals alike): "Graphs, Part II: Applications" -> {"part": 2, "": 2}; the marker
    "" is a numeral ending the title or its main title ("Reasoning about Action I: ...")."""
    if not title:
        return {}
    plain = title.replace("{", "").replace("}", "")
    parts: dict[str, int] = {}
    for marker, numeral in _PART.findall(fold(plain)):
        number = _numeral(numeral)
        if number is not None:
            parts.setdefault("vol" if marker == "volume" else marker, number)
    sequel = _SEQUEL.search(plain)
    if sequel and (number := _numeral(sequel.group(1))) is not None:
        parts[""] = number
    return parts


def parts_conflict(a: str | None, b: str | None) -> str | None:
    """The part both titles number differently ("part 1 vs 2"), else None:
    "..., Part I: Foundations" and "..., Part II: Applications" are two works however
    alike the rest of the titles and the abstracts are. A title naming no part is no
    evidence."""
    pa, pb = title_parts(a), title_parts(b)
    for marker in sorted(pa.keys() & pb.keys(), reverse=True):  # a named marker first
        if pa[marker] != pb[marker]:
            return f"{marker or 'number'} {pa[marker]} vs {pb[marker]}"
    return None


@dataclass(frozen=True)
class Version:
    """What the version rules read of a record or a paper (plain values)."""

    entry_type: str | None = None
    venue: str | None = None
    fields: Mapping[str, str] = field(default_factory=dict)
    doi: str | None = None
    arxiv: str | None = None
    title: str | None = None
    year: int | None = None

    @classmethod
    def of_record(cls, record: PaperRecord) -> Version:
        """The version values of an incoming record."""
        return cls(
            record.entry_type,
            record.venue,
            record.fields,
            record.doi,
            record.arxiv,
            None if record.title_provisional else record.title,
            record.year,
        )

    @classmethod
    def of_values(cls, values: Mapping[str, Any]) -> Version:
        """The version values of a paper's columns (``merging.paper_values`` or an
        import's insert row: ``entry_type``, ``venue``, ``fields``, ``doi`` ...)."""
        return cls(
            values.get("entry_type"),
            values.get("venue"),
            values.get("fields") or {},
            values.get("doi"),
            values.get("arxiv"),
            None if values.get("title_provisional") else values.get("title"),
            values.get("year"),
        )

    def describe(self, key: str | None, where: str) -> dict[str, Any]:
        """The :data:`VERSION_FIELD` value of this version (its key, venue or arXiv id,
        year, and ``where`` it came from: a file and line)."""
        kind = "preprint" if self.preprint else "published"
        venue = self.venue or (f"arXiv:{self.arxiv}" if self.arxiv else None)
        return {"kind": kind, "key": key, "venue": venue, "year": self.year, "where": where}

    @property
    def preprint(self) -> bool:
        """:func:`is_preprint` of these values."""
        return is_preprint(self.entry_type, self.venue, self.fields, self.doi, self.arxiv)

    @property
    def published(self) -> bool:
        """:func:`is_published` of these values."""
        return is_published(self.entry_type, self.venue, self.fields, self.doi)


class OtherWork(str):
    """A reason two look-alike records are different works (:func:`other_work`): they
    may be listed as related versions (``duplicates``), never merged."""


def other_work(a: Version, b: Version) -> str | None:
    """Why two records that look alike are different works, or None.

    One is an erratum, correction, comment, reply, retraction or review and the other
    not (:func:`about_other_work`; both titles known: a provisional title made up from
    an abstract is no evidence); numbered parts (:func:`parts_conflict`: Part I and
    Part II); other editions (``edition`` or ISBN differ: the ISBN standard gives each
    edition its own); a thesis and an article; a technical report (:data:`REPORTS`) and
    a published version (:func:`is_published`: JabRef and Zotero never join entries of
    two types); a journal article and a conference paper of different years (a journal
    extension). A preprint is never another work of its published version.
    """
    if a.title and b.title and about_other_work(a.title) != about_other_work(b.title):
        return OtherWork("one is an erratum, correction, comment, reply or review of the other")
    if (clash := parts_conflict(a.title, b.title)) is not None:
        return OtherWork(f"titles of different parts ({clash})")
    for name, label in (("edition", "editions"), ("isbn", "ISBNs")):
        va, vb = a.fields.get(name), b.fields.get(name)
        if va and vb and _edition(va) != _edition(vb):
            return OtherWork(f"different {label} ({va} vs {vb})")
    if a.preprint or b.preprint:
        return None
    ta, tb = (a.entry_type or "misc").lower(), (b.entry_type or "misc").lower()
    if (ta in THESES) != (tb in THESES) and "misc" not in (ta, tb):
        return OtherWork("a thesis and another publication")
    if (ta in REPORTS) != (tb in REPORTS) and (b.published if ta in REPORTS else a.published):
        return OtherWork("a technical report and a published version")
    if (
        {ta, tb} & CONFERENCE
        and "article" in (ta, tb)
        and a.year is not None
        and b.year is not None
        and a.year != b.year
    ):
        return OtherWork("a journal version and a conference paper of other years")
    return None


def _edition(value: str) -> str:
    return re.sub(r"[^0-9a-z]", "", fold(value)).removesuffix("ed").removesuffix("edition")
