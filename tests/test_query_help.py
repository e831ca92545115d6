"""Every command that takes a query shows the query language in its ``--help`` (issue 6).

Commands with a positional QUERY (``list``, ``export``, ``triage``, ``stats``) show
``QUERY_HELP``; commands with ``-q QUERY`` show ``QUERY_OPTION_HELP``. Both carry the one
table of terms, ``QUERY_TERMS``, exactly once.
"""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from readinglist.cli import cli
from readinglist.cli._query import QUERY_HELP, QUERY_OPTION_HELP, QUERY_TERMS

POSITIONAL = "  QUERY language (the remaining arguments; all terms must match):"
OPTION = "  QUERY language of -q (one argument: quote it; all terms must match):"
TERM = "    status:to-read       your status: new, to-read, reading, read, skipped"

COMMANDS = [
    ("list", POSITIONAL),
    ("export", POSITIONAL),
    ("triage", POSITIONAL),
    ("stats", POSITIONAL),
    ("topics", POSITIONAL),
    ("resolve", POSITIONAL),
    ("duplicates", POSITIONAL),
    ("serve", POSITIONAL),
    ("mark", OPTION),
    ("priority", OPTION),
    ("tag add", OPTION),
    ("tag remove", OPTION),
    ("rm", OPTION),
    ("rekey", OPTION),
]


def commands(command: click.Command, path: str = "") -> Iterator[tuple[str, click.Command]]:
    """Yield ``(path, command)`` for every command below the root."""
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield f"{path} {name}".strip(), sub
            yield from commands(sub, f"{path} {name}".strip())


@pytest.mark.parametrize(("path", "heading"), COMMANDS)
def test_query_commands_show_the_query_language(path: str, heading: str) -> None:
    result = CliRunner().invoke(cli, [*path.split(), "--help"], prog_name="readinglist")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert heading in lines
    assert TERM in lines
    assert lines.count(TERM) == 1
    assert result.stdout.count("QUERY language") == 1


def test_every_command_taking_a_query_is_listed_and_no_other() -> None:
    """A new command with a QUERY argument or -q must show the help too (and be listed)."""
    found = {}
    for path, command in commands(cli):
        names = {p.name for p in command.params}
        if "query" in names or "query_text" in names:
            found[path] = command.epilog
    assert found == {
        path: (QUERY_HELP if heading == POSITIONAL else QUERY_OPTION_HELP)
        for path, heading in COMMANDS
    }


def test_one_table_of_terms() -> None:
    assert QUERY_HELP.count(QUERY_TERMS) == QUERY_OPTION_HELP.count(QUERY_TERMS) == 1
    assert TERM[2:] in QUERY_TERMS.splitlines()
