"""Engines, sessions and the schema: the only module that creates engines or imports Alembic.

* :func:`make_engine` configures SQLite for concurrent use (WAL, a busy timeout,
  foreign keys, and ``BEGIN IMMEDIATE`` for write transactions, per the SQLite
  dialect docs' "Serializable isolation / Savepoints / Transactional DDL" recipe).
* :func:`session_scope` (an ORM Session) and :func:`connection_scope` (a Core
  Connection) are one transaction: commit on success, rollback on error. This module
  imports ``sqlalchemy.orm`` only inside :func:`session_scope`, so a command on Core
  rows never loads it (issue 17: ~80 ms CPU).
* :func:`ensure_schema` creates a new database at the newest revision, upgrades an
  older one (SQLite: after an online backup beside it) and refuses one it does not
  know. It reads the revision with plain SQL, so a database already at head never
  imports Alembic (issue 9: Alembic costs ~1 s of start-up).
"""

from __future__ import annotations

import gc
import os
import sqlite3
import stat
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DatabaseError as SQLAlchemyDatabaseError
from sqlalchemy.exc import OperationalError

from readinglist import schema
from readinglist.errors import DatabaseError

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy.orm import Session

#: Every revision this code knows, oldest first, and the head (:mod:`readinglist.schema`).
KNOWN_REVISIONS: tuple[str, ...] = schema.KNOWN_REVISIONS
HEAD = KNOWN_REVISIONS[-1]
#: How long an SQLite writer waits for another one's lock, in milliseconds, unless
#: ``READINGLIST_BUSY_TIMEOUT`` (seconds) says otherwise (:func:`busy_timeout_ms`).
BUSY_TIMEOUT_MS = 60_000
#: Bytes of write-ahead log an SQLite library keeps on disk after a write
#: (``PRAGMA journal_size_limit``, and :func:`shrink_wal` after a larger commit): the
#: size of SQLite's default auto-checkpoint, 1,000 pages of 4 KiB.
WAL_KEEP_BYTES = 4 * 1024 * 1024
#: Key of the PostgreSQL advisory lock that serialises schema creation and upgrades.
_PG_SCHEMA_LOCK = 7_312_001


def busy_timeout_ms() -> int:
    """How long an SQLite writer waits for the write lock: :data:`BUSY_TIMEOUT_MS`, or
    ``READINGLIST_BUSY_TIMEOUT`` seconds when set to a positive number.

    SQLite has one writer at a time and an import is one transaction (all or
    nothing), so a ``mark`` during a long import waits for it; after this long it
    fails with :func:`locked_message` (exit 6) instead of waiting on (issue 18).
    PostgreSQL writers of different rows do not wait for each other.
    """
    value = os.environ.get("READINGLIST_BUSY_TIMEOUT", "").strip()
    try:
        seconds = float(value)
    except ValueError:
        return BUSY_TIMEOUT_MS
    return int(seconds * 1000) if seconds > 0 else BUSY_TIMEOUT_MS


def locked_message(timeout_ms: int | None = None) -> str:
    """The message for a write that waited for SQLite's lock in vain."""
    seconds = (timeout_ms if timeout_ms is not None else busy_timeout_ms()) / 1000
    return (
        f"the library is busy: another readinglist process (an import?) has held the write "
        f"lock for more than {seconds:g} s; try again when it has finished, or set "
        "READINGLIST_BUSY_TIMEOUT (seconds) to wait longer (database is locked)"
    )


_FILE_URI = "{}: SQLite 'file:' URIs are not read; give the library's path (or sqlite:///PATH)"


def make_engine(url: str) -> Engine:
    """Create an engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``).

    SQLite: the file's directory is created; each connection gets
    ``journal_mode=WAL``, ``busy_timeout``, ``foreign_keys=ON``; transactions start
    with ``BEGIN`` or, on an engine from :func:`writer`, ``BEGIN IMMEDIATE``.
    Raises DatabaseError for a URL SQLAlchemy cannot use.
    """
    if url.lower().startswith("file:"):
        raise DatabaseError(_FILE_URI.format(url))
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise DatabaseError(f"not a database URL or path: {url!r}") from exc
    if parsed.get_backend_name() != "sqlite":
        try:
            return create_engine(parsed, pool_pre_ping=False)
        except Exception as exc:
            raise DatabaseError(f"cannot use database {parsed!r}: {exc}") from exc
    if parsed.database and parsed.database != ":memory:":
        _check_sqlite_path(Path(parsed.database))
        folder = Path(parsed.database).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise DatabaseError(f"cannot create the folder of {parsed.database}: {reason}") from exc
    timeout_ms = busy_timeout_ms()
    engine = create_engine(parsed, connect_args={"timeout": timeout_ms / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {timeout_ms}")
            _set_wal(cursor, timeout_ms)
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute(f"PRAGMA journal_size_limit = {WAL_KEEP_BYTES}")
        except sqlite3.OperationalError as exc:
            if _contended(exc):
                raise DatabaseError(locked_message(timeout_ms)) from None
            raise DatabaseError(not_a_database(parsed.database or "", exc)) from None
        except sqlite3.DatabaseError as exc:
            # A text file or a truncated library: one line (exit 6) for every command,
            # including `db current/upgrade/check/backup`, not a traceback (issue 18).
            raise DatabaseError(not_a_database(parsed.database or "", exc)) from None
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "")
        conn.exec_driver_sql(f"BEGIN {mode}".strip())

    return engine


def _set_wal(cursor: Any, timeout_ms: int) -> None:
    """Switch the connection's database to WAL, retrying while another connection holds
    the lock: switching the journal mode of a new file can fail at once with "database
    is locked" without waiting for the busy timeout (seen with 8 processes opening one new
    library together), which is contention, not a damaged file. Gives up after
    ``timeout_ms`` and raises the last ``sqlite3.OperationalError``."""
    deadline = time.monotonic() + timeout_ms / 1000
    delay = 0.01
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if not _contended(exc) or time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


def _contended(exc: sqlite3.OperationalError) -> bool:
    """True for SQLite's "database is locked"/"busy": another connection holds the lock."""
    return "locked" in str(exc) or "busy" in str(exc)


def _check_sqlite_path(path: Path) -> None:
    """Refuse an SQLite path that cannot be a library file, before SQLite touches it.

    ``--db /dev/null`` (or any device, FIFO or socket) would make SQLite write
    ``/dev/null-journal`` beside it and then fail with "disk I/O error"; a ``file:``
    URI (``file:/tmp/x.db``, SQLite's URI form, which readinglist does not read) would be
    taken as a relative path and create folders named ``file:``. Both exit 6 with one
    line (issue 18). Raises DatabaseError.
    """
    uri = next((i for i, part in enumerate(path.parts) if part.lower().startswith("file:")), None)
    if uri is not None:
        raise DatabaseError(_FILE_URI.format("/".join(path.parts[uri:])))
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # missing (created below) or unreachable (the folder check says why)
    if stat.S_ISDIR(mode):
        raise DatabaseError(f"{path}: a folder, not a database file")
    if not stat.S_ISREG(mode):
        raise DatabaseError(f"{path}: not a regular file (a device, pipe or socket)")


def writer(engine: Engine) -> Engine:
    """Return ``engine`` set to take SQLite's write lock up front (``BEGIN IMMEDIATE``).

    A writer that starts deferred and upgrades later can fail at once with
    "database is locked" despite the busy timeout; taking the lock at BEGIN makes
    writers queue instead. On PostgreSQL this is the engine itself.
    """
    if engine.dialect.name != "sqlite":
        return engine
    return engine.execution_options(sqlite_begin="IMMEDIATE")


#: CPython 3.11 can free an object's attribute values while still using them when a
#: cyclic garbage collection starts inside the allocation of the object's ``__dict__``
#: (``_PyObject_StoreInstanceAttribute`` -> ``make_dict_from_instance_attributes``) and
#: a weakref callback it runs stores a new attribute on the same object. Closing a
#: Session hits it: ``InstanceState._detach_states`` sets ``state._strong_obj``, an
#: attribute that is not among InstanceState's shared keys once they are full; the
#: collection frees ORM objects left in reference cycles, and their weakref callback
#: ``InstanceState._cleanup`` sets ``_strong_obj`` on those same states. The result is a
#: segmentation fault in ``Session.close`` or at exit (``duplicates`` on 2,508 papers).
#: CPython 3.12 runs the collector only between bytecodes, never inside an allocation.
_GC_IN_ALLOCATION = sys.version_info < (3, 12)


@contextmanager
def _collector_paused_at_exit() -> Iterator[Callable[[], None]]:
    """Yield a function that pauses the cyclic garbage collector until this block ends.

    :func:`session_scope` calls it once its body is done, so no collection runs while
    the Session commits, rolls back, expunges and closes (see :data:`_GC_IN_ALLOCATION`);
    the garbage is collected after. Nothing is paused on CPython 3.12 and later.
    """
    paused = False

    def pause() -> None:
        nonlocal paused
        if _GC_IN_ALLOCATION and not paused and gc.isenabled():
            gc.disable()
            paused = True

    try:
        yield pause
    finally:
        if paused:
            gc.enable()


def expunge_all(session: Session) -> None:
    """``session.expunge_all()`` with the cyclic collector paused on CPython < 3.12.

    Expunging discards every InstanceState at once, the case :data:`_GC_IN_ALLOCATION`
    describes; callers that empty the identity map in the middle of a session (after a
    bulk delete, after a reindex) use this instead of calling the Session directly.
    """
    with _collector_paused_at_exit() as pause:
        pause()
        session.expunge_all()


@contextmanager
def session_scope(engine: Engine, *, write: bool = True) -> Iterator[Session]:
    """Yield a Session inside one transaction; commit on success, roll back on any error.

    ``write=True`` takes SQLite's write lock at BEGIN (see :func:`writer`).
    Database errors (unreachable server, locked file) become DatabaseError (exit 6).
    """
    from sqlalchemy.orm import Session

    bind = writer(engine) if write else engine
    with _translated_errors():
        with (
            _collector_paused_at_exit() as pause_collector,
            Session(bind, expire_on_commit=False) as session,
            session.begin(),
        ):
            try:
                yield session
            finally:
                pause_collector()  # for the commit or rollback and the close below
        if write:
            shrink_wal(engine)


@contextmanager
def connection_scope(engine: Engine, *, write: bool = True) -> Iterator[Connection]:
    """Yield a Core Connection inside one transaction; commit on success, roll back on
    any error: :func:`session_scope` without the ORM, for commands that run Core
    statements on ``readinglist.tables`` (``show``, ``mark``, ``tag add``...; issue 17).

    ``write=True`` takes SQLite's write lock at BEGIN (see :func:`writer`); database
    errors become DatabaseError (exit 6), as in :func:`session_scope`.
    """
    bind = writer(engine) if write else engine
    with _translated_errors():
        with bind.connect() as connection, connection.begin():
            yield connection
        if write:
            shrink_wal(engine)


@contextmanager
def _translated_errors() -> Iterator[None]:
    """Turn SQLAlchemy's errors of a transaction into DatabaseError (exit 6): "database
    is locked" into :func:`locked_message`, a damaged SQLite file into a pointer to
    ``db check``, any other operational error into its first line."""
    try:
        yield
    except OperationalError as exc:
        if "database is locked" in str(exc.orig):
            raise DatabaseError(locked_message()) from exc
        raise DatabaseError(_describe(exc)) from exc
    except SQLAlchemyDatabaseError as exc:
        if not _damaged(exc):
            raise
        raise DatabaseError(
            f"{_describe(exc)}: the database file is damaged; run `readinglist db check`"
        ) from exc


def shrink_wal(engine: Engine) -> None:
    """Checkpoint and truncate an SQLite library's write-ahead log larger than
    :data:`WAL_KEEP_BYTES` (after a commit; nothing for PostgreSQL or ``:memory:``).

    An import is one transaction, and the frames of an open transaction cannot be
    checkpointed: while it runs the WAL holds every page it wrote (about the size the
    file grows by; ``wal_checkpoint(PASSIVE)`` between chunks would copy nothing).
    SQLite's auto-checkpoint at the commit copies them into the database but leaves
    the file at that size until the last connection closes, or, under
    ``journal_size_limit``, until the next write commits (issue 17: 2 GB after a
    500,000-entry import). ``wal_checkpoint(TRUNCATE)`` empties it now; it runs
    without waiting (``busy_timeout = 0``), so a reader still on an older snapshot
    leaves the file for ``journal_size_limit`` to cut at the next write. Best effort:
    an SQLite error here is ignored (the data is committed).
    """
    path = sqlite_path(engine)
    if path is None:
        return
    try:
        size = os.stat(f"{path}-wal").st_size
    except OSError:
        return
    if size <= WAL_KEEP_BYTES:
        return
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        try:
            cursor.execute("PRAGMA busy_timeout = 0")
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error:
            pass  # a reader on an older snapshot: journal_size_limit cuts it later
        finally:
            cursor.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
            cursor.close()
    finally:
        raw.close()


def _damaged(exc: SQLAlchemyDatabaseError) -> bool:
    """True for SQLite's errors about a damaged file (SQLITE_CORRUPT, SQLITE_NOTADB)."""
    message = str(exc.orig)
    return "malformed" in message or "not a database" in message


def not_a_database(path: str | Path, exc: BaseException) -> str:
    """The one-line message for an SQLite file that cannot be opened as a database:
    ``PATH: not a readinglist database (file is not a database)``."""
    return f"{path}: not a readinglist database ({str(exc).strip() or type(exc).__name__})"


def _describe(exc: SQLAlchemyDatabaseError) -> str:
    message = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
    return f"database error: {message}"


# --- schema -------------------------------------------------------------------------------


def migrations_dir() -> Path:
    """Return the Alembic script directory: inside the installed package, else the checkout's."""
    packaged = Path(__file__).parent / "_migrations"
    if (packaged / "env.py").exists():
        return packaged
    return Path(__file__).resolve().parent.parent / "alembic"


def alembic_config(connection: Connection | None = None) -> Config:
    """Build an Alembic ``Config`` for our scripts, bound to ``connection`` when given.

    ``alembic/env.py`` uses ``config.attributes["connection"]`` (Alembic cookbook,
    "Sharing a Connection across one or more programmatic migration commands").
    """
    from alembic.config import Config

    cfg = Config()
    # Config values go through configparser interpolation: a literal % must be doubled
    # (a database file named "50%.db" would otherwise break every run).
    cfg.set_main_option("script_location", str(migrations_dir()).replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
        url = connection.engine.url.render_as_string(False)
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def current_revision(conn: Connection) -> str | None:
    """Return the database's Alembic revision, or None for a database without our schema."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    if rows:
        return str(rows[0])
    return None


def _lock_schema(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_SCHEMA_LOCK})


def ensure_schema(engine: Engine, *, upgrade: bool = True) -> str:
    """Make sure the database is at :data:`HEAD`; return the revision it is at afterwards.

    A database without our tables is created at head. An older known revision is
    upgraded (when ``upgrade`` is true; SQLite files are first backed up with the
    online backup API to ``<file>.<UTC timestamp>.bak``). Safe when several
    processes start on a new database at once: creation runs under SQLite's
    write lock or a PostgreSQL advisory lock, and the revision is re-read inside it.

    Raises:
        DatabaseError: unknown (newer) revision; the server is unreachable; or an
            older revision with ``upgrade=False``.
    """
    try:
        with engine.connect() as conn:
            revision = current_revision(conn)
            foreign = revision is None and bool(
                set(inspect(conn).get_table_names()) - {"alembic_version"}
            )
    except SQLAlchemyDatabaseError as exc:  # unreachable server, "file is not a database"
        raise DatabaseError(_describe(exc)) from exc
    if revision == HEAD:
        return HEAD
    if foreign:
        raise DatabaseError(
            "this database holds tables but is not a readinglist library; "
            "name another file or an empty database with --db"
        )
    _check_known(revision)
    if revision is not None and not upgrade:
        raise DatabaseError(
            f"database schema is at revision {revision}, this version needs {HEAD}: "
            "run `readinglist db upgrade`"
        )
    if revision is not None:
        backup_before_upgrade(engine)
    return _upgrade(engine)


def _check_known(revision: str | None) -> None:
    if revision is not None and revision not in KNOWN_REVISIONS:
        raise DatabaseError(
            f"database schema revision {revision!r} is unknown to readinglist "
            f"(this version knows up to {HEAD}); it was probably written by a newer version"
        )


@contextmanager
def _migrating(engine: Engine) -> Iterator[Connection]:
    """Yield a connection in one locked write transaction for Alembic to migrate on.

    SQLite: foreign keys are off during the migration and checked before the
    commit. A batch migration rebuilds a table (create, copy, drop, rename), and
    with ``foreign_keys=ON`` the DROP of ``papers`` deletes, through ON DELETE
    CASCADE, every note, tag link, author link and status event of every paper.
    The pragma is a no-op inside a transaction, so it is set before BEGIN (SQLite
    docs, "ALTER TABLE", section 7; Alembic docs, batch migrations, "Dealing with
    Constraints"). Raises DatabaseError, rolling back, if the migration left
    dangling foreign keys.
    """

    def pragma(conn: Connection, sql: str) -> None:
        raw = conn.connection.dbapi_connection
        assert raw is not None
        cursor = raw.cursor()
        cursor.execute(sql)
        cursor.close()

    with writer(engine).connect() as conn:
        sqlite = conn.dialect.name == "sqlite"
        if sqlite:
            pragma(conn, "PRAGMA foreign_keys = OFF")
        try:
            with conn.begin():
                _lock_schema(conn)
                yield conn
                if sqlite:
                    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise DatabaseError(
                            f"the migration left {len(broken)} rows whose foreign key points "
                            f"at no row (first: {tuple(broken[0])}); nothing was changed"
                        )
        finally:
            if sqlite:
                pragma(conn, "PRAGMA foreign_keys = ON")


def _upgrade(engine: Engine, target: str = "head") -> str:
    try:
        with _migrating(engine) as conn:
            revision = current_revision(conn)
            _check_known(revision)
            if revision is None and target == "head" and _create_sqlite_at_head(conn):
                return HEAD
            if revision != HEAD:
                from alembic import command

                command.upgrade(alembic_config(conn), target)
            return current_revision(conn) or ""
    except OperationalError as exc:
        raise DatabaseError(_describe(exc)) from exc


#: The schema of a new SQLite library at :data:`HEAD`, as the migrations leave it
#: (:func:`sqlite_schema_script`), in the migrations folder.
SQLITE_HEAD_SCRIPT = "sqlite_head.sql"


def _create_sqlite_at_head(conn: Connection) -> bool:
    """Create the schema of an empty SQLite database from :data:`SQLITE_HEAD_SCRIPT`, in
    ``conn``'s transaction, instead of running every migration: Alembic's cookbook
    ("Building an Up to Date Database from Scratch": create the schema, then stamp).
    Importing Alembic and running the migrations cost about 0.3 s of CPU, a new
    library's first import pays it (issue 17 item 5). The script is what the
    migrations give, statement for statement (a test compares the two), and stamps
    :data:`HEAD`. False, creating nothing, for another database, a database with any
    object in it, or a script written for another revision: Alembic does the work then.
    """
    if conn.dialect.name != "sqlite":
        return False
    if conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar():
        return False
    try:
        script = (migrations_dir() / SQLITE_HEAD_SCRIPT).read_text(encoding="utf-8")
    except OSError:
        return False
    if not script.startswith(_script_header(HEAD)):
        return False
    for statement in sql_statements(script):
        conn.exec_driver_sql(statement)
    return True


def _script_header(revision: str) -> str:
    return f"-- readinglist: the SQLite schema at revision {revision}"


def sql_statements(script: str) -> list[str]:
    """The statements of an SQL ``script``, one per item, split where SQLite's
    ``sqlite3.complete_statement`` says a statement ends (a trigger's body keeps its
    semicolons); ``--`` comment lines between statements are dropped."""
    statements: list[str] = []
    pending: list[str] = []
    for line in script.splitlines():
        if not pending and (not line.strip() or line.startswith("--")):
            continue
        pending.append(line)
        joined = "\n".join(pending)
        if sqlite3.complete_statement(joined):
            statements.append(joined.strip().removesuffix(";"))
            pending = []
    if pending:
        raise ValueError(f"incomplete SQL statement at the end of the script: {pending[0]!r}")
    return statements


def sqlite_schema_script(conn: Connection) -> str:
    """The text of :data:`SQLITE_HEAD_SCRIPT` for the SQLite database of ``conn``: every
    object of ``sqlite_master`` in creation order (less what SQLite makes itself:
    automatic indexes, the shadow tables of an FTS5 table) and its Alembic revision.
    Run on a database the migrations brought to :data:`HEAD`; a test compares the
    stored script with it (write it again with ``python -c "from readinglist import
    db; db.write_sqlite_head_script()"``)."""
    rows = conn.exec_driver_sql(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
    ).fetchall()
    virtual = [name for type_, name, sql in rows if sql.upper().startswith("CREATE VIRTUAL")]
    lines = [_script_header(current_revision(conn) or "none")]
    for type_, name, sql in rows:
        if type_ == "table" and any(name.startswith(f"{v}_") for v in virtual):
            continue  # an FTS5 shadow table: CREATE VIRTUAL TABLE makes it
        lines.append(f"{sql};")
    for (revision,) in conn.exec_driver_sql("SELECT version_num FROM alembic_version"):
        lines.append(f"INSERT INTO alembic_version (version_num) VALUES ('{revision}');")
    return "\n".join(lines) + "\n"


def migrated_sqlite_schema_script() -> str:
    """:func:`sqlite_schema_script` of a new SQLite database that the migrations alone
    brought to head (in a temporary folder): what :data:`SQLITE_HEAD_SCRIPT` must hold."""
    import tempfile

    from alembic import command

    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'head.db'}")
        try:
            with _migrating(engine) as conn:
                command.upgrade(alembic_config(conn), "head")
                return sqlite_schema_script(conn)
        finally:
            engine.dispose()


def write_sqlite_head_script() -> Path:
    """Write :data:`SQLITE_HEAD_SCRIPT` into the migrations folder from
    :func:`migrated_sqlite_schema_script`; return its path (after a new migration)."""
    path = migrations_dir() / SQLITE_HEAD_SCRIPT
    path.write_text(migrated_sqlite_schema_script(), encoding="utf-8")
    return path


def downgrade(engine: Engine, target: str) -> None:
    """Downgrade the schema to ``target`` (a revision id or ``base``); for tests and recovery."""
    from alembic import command

    with _migrating(engine) as conn:
        command.downgrade(alembic_config(conn), target)


def upgrade(engine: Engine, target: str = "head") -> str:
    """Upgrade to ``target`` (default head), backing SQLite up first; return the new revision."""
    with engine.connect() as conn:
        revision = current_revision(conn)
    _check_known(revision)
    if revision is not None and revision != HEAD:
        backup_before_upgrade(engine)
    return _upgrade(engine, target)


def history() -> list[tuple[str, str | None, str]]:
    """Return ``(revision, down_revision, message)`` for every migration script, oldest first."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(alembic_config())
    rows = [
        (str(s.revision), str(s.down_revision) if s.down_revision else None, s.doc or "")
        for s in scripts.walk_revisions()
    ]
    return list(reversed(rows))


def sqlite_path(engine: Engine) -> Path | None:
    """Return the file of an SQLite engine, or None for another database or ``:memory:``."""
    if engine.dialect.name != "sqlite":
        return None
    database = engine.url.database
    if not database or database == ":memory:":
        return None
    return Path(database)


def backup_sqlite(source: Path, target: Path) -> Path:
    """Copy the SQLite database ``source`` to ``target`` with the online backup API.

    A plain file copy of a WAL database can miss committed pages; the backup API
    (https://sqlite.org/backup.html) gives a consistent snapshot while other
    connections work. Writes to a temporary name, then renames; on any failure the
    temporary file is removed. Returns ``target``.

    Raises:
        DatabaseError: ``source`` cannot be read as a database (exit 6), or the
            destination cannot be written (read-only, full disk, not a folder), one
            line naming it; nothing is left at the destination (issue 18).
    """
    tmp = target.with_name(target.name + ".tmp")
    if target.parent.exists() and not target.parent.is_dir():
        raise DatabaseError(f"cannot write the backup {target}: {target.parent} is not a folder")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise DatabaseError(f"cannot write the backup {target}: {exc.strerror or exc}") from None
    try:
        src = sqlite3.connect(source, timeout=busy_timeout_ms() / 1000)
        try:
            dst = sqlite3.connect(tmp)
            try:
                _copy(src, dst, source, target)
            finally:
                dst.close()
        finally:
            src.close()
        tmp.replace(target)
    except OSError as exc:
        raise DatabaseError(f"cannot write the backup {target}: {exc.strerror or exc}") from None
    except sqlite3.Error as exc:  # e.g. opening the temporary file in a read-only folder
        raise DatabaseError(f"cannot write the backup {target}: {exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _copy(src: sqlite3.Connection, dst: sqlite3.Connection, source: Path, target: Path) -> None:
    """Run the backup API from ``src`` to ``dst``, telling a damaged source from a
    failed destination."""
    try:
        src.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(not_a_database(source, exc)) from None
    try:
        src.backup(dst)
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot write the backup {target}: {exc}") from None


def backup_before_upgrade(engine: Engine) -> Path | None:
    """Back up an SQLite database beside itself before a migration; return the backup path."""
    path = sqlite_path(engine)
    if path is None or not path.exists():
        return None
    return backup_sqlite(path, backup_path(path))


def backup_path(database: Path, directory: Path | None = None, now: datetime | None = None) -> Path:
    """Return a new file name for a backup of ``database``: ``<name>.<UTC time>.bak``.

    The name sits in ``directory`` (default: beside the database); ``-2``, ``-3`` ...
    are added when a file of that name exists, so a backup never overwrites another.
    """
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    folder = directory or database.parent
    candidate = folder / f"{database.name}.{stamp}.bak"
    number = 2
    while candidate.exists():
        candidate = folder / f"{database.name}.{stamp}-{number}.bak"
        number += 1
    return candidate
