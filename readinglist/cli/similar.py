"""``readinglist similar``: the papers most like one paper (issue 14)."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, json_option, pass_app
from readinglist.cli._complete import complete_ref


@click.command("similar")
@click.argument("ref", metavar="REF", shell_complete=complete_ref)
@click.option(
    "--limit",
    type=click.IntRange(1, 10_000),
    default=10,
    show_default=True,
    help="Show at most N papers.",
)
@json_option
@pass_app
def similar_command(app: AppContext, ref: str, limit: int, as_json: bool) -> None:
    """List the papers most like one paper, most similar first.

    Similarity is the cosine of the papers' tf-idf vectors (title, abstract, authors,
    venue and tags), computed on this machine from your library alone. REF is a
    citation key or an alias. --json adds `similarity` to each paper object.

    \b
    Examples:
        readinglist similar spar2026
        readinglist similar spar2026 --limit 20 --json
    """
    from readinglist import library, render
    from readinglist.ranking.ranker import similar
    from readinglist.ranking.store import load

    with app.session(write=False) as session:
        paper = library.resolve(session, ref)
        # streamed: the rows are read from the cache file a block at a time, once
        index = load(session, app.settings.database_url, streamed=True, on_build=render.info)
        found = similar(index, paper.id, limit)
        by_id = {p.id: p for p in library.load_papers_for_listing(session, [i for i, _ in found])}
        records = [
            (library.to_record(by_id[i], with_notes=False), s) for i, s in found if i in by_id
        ]
    if as_json:
        render.echo_json([{**render.paper_json(r), "similarity": s} for r, s in records])
    else:
        render.paper_table(
            [r for r, _ in records],
            interest={r.citekey or "": s for r, s in records},
            header="SIMILARITY",
        )
