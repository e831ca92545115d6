"""Worker processes for the tests of several processes at once, kept apart from pytest.

:func:`run_workers` starts them from a fork server: one fresh interpreter (nothing of
the test process inherited: no engine, connection or open transaction) that imports
SQLAlchemy, the database drivers and ``readinglist`` once; each worker is a fork of it,
so eight workers cost one start-up instead of eight spawned interpreters importing
everything again. This module imports neither pytest nor the test files, so a worker
has nothing left to import.

:func:`run_commands` runs ``python -m readinglist ARGS`` the same way: each command is
a fork of that server running the package's ``__main__`` (``runpy``, as ``-m`` does)
with its own arguments, environment, working folder, stdout and stderr, and exits with
the command's code. What it skips is the interpreter's start-up and its imports (about
0.6 s of CPU a command here), not any code of the command.
"""

from __future__ import annotations

import multiprocessing
import os
import runpy
import sys
import tempfile
import time
import traceback
from pathlib import Path
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
    "readinglist.cli",
    "readinglist.cli._root",
    "readinglist.cli.export",
    "readinglist.cli.import_",
    "readinglist.cli.list_",
    "readinglist.cli.mark",
    "readinglist.cli.note",
    "readinglist.cli.tag",
    "readinglist.pipelines.exporting",
    "readinglist.pipelines.importing",
]


def _context() -> Any:
    """The fork-server context, its server importing :data:`PRELOAD` (it is one server
    per test process: the first use starts it, with this list)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def run_workers(target: Any, args: list[tuple[Any, ...]], timeout: float = 240) -> list[Any]:
    """Start one process per args tuple (a barrier and a queue appended); return results.

    Each process calls ``target(*args, barrier, results)`` and puts one tuple, whose
    first item is its worker number, on ``results``; the results are returned sorted by
    it. Fails (AssertionError, queue.Empty) when a process exits non-zero or a result
    does not arrive within ``timeout`` seconds.
    """
    ctx = _context()
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


def command_process(args: list[str], env: dict[str, str], cwd: str, out: str, err: str) -> None:
    """Be ``python -m readinglist ARGS`` in environment ``env`` and folder ``cwd``, its
    stdout and stderr (file descriptors 1 and 2) written to files ``out`` and ``err``."""
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - fd 1 stays
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - fd 2 stays
    sys.argv = ["readinglist", *args]
    runpy.run_module("readinglist", run_name="__main__", alter_sys=True)


def run_commands(
    commands: list[list[str]], env: dict[str, str], cwd: Path, timeout: float = 120
) -> list[tuple[int, str, str]]:
    """Run every ``python -m readinglist ARGS`` of ``commands`` at once, each a process
    of its own (:func:`command_process`, forked from the fork server); return each
    one's ``(exit code, stdout, stderr)`` in order. A process still running after
    ``timeout`` seconds is killed (exit code negative)."""
    ctx = _context()
    with tempfile.TemporaryDirectory() as folder:
        streams = [
            (os.path.join(folder, f"{n}.out"), os.path.join(folder, f"{n}.err"))
            for n in range(len(commands))
        ]
        procs = [
            ctx.Process(target=command_process, args=(args, env, str(cwd), *paths))
            for args, paths in zip(commands, streams, strict=True)
        ]
        for proc in procs:
            proc.start()
        deadline = time.monotonic() + timeout
        for proc in procs:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.exitcode is None:
                proc.kill()
                proc.join()
        return [
            (
                int(proc.exitcode),
                Path(out).read_text(encoding="utf-8"),
                Path(err).read_text(encoding="utf-8"),
            )
            for proc, (out, err) in zip(procs, streams, strict=True)
        ]


def bench_job(script: str, number: int, job: list[str], barrier: Any, results: Any) -> None:
    """Run one job of ``benchmarks/readers.py``'s :func:`run_workers` (``[ROLE, URL,
    INDEX, N, extra...]``) as its ``readers.py worker`` process would, once every job's
    process is ready (``barrier``): its ``decide_worker`` or ``export_worker`` (the
    script at path ``script``, loaded here); put ``(number, result)`` on ``results``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_readers", script)
    assert spec is not None
    assert spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for name in bench.WORKER_IMPORTS:
        importlib.import_module(name)
    barrier.wait()
    role, url, index, count = job[0], job[1], int(job[2]), int(job[3])
    if role == "decide":
        result = bench.decide_worker(url, index, count, 0.0)
    else:
        result = bench.export_worker(url, index, job[4], 0.0)
    results.put((number, result))


def run_bench_jobs(
    script: str, jobs: list[list[str]], stop_file: Path | None = None, timeout: float = 600
) -> tuple[float, list[dict[str, Any]]]:
    """``benchmarks/readers.py``'s :func:`run_workers`, each job a process forked from the
    fork server (:func:`bench_job`) instead of a new interpreter: they begin together
    (a barrier, where the script gives them a moment), and ``stop_file`` is created once
    every job before the last has ended. Returns the moment they were started
    (:func:`time.time`) and their results in job order. Fails (AssertionError,
    queue.Empty) when a process exits non-zero or a result is ``timeout`` seconds late."""
    ctx = _context()
    barrier = ctx.Barrier(len(jobs))
    results = ctx.Queue()
    procs = [
        ctx.Process(target=bench_job, args=(script, n, job, barrier, results))
        for n, job in enumerate(jobs)
    ]
    started = time.time()
    for proc in procs:
        proc.start()
    out = [results.get(timeout=timeout) for _ in procs[:-1]]
    if stop_file is not None:
        stop_file.touch()
    out.append(results.get(timeout=timeout))
    for proc in procs:
        proc.join(timeout=30)
        assert proc.exitcode == 0
    return started, [result for _, result in sorted(out, key=lambda r: r[0])]
