"""A Ctrl-C Python drops (raised in a finalizer or a garbage-collector callback, where
it cannot propagate) still stops the next commit (readinglist.interrupts): the write is
rolled back and the command exits 130, on SQLite and PostgreSQL."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import sql_value
from sqlalchemy import text

from readinglist import db, interrupts

ENTRY = "@article{{k{i}, title = {{Paper {i}}}, author = {{Doe, Jane}}, year = {{2020}}}}\n"


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The hook installed for the test, then Python's again (and nothing pending)."""
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    monkeypatch.setattr(interrupts, "_installed", False)
    interrupts.install()
    yield
    monkeypatch.setattr(interrupts, "_pending", False)


class _Dropping:
    """An object whose finalizer is where SIGINT's handler runs (Python's own handler
    raises KeyboardInterrupt there, which cannot propagate)."""

    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)


def test_an_interrupt_dropped_in_a_finalizer_rolls_the_next_commit_back(
    db_url: str, recording: None
) -> None:
    engine = db.make_engine(db_url)
    with pytest.raises(KeyboardInterrupt), db.connection_scope(engine) as conn:
        conn.execute(text("INSERT INTO tags (name, name_folded) VALUES ('a', 'a')"))
        _Dropping()  # collected at once: its KeyboardInterrupt is dropped, not raised
        conn.execute(text("INSERT INTO tags (name, name_folded) VALUES ('b', 'b')"))
    assert sql_value(db_url, "SELECT count(*) FROM tags") == 0
    with db.connection_scope(engine) as conn:  # handled: the next commit goes through
        conn.execute(text("INSERT INTO tags (name, name_folded) VALUES ('c', 'c')"))
    assert sql_value(db_url, "SELECT count(*) FROM tags") == 1
    db.release(engine)


def test_other_dropped_exceptions_are_still_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[type[BaseException] | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_type))
    monkeypatch.setattr(interrupts, "_installed", False)
    interrupts.install()

    class Failing:
        def __del__(self) -> None:
            raise ValueError("from a finalizer")

    Failing()
    _Dropping()
    assert seen == [ValueError]  # the hook set before reports it; the interrupt is kept
    with pytest.raises(KeyboardInterrupt):
        interrupts.check()
    interrupts.check()  # handled: nothing pending


#: An import whose first garbage collection after the library is opened runs a callback
#: that is interrupted (as SIGINT's handler would be there): the KeyboardInterrupt is
#: dropped by Python; the command must still not commit.
SCRIPT = """
import gc, sys
fired = []
def callback(phase, info):
    if phase == "stop" and not fired and "readinglist.library.importing" in sys.modules:
        fired.append(1)
        raise KeyboardInterrupt
gc.callbacks.append(callback)
sys.argv = ["readinglist", *sys.argv[1:]]
from readinglist.cli import main
main()
"""


def test_an_import_whose_interrupt_was_dropped_exits_130_and_adds_nothing(
    db_url: str, tmp_path: Path
) -> None:
    source = tmp_path / "many.bib"
    source.write_text("".join(ENTRY.format(i=i) for i in range(300)), encoding="utf-8")
    first = tmp_path / "one.bib"
    first.write_text(ENTRY.format(i="first"), encoding="utf-8")
    command = [sys.executable, "-c", SCRIPT, "--db", db_url, "import"]
    plain = [sys.executable, "-m", "readinglist", "--db", db_url, "import", str(first)]
    assert subprocess.run(plain, capture_output=True, check=False).returncode == 0
    done = subprocess.run(
        [*command, str(source)], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout) == (130, ""), done.stderr
    assert done.stderr.startswith("Interrupted: "), done.stderr
    assert "Exception ignored" not in done.stderr
    assert sql_value(db_url, "SELECT count(*) FROM papers") == 1


def test_a_dropped_interrupt_waits_for_the_main_threads_commit(
    db_url: str, recording: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another thread's transaction (a triage run's background fit reads in one) leaves
    a dropped interrupt pending: the main thread's next commit is rolled back."""
    import threading

    engine = db.make_engine(db_url)
    monkeypatch.setattr(interrupts, "_pending", True)
    failed: list[BaseException] = []

    def read() -> None:
        try:
            with db.connection_scope(engine, write=False) as conn:
                conn.execute(text("SELECT count(*) FROM tags"))
        except BaseException as exc:  # what the thread would die of
            failed.append(exc)

    thread = threading.Thread(target=read)
    thread.start()
    thread.join(30)
    assert failed == []
    with pytest.raises(KeyboardInterrupt), db.connection_scope(engine) as conn:
        conn.execute(text("INSERT INTO tags (name, name_folded) VALUES ('a', 'a')"))
    assert sql_value(db_url, "SELECT count(*) FROM tags") == 0
    db.release(engine)
