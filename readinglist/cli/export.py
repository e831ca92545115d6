"""``readinglist export``: write the library (or a query's papers) as BibTeX, Markdown, ...

The work is :mod:`readinglist.pipelines.exporting`'s; this module parses the options
and renders. The pipeline is imported inside the command, so that ``--help`` stays light.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from readinglist.cli._app import AppContext, output_file_option, pass_app
from readinglist.cli._progress import progress_bar
from readinglist.cli._query import (
    QUERY_HELP,
    QueryCommand,
    join_query,
    query_argument,
    warn_if_nothing_matched,
)
from readinglist.config import sqlite_path
from readinglist.text import counted

FORMATS = ("bibtex", "biblatex", "markdown", "ris", "csl-json")
GROUPS = ("status", "tag", "venue", "year", "priority", "none")
F = TypeVar("F", bound=Callable[..., Any])


#: The writer options of ``export``, declared once: their values go to the writer
#: (``exporting.writer_options``, which takes these names) and a kept profile stores them.
WRITER_OPTIONS = (
    click.option("--keywords", is_flag=True, help="BibTeX: write tags into the keywords field."),
    click.option("--annote", is_flag=True, help="BibTeX: write notes into the annote field."),
    click.option(
        "--group-by",
        type=click.Choice(GROUPS),
        default="status",
        show_default=True,
        help="Markdown: group papers by this.",
    ),
    click.option("--abstracts", is_flag=True, help="Markdown: include abstracts."),
    click.option("--notes", is_flag=True, help="Markdown: include notes."),
    click.option(
        "--title",
        "title",
        default="Reading list",
        show_default=True,
        help="Markdown: the list's title.",
    ),
    click.option(
        "--date",
        "with_date",
        is_flag=True,
        help="Markdown: print the generation time (SOURCE_DATE_EPOCH is honoured).",
    ),
)
#: The names of :data:`WRITER_OPTIONS`' values (the command's keyword arguments).
WRITER_NAMES = ("keywords", "annote", "group_by", "abstracts", "notes", "title", "with_date")
#: The writer options a kept BibTeX/biblatex profile stores (a Markdown one stores all).
_BIBTEX_NAMES = ("keywords", "annote")
#: The profile actions of ``export``, declared once: one at a time (:func:`_manage_profiles`).
PROFILE_ACTIONS = (
    click.option("--profiles", "list_profiles", is_flag=True, help="List the export profiles."),
    click.option("--json", "as_json", is_flag=True, help="With --profiles: print JSON."),
    click.option(
        "--forget", metavar="NAME|PATH", help="Remove an export profile (its file stays)."
    ),
    click.option("--pause", metavar="NAME|PATH", help="Stop keeping a profile's file current."),
    click.option("--resume", metavar="NAME|PATH", help="Keep a paused profile current again."),
    click.option(
        "--refresh",
        is_flag=True,
        help="Run every export profile of this machine now (after another machine's change, "
        "or a new .aux file).",
    ),
    click.option(
        "--force",
        is_flag=True,
        help="With --refresh: also overwrite kept files changed by hand since they were written.",
    ),
)


def _options(decorators: tuple[Callable[[F], F], ...]) -> Callable[[F], F]:
    """Apply ``decorators`` (click options) in their listed order (``--help`` lists them so)."""

    def apply(command: F) -> F:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return apply


def _use_reader(app: AppContext, fmt: str, reader: str | None) -> None:
    """``--reader NAME``: export NAME's state (the library is opened after this); a kept
    Markdown profile remembers the reader it was made for. Only for a markdown export
    (UsageError): BibTeX, RIS and CSL-JSON carry no reader's state."""
    if reader is None:
        return
    if fmt != "markdown":
        raise click.UsageError(
            "--reader is for a markdown export: BibTeX, RIS and CSL-JSON carry no reader's state"
        )
    app.settings.reader = reader


@click.command("export", cls=QueryCommand, epilog=QUERY_HELP)
@click.argument("fmt", metavar="FORMAT", type=click.Choice(FORMATS), required=False)
@query_argument
@output_file_option
@click.option(
    "--aux",
    type=click.Path(exists=True, dir_okay=False),
    help="Export exactly the entries a LaTeX run cited (\\citation lines of FILE.aux).",
)
@_options(WRITER_OPTIONS)
@click.option(
    "--strict",
    is_flag=True,
    help="Refuse (exit 5, nothing written) when an entry has a provisional title or no author.",
)
@click.option(
    "--keep",
    is_flag=True,
    help="Register this export as a profile: -o FILE is written again after every change "
    "that can alter it (only when its text changes).",
)
@click.option("--name", metavar="NAME", help="With --keep: the profile's name (default: FILE's).")
@click.option(
    "--reader",
    "export_reader",
    metavar="NAME",
    help="Markdown: whose status, priority and private notes to write (default: the current "
    "reader). BibTeX, RIS and CSL-JSON carry no reader's state.",
)
@_options(PROFILE_ACTIONS)
@pass_app
def export_command(
    app: AppContext,
    /,
    fmt: str,
    query: tuple[str, ...],
    output: str | None,
    aux: str | None,
    strict: bool,
    keep: bool,
    name: str | None,
    export_reader: str | None,
    **chosen: Any,
) -> None:
    """Export papers as bibtex, biblatex, markdown, ris or csl-json.

    Exports every paper, or those the QUERY selects. BibTeX entries unchanged since
    import are written byte for byte as read; the others deterministically. Output
    goes to stdout, or atomically to -o FILE. Entries that are not real references
    yet (a provisional title, no author) are counted on stderr, naming up to ten;
    --strict refuses to write them (exit 5).

    \b
    Examples:
        readinglist export bibtex -o refs.bib
        readinglist export bibtex --aux paper.aux -o paper.bib
        readinglist export markdown status:to-read --abstracts -o reading.md
        readinglist export markdown --reader ana -o ana.md
        readinglist export csl-json tag:thesis -o thesis.json
        readinglist export bibtex --strict tag:thesis -o thesis.bib
        readinglist export bibtex --aux paper/main.aux -o paper/refs.bib --keep
        readinglist export --profiles
        readinglist export --refresh
    """
    from readinglist.pipelines import exporting

    writer = {option: chosen.pop(option) for option in WRITER_NAMES}
    if _manage_profiles(app, **chosen):
        return
    if fmt is None:
        raise click.UsageError("Missing argument 'FORMAT'.")
    if name is not None and not keep:
        raise click.UsageError("--name needs --keep")
    _use_reader(app, fmt, export_reader)

    options = exporting.writer_options(fmt, **writer)
    text = join_query(query)
    if keep:
        from readinglist.cli import _profiles

        names = WRITER_NAMES if fmt == "markdown" else _BIBTEX_NAMES
        settings: dict[str, object] = {n: writer[n] for n in names} | {"strict": strict}
        _profiles.keep(app, fmt, text, output, aux, settings, name)
        return
    _export(app, fmt, text, aux, options, output, strict)


def _export(
    app: AppContext,
    fmt: str,
    text: str,
    aux: str | None,
    options: Any,
    output: str | None,
    strict: bool,
) -> None:
    """Write the papers the query ``text`` (or the ``.aux`` file ``aux``) selects as
    ``fmt`` with the writer ``options`` to ``output`` (None or ``-``: stdout), then say
    what was written and what is not a real reference yet (``export_command``'s rules).
    A query that selects no paper writes no file (an existing one is left as it is: a
    mistyped query must not empty a bibliography). UsageError when ``output`` is ``aux``."""
    from readinglist import render
    from readinglist.pipelines import exporting

    exporting.refuse_aux(output, aux)
    with app.session(write=False) as session:
        selection = exporting.select_papers(session, text, aux, with_keys=exporting.needs_keys(fmt))
        for message in selection.warnings:
            render.warn(message)
        count = len(selection.ids)
        if not count and aux is None:
            warn_if_nothing_matched(session, text)
            if text.strip() and output not in (None, "-"):
                render.warn(f"{output} not written: the query selects no paper")
                return
        with progress_bar(f"exporting to {output or 'stdout'}", count, "papers") as advance:
            audit = exporting.export_to(
                session,
                fmt,
                selection,
                options,
                output=output,
                stdout=sys.stdout,
                database=sqlite_path(app.settings.database_url),
                strict=strict,
                advance=advance,
            )
    for message in audit.warnings:
        render.warn(message)
    if audit.count:
        render.warn(f"{audit.summary()}; complete them with readinglist resolve")
    if output not in (None, "-"):
        render.info(f"exported {counted(count, 'paper')} to {output} ({fmt})")


def _manage_profiles(
    app: AppContext,
    list_profiles: bool,
    as_json: bool,
    forget: str | None,
    pause: str | None,
    resume: str | None,
    refresh: bool,
    force: bool,
) -> bool:
    """Run the one profile action asked for (``--profiles``, ``--forget``, ``--pause``,
    ``--resume``, ``--refresh`` with or without ``--force``); False when none was. Two
    at once, or ``--force`` without ``--refresh``, is a usage error."""
    asked = [list_profiles, forget is not None, pause is not None, resume is not None, refresh]
    if sum(asked) > 1:
        raise click.UsageError(
            "give one of --profiles, --forget, --pause, --resume, --refresh at a time"
        )
    if as_json and not list_profiles:
        raise click.UsageError("--json goes with --profiles")
    if force and not refresh:
        raise click.UsageError("--force goes with --refresh")
    if not any(asked):
        return False
    from readinglist.cli import _profiles

    if list_profiles:
        _profiles.show(app, as_json)
    elif forget is not None:
        _profiles.forget(app, forget)
    elif pause is not None:
        _profiles.pause(app, pause, paused=True)
    elif resume is not None:
        _profiles.pause(app, resume, paused=False)
    else:
        _profiles.refresh(app, force)
    return True
