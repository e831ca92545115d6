"""Bottom floor: bulk SQL and every dialect branch of the library.

Bulk inserts (``executemany`` with the columns' bind processors), the SQLite
full-text trigger held back during a bulk insert, ``INSERT ... ON CONFLICT DO
NOTHING`` per dialect, the PostgreSQL advisory lock that serialises imports and
the planner statistics a long PostgreSQL import refreshes (:class:`Statistics`).
Imports only SQLAlchemy Core and ``readinglist.tables``: every function takes an
:data:`~readinglist.tables.Executor` (a Session or a Connection).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from sqlalchemy import Table, bindparam, delete, func, insert, select, update
from sqlalchemy import text as sql_text

from readinglist.tables import PAPER_PEOPLE, PAPERS, Executor, connection_of, dialect_name

if TYPE_CHECKING:
    from readinglist.models import Paper, Person

#: Rows per IN (...) look-up and per bulk insert.
CHUNK = 500


#: PostgreSQL advisory lock key that serialises imports (``db`` uses 7_312_001 for schema).
IMPORT_LOCK = 7_312_002


def serialize_imports(session: Executor) -> None:
    """Let one import at a time run on PostgreSQL, until its transaction ends.

    An import reads the library (duplicates, citation keys in use, known people)
    and then writes what it decided; two at once on PostgreSQL would both add the
    same new person or key (a unique violation) or both add one paper. SQLite
    needs nothing: ``BEGIN IMMEDIATE`` already admits one writer at a time.
    """
    if dialect_name(session) == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(IMPORT_LOCK)))


#: The ``papers`` columns an import looks duplicates up by whose index is not unique
#: (``matching.load_candidates``); a unique index tells PostgreSQL's planner that a
#: value matches one row without any statistics (``citekey_folded``, ``id``).
LOOKUP_COLUMNS = ("doi", "arxiv", "title_key", "abstract_key")

#: What an import's statistics refresh analyses (:class:`Statistics`): each table whose
#: rows it adds and reads back by a non-unique column, with those columns. ``papers``
#: by :data:`LOOKUP_COLUMNS`; ``paper_people`` and ``paper_tags`` by ``paper_id``, the
#: column by which the candidates of a duplicate are loaded with their people and tags
#: (``rows.load_papers``' ``selectinload``: ``paper_people JOIN people ... WHERE
#: paper_people.paper_id IN (...)``).
ANALYZED = (
    ("papers", LOOKUP_COLUMNS),
    ("paper_people", ("paper_id",)),
    ("paper_tags", ("paper_id",)),
)

#: Papers an import adds before it first refreshes PostgreSQL's statistics.
ANALYZE_FIRST = 1000


class Statistics:
    """When a PostgreSQL import refreshes the planner's statistics of ``papers``.

    An import is one transaction; autovacuum cannot see its rows, so the planner
    knows nothing of them. Without statistics PostgreSQL takes each value of
    ``doi IN (...)`` (:data:`CHUNK` values) to match 0.5% of the rows, so the
    whole list ~92%, and plans a Seq Scan that reads the whole growing heap for
    every chunk: an import slowing down as 1/n (issue 17: 185,000 rows in 15.5
    minutes of a 500,000-entry import). The same holds for the people and tags of
    the candidates it loads (``paper_id IN (...)``, a few ids per chunk): with no
    statistics of ``paper_people``, ten ids were taken to match 0.5% of its rows
    each, so PostgreSQL hashed the whole ``people`` table (a Seq Scan, 111 ms at
    300,000 papers) for every chunk that found a duplicate, and with more ids read
    all of ``paper_people`` too: per-entry CPU growing with the library (issue 17,
    session 8). ``ANALYZE`` in the importing transaction samples its own
    uncommitted rows too; run on the tables and columns of :data:`ANALYZED` each
    time the papers this import added have doubled (from :data:`ANALYZE_FIRST`),
    it costs a sample of at most 30,000 rows per table about log2(n / 1000) times
    and keeps the index plans. The column lists leave autovacuum's full
    ``ANALYZE`` after the commit due (PostgreSQL resets its change counter only for
    an ``ANALYZE`` of every column). SQLite plans these look-ups by its indexes
    without statistics: nothing to do there.
    """

    def __init__(self, session: Executor) -> None:
        self.session = session
        self.active = dialect_name(session) == "postgresql"
        self.added = 0
        self.next = ANALYZE_FIRST
        self.runs = 0

    def grew(self, rows: int) -> None:
        """Count ``rows`` papers added; refresh the statistics when they have doubled."""
        self.added += rows
        if not self.active or self.added < self.next:
            return
        self.session.execute(
            sql_text(
                "ANALYZE "
                + ", ".join(f"{table} ({', '.join(columns)})" for table, columns in ANALYZED)
            )
        )
        self.runs += 1
        self.next = 2 * self.added


def insert_or_ignore(session: Executor, model: type[Any] | Table) -> Any:
    """Return ``INSERT ... ON CONFLICT DO NOTHING`` for ``model`` in the session's dialect.

    SQLite serialises writers (``BEGIN IMMEDIATE``), but on PostgreSQL two
    transactions may insert the same new tag, or link the same tag to the same
    paper, at once; the second would fail on the unique constraint. Both dialects
    support the clause (SQLAlchemy's ``postgresql.insert``/``sqlite.insert``).
    """
    # The dialect modules load here, not at import: PostgreSQL's pulls in its async
    # drivers' modules, ~20 ms that `mark` on SQLite never needs (issue 17).
    if dialect_name(session) == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(model).on_conflict_do_nothing()
    from sqlalchemy.dialects import sqlite

    return sqlite.insert(model).on_conflict_do_nothing()


def upsert(session: Executor, table: Table, keys: Sequence[str], columns: Sequence[str]) -> Any:
    """Return ``INSERT ... ON CONFLICT (keys) DO UPDATE SET`` each of ``columns`` to the
    value inserted, in the session's dialect (SQLite >= 3.24 and PostgreSQL both have
    it; SQLAlchemy's ``sqlite.insert``/``postgresql.insert``): a row written whether or
    not it exists, in one statement, without losing a concurrent insert of the same key."""
    if dialect_name(session) == "postgresql":
        from sqlalchemy.dialects import postgresql

        stmt: Any = postgresql.insert(table)
    else:
        from sqlalchemy.dialects import sqlite

        stmt = sqlite.insert(table)
    return stmt.on_conflict_do_update(
        index_elements=[table.c[key] for key in keys],
        set_={name: stmt.excluded[name] for name in columns},
    )


def insert_papers(session: Executor, rows: list[dict[str, Any]]) -> list[int]:
    """Insert paper rows (and their full-text entries); return their ids in row order."""
    if not rows:
        return []
    with fts_bulk_insert(session) as bulk:
        ids = insert_rows(session, PAPERS, rows)
        if bulk:
            session.execute(
                sql_text("INSERT INTO paper_fts(rowid, search_text) VALUES (:id, :search_text)"),
                [
                    {"id": i, "search_text": row["search_text"]}
                    for i, row in zip(ids, rows, strict=True)
                ],
            )
    return ids


def insert_rows(
    session: Executor, model: type[Paper] | type[Person] | Table, rows: list[dict[str, Any]]
) -> list[int]:
    """Insert ``rows`` into ``model``'s table (or the table ``model``); return the new
    ids in row order (each row's ``"id"`` is set to its id too).

    SQLite: ids are assigned here (``max(id) + 1`` on), and the rows go in through one
    Core ``executemany``. The caller's transaction holds SQLite's write lock already
    (an import inserts its batch first; edits write before), so no other writer can
    take those ids; SQLite itself assigns ``max(rowid) + 1`` to a table without
    AUTOINCREMENT (https://sqlite.org/autoinc.html). An ``INSERT ... RETURNING`` in
    parameter order would go row by row there (SQLAlchemy has no sentinel for it).
    PostgreSQL: the ids are taken from the column's sequence (``nextval`` once per row,
    one statement), then the rows go in with ``COPY`` (:func:`executemany`). An
    ``INSERT ... RETURNING`` of 500 rows at a time (SQLAlchemy's insertmanyvalues)
    spent most of its client CPU in psycopg parsing the placeholders of each
    15,000-parameter statement (issue 17).
    """
    table = model if isinstance(model, Table) else model.__table__
    if dialect_name(session) == "sqlite":
        first = int(session.scalar(select(func.max(table.c.id))) or 0) + 1
        ids = list(range(first, first + len(rows)))
    else:
        sequence = func.pg_get_serial_sequence(table.name, "id")
        ids = list(
            session.scalars(
                select(func.nextval(sequence)).select_from(func.generate_series(1, len(rows)))
            )
        )
    # Each row's id set in it (the caller's dicts), not a copy of every row with it.
    for i, row in zip(ids, rows, strict=True):
        row["id"] = i
    executemany(session, table, rows)
    return ids


def executemany(
    session: Executor, table: Any, rows: Sequence[Any], names: Sequence[str] | None = None
) -> None:
    """INSERT ``rows`` into ``table`` in one pass: dicts with the same keys, or, with
    ``names``, tuples of the values of those columns in that order (no dict per row:
    an import's 84,000 author links of 10,000 ACL papers, issue 17 item 5).

    Each value goes through the column type's own SQLAlchemy bind processor (JSON, UTC
    timestamps, booleans), so the rows stored are those a Core ``insert(table)``
    stores. SQLite: one ``executemany`` straight through the DBAPI cursor
    (``exec_driver_sql``); Core's per-row bookkeeping costs about 30 us a row on top
    (issue 9, 186,000 author links for the ACL Anthology). PostgreSQL: ``COPY ...
    FROM STDIN`` through psycopg (:func:`copy_rows`). Whenever a column left out of
    the rows has a Python-side default, a Core ``insert`` (which applies defaults).
    """
    if not rows:
        return
    names = list(rows[0]) if names is None else list(names)
    columns = [table.c[name] for name in names]
    dialect = connection_of(session).dialect
    if dialect.name not in ("sqlite", "postgresql") or any(
        column.default is not None for column in table.columns if column.name not in names
    ):
        dicts = (
            rows if isinstance(rows[0], dict) else [dict(zip(names, r, strict=True)) for r in rows]
        )
        for start in range(0, len(dicts), CHUNK * 10):
            session.execute(insert(table), dicts[start : start + CHUNK * 10])
        return
    params = bound_values(dialect, columns, rows)
    quote = dialect.identifier_preparer.quote
    if dialect.name == "postgresql":
        copy_rows(
            session,
            f"COPY {quote(table.name)} ({', '.join(quote(n) for n in names)}) FROM STDIN",
            params,
        )
        return
    sql = (
        f"INSERT INTO {quote(table.name)} ({', '.join(quote(n) for n in names)}) "
        f"VALUES ({', '.join('?' for _ in names)})"
    )
    connection_of(session).exec_driver_sql(sql, params)


def bound_values(dialect: Any, columns: list[Any], rows: Sequence[Any]) -> list[Any]:
    """The tuples of ``rows``' values for ``columns``, in column order, each passed
    through its column type's bind processor for ``dialect``. ``rows`` are dicts, or
    tuples of the values of ``columns`` in that order."""
    names = [column.name for column in columns]
    # The values in column order by one C-level itemgetter per row; only the columns
    # whose type has a bind processor (JSON, timestamps, booleans) are passed through
    # it (issue 17: the 126,000 author and editor links of 10,000 ACL papers, four plain
    # values each, took 3x as long through a generator over every value).
    processors = [
        (position, process)
        for position, column in enumerate(columns)
        if (process := column.type.bind_processor(dialect)) is not None
    ]
    getter: Any = tuple
    if not isinstance(rows[0], dict):
        if not processors:
            return list(rows)
    elif len(names) == 1:
        getter = itemgetter(*names)
        return [(getter(row),) for row in rows]
    else:
        getter = itemgetter(*names)
    if not processors:
        params: list[Any] = [getter(row) for row in rows]
    else:
        params = []
        for row in rows:
            values = list(getter(row))
            for position, process in processors:
                values[position] = process(values[position])
            params.append(tuple(values))
    return params


def copy_rows(session: Executor, sql: str, params: list[Any]) -> None:
    """Run PostgreSQL's ``COPY ... FROM STDIN`` statement ``sql`` with the tuples
    ``params`` (bound values, :func:`bound_values`) in the session's transaction.

    psycopg's ``Copy.write_row`` adapts each value as it would a query parameter; the
    server parses the text by the column's type (JSON text, ``timestamptz``).
    """
    driver: Any = connection_of(session).connection.driver_connection
    with driver.cursor() as cursor, cursor.copy(sql) as copy:
        for values in params:
            copy.write_row(values)


@contextmanager
def fts_bulk_insert(session: Executor) -> Iterator[bool]:
    """On SQLite, hold back the full-text insert trigger while papers are bulk-inserted.

    Yields True when the caller must fill ``paper_fts`` itself (one ``executemany``),
    False elsewhere (PostgreSQL's index is a generated column; an SQLite file without
    the trigger). Filling the FTS5 table through the ``paper_fts_ai`` trigger of
    migration 0001 took about five times the CPU of one ``executemany`` into it
    (10,000 rows, SQLite 3.40; issue 9), so the trigger is dropped for the insert and
    created again from its own SQL, read from ``sqlite_master``, in the same
    transaction: SQLite's DDL is transactional, so a failure rolls both back, and
    other connections never see the library without it.
    """
    if dialect_name(session) != "sqlite":
        yield False
        return
    sql = session.scalar(
        sql_text("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'paper_fts_ai'")
    )
    if not sql:
        yield False
        return
    session.execute(sql_text("DROP TRIGGER paper_fts_ai"))
    try:
        yield True
    except BaseException:
        # For a caller that catches the error and goes on in this transaction.
        with suppress(Exception):
            session.execute(sql_text(sql))
        raise
    session.execute(sql_text(sql))


def unlink_people(session: Executor, roles: Iterable[tuple[int, str]]) -> None:
    """Remove the people links of (paper id, role list name: ``authors``/``editors``),
    before a merge links that role's whole new list (``merging.MergePlan.people``)."""
    by_role: dict[str, list[int]] = {}
    for paper_id, role in roles:
        by_role.setdefault(role.removesuffix("s"), []).append(paper_id)
    for role, ids in by_role.items():
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            session.execute(
                delete(PAPER_PEOPLE).where(
                    PAPER_PEOPLE.c.paper_id.in_(chunk), PAPER_PEOPLE.c.role == role
                )
            )


def update_many(session: Executor, groups: dict[tuple[str, ...], list[dict[str, Any]]]) -> None:
    """Run one executemany ``UPDATE papers`` per column set of ``groups`` (rows keyed
    ``b_id`` and ``b_<column>``)."""
    table = PAPERS
    for columns, rows in groups.items():
        stmt = (
            update(table)
            .where(table.c.id == bindparam("b_id"))
            .values({c: bindparam(f"b_{c}", type_=table.c[c].type) for c in columns})
        )
        for start in range(0, len(rows), CHUNK):
            session.execute(stmt, rows[start : start + CHUNK])
