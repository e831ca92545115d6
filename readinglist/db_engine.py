"""Engines, sessions and connections: the only module that makes them.

* :func:`make_engine` configures SQLite for concurrent use (WAL, a busy timeout,
  foreign keys, and ``BEGIN IMMEDIATE`` for write transactions, per the SQLite
  dialect docs' "Serializable isolation / Savepoints / Transactional DDL" recipe).
* :func:`session_scope` (an ORM Session) and :func:`connection_scope` (a Core
  Connection) are one transaction: commit on success, rollback on error. This module
  imports ``sqlalchemy.orm`` only inside :func:`session_scope`, so a command on Core
  rows never loads it (issue 17: ~80 ms CPU).
* SQLAlchemy's errors of a transaction become :class:`~readinglist.errors.DatabaseError`
  (exit 6) with a one-line message.

The schema (Alembic, creation at head, upgrades and their backups) is :mod:`readinglist.db`,
which re-exports this module's functions; callers use ``db.make_engine`` and so on.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import stat
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import DatabaseError as SQLAlchemyDatabaseError
from sqlalchemy.exc import OperationalError

from readinglist import interrupts
from readinglist.errors import DatabaseError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

#: How long an SQLite writer waits for another one's lock, in milliseconds, unless
#: ``READINGLIST_BUSY_TIMEOUT`` (seconds) says otherwise (:func:`busy_timeout_ms`).
BUSY_TIMEOUT_MS = 60_000
#: Bytes of write-ahead log an SQLite library keeps on disk after a write
#: (``PRAGMA journal_size_limit``, and :func:`shrink_wal` after a larger commit): the
#: size of SQLite's default auto-checkpoint, 1,000 pages of 4 KiB.
WAL_KEEP_BYTES = 4 * 1024 * 1024


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


#: How many engines :func:`make_engine` keeps for reuse in one process (the most recent).
KEPT_ENGINES = 8
_kept: OrderedDict[tuple[str, int, int], Engine] = OrderedDict()
_kept_lock = threading.Lock()


def make_engine(url: str) -> Engine:
    """Return an engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``).

    SQLite: the file's directory is created; each connection gets
    ``journal_mode=WAL``, ``busy_timeout``, ``foreign_keys=ON``; transactions start
    with ``BEGIN`` or, on an engine from :func:`writer`, ``BEGIN IMMEDIATE``.
    Raises DatabaseError for a URL SQLAlchemy cannot use.

    A process that opens the same library again (an in-process caller running several
    commands, as the tests do) gets the engine it made before, for the same database
    (an SQLite file by its absolute path), busy timeout and process: SQLAlchemy caches
    compiled SQL and the server's first-connect answers per engine, and compiling costs
    about 40% of a short command's CPU. A kept SQLite engine holds no idle connection (those
    of an earlier use are closed: the file may have been replaced); a kept server engine
    keeps its pool's idle connections between commands (SQLAlchemy's pool as intended: a
    new server process costs the server ~7 ms of CPU and its catalog caches), each tested
    before use (``pool_pre_ping``: one ended by the server is replaced). Callers hand an
    engine back with :func:`release`. The :data:`KEPT_ENGINES` most recent are kept (one
    pushed out is disposed); an in-memory SQLite database is never shared (each engine is
    its own database). A forked child forgets the parent's engines without closing their
    connections (SQLAlchemy's "Using Connection Pools with Multiprocessing or os.fork()").
    """
    if url.lower().startswith("file:"):
        raise DatabaseError(_FILE_URI.format(url))
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise DatabaseError(f"not a database URL or path: {url!r}") from exc
    timeout_ms = busy_timeout_ms()
    where = parsed.render_as_string(hide_password=False)
    if parsed.get_backend_name() == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            return _sqlite_engine(parsed, timeout_ms)
        _check_sqlite_path(Path(parsed.database))
        folder = Path(parsed.database).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise DatabaseError(f"cannot create the folder of {parsed.database}: {reason}") from exc
        where = f"sqlite:{Path(parsed.database).absolute()}?{parsed.query}"
    key = (where, timeout_ms, os.getpid())
    with _kept_lock:
        engine = _kept.get(key)
        if engine is not None:
            _kept.move_to_end(key)
    if engine is not None:
        if engine.dialect.name == "sqlite":
            engine.dispose()  # no idle connection of an earlier use: the file may be new
        return engine
    if parsed.get_backend_name() == "sqlite":
        engine = _sqlite_engine(parsed, timeout_ms)
    else:
        try:
            # No hstore column anywhere: without use_native_hstore the dialect's first
            # connection does not look the type up (a savepoint and a catalog query of
            # pg_type, in every command's new server process).
            psycopg = parsed.get_driver_name() in ("psycopg", "psycopg2")
            options = {"use_native_hstore": False} if psycopg else {}
            engine = create_engine(parsed, pool_pre_ping=True, **options)
        except Exception as exc:
            raise DatabaseError(f"cannot use database {parsed!r}: {exc}") from exc
        event.listen(engine, "commit", _commit_unless_interrupted)
    with _kept_lock:
        engine = _kept.setdefault(key, engine)
        pushed_out = [_kept.popitem(last=False)[1] for _ in range(len(_kept) - KEPT_ENGINES)]
    for old in pushed_out:
        old.dispose()
    return engine


def _commit_unless_interrupted(_conn: Connection) -> None:
    """Before each commit: a Ctrl-C Python dropped (raised in a finalizer, recorded by
    :mod:`readinglist.interrupts`) raises KeyboardInterrupt, and the transaction is
    rolled back instead (SQLAlchemy's ``commit`` event runs before the driver's commit;
    the pool rolls the connection back when it is returned)."""
    interrupts.check()


def release(engine: Engine) -> None:
    """Hand back an engine of :func:`make_engine` at the end of a command: an SQLite
    engine, or one not kept, closes its connections (the last connection to an SQLite
    library checkpoints and removes its write-ahead log); a kept server engine keeps its
    idle connections for the process's next command on the same database."""
    if engine.dialect.name != "sqlite":
        with _kept_lock:
            if engine in _kept.values():
                return
    engine.dispose()


def forget_engines() -> None:
    """Forget every kept engine without closing its connections, in a forked child: the
    sockets are the parent's (SQLAlchemy's ``dispose(close=False)`` for that case). The
    lock is made anew: another thread of the parent may have held it at the fork."""
    global _kept_lock
    _kept_lock = threading.Lock()
    engines = list(_kept.values())
    _kept.clear()
    for engine in engines:
        engine.dispose(close=False)


os.register_at_fork(after_in_child=forget_engines)


def _sqlite_engine(parsed: URL, timeout_ms: int) -> Engine:
    """A new SQLite engine on ``parsed`` set up as :func:`make_engine` describes."""
    engine = create_engine(parsed, connect_args={"timeout": timeout_ms / 1000})
    event.listen(engine, "commit", _commit_unless_interrupted)

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


def snapshot_reader(engine: Engine) -> Engine:
    """Return ``engine`` set so that a read-only transaction sees one moment of the library.

    PostgreSQL's default READ COMMITTED gives each statement its own snapshot, so an
    export reading papers, people and tags in several statements while another reader
    commits could mix two states; REPEATABLE READ takes one snapshot for the whole
    transaction, and a transaction that only reads never fails to serialize (PostgreSQL
    manual, "Transaction Isolation"). SQLite in WAL mode already reads one snapshot per
    transaction: the engine itself.
    """
    if engine.dialect.name != "postgresql":
        return engine
    return engine.execution_options(isolation_level="REPEATABLE READ")


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

    bind = writer(engine) if write else snapshot_reader(engine)
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
    bind = writer(engine) if write else snapshot_reader(engine)
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
    ``PATH: not a readinglist database (file is not a database)``.

    SQLite's "unable to open database file" for a file that exists means it could not
    make the ``-wal``/``-shm`` files beside a WAL library, which it needs even to read
    one (sqlite.org/wal.html, "Read-Only Databases"): the message then says the folder
    is on a read-only file system (``statvfs``'s ``ST_RDONLY``) or cannot be written."""
    reason = str(exc).strip() or type(exc).__name__
    if "unable to open database file" in reason and Path(path).is_file():
        folder = Path(path).absolute().parent
        beside = "SQLite writes its -wal and -shm files beside a library even to read it"
        try:
            read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
        except OSError:
            read_only = False
        if read_only:
            return (
                f"{path}: the library is on a read-only file system ({reason}); {beside}: "
                "copy it to a writable folder to use it"
            )
        if not os.access(folder, os.W_OK):
            return (
                f"{path}: the library's folder cannot be written ({reason}); {beside}: "
                "check the folder's permissions"
            )
    return f"{path}: not a readinglist database ({reason})"


def _describe(exc: SQLAlchemyDatabaseError) -> str:
    message = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
    return f"database error: {message}"


def sqlite_path(engine: Engine) -> Path | None:
    """Return the file of an SQLite engine, or None for another database or ``:memory:``."""
    if engine.dialect.name != "sqlite":
        return None
    database = engine.url.database
    if not database or database == ":memory:":
        return None
    return Path(database)
