"""``readinglist db ...``: schema revision, upgrades and maintenance."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, pass_app


@click.group("db")
def db_group() -> None:
    """Inspect and maintain the database: revision, upgrades, checks, backups.

    \b
    Examples:
        readinglist db current
        readinglist db upgrade
    """


@db_group.command("upgrade")
@pass_app
def upgrade_command(app: AppContext) -> None:
    """Upgrade the database schema to this version's newest revision.

    SQLite files are backed up beside themselves first (online backup API). A
    database from a newer version of readinglist is refused (exit 6).

    \b
    Examples:
        readinglist db upgrade
        readinglist --db postgresql+psycopg://me@server/papers db upgrade
    """
    from readinglist import db, render

    engine = app.engine(migrate=False)
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
    from readinglist import db, render

    with app.engine(migrate=False).connect() as conn:
        revision = db.current_revision(conn)
    if revision is None:
        render.echo("none (empty database)")
    else:
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
