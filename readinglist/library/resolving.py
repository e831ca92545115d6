"""``resolve``: complete provisional or incomplete papers from another source (issue 13).

:func:`select_incomplete` picks, among the papers a query selects, those that need
completing: a provisional title, no author, or no identifier (DOI or arXiv id).
:func:`resolve_records` completes them from the records of a local bibliography
(``resolve --from``). Online (``resolve --online``) is three steps so that no
transaction is open while a service answers: :func:`read_pending` (a read),
:func:`search_online` (no session: the CLI passes ``readinglist.sources``; the library
never touches the network), :func:`complete_found` (one short write). Neither source
adds a paper. The writes are one import batch in the caller's transaction; a dry run
is the caller rolling it back.

Matching and completing are the import's (one rule, one home): ``match_records``
(``library.duplicates``) and ``complete_papers`` (``library.completing``, the merge rule
of ``library.merging``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from sqlalchemy import insert, update
from sqlalchemy.orm import Session

from readinglist import bounds
from readinglist.library import hooks as _hooks  # noqa: F401  (the ORM flush hooks)
from readinglist.library.completing import complete_paper, complete_papers
from readinglist.library.duplicates import match_in_pool, match_records
from readinglist.library.matching import Candidate, Pool, candidate_of, merge_into
from readinglist.library.merging import paper_values
from readinglist.library.refs import select_papers
from readinglist.library.rows import to_record
from readinglist.models import ImportBatch, Paper
from readinglist.prepare import normalize_record
from readinglist.records import PaperRecord
from readinglist.versions import Version


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


#: What ``search_online`` asks: the paper's record and the services that completed
#: it already -> what the sources found.
Search = Callable[[PaperRecord, frozenset[str]], list[Hit]]


def needs_completion(paper: Paper) -> bool:
    """True for a paper with a provisional title or key, no author, or no identifier,
    or still only a preprint (``versions.is_preprint``: its published version may be out)."""
    return bool(
        paper.title_provisional
        or getattr(paper, "citekey_provisional", False)
        or not any(pp.role == "author" for pp in paper.people)
        or not (paper.doi or paper.arxiv)
        # The version reads no LaTeX flag: none asked (it would cost a query per paper).
        or Version.of_values(paper_values(paper, latex=False)).preprint
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
    record (the best); records that match nothing are ignored (never added). The papers
    are completed together (``completing.complete_papers``: a fixed number of
    statements, however many papers). Returns a :class:`ResolveReport`; the changes are
    one import batch (format ``resolve``).
    """
    report = ResolveReport(selected=len(papers), batch_id=_open_batch(session, source))
    records = [normalize_record(r) for r in records]
    by_id = {p.id: p for p in papers}
    chosen: dict[int, tuple[PaperRecord, str]] = {}
    for paper_id, record, evidence in _match(session, papers, records):
        chosen.setdefault(paper_id, (record, evidence))
    pairs = [
        (by_id[paper_id], record, f"{source}:{record.line}" if record.line else source)
        for paper_id, (record, _) in chosen.items()
    ]
    keys = [paper.citekey for paper, _, _ in pairs]
    filled = complete_papers(session, pairs, undo_batch=report.batch_id)
    for key, (paper, _, where), names in zip(keys, pairs, filled, strict=True):
        new_key = paper.citekey if paper.citekey != key else None
        evidence = chosen[paper.id][1]
        report.completions.append(Completion(key, where, evidence, names, new_key))
    report.unmatched = [p.citekey for p in papers if p.id not in chosen]
    _close_batch(session, report)
    return report


@dataclass
class Pending:
    """A paper to complete online, as read before any request (no session needed
    after): its id, its record (what the services are asked about) and its matching
    data (``matching.Candidate``, completed in memory as hits match)."""

    paper_id: int
    record: PaperRecord
    cand: Candidate


#: What the services found for one paper: ``(paper id, hits that matched it, in order)``.
Found = tuple[int, list[Hit]]


def read_pending(papers: Sequence[Paper]) -> list[Pending]:
    """The :class:`Pending` of each of ``papers`` (loaded with people and tags)."""
    return [Pending(p.id, to_record(p, with_notes=False), candidate_of(p)) for p in papers]


def search_online(pending: Sequence[Pending], search: Search) -> list[Found]:
    """Ask ``search`` about each paper, with no database transaction open (issue 13:
    the write lock is never held while a service is answering).

    Per paper: the best hit of each service that matches it (the import's rules,
    ``match_in_pool``, against the paper held in memory; only hits fit to store,
    :func:`readinglist.bounds.record_problem`) is kept and merged into
    that copy (``merge_into``). When that gave a paper with a made-up title its real
    title, ``search`` is asked once more (now by title: the proceedings' record in
    DBLP or Crossref), skipping the services already used. Raises what ``search``
    raises (SourceUnavailable): nothing has been written then.
    """
    found: list[Found] = []
    for item in pending:
        cand, record = item.cand, item.record
        used: set[str] = set()
        kept: list[Hit] = []
        for _round in range(2):
            provisional = bool(cand.values.get("title_provisional"))
            by_service: dict[str, list[tuple[str, PaperRecord]]] = {}
            for service, label, answer in search(record, frozenset(used)):
                hit = normalize_record(answer)
                if bounds.record_problem(hit) is None:  # a value too long to store: unusable
                    by_service.setdefault(service, []).append((label, hit))
            for service, hits in by_service.items():
                best = _best_in_memory(cand, [hit for _, hit in hits])
                if best is not None:
                    kept.append((service, next(lab for lab, h in hits if h is best), best))
                    merge_into(cand, best)
                    used.add(service)
            if not (provisional and not cand.values.get("title_provisional")):
                break
            record = replace(
                record,
                title=cand.title,
                title_provisional=False,
                authors=cand.authors,
                year=cand.year,
                doi=cand.values.get("doi"),
                arxiv=cand.values.get("arxiv"),
            )
        found.append((item.paper_id, kept))
    return found


def _best_in_memory(cand: Candidate, records: Sequence[PaperRecord]) -> PaperRecord | None:
    """The record of ``records`` that merges into ``cand`` with the highest score."""
    pool = Pool()
    pool.add(cand, cand.values.get("abstract"))
    merges = [m for m in match_in_pool(pool, records) if m.kind == "merge"]
    return max(merges, key=lambda m: m.score).record if merges else None


def complete_found(
    session: Session, papers: Sequence[Paper], found: Sequence[Found], *, source: str
) -> ResolveReport:
    """Complete ``papers`` from what :func:`search_online` found, in one short write.

    Each hit is matched again against the paper as stored now (another command may
    have changed it while the services answered) and completes it when it still
    matches; papers with no such hit are ``unmatched``. The changes are one import
    batch (format ``resolve``).
    """
    report = ResolveReport(selected=len(papers), batch_id=_open_batch(session, source))
    hits_of = dict(found)
    for paper in papers:
        used = False
        for service, label, hit in hits_of.get(paper.id, []):
            matches = _match(session, [paper], [hit])
            if matches:
                _, record, evidence = matches[0]
                where = f"{service} {label}"
                report.completions.append(
                    _complete(session, paper, record, where, evidence, report.batch_id)
                )
                used = True
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
