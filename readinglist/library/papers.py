"""Papers: read status, priority, title, hand edits, new keys, merging and deleting.

Each takes a Session, flushes and leaves the commit to the caller (issue 5: ``mark``
commits once per command, ``triage`` once per decision). What only edits, rekeys and
merges use (the merge rule, rapidfuzz through ``dedupe``) is imported inside them, so
``mark`` and ``priority`` load neither (issue 17).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from readinglist import db
from readinglist.errors import Conflict, UsageError
from readinglist.library import hooks as _hooks  # noqa: F401  (the ORM flush hooks)
from readinglist.library._sql import CHUNK
from readinglist.library.marks import (
    priority_code,
    status_values,
    update_columns,
    write_priority,
    write_status,
)
from readinglist.library.refs import find_paper, follow_crossrefs, key_taken
from readinglist.library.rows import insert_people, keywords_text, to_record
from readinglist.library.search import refresh_search_text
from readinglist.models import (
    Alias,
    MergeConflict,
    Note,
    Paper,
    PaperPerson,
    StatusEvent,
)
from readinglist.records import (
    COLUMN_FIELDS,
    EDITABLE,
    PaperRecord,
)
from readinglist.tables import DECISIONS, utcnow
from readinglist.text import title_key
from readinglist.versions import USER_TITLE_FIELD


def set_status(
    session: Session, papers: Sequence[Paper], status: str, *, at: datetime | None = None
) -> list[Paper]:
    """Set the read status of ``papers``; record each change in the status history.

    The rule is :func:`write_status`'s (UsageError for an unknown ``status``; ``read``
    sets ``read_at``, leaving it clears it; papers already at ``status`` are left
    alone, each change is a status event). The objects get the new values as committed
    state. Returns the papers that changed.
    """
    when = at or utcnow()
    session.flush()
    changed_ids = set(write_status(session, {p.id: p.status for p in papers}, status, at=when))
    changed = [paper for paper in papers if paper.id in changed_ids]
    for paper in changed:
        for name, value in status_values(status, when).items():
            if name != "updated_at":  # the decision's time, not the paper's
                set_committed_value(paper, name, value)
        session.expire(paper, ["events"])  # read again when asked for
    return changed


def set_priority(
    session: Session, papers: Sequence[Paper], level: str | None, *, at: datetime | None = None
) -> list[Paper]:
    """Set the priority of ``papers``; return the papers that changed.

    The rule is :func:`write_priority`'s (``high``, ``medium``, ``low``, or
    ``none``/None to clear; UsageError for anything else); the objects get the new
    values as committed state.
    """
    when = at or utcnow()
    session.flush()
    changed_ids = set(write_priority(session, {p.id: p.priority for p in papers}, level, at=when))
    changed = [paper for paper in papers if paper.id in changed_ids]
    code = priority_code(level)
    for paper in changed:
        set_committed_value(paper, "priority", code)
    return changed


def set_title(
    session: Session, paper: Paper, title: str | None, *, provisional: bool = False
) -> str | None:
    """Set the title of ``paper`` and return the old one.

    White space is collapsed; ``title_provisional`` becomes ``provisional`` (False: the
    user's title is never made up); ``title_key`` and the search text follow. None
    (only for triage's undo of a paper without title) clears it. Raises UsageError
    for an empty title.
    """
    old = paper.title
    if title is not None:
        title = " ".join(title.split())
        if not title:
            raise UsageError("a title cannot be empty")
    paper.title = title
    paper.title_provisional = provisional
    if title is not None and not provisional:
        mark_user_title(session, paper, title)
    paper.title_key = title_key(title) if title else None
    paper.updated_at = utcnow()
    session.flush()  # the search text follows (library.search)
    return old


def mark_user_title(session: Session, paper: Paper, title: str | None) -> None:
    """Note in the merge history that the user set ``paper``'s title
    (``versions.USER_TITLE_FIELD``): a published version never replaces it."""
    session.add(
        MergeConflict(
            paper_id=paper.id, field=USER_TITLE_FIELD, value={"value": title}, source="you"
        )
    )


def update_paper(
    session: Session, paper: Paper, before: PaperRecord, after: PaperRecord
) -> list[str]:
    """Apply to ``paper`` what changed from ``before`` to ``after`` (``edit``); return the
    names of what changed, columns and fields (:func:`_changed_names`).

    ``before`` is the paper as the user was shown it and ``after`` as they left it,
    both read by the same reader, so only real edits differ. Only fields of
    :data:`EDITABLE` that differ are written (another process's change to any other
    field is kept). A changed title stops being provisional. DOI and arXiv id are
    normalized; people are relinked (stored spellings reused); ``title_key``,
    ``abstract_key``, ``updated_at`` and the search text follow. The citation key is
    not touched (see :func:`rekey`), nor is read status, priority, tags or notes.
    """
    from readinglist import dedupe
    from readinglist.prepare import normalize_record

    before, after = normalize_record(before), normalize_record(after)
    changed = [name for name in EDITABLE if _edit_value(before, name) != _edit_value(after, name)]
    if not changed:
        return []
    values: dict[str, Any] = {}
    for name in changed:
        if name in ("authors", "editors"):
            continue
        if name == "keywords":
            values[name] = keywords_text(after.keywords)
        elif name == "fields":
            values[name] = dict(after.fields)
        else:
            values[name] = getattr(after, name)
    if "title" in values:
        values["title_provisional"] = False
        values["title_key"] = title_key(after.title) if after.title else None
        mark_user_title(session, paper, after.title)
    if "abstract" in values:
        values["abstract_key"] = dedupe.abstract_key(after.abstract)
    values["updated_at"] = utcnow()
    for name, value in values.items():
        setattr(paper, name, value)
    session.flush()  # the search text follows (library.search)
    roles = [role for role in ("author", "editor") if f"{role}s" in changed]
    if roles:
        # Relink only the roles that changed; the other keeps the people it has. The
        # loaded links go out of the session first, or the new rows (same primary keys)
        # would be read back as the stale objects.
        for link in list(paper.people):
            if link.role in roles:
                session.expunge(link)
        session.execute(
            delete(PaperPerson).where(PaperPerson.paper_id == paper.id, PaperPerson.role.in_(roles))
        )
        people = replace(
            after,
            authors=after.authors if "author" in roles else (),
            editors=after.editors if "editor" in roles else (),
        )
        insert_people(session, [people], [paper.id])
        session.expire(paper, ["people"])
        # People relinked by Core statements, which the flush hook does not see.
        refresh_search_text(session, [paper.id])
    return _changed_names(changed, before, after)


def _changed_names(changed: list[str], before: PaperRecord, after: PaperRecord) -> list[str]:
    """The names ``edit`` reports: ``changed`` with ``fields`` replaced by the names of
    the fields that changed, less the raw forms of changed columns
    (:data:`~readinglist.records.COLUMN_FIELDS`: a new title changes the raw ``title``
    too, which is not a second change)."""
    if "fields" not in changed:
        return changed
    mirrored = {f for column in changed for f in COLUMN_FIELDS.get(column, ())}
    names = sorted(
        name
        for name in before.fields.keys() | after.fields.keys()
        if before.fields.get(name) != after.fields.get(name) and name not in mirrored
    )
    return [name for name in changed if name != "fields"] + names


def _edit_value(record: PaperRecord, name: str) -> Any:
    value = getattr(record, name)
    if name in ("keywords", "authors", "editors"):
        return tuple(value)
    if name == "fields":
        return dict(value)
    if isinstance(value, str) and not value.strip():
        return None
    return value


def rekey(session: Session, paper: Paper, new_key: str) -> str:
    """Rename ``paper``'s citation key to ``new_key``, keeping the old key as an alias.

    Returns the old key. Raises UsageError for a key BibTeX cannot use and Conflict
    (exit 4) when ``new_key`` is another paper's key or alias. Renaming to the same
    key in another case only changes the spelling.
    """
    from readinglist import citekeys

    new_key = new_key.strip()
    if not citekeys.is_valid_key(new_key):
        raise UsageError(f"{new_key!r} is not a usable citation key ({citekeys.KEY_RULE})")
    old = paper.citekey
    folded = new_key.lower()
    owner = find_paper(session, new_key)
    if owner is not None and owner.id != paper.id:
        raise Conflict(f"citation key {new_key!r} is already used by {owner.citekey!r}")
    if folded != paper.citekey_folded:
        session.add(Alias(alias=old, alias_folded=paper.citekey_folded, paper_id=paper.id))
        # The new key may be one of this paper's own aliases: it stops being an alias.
        session.execute(delete(Alias).where(Alias.alias_folded == folded))
    paper.citekey = new_key
    paper.citekey_folded = folded
    paper.citekey_provisional = False  # a key the user chose is real
    paper.updated_at = utcnow()
    session.flush()
    follow_crossrefs(session, {old: new_key})
    return old


def _move_decisions(session: Session, source: int, target: int) -> None:
    """Move the decisions (status, priority, read time) of the paper ``source`` to
    ``target`` for every reader without a decision on ``target``; the rest go with
    ``source``. A merge thus loses no reader's decision of a shared library."""
    decided_target = select(DECISIONS.c.reader_id).where(DECISIONS.c.paper_id == target)
    session.execute(
        update(DECISIONS)
        .where(DECISIONS.c.paper_id == source, DECISIONS.c.reader_id.not_in(decided_target))
        .values(paper_id=target)
    )


def merge_papers(
    session: Session, keep: Paper, others: Sequence[Paper], *, force: bool = False
) -> list[str]:
    """Merge ``others`` into ``keep`` and delete them; their keys become aliases of ``keep``.

    The merge rule is the import's (``merging.plan_merge`` through
    :func:`~readinglist.library.completing.complete_paper`): ``keep`` is completed from
    each other in order (authors, editors, every field it lacks; a provisional title
    or key replaced), values both have stay ``keep``'s (the others' go to the merge
    history); tags and notes are united; the status history is moved over; each
    reader's decision on ``keep`` stays, and a reader who decided on an other paper
    only keeps that decision (the first other's) on ``keep``; ``keep``'s title stays. Returns the names filled.
    Raises UsageError when ``keep`` is among ``others``, and Conflict (exit 4), before
    any change, for a pair the user marked ``not-duplicate`` unless ``force``.
    """
    from readinglist.library.completing import complete_paper
    from readinglist.library.merging import are_not_duplicates, holds_latex
    from readinglist.library.tags import add_tags

    if any(o.id == keep.id for o in others):
        raise UsageError(f"cannot merge {keep.citekey!r} into itself")
    for other in others:
        if not force and are_not_duplicates(session, keep.id, other.id):
            raise Conflict(
                f"{keep.citekey!r} and {other.citekey!r} were marked as different papers "
                "(not-duplicate); merge --force merges them anyway"
            )
    filled: list[str] = []
    for other in others:
        # Its fields as they are: LaTeX or text (merging.holds_latex), escaped when text.
        record = replace(to_record(other, with_notes=False), latex_fields=holds_latex(other))
        session.execute(update(Note).where(Note.paper_id == other.id).values(paper_id=keep.id))
        session.execute(
            update(StatusEvent).where(StatusEvent.paper_id == other.id).values(paper_id=keep.id)
        )
        _move_decisions(session, other.id, keep.id)
        session.expire(keep, ["status", "priority", "read_at"])  # read again: moved ones
        tag_names = [t.name for t in other.tags]
        aliases = [(a.alias, a.alias_folded) for a in other.aliases]
        other_key, other_folded = other.citekey, other.citekey_folded
        session.delete(other)
        session.flush()
        filled.extend(complete_paper(session, keep, record, source=other_key))
        for alias, folded in [(other_key, other_folded), *aliases]:
            if folded != keep.citekey_folded and not key_taken(session, folded):
                session.add(Alias(alias=alias, alias_folded=folded, paper_id=keep.id))
        session.flush()
        follow_crossrefs(
            session, dict.fromkeys([other_key, *(alias for alias, _ in aliases)], keep.citekey)
        )
        if tag_names:
            add_tags(session, [keep], tag_names)
    keep.updated_at = utcnow()
    session.flush()
    session.expire(keep)
    refresh_search_text(session, [keep.id])  # notes moved by Core statements
    return list(dict.fromkeys(filled))


def delete_papers(session: Session, papers: Sequence[Paper]) -> list[str]:
    """Delete ``papers`` with their links, notes, history and aliases; return their keys."""
    keys = [p.citekey for p in papers]
    ids = [p.id for p in papers]
    for start in range(0, len(ids), CHUNK):
        session.execute(delete(Paper).where(Paper.id.in_(ids[start : start + CHUNK])))
    db.expunge_all(session)
    return keys


def touch(session: Session, paper_ids: Iterable[int], when: datetime | None = None) -> None:
    """Set ``updated_at`` of the given papers to ``when`` (default now)."""
    update_columns(session, sorted(set(paper_ids)), {"updated_at": when or utcnow()})
