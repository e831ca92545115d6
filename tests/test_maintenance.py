"""``db check``/``--repair``, ``db backup``/``restore`` and ``import --list-batches``/``--undo``.

Every test that takes ``engine``, ``db_url`` or ``invoke`` runs on SQLite and on
PostgreSQL; the SQLite-only ones (FTS5 internals, file backups) take ``sqlite_url``.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import make_database
from sqlalchemy import func, select, text

from readinglist import db, library, maintenance
from readinglist.errors import DatabaseError, InvalidInput, UsageError
from readinglist.models import ImportBatch, Note, Paper, Person, Tag
from readinglist.records import PaperRecord
from readinglist.records import Person as PersonRecord

BAK_NAME = re.compile(r"^library\.db\.\d{8}T\d{6}Z(-\d+)?\.bak$")


def make_records(n: int, prefix: str = "p", *, first_line: int = 1) -> list[PaperRecord]:
    """``n`` distinct papers with keys ``<prefix>0``..; each has a shared and an own author."""
    return [
        PaperRecord(
            citekey=f"{prefix}{i}",
            entry_type="article",
            title=f"On the {prefix} problem, part {i}",
            authors=(
                PersonRecord(family=f"Writer{prefix}{i}", given="Ann"),
                PersonRecord(family="Shared", given="Bob"),
            ),
            year=2020 + i % 5,
            venue="Journal of Tests",
            abstract=f"We study the {prefix} problem in its part number {i} with care.",
            line=first_line + 10 * i,
        )
        for i in range(n)
    ]


def import_records(
    engine: Any, records: list[PaperRecord], tags: tuple[str, ...] = (), source: str = "t.bib"
) -> library.ImportReport:
    with db.session_scope(engine) as session:
        return library.import_records(session, records, source=source, fmt="bibtex", tags=tags)


def paper(session: Any, key: str) -> Paper:
    return library.resolve(session, key)


def write_bib(path: Path, keys: list[str]) -> Path:
    entries = [
        f"@article{{{key},\n  title = {{A study called {key} of things}},\n"
        f"  author = {{Family{key}, Given and Shared, Bob}},\n  year = {{2021}},\n"
        f"  journal = {{Journal}},\n}}\n"
        for key in keys
    ]
    path.write_text("\n".join(entries), encoding="utf-8")
    return path


def check_json(invoke: Any, *args: str) -> tuple[int, dict[str, Any]]:
    result = invoke("db", "check", "--json", *args)
    assert "Traceback" not in result.stderr
    return result.exit_code, json.loads(result.stdout)


def full_text_ids(engine: Any, word: str) -> list[int]:
    """Paper ids the dialect's full-text index finds for one folded word."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            sql = "SELECT rowid FROM paper_fts WHERE paper_fts MATCH :w ORDER BY rowid"
        else:
            sql = (
                "SELECT id FROM papers WHERE search_vector @@ to_tsquery('simple', :w) ORDER BY id"
            )
        return list(conn.execute(text(sql), {"w": word}).scalars())


# --- db check ---------------------------------------------------------------------------------


def _named(report, name: str):
    """The result of check ``name`` (SQLite adds sqlite-integrity, so positions differ)."""
    return next(r for r in report.results if r.name == name)


def test_check_passes_after_imports_and_triage(engine) -> None:
    import_records(engine, make_records(30), tags=("zeta", "Alpha", "mid"))
    import_records(engine, make_records(5, "q"), tags=("Beta",), source="q.bib")
    with db.session_scope(engine) as session:
        library.set_status(session, [paper(session, "p1")], "to-read")
        library.add_tags(session, [paper(session, "p2"), paper(session, "q1")], ["later", "aa"])
        library.add_note(session, paper(session, "p3"), "Read **section 3** first.")
    with db.session_scope(engine) as session:
        report = maintenance.check(session)
    pages = ["sqlite-integrity"] if engine.dialect.name == "sqlite" else []
    assert [r.name for r in report.results] == [
        "schema",
        *pages,
        "schema-objects",
        "foreign-keys",
        "full-text-index",
        "search-text",
    ]
    assert [r.faults for r in report.results] == [()] * (5 + len(pages))
    assert report.ok


def test_search_text_of_an_import_matches_a_recomputation(engine) -> None:
    """Tags given in any order at import must index like a later refresh (sorted by name)."""
    import_records(engine, make_records(3), tags=("zeta", "Alpha"))
    with db.session_scope(engine) as session:
        assert maintenance.stale_search_text(session) == []
        stored = paper(session, "p0").search_text
    assert stored.endswith("alpha zeta")


def test_check_finds_stale_search_text_and_repair_fixes_it(engine) -> None:
    import_records(engine, make_records(12))
    with engine.begin() as conn:
        conn.execute(text("UPDATE papers SET search_text = 'garbage' WHERE citekey = 'p7'"))
        before = conn.execute(text("SELECT updated_at FROM papers WHERE citekey = 'p7'")).scalar()
    with db.session_scope(engine) as session:
        report = maintenance.check(session)
        p7 = paper(session, "p7").id
    assert not report.ok
    assert _named(report, "search-text").faults == ("1 paper has stale search text: p7",)
    assert report.repairable
    assert full_text_ids(engine, "writerp7") == []
    with db.session_scope(engine) as session:
        done = maintenance.repair(session)
    assert done[0] == "recomputed the search text of 1 paper"
    with db.session_scope(engine) as session:
        assert maintenance.check(session).ok
    assert full_text_ids(engine, "writerp7") == [p7]
    with engine.connect() as conn:
        after = conn.execute(text("SELECT updated_at FROM papers WHERE citekey = 'p7'")).scalar()
    assert after == before  # a repair is not an edit


def test_check_finds_orphan_rows(engine) -> None:
    import_records(engine, make_records(2), tags=("x",))
    if engine.dialect.name == "sqlite":
        raw = sqlite3.connect(str(db.sqlite_path(engine)))  # foreign keys are off by default
        raw.execute(
            "INSERT INTO readers (id, name, name_folded, created_at) "
            "VALUES (1, 'default', 'default', '2026-01-01')"
        )
        raw.execute(
            "INSERT INTO notes (paper_id, reader_id, shared, body, created_at, updated_at) "
            "VALUES (424242, 1, 0, 'lost', '2026-01-01', '2026-01-01')"
        )
        raw.execute("INSERT INTO paper_tags (paper_id, tag_id) VALUES (424242, 1)")
        raw.commit()
        raw.close()
    else:
        with engine.begin() as conn:
            conn.execute(text("SET LOCAL session_replication_role = replica"))
            conn.execute(
                text(
                    "INSERT INTO readers (id, name, name_folded, created_at) "
                    "VALUES (1, 'default', 'default', now())"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO notes (paper_id, reader_id, shared, body, created_at, "
                    "updated_at) VALUES (424242, 1, false, 'lost', now(), now())"
                )
            )
            tag = conn.execute(text("SELECT min(id) FROM tags")).scalar()
            conn.execute(
                text("INSERT INTO paper_tags (paper_id, tag_id) VALUES (424242, :t)"), {"t": tag}
            )
    with db.session_scope(engine) as session:
        result = _named(maintenance.check(session), "foreign-keys")
    assert result.name == "foreign-keys"
    assert result.faults == (
        "1 rows of notes refer to missing rows of papers",
        "1 rows of paper_tags refer to missing rows of papers",
    )
    assert not result.repairable


def test_check_stops_at_an_unknown_schema_revision(engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with db.session_scope(engine) as session:
        report = maintenance.check(session)
    assert [r.name for r in report.results] == ["schema"]
    assert "'9999' is unknown to this version" in report.results[0].faults[0]


def test_fts5_index_out_of_step_is_found_and_rebuilt(sqlite_url: str) -> None:
    engine = db.make_engine(sqlite_url)
    import_records(engine, make_records(8))
    with engine.begin() as conn:
        ids = dict(conn.execute(text("SELECT citekey, id FROM papers")).all())
        # Drop one paper from the index, and change another's text behind the trigger's back.
        conn.execute(
            text(
                "INSERT INTO paper_fts(paper_fts, rowid, search_text) "
                "SELECT 'delete', id, search_text FROM papers WHERE citekey = 'p2'"
            )
        )
        trigger = conn.execute(
            text("SELECT sql FROM sqlite_master WHERE name = 'paper_fts_au'")
        ).scalar()
        conn.execute(text("DROP TRIGGER paper_fts_au"))
        conn.execute(text("UPDATE papers SET search_text = 'renamed words' WHERE citekey = 'p5'"))
        conn.execute(text(trigger))
    with db.session_scope(engine) as session:
        result = _named(maintenance.check(session), "full-text-index")
    assert result.name == "full-text-index"
    assert result.faults[0] == "1 paper is not indexed: p2"
    assert result.faults[1].startswith(
        "FTS5 integrity-check failed (database disk image is malformed)"
    )
    assert result.repairable
    with db.session_scope(engine) as session:
        maintenance.repair(session)
    with db.session_scope(engine) as session:
        report = maintenance.check(session)
    assert report.ok, report.as_json()
    assert full_text_ids(engine, "writerp2") == [ids["p2"]]
    assert full_text_ids(engine, "writerp5") == [ids["p5"]]  # search_text recomputed too
    engine.dispose()


def test_missing_fts5_trigger_is_a_fault_repair_cannot_fix(sqlite_url: str, runner) -> None:
    from readinglist.cli import cli

    engine = db.make_engine(sqlite_url)
    with engine.begin() as conn:
        conn.execute(text("DROP TRIGGER paper_fts_ai"))
    engine.dispose()
    result = runner.invoke(cli, ["--db", sqlite_url, "db", "check", "--repair"])
    assert result.exit_code == 6
    assert "FAULT  full-text-index: triggers paper_fts_ai are missing" in result.stdout
    assert result.stderr.splitlines()[-1] == "Error: database check found 1 fault"


def test_db_check_cli(invoke, engine) -> None:
    import_records(engine, make_records(4))
    result = invoke("db", "check")
    assert result.exit_code == 0, result.stderr
    sqlite = engine.dialect.name == "sqlite"
    assert result.stdout.splitlines() == [
        f"ok     schema: revision {db.HEAD} (head)",
        *(["ok     sqlite-integrity: PRAGMA integrity_check of every page and index"] * sqlite),
        "ok     schema-objects: no table, view, trigger or rule but ours",
        "ok     foreign-keys: "
        + (
            "PRAGMA foreign_key_check"
            if engine.dialect.name == "sqlite"
            else "orphan rows, one query per foreign key"
        ),
        "ok     full-text-index: "
        + (
            "FTS5 paper_fts: integrity-check against papers, one entry per paper, triggers"
            if engine.dialect.name == "sqlite"
            else "generated tsvector column papers.search_vector and its GIN index"
        ),
        "ok     search-text: search text of every paper recomputed from its data, tags and notes",
    ]
    with engine.begin() as conn:
        conn.execute(text("UPDATE papers SET search_text = '' WHERE citekey IN ('p1', 'p3')"))
    result = invoke("db", "check")
    assert result.exit_code == 6
    assert "FAULT  search-text: 2 papers have stale search text: p1, p3" in result.stdout
    assert result.stderr == (
        "Error: database check found 1 fault; run `readinglist db check --repair`\n"
    )
    code, data = check_json(invoke, "--repair")
    assert code == 0
    assert data["ok"] is True
    assert data["repaired"][0] == "recomputed the search text of 2 papers"
    assert [c["name"] for c in data["checks"] if c["name"] != "sqlite-integrity"] == [
        "schema",
        "schema-objects",
        "foreign-keys",
        "full-text-index",
        "search-text",
    ]
    assert invoke("db", "check").exit_code == 0


def test_db_check_does_not_upgrade_and_refuses_newer_schema(invoke, engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'abcd'"))
    code, data = check_json(invoke)
    assert code == 6
    assert data["ok"] is False
    assert data["checks"][0]["name"] == "schema"
    assert len(data["checks"]) == 1
    with engine.connect() as conn:
        assert db.current_revision(conn) == "abcd"


# --- backups ------------------------------------------------------------------------------------


def snapshot(engine: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the models, sorted: equal snapshots mean no data changed."""
    from readinglist.models import Base

    out: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            rows = conn.execute(select(table)).all()
            out[table.name] = sorted(tuple(map(repr, r)) for r in rows)
    return out


def test_backup_path_never_reuses_a_name(tmp_path: Path) -> None:
    database = tmp_path / "library.db"
    now = datetime(2026, 11, 30, 12, 0, 5, tzinfo=UTC)
    first = db.backup_path(database, now=now)
    assert first == tmp_path / "library.db.20261130T120005Z.bak"
    first.write_bytes(b"x")
    second = db.backup_path(database, now=now)
    assert second == tmp_path / "library.db.20261130T120005Z-2.bak"


def test_db_backup_default_name_directory_and_no_overwrite(
    sqlite_url: str, runner, tmp_path: Path
) -> None:
    from readinglist.cli import cli

    engine = db.make_engine(sqlite_url)
    import_records(engine, make_records(6), tags=("t",))
    database = db.sqlite_path(engine)
    assert database is not None
    result = runner.invoke(cli, ["--db", sqlite_url, "db", "backup"])
    assert result.exit_code == 0, result.stderr
    target = Path(result.stdout.strip())
    assert target.parent == database.parent
    assert BAK_NAME.match(target.name), target.name
    copy = db.make_engine(f"sqlite:///{target}")
    assert snapshot(copy) == snapshot(engine)
    copy.dispose()

    folder = tmp_path / "backups"
    folder.mkdir()
    result = runner.invoke(cli, ["--db", sqlite_url, "db", "backup", str(folder)])
    assert result.exit_code == 0, result.stderr
    assert Path(result.stdout.strip()).parent == folder

    taken = tmp_path / "taken.db"
    taken.write_bytes(b"precious")
    result = runner.invoke(cli, ["--db", sqlite_url, "db", "backup", str(taken)])
    assert result.exit_code == 4
    assert "taken.db exists; not overwritten" in result.stderr
    assert taken.read_bytes() == b"precious"
    engine.dispose()


@pytest.fixture
def pg_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh PostgreSQL database only (for PostgreSQL-specific behaviour)."""
    yield from make_database("postgresql", request, tmp_path)


def test_backup_and_restore_on_postgresql_say_how(pg_url: str, runner, tmp_path: Path) -> None:
    from readinglist.cli import cli

    result = runner.invoke(cli, ["--db", pg_url, "db", "backup"])
    assert result.exit_code == 2
    name = pg_url.rsplit("/", 1)[1]
    assert result.stderr == (
        "Error: backups of a PostgreSQL database are made with pg_dump, e.g. pg_dump "
        f"--format=custom --file=readinglist.dump 'postgresql://postgres@127.0.0.1:5432/{name}'\n"
    )
    result = runner.invoke(cli, ["--db", pg_url, "db", "restore", str(tmp_path / "x.dump")])
    assert result.exit_code == 2
    assert "pg_restore --clean --if-exists" in result.stderr


def test_restore_round_trip_keeps_the_replaced_database(sqlite_url: str, runner) -> None:
    from readinglist.cli import cli

    engine = db.make_engine(sqlite_url)
    import_records(engine, make_records(10))
    saved = snapshot(engine)
    result = runner.invoke(cli, ["--db", sqlite_url, "db", "backup"])
    assert result.exit_code == 0
    backup_file = Path(result.stdout.strip())
    import_records(engine, make_records(4, "later"), tags=("new",), source="later.bib")
    with db.session_scope(engine) as session:
        library.add_note(session, paper(session, "p0"), "a note written after the backup")
    changed = snapshot(engine)
    assert changed != saved
    # A second engine stays open across the restore, as another process would.
    other = db.make_engine(sqlite_url)
    with other.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM papers")).scalar() == 14

    result = runner.invoke(cli, ["--db", sqlite_url, "db", "restore", str(backup_file)])
    assert result.exit_code == 0, result.stderr
    assert snapshot(engine) == saved
    with other.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM papers")).scalar() == 10
    kept = re.search(r"the database as it was is saved in (\S+)", result.stderr)
    assert kept is not None
    previous = db.make_engine(f"sqlite:///{kept.group(1)}")
    assert snapshot(previous) == changed
    assert runner.invoke(cli, ["--db", sqlite_url, "db", "check"]).exit_code == 0
    for eng in (engine, other, previous):
        eng.dispose()


def _newer_library(path: Path) -> Path:
    engine = db.make_engine(f"sqlite:///{path}")
    db.ensure_schema(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    return path


@pytest.mark.parametrize(
    ("make", "code", "message"),
    [
        (lambda p: p, 5, "no such file"),
        (lambda p: (p.write_text("@article{x, title={y}}\n"), p)[1], 5, "not an SQLite database"),
        (
            lambda p: (sqlite3.connect(p).execute("CREATE TABLE t (x)").connection.commit(), p)[1],
            5,
            "an SQLite database, but not a readinglist library",
        ),
        (_newer_library, 6, "'9999' is unknown to this version"),
    ],
    ids=["missing", "text-file", "foreign-sqlite", "newer-revision"],
)
def test_restore_refuses_what_is_not_our_library(
    sqlite_url: str, runner, tmp_path: Path, make: Any, code: int, message: str
) -> None:
    from readinglist.cli import cli

    engine = db.make_engine(sqlite_url)
    import_records(engine, make_records(3))
    saved = snapshot(engine)
    database = db.sqlite_path(engine)
    assert database is not None
    (tmp_path / "in").mkdir()
    files_before = sorted(p.name for p in database.parent.iterdir())
    source = make(tmp_path / "in" / "candidate.db")
    result = runner.invoke(cli, ["--db", sqlite_url, "db", "restore", str(source)])
    assert result.exit_code == code
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(engine) == saved
    assert sorted(p.name for p in database.parent.iterdir()) == files_before  # no .bak made
    engine.dispose()


def test_restore_refuses_a_damaged_backup(sqlite_url: str, tmp_path: Path) -> None:
    engine = db.make_engine(sqlite_url)
    import_records(engine, make_records(200))
    good = maintenance.backup(engine, tmp_path / "good.db")
    data = bytearray(good.read_bytes())
    page = 4096
    for offset in range(2 * page, len(data), page):  # every page but the first: garbage
        data[offset + 8 : offset + 64] = b"\xff" * 56
    bad = tmp_path / "bad.db"
    bad.write_bytes(bytes(data))
    with pytest.raises(InvalidInput, match="the database is damaged"):
        maintenance.restore(engine, bad)
    engine.dispose()


def test_restore_into_a_new_database_file(sqlite_url: str, tmp_path: Path) -> None:
    engine = db.make_engine(sqlite_url)
    import_records(engine, make_records(5))
    source = maintenance.backup(engine, tmp_path / "copy.db")
    fresh = db.make_engine(f"sqlite:///{tmp_path / 'new' / 'fresh.db'}")
    done = maintenance.restore(fresh, source)
    assert done.previous is None
    assert done.revision == db.HEAD
    assert snapshot(fresh) == snapshot(engine)
    with pytest.raises(UsageError, match="is the database itself"):
        maintenance.restore(fresh, tmp_path / "new" / "fresh.db")
    for eng in (engine, fresh):
        eng.dispose()


def test_backup_of_a_missing_database_file(tmp_path: Path) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'none.db'}")
    with pytest.raises(DatabaseError, match="no database file at"):
        maintenance.backup(engine)


# --- import batches and undo --------------------------------------------------------------------


def test_list_batches_cli_table_and_json(invoke, tmp_path: Path) -> None:
    result = invoke("import", "--list-batches", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []
    assert invoke("import", "--list-batches").stderr == "no imports yet\n"
    first = write_bib(tmp_path / "first.bib", ["a1", "a2", "a3"])
    second = write_bib(tmp_path / "second.bib", ["a3", "b1"])
    assert invoke("import", str(first), "--tag", "one").exit_code == 0
    assert invoke("import", str(second)).exit_code == 0
    result = invoke("import", "--list-batches", "--json")
    assert result.exit_code == 0, result.stderr
    batches = json.loads(result.stdout)
    assert [{k: v for k, v in b.items() if k != "started"} for b in batches] == [
        {
            "id": batches[0]["id"],
            "source": str(first),
            "format": "bibtex",
            "added": 3,
            "merged": 0,
            "rejected": 0,
            "papers": 3,
        },
        {
            "id": batches[1]["id"],
            "source": str(second),
            "format": "bibtex",
            "added": 1,
            "merged": 0,
            "rejected": 0,
            "papers": 1,
        },
    ]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", b["started"]) for b in batches)
    table = invoke("import", "--list-batches").stdout.splitlines()
    assert table[0].split() == [
        "BATCH",
        "STARTED",
        "FORMAT",
        "ADDED",
        "MERGED",
        "REJECTED",
        "PAPERS",
        "SOURCE",
    ]
    assert table[1].split() == [
        str(batches[0]["id"]),
        batches[0]["started"],
        "bibtex",
        "3",
        "0",
        "0",
        "3",
        str(first),
    ]


#: Why an undo keeps a paper changed after its import in another way than a decision.
CHANGED = (
    "changed since import (an edit, a tag added or removed, or a completion by resolve or a "
    "later import)"
)


def test_undo_keeps_papers_worked_on_since_and_names_them(invoke, engine) -> None:
    import_records(engine, make_records(9), tags=("conf", "Extra"))
    import_records(engine, make_records(2, "other"), source="other.bib")
    with db.session_scope(engine) as session:
        batch_id = session.scalar(select(func.min(ImportBatch.id)))
        people_before = session.scalar(select(func.count(Person.id)))
        library.set_status(session, [paper(session, "p1")], "to-read")
        library.set_priority(session, [paper(session, "p2")], "high")
        library.add_tags(session, [paper(session, "p3")], ["later"])
        library.add_note(session, paper(session, "p4"), "keep me")
        library.add_tags(session, [paper(session, "p5")], ["日本"])  # a tag with no indexed word
        library.add_tags(session, [paper(session, "p6")], ["conf"])  # an import tag: no change
    result = invoke("import", "--undo", str(batch_id))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        "kept p1: status to-read",
        "kept p2: priority high",
        "kept p3: " + CHANGED,
        "kept p4: 1 note",
        "kept p5: " + CHANGED,
        f"undid import {batch_id} (t.bib): removed 4 papers, kept 5 you have worked on since",
    ]
    with db.session_scope(engine) as session:
        keys = sorted(session.scalars(select(Paper.citekey)))
        assert keys == ["other0", "other1", "p1", "p2", "p3", "p4", "p5"]
        # The four removed papers' own authors are gone; "Shared, Bob" is still used.
        assert session.scalar(select(func.count(Person.id))) == people_before - 4
        assert session.scalar(select(func.count(Note.id))) == 1
        assert {t.name for t in session.scalars(select(Tag))} >= {"conf", "Extra", "later"}
        assert maintenance.check(session).ok
    batches = json.loads(invoke("import", "--list-batches", "--json").stdout)
    assert [(b["id"], b["papers"]) for b in batches] == [(batch_id, 5), (batch_id + 1, 2)]
    again = invoke("import", "--undo", str(batch_id))
    assert again.exit_code == 0
    assert again.stderr.splitlines()[-1] == (
        f"undid import {batch_id} (t.bib): removed 0 papers, kept 5 you have worked on since"
    )


def test_undo_of_a_batch_nobody_touched_removes_it_entirely(invoke, tmp_path: Path) -> None:
    first = write_bib(tmp_path / "first.bib", ["k1", "k2"])
    second = write_bib(tmp_path / "second.bib", ["k2", "k3", "k4"])  # k2 duplicates first's
    assert invoke("import", str(first)).exit_code == 0
    assert invoke("import", str(second), "--tag", "batch2").exit_code == 0
    batches = json.loads(invoke("import", "--list-batches", "--json").stdout)
    second_id = batches[1]["id"]
    result = invoke("import", "--undo", str(second_id))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"undid import {second_id} ({second}): removed 2 papers; "
        "not undone: 1 merged into papers you had before"
    ]
    listed = json.loads(invoke("list", "--json").stdout)
    assert [p["key"] for p in listed] == ["k1", "k2"]
    assert [b["id"] for b in json.loads(invoke("import", "--list-batches", "--json").stdout)] == [
        batches[0]["id"]
    ]
    # The keys are free again: importing the file anew gives the same keys.
    assert invoke("import", str(second)).exit_code == 0
    assert [p["key"] for p in json.loads(invoke("list", "--json").stdout)] == [
        "k1",
        "k2",
        "k3",
        "k4",
    ]


def test_undo_and_list_batches_usage_errors(invoke, tmp_path: Path) -> None:
    bib = write_bib(tmp_path / "x.bib", ["z1"])
    result = invoke("import", "--undo", "12345")
    assert result.exit_code == 3
    assert result.stderr == (
        "Error: no import batch 12345 (see `readinglist import --list-batches`)\n"
    )
    for args in (
        ["--undo", "1", str(bib)],
        ["--list-batches", str(bib)],
        ["--list-batches", "--undo", "1"],
        ["--json"],
    ):
        result = invoke("import", *args)
        assert result.exit_code == 2, args
        assert (
            "use --list-batches [--json] or --undo BATCH [--force] alone, without PATHs"
            in result.stderr
        )
    assert json.loads(invoke("list", "--json").stdout) == []


def test_undo_of_one_paper_says_paper(invoke, tmp_path: Path) -> None:
    """Fresh-user find: "removed 1 papers"."""
    only = write_bib(tmp_path / "one.bib", ["solo"])
    assert invoke("import", str(only)).exit_code == 0
    batch_id = json.loads(invoke("import", "--list-batches", "--json").stdout)[0]["id"]
    result = invoke("import", "--undo", str(batch_id))
    assert result.stderr.splitlines() == [f"undid import {batch_id} ({only}): removed 1 paper"]
