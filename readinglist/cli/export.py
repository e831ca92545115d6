"""``readinglist export``: write the library (or a query's papers) as BibTeX, Markdown, ..."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from readinglist.cli._app import AppContext, output_file_option, pass_app
from readinglist.cli._progress import progress_bar
from readinglist.cli._query import QUERY_HELP, QueryCommand, join_query, query_argument
from readinglist.errors import InvalidInput, ReadingListError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

FORMATS = ("bibtex", "biblatex", "markdown", "ris", "csl-json")
GROUPS = ("status", "tag", "venue", "year", "priority", "none")


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same directory
    and ``os.replace``, so a failed or killed export leaves an existing file intact."""
    with open_atomically(path) as handle:
        handle.write(text)


@contextmanager
def open_atomically(path: Path) -> Iterator[TextIO]:
    """Yield a UTF-8 text file that replaces ``path`` when the block ends without error.

    The text goes to a temporary file in the same directory, is flushed to disk, then
    renamed over ``path`` (``os.replace``); on any error the temporary file is removed
    and an existing ``path`` is left as it was. The new file gets the mode a new file
    would get (or the mode of the file it replaces). Raises OSError.
    """
    import stat
    import tempfile

    # Write through a symbolic link to the file it names; a FIFO or a device (not a
    # regular file) is written to directly: renaming over it would replace it.
    path = Path(os.path.realpath(path.expanduser()))
    try:
        kind = path.stat().st_mode
    except FileNotFoundError:
        kind = stat.S_IFREG
    if not stat.S_ISREG(kind):
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            yield stream
        return
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
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def _output(output: str | None) -> Iterator[TextIO]:
    """Yield stdout (``None`` or ``-``) or a file replaced atomically when the export ends."""
    if output in (None, "-"):
        yield sys.stdout
        return
    assert output is not None
    try:
        with open_atomically(Path(output)) as handle:
            yield handle
    except OSError as exc:
        raise ReadingListError(f"cannot write {output}: {exc.strerror or exc}") from None


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


@click.command("export", cls=QueryCommand, epilog=QUERY_HELP)
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

    write = formats.writer(fmt)
    options: dict[str, object] = {}
    if fmt in ("bibtex", "biblatex"):
        options = {"dialect": fmt, "keywords": keywords, "annote": annote}
    elif fmt == "markdown":
        options = {
            "group_by": group_by,
            "abstracts": abstracts,
            "notes": notes,
            "title": list_title,
            "generated": generation_time(with_date),
        }
    with app.session(write=False) as session:
        if aux:
            cited = _cited_keys(Path(aux))
            if "*" in cited:  # \nocite{*}: every entry
                selected = library.select_ids_and_keys(session, "")
                cited = [key for key in cited if key != "*"]
            else:
                selected = []
            papers, missing = library.papers_for_keys(session, cited)
            for key in missing:
                render.warn(f"{aux}: cited key {key!r} is not in the library")
            for key in cited:
                paper = library.find_paper(session, key)
                if paper is not None and key.casefold() != paper.citekey.casefold():
                    render.warn(
                        f"{aux}: cited key {key!r} is an old key of {paper.citekey!r}; "
                        f"the export names it {paper.citekey!r} (cite that key)"
                    )
            if not selected:
                selected = [(p.id, p.citekey) for p in papers]
        else:
            selected = library.select_ids_and_keys(session, join_query(query))
        ids = [paper_id for paper_id, _ in selected]
        with (
            _output(output) as out,
            progress_bar(f"exporting to {output or 'stdout'}", len(ids), "papers") as advance,
        ):
            if fmt in ("bibtex", "biblatex"):
                _write_bibtex_in_chunks(session, out, options, selected, advance)
            else:
                records = list(library.iter_records(session, ids))
                out.write(write(records, **options))
    if output not in (None, "-"):
        render.info(f"exported {len(ids)} papers to {output} ({fmt})")


def _write_bibtex_in_chunks(
    session: Session,
    out: TextIO,
    options: dict[str, object],
    selected: list[tuple[int, str]],
    advance: Callable[[int], None],
) -> None:
    """Write ``selected`` papers ``(id, key)`` as BibTeX, a chunk of records at a time.

    The BibTeX writer orders entries by citation key case-insensitively (ties in input
    order) and joins them with one blank line. Sorting the papers that way first and
    writing chunk after chunk, joined by a blank line, gives exactly the text of one
    call with every record, while only one chunk of records is in memory (issue 9).

    The ``@preamble`` and the ``@string`` definitions that copied entries use come
    first but are known only after the last entry: when the papers' imports kept
    any (:func:`library.bibtex_context`), the entries are spooled to a temporary file
    (in memory up to 32 MB) and copied after the header.
    """
    import shutil
    import tempfile

    from readinglist import library
    from readinglist.formats.bibtex import Writer

    order = sorted(
        range(len(selected)), key=lambda i: (selected[i][1].casefold(), selected[i][1], i)
    )
    ids = [selected[i][0] for i in order]
    strings, preamble = library.bibtex_context(session, ids)
    writer = Writer(strings=strings, preamble=preamble, **options)  # type: ignore[arg-type]
    with tempfile.SpooledTemporaryFile(32 << 20, "w+", encoding="utf-8", newline="\n") as spool:
        body: TextIO = spool if (strings or preamble) else out  # type: ignore[assignment]
        written = False
        for start in range(0, len(ids), library.RECORD_CHUNK):
            records = list(library.iter_records(session, ids[start : start + library.RECORD_CHUNK]))
            text = writer.entries(records)
            if text:
                body.write("\n\n" + text if written else text)
                written = True
            advance(start + len(records))
        if body is spool:
            head = writer.head()
            if head:
                out.write(head + ("\n\n" if written else "\n"))
            spool.seek(0)
            shutil.copyfileobj(spool, out)
        if written:
            out.write("\n")


def _cited_keys(path: Path) -> list[str]:
    from readinglist.formats import bibtex

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InvalidInput(f"cannot read ({exc.strerror})", str(path)) from None
    keys: list[str] = bibtex.read_aux(text)
    return keys
