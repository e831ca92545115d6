"""Notes: Markdown notes added to, edited in and deleted from papers.

The search text of their papers follows through the session's flush (:mod:`.search`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from readinglist.errors import NotFound, UsageError
from readinglist.library import search as _search  # noqa: F401  (registers the flush hook)
from readinglist.models import (
    Note,
    Paper,
    utcnow,
)
from readinglist.text import plural


def add_note(session: Session, paper: Paper, body: str, *, at: datetime | None = None) -> Note:
    """Add a Markdown note to ``paper`` and return it (its ``id`` assigned).

    The text is kept as written, less surrounding blank lines and trailing white
    space. Created and updated times are ``at`` (default now, UTC). The paper's
    search text is refreshed. Raises UsageError for an empty note.
    """
    text = body.strip("\n").rstrip()
    if not text.strip():
        raise UsageError("the note is empty; nothing added")
    when = at or utcnow()
    note = Note(paper_id=paper.id, body=text, created_at=when, updated_at=when)
    session.add(note)
    paper.updated_at = when
    session.flush()
    session.expire(paper, ["notes"])
    return note


def get_note(session: Session, note_id: int) -> Note:
    """Return the note with id ``note_id``. Raises NotFound naming the id."""
    note = session.get(Note, note_id)
    if note is None:
        raise NotFound(f"no note with id {note_id}")
    return note


def get_notes(session: Session, note_ids: Sequence[int]) -> list[Note]:
    """Return the notes ``note_ids`` in order without repeats; all or NotFound naming the unknown."""
    notes: list[Note] = []
    unknown: list[int] = []
    for note_id in dict.fromkeys(note_ids):
        note = session.get(Note, note_id)
        if note is None:
            unknown.append(note_id)
        else:
            notes.append(note)
    if unknown:
        noun = plural(len(unknown), "note")
        raise NotFound(f"no {noun} with id {', '.join(map(str, unknown))}; nothing changed")
    return notes


def notes_of(session: Session, paper: Paper) -> list[Note]:
    """Return the notes of ``paper``, oldest first."""
    return list(session.scalars(select(Note).where(Note.paper_id == paper.id).order_by(Note.id)))


def update_note(session: Session, note: Note, body: str, *, at: datetime | None = None) -> bool:
    """Replace the text of ``note``; return False when the text is the same (nothing done).

    Raises UsageError for an empty text (``note rm`` deletes a note).
    """
    text = body.strip("\n").rstrip()
    if not text.strip():
        raise UsageError(f"the new text of note {note.id} is empty; nothing changed")
    if text == note.body:
        return False
    when = at or utcnow()
    note.body = text
    note.updated_at = when
    session.execute(update(Paper).where(Paper.id == note.paper_id).values(updated_at=when))
    session.flush()
    _expire_notes(session, [note.paper_id])
    return True


def delete_notes(session: Session, notes: Sequence[Note]) -> None:
    """Delete ``notes`` and refresh the search text of their papers."""
    paper_ids = sorted({n.paper_id for n in notes})
    for note in notes:
        session.delete(note)
    session.flush()
    _expire_notes(session, paper_ids)


def _expire_notes(session: Session, paper_ids: Iterable[int]) -> None:
    wanted = set(paper_ids)
    for obj in list(session.identity_map.values()):
        if isinstance(obj, Paper) and obj.id in wanted:
            session.expire(obj, ["notes"])
