"""Shell completion callbacks (Click's own completion for bash, zsh and fish).

Use them as ``shell_complete=`` of arguments: :func:`complete_ref` for REF arguments
(citation keys and aliases from the library), :func:`complete_tag` for TAG arguments,
:func:`complete_status` for STATUS arguments that are not a ``click.Choice``, and
:func:`complete_query` for QUERY arguments (field names, then statuses, priorities,
``has:``/``is:`` values, tag names and keys after ``field:``).

Completion runs while the user types, so it must never fail or change anything:
the library is opened read-only, without creating or migrating a database (a
missing SQLite file completes nothing), PostgreSQL gets a short connect timeout,
and any error gives no candidates. The database is the one ``--db`` or
``READINGLIST_DB`` names, as for the command itself.

bash splits words at ``:`` (``COMP_WORDBREAKS``), so it hands Click ``status`` ``:``
``to`` instead of ``status:to``; :func:`complete_query` recognises that split and
answers with what bash replaces (the part after the colon). zsh and fish pass whole
words.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.shell_completion import CompletionItem

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

#: Candidates offered at most per completion (shells page longer lists anyway).
LIMIT = 200
#: Seconds PostgreSQL may take to answer before completion gives up (libpq's variable).
PG_CONNECT_TIMEOUT = "2"


def _from_library(ctx: click.Context, fetch: Callable[[Session], list[str]]) -> list[str]:
    """Run ``fetch`` in a read-only session on the command's library; [] on any problem."""
    try:
        from readinglist.config import Settings

        root = ctx.find_root()
        settings = Settings.resolve(root.params.get("db"))
        url = settings.database_url
        if url.startswith("sqlite:"):
            path = url.split(":///", 1)[-1]
            if not path or not Path(path).is_file():
                return []
        else:
            os.environ.setdefault("PGCONNECT_TIMEOUT", PG_CONNECT_TIMEOUT)
        from readinglist import db

        engine = db.make_engine(url)
        try:
            with db.session_scope(engine, write=False) as session:
                return fetch(session)
        finally:
            engine.dispose()
    except Exception:  # completion must never crash the shell's prompt
        return []


def citation_keys(ctx: click.Context, prefix: str) -> list[str]:
    """Return the library's citation keys and aliases starting with ``prefix``."""
    from readinglist import library

    return _from_library(ctx, lambda s: library.keys_starting(s, prefix, LIMIT))


def tag_names(ctx: click.Context, prefix: str) -> list[str]:
    """Return the library's tag names starting with ``prefix`` (case-insensitive)."""
    from readinglist import library

    return _from_library(ctx, lambda s: library.tags_starting(s, prefix, LIMIT))


def complete_ref(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Complete a REF: citation keys and aliases of the library starting with ``incomplete``."""
    return [CompletionItem(key) for key in citation_keys(ctx, incomplete)]


def complete_tag(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Complete a TAG: tag names of the library starting with ``incomplete``."""
    return [CompletionItem(name) for name in tag_names(ctx, incomplete)]


def complete_status(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Complete a read STATUS (``records.STATUSES``)."""
    from readinglist.records import STATUSES

    return [CompletionItem(s) for s in STATUSES if s.startswith(incomplete.lower())]


def _values(ctx: click.Context, field: str, prefix: str) -> list[str]:
    """Return the completions of ``field:`` values starting with ``prefix``."""
    from readinglist import query
    from readinglist.records import STATUSES

    fixed = {
        "status": STATUSES,
        "priority": query.PRIORITY_VALUES,
        "has": query.HAS_VALUES,
        "is": query.IS_VALUES,
    }
    if field in fixed:
        return [v for v in fixed[field] if v.startswith(prefix.lower())]
    if field == "tag":
        return tag_names(ctx, prefix)
    if field == "key":
        return citation_keys(ctx, prefix)
    return []


def complete_query(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Complete a QUERY word: field names (``sta`` -> ``status:``), then field values
    (``status:to`` -> ``status:to-read``, ``tag:m`` -> ``tag:ml``, ``key:va`` -> keys).
    Free text is not completed. A leading ``-`` (negation) is kept."""
    try:
        from readinglist import query
    except Exception:
        return []
    words = list(ctx.params.get(param.name or "", None) or ())
    # bash: "status:to" arrives as words [..., "status", ":"] and incomplete "to", or as
    # words [..., "status"] and incomplete ":" when the cursor is right after the colon.
    if incomplete == ":" and words and words[-1].lstrip("-").lower() in query.FIELDS:
        field = words[-1].lstrip("-").lower()
        return [CompletionItem(":" + v) for v in _values(ctx, field, "")]
    if len(words) >= 2 and words[-1] == ":" and words[-2].lstrip("-").lower() in query.FIELDS:
        field = words[-2].lstrip("-").lower()
        return [CompletionItem(v) for v in _values(ctx, field, incomplete)]
    sign = "-" if incomplete.startswith("-") else ""
    body = incomplete[len(sign) :]
    name, colon, value = body.partition(":")
    if not colon:
        return [
            CompletionItem(f"{sign}{field}:", help=description)
            for field, description in query.FIELDS.items()
            if field.startswith(body.lower())
        ]
    return [CompletionItem(f"{sign}{name}:{v}") for v in _values(ctx, name.lower(), value)]
