"""Read-only look-ups for shell completion, without SQLAlchemy (issue 17, item 4).

Completion runs at every TAB, so it must answer in a few tens of milliseconds on a
100,000-paper library. Importing SQLAlchemy and building an engine alone costs
~250 ms, so these look-ups talk to the database driver directly:

* SQLite: the standard library's ``sqlite3``, opened read-only with a URI
  (``file:PATH?mode=ro``, SQLite "URI Filenames"): completion can never create,
  migrate or write the file. A key file written on every change would be faster
  still, but it is one more thing to keep in step with the database; the indexed
  read below takes ~1 ms, so the database stays the one source.
* PostgreSQL: psycopg 3 (the driver SQLAlchemy uses for us), with libpq's
  ``connect_timeout``.

This is the only home of the completion look-ups (folded prefix, sorted
case-insensitively; keys and aliases together).
On SQLite the prefix is a range on the indexed ``*_folded`` column (binary collation,
so ``[p, p + U+10FFFF)`` holds exactly the strings that start with ``p``, and the
unique index answers it); PostgreSQL compares in the server's collation, where such a
range is not exact, so it uses ``starts_with``. Nothing here raises for a missing
file: the callers in ``cli/_complete.py`` turn any error into no candidates.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from typing import Any

#: The largest code point: ``prefix + TOP`` is above every string starting with ``prefix``.
TOP = "\U0010ffff"

_SQLITE = {
    "keys": (
        "SELECT citekey FROM papers WHERE citekey_folded >= ? AND citekey_folded < ? "
        "AND substr(citekey_folded, 1, ?) = ? ORDER BY citekey_folded LIMIT ?",
        "SELECT alias FROM aliases WHERE alias_folded >= ? AND alias_folded < ? "
        "AND substr(alias_folded, 1, ?) = ? ORDER BY alias_folded LIMIT ?",
    ),
    "tags": (
        "SELECT name FROM tags WHERE name_folded >= ? AND name_folded < ? "
        "AND substr(name_folded, 1, ?) = ? ORDER BY name_folded LIMIT ?",
    ),
}
_POSTGRES = {
    "keys": (
        "SELECT citekey FROM papers WHERE starts_with(citekey_folded, %s) "
        "ORDER BY citekey_folded LIMIT %s",
        "SELECT alias FROM aliases WHERE starts_with(alias_folded, %s) "
        "ORDER BY alias_folded LIMIT %s",
    ),
    "tags": (
        "SELECT name FROM tags WHERE starts_with(name_folded, %s) ORDER BY name_folded LIMIT %s",
    ),
}


def keys_starting(url: str, prefix: str, limit: int, *, timeout: int = 2) -> list[str]:
    """Return up to ``limit`` citation keys and aliases of the library at ``url`` (an
    SQLAlchemy URL as ``config.Settings`` gives it) starting with ``prefix``
    (case-insensitive), sorted case-insensitively. A missing SQLite file gives [].
    Raises the driver's errors (``sqlite3.Error``, ``psycopg.Error``)."""
    return sorted(set(_run(url, "keys", prefix, limit, timeout)), key=str.lower)[:limit]


def tags_starting(url: str, prefix: str, limit: int, *, timeout: int = 2) -> list[str]:
    """Return up to ``limit`` tag names of the library at ``url`` starting with ``prefix``
    (case-insensitive), in folded order. A missing SQLite file gives [].
    Raises the driver's errors."""
    return _run(url, "tags", prefix, limit, timeout)


def _run(url: str, what: str, prefix: str, limit: int, timeout: int) -> list[str]:
    folded = prefix.lower()
    if url.startswith("sqlite:"):
        path = url.split(":///", 1)[-1]
        if not path or not os.path.isfile(path):
            return []
        params = (folded, folded + TOP, len(folded), folded, limit)
        return _sqlite(path, _SQLITE[what], params)
    return _postgres(url, _POSTGRES[what], (folded, limit), timeout)


def sqlite_uri(path: str) -> str:
    """The read-only SQLite URI of the file ``path`` (absolute): ``file:PATH?mode=ro``
    with the three characters a URI path cannot hold as they are (``%``, ``?``, ``#``)
    escaped, which is all SQLite decodes ("URI Filenames"). Not ``urllib.parse.quote``:
    it imports ``re``, a tenth of a completion's CPU (issue 17)."""
    escaped = path.replace("%", "%25").replace("?", "%3F").replace("#", "%23")
    return f"file:{escaped}?mode=ro"


def _sqlite(path: str, statements: Sequence[str], params: tuple[Any, ...]) -> list[str]:
    conn = sqlite3.connect(sqlite_uri(path), uri=True)
    try:
        return [str(row[0]) for sql in statements for row in conn.execute(sql, params)]
    finally:
        conn.close()


def _postgres(
    url: str, statements: Sequence[str], params: tuple[Any, ...], timeout: int
) -> list[str]:
    import psycopg

    scheme, rest = url.split("://", 1)
    conninfo = f"{scheme.split('+', 1)[0]}://{rest}"
    with psycopg.connect(conninfo, connect_timeout=timeout) as conn:
        conn.read_only = True  # SET TRANSACTION READ ONLY for what follows
        return [str(row[0]) for sql in statements for row in conn.execute(sql, params)]
