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

#: The commands that only read: an unknown ``--reader`` is an error there (exit 3),
#: where a command that decides makes the reader.
READ_COMMANDS = frozenset({"list", "show", "stats", "export", "similar", "topics", "readers"})


@dataclass
class AppContext:
    """Settings plus a lazily created, schema-checked engine for one CLI run."""

    settings: Settings
    _engine: Engine | None = field(default=None, repr=False)
    #: True once a write transaction of this run committed: the root group then keeps
    #: the export profiles current (:mod:`readinglist.cli._keep`).
    committed: bool = False
    #: The current reader's name once the engine is made (:meth:`engine`); None before.
    reader: str | None = None
    _announced: set[str] = field(default_factory=set, repr=False)
    #: The library this run created, until its first commit (:meth:`session`).
    _creation: Any = field(default=None, repr=False)

    def engine(self, *, migrate: bool = True, create: bool = True) -> Engine:
        """Return the engine; on first use refuse a library holding objects readinglist
        does not create (:mod:`readinglist.schema_objects`), then create (``create``) or
        upgrade the schema (``migrate``). A read (``create=False``) of a missing or empty
        database raises NoLibrary (exit 6) and creates nothing; a write that creates the
        library says so on stderr once it commits, and takes it back if it fails first
        (:meth:`session`, :mod:`readinglist.opening`)."""
        if self._engine is None:
            from readinglist import db, decided, opening
            from readinglist.config import sqlite_path

            self.reader = decided.use(self.settings.reader_name())

            path = sqlite_path(self.settings.database_url)
            new_file = path is not None and opening.check_sqlite_file(path, create=create)
            creation = None
            if new_file and migrate and path is not None:
                creation = opening.Creation(
                    self.where(), path, path.exists(), opening.missing_folders(path)
                )
            engine = db.make_engine(self.settings.database_url)
            if migrate or not create:
                try:
                    with self._named_errors():
                        created = opening.open_library(
                            engine, self.where(), create=create, migrate=migrate, refuse=migrate
                        )
                except BaseException:
                    if creation is None:
                        engine.dispose()
                    else:  # interrupted while creating: no empty file, no folder is left
                        opening.undo_creation(engine, creation)
                    raise
                if created or (new_file and migrate):
                    if not new_file:
                        creation = opening.Creation(self.where(), None, True, [])
                    self._creation = creation
            self._engine = engine
        return self._engine

    @property
    def creating(self) -> bool:
        """True while this run's first write transaction is creating the library."""
        return self._creation is not None

    def where(self) -> str:
        """The library as people name it: the SQLite file, or the server URL without password."""
        from readinglist.config import sqlite_path

        url = self.settings.database_url
        path = sqlite_path(url)
        if path is not None:
            return str(path)
        from sqlalchemy.engine import make_url

        try:
            return make_url(url).render_as_string(hide_password=True)
        except Exception:
            return url

    @contextmanager
    def session(self, *, write: bool = True, create: bool = False) -> Iterator[Session]:
        """Yield a Session in one transaction (committed on success, rolled back on error).
        Only a command that adds papers (``create``: import, add) may create the library
        (:meth:`engine`); any other says there is none."""
        from readinglist import db

        try:
            engine = self.engine(create=create and write)
            with self._named_errors(), db.session_scope(engine, write=write) as session:
                self._check_reader(session, write)
                yield session
        except BaseException:
            self._undo_creation()
            raise
        self.committed = self.committed or write
        if self._creation is not None and write:
            from readinglist import render

            render.info(f"created a new library at {self._creation.where}")
            self._creation = None
        self._announce_readers()

    def _undo_creation(self) -> None:
        """Take back the library this run created when its first write failed or was
        interrupted (:func:`readinglist.opening.undo_creation`): the creation is part of
        that transaction. Says so when another process had started using it and it stays."""
        creation, self._creation = self._creation, None
        if creation is None or self._engine is None:
            return
        from readinglist import opening, render

        engine, self._engine = self._engine, None
        if not opening.undo_creation(engine, creation):
            render.info(
                f"created a new library at {creation.where} (in use by another process: kept)"
            )

    @contextmanager
    def connection(self, *, write: bool = True) -> Iterator[Connection]:
        """Yield a Core Connection in one transaction (:func:`readinglist.db.connection_scope`):
        for commands that run Core statements on ``readinglist.tables`` and so never
        import the ORM (issue 17). It never creates the library (:meth:`engine`)."""
        from readinglist import db

        engine = self.engine(create=False)
        with self._named_errors(), db.connection_scope(engine, write=write) as connection:
            self._check_reader(connection, write)
            yield connection
        self.committed = self.committed or write
        self._announce_readers()

    def _check_reader(self, executor: Session | Connection, write: bool) -> None:
        """A command that only reads (:data:`READ_COMMANDS`) names a reader the library
        has (or the implicit one): else NotFound (exit 3) naming the readers it has. A
        command that writes makes a new reader on its first decision or note
        (:func:`readinglist.library.readers.ensure`)."""
        if write or self.reader is None:
            return
        ctx = click.get_current_context(silent=True)
        command = ctx.find_root().invoked_subcommand if ctx is not None else None
        if command in READ_COMMANDS:
            from readinglist.library import readers

            readers.require(executor)

    def _announce_readers(self) -> None:
        """Say on stderr which readers the committed transaction created ("new reader ana")."""
        from readinglist import decided, render

        for name in decided.created():
            if name not in self._announced:
                self._announced.add(name)
                render.info(f"new reader {name}")

    @contextmanager
    def _named_errors(self) -> Iterator[None]:
        """Name the library in a refused write: SQLite's "attempt to write a readonly
        database" and PostgreSQL's "read-only transaction" (SQLSTATE 25006) say neither the
        file nor the database."""
        from sqlalchemy.exc import DBAPIError

        from readinglist.errors import DatabaseError

        try:
            yield
        except (DatabaseError, DBAPIError) as err:
            text = str(err.orig if isinstance(err, DBAPIError) else err)
            for said in ("attempt to write a readonly database", "read-only transaction"):
                if said in text:
                    raise DatabaseError(
                        f"{self.where()}: the library is read-only ({said}); nothing was "
                        "changed. Check the permissions of the file and its folder (SQLite "
                        "writes beside it even to read) or the database's "
                        "default_transaction_read_only"
                    ) from err
            raise

    def close(self) -> None:
        """Hand back the engine (:func:`readinglist.db_engine.release`); the current
        reader is the implicit one again (a command run in-process, as the tests do,
        leaves no reader behind)."""
        if self._engine is not None:
            from readinglist import db

            db.release(self._engine)
            self._engine = None
        if self.reader is not None:
            from readinglist import decided

            decided.use(None)
            self.reader = None


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
    app: AppContext,
    text: str,
    extension: str,
    *,
    require_save: bool = True,
    instead: str = "",
) -> str | None:
    """Open ``text`` in the user's editor ($VISUAL, $EDITOR, else vi); return the result.

    Returns None when the editor was closed without saving. Click runs the editor
    and raises ClickException (exit 1) when it cannot start it; an editor setting
    the shell cannot parse (an unbalanced quote) is a UsageError (exit 2). With no
    terminal (stdin or stdout not a TTY) and no editor chosen, vi is not started into
    a pipe: UsageError naming ``instead`` (the option that takes the text, ``-m``) and EDITOR.
    """
    import sys

    from readinglist.errors import UsageError

    if not app.settings.editor_chosen and not (sys.stdin.isatty() and sys.stdout.isatty()):
        other = f"give the text with {instead} or " if instead else ""
        raise UsageError(
            f"no editor to open: no terminal and neither VISUAL nor EDITOR is set; {other}"
            "set EDITOR (e.g. EDITOR=nano); nothing was changed"
        )

    try:
        result: str | None = click.edit(
            text, editor=app.settings.editor, extension=extension, require_save=require_save
        )
    except ValueError as exc:  # shlex: "No closing quotation"
        raise UsageError(f"cannot run the editor {app.settings.editor!r}: {exc}") from None
    return result
