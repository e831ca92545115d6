"""Worker processes for tests/test_concurrency.py, kept apart from pytest.

:func:`run_workers` starts them from a fork server: one fresh interpreter (nothing of
the test process inherited: no engine, connection or open transaction) that imports
SQLAlchemy, the database drivers and ``readinglist`` once; each worker is a fork of it,
so eight workers cost one start-up instead of eight spawned interpreters importing
everything again. This module imports neither pytest nor the test files, so a worker
has nothing left to import.
"""

from __future__ import annotations

import multiprocessing
import time
import traceback
from typing import Any

from readinglist import db, library
from readinglist.records import PaperRecord
from readinglist.records import Person as PersonRecord

#: Modules the fork server imports once before forking the workers.
PRELOAD = [
    "sqlalchemy",
    "sqlalchemy.orm",
    "sqlalchemy.dialects.sqlite.pysqlite",
    "sqlalchemy.dialects.postgresql.psycopg",
    "psycopg",
    "alembic.command",
    "readinglist.db",
    "readinglist.library",
    "readinglist.maintenance",
]


def run_workers(target: Any, args: list[tuple[Any, ...]], timeout: float = 240) -> list[Any]:
    """Start one process per args tuple (a barrier and a queue appended); return results.

    Each process calls ``target(*args, barrier, results)`` and puts one tuple, whose
    first item is its worker number, on ``results``; the results are returned sorted by
    it. Fails (AssertionError, queue.Empty) when a process exits non-zero or a result
    does not arrive within ``timeout`` seconds.
    """
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    barrier = ctx.Barrier(len(args))
    results = ctx.Queue()
    procs = [ctx.Process(target=target, args=(*a, barrier, results)) for a in args]
    for proc in procs:
        proc.start()
    out = [results.get(timeout=timeout) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
        assert proc.exitcode == 0
    return sorted(out, key=lambda r: r[0])


def _record(worker: int, op: int) -> PaperRecord:
    return PaperRecord(
        citekey=f"w{worker}i{op}",
        entry_type="article",
        title=f"Concurrent paper {op} of worker {worker}",
        authors=(
            PersonRecord(family=f"Solo{worker}x{op}", given="Ann"),
            PersonRecord(family="Shared", given="Bob"),
            PersonRecord(family=f"Common{op}", given="Cy"),  # new, and the same in every worker
        ),
        year=2024,
        abstract=f"Worker {worker} wrote paper {op} while seven others wrote theirs.",
        line=op + 1,
    )


def library_worker(url: str, worker: int, ops: int, barrier: Any, results: Any) -> None:
    """Run ``ops`` operations; operation i acts on this worker's paper of i - i % 4.

    i % 4 == 0 imports paper i (tags: all, w<worker>, s<i>, new to all workers at once);
    1 marks it to-read; 2 tags it and the shared paper "hub" with h<i>; 3 adds a note.
    Puts ``(worker, errors, seconds)`` on ``results``.
    """
    errors: list[str] = []
    started = time.monotonic()
    try:
        engine = db.make_engine(url)
        db.ensure_schema(engine)
        barrier.wait()
        for op in range(ops):
            base = op - op % 4
            key = f"w{worker}i{base}"
            try:
                with db.session_scope(engine) as session:
                    if op % 4 == 0:
                        library.import_records(
                            session,
                            [_record(worker, op)],
                            source=f"worker{worker}.bib",
                            fmt="bibtex",
                            tags=("all", f"w{worker}", f"s{op}"),
                        )
                    elif op % 4 == 1:
                        library.set_status(session, [library.resolve(session, key)], "to-read")
                    elif op % 4 == 2:
                        papers = [library.resolve(session, key), library.resolve(session, "hub")]
                        library.add_tags(session, papers, [f"h{op}"])
                    else:
                        library.add_note(
                            session, library.resolve(session, key), f"note w{worker} i{op}"
                        )
            except Exception as exc:  # every error is a failure of the test; keep them all
                errors.append(f"op {op}: {type(exc).__name__}: {exc}")
        engine.dispose()
    except Exception:
        errors.append(traceback.format_exc())
    results.put((worker, errors, time.monotonic() - started))


def first_use_worker(url: str, worker: int, barrier: Any, results: Any) -> None:
    """Wait for the others, then create-or-find the schema and import one paper."""
    errors: list[str] = []
    started = time.monotonic()
    try:
        barrier.wait()
        engine = db.make_engine(url)
        revision = db.ensure_schema(engine)
        if revision != db.HEAD:
            errors.append(f"revision {revision}")
        with db.session_scope(engine) as session:
            library.import_records(
                session, [_record(worker, 0)], source="first.bib", fmt="bibtex", tags=("first",)
            )
        engine.dispose()
    except Exception:
        errors.append(traceback.format_exc())
    results.put((worker, errors, time.monotonic() - started))
