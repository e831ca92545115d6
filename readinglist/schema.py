"""The schema revisions this code knows, with the standard library alone.

``readinglist.db`` (which imports SQLAlchemy) checks and upgrades a library against
them; a command that reads an SQLite library without SQLAlchemy
(:mod:`readinglist.counting`) uses them to take its short way only on a library at
:data:`HEAD`, leaving every other revision to ``db`` (upgrade, or refusal with exit 6).
"""

from __future__ import annotations

#: Every revision this code knows, oldest first; the last is the head. A test keeps
#: this equal to the scripts in ``alembic/versions`` so start-up needs no Alembic.
KNOWN_REVISIONS: tuple[str, ...] = (
    "0001",
    "0002",
    "0003",
    "0004",
    "0005",
    "0006",
    "0007",
    "0008_readers",
    "0009",
)
HEAD = KNOWN_REVISIONS[-1]
