"""``readinglist list`` and ``readinglist show``: read commands."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, json_option, pass_app
from readinglist.cli._query import QueryCommand, join_query, query_argument

SORT_FIELDS = ("added", "year", "title", "key", "priority", "status", "relevance")


@click.command("list", cls=QueryCommand)
@query_argument
@json_option
@click.option(
    "-k", "--keys", "keys_only", is_flag=True, help="Print citation keys only, one per line."
)
@click.option(
    "--sort",
    type=click.Choice(SORT_FIELDS),
    help="Sort order (default: added, or relevance for free text).",
)
@click.option("--limit", type=click.IntRange(min=1), help="Show at most N papers.")
@click.option("--reverse", is_flag=True, help="Reverse the sort order.")
@pass_app
def list_command(
    app: AppContext,
    query: tuple[str, ...],
    as_json: bool,
    keys_only: bool,
    sort: str | None,
    limit: int | None,
    reverse: bool,
) -> None:
    """List papers, optionally those a QUERY selects.

    Without a query every paper is listed in the order it was added. See
    `readinglist help-query` for the query language.

    \b
    Examples:
        readinglist list
        readinglist list status:to-read tag:rl --sort year
        readinglist list --json diffusion -tag:old
        readinglist list -k year:2026 | xargs readinglist tag add icml
    """
    from readinglist import library, render

    with app.session(write=False) as session:
        papers = library.select_papers(
            session, join_query(query), sort=sort, limit=limit, reverse=reverse
        )
        records = [library.to_record(p, with_notes=False) for p in papers]
    if as_json:
        render.echo_json([render.paper_json(r) for r in records])
    elif keys_only:
        render.keys(records)
    else:
        render.paper_table(records)


@click.command("show")
@click.argument("ref", metavar="REF")
@json_option
@pass_app
def show_command(app: AppContext, ref: str, as_json: bool) -> None:
    """Show everything about one paper: data, links, tags, notes and status history.

    REF is a citation key or an alias (case-insensitive).

    \b
    Examples:
        readinglist show spar2026
        readinglist show spar2026 --json
    """
    from readinglist import library, render

    with app.session(write=False) as session:
        paper = library.resolve(session, ref)
        record = library.to_record(paper)
        history = library.history(session, paper)
        aliases = [a.alias for a in paper.aliases]
    if as_json:
        render.echo_json(render.paper_detail_json(record, history, aliases))
    else:
        render.paper_detail(record, history, aliases)
