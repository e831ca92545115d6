"""Keeping export profiles current: the one place every committing command passes through.

The root group (:class:`readinglist.cli._root.ReadingListGroup`) calls
:func:`keep_current` when a command has committed a write transaction
(``AppContext.committed``). What the command can have changed is read from its name
(:data:`CHANGES_BY_COMMAND`: ``mark`` changes read status only, ``tag`` tags...; any
other command may change anything), and every profile of this machine's owner that such
a change can show (:func:`readinglist.library.profiles.affected`) is exported again
(:func:`run`); a file whose text is unchanged is not touched. A profile that fails is a
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
    """After ``command`` committed: export again every profile of this machine its
    changes can affect, and say so on stderr. Never raises: the command has committed,
    and its outcome stands (a kept export never fails the command that triggered it), so
    a library that cannot be read for profiles, or any failure of the refresh, is one
    warning."""
    if not app.committed:
        return
    app.committed = False
    changes = changes_of(command)
    if not changes:
        return
    try:
        from readinglist.library import profiles

        with app.connection(write=False) as connection:
            mine = of_this_library(app, profiles.profiles(connection, profiles.owner_here()))
        due = profiles.affected(mine, changes)
        if due:
            report(run(app, due), verbose=False)
    except (ReadingListError, OSError) as err:
        render.warn(f"export profiles not kept current: {err}")
    except Exception as err:  # a bug must not turn a committed command into a failure
        render.warn(f"export profiles not kept current: {type(err).__name__}: {err}")


def of_this_library(app: AppContext, found: Sequence[Profile]) -> list[Profile]:
    """The profiles of ``found`` registered on this library (the SQLite file or server
    URL ``AppContext.where`` names, stored as the ``library`` option at ``--keep``);
    each registered on another one (this library is a copy or was moved: keeping its
    files current would rewrite the original's bibliography) is said and left alone."""
    here = app.where()
    mine = []
    for profile in found:
        registered = profile.options.get("library")
        if registered in (None, here):
            mine.append(profile)
            continue
        render.warn(
            f"export profile {profile.name!r} was registered on the library at {registered}, "
            f"not this one ({here}): not kept current (export --forget {profile.name} "
            "here drops it; export ... --keep registers it here)"
        )
    return mine


def run(app: AppContext, due: Sequence[Profile]) -> list[Outcome]:
    """Export the profiles ``due`` again (one read transaction), then record each
    outcome (one short write transaction); return the outcomes in order."""
    from readinglist.library import profiles
    from readinglist.pipelines import keeping

    database = sqlite_path(app.settings.database_url)
    with app.session(write=False) as session:
        outcomes = [keeping.refresh_profile(session, profile, database) for profile in due]
    with app.connection() as connection:
        for outcome in outcomes:
            profiles.record_run(
                connection,
                outcome.profile.id,
                status="failing" if outcome.state == "failing" else "ok",
                message=outcome.message,
                papers=outcome.papers if outcome.state != "failing" else None,
                digest=outcome.digest,
                options=_with_said(outcome),
            )
    app.committed = False  # recording a run changes no paper
    return outcomes


def _with_said(outcome: Outcome) -> dict[str, object] | None:
    """The profile's options with the fingerprint of what this run said
    (``keeping.SAID``), or None when it is already stored (or the run failed: its
    warnings were not said)."""
    from readinglist.pipelines.keeping import SAID

    options = outcome.profile.options
    if outcome.state == "failing" or options.get(SAID) == outcome.said:
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
        if outcome.state == "unchanged" and not verbose:
            continue
        for message in outcome.warnings if verbose else outcome.new_warnings:
            render.warn(f"profile {profile.name!r}: {message}")
        what = "updated" if outcome.state == "written" else "unchanged"
        render.info(f"{what} {named}: {counted(outcome.papers, 'paper')}")
