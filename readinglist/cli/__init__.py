"""The ``readinglist`` command (alias ``rl``): the root group, error translation and ``main``.

Commands are registered eagerly below; their modules import only Click and light
modules of ours at import time, and SQLAlchemy, Alembic, bibtexparser and rich only
inside the command bodies, so ``--help`` and ``--version`` stay fast (issue 9).
Every :class:`~readinglist.errors.ReadingListError` becomes ``Error: <message>`` on
stderr and its exit code, in exactly one place (:class:`ReadingListGroup`).
"""

from __future__ import annotations

import os
import sys
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
            return super().invoke(ctx)
        except ReadingListError as err:
            click.echo(f"Error: {err}", err=True)
            ctx.exit(err.exit_code)
        except BrokenPipeError:
            # `readinglist list | head`: the reader went away; end quietly.
            _silence_stdout()
            ctx.exit(0)
        except OSError as err:
            # Output that cannot be written (`> /dev/full`, a vanished disk) or a file the
            # system refused: one line, never a traceback.
            _silence_stdout()
            click.echo(f"Error: {_os_error_text(err)}", err=True)
            ctx.exit(1)
        finally:
            app = ctx.find_object(AppContext)
            if app is not None:
                app.close()


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


@click.group(
    cls=ReadingListGroup,
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
@click.version_option(__version__, "-V", "--version", prog_name="readinglist")
@click.pass_context
def cli(ctx: click.Context, db: str | None) -> None:
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
    ctx.obj = AppContext(Settings.resolve(db))


def _register() -> None:
    from readinglist.cli import db_cmd, duplicates, export, import_, keys, list_

    for command in (
        import_.import_command,
        list_.list_command,
        list_.show_command,
        export.export_command,
        db_cmd.db_group,
        keys.rekey_command,
        keys.merge_command,
        duplicates.duplicates_command,
        duplicates.not_duplicate_command,
    ):
        cli.add_command(command)
    _register_triage()


def _register_triage() -> None:
    """Register the triage and editing commands (issue 5)."""
    from readinglist.cli import add, edit, mark, note, rm, stats, tag, triage

    for command in (
        mark.mark_command,
        mark.priority_command,
        tag.tag_group,
        note.note_group,
        edit.title_command,
        add.add_command,
        edit.edit_command,
        rm.rm_command,
        triage.triage_command,
        stats.stats_command,
    ):
        cli.add_command(command)


_register()
register_shells()  # completion answers nothing rather than a traceback; bash keeps a:b whole


def main() -> None:
    """Entry point of the ``readinglist`` and ``rl`` console scripts.

    The program name follows the name the command was started as, so Click's shell
    completion works for both: ``_READINGLIST_COMPLETE=bash_source readinglist`` and
    ``_RL_COMPLETE=bash_source rl`` each print a script for their own name.
    """
    started_as = os.path.basename(sys.argv[0]) if sys.argv else ""
    prog_name = "rl" if started_as == "rl" else "readinglist"
    try:
        # Not standalone, so the final flush of stdout below is ours to check: a full disk
        # behind `> file` would otherwise end in a traceback at interpreter exit.
        result = cli.main(prog_name=prog_name, standalone_mode=False)
    except click.ClickException as err:
        err.show()
        code = err.exit_code
    except click.Abort:
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
    sys.exit(code)
