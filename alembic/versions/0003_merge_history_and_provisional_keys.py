"""Provisional citation keys, the merge history and pairs that are not duplicates (issue 13).

* ``papers.citekey_provisional``: True for a key generated while the paper had no
  real data (a provisional title, no authors); a merge that brings real data gives the
  paper the source's key and keeps the old one as an alias. Existing papers whose
  title is provisional and that have no author get True.
* ``merge_conflicts``: values a merge did not take because the paper had another one
  (``readinglist merge --take REF FIELD`` takes them later).
* ``not_duplicates``: pairs of papers the user said are different
  (``readinglist not-duplicate A B``), never offered or merged again.

No table is rebuilt (``ADD COLUMN`` and ``CREATE TABLE`` only), so SQLite's full-text
triggers on ``papers`` stay.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 14:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column(
        "papers",
        sa.Column("citekey_provisional", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.execute(
        "UPDATE papers SET citekey_provisional = title_provisional WHERE NOT EXISTS "
        "(SELECT 1 FROM paper_people WHERE paper_people.paper_id = papers.id "
        "AND paper_people.role = 'author')"
    )
    op.create_table(
        "merge_conflicts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("field", sa.String(length=64), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"],
            ["papers.id"],
            name=op.f("fk_merge_conflicts_paper_id_papers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_merge_conflicts")),
    )
    op.create_index(
        op.f("ix_merge_conflicts_paper_id"), "merge_conflicts", ["paper_id"], unique=False
    )
    op.create_table(
        "not_duplicates",
        sa.Column("low_id", sa.Integer(), nullable=False),
        sa.Column("high_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["low_id"],
            ["papers.id"],
            name=op.f("fk_not_duplicates_low_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["high_id"],
            ["papers.id"],
            name=op.f("fk_not_duplicates_high_id_papers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("low_id", "high_id", name=op.f("pk_not_duplicates")),
    )
    op.create_index(op.f("ix_not_duplicates_high_id"), "not_duplicates", ["high_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_not_duplicates_high_id"), table_name="not_duplicates")
    op.drop_table("not_duplicates")
    op.drop_index(op.f("ix_merge_conflicts_paper_id"), table_name="merge_conflicts")
    op.drop_table("merge_conflicts")
    op.drop_column("papers", "citekey_provisional")
