"""``readinglist rekey`` and ``readinglist merge``: citation keys and duplicates."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, pass_app
from readinglist.cli._complete import complete_ref


@click.command("rekey")
@click.argument("ref", metavar="REF", shell_complete=complete_ref)
@click.argument("new_key", metavar="NEW")
@pass_app
def rekey_command(app: AppContext, ref: str, new_key: str) -> None:
    """Rename a paper's citation key; the old key stays as an alias that still resolves.

    Keys never change on import or edit; this is the one way to rename one. A key
    already used by another paper is refused (exit 4).

    \b
    Examples:
        readinglist rekey spar2026 zhang2026spar
    """
    from readinglist import library, render

    with app.session() as session:
        paper = library.resolve(session, ref)
        old = library.rekey(session, paper, new_key)
    render.info(f"renamed {old} to {new_key} ({old} remains as an alias)")


@click.command("merge")
@click.argument("keep", metavar="KEEP", shell_complete=complete_ref)
@click.argument("others", nargs=-1, required=True, metavar="OTHER...", shell_complete=complete_ref)
@pass_app
def merge_command(app: AppContext, keep: str, others: tuple[str, ...]) -> None:
    """Merge duplicate papers OTHER... into KEEP; their keys become aliases of KEEP.

    KEEP's data wins; what it lacks is filled from the others; tags, notes and
    status history are united; KEEP's title, status and priority stay.

    \b
    Examples:
        readinglist merge vaswani2017attention vaswani2017attentiona
    """
    from readinglist import library, render

    with app.session() as session:
        target = library.resolve(session, keep)
        merged = library.resolve_many(session, others)
        keys = [p.citekey for p in merged]
        filled = library.merge_papers(session, target, merged)
    extra = f" (filled: {', '.join(filled)})" if filled else ""
    render.info(f"merged {', '.join(keys)} into {target.citekey}{extra}")
