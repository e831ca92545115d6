"""Export profiles: kept exports, stored in the library (table ``export_profiles``).

A profile is an export (format, absolute target path, query or ``.aux`` file, writer
options) that ``readinglist export ... --keep`` registered; the commands that commit a
change re-export the profiles that change can show (:func:`depends_on`,
:func:`affected`). A profile is listed with the account and machine that registered it,
``user@host`` (:func:`owner_here`), but the owner column grants nothing: anyone who can
write the library can store any row. Which profiles a process writes is decided by its
account's own registry (:mod:`readinglist.pipelines.kept_here`), since a path means
something on one machine only.

Core statements on :data:`readinglist.tables.EXPORT_PROFILES` only; every function takes
an :data:`~readinglist.tables.Executor` and never commits. Stdlib and SQLAlchemy Core:
a ``mark`` that affects no profile pays one small SELECT.
"""

from __future__ import annotations

import getpass
import os
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import delete, insert, select, update

from readinglist.errors import UsageError
from readinglist.tables import EXPORT_PROFILES, Executor, utcnow

#: What a committed change can touch, as the refresh rule names it: bibliographic data
#: (papers added, removed, edited, merged, rekeyed, completed), read status, priority,
#: tags, notes.
CHANGE_KINDS: frozenset[str] = frozenset({"papers", "status", "priority", "tags", "notes"})

#: Environment variable that names the owner instead of ``user@host`` (a machine whose
#: host name changes, or tests that play two machines on one library): a label for
#: listing and finding profiles (``--profiles``, ``--forget``, ``--pause``), never a
#: permission to write (:mod:`readinglist.pipelines.kept_here` decides that).
OWNER_VARIABLE = "READINGLIST_PROFILE_OWNER"


def owner_here() -> str:
    """The owner of the profiles this process keeps: ``$READINGLIST_PROFILE_OWNER``, else
    ``user@host`` (``getpass.getuser()``, ``socket.gethostname()``)."""
    named = os.environ.get(OWNER_VARIABLE, "").strip()
    if named:
        return named[:255]
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry for the uid (containers)
        user = str(os.getuid())
    return f"{user}@{socket.gethostname()}"[:255]


@dataclass(frozen=True)
class Profile:
    """One row of ``export_profiles`` (see :data:`readinglist.tables.EXPORT_PROFILES`).

    ``options`` holds the export's options as given (``keywords``, ``annote``,
    ``group_by``, ``abstracts``, ``notes``, ``title``, ``strict``).
    """

    id: int
    owner: str
    name: str
    format: str
    target: str
    query: str
    aux: str | None
    options: dict[str, Any]
    paused: bool
    created_at: datetime
    last_run_at: datetime | None
    status: str | None
    message: str | None
    papers: int | None
    digest: str | None


_COLUMNS = [EXPORT_PROFILES.c[name] for name in Profile.__dataclass_fields__]


def profiles(session: Executor, owner: str | None = None) -> list[Profile]:
    """Every profile (or ``owner``'s), by owner then name."""
    statement = select(*_COLUMNS).order_by(EXPORT_PROFILES.c.owner, EXPORT_PROFILES.c.name)
    if owner is not None:
        statement = statement.where(EXPORT_PROFILES.c.owner == owner)
    return [Profile(**row._mapping) for row in session.execute(statement)]


def find(session: Executor, owner: str, name_or_path: str) -> Profile | None:
    """``owner``'s profile named ``name_or_path``, else the one whose target is that path
    (made absolute); None when there is none."""
    mine = profiles(session, owner)
    for profile in mine:
        if profile.name == name_or_path:
            return profile
    target = absolute(name_or_path)
    return next((p for p in mine if p.target == target), None)


def absolute(path: str) -> str:
    """``path`` as the absolute, normalised path a profile stores (``~`` expanded; a
    symbolic link is kept as named: the atomic writer follows it when writing)."""
    return os.path.abspath(os.path.expanduser(path))


def register(
    session: Executor,
    owner: str,
    *,
    name: str | None,
    fmt: str,
    target: str,
    query: str,
    aux: str | None,
    options: dict[str, Any],
) -> tuple[Profile, bool]:
    """Store the profile that exports ``fmt`` to ``target`` (an absolute path) for
    ``owner``; return it and True when it is new, False when it replaced ``owner``'s
    profile of the same target (its name, format, query, aux and options).

    ``name`` defaults to the target's file name, then ``NAME-2``, ``NAME-3``... when
    taken. Raises UsageError when ``name`` is given and ``owner`` has another profile
    of that name.
    """
    mine = profiles(session, owner)
    same = next((p for p in mine if p.target == target), None)
    taken = {p.name for p in mine if p is not same}
    if name is not None and name in taken:
        raise UsageError(f"a profile named {name!r} already exists; choose another --name")
    if name is None:
        name = same.name if same is not None else _free_name(Path(target).name, taken)
    values = {
        "name": name,
        "format": fmt,
        "query": query,
        "aux": aux,
        "options": dict(options),
        "paused": False,
    }
    if same is not None:
        session.execute(
            update(EXPORT_PROFILES).where(EXPORT_PROFILES.c.id == same.id).values(**values)
        )
        profile_id = same.id
    else:
        profile_id = session.execute(
            insert(EXPORT_PROFILES)
            .values(owner=owner, target=target, created_at=utcnow(), **values)
            .returning(EXPORT_PROFILES.c.id)
        ).scalar_one()
    stored = next(p for p in profiles(session, owner) if p.id == profile_id)
    return stored, same is None


def _free_name(base: str, taken: set[str]) -> str:
    """``base`` (at most 200 characters), else ``base-2``, ``base-3``... not in ``taken``."""
    base = base[:200] or "profile"
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base}-{number}"
    return name


def forget(session: Executor, profile_id: int) -> None:
    """Remove profile ``profile_id`` (its file stays)."""
    session.execute(delete(EXPORT_PROFILES).where(EXPORT_PROFILES.c.id == profile_id))


def set_paused(session: Executor, profile_ids: Sequence[int], paused: bool) -> None:
    """Pause (no refresh until resumed) or resume the profiles ``profile_ids``."""
    if profile_ids:
        session.execute(
            update(EXPORT_PROFILES)
            .where(EXPORT_PROFILES.c.id.in_(list(profile_ids)))
            .values(paused=paused)
        )


def record_run(
    session: Executor,
    profile_id: int,
    *,
    status: str,
    message: str | None,
    papers: int | None,
    digest: str | None,
    at: datetime | None = None,
    options: dict[str, Any] | None = None,
) -> None:
    """Store the outcome of one refresh of ``profile_id``: ``status`` (``ok`` or
    ``failing``), its ``message``, the papers exported and the SHA-256 of the text
    (kept as it was when None: a failed run wrote nothing), and its ``options`` when
    given (what the run said is kept there: ``pipelines.keeping.SAID``)."""
    values: dict[str, Any] = {
        "last_run_at": at or utcnow(),
        "status": status,
        "message": message,
    }
    if options is not None:
        values["options"] = options
    if papers is not None:
        values["papers"] = papers
    if digest is not None:
        values["digest"] = digest
    session.execute(
        update(EXPORT_PROFILES).where(EXPORT_PROFILES.c.id == profile_id).values(**values)
    )


# --- which profiles a change can affect -------------------------------------------------------

#: What each format writes beyond bibliographic data. BibTeX: nothing per reader
#: (tags and notes only with ``keywords`` / ``annote``); Markdown: the status boxes and
#: groups, priorities and tags; RIS and CSL-JSON: tags and notes (README "export").
_FORMAT_KINDS: dict[str, frozenset[str]] = {
    "bibtex": frozenset(),
    "biblatex": frozenset(),
    "markdown": frozenset({"status", "priority", "tags"}),
    "ris": frozenset({"tags", "notes"}),
    "csl-json": frozenset({"tags", "notes"}),
}


def depends_on(profile: Profile) -> frozenset[str]:
    """The :data:`CHANGE_KINDS` that can change ``profile``'s file: bibliographic data
    always; what its format writes of the reader's own data (:data:`_FORMAT_KINDS`,
    tags with ``keywords``, notes with ``annote`` or Markdown ``notes``); and what its
    query selects by (:func:`query_kinds`). An ``.aux`` profile selects by key only."""
    kinds = {"papers", *_FORMAT_KINDS.get(profile.format, CHANGE_KINDS)}
    if profile.options.get("keywords"):
        kinds.add("tags")
    if profile.options.get("annote") or profile.options.get("notes"):
        kinds.add("notes")
    if profile.options.get("group_by") == "tag":
        kinds.add("tags")
    if not profile.aux:
        kinds |= query_kinds(profile.query)
    return frozenset(kinds)


def query_kinds(text: str) -> frozenset[str]:
    """The :data:`CHANGE_KINDS` the papers ``text`` selects depend on: ``status:`` and
    ``read:`` on status, ``priority:`` on priority, ``tag:`` on tags, free text on tags
    and notes (the full-text index holds both), ``has:notes|tags|priority`` on those.
    A query that does not parse depends on everything (its refresh reports the error)."""
    from readinglist.query import tree  # only when there are profiles to check
    from readinglist.query.parser import parse

    try:
        query = parse(text)
    except Exception:  # InvalidQuery; anything else is as unknown
        return CHANGE_KINDS
    kinds: set[str] = set()
    for node, _negated in tree.walk(query):
        if isinstance(node, tree.Status) or (
            isinstance(node, tree.DateRange) and node.field == "read"
        ):
            kinds.add("status")
        elif isinstance(node, tree.Priority):
            kinds.add("priority")
        elif isinstance(node, tree.TagTerm):
            kinds.add("tags")
        elif isinstance(node, tree.Text):
            kinds |= {"tags", "notes"}
        elif isinstance(node, tree.Has) and node.what in ("notes", "tags", "priority"):
            kinds.add(node.what)
    return frozenset(kinds)


def affected(found: Iterable[Profile], changes: Iterable[str]) -> list[Profile]:
    """The profiles of ``found`` that are not paused and that ``changes`` (kinds of
    :data:`CHANGE_KINDS`) can affect (:func:`depends_on`), in order."""
    changed = frozenset(changes)
    return [p for p in found if not p.paused and depends_on(p) & changed]
