"""Issue 17, item 3: where the CPU of one import goes, chunk by chunk (a benchmark-only driver).

Usage (from the project root)::

    .venv/bin/python benchmarks/import_chunks.py --pg-database mine FILE.bib
    .venv/bin/python benchmarks/import_chunks.py --db path/to/new.db FILE.bib

Runs ``readinglist --db URL import FILE`` in this process (the CLI's own code path,
reader process included) with :class:`readinglist.library.Importer`'s steps wrapped by
timers; nothing in the library changes. ``--pg-database NAME`` drops and creates
that PostgreSQL database first (on the tests' server, ``READINGLIST_TEST_PG``); pick a
name no other run uses. Every ``--every`` records it prints one line: entries so far,
then milliseconds of CPU per entry over that window, client side by step (candidate
look-ups, key look-ups, matching, writing, of which ``ANALYZE``), the garbage
collector's share, the rest of the process (reading the reader's pipe), and the
PostgreSQL backend's CPU (``/proc/PID/stat`` of ``pg_backend_pid()``). Client CPU is
``time.process_time`` of this process (the reader process is not counted).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PG_ADMIN = os.environ.get(
    "READINGLIST_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)

#: CPU seconds per step since the last line printed.
spent: dict[str, float] = defaultdict(float)
#: The backend's pid (PostgreSQL), once known.
backend: list[int] = []


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (0 when gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_cpu() -> float:
    """CPU seconds of the import's backend so far (0 on SQLite)."""
    return proc_cpu(backend[0]) if backend else 0.0


def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with its client and server CPU added to ``spent[name]``."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        client, server = time.process_time(), server_cpu()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] += time.process_time() - client
            spent[f"server {name}"] += server_cpu() - server

    return wrapper


def gc_timer() -> Callable[[str, dict[str, int]], None]:
    """A ``gc.callbacks`` entry adding the collector's CPU to ``spent["gc"]``
    (``spent["gc2"]`` for full collections)."""
    started: list[float] = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            took = time.process_time() - started[0]
            spent["gc"] += took
            if info.get("generation") == 2:
                spent["gc2"] += took

    return callback


def fresh_pg(name: str) -> str:
    """Drop and create database ``name``; return its URL."""
    from sqlalchemy import create_engine, text

    engine = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return f"{PG_ADMIN.rpartition('/')[0]}/{name}"


STEPS = ("candidates", "keys", "match", "write", "analyze", "gc", "gc2", "other")


def instrument(every: int) -> None:
    """Wrap the Importer's steps; print a line every ``every`` records."""
    from sqlalchemy import func, select

    from readinglist.library import _sql, importing, refs

    importing.load_candidates = timed("candidates", importing.load_candidates)
    refs.KeyRegistry.prefetch = timed("keys", refs.KeyRegistry.prefetch)  # type: ignore[method-assign]
    importing.Importer._write = timed("write", importing.Importer._write)  # type: ignore[method-assign]
    _sql.Statistics.grew = timed("analyze", _sql.Statistics.grew)  # type: ignore[method-assign]
    importing.insert_papers = timed("papers", importing.insert_papers)
    importing.insert_people = timed("people", importing.insert_people)
    add_prepared = importing.Importer.add_prepared
    state = {"entries": 0, "printed": 0, "client": time.process_time(), "server": 0.0}
    print(
        "entries  ms/entry: client = candidates keys match write(analyze) gc(gc2) other"
        " | server = candidates keys write other (write: papers people analyze)"
        " | heap objects",
        file=sys.stderr,
        flush=True,
    )

    def wrapped(self: Any, prepared: list[Any]) -> None:
        if not backend and self.session.get_bind().dialect.name == "postgresql":
            backend.append(int(self.session.scalar(select(func.pg_backend_pid()))))
            state["server"] = server_cpu()
        client = time.process_time()
        server = server_cpu()
        add_prepared(self, prepared)
        spent["add"] += time.process_time() - client
        spent["server add"] += server_cpu() - server
        state["entries"] += len(prepared)
        if state["entries"] - state["printed"] >= every:
            report(state)

    importing.Importer.add_prepared = wrapped  # type: ignore[method-assign]


def report(state: dict[str, Any]) -> None:
    """Print the window since the last line and start a new one."""
    n = state["entries"] - state["printed"]
    now_client, now_server = time.process_time(), server_cpu()
    client = now_client - state["client"]
    server = now_server - state["server"]

    def ms(value: float) -> str:
        return f"{value * 1000 / n:6.3f}"

    inside = spent["add"]
    match = inside - spent["candidates"] - spent["keys"] - spent["write"]
    client_parts = [
        spent["candidates"],
        spent["keys"],
        match,
        spent["write"],
    ]
    server_parts = [
        spent["server candidates"],
        spent["server keys"],
        spent["server write"],
        server - spent["server candidates"] - spent["server keys"] - spent["server write"],
    ]
    print(
        f"{state['entries']:>7} {ms(client)} = "
        + " ".join(ms(v) for v in client_parts)
        + f"({ms(spent['analyze'])}) {ms(spent['gc'])}({ms(spent['gc2'])}) {ms(client - inside)}"
        + f" | {ms(server)} = "
        + " ".join(ms(v) for v in server_parts)
        + f" (papers {ms(spent['server papers'])} people {ms(spent['server people'])}"
        + f" analyze {ms(spent['server analyze'])})"
        + f" | {len(gc.get_objects()):,}",
        file=sys.stderr,
        flush=True,
    )
    spent.clear()
    state.update(printed=state["entries"], client=now_client, server=now_server)


def watch_statements(slower_than: float) -> Callable[[], None]:
    """Count the statements (by their first 160 characters) that took longer than
    ``slower_than`` seconds of wall time; return a function printing them."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    slow: dict[str, list[float]] = defaultdict(list)

    @event.listens_for(Engine, "before_cursor_execute")
    def before(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        conn.info["started"] = time.perf_counter()

    @event.listens_for(Engine, "after_cursor_execute")
    def after(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        took = time.perf_counter() - conn.info.pop("started", time.perf_counter())
        if took > slower_than:
            slow[" ".join(statement.split())[:160]].append(took)

    def show() -> None:
        for statement, times in sorted(slow.items(), key=lambda item: -sum(item[1])):
            print(
                f"{len(times):6} x {sum(times) / len(times) * 1000:7.1f} ms  {statement}",
                file=sys.stderr,
            )

    return show


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", help="an SQLite file (made anew) or a URL")
    where.add_argument("--pg-database", help="a PostgreSQL database name, made anew")
    parser.add_argument("--every", type=int, default=20_000, help="records per line")
    parser.add_argument(
        "--slow", type=float, default=0.0, help="list the statements slower than this (ms)"
    )
    args = parser.parse_args()
    if args.pg_database:
        url = fresh_pg(args.pg_database)
    else:
        url = args.db
        if "://" not in url:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{url}{suffix}").unlink(missing_ok=True)
    gc.callbacks.append(gc_timer())
    instrument(args.every)
    show = watch_statements(args.slow / 1000) if args.slow else None
    sys.argv = ["readinglist", "--db", url, "import", args.file]
    from readinglist.cli._root import run

    started = time.perf_counter()
    try:
        run("readinglist")
    finally:
        usage = os.times()
        print(
            f"wall {time.perf_counter() - started:.0f} s, client cpu {usage.user + usage.system:.1f} s"
            f" (reader process: {usage.children_user + usage.children_system:.1f} s),"
            f" backend cpu {server_cpu():.1f} s",
            file=sys.stderr,
            flush=True,
        )
        if show is not None:
            show()


if __name__ == "__main__":
    main()
