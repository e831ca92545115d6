"""Shared fixtures: real databases (an SQLite file and the PostgreSQL server), the CLI runner.

Every test that takes ``db_url`` (or ``engine``, ``session``, ``invoke``) runs twice:
on a fresh SQLite file and on a fresh PostgreSQL database at 127.0.0.1:5432. Both
are cloned from a template migrated once per test session with the real Alembic
migrations (SQLite: online backup copy; PostgreSQL: ``CREATE DATABASE ... TEMPLATE``).
PostgreSQL tests skip, with the reason, only where no server answers.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

PG_ADMIN_URL = os.environ.get(
    "READINGLIST_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
HERE = Path(__file__).resolve().parent


def shared_data(name: str) -> Path:
    """Return a file of ../shared/data, skipping the test when it is absent."""
    path = DATA / name
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


def _pg_admin() -> Any:
    from sqlalchemy import create_engine

    return create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")


def _pg_url(name: str) -> str:
    base, _, _ = PG_ADMIN_URL.rpartition("/")
    return f"{base}/{name}"


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """Create a PostgreSQL database migrated at head to clone from; drop it at the end."""
    from sqlalchemy.exc import OperationalError

    from readinglist import db

    name = f"rl_tpl_{uuid.uuid4().hex[:10]}"
    admin = _pg_admin()
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except OperationalError as exc:
        pytest.skip(f"PostgreSQL at {PG_ADMIN_URL} does not answer: {exc.orig}")
    engine = db.make_engine(_pg_url(name))
    db.ensure_schema(engine)
    engine.dispose()
    yield name
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Create an SQLite file migrated at head to copy from."""
    from readinglist import db

    path = tmp_path_factory.mktemp("template") / "template.db"
    engine = db.make_engine(f"sqlite:///{path}")
    db.ensure_schema(engine)
    engine.dispose()
    return path


def make_database(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Yield the URL of a fresh database of ``kind`` ("sqlite" or "postgresql") at head."""
    from readinglist import db

    if kind == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "library.db"
        db.backup_sqlite(template, path)
        yield f"sqlite:///{path}"
        return
    template_name: str = request.getfixturevalue("pg_template")
    name = f"rl_t_{uuid.uuid4().hex[:12]}"
    admin = _pg_admin()
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}" TEMPLATE "{template_name}"')
    try:
        yield _pg_url(name)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database at the newest revision, once on SQLite and once on PostgreSQL."""
    yield from make_database(request.param, request, tmp_path)


@pytest.fixture
def sqlite_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh SQLite database only (for SQLite-specific behaviour)."""
    yield from make_database("sqlite", request, tmp_path)


@pytest.fixture
def engine(db_url: str) -> Iterator[Any]:
    """An engine on the fresh database of ``db_url``."""
    from readinglist import db

    eng = db.make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def session(engine: Any) -> Iterator[Any]:
    """A Session in one transaction, committed at the end of the test."""
    from readinglist import db

    with db.session_scope(engine) as sess:
        yield sess


@pytest.fixture
def runner() -> CliRunner:
    """Click's CliRunner (stdout and stderr kept apart, Click 8.2+)."""
    return CliRunner()


@pytest.fixture
def invoke(runner: CliRunner, db_url: str) -> Callable[..., Result]:
    """Run ``readinglist --db <db_url> ARGS...`` in-process; returns Click's Result."""
    from readinglist.cli import cli

    def run(
        *args: str, input: str | bytes | None = None, env: dict[str, str] | None = None
    ) -> Result:
        return runner.invoke(cli, ["--db", db_url, *args], input=input, env=env)

    return run


@pytest.fixture
def example_abstracts() -> Path:
    """The user's example list, as shipped in examples/ (a copy of icml2026-abstracts.txt)."""
    return HERE.parent / "examples" / "icml2026-abstracts.txt"
