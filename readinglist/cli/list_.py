"""``readinglist list`` and ``readinglist show``: read commands."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, PositiveInt, json_option, pass_app
from readinglist.cli._complete import complete_ref
from readinglist.cli._query import (
    QUERY_HELP,
    QueryCommand,
    join_query,
    query_argument,
    warn_if_nothing_matched,
)

#: ``--sort`` choices; kept equal to ``readinglist.query.SORT_KEYS`` (a test checks).
SORT_FIELDS = ("added", "year", "title", "key", "priority", "status", "relevance")


@click.command("list", cls=QueryCommand, epilog=QUERY_HELP)
@query_argument
@json_option
@click.option(
    "-k", "--keys", "keys_only", is_flag=True, help="Print citation keys only, one per line."
)
@click.option(
    "--sort",
    type=click.Choice((*SORT_FIELDS, "interest")),
    help="Sort order: added, year (missing last), title, key, priority (high first), "
    "status (reading, to-read, new, read, skipped), relevance or interest (the score "
    "learned from your decisions, highest first). "
    "Default: relevance when the query has free text, else added.",
)
@click.option("--limit", type=PositiveInt(), help="Show at most N papers.")
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

    Without a query every paper is listed in the order it was added (oldest first);
    with free text the best matches come first. The table fits the terminal; --json
    prints the documented keys; -k prints keys for xargs. The query language is
    described below.

    \b
    Examples:
        readinglist list
        readinglist list status:to-read tag:rl --sort year
        readinglist list --json diffusion -tag:old
        readinglist list "self correction" year:2024..
        readinglist list -k year:2026 | xargs readinglist tag add icml
    """
    from readinglist import library, render
    from readinglist.db import collector_paused
    from readinglist.library.listing import iter_listing, listing_ids

    text = join_query(query)
    if sort == "interest":
        from readinglist.cli._rank import list_by_interest

        list_by_interest(app, text, as_json, keys_only, limit, reverse)
        return
    with app.session(write=False) as session:
        if keys_only:
            keys = library.select_keys(session, text, sort=sort, limit=limit, reverse=reverse)
            if keys:
                render.echo("\n".join(keys))
            else:
                warn_if_nothing_matched(session, text)
            return
        # Streamed: records a chunk at a time, written as they come (issue 17).
        ids = listing_ids(session, text, sort=sort, limit=limit, reverse=reverse)
        if not ids:
            warn_if_nothing_matched(session, text)
        if not as_json:
            with collector_paused():
                render.paper_table(record for _, record in iter_listing(session, ids, table=True))
            return
        from readinglist.cli._rank import interest_by_id

        scores = interest_by_id(app, session, ids)
        with collector_paused():
            render.echo_json_array(
                render.paper_json(record, None if scores is None else scores.get(pid))
                for pid, record in iter_listing(session, ids)
            )


@click.command("show")
@click.argument("ref", metavar="REF", shell_complete=complete_ref)
@json_option
@click.option(
    "--why",
    is_flag=True,
    help="Print the paper's interest score and the terms that raised and lowered it.",
)
@pass_app
def show_command(app: AppContext, ref: str, as_json: bool, why: bool) -> None:
    """Show everything about one paper: data, links, tags, notes and status history.

    REF is a citation key or an alias (case-insensitive). --why explains its interest
    score instead (learned from your decisions; see `list --sort interest`).

    \b
    Examples:
        readinglist show spar2026
        readinglist show spar2026 --json
        readinglist show spar2026 --why
    """
    from readinglist import library, render

    if why:
        from readinglist.cli._rank import show_why

        show_why(app, ref, as_json)
        return

    interest = None
    with app.session(write=False) as session:
        paper = library.resolve(session, ref)
        record = library.to_record(paper)
        history = library.history(session, paper)
        aliases = [a.alias for a in paper.aliases]
        if as_json:  # the same number as `list --json` (scikit-learn loads only here)
            from readinglist.cli._rank import interest_of

            interest = interest_of(app, session, [paper]).get(paper.citekey)
    if as_json:
        render.echo_json(render.paper_detail_json(record, history, aliases, interest))
    else:
        render.paper_detail(record, history, aliases)
