"""Keep each import's @string/@preamble text; indexes for ``venue:`` and ``is:provisional``.

* ``import_batches.bibtex_strings`` / ``bibtex_preamble``: the ``@string`` definitions
  and ``@preamble`` blocks of a BibTeX import, as written (``ParseResult.meta``), so
  that an export can copy entries that use macros byte for byte and define the macros
  they use (issue 4). NULL for other formats and for files without them.
* ``papers.source_check``: the BibTeX reader's digest of an entry's data and of the
  values of the macros its text may use (``formats.bibtex.source_check``); export
  compares it instead of parsing every copied entry again (100k entries: 48 s -> see
  benchmarks/RESULTS.md). NULL for rows imported before: they are checked by parsing.
* ``ix_papers_venue`` (SQLite only): ``venue:`` first reads the library's distinct
  venues, then selects ``venue IN (...)``; without an index both scan the table
  (100k papers: 277 ms, with the index 8 ms). Not on PostgreSQL: a B-tree entry is
  limited to about 2.7 kB and a venue string has no length limit, and PostgreSQL's
  hashed DISTINCT over the heap is fast enough there.
* ``ix_papers_title_provisional``: a partial index over the few papers whose title
  is provisional (``is:provisional``), on both databases.
* ``ix_papers_added_keys`` on ``(added_at, id, citekey)`` replaces ``ix_papers_added_at``:
  the default order of ``list`` is (added_at, id), and ``list -k`` needs only the key,
  so the index covers it (100k papers: 157 ms reading the table, 35 ms the index).

No table is rebuilt: ``ADD COLUMN`` and ``CREATE INDEX`` are plain statements on SQLite
too, so the full-text triggers on ``papers`` stay as they are.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 15:10:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("import_batches", sa.Column("bibtex_strings", sa.Text(), nullable=True))
    op.add_column("import_batches", sa.Column("bibtex_preamble", sa.Text(), nullable=True))
    op.add_column("papers", sa.Column("source_check", sa.String(length=64), nullable=True))
    op.create_index(
        op.f("ix_papers_title_provisional"),
        "papers",
        ["title_provisional"],
        unique=False,
        sqlite_where=sa.text("title_provisional = 1"),
        postgresql_where=sa.text("title_provisional"),
    )
    if op.get_bind().dialect.name == "sqlite":
        op.create_index("ix_papers_venue", "papers", ["venue"], unique=False)
    op.create_index(
        op.f("ix_papers_added_keys"), "papers", ["added_at", "id", "citekey"], unique=False
    )
    op.drop_index(op.f("ix_papers_added_at"), table_name="papers")


def downgrade() -> None:
    op.create_index(op.f("ix_papers_added_at"), "papers", ["added_at"], unique=False)
    op.drop_index(op.f("ix_papers_added_keys"), table_name="papers")
    if op.get_bind().dialect.name == "sqlite":
        op.drop_index("ix_papers_venue", table_name="papers")
    op.drop_index(op.f("ix_papers_title_provisional"), table_name="papers")
    # Plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35): no table rebuild, so the
    # full-text triggers on papers stay.
    op.drop_column("papers", "source_check")
    op.drop_column("import_batches", "bibtex_preamble")
    op.drop_column("import_batches", "bibtex_strings")
