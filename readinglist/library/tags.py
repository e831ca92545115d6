"""Tags: names checked, created, linked to papers, renamed, merged and counted.

Every change of a paper's tags refreshes its search text (:mod:`.search`); a tag
no paper carries any more is deleted. Statements are Core, on the tables; the
functions that take or return ORM objects (``add_tags``, ``find_tag``...) import the
ORM when called, so ``tag add`` runs on a Core Connection (:func:`tag_papers`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, insert, select

from readinglist.bounds import check_tag
from readinglist.errors import Conflict, NotFound
from readinglist.library._sql import CHUNK, insert_or_ignore
from readinglist.library.marks import update_columns
from readinglist.library.search import refresh_search_text
from readinglist.tables import PAPER_TAGS, TAGS, Executor, utcnow
from readinglist.text import plural, tag_key

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from readinglist.models import Paper, Tag


def check_tag_name(name: str) -> str:
    """Return a tag name typed by the user, stripped. Hierarchical ``a/b`` names are fine.

    Raises UsageError for a name :func:`readinglist.bounds.tag_problem` refuses (empty,
    longer than the column, a comma, white space, a brace, a double quote, a backslash
    or ``%``): the one rule of tag names, see there why.
    """
    return check_tag(name)


def find_tag(session: Session, name: str) -> Tag | None:
    """Return the tag called ``name`` (case-insensitive), or None (:func:`find_tag_id`)."""
    from readinglist.models import Tag

    tag_id = find_tag_id(session, name)
    return None if tag_id is None else session.get(Tag, tag_id)


def find_tag_id(session: Executor, name: str) -> int | None:
    """Return the id of the tag called ``name`` (case-insensitive: ``text.tag_key``), or None."""
    found = session.scalar(select(TAGS.c.id).where(TAGS.c.name_folded == tag_key(name)))
    return None if found is None else int(found)


def tag_name(session: Executor, tag_id: int) -> str:
    """Return the name of the tag ``tag_id`` as stored (its first spelling)."""
    return str(session.scalar(select(TAGS.c.name).where(TAGS.c.id == tag_id)))


def tags_named(session: Session, names: Sequence[str]) -> list[Tag]:
    """Return the tags called ``names`` (case-insensitive), in order without repeats.

    All or nothing: raises NotFound naming every unknown tag.
    """
    tags: list[Tag] = []
    unknown: list[str] = []
    for name in names:
        tag = find_tag(session, name)
        if tag is None:
            unknown.append(name)
        elif all(t.id != tag.id for t in tags):
            tags.append(tag)
    if unknown:
        noun = plural(len(unknown), "tag")
        raise NotFound(f"no {noun} {', '.join(repr(n) for n in unknown)}; nothing changed")
    return tags


def ensure_tags(session: Executor, names: Iterable[str]) -> dict[str, int]:
    """Return ``{folded name: tag id}`` for ``names``, creating the missing tags.

    Tag names are stripped; empty names are ignored; the first spelling seen is kept.
    """
    wanted: dict[str, str] = {}
    for name in names:
        clean = name.strip()
        if clean:
            wanted.setdefault(tag_key(clean), clean)
    if not wanted:
        return {}
    rows = session.execute(
        select(TAGS.c.name_folded, TAGS.c.id).where(TAGS.c.name_folded.in_(sorted(wanted)))
    ).tuples()
    found = {folded: tag_id for folded, tag_id in rows}  # noqa: C416 (dict(result) reads Result.keys() as a mapping)
    for folded, name in wanted.items():
        if folded not in found:
            tag_id = session.scalar(
                insert_or_ignore(session, TAGS)
                .values(name=name, name_folded=folded)
                .returning(TAGS.c.id)
            )
            if tag_id is None:  # PostgreSQL: another transaction created it meanwhile
                tag_id = session.scalar(select(TAGS.c.id).where(TAGS.c.name_folded == folded))
            found[folded] = tag_id
    return found


def link_tags(session: Executor, links: list[tuple[int | dict[str, Any], list[str]]]) -> None:
    """Link papers to tags, creating missing tags; an import's bulk path.

    ``links`` pairs a paper (its id, or the row of a paper the import inserted, whose
    ``id`` is set by then) with tag names; links that exist are skipped. The caller
    refreshes the search text (an import does, for the papers it merged into)."""
    if not links:
        return
    tag_ids = ensure_tags(session, (t for _, names in links for t in names))
    pairs: set[tuple[int, int]] = set()
    for target, names in links:
        paper_id = target if isinstance(target, int) else target["id"]
        for name in names:
            if name.strip():
                pairs.add((paper_id, tag_ids[tag_key(name)]))
    if not pairs:
        return
    existing: set[tuple[int, int]] = set()
    paper_ids = sorted({p for p, _ in pairs})
    for start in range(0, len(paper_ids), CHUNK):
        chunk = paper_ids[start : start + CHUNK]
        existing.update(
            (int(p), int(t))
            for p, t in session.execute(
                select(PAPER_TAGS.c.paper_id, PAPER_TAGS.c.tag_id).where(
                    PAPER_TAGS.c.paper_id.in_(chunk)
                )
            )
        )
    rows = [{"paper_id": p, "tag_id": t} for p, t in sorted(pairs - existing)]
    if rows:
        session.execute(insert_or_ignore(session, PAPER_TAGS), rows)


def add_tags(session: Session, papers: Sequence[Paper], names: Sequence[str]) -> list[Paper]:
    """Add the tags ``names`` (created when new; case-insensitive) to ``papers``.

    Returns the papers that gained a tag (:func:`tag_papers`, the rule); their
    ``tags`` and ``updated_at`` are read again when next used.
    """
    if not papers:
        return []
    session.flush()
    changed_ids = set(tag_papers(session, [p.id for p in papers], names))
    changed = [p for p in papers if p.id in changed_ids]
    for paper in changed:
        session.expire(paper, ["tags", "updated_at", "search_text"])
    return changed


def tag_papers(session: Executor, paper_ids: Sequence[int], names: Sequence[str]) -> list[int]:
    """Add the tags ``names`` (created when new, :func:`ensure_tags`; case-insensitive)
    to the papers ``paper_ids``; return the ids of those that gained a tag, in order.

    Core statements only (``tag add`` runs on a Connection; issue 17): the links that
    exist are skipped, the others inserted (``ON CONFLICT DO NOTHING``: two
    transactions may link the same pair at once on PostgreSQL), ``updated_at`` of the
    changed papers set explicitly (a tag without indexed words, "日本", leaves the
    search text as it was, and ``import --undo`` must still see that the paper was
    tagged), and their search text refreshed.
    """
    if not paper_ids:
        return []
    tag_ids = ensure_tags(session, names)
    if not tag_ids:
        return []
    ids = list(paper_ids)
    existing: set[tuple[int, int]] = set()
    for start in range(0, len(ids), CHUNK):
        existing.update(
            (int(p), int(t))
            for p, t in session.execute(
                select(PAPER_TAGS.c.paper_id, PAPER_TAGS.c.tag_id).where(
                    PAPER_TAGS.c.paper_id.in_(ids[start : start + CHUNK]),
                    PAPER_TAGS.c.tag_id.in_(tag_ids.values()),
                )
            )
        )
    rows = [
        {"paper_id": pid, "tag_id": tid}
        for pid in ids
        for tid in sorted(set(tag_ids.values()))
        if (pid, tid) not in existing
    ]
    if rows:
        session.execute(insert_or_ignore(session, PAPER_TAGS), rows)
    changed_ids = {row["paper_id"] for row in rows}
    changed = [pid for pid in dict.fromkeys(ids) if pid in changed_ids]
    update_columns(session, sorted(changed_ids), {"updated_at": utcnow()})
    refresh_search_text(session, changed_ids)
    return changed


def remove_tags(session: Session, papers: Sequence[Paper], names: Sequence[str]) -> list[Paper]:
    """Remove the tags ``names`` (case-insensitive) from ``papers``; return those that lost one.

    Their search text is refreshed; a tag no paper carries any more is deleted.
    Raises NotFound (nothing changed) when a tag does not exist.
    """
    tag_ids = [t.id for t in tags_named(session, names)]
    changed_ids = sorted({p for p, _ in _tag_links(session, [p.id for p in papers], tag_ids)})
    for start in range(0, len(changed_ids), CHUNK):
        chunk = changed_ids[start : start + CHUNK]
        session.execute(
            delete(PAPER_TAGS).where(
                PAPER_TAGS.c.paper_id.in_(chunk), PAPER_TAGS.c.tag_id.in_(tag_ids)
            )
        )
    changed = [p for p in papers if p.id in set(changed_ids)]
    when = utcnow()
    for paper in changed:
        session.expire(paper, ["tags"])
        paper.updated_at = when  # as in add_tags: the paper changed even if its search text did not
    delete_unused_tags(session, tag_ids)
    refresh_search_text(session, changed_ids)
    return changed


def tag_counts(session: Executor) -> list[tuple[str, int]]:
    """Return ``(tag name, number of papers)`` for every tag in use, by folded name.

    Sorted in Python, not SQL, so that SQLite and PostgreSQL (whose collation
    depends on the server's locale) give the same order.
    """
    rows = session.execute(
        select(TAGS.c.name, TAGS.c.name_folded, func.count(PAPER_TAGS.c.paper_id))
        .join(PAPER_TAGS, PAPER_TAGS.c.tag_id == TAGS.c.id)
        .group_by(TAGS.c.id, TAGS.c.name, TAGS.c.name_folded)
    ).all()
    return [(str(name), int(n)) for name, _, n in sorted(rows, key=lambda r: (r[1], r[0]))]


def rename_tag(session: Session, old: str, new: str) -> tuple[str, int]:
    """Rename the tag ``old`` to ``new`` (a change of case only is fine).

    Returns ``(old spelling, number of papers carrying it)``. Raises NotFound for an
    unknown ``old``, UsageError for a bad ``new`` (:func:`check_tag_name`) and
    Conflict when ``new`` is another existing tag (``tag merge`` joins two tags).
    """
    tag = tags_named(session, [old])[0]
    new = check_tag_name(new)
    other = find_tag(session, new)
    if other is not None and other.id != tag.id:
        raise Conflict(
            f"tag {other.name!r} already exists; use `readinglist tag merge {tag.name} "
            f"{other.name}` to join them"
        )
    before = tag.name
    tag.name, tag.name_folded = new, new.lower()
    session.flush()  # the search text of its papers follows (library.search)
    paper_ids = _tagged_paper_ids(session, [tag.id])
    _expire_tags(session, paper_ids)
    return before, len(paper_ids)


def merge_tags(session: Session, sources: Sequence[str], target: str) -> tuple[str, int]:
    """Move every paper tagged with one of ``sources`` to ``target`` and delete the sources.

    ``target`` is created when it does not exist; a source equal to the target
    (case-insensitively) is left alone. Returns ``(target name, number of papers that
    carried a source)``. Raises NotFound (nothing changed) for an unknown source and
    UsageError for a bad target name.
    """
    source_tags = tags_named(session, sources)
    target = check_tag_name(target)
    target_id = ensure_tags(session, [target])[target.lower()]
    source_ids = [t.id for t in source_tags if t.id != target_id]
    paper_ids = _tagged_paper_ids(session, source_ids)
    have = {p for p, _ in _tag_links(session, paper_ids, [target_id])}
    rows = [{"paper_id": p, "tag_id": target_id} for p in paper_ids if p not in have]
    if rows:
        session.execute(insert(PAPER_TAGS), rows)
    if source_ids:
        session.execute(delete(PAPER_TAGS).where(PAPER_TAGS.c.tag_id.in_(source_ids)))
        session.execute(
            delete(TAGS)
            .where(TAGS.c.id.in_(source_ids))
            .execution_options(synchronize_session=False)
        )
    name = session.scalar(select(TAGS.c.name).where(TAGS.c.id == target_id)) or target
    _expire_tags(session, paper_ids)
    refresh_search_text(session, paper_ids)
    return str(name), len(paper_ids)


def delete_unused_tags(session: Session, tag_ids: Sequence[int] | None = None) -> int:
    """Delete tags (of ``tag_ids``, or any) that no paper carries; return how many."""
    used = select(PAPER_TAGS.c.tag_id).where(PAPER_TAGS.c.tag_id == TAGS.c.id).exists()
    stmt = delete(TAGS).where(~used)
    if tag_ids is not None:
        if not tag_ids:
            return 0
        stmt = stmt.where(TAGS.c.id.in_(sorted(set(tag_ids))))
    result = session.execute(stmt.execution_options(synchronize_session=False))
    return int(getattr(result, "rowcount", 0) or 0)


def _tag_links(
    session: Session, paper_ids: Sequence[int] | None, tag_ids: Sequence[int]
) -> set[tuple[int, int]]:
    """Return the ``(paper id, tag id)`` links among ``tag_ids`` (of ``paper_ids``, or all)."""
    if not tag_ids:
        return set()
    stmt = select(PAPER_TAGS.c.paper_id, PAPER_TAGS.c.tag_id).where(
        PAPER_TAGS.c.tag_id.in_(sorted(tag_ids))
    )
    if paper_ids is None:
        return {(int(p), int(t)) for p, t in session.execute(stmt)}
    found: set[tuple[int, int]] = set()
    ordered = sorted(set(paper_ids))
    for start in range(0, len(ordered), CHUNK):
        chunk = ordered[start : start + CHUNK]
        found.update(
            (int(p), int(t))
            for p, t in session.execute(stmt.where(PAPER_TAGS.c.paper_id.in_(chunk)))
        )
    return found


def _tagged_paper_ids(session: Session, tag_ids: Sequence[int]) -> list[int]:
    return sorted({p for p, _ in _tag_links(session, None, tag_ids)})


def _expire_tags(session: Session, paper_ids: Iterable[int]) -> None:
    """Expire the loaded ``tags`` of papers in the session so they are read again."""
    from readinglist.models import Paper

    wanted = set(paper_ids)
    for obj in list(session.identity_map.values()):
        if isinstance(obj, Paper) and obj.id in wanted:
            session.expire(obj, ["tags"])
