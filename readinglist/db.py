"""The schema: the only module that imports Alembic.

Engines, sessions and connections are made by :mod:`readinglist.db_engine`; its functions
are re-exported here (``db.make_engine``, ``db.session_scope``, ...), so a command needs
one import for both.

* :func:`ensure_schema` creates a new database at the newest revision, upgrades an
  older one (SQLite: after an online backup beside it) and refuses one it does not
  know. It reads the revision with plain SQL, so a database already at head never
  imports Alembic (issue 9: Alembic costs ~1 s of start-up).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DatabaseError as SQLAlchemyDatabaseError
from sqlalchemy.exc import OperationalError

from readinglist import schema
from readinglist.db_engine import (
    BUSY_TIMEOUT_MS,
    WAL_KEEP_BYTES,
    _describe,
    busy_timeout_ms,
    connection_scope,
    expunge_all,
    locked_message,
    make_engine,
    not_a_database,
    release,
    session_scope,
    shrink_wal,
    sqlite_path,
    writer,
)
from readinglist.errors import DatabaseError

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = [
    "BUSY_TIMEOUT_MS",
    "HEAD",
    "KNOWN_REVISIONS",
    "SQLITE_HEAD_SCRIPT",
    "WAL_KEEP_BYTES",
    "alembic_config",
    "backup_before_upgrade",
    "backup_path",
    "backup_sqlite",
    "busy_timeout_ms",
    "connection_scope",
    "current_revision",
    "downgrade",
    "ensure_schema",
    "expunge_all",
    "history",
    "locked_message",
    "make_engine",
    "migrated_sqlite_schema_script",
    "migrations_dir",
    "not_a_database",
    "release",
    "session_scope",
    "shrink_wal",
    "sql_statements",
    "sqlite_path",
    "sqlite_schema_script",
    "upgrade",
    "write_sqlite_head_script",
    "writer",
]

#: Every revision this code knows, oldest first, and the head (:mod:`readinglist.schema`).
KNOWN_REVISIONS: tuple[str, ...] = schema.KNOWN_REVISIONS
HEAD = KNOWN_REVISIONS[-1]
#: Key of the PostgreSQL advisory lock that serialises schema creation and upgrades.
_PG_SCHEMA_LOCK = 7_312_001


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


def current_revision(conn: Connection, *, versioned: bool | None = None) -> str | None:
    """Return the database's Alembic revision, or None for a database without our schema.
    ``versioned``: whether the table ``alembic_version`` is there, when the caller has
    read it already (:func:`readinglist.schema_objects.contents`); None: looked up here."""
    if versioned is None:
        versioned = inspect(conn).has_table("alembic_version")
    if not versioned:
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
