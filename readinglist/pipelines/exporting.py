"""The export pipeline: choose papers, then write them in one format to a stream or file.

:func:`select_papers` chooses the papers (a query, or the keys a LaTeX run cited);
:func:`open_output` gives standard output or a file replaced atomically
(:mod:`readinglist.pipelines.atomic`); :func:`write_papers` writes the papers there,
BibTeX a chunk of records at a time in the writer's own order
(:func:`readinglist.formats.bibtex.entry_order`), so a large library never sits in
memory whole (issue 9). Everything reads through the caller's Session; nothing is
written to the database.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import IO, Any, TextIO, TypeVar, cast

from sqlalchemy.orm import Session

from readinglist import decided, formats, library
from readinglist.collector import collector_paused
from readinglist.errors import InvalidInput, ReadingListError, UsageError
from readinglist.formats import bibtex
from readinglist.library import profiles
from readinglist.library.listing import export_outline
from readinglist.library.listing_rows import RECORD_COLUMNS, iter_listing_records, record_columns
from readinglist.pipelines.atomic import open_atomically, stale_message
from readinglist.records import (
    CITATION_FIELDS,
    IntactEntry,
    OutlineRecord,
    PaperRecord,
    citation_problems,
)
from readinglist.text import plural

#: What an export's records are: whole, or (BibTeX) an entry to copy as stored.
_Entry = TypeVar("_Entry", PaperRecord, PaperRecord | IntactEntry)

#: The formats whose writer is :class:`readinglist.formats.bibtex.Writer`.
BIBTEX_FORMATS = ("bibtex", "biblatex")


def generation_time(with_date: bool) -> datetime | None:
    """Return the time to print in a generated file: ``SOURCE_DATE_EPOCH`` when set
    (reproducible-builds.org spec), now when ``--date`` asks, else None.

    Raises InvalidInput when ``SOURCE_DATE_EPOCH`` is not a whole number.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return datetime.fromtimestamp(int(epoch), UTC)
        except ValueError:
            raise InvalidInput(f"SOURCE_DATE_EPOCH is not a whole number: {epoch!r}") from None
    return datetime.now(UTC) if with_date else None


def writer_options(
    fmt: str,
    *,
    keywords: bool = False,
    annote: bool = False,
    group_by: str = "status",
    abstracts: bool = False,
    notes: bool = False,
    title: str = "Reading list",
    with_date: bool = False,
) -> dict[str, Any]:
    """Return the keyword arguments of ``fmt``'s writer from the export options.

    BibTeX and biblatex take ``keywords``/``annote`` (and the dialect); Markdown takes
    ``group_by``, ``abstracts``, ``notes``, ``title`` and the generation time
    (:func:`generation_time`, which may raise InvalidInput); the others take none.
    """
    if fmt in BIBTEX_FORMATS:
        return {"dialect": fmt, "keywords": keywords, "annote": annote}
    if fmt == "markdown":
        return {
            "group_by": group_by,
            "abstracts": abstracts,
            "notes": notes,
            "title": title,
            "generated": generation_time(with_date),
        }
    return {}


@dataclass
class Selection:
    """The papers an export writes, in the order chosen, and the warnings met while
    choosing them (for stderr), in order.

    ``ids`` is an ``array('q')``: 8 bytes a paper (a whole library's selection is held
    while it is written, issue 17). ``keys`` holds their citation keys, in the same
    order, when :func:`select_papers` was asked for them (``with_keys``: a BibTeX export
    orders its entries by key); otherwise None.
    """

    ids: array[int]
    keys: list[str] | None = None
    warnings: list[str] = field(default_factory=list)
    #: Old keys (aliases) the ``.aux`` file cites, by the paper's current key: the
    #: classic BibTeX export writes the entry under each of them too (BibTeX has no
    #: aliases; biblatex has ``ids``), so the document compiles with its old citations.
    cited_aliases: dict[str, list[str]] = field(default_factory=dict)
    #: Keys (case-folded) of papers whose ``crossref`` parent is in no paper of the
    #: library: written without ``crossref`` (:func:`with_crossref_parents`).
    unlinked: frozenset[str] = frozenset()


#: How deep ``\\@input`` lines may nest: BibTeX's own limit (``aux_stack_size``).
AUX_DEPTH = 20


def cited_keys(path: Path) -> list[str]:
    """Return the keys the ``\\citation`` lines of the LaTeX ``.aux`` file ``path`` cite
    (:func:`readinglist.formats.bibtex.read_aux`), with those of the files its
    ``\\@input{chap.aux}`` lines name (``\\include``), read as BibTeX reads them: each
    where LaTeX wrote it, beside the main ``.aux`` file, at most :data:`AUX_DEPTH` deep,
    each file once. Raises InvalidInput naming the file when one cannot be read or is
    not a regular file (reading a FIFO would wait for a writer for ever)."""
    keys: dict[str, None] = {}
    seen: set[Path] = set()
    base = path.parent  # where LaTeX writes the .aux files of every \include

    def visit(aux: Path, depth: int, named_by: Path | None) -> None:
        where = f"{aux} (named by {named_by})" if named_by else str(aux)
        if depth > AUX_DEPTH:
            raise InvalidInput(f"\\@input nested over {AUX_DEPTH} deep", where)
        resolved = aux.resolve()
        if resolved in seen:
            return
        seen.add(resolved)
        if aux.exists() and not aux.is_file():
            raise InvalidInput("not a regular file (a FIFO, device or folder)", where)
        try:
            text = aux.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InvalidInput(f"cannot read ({exc.strerror})", where) from None
        keys.update(dict.fromkeys(bibtex.read_aux(text)))
        for name in bibtex.aux_inputs(text):
            visit(base / name, depth + 1, aux)

    visit(path, 0, None)
    return list(keys)


def citing_profiles(session: Session, keys: Iterable[str]) -> list[tuple[str, list[str]]]:
    """The kept ``.aux`` exports of this machine (``export --aux FILE --keep``,
    :func:`readinglist.library.profiles.owner_here`) whose ``.aux`` file cites one of
    ``keys``: ``(profile name, the keys it cites, as given)`` per profile, in profile
    order. Citation keys compare case-insensitively, as BibTeX matches them. A
    ``\\nocite{*}`` cites no key in particular; an ``.aux`` file that cannot be read
    now cites nothing (its export fails at its next run and says so)."""
    wanted = {key.casefold(): key for key in keys}
    found: list[tuple[str, list[str]]] = []
    for profile in profiles.profiles(session, profiles.owner_here()):
        if not profile.aux or not wanted:
            continue
        try:
            cited = {key.casefold() for key in cited_keys(Path(profile.aux))}
        except InvalidInput:
            continue
        hits = [key for folded, key in wanted.items() if folded in cited]
        if hits:
            found.append((profile.name, hits))
    return found


def select_papers(
    session: Session, query_text: str, aux: str | None = None, *, with_keys: bool = False
) -> Selection:
    """Choose the papers to export: those ``query_text`` selects, or, with ``aux`` (a
    LaTeX ``.aux`` file), exactly those it cites; their keys too with ``with_keys``
    (:func:`needs_keys`).

    With ``aux``, ``\\nocite{*}`` selects every paper; a cited key not in the library
    and a cited old key (an alias after ``rekey``) each give a warning naming ``aux``.
    Raises InvalidInput for an unreadable ``aux`` file and QueryError for a bad query.
    """
    if not aux:
        if not with_keys:
            return Selection(library.select_ids(session, query_text))
        chosen = Selection(*_split(library.select_ids_and_keys(session, query_text), with_keys))
        return with_crossref_parents(session, chosen)
    cited = cited_keys(Path(aux))
    selected: list[tuple[int, str]] = []
    if "*" in cited:  # \nocite{*}: every entry
        selected = library.select_ids_and_keys(session, "")
        cited = [key for key in cited if key != "*"]
    # A key with a NUL byte is in no library, and PostgreSQL refuses it in a query
    # (psycopg.DataError, issue 18): it is reported missing without asking.
    impossible = [key for key in cited if "\x00" in key]
    cited = [key for key in cited if "\x00" not in key]
    papers, missing = library.papers_for_keys(session, cited)
    warnings = [
        f"{aux}: cited key {key!r} is not in the library" for key in [*missing, *impossible]
    ]
    aliases: dict[str, list[str]] = {}
    for key in cited:
        paper = library.find_paper(session, key)
        if paper is not None and key.casefold() != paper.citekey.casefold():
            aliases.setdefault(paper.citekey, []).append(key)
            warnings.append(
                f"{aux}: cited key {key!r} is an old key of {paper.citekey!r}; the export "
                "writes the entry under both keys (BibTeX) or names the old key in its ids "
                f"(biblatex); cite {paper.citekey!r} from now on"
            )
    if not selected:
        selected = [(p.id, p.citekey) for p in papers]
    chosen = Selection(*_split(selected, with_keys), warnings, aliases)
    return with_crossref_parents(session, chosen) if with_keys else chosen


def with_crossref_parents(session: Session, selection: Selection) -> Selection:
    """``selection`` (with its keys) and the ``crossref`` parents its papers need
    (:func:`readinglist.library.refs.crossref_closure`), each added with a warning:
    BibTeX stops a child whose parent is not in the file ("A bad cross reference"),
    and the parent is the entry that gives its children their venue, editors and
    year in a BibTeX style. A child whose parent is in no paper of the library is
    written without ``crossref`` (``orphans``, a warning each): it holds what it
    inherited at import, and the link would only give BibTeX an error."""
    from readinglist.library.refs import crossref_closure

    added, orphans = crossref_closure(session, selection.ids)
    if not added and not orphans:
        return selection
    keys = list(selection.keys or ())
    warnings = list(selection.warnings)
    for paper_id, key, child in added:
        selection.ids.append(paper_id)
        keys.append(key)
        warnings.append(f"added {key!r}: {child!r} names it in crossref, which BibTeX needs")
    for child, parent in orphans:
        warnings.append(
            f"entry {child!r}: crossref entry {parent!r} is not in the library; "
            "written without crossref"
        )
    unlinked = frozenset(child.casefold() for child, _ in orphans)
    return replace(selection, keys=keys, warnings=warnings, unlinked=unlinked)


def _split(selected: list[tuple[int, str]], with_keys: bool) -> tuple[array[int], list[str] | None]:
    """The ids of ``selected`` papers ``(id, key)`` as an array, and their keys (None
    without ``with_keys``): :class:`Selection`'s ``ids`` and ``keys``."""
    ids = array("q", (paper_id for paper_id, _ in selected))
    return ids, [key for _, key in selected] if with_keys else None


def needs_keys(fmt: str) -> bool:
    """True when an export in ``fmt`` needs the selection's keys (:func:`select_papers`
    ``with_keys``): BibTeX and biblatex order their entries by key
    (:func:`readinglist.formats.bibtex.entry_order`)."""
    return fmt in BIBTEX_FORMATS


#: How many keys of papers that are not real references an export names.
AUDIT_KEYS = 10


@dataclass
class Audit:
    """The exported entries that are not real references yet, counted while an export
    streams them (issue 13 item 5): a provisional title or no author, by the one rule
    :func:`readinglist.records.citation_problems`.

    ``total`` counts every entry seen, ``count`` those with a problem, ``problems``
    each problem's count, ``keys`` the first :data:`AUDIT_KEYS` such entries' keys.
    """

    total: int = 0
    count: int = 0
    problems: dict[str, int] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    #: What the writer had to say (a BibTeX ``@preamble`` left out), for the user.
    warnings: list[str] = field(default_factory=list)

    def watch(self, records: Iterable[_Entry]) -> Iterator[_Entry]:
        """Yield ``records`` unchanged, counting them as they pass (an
        :class:`~readinglist.records.IntactEntry` is a real reference by definition)."""
        for record in records:
            self.total += 1
            if isinstance(record, IntactEntry):
                yield record
                continue
            problems = citation_problems(record)
            if problems:
                self.count += 1
                for problem in problems:
                    self.problems[problem] = self.problems.get(problem, 0) + 1
                if len(self.keys) < AUDIT_KEYS:
                    self.keys.append(record.citekey or "(no key)")
            yield record

    def summary(self) -> str:
        """``3 of 270 exported entries are not real references yet (2 with a provisional
        title, 3 with no author): a2015, b2015, c2015`` (at most :data:`AUDIT_KEYS` keys,
        then ``and N more``)."""
        # "1 of 20 exported entries is not ...": the noun counts the export, the verb
        # the entries that are not real references (:func:`.text.plural`).
        what = (
            plural(self.total, "entry", "entries")
            + " "
            + plural(self.count, "is not a real reference", "are not real references")
        )
        parts = ", ".join(
            f"{self.problems[p]} {words}"
            for p, words in _PROBLEM_WORDS.items()
            if p in self.problems
        )
        more = self.count - len(self.keys)
        keys = ", ".join(self.keys) + (f" and {more} more" if more else "")
        return f"{self.count} of {self.total} exported {what} yet ({parts}): {keys}"


#: How :meth:`Audit.summary` words each problem of :func:`~readinglist.records.citation_problems`.
_PROBLEM_WORDS = {"provisional title": "with a provisional title", "no author": "with no author"}


def export_to(
    session: Session,
    fmt: str,
    selection: Selection,
    options: dict[str, Any],
    *,
    output: str | None,
    stdout: TextIO,
    database: Path | None = None,
    strict: bool = False,
    advance: Callable[[int], None] | None = None,
) -> Audit:
    """Write the papers of ``selection`` in ``fmt`` to ``output`` (:func:`open_output`)
    and return the :class:`Audit` of what was written.

    With ``strict`` the text is first written to a temporary spool (in memory up to
    32 MB) and reaches ``output`` only when no entry has a provisional title or lacks
    an author; otherwise InvalidInput (exit 5) is raised naming them, and no output
    file is created or replaced (nothing reaches standard output). The selection's
    ``cited_aliases`` name old keys a classic BibTeX export also writes each entry
    under. Raises as :func:`open_output` and :func:`write_papers` do.
    """
    audit = Audit()
    if fmt == "bibtex" and selection.cited_aliases:
        options = {**options, "cited_aliases": selection.cited_aliases}
    if not strict:
        with open_output(output, stdout, database=database, warnings=audit.warnings) as out:
            write_papers(session, out, fmt, selection, options, advance, audit)
        return audit
    refuse_database(output, database)
    with tempfile.SpooledTemporaryFile(32 << 20, "w+", encoding="utf-8", newline="\n") as spool:
        write_papers(session, cast(TextIO, spool), fmt, selection, options, advance, audit)
        if audit.count:
            raise InvalidInput(f"{audit.summary()}; nothing written (--strict)")
        spool.seek(0)
        with open_output(output, stdout, database=database, warnings=audit.warnings) as out:
            shutil.copyfileobj(spool, out)
    return audit


def refuse_database(output: str | None, database: Path | None) -> None:
    """Raise UsageError (exit 2) when ``output`` is the SQLite ``database`` file (or its
    ``-wal``/``-shm``): an export must never replace the library it reads."""
    if output is None or output == "-" or database is None:
        return
    target = Path(output).resolve()
    library = database.resolve()
    if target in (library, Path(f"{library}-wal"), Path(f"{library}-shm")):
        raise UsageError(f"{output} is the database itself; name another file")


def refuse_aux(output: str | None, aux: str | None) -> None:
    """Raise UsageError (exit 2) when ``output`` is the ``.aux`` file ``aux`` the export
    reads (the same file by ``os.path.samefile``, or the same resolved path when one
    does not exist yet): the LaTeX run's record of its citations is never replaced."""
    if output is None or output == "-" or not aux:
        return
    try:
        same = os.path.samefile(output, aux)
    except OSError:
        same = Path(output).resolve() == Path(aux).resolve()
    if same:
        raise UsageError(f"{output} is the .aux file the export reads (--aux); name another file")


@contextmanager
def open_output(
    output: str | None,
    stdout: TextIO,
    *,
    database: Path | None = None,
    warnings: list[str] | None = None,
) -> Iterator[TextIO]:
    """Yield ``stdout`` (``output`` None or ``-``) or a file replaced atomically when the
    block ends without error (:func:`readinglist.pipelines.atomic.open_atomically`).

    An OSError while the file is open, written or replaced becomes ReadingListError
    ``cannot write OUTPUT: REASON`` (exit 1), and the old file stays as it was. An
    ``output`` that is the SQLite ``database`` file (or its ``-wal``/``-shm``) is refused
    with UsageError (exit 2), as ``db backup`` refuses it: an export must never replace
    the library it reads. Temporary files an interrupted export of ``output`` left are
    removed, and ``warnings`` told so.
    """
    if output is None or output == "-":
        yield stdout
        return
    refuse_database(output, database)
    removed: list[Path] = []
    try:
        with open_atomically(Path(output), removed) as handle:
            if removed and warnings is not None:
                warnings.append(f"{output}: {stale_message(removed)}")
            yield handle
    except OSError as exc:
        raise ReadingListError(f"cannot write {output}: {exc.strerror or exc}") from None


def write_papers(
    session: Session,
    out: TextIO,
    fmt: str,
    selection: Selection,
    options: dict[str, Any],
    advance: Callable[[int], None] | None = None,
    audit: Audit | None = None,
) -> None:
    """Write the papers of ``selection`` to ``out`` in ``fmt`` with the writer's ``options``
    (:func:`writer_options`); ``audit`` (:class:`Audit`) counts the records as they are
    written. BibTeX and biblatex need the selection's keys (:func:`needs_keys`):
    without them ValueError is raised.

    BibTeX and biblatex are written a chunk at a time (:func:`_write_bibtex_in_chunks`),
    calling ``advance`` with the papers written so far. The other formats stream too
    (issue 17): records a chunk at a time without ``source_text`` or digest (with notes
    for RIS and CSL-JSON, and for Markdown ``--notes``), text written as the writer's ``write_chunks``
    yields it; Markdown first reads a light outline of every paper
    (:func:`readinglist.library.listing.export_outline`) to count, group and order,
    and reads each group's records by the ids the outline carries.
    """
    audit = audit or Audit()
    watch = audit.watch
    ids = selection.ids
    if fmt in BIBTEX_FORMATS:
        if selection.keys is None:
            raise ValueError(f"a {fmt} export needs the selection's keys (with_keys)")
        options = dict(options)
        aliases = options.pop("cited_aliases", None) or {}
        selected = (ids, selection.keys)
        if selection.unlinked:
            options["unlinked"] = selection.unlinked
        audit.warnings.extend(key_warnings(selection.keys, aliases))
        _write_bibtex_in_chunks(session, out, options, selected, advance or _ignore, audit, aliases)
        return
    write_chunks = formats.module(fmt).write_chunks
    if fmt == "markdown":
        from readinglist.formats.markdown import decided_stamp
        from readinglist.library.marks import latest_status_change

        options = {**options, "decided": decided_stamp(latest_status_change(session))}
        if decided.fold(decided.current()) != decided.DEFAULT_READER:
            options["reader"] = decided.current()  # reader=: whose decisions it holds
        outline = export_outline(session, ids, with_tags=options["group_by"] == "tag")
        shown = [*formats.module(fmt).RECORD_FIELDS, *CITATION_FIELDS]  # Audit reads these
        columns = record_columns([*shown, *(["abstract"] if options["abstracts"] else [])])

        def complete(members: list[OutlineRecord]) -> Iterator[PaperRecord]:
            found = iter_listing_records(
                session,
                [member.paper_id for member in members],
                columns=columns,
                with_editors=True,
                with_notes=bool(options["notes"]),
            )
            return watch(record for _, record in found)

        pieces = write_chunks(outline, complete=complete, **options)
    else:
        # RIS and CSL-JSON carry the user's notes (N1 / note), issue 15.
        found = iter_listing_records(
            session, ids, columns=RECORD_COLUMNS, with_editors=True, with_notes=True
        )
        pieces = write_chunks(watch(record for _, record in found), **options)
    with collector_paused():  # rows and records only, no cycles (issue 17)
        for piece in pieces:
            out.write(piece)


def key_warnings(keys: Iterable[str], aliases: dict[str, list[str]]) -> list[str]:
    """A warning for each of ``keys`` (and of the cited old keys ``aliases`` holds by
    key) that breaks the key rule (:func:`readinglist.citekeys.is_inert_key`: TeX would
    read it as markup, a library made before the rule may hold one), naming the key a
    BibTeX export writes instead (:func:`readinglist.citekeys.inert_key`)."""
    from readinglist.citekeys import inert_key, is_inert_key

    olds = (old for key in keys for old in aliases.get(key, ()))
    return [
        f"citation key {key!r} holds characters TeX would read as markup; "
        f"written as {inert_key(key)!r} (rename it with rekey)"
        for key in (*keys, *olds)
        if not is_inert_key(key)
    ]


def _with_alias_copies(
    record: PaperRecord | IntactEntry, old_keys: list[str] | None
) -> list[PaperRecord | IntactEntry]:
    """``record``, then a copy of it under each of ``old_keys`` (no source text to copy,
    no aliases of its own); an IntactEntry has none to copy (its whole record is
    given for those that have)."""
    if not old_keys or isinstance(record, IntactEntry):
        return [record]
    copies = [
        replace(record, citekey=key, aliases=(), source_text=None, source_check=None)
        for key in old_keys
    ]
    return [record, *copies]


def _crossref_parents(session: Session, ids: Sequence[int]) -> frozenset[str]:
    """The keys (case-folded) that papers ``ids`` name in ``crossref``: BibTeX needs those
    entries after the entries that name them (issue 15, the real-tools test)."""
    from readinglist.library.refs import crossref_values

    rows = crossref_values(session)
    wanted = set(ids)
    return bibtex.crossref_parents(value for paper_id, value in rows if paper_id in wanted)


def _without_crossref(
    stream: Iterable[PaperRecord | IntactEntry],
    unlinked: frozenset[str],
    complete: Callable[[Sequence[IntactEntry]], list[PaperRecord]],
) -> Iterator[PaperRecord | IntactEntry]:
    """``stream`` with the papers whose key is in ``unlinked`` (case-folded) as whole
    records without ``crossref`` (:func:`with_crossref_parents`), their source text
    never copied whole (no ``source_check``): the writer removes ``crossref`` from it
    and adds the inherited fields in place; the others as they come."""
    for record in stream:
        if unlinked and (record.citekey or "").casefold() in unlinked:
            whole = complete([record])[0] if isinstance(record, IntactEntry) else record
            fields = {name: value for name, value in whole.fields.items() if name != "crossref"}
            record = replace(whole, fields=fields, source_check=None)
        yield record


def _ignore(done: int) -> None:
    """No progress to report."""


@dataclass
class _BibtexRun:
    """One BibTeX export's writer and how it reads the papers: ``ids`` in the writer's
    order, the ``@string`` offsets of their imports, whether tags and notes are read."""

    session: Session
    writer: bibtex.Writer
    ids: list[int]
    tags: bool
    notes: bool

    def complete(self, entries: Sequence[IntactEntry]) -> list[PaperRecord]:
        """The whole records of ``entries`` (see ``bibtex.Writer.entries``)."""
        found = library.iter_bibtex_records(
            self.session,
            [entry.paper_id for entry in entries],
            string_offsets=self.writer.string_offsets,
            with_tags=self.tags,
            with_notes=self.notes,
            with_aliases=self.writer.reads_aliases,
        )
        return [record for record in found if isinstance(record, PaperRecord)]

    def stream(self, unlinked: frozenset[str]) -> Iterator[PaperRecord | IntactEntry]:
        """One generator over every paper (its queries built once, a chunk of rows read
        at a time), the ``crossref`` of ``unlinked`` children inlined."""
        return _without_crossref(
            library.iter_bibtex_records(
                self.session,
                self.ids,
                string_offsets=self.writer.string_offsets,
                with_tags=self.tags,
                with_notes=self.notes,
                intact_fields=self.writer.rule_fields,
                with_aliases=self.writer.reads_aliases,
            ),
            unlinked,
            self.complete,
        )


def _bibtex_run(
    session: Session, options: dict[str, Any], selected: tuple[Sequence[int], Sequence[str]]
) -> _BibtexRun:
    """The writer for ``selected`` (ids, keys): the papers sorted by
    :func:`readinglist.formats.bibtex.entry_order` (``crossref`` parents last), the
    ``@string`` and ``@preamble`` context of their imports."""
    selected_ids, keys = selected
    parents = _crossref_parents(session, selected_ids)
    order = sorted(range(len(keys)), key=lambda i: bibtex.entry_order(keys[i], i, parents))
    ids = [selected_ids[i] for i in order]
    strings, preamble, parts = library.bibtex_context(session, ids)
    writer = bibtex.Writer(
        strings=strings, preamble=preamble, parents=parents, string_parts=parts, **options
    )
    return _BibtexRun(
        session, writer, ids, bool(options.get("keywords")), bool(options.get("annote"))
    )


def _with_aliases(
    records: list[PaperRecord | IntactEntry],
    aliases: dict[str, list[str]],
    complete: Callable[[Sequence[IntactEntry]], list[PaperRecord]],
) -> list[PaperRecord | IntactEntry]:
    """``records``, each whose key has old keys followed by a copy under each, generated
    from its whole record (never copied from its source)."""
    cited = [r for r in records if isinstance(r, IntactEntry) and r.citekey in aliases]
    wholes = dict(zip(map(id, cited), complete(cited), strict=True))
    return [
        copy
        for record in records
        for copy in _with_alias_copies(
            wholes.get(id(record), record), aliases.get(record.citekey or "")
        )
    ]


def _write_bibtex_in_chunks(
    session: Session,
    out: TextIO,
    options: dict[str, Any],
    selected: tuple[Sequence[int], Sequence[str]],
    advance: Callable[[int], None],
    audit: Audit,
    aliases: dict[str, list[str]] | None = None,
) -> None:
    """Write the ``selected`` papers (their ids, and their keys in the same order) as
    BibTeX, a chunk of records at a time.

    A paper whose current key has ``aliases`` (old keys a document cites) is followed by
    a copy of its entry under each old key, regenerated (not copied from its source).

    The BibTeX writer orders entries by :func:`readinglist.formats.bibtex.entry_order`
    and joins them with one blank line. Sorting the papers that way first and writing
    chunk after chunk, joined by a blank line, gives exactly the text of one call with
    every record, while only one chunk of records is in memory (issue 9).

    The ``@preamble`` and the ``@string`` definitions that copied entries use come
    first but are known only after the last entry: when the papers' imports kept
    any (:func:`readinglist.library.bibtex_context`), the entries are spooled to a
    temporary file (in memory up to 32 MB) and copied after the header.

    A paper whose data the library vouches is its source text's comes as an
    :class:`~readinglist.records.IntactEntry` (``library.iter_bibtex_records``): its
    people and fields are read only when the writer cannot copy its text (issue 17
    item 2); the text written is the same.
    """
    unlinked = options.pop("unlinked", frozenset())
    run = _bibtex_run(session, options, selected)
    writer = run.writer
    spooled = bool(writer.strings.definitions or writer.preamble)
    stream = audit.watch(run.stream(unlinked))
    with tempfile.SpooledTemporaryFile(32 << 20, "w+", encoding="utf-8", newline="\n") as spool:
        body: IO[str] = spool if spooled else out
        written = False
        done = 0
        while records := list(islice(stream, library.RECORD_CHUNK)):
            done += len(records)
            if aliases:
                records = _with_aliases(records, aliases, run.complete)
            # In the writer's order already, unless copies under old keys were added.
            text = writer.entries(records, run.complete, ordered=not aliases)
            if text:
                body.write("\n\n" + text if written else text)
                written = True
            advance(done)
        if spooled:
            head = writer.head()
            audit.warnings.extend(writer.warnings)
            if head:
                out.write(head + ("\n\n" if written else "\n"))
            spool.seek(0)
            shutil.copyfileobj(spool, out)
        if written:
            out.write("\n")
