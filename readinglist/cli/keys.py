"""``readinglist rekey`` and ``readinglist merge``: citation keys and duplicates."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, pass_app
from readinglist.cli._complete import complete_ref
from readinglist.cli._query import QUERY_OPTION_HELP
from readinglist.text import counted, plural


@click.command("rekey", epilog=QUERY_OPTION_HELP)
@click.argument("ref", required=False, metavar="REF", shell_complete=complete_ref)
@click.argument("new_key", required=False, metavar="NEW")
@click.option(
    "--source",
    is_flag=True,
    help="Give each paper -q selects whose key is provisional its source's key "
    "(else one made of author, year and title word).",
)
@click.option("-q", "--query", "query_text", metavar="QUERY", help="With --source: the papers.")
@pass_app
def rekey_command(
    app: AppContext, ref: str | None, new_key: str | None, source: bool, query_text: str | None
) -> None:
    """Rename a paper's citation key; the old key stays as an alias that still resolves.

    A key made while a paper was provisional (from a list of abstracts) is replaced
    by the source's key when a bibliography completes the paper; --source does the
    same in bulk for the papers -q selects. A key already used by another paper is
    refused (exit 4).

    \b
    Examples:
        readinglist rekey spar2026 zhang2026spar
        readinglist rekey --source -q "venue:ICML year:2015"
    """
    from readinglist import library, render

    if source:
        if ref is not None or new_key is not None or query_text is None:
            raise click.UsageError("use rekey --source -q QUERY (without REF NEW)")
        with app.session() as session:
            papers = library.resolve_targets(session, (), query_text)
            renamed = library.adopt_source_keys(session, papers)
        for old, new in renamed:
            render.info(f"renamed {old} to {new} ({old} remains as an alias)")
        render.info(
            f"{len(renamed)} of {counted(len(papers), 'selected paper')} "
            f"{plural(len(papers), 'took a real key', 'took real keys')}"
        )
        return
    if ref is None or new_key is None or query_text is not None:
        raise click.UsageError("give REF and NEW (or --source -q QUERY)")
    with app.session() as session:
        paper = library.resolve(session, ref)
        old = library.rekey(session, paper, new_key)
    render.info(f"renamed {old} to {new_key} ({old} remains as an alias)")


@click.command("merge")
@click.argument("keep", metavar="KEEP", shell_complete=complete_ref)
@click.argument("others", nargs=-1, metavar="OTHER...", shell_complete=complete_ref)
@click.option(
    "--take",
    "take",
    multiple=True,
    metavar="FIELD",
    help="Take the other value of FIELD that a merge kept in KEEP's history (repeatable).",
)
@click.option("--history", is_flag=True, help="List the other values kept in KEEP's merge history.")
@click.option("--force", is_flag=True, help="Merge even a pair marked with not-duplicate.")
@pass_app
def merge_command(
    app: AppContext,
    keep: str,
    others: tuple[str, ...],
    take: tuple[str, ...],
    history: bool,
    force: bool,
) -> None:
    """Merge duplicate papers OTHER... into KEEP; their keys become aliases of KEEP.

    The rule is the import's: what KEEP lacks is filled from the others (authors,
    editors, pages, volume, publisher, DOI ... every field); a provisional title or
    key is replaced; values both have stay KEEP's, and the others' are kept in
    KEEP's merge history (--history lists them, --take FIELD takes one); tags,
    notes and status history are united; KEEP's status, priority and notes stay.
    A pair marked with not-duplicate is refused (exit 4) unless --force.

    \b
    Examples:
        readinglist merge vaswani2017attention vaswani2017attentiona
        readinglist merge --history vaswani2017attention
        readinglist merge vaswani2017attention --take pages --take venue
    """
    from readinglist import library, render

    if not (others or take or history):
        raise click.UsageError("give OTHER... to merge, --take FIELD or --history")
    with app.session(write=not history or bool(others or take)) as session:
        target = library.resolve(session, keep)
        if others:
            merged = library.resolve_many(session, others)
            keys = [p.citekey for p in merged]
            filled = library.merge_papers(session, target, merged, force=force)
            extra = f" (filled: {', '.join(filled)})" if filled else ""
            render.info(f"merged {', '.join(keys)} into {target.citekey}{extra}")
        for name in take:
            value = library.take_conflict(session, target, name)
            render.info(f"{target.citekey}: took {name} = {_show(value)}")
        if history:
            rows = library.conflicts_of(session, target)
            for name, value, where in rows:
                render.echo(f"{name}\t{_show(value)}\t{where}")
            if not rows:
                render.info(f"{target.citekey}: no other values kept")


def _show(value: object) -> str:
    """A merge-history value as one line (people as "Family, Given and ...")."""
    if isinstance(value, list):
        names = []
        for person in value:
            if isinstance(person, dict):
                parts = [person.get("family", ""), person.get("given", "")]
                names.append(person.get("literal") or ", ".join(p for p in parts if p))
            else:
                names.append(str(person))
        return " and ".join(names)
    return str(value)
