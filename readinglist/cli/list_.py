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
@click.option(
    "--conflicts",
    nargs=2,
    metavar="A B",
    help="Only the papers where reader A wants and reader B skipped, or the other way "
    "round, with both decisions (see `agreement`).",
)
@pass_app
def list_command(
    app: AppContext,
    query: tuple[str, ...],
    as_json: bool,
    keys_only: bool,
    sort: str | None,
    limit: int | None,
    reverse: bool,
    conflicts: tuple[str, str] | None,
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
        readinglist list --conflicts ana bo
    """
    from readinglist import render
    from readinglist.collector import collector_paused
    from readinglist.library.listing import iter_listing, listing_ids, select_keys

    text = join_query(query)
    if conflicts is not None:
        from readinglist.cli.agreement import conflicts_listing

        conflicts_listing(app, conflicts, text, as_json, keys_only, (sort, limit, reverse))
        return
    if sort == "interest":
        from readinglist.cli._rank import list_by_interest

        list_by_interest(app, text, as_json, keys_only, limit, reverse)
        return
    # Core statements on a Connection (issue 17: no ORM imported), but for --json, whose
    # interest scores are the ranker's, which reads through a Session.
    opened = app.session(write=False) if as_json else app.connection(write=False)
    with opened as session:
        if keys_only:
            keys = select_keys(session, text, sort=sort, limit=limit, reverse=reverse)
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
        from sqlalchemy.engine import Connection

        from readinglist.cli._rank import interest_by_id

        assert not isinstance(session, Connection)  # --json: a Session, above
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
    """Show everything about one paper: data, links, tags, notes, versions and status history.

    REF is a citation key or an alias (case-insensitive). --why explains its interest
    score instead (learned from your decisions; see `list --sort interest`).

    \b
    Examples:
        readinglist show spar2026
        readinglist show spar2026 --json
        readinglist show spar2026 --why
    """
    from readinglist import render
    from readinglist.library.agreement import others_line
    from readinglist.library.listing import history as status_history
    from readinglist.library.listing import versions_of
    from readinglist.library.refs import resolve_id
    from readinglist.library.rows import iter_records

    if why:
        from readinglist.cli._rank import show_why

        show_why(app, ref, as_json)
        return

    interest = None
    # Core rows on a Connection (issue 17: no ORM imported), but for --json, whose
    # interest score is the ranker's, which reads through a Session.
    opened = app.session(write=False) if as_json else app.connection(write=False)
    with opened as session:
        paper_id = resolve_id(session, ref)
        record = next(iter(iter_records(session, [paper_id])))  # with notes and aliases
        history = status_history(session, paper_id)
        versions = versions_of(session, paper_id)
        others = others_line(session, paper_id, record.status or "new")
        aliases = list(record.aliases)
        if as_json:  # the same number as `list --json` (scikit-learn loads only here)
            from sqlalchemy.engine import Connection

            from readinglist.cli._rank import interest_by_id

            assert not isinstance(session, Connection)  # --json: a Session, above
            scores = interest_by_id(app, session, [paper_id])
            interest = scores.get(paper_id) if scores is not None else None
    if as_json:
        render.echo_json(render.paper_detail_json(record, history, aliases, interest, versions))
    else:
        render.paper_detail(record, history, aliases, versions, others)
