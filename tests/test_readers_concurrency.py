"""Readers deciding at once: 4 processes running the real ``mark`` command on the same few
papers, one more exporting meanwhile; nothing lost, crossed, locked or torn. SQLite and
PostgreSQL. The full 4 x 1,000 is ``benchmarks/readers.py concurrency``; this runs the
same code small (~60 commands), its worker processes forked from the tests' fork server
(``workers.run_bench_jobs``) instead of five interpreters started."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from sqlalchemy import select, update

from readinglist import db
from readinglist.tables import DECISIONS, READERS

ROOT = Path(__file__).resolve().parent.parent
READERS_COUNT = 4
DECISIONS_EACH = 15
EXPORTS = 4


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_readers", ROOT / "benchmarks" / "readers.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_plan_replay_counts_changes_and_moments(bench: ModuleType) -> None:
    changes, states = bench.replay(
        [("p1", "to-read"), ("p1", "to-read"), ("p2", "read"), ("p1", "skipped")]
    )
    assert changes == {"p1": [("new", "to-read"), ("to-read", "skipped")], "p2": [("new", "read")]}
    assert states[0] == {}
    assert states[2] == {"p1": "to-read"}
    assert states[-1] == {"p1": "skipped", "p2": "read"}


@pytest.mark.slow
def test_readers_deciding_at_once_lose_and_cross_nothing(bench: ModuleType, db_url: str) -> None:
    from functools import partial

    from workers import run_bench_jobs

    # the workers are forked from the tests' fork server, not new interpreters
    run = partial(run_bench_jobs, str(ROOT / "benchmarks" / "readers.py"))
    got = bench.run_concurrency(db_url, READERS_COUNT, DECISIONS_EACH, run)
    assert got["first_failures"] == []
    assert (got["failures"], got["locked"], got["lost"], got["crossed"]) == (0, 0, 0, 0)
    assert got["exports"] >= 1
    assert (got["exports_impossible"], got["exports_torn"]) == (0, 0)
    # The check can fail: a decision moved to another reader is crossed and lost.
    engine = db.make_engine(db_url)
    with engine.begin() as conn:
        first = conn.scalar(select(READERS.c.id).where(READERS.c.name == "reader1"))
        conn.execute(
            update(DECISIONS)
            .where(DECISIONS.c.reader_id == first, DECISIONS.c.status != "new")
            .values(status="skipped")  # reader1 decides only reading / read
        )
    engine.dispose()
    broken = bench.check(db_url, READERS_COUNT, DECISIONS_EACH, [{"p000": "read"}])
    assert broken["crossed"] > 0
    assert broken["lost"] > 0
    assert broken["exports_impossible"] == 1
    assert broken["exports_torn"] == 1


def test_an_export_is_one_moment_while_a_reader_flips_every_paper(invoke, db_url: str) -> None:
    """A writer flips all papers of reader ana between to-read and skipped, one transaction
    a flip, while ana's Markdown list is exported: every export has one status throughout,
    though it reads the papers in several statements (more papers than a chunk)."""
    import threading

    from helpers import seed

    from readinglist import decided
    from readinglist.formats import markdown
    from readinglist.library import marks
    from readinglist.library._sql import CHUNK
    from readinglist.records import PaperRecord

    seed(db_url, *(PaperRecord(citekey=f"k{i:04d}", title=f"T {i}") for i in range(CHUNK + 20)))
    assert invoke("--reader", "ana", "mark", "to-read", "-q", "key:k*").exit_code == 0
    engine = db.make_engine(db_url)
    stop = threading.Event()

    def flip() -> None:
        decided.use("ana")
        status = "skipped"
        while not stop.is_set():
            with db.connection_scope(engine) as conn:
                ids = list(conn.scalars(select(DECISIONS.c.paper_id)))
                marks.write_status(conn, dict.fromkeys(ids, "x"), status)
            status = "to-read" if status == "skipped" else "skipped"

    writer = threading.Thread(target=flip)
    writer.start()
    try:
        seen = []
        for _ in range(EXPORTS):
            result = invoke("--reader", "ana", "export", "markdown")
            assert result.exit_code == 0, result.output
            statuses = [r.status for r in markdown.read(result.stdout, "x.md").records]
            assert len(statuses) == CHUNK + 20
            seen.append(sorted(set(statuses)))
    finally:
        stop.set()
        writer.join()
        engine.dispose()
    assert all(len(kinds) == 1 for kinds in seen), seen
