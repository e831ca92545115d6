"""Measure query latency on a 100k-paper library (issue 6): SQLite and PostgreSQL.

Usage::

    .venv/bin/python benchmarks/query_latency.py /tmp/bench100k.db \\
        [--pg postgresql+psycopg://postgres@127.0.0.1:5432/rl_bench] [--papers 100000]

The first run builds the libraries (the ACL Anthology 2021 file, then the first
Beebe fisheries entries up to ``--papers``, read with readinglist.formats.bibtex;
statuses, priorities, tags and notes spread over them with a fixed random seed);
later runs reuse them. Nothing here is part of the test run; never commit the
database. Prints, per query: the in-process time of ``query.paper_ids(limit=50)``
(median and best of 5, ms), the match count, and the end-to-end wall time of
``readinglist list --limit 50 -k QUERY`` (process start-up included); then the
query plans of a few queries.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select, text, update

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ROOT = Path(__file__).resolve().parents[1]

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
    "author:smith",
    'author:"Smith, J"',
    "author:a",
    "title:xylophone",
    "venue:fisheries",
    "tag:ml",
    "status:to-read",
    "priority:high",
    "year:2019..2020",
    "added:-7d..",
    "key:smith*",
    "doi:10.18653/*",
    "has:abstract",
    "has:notes",
    "is:provisional",
    "(tag:ml OR tag:fish) -has:abstract year:..2010",
]
SORTS = ["added", "year", "title", "key", "priority", "status"]


def first_entries(text_value: str, count: int) -> str:
    """Cut the text before the (count+1)-th line starting with ``@Article{`` (SOURCES.md)."""
    starts = [m.start() for m in re.finditer(r"^@Article\{", text_value, re.MULTILINE)]
    return text_value if len(starts) <= count else text_value[: starts[count]]


def read_gz(path: Path) -> str:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return handle.read()


def read_records(papers: int) -> list[Any]:
    from readinglist.formats import bibtex

    records: list[Any] = []
    acl = read_gz(DATA / "acl-anthology-2021-06.bib.gz")
    t = time.perf_counter()
    records += bibtex.read(acl, "acl").records[:papers]
    print(f"read ACL: {len(records)} records in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    if len(records) < papers:
        fish = read_gz(DATA / "beebe-fisheries-journals.bib.gz")
        # ask for a few more: duplicates are merged on import
        fish = first_entries(fish, int((papers - len(records)) * 1.1))
        t = time.perf_counter()
        more = bibtex.read(fish, "fish").records
        print(f"read fisheries: {len(more)} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        records += more
    return records


def build(url: str, records: list[Any], papers: int) -> None:
    """Import ``records`` until the library holds ``papers`` papers, then add user state."""
    from readinglist import db, library
    from readinglist.models import Paper

    engine = db.make_engine(url)
    db.ensure_schema(engine)
    with db.session_scope(engine) as session:
        have = library.count_papers(session)
    if have >= papers:
        engine.dispose()
        return
    t = time.perf_counter()
    step = 20_000
    for start in range(0, len(records), step):
        with db.session_scope(engine) as session:
            if library.count_papers(session) >= papers:
                break
            library.import_records(
                session, records[start : start + step], source="bench", fmt="bibtex"
            )
    print(f"imported into {url}: {time.perf_counter() - t:.0f} s", file=sys.stderr)
    with db.session_scope(engine) as session:
        extra = library.count_papers(session) - papers
        if extra > 0:  # keep exactly ``papers``
            newest = session.scalars(select(Paper.id).order_by(Paper.id.desc()).limit(extra)).all()
            library.delete_papers(session, library.load_papers(session, newest))
    engine.dispose()
    add_user_state(url)


def add_user_state(url: str) -> None:
    """Spread statuses, priorities, recent additions, tags and notes over the library at
    ``url`` with a fixed random seed (6), as a user's library would have them.

    Also used by ``benchmarks/run.py`` on its 100k library.
    """
    from readinglist import db, library
    from readinglist.models import Note, Paper

    engine = db.make_engine(url)
    rng = random.Random(6)
    with db.session_scope(engine) as session:
        ids = list(session.scalars(select(Paper.id).order_by(Paper.id)))
        statuses = ["to-read", "reading", "read", "skipped"]
        for status in statuses:
            chosen = [i for i in ids if rng.random() < 0.08]
            session.execute(update(Paper).where(Paper.id.in_(chosen)).values(status=status))
        for code in (1, 2, 3):
            chosen = [i for i in ids if rng.random() < 0.05]
            session.execute(update(Paper).where(Paper.id.in_(chosen)).values(priority=code))
        now = time.time()
        recent = [i for i in ids if rng.random() < 0.01]
        from datetime import UTC, datetime, timedelta

        session.execute(
            update(Paper)
            .where(Paper.id.in_(recent))
            .values(added_at=datetime.fromtimestamp(now, UTC) - timedelta(days=2))
        )
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
            session.add(Note(paper_id=paper_id, body="Worth a second look: the sampling design."))
        session.flush()
        library.refresh_search_text(session, noted)
    engine.dispose()


def measure(url: str) -> None:
    from readinglist import db, library, query
    from readinglist.models import Paper

    engine = db.make_engine(url)
    print(f"\n== {engine.dialect.name}: {url}")
    with db.session_scope(engine, write=False) as session:
        total = session.scalar(select(func.count(Paper.id)))
        print(f"papers: {total}")
        print(f"{'query':48} {'median':>8} {'best':>8} {'cpu':>8} {'matches':>8} {'CLI wall':>9}")
        for q in QUERIES:
            times, cpu = [], []
            for _ in range(5):
                t, c = time.perf_counter(), time.process_time()
                query.paper_ids(session, q, limit=50)
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
            matches = session.scalar(
                select(func.count()).select_from(Paper).where(query.filter_clause(session, q))
            )
            wall = cli_wall(
                url,
                ["list", "--limit", "50", "-k", *q.split()]
                if q
                else ["list", "--limit", "50", "-k"],
            )
            print(
                f"{q or '<all>':48} {statistics.median(times):8.1f} {min(times):8.1f} "
                f"{min(cpu):8.1f} {matches:8d} {wall:9.0f}"
            )
        for sort in SORTS:
            t = time.perf_counter()
            query.paper_ids(session, "", sort=sort, limit=50)
            print(f"{'<all> --sort ' + sort:48} {(time.perf_counter() - t) * 1000:8.1f}")
        for label, run in (
            ("in-process: all 100k keys (list -k)", lambda: query.paper_keys(session, "")),
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
            wall, cpu_ms = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
            print(f"{label:48} {wall:8.1f} {'':8} {cpu_ms:8.1f}")
        for label, args in (
            ("list -k (all keys)", ["list", "-k"]),
            ("list --limit 50 (table)", ["list", "--limit", "50"]),
            ("list --json --limit 1000", ["list", "--json", "--limit", "1000"]),
            ("--help (start-up only)", ["--help"]),
        ):
            print(f"{label:48} {'':8} {'':8} {'':8} {'':8} {cli_wall(url, args):9.0f}")
        explain(session, engine.dialect.name)
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


def explain(session: Any, dialect: str) -> None:
    from readinglist import query

    for q in (
        "learning",
        "author:smith",
        "tag:ml status:to-read",
        "learning year:2020 -status:read",
    ):
        stmt = query.statement(session, q, limit=50)
        # literal values only for EXPLAIN of these fixed benchmark queries
        compiled = stmt.compile(session.get_bind(), compile_kwargs={"literal_binds": True})
        prefix = "EXPLAIN QUERY PLAN " if dialect == "sqlite" else "EXPLAIN ANALYZE "
        rows = session.execute(text(prefix + str(compiled))).all()
        print(f"\n-- plan of {q!r}")
        for row in rows:
            print("   ", row[-1] if dialect == "sqlite" else row[0])


TABLES = (
    "import_batches",
    "people",
    "tags",
    "papers",
    "paper_people",
    "paper_tags",
    "notes",
    "status_events",
    "aliases",
)


def copy_library(source_url: str, target_url: str) -> None:
    """Copy every table of the SQLite library into an empty PostgreSQL one at head.

    Much faster than a second import; the generated ``search_vector`` fills itself.
    """
    from sqlalchemy import insert

    from readinglist import db
    from readinglist.models import Base

    source, target = db.make_engine(source_url), db.make_engine(target_url)
    db.ensure_schema(target)
    t = time.perf_counter()
    with source.connect() as src, target.begin() as dst:
        for name in TABLES:
            table = Base.metadata.tables[name]
            rows = [dict(r._mapping) for r in src.execute(select(table))]
            for start in range(0, len(rows), 5000):
                dst.execute(insert(table), rows[start : start + 5000])
            if "id" in table.c:
                dst.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                        f"(SELECT coalesce(max(id), 1) FROM {name}))"
                    )
                )
        dst.execute(text("ANALYZE"))
    print(f"copied into {target_url}: {time.perf_counter() - t:.0f} s", file=sys.stderr)
    source.dispose()
    target.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sqlite", type=Path, help="SQLite file for the benchmark library")
    parser.add_argument("--pg", help="PostgreSQL URL of an empty database (filled by copying)")
    parser.add_argument("--papers", type=int, default=100_000)
    args = parser.parse_args()
    sqlite_url = f"sqlite:///{args.sqlite.resolve()}"
    if not has_papers(sqlite_url, args.papers):
        build(sqlite_url, read_records(args.papers), args.papers)
    urls = [sqlite_url]
    if args.pg:
        if not has_papers(args.pg, 1):
            copy_library(sqlite_url, args.pg)
        urls.append(args.pg)
    for url in urls:
        measure(url)


def has_papers(url: str, papers: int) -> bool:
    """True when the library at ``url`` holds at least ``papers`` papers."""
    from readinglist import db, library

    engine = db.make_engine(url)
    db.ensure_schema(engine)
    with db.session_scope(engine) as session:
        enough = library.count_papers(session) >= papers
    engine.dispose()
    return enough


if __name__ == "__main__":
    main()
