"""References: a REF (citation key or alias) or a query resolved to papers, and completion.

Raises NotFound naming what is unknown; the query language is ``readinglist.query``.
The functions that return ids or Core rows take an :data:`~readinglist.tables.Executor`
(a Session or a Connection) and import no ORM; those that return ORM papers import it
when called.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from sqlalchemy import Row, select

from readinglist import citekeys, decided
from readinglist.errors import NotFound, UsageError
from readinglist.library._sql import CHUNK
from readinglist.tables import ALIASES, PAPERS, Executor, connection_of, utcnow
from readinglist.text import plural

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from readinglist.models import Paper


def find_paper_id(session: Executor, ref: str) -> int | None:
    """Return the id of the paper whose citation key or alias is ``ref``
    (case-insensitive), or None. Core statements on the tables: no mapper is configured
    (``mark`` and ``priority`` load no ORM object; issue 17)."""
    folded = ref.strip().lower()
    found = session.scalar(select(PAPERS.c.id).where(PAPERS.c.citekey_folded == folded))
    if found is None:
        found = session.scalar(select(ALIASES.c.paper_id).where(ALIASES.c.alias_folded == folded))
    return None if found is None else int(found)


def find_paper(session: Session, ref: str) -> Paper | None:
    """Return the paper whose citation key or alias is ``ref`` (case-insensitive), or None
    (:func:`find_paper_id`, then the object)."""
    paper_id = find_paper_id(session, ref)
    return None if paper_id is None else _get(session, paper_id)


def keys_in_query(session: Executor, query_text: str) -> list[str]:
    """The words of ``query_text`` that are citation keys or aliases, as written.

    For the hint of a query that selected nothing: a bare word is free text, which does
    not search citation keys (``list spar2026`` finds nothing; ``key:spar2026`` does).
    Words with a field (``tag:x``), quotes or operators are not looked at.
    """
    words = [w for w in query_text.split() if w.isprintable() and not set(w) & set(':"()*')]
    return [w for w in dict.fromkeys(words) if key_taken(session, w.lower())][:5]


def resolve(session: Session, ref: str) -> Paper:
    """Return the paper for ``ref`` (a citation key or alias). Raises NotFound naming it
    (:func:`resolve_id`)."""
    return _get(session, resolve_id(session, ref))


def resolve_id(session: Executor, ref: str) -> int:
    """Return the id of the paper for ``ref`` (a citation key or alias; Core, no ORM).
    Raises NotFound naming it."""
    paper_id = find_paper_id(session, ref)
    if paper_id is None:
        raise NotFound(f"no paper with citation key {ref!r}")
    return paper_id


def citekey_of(session: Executor, paper_id: int) -> str:
    """Return the citation key of the paper ``paper_id`` (which exists)."""
    return str(session.scalar(select(PAPERS.c.citekey).where(PAPERS.c.id == paper_id)))


def resolve_many(session: Session, refs: Sequence[str]) -> list[Paper]:
    """Resolve every REF, in order and without repeats; all or nothing.

    Raises NotFound naming every unknown REF (nothing is changed by the caller then).
    """
    return [_get(session, paper_id) for paper_id in _resolve_ids(session, refs)]


def _resolve_ids(session: Executor, refs: Sequence[str]) -> list[int]:
    """The ids of :func:`resolve_many` (NotFound naming every unknown REF)."""
    ids, unknown = _find_all_ids(session, refs)
    if unknown:
        names = ", ".join(repr(r) for r in unknown)
        noun = plural(len(unknown), "citation key")
        raise NotFound(f"no paper with {noun} {names}; nothing changed")
    return ids


def _get(session: Session, paper_id: int) -> Paper:
    from readinglist.models import Paper

    paper = session.get(Paper, paper_id)
    assert paper is not None  # found in this transaction
    return paper


def key_taken(session: Executor, folded: str) -> bool:
    """True when ``folded`` (a lower-case key) is a paper's key or an alias."""
    # Table columns (Core): `list QUERY` calls this when nothing matched, and so
    # configures no mapper (models.PAPERS).
    if session.scalar(select(PAPERS.c.id).where(PAPERS.c.citekey_folded == folded)) is not None:
        return True
    found = session.scalar(select(ALIASES.c.paper_id).where(ALIASES.c.alias_folded == folded))
    return found is not None


def resolve_targets(session: Session, refs: Sequence[str], query_text: str | None) -> list[Paper]:
    """Return the papers a command acts on: its REFs, or every paper ``-q QUERY`` selects.

    Exactly one of ``refs`` (citation keys or aliases, all of which must exist) and
    ``query_text`` (not blank) must be given; a REF is never parsed as a query, since
    keys may contain ``:``. Raises UsageError for neither, both or a blank query;
    NotFound naming every unknown REF; InvalidQuery for a bad query.
    """
    if _check_targets(refs, query_text):
        return select_papers(session, query_text or "")
    return resolve_many(session, refs)


#: The columns of :func:`target_rows`.
TARGET_COLUMNS = ("id", "citekey", "status", "priority")


def target_rows(session: Executor, refs: Sequence[str], query_text: str | None) -> list[Row[Any]]:
    """:func:`resolve_targets` as Core rows of :data:`TARGET_COLUMNS` (``row.id``,
    ``row.citekey``, ``row.status``, ``row.priority``), in the same order, with the same
    errors: for commands that change one column (``mark``, ``priority``), which then
    load no ORM object and configure no mapper (~55 ms CPU; issue 17)."""
    if _check_targets(refs, query_text):
        from readinglist import query

        ids = query.paper_ids(session, query_text or "")
    else:
        ids = _resolve_ids(session, refs)
    columns = select(
        PAPERS.c.id, PAPERS.c.citekey, decided.column("status"), decided.column("priority")
    )
    found: dict[int, Row[Any]] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        found.update(
            (row.id, row) for row in session.execute(columns.where(PAPERS.c.id.in_(chunk)))
        )
    return [found[i] for i in ids if i in found]


def _check_targets(refs: Sequence[str], query_text: str | None) -> bool:
    """True when the targets are a query's, False when REFs (the rule of
    :func:`resolve_targets`); raises UsageError for neither, both or a blank query."""
    if refs and query_text is not None:
        raise UsageError("give REFs or -q QUERY, not both")
    if query_text is not None:
        if not query_text.strip():
            raise UsageError("-q needs a query (an empty one would select every paper)")
        return True
    if not refs:
        raise UsageError("give at least one REF (citation key or alias) or -q QUERY")
    return False


def select_papers(
    session: Session,
    query_text: str = "",
    *,
    sort: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
) -> list[Paper]:
    """Return the papers ``query_text`` selects (all when empty), sorted, loaded with relations.

    See ``readinglist.query`` for the language and the sort keys. Raises InvalidQuery.
    """
    from readinglist import query  # here: `show` and `mark REF` never parse a query
    from readinglist.library.rows import load_papers

    ids = query.paper_ids(session, query_text, sort=sort, limit=limit, reverse=reverse)
    return load_papers(session, ids)


def select_ids_and_keys(session: Executor, query_text: str = "") -> list[tuple[int, str]]:
    """Return ``(id, citation key)`` of the papers ``query_text`` selects, in
    :func:`select_papers` order, in one query and without loading papers (``export``).

    Raises InvalidQuery.
    """
    from readinglist import query

    stmt = query.statement(session, query_text, (PAPERS.c.id, PAPERS.c.citekey))
    # Columns only: run on the connection, without the ORM's row handling (100,000
    # papers: about a third of a second less, issue 17).
    rows = connection_of(session).execute(stmt).all()  # one fetch, not one per row
    return [(int(paper_id), str(key)) for paper_id, key in rows]


def select_ids(session: Executor, query_text: str = "") -> array[int]:
    """Return the ids of the papers ``query_text`` selects, in :func:`select_papers`
    order, in one query, as an ``array('q')``: 8 bytes a paper, where a list of ints
    takes 40 and :func:`select_ids_and_keys` about 160 (an export holds a whole library's
    selection while it writes it: 500,000 papers, issue 17).

    Raises InvalidQuery.
    """
    from readinglist import query

    stmt = query.statement(session, query_text)
    found = array("q")
    # fetched CHUNK * 4 rows at a time (fetchmany): iterating the result fetched a row
    # per call (61,000 calls, about a tenth of a second at 61,000 papers)
    for part in connection_of(session).execute(stmt).scalars().partitions(CHUNK * 4):
        found.extend(part)
    return found


def papers_for_keys(session: Session, refs: Sequence[str]) -> tuple[list[Paper], list[str]]:
    """Return ``(papers, missing refs)`` for citation keys or aliases, in first-seen order.

    The papers come loaded with people, tags and notes (:func:`load_papers`).
    """
    from readinglist.library.rows import load_papers

    ids, missing = _find_all_ids(session, refs)
    return load_papers(session, ids), missing


def _find_all_ids(session: Executor, refs: Sequence[str]) -> tuple[list[int], list[str]]:
    """Return ``(ids of refs in first-seen order without repeats, unknown refs)``."""
    ids: list[int] = []
    unknown: list[str] = []
    seen: set[int] = set()
    for ref in refs:
        paper_id = find_paper_id(session, ref)
        if paper_id is None:
            unknown.append(ref)
        elif paper_id not in seen:
            seen.add(paper_id)
            ids.append(paper_id)
    return ids, unknown


def crossref_values(session: Session) -> list[tuple[int, str]]:
    """Return ``(paper id, crossref value)`` of every paper whose ``fields`` name a
    ``crossref`` parent (the value as stored, not folded). The JSON text's plain
    search first (a superset), so most rows are never decoded."""
    from sqlalchemy import Text, cast

    crossref = PAPERS.c.fields["crossref"].as_string()
    named = cast(PAPERS.c.fields, Text).contains('"crossref"', autoescape=True)
    rows = connection_of(session).execute(
        select(PAPERS.c.id, crossref).where(named, crossref.is_not(None))
    )
    return [(int(paper_id), str(value)) for paper_id, value in rows]


def follow_crossrefs(session: Session, renamed: Mapping[str, str]) -> list[int]:
    """Point every ``crossref`` naming an old key of ``renamed`` (old key -> new key;
    compared case-insensitively, as BibTeX compares keys) at the new key; return the
    ids of the papers changed.

    Called where a paper's key becomes an alias (``rekey``, ``merge``, a real key
    adopted from a later source or at import): the old key still finds the paper in
    readinglist, but BibTeX and biber resolve ``crossref`` only among the exported
    keys. The children's flush clears their ``source_intact``, so the export writes
    them again. One scan of the crossref values, however many keys changed.
    """
    new_keys = {
        old.strip().casefold(): new
        for old, new in renamed.items()
        if old and old.strip() and old.strip().casefold() != new.casefold()
    }
    if not new_keys:
        return []
    targets = {
        pid: new_keys[value.strip().casefold()]
        for pid, value in crossref_values(session)
        if value.strip().casefold() in new_keys
    }
    from readinglist.models import Paper

    ids = list(targets)
    for start in range(0, len(ids), CHUNK):
        for child in session.scalars(select(Paper).where(Paper.id.in_(ids[start : start + CHUNK]))):
            child.fields = {**child.fields, "crossref": targets[child.id]}
            child.updated_at = utcnow()
    if ids:
        session.flush()
    return ids


def crossref_closure(
    session: Session, ids: Sequence[int]
) -> tuple[list[tuple[int, str, str]], list[tuple[str, str]]]:
    """The ``crossref`` parents the papers ``ids`` need and do not include.

    BibTeX resolves ``crossref`` only among the entries of the file it reads, and stops
    a child whose parent is absent with "A bad cross reference" (BibTeX manual, "Tame
    the BeaST" section 13); biber ignores the link with a warning. Returns ``(added,
    orphans)``: ``added`` the ``(id, citation key, child key)`` of each parent to add,
    found in the library by key or alias, parents of parents too, in first-seen order;
    ``orphans`` the ``(child key, parent key)`` of each link whose parent is in no
    paper of the library. One scan of the crossref values.
    """
    links = dict(crossref_values(session))
    chosen = set(ids)
    queue = [paper_id for paper_id in ids if paper_id in links]
    found: dict[str, int | None] = {}  # parent key (folded) -> its paper, looked up once
    added_ids: list[tuple[int, int]] = []  # (parent id, child id)
    orphan_ids: list[tuple[int, str]] = []  # (child id, parent key)
    for child in queue:  # parents of parents are appended as they are found
        for parent in (key.strip() for key in links[child].split(",")):
            if not parent:
                continue
            if parent.casefold() not in found:
                found[parent.casefold()] = find_paper_id(session, parent)
            parent_id = found[parent.casefold()]
            if parent_id is None:
                orphan_ids.append((child, parent))
            elif parent_id not in chosen:
                chosen.add(parent_id)
                added_ids.append((parent_id, child))
                if parent_id in links:
                    queue.append(parent_id)
    named = {pid for pair in added_ids for pid in pair} | {child for child, _ in orphan_ids}
    keys = _keys_of(session, named)
    added = [(parent, keys[parent], keys[child]) for parent, child in added_ids]
    orphans = [(keys[child], parent) for child, parent in orphan_ids]
    return added, orphans


def _keys_of(session: Executor, ids: set[int]) -> dict[int, str]:
    """The citation keys of papers ``ids``, a chunk of ids a query."""
    conn = connection_of(session)
    ordered = sorted(ids)
    keys: dict[int, str] = {}
    for start in range(0, len(ordered), CHUNK):
        chunk = ordered[start : start + CHUNK]
        rows = conn.execute(select(PAPERS.c.id, PAPERS.c.citekey).where(PAPERS.c.id.in_(chunk)))
        keys.update((int(paper_id), str(key)) for paper_id, key in rows)
    return keys


#: How many suffixed forms of a taken key :class:`KeyRegistry` asks the database about
#: at once (``a`` .. ``z``: most taken keys need one or two).
SUFFIX_BATCH = 26


class KeyRegistry:
    """Case-insensitive set of citation keys in use: the database's plus this import's.

    :meth:`prefetch` asks the database, in ``IN (...)`` chunks, which of a chunk's
    wanted keys are taken (papers' keys and aliases). Only a key that is taken
    needs its suffixed forms (``a``, ``b``, ... from ``citekeys.suffixes``): the
    first time one is asked, the next :data:`SUFFIX_BATCH` of them are prefetched
    the same way. Exact ``IN`` look-ups are served by the unique index and the
    primary key on both databases; a prefix query (``LIKE 'key%'``) cannot use a
    btree index on PostgreSQL under any collation but ``C`` and was a Seq Scan of
    ``papers`` per taken key (issue 17).
    """

    def __init__(self, session: Executor) -> None:
        self.session = session
        self.local: set[str] = set()
        self.checked: set[str] = set()  # folded keys whose presence in the database is known
        self.stored: set[str] = set()  # those of them that are taken there
        self.suffixed: dict[str, int] = {}  # folded base -> suffixed forms prefetched

    def prefetch(self, bases: Iterable[str]) -> None:
        """Learn which of the (case-insensitive) keys ``bases`` the database already uses."""
        wanted = sorted({b.lower() for b in bases} - self.checked)
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            self.stored.update(
                self.session.scalars(
                    select(PAPERS.c.citekey_folded).where(PAPERS.c.citekey_folded.in_(chunk))
                )
            )
            self.stored.update(
                self.session.scalars(
                    select(ALIASES.c.alias_folded).where(ALIASES.c.alias_folded.in_(chunk))
                )
            )
            self.checked.update(chunk)

    def taken(self, folded: str, base: str) -> bool:
        """True when the folded key is used by a paper, an alias or this import
        (``base`` is the key the record asked for; ``folded`` is it or one of its
        suffixed forms, ``citekeys.unique_key``)."""
        if folded in self.local:
            return True
        if folded not in self.checked:
            lowered = base.lower()
            done = self.suffixed.get(lowered, 0)
            self.suffixed[lowered] = done + SUFFIX_BATCH
            later = islice(citekeys.suffixes(), done, done + SUFFIX_BATCH)
            self.prefetch([folded, *(lowered + suffix for suffix in later)])
        return folded in self.stored

    def claim(self, key: str) -> None:
        """Mark ``key`` as used by this import."""
        self.local.add(key.lower())
