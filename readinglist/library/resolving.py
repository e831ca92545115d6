"""``resolve``: complete provisional or incomplete papers from another source (issue 13).

:func:`select_incomplete` picks, among the papers a query selects, those that need
completing: a provisional title, no author, or no identifier (DOI or arXiv id).
:func:`resolve_records` completes them from the records of a local bibliography
(``resolve --from``); :func:`resolve_online` from what a search function finds
(``resolve --online``: the CLI passes ``readinglist.sources``; the library never
touches the network). Neither adds a paper. Both work in the caller's transaction
under one import batch; a dry run is the caller rolling it back.

Matching and completing are the import's (one rule, one home): ``match_records``
and ``complete_paper`` of ``readinglist.library``. Until those exist on main, the
``_fallback_*`` functions below stand in for them (TO BE REPLACED: see
:data:`FALLBACK`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process
from sqlalchemy import insert, update
from sqlalchemy.orm import Session

from readinglist import citekeys, dedupe
from readinglist.library.papers import rekey
from readinglist.library.refs import find_paper, select_papers
from readinglist.library.rows import insert_people, record_values, to_record
from readinglist.library.search import refresh_search_text
from readinglist.models import ImportBatch, Paper, utcnow
from readinglist.prepare import normalize_record
from readinglist.records import FILLABLE, PaperRecord
from readinglist.text import fold, title_key

#: True while the fallbacks below stand in for ``library.match_records`` and
#: ``library.complete_paper`` (issue 13's matching and merging, built beside this).
FALLBACK = True

#: Least similarity (0-100, rapidfuzz) of two abstracts, or of two titles, for a match.
ABSTRACT_SCORE = 90.0
TITLE_SCORE = 95.0


@dataclass
class Completion:
    """One paper completed (or, in a dry run, that would be): its ``key`` before,
    ``new_key`` when it took a real key, the ``source`` (file:line or service and id),
    the ``evidence`` of the match and the names ``filled``."""

    key: str
    source: str
    evidence: str
    filled: list[str]
    new_key: str | None = None


@dataclass
class ResolveReport:
    """What a resolve did: ``selected`` papers needing completion, ``completions``,
    ``unmatched`` keys (no source found them) and the ``batch_id`` of the changes."""

    selected: int = 0
    completions: list[Completion] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    batch_id: int | None = None

    @property
    def completed(self) -> int:
        """Number of distinct papers completed."""
        return len({c.new_key or c.key for c in self.completions if c.filled})


#: A record an online source found: ``(service, label, record)``, e.g. ``("arXiv",
#: "1502.03167", record)``.
Hit = tuple[str, str, PaperRecord]


#: What ``resolve_online`` asks: the paper's record and the services that completed
#: it already -> what the sources found.
Search = Callable[[PaperRecord, frozenset[str]], list[Hit]]


def needs_completion(paper: Paper) -> bool:
    """True for a paper with a provisional title or key, no author, or no identifier."""
    return bool(
        paper.title_provisional
        or getattr(paper, "citekey_provisional", False)
        or not any(pp.role == "author" for pp in paper.people)
        or not (paper.doi or paper.arxiv)
    )


def select_incomplete(session: Session, query_text: str = "") -> list[Paper]:
    """The papers ``query_text`` selects (all when empty) that :func:`needs_completion`,
    in the query's order. Raises InvalidQuery for a bad query."""
    return [p for p in select_papers(session, query_text) if needs_completion(p)]


def _open_batch(session: Session, source: str) -> int:
    batch_id = session.scalar(
        insert(ImportBatch).values(source=source, format="resolve").returning(ImportBatch.id)
    )
    assert batch_id is not None
    return int(batch_id)


def _close_batch(session: Session, report: ResolveReport) -> None:
    if report.batch_id is not None:
        session.execute(
            update(ImportBatch)
            .where(ImportBatch.id == report.batch_id)
            .values(merged=report.completed)
        )


def resolve_records(
    session: Session, papers: Sequence[Paper], records: Sequence[PaperRecord], *, source: str
) -> ResolveReport:
    """Complete ``papers`` from ``records`` (a local bibliography named ``source``).

    Each record matches at most one of ``papers`` and each paper takes at most one
    record (the best); records that match nothing are ignored (never added). Returns a
    :class:`ResolveReport`; the changes are one import batch (format ``resolve``).
    """
    report = ResolveReport(selected=len(papers), batch_id=_open_batch(session, source))
    records = [normalize_record(r) for r in records]
    done: set[int] = set()
    for paper_id, record, evidence in _match(session, papers, records):
        if paper_id in done:
            continue
        done.add(paper_id)
        paper = session.get(Paper, paper_id)
        assert paper is not None
        where = f"{source}:{record.line}" if record.line else source
        report.completions.append(_complete(session, paper, record, where, evidence))
    report.unmatched = [p.citekey for p in papers if p.id not in done]
    _close_batch(session, report)
    return report


def resolve_online(
    session: Session, papers: Sequence[Paper], search: Search, *, source: str
) -> ResolveReport:
    """Complete ``papers`` from what ``search`` finds online.

    Per paper: ``search`` is asked with its record; the best hit of each service that
    matches the paper completes it. When that gave a paper with a made-up title its
    real title, ``search`` is asked once more (now by title: the proceedings' record
    in DBLP or Crossref), skipping the services already used. Raises what ``search``
    raises (SourceUnavailable: the caller's transaction rolls everything back).
    """
    report = ResolveReport(selected=len(papers), batch_id=_open_batch(session, source))
    for paper in papers:
        used: set[str] = set()
        for _round in range(2):
            provisional = paper.title_provisional
            hits = search(to_record(paper, with_notes=False), frozenset(used))
            by_service: dict[str, list[tuple[str, PaperRecord]]] = {}
            for service, label, record in hits:
                by_service.setdefault(service, []).append((label, normalize_record(record)))
            for service, found in by_service.items():
                matches = _match(session, [paper], [record for _, record in found])
                if matches:
                    _, record, evidence = matches[0]
                    label = next(lab for lab, rec in found if rec is record)
                    where = f"{service} {label}"
                    report.completions.append(_complete(session, paper, record, where, evidence))
                    used.add(service)
            if not (provisional and not paper.title_provisional):
                break
        if not used:
            report.unmatched.append(paper.citekey)
    _close_batch(session, report)
    return report


def _complete(
    session: Session, paper: Paper, record: PaperRecord, where: str, evidence: str
) -> Completion:
    key = paper.citekey
    filled = _complete_paper(session, paper, record, source=where)
    new_key = paper.citekey if paper.citekey != key else None
    return Completion(key, where, evidence, filled, new_key)


# --- stand-ins for library.match_records / library.complete_paper (TO BE REPLACED) ----------


def _match(
    session: Session, papers: Sequence[Paper], records: Sequence[PaperRecord]
) -> list[tuple[int, PaperRecord, str]]:
    """(paper id, record, evidence) of every record that matches one of ``papers``,
    best first. TO BE REPLACED by ``library.match_records(session, records,
    paper_ids=[p.id for p in papers])``, keeping the matches of kind ``merge``."""
    return _fallback_match([to_record(p, with_notes=False) for p in papers], papers, records)


def _complete_paper(
    session: Session, paper: Paper, record: PaperRecord, *, source: str
) -> list[str]:
    """TO BE REPLACED by ``library.complete_paper(session, paper, record, source=source)``."""
    return _fallback_complete(session, paper, record)


def _fallback_match(
    targets: Sequence[PaperRecord], papers: Sequence[Paper], records: Sequence[PaperRecord]
) -> list[tuple[int, PaperRecord, str]]:
    """Identifiers first (a different DOI or arXiv id vetoes), then titles (a real
    title: rapidfuzz ratio of title keys >= :data:`TITLE_SCORE`, years within one,
    same first author when both have one), then abstracts (ratio of folded
    abstracts >= :data:`ABSTRACT_SCORE`, or their partial ratio when one is at least
    60% of the other: a dropped sentence)."""
    titles = [title_key(t.title) if t.title and not t.title_provisional else "" for t in targets]
    abstracts = [fold(t.abstract or "") for t in targets]
    found: list[tuple[float, int, PaperRecord, str]] = []
    for record in records:
        best: tuple[float, int, str] | None = None
        for i, target in enumerate(targets):
            if _ids_conflict(target, record):
                continue
            if target.doi and target.doi == record.doi:
                best = (101.0, i, "same DOI")
                break
            if target.arxiv and target.arxiv == record.arxiv:
                best = (101.0, i, "same arXiv id")
                break
        if best is None and record.title and not record.title_provisional:
            hit = process.extractOne(
                title_key(record.title), titles, scorer=fuzz.ratio, score_cutoff=TITLE_SCORE
            )
            if hit is not None and _people_agree(targets[hit[2]], record):
                best = (hit[1], hit[2], f"same title, {hit[1]:.0f}% similar")
        if best is None and record.abstract:
            best = _abstract_match(fold(record.abstract), abstracts)
        if best is not None and not _ids_conflict(targets[best[1]], record):
            found.append((best[0], papers[best[1]].id, record, best[2]))
    found.sort(key=lambda f: -f[0])
    return [(paper_id, record, evidence) for _, paper_id, record, evidence in found]


def _abstract_match(text: str, abstracts: Sequence[str]) -> tuple[float, int, str] | None:
    hit = process.extractOne(text, abstracts, scorer=fuzz.ratio, score_cutoff=ABSTRACT_SCORE)
    if hit is not None:
        return hit[1], hit[2], f"same abstract, {hit[1]:.0f}% similar"
    for other, score, i in process.extract(text, abstracts, scorer=fuzz.ratio, limit=3):
        if other and min(len(text), len(other)) >= 0.6 * max(len(text), len(other)):
            partial = fuzz.partial_ratio(text, other)
            if partial >= ABSTRACT_SCORE + 5:
                return partial - 5, i, f"same abstract, {partial:.0f}% of the shorter one"
        del score
    return None


def _ids_conflict(a: PaperRecord, b: PaperRecord) -> bool:
    return bool(
        (a.doi and b.doi and a.doi != b.doi) or (a.arxiv and b.arxiv and a.arxiv != b.arxiv)
    )


def _people_agree(target: PaperRecord, record: PaperRecord) -> bool:
    if not dedupe.years_close(target.year, record.year):
        return False
    a, b = dedupe.first_family(target), dedupe.first_family(record)
    return not a or not b or a == b


def _fallback_complete(session: Session, paper: Paper, record: PaperRecord) -> list[str]:
    """Fill what ``paper`` lacks from ``record``: empty columns, a provisional title,
    authors and editors when it has none, fields it lacks; a paper whose title was
    provisional takes the record's citation key (old key an alias) when free."""
    was_provisional = paper.title_provisional
    incoming = record_values(record)
    filled: list[str] = []
    values: dict[str, Any] = {}
    for name in FILLABLE:
        have, new = getattr(paper, name), incoming.get(name)
        if new in (None, ""):
            continue
        if have in (None, "") or (
            name == "title" and was_provisional and not record.title_provisional
        ):
            values[name] = new
            filled.append(name)
    if "title" in values:
        values["title_provisional"] = False
        values["title_key"] = title_key(values["title"])
    if "abstract" in values:
        values["abstract_key"] = dedupe.abstract_key(values["abstract"])
    if record.entry_type != "misc" and paper.entry_type == "misc":
        values["entry_type"] = record.entry_type
        filled.append("entry_type")
    fields = dict(paper.fields or {})
    for name, value in record.fields.items():
        if name not in fields:
            fields[name] = value
            filled.append(name)
    if fields != (paper.fields or {}):
        values["fields"] = fields
    people = {role: getattr(record, f"{role}s") for role in ("author", "editor")}
    have_roles = {pp.role for pp in paper.people}
    new_people = {r: p for r, p in people.items() if p and r not in have_roles}
    if values or new_people:
        values["updated_at"] = utcnow()
        values["source_digest"] = None
        for name, value in values.items():
            setattr(paper, name, value)
        session.flush()
    if new_people:
        insert_people(
            session,
            [
                PaperRecord(
                    authors=new_people.get("author", ()), editors=new_people.get("editor", ())
                )
            ],
            [paper.id],
        )
        filled.extend(f"{role}s" for role in new_people)
        session.expire(paper, ["people"])
    if was_provisional and filled:
        key = record.citekey
        if not (key and citekeys.is_valid_key(key) and find_paper(session, key) in (None, paper)):
            base = citekeys.base_key(to_record(paper, with_notes=False))
            key = citekeys.unique_key(base, lambda k: find_paper(session, k) not in (None, paper))
        if key.lower() != paper.citekey_folded:
            rekey(session, paper, key)
            filled.append("key")
    if filled:
        refresh_search_text(session, [paper.id])
    return filled


__all__ = [
    "Completion",
    "Hit",
    "ResolveReport",
    "Search",
    "needs_completion",
    "resolve_online",
    "resolve_records",
    "select_incomplete",
]
