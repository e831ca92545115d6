"""The root group of ``readinglist``: lazy command registration, error translation, ``run``.

Commands are registered lazily (:data:`COMMANDS`, :class:`LazyCommands`): a run
imports only the module of the command it runs (issue 17). Those modules import
only Click and light modules of ours at import time, and SQLAlchemy, Alembic,
bibtexparser and rich only inside the command bodies, so ``--help`` and
``--version`` stay fast (issue 9).
Every :class:`~readinglist.errors.ReadingListError` becomes ``Error: <message>`` on
stderr and its exit code, in exactly one place (:class:`ReadingListGroup`).
The package (``readinglist.cli``) re-exports :data:`cli` and holds ``main``, which
answers the commonest TAB completions before this module (and Click) is imported.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Iterator, MutableMapping
from typing import Any

import click

from readinglist import __version__
from readinglist.cli._app import AppContext
from readinglist.cli._complete import complete_path, register_shells
from readinglist.config import Settings
from readinglist.errors import ReadingListError

EXIT_CODES_HELP = """\b
Exit codes: 0 done; 1 failure; 2 usage or bad query; 3 not found;
4 conflict; 5 bad input data; 6 database problem."""


class ReadingListGroup(click.Group):
    """A group that turns ReadingListError into ``Error: ...`` and the error's exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
        except ReadingListError as err:
            click.echo(f"Error: {err}", err=True)
            _keep_current(ctx)  # what the command committed before failing
            ctx.exit(err.exit_code)
        except KeyboardInterrupt:
            # Ctrl-C: the transaction is rolled back, a temporary output file removed.
            click.echo(f"Interrupted: {interrupted_text(ctx.invoked_subcommand)}", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            # `readinglist list | head`: the reader went away; end quietly.
            _silence_stdout()
            ctx.exit(0)
        except UnicodeEncodeError as err:
            # An argument with bytes that are not UTF-8 (Python keeps them as surrogates,
            # which no database, file or terminal text can hold): one line, exit 2.
            if "surrogates not allowed" not in str(err):
                raise
            click.echo("Error: an argument is not valid UTF-8 text", err=True)
            ctx.exit(2)
        except OSError as err:
            # Output that cannot be written (`> /dev/full`, a vanished disk) or a file the
            # system refused: one line, never a traceback.
            _silence_stdout()
            click.echo(f"Error: {_os_error_text(err)}", err=True)
            ctx.exit(1)
        else:
            _keep_current(ctx)
            return result
        finally:
            app = ctx.find_object(AppContext)
            if app is not None:
                app.close()


#: The exit code of a command ended by Ctrl-C (SIGINT): 128 + 2, as shells report it.
EXIT_INTERRUPTED = 130
#: What was left undone by an interrupted command, by command; every other command says
#: nothing changed. Each runs its writes in one transaction and writes files through a
#: temporary file, so an interruption leaves the library and the outputs as they were;
#: triage saves each decision as it is made.
_INTERRUPTED = {
    "import": "nothing was imported; the library is unchanged",
    "export": "nothing was written; the library is unchanged",
    "triage": "the decisions made so far are saved",
    "serve": "the decisions made so far are saved",
}


def interrupted_text(command: str | None) -> str:
    """The line an interrupted ``command`` ends with (after ``Interrupted: ``)."""
    return _INTERRUPTED.get(command or "", "nothing was changed; the library is unchanged")


def _keep_current(ctx: click.Context) -> None:
    """Keep the export profiles current after a command that committed a change
    (:func:`readinglist.cli._keep.keep_current`; imported only then)."""
    app = ctx.find_object(AppContext)
    if app is not None and app.committed:
        from readinglist.cli._keep import keep_current

        keep_current(app, ctx.invoked_subcommand)


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's final flush cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _os_error_text(err: OSError) -> str:
    """``err`` as one line: the system's reason, and the file when it names one."""
    reason = err.strerror or str(err)
    if err.filename is not None:
        return f"{err.filename}: {reason}"
    return f"cannot write the output: {reason}"


#: Every command: its name and where it lives (``module:attribute`` under ``readinglist.cli``).
#: Modules are imported only when their command runs, is completed or shown in ``--help``
#: (Click docs, "Lazily Loading Subcommands"): `readinglist mark` and TAB completion
#: import one command module, not all of them. Add a command with one line here.
COMMANDS: dict[str, str] = {
    "import": "import_:import_command",
    "list": "list_:list_command",
    "agreement": "agreement:agreement_command",
    "show": "list_:show_command",
    "export": "export:export_command",
    "db": "db_cmd:db_group",
    "rekey": "keys:rekey_command",
    "merge": "keys:merge_command",
    "mark": "mark:mark_command",
    "priority": "mark:priority_command",
    "tag": "tag:tag_group",
    "note": "note:note_group",
    "title": "edit:title_command",
    "add": "add:add_command",
    "edit": "edit:edit_command",
    "rm": "rm:rm_command",
    "triage": "triage:triage_command",
    "stats": "stats:stats_command",
    "similar": "similar:similar_command",
    "topics": "topics:topics_command",
    "serve": "serve:serve_command",
    "resolve": "resolve:resolve_command",
    "duplicates": "duplicates:duplicates_command",
    "not-duplicate": "duplicates:not_duplicate_command",
    "readers": "readers_cmd:readers_command",
}


class LazyCommands(MutableMapping[str, click.Command]):
    """The root group's ``commands``: names known up front, each module imported on first use.

    Click's ``Group`` reads ``self.commands`` only through the mapping protocol
    (``get`` for one command, iteration for the names), so a mapping that imports on
    ``__getitem__`` makes every command lazy while ``cli.commands[name]`` and
    ``add_command`` keep working.
    """

    def __init__(self, table: dict[str, str]) -> None:
        self._table = dict(table)
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            module_name, _, attribute = self._table[name].partition(":")
            module = importlib.import_module(f"readinglist.cli.{module_name}")
            self._loaded[name] = getattr(module, attribute)
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._table.pop(name, None)
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._table and name not in self._loaded:
            raise KeyError(name)
        self._table.pop(name, None)
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({*self._table, *self._loaded}))

    def __len__(self) -> int:
        return len({*self._table, *self._loaded})

    def __contains__(self, name: object) -> bool:
        return name in self._table or name in self._loaded


@click.group(
    cls=ReadingListGroup,
    commands=LazyCommands(COMMANDS),
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=EXIT_CODES_HELP,
)
@click.option(
    "--db",
    "db",
    metavar="URL|PATH",
    envvar="READINGLIST_DB",
    help="Database: an SQLite file path or a URL such as postgresql+psycopg://user@host/name. "
    "Default: $READINGLIST_DB, else readinglist.db in the user data directory.",
    shell_complete=complete_path,
)
@click.option(
    "--reader",
    "reader",
    metavar="NAME",
    help="Whose decisions (status, priority, undo, private notes) to read and write in a "
    'shared library. Default: $READINGLIST_READER, else reader = "NAME" in the '
    "configuration file, else the one implicit reader of a personal library.",
)
@click.version_option(__version__, "-V", "--version", prog_name="readinglist")
@click.pass_context
def cli(ctx: click.Context, db: str | None, reader: str | None) -> None:
    """Import, triage, find and export the papers you mean to read.

    \b
    Examples:
        readinglist import icml2026-abstracts.txt
        readinglist triage
        readinglist list status:to-read
        readinglist export bibtex -o refs.bib
    """
    if db is not None and not db.strip():
        raise click.BadParameter("is empty; give a file path or a database URL", param_hint="--db")
    ctx.obj = AppContext(Settings.resolve(db, reader))


register_shells()  # completion answers nothing rather than a traceback; bash keeps a:b whole


def run(prog_name: str) -> None:
    """Run the command line of ``sys.argv`` as ``prog_name`` (``readinglist`` or ``rl``);
    exit with its code (``readinglist.cli.main`` calls this)."""
    try:
        # Not standalone, so the final flush of stdout below is ours to check: a full disk
        # behind `> file` would otherwise end in a traceback at interpreter exit.
        result = cli.main(prog_name=prog_name, standalone_mode=False)
    except click.ClickException as err:
        err.show()
        code = err.exit_code
    except click.Abort as err:
        if isinstance(err.__context__, KeyboardInterrupt):  # Ctrl-C before a command ran
            click.echo(f"Interrupted: {interrupted_text(None)}", err=True)
            code = EXIT_INTERRUPTED
        else:
            click.echo("Aborted!", err=True)
            code = 1
    else:
        code = result if isinstance(result, int) else 0
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as err:
        _silence_stdout()
        click.echo(f"Error: {_os_error_text(err)}", err=True)
        code = code or 1
    # The command is done: the objects left (SQLAlchemy's mappers and caches, the
    # modules) are only torn down from here. Frozen, the interpreter's last collection
    # skips them: ~90 ms less CPU for `show` at exit (issue 17; gc.freeze, Python docs).
    gc.freeze()
    sys.exit(code)
