"""Indexes for the change counter: the caches' freshness check costs no table scan.

Every ranking command (``list --sort interest``, ``triage``, ``similar``) first reads
the library's change counter (``ranking.fitted.change_counter``), which asks for the
papers' last ``updated_at`` and the current reader's last decision time. Without an
index each was a scan of the table (83 ms of the papers of a 61,000-paper library,
longer than reading the fitted scores it decides on); with one it is a look-up.

* ``ix_papers_updated_at``: ``papers (updated_at)``;
* ``ix_decisions_reader_updated``: ``decisions (reader_id, updated_at)``.

Indexes only: no row is touched; the downgrade drops them.

Revision ID: 0009
Revises: 0008_readers
Create Date: 2026-12-07 05:20:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0009"
down_revision: str | None = "0008_readers"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index("ix_papers_updated_at", "papers", ["updated_at"])
    op.create_index("ix_decisions_reader_updated", "decisions", ["reader_id", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_decisions_reader_updated", table_name="decisions")
    op.drop_index("ix_papers_updated_at", table_name="papers")
