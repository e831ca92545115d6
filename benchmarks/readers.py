"""Readers of one shared library: decisions at once, exports meanwhile, latency with 10 readers.

Usage::

    .venv/bin/python benchmarks/readers.py concurrency [--readers 4] [--decisions 1000] [--no-pg]
    .venv/bin/python benchmarks/readers.py latency [--readers 10] [--runs 40] [--rebuild]

``concurrency``: on a fresh library of :data:`PAPERS` papers (SQLite file under
``benchmarks/work/``, and a PostgreSQL database ``rl_bench_readers_conc``), N readers
decide at once, each in its own OS process running the real ``mark`` command
(Click's ``CliRunner`` in that process: the command's parsing, its transaction and its
error translation, so a "database is locked" a user would see is counted), the same
few papers often, while one more process exports the first reader's Markdown list in
a loop (the real ``export markdown`` command). Each reader's decisions follow a fixed
random plan (:func:`plan`) using two statuses of its own (:data:`PAIRS`), so a decision
found under another reader is seen. Then :func:`check` counts: failed commands, lost
decisions (a reader's final status or status history not what its plan gives), crossed
ones (a status a reader never gave), and exports whose state of a paper never existed,
or that are not one moment of the reader's plan (a prefix of it).

``latency``: a PostgreSQL library of the ACL anthology (``../shared/data``, 61,685
entries; database ``rl_bench_readers_60k``, built once), measured twice in one run:
with one reader's decisions, then with 10 readers' (the same reader's plus nine more),
each ``list --limit 50 QUERY`` (:data:`QUERIES`) and a decision (``mark``) run
:data:`RUNS` times by one reader, in-process through the real command; then 10 reader
processes at once. Prints p50/p95 in ms, the ratio to the single-reader figures, and the
load average. Not a test: nothing here asserts a time; tests/test_readers_concurrency.py
runs :func:`run_concurrency` small.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data"
WORK = HERE / "work"
PG_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/"

#: Papers the concurrent readers decide about: few, so the same paper is decided often.
PAPERS = 20
#: The two statuses each concurrent reader uses (reader i: ``PAIRS[i % 4]``): a status
#: found under a reader that never gives it is a decision crossed from another reader.
PAIRS: tuple[tuple[str, str], ...] = (
    ("to-read", "skipped"),
    ("reading", "read"),
    ("to-read", "read"),
    ("skipped", "reading"),
)


def keys(papers: int = PAPERS) -> list[str]:
    """The citation keys of the concurrency library."""
    return [f"p{i:03d}" for i in range(papers)]


def reader_name(index: int) -> str:
    return f"reader{index}"


def plan(index: int, decisions: int, papers: int = PAPERS) -> list[tuple[str, str]]:
    """Reader ``index``'s decisions in order, ``(key, status)``: a fixed random sequence
    (seed ``index``) over :func:`keys`, with the reader's two statuses of :data:`PAIRS`."""
    rng = random.Random(index)
    names, pair = keys(papers), PAIRS[index % len(PAIRS)]
    return [(rng.choice(names), rng.choice(pair)) for _ in range(decisions)]


def replay(
    steps: Sequence[tuple[str, str]],
) -> tuple[dict[str, list[tuple[str, str]]], list[dict[str, str]]]:
    """What ``steps`` must leave: per key the status changes ``(from, to)`` in order (a
    decision equal to the status now changes nothing), and the state of every paper after
    each prefix of the steps (``states[k]``: after ``k`` steps; absent keys are new)."""
    now: dict[str, str] = {}
    changes: dict[str, list[tuple[str, str]]] = {}
    states = [dict(now)]
    for key, status in steps:
        old = now.get(key, "new")
        if old != status:
            changes.setdefault(key, []).append((old, status))
            now[key] = status
        states.append(dict(now))
    return changes, states


# --- worker processes ------------------------------------------------------------------------


def _wait(start_at: float) -> None:
    time.sleep(max(0.0, start_at - time.time()))


def _invoke(runner: Any, url: str, reader: str, *args: str) -> tuple[int, str, float]:
    """Run ``readinglist --db url --reader reader ARGS`` in this process: (exit code,
    stderr, wall seconds)."""
    from readinglist.cli import cli

    started = time.perf_counter()
    result = runner.invoke(cli, ["--db", url, "--reader", reader, *args])
    seconds = time.perf_counter() - started
    said = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        said += f"{type(result.exception).__name__}: {result.exception}"
    return result.exit_code, said, seconds


def decide_worker(url: str, index: int, decisions: int, start_at: float) -> dict[str, Any]:
    """Run reader ``index``'s :func:`plan` as ``mark STATUS KEY`` commands, one after the
    other; return the failures (exit code and stderr) and each command's wall time."""
    from click.testing import CliRunner

    runner, reader = CliRunner(), reader_name(index)
    steps = plan(index, decisions)
    failures: list[str] = []
    times: list[float] = []
    _wait(start_at)
    for key, status in steps:
        code, said, seconds = _invoke(runner, url, reader, "mark", status, key)
        times.append(seconds)
        if code != 0:
            failures.append(f"{reader} mark {status} {key}: exit {code}: {said.strip()}")
    return {"reader": reader, "failures": failures, "times": times}


def export_worker(url: str, index: int, stop_file: str, start_at: float) -> dict[str, Any]:
    """Export reader ``index``'s Markdown list (``export markdown -o``) in a loop until
    ``stop_file`` exists; return each export's ``{key: status}`` and the failures."""
    from click.testing import CliRunner

    from readinglist.formats import markdown

    runner, reader = CliRunner(), reader_name(index)
    snapshots: list[dict[str, str]] = []
    failures: list[str] = []
    out = Path(stop_file).with_suffix(".md")
    _wait(start_at)
    while not Path(stop_file).exists() or not snapshots:
        code, said, _ = _invoke(runner, url, reader, "export", "markdown", "-o", str(out))
        if code == 3 and not snapshots and f"no reader {reader!r}" in said:
            time.sleep(0.05)  # the reader exists from their first decision on: not yet
            continue
        if code != 0:
            failures.append(f"{reader} export: exit {code}: {said.strip()}")
            continue
        records = markdown.read(out.read_text(encoding="utf-8"), str(out)).records
        snapshots.append({r.citekey or "": r.status or "new" for r in records})
    return {"reader": reader, "failures": failures, "snapshots": snapshots}


#: What a worker imports before it says it is ready: the modules of the commands it runs,
#: so that the workers begin together, none still importing while the others work.
WORKER_IMPORTS = (
    "click.testing",
    "readinglist.cli",
    "readinglist.cli._root",
    "readinglist.cli.mark",
    "readinglist.cli.export",
    "readinglist.cli.list_",
    "readinglist.db",
    "readinglist.library",
    "readinglist.formats.markdown",
)


def _worker_main(argv: list[str]) -> None:
    """``readers.py worker ROLE URL INDEX N [STOP_FILE]``: one worker process. It imports
    :data:`WORKER_IMPORTS`, prints ``ready``, reads from stdin the moment to begin
    (seconds since the epoch) and works; prints its result as one JSON line."""
    role, url, index, count = argv[0], argv[1], int(argv[2]), int(argv[3])
    for name in WORKER_IMPORTS:
        importlib.import_module(name)
    print("ready", flush=True)
    start_at = float(sys.stdin.readline())
    if role == "decide":
        result = decide_worker(url, index, count, start_at)
    elif role == "export":
        result = export_worker(url, index, argv[4], start_at)
    else:
        result = load_worker(url, index, count, start_at)
    print(json.dumps(result))


def run_workers(
    jobs: list[list[str]], stop_file: Path | None = None
) -> tuple[float, list[dict[str, Any]]]:
    """Start one ``readers.py worker`` process per job (``[ROLE, URL, INDEX, N, extra...]``);
    once every one has said it is ready (its imports done), tell them all to begin at
    the same moment; return that moment (:func:`time.time`) and their results in job
    order. Once every job before the last has ended, ``stop_file`` (when given) is
    created, which ends an ``export`` job placed last. A worker that fails raises
    RuntimeError with its stderr."""
    script = str(Path(__file__).resolve())
    procs = [
        subprocess.Popen(
            [sys.executable, script, "worker", *job],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for job in jobs
    ]
    for proc in procs:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            for other in procs:
                other.kill()
            _, err = proc.communicate()
            raise RuntimeError(f"worker failed (exit {proc.returncode}):\n{err}")
    start_at = time.time() + 0.05  # every worker is waiting on its stdin by then
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(f"{start_at!r}\n")
        proc.stdin.flush()
    results = []
    for number, proc in enumerate(procs):
        if stop_file is not None and number == len(procs) - 1:
            stop_file.touch()
        out, err = proc.communicate(timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"worker failed (exit {proc.returncode}):\n{err}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    return start_at, results


# --- the concurrency run ---------------------------------------------------------------------


def new_library(url: str, papers: int = PAPERS) -> None:
    """Create the library at ``url`` (empty) holding :func:`keys` as papers."""
    from readinglist import db, library
    from readinglist.records import PaperRecord, Person

    engine = db.make_engine(url)
    db.ensure_schema(engine)
    records = [
        PaperRecord(
            citekey=key, title=f"Shared paper {key}", authors=(Person("Doe", "Jane"),), year=2024
        )
        for key in keys(papers)
    ]
    with db.session_scope(engine) as session:
        library.import_records(session, records, source="readers-bench", fmt="test")
    engine.dispose()


def stored(
    url: str, readers: int
) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, list[tuple[str, str]]]]]:
    """Per reader name: ``{key: status}`` of the decisions stored, and ``{key: [(from,
    to), ...]}`` of the status history, oldest first."""
    from sqlalchemy import select

    from readinglist import db
    from readinglist.tables import DECISIONS, READERS, STATUS_EVENTS
    from readinglist.tables import PAPERS as PAPER_ROWS

    engine = db.make_engine(url)
    statuses: dict[str, dict[str, str]] = {reader_name(i): {} for i in range(readers)}
    history: dict[str, dict[str, list[tuple[str, str]]]] = {
        reader_name(i): {} for i in range(readers)
    }
    with engine.connect() as conn:
        for name, key, status in conn.execute(
            select(READERS.c.name, PAPER_ROWS.c.citekey, DECISIONS.c.status)
            .join(DECISIONS, DECISIONS.c.reader_id == READERS.c.id)
            .join(PAPER_ROWS, PAPER_ROWS.c.id == DECISIONS.c.paper_id)
        ):
            statuses.setdefault(name, {})[key] = status
        for name, key, old, new in conn.execute(
            select(
                READERS.c.name,
                PAPER_ROWS.c.citekey,
                STATUS_EVENTS.c.from_status,
                STATUS_EVENTS.c.to_status,
            )
            .join(STATUS_EVENTS, STATUS_EVENTS.c.reader_id == READERS.c.id)
            .join(PAPER_ROWS, PAPER_ROWS.c.id == STATUS_EVENTS.c.paper_id)
            .order_by(STATUS_EVENTS.c.id)
        ):
            history.setdefault(name, {}).setdefault(key, []).append((old, new))
    engine.dispose()
    return statuses, history


def check(
    url: str, readers: int, decisions: int, snapshots: list[dict[str, str]]
) -> dict[str, int]:
    """Compare the library at ``url`` after the run with each reader's :func:`replay`:
    ``lost`` (papers whose final status or history differs from the plan's), ``crossed``
    (stored statuses or changes a reader never gave, or decisions of a reader that made
    none), and of the ``snapshots`` (reader 0's exports) those with a paper in a state
    it never had for reader 0 (``exports_impossible``) and those that are no prefix of
    reader 0's plan (``exports_torn``)."""
    statuses, history = stored(url, readers)
    lost = crossed = 0
    for index in range(readers):
        name, pair = reader_name(index), set(PAIRS[index % len(PAIRS)])
        changes, states = replay(plan(index, decisions))
        final = states[-1]
        for key in keys():
            lost += statuses[name].get(key, "new") != final.get(key, "new")
            lost += history[name].get(key, []) != changes.get(key, [])
        crossed += sum(1 for s in statuses[name].values() if s not in pair | {"new"})
        crossed += sum(1 for chain in history[name].values() for _, to in chain if to not in pair)
    crossed += sum(
        1
        for name in statuses
        if name not in {reader_name(i) for i in range(readers)} and statuses[name]
    )
    _, states = replay(plan(0, decisions))
    had = {key: {"new", *(s.get(key, "new") for s in states)} for key in keys()}
    moments = {tuple(s.get(key, "new") for key in keys()) for s in states}
    impossible = sum(1 for snap in snapshots if any(snap.get(k, "?") not in had[k] for k in keys()))
    torn = sum(1 for snap in snapshots if tuple(snap.get(k, "?") for k in keys()) not in moments)
    return {
        "lost": lost,
        "crossed": crossed,
        "exports_impossible": impossible,
        "exports_torn": torn,
    }


def run_concurrency(
    url: str, readers: int, decisions: int, run: Callable[..., Any] | None = None
) -> dict[str, Any]:
    """Create the library at ``url``, run ``readers`` decide workers of ``decisions`` each
    and one export worker at once (``run``, :func:`run_workers` by default, or one that
    starts and ends the same jobs as it does), and return the figures: seconds,
    commands, failures (and how many said "locked"), p50/p95 ms of a decision, exports
    made, and :func:`check`'s counts."""
    new_library(url)
    with tempfile.TemporaryDirectory() as tmp:
        stop = Path(tmp) / "stop"
        jobs = [["decide", url, str(i), str(decisions)] for i in range(readers)]
        jobs.append(["export", url, "0", "0", str(stop)])
        start_at, results = (run or run_workers)(jobs, stop_file=stop)
        seconds = time.time() - start_at
    failures = [f for r in results for f in r["failures"]]
    times = sorted(t for r in results[:-1] for t in r["times"])
    snapshots = results[-1]["snapshots"]
    return {
        "readers": readers,
        "decisions": readers * decisions,
        "seconds": round(seconds, 1),
        "failures": len(failures),
        "locked": sum(1 for f in failures if "locked" in f),
        "first_failures": failures[:3],
        "p50_ms": round(1000 * times[len(times) // 2], 1) if times else None,
        "p95_ms": round(1000 * times[int(len(times) * 0.95)], 1) if times else None,
        "exports": len(snapshots),
        **check(url, readers, decisions, snapshots),
    }


# --- latency with 10 readers on 60k papers -----------------------------------------------------

#: ``list --limit 50 QUERY`` measured: a status, free text, fields with text, the readers count.
QUERIES = ("status:to-read", "transformer", "year:2020 parsing", "wanted-by:2")
#: Times each command is run per phase by the measuring reader.
RUNS = 40
#: Share of the papers each reader of the latency library has decided, and how.
DECIDED_SHARE = 0.3
DECIDED_STATUSES = ("to-read", "skipped", "skipped", "reading", "read")


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` percentile of ``values`` (nearest rank), in ms."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def pg_database(name: str, *, fresh: bool = False) -> str:
    """The URL of database ``name`` on :data:`PG_SERVER`, created when missing (dropped
    first when ``fresh``)."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    base = make_url(PG_SERVER)
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


def build_anthology(url: str) -> int:
    """Import the ACL anthology into the library at ``url`` when it holds fewer than
    60,000 papers (20,000 records a transaction); return the number of papers."""
    import gzip

    from readinglist import db, library
    from readinglist.formats import bibtex

    engine = db.make_engine(url)
    db.ensure_schema(engine)
    with db.session_scope(engine, write=False) as session:
        have = library.count_papers(session)
    if have < 60_000:
        with gzip.open(DATA / "acl-anthology-2021-06.bib.gz", "rt", encoding="utf-8") as handle:
            records = list(bibtex.read(handle.read(), "acl").records)
        log(f"read {len(records)} ACL records")
        for start in range(0, len(records), 20_000):
            with db.session_scope(engine) as session:
                library.import_records(
                    session, records[start : start + 20_000], source="acl", fmt="bibtex"
                )
            log(f"imported {min(start + 20_000, len(records))} records")
        with db.session_scope(engine, write=False) as session:
            have = library.count_papers(session)
    engine.dispose()
    return have


def set_readers(url: str, readers: int) -> None:
    """Leave exactly ``readers`` readers (``reader0``...) in the library at ``url``, each
    having decided :data:`DECIDED_SHARE` of the papers (a fixed random choice per reader,
    statuses from :data:`DECIDED_STATUSES`); decisions written directly, then ANALYZE."""
    from sqlalchemy import delete, insert, select, text

    from readinglist import db
    from readinglist.tables import DECISIONS, READERS, STATUS_EVENTS, utcnow
    from readinglist.tables import PAPERS as PAPER_ROWS

    engine = db.make_engine(url)
    with engine.begin() as conn:
        conn.execute(delete(STATUS_EVENTS))
        conn.execute(delete(DECISIONS))
        conn.execute(delete(READERS))
        ids = list(conn.scalars(select(PAPER_ROWS.c.id).order_by(PAPER_ROWS.c.id)))
        now = utcnow()
        for index in range(readers):
            name = reader_name(index)
            rid = conn.execute(
                insert(READERS)
                .values(name=name, name_folded=name, created_at=now)
                .returning(READERS.c.id)
            ).scalar_one()
            rng = random.Random(100 + index)
            rows = [
                {
                    "paper_id": pid,
                    "reader_id": rid,
                    "status": rng.choice(DECIDED_STATUSES),
                    "priority": None,
                    "read_at": None,
                    "updated_at": now,
                }
                for pid in ids
                if rng.random() < DECIDED_SHARE
            ]
            for start in range(0, len(rows), 5000):
                conn.execute(insert(DECISIONS), rows[start : start + 5000])
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE"))
    engine.dispose()


def load_worker(url: str, index: int, runs: int, start_at: float) -> dict[str, Any]:
    """As reader ``index``: one round unmeasured (imports, caches), then ``runs`` rounds of
    every ``list --limit 50 QUERY`` of :data:`QUERIES` and one decision (``mark`` of a
    random paper, seed ``index``); return by kind (``list:QUERY``, ``mark``) the wall
    seconds (``times``) and this process's CPU seconds (``cpu``) of each command, and
    the failures."""
    from click.testing import CliRunner
    from sqlalchemy import select

    from readinglist import db
    from readinglist.tables import PAPERS as PAPER_ROWS

    engine = db.make_engine(url)
    with engine.connect() as conn:
        names = list(
            conn.scalars(select(PAPER_ROWS.c.citekey).order_by(PAPER_ROWS.c.id).limit(20_000))
        )
    engine.dispose()
    runner, reader, rng = CliRunner(), reader_name(index), random.Random(index)
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    failures: list[str] = []
    _wait(start_at)
    for round_number in range(runs + 1):
        commands = [(f"list:{q}", ["list", "--limit", "50", *q.split()]) for q in QUERIES]
        commands.append(("mark", ["mark", rng.choice(("to-read", "skipped")), rng.choice(names)]))
        for kind, args in commands:
            before = time.process_time()
            code, said, seconds = _invoke(runner, url, reader, *args)
            if round_number:
                times.setdefault(kind, []).append(seconds)
                cpu.setdefault(kind, []).append(time.process_time() - before)
            if code != 0:
                failures.append(f"{reader} {' '.join(args)}: exit {code}: {said.strip()}")
    return {"reader": reader, "failures": failures, "times": times, "cpu": cpu}


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def summarise(results: list[dict[str, Any]], what: str = "times") -> dict[str, tuple[float, float]]:
    """``{kind: (p50 ms, p95 ms)}`` over every worker result's ``what`` (``times``: wall,
    ``cpu``: the client process's CPU) of that kind."""
    merged: dict[str, list[float]] = {}
    for result in results:
        for kind, values in result[what].items():
            merged.setdefault(kind, []).extend(values)
    return {k: (percentile(v, 0.5), percentile(v, 0.95)) for k, v in merged.items()}


def latency_phases(url: str, readers: int, runs: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """The measured phases, each ``(name, worker results)``: one reader alone (only its
    decisions in the library), the same reader with ``readers - 1`` more readers'
    decisions in the library, ``readers`` reader processes at once (``runs * 2 // readers``
    rounds each), and one reader alone again (the load drifts; both are shown)."""
    phases: list[tuple[str, list[dict[str, Any]]]] = []
    set_readers(url, 1)
    phases.append(("1 reader", [load_worker(url, 0, runs, 0.0)]))
    set_readers(url, readers)
    phases.append((f"{readers} readers' decisions", [load_worker(url, 0, runs, 0.0)]))
    rounds = str(max(1, runs * 2 // readers))
    jobs = [["load", url, str(i), rounds] for i in range(readers)]
    phases.append((f"{readers} readers at once", run_workers(jobs)[1]))
    set_readers(url, 1)
    phases.append(("1 reader again", [load_worker(url, 0, runs, 0.0)]))
    for name, results in phases:
        log(f"{name}: {summarise(results)}")
    return phases


def run_latency(readers: int, runs: int, rebuild: bool) -> list[str]:
    """Measure :func:`latency_phases` on the anthology library (built once); return the
    report's lines: per command p50 / p95 wall ms of each phase, the p95 of the client's
    CPU, the ratios of the p95s to the single-reader p95 (the better of the two
    single-reader phases, as the load drifts), failures and the load average."""
    url = pg_database("rl_bench_readers_60k", fresh=rebuild)
    papers = build_anthology(url)
    load_before = os.getloadavg()
    phases = latency_phases(url, readers, runs)
    walls = [(name, summarise(results)) for name, results in phases]
    cpus = [(name, summarise(results, "cpu")) for name, results in phases]
    failures = [f for _, results in phases for r in results for f in r["failures"]]
    names = [name for name, _ in walls]
    lines = [
        f"{papers} papers (ACL anthology 2021-06), PostgreSQL 15; each reader has decided "
        f"{DECIDED_SHARE:.0%} of the papers. The real command in-process (CliRunner: engine, "
        f"schema check, query, output), {runs} runs after one unmeasured; wall p50 / p95 ms, "
        "then the p95 of the client process's CPU ms; ratio: p95 / the single-reader p95.",
        "",
        "| command | "
        + " | ".join(names)
        + " | CPU p95: "
        + " / ".join(names)
        + f" | ratio {names[1]} | ratio at once |",
        "|---|" + "---|" * (len(names) + 3),
    ]
    for kind in walls[0][1]:
        base = min(walls[0][1][kind][1], walls[3][1][kind][1])
        cells = [f"{w[kind][0]:.0f} / {w[kind][1]:.0f}" for _, w in walls]
        cells.append(" / ".join(f"{c[kind][1]:.0f}" for _, c in cpus))
        cells += [f"{walls[1][1][kind][1] / base:.2f}", f"{walls[2][1][kind][1] / base:.2f}"]
        lines.append(f"| `{kind}` | " + " | ".join(cells) + " |")
    load_after = os.getloadavg()
    lines += [
        "",
        f"Failures: {len(failures)}{': ' + failures[0] if failures else ''}. Load average "
        f"(1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after; {os.cpu_count()} "
        "cores shared with other agents' work.",
    ]
    return lines


def concurrency_report(readers: int, decisions: int, with_pg: bool) -> list[str]:
    """Run :func:`run_concurrency` on a fresh SQLite file and (``with_pg``) a fresh
    PostgreSQL database; return the report's lines (a Markdown table)."""
    WORK.mkdir(exist_ok=True)
    path = WORK / "readers-conc.db"
    for leftover in WORK.glob("readers-conc.db*"):
        leftover.unlink()
    urls = [("SQLite", f"sqlite:///{path}")]
    if with_pg:
        urls.append(("PostgreSQL", pg_database("rl_bench_readers_conc", fresh=True)))
    load_before = os.getloadavg()
    lines = [
        f"{readers} readers x {decisions} decisions at once (`mark` in {readers} processes) on "
        f"{PAPERS} papers, one more process exporting reader0's Markdown list in a loop.",
        "",
        "| database | s | decisions | failed | locked | lost | crossed | exports | impossible | "
        "torn | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, url in urls:
        got = run_concurrency(url, readers, decisions)
        log(f"{label}: {got}")
        lines.append(
            f"| {label} | {got['seconds']} | {got['decisions']} | {got['failures']} | "
            f"{got['locked']} | {got['lost']} | {got['crossed']} | {got['exports']} | "
            f"{got['exports_impossible']} | {got['exports_torn']} | {got['p50_ms']} | "
            f"{got['p95_ms']} |"
        )
    load_after = os.getloadavg()
    lines += [
        "",
        f"Load average (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after; "
        f"{os.cpu_count()} cores shared with other agents' work.",
    ]
    return lines


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        _worker_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    conc = sub.add_parser("concurrency")
    conc.add_argument("--readers", type=int, default=4)
    conc.add_argument("--decisions", type=int, default=1000)
    conc.add_argument("--no-pg", action="store_true")
    lat = sub.add_parser("latency")
    lat.add_argument("--readers", type=int, default=10)
    lat.add_argument("--runs", type=int, default=RUNS)
    lat.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    if args.what == "concurrency":
        lines = concurrency_report(args.readers, args.decisions, not args.no_pg)
    else:
        lines = run_latency(args.readers, args.runs, args.rebuild)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
