"""``stats``: counts by status, priority and tag; papers read per month (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from helpers import SQLITE_ONLY

from readinglist.records import PaperRecord


def build(db_url: str) -> None:
    """Four papers: a read in March; b read in May, put back, read again in June
    (23:59:59 UTC on the last day); c imported as read with a read date in April and
    no history; d read in July and that decision undone: new. Priorities a, b high and c low; tags x (a, b) and y (c)."""
    from readinglist import db, library
    from readinglist.library import marks, readers

    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:
        library.import_records(
            session,
            [
                PaperRecord(citekey="a", title="Alpha", tags=("x",)),
                PaperRecord(citekey="b", title="Beta", tags=("x",)),
                PaperRecord(citekey="c", title="Gamma", tags=("y",)),
                PaperRecord(citekey="d", title="Delta"),
            ],
            source="seed",
            fmt="test",
        )
    with db.session_scope(engine) as session:
        a, b, c = (library.resolve(session, k) for k in "abc")
        library.set_status(session, [a], "read", at=datetime(2026, 3, 15, 12, tzinfo=UTC))
        library.set_status(session, [b], "read", at=datetime(2026, 5, 1, 8, tzinfo=UTC))
        library.set_status(session, [b], "to-read", at=datetime(2026, 5, 2, 8, tzinfo=UTC))
        library.set_status(session, [b], "read", at=datetime(2026, 6, 30, 23, 59, 59, tzinfo=UTC))
        # c: a decision written without a status event (as an import of a read paper)
        read_c = {"status": "read", "read_at": datetime(2026, 4, 10, tzinfo=UTC)}
        marks.write_decisions(session, readers.ensure(session), [c.id], read_c)
        library.set_priority(session, [a, b], "high")
        # d: read in July, then the decision undone (triage's u): never counted as read
        d = library.resolve(session, "d")
        library.set_status(session, [d], "read", at=datetime(2026, 7, 3, tzinfo=UTC))
    with db.session_scope(engine) as session:
        from sqlalchemy import func, select

        from readinglist.tables import STATUS_EVENTS

        last = session.execute(select(func.max(STATUS_EVENTS.c.id))).scalar_one()
        marks.undo_status(session, last)
        library.set_priority(session, [c], "low")
    engine.dispose()


def test_stats_json(invoke, db_url) -> None:
    build(db_url)
    result = invoke("stats", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {
        "papers": 4,
        "status": {"new": 1, "to-read": 0, "reading": 0, "read": 3, "skipped": 0},
        "priority": {"high": 2, "medium": 0, "low": 1, "none": 1},
        "tags": [{"tag": "x", "count": 2}, {"tag": "y", "count": 1}],
        "read_per_month": [
            {"month": "2026-03", "count": 1},
            {"month": "2026-04", "count": 1},
            {"month": "2026-05", "count": 1},
            {"month": "2026-06", "count": 1},
        ],
        "skipped_since_wanted": 0,
    }


def test_stats_text(invoke, db_url) -> None:
    build(db_url)
    result = invoke("stats")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "4 papers\n"
        "\n"
        "Status\n"
        "  new           1\n"
        "  to-read       0\n"
        "  reading       0\n"
        "  read          3\n"
        "  skipped       0\n"
        "\n"
        "Priority\n"
        "  high          2\n"
        "  medium        0\n"
        "  low           1\n"
        "  none          1\n"
        "\n"
        "Tags\n"
        "  x             2\n"
        "  y             1\n"
        "\n"
        "Read per month\n"
        "  2026-03       1\n"
        "  2026-04       1\n"
        "  2026-05       1\n"
        "  2026-06       1\n"
    )


def test_stats_of_a_query(invoke, db_url) -> None:
    build(db_url)
    result = invoke("stats", "tag:x", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {
        "papers": 2,
        "status": {"new": 0, "to-read": 0, "reading": 0, "read": 2, "skipped": 0},
        "priority": {"high": 2, "medium": 0, "low": 0, "none": 0},
        "tags": [{"tag": "x", "count": 2}],
        "read_per_month": [
            {"month": "2026-03", "count": 1},
            {"month": "2026-05", "count": 1},
            {"month": "2026-06", "count": 1},
        ],
        "skipped_since_wanted": 0,
    }


def test_stats_of_an_empty_library(invoke, db_url) -> None:
    result = invoke("stats", "--json")
    assert json.loads(result.stdout) == {
        "papers": 0,
        "status": {"new": 0, "to-read": 0, "reading": 0, "read": 0, "skipped": 0},
        "priority": {"high": 0, "medium": 0, "low": 0, "none": 0},
        "tags": [],
        "read_per_month": [],
        "skipped_since_wanted": 0,
    }
    assert invoke("stats").stdout.startswith("0 papers\n\nStatus\n  new           0\n")


@SQLITE_ONLY
def test_stats_bad_query_exits_2(invoke, db_url) -> None:
    result = invoke("stats", "year:abc")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: invalid query 'year:abc'")


def test_stats_of_a_whole_sqlite_library_is_read_without_sqlalchemy(sqlite_url, tmp_path) -> None:
    """``counting.sqlite_stats`` (the stdlib reader ``stats`` uses for a whole SQLite
    library at the current schema, issue 17) gives what ``library.paper_stats`` gives,
    and declines (None) a library at another revision, which the usual path upgrades."""
    import sqlite3
    from pathlib import Path

    from readinglist import counting, db, library

    build(sqlite_url)
    path = Path(sqlite_url.removeprefix("sqlite:///"))
    engine = db.make_engine(sqlite_url)
    with db.session_scope(engine, write=False) as session:
        expected = library.paper_stats(session)
    engine.dispose()
    assert counting.sqlite_stats(path, "default") == expected
    assert expected["read_per_month"] == [
        ("2026-03", 1),
        ("2026-04", 1),
        ("2026-05", 1),
        ("2026-06", 1),
    ]
    assert counting.sqlite_stats(tmp_path / "missing.db", "default") is None
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0004'")
    assert counting.sqlite_stats(path, "default") is None


def test_stats_command_imports_no_sqlalchemy_for_a_whole_sqlite_library(sqlite_url) -> None:
    """``stats`` of a whole SQLite library runs without importing SQLAlchemy (a
    process of its own: the test session has it imported)."""
    import subprocess
    import sys

    build(sqlite_url)
    code = (
        "import sys\n"
        "from readinglist.cli import main\n"
        "sys.argv = ['readinglist', '--db', sys.argv[1], 'stats', '--json']\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        "    print(sorted(m for m in sys.modules if m.startswith('sqlalchemy'))[:3], "
        "file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, sqlite_url], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["papers"] == 4
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_stats_counts_the_papers_skipped_since_the_last_wanted_one(invoke, db_url) -> None:
    """The stopping aid: papers skipped after the newest change to a wanted status;
    a wanted decision that was undone (triage's ``u``) does not reset it."""
    from readinglist import db
    from readinglist.library import marks

    build(db_url)  # a, b read (wanted) last of all
    assert invoke("mark", "skipped", "d").exit_code == 0
    assert json.loads(invoke("stats", "--json").stdout)["skipped_since_wanted"] == 1
    assert invoke("mark", "skipped", "a", "b").exit_code == 0
    assert json.loads(invoke("stats", "--json").stdout)["skipped_since_wanted"] == 3
    assert "3 skipped since the last wanted paper" in invoke("stats").stdout.splitlines()[1]
    assert invoke("mark", "to-read", "b").exit_code == 0
    assert json.loads(invoke("stats", "--json").stdout)["skipped_since_wanted"] == 0
    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:  # undo the to-read: b skipped again
        event = marks.last_undoable(session)
        assert event is not None
        marks.undo_status(session, event[0])
    engine.dispose()
    assert json.loads(invoke("stats", "--json").stdout)["skipped_since_wanted"] == 3
    assert json.loads(invoke("stats", "tag:x", "--json").stdout)["skipped_since_wanted"] == 3
    # An undo back to skipped is no new skip: skip d, want c, want d, undo that.
    assert invoke("mark", "to-read", "c").exit_code == 0
    assert invoke("mark", "to-read", "d").exit_code == 0
    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:
        event = marks.last_undoable(session)
        assert event is not None
        marks.undo_status(session, event[0])
    engine.dispose()
    assert json.loads(invoke("stats", "--json").stdout)["skipped_since_wanted"] == 0


@SQLITE_ONLY
def test_the_stopping_aid_reads_the_history_since_the_last_wanted_paper(db_url) -> None:
    """The count reads the reader's history from the last wanted change on (a range of
    ids), each skip's decision by its key: no look-up of every skipped paper's whole
    history (that was 4.2 million rows and 340 ms for 1,453 skipped papers of 10,000)."""
    import sqlite3

    from readinglist import counting

    build(db_url)
    with sqlite3.connect(db_url.removeprefix("sqlite:///")) as conn:
        plan = [
            row[3]
            for row in conn.execute(
                "EXPLAIN QUERY PLAN " + counting.SKIPPED_SINCE_WANTED, {"reader": "default"}
            )
        ]
    assert any(step.startswith("SEARCH e ") and "rowid>?" in step for step in plan), plan
    assert not [step for step in plan if step.startswith("SEARCH e ") and "rowid>?" not in step]
