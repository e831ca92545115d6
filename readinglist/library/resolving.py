"""``resolve``: complete provisional or incomplete papers from another source (issue 13).

:func:`select_incomplete` picks, among the papers a query selects, those that need
completing: a provisional title, no author, or no identifier (DOI or arXiv id).
:func:`resolve_records` completes them from the records of a local bibliography
(``resolve --from``); :func:`resolve_online` from what a search function finds
(``resolve --online``: the CLI passes ``readinglist.sources``; the library never
touches the network). Neither adds a paper. Both work in the caller's transaction
under one import batch; a dry run is the caller rolling it back.

Matching and completing are the import's (one rule, one home): ``match_records``
(``library.duplicates``) and ``complete_paper`` (``library.merging``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import insert, update
from sqlalchemy.orm import Session

from readinglist.library.duplicates import match_records
from readinglist.library.merging import complete_paper
from readinglist.library.refs import select_papers
from readinglist.library.rows import to_record
from readinglist.models import ImportBatch, Paper
from readinglist.prepare import normalize_record
from readinglist.records import PaperRecord


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
        report.completions.append(
            _complete(session, paper, record, where, evidence, report.batch_id)
        )
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
                    report.completions.append(
                        _complete(session, paper, record, where, evidence, report.batch_id)
                    )
                    used.add(service)
            if not (provisional and not paper.title_provisional):
                break
        if not used:
            report.unmatched.append(paper.citekey)
    _close_batch(session, report)
    return report


def _complete(
    session: Session,
    paper: Paper,
    record: PaperRecord,
    where: str,
    evidence: str,
    batch_id: int | None,
) -> Completion:
    """Complete ``paper`` from ``record`` (found at ``where``), keeping the paper as it
    was under import batch ``batch_id`` for ``import --undo``."""
    key = paper.citekey
    filled = _complete_paper(session, paper, record, source=where, undo_batch=batch_id)
    new_key = paper.citekey if paper.citekey != key else None
    return Completion(key, where, evidence, filled, new_key)


# --- the import's matching and merging (one rule, one home) ------------------------------


def _match(
    session: Session, papers: Sequence[Paper], records: Sequence[PaperRecord]
) -> list[tuple[int, PaperRecord, str]]:
    """(paper id, record, evidence) of every record that :func:`match_records` merges
    into one of ``papers`` (strong evidence only; candidates and vetoes are not
    completions), best first."""
    found = match_records(session, records, paper_ids=[p.id for p in papers])
    merges = [m for m in found if m.kind == "merge" and m.paper_id is not None]
    merges.sort(key=lambda m: -m.score)
    return [(m.paper_id, m.record, m.evidence) for m in merges if m.paper_id is not None]


def _complete_paper(
    session: Session, paper: Paper, record: PaperRecord, *, source: str, undo_batch: int | None
) -> list[str]:
    """Complete ``paper`` by the import's merge rule (:func:`complete_paper`)."""
    return complete_paper(session, paper, record, source=source, undo_batch=undo_batch)
