"""The ORM Session's flush hooks that keep derived columns current (imports the ORM).

Registered on every :class:`~sqlalchemy.orm.Session` when this module is imported:
the ``readinglist.library`` package imports it before it hands out any name, and
every library module that writes through ORM objects imports it, so a Session of
ours never flushes without them. The commands that run on a Core Connection
(``show``, ``mark``, ``tag add``, ``note add -m``, ``list QUERY``; issue 17) never
import it: their writes call the rules themselves (:func:`.search.refresh_search_text`,
:func:`.rows.sources_changed`).

* ``source_intact``: a flush that changes a paper's bibliographic data (a Paper's
  :data:`.rows.BIBLIOGRAPHIC_ATTRIBUTES`, people links added or removed) clears it
  (:func:`.rows.sources_changed`).
* the search text: a flush that changes a paper's indexed data (a Paper's
  :data:`.search.INDEXED_COLUMNS` or people, a Note added, edited, moved or deleted, a
  Tag renamed) recomputes it (:func:`.search.recompute_stale`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import event, inspect, select
from sqlalchemy.orm import Session

from readinglist.library.rows import BIBLIOGRAPHIC_ATTRIBUTES, SOURCES_CHANGED, sources_changed
from readinglist.library.search import INDEXED_COLUMNS, SEEN, STALE, recompute_stale
from readinglist.models import Note, Paper, PaperPerson, PaperTag, Tag


@event.listens_for(Session, "before_flush")
def _note_source_changes(session: Session, _context: Any, _instances: Any) -> None:
    """Note the papers whose bibliographic data this flush changes (:func:`sources_changed`)."""
    changed: set[int] = session.info.setdefault(SOURCES_CHANGED, set())
    for obj in session.dirty:
        if isinstance(obj, Paper) and obj.id is not None:
            state = inspect(obj)
            if any(state.attrs[name].history.has_changes() for name in BIBLIOGRAPHIC_ATTRIBUTES):
                changed.add(obj.id)
        elif isinstance(obj, PaperPerson) and obj.paper_id is not None:
            changed.add(obj.paper_id)
    for obj in (*session.new, *session.deleted):
        if isinstance(obj, PaperPerson) and obj.paper_id is not None:
            changed.add(obj.paper_id)


@event.listens_for(Session, "after_flush_postexec")
def _clear_source_intact(session: Session, _context: Any) -> None:
    """Clear ``source_intact`` of the papers the flush changed (:func:`sources_changed`)."""
    changed: set[int] = session.info.pop(SOURCES_CHANGED, set())
    if changed:
        sources_changed(session, changed)


def _changed(obj: Any, names: Iterable[str]) -> bool:
    state = inspect(obj)
    return any(state.attrs[name].history.has_changes() for name in names)


@event.listens_for(Session, "before_flush")
def _note_changes(session: Session, _context: Any, _instances: Any) -> None:
    """Remember the objects of this flush that change some paper's indexed data."""
    seen: list[Any] = session.info.setdefault(SEEN, [])
    stale: set[int] = session.info.setdefault(STALE, set())
    for obj in session.dirty:
        if isinstance(obj, Paper) and _changed(obj, INDEXED_COLUMNS):
            stale.add(obj.id)
        elif isinstance(obj, Note) and _changed(obj, ("body", "paper_id")):
            stale.update(inspect(obj).attrs.paper_id.history.deleted or ())
            seen.append(obj)
        elif isinstance(obj, Tag) and _changed(obj, ("name",)):
            seen.append(obj)
    for obj in (*session.new, *session.deleted):
        if isinstance(obj, Note | PaperPerson | PaperTag):
            seen.append(obj)


@event.listens_for(Session, "after_flush_postexec")
def _refresh_changed(session: Session, _context: Any) -> None:
    """Recompute the search text of the papers the flush changed (see the module doc)."""
    seen: list[Any] = session.info.pop(SEEN, [])
    stale: set[int] = session.info.setdefault(STALE, set())
    for obj in seen:
        if isinstance(obj, Tag):
            stale.update(
                session.scalars(select(PaperTag.paper_id).where(PaperTag.tag_id == obj.id))
            )
        elif obj.paper_id is not None:
            stale.add(obj.paper_id)
    recompute_stale(session)
