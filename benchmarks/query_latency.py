"""Latency of typical queries on 10,000 and 100,000 papers, SQLite and PostgreSQL (issue 6).

Usage::

    .venv/bin/python benchmarks/query_latency.py [--sizes 10000 100000] [--no-pg]
        [--pg-server postgresql+psycopg://postgres@127.0.0.1:5432/] [--rebuild]

Libraries (built once, then reused):

* SQLite ``benchmarks/work/query-10k.db``, ``query-100k.db`` (git-ignored), each with
  a marker ``query-<size>.json`` written when its build finished. A library is the
  first N papers of one sequence: the ACL Anthology 2021 file, then the Beebe
  fisheries entries (``../shared/data/``), read once with readinglist.formats.bibtex
  and imported with ``library.import_records`` (duplicates merge); then statuses,
  priorities, tags, notes, addition dates and provisional titles spread with a fixed seed
  (:func:`add_user_state`); then ``ANALYZE`` and ``PRAGMA optimize``.
* PostgreSQL databases ``rl_bench_10k``, ``rl_bench_100k`` on ``--pg-server``
  (created through its ``postgres`` database when missing), filled by copying the
  SQLite library table by table, then ``VACUUM ANALYZE`` (what autovacuum gives a
  long-lived library). Recopied when the SQLite library was rebuilt or the paper
  count differs.

Measured per library and query: ``query.paper_ids(session, QUERY, limit=50)``
in-process (median and best of 5, ms; CPU ms), the match count, and on the largest
SQLite library the wall time of ``readinglist list --limit 50 -k QUERY`` in a new
process (best of 3, start-up included); then the query plans of the slowest
queries (every one over 100 ms, at least three). At the end one summary table
(median ms per library), also written to ``benchmarks/QUERY_LATENCY.md`` with the
date, load average and versions. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event, func, select, text, update

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data"
WORK = HERE / "work"
REPORT = HERE / "QUERY_LATENCY.md"
PG_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/"

#: Typical queries: free text, phrase, prefix, OR, negation, every field term, a group.
QUERIES = [
    "",
    "learning",
    "translation",
    '"neural machine translation"',
    "translat*",
    "salmon OR trout",
    "learning -neural",
    "learning year:2020 -status:read",
    "title:neural",
    "title:xylophone",
    "author:smith",
    'author:"Smith, J"',
    "author:a",
    "venue:fisheries",
    "venue:computational",
    "tag:ml",
    "tag:ml status:to-read",
    "-tag:old year:2020",
    "status:to-read",
    "priority:high",
    "year:2019..2020",
    "year:..2000",
    "added:-7d..",
    "key:smith*",
    "doi:10.18653/*",
    "has:abstract",
    "has:notes",
    "is:provisional",
    "(tag:ml OR tag:fish) -has:abstract year:..2010",
]
SORTS = ["added", "year", "title", "key", "priority", "status"]
#: A query slower than this (median, ms) gets its plan printed and reported.
SLOW_MS = 100.0
#: Every paper whose id is a multiple of this counts as added in the last two days.
RECENT_EVERY = 100
#: Papers with ``id % PROVISIONAL_EVERY == 3`` have a provisional title (``is:provisional``).
PROVISIONAL_EVERY = 250
#: Plans are kept for the queries over SLOW_MS and at least this many of the slowest.
PLANS = 3
RUNS = 5


# --- building --------------------------------------------------------------------------------


def first_entries(text_value: str, count: int) -> str:
    """Cut the text before the (count+1)-th line starting with ``@Article{`` (SOURCES.md)."""
    starts = [m.start() for m in re.finditer(r"^@Article\{", text_value, re.MULTILINE)]
    return text_value if len(starts) <= count else text_value[: starts[count]]


def read_gz(path: Path) -> str:
    """Return the text of a gzip-compressed UTF-8 file."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return handle.read()


def read_records(papers: int) -> list[Any]:
    """Return the record sequence the libraries are cut from: every ACL record, then enough
    Beebe fisheries records (10% more than missing, for duplicates) for ``papers`` papers."""
    from readinglist.formats import bibtex

    t = time.perf_counter()
    records: list[Any] = list(
        bibtex.read(read_gz(DATA / "acl-anthology-2021-06.bib.gz"), "acl").records
    )
    log(f"read ACL: {len(records)} records in {time.perf_counter() - t:.0f} s")
    if len(records) < papers:
        fish = first_entries(
            read_gz(DATA / "beebe-fisheries-journals.bib.gz"), int((papers - len(records)) * 1.1)
        )
        t = time.perf_counter()
        more = bibtex.read(fish, "fish").records
        log(f"read fisheries: {len(more)} records in {time.perf_counter() - t:.0f} s")
        records += more
    return records


def build(url: str, records: list[Any], papers: int) -> None:
    """Import ``records`` in order into the empty library at ``url`` until it holds exactly
    ``papers`` papers (each slice is at most the number still missing, so no paper beyond
    the first ``papers`` of the sequence is added), then add user state."""
    from readinglist import db, library

    engine = db.make_engine(url)
    db.ensure_schema(engine)
    t = time.perf_counter()
    have, position = 0, 0
    while have < papers and position < len(records):
        step = min(20_000, papers - have)
        with db.session_scope(engine) as session:
            library.import_records(
                session, records[position : position + step], source="bench", fmt="bibtex"
            )
            have = library.count_papers(session)
        position += step
    engine.dispose()
    if have < papers:
        raise SystemExit(f"only {have} papers from {len(records)} records; wanted {papers}")
    log(f"imported {have} papers into {url}: {time.perf_counter() - t:.0f} s")
    add_user_state(url)


def add_user_state(url: str) -> None:
    """Spread statuses, priorities, tags, notes and addition dates over the library at
    ``url`` with fixed random seeds (6 and 7), as a user's library would have them.

    Papers are dated over the three years before now in id order; those with
    ``id % RECENT_EVERY == 0`` two days ago; a few titles are marked provisional
    (see :func:`refresh_state`). Also used by
    ``benchmarks/run.py`` on its 100k library.
    """
    from readinglist import db, library
    from readinglist.library import marks, readers
    from readinglist.models import Note, Paper

    engine = db.make_engine(url)
    rng = random.Random(6)
    with db.session_scope(engine) as session:
        ids = list(session.scalars(select(Paper.id).order_by(Paper.id)))
        reader = readers.ensure(session)  # the implicit reader's decisions
        for status in ("to-read", "reading", "read", "skipped"):
            chosen = [i for i in ids if rng.random() < 0.08]
            marks.write_decisions(session, reader, chosen, {"status": status})
        for code in (1, 2, 3):
            chosen = [i for i in ids if rng.random() < 0.05]
            marks.write_decisions(session, reader, chosen, {"priority": code})
        tags = ["ml", "ml/nlp", "ml/vision", "fish", "fish/salmon", "thesis", "old", "survey"]
        by_tag: dict[str, list[int]] = {}
        for paper_id in ids:
            if rng.random() < 0.2:
                by_tag.setdefault(rng.choice(tags), []).append(paper_id)
        for tag, tagged in by_tag.items():
            for start in range(0, len(tagged), 2000):
                chunk = library.load_papers(session, tagged[start : start + 2000])
                library.add_tags(session, chunk, [tag])
        noted = [i for i in ids if rng.random() < 0.01]
        for paper_id in noted:
            session.add(
                Note(
                    paper_id=paper_id,
                    reader_id=reader,
                    shared=False,
                    body="Worth a second look: the sampling design.",
                )
            )
        session.flush()
        library.refresh_search_text(session, noted)
        dates = random.Random(7)
        now = datetime.now(UTC)
        days = sorted((dates.uniform(3, 3 * 365) for _ in ids), reverse=True)
        session.execute(
            update(Paper),
            [
                {"id": i, "added_at": now - timedelta(days=d)}
                for i, d in zip(ids, days, strict=True)
            ],
        )
        refresh_state(session)
    engine.dispose()


def refresh_state(session: Any) -> int:
    """Date the papers with ``id % RECENT_EVERY == 0`` two days ago where they are older
    than three days, so that ``added:-7d..`` selects about 1% whenever the benchmark runs,
    and mark the titles of the papers with ``id % PROVISIONAL_EVERY == 3`` provisional
    (as titles taken from pasted abstracts are). Returns the number of papers changed."""
    from sqlalchemy import false

    from readinglist.models import Paper

    now = datetime.now(UTC)
    changed = 0
    for statement in (
        update(Paper)
        .where(Paper.id % RECENT_EVERY == 0, Paper.added_at < now - timedelta(days=3))
        .values(added_at=now - timedelta(days=2)),
        update(Paper)
        .where(Paper.id % PROVISIONAL_EVERY == 3, Paper.title_provisional == false())
        .values(title_provisional=True),
    ):
        result = session.execute(statement.execution_options(synchronize_session=False))
        changed += int(result.rowcount or 0)
    return changed


def optimize_sqlite(path: Path) -> None:
    """``ANALYZE`` then ``PRAGMA optimize`` (statistics a long-lived library would have;
    SQLite 3.40's optimize alone analyses nothing on a new connection), then fold the WAL."""
    with sqlite3.connect(path) as conn:
        conn.execute("ANALYZE")
        conn.execute("PRAGMA optimize")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def copy_library(source_url: str, target_url: str) -> None:
    """Copy every table of the SQLite library into an empty PostgreSQL one at head, then
    ``VACUUM ANALYZE``. Much faster than a second import; ``search_vector`` fills itself."""
    from sqlalchemy import insert

    from readinglist import db
    from readinglist.models import Base

    source, target = db.make_engine(source_url), db.make_engine(target_url)
    db.ensure_schema(target)
    t = time.perf_counter()
    with source.connect() as src, target.begin() as dst:
        for table in Base.metadata.sorted_tables:
            result = src.execution_options(stream_results=True).execute(select(table))
            for rows in result.partitions(5000):
                dst.execute(insert(table), [dict(r._mapping) for r in rows])
            if "id" in table.c:
                dst.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                        f"(SELECT coalesce(max(id), 1) FROM {table.name}))"
                    )
                )
    with target.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))
    log(f"copied into {target_url} and analysed: {time.perf_counter() - t:.0f} s")
    source.dispose()
    target.dispose()


def pg_database(server: str, name: str, *, fresh: bool) -> str:
    """Return the URL of database ``name`` on ``server``, creating it (through the
    ``postgres`` database) when missing, or dropping and recreating it when ``fresh``."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    base = make_url(server)
    admin = create_engine(base.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        found = conn.scalar(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
        if found and fresh:
            conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
            found = None
        if not found:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


def paper_count(url: str) -> int:
    """Return the number of papers at ``url``; -1 when it has no readinglist schema."""
    from readinglist import db, library

    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            if db.current_revision(conn) is None:
                return -1
        db.ensure_schema(engine)
        with db.session_scope(engine, write=False) as session:
            return library.count_papers(session)
    finally:
        engine.dispose()


@dataclass
class Library:
    """One benchmark library: database kind, size, URL; and what was measured on it."""

    dialect: str
    size: int
    url: str
    rows: dict[str, Row] = field(default_factory=dict)
    plans: dict[str, list[str]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        name = "SQLite" if self.dialect == "sqlite" else "PostgreSQL"
        return f"{name} {short(self.size)}"


@dataclass
class Row:
    """The measurements of one query on one library (ms; CLI wall ms or None)."""

    median: float
    best: float
    cpu: float
    matches: int | None = None
    cli: float | None = None


def short(size: int) -> str:
    """10000 -> ``10k``, 100000 -> ``100k``, 2500 -> ``2500``."""
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)


def sqlite_libraries(sizes: list[int], rebuild: bool) -> tuple[list[Library], set[int]]:
    """Return the SQLite libraries, building those missing (reading the data once), and
    the sizes built in this run."""
    WORK.mkdir(parents=True, exist_ok=True)
    paths = {size: WORK / f"query-{short(size)}.db" for size in sizes}
    missing = []
    for size, path in paths.items():
        marker = path.with_suffix(".json")
        ready = (
            not rebuild
            and marker.exists()
            and path.exists()
            and json.loads(marker.read_text()).get("papers") == size
            and paper_count(f"sqlite:///{path}") == size
        )
        if not ready:
            missing.append(size)
    if missing:
        records = read_records(max(missing))
        for size in missing:
            path = paths[size]
            for stale in (
                path,
                Path(f"{path}-wal"),
                Path(f"{path}-shm"),
                path.with_suffix(".json"),
            ):
                stale.unlink(missing_ok=True)
            t = time.perf_counter()
            build(f"sqlite:///{path}", records, size)
            optimize_sqlite(path)
            path.with_suffix(".json").write_text(
                json.dumps(
                    {
                        "papers": size,
                        "built": datetime.now(UTC).isoformat(timespec="seconds"),
                        "seconds": round(time.perf_counter() - t),
                        "records": "ACL Anthology 2021-06, then Beebe fisheries, in file order",
                    }
                )
            )
        del records
    return [Library("sqlite", s, f"sqlite:///{paths[s]}") for s in sizes], set(missing)


def pg_libraries(
    server: str, sources: list[Library], rebuilt: set[int], rebuild: bool
) -> list[Library]:
    """Return the PostgreSQL libraries, copying each SQLite library that changed."""
    result = []
    for source in sources:
        name = f"rl_bench_{short(source.size)}"
        url = pg_database(server, name, fresh=False)
        if rebuild or source.size in rebuilt or paper_count(url) != source.size:
            url = pg_database(server, name, fresh=True)
            copy_library(source.url, url)
        result.append(Library("postgresql", source.size, url))
    return result


# --- measuring -------------------------------------------------------------------------------


def measure(lib: Library, *, cli: bool) -> None:
    """Time every query and sort on ``lib``, print the detail, and keep the plans of the
    slowest queries in ``lib.plans``. ``cli``: also time the command in a new process."""
    from readinglist import db, library, query
    from readinglist.models import Paper

    engine = db.make_engine(lib.url)
    with db.session_scope(engine) as session:
        refreshed = refresh_state(session)
    if refreshed:  # statistics as after a build
        with engine.begin() as conn:  # ANALYZE may run in a transaction on both
            conn.exec_driver_sql("ANALYZE")
    print(f"\n== {lib.label}: {engine.url.render_as_string(hide_password=True)}")
    if refreshed:
        print(f"(refreshed the dates or provisional titles of {refreshed} papers; analysed)")
    with db.session_scope(engine, write=False) as session:
        total = library.count_papers(session)
        print(f"papers: {total}")
        print(f"{'query':48} {'median':>8} {'best':>8} {'cpu':>8} {'matches':>8} {'CLI wall':>9}")
        query.paper_ids(session, "", limit=50)  # warm the connection and caches
        for q in QUERIES:
            times, cpu = [], []
            for _ in range(RUNS):
                t, c = time.perf_counter(), time.process_time()
                query.paper_ids(session, q, limit=50)
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
            matches = session.scalar(
                select(func.count()).select_from(Paper).where(query.filter_clause(session, q))
            )
            row = Row(statistics.median(times), min(times), min(cpu), int(matches or 0))
            if cli:
                row.cli = cli_wall(lib.url, ["list", "--limit", "50", "-k", *q.split()])
            lib.rows[q] = row
            wall = f"{row.cli:9.0f}" if row.cli is not None else ""
            print(
                f"{q or '<all>':48} {row.median:8.1f} {row.best:8.1f} "
                f"{row.cpu:8.1f} {row.matches:8d} {wall}"
            )
        for sort in SORTS:
            times = []
            for _ in range(3):
                t = time.perf_counter()
                query.paper_ids(session, "", sort=sort, limit=50)
                times.append((time.perf_counter() - t) * 1000)
            label = "<all> --sort " + sort
            lib.rows[label] = Row(statistics.median(times), min(times), float("nan"))
            print(f"{label:48} {statistics.median(times):8.1f} {min(times):8.1f}")
        for label, run in (
            ("in-process: all keys (list -k)", lambda: query.paper_keys(session, "")),
            (
                "in-process: 50 papers for a table",
                lambda: [
                    library.to_record(p, with_notes=False)
                    for p in library.list_papers(session, "learning", limit=50)
                ],
            ),
            (
                "in-process: 1000 papers for --json",
                lambda: [
                    library.to_record(p, with_notes=False)
                    for p in library.list_papers(session, "", limit=1000)
                ],
            ),
        ):
            t, c = time.perf_counter(), time.process_time()
            run()
            wall_ms, cpu_ms = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
            print(f"{label:48} {wall_ms:8.1f} {'':8} {cpu_ms:8.1f}")
        if cli:
            for label, args in (
                ("list -k (all keys)", ["list", "-k"]),
                ("list --limit 50 (table)", ["list", "--limit", "50"]),
                ("list --json --limit 1000", ["list", "--json", "--limit", "1000"]),
                ("--help (start-up only)", ["--help"]),
            ):
                print(f"{label:48} {'':8} {'':8} {'':8} {'':8} {cli_wall(lib.url, args):9.0f}")
        cases = {q: (q, None) for q in QUERIES}
        cases.update({f"<all> --sort {s}": ("", s) for s in SORTS})
        timed = sorted(cases, key=lambda label: lib.rows[label].median, reverse=True)
        slow = [label for label in timed if lib.rows[label].median > SLOW_MS]
        for label in timed[: max(PLANS, len(slow))]:
            lib.plans[label] = plan(session, *cases[label])
            print(f"\n-- plan of {label or '<all>'!r} ({lib.rows[label].median:.0f} ms)")
            for line in lib.plans[label]:
                print("   ", line)
    engine.dispose()


def cli_wall(url: str, args: list[str]) -> float:
    """Best of 3 wall-clock ms of ``readinglist --db URL ARGS`` in a new process.

    Bytecode is cached under /tmp (``PYTHONPYCACHEPREFIX``) even where
    ``PYTHONDONTWRITEBYTECODE`` is set, as an installed package would have it.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = "/tmp/readinglist-bench-pycache"
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "readinglist", "--db", url, *args],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
            env=env,
        )
        best = min(best, (time.perf_counter() - t) * 1000)
    return best


def plan(session: Any, q: str, sort: str | None = None) -> list[str]:
    """Return the plans of every statement ``paper_ids(q, sort=sort, limit=50)`` sends
    (the look-ups of ``venue:``, ``title:``, ``author:``, ``tag:`` terms, then the query),
    run again with the very parameters they bound (captured at the cursor): per statement
    a line ``[i/n] ms: SQL`` (the time of running it again and fetching every row; SQL
    cut at 120 chars), then ``EXPLAIN QUERY PLAN`` as an indented tree on SQLite or
    ``EXPLAIN (ANALYZE, BUFFERS)`` on PostgreSQL. Lines are cut at 200 chars."""
    from readinglist import query

    engine = session.get_bind()
    sent: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_rest: Any) -> None:
        if statement.lstrip().upper().startswith(("SELECT", "WITH")):  # not SQLite's BEGIN
            sent.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        query.paper_ids(session, q, sort=sort, limit=50)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    conn = session.connection()
    lines = []
    for number, (statement, parameters) in enumerate(sent, 1):
        t = time.perf_counter()
        conn.exec_driver_sql(statement, parameters).all()
        elapsed = (time.perf_counter() - t) * 1000
        lines.append(
            f"[{number}/{len(sent)}] {elapsed:.1f} ms: {' '.join(statement.split())[:120]}"
        )
        if engine.dialect.name == "sqlite":
            rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters).all()
            depth: dict[int, int] = {0: 0}
            for node, parent, _unused, detail in rows:
                depth[node] = depth.get(parent, 0) + 1
                lines.append("  " * depth[node] + detail)
        else:
            explain = "EXPLAIN (ANALYZE, BUFFERS) " + statement
            lines += ["  " + row[0] for row in conn.exec_driver_sql(explain, parameters)]
    return [line if len(line) <= 200 else line[:197] + "..." for line in lines]


# --- reporting -------------------------------------------------------------------------------


def summary(libs: list[Library]) -> tuple[list[str], list[list[str]]]:
    """Return the header and rows of the summary: median ms per library, the match count
    on the largest library (``a/b`` when SQLite and PostgreSQL differ), and the CLI wall
    time where it was measured."""
    largest = max(lib.size for lib in libs)
    counted = [lib for lib in libs if lib.size == largest]
    timed_cli = next(
        (lib for lib in libs if any(r.cli is not None for r in lib.rows.values())), None
    )
    header = ["query", *(lib.label for lib in libs), f"matches {short(largest)}"]
    if timed_cli is not None:
        header.append(f"CLI ms ({timed_cli.label})")
    rows = []
    for q in [*QUERIES, *(f"<all> --sort {s}" for s in SORTS)]:
        row = [q or "(all papers)", *(f"{lib.rows[q].median:.1f}" for lib in libs)]
        counts = sorted({lib.rows[q].matches for lib in counted if lib.rows[q].matches is not None})
        row.append("/".join(str(c) for c in counts) + (" (differ!)" if len(counts) > 1 else ""))
        if timed_cli is not None:
            cli = timed_cli.rows[q].cli
            row.append(f"{cli:.0f}" if cli is not None else "")
        rows.append(row)
    return header, rows


def print_summary(header: list[str], rows: list[list[str]]) -> None:
    """Print the summary as a plain-text table."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("\n== summary: median ms of query.paper_ids(QUERY, limit=50)")
    print(
        "  ".join(
            h.ljust(w) if i == 0 else h.rjust(w)
            for i, (h, w) in enumerate(zip(header, widths, strict=True))
        )
    )
    for row in rows:
        print(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )


def versions(libs: list[Library]) -> list[str]:
    """Return the version lines of the report: Python, SQLite, PostgreSQL, SQLAlchemy,
    psycopg, readinglist and its commit."""
    import sqlalchemy

    import readinglist

    lines = [
        f"Python {platform.python_version()}",
        f"SQLite {sqlite3.sqlite_version}",
        f"SQLAlchemy {sqlalchemy.__version__}",
    ]
    pg = next((lib for lib in libs if lib.dialect == "postgresql"), None)
    if pg is not None:
        import psycopg

        from readinglist import db

        engine = db.make_engine(pg.url)
        with engine.connect() as conn:
            lines.append(f"PostgreSQL {conn.scalar(text('SHOW server_version'))}")
        engine.dispose()
        lines.append(f"psycopg {psycopg.__version__}")
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    lines.append(f"readinglist {readinglist.__version__} ({commit or 'no git'})")
    return lines


def write_report(
    libs: list[Library], header: list[str], rows: list[list[str]], loads: list[tuple[float, ...]]
) -> None:
    """Write :data:`REPORT`: context, the summary table, and the plans of the slowest
    queries on the largest libraries (every one over :data:`SLOW_MS`, at least :data:`PLANS`)."""
    largest = max(lib.size for lib in libs)
    out = [
        "# Query latency (issue 6)",
        "",
        "Generated by `.venv/bin/python benchmarks/query_latency.py`; do not edit by hand.",
        "",
        f"- Run: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}; machine: "
        f"{platform.platform()}, {os.cpu_count()} CPUs; load average (1/5/15 min) "
        f"{' / '.join(f'{x:.2f}' for x in loads[0])} at the start, "
        f"{' / '.join(f'{x:.2f}' for x in loads[-1])} at the end.",
        f"- Versions: {', '.join(versions(libs))}.",
        "- Libraries: the first N papers of one sequence, the ACL Anthology 2021 file then "
        "Beebe's fisheries journals (`../shared/data/`), imported with duplicates merged; "
        "statuses, priorities, tags (20%), notes (1%), addition dates (over three years, "
        "1% in the last two days) and provisional titles (0.4%) spread with a fixed seed. "
        "SQLite after `ANALYZE` and `PRAGMA optimize`; PostgreSQL a copy of it after "
        "`VACUUM ANALYZE`.",
        f"- Times: median of {RUNS} runs (sorts: of 3) of `query.paper_ids(session, QUERY, "
        "limit=50)` in one warm process, in ms: parsing, the look-ups of `author:`/`title:`/"
        "`tag:` terms and the query itself. `CLI ms`: best of 3 wall times of "
        "`readinglist --db DB list --limit 50 -k QUERY` in a new process, start-up included.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
        *("| " + " | ".join([md_query(r[0]), *r[1:]]) + " |" for r in rows),
        "",
    ]
    for lib in libs:
        if lib.size != largest:
            continue
        slow = sum(lib.rows[q].median > SLOW_MS for q in lib.plans)
        out += [f"## {lib.label}: plans of the slowest ({slow} over {SLOW_MS:.0f} ms)", ""]
        for q in lib.plans:
            out += [
                f"`{q or '<all>'}` ({lib.rows[q].median:.0f} ms):",
                "",
                "```",
                *lib.plans[q],
                "```",
                "",
            ]
    REPORT.write_text("\n".join(out))
    print(f"\nwrote {REPORT.relative_to(ROOT)}")


def md_query(label: str) -> str:
    """A query as Markdown code in a table cell; the empty query's label as plain text."""
    return label if label == "(all papers)" else "`" + label.replace("|", "\\|") + "`"


def log(message: str) -> None:
    """Print a progress line to stderr."""
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    """Build what is missing, measure every library, print and write the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument("--pg-server", default=PG_SERVER, help=f"default {PG_SERVER}")
    parser.add_argument("--rebuild", action="store_true", help="build every library again")
    parser.add_argument("--no-report", action="store_true", help=f"do not write {REPORT.name}")
    args = parser.parse_args()
    sizes = sorted(set(args.sizes))
    loads = [os.getloadavg()]
    started = time.perf_counter()
    libs, rebuilt = sqlite_libraries(sizes, args.rebuild)
    if not args.no_pg:
        libs += pg_libraries(args.pg_server, list(libs), rebuilt, args.rebuild)
    cli_lib = max((lib for lib in libs if lib.dialect == "sqlite"), key=lambda lib: lib.size)
    for lib in libs:
        measure(lib, cli=lib is cli_lib)
    loads.append(os.getloadavg())
    header, rows = summary(libs)
    print_summary(header, rows)
    if not args.no_report:
        write_report(libs, header, rows, loads)
    log(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
