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
    """
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
