"""What an import needs to meet the versions of a work (``readinglist.versions``): the
preprints a bibliography of published versions may supersede, the merge history of the
papers it merges into (so a second import writes nothing twice), the versions a merge
records for ``show``, and the preprints kept as they were for ``import --undo``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from readinglist.library._sql import CHUNK
from readinglist.library.matching import LIST_POOL_LIMIT, Candidate, Pool, candidates_of
from readinglist.library.merging import history_key, unseen_history
from readinglist.library.rows import load_papers
from readinglist.library.snapshots import before_row, remember_before
from readinglist.models import MergeConflict, NotDuplicate, Paper
from readinglist.records import PaperRecord
from readinglist.versions import (
    PREPRINT_TYPES,
    PREPRINT_YEARS,
    USER_TITLE_FIELD,
    VERSION_FIELD,
    Version,
)


def load_history(session: Session, cands: Iterable[Candidate]) -> None:
    """Fill ``Candidate.history`` of the stored papers ``cands`` whose history is not
    loaded yet (one ``IN (...)`` query per :data:`CHUNK` papers)."""
    wanted: dict[int, Candidate] = {
        c.paper_id: c for c in cands if c.paper_id is not None and c.history is None
    }
    for cand in wanted.values():
        cand.history = set()
    table = MergeConflict.__table__
    ids = sorted(wanted)
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        rows = session.execute(
            select(table.c.paper_id, table.c.field, table.c.value).where(
                table.c.paper_id.in_(chunk)
            )
        )
        for paper_id, name, value in rows:
            history = wanted[paper_id].history
            assert history is not None
            history.add(history_key(name, (value or {}).get("value")))
            if name == USER_TITLE_FIELD:
                wanted[paper_id].values["title_by_user"] = True
    _load_apart(session, wanted)


def _load_apart(session: Session, wanted: dict[int, Candidate]) -> None:
    """Fill ``Candidate.apart`` of ``wanted`` (id -> candidate) from ``not_duplicates``."""
    nd, papers = NotDuplicate.__table__, Paper.__table__
    pairs: list[tuple[int, int]] = []
    ids = list(wanted)
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        for low, high in session.execute(
            select(nd.c.low_id, nd.c.high_id).where(
                nd.c.low_id.in_(chunk) | nd.c.high_id.in_(chunk)
            )
        ):
            pairs += [(low, high), (high, low)]
    others = sorted({b for a, b in pairs if a in wanted})
    columns = (papers.c.id, papers.c.doi, papers.c.arxiv, papers.c.url, papers.c.title_key)
    found: dict[int, dict[str, Any]] = {}
    for start in range(0, len(others), CHUNK):
        rows = session.execute(
            select(*columns).where(papers.c.id.in_(others[start : start + CHUNK]))
        )
        for row in rows:
            found[row.id] = dict(row._mapping)
    for a, b in pairs:
        if a in wanted and b in found:
            wanted[a].apart.append(found[b])


def new_history(cand: Candidate, rows: Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The (field, value) ``rows`` the merge history of ``cand`` does not hold yet
    (``merging.unseen_history``, the rule ``write_conflicts`` applies); they are added to
    ``cand.history`` (a paper of this import has none to load)."""
    if cand.history is None:
        cand.history = set()
    return unseen_history(cand.history, rows)


def preprints_for(session: Session, years: set[int | None]) -> list[int]:
    """Ids of the preprints (``versions.is_preprint``) of ``years`` (up to
    ``PREPRINT_YEARS`` earlier; any year when None is among them), newest
    first, at most :data:`LIST_POOL_LIMIT`: what a bibliography of published versions
    is matched against, so a retitled camera-ready finds its preprint."""
    arxiv_like = or_(
        Paper.arxiv.is_not(None),
        Paper.doi.like("10.48550/%"),
        Paper.entry_type.in_(sorted(PREPRINT_TYPES)),
        *(Paper.venue.ilike(f"{word}%") for word in ("arxiv", "corr", "biorxiv", "ssrn")),
    )
    stmt = select(Paper.id).where(arxiv_like, Paper.abstract.is_not(None))
    known = sorted(y for y in years if y is not None)
    if None not in years and known:
        span = range(-PREPRINT_YEARS, 1)
        stmt = stmt.where(Paper.year.in_(sorted({y + d for y in known for d in span})))
    stmt = stmt.order_by(Paper.id.desc()).limit(LIST_POOL_LIMIT)
    return list(session.scalars(stmt))


def extend_pool_preprints(session: Session, pool: Pool, years: set[int | None]) -> None:
    """Add the preprints of ``years`` (:func:`preprints_for`) to ``pool``."""
    wanted = [i for i in preprints_for(session, years) if i not in pool.cands]
    cands = []
    papers = load_papers(session, wanted)
    for paper, cand in zip(papers, candidates_of(session, papers), strict=True):
        if Version.of_values(cand.values).preprint:
            pool.add(cand, paper.abstract)
            cands.append(cand)
    load_history(session, cands)


def version_rows(
    record: PaperRecord, dup: Candidate, before: Version, where: str
) -> list[tuple[str, Any]]:
    """The merge-history rows (:data:`~readinglist.versions.VERSION_FIELD`) of a
    preprint and a published version meeting: the paper's own version (``before``, when
    it was the preprint) and ``record``'s (read at ``where``), so ``show`` lists them."""
    incoming = Version.of_record(record)
    if before.preprint == incoming.preprint:
        return []
    rows = [(VERSION_FIELD, incoming.describe(record.citekey, where))]
    if before.preprint:
        rows.insert(0, (VERSION_FIELD, before.describe(dup.key, "the paper before the merge")))
    return rows


def remember_superseded(
    session: Session,
    before: dict[int, tuple[dict[str, Any], list[str]]],
    batch_id: int | None,
    source: str,
) -> None:
    """Keep in the merge history each preprint an import superseded as it was
    (``before``: paper id -> (``snapshots.paper_snapshot``, aliases the import gave it);
    ``snapshots.before_row``), so ``import --undo`` puts it back
    (``snapshots.undo_completions``, which drops those aliases too). The papers are read
    again once, together (their rows were changed by Core statements)."""
    if not before:
        return
    session.flush()
    session.expire_all()
    ids = sorted(before)
    for start in range(0, len(ids), CHUNK):
        rows = []
        for paper in load_papers(session, ids[start : start + CHUNK]):
            snapshot, aliases = before[paper.id]
            value = {**snapshot, "added_aliases": aliases}
            rows.append(before_row(paper, value, int(batch_id or 0), source))
        remember_before(session, rows)
