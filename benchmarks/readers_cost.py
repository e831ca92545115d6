"""What readers cost one reader: ``list --limit 50 QUERY`` and one decision, before and after.

``python benchmarks/readers_cost.py URL N [old]`` builds a synthetic library of N papers
at URL (statuses on 32%, priorities on 15%, the implicit reader's), then for each query
of :data:`QUERIES` counts the SQL statements and times (median of 7, warm, in-process)
``query.paper_ids(session, QUERY, limit=50)`` plus the 50 listing records, and one
``mark`` of one paper (``marks.write_status`` on a Core connection, committed). With
``old`` the code of revision 0007 in /work/main runs instead (the editable install is
bypassed), so the two can be compared on the same data. Timings under load: prefer
the statement counts.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from typing import Any

if len(sys.argv) > 3 and sys.argv[3] == "old":
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, "/work/main")

from sqlalchemy import event, select, update

from readinglist import db, library, query
from readinglist.records import PaperRecord
from readinglist.records import Person as PersonRecord

QUERIES = ["", "status:to-read", "learning", "learning -status:read", "priority:high", "year:2020"]
WORDS = [
    "learning",
    "neural",
    "fish",
    "salmon",
    "translation",
    "graph",
    "robust",
    "policy",
    "model",
    "data",
]


def build(url: str, n: int) -> None:
    rng = random.Random(3)
    records = [
        PaperRecord(
            citekey=f"p{i}",
            title=" ".join(rng.choice(WORDS) for _ in range(6)) + f" {i}",
            year=2015 + i % 10,
            authors=(PersonRecord(family=f"Author{i % 997}", given="A."),),
        )
        for i in range(n)
    ]
    engine = db.make_engine(url)
    db.ensure_schema(engine)
    with db.session_scope(engine) as session:
        library.import_records(session, records, source="synthetic", fmt="test")
    with db.session_scope(engine) as session:
        from readinglist.models import Paper

        ids = list(session.scalars(select(Paper.id)))
        new = hasattr(__import__("readinglist.library.marks").library.marks, "write_decisions")
        for status in ("to-read", "reading", "read", "skipped"):
            chosen = [i for i in ids if rng.random() < 0.08]
            if new:
                from readinglist.library import marks, readers

                marks.write_decisions(session, readers.ensure(session), chosen, {"status": status})
            else:
                session.execute(update(Paper).where(Paper.id.in_(chosen)).values(status=status))
        chosen = [i for i in ids if rng.random() < 0.15]
        if new:
            marks.write_decisions(session, readers.ensure(session), chosen, {"priority": 1})
        else:
            session.execute(update(Paper).where(Paper.id.in_(chosen)).values(priority=1))
    with engine.connect() as conn:
        conn.exec_driver_sql("ANALYZE") if engine.dialect.name == "sqlite" else None
    engine.dispose()


def measure(url: str) -> None:
    from readinglist.library import listing, marks

    engine = db.make_engine(url)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    print("| query | statements | median ms | matches shown |")
    print("|---|---:|---:|---:|")
    for text in QUERIES:
        times = []
        for _ in range(7):
            statements.clear()
            start = time.perf_counter()
            with db.session_scope(engine, write=False) as session:
                ids = query.paper_ids(session, text, limit=50)
                shown = list(listing.iter_listing(session, ids, table=True))
            times.append((time.perf_counter() - start) * 1000)
        print(
            f"| `{text or '(all)'}` | {len(statements)} | {statistics.median(times):.1f} | {len(shown)} |"
        )
    times = []
    counts = []
    for i in range(7):
        statements.clear()
        start = time.perf_counter()
        with db.connection_scope(engine) as conn:
            status = "read" if i % 2 else "to-read"
            marks.write_status(conn, {i + 1: "new" if i < 2 else "x"}, status)
        times.append((time.perf_counter() - start) * 1000)
        counts.append(len(statements))
    print(f"| one decision (mark) | {max(counts)} | {statistics.median(times):.1f} | 1 |")
    engine.dispose()


def main() -> Any:
    url, n = sys.argv[1], int(sys.argv[2])
    if not (url.startswith("sqlite:///") and __import__("os").path.exists(url[10:])):
        build(url, n)
    measure(url)


if __name__ == "__main__":
    main()
