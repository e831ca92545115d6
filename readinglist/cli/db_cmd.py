"""``readinglist db ...``: schema revision, upgrades and maintenance."""

from __future__ import annotations

import os
from pathlib import Path

import click

from readinglist.cli._app import AppContext, json_option, pass_app
from readinglist.text import counted


@click.group("db")
def db_group() -> None:
    """Inspect and maintain the database: revision, upgrades, checks, backups.

    \b
    Examples:
        readinglist db current
        readinglist db upgrade
        readinglist db check --repair
        readinglist db backup
    """


@db_group.command("upgrade")
@pass_app
def upgrade_command(app: AppContext) -> None:
    """Upgrade the database schema to this version's newest revision.

    SQLite files are backed up beside themselves first (online backup API). A
    database from a newer version of readinglist, or holding a table, view or
    trigger readinglist does not create, is refused (exit 6).

    \b
    Examples:
        readinglist db upgrade
        readinglist --db postgresql+psycopg://me@server/papers db upgrade
    """
    from readinglist import db, render
    from readinglist.schema_objects import refuse_unknown

    engine = app.engine(migrate=False)
    refuse_unknown(engine)  # a migration would run a foreign trigger
    with engine.connect() as conn:
        before = db.current_revision(conn)
    after = db.upgrade(engine)
    if before == after:
        render.info(f"database is at revision {after} (newest); nothing to do")
    else:
        render.info(f"database upgraded from {before or 'empty'} to {after}")


@db_group.command("current")
@pass_app
def current_command(app: AppContext) -> None:
    """Print the database's schema revision (and whether it is the newest).

    \b
    Examples:
        readinglist db current
    """
    from readinglist import db, opening, render

    with app.engine(migrate=False, create=False).connect() as conn:
        revision = db.current_revision(conn)
    if revision is None:  # a database with no library: said as every read says it
        why = "the database holds no readinglist schema"
        raise opening.NoLibrary(opening.NO_LIBRARY.format(where=app.where(), why=why))
    state = "head" if revision == db.HEAD else f"head is {db.HEAD}"
    render.echo(f"{revision} ({state})")


@db_group.command("history")
def history_command() -> None:
    """List the schema migrations this version knows, oldest first.

    \b
    Examples:
        readinglist db history
    """
    from readinglist import db, render

    for revision, down, message in db.history():
        render.echo(
            f"{down or '<base>'} -> {revision}: {message.splitlines()[0] if message else ''}"
        )


@db_group.command("check")
@click.option(
    "--repair",
    is_flag=True,
    help="Recompute stale search text and rebuild the full-text index, then check again.",
)
@json_option
@pass_app
def check_command(app: AppContext, repair: bool, as_json: bool) -> None:
    """Check the schema, foreign keys, full-text index and search text of each paper.

    Verifies that the schema is at this version's newest revision, that no row
    points at a missing row, that the full-text index matches the papers, and that
    each paper's indexed search text matches its data, tags and notes. One line per
    check goes to stdout; the exit code is 6 when a fault is found (with --repair:
    when one remains after repairing). The schema is not upgraded by a check.

    \b
    Examples:
        readinglist db check
        readinglist db check --repair
        readinglist db check --json
    """
    from readinglist import maintenance, render
    from readinglist.errors import DatabaseError

    app.engine(migrate=False, create=False)
    with app.session(write=repair) as session:
        report = maintenance.check(session)
        if repair and not report.ok:
            repaired = maintenance.repair(session)
            report = maintenance.check(session)
            report.repaired = repaired
    if as_json:
        render.echo_json(report.as_json())
    else:
        for result in report.results:
            if result.ok:
                render.echo(f"ok     {result.name}: {result.detail}")
            for fault in result.faults:
                render.echo(f"FAULT  {result.name}: {fault}")
        for action in report.repaired:
            render.info(f"repaired: {action}")
    if not report.ok:
        hint = "; run `readinglist db check --repair`" if report.repairable and not repair else ""
        found = counted(report.fault_count, "fault")
        raise DatabaseError(f"database check found {found}{hint}")


@db_group.command("backup")
@click.argument("file", required=False, type=click.Path(dir_okay=True))
@pass_app
def backup_command(app: AppContext, file: str | None) -> None:
    """Back up the SQLite database to FILE while others may keep working.

    Uses SQLite's online backup API, so the copy is consistent even while other
    readinglist processes write. Without FILE (or with a directory) the copy is
    named <database>.<UTC time>.bak, beside the database (or in that directory);
    FILE ending in / is a directory, created when missing. An existing file is
    never overwritten (exit 4); a destination that cannot be written (read-only,
    full) fails with one line (exit 6) and leaves nothing. Prints the backup's path. A
    PostgreSQL database is backed up with pg_dump instead: the command says how
    (exit 2).

    \b
    Examples:
        readinglist db backup
        readinglist db backup ~/backups/papers.db
        readinglist db backup ~/backups/
    """
    from readinglist import db, maintenance, render

    engine = app.engine(migrate=False, create=False)
    folder = file is not None and file.endswith(("/", os.sep))
    target = maintenance.backup(engine, Path(file) if file else None, folder=folder)
    render.info(f"backed up {db.sqlite_path(engine)} to {target}")
    render.echo(str(target))


@db_group.command("restore")
@click.argument("file", type=click.Path(path_type=Path))
@pass_app
def restore_command(app: AppContext, file: Path) -> None:
    """Replace the SQLite database by the backup FILE (the current one is kept).

    FILE must be an intact SQLite database holding a readinglist library at a
    schema revision this version knows; anything else is refused (exit 5; a
    newer revision exit 6) and nothing changes. The current database is first
    backed up beside itself as <database>.<UTC time>.bak; then its content is
    replaced in one step. A backup from an older version is upgraded on next use.

    \b
    Examples:
        readinglist db restore readinglist.db.20261130T120000Z.bak
        readinglist --db papers.db db restore ~/backups/papers.db
    """
    from readinglist import maintenance, render

    engine = app.engine(migrate=False)
    done = maintenance.restore(engine, file)
    if done.previous is not None:
        render.info(f"the database as it was is saved in {done.previous}")
    render.info(f"restored {done.database} from {done.source} (schema revision {done.revision})")
