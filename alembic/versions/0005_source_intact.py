"""A BibTeX export copies an unchanged entry without decoding it (issue 17 item 2).

* ``papers.source_intact``: True when the paper's bibliographic data is still what
  its ``source_text`` was read to, so the data half of ``source_check`` holds without
  being computed again from the decoded row (people, fields). An import sets it for
  each entry it keeps the text of; every change of bibliographic data clears it
  (``readinglist.library.rows.sources_changed`` and the Session's flush hook there).
  NULL means unknown: the export recomputes, as before. Rows from before this
  revision stay NULL (their history of edits is not known), so an old library is
  exported exactly as before, only not faster.

No table is rebuilt (``ADD COLUMN``), so SQLite's full-text triggers on ``papers``
stay.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 02:40:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("papers", sa.Column("source_intact", sa.Boolean(), nullable=True))


def downgrade() -> None:
    # Plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35): no table rebuild.
    op.drop_column("papers", "source_intact")
