"""``readinglist stats``: counts by read status, priority and tag, and papers read per month."""

from __future__ import annotations

from typing import Any

import click

from readinglist.cli._app import AppContext, json_option, pass_app
from readinglist.cli._query import QUERY_HELP, QueryCommand, join_query, query_argument
from readinglist.text import counted


def stats_json(stats: dict[str, Any]) -> dict[str, Any]:
    """Return the ``stats --json`` document for ``library.paper_stats``'s result.

    Keys: ``papers`` (int), ``status`` ({status: n} for every status), ``priority``
    ({"high", "medium", "low", "none": n}), ``tags`` ([{"tag", "count"}], most used
    first), ``read_per_month`` ([{"month": "YYYY-MM", "count"}], oldest first),
    ``skipped_since_wanted`` (int: papers skipped since the last one marked wanted, the
    whole library; ``counting.SKIPPED_SINCE_WANTED``).
    """
    return {
        "papers": stats["papers"],
        "status": stats["status"],
        "priority": stats["priority"],
        "tags": [{"tag": name, "count": n} for name, n in stats["tags"]],
        "read_per_month": [{"month": m, "count": n} for m, n in stats["read_per_month"]],
        "skipped_since_wanted": stats["skipped_since_wanted"],
    }


def stats_text(stats: dict[str, Any]) -> str:
    """Return the human summary of ``library.paper_stats``'s result (sections of aligned rows)."""
    sections: list[tuple[str, list[tuple[str, int]]]] = [
        ("Status", list(stats["status"].items())),
        ("Priority", list(stats["priority"].items())),
        ("Tags", list(stats["tags"])),
        ("Read per month", list(stats["read_per_month"])),
    ]
    width = max([len(label) for _, rows in sections for label, _ in rows] + [8])
    count = stats["papers"]
    lines = [counted(count, "paper")]
    if stats["skipped_since_wanted"]:
        lines.append(f"{stats['skipped_since_wanted']} skipped since the last wanted paper")
    for title, rows in sections:
        if not rows:
            continue
        lines += ["", title]
        lines += [f"  {label.ljust(width)}  {n:>5}" for label, n in rows]
    return "\n".join(lines)


@click.command("stats", cls=QueryCommand, epilog=QUERY_HELP)
@query_argument
@json_option
@pass_app
def stats_command(app: AppContext, query: tuple[str, ...], as_json: bool) -> None:
    """Count papers by status, priority, tag and month read.

    Counts every paper, or those the QUERY selects. A paper counts as read in each
    month (UTC) its status history moved it to read.

    \b
    Examples:
        readinglist stats
        readinglist stats tag:icml --json
    """
    from readinglist import counting, render
    from readinglist.config import sqlite_path

    # A whole SQLite library at the current schema is counted without SQLAlchemy
    # (counting.sqlite_stats, issue 17); anything else through the library's session.
    path = sqlite_path(app.settings.database_url) if not query else None
    # The reader's folded name (readers.fold, str.casefold) without importing SQLAlchemy.
    reader = (app.settings.reader_name() or "default").strip().casefold()
    stats = counting.sqlite_stats(path, reader) if path is not None else None
    if stats is None:
        from readinglist import library

        with app.session(write=False) as session:
            stats = library.paper_stats(session, join_query(query))
    if as_json:
        render.echo_json(stats_json(stats))
    else:
        render.echo(stats_text(stats))
