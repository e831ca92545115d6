"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}

SQLite runs this in batch mode: a batch operation on ``papers`` recreates the table
and drops its FTS triggers; recreate them (see 0001) in the same migration.
"""

from __future__ import annotations

import sqlalchemy as sa
${imports if imports else ""}
from alembic import op

revision: str = ${repr(up_revision)}
down_revision: str | None = ${repr(down_revision)}
branch_labels: str | None = ${repr(branch_labels)}
depends_on: str | None = ${repr(depends_on)}


def upgrade() -> None:
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    ${downgrades if downgrades else "pass"}
