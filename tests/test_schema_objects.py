"""A library holding a table, view or trigger readinglist does not create is refused when
opened and by ``db restore``, and reported by ``db check`` (readinglist.schema_objects);
on SQLite and PostgreSQL."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

#: A trigger that, on the next status change, deletes every note and rewrites titles.
SQLITE_EVIL = (
    "CREATE TRIGGER evil AFTER UPDATE ON papers BEGIN "
    "DELETE FROM notes; UPDATE papers SET title = 'pwned' WHERE title <> 'pwned'; END"
)
PG_EVIL = (
    "CREATE FUNCTION evil() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "DELETE FROM notes; RETURN NEW; END $$",
    "CREATE TRIGGER evil AFTER UPDATE ON papers FOR EACH ROW EXECUTE FUNCTION evil()",
)
#: ``paper_fts_au`` replaced under its own name by one that also empties the notes.
SQLITE_IMPOSTOR = (
    "DROP TRIGGER paper_fts_au",
    "CREATE TRIGGER paper_fts_au AFTER UPDATE OF search_text ON papers BEGIN "
    "INSERT INTO paper_fts(paper_fts, rowid, search_text) VALUES "
    "('delete', old.id, old.search_text); INSERT INTO paper_fts(rowid, search_text) "
    "VALUES (new.id, new.search_text); DELETE FROM notes; END",
)


#: Backups ``db restore`` must refuse, and the object each message names: a foreign
#: trigger, a trigger replaced under its own name, a UNIQUE index of its own and one of
#: ours made UNIQUE (either made the next import fail with IntegrityError).
FORGES = {
    "trigger": SQLITE_EVIL + ";",
    "impostor": ";".join(SQLITE_IMPOSTOR) + ";",
    "unique index": "CREATE UNIQUE INDEX evilidx ON papers(year);",
    "index made unique": "DROP INDEX ix_papers_year; CREATE UNIQUE INDEX ix_papers_year ON papers(year);",
}
NAMED = {
    "trigger": "'evil'",
    "impostor": "'paper_fts_au'",
    "unique index": "'evilidx'",
    "index made unique": "'ix_papers_year'",
}


def _library(invoke: Callable[..., Any]) -> None:
    for title in ("Attention is all you need", "Deep residual learning"):
        assert invoke("add", "--title", title).exit_code == 0
    assert invoke("note", "add", "attention", "-m", "kept note").exit_code == 0


def _execute(url: str, *statements: str) -> None:
    from readinglist import db

    engine = db.make_engine(url)
    with engine.begin() as conn:
        for statement in statements:
            conn.exec_driver_sql(statement)
    engine.dispose()


def _notes_and_titles(url: str) -> tuple[int, list[str]]:
    from readinglist import db

    engine = db.make_engine(url)
    with engine.connect() as conn:
        notes = conn.exec_driver_sql("SELECT count(*) FROM notes").scalar()
        titles = [r[0] for r in conn.exec_driver_sql("SELECT title FROM papers ORDER BY id")]
    engine.dispose()
    return int(notes or 0), titles


@pytest.mark.parametrize("extra", ["trigger", "view", "table"])
def test_opening_a_library_with_a_foreign_object_is_refused(
    invoke: Callable[..., Any], db_url: str, extra: str
) -> None:
    """The next ``mark`` on a library carrying an extra trigger deleted every note and
    rewrote the titles. Any command that opens it now stops first (exit 6) naming the
    object, and nothing changes; ``db check`` lists it as a fault (exit 6)."""
    _library(invoke)
    before = _notes_and_titles(db_url)
    sqlite = db_url.startswith("sqlite")
    statements = {
        "trigger": (SQLITE_EVIL,) if sqlite else PG_EVIL,
        "view": ("CREATE VIEW shadow AS SELECT id FROM papers",),
        "table": ("CREATE TABLE stash (x INTEGER)",),
    }[extra]
    _execute(db_url, *statements)
    name = {"trigger": "evil", "view": "shadow", "table": "stash"}[extra]
    result = invoke("mark", "read", "attention")
    assert result.exit_code == 6, result.output
    assert f"{extra} '{name}'" in result.stderr
    assert "Traceback" not in result.output
    assert _notes_and_titles(db_url) == before
    check = invoke("db", "check")
    assert check.exit_code == 6
    assert f"FAULT  schema-objects: {extra} '{name}'" in check.stdout
    assert "ok     schema-objects" not in check.stdout
    upgrade = invoke("db", "upgrade")
    assert upgrade.exit_code == 6
    assert f"{extra} '{name}'" in upgrade.stderr


def test_a_clean_library_passes(invoke: Callable[..., Any], db_url: str) -> None:
    """The objects the migrations create (the full-text table, its triggers and shadow
    tables on SQLite; the generated search column on PostgreSQL) are all known."""
    from readinglist import db, schema_objects

    _library(invoke)
    engine = db.make_engine(db_url)
    with engine.connect() as conn:
        assert schema_objects.unknown_objects(conn) == []
    engine.dispose()
    check = invoke("db", "check")
    assert check.exit_code == 0, check.output
    assert "ok     schema-objects" in check.stdout


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_rule_is_refused(invoke: Callable[..., Any], db_url: str) -> None:
    """A PostgreSQL rule (read from ``pg_rewrite``, as the ``pg_rules`` view reads it) runs
    its own statement on every write as a trigger does: refused and named with its table;
    a view's own ``_RETURN`` rule is not one (a view is named as a view)."""
    _library(invoke)
    before = _notes_and_titles(db_url)
    _execute(db_url, "CREATE RULE evil AS ON UPDATE TO papers DO ALSO DELETE FROM notes")
    result = invoke("mark", "read", "attention")
    assert result.exit_code == 6, result.output
    assert "rule 'evil' on 'papers'" in result.stderr
    assert "_RETURN" not in result.stderr
    assert _notes_and_titles(db_url) == before


@pytest.mark.parametrize("extra", ["nothing", "a view and a table", "no alembic_version"])
def test_one_catalog_read_says_what_the_inspector_says(
    invoke: Callable[..., Any], db_url: str, extra: str
) -> None:
    """A command's first look at its library is one catalog query
    (:func:`readinglist.schema_objects.contents`) and the revision: it says what
    SQLAlchemy's inspector says (whether ``alembic_version`` is there, the tables), and a
    command sends no other catalog query before its own work."""
    from helpers import statements_to
    from sqlalchemy import inspect

    from readinglist import db, schema_objects

    _library(invoke)
    with statements_to(db_url) as sent:
        assert invoke("list").exit_code == 0
    catalog = [s for s in sent if "pg_class" in s or "sqlite_master" in s or "PRAGMA" in s]
    assert len(catalog) == 1, catalog
    assert sum("alembic_version" in s for s in sent if s not in catalog) == 1
    _execute(
        db_url,
        *{
            "nothing": (),
            "a view and a table": (
                "CREATE VIEW shadow AS SELECT id FROM papers",
                "CREATE TABLE stash (x INTEGER)",
            ),
            "no alembic_version": ("DROP TABLE alembic_version",),
        }[extra],
    )
    engine = db.make_engine(db_url)
    try:
        with engine.connect() as conn:
            found = schema_objects.contents(conn)
            inspector = inspect(conn)
            assert found.library == inspector.has_table("alembic_version")
            assert found.library == (extra != "no alembic_version")
            assert found.tables == set(inspector.get_table_names())
            assert "papers" in found.tables
            expected = ["table 'stash'", "view 'shadow'"] if extra.startswith("a view") else []
            assert sorted(found.unknown) == expected
    finally:
        engine.dispose()


def test_a_trigger_replaced_under_its_own_name_is_caught(sqlite_url: str) -> None:
    """A trigger of ours replaced by another of the same name is not ours: compared by
    statement with the schema the migrations leave."""
    from click.testing import CliRunner

    from readinglist.cli import cli

    runner = CliRunner()
    for title in ("Attention is all you need",):
        assert runner.invoke(cli, ["--db", sqlite_url, "add", "--title", title]).exit_code == 0
    _execute(sqlite_url, *SQLITE_IMPOSTOR)
    result = runner.invoke(cli, ["--db", sqlite_url, "tag", "add", "x", "attention"])
    assert result.exit_code == 6
    assert "trigger 'paper_fts_au' (changed from the one readinglist creates)" in result.stderr


@pytest.mark.parametrize("forge", sorted(FORGES))
def test_db_restore_refuses_a_backup_with_foreign_objects(
    runner: Any, sqlite_url: str, tmp_path: Path, forge: str
) -> None:
    """``db restore`` accepted a library carrying an extra trigger (and ``db check`` said
    ok). It is refused before anything is copied (exit 5, naming the file and the
    trigger); the library is as it was."""
    from readinglist.cli import cli

    def run(url: str, *args: str) -> Any:
        return runner.invoke(cli, ["--db", url, *args])

    backup = tmp_path / "hostile.db"
    hostile_url = f"sqlite:///{backup}"
    assert run(hostile_url, "add", "--title", "Hostile paper").exit_code == 0
    conn = sqlite3.connect(backup)
    conn.executescript(FORGES[forge])
    conn.close()
    assert run(sqlite_url, "add", "--title", "Mine").exit_code == 0
    result = run(sqlite_url, "db", "restore", str(backup))
    assert result.exit_code == 5, result.output
    assert str(backup) in result.stderr
    assert "not restored" in result.stderr
    assert NAMED[forge] in result.stderr
    assert run(sqlite_url, "list", "-k").stdout.split() == ["mine"]
