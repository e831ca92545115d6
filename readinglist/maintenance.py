"""Keeping the library sound: integrity checks and repair, backups and restores.

* :func:`check` verifies a database at the newest revision: the schema revision,
  foreign keys (SQLite ``PRAGMA foreign_key_check``; PostgreSQL: one orphan query
  per foreign key of the models), the full-text index (SQLite: FTS5's
  ``integrity-check`` against the external content, the ``paper_fts`` rows and
  triggers; PostgreSQL: the generated ``search_vector`` column and its GIN index)
  and every paper's ``search_text`` recomputed from its data.
  :func:`repair` fixes what can be fixed: stale ``search_text`` and the index.
* :func:`backup` and :func:`restore` copy whole SQLite files with SQLite's online
  backup API (https://sqlite.org/backup.html) so that other processes may keep
  working; a PostgreSQL server is backed up with ``pg_dump`` instead (a hint).
* Showing and taking back imports (``import --list-batches``/``--undo``) lives in
  :mod:`readinglist.batches`.

Functions take a Session (inside the caller's transaction; they never commit) or,
for whole-file operations, an Engine. They raise ReadingListError subclasses and
never print.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import exists, func, select, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from readinglist import db, library, schema_objects
from readinglist.errors import (
    Conflict,
    DatabaseError,
    InvalidInput,
    UsageError,
    input_error,
)
from readinglist.models import (
    Base,
    Paper,
)
from readinglist.text import counted, plural

#: Papers loaded at once while recomputing search text (bounds memory on big libraries).
CHECK_CHUNK = 2000
#: The triggers that keep SQLite's ``paper_fts`` in step with ``papers`` (migration 0001).
FTS_TRIGGERS = ("paper_fts_ai", "paper_fts_ad", "paper_fts_au")
#: Magic string at the start of every SQLite 3 database file (https://sqlite.org/fileformat.html).
SQLITE_HEADER = b"SQLite format 3\x00"
#: Keys named in a message before it says "and N more".
SHOW_KEYS = 10


# --- integrity check ------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check.

    ``name`` is one of ``schema``, ``foreign-keys``, ``full-text-index``,
    ``search-text``; ``detail`` says what was checked; ``faults`` is empty when
    the check passed; ``repairable`` says whether :func:`repair` fixes the faults.
    """

    name: str
    detail: str
    faults: tuple[str, ...] = ()
    repairable: bool = False

    @property
    def ok(self) -> bool:
        """True when the check found no fault."""
        return not self.faults


@dataclass
class CheckReport:
    """All check results, in order, and the repairs made (``repaired``, human phrases)."""

    results: list[CheckResult] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return all(r.ok for r in self.results)

    @property
    def fault_count(self) -> int:
        """Number of faults over all checks."""
        return sum(len(r.faults) for r in self.results)

    @property
    def repairable(self) -> bool:
        """True when every failed check can be repaired by :func:`repair`."""
        return all(r.ok or r.repairable for r in self.results)

    def as_json(self) -> dict[str, Any]:
        """Return ``{"ok", "checks": [{"name", "ok", "detail", "faults", "repairable"}], "repaired"}``."""
        return {
            "ok": self.ok,
            "checks": [
                {
                    "name": r.name,
                    "ok": r.ok,
                    "detail": r.detail,
                    "faults": list(r.faults),
                    "repairable": r.repairable,
                }
                for r in self.results
            ],
            "repaired": list(self.repaired),
        }


def check(session: Session) -> CheckReport:
    """Check the database of ``session``; return a report (never raises for a fault found).

    The schema revision is checked first; when it is not the newest one the
    other checks are skipped (they assume the newest schema). Costs one pass
    over all papers with their people, tags and notes (the search-text check).
    """
    report = CheckReport()
    schema = _check_schema(session)
    report.results.append(schema)
    if not schema.ok:
        return report
    if session.get_bind().dialect.name == "sqlite":
        pages = _check_sqlite_pages(session)
        report.results.append(pages)
        if not pages.ok:  # the checks below could fail on the damaged pages
            return report
    report.results.append(_check_objects(session))
    report.results.append(_check_foreign_keys(session))
    report.results.append(_check_full_text_index(session))
    stale = stale_search_text(session)
    report.results.append(
        CheckResult(
            "search-text",
            "search text of every paper recomputed from its data, tags and notes",
            (
                f"{counted(len(stale), 'paper')} {plural(len(stale), 'has', 'have')} stale "
                f"search text: {_keys(session, stale)}",
            )
            if stale
            else (),
            repairable=True,
        )
    )
    return report


def _check_schema(session: Session) -> CheckResult:
    revision = db.current_revision(session.connection())
    if revision is None:
        fault = "no readinglist schema: the database is empty"
    elif revision not in db.KNOWN_REVISIONS:
        fault = (
            f"schema revision {revision!r} is unknown to this version (which knows up to "
            f"{db.HEAD}); it was probably written by a newer version"
        )
    elif revision != db.HEAD:
        fault = f"schema is at revision {revision}, head is {db.HEAD}: run `readinglist db upgrade`"
    else:
        return CheckResult("schema", f"revision {revision} (head)")
    return CheckResult("schema", "schema revision", (fault,))


def _check_objects(session: Session) -> CheckResult:
    """Tables, views, triggers and rules readinglist does not create
    (:mod:`readinglist.schema_objects`): not repaired here (remove them or restore)."""
    unknown = schema_objects.unknown_objects(session.connection())
    faults = tuple(f"{what}: not created by readinglist; remove it" for what in unknown)
    return CheckResult("schema-objects", "no table, view, trigger or rule but ours", faults)


def _check_sqlite_pages(session: Session) -> CheckResult:
    """``PRAGMA integrity_check``: every page, index and constraint of the SQLite file
    (https://sqlite.org/pragma.html#pragma_integrity_check). A damaged index page
    passes every other check (issue 18); it is not repaired here: restore a backup."""
    # On its own read-only connection: a damaged page can leave the connection that met
    # it unable even to commit, and the session's transaction must end cleanly.
    path = db.sqlite_path(session.get_bind().engine)
    try:
        conn = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro" if path else ":memory:", uri=True
        )
        try:
            rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check(20)")]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        rows = [str(exc)]
    faults: tuple[str, ...] = ()
    if rows != ["ok"]:
        lines = [x for row in rows for x in row.splitlines() if x and not x.startswith("***")]
        shown = "; ".join(lines[:3]) + (f" and {len(lines) - 3} more" if len(lines) > 3 else "")
        faults = (f"the database file is damaged ({shown}): restore a backup",)
    return CheckResult("sqlite-integrity", "PRAGMA integrity_check of every page and index", faults)


def _check_foreign_keys(session: Session) -> CheckResult:
    """Find rows whose foreign key points at no row (links left by a broken write)."""
    counts: Counter[tuple[str, str]] = Counter()
    if session.get_bind().dialect.name == "sqlite":
        detail = "PRAGMA foreign_key_check"
        for row in session.execute(text("PRAGMA foreign_key_check")):
            counts[(str(row[0]), str(row[2]))] += 1
    else:
        detail = "orphan rows, one query per foreign key"
        for table in Base.metadata.sorted_tables:
            for fk in table.foreign_key_constraints:
                (column,) = fk.columns
                (element,) = fk.elements
                parent = element.column
                orphan = (
                    select(func.count())
                    .select_from(table)
                    .where(
                        column.is_not(None),
                        ~exists().where(parent == column),
                    )
                )
                found = int(session.scalar(orphan) or 0)
                if found:
                    counts[(table.name, parent.table.name)] += found
    faults = tuple(
        f"{n} rows of {child} refer to missing rows of {parent}"
        for (child, parent), n in sorted(counts.items())
    )
    return CheckResult("foreign-keys", detail, faults)


def _check_full_text_index(session: Session) -> CheckResult:
    if session.get_bind().dialect.name == "sqlite":
        return _check_fts5(session)
    return _check_tsvector(session)


def _check_fts5(session: Session) -> CheckResult:
    faults: list[str] = []
    triggers = set(
        session.scalars(
            text("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'papers'")
        )
    )
    missing = [name for name in FTS_TRIGGERS if name not in triggers]
    if missing:
        faults.append(
            f"triggers {', '.join(missing)} are missing: the index no longer follows the "
            "papers (restore a backup or re-create them as migration 0001 does)"
        )
    unindexed = list(
        session.scalars(
            text(
                "SELECT p.id FROM papers p LEFT JOIN paper_fts_docsize d ON d.id = p.id "
                "WHERE d.id IS NULL ORDER BY p.id"
            )
        )
    )
    if unindexed:
        faults.append(
            f"{counted(len(unindexed), 'paper')} {plural(len(unindexed), 'is', 'are')} "
            f"not indexed: {_keys(session, unindexed)}"
        )
    extra = int(
        session.scalar(
            text(
                "SELECT count(*) FROM paper_fts_docsize d "
                "WHERE NOT EXISTS (SELECT 1 FROM papers p WHERE p.id = d.id)"
            )
        )
        or 0
    )
    if extra:
        faults.append(
            f"{counted(extra, 'index entry', 'index entries')} "
            f"{plural(extra, 'belongs', 'belong')} to no paper"
        )
    # 'integrity-check' with rank 1 also compares the index with the external content
    # table (FTS5 docs, "The 'integrity-check' Command"); it fails with SQLITE_CORRUPT_VTAB.
    try:
        with session.begin_nested():
            session.execute(
                text("INSERT INTO paper_fts(paper_fts, rank) VALUES ('integrity-check', 1)")
            )
    except DBAPIError as exc:
        message = str(exc.orig).strip() if exc.orig else str(exc)
        faults.append(f"FTS5 integrity-check failed ({message}): the index is out of step")
    repairable = not missing
    return CheckResult(
        "full-text-index",
        "FTS5 paper_fts: integrity-check against papers, one entry per paper, triggers",
        tuple(faults),
        repairable=repairable,
    )


def _check_tsvector(session: Session) -> CheckResult:
    faults: list[str] = []
    column = session.scalar(
        text(
            "SELECT generation_expression FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = 'papers' "
            "AND column_name = 'search_vector'"
        )
    )
    index = session.scalar(
        text(
            "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() "
            "AND indexname = 'ix_papers_search_vector'"
        )
    )
    if column is None:
        faults.append("column papers.search_vector is missing")
    else:
        stale = int(
            session.scalar(
                text(
                    "SELECT count(*) FROM papers "
                    "WHERE search_vector IS DISTINCT FROM to_tsvector('simple', search_text)"
                )
            )
            or 0
        )
        if stale:
            faults.append(
                f"{counted(stale, 'paper')} {plural(stale, 'has', 'have')} a search_vector "
                "that differs from search_text"
            )
    if not index:
        faults.append("GIN index ix_papers_search_vector is missing")
    return CheckResult(
        "full-text-index",
        "generated tsvector column papers.search_vector and its GIN index",
        tuple(faults),
        repairable=column is not None,
    )


def _papers_in_chunks(session: Session) -> Iterator[list[Paper]]:
    ids = list(session.scalars(select(Paper.id).order_by(Paper.id)))
    for start in range(0, len(ids), CHECK_CHUNK):
        papers = library.load_papers(session, ids[start : start + CHECK_CHUNK])
        yield papers
        for paper in papers:
            session.expunge(paper)


def stale_search_text(session: Session) -> list[int]:
    """Return the ids of papers whose stored ``search_text`` differs from a recomputation.

    The expected text is what ``library.refresh_search_text`` would write
    (``library.paper_search_text``: the paper's record, tags and notes).
    """
    stale: list[int] = []
    for papers in _papers_in_chunks(session):
        stale.extend(p.id for p in papers if p.search_text != library.paper_search_text(p))
    return stale


def _keys(session: Session, ids: Sequence[int]) -> str:
    shown = list(ids[:SHOW_KEYS])
    query = select(Paper.id, Paper.citekey).where(Paper.id.in_(shown))
    keys = {paper_id: key for paper_id, key in session.execute(query).tuples()}  # noqa: C416 (dict(result) reads Result.keys() as a mapping)
    names = ", ".join(str(keys.get(i, f"#{i}")) for i in shown)
    return names + (f" and {len(ids) - len(shown)} more" if len(ids) > len(shown) else "")


def repair(session: Session) -> list[str]:
    """Recompute stale ``search_text`` and rebuild the full-text index; return what was done.

    SQLite: ``INSERT INTO paper_fts(paper_fts) VALUES('rebuild')`` (FTS5 docs, "The
    'rebuild' Command"). PostgreSQL: ``REINDEX`` of the GIN index (created when
    missing); the ``tsvector`` column is generated, so it follows ``search_text``.
    ``updated_at`` is left alone: a repair is not an edit. Faults of foreign keys
    and missing triggers are not repaired (they need a person to decide).

    Raises DatabaseError (exit 6), changing nothing, when the schema is not this
    version's newest (an older one: "run `readinglist db upgrade`"; an unknown or
    missing one: refused) or the SQLite file is damaged (issue 18).
    """
    schema = _check_schema(session)
    if not schema.ok:
        raise DatabaseError(f"not repaired: {schema.faults[0]}")
    if session.get_bind().dialect.name == "sqlite":
        pages = _check_sqlite_pages(session)
        if not pages.ok:
            raise DatabaseError(f"not repaired: {pages.faults[0]}")
    done: list[str] = []
    stale = stale_search_text(session)
    for start in range(0, len(stale), CHECK_CHUNK):
        for paper in library.load_papers(session, stale[start : start + CHECK_CHUNK]):
            session.execute(
                update(Paper)
                .where(Paper.id == paper.id)
                .values(search_text=library.paper_search_text(paper), updated_at=Paper.updated_at)
            )
    if stale:
        done.append(f"recomputed the search text of {counted(len(stale), 'paper')}")
    if session.get_bind().dialect.name == "sqlite":
        session.execute(text("INSERT INTO paper_fts(paper_fts) VALUES ('rebuild')"))
        done.append("rebuilt the FTS5 index paper_fts")
    else:
        session.execute(
            text(
                "CREATE INDEX IF NOT EXISTS ix_papers_search_vector ON papers "
                "USING gin (search_vector)"
            )
        )
        session.execute(text("REINDEX INDEX ix_papers_search_vector"))
        done.append("rebuilt the GIN index ix_papers_search_vector")
    db.expunge_all(session)
    return done


# --- backups ----------------------------------------------------------------------------------


def _pg_hint(engine: Engine, action: str) -> str:
    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=True)
    if action == "backup":
        return (
            "backups of a PostgreSQL database are made with pg_dump, e.g. "
            f"pg_dump --format=custom --file=readinglist.dump '{url}'"
        )
    return (
        "a PostgreSQL database is restored with pg_restore, e.g. "
        f"pg_restore --clean --if-exists --dbname='{url}' readinglist.dump"
    )


def _database_file(engine: Engine, action: str) -> Path:
    path = db.sqlite_path(engine)
    if path is None:
        if engine.dialect.name == "sqlite":
            raise UsageError(f"cannot {action} an in-memory database")
        raise UsageError(_pg_hint(engine, action))
    return path


#: Files SQLite keeps beside ``X.db``: a backup named ``X.db-wal`` would be taken as the
#: journal of ``X.db`` when it is next opened, so no backup gets such a name (issue 18).
_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def backup(engine: Engine, target: Path | None = None, *, folder: bool = False) -> Path:
    """Copy the SQLite database of ``engine`` to ``target`` with the online backup API.

    ``target`` None (or an existing directory) means a new ``<name>.<UTC time>.bak``
    file beside the database (or in that directory). ``folder`` True (the user wrote
    ``missing/dir/``, with a trailing slash) makes ``target`` a directory, created
    when missing, never a file of that name (issue 18). Returns the backup's path.

    Raises:
        UsageError: a PostgreSQL engine (the message shows the ``pg_dump`` command),
            ``target`` is the database itself, or its name ends in ``-wal``, ``-shm``
            or ``-journal`` (exit 2).
        DatabaseError: there is no database file yet (exit 6).
        Conflict: ``target`` exists and is not a directory (exit 4; never overwritten).
        DatabaseError: the database file is damaged or not a database, or the
            destination cannot be written (exit 6; nothing is left behind).
    """
    path = _database_file(engine, "backup")
    if not path.exists():
        raise DatabaseError(f"no database file at {path}")
    if target is not None and target.name.endswith(_SQLITE_COMPANIONS):
        raise UsageError(
            f"{target}: a name SQLite keeps for a database's journal "
            f"({', '.join(_SQLITE_COMPANIONS)}); name another file"
        )
    if target is None:
        target = db.backup_path(path)
    elif folder and not target.is_dir():
        if target.exists():
            raise Conflict(f"{target} exists and is not a folder")
        target = db.backup_path(path, directory=target)
    elif target.is_dir():
        target = db.backup_path(path, directory=target)
    elif target.exists():
        if target.resolve() == path.resolve():
            raise UsageError(f"{target} is the database itself; name another file")
        raise Conflict(f"{target} exists; not overwritten (name a new file)")
    return db.backup_sqlite(path, target)


def inspect_backup(source: Path) -> str:
    """Check that ``source`` is an intact SQLite file holding our schema; return its revision.

    Raises:
        InvalidInput: missing or unreadable; not an SQLite database; damaged
            (``PRAGMA quick_check``); not a readinglist library (exit 5).
        DatabaseError: a schema revision this version does not know (exit 6).
    """
    name = str(source)
    try:
        with source.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise input_error(exc, name, "database file") from None
    if header != SQLITE_HEADER:
        raise InvalidInput("not an SQLite database file (no SQLite header)", name)
    try:
        conn = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise InvalidInput(f"cannot open the database ({exc})", name) from None
    try:
        status = conn.execute("PRAGMA quick_check").fetchone()[0]
        if status != "ok":
            raise InvalidInput(f"the database is damaged (quick_check: {status})", name)
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if not {"alembic_version", "papers"} <= tables:
            raise InvalidInput("an SQLite database, but not a readinglist library", name)
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        unknown = schema_objects.unknown_in_file(conn)
    except sqlite3.DatabaseError as exc:
        raise InvalidInput(f"the database is damaged ({exc})", name) from None
    finally:
        conn.close()
    if row is None:
        raise InvalidInput("a readinglist library without a schema revision", name)
    if unknown:
        raise InvalidInput(
            "holds objects readinglist does not create "
            f"({schema_objects.describe(unknown)}); not restored",
            name,
        )
    revision = str(row[0])
    if revision not in db.KNOWN_REVISIONS:
        raise DatabaseError(
            f"{name}: schema revision {revision!r} is unknown to this version (which knows "
            f"up to {db.HEAD}); it was probably written by a newer version; not restored"
        )
    return revision


@dataclass(frozen=True)
class RestoreReport:
    """What :func:`restore` did: the file restored, its revision, and where the
    database as it was before is kept (None when there was no database yet)."""

    source: Path
    database: Path
    revision: str
    previous: Path | None


def restore(engine: Engine, source: Path) -> RestoreReport:
    """Replace the SQLite database of ``engine`` by the backup ``source``.

    ``source`` is checked first (:func:`inspect_backup`); the current database is
    then backed up beside itself (:func:`db.backup_path`), and the content replaced in
    one step through the online backup API, which holds the write lock while it
    copies, so other processes see the old library or the new one, never a mix.
    A backup at an older known revision is upgraded on next use.

    Raises UsageError (PostgreSQL: the ``pg_restore`` hint; ``source`` is the
    database itself), InvalidInput and DatabaseError as :func:`inspect_backup`.
    """
    path = _database_file(engine, "restore")
    revision = inspect_backup(source)
    if path.exists() and source.resolve() == path.resolve():
        raise UsageError(f"{source} is the database itself")
    previous = None
    if path.exists() and path.stat().st_size > 0:
        previous = db.backup_sqlite(path, db.backup_path(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(path, timeout=db.busy_timeout_ms() / 1000)
        try:
            src.backup(dst)
        finally:
            dst.close()
    except sqlite3.Error as exc:
        raise DatabaseError(f"restore from {source} failed ({exc}); nothing changed") from None
    finally:
        src.close()
    return RestoreReport(source, path, revision, previous)
