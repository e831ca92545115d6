"""Crashes lose nothing: an import killed with SIGKILL inside its transaction leaves the
database as it was; an export killed while writing leaves the previous file intact.

The import runs as a real process of its own, running ``python -m readinglist``'s
code (forked after its imports: :func:`helpers.start_forked`), on a generated BibTeX
file of several thousand entries. The test waits until the process is inside its
transaction and has written (SQLite: it holds the write lock and the WAL has grown;
PostgreSQL: it holds the import lock and the ``papers`` table file has grown), then
kills it, and compares every row of every table with the state before.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import Forked, start_forked
from sqlalchemy import create_engine, select, text

from readinglist import db, library, maintenance
from readinglist.models import Base
from readinglist.records import PaperRecord
from readinglist.records import Person as PersonRecord

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = 3000
#: Bytes the database must have grown by (WAL or table file) before the "halfway"
#: kill: a third or more of the papers written (the whole import writes about 14 MB
#: of WAL on SQLite and a 6 MB papers table on PostgreSQL).
GROWTH = 2 * 1024 * 1024
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "chi",
    "psi",
    "omega",
]


def write_big_bib(path: Path, n: int, prefix: str = "gen") -> Path:
    """Write ``n`` distinct BibTeX entries with 120-word abstracts (about 0.9 KB each)."""
    entries = []
    for i in range(n):
        title = " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(6)).title()
        abstract = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(120))
        entries.append(
            f"@inproceedings{{{prefix}{i},\n  title = {{{title} number {i}}},\n"
            f"  author = {{Family{i % 997}, Given and Other{prefix}{i}, Ann}},\n"
            f"  booktitle = {{Proceedings of Generated Things}},\n  year = {{{2000 + i % 25}}},\n"
            f"  abstract = {{{abstract} entry {i}.}},\n}}\n"
        )
    path.write_text("\n".join(entries), encoding="utf-8")
    return path


def snapshot(engine: Any) -> dict[str, list[tuple[str, ...]]]:
    """Every row of every table of the models, sorted (as repr strings)."""
    out: dict[str, list[tuple[str, ...]]] = {}
    with engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            out[table.name] = sorted(tuple(map(repr, row)) for row in conn.execute(select(table)))
    return out


#: What the commands killed here import, imported once before they are forked.
IMPORTS = """
import sqlalchemy.orm, readinglist.cli, readinglist.cli._root, readinglist.cli.import_
import readinglist.cli.export, readinglist.library, readinglist.library.importing
import readinglist.pipelines.importing, readinglist.pipelines.exporting, readinglist.formats
import sqlalchemy.dialects.postgresql.psycopg, sqlalchemy.dialects.sqlite.pysqlite
"""


def start_cli(db_url: str, log: Path, *args: str) -> Forked:
    """Start ``readinglist --db DB_URL ARGS`` (a process of its own, forked after
    :data:`IMPORTS`), its standard error to ``log``, its output to nowhere."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("READINGLIST_DB", None)
    argv = ["--db", db_url, *args]
    return start_forked(argv, os.devnull, log, prelude=IMPORTS, env=env, cwd=ROOT)


def wait_until(proc: Forked, condition: Callable[[], bool], what: str, pause: float = 0.01) -> bool:
    """Poll ``condition`` every ``pause`` seconds while ``proc`` runs.

    Returns True once it holds, False when the process ended first; fails the test
    after five minutes.
    """
    deadline = time.monotonic() + 300
    while not condition():
        if proc.poll() is not None:
            return False
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"timed out waiting until {what}")
        time.sleep(pause)
    return True


def sqlite_write_lock_held(path: Path) -> bool:
    probe = sqlite3.connect(path, timeout=0)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc):
            raise
        return True
    finally:
        probe.close()


def file_size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


class Watch:
    """Dialect-specific probes: is the import inside its transaction, how much was written."""

    def __init__(self, db_url: str) -> None:
        self.engine = db.make_engine(db_url)
        self.path = db.sqlite_path(self.engine)
        self.admin = None if self.path else create_engine(db_url, isolation_level="AUTOCOMMIT")

    def in_transaction(self) -> bool:
        if self.path is not None:
            return sqlite_write_lock_held(self.path)
        assert self.admin is not None
        with self.admin.connect() as conn:
            held = conn.execute(
                text(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                    "AND objid = :k AND database = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database())"
                ),
                {"k": library.IMPORT_LOCK},
            ).scalar()
        return bool(held)

    def written(self) -> int:
        if self.path is not None:
            return file_size(self.path.with_name(self.path.name + "-wal"))
        assert self.admin is not None
        with self.admin.connect() as conn:
            return int(conn.execute(text("SELECT pg_relation_size('papers')")).scalar() or 0)

    def dispose(self) -> None:
        self.engine.dispose()
        if self.admin is not None:
            self.admin.dispose()


@pytest.mark.slow
def test_import_killed_inside_its_transaction_changes_nothing(db_url: str, tmp_path: Path) -> None:
    watch = Watch(db_url)
    with db.session_scope(watch.engine) as session:
        report = library.import_records(
            session,
            [
                PaperRecord(
                    citekey=f"old{i}",
                    title=f"An earlier paper {i}",
                    authors=(PersonRecord(family="Family1", given="Given"),),
                    year=1999,
                )
                for i in range(5)
            ],
            source="old.bib",
            fmt="bibtex",
            tags=("kept",),
        )
        library.add_note(session, library.resolve(session, "old0"), "written before the crash")
    assert len(report.added) == 5
    before = snapshot(watch.engine)
    big = write_big_bib(tmp_path / "big.bib", ENTRIES)
    kills = []
    for label, growth in (("early", 0), ("halfway", GROWTH)):
        start_size = watch.written()
        proc = start_cli(db_url, tmp_path / f"{label}.log", "import", str(big), "--tag", "crash")
        assert wait_until(proc, watch.in_transaction, "it took the lock"), "ended too soon"
        assert wait_until(
            proc, lambda g=growth + start_size: watch.written() > g, f"it wrote {growth} bytes"
        ), "the import ended before the kill: make the input bigger"
        grown = watch.written() - start_size
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
        kills.append((label, grown))
        assert snapshot(watch.engine) == before
        with db.session_scope(watch.engine) as session:
            assert maintenance.check(session).ok
    # The library still works: a small import goes through at once.
    small = write_big_bib(tmp_path / "small.bib", 3, prefix="after")
    done = start_cli(db_url, tmp_path / "after.log", "import", str(small))
    assert done.wait(timeout=120) == 0, (tmp_path / "after.log").read_text()
    with watch.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM papers")).scalar() == 8
    watch.dispose()
    print(f"\n{watch.engine.dialect.name}: killed {len(kills)} imports, bytes written: {kills}")


# --- export ----------------------------------------------------------------------------------------


def test_failed_export_leaves_the_previous_file(invoke, tmp_path: Path, monkeypatch) -> None:
    small = write_big_bib(tmp_path / "one.bib", 3)
    assert invoke("import", str(small)).exit_code == 0
    out = tmp_path / "out" / "refs.bib"
    out.parent.mkdir()
    out.write_text("% the previous export\n", encoding="utf-8")

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("readinglist.pipelines.atomic.os.fsync", broken_fsync)
    result = invoke("export", "bibtex", "-o", str(out))
    assert result.exit_code == 1
    assert result.stderr == f"Error: cannot write {out}: No space left on device\n"
    assert out.read_text(encoding="utf-8") == "% the previous export\n"
    assert [p.name for p in out.parent.iterdir()] == ["refs.bib"]  # no temporary file left


@pytest.mark.slow
def test_export_killed_while_writing_leaves_old_or_new_file(
    sqlite_url: str, tmp_path: Path
) -> None:
    engine = db.make_engine(sqlite_url)
    out = tmp_path / "out" / "refs.bib"
    out.parent.mkdir()
    old = "% the previous export, which must survive\n"
    out.write_text(old, encoding="utf-8")
    from readinglist import formats

    records = formats.read(
        write_big_bib(tmp_path / "lib.bib", 2000).read_text(), "bibtex", "lib.bib"
    ).records
    with db.session_scope(engine) as session:
        library.import_records(session, records, source="lib.bib", fmt="bibtex")
    engine.dispose()
    outcomes: list[str] = []
    seen: set[str] = set()
    for attempt in range(6):
        proc = start_cli(
            sqlite_url, tmp_path / f"export{attempt}.log", "export", "bibtex", "-o", str(out)
        )

        def writing() -> bool:
            return any(p.name.endswith(".tmp") for p in out.parent.iterdir())

        if not wait_until(proc, writing, "the temporary file appeared", pause=0.0005):
            outcomes.append(f"finished (exit {proc.returncode})")
        else:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
            intact = out.read_text(encoding="utf-8") == old
            outcomes.append("killed: old file intact" if intact else "killed after the rename")
        seen.add(out.read_text(encoding="utf-8"))
        for leftover in out.parent.glob("*.tmp"):
            leftover.unlink()
        out.write_text(old, encoding="utf-8")
    complete = tmp_path / "complete.bib"
    proc = start_cli(sqlite_url, tmp_path / "complete.log", "export", "bibtex", "-o", str(complete))
    assert proc.wait(timeout=300) == 0
    new = complete.read_text(encoding="utf-8")
    assert new.count("@inproceedings{") == 2000
    assert seen <= {old, new}  # never a partial file
    assert "killed: old file intact" in outcomes, outcomes
    print(f"\nexport kills: {outcomes}")
