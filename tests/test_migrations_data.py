"""Migrations keep data: every earlier revision upgrades to head holding real rows, every
revision has a downgrade, SQLite is backed up before an upgrade, a newer database is
refused; and the dialect differences (JSON fields, case-insensitive uniqueness,
full-text search) hold on both SQLite and PostgreSQL.

There is one real revision so far. To exercise an upgrade *with data* now, and to
keep doing so as revisions are added, the tests append a synthetic revision to a
copy of the migration scripts: it rebuilds ``papers`` the way SQLite batch
migrations do (a new table, copy, drop, rename) and adds a column. Every real
revision before it is then a revision "before head", and the generic test loops
over them: create the database at that revision, insert rows with plain SQL valid
there (:data:`ROWS_AT` must have an entry per revision), upgrade with
``db.ensure_schema``, compare every row, and check the ``.bak`` copy.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import shared_data
from sqlalchemy import column as sql_column
from sqlalchemy import inspect, select, text
from sqlalchemy import table as sql_table
from sqlalchemy.exc import IntegrityError

from readinglist import db, library, maintenance
from readinglist.errors import DatabaseError
from readinglist.records import PaperRecord
from readinglist.records import Person as PersonRecord

SYNTHETIC = "9001"

SYNTHETIC_SCRIPT = '''"""Synthetic test revision: rebuild papers (SQLite move-and-copy) and add a column.

Revision ID: {revision}
Revises: {down}
"""

import sqlalchemy as sa

from alembic import op

revision = "{revision}"
down_revision = "{down}"
branch_labels = None
depends_on = None


def _rebuild_papers(change):
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    # Dropping the old table drops its triggers: keep their SQL and re-create them.
    triggers = (
        [row[0] for row in bind.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'papers'"
        )]
        if sqlite
        else []
    )
    with op.batch_alter_table("papers", recreate="always" if sqlite else "auto") as batch:
        change(batch)
    for sql in triggers:
        bind.exec_driver_sql(sql)


def upgrade():
    _rebuild_papers(lambda b: b.add_column(sa.Column("synthetic_extra", sa.Text())))


def downgrade():
    _rebuild_papers(lambda b: b.drop_column("synthetic_extra"))
'''


def install_head(monkeypatch: pytest.MonkeyPatch, folder: Path, script: str) -> tuple[str, ...]:
    """Use a copy of the migrations with ``script`` as a new head; return all revisions."""
    scripts = folder / "migrations"
    shutil.copytree(db.migrations_dir(), scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / f"{SYNTHETIC}_synthetic.py").write_text(
        script.format(revision=SYNTHETIC, down=db.HEAD), encoding="utf-8"
    )
    revisions = (*db.KNOWN_REVISIONS, SYNTHETIC)
    monkeypatch.setattr(db, "migrations_dir", lambda: scripts)
    monkeypatch.setattr(db, "KNOWN_REVISIONS", revisions)
    monkeypatch.setattr(db, "HEAD", SYNTHETIC)
    return revisions


@pytest.fixture
def synthetic_head(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[str, ...]:
    """Use a copy of the migrations with a synthetic head revision; return all revisions."""
    return install_head(monkeypatch, tmp_path, SYNTHETIC_SCRIPT)


# --- representative rows per revision, in plain SQL ---------------------------------------------


def rows_0001(dialect: str) -> list[tuple[str, dict[str, Any]]]:
    """Rows in every table of revision 0001: non-ASCII text, JSON, NULLs, both roles."""
    if dialect == "sqlite":
        t1, t2, json = "2026-01-02 03:04:05.000000", "2026-02-03 04:05:06.123456", ":fields"
    else:
        t1, t2, json = (
            "2026-01-02 03:04:05+00",
            "2026-02-03 04:05:06.123456+00",
            ("CAST(:fields AS JSON)"),
        )
    paper = (
        "INSERT INTO papers (id, citekey, citekey_folded, entry_type, title, title_provisional,"
        " title_key, short_name, year, month, venue, abstract, abstract_key, doi, arxiv, url,"
        " code_url, keywords, fields, source_text, source_digest, search_text, status,"
        " priority, added_at, updated_at, read_at, batch_id) VALUES (:id, :key, :folded,"
        " :type, :title, :prov, :tkey, :short, :year, :month, :venue, :abstract, :akey, :doi,"
        " :arxiv, :url, :code, :kw, " + json + ", :src, :digest, :search, :status, :prio,"
        " :added, :updated, :read, :batch)"
    )
    return [
        (
            "INSERT INTO import_batches (id, source, format, started_at, added, merged, rejected)"
            " VALUES (1, 'seed ü.bib', 'bibtex', :t, 2, 1, 0)",
            {"t": t1},
        ),
        (
            "INSERT INTO people (id, name_key, family, given, von, jr, literal, family_folded,"
            " name_folded) VALUES (1, 'Müller|Jürgen|von||', 'Müller', 'Jürgen', 'von', '', '',"
            " 'von muller', 'jurgen von muller'), (2, '||||European Space Agency', '', '', '',"
            " '', 'European Space Agency', 'european space agency', 'european space agency')",
            {},
        ),
        (
            "INSERT INTO tags (id, name, name_folded) VALUES (1, 'Deep-Learning',"
            " 'deep-learning'), (2, '日本', '日本')",
            {},
        ),
        (
            paper,
            {
                "id": 1,
                "key": "Muller2020Deep",
                "folded": "muller2020deep",
                "type": "article",
                "title": "Deep Ünïcode {Learning}",
                "prov": False,
                "tkey": "deep unicode learning",
                "short": "DUL",
                "year": 2020,
                "month": 5,
                "venue": "Journal of Tests",
                "abstract": "We show $x^2$ matters.",
                "akey": "a" * 40,
                "doi": "10.1/x.y",
                "arxiv": "2001.00001",
                "url": "https://example.org/p",
                "code": None,
                "kw": "one, two",
                "fields": '{"pages": "1--10", "note": "naïve"}',
                "src": "@article{Muller2020Deep,\n  title = {Deep}\n}",
                "digest": "d" * 64,
                "search": "deep unicode learning dul we show x 2 matters muller jurgen",
                "status": "read",
                "prio": 1,
                "added": t1,
                "updated": t2,
                "read": t2,
                "batch": 1,
            },
        ),
        (
            paper,
            {
                "id": 2,
                "key": "esa2021",
                "folded": "esa2021",
                "type": "misc",
                "title": None,
                "prov": True,
                "tkey": None,
                "short": None,
                "year": None,
                "month": None,
                "venue": None,
                "abstract": None,
                "akey": None,
                "doi": None,
                "arxiv": None,
                "url": None,
                "code": None,
                "kw": None,
                "fields": "{}",
                "src": None,
                "digest": None,
                "search": "european space agency",
                "status": "new",
                "prio": None,
                "added": t2,
                "updated": t2,
                "read": None,
                "batch": None,
            },
        ),
        (
            "INSERT INTO paper_people (paper_id, role, position, person_id) VALUES"
            " (1, 'author', 0, 1), (1, 'author', 1, 2), (2, 'editor', 0, 1)",
            {},
        ),
        ("INSERT INTO paper_tags (paper_id, tag_id) VALUES (1, 1), (1, 2), (2, 1)", {}),
        (
            "INSERT INTO notes (id, paper_id, body, created_at, updated_at) VALUES"
            " (1, 1, '**Bold** note\nsecond line', :t1, :t2)",
            {"t1": t1, "t2": t2},
        ),
        (
            "INSERT INTO status_events (id, paper_id, from_status, to_status, at) VALUES"
            " (1, 1, NULL, 'to-read', :t1), (2, 1, 'to-read', 'read', :t2)",
            {"t1": t1, "t2": t2},
        ),
        (
            "INSERT INTO aliases (alias_folded, alias, paper_id) VALUES"
            " ('muller2020', 'Muller2020', 1)",
            {},
        ),
    ]


def rows_0002(dialect: str) -> list[tuple[str, dict[str, Any]]]:
    """Revision 0001's rows plus a batch's @string/@preamble text (0002's columns)."""
    return [
        *rows_0001(dialect),
        (
            "UPDATE import_batches SET bibtex_strings = :strings, bibtex_preamble = :preamble"
            " WHERE id = 1",
            {
                "strings": '@string{jt = "Journal of Tests"}\n@STRING{ü = {Ünïcode}}',
                "preamble": '@preamble{"\\newcommand{\\noop}[1]{}"}',
            },
        ),
    ]


def rows_0003(dialect: str) -> list[tuple[str, dict[str, Any]]]:
    """Revision 0002's rows plus a merge-history row, a not-duplicate pair and a
    provisional key (0003's tables and column)."""
    if dialect == "sqlite":
        t1, json = "2026-12-01 09:00:00.000000", ":value"
    else:
        t1, json = "2026-12-01 09:00:00+00", "CAST(:value AS JSON)"
    return [
        *rows_0002(dialect),
        ("UPDATE papers SET citekey_provisional = :yes WHERE id = 2", {"yes": True}),
        (
            "INSERT INTO merge_conflicts (id, paper_id, field, value, source, at) VALUES"
            f" (1, 1, 'pages', {json}, 'other.bib', :t1)",
            {"value": '{"value": "1--9"}', "t1": t1},
        ),
        ("INSERT INTO not_duplicates (low_id, high_id, at) VALUES (1, 2, :t1)", {"t1": t1}),
    ]


def rows_0004(dialect: str) -> list[tuple[str, dict[str, Any]]]:
    """Revision 0003's rows plus a paper's place among its batch's @string blocks."""
    return [
        *rows_0003(dialect),
        ("UPDATE papers SET source_strings_read = 2 WHERE id = 1", {}),
    ]


def rows_0005(dialect: str) -> list[tuple[str, dict[str, Any]]]:
    """Revision 0004's rows plus a paper whose data is still its source text's."""
    return [
        *rows_0004(dialect),
        ("UPDATE papers SET source_intact = :yes WHERE id = 1", {"yes": True}),
    ]


def rows_0006(dialect: str) -> list[tuple[str, dict[str, Any]]]:
    """Revision 0005's rows plus a status change that undid an earlier one."""
    t3 = "2026-12-06 20:00:00.000000" if dialect == "sqlite" else "2026-12-06 20:00:00+00"
    return [
        *rows_0005(dialect),
        (
            "INSERT INTO status_events (id, paper_id, from_status, to_status, at, undoes)"
            " VALUES (3, 1, 'read', 'to-read', :t3, 2)",
            {"t3": t3},
        ),
        ("UPDATE papers SET status = 'to-read', read_at = NULL WHERE id = 1", {}),
    ]


def rows_0007(dialect: str) -> list[tuple[str, dict[str, Any]]]:
    """Revision 0006's rows plus an export profile (0007's table)."""
    t1 = "2026-12-06 09:00:00.000000" if dialect == "sqlite" else "2026-12-06 09:00:00+00"
    json = ":options" if dialect == "sqlite" else "CAST(:options AS JSON)"
    return [
        *rows_0006(dialect),
        (
            "INSERT INTO export_profiles (id, owner, name, format, target, query, options,"
            f" paused, created_at) VALUES (1, 'me@host', 'refs', 'bibtex', '/p/refs.bib',"
            f" 'tag:thesis', {json}, :no, :t1)",
            {"options": '{"keywords": false}', "no": False, "t1": t1},
        ),
    ]


#: The ``papers`` columns 0008 moved into ``decisions`` (the default reader's rows).
MOVED_TO_DECISIONS = ("status", "priority", "read_at")


def rows_0008(dialect: str) -> list[tuple[str, dict[str, Any]]]:
    """Revision 0007's rows where the decisions now live: readers (the default one and
    Ana), their decisions, history and notes (one shared); papers without status columns."""
    t1 = "2026-12-06 21:00:00.000000" if dialect == "sqlite" else "2026-12-06 21:00:00+00"
    rows: list[tuple[str, dict[str, Any]]] = [
        (
            "INSERT INTO readers (id, name, name_folded, created_at) VALUES"
            " (1, 'default', 'default', :t1), (2, 'Ana', 'ana', :t1)",
            {"t1": t1},
        )
    ]
    for sql, params in rows_0007(dialect):
        if sql.startswith("UPDATE papers SET status"):
            continue
        if sql.startswith("INSERT INTO papers"):
            for name, param in (("status", "status"), ("priority", "prio"), ("read_at", "read")):
                sql = sql.replace(f" {name},", "").replace(f" :{param},", "")
        sql = sql.replace(
            "INSERT INTO notes (id, paper_id, body,",
            "INSERT INTO notes (id, paper_id, reader_id, shared, body,",
        ).replace("(1, 1, '**Bold**", "(1, 1, 1, :no, '**Bold**")
        if sql.startswith("INSERT INTO status_events"):
            sql = sql.replace("(id, paper_id,", "(id, paper_id, reader_id,")
            for event in ("(1, 1,", "(2, 1,", "(3, 1,"):
                sql = sql.replace(event, event[:-1] + ", 1,")
        rows.append((sql, {**params, "no": False}))
    return [
        *rows,
        (
            "INSERT INTO decisions (paper_id, reader_id, status, priority, read_at, updated_at)"
            " VALUES (1, 1, 'to-read', 1, NULL, :t1), (1, 2, 'read', NULL, :t1, :t1),"
            " (2, 2, 'skipped', 3, NULL, :t1)",
            {"t1": t1},
        ),
        (
            "INSERT INTO status_events (id, paper_id, reader_id, from_status, to_status, at)"
            " VALUES (4, 1, 2, 'new', 'read', :t1)",
            {"t1": t1},
        ),
        (
            "INSERT INTO notes (id, paper_id, reader_id, shared, body, created_at, updated_at)"
            " VALUES (2, 2, 2, :yes, 'for the group', :t1, :t1)",
            {"t1": t1, "yes": True},
        ),
    ]


#: For every revision: rows in plain SQL valid at that revision. A new revision must
#: add its entry (the test fails without one), with rows in each of its tables.
ROWS_AT: dict[str, Callable[[str], list[tuple[str, dict[str, Any]]]]] = {
    "0001": rows_0001,
    "0002": rows_0002,
    "0003": rows_0003,
    "0004": rows_0004,
    "0005": rows_0005,
    "0006": rows_0006,
    "0007": rows_0007,
    "0008_readers": rows_0008,
    "0009": rows_0008,  # indexes only: the rows of 0008
}


def insert_rows(engine: Any, revision: str) -> None:
    with engine.begin() as conn:
        for sql, params in ROWS_AT[revision](engine.dialect.name):
            conn.execute(text(sql), params)
        if engine.dialect.name == "postgresql":  # explicit ids do not move the sequences
            for table, column in db_serial_columns(conn):
                conn.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                        f"(SELECT max({column}) FROM {table}))"
                    )
                )


def db_serial_columns(conn: Any) -> list[tuple[str, str]]:
    return [
        (str(t), str(c))
        for t, c in conn.execute(
            text(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND column_default LIKE 'nextval%'"
            )
        )
    ]


def table_rows(engine: Any, columns: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Every row of every table (full-text internals and alembic_version aside), sorted.

    ``columns`` limits each table to the columns it had then (a later revision may add
    some) and the tables to those it had. Values are read through the columns' reflected
    types (``Inspector.get_columns``, what ``MetaData.reflect`` gives a column; without
    the keys and indexes it also reflected, 40% of this test module's CPU).
    """
    with engine.connect() as conn:
        inspector = inspect(conn)
        out: dict[str, Any] = {}
        for name in sorted(inspector.get_table_names()):
            if name.startswith("paper_fts") or name == "alembic_version":
                continue
            if columns is not None and name not in columns:
                continue  # a table a later revision added (empty after the upgrade)
            types = {c["name"]: c["type"] for c in inspector.get_columns(name)}
            wanted = columns[name] if columns else list(types)
            wanted = [c for c in wanted if c != "search_vector"]
            table = sql_table(name, *(sql_column(c, types[c]) for c in wanted))
            rows = conn.execute(select(*table.c)).all()
            out[name] = {"columns": wanted, "rows": sorted(tuple(map(repr, r)) for r in rows)}
    return out


def bak_files(engine: Any) -> list[Path]:
    path = db.sqlite_path(engine)
    return sorted(path.parent.glob(f"{path.name}.*.bak")) if path else []


def full_text_keys(engine: Any, word: str) -> list[str]:
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            sql = (
                "SELECT p.citekey FROM paper_fts f JOIN papers p ON p.id = f.rowid "
                "WHERE paper_fts MATCH :w ORDER BY p.citekey"
            )
        else:
            sql = (
                "SELECT citekey FROM papers WHERE search_vector @@ to_tsquery('simple', :w) "
                "ORDER BY citekey"
            )
        return list(conn.execute(text(sql), {"w": word}).scalars())


# --- upgrades with data -----------------------------------------------------------------------


def test_every_revision_before_head_upgrades_with_its_data(
    engine: Any, synthetic_head: tuple[str, ...]
) -> None:
    earlier = synthetic_head[:-1]
    assert earlier, "the synthetic head always leaves at least one revision before it"
    assert set(earlier) <= set(ROWS_AT), "add representative rows for each new revision"
    for revision in earlier:
        db.downgrade(engine, "base")
        db.upgrade(engine, revision)
        with engine.connect() as conn:
            assert db.current_revision(conn) == revision
        insert_rows(engine, revision)
        before = table_rows(engine)
        baks = bak_files(engine)

        assert db.ensure_schema(engine) == db.HEAD

        columns = {name: t["columns"] for name, t in before.items()}
        expected = before
        if "status" in before["papers"]["columns"]:  # 0008 moved them into decisions
            expected = without_moved(before)
            columns["papers"] = expected["papers"]["columns"]
            assert decisions_of_default(engine) == moved_values(before)
        assert table_rows(engine, columns) == expected  # nothing lost, nothing changed
        assert full_text_keys(engine, "unicode") == ["Muller2020Deep"]
        assert full_text_keys(engine, "agency") == ["esa2021"]
        if engine.dialect.name == "sqlite":
            new = sorted(set(bak_files(engine)) - set(baks))
            assert len(new) == 1, "one backup before the upgrade"
            copy = db.make_engine(f"sqlite:///{new[0]}")
            with copy.connect() as conn:
                assert db.current_revision(conn) == revision
            assert table_rows(copy) == before
            copy.dispose()
        with db.session_scope(engine) as session:
            report = maintenance.check(session)
        # search_text of hand-written rows is not what the app would compute; the rest holds.
        assert [r.name for r in report.results if not r.ok] in ([], ["search-text"])

        # ... and back down: the downgrade keeps the rows too (0008's downgrade puts the
        # moved columns back at the end of papers: compared by name).
        db.downgrade(engine, revision)
        assert table_rows(engine, {name: t["columns"] for name, t in before.items()}) == before
        assert full_text_keys(engine, "unicode") == ["Muller2020Deep"]


def without_moved(rows: dict[str, Any]) -> dict[str, Any]:
    """``rows`` (:func:`table_rows`) without the ``papers`` columns 0008 moved."""
    papers = rows["papers"]
    keep = [i for i, c in enumerate(papers["columns"]) if c not in MOVED_TO_DECISIONS]
    return {
        **rows,
        "papers": {
            "columns": [papers["columns"][i] for i in keep],
            "rows": sorted(tuple(r[i] for i in keep) for r in papers["rows"]),
        },
    }


def moved_values(rows: dict[str, Any]) -> list[tuple[str, ...]]:
    """(paper id, status, priority, read_at) as reprs of the papers that had a decision."""
    papers = rows["papers"]
    at = [papers["columns"].index(c) for c in ("id", *MOVED_TO_DECISIONS)]
    found = [tuple(r[i] for i in at) for r in papers["rows"]]
    return sorted(r for r in found if r[1:] != ("'new'", "None", "None"))


def decisions_of_default(engine: Any) -> list[tuple[str, ...]]:
    """The default reader's decisions, as :func:`moved_values` gives them (read by
    reflection, as :func:`table_rows` reads the rows before)."""
    rows = table_rows(engine)
    default = [r[0] for r in rows["readers"]["rows"] if r[1] == "'default'"]
    columns = rows["decisions"]["columns"]
    at = [columns.index(c) for c in ("paper_id", *MOVED_TO_DECISIONS)]
    reader = columns.index("reader_id")
    return sorted(
        tuple(r[i] for i in at) for r in rows["decisions"]["rows"] if [r[reader]] == default
    )


def load_real_data(engine: Any) -> None:
    """Import real files through the app's readers and library, then triage a little."""
    from readinglist import formats

    files = ["icml2026-abstracts.txt", "pmlr-v260-acml2024.bib"]
    with db.session_scope(engine) as session:
        for name in files:
            path = shared_data(name)
            text_, _ = formats.decode(path.read_bytes(), name)
            fmt = formats.detect(name, text_)
            result = formats.read(text_, fmt, name)
            library.import_records(
                session, result.records, source=name, fmt=fmt, tags=("real", fmt)
            )
        papers = library.load_papers(session)
        library.set_status(session, papers[:5], "to-read")
        library.set_priority(session, papers[3:7], "high")
        library.add_tags(session, papers[::9], ["sample", "日本"])
        library.add_note(session, papers[1], "A **note** with\nlines.")
        library.rekey(session, papers[2], "renamed2026")


def test_real_data_loaded_by_the_app_survives_a_table_rebuilding_upgrade(
    engine: Any, synthetic_head: tuple[str, ...]
) -> None:
    """Base -> head with the app's data: the rebuild of papers keeps notes, tags, links."""
    real_head = synthetic_head[-2]
    db.downgrade(engine, "base")
    db.upgrade(engine, real_head)
    load_real_data(engine)
    before = table_rows(engine)
    counts = {name: len(t["rows"]) for name, t in before.items()}
    assert counts["papers"] >= 100
    assert counts["notes"] == 1
    assert counts["aliases"] == 1
    assert db.ensure_schema(engine) == SYNTHETIC
    columns = {name: t["columns"] for name, t in before.items()}
    assert table_rows(engine, columns) == before
    with db.session_scope(engine) as session:
        report = maintenance.check(session)
    assert report.ok, report.as_json()
    assert full_text_keys(engine, "renamed2026") == []  # keys are not indexed words
    db.downgrade(engine, real_head)
    assert table_rows(engine) == before


def test_each_revision_has_a_working_downgrade(engine: Any) -> None:
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(db.alembic_config())
    for revision in db.KNOWN_REVISIONS:
        script = scripts.get_revision(revision)
        assert script is not None
        assert script.path
        tree = ast.parse(Path(script.path).read_text(encoding="utf-8"))
        (downgrade,) = [
            f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "downgrade"
        ]
        steps = [
            n
            for n in downgrade.body
            if not isinstance(n, ast.Pass)
            and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
        ]
        assert steps, f"revision {revision} has an empty downgrade()"
    for expected in reversed((None, *db.KNOWN_REVISIONS[:-1])):
        db.downgrade(engine, "-1")
        with engine.connect() as conn:
            assert db.current_revision(conn) == expected
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
    assert db.ensure_schema(engine) == db.HEAD
    from alembic import command

    with engine.connect() as conn:
        command.check(db.alembic_config(conn))  # the round trip rebuilt exactly the models


def test_a_newer_database_is_refused_and_left_alone(engine: Any, runner: Any) -> None:
    from readinglist.cli import cli

    with db.session_scope(engine) as session:
        library.import_records(
            session, [PaperRecord(citekey="keep", title="Kept as it is")], source="k", fmt="bibtex"
        )
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '7777'"))
    before = table_rows(engine)
    for args in (["list"], ["db", "upgrade"], ["import", "--list-batches"]):
        result = runner.invoke(cli, ["--db", engine.url.render_as_string(False), *args])
        assert result.exit_code == 6, args
        assert "'7777' is unknown to readinglist" in result.stderr
    with pytest.raises(DatabaseError):
        db.ensure_schema(engine)
    assert table_rows(engine) == before
    assert bak_files(engine) == []
    with engine.connect() as conn:
        assert db.current_revision(conn) == "7777"


def test_sqlite_upgrade_runs_with_foreign_keys_off_and_checks_them(
    sqlite_url: str, synthetic_head: tuple[str, ...]
) -> None:
    """A rebuild of papers under foreign_keys=ON would cascade-delete notes and links."""
    engine = db.make_engine(sqlite_url)
    db.downgrade(engine, synthetic_head[-2])
    insert_rows(engine, synthetic_head[-2])
    db.ensure_schema(engine)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1  # back on afterwards
        assert conn.execute(text("SELECT count(*) FROM notes")).scalar() == 2
        assert conn.execute(text("SELECT count(*) FROM decisions")).scalar() == 3
        assert conn.execute(text("SELECT count(*) FROM paper_tags")).scalar() == 3
    engine.dispose()


BREAKING_SCRIPT = '''"""Synthetic broken revision: deletes a paper behind the foreign keys' back.

Revision ID: {revision}
Revises: {down}
"""

from alembic import op

revision = "{revision}"
down_revision = "{down}"
branch_labels = None
depends_on = None


def upgrade():
    op.execute("DELETE FROM papers WHERE id = 2")


def downgrade():
    pass
'''


def test_sqlite_migration_leaving_dangling_rows_is_rolled_back(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real_head = db.HEAD
    engine = db.make_engine(sqlite_url)
    insert_rows(engine, real_head)
    before = table_rows(engine)
    install_head(monkeypatch, tmp_path, BREAKING_SCRIPT)
    # paper 2's editor link and tag, (from revision 0003) its not-duplicate pair, and
    # (from 0008) Ana's shared note and decision on it
    with pytest.raises(DatabaseError, match="the migration left 5 rows whose foreign key"):
        db.ensure_schema(engine)
    with engine.connect() as conn:
        assert db.current_revision(conn) == real_head
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    assert table_rows(engine) == before
    engine.dispose()


# --- dialect differences ----------------------------------------------------------------------


def test_json_fields_round_trip_exactly(engine: Any) -> None:
    fields = {"pages": "1--10", "note": 'naïve "quoted" {braced} \\relax', "empty": "", "n": "7"}
    with db.session_scope(engine) as session:
        library.import_records(
            session,
            [PaperRecord(citekey="j1", title="JSON fields", fields=fields)],
            source="j",
            fmt="bibtex",
        )
    with db.session_scope(engine, write=False) as session:
        assert dict(library.resolve(session, "J1").fields) == fields


def test_case_insensitive_uniqueness_of_keys_and_tags(engine: Any) -> None:
    with db.session_scope(engine) as session:
        report = library.import_records(
            session,
            [
                PaperRecord(citekey="Smith2020", title="First paper"),
                PaperRecord(citekey="smith2020", title="Another paper entirely"),
            ],
            source="k",
            fmt="bibtex",
        )
        assert report.added == ["Smith2020", "smith2020a"]
        first = library.ensure_tags(session, ["Machine-Learning"])
        assert library.ensure_tags(session, ["machine-learning", "MACHINE-LEARNING"]) == first
    for sql in (
        "INSERT INTO tags (name, name_folded) VALUES ('machine-LEARNING', 'machine-learning')",
        "UPDATE papers SET citekey_folded = 'smith2020' WHERE citekey = 'smith2020a'",
    ):
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(text(sql))


def test_full_text_search_finds_the_same_papers_on_both_dialects(engine: Any) -> None:
    with db.session_scope(engine) as session:
        library.import_records(
            session,
            [
                PaperRecord(
                    citekey="fold1",
                    title="Schrödinger’s Self‑Correction",
                    authors=(PersonRecord(family="Ødegård", given="Åse"),),
                    abstract="Über-efficient 3DGS.",
                ),
                PaperRecord(citekey="fold2", title="Unrelated"),
            ],
            source="f",
            fmt="bibtex",
            tags=("Nat-Lang",),
        )
    for word in ("schrodinger", "self", "correction", "odegard", "ase", "uber", "3dgs"):
        assert full_text_keys(engine, word) == ["fold1"], word
    assert full_text_keys(engine, "nat") == ["fold1", "fold2"]  # the import's tag
    assert full_text_keys(engine, "lang") == ["fold1", "fold2"]


def test_0004_takes_the_check_from_entries_naming_a_crossref_parent(engine: Any) -> None:
    """Such an entry may have inherited fields its text does not hold: without a check
    the writer reads its text again (copied when it inherited nothing). Other checks
    stay, and the new column starts NULL (the last definitions, as before)."""
    db.downgrade(engine, "base")
    db.upgrade(engine, "0003")
    insert_rows(engine, "0003")
    fields = ":fields" if engine.dialect.name == "sqlite" else "CAST(:fields AS JSON)"
    with engine.begin() as conn:
        conn.execute(
            text(f"UPDATE papers SET source_check = 'c1', fields = {fields} WHERE id = 1"),
            {"fields": '{"crossref": "AAAI96", "pages": "1--9"}'},
        )
        conn.execute(text("UPDATE papers SET source_check = 'c2' WHERE id = 2"))
    db.upgrade(engine, "0004")
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT id, source_check, source_strings_read FROM papers ORDER BY id")
        )
        assert [tuple(row) for row in rows] == [(1, None, None), (2, "c2", None)]
