"""What an import decides per record: is it a duplicate (of what), and under which key.

:class:`Index` finds duplicate candidates (``readinglist.dedupe`` rules);
:func:`fill_missing` and :func:`apply_merges` complete a duplicate;
:class:`KeyRegistry` and :func:`choose_key` give each new paper a free citation key.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from readinglist import citekeys, dedupe
from readinglist.library._sql import CHUNK
from readinglist.library.rows import load_papers, record_values
from readinglist.models import (
    Alias,
    Paper,
    utcnow,
)
from readinglist.prepare import Prepared
from readinglist.records import (
    FILLABLE,
    PaperRecord,
    ParseProblem,
)
from readinglist.text import title_key


@dataclass
class Candidate:
    """An existing or just-added paper an incoming record may duplicate."""

    paper_id: int | None
    key: str
    title: str | None
    year: int | None
    family: str
    values: dict[str, Any]
    tags: set[str] = field(default_factory=set)
    pending: dict[str, Any] | None = None  # the insert row, for papers of this import
    batch_id: int | None = None  # the import that added it


class Index:
    """Look-up of duplicate candidates by DOI, arXiv id, title key, abstract key and
    citation key (re-importing our own export of papers without a title)."""

    def __init__(self) -> None:
        self.key: dict[str, list[Candidate]] = defaultdict(list)
        self.doi: dict[str, list[Candidate]] = defaultdict(list)
        self.arxiv: dict[str, list[Candidate]] = defaultdict(list)
        self.title: dict[str, list[Candidate]] = defaultdict(list)
        self.abstract: dict[str, list[Candidate]] = defaultdict(list)

    def add(
        self,
        cand: Candidate,
        doi: str | None,
        arxiv: str | None,
        tkey: str | None,
        akey: str | None,
        keys: Sequence[str | None] = (),
    ) -> None:
        """Index ``cand`` under its identifiers, title key, abstract key and citation ``keys``."""
        for key in {k.lower() for k in keys if k}:
            self.key[key].append(cand)
        if doi:
            self.doi[doi].append(cand)
        if arxiv:
            self.arxiv[arxiv].append(cand)
        if tkey:
            self.title[tkey].append(cand)
        if akey:
            self.abstract[akey].append(cand)

    def match(
        self,
        record: PaperRecord,
        tkey: str | None,
        akey: str | None,
        family: str,
        batch_id: int | None = None,
    ) -> tuple[Candidate | None, Candidate | None]:
        """Return ``(duplicate, conflict)``: the same paper, or an identifier clash.

        ``batch_id`` is the running import's: a title match with a paper the same
        import added under another citation key and another year is no duplicate (one
        source listing both, e.g. the ACL Anthology's yearly "Introduction" of one
        author; the year tolerance is for one paper seen in two sources).
        """
        conflict = None
        for ident, table in ((record.doi, self.doi), (record.arxiv, self.arxiv)):
            for cand in table.get(ident or "", ()):
                if dedupe.titles_conflict(record.title, cand.title) and not (
                    record.title_provisional or cand.values.get("title_provisional")
                ):
                    conflict = conflict or cand
                else:
                    return cand, None
        if akey:
            for cand in self.abstract.get(akey, ()):
                return cand, None
        for cand in self.key.get((record.citekey or "").lower(), ()):
            # The same key from the source: the same paper unless the data disagree.
            if (
                dedupe.titles_same(record.title, cand.title)
                and dedupe.years_close(record.year, cand.year)
                and (not family or not cand.family or family == cand.family)
            ):
                return cand, None
        if tkey and not record.title_provisional:
            for cand in self.title.get(tkey, ()):
                if cand.values.get("title_provisional"):
                    continue
                if (
                    batch_id is not None
                    and cand.batch_id == batch_id
                    and record.year is not None
                    and cand.year is not None
                    and record.year != cand.year
                    and record.citekey
                    and record.citekey.lower() != cand.key.lower()
                ):
                    continue
                if dedupe.years_close(record.year, cand.year) and (
                    not family or not cand.family or family == cand.family
                ):
                    return cand, None
        return None, conflict


def load_candidates(session: Session, prepared: Sequence[Prepared], index: Index) -> None:
    """Fill ``index`` with existing papers sharing an identifier, title or abstract key.

    One ``IN (...)`` query per column and :data:`CHUNK` values; the matching papers
    are then loaded with their people and tags (never one query per record).
    """
    dois = {p.record.doi for p in prepared if p.record.doi}
    arxivs = {p.record.arxiv for p in prepared if p.record.arxiv}
    tkeys = {p.tkey for p in prepared if p.tkey and not p.record.title_provisional}
    akeys = {p.akey for p in prepared if p.akey}
    ckeys = {p.record.citekey.lower() for p in prepared if p.record.citekey}
    ids: set[int] = set()
    for column, values in (
        (Paper.citekey_folded, ckeys),
        (Paper.doi, dois),
        (Paper.arxiv, arxivs),
        (Paper.title_key, tkeys),
        (Paper.abstract_key, akeys),
    ):
        ordered = sorted(v for v in values if v)
        for start in range(0, len(ordered), CHUNK):
            chunk = ordered[start : start + CHUNK]
            ids.update(session.scalars(select(Paper.id).where(column.in_(chunk))))
    if not ids:
        return
    for paper in load_papers(session, sorted(ids)):
        authors = [pp.person for pp in paper.people if pp.role == "author"]
        family = authors[0].family_folded if authors else ""
        stored: dict[str, Any] = {name: getattr(paper, name) for name in FILLABLE}
        stored["title_provisional"] = paper.title_provisional
        cand = Candidate(
            paper.id,
            paper.citekey,
            paper.title,
            paper.year,
            family,
            stored,
            {t.name_folded for t in paper.tags},
            batch_id=paper.batch_id,
        )
        index.add(
            cand, paper.doi, paper.arxiv, paper.title_key, paper.abstract_key, [paper.citekey]
        )


def fill_missing(dup: Candidate, record: PaperRecord) -> list[str]:
    """Fill the duplicate's missing columns from ``record``; return the names filled."""
    filled: list[str] = []
    incoming = record_values(record)
    for name in FILLABLE:
        if dup.values.get(name) in (None, "") and incoming.get(name) not in (None, ""):
            if name == "title" and dup.values.get("title"):
                continue
            dup.values[name] = incoming[name]
            filled.append(name)
    if (
        dup.values.get("title_provisional")
        and record.title
        and not record.title_provisional
        and title_key(record.title) != title_key(dup.values.get("title") or "")
    ):
        # A real title replaces one we made up (our own made-up title read back from an
        # export is not a real one); a title the user set is never provisional.
        dup.values["title"] = record.title
        dup.values["title_provisional"] = False
        if dup.pending is not None:
            dup.pending["title_key"] = title_key(record.title)
        filled.append("title")
    return filled


def apply_merges(session: Session, merged: dict[int, list[str]], index: Index) -> None:
    """Write the columns an import filled into existing papers (``merged``: paper id ->
    filled names), with the title and abstract keys that follow and ``updated_at``."""
    if not merged:
        return
    by_id = {
        cand.paper_id: cand
        for table in (index.key, index.doi, index.arxiv, index.title, index.abstract)
        for cands in table.values()
        for cand in cands
        if cand.paper_id is not None
    }
    for paper_id, names in merged.items():
        values = {name: by_id[paper_id].values[name] for name in set(names)}
        if "title" in values:
            values["title_provisional"] = by_id[paper_id].values["title_provisional"]
            values["title_key"] = title_key(values["title"]) if values["title"] else None
        if "abstract" in values:
            values["abstract_key"] = dedupe.abstract_key(values["abstract"])
        values["updated_at"] = utcnow()
        session.execute(update(Paper).where(Paper.id == paper_id).values(**values))


class KeyRegistry:
    """Case-insensitive set of citation keys in use: the database's plus this import's.

    :meth:`prefetch` asks the database, in ``IN (...)`` chunks, which of a chunk's
    wanted keys are taken (papers' keys and aliases). Only a key that is taken
    needs the keys that extend it (for the ``a``, ``b``, ... suffixes): one prefix
    query per such key, index-assisted on SQLite (a range on the binary-collated
    column; ``LIKE`` is case-insensitive there and cannot use the index).
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self.sqlite = session.get_bind().dialect.name == "sqlite"
        self.local: set[str] = set()
        self.checked: set[str] = set()  # folded keys whose presence in the database is known
        self.stored: set[str] = set()  # those of them that are taken there
        self.prefixes: dict[str, set[str]] = {}

    def prefetch(self, bases: Iterable[str]) -> None:
        """Learn which of the (case-insensitive) keys ``bases`` the database already uses."""
        wanted = sorted({b.lower() for b in bases} - self.checked)
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            self.stored.update(
                self.session.scalars(
                    select(Paper.citekey_folded).where(Paper.citekey_folded.in_(chunk))
                )
            )
            self.stored.update(
                self.session.scalars(
                    select(Alias.alias_folded).where(Alias.alias_folded.in_(chunk))
                )
            )
            self.checked.update(chunk)

    def _known(self, prefix: str) -> set[str]:
        if prefix not in self.prefixes:
            keys: set[str] = set()
            condition: ColumnElement[bool]
            for column in (Paper.citekey_folded, Alias.alias_folded):
                if self.sqlite:
                    # U+10FFFF sorts after every character: [prefix, prefix + U+10FFFF)
                    # holds every key that starts with prefix (checked again below).
                    condition = (column >= prefix) & (column < prefix + "\U0010ffff")
                else:
                    condition = column.startswith(prefix, autoescape=True)
                keys.update(k for k in self.session.scalars(select(column).where(condition)))
            self.prefixes[prefix] = {k for k in keys if k.startswith(prefix)}
        return self.prefixes[prefix]

    def taken(self, folded: str, base: str) -> bool:
        """True when the folded key is used by a paper, an alias or this import
        (``base`` is the key the record asked for, whose presence was prefetched)."""
        if folded in self.local:
            return True
        lowered = base.lower()
        if folded == lowered and lowered in self.checked:
            return lowered in self.stored
        return folded in self._known(lowered)

    def claim(self, key: str) -> None:
        """Mark ``key`` as used by this import."""
        self.local.add(key.lower())


def choose_key(
    record: PaperRecord,
    keys: KeyRegistry,
    problems: list[ParseProblem],
    source: str,
    base: str | None = None,
) -> str:
    """Return a free citation key for a new paper and claim it in ``keys``.

    The record's own key when BibTeX can use it and no paper or alias has it, else
    ``base`` (or the record's generated base key, ``citekeys.base_key``) made unique
    with ``a``, ``b``, ... suffixes (``citekeys.unique_key``). A key given but not
    used adds a warning to ``problems`` (``source`` and the record's line name it).
    """
    given = record.citekey if record.citekey and citekeys.is_valid_key(record.citekey) else None
    base = base or given or citekeys.base_key(record)
    key = citekeys.unique_key(base, lambda folded: keys.taken(folded, base))
    if given and key != given:
        problems.append(
            ParseProblem(
                f"citation key {given!r} is already used by another paper; imported as {key!r}",
                source,
                record.line,
                "warning",
            )
        )
    elif record.citekey and not given:
        problems.append(
            ParseProblem(
                f"citation key {record.citekey!r} is not usable in BibTeX; imported as {key!r}",
                source,
                record.line,
                "warning",
            )
        )
    keys.claim(key)
    return key
