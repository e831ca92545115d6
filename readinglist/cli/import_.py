"""``readinglist import``: read files (or stdin) and add their papers to the library."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from readinglist.cli._app import AppContext, pass_app
from readinglist.errors import InvalidInput
from readinglist.records import ParseResult

if TYPE_CHECKING:
    from readinglist.library import ImportReport


def read_input(path: str) -> tuple[str, bytes]:
    """Return ``(display name, bytes)`` of ``path``; ``-`` reads standard input.

    Raises InvalidInput (exit 5) for a missing, unreadable or directory path.
    """
    if path == "-":
        return "<stdin>", sys.stdin.buffer.read()
    file = Path(path)
    try:
        return path, file.read_bytes()
    except FileNotFoundError:
        raise InvalidInput("no such file", path) from None
    except IsADirectoryError:
        raise InvalidInput("is a directory, not a file", path) from None
    except OSError as exc:
        raise InvalidInput(f"cannot read the file ({exc.strerror})", path) from None


def parse_input(path: str, fmt: str) -> tuple[str, str, ParseResult]:
    """Read, decode and parse one input; return ``(source name, format, result)``.

    Raises InvalidInput when the input holds no paper at all.
    """
    from readinglist import formats

    source, data = read_input(path)
    text, warnings = formats.decode(data, source)
    chosen = formats.detect(source, text) if fmt == "auto" else fmt
    result = formats.read(text, chosen, source)
    problems = [*warnings, *result.problems]
    if not result.records and not any(p.severity == "error" for p in problems):
        raise InvalidInput(f"no papers found (read as {chosen})", source)
    return source, chosen, ParseResult(result.records, problems, result.meta)


@click.command("import")
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["auto", "abstracts", "bibtex", "ris", "csl-json", "markdown"]),
    default="auto",
    show_default=True,
    help="Input format; auto picks by extension, then by content.",
)
@click.option(
    "-t",
    "--tag",
    "tags",
    multiple=True,
    metavar="TAG",
    help="Tag every imported paper (repeatable).",
)
@click.option("--venue", help="Set the venue of every paper (overrides the list's header).")
@click.option("--year", type=click.IntRange(1000, 2999), help="Set the year of every paper.")
@click.option("--strict", is_flag=True, help="Write nothing if any entry is rejected.")
@click.option("--no-merge", is_flag=True, help="Report duplicates instead of merging them.")
@click.option(
    "--list-batches",
    is_flag=True,
    help="List past imports (batch id, time, format, counts, source) instead of importing.",
)
@click.option(
    "--undo",
    "undo",
    type=int,
    metavar="BATCH",
    help="Remove the papers import BATCH added, except those triaged, tagged or annotated since.",
)
@click.option("--json", "as_json", is_flag=True, help="With --list-batches: print JSON.")
@pass_app
def import_command(
    app: AppContext,
    paths: tuple[str, ...],
    fmt: str,
    tags: tuple[str, ...],
    venue: str | None,
    year: int | None,
    strict: bool,
    no_merge: bool,
    list_batches: bool,
    undo: int | None,
    as_json: bool,
) -> None:
    """Import papers from files or standard input (-).

    Reads lists of abstracts (one paper per paragraph, optional header such as
    "ICML 2026 Papers"), BibTeX/biblatex (.bib, .bib.gz), RIS, CSL-JSON and our own
    Markdown lists. Duplicates (same DOI, arXiv id, title, or abstract) are merged
    into the paper you have, never overwriting your title, status, tags or notes.
    A summary goes to stderr; rejected entries are named with file:line (exit 5).

    \b
    Examples:
        readinglist import icml2026-abstracts.txt --tag icml
        readinglist import refs.bib other.ris
        pbpaste | readinglist import - --venue NeurIPS --year 2025
        readinglist import --list-batches
        readinglist import --undo 3
    """
    if list_batches or undo is not None or as_json:
        _batches(app, paths, list_batches, undo, as_json)
        return
    if not paths:
        raise click.UsageError("give at least one PATH (or - for standard input)")
    from dataclasses import replace

    parsed = [parse_input(path, fmt) for path in paths]
    rejected = 0
    from readinglist import library

    with app.session() as session:
        for source, chosen, result in parsed:
            records = result.records
            if venue or year:
                records = [replace(r, venue=venue or r.venue, year=year or r.year) for r in records]
            if chosen == "markdown":
                report = library.sync_markdown(session, records, source=source)
            else:
                with _progress(source, len(records)) as advance:
                    report = library.import_records(
                        session,
                        records,
                        source=source,
                        fmt=chosen,
                        tags=tags,
                        merge=not no_merge,
                        problems=result.problems,
                        progress=advance,
                    )
            _summarize(source, chosen, report)
            rejected += report.rejected
        if rejected and strict:
            raise InvalidInput(f"{rejected} entries rejected; nothing imported (--strict)")
    if rejected:
        raise InvalidInput(f"{rejected} entries rejected; the others were imported")


@contextmanager
def _progress(source: str, total: int) -> Iterator[Callable[[int], None] | None]:
    """Yield a progress callback drawing a bar on a terminal for large imports, else None."""
    if total < 2000 or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(f"importing {source}", total=total)
        yield lambda done: bar.update(task, completed=done)


def _summarize(source: str, fmt: str, report: ImportReport) -> None:
    """Write the problems, merges and the one-line summary of one input to stderr."""
    from readinglist import render

    for problem in report.problems:
        if problem.severity == "error":
            render.info(f"{problem}: rejected")
        else:
            render.warn(str(problem))
    for key, filled in report.merged:
        render.info(f"merged into {key}: {', '.join(filled)}")
    for where, key in report.skipped:
        render.info(f"{where}: duplicate of {key}, not imported (--no-merge)")
    render.info(
        f"{source} ({fmt}): {len(report.added)} added, {len(report.merged)} merged, "
        f"{len(report.present) + len(report.skipped)} already present, {report.rejected} rejected"
    )


# --- batches: --list-batches and --undo -------------------------------------------------------


def _batches(
    app: AppContext, paths: tuple[str, ...], list_batches: bool, undo: int | None, as_json: bool
) -> None:
    """Run ``import --list-batches [--json]`` or ``import --undo BATCH``."""
    if paths or (list_batches and undo is not None) or (as_json and not list_batches):
        raise click.UsageError("use --list-batches [--json] or --undo BATCH alone, without PATHs")
    from dataclasses import asdict

    from readinglist import maintenance, render

    if list_batches:
        with app.session(write=False) as session:
            batches = maintenance.list_batches(session)
        if as_json:
            render.echo_json([{**asdict(b), "started": render.iso(b.started)} for b in batches])
            return
        if not batches:
            render.info("no imports yet")
            return
        render.echo(
            f"{'BATCH':>5}  {'STARTED':<20}  {'FORMAT':<9}  {'ADDED':>6}  {'MERGED':>6}  "
            f"{'REJECTED':>8}  {'PAPERS':>6}  SOURCE"
        )
        for b in batches:
            render.echo(
                f"{b.id:>5}  {render.iso(b.started) or '':<20}  {b.format:<9}  {b.added:>6}  "
                f"{b.merged:>6}  {b.rejected:>8}  {b.papers:>6}  {b.source}"
            )
        return
    assert undo is not None
    with app.session() as session:
        report = maintenance.undo_batch(session, undo)
    for key, reasons in report.kept:
        render.info(f"kept {key}: {', '.join(reasons)}")
    batch = report.batch
    summary = f"undid import {batch.id} ({batch.source}): removed {len(report.removed)} papers"
    if report.kept:
        summary += f", kept {len(report.kept)} you have worked on since"
    if batch.merged:
        summary += f"; not undone: {batch.merged} merged into papers you had before"
    render.info(summary)
