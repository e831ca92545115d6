"""Keeping export profiles current: the one place every committing command passes through.

The root group (:class:`readinglist.cli._root.ReadingListGroup`) calls
:func:`keep_current` when a command has committed a write transaction
(``AppContext.committed``). What the command can have changed is read from its name
(:data:`CHANGES_BY_COMMAND`: ``mark`` changes read status only, ``tag`` tags...; any
other command may change anything), and every profile this account kept on this machine
(:mod:`readinglist.pipelines.kept_here`: never one the library merely holds) that such
a change can show (:func:`readinglist.library.profiles.affected`) is exported again
(:func:`run`); a file whose text is unchanged is not touched, nor one changed by hand. A profile that fails is a
warning naming it and is marked ``failing``: the command's own exit code stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from readinglist import render
from readinglist.config import sqlite_path
from readinglist.errors import ReadingListError

if TYPE_CHECKING:
    from readinglist.cli._app import AppContext
    from readinglist.library.profiles import Profile
    from readinglist.pipelines.keeping import Outcome
    from readinglist.pipelines.kept_here import Entry, Registry

#: What each command can change (``readinglist.library.profiles.CHANGE_KINDS``); a
#: command not named here can change anything. ``triage`` decides status, priority,
#: tags, notes and titles.
CHANGES_BY_COMMAND: dict[str, frozenset[str]] = {
    "mark": frozenset({"status"}),
    "priority": frozenset({"priority"}),
    "tag": frozenset({"tags"}),
    "note": frozenset({"notes"}),
    "topics": frozenset({"tags"}),
    "not-duplicate": frozenset(),
    "export": frozenset(),
}


def changes_of(command: str | None) -> frozenset[str]:
    """The kinds of change ``command`` (a top-level command name) can commit."""
    from readinglist.library.profiles import CHANGE_KINDS

    if command is None:
        return frozenset()
    return CHANGES_BY_COMMAND.get(command, CHANGE_KINDS)


def keep_current(app: AppContext, command: str | None) -> None:
    """After ``command`` committed: export again every profile this account kept here
    (:func:`kept_by_me`) that its changes can affect, and say so on stderr. Never
    raises: the command has committed, and its outcome stands (a kept export never
    fails the command that triggered it), so a library that cannot be read for
    profiles, or any failure of the refresh, is one warning. An account that kept no
    export pays one read of a missing file."""
    if not app.committed:
        return
    app.committed = False
    changes = changes_of(command)
    if not changes:
        return
    try:
        from readinglist.library import profiles
        from readinglist.pipelines import kept_here

        registry = kept_here.load()
        if not registry.entries:
            return
        with app.connection(write=False) as connection:
            mine = kept_by_me(app, registry, profiles.profiles(connection))
        due = profiles.affected(mine, changes)
        if due:
            report(run(app, due), verbose=False)
    except (ReadingListError, OSError) as err:
        render.warn(f"export profiles not kept current: {err}")
    except Exception as err:  # a bug must not turn a committed command into a failure
        render.warn(f"export profiles not kept current: {type(err).__name__}: {err}")


def kept_by_me(
    app: AppContext, registry: Registry, found: Sequence[Profile], *, say_others: bool = False
) -> list[Profile]:
    """The profiles of ``found`` this account kept on this library: those the local
    registry lists (:meth:`readinglist.pipelines.kept_here.Registry.find`). Each kept
    on another library (this one is a copy, or was moved: keeping its files current
    would rewrite the original's bibliography) is said and left alone; with
    ``say_others``, so is each that names this machine's owner but that this account
    did not keep (``READINGLIST_PROFILE_OWNER`` or the library can name any owner: an
    owner never grants a write)."""
    from readinglist.library.profiles import owner_here

    here = app.where()
    owner = owner_here()
    mine = []
    for profile in found:
        if registry.find(here, profile) is not None:
            mine.append(profile)
            continue
        other = registry.elsewhere(here, profile)
        if other is not None:
            render.warn(
                f"export profile {profile.name!r} was registered on the library at "
                f"{other.library}, not this one ({here}): not kept current (export --forget "
                f"{profile.name} here drops it; export ... --keep registers it here)"
            )
        elif say_others and profile.owner == owner:
            render.warn(f"export profile {profile.name!r} ({profile.target}): {FOREIGN}")
    return mine


#: What is said of a profile of the library that this account did not keep here.
FOREIGN = (
    "kept by someone else: not refreshed here (only an export this account kept on this "
    "machine with export FORMAT -o FILE --keep is written)"
)


def run(app: AppContext, due: Sequence[Profile], *, force: bool = False) -> list[Outcome]:
    """Export the profiles ``due`` again (one read transaction), then record each
    outcome (one short write transaction) and what was written in the local registry
    (:func:`readinglist.pipelines.kept_here.editing`, locked meanwhile); return the
    outcomes in order. A profile the registry does not list is not run (``foreign``);
    a file changed by hand is left as it is unless ``force``."""
    from readinglist.pipelines import kept_here

    with kept_here.editing() as registry:
        here = app.where()
        entries = {p.id: registry.find(here, p) for p in due}
        outcomes = _refresh(app, due, entries, force)
        _record(app, outcomes)
        for outcome in outcomes:
            entry = entries[outcome.profile.id]
            if entry is None or outcome.state in ("failing", "foreign"):
                continue
            if outcome.state == "edited":
                outcome.repeated = entry.noticed == outcome.edited
                entry.noticed = outcome.edited
            else:
                entry.written, entry.noticed = outcome.digest, None
    return outcomes


def _refresh(
    app: AppContext,
    due: Sequence[Profile],
    entries: dict[int, Entry | None],
    force: bool,
) -> list[Outcome]:
    """The outcome of exporting each of ``due`` whose registry entry ``entries`` holds
    (``foreign`` for the others), in one read transaction."""
    from readinglist.pipelines import keeping

    database = sqlite_path(app.settings.database_url)
    outcomes = []
    with app.session(write=False) as session:
        for profile in due:
            entry = entries[profile.id]
            if entry is None:
                outcomes.append(keeping.Outcome(profile, "foreign", message=FOREIGN))
                continue
            outcome = keeping.refresh_profile(
                session, profile, database, written=entry.written, force=force
            )
            outcomes.append(outcome)
    return outcomes


def _record(app: AppContext, outcomes: Sequence[Outcome]) -> None:
    """Store each outcome in its profile's row (one short write transaction): a file
    changed by hand is ``failing`` with that message; a foreign profile is left as
    it is."""
    from readinglist.library import profiles

    with app.connection() as connection:
        for outcome in outcomes:
            if outcome.state == "foreign":
                continue
            failed = outcome.state in ("failing", "edited")
            profiles.record_run(
                connection,
                outcome.profile.id,
                status="failing" if failed else "ok",
                message=outcome.message,
                papers=None if failed else outcome.papers,
                digest=outcome.digest,
                options=_with_said(outcome),
            )
    app.committed = False  # recording a run changes no paper


def _with_said(outcome: Outcome) -> dict[str, object] | None:
    """The profile's options with the fingerprint of what this run said
    (``keeping.SAID``), or None when it is already stored (or the run failed or met a
    file changed by hand: its warnings were not said)."""
    from readinglist.pipelines.keeping import SAID

    options = outcome.profile.options
    if outcome.state in ("failing", "edited") or options.get(SAID) == outcome.said:
        return None
    return {k: v for k, v in options.items() if k != SAID} | (
        {SAID: outcome.said} if outcome.said else {}
    )


def report(outcomes: Sequence[Outcome], *, verbose: bool) -> None:
    """One stderr line per profile written or failing (``verbose``: unchanged ones too),
    after the warnings met while exporting it: all of them when ``verbose`` (``--keep``,
    ``--refresh``), else only a set the profile's last run did not say
    (``Outcome.new_warnings``), so a cited old key is not repeated at every refresh."""
    from readinglist.text import counted

    for outcome in outcomes:
        profile = outcome.profile
        named = f"profile {profile.name!r} ({profile.target})"
        if outcome.state == "failing":
            render.warn(f"{named}: {outcome.message}; marked failing")
            continue
        if outcome.state == "foreign":
            render.warn(f"{named}: {outcome.message}")
            continue
        if outcome.state == "edited":
            if verbose or not outcome.repeated:
                render.warn(
                    f"{profile.target} was changed by hand since readinglist wrote it; "
                    f"not refreshed (export --refresh --force overwrites it, export "
                    f"--forget {profile.name} stops keeping it)"
                )
            continue
        if outcome.state == "unchanged" and not verbose:
            continue
        for message in outcome.warnings if verbose else outcome.new_warnings:
            render.warn(f"profile {profile.name!r}: {message}")
        what = "updated" if outcome.state == "written" else "unchanged"
        render.info(f"{what} {named}: {counted(outcome.papers, 'paper')}")
