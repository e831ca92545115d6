"""Initial schema: papers, people, tags, notes, status history, aliases, import batches.

Full-text search is created here too: on SQLite an external-content FTS5 table
``paper_fts`` over ``papers.search_text`` kept in step by triggers; on PostgreSQL a
generated ``tsvector`` column (``simple`` configuration: no stemming, no stop words)
with a GIN index. Both index the same pre-folded words (readinglist.text).

Revision ID: 0001
Revises:
Create Date: 2026-11-30 11:31:24.859263
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "import_batches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("format", sa.String(length=32), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("added", sa.Integer(), nullable=False),
        sa.Column("merged", sa.Integer(), nullable=False),
        sa.Column("rejected", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_import_batches")),
    )
    op.create_table(
        "people",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("family", sa.Text(), nullable=False),
        sa.Column("given", sa.Text(), nullable=False),
        sa.Column("von", sa.Text(), nullable=False),
        sa.Column("jr", sa.Text(), nullable=False),
        sa.Column("literal", sa.Text(), nullable=False),
        sa.Column("family_folded", sa.Text(), nullable=False),
        sa.Column("name_folded", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_people")),
        sa.UniqueConstraint("name_key", name=op.f("uq_people_name_key")),
    )
    with op.batch_alter_table("people", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_people_family_folded"), ["family_folded"], unique=False
        )

    op.create_table(
        "tags",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("name_folded", sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tags")),
        sa.UniqueConstraint("name_folded", name=op.f("uq_tags_name_folded")),
    )
    op.create_table(
        "papers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("citekey", sa.String(length=255), nullable=False),
        sa.Column("citekey_folded", sa.String(length=255), nullable=False),
        sa.Column("entry_type", sa.String(length=64), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("title_provisional", sa.Boolean(), nullable=False),
        sa.Column("title_key", sa.Text(), nullable=True),
        sa.Column("short_name", sa.String(length=255), nullable=True),
        sa.Column("year", sa.Integer(), nullable=True),
        sa.Column("month", sa.SmallInteger(), nullable=True),
        sa.Column("venue", sa.Text(), nullable=True),
        sa.Column("abstract", sa.Text(), nullable=True),
        sa.Column("abstract_key", sa.String(length=40), nullable=True),
        sa.Column("doi", sa.String(length=255), nullable=True),
        sa.Column("arxiv", sa.String(length=64), nullable=True),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("code_url", sa.Text(), nullable=True),
        sa.Column("keywords", sa.Text(), nullable=True),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("source_text", sa.Text(), nullable=True),
        sa.Column("source_digest", sa.String(length=64), nullable=True),
        sa.Column("search_text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("priority", sa.SmallInteger(), nullable=True),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["batch_id"],
            ["import_batches.id"],
            name=op.f("fk_papers_batch_id_import_batches"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_papers")),
        sa.UniqueConstraint("citekey_folded", name=op.f("uq_papers_citekey_folded")),
    )
    with op.batch_alter_table("papers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_papers_abstract_key"), ["abstract_key"], unique=False)
        batch_op.create_index(batch_op.f("ix_papers_added_at"), ["added_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_papers_arxiv"), ["arxiv"], unique=False)
        batch_op.create_index(batch_op.f("ix_papers_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_papers_doi"), ["doi"], unique=False)
        batch_op.create_index(batch_op.f("ix_papers_priority"), ["priority"], unique=False)
        batch_op.create_index(batch_op.f("ix_papers_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_papers_title_key"), ["title_key"], unique=False)
        batch_op.create_index(batch_op.f("ix_papers_year"), ["year"], unique=False)

    op.create_table(
        "aliases",
        sa.Column("alias_folded", sa.String(length=255), nullable=False),
        sa.Column("alias", sa.String(length=255), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"], ["papers.id"], name=op.f("fk_aliases_paper_id_papers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("alias_folded", name=op.f("pk_aliases")),
    )
    with op.batch_alter_table("aliases", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_aliases_paper_id"), ["paper_id"], unique=False)

    op.create_table(
        "notes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"], ["papers.id"], name=op.f("fk_notes_paper_id_papers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notes")),
    )
    with op.batch_alter_table("notes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_notes_paper_id"), ["paper_id"], unique=False)

    op.create_table(
        "paper_people",
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"],
            ["papers.id"],
            name=op.f("fk_paper_people_paper_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["person_id"], ["people.id"], name=op.f("fk_paper_people_person_id_people")
        ),
        sa.PrimaryKeyConstraint("paper_id", "role", "position", name=op.f("pk_paper_people")),
    )
    with op.batch_alter_table("paper_people", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_paper_people_person_id"), ["person_id"], unique=False)

    op.create_table(
        "paper_tags",
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("tag_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"],
            ["papers.id"],
            name=op.f("fk_paper_tags_paper_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tag_id"], ["tags.id"], name=op.f("fk_paper_tags_tag_id_tags"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("paper_id", "tag_id", name=op.f("pk_paper_tags")),
    )
    with op.batch_alter_table("paper_tags", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_paper_tags_tag_id"), ["tag_id"], unique=False)

    op.create_table(
        "status_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("from_status", sa.String(length=16), nullable=True),
        sa.Column("to_status", sa.String(length=16), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"],
            ["papers.id"],
            name=op.f("fk_status_events_paper_id_papers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_status_events")),
    )
    with op.batch_alter_table("status_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_status_events_at"), ["at"], unique=False)
        batch_op.create_index(batch_op.f("ix_status_events_paper_id"), ["paper_id"], unique=False)

    _create_full_text_index()


FTS_TRIGGERS = (
    """CREATE TRIGGER paper_fts_ai AFTER INSERT ON papers BEGIN
        INSERT INTO paper_fts(rowid, search_text) VALUES (new.id, new.search_text);
    END""",
    """CREATE TRIGGER paper_fts_ad AFTER DELETE ON papers BEGIN
        INSERT INTO paper_fts(paper_fts, rowid, search_text)
        VALUES ('delete', old.id, old.search_text);
    END""",
    """CREATE TRIGGER paper_fts_au AFTER UPDATE OF search_text ON papers BEGIN
        INSERT INTO paper_fts(paper_fts, rowid, search_text)
        VALUES ('delete', old.id, old.search_text);
        INSERT INTO paper_fts(rowid, search_text) VALUES (new.id, new.search_text);
    END""",
)


def _create_full_text_index() -> None:
    """Create the dialect's full-text index over ``papers.search_text``."""
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE VIRTUAL TABLE paper_fts USING fts5("
            "search_text, content='papers', content_rowid='id', tokenize='unicode61')"
        )
        for trigger in FTS_TRIGGERS:
            op.execute(trigger)
    else:
        op.execute(
            "ALTER TABLE papers ADD COLUMN search_vector tsvector "
            "GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED"
        )
        op.execute("CREATE INDEX ix_papers_search_vector ON papers USING gin (search_vector)")


def _drop_full_text_index() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in ("paper_fts_ai", "paper_fts_ad", "paper_fts_au"):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute("DROP TABLE IF EXISTS paper_fts")
    else:
        op.execute("DROP INDEX IF EXISTS ix_papers_search_vector")
        op.execute("ALTER TABLE papers DROP COLUMN IF EXISTS search_vector")


def downgrade() -> None:
    _drop_full_text_index()
    with op.batch_alter_table("status_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_status_events_paper_id"))
        batch_op.drop_index(batch_op.f("ix_status_events_at"))

    op.drop_table("status_events")
    with op.batch_alter_table("paper_tags", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_paper_tags_tag_id"))

    op.drop_table("paper_tags")
    with op.batch_alter_table("paper_people", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_paper_people_person_id"))

    op.drop_table("paper_people")
    with op.batch_alter_table("notes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_notes_paper_id"))

    op.drop_table("notes")
    with op.batch_alter_table("aliases", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_aliases_paper_id"))

    op.drop_table("aliases")
    with op.batch_alter_table("papers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_papers_year"))
        batch_op.drop_index(batch_op.f("ix_papers_title_key"))
        batch_op.drop_index(batch_op.f("ix_papers_status"))
        batch_op.drop_index(batch_op.f("ix_papers_priority"))
        batch_op.drop_index(batch_op.f("ix_papers_doi"))
        batch_op.drop_index(batch_op.f("ix_papers_batch_id"))
        batch_op.drop_index(batch_op.f("ix_papers_arxiv"))
        batch_op.drop_index(batch_op.f("ix_papers_added_at"))
        batch_op.drop_index(batch_op.f("ix_papers_abstract_key"))

    op.drop_table("papers")
    op.drop_table("tags")
    with op.batch_alter_table("people", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_people_family_folded"))

    op.drop_table("people")
    op.drop_table("import_batches")
