"""The test run's PostgreSQL databases: cloned, recycled between tests, dropped at the end.

Two kinds are handed out: a database at the newest revision with no rows (cloned from a
template migrated once per test process), and a *blank* one (no table, as a new database
of the server: for the tests of a library's first use). ``DROP DATABASE`` forces an
immediate checkpoint of the whole server (PostgreSQL's ``dropdb``): it writes and fsyncs
every buffer any test dirtied since the last one, and took 2-10 s here while tests ran
(~25 a run, ``pg_stat_bgwriter.checkpoints_req``), stalling whatever test waited on the
disk meanwhile. So no database is dropped while tests run: a used one is emptied and
handed out again, and every database is dropped at the end, all at once (concurrent
requests share one checkpoint).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

#: Everything of a database besides its rows that a test could change: columns,
#: relations, indexes, constraints, triggers, rules (but a view's own ``_RETURN``: a rule a
#: test left made the next test's library refused), functions, schemas, extensions,
#: text-search configurations, types and settings; :data:`REVISION` adds the Alembic revision.
SHAPE = """
SELECT md5(string_agg(x, E'\\n' ORDER BY x)) FROM (
  SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') AS x
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL SELECT 'rel ' || relname || ' ' || relkind::text FROM pg_class
   WHERE relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace,
                              'pg_toast'::regnamespace)
  UNION ALL SELECT 'idx ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
  UNION ALL SELECT 'con ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
   WHERE connamespace = 'public'::regnamespace
  UNION ALL SELECT 'trg ' || tgrelid::regclass::text || ' ' || tgname FROM pg_trigger
   WHERE NOT tgisinternal
  UNION ALL SELECT 'rule ' || ev_class::regclass::text || ' ' || rulename FROM pg_rewrite
   WHERE rulename <> '_RETURN'
  UNION ALL SELECT 'fn ' || oid::regprocedure::text || ' ' || md5(prosrc) FROM pg_proc
   WHERE pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  UNION ALL SELECT 'ns ' || nspname FROM pg_namespace
  UNION ALL SELECT 'ext ' || extname || ' ' || extversion FROM pg_extension
  UNION ALL SELECT 'ts ' || cfgname FROM pg_ts_config
  UNION ALL SELECT 'type ' || typname FROM pg_type WHERE typnamespace = 'public'::regnamespace
  UNION ALL SELECT 'set ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
   WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
  {revision}
) AS shape
"""
REVISION = "UNION ALL SELECT 'rev ' || version_num FROM alembic_version"

#: Makes a database blank again: every schema but the system's and every extension but
#: plpgsql dropped, ``public`` made anew as ``initdb`` makes it (PostgreSQL 15: owned by
#: ``pg_database_owner``, usage for everyone). Dropping tables needs no checkpoint.
CLEAR = (
    """DO $$ DECLARE n text; BEGIN
  FOR n IN SELECT extname FROM pg_extension WHERE extname <> 'plpgsql' LOOP
    EXECUTE 'DROP EXTENSION ' || quote_ident(n) || ' CASCADE';
  END LOOP;
  FOR n IN SELECT nspname FROM pg_namespace
            WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
              AND nspname !~ '^pg_(toast_)?temp_' LOOP
    EXECUTE 'DROP SCHEMA ' || quote_ident(n) || ' CASCADE';
  END LOOP;
END $$""",
    "CREATE SCHEMA public AUTHORIZATION pg_database_owner",
    "GRANT USAGE ON SCHEMA public TO PUBLIC",
    "COMMENT ON SCHEMA public IS 'standard public schema'",
)


class PgDatabases:
    """Fresh PostgreSQL databases for tests, on the server of ``admin`` (an AUTOCOMMIT
    SQLAlchemy engine): :meth:`take` (at head, no rows) and :meth:`take_blank` (no
    table). ``url(name)`` gives a database's URL, ``new_name(kind)`` a new name of the
    run, ``settings`` the SQL (with ``{name}``) run on each new database.

    A database given back is recycled by a background thread: its connections are
    ended, then one with the template's shape (:data:`SHAPE` with :data:`REVISION`) is
    emptied (:meth:`_empty`) and handed out by :meth:`take` again; any other (a test
    migrated it, or made a library in a blank one) is emptied of its schema
    (:data:`CLEAR`) and handed out by :meth:`take_blank` if it then has a new
    database's shape, else dropped. A test takes a recycled database when one is ready,
    else a new one (``CREATE DATABASE``: ~0.2 s, no checkpoint), so it never waits for
    a recycling. :meth:`close` drops them all at once.
    """

    def __init__(
        self,
        admin: Any,
        template: str,
        url: Callable[[str], str],
        new_name: Callable[[str], str],
        settings: str,
    ) -> None:
        self.admin = admin
        self.template = template
        self.url = url
        self.new_name = new_name
        self.settings = settings
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="pg-recycle")
        self._ready: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._blank: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._all: set[str] = set()
        self._lock = threading.Lock()
        self._jobs: list[Future[None]] = []
        self._shape = self._describe(template)
        self._blank_shape: str | None = None

    def _connect(self, name: str) -> Any:
        from sqlalchemy import create_engine
        from sqlalchemy.pool import NullPool

        return create_engine(self.url(name), poolclass=NullPool)

    def _shape_of(self, conn: Any) -> str:
        from sqlalchemy import text

        versioned = conn.scalar(text("SELECT to_regclass('public.alembic_version') IS NOT NULL"))
        return str(conn.scalar(text(SHAPE.format(revision=REVISION if versioned else ""))))

    def _describe(self, name: str) -> str:
        engine = self._connect(name)
        try:
            with engine.connect() as conn:
                return self._shape_of(conn)
        finally:
            engine.dispose()

    def _create(self, kind: str, template: str | None) -> str:
        name = self.new_name(kind)
        source = f' TEMPLATE "{template}"' if template else ""
        with self.admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"{source}')
            conn.exec_driver_sql(self.settings.format(name=name))
        with self._lock:
            self._all.add(name)
        return name

    def take(self) -> str:
        """Return the name of a database at head with no rows: a recycled one, else a clone."""
        try:
            return self._ready.get_nowait()
        except queue.Empty:
            return self._create("t", self.template)

    def take_blank(self) -> str:
        """Return the name of a database with no table (a recycled one, else a new one)."""
        try:
            return self._blank.get_nowait()
        except queue.Empty:
            name = self._create("new", None)
            if self._blank_shape is None:
                self._blank_shape = self._describe(name)
            return name

    def give_back(self, name: str) -> None:
        """Recycle database ``name`` in the background: its connections in a transaction or a
        query are ended first; idle ones (the engines ``db.make_engine`` keeps in a test
        process) stay, warm, for the next test that takes it."""
        self._jobs.append(self._worker.submit(self._recycle, name))

    def _end_connections(self, name: str) -> None:
        from sqlalchemy import text

        others = text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = :name AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'"
        )
        deadline = time.monotonic() + 20
        with self.admin.connect() as conn:  # end the busy ones; wait until gone
            while conn.scalar(others, {"name": name}) and time.monotonic() < deadline:
                time.sleep(0.005)

    def _recycle(self, name: str) -> None:
        """Empty database ``name`` and hand it out again as what its shape is, else drop it."""
        from sqlalchemy.exc import SQLAlchemyError

        from readinglist import db

        self._end_connections(name)
        engine = db.make_engine(self.url(name))  # the test's kept engine: its idle connection
        to: queue.SimpleQueue[str] | None = None
        try:
            with engine.begin() as conn:
                conn.exec_driver_sql("SET LOCAL lock_timeout = '20s'")
                shape = self._shape_of(conn)
                if shape == self._shape:
                    self._empty(conn)
                    to = self._ready
                elif self._blank_shape is not None:  # else no blank one is known: drop it
                    if shape != self._blank_shape:
                        for statement in CLEAR:
                            conn.exec_driver_sql(statement)
                        shape = self._shape_of(conn)  # the cleared schema, same transaction
                    to = self._blank if shape == self._blank_shape else None
        except SQLAlchemyError:
            to = None
        finally:
            db.release(engine)
        if to is not None:
            to.put(name)
        else:
            self._drop([name])

    def _empty(self, conn: Any) -> None:
        """Delete every row of the tables a test wrote to, in ``conn``'s transaction, and
        start every sequence again: the database then reads and plans as a fresh clone.

        ``TRUNCATE`` gives each table and index new files (0.2-0.7 s for the 14 tables
        here, most of a recycling); a table that was never written has no page and is
        left alone. A small table never analysed is emptied with ``DELETE`` (foreign
        keys and triggers off: ``session_replication_role = replica``): its dead rows
        are invisible, and the planner takes a table of fewer than 10 pages that was
        never vacuumed or analysed for 10 pages whatever it holds (PostgreSQL 14+,
        ``table_block_relation_estimate_size``), as it does an empty one. A table that
        was analysed (statistics a fresh clone lacks) or is larger is truncated.
        """
        rows = conn.exec_driver_sql(
            "SELECT quote_ident(c.relname), c.reltuples < 0 AND "
            "pg_relation_size(c.oid) < 10 * current_setting('block_size')::int "
            "FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace "
            "AND c.relkind = 'r' AND c.relname <> 'alembic_version' "
            "AND pg_relation_size(c.oid) > 0"
        ).all()
        small = [table for table, fresh in rows if fresh]
        large = [table for table, fresh in rows if not fresh]
        if small:
            conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
            for table in small:
                conn.exec_driver_sql(f"DELETE FROM {table}")
            conn.exec_driver_sql("SET LOCAL session_replication_role = origin")
        if large:
            conn.exec_driver_sql(f"TRUNCATE {', '.join(large)} CASCADE")
        conn.exec_driver_sql(
            "SELECT setval(s.seqrelid, s.seqstart, false) FROM pg_sequence s "
            "JOIN pg_class c ON c.oid = s.seqrelid "
            "WHERE c.relnamespace = 'public'::regnamespace"
        ).all()

    def _drop(self, names: list[str]) -> None:
        """Drop databases ``names``, each from its own connection at once: the checkpoints
        their ``DROP DATABASE`` requests are shared, not one after another."""

        def drop(name: str) -> None:
            with self.admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

        with self._lock:
            self._all.difference_update(names)
        with ThreadPoolExecutor(max(1, len(names)), thread_name_prefix="pg-drop") as pool:
            list(pool.map(drop, names))

    def close(self, *also: str) -> None:
        """Wait for the recycling, then drop every database made and ``also`` (the
        template) at once; raise the first recycling error."""
        self._worker.shutdown(wait=True)
        with self._lock:
            names = sorted(self._all)
        self._drop([*names, *also])
        self.admin.dispose()
        for job in self._jobs:
            job.result()
