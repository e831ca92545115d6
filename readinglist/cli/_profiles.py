"""``readinglist export`` with profiles: ``--keep``, ``--profiles``, ``--forget``,
``--pause``, ``--resume`` and ``--refresh``.

A profile is stored in the library (:mod:`readinglist.library.profiles`) for the
owner ``user@host`` of this machine; it is run by :mod:`readinglist.pipelines.keeping`
and kept current after every committing command by :mod:`readinglist.cli._keep`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from readinglist import render
from readinglist.errors import InvalidInput, NotFound, UsageError

if TYPE_CHECKING:
    from readinglist.cli._app import AppContext
    from readinglist.library.profiles import Profile


def keep(
    app: AppContext,
    fmt: str,
    query_text: str,
    output: str | None,
    aux: str | None,
    options: dict[str, Any],
    name: str | None,
) -> None:
    """Register the export of ``fmt`` to ``output`` as a profile (or replace the one of
    that target) in the library and in this account's registry of kept exports
    (:mod:`readinglist.pipelines.kept_here`: only those are ever written), run it at
    once (FILE is written whatever it holds: this command asks for it) and say so.
    Raises UsageError without ``-o FILE``, with ``--date``, when FILE is the SQLite
    library itself or the ``.aux`` file read; InvalidInput (exit 5) when its first run
    fails: a new profile is then not kept, a replaced one stays, marked failing."""
    from readinglist.cli._keep import report, run
    from readinglist.library import profiles
    from readinglist.pipelines import kept_here

    if output in (None, "-"):
        raise UsageError("--keep needs -o FILE: the file to keep current")
    if options.get("with_date"):
        raise UsageError("--keep cannot print --date: the file would change at every run")
    from readinglist.config import sqlite_path
    from readinglist.pipelines.exporting import refuse_aux, refuse_database

    refuse_database(output, sqlite_path(app.settings.database_url))  # never the library
    refuse_aux(output, aux)  # nor the .aux file read
    stored = {k: v for k, v in options.items() if k != "with_date"}
    stored["library"] = app.where()  # a copy of the library keeps none of its files current
    reader = app.settings.reader_name()
    if fmt == "markdown" and reader is not None:  # refreshed as this reader's list
        stored["reader"] = reader
    target = profiles.absolute(output)
    with app.connection() as connection:
        profile, new = profiles.register(
            connection,
            profiles.owner_here(),
            name=name,
            fmt=fmt,
            target=target,
            query=query_text,
            aux=profiles.absolute(aux) if aux else None,
            options=stored,
        )
    with kept_here.editing() as registry:
        registry.keep(app.where(), profile)
    [outcome] = run(app, [profile], force=True)  # --keep asks for FILE to be written
    if outcome.state == "failing":
        if new:
            with app.connection() as connection:
                profiles.forget(connection, profile.id)
            with kept_here.editing() as registry:
                registry.forget(app.where(), profile.id)
        app.committed = False
        kept = "not registered" if new else "kept, marked failing"
        raise InvalidInput(f"export profile {profile.name!r}: {outcome.message}; {kept}")
    report([outcome], verbose=True)
    verb = "registered" if new else "replaced"
    render.info(f"{verb} export profile {profile.name!r}: kept current after every change")


def _find(app: AppContext, ref: str) -> Profile:
    """This owner's profile named ``ref`` or writing to the path ``ref``; NotFound (exit 3)."""
    from readinglist.library import profiles

    with app.connection(write=False) as connection:
        found = profiles.find(connection, profiles.owner_here(), ref)
    if found is None:
        raise NotFound(f"no export profile {ref!r} (readinglist export --profiles lists them)")
    return found


def forget(app: AppContext, ref: str) -> None:
    """Remove the profile ``ref`` from the library and from this account's registry of
    kept exports (its file stays) and say so."""
    from readinglist.library import profiles
    from readinglist.pipelines import kept_here

    profile = _find(app, ref)
    with app.connection() as connection:
        profiles.forget(connection, profile.id)
    app.committed = False
    with kept_here.editing() as registry:
        registry.forget(app.where(), profile.id)
    render.info(f"forgot export profile {profile.name!r} ({profile.target} stays as it is)")


def pause(app: AppContext, ref: str, paused: bool) -> None:
    """Pause or resume the profile ``ref``; a resumed profile is run at once."""
    from readinglist.cli._keep import report, run
    from readinglist.library import profiles

    profile = _find(app, ref)
    with app.connection() as connection:
        profiles.set_paused(connection, [profile.id], paused)
    app.committed = False
    if paused:
        render.info(f"paused export profile {profile.name!r}: {profile.target} is left as it is")
        return
    render.info(f"resumed export profile {profile.name!r}")
    report(run(app, [profile]), verbose=True)


def refresh(app: AppContext, force: bool = False) -> None:
    """Run every profile this account kept on this library that is not paused, one line
    each; say which profiles of this machine's owner it did not keep (never run). A file
    changed by hand since it was written is left as it is unless ``force``."""
    from readinglist.cli._keep import kept_by_me, report, run
    from readinglist.library import profiles
    from readinglist.pipelines import kept_here

    registry = kept_here.load()
    with app.connection(write=False) as connection:
        found = profiles.profiles(connection)
    mine = kept_by_me(app, registry, found, say_others=True)
    due = [p for p in mine if not p.paused]
    for profile in mine:
        if profile.paused:
            render.info(f"skipped paused export profile {profile.name!r}")
    if not due:
        render.info("no export profile to refresh (export FORMAT -o FILE --keep registers one)")
        return
    report(run(app, due, force=force), verbose=True)


def show(app: AppContext, as_json: bool) -> None:
    """List every profile of the library: this machine's owner's first, then other
    owners'; one of this owner's that this account did not keep here (so never written
    here) is marked so."""
    from readinglist.library import profiles
    from readinglist.pipelines import kept_here

    registry = kept_here.load()
    with app.connection(write=False) as connection:
        found = profiles.profiles(connection)
    here = profiles.owner_here()
    where = app.where()
    kept = {p.id for p in found if registry.find(where, p) is not None}
    found.sort(key=lambda p: (p.owner != here, p.owner, p.name))
    if as_json:
        render.echo_json([_as_json(p, here, p.id in kept) for p in found])
        return
    if not found:
        render.info("no export profiles (export FORMAT -o FILE --keep registers one)")
        return
    for p in found:
        state = "paused" if p.paused else (p.status or "never run")
        last = render.iso(p.last_run_at) or "never"
        papers = "-" if p.papers is None else str(p.papers)
        owner = "" if p.owner == here else f"  [{p.owner}]"
        if p.owner == here and p.id not in kept:
            owner = "  [kept by someone else: not refreshed here]"
        line = f"{p.name}\t{p.format}\t{state}\t{papers} papers\t{last}\t{p.target}{owner}"
        render.echo(line)  # control characters made visible
        if p.status == "failing" and p.message:
            render.echo(f"\t{p.message}")


def _as_json(p: Profile, here: str, kept: bool) -> dict[str, Any]:
    """The documented JSON object of one profile (README "Keeping a paper's bibliography
    current"); ``kept``: this account kept it on this machine (it is written here)."""
    return {
        "name": p.name,
        "owner": p.owner,
        "mine": p.owner == here,
        "kept_here": kept,
        "format": p.format,
        "target": p.target,
        "query": p.query,
        "aux": p.aux,
        "options": {k: v for k, v in p.options.items() if k != "said"},  # keeping.SAID
        "paused": p.paused,
        "status": p.status,
        "message": p.message,
        "papers": p.papers,
        "last_run": render.iso(p.last_run_at),
        "created": render.iso(p.created_at),
    }
