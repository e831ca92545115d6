"""The context object shared by all commands, and shared option decorators.

``AppContext`` holds the resolved settings and creates the engine on first use
(so ``--help`` and ``--version`` never import SQLAlchemy), checking the schema
once. It replaces the global singletons of beets, pubs and papis (style anchors 8.3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import click

from readinglist.config import Settings

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine
    from sqlalchemy.orm import Session

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class AppContext:
    """Settings plus a lazily created, schema-checked engine for one CLI run."""

    settings: Settings
    _engine: Engine | None = field(default=None, repr=False)
    #: True once a write transaction of this run committed: the root group then keeps
    #: the export profiles current (:mod:`readinglist.cli._keep`).
    committed: bool = False

    def engine(self, *, migrate: bool = True) -> Engine:
        """Return the engine; on first use create or upgrade the schema (``migrate``)."""
        if self._engine is None:
            from readinglist import db

            engine = db.make_engine(self.settings.database_url)
            if migrate:
                db.ensure_schema(engine)
            self._engine = engine
        return self._engine

    @contextmanager
    def session(self, *, write: bool = True) -> Iterator[Session]:
        """Yield a Session in one transaction (committed on success, rolled back on error)."""
        from readinglist import db

        with db.session_scope(self.engine(), write=write) as session:
            yield session
        self.committed = self.committed or write

    @contextmanager
    def connection(self, *, write: bool = True) -> Iterator[Connection]:
        """Yield a Core Connection in one transaction (:func:`readinglist.db.connection_scope`):
        for commands that run Core statements on ``readinglist.tables`` and so never
        import the ORM (issue 17)."""
        from readinglist import db

        with db.connection_scope(self.engine(), write=write) as connection:
            yield connection
        self.committed = self.committed or write

    def close(self) -> None:
        """Dispose of the engine's connections."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


pass_app = click.make_pass_decorator(AppContext)


class PositiveInt(click.IntRange):
    """A count or id: an integer of 1 or more (at most 2**62, what both databases store).

    Help shows ``x>=1`` instead of Click's ``1<=x<=4611686018427387904``.
    """

    def __init__(self) -> None:
        super().__init__(1, 2**62)

    def _describe_range(self) -> str:
        return "x>=1"


def json_option(func: F) -> F:
    """Add ``--json`` (one JSON document on stdout)."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")(
        func
    )


def output_file_option(func: F) -> F:
    """Add ``-o/--output FILE`` (``-`` or none: stdout)."""
    return click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False, writable=True, allow_dash=True),
        default=None,
        help="Write to FILE (atomically: a temporary file, then a rename). Default: stdout.",
    )(func)


def edit_text(
    app: AppContext, text: str, extension: str, *, require_save: bool = True
) -> str | None:
    """Open ``text`` in the user's editor ($VISUAL, $EDITOR, else vi); return the result.

    Returns None when the editor was closed without saving. Click runs the editor
    and raises ClickException (exit 1) when it cannot start it; an editor setting
    the shell cannot parse (an unbalanced quote) is a UsageError (exit 2).
    """
    from readinglist.errors import UsageError

    try:
        result: str | None = click.edit(
            text, editor=app.settings.editor, extension=extension, require_save=require_save
        )
    except ValueError as exc:  # shlex: "No closing quotation"
        raise UsageError(f"cannot run the editor {app.settings.editor!r}: {exc}") from None
    return result
