"""Settings: which database to use, and which editor.

Resolution order (ARCHITECTURE.md "Configuration"): ``--db URL|PATH`` beats the
``READINGLIST_DB`` environment variable, which beats the default SQLite file
``readinglist.db`` in ``platformdirs.user_data_dir("readinglist")``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

ENV_DB = "READINGLIST_DB"


def default_database_path() -> Path:
    """Return the default SQLite file in the user data directory (platformdirs)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("readinglist", appauthor=False)) / "readinglist.db"


def to_url(value: str) -> str:
    """Turn a ``--db`` value into an SQLAlchemy URL.

    A value containing ``://`` is taken as a URL (``postgresql+psycopg://...``;
    ``postgresql://`` and ``postgres://`` are mapped to the psycopg 3 driver);
    anything else is a path to an SQLite file, made absolute.
    """
    if "://" in value:
        scheme, rest = value.split("://", 1)
        if scheme in ("postgresql", "postgres"):
            return f"postgresql+psycopg://{rest}"
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


@dataclass(frozen=True)
class Settings:
    """Resolved settings for one run: the database URL and the editor command."""

    database_url: str
    editor: str

    @classmethod
    def resolve(cls, db: str | None = None) -> Settings:
        """Build settings from the ``--db`` value (or None), the environment and defaults."""
        value = db or os.environ.get(ENV_DB)
        url = to_url(value) if value else to_url(str(default_database_path()))
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        return cls(database_url=url, editor=editor)
