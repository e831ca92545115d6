"""Query arguments on the command line: a Click command class that lets ``-term`` through.

A query is the command's remaining arguments joined by spaces. Negated terms
(``-tag:old``, ``-author:smith``) begin with a dash, which Click would read as
options (even with ``ignore_unknown_options`` it splits ``-key:foo`` into ``-k`` and
``ey:foo``). :class:`QueryCommand` therefore moves every argument that is not a
declared option (nor an option's value) behind ``--`` before Click parses, keeping
the order of the query words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def split_query_args(command: click.Command, args: list[str]) -> list[str]:
    """Return ``args`` with options first, then ``--``, then every other word in order.

    Options are recognised by the names the command declares (``-k``, ``--limit``,
    ``--limit=5``); an option that takes a value keeps the next argument. Arguments
    after an explicit ``--`` are query words.
    """
    takes_value: dict[str, bool] = {}
    for param in command.params:
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                takes_value[name] = not (param.is_flag or param.count)
    options: list[str] = []
    words: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            words.extend(args[index + 1 :])
            break
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if arg.startswith("-") and name in takes_value:
            options.append(arg)
            if takes_value[name] and "=" not in arg and index + 1 < len(args):
                options.append(args[index + 1])
                index += 1
        else:
            words.append(arg)
        index += 1
    return [*options, "--", *words] if words else options


class QueryCommand(click.Command):
    """A command whose positional QUERY words may begin with ``-`` (negated terms)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:
            args = split_query_args(self, list(args))
        return super().parse_args(ctx, args)


def query_argument(func: F) -> F:
    """Add the variadic ``QUERY...`` argument (words joined by spaces)."""
    return click.argument("query", nargs=-1, metavar="[QUERY]...")(func)


def join_query(words: tuple[str, ...]) -> str:
    """Join query words with spaces; a word containing spaces becomes a quoted phrase."""
    parts = []
    for word in words:
        if any(ch.isspace() for ch in word) and not (word.startswith('"') and word.endswith('"')):
            head, sep, value = word.partition(":")
            if sep and head and " " not in head and not head.startswith('"'):
                parts.append(f'{head}:"{value}"')
            else:
                parts.append(f'"{word}"')
        else:
            parts.append(word)
    return " ".join(parts).strip()
