"""The import pipeline: inputs (files or standard input) -> records -> the library.

Each input is checked and opened first (:meth:`Input.open`, before any database
work), then imported in the caller's one transaction (:func:`import_inputs`):

* an input whose format streams (a format module with ``iter_read``: BibTeX) is read
  in pieces (issue 9): one pass over the bytes checks them
  (:func:`readinglist.formats.sniff`); the import reads them again, decoding, parsing
  and handing :data:`IMPORT_CHUNK` records at a time to one
  :class:`readinglist.library.Importer`, so a file of 150,000 entries never sits in
  memory whole. A large file is read by a second process
  (:mod:`readinglist.pipelines.reader_process`) while this one writes.
* any other input is read whole, decoded (:func:`readinglist.formats.decode`), its
  format detected when ``auto``, parsed, and imported in one call
  (:func:`readinglist.library.import_records`; our own Markdown export is synced
  instead, :func:`readinglist.library.sync_markdown`).

Nothing here commits: chunks are inserted (flushed) into the caller's transaction,
which the command commits once, or rolls back (``--strict``, an error, Ctrl-C).
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from typing import BinaryIO

from sqlalchemy.orm import Session

from readinglist import formats, library
from readinglist.collector import IMPORT_THRESHOLD, collector_paused
from readinglist.errors import InvalidInput, input_error
from readinglist.formats import Sniffed
from readinglist.library import ImportReport
from readinglist.pipelines import Progress, limits, no_progress, reader_process
from readinglist.records import PaperRecord, ParseProblem, ParseResult
from readinglist.text import unique_tags

#: Records handed to the library at a time when an input is read in pieces.
IMPORT_CHUNK = 1000


def no_papers_found(fmt: str, head: str = "") -> str:
    """The message for an input read as ``fmt`` that held no paper, with a hint when
    another reader is the likely one: the format its content ``head`` looks like
    (:func:`readinglist.formats.looks_like`: ``wrong.bib`` holding RIS), or, for
    markdown, a list of abstracts (a fresh user gave ``-f markdown`` to a Markdown list
    of abstracts: markdown is only our own reading-list format)."""
    looks = formats.looks_like(head) if head else None
    if looks is not None and looks != fmt:
        hint = f"; its content looks like {looks}: import it with --format {looks}"
    else:
        hint = {
            "markdown": "; markdown reads readinglist's own lists: a list of titles and "
            "abstracts is read with -f abstracts",
        }.get(fmt, "")
    return f"no papers found (read as {fmt}{hint})"


def _other_format(fmt: str, head: str) -> bool:
    """True when content ``head`` read as ``fmt`` gave no paper and shows another format:
    the reader's problems (one per entry it could not read) are then left unsaid for the
    one line of :func:`no_papers_found`."""
    looks = formats.looks_like(head)
    return looks is not None and looks != fmt


def parse_whole(source: str, data: bytes, fmt: str) -> tuple[str, ParseResult]:
    """Decode, detect (``fmt`` ``"auto"``) and read the whole input ``data``.

    Returns ``(format read as, result)``; the result's problems start with the
    decoding warnings. Raises InvalidInput, naming ``source``, for input that
    :func:`readinglist.formats.decode` refuses, or that holds no paper and no
    rejected entry (``no papers found (read as FORMAT)``).
    """
    text, warnings = formats.decode(data, source)
    chosen = formats.detect(source, text) if fmt == "auto" else fmt
    result = formats.read(text, chosen, source)
    problems = [*warnings, *result.problems]
    if not result.records and (
        _other_format(chosen, text) or not any(p.severity == "error" for p in problems)
    ):
        raise InvalidInput(no_papers_found(chosen, text), source)
    return chosen, ParseResult(result.records, problems, result.meta)


def read_stdin() -> bytes:
    """Read standard input whole (:func:`read_whole`)."""
    return read_whole(sys.stdin.buffer, "<stdin>")


def read_whole(stream: BinaryIO, source: str) -> bytes:
    """Read ``stream`` whole, but no more than :func:`readinglist.formats.max_input_bytes`
    (``yes | readinglist import -`` must fail, not fill the memory): standard input, or a
    named pipe or device, which can be read only once while an import reads a file
    several times (sniffed, then parsed).

    Raises InvalidInput (exit 5) naming ``source`` past the limit or for a read error.
    """
    limit = formats.max_input_bytes()
    data = bytearray()
    try:
        while chunk := stream.read(min(formats.READ_BYTES, limit + 1 - len(data))):
            data += chunk
            if len(data) > limit:
                raise formats.too_large(source)
    except OSError as exc:
        raise input_error(exc, source) from None
    return bytes(data)


@dataclass
class Input:
    """One input of an import: read whole (``parsed``) or in pieces (``sniffed``, issue 9).

    ``source`` names it in messages (``<stdin>`` for ``-``); ``data`` holds standard
    input, read whole (None: read the file at ``path``); ``fmt`` is the format it is
    read as (detected by :meth:`open` when ``auto`` was asked); ``replaced``: lines
    whose bytes were not UTF-8 and were replaced by U+FFFD (``--strict`` fails).
    """

    source: str
    path: str
    data: bytes | None
    fmt: str
    sniffed: Sniffed | None = None
    parsed: ParseResult | None = None
    replaced: int = 0
    cleaned: int = 0  # lines whose NUL bytes were removed (``--strict`` fails)

    @classmethod
    def open(cls, path: str, fmt: str) -> Input:
        """Check ``path`` (``-``: standard input) and read it whole unless it can stream.

        Raises InvalidInput for a missing, unreadable, empty or binary input, corrupt
        gzip data, or (read whole) an input without papers.
        """
        if path == "-":
            item = cls("<stdin>", path, read_stdin(), fmt)
        else:
            item = cls(path, path, None, fmt)
            with item._raw() as raw:  # the errors of a missing or unreadable file, now
                if not stat.S_ISREG(os.fstat(raw.fileno()).st_mode):  # a FIFO: read once
                    item.data = read_whole(raw, path)
        sniffed = formats.sniff(item.byte_chunks(), item.source)
        item.replaced = sniffed.replaced
        item.cleaned = sniffed.cleaned
        chosen = fmt
        if fmt == "auto" and (sniffed.complete or sniffed.head.strip()):
            chosen = formats.detect(item.source, sniffed.head)
        if chosen != "auto" and hasattr(formats.module(chosen), "iter_read"):
            item.fmt, item.sniffed = chosen, sniffed
            return item
        if sniffed.size > formats.max_input_bytes():
            raise formats.too_large(item.source)
        data = item.data if item.data is not None else b"".join(item.byte_chunks())
        item.fmt, item.parsed = parse_whole(item.source, data, fmt)
        return item

    def _raw(self) -> BinaryIO:
        if self.data is not None:
            return io.BytesIO(self.data)
        try:
            return open(self.path, "rb")
        except OSError as exc:
            raise input_error(exc, self.path) from None

    def size(self) -> int:
        """Bytes of the input as stored (compressed, for a .gz file). Raises InvalidInput
        when the file is gone or unreadable since it was opened."""
        if self.data is not None:
            return len(self.data)
        try:
            return os.stat(self.path).st_size
        except OSError as exc:  # e.g. removed since it was checked
            raise input_error(exc, self.path) from None

    def byte_chunks(self, read: Callable[[int], None] | None = None) -> Iterator[bytes]:
        """Yield the input's bytes in pieces (:func:`readinglist.formats.iter_bytes`)."""
        with self._raw() as raw:
            yield from formats.iter_bytes(raw, self.source, read)


def open_inputs(paths: Sequence[str], fmt: str) -> list[Input]:
    """Open every input of ``paths`` (:meth:`Input.open`), in order, before any import."""
    return [Input.open(path, fmt) for path in paths]


def override(record: PaperRecord, fmt: str, venue: str | None, year: int | None) -> PaperRecord:
    """Apply ``--venue``/``--year`` to ``record`` read as ``fmt``.

    A pasted list's paper given a venue is a conference paper (``inproceedings``, as
    when its header names the venue), not ``misc``: BibTeX styles print no
    ``booktitle`` of a ``misc`` entry.
    """
    entry_type = record.entry_type
    if venue and fmt == "abstracts" and entry_type == "misc":
        entry_type = "inproceedings"
    return replace(
        record, venue=venue or record.venue, year=year or record.year, entry_type=entry_type
    )


@dataclass(frozen=True)
class ImportOptions:
    """The options of one import, the same for every input.

    ``tags`` and ``merge`` as for :func:`readinglist.library.import_records`;
    ``venue`` and ``year`` (``--venue``/``--year``) are applied to every record
    (:func:`override`); ``keywords_as_tags`` (``--keywords-as-tags``) also makes each
    keyword a tag.
    """

    tags: Sequence[str] = ()
    merge: bool = True
    venue: str | None = None
    year: int | None = None
    keywords_as_tags: bool = False

    @property
    def overrides(self) -> bool:
        """True when ``venue``, ``year`` or ``keywords_as_tags`` changes the records read."""
        return bool(self.venue or self.year or self.keywords_as_tags)

    def apply(self, record: PaperRecord, fmt: str) -> PaperRecord:
        """Return ``record`` (read as ``fmt``) with the overrides applied."""
        record = override(record, fmt, self.venue, self.year)
        if self.keywords_as_tags and record.keywords:
            record = replace(record, tags=tuple(unique_tags(record.tags + record.keywords)))
        return record


@dataclass
class ImportRun:
    """What :func:`import_inputs` did: one ``(input, report)`` per input, in order."""

    reports: list[tuple[Input, ImportReport]] = field(default_factory=list)

    @property
    def rejected(self) -> int:
        """Entries rejected over all inputs."""
        return sum(report.rejected for _, report in self.reports)

    @property
    def replaced(self) -> int:
        """Lines over all inputs whose bad UTF-8 bytes were replaced by U+FFFD."""
        return sum(item.replaced for item, _ in self.reports)

    @property
    def cleaned(self) -> int:
        """Lines over all inputs whose NUL bytes were removed."""
        return sum(item.cleaned for item, _ in self.reports)

    @property
    def kept(self) -> int:
        """Papers added or merged over all inputs."""
        return sum(len(report.added) + len(report.merged) for _, report in self.reports)


def import_inputs(
    session: Session,
    inputs: Sequence[Input],
    options: ImportOptions,
    progress: Progress = no_progress,
) -> ImportRun:
    """Import each opened input (:func:`open_inputs`) as its own import batch, in
    ``session``'s transaction, with ``options``; ``progress`` is a progress-bar factory
    (:data:`readinglist.pipelines.Progress`).

    Returns an :class:`ImportRun`; commits nothing. Raises InvalidInput for a streamed
    input without any paper, or a read error met while streaming.
    """
    limits.check_tags(options.tags)
    run = ImportRun()
    with collector_paused(IMPORT_THRESHOLD):  # (issue 17 item 5)
        for item in inputs:
            if item.parsed is None:
                report = _import_stream(session, item, options, progress)
            else:
                report = _import_parsed(session, item, item.parsed, options, progress)
            run.reports.append((item, report))
    return run


def _same_reader(source: str, written_for: str | None) -> None:
    """Refuse (InvalidInput, exit 5, nothing imported) to sync a reading list written
    with another reader's decisions than the current reader's: its marker's ``reader=``
    (absent: the implicit reader) names whose they are, and syncing it as someone else
    would copy them to that reader."""
    from readinglist import decided

    owner = written_for or decided.DEFAULT_READER
    if decided.fold(owner) != decided.fold(decided.current()):
        who = f"--reader {owner}" if written_for else "no --reader (the implicit reader)"
        raise InvalidInput(
            f"this reading list holds the decisions of reader {owner!r} (its first line), "
            f"not of {decided.current()!r}: import it with {who}",
            source,
            1,
        )


def _import_parsed(
    session: Session, item: Input, parsed: ParseResult, options: ImportOptions, progress: Progress
) -> ImportReport:
    """Import the records of an input read whole, held to the limits (:mod:`.limits`)."""
    held: list[ParseProblem] = []
    records = limits.check_all(parsed.records, item.source, held)
    problems = [*parsed.problems, *held]
    if options.overrides:
        records = [options.apply(r, item.fmt) for r in records]
    if item.fmt == "markdown":
        from readinglist.formats.markdown import decided_time

        # No marker (deleted, or a list written by hand): nothing says when it was
        # written, so it is taken as older than every decision (decided=none).
        marked = "format_version" in parsed.meta
        if marked:
            _same_reader(item.source, parsed.meta.get("reader"))
        decided = decided_time(parsed.meta.get("decided", None if marked else "none"))
        report = library.sync_markdown(session, records, source=item.source, decided=decided)
        report.problems[:0] = problems  # the reader's warnings too (a garbled stamp)
        return report
    with progress(f"importing {item.source}", len(records), "papers") as advance:
        return library.import_records(
            session,
            records,
            source=item.source,
            fmt=item.fmt,
            tags=options.tags,
            merge=options.merge,
            problems=problems,
            progress=advance,
            meta=parsed.meta,
        )


def _import_stream(
    session: Session, item: Input, options: ImportOptions, progress: Progress
) -> ImportReport:
    """Decode, parse and import ``item`` a chunk of :data:`IMPORT_CHUNK` records at a time.

    One import batch in the caller's transaction, like
    :func:`readinglist.library.import_records` (see :class:`readinglist.library.Importer`
    for duplicates across chunks). A file (not standard input) is read in a reader
    process when :func:`reader_process.wanted` says so and no ``--venue``/``--year``
    changes the records. Raises InvalidInput when the input holds no paper at all.
    """
    assert item.sniffed is not None
    importer = library.Importer(
        session, source=item.source, fmt=item.fmt, tags=options.tags, merge=options.merge
    )
    stream = _Stream(importer, item, item.sniffed, options, list(item.sniffed.warnings))
    in_child = item.data is None and not options.overrides and reader_process.wanted(item.size())
    with progress(f"importing {item.source}", item.size(), "") as advance:
        if in_child:
            stream.from_reader_process(advance)
        else:
            stream.here(advance)
    head = item.sniffed.head
    if not stream.count and (
        _other_format(item.fmt, head) or not any(p.severity == "error" for p in stream.problems)
    ):
        raise InvalidInput(no_papers_found(item.fmt, head), item.source)
    return importer.finish(stream.problems, stream.meta)


@dataclass
class _Stream:
    """One input read in pieces and fed to ``importer`` a chunk at a time.

    ``problems`` and ``meta`` collect the reader's (after the sniffing warnings);
    ``count`` is the records read so far.
    """

    importer: library.Importer
    item: Input
    sniffed: Sniffed
    options: ImportOptions
    problems: list[ParseProblem]
    meta: dict[str, str] = field(default_factory=dict)
    count: int = 0

    def from_reader_process(self, advance: Callable[[int], None]) -> None:
        """Import the prepared chunks a reader process reads from the input's file."""
        item = self.item
        chunks = reader_process.read_prepared(
            item.path,
            self.sniffed.encoding,
            item.source,
            item.fmt,
            IMPORT_CHUNK,
            advance,
            self.meta,
        )
        with closing(chunks):  # stops the child when the import fails
            for prepared, found in chunks:
                self.problems.extend(found)
                self.count += len(prepared)
                self.importer.add_prepared(prepared)

    def here(self, advance: Callable[[int], None]) -> None:
        """Read the input in pieces in this process and import it a chunk at a time."""
        item, options = self.item, self.options
        chunk: list[PaperRecord] = []
        texts = formats.iter_decode(item.byte_chunks(advance), self.sniffed.encoding, item.source)
        for entry in formats.module(item.fmt).iter_read(texts, item.source, meta=self.meta):
            if isinstance(entry, ParseProblem):
                self.problems.append(entry)
                continue
            checked, found = limits.check(entry, item.source)
            self.problems.extend(found)
            if checked is None:
                continue
            entry = checked
            if options.overrides:
                entry = options.apply(entry, item.fmt)
            chunk.append(entry)
            self.count += 1
            if len(chunk) >= IMPORT_CHUNK:
                self.importer.add(chunk)
                chunk = []
        self.importer.add(chunk)
