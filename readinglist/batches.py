"""Import batches: ``import --list-batches`` and ``import --undo`` (issue 18 among others).

* :func:`list_batches` lists the batches still in the library, with their papers.
* :func:`undo_batch` removes what a batch added (keeping papers worked on since, named with
  :func:`reasons_to_keep`), or puts back the papers a ``resolve`` batch completed. A batch
  undone whole stays as an :data:`UNDONE` row, so its number is never given to another.

Functions take a Session inside the caller's transaction and never commit; they raise
ReadingListError subclasses and never print. Split from :mod:`readinglist.maintenance`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import delete, exists, func, select, update
from sqlalchemy.orm import Session

from readinglist import library
from readinglist.errors import NotFound
from readinglist.models import PRIORITY_NAMES, ImportBatch, Paper, PaperPerson, Person
from readinglist.text import counted


@dataclass(frozen=True)
class BatchInfo:
    """One import batch: ``papers`` is how many papers it added are still in the library.

    The fields, in this order, are the keys of ``import --list-batches --json``.
    """

    id: int
    source: str
    format: str
    started: datetime
    added: int
    merged: int
    rejected: int
    papers: int


def _batch_info(batch: ImportBatch, papers: int) -> BatchInfo:
    return BatchInfo(
        batch.id,
        batch.source,
        batch.format,
        batch.started_at,
        batch.added,
        batch.merged,
        batch.rejected,
        papers,
    )


#: The ``format`` of a batch undone whole: its row stays so that SQLite (which reuses the
#: largest deleted rowid) never gives its number to a later batch; listings skip it.
UNDONE = "undone"


def list_batches(session: Session) -> list[BatchInfo]:
    """Return every import batch, oldest first, with the count of its papers still present."""
    rows = session.execute(
        select(Paper.batch_id, func.count(Paper.id))
        .where(Paper.batch_id.is_not(None))
        .group_by(Paper.batch_id)
    ).tuples()
    counts = {batch_id: count for batch_id, count in rows}  # noqa: C416 (dict(result) reads Result.keys() as a mapping)
    batches = session.scalars(
        select(ImportBatch)
        .where(ImportBatch.format != UNDONE)
        .order_by(ImportBatch.started_at, ImportBatch.id)
    )
    return [_batch_info(b, int(counts.get(b.id, 0))) for b in batches]


@dataclass
class UndoReport:
    """What :func:`undo_batch` did: ``removed`` keys, ``kept`` (key, reasons) pairs,
    ``restored`` keys (preprints the batch superseded, put back), and whether the batch
    record itself was deleted (nothing of it remains)."""

    batch: BatchInfo
    removed: list[str] = field(default_factory=list)
    kept: list[tuple[str, list[str]]] = field(default_factory=list)
    batch_deleted: bool = False
    #: Papers put back as they were before the batch (a preprint it superseded).
    restored: list[str] = field(default_factory=list)


def reasons_to_keep(paper: Paper) -> list[str]:
    """Return why an undo must keep ``paper``, loaded with its tags and notes (empty: it may go).

    A paper is kept when the user has worked on it since the import: triaged
    (status other than ``new``, or a priority), annotated (notes), or changed in
    any other way (``updated_at`` after ``added_at``: tags added or removed after
    the import, an edit, a rekey, a merge or a later import filling it). Tags
    given at import (``--tag`` or in the file) leave ``updated_at`` equal to
    ``added_at`` and so do not keep a paper.
    """
    reasons: list[str] = []
    if paper.status != "new":
        reasons.append(f"status {paper.status}")
    if paper.priority is not None:
        reasons.append(f"priority {PRIORITY_NAMES.get(paper.priority, paper.priority)}")
    if paper.notes:
        reasons.append(counted(len(paper.notes), "note"))
    if paper.updated_at != paper.added_at and not reasons:
        # What changed is not recorded (a tag link has no date): the paper's tags were
        # named here, which blamed the import's own ``--tag`` for a ``resolve``'s edit.
        reasons.append(
            "changed since import (an edit, a tag added or removed, or a completion by "
            "resolve or a later import)"
        )
    return reasons


def undo_batch(
    session: Session,
    batch_id: int,
    spare: Callable[[Session, dict[str, str]], None] | None = None,
) -> UndoReport:
    """Remove the papers import batch ``batch_id`` added, except those worked on since.

    Papers kept are listed with their reasons (:func:`reasons_to_keep`). Merges of
    the batch into papers that existed before are not reverted, except a published
    version superseding a preprint: the preprint is put back as it was
    (``snapshots.undo_completions``; kept when changed since). A ``resolve`` batch
    adds no paper: its completions are reverted instead (:func:`_undo_resolve`). People left
    without any paper are removed; tags stay. When nothing of the batch remains it is
    marked :data:`UNDONE` (its row stays, so its number is never reused).
    ``spare``, when given, is shown the papers about to be removed before anything is:
    each of their citation keys and aliases (a key they were merged from) mapped to
    the paper's key, and then the keys a completion gave that its undo drops; it may
    raise to refuse the undo (the caller's rule, such as kept exports citing them). Raises NotFound (exit 3) for an unknown or already undone batch.
    """
    batch = session.get(ImportBatch, batch_id)
    if batch is None or batch.format == UNDONE:
        undone = " (it was undone)" if batch is not None else ""
        raise NotFound(
            f"no import batch {batch_id}{undone} (see `readinglist import --list-batches`)"
        )
    if batch.format == "resolve":
        return _undo_resolve(session, batch, spare)
    ids = list(
        session.scalars(select(Paper.id).where(Paper.batch_id == batch_id).order_by(Paper.id))
    )
    report = UndoReport(_batch_info(batch, len(ids)))
    doomed: list[Paper] = []
    for paper in library.load_papers(session, ids):
        reasons = reasons_to_keep(paper)
        if reasons:
            report.kept.append((paper.citekey, reasons))
        else:
            doomed.append(paper)
    if spare is not None and doomed:
        names = {
            name: paper.citekey
            for paper in doomed
            for name in (paper.citekey, *(alias.alias for alias in paper.aliases))
        }
        spare(session, names)
    people = sorted({pp.person_id for paper in doomed for pp in paper.people})
    report.removed = library.delete_papers(session, doomed)
    # Preprints this import superseded with their published versions: put back.
    report.restored, changed = library.undo_completions(session, batch_id, "this import", spare)
    report.kept += [(key, [reason]) for key, reason in changed]
    for start in range(0, len(people), library.CHUNK):
        chunk = people[start : start + library.CHUNK]
        session.execute(
            delete(Person).where(
                Person.id.in_(chunk),
                ~exists().where(PaperPerson.person_id == Person.id),
            )
        )
    if not report.kept:
        _tombstone(session, report)
    return report


def _tombstone(session: Session, report: UndoReport) -> None:
    """Mark the batch of ``report`` :data:`UNDONE` (kept, not deleted: see there)."""
    session.execute(
        update(ImportBatch)
        .where(ImportBatch.id == report.batch.id)
        .values(format=UNDONE, bibtex_strings=None, bibtex_preamble=None)
    )
    report.batch_deleted = True


def _undo_resolve(
    session: Session,
    batch: ImportBatch,
    spare: Callable[[Session, dict[str, str]], None] | None,
) -> UndoReport:
    """Revert the completions of ``resolve``'s import ``batch``
    (:func:`readinglist.library.snapshots.undo_completions`; ``spare`` is shown the keys
    it gave that the undo drops, and may refuse): ``removed`` names the papers
    put back as they were (``new -> old`` when the key changes back), ``kept`` those
    changed since; the batch record goes when nothing of it remains."""
    restored, kept = library.undo_completions(session, batch.id, spare=spare)
    report = UndoReport(_batch_info(batch, 0), removed=restored)
    report.kept = [(key, [reason]) for key, reason in kept]
    if not kept:
        _tombstone(session, report)
    return report
