"""Which database a command may open, and whether it may create it.

Only commands that write may create a library, and they say so; a read (``list``,
``show``, ``export``, ``db current``...) of a missing or empty database stops with
"no library" (exit 6) and creates nothing: no SQLite file, no folder, no table on a
server. A ``--db`` path whose extension is that of an input format (``refs.bib``,
``x.ris``, ``zotero.json``) is refused with a hint, unless the file is already an SQLite
database (its first 16 bytes are SQLite's header, "Database File Format" 1.3 of the
SQLite documentation).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from readinglist.errors import DatabaseError, UsageError

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

#: The first 16 bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"
#: What a read says when there is no library; ``{where}`` names the file or database.
NO_LIBRARY = (
    "no library at {where} ({why}); nothing was created. Commands that add papers "
    "(import, add) create one"
)


#: Suffixes of library files (and none): never the name of a file to import.
_LIBRARY_SUFFIXES = frozenset({"", ".db", ".sqlite", ".sqlite3", ".db3", ".rl"})


class NoLibrary(DatabaseError):
    """A read found no library at the database it was given (exit 6)."""


def refuse_input_file(path: Path) -> None:
    """Raise UsageError (exit 2) when ``path``, given as the library, is named like a file
    to import (``.bib``, ``.ris``, ``.json``, ``.txt``, ``.md``... :func:`readinglist.formats.
    format_of_name`) and is not an SQLite database already."""
    if path.suffix.lower() in _LIBRARY_SUFFIXES:
        return  # the usual names: no need to import the formats' table
    from readinglist.formats import format_of_name

    fmt = format_of_name(path.name)
    if fmt is None:
        return
    try:
        with path.open("rb") as handle:
            if handle.read(16) == SQLITE_HEADER:
                return
    except OSError:
        pass
    raise UsageError(
        f"--db {path}: a {fmt} file name, not a library database; to read its papers run "
        f"`readinglist import {path}`, and give --db a database file such as papers.db"
    )


def _size(path: Path) -> int | None:
    """The size of ``path``; None when it does not exist. Raises DatabaseError (exit 6)
    naming it when the system cannot look (a name too long, a folder not searchable)."""
    try:
        return path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise DatabaseError(f"{path}: {exc.strerror or exc}") from None


def _is_empty_file(path: Path) -> bool:
    """True when ``path`` and its write-ahead log hold no byte (or do not exist)."""
    return not any(_size(p) for p in (path, path.with_name(path.name + "-wal")))


def check_sqlite_file(path: Path, *, create: bool) -> bool:
    """Check the SQLite file ``path`` before it is opened; return True when it holds nothing
    yet (a library will be created). Raises UsageError for an input-file name (see
    :func:`refuse_input_file`) and, when not ``create``, NoLibrary for a missing or empty
    file (nothing is created, not even its folder)."""
    from readinglist import db_engine

    db_engine._check_sqlite_path(path)  # a device, a folder, a 'file:' URI: refused first
    refuse_input_file(path)
    if not _is_empty_file(path):
        return False
    if not create:
        why = "no such file" if _size(path) is None else "the file is empty"
        raise NoLibrary(NO_LIBRARY.format(where=path, why=why))
    return True


def open_library(
    engine: Engine, where: str, *, create: bool, migrate: bool = True, refuse: bool = False
) -> bool:
    """Make sure ``engine``'s database holds a library at the newest schema revision; return
    True when this created it. With ``refuse``, first refuse a library holding objects
    readinglist does not create (:func:`readinglist.schema_objects.refuse`). A library at
    the newest revision costs one connection and two queries, one of them the catalog
    read of :func:`readinglist.schema_objects.contents` (a new server process pays for
    each catalog query it plans); anything else goes through
    :func:`readinglist.db.ensure_schema` (upgrade, refusal of a newer or foreign schema)
    unless ``migrate`` is false (``db check``: the schema is looked at as it is). Raises
    NoLibrary, creating nothing, when the database holds no table and ``create`` is
    false; DatabaseError for unknown objects, and as ensure_schema does. A server
    database this was creating is left with no table when the creation fails or is
    interrupted (:func:`undo_creation`)."""
    from sqlalchemy.exc import DatabaseError as SQLAlchemyDatabaseError

    from readinglist import db, db_engine, schema_objects

    try:
        with engine.connect() as conn:
            found = schema_objects.contents(conn)
            if refuse:
                schema_objects.refuse(found, engine)
            revision = db.current_revision(conn, versioned=found.library)
            empty = revision is None and not found.tables
    except SQLAlchemyDatabaseError as exc:  # unreachable server, "file is not a database"
        raise DatabaseError(db_engine._describe(exc)) from exc
    if revision == db.HEAD:
        return False
    if empty and not create:
        raise NoLibrary(NO_LIBRARY.format(where=where, why="the database holds no tables"))
    if not migrate:
        return False
    try:
        db.ensure_schema(engine)
    except BaseException:
        # Interrupted or failed while creating the tables of a server database, after
        # the creation committed (its connection going back to the pool): take the
        # tables back. An SQLite file this run made is taken back by its caller, which
        # knew it was new.
        if empty and db_engine.sqlite_path(engine) is None:
            undo_creation(engine, Creation(where, None, True, []))
        raise
    return empty


class Creation:
    """What a write made where there was no library: the database (``where``, as people
    name it) and, for SQLite, the file, whether it existed (empty) before, and the folders
    made for it (deepest first). Kept so that a command that fails before its first
    commit takes the library back (:func:`undo_creation`)."""

    __slots__ = ("existed", "folders", "path", "where")

    def __init__(self, where: str, path: Path | None, existed: bool, folders: list[Path]) -> None:
        self.where = where
        self.path = path
        self.existed = existed
        self.folders = folders


def missing_folders(path: Path) -> list[Path]:
    """The folders above ``path`` that do not exist yet, deepest first (those creating the
    file would make)."""
    missing = []
    folder = path.parent
    while folder != folder.parent and _size(folder) is None:
        missing.append(folder)
        folder = folder.parent
    return missing


#: Seconds :func:`undo_creation` waits for the locks of the library it takes back: SQLite's
#: write lock, PostgreSQL's table locks (the interrupted command's own rollback ending).
UNDO_WAIT = 2.0


def undo_creation(engine: Engine, creation: Creation) -> bool:
    """Take back the library a failed or interrupted write created: the creation belongs
    to the transaction that failed, so nothing of it is left: the SQLite file (with its
    ``-wal``/``-shm`` files; a file that existed empty is emptied again) and the folders
    made for it, or the tables on a server. Only a library that is still empty goes, with
    no other writer on it: SQLite's write lock, or PostgreSQL's ``ACCESS EXCLUSIVE`` lock on
    every table (dropped in that transaction), taken within :data:`UNDO_WAIT`. Returns True
    when it went; False, keeping it, when another process holds or has filled it. Never
    raises (the command's own error or interruption is the one to report)."""
    engine.dispose()
    try:
        if creation.path is not None:
            return _undo_sqlite(creation.path, creation)
        return _undo_server(engine)
    except Exception:
        return False
    finally:
        engine.dispose()


def _undo_sqlite(path: Path, creation: Creation) -> bool:
    import sqlite3

    # A short wait: the interrupted command's own rollback may still hold the write lock
    # for a moment (a large first import spilled to the -wal); another process that
    # holds it longer keeps the library.
    connection = sqlite3.connect(path, timeout=UNDO_WAIT, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        names = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                "'sqlite%' AND name NOT LIKE 'paper_fts%' AND name <> 'alembic_version'"
            )
        ]
        for name in names:
            if connection.execute(f'SELECT 1 FROM "{name}" LIMIT 1').fetchone():
                return False
        for extra in ("-wal", "-shm", "-journal"):
            path.with_name(path.name + extra).unlink(missing_ok=True)
        if creation.existed:
            path.write_bytes(b"")
        else:
            path.unlink(missing_ok=True)
    finally:
        connection.close()
    for folder in creation.folders:
        folder.rmdir()
    return True


def _undo_server(engine: Engine) -> bool:
    from sqlalchemy import inspect

    with engine.connect() as conn, conn.begin():
        quote = conn.dialect.identifier_preparer.quote
        tables = [quote(t) for t in inspect(conn).get_table_names()]
        if not tables:
            return True
        # The interrupted command's backend aborts its transaction, and frees its locks,
        # only once it sees its client gone: wait for that a moment, as for SQLite's lock.
        conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{int(UNDO_WAIT * 1000)}ms'")
        conn.exec_driver_sql(f"LOCK TABLE {', '.join(tables)} IN ACCESS EXCLUSIVE MODE")
        for table in tables:
            if (
                table != "alembic_version"
                and conn.exec_driver_sql(f"SELECT 1 FROM {table} LIMIT 1").first()
            ):
                return False
        conn.exec_driver_sql(f"DROP TABLE {', '.join(tables)} CASCADE")
    return True
