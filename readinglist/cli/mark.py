"""``readinglist mark`` and ``readinglist priority``: read status and priority of papers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

import click

from readinglist.cli._app import AppContext, pass_app
from readinglist.cli._complete import complete_query_option, complete_ref
from readinglist.cli._query import QUERY_OPTION_HELP
from readinglist.records import PRIORITY_LEVELS, STATUSES
from readinglist.text import counted

F = TypeVar("F", bound=Callable[..., Any])


def query_option(func: F) -> F:
    """Add ``-q/--query QUERY``: act on every paper the query selects instead of REFs.

    The command should show :data:`~readinglist.cli._query.QUERY_OPTION_HELP` as its
    epilog (a test checks that every command with ``-q`` does).
    """
    return click.option(
        "-q",
        "--query",
        "query_text",
        metavar="QUERY",
        help="Act on every paper this query selects (instead of REFs).",
        shell_complete=complete_query_option,
    )(func)


def refs_argument(func: F) -> F:
    """Add the variadic ``REF...`` argument (citation keys or aliases; never a query)."""
    return click.argument("refs", nargs=-1, metavar="REF...", shell_complete=complete_ref)(func)


def json_changes_option(func: F) -> F:
    """Add ``--json``: print ``{"changed": [keys], "unchanged": [keys]}`` on stdout."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        help='Print {"changed": [...], "unchanged": [...]} citation keys as JSON.',
    )(func)


def report_changes(
    verb: str, keys: list[str], changed: list[str], as_json: bool, already: str
) -> None:
    """Print the one-line confirmation on stderr (and the JSON document when asked).

    ``verb`` reads like "marked {n} to-read"; ``already`` names the state of the
    unchanged papers ("already to-read").
    """
    from readinglist import render

    changed_set = set(changed)  # once: rebuilt per key it made 141k papers quadratic
    unchanged = [k for k in keys if k not in changed_set]
    if as_json:
        render.echo_json({"changed": changed, "unchanged": unchanged})
    if not keys:
        render.info("no paper matches the query; nothing changed")
        return
    message = verb.format(n=counted(len(changed), "paper"))
    if unchanged:
        message += f" ({len(unchanged)} {already})"
    render.info(message)


@click.command("mark", epilog=QUERY_OPTION_HELP)
@click.argument("status", type=click.Choice(STATUSES), metavar="STATUS")
@refs_argument
@query_option
@json_changes_option
@pass_app
def mark_command(
    app: AppContext, status: str, refs: tuple[str, ...], query_text: str | None, as_json: bool
) -> None:
    """Set the read status of papers.

    STATUS is new, to-read, reading, read or skipped. Every change is recorded in the paper's status history with its UTC time
    (`readinglist show REF` prints it); `read` also sets the read date. With
    several REFs of which one is unknown nothing changes (exit 3).

    \b
    Examples:
        readinglist mark to-read spar2026 safeseek2026
        readinglist mark read -q "tag:thesis status:reading"
    """
    # Core rows on a Connection, not papers: one column changes (issue 17: neither the
    # ORM nor the models are imported).
    from readinglist.library.marks import write_status
    from readinglist.library.refs import target_rows

    with app.connection() as connection:
        targets = target_rows(connection, refs, query_text)
        current = {t.id: t.status for t in targets}
        changed = set(write_status(connection, current, status))
        keys = [t.citekey for t in targets]
        changed_keys = [t.citekey for t in targets if t.id in changed]
        overridden = Counter(current[i] for i in changed if current[i] != "new")
    verb = f"marked {{n}} {status}"
    if overridden and query_text:
        # Say which decisions a query overrode (fresh user: `mark skipped -q tag:topic/x`
        # turned a read paper into a skipped one without a word).
        was = ", ".join(f"{n} {s}" for s, n in sorted(overridden.items()))
        verb += f" (was: {was})"
    report_changes(verb, keys, changed_keys, as_json, f"already {status}")


@click.command("priority", epilog=QUERY_OPTION_HELP)
@click.argument("level", type=click.Choice(PRIORITY_LEVELS), metavar="LEVEL")
@refs_argument
@query_option
@json_changes_option
@pass_app
def priority_command(
    app: AppContext, level: str, refs: tuple[str, ...], query_text: str | None, as_json: bool
) -> None:
    """Set the priority of papers.

    LEVEL is high, medium, low, or none to clear it; `list --sort priority` puts
    high first. With several REFs of which one is
    unknown nothing changes (exit 3).

    \b
    Examples:
        readinglist priority high spar2026
        readinglist priority none -q tag:maybe
    """
    from readinglist.library.marks import write_priority
    from readinglist.library.refs import target_rows

    with app.connection() as connection:  # Core rows, as in mark
        targets = target_rows(connection, refs, query_text)
        changed = set(write_priority(connection, {t.id: t.priority for t in targets}, level))
        keys = [t.citekey for t in targets]
        changed_keys = [t.citekey for t in targets if t.id in changed]
    what = "cleared the priority of {n}" if level == "none" else f"set {{n}} to priority {level}"
    already = "had none" if level == "none" else f"already {level}"
    report_changes(what, keys, changed_keys, as_json, already)
