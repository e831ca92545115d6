"""Opening a library while another connection holds SQLite's lock on a new file: switching
it to WAL fails at once with "database is locked" (seen as a rare failure of eight processes
opening one new library together). That is contention: wait for it, then say "busy", never
"not a readinglist library"."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from readinglist import db
from readinglist.errors import DatabaseError


def _hold_exclusive(path: Path) -> sqlite3.Connection:
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE IF NOT EXISTS t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    return holder


def test_a_held_lock_is_waited_for_then_wal_is_set(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    holder = _hold_exclusive(path)
    threading.Timer(0.3, holder.rollback).start()
    engine = db.make_engine(f"sqlite:///{path}")
    started = time.monotonic()
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    assert time.monotonic() - started >= 0.25
    engine.dispose()
    holder.close()


def test_a_lock_held_past_the_timeout_says_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READINGLIST_BUSY_TIMEOUT", "0.2")
    path = tmp_path / "new.db"
    holder = _hold_exclusive(path)
    engine = db.make_engine(f"sqlite:///{path}")
    with pytest.raises(DatabaseError, match="the library is busy"), engine.connect():
        pass
    engine.dispose()
    holder.rollback()
    holder.close()
