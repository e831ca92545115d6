"""The search text of a paper: derived here only, and kept current by every write.

``papers.search_text`` holds the folded words of a paper's title, short name,
abstract, people, venue, keywords, tags and notes (:func:`search_text_for`); the
full-text index follows it (an SQLite trigger, a PostgreSQL generated column).

Kept current: a write on a Core Connection (``tag add``, ``note add``: the commands
a person types, which never import the ORM; issue 17) calls
:func:`refresh_search_text` with the papers it touched, which recomputes their text
from Core rows in the same transaction (:func:`write_search_text`). On an ORM
Session, the flush hooks of :mod:`readinglist.library.hooks` note the papers whose
indexed data a flush changes (a Paper's indexed columns or people, a Note added,
edited, moved or deleted, a Tag renamed) and recompute them after it
(:func:`recompute_stale`), the same way; Core bulk statements in a Session (tag
links, people relinked by ``edit``, notes moved by ``merge``, an import's merges)
call :func:`refresh_search_text` too; an import computes the text of new papers in
bulk (:func:`search_text_prepared`). This module imports no ORM.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection

from readinglist.library._sql import CHUNK
from readinglist.library.listing_rows import iter_listing_records
from readinglist.library.rows import to_record
from readinglist.records import PaperRecord
from readinglist.records import Person as PersonRecord
from readinglist.tables import PAPERS, Executor, dialect_name, utcnow
from readinglist.text import fold, has_latex, search_document, search_tokens, unique_tags

if TYPE_CHECKING:  # only types here: `mark` and `show` need no rapidfuzz (issue 17)
    from sqlalchemy.orm import Session

    from readinglist.models import Paper
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
STALE = "readinglist.search_stale"
#: ``session.info`` key of ORM objects seen changed by ``before_flush`` (ids known after it).
SEEN = "readinglist.search_seen"
#: ``Session.info`` key: set inside :func:`search_text_deferred`.
DEFERRED = "readinglist.search_deferred"


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


def refresh_search_text(session: Executor, paper_ids: Iterable[int]) -> None:
    """Recompute ``search_text`` (and the full-text index) of the given papers from the database.

    On a Connection: :func:`write_search_text` at once. On a Session: flushes it first
    (its own changes are then counted in), then writes the text of ``paper_ids`` and of
    any paper the flush marked stale (:func:`recompute_stale`).
    """
    if isinstance(session, Connection):
        write_search_text(session, sorted(set(paper_ids)))
        return
    mark_stale(session, paper_ids)
    session.flush()
    recompute_stale(session)


def paper_search_text(paper: Paper) -> str:
    """Return the search text ``paper`` should have: :func:`search_text_for` over its
    record, tags and shared notes (loaded; see ``rows.load_papers``): a private note is
    searched for its author alone (``query.fulltext.text_clause``), so its words are not
    in the index every reader's search reads. ``db check`` compares it."""
    return search_text_for(
        to_record(paper), (t.name for t in paper.tags), (n.body for n in paper.notes if n.shared)
    )


def mark_stale(session: Session, paper_ids: Iterable[int]) -> None:
    """Note that the search text of ``paper_ids`` must be recomputed at the next flush
    (or :func:`refresh_search_text`)."""
    session.info.setdefault(STALE, set()).update(paper_ids)


@contextmanager
def search_text_deferred(session: Session) -> Iterator[None]:
    """Within the block, a flush of ``session`` marks the papers it changed stale but
    recomputes nothing (:func:`recompute_stale` waits): for a loop that changes papers one
    flush at a time and then refreshes them all at once (:func:`refresh_search_text`
    after the block, which recomputes every mark). Yields nothing; raises what the block
    raises (the marks then wait for the next flush)."""
    session.info[DEFERRED] = True
    try:
        yield
    finally:
        session.info.pop(DEFERRED, None)


def recompute_stale(session: Session) -> None:
    """Recompute the search text of the papers marked stale in ``session``
    (:func:`write_search_text`); the papers of the session's identity map get the new
    ``search_text`` and ``updated_at`` as committed values. Does nothing inside
    :func:`search_text_deferred` (the marks are kept)."""
    if session.info.get(DEFERRED):
        return
    ids = sorted(session.info.pop(STALE, set()))
    if not ids:
        return
    written = write_search_text(session, ids)
    if not written:
        return
    from sqlalchemy.orm.attributes import set_committed_value

    from readinglist.models import Paper

    for paper_id, (text, when) in written.items():
        paper = session.identity_map.get(session.identity_key(Paper, paper_id))
        if paper is not None:
            set_committed_value(paper, "search_text", text)
            set_committed_value(paper, "updated_at", when)


#: The ``papers`` columns the search text is made of (with ``id`` and ``citekey``,
#: which a PaperRecord needs), read by :func:`write_search_text`.
_TEXT_COLUMNS = ("id", "citekey", "title", "short_name", "abstract", "venue", "keywords")


def write_search_text(session: Executor, ids: Sequence[int]) -> dict[int, tuple[str, Any]]:
    """Recompute the search text of the papers ``ids`` from Core rows, writing only what
    differs; return ``{paper id: (new text, updated_at)}`` of those written.

    The papers are locked first (PostgreSQL ``FOR NO KEY UPDATE``, in id order; SQLite's
    write lock is already held): two transactions tagging one paper at once would
    otherwise each write a text missing the other's tag. The text is written with one
    Core UPDATE per chunk that also sets ``updated_at``, as an ORM update would
    (``papers.updated_at`` has ``onupdate``).
    """
    if not ids:
        return {}
    stored: dict[int, str] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = list(ids[start : start + CHUNK])
        stmt = select(PAPERS.c.id, PAPERS.c.search_text).where(PAPERS.c.id.in_(chunk))
        if dialect_name(session) == "postgresql":
            # key_share: does not wait for the FOR KEY SHARE locks that inserting a
            # paper_tags/notes row takes on the paper (which would deadlock two taggers).
            stmt = stmt.order_by(PAPERS.c.id).with_for_update(key_share=True)
        stored.update((int(pid), text) for pid, text in session.execute(stmt))
    now = utcnow()
    written: dict[int, tuple[str, Any]] = {}
    records = iter_listing_records(
        session,
        ids,
        columns=_TEXT_COLUMNS,
        with_editors=True,
        with_notes=True,
        shared_notes_only=True,
    )
    for pid, record in records:
        text = search_text_for(record, record.tags, (note.text for note in record.notes))
        if stored.get(pid) != text:
            written[pid] = (text, now)
    if written:
        # One executemany, not one statement per paper (an import's 2,000 merges).
        write = (
            update(PAPERS)
            .where(PAPERS.c.id == bindparam("b_id"))
            .values(search_text=bindparam("b_text"), updated_at=now)
        )
        session.execute(
            write, [{"b_id": pid, "b_text": text} for pid, (text, _) in written.items()]
        )
    return written
