"""``readinglist readers``: the readers of a shared library, with their counts."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, json_option, pass_app

#: The counts of each reader, in the order the table shows them.
COUNTS = ("decided", "to-read", "reading", "read", "skipped")


@click.command("readers")
@json_option
@pass_app
def readers_command(app: AppContext, as_json: bool) -> None:
    """List the readers of the library with how many papers each has decided.

    Each reader has their own status, priority, history, undo and private notes
    (`--reader NAME`); "decided" counts the papers whose status is not new. A
    personal library has one reader, "default", once something is decided.

    JSON: a list of {"reader", "created", "decided", "to-read", "reading", "read",
    "skipped"} (created: ISO 8601 UTC).

    \b
    Examples:
        readinglist readers
        readinglist readers --json
    """
    from readinglist import render
    from readinglist.library.readers import reader_counts

    with app.connection(write=False) as connection:
        rows = reader_counts(connection)
    if as_json:
        render.echo_json([{**row, "created": render.iso(row["created"])} for row in rows])
        return
    if not rows:
        render.info("no reader has decided anything yet")
        return
    width = max(len("READER"), *(len(row["reader"]) for row in rows))
    header = "READER".ljust(width) + "".join(f"  {name.upper():>8}" for name in COUNTS)
    lines = [header] + [
        row["reader"].ljust(width) + "".join(f"  {row[name]:>8}" for name in COUNTS) for row in rows
    ]
    render.echo("\n".join(lines))
