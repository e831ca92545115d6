"""``readinglist export``: write the library (or a query's papers) as BibTeX, Markdown, ..."""

from __future__ import annotations

import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import click

from readinglist.cli._app import AppContext, output_file_option, pass_app
from readinglist.cli._query import QueryCommand, join_query, query_argument
from readinglist.errors import InvalidInput, ReadingListError

FORMATS = ("bibtex", "biblatex", "markdown", "ris", "csl-json")
GROUPS = ("status", "tag", "venue", "year", "priority", "none")


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same directory
    and ``os.replace``, so a failed or killed export leaves an existing file intact."""
    path = path.expanduser()
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        # mkstemp creates 0600; give the export the mode a new file would get (or keep
        # the mode of the file it replaces).
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def generation_time(with_date: bool) -> datetime | None:
    """Return the time to print in a generated file: ``SOURCE_DATE_EPOCH`` when set
    (reproducible-builds.org spec), now when ``--date`` asks, else None."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return datetime.fromtimestamp(int(epoch), UTC)
        except ValueError:
            raise InvalidInput(f"SOURCE_DATE_EPOCH is not a whole number: {epoch!r}") from None
    return datetime.now(UTC) if with_date else None


@click.command("export", cls=QueryCommand)
@click.argument("fmt", metavar="FORMAT", type=click.Choice(FORMATS))
@query_argument
@output_file_option
@click.option(
    "--aux",
    type=click.Path(exists=True, dir_okay=False),
    help="Export exactly the entries a LaTeX run cited (\\citation lines of FILE.aux).",
)
@click.option("--keywords", is_flag=True, help="BibTeX: write tags into the keywords field.")
@click.option("--annote", is_flag=True, help="BibTeX: write notes into the annote field.")
@click.option(
    "--group-by",
    type=click.Choice(GROUPS),
    default="status",
    show_default=True,
    help="Markdown: group papers by this.",
)
@click.option("--abstracts", is_flag=True, help="Markdown: include abstracts.")
@click.option("--notes", is_flag=True, help="Markdown: include notes.")
@click.option(
    "--title",
    "list_title",
    default="Reading list",
    show_default=True,
    help="Markdown: the list's title.",
)
@click.option(
    "--date",
    "with_date",
    is_flag=True,
    help="Markdown: print the generation time (SOURCE_DATE_EPOCH is honoured).",
)
@pass_app
def export_command(
    app: AppContext,
    fmt: str,
    query: tuple[str, ...],
    output: str | None,
    aux: str | None,
    keywords: bool,
    annote: bool,
    group_by: str,
    abstracts: bool,
    notes: bool,
    list_title: str,
    with_date: bool,
) -> None:
    """Export papers as bibtex, biblatex, markdown, ris or csl-json.

    Exports every paper, or those the QUERY selects. BibTeX entries unchanged since
    import are written byte for byte as read; the others deterministically. Output
    goes to stdout, or atomically to -o FILE.

    \b
    Examples:
        readinglist export bibtex -o refs.bib
        readinglist export bibtex --aux paper.aux -o paper.bib
        readinglist export markdown status:to-read --abstracts -o reading.md
        readinglist export csl-json tag:thesis -o thesis.json
    """
    from readinglist import formats, library, render

    with app.session(write=False) as session:
        if aux:
            cited = _cited_keys(Path(aux))
            papers, missing = library.papers_for_keys(session, cited)
            for key in missing:
                render.warn(f"{aux}: cited key {key!r} is not in the library")
        else:
            papers = library.select_papers(session, join_query(query))
        records = [library.to_record(p) for p in papers]
    write = formats.writer(fmt)
    if fmt in ("bibtex", "biblatex"):
        text = write(records, dialect=fmt, keywords=keywords, annote=annote)
    elif fmt == "markdown":
        text = write(
            records,
            group_by=group_by,
            abstracts=abstracts,
            notes=notes,
            title=list_title,
            generated=generation_time(with_date),
        )
    else:
        text = write(records)
    if output in (None, "-"):
        sys.stdout.write(text)
    else:
        try:
            write_atomically(Path(output), text)
        except OSError as exc:
            raise ReadingListError(f"cannot write {output}: {exc.strerror}") from None
        render.info(f"exported {len(records)} papers to {output} ({fmt})")


def _cited_keys(path: Path) -> list[str]:
    from readinglist.formats import bibtex

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InvalidInput(f"cannot read ({exc.strerror})", str(path)) from None
    keys: list[str] = bibtex.read_aux(text)
    return keys
