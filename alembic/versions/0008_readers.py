"""Readers: each person's own decisions in one shared library.

* ``readers``: a name (unique case-insensitively through ``name_folded``) and when it
  was created. The implicit reader ``default`` is created when the library holds any
  decision, status event or note, and every one of them becomes theirs.
* ``decisions``: one row per (paper, reader) with the status, priority, read time and
  time of the last change, moved out of ``papers`` (``status``, ``priority``,
  ``read_at`` and their indexes are dropped). Only papers with a decision get a row: a
  paper ``new`` with no priority and no read time has none (that is what no row means).
* ``status_events.reader_id``: whose status changed (NOT NULL, indexed).
* ``notes.reader_id`` (the author) and ``notes.shared`` (seen by every reader; False:
  only by the author).

SQLite: ``papers`` loses its three columns with plain ``ALTER TABLE ... DROP COLUMN``
(SQLite >= 3.35; the columns' indexes are dropped first), so the table is not rebuilt
and its full-text triggers stay; ``status_events`` and ``notes`` are rebuilt in batch
mode (new NOT NULL and foreign-key columns). The downgrade puts the default reader's
decisions back into ``papers`` and keeps the default reader's status history and
notes; other readers' decisions, history and notes are dropped with them (an older
schema has no place for them).

Revision ID: 0008_readers
Revises: 0007
Create Date: 2026-12-06 23:30:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0008_readers"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None

DEFAULT = "default"


def _create_tables() -> None:
    op.create_table(
        "readers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_folded", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_readers")),
        sa.UniqueConstraint("name_folded", name=op.f("uq_readers_name_folded")),
    )
    op.create_table(
        "decisions",
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("reader_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("priority", sa.SmallInteger(), nullable=True),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"],
            ["papers.id"],
            name=op.f("fk_decisions_paper_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["reader_id"],
            ["readers.id"],
            name=op.f("fk_decisions_reader_id_readers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("paper_id", "reader_id", name=op.f("pk_decisions")),
    )
    op.create_index("ix_decisions_reader_status", "decisions", ["reader_id", "status", "paper_id"])
    op.create_index("ix_decisions_reader_priority", "decisions", ["reader_id", "priority"])


def _default_reader(bind: sa.Connection) -> int | None:
    """Create the default reader when the library holds anything of theirs; its id."""
    has = bind.execute(
        sa.text(
            "SELECT (SELECT count(*) FROM papers WHERE status <> 'new' OR priority IS NOT NULL"
            " OR read_at IS NOT NULL) + (SELECT count(*) FROM status_events)"
            " + (SELECT count(*) FROM notes)"
        )
    ).scalar_one()
    if not has:
        return None
    bind.execute(
        sa.text(
            "INSERT INTO readers (name, name_folded, created_at) VALUES (:n, :n, "
            "(SELECT coalesce(min(at), CURRENT_TIMESTAMP) FROM status_events))"
        ),
        {"n": DEFAULT},
    )
    return int(bind.execute(sa.text("SELECT id FROM readers")).scalar_one())


def upgrade() -> None:
    bind = op.get_bind()
    _create_tables()
    reader = _default_reader(bind)
    if reader is not None:
        bind.execute(
            sa.text(
                "INSERT INTO decisions (paper_id, reader_id, status, priority, read_at, "
                "updated_at) SELECT id, :r, status, priority, read_at, updated_at FROM papers "
                "WHERE status <> 'new' OR priority IS NOT NULL OR read_at IS NOT NULL"
            ),
            {"r": reader},
        )
    with op.batch_alter_table("status_events") as batch:
        batch.add_column(sa.Column("reader_id", sa.Integer(), nullable=True))
    bind.execute(sa.text("UPDATE status_events SET reader_id = :r"), {"r": reader})
    with op.batch_alter_table("status_events") as batch:
        batch.alter_column("reader_id", existing_type=sa.Integer(), nullable=False)
        batch.create_index(op.f("ix_status_events_reader_id"), ["reader_id"])
        batch.create_foreign_key(
            op.f("fk_status_events_reader_id_readers"),
            "readers",
            ["reader_id"],
            ["id"],
            ondelete="CASCADE",
        )
    with op.batch_alter_table("notes") as batch:
        batch.add_column(sa.Column("reader_id", sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column("shared", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # A note written before readers was seen by everyone using the library (one status,
    # one set of notes): it becomes a shared note of the implicit reader, as visible as
    # it was, and in the full-text index, which holds shared notes only.
    bind.execute(
        sa.text("UPDATE notes SET reader_id = :r, shared = :yes"), {"r": reader, "yes": True}
    )
    with op.batch_alter_table("notes") as batch:
        batch.alter_column("shared", existing_type=sa.Boolean(), server_default=None)
        batch.alter_column("reader_id", existing_type=sa.Integer(), nullable=False)
        batch.create_index(op.f("ix_notes_reader_id"), ["reader_id"])
        batch.create_foreign_key(
            op.f("fk_notes_reader_id_readers"), "readers", ["reader_id"], ["id"], ondelete="CASCADE"
        )
    if bind.dialect.name == "sqlite":
        _reindex_in_order()
    op.drop_index("ix_papers_status", table_name="papers")
    op.drop_index("ix_papers_priority", table_name="papers")
    # Plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35): no rebuild, the FTS triggers stay.
    for name in ("status", "priority", "read_at"):
        op.drop_column("papers", name)


#: The indexes of the tables rebuilt in batch mode, in the order they are made again.
_INDEXES = {
    "status_events": (
        ("ix_status_events_at", ["at"]),
        ("ix_status_events_paper_id", ["paper_id"]),
        ("ix_status_events_undoes", ["undoes"]),
        ("ix_status_events_reader_id", ["reader_id"]),
    ),
    "notes": (("ix_notes_paper_id", ["paper_id"]), ("ix_notes_reader_id", ["reader_id"])),
}


def _reindex_in_order() -> None:
    """Make the indexes of the rebuilt tables again in one order: a batch rebuild makes
    them in an order of its own, and the SQLite head script (``alembic/sqlite_head.sql``)
    must be the same text at every run."""
    for table, indexes in _INDEXES.items():
        for name, _ in indexes:
            op.drop_index(name, table_name=table)
        for name, columns in indexes:
            op.create_index(name, table, columns)


def downgrade() -> None:
    bind = op.get_bind()
    op.add_column(
        "papers",
        sa.Column("status", sa.String(16), nullable=False, server_default="new"),
    )
    op.add_column("papers", sa.Column("priority", sa.SmallInteger(), nullable=True))
    op.add_column("papers", sa.Column("read_at", sa.DateTime(timezone=True), nullable=True))
    if bind.dialect.name == "postgresql":
        op.alter_column("papers", "status", server_default=None)
    op.create_index("ix_papers_status", "papers", ["status"])
    op.create_index("ix_papers_priority", "papers", ["priority"])
    found = bind.execute(sa.text("SELECT id FROM readers WHERE name_folded = :n"), {"n": DEFAULT})
    reader = found.scalar()
    for name in ("status", "priority", "read_at"):
        bind.execute(
            sa.text(
                f"UPDATE papers SET {name} = (SELECT d.{name} FROM decisions d "
                "WHERE d.paper_id = papers.id AND d.reader_id = :r) WHERE id IN "
                "(SELECT paper_id FROM decisions WHERE reader_id = :r)"
            ),
            {"r": reader},
        )
    for table in ("status_events", "notes"):
        if reader is None:
            bind.execute(sa.text(f"DELETE FROM {table}"))
        else:
            bind.execute(sa.text(f"DELETE FROM {table} WHERE reader_id <> :r"), {"r": reader})
    with op.batch_alter_table("notes") as batch:
        batch.drop_constraint(op.f("fk_notes_reader_id_readers"), type_="foreignkey")
        batch.drop_index(op.f("ix_notes_reader_id"))
        batch.drop_column("shared")
        batch.drop_column("reader_id")
    with op.batch_alter_table("status_events") as batch:
        batch.drop_constraint(op.f("fk_status_events_reader_id_readers"), type_="foreignkey")
        batch.drop_index(op.f("ix_status_events_reader_id"))
        batch.drop_column("reader_id")
    op.drop_index("ix_decisions_reader_priority", table_name="decisions")
    op.drop_index("ix_decisions_reader_status", table_name="decisions")
    op.drop_table("decisions")
    op.drop_table("readers")
