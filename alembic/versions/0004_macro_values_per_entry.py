"""Each copied BibTeX entry keeps the macro values it was read with (issue 17 item 2).

* ``papers.source_strings_read``: how many ``@string`` blocks of its import came
  before the entry (``PaperRecord.strings_read``). From this revision on an import
  keeps every ``@string`` block of its file in ``import_batches.bibtex_strings``, in
  order (before: the last definition of each macro), so an export gives each copied
  entry the values it was read with, writing a definition again just before an
  entry that needs an earlier one (Beebe's files redefine ``ack-nhfb`` 74 times with
  5 texts: 15% of a 100k export was copied, now all of it). Why per entry and not
  per batch: one integer per paper says where in its batch's ``@string`` text the
  entry stood; the values themselves stay once per batch (storing them per entry
  would repeat Beebe's 480-character ``ack-nhfb`` 100,000 times). NULL for rows
  imported before, whose batch text holds only the last definitions: they are
  checked against those, as before.
* ``papers.source_check`` set to NULL for entries naming a ``crossref`` parent: an
  entry that inherited fields from its parent was given a check as if its text alone
  read to its data, so an export without the parent lost the inherited fields. Without
  a check the writer reads the text again, copies it when nothing was inherited and
  generates it with the inherited fields otherwise (the reader no longer gives such
  entries a check).

No table is rebuilt (``ADD COLUMN``), so SQLite's full-text triggers on ``papers``
stay.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 20:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("papers", sa.Column("source_strings_read", sa.Integer(), nullable=True))
    papers = sa.table(
        "papers", sa.column("fields", sa.JSON()), sa.column("source_check", sa.String(64))
    )
    op.execute(
        papers.update()
        .where(papers.c.fields["crossref"].as_string().is_not(None))
        .values(source_check=None)
    )


def downgrade() -> None:
    # Plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35): no table rebuild. The checks
    # set to NULL stay NULL: such entries are read again at export, as before 0002.
    op.drop_column("papers", "source_strings_read")
