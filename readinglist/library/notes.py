"""Notes: Markdown notes added to, edited in and deleted from papers.

The search text of their papers follows: :func:`insert_note` (Core; ``note add`` runs
it on a Connection without the ORM, issue 17) refreshes it itself, the ORM functions
through the Session's flush hooks (:mod:`.hooks`, registered by the package).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import insert, select

from readinglist import decided
from readinglist.errors import Conflict, NotFound, UsageError
from readinglist.library import readers
from readinglist.library.marks import update_columns
from readinglist.library.search import refresh_search_text
from readinglist.tables import NOTES, READERS, Executor, utcnow
from readinglist.text import plural

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from readinglist.models import Note, Paper


def add_note(
    session: Session, paper: Paper, body: str, *, at: datetime | None = None, shared: bool = False
) -> Note:
    """Add a Markdown note to ``paper`` and return it (its ``id`` assigned):
    :func:`insert_note` (the rule; UsageError for an empty note), then the object."""
    from readinglist.models import Note

    session.flush()
    note = session.get(Note, insert_note(session, paper.id, body, at=at, shared=shared))
    assert note is not None  # inserted in this transaction
    session.expire(paper, ["notes", "updated_at", "search_text"])
    return note


def insert_note(
    session: Executor,
    paper_id: int,
    body: str,
    *,
    at: datetime | None = None,
    shared: bool = False,
) -> int:
    """Add a Markdown note by the current reader (:mod:`.readers`, whose row is made on
    their first write) to the paper ``paper_id``; return the note's id. ``shared``: every
    reader sees it; else only its author.

    The text is kept as written, less surrounding blank lines and trailing white
    space. Created and updated times are ``at`` (default now, UTC), and so is the
    paper's ``updated_at``; the paper's search text is refreshed. Core statements
    (``note add -m`` on a Connection). Raises UsageError for an empty note.
    """
    text = body.strip("\n").rstrip()
    if not text.strip():
        raise UsageError("the note is empty; nothing added")
    when = at or utcnow()
    reader_id = readers.ensure(session)
    note_id: int = session.execute(
        insert(NOTES)
        .values(
            paper_id=paper_id,
            reader_id=reader_id,
            shared=shared,
            body=text,
            created_at=when,
            updated_at=when,
        )
        .returning(NOTES.c.id)
    ).scalar_one()
    update_columns(session, [paper_id], {"updated_at": when})
    refresh_search_text(session, [paper_id])
    return note_id


def get_note(session: Session, note_id: int) -> Note:
    """Return the note with id ``note_id``. Raises NotFound naming the id."""
    from readinglist.models import Note

    note = session.get(Note, note_id)
    if note is None or not _visible(session, note):
        raise NotFound(f"no note with id {note_id}")
    return note


def _visible(session: Executor, note: Note) -> bool:
    """True when the current reader sees ``note``: shared, or their own."""
    return bool(note.shared) or note.reader_id == readers.find(session)


def get_notes(session: Session, note_ids: Sequence[int]) -> list[Note]:
    """Return the notes ``note_ids`` in order without repeats; all or NotFound naming the unknown."""
    from readinglist.models import Note

    notes: list[Note] = []
    unknown: list[int] = []
    for note_id in dict.fromkeys(note_ids):
        note = session.get(Note, note_id)
        if note is None or not _visible(session, note):
            unknown.append(note_id)
        else:
            notes.append(note)
    if unknown:
        noun = plural(len(unknown), "note")
        raise NotFound(f"no {noun} with id {', '.join(map(str, unknown))}; nothing changed")
    return notes


def notes_of(session: Session, paper: Paper) -> list[Note]:
    """Return the notes of ``paper`` the current reader sees (shared and their own), oldest
    first."""
    from readinglist.models import Note

    return list(
        session.scalars(
            select(Note)
            .where(Note.paper_id == paper.id, decided.visible_note(NOTES))
            .order_by(Note.id)
        )
    )


def update_note(session: Session, note: Note, body: str, *, at: datetime | None = None) -> bool:
    """Replace the text of ``note``; return False when the text is the same (nothing done).

    Raises UsageError for an empty text (``note rm`` deletes a note), Conflict for a
    shared note of another reader (only its author changes it).
    """
    _check_author(session, [note], "edit")
    _check_author(session, [note], "edit")
    text = body.strip("\n").rstrip()
    if not text.strip():
        raise UsageError(f"the new text of note {note.id} is empty; nothing changed")
    if text == note.body:
        return False
    when = at or utcnow()
    note.body = text
    note.updated_at = when
    update_columns(session, [note.paper_id], {"updated_at": when})
    session.flush()
    _expire_notes(session, [note.paper_id])
    return True


def delete_notes(session: Session, notes: Sequence[Note]) -> None:
    """Delete ``notes`` and refresh the search text of their papers. Raises Conflict
    (nothing deleted) when one is a shared note of another reader."""
    _check_author(session, notes, "remove")
    paper_ids = sorted({n.paper_id for n in notes})
    for note in notes:
        session.delete(note)
    session.flush()
    _expire_notes(session, paper_ids)


def _check_author(session: Session, notes: Sequence[Note], action: str) -> None:
    """Raise Conflict (exit 4) when one of ``notes`` was written by another reader than
    the current one: a shared note is read by every reader, changed by its author only."""
    me = readers.find(session)
    others = [note for note in notes if note.reader_id != me]
    if not others:
        return
    ids = ", ".join(str(note.id) for note in others)
    names = session.scalars(
        select(READERS.c.name).where(READERS.c.id.in_({n.reader_id for n in others}))
    ).all()
    raise Conflict(
        f"{plural(len(others), 'note')} {ids} written by {', '.join(sorted(names))}: only "
        f"its author can {action} a shared note; nothing changed"
    )


def _expire_notes(session: Session, paper_ids: Iterable[int]) -> None:
    from readinglist.models import Paper

    wanted = set(paper_ids)
    for obj in list(session.identity_map.values()):
        if isinstance(obj, Paper) and obj.id in wanted:
            session.expire(obj, ["notes"])
