"""Imports: records added as one batch (duplicates merged or reported).

:class:`Importer` takes records a chunk at a time (issue 9); :func:`import_records`
feeds it everything at once. A Markdown list synced back is :mod:`.markdown_sync`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import insert, update
from sqlalchemy.orm import Session

from readinglist import citekeys, dedupe
from readinglist.library import hooks as _hooks  # noqa: F401  (the ORM flush hooks)
from readinglist.library._sql import (
    Statistics,
    insert_papers,
    serialize_imports,
    unlink_people,
    update_many,
)
from readinglist.library.marks import import_statuses
from readinglist.library.matching import (
    Candidate,
    Index,
    Pool,
    apply_merges,
    choose_key,
    complete_papers_for,
    extend_pool,
    load_candidates,
    load_pool,
    merge_into,
)
from readinglist.library.merging import (
    conflict_rows,
    write_conflicts,
)
from readinglist.library.refs import KeyRegistry, follow_crossrefs
from readinglist.library.rows import (
    PERSON_CACHE,
    bibliographic_digest,
    insert_people,
    record_values,
    split_keywords,
)
from readinglist.library.search import refresh_search_text, search_text_for, search_text_prepared
from readinglist.library.tags import link_tags
from readinglist.library.versioning import (
    extend_pool_preprints,
    load_history,
    new_history,
    remember_superseded,
    version_rows,
)
from readinglist.models import (
    Alias,
    ImportBatch,
    Paper,
    utcnow,
)
from readinglist.prepare import Prepared, prepare_record
from readinglist.records import (
    FILLABLE,
    PEOPLE,
    PaperRecord,
    ParseProblem,
)
from readinglist.text import fold
from readinglist.versions import VERSION_FIELD, Version


@dataclass
class ImportReport:
    """What an import did, for the summary on stderr.

    ``added``: keys of new papers. ``merged``: (key, filled column names) for
    duplicates that completed an existing paper. ``present``: keys of duplicates
    that changed nothing. ``skipped``: (description, key) of duplicates not
    imported under ``--no-merge``. ``problems``: warnings and rejections, in order.
    ``evidence``: key -> why a record was taken for that paper ("same abstract, 97%
    similar"). ``candidates``: (file:line, key, evidence) of records imported as new
    papers that may be duplicates (``readinglist duplicates`` lists them).
    ``vetoed``: (file:line, key, reason) of look-alikes that are not merged.
    ``conflicts``: (key, field names) whose other value went to the merge history.
    ``rekeyed``: (old key, new key) of provisional papers that took a real key.
    ``undated``: keys of the added papers without a year.
    """

    batch_id: int | None = None
    added: list[str] = field(default_factory=list)
    merged: list[tuple[str, list[str]]] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)
    candidates: list[tuple[str, str, str]] = field(default_factory=list)
    vetoed: list[tuple[str, str, str]] = field(default_factory=list)
    conflicts: list[tuple[str, list[str]]] = field(default_factory=list)
    rekeyed: list[tuple[str, str]] = field(default_factory=list)
    undated: list[str] = field(default_factory=list)

    @property
    def rejected(self) -> int:
        """Number of entries rejected (problems of severity ``error``)."""
        return sum(1 for p in self.problems if p.severity == "error")


def import_records(
    session: Session,
    records: Sequence[PaperRecord],
    *,
    source: str,
    fmt: str,
    tags: Sequence[str] = (),
    merge: bool = True,
    problems: Sequence[ParseProblem] = (),
    progress: Callable[[int], None] | None = None,
    meta: Mapping[str, str] | None = None,
) -> ImportReport:
    """Add ``records`` to the library as one import batch; merge or report duplicates.

    Args:
        records: what a reader returned, in source order.
        source: the file name (or ``<stdin>``) recorded in the batch and messages.
        fmt: the format name recorded in the batch.
        tags: tags given on the command line, added to every imported or merged paper.
        merge: True merges duplicates into the existing paper (missing columns
            filled, tags united; the user's title, status and notes kept);
            False reports them and imports nothing for them (``--no-merge``).
        problems: the reader's problems, carried into the report.
        progress: called with the number of records handled so far.
        meta: the reader's ``ParseResult.meta`` (BibTeX ``@string``/``@preamble``
            text, kept with the batch; see :meth:`Importer.finish`).

    Returns:
        An ImportReport. Nothing is committed here: the caller's transaction
        decides (``--strict`` rolls back when the report has rejections).

    This is an :class:`Importer` fed every record at once; a caller that reads a
    large file in pieces feeds an Importer chunk by chunk instead.
    """
    importer = Importer(session, source=source, fmt=fmt, tags=tags, merge=merge, progress=progress)
    importer.add(records)
    return importer.finish(problems, meta)


#: A paper an import links to: an existing paper's id, or the row of one it adds
#: (whose ``id`` is known once the chunk is inserted).
Target = int | dict[str, Any]


def _target_id(target: Target) -> int:
    return target if isinstance(target, int) else int(target["id"])


@dataclass
class _Chunk:
    """What an :class:`Importer` decided for one chunk, written by ``Importer._write``."""

    index: Index
    new_rows: list[dict[str, Any]] = field(default_factory=list)
    new_records: list[PaperRecord] = field(default_factory=list)
    merged: dict[int, tuple[Candidate, set[str]]] = field(default_factory=dict)
    people: list[tuple[int, PaperRecord]] = field(default_factory=list)
    conflicts: list[tuple[Target, list[tuple[str, Any]], str]] = field(default_factory=list)
    rekeys: list[tuple[int, str, str]] = field(default_factory=list)  # id, old, new
    tag_links: list[tuple[Target, list[str]]] = field(default_factory=list)
    tagged_pending: list[dict[str, Any]] = field(default_factory=list)
    aliases: list[tuple[Target, str]] = field(default_factory=list)


def still_as_read(record: PaperRecord) -> bool:
    """True when ``record``'s bibliographic data is still what its BibTeX reader read:
    its ``source_check`` (digest of the data as read, then of the macros) begins with
    :func:`~readinglist.formats.bibtex.bibliographic_fingerprint` of the record now.

    The import marks such a paper ``source_intact`` (its text may be copied by the
    export without checking the data again). What changes a record between the reader
    and the row (``--venue``/``--year``, the limits' cut of a long author list, a key
    made unique) makes this False. False without a ``source_check`` (not BibTeX, or no
    text kept). A record the reader handed on unchanged holds its fingerprint
    (``PaperRecord.fingerprint``), so this costs no digest; a changed one is a new
    record (``dataclasses.replace``) and is digested again.
    """
    if not record.source_check:
        return False
    from readinglist.formats.bibtex.digest import bibliographic_fingerprint

    return record.source_check[:32] == bibliographic_fingerprint(record)[:32]


class Importer:
    """One import batch, fed records in one or more chunks inside the caller's transaction.

    ``Importer(session, source=..., fmt=...)`` opens the batch; :meth:`add` takes
    records in source order (all at once, or a chunk at a time so that a reader can
    stream a large file: issue 9); :meth:`finish` writes the batch's counts and
    returns the :class:`ImportReport`. Nothing is committed here.

    Each chunk costs a fixed number of queries: ``IN (...)`` look-ups of duplicate
    candidates, of citation keys in use and of stored people (:data:`CHUNK` values
    each), then bulk inserts through SQLAlchemy Core (``executemany``). A paper that
    an earlier chunk added is already in the database (inserted, not committed), so
    a later duplicate of it is found there and merged into it like into any paper
    the library had before.
    """

    def __init__(
        self,
        session: Session,
        *,
        source: str,
        fmt: str,
        tags: Sequence[str] = (),
        merge: bool = True,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.session = session
        self.source = source
        self.merge = merge
        self.progress = progress
        self.extra_tags = list(dict.fromkeys(tags))
        self.report = ImportReport()
        self.keys = KeyRegistry(session)
        self.person_ids: dict[str, int] = {}  # people.name_key -> id, across chunks
        self.handled = 0
        self.now = utcnow()
        self.pool: Pool | None = None  # incomplete papers, for tolerant matching
        self.list_pool = False  # complete papers added to the pool for a list
        self.preprint_years: set[int | None] = set()  # preprints of these in the pool
        #: paper id -> (snapshot, aliases added) of preprints this import superseded
        self.before: dict[int, tuple[dict[str, Any], list[str]]] = {}
        self.statistics = Statistics(session)  # PostgreSQL's planner, kept current
        serialize_imports(session)
        self.batch_id = session.scalar(
            insert(ImportBatch).values(source=source, format=fmt).returning(ImportBatch.id)
        )
        self.report.batch_id = self.batch_id

    def add(self, records: Iterable[PaperRecord]) -> None:
        """Import one chunk of records (in source order); see :func:`import_records`."""
        self.add_prepared([prepare_record(r) for r in records])

    def add_prepared(self, prepared: list[Prepared]) -> None:
        """Import one chunk of records already passed through :func:`prepare_record`
        (in source order): what :meth:`add` does after that step, which needs no
        database (``readinglist.pipelines.reader_process`` runs it beside the import).

        Per record: a duplicate is merged (or skipped under ``--no-merge``), anything
        else becomes a new paper row; then the chunk is written in bulk.
        """
        if not prepared:
            return
        chunk = _Chunk(Index())
        if self.pool is None:
            self.pool = load_pool(self.session)
        if not self.list_pool and any(p.record.title_provisional for p in prepared):
            # A list of abstracts imported after its bibliography: its papers are
            # complete ones, so those of its years are offered too (once per import).
            self.list_pool = True
            years = {p.record.year for p in prepared if p.record.title_provisional}
            extend_pool(self.session, self.pool, complete_papers_for(self.session, years))
        published = {p.record.year for p in prepared if Version.of_record(p.record).published}
        if published - self.preprint_years:
            # Published versions: the preprints they may supersede, retitled ones too.
            extend_pool_preprints(self.session, self.pool, published - self.preprint_years)
            self.preprint_years |= published
        load_candidates(self.session, prepared, chunk.index, self.pool.cands)
        load_history(self.session, chunk.index.candidates())
        self.keys.prefetch(p.base for p in prepared)
        for item in prepared:
            self._count()
            family = dedupe.first_family(item.record)
            dup, conflict, why = chunk.index.match(
                item.record, item.tkey, item.akey, family, self.batch_id
            )
            if chunk.index.vetoed and dup is None:
                where = f"{self.source}:{item.record.line}" if item.record.line else self.source
                self.report.vetoed += [(where, c.key, r) for c, r in chunk.index.vetoed]
            if dup is None and conflict is None:
                dup, why = self._tolerant(item)
            if dup is not None:
                self._merge(chunk, item.record, dup, why)
            else:
                self._add_new(chunk, item, family, conflict)
        self._write(chunk)

    def _tolerant(self, item: Prepared) -> tuple[Candidate | None, str]:
        """Match ``item`` against the incomplete papers (near-identical abstract or
        title, ``matching.Pool``); report weaker candidates and vetoed look-alikes."""
        assert self.pool is not None
        if not self.pool.cands:
            return None, ""
        record = item.record
        found = self.pool.find(record, item.abstract_words.split(), item.tkey)
        where = f"{self.source}:{record.line}" if record.line else self.source
        for cand, reason in found.vetoed:
            self.report.vetoed.append((where, cand.key, reason))
        if found.merge is not None:
            return found.merge, found.evidence
        for cand, evidence in found.candidates[:1]:
            self.report.candidates.append((where, cand.key, evidence.text))
        return None, ""

    def _count(self) -> None:
        self.handled += 1
        if self.progress is not None and self.handled % 1000 == 0:
            self.progress(self.handled)

    def _merge(self, chunk: _Chunk, record: PaperRecord, dup: Candidate, why: str) -> None:
        """Merge ``record`` into its duplicate ``dup`` (``merging.plan_merge``: fill what
        it lacks, keep the rest, report conflicts; a provisional key becomes real), or
        report it skipped under ``--no-merge``."""
        report = self.report
        if not self.merge:
            where = f"{self.source}:{record.line}" if record.line else self.source
            report.skipped.append((where, dup.key))
            return
        if self.pool is not None:
            self.pool.remove(dup.paper_id)
        tags = [*record.tags, *self.extra_tags]
        before = Version.of_values(dup.values)
        # The preprint as it was (``import --undo`` puts it back): taken when loaded.
        snapshot = dup.before if dup.paper_id not in self.before else None
        if dup.paper_id is not None and dup.history is None:
            load_history(self.session, [dup])
        plan = merge_into(dup, record)
        if plan.supersede and snapshot is not None and dup.paper_id is not None:
            self.before[dup.paper_id] = (snapshot, [])
        where = f"{self.source}:{record.line}" if record.line else self.source
        found = version_rows(record, dup, before, where)
        plan.conflicts = new_history(dup, [*plan.conflicts, *found])
        filled = list(plan.filled)
        target: Target | None = dup.paper_id if dup.paper_id is not None else dup.pending
        if plan.values and dup.pending is not None:
            dup.pending["_refresh"] = True
        if plan.people and dup.pending is not None:
            dup.pending["_people"] = {**dup.pending.get("_people", {}), **plan.people}
        if dup.paper_id is not None:
            if plan.values:
                names = chunk.merged.setdefault(dup.paper_id, (dup, set()))[1]
                names.update(plan.values)
            if plan.people:
                people = PaperRecord(
                    authors=plan.people.get("authors", ()), editors=plan.people.get("editors", ())
                )
                chunk.people.append((dup.paper_id, people))
        if plan.real and dup.paper_id is not None:
            filled.append(self._rekey(chunk, record, dup))
        if plan.conflicts and target is not None:
            chunk.conflicts.append((target, plan.conflicts, dup.key))
        wanted = {fold(t) for t in tags} - dup.tags
        if filled or wanted:
            report.merged.append((dup.key, filled + (["tags"] if wanted else [])))
            report.evidence[dup.key] = why
            dup.tags |= wanted
            if dup.paper_id is not None and wanted:
                chunk.tag_links.append((dup.paper_id, tags))
            elif dup.pending is not None and wanted:
                chunk.tag_links.append((dup.pending, tags))
                chunk.tagged_pending.append(dup.pending)
        else:
            report.present.append(dup.key)
        count = len(chunk.aliases)
        self._alias(record, dup, chunk.aliases)
        if dup.paper_id in self.before:
            self.before[dup.paper_id][1].extend(key for _, key in chunk.aliases[count:])

    def _rekey(self, chunk: _Chunk, record: PaperRecord, dup: Candidate) -> str:
        """Give the provisional paper ``dup`` a real key: ``record``'s own when usable and
        free, else one generated from its completed data; the old key becomes an alias."""
        assert dup.paper_id is not None
        given = record.citekey if record.citekey and citekeys.is_valid_key(record.citekey) else None
        if given and not self.keys.taken(given.lower(), given):
            new = given
        else:
            completed = replace(
                record,
                title=dup.title,
                year=dup.year or record.year,
                authors=dup.authors or record.authors,
                citekey=None,
            )
            base = citekeys.base_key(completed)
            self.keys.prefetch([base])
            new = citekeys.unique_key(base, lambda folded: self.keys.taken(folded, base))
        self.keys.claim(new)
        old = dup.key
        chunk.rekeys.append((dup.paper_id, old, new))
        self.report.rekeyed.append((old, new))
        dup.key = new
        dup.values["citekey_provisional"] = False
        return "key"

    def _add_new(
        self, chunk: _Chunk, item: Prepared, family: str, conflict: Candidate | None
    ) -> None:
        """Make ``item`` a new paper row of ``chunk`` under a free key (a warning when it
        shares an identifier with ``conflict``, a paper with another title)."""
        record = item.record
        if conflict is not None:
            self.report.problems.append(
                ParseProblem(
                    f"shares an identifier with {conflict.key!r} but the titles differ; "
                    "imported as a separate paper",
                    self.source,
                    record.line,
                    "warning",
                )
            )
        key = choose_key(record, self.keys, self.report.problems, self.source, item.base)
        # A record keeps its source text only under its own key.
        final = record if key == record.citekey else replace(record, citekey=key, source_text=None)
        all_tags = list(dict.fromkeys([*record.tags, *self.extra_tags]))
        row = self._new_row(item, final, keep_source=final.source_text is not None)
        row["search_text"] = search_text_prepared(item, final, all_tags)
        chunk.new_rows.append(row)
        chunk.new_records.append(final)
        if all_tags:
            chunk.tag_links.append((row, all_tags))
        self._claim_aliases(record.aliases, key, row, chunk.aliases)
        cand = Candidate(
            None,
            key,
            final.title,
            final.year,
            family,
            row,
            {fold(t) for t in all_tags},
            row,
            self.batch_id,
            final.authors,
            final.editors,
        )
        chunk.index.add(cand, final.doi, final.arxiv, item.tkey, item.akey, [record.citekey, key])
        self.report.added.append(key)
        if final.year is None:
            self.report.undated.append(key)

    def _new_row(self, item: Prepared, final: PaperRecord, *, keep_source: bool) -> dict[str, Any]:
        """The ``papers`` row of a new paper ``final`` (``item``'s record under its key)."""
        key = final.citekey or ""
        return {
            "citekey": key,
            "citekey_folded": key.lower(),
            "entry_type": final.entry_type,
            "title_key": item.tkey,
            "abstract_key": item.akey,
            "fields": dict(final.fields),
            "source_text": final.source_text,
            "source_digest": bibliographic_digest(final) if keep_source else None,
            "source_check": final.source_check if keep_source else None,
            "source_strings_read": final.strings_read if keep_source else None,
            # The data is the text's until something changes it (migration 0005).
            "source_intact": True if keep_source and still_as_read(final) else None,
            "citekey_provisional": final.citekey_provisional
            or (
                citekeys.is_provisional_key(final)
                and (key != item.record.citekey or final.title_provisional)
            ),
            "added_at": self.now,
            "updated_at": self.now,
            "batch_id": self.batch_id,
            **record_values(final),
        }

    def _write_statuses(self, ids: Sequence[int], records: Sequence[PaperRecord]) -> None:
        """Give the new papers ``ids`` the statuses their ``records`` carry (a list's),
        as the current reader's decisions without history (a first status)."""
        decided = {
            pid: record.status
            for pid, record in zip(ids, records, strict=True)
            if record.status and record.status != "new"
        }
        if decided:
            import_statuses(self.session, decided, at=self.now)

    def _write(self, chunk: _Chunk) -> None:
        """Write what the chunk decided: new papers with people and tags, merges
        (columns, people, the merge history, real keys), aliases."""
        session = self.session
        for index, (row, final) in enumerate(zip(chunk.new_rows, chunk.new_records, strict=True)):
            people = row.pop("_people", None)
            if people:  # a later record of the chunk brought people it lacked
                final = chunk.new_records[index] = replace(final, **people)
                row["source_intact"] = None  # no longer the text's data
            if row.pop("_refresh", False):  # a later record of the chunk filled it
                row["source_intact"] = None
                filled_record = replace(
                    final,
                    **{k: row[k] for k in FILLABLE if k != "keywords"},
                    keywords=split_keywords(row["keywords"]),
                )
                row["abstract_key"] = dedupe.abstract_key(row["abstract"])
                row["search_text"] = search_text_for(filled_record, [*final.tags, *self.extra_tags])
        ids = insert_papers(session, chunk.new_rows)
        for row, paper_id in zip(chunk.new_rows, ids, strict=True):
            row["id"] = paper_id
        self._write_statuses(ids, chunk.new_records)
        insert_people(session, chunk.new_records, ids, self.person_ids, new_papers=True)
        apply_merges(session, chunk.merged)
        if chunk.people:
            unlink_people(
                session,
                [(i, role) for i, r in chunk.people for role in PEOPLE if getattr(r, role)],
            )
            insert_people(
                session, [r for _, r in chunk.people], [i for i, _ in chunk.people], self.person_ids
            )
        if len(self.person_ids) > PERSON_CACHE:  # bounded memory on huge files
            self.person_ids.clear()
        self._write_conflicts(chunk)
        update_many(
            session,
            {
                ("citekey", "citekey_folded", "citekey_provisional", "source_intact"): [
                    {
                        "b_id": paper_id,
                        "b_citekey": new,
                        "b_citekey_folded": new.lower(),
                        "b_citekey_provisional": False,
                        "b_source_intact": None,  # a new key: not the text's data
                    }
                    for paper_id, _, new in chunk.rekeys
                ]
            },
        )
        chunk.aliases.extend((paper_id, old) for paper_id, old, _ in chunk.rekeys)
        follow_crossrefs(session, {old: new for _, old, new in chunk.rekeys})
        link_tags(session, chunk.tag_links)
        if chunk.aliases:
            session.execute(
                insert(Alias),
                [
                    {"alias_folded": key.lower(), "alias": key, "paper_id": _target_id(target)}
                    for target, key in chunk.aliases
                ],
            )
        # A paper of this chunk that a later record of it gave more tags: its search text
        # is computed again from the database, like that of any paper merged into.
        touched = set(chunk.merged) | {i for i, _ in chunk.people}
        touched |= {t for t, _ in chunk.tag_links if isinstance(t, int)}
        touched |= {row["id"] for row in chunk.tagged_pending}
        if touched:
            refresh_search_text(session, touched)
        # Last, so that the papers' people and tags are in the sample too (_sql.ANALYZED).
        self.statistics.grew(len(ids))

    def _write_conflicts(self, chunk: _Chunk) -> None:
        """Record the chunk's merge conflicts in the merge history; report those the
        history did not hold already (by paper and field, the version field aside)."""
        rows = [
            row
            for target, conflicts, _ in chunk.conflicts
            for row in conflict_rows(_target_id(target), conflicts, self.source)
        ]
        fresh = {(row["paper_id"], row["field"]) for row in write_conflicts(self.session, rows)}
        for target, conflicts, key in chunk.conflicts:
            names = [
                name
                for name, _ in conflicts
                if name != VERSION_FIELD and (_target_id(target), name) in fresh
            ]
            if names:
                self.report.conflicts.append((key, names))

    def _alias(
        self, record: PaperRecord, dup: Candidate, aliases: list[tuple[Target, str]]
    ) -> None:
        """Keep a merged duplicate's own citation key as an alias of the paper it went
        into (when the key is valid and used by no paper or alias), so that a document
        citing it still resolves (``show``, ``export --aux``)."""
        target = dup.paper_id if dup.paper_id is not None else dup.pending
        if target is not None:
            self._claim_aliases((record.citekey or "", *record.aliases), dup.key, target, aliases)

    def _claim_aliases(
        self, keys: Iterable[str], own: str, target: Target, aliases: list[tuple[Target, str]]
    ) -> None:
        """Make each of ``keys`` (a merged record's key, a record's biblatex ``ids``) an
        alias of ``target`` (whose key is ``own``) when it is a valid key used by no
        paper or alias; the others are left out."""
        for key in keys:
            if not key or not citekeys.is_valid_key(key) or key.lower() == own.lower():
                continue
            if self.keys.taken(key.lower(), key):
                continue
            self.keys.claim(key)
            aliases.append((target, key))

    def finish(
        self, problems: Sequence[ParseProblem] = (), meta: Mapping[str, str] | None = None
    ) -> ImportReport:
        """Record the batch's counts and return the report.

        ``problems`` are the reader's (warnings and rejections, in source order); they
        come first in ``report.problems``, before the import's own warnings. ``meta``
        is the reader's ``ParseResult.meta``: its ``"strings"`` and ``"preamble"``
        (BibTeX ``@string`` / ``@preamble`` text) are kept with the batch, so that an
        export can copy the entries that use those macros byte for byte (issue 4).
        """
        report = self.report
        report.problems = [*problems, *report.problems]
        meta = meta or {}
        self.session.execute(
            update(ImportBatch)
            .where(ImportBatch.id == self.batch_id)
            .values(
                added=len(report.added),
                merged=len(report.merged),
                rejected=report.rejected,
                # PostgreSQL text cannot hold NUL (records are cleaned the same way).
                bibtex_strings=(meta.get("strings") or "").replace("\x00", "") or None,
                bibtex_preamble=(meta.get("preamble") or "").replace("\x00", "") or None,
            )
        )
        remember_superseded(self.session, self.before, self.batch_id, self.source)
        # Issue 18 (undo): what this batch did to papers it added itself (a later
        # duplicate from the same input merged in) is not "worked on since".
        self.session.execute(
            update(Paper)
            .where(Paper.batch_id == self.batch_id, Paper.updated_at != Paper.added_at)
            .values(updated_at=Paper.added_at)
        )
        if self.progress is not None:
            self.progress(self.handled)
        return report
