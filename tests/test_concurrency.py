"""Several processes on one library: every operation applied exactly once, no lock errors.

* First use: 8 processes start at the same moment on a database that does not
  exist yet (SQLite file; empty PostgreSQL database); all create-or-find the
  schema (``db.ensure_schema``) and write.
* Library: 8 worker processes x 48 operations (imports, marks, tags, notes,
  through ``readinglist.library`` in ``db.session_scope``) on one database, each
  operation contending with the others for new tags, new people and one shared
  paper; then every effect is counted.
* CLI: 4 workers x 5 commands (import, mark, tag, note, list), each a
  ``python -m readinglist`` process of its own, all at once.

Workers and commands are forked from a fork server (a fresh interpreter that has
imported the library once; no state of the test process inherited, see
tests/workers.py) and each makes its own engine. Runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import blank_pg_database
from sqlalchemy import func, select, text
from workers import first_use_worker, library_worker, run_commands, run_workers

from readinglist import db, library, maintenance
from readinglist.models import ImportBatch, Note, Paper, Person, StatusEvent, Tag
from readinglist.records import PaperRecord

WORKERS = 8
#: Operations a worker runs. All workers run the same sequence from one barrier, so each
#: of the 12 imports brings a tag new to all 8 at the same moment (and a new shared
#: author, then a mark, a tag on the shared paper and a note: 384 transactions contending
#: for one library). 100 operations (25 such rounds) took twice as long: the rounds are
#: alike, and the workers drift apart after the first ones (the slowest ran 3 times as
#: long as the fastest), so the later rounds contend less, not differently.
OPERATIONS = 48
CLI_WORKERS = 4
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_library_workers_apply_every_operation_exactly_once(db_url: str) -> None:
    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:
        library.import_records(
            session,
            [PaperRecord(citekey="hub", title="The shared paper everybody tags", year=2020)],
            source="hub.bib",
            fmt="bibtex",
        )
    started = time.monotonic()
    results = run_workers(library_worker, [(db_url, w, OPERATIONS) for w in range(WORKERS)])
    elapsed = time.monotonic() - started
    errors = [e for _, errs, _ in results for e in errs]
    assert errors == []

    imports = range(0, OPERATIONS, 4)
    with db.session_scope(engine, write=False) as session:
        assert session.scalar(select(func.count(Paper.id))) == 1 + WORKERS * len(imports)
        assert session.scalar(select(func.count(ImportBatch.id))) == 1 + WORKERS * len(imports)
        tags = sorted(session.scalars(select(Tag.name)))
        expected_tags = {"all"} | {f"w{w}" for w in range(WORKERS)}
        expected_tags |= {f"s{i}" for i in imports} | {f"h{i + 2}" for i in imports}
        assert sorted(expected_tags) == tags
        people = session.scalars(select(Person.family).where(Person.given.in_(["Bob", "Cy"])))
        assert sorted(people) == sorted(["Shared"] + [f"Common{i}" for i in imports])
        for worker in range(WORKERS):
            for i in imports:
                paper = library.resolve(session, f"w{worker}i{i}")
                assert paper.status == "to-read"
                assert {t.name for t in paper.tags} == {"all", f"w{worker}", f"s{i}", f"h{i + 2}"}
                events = session.scalars(
                    select(StatusEvent).where(StatusEvent.paper_id == paper.id)
                ).all()
                assert [(e.from_status, e.to_status) for e in events] == [("new", "to-read")]
                notes = session.scalars(select(Note.body).where(Note.paper_id == paper.id)).all()
                assert notes == [f"note w{worker} i{i + 3}"]
        hub = library.resolve(session, "hub")
        assert sorted(t.name for t in hub.tags) == sorted(f"h{i + 2}" for i in imports)
    with db.session_scope(engine) as session:
        report = maintenance.check(session)
    assert report.ok, report.as_json()  # search text of the shared paper has every tag
    engine.dispose()
    slowest = max(seconds for _, _, seconds in results)
    print(
        f"\n{engine.dialect.name}: {WORKERS} processes x {OPERATIONS} operations in "
        f"{elapsed:.1f} s (slowest worker {slowest:.1f} s)"
    )


# --- first use of a new database ---------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def new_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a database with no schema at all: a missing SQLite file, an empty PG database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'new' / 'library.db'}"
        return
    yield from blank_pg_database(request)


def test_processes_starting_together_on_a_new_database(new_database_url: str) -> None:
    results = run_workers(first_use_worker, [(new_database_url, w) for w in range(WORKERS)])
    assert [errs for _, errs, _ in results] == [[]] * WORKERS
    engine = db.make_engine(new_database_url)
    with engine.connect() as conn:
        assert db.current_revision(conn) == db.HEAD
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
        assert conn.execute(text("SELECT count(*) FROM papers")).scalar() == WORKERS
        assert conn.execute(text("SELECT count(*) FROM tags")).scalar() == 1
    with db.session_scope(engine) as session:
        assert maintenance.check(session).ok
    engine.dispose()


# --- the real command line ------------------------------------------------------------------------


def _cli(db_url: str, *args: str) -> tuple[int, str]:
    """Run ``python -m readinglist --db db_url ARGS`` as a process of its own
    (:func:`workers.run_commands`); return its exit code and stderr."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("READINGLIST_DB", None)
    [(code, _, err)] = run_commands([["--db", db_url, *args]], env, ROOT)
    return code, err


def _cli_worker(db_url: str, worker: int, folder: Path) -> list[str]:
    """Import a file (new tags "shared" and "cli", and a new shared author), then mark,
    tag and annotate its paper and list the library; return the failures."""
    failures: list[str] = []
    key = f"c{worker}"
    bib = folder / f"{key}.bib"
    bib.write_text(
        f"@article{{{key},\n  title = {{Command line paper {key}}},\n"
        f"  author = {{Shared, Bob and Person{key}, Ann}},\n  year = {{2025}},\n}}\n",
        encoding="utf-8",
    )
    for args in (
        ["import", str(bib), "--tag", "shared"],
        ["mark", "reading", key],
        ["tag", "add", "cli", key],
        ["note", "add", key, "-m", f"note on {key}"],
        ["list", "-k"],
    ):
        code, err = _cli(db_url, *args)
        if code != 0 or "Traceback" in err or "locked" in err:
            failures.append(f"{args}: exit {code}: {err.strip()}")
    return failures


@pytest.mark.slow
def test_cli_processes_at_once(db_url: str, tmp_path: Path) -> None:
    started = time.monotonic()
    with ThreadPoolExecutor(CLI_WORKERS) as pool:
        failures = list(pool.map(lambda w: _cli_worker(db_url, w, tmp_path), range(CLI_WORKERS)))
    elapsed = time.monotonic() - started
    assert failures == [[]] * CLI_WORKERS
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        papers = library.load_papers(session)
        assert sorted(p.citekey for p in papers) == [f"c{w}" for w in range(CLI_WORKERS)]
        for paper in papers:
            assert paper.status == "reading"
            assert sorted(t.name for t in paper.tags) == ["cli", "shared"]
            assert [n.body for n in paper.notes] == [f"note on {paper.citekey}"]
    with db.session_scope(engine) as session:
        assert maintenance.check(session).ok
    engine.dispose()
    print(f"\n{CLI_WORKERS} workers x 5 CLI processes in {elapsed:.1f} s")
