"""The interchange types between formats and the library: plain frozen dataclasses.

Formats (``readinglist.formats.*``) read text into :class:`PaperRecord` values and
write records back to text; the library turns records into rows and rows into
records. Nothing here touches files, the database or third-party packages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from typing import Literal, NamedTuple, Protocol

#: Read status values, in triage order (ARCHITECTURE.md "Data model").
STATUSES: tuple[str, ...] = ("new", "to-read", "reading", "read", "skipped")
#: The statuses in which a reader *wants* a paper: decided for reading, being read or
#: read; not ``new`` (undecided) nor ``skipped``. The one definition: the interest
#: model's positives, ``stats``' stopping aid, ``wanted-by:N`` and "2 of 5 want it".
WANTED_STATUSES: tuple[str, ...] = ("to-read", "reading", "read")
#: Priority levels, highest first; ``None`` means no priority.
PRIORITIES: tuple[str, ...] = ("high", "medium", "low")
#: Priority words a user may give (``mark --priority``, ``priority:`` in queries):
#: the levels plus ``none`` for "no priority". The one home of the vocabulary.
PRIORITY_LEVELS: tuple[str, ...] = (*PRIORITIES, "none")
#: Priority levels stored as small integers so that ``ORDER BY priority`` is high-first
#: (``papers.priority``; ``readinglist.models`` and ``readinglist.counting`` read them).
PRIORITY_CODES: dict[str, int] = {name: code for code, name in enumerate(PRIORITIES, start=1)}
PRIORITY_NAMES: dict[int, str] = {code: name for name, code in PRIORITY_CODES.items()}

Severity = Literal["error", "warning"]

#: Paper columns (``PaperRecord`` names) a merge fills when the paper's value is missing
#: (one rule for the import merge, ``merge`` and ``resolve``: ``library.merging``).
#: Besides these a merge fills ``authors``, ``editors`` (:data:`PEOPLE`), the entry type
#: and every field of ``PaperRecord.fields`` the paper lacks (pages, volume, number,
#: publisher, series, address, ISSN, note, file links ...).
FILLABLE: tuple[str, ...] = (
    "title",
    "short_name",
    "year",
    "month",
    "venue",
    "abstract",
    "doi",
    "arxiv",
    "url",
    "code_url",
    "keywords",
)

#: The people lists of a record, filled by a merge when the paper has none.
PEOPLE: tuple[str, ...] = ("authors", "editors")

#: Columns a merge takes from the source, replacing the paper's, when the paper's data
#: was made up (a provisional title: the paper came from a list of abstracts). The
#: venue of such a list is its header's short name ("ICML"); the bibliography's is the
#: full one; an abstract pasted from a web page yields to the published one. The
#: replaced value is kept in the merge history (``merge --take`` gives it back).
REPLACED_WHEN_PROVISIONAL: tuple[str, ...] = ("venue", "month", "url", "abstract")

#: ``PaperRecord.fields`` names that hold the raw (LaTeX) form of a column's value: they
#: travel with the column (taken from a source only when the column's value is).
COLUMN_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("title",),
    "authors": ("author",),
    "editors": ("editor",),
    "year": ("year", "date"),
    "month": ("month",),
    "venue": ("booktitle", "journal", "journaltitle"),
    "doi": ("doi",),
    "arxiv": ("eprint", "archiveprefix", "eprinttype", "primaryclass", "arxiv", "arxivid"),
    "url": ("url",),
    "keywords": ("keywords",),
    "abstract": ("abstract",),
}

#: Bibliographic fields ``edit`` compares and writes (``PaperRecord`` names;
#: ``library.papers.update_paper``).
EDITABLE: tuple[str, ...] = (
    "entry_type",
    "title",
    "short_name",
    "authors",
    "editors",
    "year",
    "month",
    "venue",
    "abstract",
    "doi",
    "arxiv",
    "url",
    "code_url",
    "keywords",
    "fields",
)


#: A name that stands for "and others" in RIS and CSL-JSON name lists (``others``,
#: ``et al.``, any case): punctuation and spaces folded away before comparing.
_ET_AL_FORMS = frozenset({"others", "etal"})


def names_others(name: str) -> bool:
    """True when one name of a list is the "et al." of a truncated list, not a person.

    BibTeX writes it ``and others`` (its reader applies the same rule to the name list,
    ``formats.bibtex.reader``); RIS (``AU  - others``, ``AU  - et al.``) and CSL-JSON
    (``{"literal": "et al."}``) give it as one name. A reader gives
    ``Person(literal="others")`` (:attr:`Person.is_others`) for such a name, so no person
    named "others" is made. Never raises.
    """
    return "".join(ch for ch in name.casefold() if ch.isalpha()) in _ET_AL_FORMS


def named_people(people: Sequence[Person]) -> tuple[tuple[Person, ...], bool]:
    """``(the people of a name list without its "et al." mark, whether it has one)``:
    "and others" is a flag of the list (:attr:`Person.is_others`), never a person, in
    every output that has no ``and others`` of its own (JSON, RIS, CSL-JSON, ``show``).
    """
    named = tuple(person for person in people if not person.is_others)
    return named, len(named) != len(people)


@dataclass(frozen=True)
class Person:
    """One author or editor, split into the four name parts BibTeX defines.

    The parts follow "Tame the BeaST" section 11 / BibTeX's ``bibtex.web`` name
    rules: ``von`` ("van der", "de"), ``family`` (last), ``jr`` ("Jr.", "III")
    and ``given`` (first). A corporate name ("{European Space Agency}") is kept
    whole in ``literal`` with the other parts empty. ``literal == "others"``
    stands for BibTeX's ``and others``. All parts are Unicode (LaTeX decoded).
    """

    family: str = ""
    given: str = ""
    von: str = ""
    jr: str = ""
    literal: str = ""

    @property
    def is_others(self) -> bool:
        """True for the ``and others`` marker of a truncated name list."""
        return self.literal == "others"

    def display(self) -> str:
        """Return ``"von Family, Jr, Given"`` as BibTeX's ``{vv~}{ll}{, jj}{, ff}`` orders it.

        A literal (corporate) name is returned as it is; ``others`` gives ``"others"``.
        """
        return self._display

    @cached_property
    def _display(self) -> str:
        # Kept on the instance: a reader gives one Person per distinct name (cached), and
        # an import asks for each occurrence's form twice (the raw-list check and the
        # search text: 168,000 calls for the ACL 10k slice's 19,000 people, issue 17).
        if self.literal:
            return self.literal
        last = f"{self.von} {self.family}".strip()
        parts = [last]
        if self.jr:
            parts.append(self.jr)
        if self.given:
            parts.append(self.given)
        return ", ".join(parts)

    def short(self) -> str:
        """Return the name as cited in a list: ``"von Family"`` or the literal."""
        if self.literal:
            return self.literal
        return f"{self.von} {self.family}".strip()


@dataclass(frozen=True)
class NoteRecord:
    """A Markdown note attached to a paper, with UTC creation/update times (may be None)."""

    text: str
    created: datetime | None = None
    updated: datetime | None = None


@dataclass(frozen=True, slots=True)
class PaperRecord:
    """One paper as formats read and write it.

    Bibliographic data:
        citekey: citation key, or None to have the library generate one.
        entry_type: lower-case BibTeX entry type (``article``, ``inproceedings`` ...).
        title: Unicode title (LaTeX decoded) or None.
        title_provisional: True when the title was made up by an importer from the
            abstract rather than given by the source.
        citekey_provisional: True when the citation key was generated while the
            paper was provisional (a later source with real data brings a real key);
            written and read back by every format (:func:`provisional_marks`).
        short_name: the named contribution (method, model, dataset ...) or None.
        authors, editors: ordered people.
        year: four-digit year or None. month: 1..12 or None.
        venue: booktitle / journal / conference name, Unicode.
        abstract: as given by the source (LaTeX and Markdown kept as they are).
        doi: normalized DOI (lower-case, no resolver prefix) or None.
        arxiv: arXiv id without version (``2401.01234``, ``hep-th/9901001``) or None.
        url: main link; code_url: code repository link (GitHub, GitLab, Hugging Face).
        keywords: keywords from the source (not tags).
        aliases: other citation keys of the paper (old keys kept after a merge or
            ``rekey``; biblatex ``ids``).
        fields: every other field, verbatim as in the source, keyed by lower-case
            field name; for BibTeX also the raw LaTeX form of a field whose decoded
            value lives in a column above (e.g. ``title`` with braces), so that
            export loses nothing.
        source_text: the raw entry text as read (for byte-identical re-export).
        source_check: for BibTeX, a digest of the bibliographic data and of the
            values of the macros ``source_text`` may use, taken when it was read
            (:func:`readinglist.formats.bibtex.source_check`); a writer that gets
            the same digest copies ``source_text`` without reading it again.

    User state (filled by the library for export, or read back from our own
    Markdown lists): status, priority (``high``/``medium``/``low``/None), tags,
    notes, added (UTC), read_at (UTC).

    Provenance: ``line`` is the 1-based line of the entry in its source.
    ``strings_read`` (BibTeX): how many ``@string`` blocks of its input were read
    before the entry (its macros are what the first ``strings_read`` blocks of
    ``ParseResult.meta["strings"]`` define); None when unknown.
    ``latex_fields`` says whether ``fields`` and ``abstract`` are LaTeX as a BibTeX
    source wrote them (True, the default) or plain text (a paper that came from RIS,
    CSL-JSON, Markdown, a list of abstracts or the command line): the BibTeX writer
    escapes plain text as text, so no value from such a source runs as LaTeX (issue 18).
    """

    citekey: str | None = None
    entry_type: str = "misc"
    title: str | None = None
    title_provisional: bool = False
    citekey_provisional: bool = False
    short_name: str | None = None
    authors: tuple[Person, ...] = ()
    editors: tuple[Person, ...] = ()
    year: int | None = None
    month: int | None = None
    venue: str | None = None
    abstract: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    url: str | None = None
    code_url: str | None = None
    keywords: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    fields: Mapping[str, str] = field(default_factory=dict)
    source_text: str | None = None
    source_check: str | None = None
    status: str | None = None
    priority: str | None = None
    tags: tuple[str, ...] = ()
    notes: tuple[NoteRecord, ...] = ()
    added: datetime | None = None
    read_at: datetime | None = None
    line: int | None = None
    latex_fields: bool = field(default=True, compare=False)
    strings_read: int | None = field(default=None, compare=False)
    #: The BibTeX fingerprint of this very record, kept by whoever computed it
    #: (``formats.bibtex.digest.source_check``: the reader, once per entry) so the
    #: import's ``still_as_read`` does not compute it again (issue 17 item 5). Not an
    #: argument: ``dataclasses.replace`` (the only way a record changes) leaves it
    #: None, so it always describes the data of the object that holds it.
    fingerprint: str | None = field(default=None, init=False, compare=False, repr=False)


class IntactEntry(NamedTuple):
    """A stored paper a BibTeX export may copy without decoding it (issue 17 item 2).

    The library vouches (``papers.source_intact``) that the paper's bibliographic
    data is still what ``source_text`` was read to, so the data half of
    ``source_check`` holds, and that it is a real reference (no provisional title,
    an author: :func:`citation_problems` of its whole record is empty). It holds
    what the BibTeX writer's rules for copying a text read, as in the paper's
    :class:`PaperRecord`: ``fields`` only those the rules name
    (``formats.bibtex.Writer.rule_fields``), tags and notes only when the export
    asked for them; no people, no other column. A writer that cannot copy the text
    asks for the whole record of ``paper_id``. A tuple: 100,000 of them are built
    in a tenth of the time PaperRecords take.
    """

    paper_id: int
    citekey: str
    entry_type: str
    citekey_provisional: bool
    keywords: tuple[str, ...]
    fields: Mapping[str, str]
    source_text: str
    source_check: str
    strings_read: int | None
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    notes: tuple[NoteRecord, ...] = ()
    #: Always False (an intact entry is a real reference); as PaperRecord has it.
    title_provisional: bool = False


class OutlineRecord(NamedTuple):
    """What a Markdown export groups, counts and orders papers by (issue 17): a paper's
    key, status, priority (a level name or None), year, venue and tags, as in its
    :class:`PaperRecord`, and its id, by which the export reads the whole record. A
    tuple: 100,000 of them are built in a tenth of the time PaperRecords take
    (``library.listing.export_outline``)."""

    paper_id: int
    citekey: str | None
    status: str | None
    priority: str | None
    year: int | None
    venue: str | None
    tags: tuple[str, ...] = ()


class Marked(Protocol):
    """What :func:`provisional_marks` reads: a PaperRecord or an IntactEntry."""

    @property
    def title_provisional(self) -> bool: ...

    @property
    def citekey_provisional(self) -> bool: ...


@dataclass(frozen=True)
class ParseProblem:
    """Something a reader could not take, or took with a caveat.

    ``severity == "error"`` means an entry was rejected (the import exits 5);
    ``"warning"`` means the data was read but the user should know (a Latin-1
    file, a key used twice). ``source`` is the file name or ``<stdin>``, ``line``
    the 1-based line number when known.
    """

    message: str
    source: str = "<stdin>"
    line: int | None = None
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class ParseResult:
    """What a reader returns: the records it read and the problems it met, in file order.

    ``meta`` carries list-level facts a reader found (e.g. ``{"venue": "ICML",
    "year": "2026", "list_title": "ICML 2026 Papers"}`` from a header line).
    """

    records: list[PaperRecord]
    problems: list[ParseProblem] = field(default_factory=list)
    meta: Mapping[str, str] = field(default_factory=dict)


# --- provisional marks and citability (issue 13: exports that don't lie) -----------------------

#: The name under which an export carries a record's provisional marks: the BibTeX /
#: biblatex field (``readinglist-provisional = {title, key}``) and the prefix of the
#: RIS ``C8`` line (``C8  - readinglist-provisional: title, key``). CSL-JSON carries
#: them as ``custom.title_provisional`` / ``custom.citekey_provisional`` (true).
PROVISIONAL_FIELD = "readinglist-provisional"

#: Prefix of the fields the pasted-list reader keeps for labels no BibTeX field holds
#: (``**Oral Presentation:** ...`` -> ``fields["list_oral_presentation"]``, ``TL;DR:``,
#: ``Categories:``, a "[Spotlight]" tag -> ``list_presentation``): shown by ``show``,
#: searchable, left out of BibTeX and biblatex exports, whose data model has no such
#: field (``biber --validate-datamodel`` warns about each; issue 15).
LIST_FIELD_PREFIX = "list_"
#: The marks: the title was made up (``title``), the key was generated while the paper
#: was provisional (``key``).
PROVISIONAL_MARKS: tuple[str, ...] = ("title", "key")

#: Entry types whose editors stand in for authors (BibTeX's ``plain.bst`` accepts an
#: editor for a book, an inbook and proceedings; biblatex the same for collections).
EDITED_TYPES: frozenset[str] = frozenset(
    {
        "book",
        "inbook",
        "proceedings",
        "collection",
        "mvbook",
        "mvcollection",
        "mvproceedings",
        "periodical",
        "reference",
        "mvreference",
    }
)


def provisional_marks(record: Marked) -> tuple[str, ...]:
    """The provisional marks of ``record`` (a subset of :data:`PROVISIONAL_MARKS`, in
    that order): ``title`` for a made-up title, ``key`` for a provisional key."""
    flags = (record.title_provisional, record.citekey_provisional)
    if not any(flags):  # nearly every paper: no tuple built (issue 17, exports)
        return ()
    return tuple(mark for mark, flag in zip(PROVISIONAL_MARKS, flags, strict=True) if flag)


def format_marks(marks: tuple[str, ...]) -> str:
    """The text of marks as exports write it (``"title, key"``)."""
    return ", ".join(marks)


def parse_marks(text: str) -> tuple[str, ...]:
    """The marks a text written by :func:`format_marks` names (case and spaces aside;
    unknown words are ignored, so a later version's marks do no harm)."""
    words = {word.strip().casefold() for word in text.replace(";", ",").split(",")}
    return tuple(mark for mark in PROVISIONAL_MARKS if mark in words)


def with_marks(record: PaperRecord, marks: tuple[str, ...]) -> PaperRecord:
    """``record`` with the provisional flags ``marks`` name set (others left as they are)."""
    if not marks:
        return record
    return replace(
        record,
        title_provisional=record.title_provisional or "title" in marks,
        citekey_provisional=record.citekey_provisional or "key" in marks,
    )


def has_author(record: PaperRecord) -> bool:
    """True when ``record`` names a person responsible for it: an author other than
    ``and others``, or, for :data:`EDITED_TYPES`, an editor."""
    people = record.authors
    if record.entry_type.lower() in EDITED_TYPES:
        people = (*people, *record.editors)
    return any(not person.is_others for person in people)


#: The PaperRecord fields :func:`citation_problems` reads (an export that reads only
#: what its writer shows reads these too, issue 17).
CITATION_FIELDS = ("entry_type", "title_provisional", "authors", "editors")


def citation_problems(record: PaperRecord) -> tuple[str, ...]:
    """Why ``record`` is not yet a real reference: ``"provisional title"`` (made up from
    its abstract) and/or ``"no author"`` (:func:`has_author`); empty when citable.

    The one rule of the exports' report and of ``export --strict`` (issue 13 item 5).
    """
    problems = []
    if record.title_provisional:
        problems.append("provisional title")
    if not has_author(record):
        problems.append("no author")
    return tuple(problems)
