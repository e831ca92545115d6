"""Alembic environment for readinglist (kept close to Alembic's ``generic`` template).

The connection comes from ``config.attributes["connection"]`` (readinglist.db shares
one so that creation and upgrades run inside the caller's locked transaction);
otherwise the URL is resolved like the CLI does (``READINGLIST_DB`` or the default
file). SQLite migrations run in batch mode. Objects that metadata cannot describe
(the FTS5 table ``paper_fts*``, PostgreSQL's ``search_vector`` column and its GIN
index) are excluded from autogenerate comparisons.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from alembic import context
from readinglist.tables import METADATA

config = context.config
target_metadata = METADATA

#: Created by hand in migration 0002: ``ix_papers_venue`` (SQLite only) and the partial
#: ``ix_papers_title_provisional`` (its dialect options would cost every start-up).
_UNMAPPED = {
    "ix_papers_search_vector",
    "search_vector",
    "ix_papers_venue",
    "ix_papers_title_provisional",
}


def include_name(name: str | None, type_: str, parent_names: Any) -> bool:
    """Skip the full-text objects the migrations create by hand."""
    if name is None:
        return True
    if type_ == "table" and name.startswith("paper_fts"):
        return False
    return name not in _UNMAPPED


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        include_name=include_name,
        compare_type=True,
    )


def run_migrations_offline() -> None:
    """Run migrations in 'offline' mode: emit SQL for the configured URL."""
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run migrations in 'online' mode, on the shared connection when one is given."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    from readinglist.config import Settings
    from readinglist.db import make_engine, writer

    engine = make_engine(
        config.get_main_option("sqlalchemy.url") or Settings.resolve().database_url
    )
    with writer(engine).begin() as conn:
        _configure(conn)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
