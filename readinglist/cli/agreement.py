"""``readinglist agreement A B``, and ``list --conflicts A B``'s output: two readers compared."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from readinglist.cli._app import AppContext, json_option, pass_app
from readinglist.text import counted

if TYPE_CHECKING:
    from readinglist.library.agreement import Comparison


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def table_lines(title: str, labels: list[str], table: list[list[int]], a: str, b: str) -> list[str]:
    """A confusion table as aligned text: a header row of ``b``'s labels, one row per
    label of ``a`` (``a \\ b`` in the corner), counts right-aligned."""
    corner = f"{a} \\ {b}"
    first = max(len(corner), *(len(label) for label in labels))
    widths = [
        max(len(label), *(len(str(row[j])) for row in table)) for j, label in enumerate(labels)
    ]
    lines = [
        title,
        "  "
        + "  ".join(
            [corner.ljust(first), *(x.rjust(w) for x, w in zip(labels, widths, strict=True))]
        ),
    ]
    for label, row in zip(labels, table, strict=True):
        cells = [str(n).rjust(w) for n, w in zip(row, widths, strict=True)]
        lines.append("  " + "  ".join([label.ljust(first), *cells]).rstrip())
    return lines


def agreement_text(summary: dict[str, Any]) -> str:
    """The human report of :meth:`Comparison.summary`: counts, kappa (or why it is
    undefined), the want/skip table and the table of statuses."""
    a, b = summary["readers"]
    n = summary["papers"]
    lines = [f"{a} and {b} both decided {counted(n, 'paper')}"]
    if n:
        lines.append(
            f"same answer (want or skip) on {summary['agreed']} of {n} ({summary['observed']:.1%})"
        )
    if summary["kappa"] is None:
        lines.append(f"Cohen's kappa (want vs skip): undefined: {summary['kappa_undefined']}")
    else:
        lines.append(f"Cohen's kappa (want vs skip): {_number(summary['kappa'])}")
    statuses = summary["statuses"]
    if statuses["kappa"] is None:
        lines.append(f"Cohen's kappa (statuses): undefined: {statuses['kappa_undefined']}")
    else:
        lines.append(f"Cohen's kappa (statuses): {_number(statuses['kappa'])}")
    if n:
        want = summary["want"]
        lines += ["", *table_lines("want vs skip", want["labels"], want["table"], a, b)]
        lines += ["", *table_lines("statuses", statuses["labels"], statuses["table"], a, b)]
    return "\n".join(lines)


@click.command("agreement")
@click.argument("first", metavar="A")
@click.argument("second", metavar="B")
@json_option
@pass_app
def agreement_command(app: AppContext, first: str, second: str, as_json: bool) -> None:
    """Compare two readers' decisions: Cohen's kappa and the confusion tables.

    Counts the papers both readers decided (status not new), how often they gave the
    same answer (want: to-read, reading or read; skip: skipped), Cohen's kappa of
    want vs skip and of the four statuses (computed by scikit-learn; undefined, and
    said so, when they share no paper or gave every paper one and the same answer),
    and both confusion tables (rows: A, columns: B). `list --conflicts A B` lists
    the papers where one wants and the other skipped.

    \b
    Examples:
        readinglist agreement ana bo
        readinglist agreement ana bo --json
    """
    from readinglist import render
    from readinglist.library.agreement import compare

    with app.connection(write=False) as connection:
        summary = compare(connection, first, second).summary()
    if as_json:
        render.echo_json(summary)
    else:
        render.echo(agreement_text(summary))


def conflicts_listing(
    app: AppContext,
    pair: tuple[str, str],
    text: str,
    as_json: bool,
    keys_only: bool,
    order: tuple[str | None, int | None, bool],
) -> None:
    """``list --conflicts A B [QUERY]``: the papers the QUERY selects (all without one)
    that one of the two readers wants and the other skipped, each with both decisions:
    keys (``-k``), a JSON array (each paper's ``list --json`` object with ``decisions``:
    {reader: status}) or a table. ``order`` is ``list``'s ``(--sort, --limit,
    --reverse)``; without a sort or a query, the order of addition. ``--sort interest``
    is a UsageError (exit 2)."""
    sort, limit, reverse = order
    if sort == "interest":
        raise click.UsageError("--conflicts lists in the order of the query, not by interest")
    from readinglist import render
    from readinglist.library.agreement import compare
    from readinglist.library.listing import iter_listing, listing_ids

    with app.connection(write=False) as connection:
        comparison = compare(connection, *pair)
        found = {pid: (x, y) for pid, x, y in comparison.conflicts()}
        if text.strip() or sort or reverse:
            listed = listing_ids(connection, text, sort=sort, reverse=reverse)
            ids = [pid for pid in listed if pid in found]
        else:
            ids = list(found)
        ids = ids[:limit] if limit else ids
        rows = [(found[pid], record) for pid, record in iter_listing(connection, ids)]
    render.info(_conflicts_said(comparison, len(found), len(ids)))
    _print_conflicts(comparison, rows, as_json=as_json, keys_only=keys_only)


def _conflicts_said(comparison: Comparison, conflicts: int, shown: int) -> str:
    a, b = comparison.first, comparison.second
    said = f"{counted(conflicts, 'conflict')} between {a} and {b} "
    said += f"(of {len(comparison.pairs)} papers both decided)"
    return said if shown == conflicts else f"{said}; {shown} shown"


def _print_conflicts(
    comparison: Comparison, rows: list[Any], *, as_json: bool, keys_only: bool
) -> None:
    from readinglist import render

    a, b = comparison.first, comparison.second
    if keys_only:
        if rows:
            render.echo("\n".join(record.citekey or "" for _, record in rows))
    elif as_json:
        render.echo_json(
            [{**render.paper_json(record), "decisions": {a: x, b: y}} for (x, y), record in rows]
        )
    else:
        render.decisions_table(
            [(record, [x, y]) for (x, y), record in rows], [a.upper(), b.upper()]
        )
