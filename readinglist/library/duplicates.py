"""Duplicates found on demand: records matched against papers (``resolve``), candidate
pairs in the library (``readinglist duplicates``) and pairs that are not duplicates.

Matching is that of an import (``matching.Index`` for identifiers and exact keys,
``matching.Pool`` for near-identical abstracts and titles, ``matching.veto``), so
``resolve``, ``duplicates`` and ``import`` decide alike (issue 13).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from readinglist import dedupe, query
from readinglist.errors import UsageError
from readinglist.library import hooks as _hooks  # noqa: F401  (the ORM flush hooks)
from readinglist.library.matching import (
    Index,
    Pool,
    candidates_of,
    identifier_shared_apart,
    load_pool,
)
from readinglist.library.rows import load_papers, to_record
from readinglist.models import NotDuplicate, Paper
from readinglist.prepare import prepare_record
from readinglist.records import PaperRecord
from readinglist.text import search_tokens, title_key
from readinglist.versions import NamesDiffer, OtherWork


@dataclass(frozen=True)
class Match:
    """What :func:`match_records` found for one record.

    ``paper_id``: the paper it matches (None: none). ``kind``: ``"merge"`` (strong
    evidence: complete the paper), ``"candidate"`` (weak: show, do not merge),
    ``"veto"`` (a look-alike that is certainly another paper: different DOI, or a
    generic title with other pages ...), ``"none"`` (nothing like it). ``score``
    0..100 and ``evidence`` ("same abstract, 97% similar") explain it.
    """

    paper_id: int | None
    record: PaperRecord
    score: float
    evidence: str
    kind: str


def match_records(
    session: Session, records: Sequence[PaperRecord], *, paper_ids: Sequence[int] | None = None
) -> list[Match]:
    """Match each record against the papers ``paper_ids`` (default: every paper with a
    provisional title or key), by the import's rules; one :class:`Match` per record, in
    order. Reads only; nothing is written.
    """
    return match_in_pool(load_pool(session, paper_ids), records)


def match_in_pool(pool: Pool, records: Sequence[PaperRecord]) -> list[Match]:
    """:func:`match_records` against the papers of ``pool`` (``matching.Pool``, filled
    from the database or with candidates held in memory: ``resolve --online`` matches
    what a service answers without a transaction open). No database access."""
    index = Index()
    for cand in pool.cands.values():
        values = cand.values
        index.add(
            cand,
            values.get("doi"),
            values.get("arxiv"),
            title_key(cand.title) if cand.title and not values.get("title_provisional") else None,
            # The stored key when the pool has it (the abstract's LaTeX decoded once).
            pool.akeys.get(cand.paper_id or 0) or dedupe.abstract_key(values.get("abstract")),
            [cand.key],
        )
    matches: list[Match] = []
    for record in records:
        item = prepare_record(record)
        family = dedupe.first_family(item.record)
        dup, conflict, why = index.match(item.record, item.tkey, item.akey, family)
        if dup is not None:
            matches.append(Match(dup.paper_id, record, 100.0, why, "merge"))
            continue
        if conflict is not None:
            text = "shares an identifier but the titles differ"
            matches.append(Match(conflict.paper_id, record, 0.0, text, "veto"))
            continue
        found = pool.find(item.record, item.abstract_words.split(), item.tkey)
        if found.merge is not None:
            matches.append(
                Match(found.merge.paper_id, record, found.score, found.evidence, "merge")
            )
        elif found.candidates:
            cand, evidence = found.candidates[0]
            matches.append(Match(cand.paper_id, record, evidence.score, evidence.text, "candidate"))
        elif found.vetoed:
            cand, reason = found.vetoed[0]
            matches.append(Match(cand.paper_id, record, 0.0, reason, "veto"))
        else:
            matches.append(Match(None, record, 0.0, "no similar paper", "none"))
    return matches


@dataclass(frozen=True)
class Pair:
    """Two papers that may be one: keys ``a`` and ``b`` (``a`` added first), ``kind``
    ``"merge"`` (strong evidence), ``"candidate"`` or ``"related"`` (another work of the
    same title, ``versions.other_work``: never merged), ``score`` 0..100, ``evidence``."""

    a: str
    b: str
    kind: str
    score: float
    evidence: str


#: The :func:`~readinglist.library.matching.veto` reason `duplicates` still offers.
SOFT_VETO = "different titles"


def duplicate_pairs(session: Session, query_text: str = "") -> list[Pair]:
    """Return candidate duplicate pairs among the papers ``query_text`` selects (all when
    empty): the same DOI or arXiv id, near-identical abstracts or titles. Vetoed pairs
    are left out, except look-alikes whose only fault is different titles
    (:data:`SOFT_VETO`, as the import reports them) or author names
    (``versions.NamesDiffer``): candidates of score 50; pairs
    marked with :func:`not_duplicate` are left out. Strongest first.
    Raises InvalidQuery for a bad query.
    """
    ids = query.paper_ids(session, query_text)
    papers = load_papers(session, ids)
    pool = Pool()
    candidates = {c.paper_id: c for c in candidates_of(session, papers) if c.paper_id is not None}
    records = {paper.id: to_record(paper, with_notes=False) for paper in papers}
    for paper in papers:
        pool.add(candidates[paper.id], paper.abstract)
    apart = _not_duplicates(session, ids)
    found: dict[tuple[int, int], Pair] = {}
    by_key = {p.id: p.citekey for p in papers}
    order = {p.id: n for n, p in enumerate(papers)}

    def offer(x: int, y: int, kind: str, score: float, evidence: str) -> None:
        low, high = sorted((x, y), key=lambda i: order[i])
        pair = (low, high)
        if (min(pair), max(pair)) in apart or (pair in found and found[pair].score >= score):
            return
        found[pair] = Pair(by_key[low], by_key[high], kind, score, evidence)

    for name in ("doi", "arxiv"):
        groups: dict[str, list[int]] = defaultdict(list)
        for paper in papers:
            value = getattr(paper, name)
            if value:
                groups[value].append(paper.id)
        label = "same DOI" if name == "doi" else "same arXiv id"
        for members in groups.values():
            for other in members[1:]:
                if identifier_shared_apart(
                    candidates[members[0]], records[other], dedupe.first_family(records[other])
                ):  # as the import decides: listed as related, never to merge
                    offer(members[0], other, "related", 0.0, f"kept apart: {label}, other work")
                else:
                    offer(members[0], other, "merge", 100.0, label)
    for paper in papers:
        record = records[paper.id]
        words = search_tokens(paper.abstract) if paper.abstract else []
        tkey = paper.title_key if not paper.title_provisional else None
        result = pool.find(record, words, tkey, exclude=paper.id)
        if result.merge is not None and result.merge.paper_id is not None:
            offer(paper.id, result.merge.paper_id, "merge", result.score, result.evidence)
        for cand, evidence in result.candidates:
            if cand.paper_id is not None:
                offer(paper.id, cand.paper_id, "candidate", evidence.score, evidence.text)
        for cand, reason in result.vetoed:
            # Titles or author names that differ are the vetoes a person may overrule
            # (a retitled camera-ready version, "Jon" and "Jonathan"): listed here too.
            soft = reason == SOFT_VETO or isinstance(reason, NamesDiffer)
            if soft and cand.paper_id is not None:
                offer(paper.id, cand.paper_id, "candidate", 50.0, f"looks alike, {reason}")
            elif isinstance(reason, OtherWork) and cand.paper_id is not None:
                # Another work of the same title (an erratum, another edition, a journal
                # extension): listed as related, never to merge.
                offer(paper.id, cand.paper_id, "related", 0.0, f"kept apart: {reason}")
    ranks = {"merge": 0, "candidate": 1, "related": 2}
    return sorted(found.values(), key=lambda p: (ranks[p.kind], -p.score, p.a, p.b))


def _not_duplicates(session: Session, ids: Sequence[int]) -> set[tuple[int, int]]:
    if not ids:
        return set()
    rows = session.execute(select(NotDuplicate.low_id, NotDuplicate.high_id))
    return {(int(a), int(b)) for a, b in rows}


def not_duplicate(session: Session, a: Paper, b: Paper) -> bool:
    """Remember that papers ``a`` and ``b`` are different: never offered as duplicates
    (:func:`duplicate_pairs`) again. Returns False when it was already remembered.
    Raises UsageError for one paper given twice."""
    if a.id == b.id:
        raise UsageError(f"{a.citekey!r} and {b.citekey!r} are the same paper")
    low, high = sorted((a.id, b.id))
    exists = session.scalar(
        select(NotDuplicate.low_id).where(NotDuplicate.low_id == low, NotDuplicate.high_id == high)
    )
    if exists is not None:
        return False
    session.add(NotDuplicate(low_id=low, high_id=high))
    session.flush()
    return True
