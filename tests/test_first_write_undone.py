"""A first write that fails leaves no library behind (both databases).

The creation of a library belongs to the transaction of the write that created it: an
import that rejects every entry, a dry run, or Ctrl-C (SIGINT to a real process) during
the first import of a library that did not exist leaves no SQLite file, no folder made
for it and no table on the PostgreSQL server; "created a new library" is said only once
the write committed. Ctrl-C in a later long command (a migration of ``db upgrade``
too) leaves the library as it was.
"""

from __future__ import annotations

import functools
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import blank_pg_database
from helpers import sql_value, statements_to

from readinglist.cli import cli

BIN = Path(sys.executable).parent
ENTRY = "@article{{k{i}, title={{A Study of Topic {i}}}, author={{Doe{i}, Jane}}, year={{2001}}}}\n"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


class NewLibrary:
    """Where a library does not exist yet: ``url`` for ``--db``; ``left()`` says what of it
    exists (SQLite: the files and folders under the test folder; PostgreSQL: its tables)."""

    def __init__(self, url: str, left: Callable[[], list[str]]) -> None:
        self.url = url
        self.left = left


@pytest.fixture(params=["sqlite", "postgresql"])
def new_library(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[NewLibrary]:
    if request.param == "sqlite":
        place = tmp_path / "place"
        place.mkdir()
        yield NewLibrary(
            f"sqlite:///{place / 'new' / 'deeper' / 'lib.db'}",
            lambda: sorted(str(p.relative_to(place)) for p in place.rglob("*")),
        )
        return
    tables = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
    for url in blank_pg_database(request):
        yield NewLibrary(url, functools.partial(_values, url, tables))


def _values(url: str, sql: str) -> list[str]:
    from helpers import sql_values

    return [str(v) for v in sql_values(url, sql)]


def test_a_first_import_rejecting_every_entry_creates_nothing(
    new_library: NewLibrary, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.bib"
    bad.write_text("@article{a, title={Unclosed}\n", encoding="utf-8")
    result = run("--db", new_library.url, "import", str(bad))
    assert result.exit_code == 5, result.output
    assert "created" not in result.stderr.replace("no library created", "")
    assert result.stderr.endswith("Error: 1 entry rejected; nothing imported, no library created\n")
    assert new_library.left() == []
    # a dry run on a missing library creates nothing either
    good = tmp_path / "good.bib"
    good.write_text(ENTRY.format(i=1), encoding="utf-8")
    result = run("--db", new_library.url, "import", "--dry-run", str(good))
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (0, "dry run: nothing written")
    assert new_library.left() == []
    # the same import with one good entry creates it, says so, and keeps it
    mixed = tmp_path / "mixed.bib"
    mixed.write_text(ENTRY.format(i=2) + bad.read_text(encoding="utf-8"), encoding="utf-8")
    result = run("--db", new_library.url, "import", str(mixed))
    assert result.exit_code == 5, result.output
    assert result.stderr.count("created a new library at ") == 1
    assert sql_value(new_library.url, "SELECT count(*) FROM papers") == 1


def _library_made(library: NewLibrary) -> bool:
    try:
        return any(name in ("new/deeper/lib.db", "papers") for name in library.left())
    except Exception:
        return False


def test_ctrl_c_during_a_first_import_leaves_no_library(
    new_library: NewLibrary, tmp_path: Path
) -> None:
    big = tmp_path / "big.bib"
    big.write_text("".join(ENTRY.format(i=i) for i in range(20000)), encoding="utf-8")
    process = subprocess.Popen(
        [str(BIN / "readinglist"), "--db", new_library.url, "import", str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not _library_made(new_library) and process.poll() is None:
        assert time.monotonic() < deadline, "the import never created the library"
        time.sleep(0.02)
    time.sleep(0.2)  # into the import's transaction
    assert process.poll() is None, "the import ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert (process.returncode, out) == (130, ""), err
    assert err == "Interrupted: nothing was imported; the library is unchanged\n"
    assert new_library.left() == []


def test_ctrl_c_just_after_a_first_import_created_the_tables_leaves_no_library(
    new_library: NewLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after the creation of the library's tables committed, before the schema
    check returned (a real SIGINT lands there while the migration's connection goes
    back to its pool): nothing is left. On PostgreSQL all 15 tables stayed, under "the
    library is unchanged", for SIGINTs in the first ~20 ms after the tables appeared."""
    from readinglist import db

    upgrade = db._upgrade

    def upgrade_then_interrupted(*args: Any, **kwargs: Any) -> str:
        upgrade(*args, **kwargs)
        assert new_library.left() != []  # the tables were made and committed
        raise KeyboardInterrupt

    monkeypatch.setattr(db, "_upgrade", upgrade_then_interrupted)
    source = tmp_path / "a.bib"
    source.write_text(ENTRY.format(i=1), encoding="utf-8")
    result = run("--db", new_library.url, "import", str(source))
    assert (result.exit_code, result.stdout) == (130, ""), result.output
    assert result.stderr == "Interrupted: nothing was imported; the library is unchanged\n"
    assert new_library.left() == []


# --- Ctrl-C in every long command: exit 130, one line, the library as it was -------------


COMPLETION = (
    "@article{k1, title={A Study of Topic 1}, author={Doe1, Jane}, year={2001},"
    " journal={Journal of Tests}, volume={7}, pages={1--9}, doi={10.1000/k1}}\n"
)


@pytest.mark.parametrize(
    "args",
    [
        ["merge", "k1", "k2"],
        ["resolve", "key:k1", "--from", "{completion}"],
        ["topics", "--k", "2", "--tag"],
        ["title", "k1", "A New Title"],
    ],
    ids=lambda a: a[0],
)
def test_ctrl_c_in_a_long_command_exits_130_and_changes_nothing(
    invoke: Callable[..., Result], db_url: str, tmp_path: Path, args: list[str]
) -> None:
    """Ctrl-C arrives (KeyboardInterrupt) right after the command's first write statement
    reached the database, inside its transaction."""
    source, completion = tmp_path / "a.bib", tmp_path / "completion.bib"
    source.write_text("".join(ENTRY.format(i=i) for i in range(12)), encoding="utf-8")
    completion.write_text(COMPLETION, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    before = _library(db_url)
    writes: list[str] = []

    def interrupt(statement: str) -> None:
        if statement.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            writes.append(statement)
            raise KeyboardInterrupt

    with statements_to(db_url, interrupt):
        result = invoke(*(a.format(completion=completion) for a in args))
    assert writes, result.output  # the command did start writing
    assert (result.exit_code, result.stdout) == (130, "")
    assert result.stderr == "Interrupted: nothing was changed; the library is unchanged\n"
    assert _library(db_url) == before


def _library(url: str) -> list[list[str]]:
    """Every paper's key, title and DOI, the aliases, tags, tag links and merge history."""
    text = "CAST({} AS TEXT)".format
    return [
        _values(url, f"SELECT {columns} FROM {table} ORDER BY 1")
        for table, columns in (
            ("papers", f"citekey || '|' || title || '|' || coalesce(doi, '') || {text('id')}"),
            ("aliases", "alias"),
            ("tags", "name"),
            ("paper_tags", f"{text('paper_id')} || ':' || {text('tag_id')}"),
            ("merge_conflicts", f"{text('paper_id')} || field"),
        )
    ]


#: ``readinglist ARGS`` in a real process whose first write statement inside a transaction
#: (a migration's first DDL) touches the file named by the first argument and then waits:
#: the test interrupts it there, mid-migration, with a real SIGINT.
HELD_AT_FIRST_WRITE = """
import sys, time
from pathlib import Path
from sqlalchemy import event
from sqlalchemy.engine import Engine

marker = Path(sys.argv.pop(1))
WRITES = ("CREATE", "ALTER", "DROP", "INSERT", "UPDATE", "DELETE")

def hold(conn, cursor, statement, *rest):
    if conn.in_transaction() and statement.lstrip().upper().startswith(WRITES):
        marker.touch()
        time.sleep(120)

event.listen(Engine, "after_cursor_execute", hold)
sys.argv = ["readinglist", *sys.argv[1:]]
from readinglist.cli import main
main()
"""


def test_ctrl_c_during_db_upgrade_exits_130_and_leaves_the_old_revision(
    invoke: Callable[..., Result], db_url: str, tmp_path: Path
) -> None:
    """SIGINT to a real ``db upgrade`` process in the middle of a migration (after its
    first DDL statement): exit 130, one line, the library at its old revision with every
    row as it was; a later upgrade still works."""
    from test_migrations_data import table_rows

    from readinglist import db

    source = tmp_path / "a.bib"
    source.write_text("".join(ENTRY.format(i=i) for i in range(12)), encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    assert invoke("mark", "read", "k1").exit_code == 0
    old = db.KNOWN_REVISIONS[-2]
    engine = db.make_engine(db_url)
    try:
        db.downgrade(engine, old)
        before = table_rows(engine)
        marker = tmp_path / "migrating"
        args = ["--db", db_url, "db", "upgrade"]
        process = subprocess.Popen(
            [sys.executable, "-c", HELD_AT_FIRST_WRITE, str(marker), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while not marker.exists() and process.poll() is None:
            assert time.monotonic() < deadline, "the upgrade never started migrating"
            time.sleep(0.02)
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
        assert (process.returncode, out) == (130, ""), err
        assert err == "Interrupted: nothing was changed; the library is unchanged\n"
        with engine.connect() as conn:
            assert db.current_revision(conn) == old
        assert table_rows(engine) == before
    finally:
        engine.dispose()
    result = invoke("db", "upgrade")
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith(f"database upgraded from {old} to {db.HEAD}\n")


def test_taking_back_a_new_file_waits_for_a_rollback_still_holding_the_lock(
    tmp_path: Path,
) -> None:
    """An interrupted first import may still be rolling back (its write lock held for a
    moment) when the library it created is taken back: that waits, then removes the
    file. It kept an empty library and said "in use by another process" before."""
    import sqlite3
    import threading

    from sqlalchemy import create_engine

    from readinglist.opening import Creation, undo_creation

    path = tmp_path / "new" / "lib.db"
    path.parent.mkdir()
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE papers (id INTEGER)")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO papers VALUES (1)")
    threading.Timer(0.5, lambda: (holder.execute("ROLLBACK"), holder.close())).start()
    engine = create_engine(f"sqlite:///{path}")
    assert undo_creation(engine, Creation(str(path), path, False, [path.parent]))
    assert not path.parent.exists()


def test_taking_back_new_tables_waits_for_a_rollback_still_holding_their_locks(
    request: pytest.FixtureRequest,
) -> None:
    """PostgreSQL: the interrupted first import's backend may still hold its locks on the
    new tables for a moment (it aborts its transaction only once it sees its client
    gone) when the library is taken back: that waits (:data:`opening.UNDO_WAIT`), then
    drops the tables. ``LOCK TABLE ... NOWAIT`` kept an empty library and said "in use
    by another process" (seen once in a full run on a loaded machine). A lock held
    longer than that keeps the library."""
    import threading

    from sqlalchemy import create_engine

    from readinglist import opening
    from readinglist.opening import Creation, undo_creation

    for url in blank_pg_database(request):
        engine = create_engine(url)
        holder = engine.connect()
        holder.exec_driver_sql("CREATE TABLE papers (id integer)")
        holder.commit()
        holder.exec_driver_sql("LOCK TABLE papers IN ROW EXCLUSIVE MODE")  # as an INSERT
        release = threading.Timer(0.5, holder.rollback)
        release.start()
        try:
            assert undo_creation(create_engine(url), Creation(url, None, True, []))
        finally:
            release.join()
        assert _values(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'") == []
        # a lock held past the wait keeps the library (another writer has it)
        holder.exec_driver_sql("CREATE TABLE papers (id integer)")
        holder.commit()
        holder.exec_driver_sql("LOCK TABLE papers IN ROW EXCLUSIVE MODE")
        started = time.monotonic()
        try:
            assert not undo_creation(create_engine(url), Creation(url, None, True, []))
        finally:
            holder.rollback()
            holder.close()
            engine.dispose()
        assert opening.UNDO_WAIT <= time.monotonic() - started < opening.UNDO_WAIT + 5
        assert _values(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'") == [
            "papers"
        ]
