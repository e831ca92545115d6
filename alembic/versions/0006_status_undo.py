"""Triage's undo survives quitting: a status change says which change it undid.

* ``status_events.undoes``: the id of the status event this change undid (triage's
  ``u``), NULL for every other change. The undo stack is the status history read
  newest first without the undos and the changes they undid, so an undo after
  quitting never re-applies a change the user had undone
  (``readinglist.library.marks.undo_status``).

No table is rebuilt (``ADD COLUMN``), so SQLite's full-text triggers on ``papers``
stay. Rows from before this revision stay NULL: their undos read as changes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06 20:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("status_events", sa.Column("undoes", sa.Integer(), nullable=True))
    op.create_index(op.f("ix_status_events_undoes"), "status_events", ["undoes"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_status_events_undoes"), table_name="status_events")
    # Plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35): no table rebuild.
    op.drop_column("status_events", "undoes")
