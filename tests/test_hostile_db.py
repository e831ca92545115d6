"""Issue 18: damaged, foreign and old libraries; backups to bad destinations."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import Forked, start_forked

from readinglist.cli import cli
from readinglist.db import HEAD

BIB = "@article{a1, title={One paper about tests}, author={Doe, Jane}, year={2020}}\n"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def _library(tmp_path: Path, name: str = "lib.db") -> Path:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB)
    db = tmp_path / name
    assert _run("--db", str(db), "import", str(bib))[0] == 0
    return db


@pytest.mark.parametrize("command", ["check", "upgrade", "current", "backup"])
def test_db_commands_on_a_text_file_are_one_line_exit_6(tmp_path: Path, command: str) -> None:
    db = tmp_path / "text.db"
    db.write_text("hello world\n")
    code, out, err = _run("--db", str(db), "db", command)
    assert (code, out) == (6, "")
    assert err == f"Error: {db}: not a readinglist database (file is not a database)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["text.db"]  # no .bak.tmp left


@pytest.mark.parametrize("command", ["check", "upgrade", "current", "backup"])
def test_db_commands_on_a_truncated_library_are_one_line_exit_6(
    tmp_path: Path, command: str
) -> None:
    whole = _library(tmp_path)
    db = tmp_path / "trunc.db"
    db.write_bytes(whole.read_bytes()[:3000])
    code, out, err = _run("--db", str(db), "db", command)
    assert (code, out) == (6, "")
    assert err == f"Error: {db}: not a readinglist database (database disk image is malformed)\n"


def _corrupt_index(db: Path, index: str = "ix_papers_venue") -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (index,)).fetchone()
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with db.open("r+b") as handle:
        handle.seek((root[0] - 1) * size)
        handle.write(b"\x00" * size)


def test_db_check_reports_a_damaged_index_page(tmp_path: Path) -> None:
    db = _library(tmp_path)
    _corrupt_index(db)
    code, out, err = _run("--db", str(db), "db", "check")
    assert code == 6
    assert out.splitlines()[0] == f"ok     schema: revision {HEAD} (head)"
    assert out.splitlines()[1:] == [
        "FAULT  sqlite-integrity: the database file is damaged (database disk image is "
        "malformed): restore a backup"
    ]
    assert err == "Error: database check found 1 fault\n"
    code, _out, err = _run("--db", str(db), "db", "check", "--repair")
    assert code == 6
    assert err == (
        "Error: not repaired: the database file is damaged (database disk image is "
        "malformed): restore a backup\n"
    )
    code, out, err = _run("--db", str(db), "list", "venue:acl")
    assert code == 6
    assert err == (
        "Error: database error: database disk image is malformed: the database file is "
        "damaged; run `readinglist db check`\n"
    )


def _set_revision(db: Path, revision: str) -> None:
    conn = sqlite3.connect(db)
    conn.execute("UPDATE alembic_version SET version_num = ?", (revision,))
    conn.commit()
    conn.close()


def test_db_check_repair_refuses_an_unknown_schema(tmp_path: Path) -> None:
    db = _library(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM paper_fts")  # a fault that --repair would otherwise rebuild
    conn.commit()
    conn.close()
    _set_revision(db, "9999")
    before = db.read_bytes()
    code, _out, err = _run("--db", str(db), "db", "check", "--repair")
    assert code == 6
    assert err == (
        "Error: not repaired: schema revision '9999' is unknown to this version (which knows "
        f"up to {HEAD}); it was probably written by a newer version\n"
    )
    assert db.read_bytes() == before


def test_db_check_repair_on_an_old_schema_says_upgrade(tmp_path: Path) -> None:
    db = _library(tmp_path)
    _set_revision(db, "0001")
    code, _out, err = _run("--db", str(db), "db", "check", "--repair")
    assert code == 6
    assert err == (
        f"Error: not repaired: schema is at revision 0001, head is {HEAD}: "
        "run `readinglist db upgrade`\n"
    )


def test_backup_to_a_folder_with_a_slash_creates_it(tmp_path: Path) -> None:
    db = _library(tmp_path)
    target = tmp_path / "missing" / "dir"
    code, out, err = _run("--db", str(db), "db", "backup", f"{target}/")
    assert code == 0, err
    (made,) = target.iterdir()
    assert out == f"{made}\n"
    assert made.name.startswith("lib.db.")
    assert made.name.endswith(".bak")


def test_backup_under_a_file_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    db = _library(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = _run("--db", str(db), "db", "backup", str(db.with_name("refs.bib") / "x"))
    assert (code, out) == (6, "")
    assert err == (
        f"Error: cannot write the backup {tmp_path}/refs.bib/x: {tmp_path}/refs.bib is not a "
        "folder\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_backup_to_a_full_disk_is_one_line_and_leaves_no_tmp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readinglist import db as db_module

    db = _library(tmp_path)

    def full(self: sqlite3.Connection, target: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    real_connect = sqlite3.connect

    class Conn:
        def __init__(self, *args: object, **kwargs: object) -> None:
            self._conn = real_connect(*args, **kwargs)  # type: ignore[arg-type]

        def execute(self, *args: object) -> sqlite3.Cursor:
            return self._conn.execute(*args)  # type: ignore[arg-type]

        def backup(self, target: object) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        def close(self) -> None:
            self._conn.close()

    monkeypatch.setattr(db_module.sqlite3, "connect", Conn)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out, err = _run("--db", str(db), "db", "backup", str(out_dir / "x.bak"))
    assert (code, out) == (6, "")
    assert err == f"Error: cannot write the backup {out_dir}/x.bak: database or disk is full\n"
    assert list(out_dir.iterdir()) == []


def _mark_in_a_process(db: Path, timeout: str) -> Forked:
    """Start ``readinglist --db DB mark read a1`` (a process of its own, forked after the
    command line's imports) with a busy timeout of ``timeout`` seconds; its standard
    output and error go to ``DB.out`` and ``DB.err`` (:func:`_ended`)."""
    env = {**os.environ, "READINGLIST_BUSY_TIMEOUT": timeout}
    argv = ["--db", str(db), "mark", "read", "a1"]
    out, err = db.with_suffix(".out"), db.with_suffix(".err")
    return start_forked(argv, out, err, prelude=MARK_IMPORTS, env=env)


#: What ``mark`` imports, imported once before it is forked.
MARK_IMPORTS = """
import readinglist.cli, readinglist.cli._root, readinglist.cli.mark, readinglist.library
import readinglist.db, sqlalchemy.dialects.sqlite.pysqlite
"""


def _ended(process: Forked, db: Path) -> tuple[str, str]:
    """Wait (2 minutes at most) for ``process`` of :func:`_mark_in_a_process` on ``db``;
    its standard output and error."""
    process.wait(timeout=120)
    out, err = db.with_suffix(".out"), db.with_suffix(".err")
    return out.read_text(encoding="utf-8"), err.read_text(encoding="utf-8")


def _waiting_for_the_lock(process: Forked, db: Path) -> None:
    """Return once ``process`` has the library ``db`` open and sleeps in SQLite's busy
    handler (Linux: the process's kernel wait channel is a timer sleep, /proc/PID/wchan;
    nothing else in a ``mark`` sleeps), waiting for the write lock; elsewhere after 3 s."""
    proc = Path(f"/proc/{process.pid}")
    if not (proc / "wchan").exists():
        time.sleep(3)
        return
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            opened = {os.readlink(fd) for fd in (proc / "fd").iterdir()}
            sleeping = (proc / "wchan").read_text().strip() == "hrtimer_nanosleep"
        except OSError:  # a descriptor closed while read
            opened, sleeping = set(), False
        if sleeping and str(db) in opened:
            return
        time.sleep(0.02)
    raise AssertionError(f"the process never waited for the lock (exit {process.poll()})")


def test_a_write_during_a_long_import_waits_a_bounded_time(tmp_path: Path) -> None:
    db = _library(tmp_path)
    holder = sqlite3.connect(db, isolation_level=None)  # a long import: the write lock held
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        process = _mark_in_a_process(db, "1")
        out, err = _ended(process, db)
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert (process.returncode, out) == (6, "")
    assert err == (
        "Error: the library is busy: another readinglist process (an import?) has held the "
        "write lock for more than 1 s; try again when it has finished, or set "
        "READINGLIST_BUSY_TIMEOUT (seconds) to wait longer (database is locked)\n"
    )
    assert waited < 60


def test_a_write_waiting_for_an_import_goes_through_when_it_ends(tmp_path: Path) -> None:
    db = _library(tmp_path)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    process = _mark_in_a_process(db, "60")
    _waiting_for_the_lock(process, db)
    holder.execute("COMMIT")
    holder.close()
    _out, err = _ended(process, db)
    assert process.returncode == 0, err
    assert _run("--db", str(db), "list", "-k", "status:read")[1] == "a1\n"
