"""``readinglist rm``: remove papers."""

from __future__ import annotations

import sys

import click

from readinglist.cli._app import AppContext, pass_app
from readinglist.cli._query import QUERY_OPTION_HELP
from readinglist.cli.mark import query_option, refs_argument
from readinglist.text import counted


def stdin_is_terminal() -> bool:
    """True when standard input is a terminal (someone can answer a question)."""
    return sys.stdin.isatty()


@click.command("rm", epilog=QUERY_OPTION_HELP)
@refs_argument
@query_option
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@pass_app
def rm_command(app: AppContext, refs: tuple[str, ...], query_text: str | None, yes: bool) -> None:
    """Remove papers (with their notes and status history).

    Asks first on a terminal; elsewhere (a script, a pipe) --yes is required
    (exit 2 without it). With several REFs of which one is unknown nothing is
    removed (exit 3).

    \b
    Examples:
        readinglist rm spar2026
        readinglist rm --yes -q "status:skipped year:2019"
    """
    from readinglist import library, render
    from readinglist.errors import UsageError

    if not yes and not stdin_is_terminal():
        raise UsageError(
            "rm asks for confirmation, but standard input is not a terminal; use --yes"
        )
    with app.session(write=False) as session:
        keys = [p.citekey for p in library.resolve_targets(session, refs, query_text)]
    if not keys:
        render.info("no paper matches the query; nothing removed")
        return
    if not yes:
        shown = ", ".join(keys[:10]) + (f" and {len(keys) - 10} more" if len(keys) > 10 else "")
        if not click.confirm(f"Remove {counted(len(keys), 'paper')} ({shown})?", err=True):
            render.info("nothing removed")
            return
    with app.session() as session:  # the question is asked outside the write lock
        papers = library.resolve_many(session, keys)
        tag_ids = [t.id for p in papers for t in p.tags]
        library.delete_papers(session, papers)
        library.delete_unused_tags(session, tag_ids)
    render.info(f"removed {counted(len(keys), 'paper')}: {', '.join(keys)}")
