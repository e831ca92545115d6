"""The objects a library may hold: those of ``tables.py`` and the migrations, nothing else.

A library file is data from anywhere (a backup, a copy from a colleague, ``db
restore``). A trigger runs its code inside every write of ours: one extra trigger
made the next ``mark`` delete every note and rewrite 294 titles, and ``db check``
said ok. So a library is refused when it holds a table, view, trigger or rule that
readinglist did not create (:func:`unknown_objects`):

* tables: those of :data:`readinglist.tables.METADATA`, ``alembic_version``, and on
  SQLite the FTS5 table of the migrations with its shadow tables and SQLite's own
  ``sqlite_*`` tables;
* indexes: any, on those tables (an index runs no code);
* triggers and views (SQLite), and virtual tables: exactly those of the schema the
  migrations leave (``alembic/sqlite_head.sql``, :data:`readinglist.db.SQLITE_HEAD_SCRIPT`),
  name *and* statement (white space aside), so a trigger put in place of ours under
  its name is caught too;
* PostgreSQL: no trigger, rule or view at all in the library's schema (the migrations
  create none), and no table but ours.

Used when a command opens a library (:func:`refuse_unknown`), by ``db restore`` before
anything is copied and reported by ``db check``.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from readinglist.errors import DatabaseError

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

#: SQLite's own objects (``sqlite_sequence``, ``sqlite_stat1``, automatic indexes).
_SQLITE_OWN = "sqlite_"
#: Every object of an SQLite database, as :func:`unknown_sqlite` reads them.
_SQLITE_OBJECTS = "SELECT type, name, tbl_name, sql FROM sqlite_master"
#: How many unknown objects a message names.
SHOWN = 5

#: The objects of the library's schema in one catalog query, and a row ``library`` when a
#: table ``alembic_version`` is visible (SQLAlchemy's ``has_table``: kinds r, p, f, v, m,
#: ``pg_table_is_visible``, not in ``pg_catalog``). A new server process pays for every
#: catalog a query names (about 1.5 ms of server CPU each on its first query): the schema
#: is found by its oid (``to_regnamespace``, no join with ``pg_namespace``), and the rules
#: are read from ``pg_rewrite`` as the ``pg_rules`` view reads them (every rule but a
#: view's ``_RETURN``), without the view.
_PG_OBJECTS = """
SELECT CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
       WHEN 'f' THEN 'foreign table' ELSE 'table' END, c.relname, c.relname
  FROM pg_class c
 WHERE c.relnamespace = to_regnamespace(quote_ident(current_schema()))
   AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
UNION ALL
SELECT 'trigger', t.tgname, c.relname
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
 WHERE c.relnamespace = to_regnamespace(quote_ident(current_schema())) AND NOT t.tgisinternal
UNION ALL
SELECT 'rule', r.rulename, c.relname
  FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
 WHERE c.relnamespace = to_regnamespace(quote_ident(current_schema()))
   AND r.rulename <> '_RETURN'
UNION ALL
SELECT 'library', c.relname, c.relname
  FROM pg_class c
 WHERE c.relname = 'alembic_version' AND c.relkind IN ('r', 'p', 'f', 'v', 'm')
   AND pg_table_is_visible(c.oid) AND c.relnamespace <> 'pg_catalog'::regnamespace
"""


def _squeezed(sql: str | None) -> str:
    return " ".join((sql or "").split()).rstrip(";").strip().lower()


#: Indexes of earlier revisions that a later migration drops (``ix_papers_status`` and
#: ``ix_papers_priority``: 0008 moved those columns into ``decisions``): a library not yet
#: upgraded holds them, and is opened to be upgraded.
RETIRED_INDEXES = ("ix_papers_status", "ix_papers_priority")


@functools.cache
def _sqlite_head() -> dict[tuple[str, str], str]:
    """``{(type, name): statement}`` of the triggers, views and virtual tables of the
    schema the migrations leave (the head script), and the indexes (with
    :data:`RETIRED_INDEXES`)."""
    from readinglist import db

    script = (db.migrations_dir() / db.SQLITE_HEAD_SCRIPT).read_text(encoding="utf-8")
    found: dict[tuple[str, str], str] = {("index", name): "index" for name in RETIRED_INDEXES}
    for statement in db.sql_statements(script):
        words = statement.split(None, 4)
        kind = words[1].lower() if len(words) > 2 else ""
        if kind in ("trigger", "view"):
            found[(kind, words[2].lower())] = _squeezed(statement)
        elif kind == "virtual":
            found[("table", words[3].lower())] = _squeezed(statement)
        elif kind in ("index", "unique"):  # compared by name and uniqueness
            name = (words[3] if kind == "unique" else words[2]).lower()
            found[("index", name)] = "unique" if kind == "unique" else "index"
    return found


def _known_tables() -> set[str]:
    from readinglist.tables import METADATA

    return {name.lower() for name in METADATA.tables} | {"alembic_version"}


def unknown_sqlite(rows: Iterable[tuple[str, str, str, str | None]]) -> list[str]:
    """The objects of ``rows`` (``type, name, tbl_name, sql`` of ``sqlite_master``)
    readinglist did not create (see the module docstring), described for a message."""
    head = _sqlite_head()
    virtual = [name for kind, name in head if kind == "table"]
    tables = _known_tables()
    unknown: list[str] = []
    for kind, name, table, sql in rows:
        key = (kind, name.lower())
        if name.lower().startswith(_SQLITE_OWN):
            continue
        if kind == "index":
            # A UNIQUE index of its own made the next import fail; sql None: a constraint's.
            unique = _squeezed(sql).startswith("create unique")
            if table.lower() not in tables or (sql is not None and key not in head):
                unknown.append(f"index {name!r} on {table!r}")
            elif sql is not None and head[key] != ("unique" if unique else "index"):
                unknown.append(f"index {name!r} (changed from the one readinglist creates)")
        elif key in head:
            if head[key] != _squeezed(sql):
                unknown.append(f"{kind} {name!r} (changed from the one readinglist creates)")
        elif kind == "table":
            shadow = any(name.lower().startswith(f"{v}_") for v in virtual)
            if name.lower() not in tables and not shadow:
                unknown.append(f"table {name!r}")
        else:
            unknown.append(
                f"{kind} {name!r} on {table!r}" if kind == "trigger" else f"{kind} {name!r}"
            )
    return unknown


class Contents(NamedTuple):
    """What a database holds, as one read of its catalog gives it (:func:`contents`)."""

    #: A table ``alembic_version`` is there (SQLAlchemy's ``has_table``): a library.
    library: bool
    #: The names of its tables (SQLAlchemy's ``get_table_names``: on SQLite without
    #: SQLite's own ``sqlite_*``; on PostgreSQL those of the current schema).
    tables: frozenset[str]
    #: The objects readinglist did not create, described for a message.
    unknown: list[str]


def contents(conn: Connection) -> Contents:
    """:class:`Contents` of the database open on ``conn``, from one query of its catalog
    (``sqlite_master``; on PostgreSQL :data:`_PG_OBJECTS`): a command's first look at a
    library asks whether it is one, what it holds and what it holds that readinglist
    did not create (the module docstring) in one question. Raises SQLAlchemy's errors."""
    if conn.dialect.name == "sqlite":
        entries = [
            (str(a), str(b), str(c), d) for a, b, c, d in conn.exec_driver_sql(_SQLITE_OBJECTS)
        ]
        return Contents(
            library=any(
                kind in ("table", "view") and name.lower() == "alembic_version"
                for kind, name, _, _ in entries
            ),
            tables=frozenset(
                name
                for kind, name, _, _ in entries
                if kind == "table" and not name.lower().startswith(_SQLITE_OWN)
            ),
            unknown=unknown_sqlite(entries),
        )
    rows = [(str(a), str(b), str(c)) for a, b, c in conn.exec_driver_sql(_PG_OBJECTS)]
    objects = [row for row in rows if row[0] != "library"]
    return Contents(
        library=len(objects) < len(rows),
        tables=frozenset(name for kind, name, _ in objects if kind == "table"),
        unknown=_unknown_pg(objects),
    )


def _unknown_pg(rows: Iterable[tuple[str, str, str]]) -> list[str]:
    """The objects of ``rows`` (kind, name, table of :data:`_PG_OBJECTS`) readinglist did
    not create: any but its own tables."""
    tables = _known_tables()
    unknown = []
    for kind, name, table in rows:
        if kind == "table" and name.lower() in tables:
            continue
        unknown.append(
            f"{kind} {name!r}" + (f" on {table!r}" if kind in ("trigger", "rule") else "")
        )
    return unknown


def unknown_objects(conn: Connection) -> list[str]:
    """The objects of the library open on ``conn`` that readinglist did not create."""
    return contents(conn).unknown


def unknown_in_file(conn: sqlite3.Connection) -> list[str]:
    """:func:`unknown_objects` of an SQLite file open with the ``sqlite3`` module."""
    rows = conn.execute(_SQLITE_OBJECTS).fetchall()
    return unknown_sqlite((str(a), str(b), str(c), d) for a, b, c, d in rows)


def describe(unknown: list[str]) -> str:
    """The first :data:`SHOWN` of ``unknown``, joined, with how many more."""
    more = f" and {len(unknown) - SHOWN} more" if len(unknown) > SHOWN else ""
    return "; ".join(unknown[:SHOWN]) + more


def refuse_unknown(engine: Engine) -> None:
    """Raise DatabaseError (exit 6) naming them when the library of ``engine`` holds
    objects readinglist did not create (:func:`unknown_objects`). Run before the
    schema is created or upgraded (a migration would fire a foreign trigger); a
    database that cannot be read is left to :func:`readinglist.db.ensure_schema`,
    which says why."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with engine.connect() as conn:
            found = contents(conn)
    except SQLAlchemyError:
        return
    refuse(found, engine)


def refuse(found: Contents, engine: Engine) -> None:
    """Raise DatabaseError (exit 6) naming the unknown objects of ``found`` (the
    :func:`contents` of the database of ``engine``) when it is a library; nothing for a
    database that is not one yet (opening it says so, or creates one)."""
    if found.library and found.unknown:
        from readinglist.db import sqlite_path

        where = sqlite_path(engine) or engine.url.render_as_string(hide_password=True)
        raise DatabaseError(
            f"{where}: the library holds objects readinglist does not create "
            f"({describe(found.unknown)}): they could run their own code on every change, so "
            "it is not used; remove them or restore a backup (`readinglist db check` lists them)"
        )
