"""Stored papers completed from other records of them, many at once (``resolve``, ``merge``).

:func:`complete_papers` applies the one merge rule (``merging.plan_merge``) to a batch of
(paper, record) pairs with a fixed number of statements, however many papers: the
look-ups are ``IN (...)`` queries, the writes ``executemany`` statements (columns,
people, the merge history, keys and aliases), the search text is computed once per
paper at the end and the papers are read back once. :func:`complete_paper` is a batch
of one (``merge``, ``resolve --online``).

Per paper the outcome is what completing the papers one after the other gives: a paper
takes a key no earlier paper of the batch took (``refs.KeyRegistry`` holds the keys the
batch gave), and the merge history rows of each paper come in the same order (its
other values, then, for ``import --undo``, the paper as it was).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from readinglist import citekeys
from readinglist.library import hooks as _hooks  # noqa: F401  (the ORM flush hooks)
from readinglist.library._sql import CHUNK, unlink_people, update_many
from readinglist.library.merging import (
    MergePlan,
    conflict_rows,
    derived_values,
    latex_paper_ids,
    paper_values,
    plan_merge,
    real_key,
    titles_by_user,
    write_conflicts,
)
from readinglist.library.refs import KeyRegistry, follow_crossrefs
from readinglist.library.rows import (
    BIBLIOGRAPHIC_ATTRIBUTES,
    insert_people,
    load_papers,
    person_record,
    sources_changed,
)
from readinglist.library.search import refresh_search_text
from readinglist.library.snapshots import before_row, paper_snapshot, remember_before
from readinglist.models import Alias, Paper, utcnow
from readinglist.prepare import normalize_record
from readinglist.records import PaperRecord


@dataclass
class _Item:
    """One paper of a batch: the ``record`` (normalized) it is completed from, found at
    ``source``; its state ``before`` (for undo), the ``plan`` and the names ``filled``."""

    paper: Paper
    record: PaperRecord
    source: str
    before: dict[str, Any] | None = None
    plan: MergePlan = field(default_factory=MergePlan)
    filled: list[str] = field(default_factory=list)


def complete_paper(
    session: Session,
    paper: Paper,
    record: PaperRecord,
    *,
    source: str,
    undo_batch: int | None = None,
) -> list[str]:
    """Complete ``paper`` from ``record``: :func:`complete_papers` of one pair."""
    return complete_papers(session, [(paper, record, source)], undo_batch=undo_batch)[0]


def complete_papers(
    session: Session,
    pairs: Sequence[tuple[Paper, PaperRecord, str]],
    *,
    undo_batch: int | None = None,
) -> list[list[str]]:
    """Complete each paper of ``pairs`` from its record (another record of the same
    paper, found at the ``source`` string) by :func:`~.merging.plan_merge`; write the
    conflicts to the merge history under that source; give a provisional paper the
    record's key (old key an alias, ``crossref`` fields naming it follow). Each paper
    appears at most once. Returns, per pair, the names filled (``"key"`` included when
    the key changed). Flushes, never commits; the papers are read back afterwards.

    With ``undo_batch`` (``resolve``'s import batch), each paper filled is kept as it
    was in the merge history (``snapshots.remember_before``), so ``import --undo`` can
    put it back (``snapshots.undo_completions``).
    """
    if not pairs:
        return []
    session.flush()
    items = [_Item(paper, normalize_record(record), source) for paper, record, source in pairs]
    ids = [item.paper.id for item in items]
    assert len(set(ids)) == len(ids), "a paper is completed once per batch"
    _plan(session, items, undo_batch is not None)
    _write_plans(session, items)
    papers = _reload(session, ids)
    renamed = _give_keys(session, items, papers)
    if renamed:
        follow_crossrefs(session, renamed)
    changed = [item.paper.id for item in items if item.filled]
    if changed:
        refresh_search_text(session, changed)
    papers = _reload(session, ids)
    if undo_batch is not None:
        rows = [
            before_row(papers[item.paper.id], item.before, undo_batch, item.source)
            for item in items
            if item.filled and item.before is not None
        ]
        remember_before(session, rows)
    return [item.filled for item in items]


def _plan(session: Session, items: Sequence[_Item], snapshot: bool) -> None:
    """Plan each item's merge (the papers' LaTeX flags and user titles read together)."""
    papers = [item.paper for item in items]
    latex = latex_paper_ids(session, papers)
    by_user = titles_by_user(session, [p.id for p in papers])
    for item in items:
        paper = item.paper
        if snapshot:
            item.before = paper_snapshot(paper)
        authors = [person_record(pp.person) for pp in paper.people if pp.role == "author"]
        editors = [person_record(pp.person) for pp in paper.people if pp.role == "editor"]
        values = paper_values(paper, latex=paper.id in latex)
        values["title_by_user"] = paper.id in by_user
        item.plan = plan_merge(values, authors, editors, item.record)
        item.filled = list(item.plan.filled)


def _write_plans(session: Session, items: Sequence[_Item]) -> None:
    """Write the planned columns, people and merge-history rows of ``items`` (a few
    ``executemany`` statements). A paper whose bibliographic data changed loses its
    ``source_intact`` (``rows.sources_changed``), as an ORM flush of it would."""
    now = utcnow()
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    bibliographic: list[int] = []
    for item in items:
        if not item.plan.values:
            continue
        paper = item.paper
        values = derived_values(item.plan.values)
        if any(
            name in BIBLIOGRAPHIC_ATTRIBUTES and getattr(paper, name) != value
            for name, value in values.items()
        ):
            bibliographic.append(paper.id)
        values["source_digest"] = None
        values["updated_at"] = now
        groups.setdefault(tuple(sorted(values)), []).append(
            {"b_id": paper.id, **{f"b_{k}": v for k, v in values.items()}}
        )
    update_many(session, groups)
    sources_changed(session, bibliographic)
    people = [item for item in items if item.plan.people]
    if people:
        unlink_people(session, [(i.paper.id, role) for i in people for role in i.plan.people])
        records = [
            PaperRecord(
                authors=i.plan.people.get("authors", ()), editors=i.plan.people.get("editors", ())
            )
            for i in people
        ]
        insert_people(session, records, [i.paper.id for i in people])
    rows = [
        row
        for item in items
        for row in conflict_rows(item.paper.id, item.plan.conflicts, item.source)
    ]
    write_conflicts(session, rows)


def _reload(session: Session, ids: Sequence[int]) -> dict[int, Paper]:
    """The papers ``ids`` read again (columns, people links and people), after Core
    writes to them: a people link the session held keeps its identity (paper, role,
    position) when Core statements relink it to another person, so only a reload that
    overwrites what the session holds (``rows.load_papers(fresh=True)``) reads the new
    person."""
    return {paper.id: paper for paper in load_papers(session, ids, fresh=True)}


def _give_keys(
    session: Session, items: Sequence[_Item], papers: dict[int, Paper]
) -> dict[str, str]:
    """Give the items' papers the keys their plans call for, in order (the registry
    holds the keys earlier papers took): a superseded preprint's published key becomes
    an alias; a provisional paper takes a real key (``merging.real_key``), its old key
    an alias. Returns old key -> new key of the papers renamed."""
    keys = KeyRegistry(session)
    keys.prefetch(
        i.record.citekey for i in items if i.record.citekey and (i.plan.real or i.plan.supersede)
    )
    stored = _aliases_of(session, [i.paper.id for i in items if i.plan.real])
    aliases: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    renamed: dict[str, str] = {}
    for item in items:
        paper, given = papers[item.paper.id], item.record.citekey or ""
        own = stored.get(paper.id, set())
        published = item.plan.supersede and citekeys.is_valid_key(given)
        if published and not keys.taken(given.lower(), given):
            # The published version's key answers too, as after an import's merge.
            aliases.append({"alias": given, "alias_folded": given.lower(), "paper_id": paper.id})
            keys.claim(given)
            own.add(given.lower())
        if not item.plan.real:
            continue
        new = real_key(session, paper, item.record, taken=keys.taken, own=own)
        keys.claim(new)
        row = {"b_id": paper.id, "b_citekey_provisional": False, "b_updated_at": utcnow()}
        if new.lower() != paper.citekey_folded:
            aliases = [a for a in aliases if a["alias_folded"] != new.lower()]
            aliases.append(
                {"alias": paper.citekey, "alias_folded": paper.citekey_folded, "paper_id": paper.id}
            )
            row.update(b_citekey=new, b_citekey_folded=new.lower())
            renamed[paper.citekey] = new
            item.filled.append("key")
        rows.append(row)
    _write_keys(session, rows, aliases)
    return renamed


def _aliases_of(session: Session, ids: Sequence[int]) -> dict[int, set[str]]:
    """The folded aliases of the papers ``ids`` (one query per :data:`CHUNK` papers)."""
    found: dict[int, set[str]] = {paper_id: set() for paper_id in ids}
    ordered = sorted(found)
    for start in range(0, len(ordered), CHUNK):
        stmt = select(Alias.paper_id, Alias.alias_folded).where(
            Alias.paper_id.in_(ordered[start : start + CHUNK])
        )
        for paper_id, folded in session.execute(stmt):
            found[paper_id].add(folded)
    return found


def _write_keys(
    session: Session, rows: Sequence[dict[str, Any]], aliases: Sequence[dict[str, Any]]
) -> None:
    """Write the keys :func:`_give_keys` chose: an alias named like a new key goes (it
    was the paper's own), the new aliases are inserted, the papers updated."""
    folded = sorted({row["b_citekey_folded"] for row in rows if "b_citekey" in row})
    for start in range(0, len(folded), CHUNK):
        session.execute(delete(Alias).where(Alias.alias_folded.in_(folded[start : start + CHUNK])))
    if aliases:
        session.execute(insert(Alias), list(aliases))
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(sorted(k[2:] for k in row if k != "b_id")), []).append(row)
    update_many(session, groups)
    sources_changed(session, [row["b_id"] for row in rows if "b_citekey" in row])
