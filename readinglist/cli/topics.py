"""``readinglist topics``: the selected papers grouped into topics (issue 14)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import click

from readinglist.cli._app import AppContext, json_option, pass_app
from readinglist.cli._query import QUERY_HELP, QueryCommand, join_query, query_argument
from readinglist.text import counted, tag_key


@click.command("topics", cls=QueryCommand, epilog=QUERY_HELP)
@query_argument
@click.option(
    "--k",
    "k",
    type=click.IntRange(1, 500),
    default=8,
    show_default=True,
    help="Number of topics.",
)
@click.option(
    "--tag",
    "write_tags",
    is_flag=True,
    help="Tag each paper topic/<label>, replacing the topic/ tags of an earlier run (then"
    ' e.g. `mark skipped -q "tag:topic/<label> status:new"`).',
)
@json_option
@pass_app
def topics_command(
    app: AppContext, query: tuple[str, ...], k: int, write_tags: bool, as_json: bool
) -> None:
    """Group the papers a QUERY selects into topics, each labelled by its top terms.

    Clusters the papers' tf-idf vectors (title, abstract, authors, venue, tags) into
    --k topics with fixed seeds, so the same papers give the same topics; prints each
    topic's label, size, status breakdown and terms. --tag writes the tags
    topic/<label> (replacing those of an earlier run on these papers), so that a whole
    topic can be triaged or skipped with the usual commands; add status:new to such a
    query to leave the papers you decided on alone. Without a QUERY, every paper.

    \b
    Examples:
        readinglist topics tag:icml --k 12
        readinglist topics status:new --k 10 --tag
        readinglist mark skipped -q "tag:topic/speech-recognition-asr status:new"
    """
    from readinglist import library, render
    from readinglist.ranking.store import load
    from readinglist.ranking.topics import TAG_PREFIX, cluster

    text = join_query(query)
    with app.session(write=write_tags) as session:
        papers = library.list_papers(session, text)
        status = {p.id: p.status for p in papers}
        key = {p.id: p.citekey for p in papers}
        index = load(session, app.settings.database_url)
        topics = cluster(index, [p.id for p in papers], k, [p.venue or "" for p in papers])
        replaced = 0
        if write_tags:
            # A new clustering replaces the last one on these papers: topic tags of two
            # runs (another --k, other papers) would otherwise mix into one tag.
            earlier = [n for n, _ in library.tag_counts(session) if tag_key(n).startswith("topic/")]
            if earlier:
                replaced = len(library.remove_tags(session, papers, earlier))
            by_id = {p.id: p for p in papers}
            for topic in topics:
                chosen = [by_id[i] for i in topic.paper_ids]
                tag = library.check_tag_name(f"{TAG_PREFIX}{topic.label}")
                library.add_tags(session, chosen, [tag])
    rows: list[dict[str, Any]] = [
        {
            "label": t.label,
            "terms": list(t.terms),
            "count": len(t.paper_ids),
            "statuses": dict(sorted(Counter(status[i] for i in t.paper_ids).items())),
            "keys": [key[i] for i in t.paper_ids],
        }
        for t in topics
    ]
    if as_json:
        render.echo_json(rows)
        return
    for row in rows:
        counts = ", ".join(f"{n} {s}" for s, n in row["statuses"].items())
        render.echo(f"{row['label']}  ({counted(row['count'], 'paper')}: {counts})")
        render.echo("    " + "; ".join(row["terms"]))
    if write_tags:
        message = f"tagged {counted(len(papers), 'paper')} with topic/<label> tags"
        if replaced:
            message += f" (replacing an earlier run's topic tags on {counted(replaced, 'paper')})"
        render.info(message)
