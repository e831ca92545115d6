"""Settings: which database to use, which editor, and what online sources are told.

Resolution order (ARCHITECTURE.md "Configuration"): ``--db URL|PATH`` beats the
``READINGLIST_DB`` environment variable, which beats the default SQLite file
``readinglist.db`` in ``platformdirs.user_data_dir("readinglist")``.

Online sources (``resolve --online``) are sent the contact address of
``READINGLIST_CONTACT`` in the User-Agent; their answers are cached under
``READINGLIST_CACHE`` (default: ``platformdirs.user_cache_dir("readinglist")``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

ENV_DB = "READINGLIST_DB"
ENV_CONTACT = "READINGLIST_CONTACT"
ENV_CACHE = "READINGLIST_CACHE"


def default_database_path() -> Path:
    """Return the default SQLite file in the user data directory (platformdirs)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("readinglist", appauthor=False)) / "readinglist.db"


def contact_address() -> str | None:
    """The e-mail address online sources are sent (``READINGLIST_CONTACT``), or None."""
    return os.environ.get(ENV_CONTACT, "").strip() or None


def cache_directory(part: str) -> Path:
    """The folder of one kind of derived, disposable data (``"http"``: answers of online
    sources; ``"rank"``: ranking matrices of server libraries) under ``READINGLIST_CACHE``,
    else the user cache directory (platformdirs). The one home of where caches live."""
    value = os.environ.get(ENV_CACHE, "").strip()
    if value:
        return Path(value).expanduser() / part
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("readinglist", appauthor=False)) / part


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


def sqlite_path(url: str) -> Path | None:
    """Return the file of an ``sqlite:///PATH`` URL; None for a server or an in-memory
    database. Used to keep outputs from overwriting the library itself."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and url[len(prefix) :] not in ("", ":memory:"):
        return Path(url[len(prefix) :])
    return None


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
