"""``readinglist import``: read files (or stdin) and add their papers to the library."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

import click

from readinglist.cli._app import AppContext, pass_app
from readinglist.cli._complete import complete_path, complete_tag
from readinglist.cli._progress import progress_bar
from readinglist.errors import InvalidInput, input_error
from readinglist.records import PaperRecord, ParseProblem, ParseResult

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from readinglist.formats import Sniffed
    from readinglist.library import ImportReport


#: Records handed to the library at a time when an input is read in pieces.
IMPORT_CHUNK = 1000


def _parse_bytes(source: str, data: bytes, fmt: str) -> tuple[str, str, ParseResult]:
    from readinglist import formats

    text, warnings = formats.decode(data, source)
    chosen = formats.detect(source, text) if fmt == "auto" else fmt
    result = formats.read(text, chosen, source)
    problems = [*warnings, *result.problems]
    if not result.records and not any(p.severity == "error" for p in problems):
        raise InvalidInput(f"no papers found (read as {chosen})", source)
    return source, chosen, ParseResult(result.records, problems, result.meta)


@dataclass
class _Input:
    """One input of an import: read whole (``parsed``) or in pieces (``sniffed``, issue 9).

    A format whose module has ``iter_read`` (BibTeX) is read in pieces: a first pass
    over the bytes checks them (:func:`readinglist.formats.sniff`), and the import
    reads them again, decoding, parsing and importing a chunk at a time, so a file of
    150,000 entries never sits in memory whole.
    """

    source: str
    path: str
    data: bytes | None  # standard input, read whole; None: read the file at ``path``
    fmt: str
    sniffed: Sniffed | None = None
    parsed: ParseResult | None = None

    @classmethod
    def open(cls, path: str, fmt: str) -> _Input:
        """Check ``path`` (``-``: standard input) and read it whole unless it can stream.

        Raises InvalidInput for a missing, unreadable, empty or binary input, corrupt
        gzip data, or (read whole) an input without papers.
        """
        from readinglist import formats

        if path == "-":
            item = cls("<stdin>", path, sys.stdin.buffer.read(), fmt)
        else:
            item = cls(path, path, None, fmt)
            item._raw().close()  # the errors of a missing or unreadable file, now
        sniffed = formats.sniff(item.byte_chunks(), item.source)
        chosen = fmt
        if fmt == "auto" and (sniffed.complete or sniffed.head.strip()):
            chosen = formats.detect(item.source, sniffed.head)
        if chosen != "auto" and hasattr(formats.module(chosen), "iter_read"):
            item.fmt, item.sniffed = chosen, sniffed
            return item
        data = item.data if item.data is not None else b"".join(item.byte_chunks())
        _, item.fmt, item.parsed = _parse_bytes(item.source, data, fmt)
        return item

    def _raw(self) -> BinaryIO:
        if self.data is not None:
            import io

            return io.BytesIO(self.data)
        try:
            return open(self.path, "rb")
        except OSError as exc:
            raise input_error(exc, self.path) from None

    def size(self) -> int:
        """Bytes of the input as stored (compressed, for a .gz file)."""
        if self.data is not None:
            return len(self.data)
        try:
            return os.stat(self.path).st_size
        except OSError as exc:  # e.g. removed since it was checked
            raise input_error(exc, self.path) from None

    def byte_chunks(self, read: Callable[[int], None] | None = None) -> Iterator[bytes]:
        """Yield the input's bytes in pieces (:func:`readinglist.formats.iter_bytes`)."""
        from readinglist import formats

        with self._raw() as raw:
            yield from formats.iter_bytes(raw, self.source, read)


def _import_stream(
    session: Session,
    item: _Input,
    *,
    tags: Sequence[str],
    merge: bool,
    venue: str | None,
    year: int | None,
) -> ImportReport:
    """Decode, parse and import ``item`` a chunk of :data:`IMPORT_CHUNK` records at a time.

    One import batch in the caller's transaction, like :func:`library.import_records`
    (see :class:`library.Importer` for duplicates across chunks). Raises InvalidInput
    when the input holds no paper at all.
    """

    from readinglist import formats, library

    assert item.sniffed is not None
    problems: list[ParseProblem] = list(item.sniffed.warnings)
    importer = library.Importer(session, source=item.source, fmt=item.fmt, tags=tags, merge=merge)
    chunk: list[PaperRecord] = []
    count = 0
    meta: dict[str, str] = {}
    if item.data is None and not (venue or year):
        from readinglist import reader_process

        if reader_process.wanted(item.size()):
            with (
                progress_bar(f"importing {item.source}", item.size()) as advance,
                closing(
                    reader_process.read_prepared(
                        item.path,
                        item.sniffed.encoding,
                        item.source,
                        item.fmt,
                        IMPORT_CHUNK,
                        advance,
                        meta,
                    )
                ) as chunks,
            ):
                for prepared, found in chunks:
                    problems.extend(found)
                    count += len(prepared)
                    importer.add_prepared(prepared)
            if not count and not any(p.severity == "error" for p in problems):
                raise InvalidInput(f"no papers found (read as {item.fmt})", item.source)
            return importer.finish(problems, meta)
    with progress_bar(f"importing {item.source}", item.size()) as advance:
        texts = formats.iter_decode(item.byte_chunks(advance), item.sniffed.encoding, item.source)
        for entry in formats.module(item.fmt).iter_read(texts, item.source, meta=meta):
            if isinstance(entry, ParseProblem):
                problems.append(entry)
                continue
            if venue or year:
                entry = _override(entry, "bibtex", venue, year)
            chunk.append(entry)
            count += 1
            if len(chunk) >= IMPORT_CHUNK:
                importer.add(chunk)
                chunk = []
        importer.add(chunk)
    if not count and not any(p.severity == "error" for p in problems):
        raise InvalidInput(f"no papers found (read as {item.fmt})", item.source)
    return importer.finish(problems, meta)


@click.command("import")
@click.argument("paths", nargs=-1, metavar="PATH...", shell_complete=complete_path)
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
    shell_complete=complete_tag,
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
    type=click.IntRange(1, 2**62),
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

    inputs = [_Input.open(path, fmt) for path in paths]
    from readinglist import library

    with app.session() as session:
        reports: list[tuple[_Input, ImportReport]] = []
        for item in inputs:
            if item.parsed is None:
                report = _import_stream(
                    session, item, tags=tags, merge=not no_merge, venue=venue, year=year
                )
                reports.append((item, report))
                continue
            records = item.parsed.records
            if venue or year:
                records = [_override(r, item.fmt, venue, year) for r in records]
            if item.fmt == "markdown":
                report = library.sync_markdown(session, records, source=item.source)
            else:
                with progress_bar(f"importing {item.source}", len(records), "papers") as advance:
                    report = library.import_records(
                        session,
                        records,
                        source=item.source,
                        fmt=item.fmt,
                        tags=tags,
                        merge=not no_merge,
                        problems=item.parsed.problems,
                        progress=advance,
                        meta=item.parsed.meta,
                    )
            reports.append((item, report))
        rejected = sum(report.rejected for _, report in reports)
        noun = "entry" if rejected == 1 else "entries"
        if rejected and strict:
            for item, report in reports:
                _summarize(item.source, item.fmt, report)
            raise InvalidInput(f"{rejected} {noun} rejected; nothing imported (--strict)")
    # Summaries only after the commit: a reader that goes away (`| head`) must not
    # roll the import back.
    for item, report in reports:
        _summarize(item.source, item.fmt, report)
    if rejected:
        kept = sum(len(report.added) + len(report.merged) for _, report in reports)
        raise InvalidInput(f"{rejected} {noun} rejected; {kept} imported or merged (see above)")


def _override(record: PaperRecord, fmt: str, venue: str | None, year: int | None) -> PaperRecord:
    """Apply ``--venue``/``--year``. A pasted list's paper given a venue is a conference
    paper (``inproceedings``, as when its header names the venue), not ``misc``:
    BibTeX styles print no ``booktitle`` of a ``misc`` entry."""
    from dataclasses import replace

    entry_type = record.entry_type
    if venue and fmt == "abstracts" and entry_type == "misc":
        entry_type = "inproceedings"
    return replace(
        record, venue=venue or record.venue, year=year or record.year, entry_type=entry_type
    )


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
    from readinglist.cli.mark import papers_phrase

    summary = (
        f"undid import {batch.id} ({batch.source}): removed {papers_phrase(len(report.removed))}"
    )
    if report.kept:
        summary += f", kept {len(report.kept)} you have worked on since"
    if batch.merged:
        summary += f"; not undone: {batch.merged} merged into papers you had before"
    render.info(summary)
