"""``readinglist duplicates`` and ``readinglist not-duplicate``: review possible duplicates."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, json_option, pass_app
from readinglist.cli._complete import complete_ref
from readinglist.cli._query import QUERY_HELP, QueryCommand, join_query, query_argument
from readinglist.text import counted


@click.command("duplicates", cls=QueryCommand, epilog=QUERY_HELP)
@query_argument
@json_option
@pass_app
def duplicates_command(app: AppContext, query: tuple[str, ...], as_json: bool) -> None:
    """List pairs of papers that may be one paper, with the evidence.

    Looks at the papers QUERY selects (all without one): the same DOI or arXiv id,
    near-identical abstracts (a word changed, a sentence missing, typography) or
    titles. "merge" pairs have strong evidence, "candidate" pairs are weaker;
    "related" pairs are different works of one title (an erratum, another edition, a
    journal extension), never merged; pairs with conflicting identifiers or
    coordinates are never listed, nor pairs you marked with not-duplicate. Join a pair with merge KEEP OTHER. JSON: a list of
    {"a", "b", "kind", "score", "evidence"} ("a" is the older paper).

    \b
    Examples:
        readinglist duplicates
        readinglist duplicates venue:ICML year:2015 --json
        readinglist merge smith2015deep deep2015
        readinglist not-duplicate jones2020editorial jones2020editoriala
    """
    from dataclasses import asdict

    from readinglist import library, render

    with app.session(write=False) as session:
        pairs = library.duplicate_pairs(session, join_query(query))
    if as_json:
        render.echo_json([{**asdict(p), "score": round(p.score, 1)} for p in pairs])
        return
    if not pairs:
        render.info("no possible duplicates")
        return
    for pair in pairs:
        render.echo(f"{pair.kind:<9}  {pair.score:5.1f}  {pair.a}  {pair.b}  {pair.evidence}")
    render.info(counted(len(pairs), "possible duplicate pair"))


@click.command("not-duplicate")
@click.argument("first", metavar="A", shell_complete=complete_ref)
@click.argument("second", metavar="B", shell_complete=complete_ref)
@pass_app
def not_duplicate_command(app: AppContext, first: str, second: str) -> None:
    """Remember that papers A and B are different papers.

    The pair is never listed by duplicates again, and merge A B refuses it (exit 4)
    unless --force. Both REFs must exist (exit 3).

    \b
    Examples:
        readinglist not-duplicate jones2020editorial jones2020editoriala
    """
    from readinglist import library, render

    with app.session() as session:
        a, b = library.resolve(session, first), library.resolve(session, second)
        added = library.not_duplicate(session, a, b)
    state = "remembered" if added else "already remembered"
    render.info(f"{state}: {a.citekey} and {b.citekey} are different papers")
