"""The search text of a paper: derived here only, and kept current by the Session's flush.

``papers.search_text`` holds the folded words of a paper's title, short name,
abstract, people, venue, keywords, tags and notes (:func:`search_text_for`); the
full-text index follows it (an SQLite trigger, a PostgreSQL generated column).

Kept current automatically: a ``before_flush`` hook on every ORM Session notes the
papers whose indexed data a flush changes (a Paper's indexed columns or people, a
Note added, edited, moved or deleted, a Tag renamed), and an ``after_flush_postexec``
hook recomputes their text from the database in the same transaction
(:func:`refresh_search_text`). Writes that bypass the ORM (Core bulk statements:
tag links, people relinked by ``edit``, notes moved by ``merge``, an import's
merges) call :func:`refresh_search_text` with the papers they touched; an import
computes the text of new papers in bulk (:func:`search_text_prepared`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Table, bindparam, event, inspect, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from readinglist.library.rows import load_papers, to_record
from readinglist.models import Note, Paper, PaperPerson, PaperTag, Tag, utcnow
from readinglist.records import PaperRecord
from readinglist.records import Person as PersonRecord
from readinglist.text import fold, has_latex, search_document, search_tokens, unique_tags

if TYPE_CHECKING:  # only a type here: `mark` and `show` need no rapidfuzz (issue 17)
    from readinglist.prepare import Prepared

#: Display forms of names whose search words :func:`people_words` keeps (a few MiB).
PERSON_WORDS_CACHE = 1 << 15

#: Paper attributes the search text is made of.
INDEXED_COLUMNS = (
    "title",
    "short_name",
    "abstract",
    "venue",
    "keywords",
    "people",
    "tags",
    "notes",
)
#: ``session.info`` key of the set of paper ids whose search text is stale.
_STALE = "readinglist.search_stale"
#: ``session.info`` key of ORM objects seen changed by ``before_flush`` (ids known after it).
_SEEN = "readinglist.search_seen"


def search_text_for(
    record: PaperRecord, tags: Iterable[str] = (), notes: Iterable[str] = ()
) -> str:
    """Return the folded words indexed for full-text search of a paper.

    Title, short name, abstract, authors, editors, venue, keywords, tags and notes.
    Tags are taken once per tag (``text.unique_tags``: "Mast cell" and "mast cell" are
    one tag, as the database keeps them) in folded-name order, so an import (tags in command-line order)
    and a later refresh (tags in the database's collation order, which differs
    between SQLite and PostgreSQL) write the same text; ``db check`` compares them.
    """
    people = " ".join(p.display() for p in (*record.authors, *record.editors))
    # One word run per tag as stored: names that are one tag (``text.tag_key``: "Mast
    # cell", "mast cell") were counted twice by an import and once by a refresh.
    return search_document(
        record.title,
        record.short_name,
        record.abstract,
        people,
        record.venue,
        " ".join(record.keywords),
        " ".join(sorted(unique_tags(tags), key=fold)),
        " ".join(notes),
    )


def search_text_prepared(item: Prepared, record: PaperRecord, tags: Iterable[str]) -> str:
    """:func:`search_text_for` ``(record, tags)``, reusing the title and abstract words the
    import computed for ``item`` (``record`` is ``item.record`` under its final key)."""
    # One string per part (the title's words are its title_key): few objects to keep
    # and to pass from a reader process.
    words = [item.tkey] if item.tkey else []
    if record.short_name:
        words.extend(search_tokens(record.short_name))
    if item.abstract_words:
        words.append(item.abstract_words)
    words.extend(people_words((*record.authors, *record.editors)))
    for part in (record.venue, " ".join(record.keywords), " ".join(sorted(tags, key=fold))):
        if part:
            words.extend(search_tokens(part))
    return " ".join(words)


def people_words(people: Sequence[PersonRecord]) -> list[str]:
    """The search words of ``people`` as :func:`search_text_for` indexes them
    (``search_tokens`` of their display forms joined by spaces), one string per person.

    Each name's words are folded once per import and kept (:func:`_display_words`): a
    bibliography names the same people again and again, in lists that differ (issue 17
    item 5). That is the same words as the joined forms' as long as no form holds LaTeX
    markup (folding decodes it, and markup may span two names): those are folded joined.
    """
    displays = [p.display() for p in people]
    if not displays:
        return []
    joined = " ".join(displays)
    if has_latex(joined):
        return search_tokens(joined)
    return [words for display in displays if (words := _display_words(display))]


@lru_cache(maxsize=PERSON_WORDS_CACHE)
def _display_words(display: str) -> str:
    """``search_tokens(display)`` joined by spaces (cached; see :func:`people_words`)."""
    return " ".join(search_tokens(display))


def refresh_search_text(session: Session, paper_ids: Iterable[int]) -> None:
    """Recompute ``search_text`` (and the full-text index) of the given papers from the database.

    Flushes the session first (its own changes are then counted in), then writes the
    text of ``paper_ids`` and of any paper the flush marked stale (:func:`_recompute_stale`).
    For writes that bypass the ORM; ORM changes are followed by the flush hooks.
    """
    mark_stale(session, paper_ids)
    session.flush()
    _recompute_stale(session)


def paper_search_text(paper: Paper) -> str:
    """Return the search text ``paper`` should have: :func:`search_text_for` over its
    record, tags and notes (loaded; see ``rows.load_papers``). ``db check`` compares it."""
    return search_text_for(
        to_record(paper), (t.name for t in paper.tags), (n.body for n in paper.notes)
    )


def mark_stale(session: Session, paper_ids: Iterable[int]) -> None:
    """Note that the search text of ``paper_ids`` must be recomputed at the next flush
    (or :func:`refresh_search_text`)."""
    session.info.setdefault(_STALE, set()).update(paper_ids)


def _recompute_stale(session: Session) -> None:
    """Recompute the search text of the papers marked stale, writing only what differs.

    The papers are locked and reloaded first (``load_papers(lock=True)``): on
    PostgreSQL two transactions tagging one paper at once would otherwise each write
    a text missing the other's tag. The text is written with a Core UPDATE (this runs
    inside a flush) that also sets ``updated_at``, as an ORM update would
    (``Paper.updated_at`` has ``onupdate``); the loaded papers get the same values.
    """
    ids = sorted(session.info.pop(_STALE, set()))
    if not ids:
        return
    papers = cast(Table, Paper.__table__)
    now = utcnow()
    rows: list[dict[str, Any]] = []
    for paper in load_papers(session, ids, lock=True):
        text = paper_search_text(paper)
        if paper.search_text == text:
            continue
        rows.append({"b_id": paper.id, "b_text": text})
        set_committed_value(paper, "search_text", text)
        set_committed_value(paper, "updated_at", now)
    if rows:
        # One executemany, not one statement per paper (an import's 2,000 merges).
        stmt = (
            update(papers)
            .where(papers.c.id == bindparam("b_id"))
            .values(search_text=bindparam("b_text"), updated_at=now)
        )
        session.execute(stmt, rows)


def _changed(obj: Any, names: Iterable[str]) -> bool:
    state = inspect(obj)
    return any(state.attrs[name].history.has_changes() for name in names)


@event.listens_for(Session, "before_flush")
def _note_changes(session: Session, _context: Any, _instances: Any) -> None:
    """Remember the objects of this flush that change some paper's indexed data."""
    seen: list[Any] = session.info.setdefault(_SEEN, [])
    stale: set[int] = session.info.setdefault(_STALE, set())
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
    seen: list[Any] = session.info.pop(_SEEN, [])
    stale: set[int] = session.info.setdefault(_STALE, set())
    for obj in seen:
        if isinstance(obj, Tag):
            stale.update(
                session.scalars(select(PaperTag.paper_id).where(PaperTag.tag_id == obj.id))
            )
        elif obj.paper_id is not None:
            stale.add(obj.paper_id)
    _recompute_stale(session)
