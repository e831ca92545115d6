"""The state of a paper before ``resolve`` completed it or an import's published version
superseded it, kept in the merge history so that ``import --undo`` puts it back.

:func:`paper_snapshot` takes a paper's bibliographic state (columns and people) as JSON
data; :func:`before_row` and :func:`remember_before` keep it under the import batch, with the digest of the
state the change left; :func:`undo_completions` restores each paper whose state is still
that digest (a paper edited, merged or resolved since is kept as it is and said).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from readinglist.digest import json_digest
from readinglist.library.rows import insert_people, person_record
from readinglist.library.search import refresh_search_text, search_text_deferred
from readinglist.models import Alias, MergeConflict, Paper, PaperPerson, utcnow
from readinglist.records import FILLABLE, PaperRecord, Person
from readinglist.versions import USER_TITLE_FIELD, VERSION_FIELD

#: The merge-history field under which ``resolve`` keeps a paper as it was before a
#: completion (never listed by ``merge --history`` nor taken by ``--take``).
BEFORE_FIELD = "(before resolve)"
#: Merge-history fields that hold no other value of a field (never listed nor taken).
HIDDEN_FIELDS = (BEFORE_FIELD, VERSION_FIELD, USER_TITLE_FIELD)
#: The ``papers`` columns a completion may change and an undo puts back.
_SNAPSHOT_COLUMNS = (
    *(name for name in FILLABLE),
    "title_provisional",
    "citekey",
    "citekey_provisional",
    "entry_type",
    "fields",
    "source_text",
    "source_digest",
    "source_check",
    "source_strings_read",
    "title_key",
    "abstract_key",
)


def paper_snapshot(paper: Paper) -> dict[str, Any]:
    """The bibliographic state of ``paper`` (its :data:`_SNAPSHOT_COLUMNS` and people)
    as JSON-ready data, for :func:`undo_completions`."""
    data: dict[str, Any] = {name: getattr(paper, name) for name in _SNAPSHOT_COLUMNS}
    data["fields"] = dict(paper.fields or {})
    for role in ("author", "editor"):
        data[role] = [asdict(person_record(pp.person)) for pp in paper.people if pp.role == role]
    return data


def _state_digest(session: Session, paper: Paper) -> str:
    """The digest of ``paper``'s bibliographic state (:func:`paper_snapshot`)."""
    session.flush()
    session.expire(paper, ["people"])
    return json_digest(paper_snapshot(paper))


def before_row(paper: Paper, before: dict[str, Any], batch_id: int, source: str) -> dict[str, Any]:
    """The merge-history row that keeps ``before`` (:func:`paper_snapshot` taken before
    ``resolve`` completed ``paper`` from ``source``, or before an import superseded it)
    under import batch ``batch_id``, with the digest of the state the change left:
    ``paper`` as read again after it, with its people (:func:`remember_before` writes
    the rows)."""
    value = {"batch": batch_id, "source": source, "before": before}
    value["after"] = json_digest(paper_snapshot(paper))
    return {"paper_id": paper.id, "field": BEFORE_FIELD, "value": value, "source": source}


def remember_before(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Insert the :func:`before_row` ``rows`` into the merge history, in order (one
    ``executemany``), so ``import --undo`` can put the papers back."""
    if rows:
        now = utcnow()
        session.execute(insert(MergeConflict), [{**row, "at": now} for row in rows])


#: Bulk deletes here find the rows they delete by ``RETURNING`` (SQLAlchemy's
#: ``synchronize_session="fetch"``), not by testing their criteria against every object
#: of the session (``"evaluate"``, the default): an undo holds every paper it restores
#: and their people, so each of its deletes cost O(session) and the undo grew as the
#: square of the papers (270 papers: 3.4 s of 6.5 s).
_FETCH = {"synchronize_session": "fetch"}


def undo_completions(
    session: Session,
    batch_id: int,
    since: str = "resolve",
    spare: Callable[[Session, dict[str, str]], None] | None = None,
) -> tuple[list[str], list[tuple[str, str]]]:
    """Put back every paper ``resolve``'s import batch ``batch_id`` completed (or an
    import's published versions superseded: the preprint and the aliases it gained), as it was
    before (columns, people, key: the key it was given is dropped, the old one is its
    key again), and drop the merge history that completion wrote.

    ``spare``, when given, is shown the citation keys the undo would drop (each mapped
    to its paper's key) before anything changes, and may raise to refuse (the caller's
    rule, such as kept exports citing them).

    Returns the keys restored and ``(key, reason)`` of papers kept as they are because
    their bibliographic data changed since ``since`` (what made the batch: "resolve",
    "this import"): an edit, a later merge or resolve.
    """
    plan, kept = _restorable(session, batch_id, since)
    if spare is not None:
        dropped: dict[str, str] = {}
        for paper, before, _ in plan:  # the key it was given, the aliases it gained
            names = list(before.get("added_aliases", ()))
            if paper.citekey != before["citekey"]:
                names.append(paper.citekey)
            dropped.update(dict.fromkeys(names, paper.citekey))
        if dropped:
            spare(session, dropped)
    restored: list[str] = []
    # One search-text refresh for all at the end, not one per paper at each flush.
    with search_text_deferred(session):
        for paper, before, mine in plan:
            key = paper.citekey
            _restore(session, paper, before)
            for alias in before.get("added_aliases", ()):  # an import's superseding merge
                session.execute(
                    delete(Alias).where(
                        Alias.paper_id == paper.id, Alias.alias_folded == alias.lower()
                    ),
                    execution_options=_FETCH,
                )
            sources = {row.value.get("source") for row in mine}
            session.execute(
                delete(MergeConflict).where(
                    MergeConflict.paper_id == paper.id,
                    MergeConflict.source.in_(sources) | MergeConflict.id.in_([r.id for r in mine]),
                ),
                execution_options=_FETCH,
            )
            restored.append(f"{key} -> {paper.citekey}" if key != paper.citekey else key)
    if restored:
        refresh_search_text(session, [paper.id for paper, _, _ in plan])
    return restored, kept


def _restorable(
    session: Session, batch_id: int, since: str
) -> tuple[list[tuple[Paper, dict[str, Any], list[MergeConflict]]], list[tuple[str, str]]]:
    """The papers import batch ``batch_id`` completed that :func:`undo_completions` can put
    back (each with its state before and its merge-history rows of the batch: its state
    is still the one the completion left), and ``(key, reason)`` of those changed since."""
    rows = list(
        session.scalars(
            select(MergeConflict)
            .where(MergeConflict.field == BEFORE_FIELD)
            .order_by(MergeConflict.paper_id, MergeConflict.id)
        )
    )
    by_paper: dict[int, list[MergeConflict]] = {}
    for row in rows:
        if row.value.get("batch") == batch_id:
            by_paper.setdefault(row.paper_id, []).append(row)
    plan: list[tuple[Paper, dict[str, Any], list[MergeConflict]]] = []
    kept: list[tuple[str, str]] = []
    for paper_id, mine in by_paper.items():
        paper = session.get(Paper, paper_id)
        if paper is None:
            continue
        if _state_digest(session, paper) != mine[-1].value.get("after"):
            kept.append((paper.citekey, f"changed since {since}"))
            continue
        plan.append((paper, mine[0].value["before"], mine))
    return plan, kept


def _restore(session: Session, paper: Paper, before: dict[str, Any]) -> None:
    """Give ``paper`` the state ``before`` (:func:`paper_snapshot`)."""
    old = str(before["citekey"])
    if paper.citekey != old:
        session.execute(
            delete(Alias).where(Alias.paper_id == paper.id, Alias.alias_folded == old.lower()),
            execution_options=_FETCH,
        )
        session.flush()
        paper.citekey_folded = old.lower()
    for name in _SNAPSHOT_COLUMNS:
        setattr(paper, name, before[name])
    paper.updated_at = utcnow()
    session.execute(
        delete(PaperPerson).where(PaperPerson.paper_id == paper.id), execution_options=_FETCH
    )
    people = PaperRecord(
        authors=tuple(Person(**p) for p in before["author"]),
        editors=tuple(Person(**p) for p in before["editor"]),
    )
    session.flush()
    insert_people(session, [people], [paper.id])
    session.expire(paper, ["people"])
