"""Export profiles: exports kept current after every change (``export --keep``).

* ``export_profiles``: one row per kept export: its owner (``user@host``), name,
  format, absolute target path, query or ``.aux`` file, writer options (JSON), paused
  flag, and the outcome of its last run (time, status, message, papers, SHA-256 of
  the text written). ``(owner, name)`` and ``(owner, target)`` are unique.

A new table only: no existing table is touched.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06 20:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "export_profiles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(255), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("target", sa.Text(), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("aux", sa.Text(), nullable=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_run_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("status", sa.String(16), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("papers", sa.Integer(), nullable=True),
        sa.Column("digest", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_export_profiles")),
    )
    op.create_index(
        "uq_export_profiles_owner_name", "export_profiles", ["owner", "name"], unique=True
    )
    op.create_index(
        "uq_export_profiles_owner_target", "export_profiles", ["owner", "target"], unique=True
    )


def downgrade() -> None:
    op.drop_index("uq_export_profiles_owner_target", table_name="export_profiles")
    op.drop_index("uq_export_profiles_owner_name", table_name="export_profiles")
    op.drop_table("export_profiles")
