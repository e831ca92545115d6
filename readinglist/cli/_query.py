"""Query arguments on the command line: a Click command class that lets ``-term`` through.

A query is the command's remaining arguments joined by spaces. Negated terms
(``-tag:old``, ``-author:smith``) begin with a dash, which Click would read as
options (even with ``ignore_unknown_options`` it splits ``-key:foo`` into ``-k`` and
``ey:foo``). :class:`QueryCommand` therefore moves every argument that is not a
declared option (nor an option's value) behind ``--`` before Click parses, keeping
the order of the query words. Unknown ``--long`` options stay options, so a typo
such as ``--limt`` is reported by Click instead of searching for "limt".

:data:`QUERY_TERMS` documents the language once; commands with a QUERY argument put
:data:`QUERY_HELP` in their epilog (``@click.command(..., epilog=QUERY_HELP)``), commands
with ``-q QUERY`` :data:`QUERY_OPTION_HELP` (a test checks every command of the tree).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click
from click.shell_completion import CompletionItem

from readinglist.cli._complete import complete_query, query_word_completions

F = TypeVar("F", bound=Callable[..., Any])

#: The terms of the query language, shared by :data:`QUERY_HELP` and
#: :data:`QUERY_OPTION_HELP`. Kept in step with ``readinglist.query`` (a test
#: compares the field names).
QUERY_TERMS = """\
  diffusion            the word anywhere: title, short name, abstract, authors,
                       venue, keywords, tags, notes (case, accents, LaTeX folded)
  "self correction"    a phrase
  diffus*              words starting with diffus
  title:WORDS  venue:WORDS  author:NAME   folded substring ("author:Smith, J")
  tag:rl               tag rl or any rl/... below it (tag:rl* for a prefix)
  status:to-read       your status: new, to-read, reading, read, skipped
  status:read@ana      another reader's status (also priority:high@ana)
  priority:high        high, medium, low, none
  wanted-by:2          wanted (to-read, reading or read) by 2 readers; 2.. 1..3 ..1
  year:2024  year:2020..2024  year:..2019  year:2020..
  added:2026-05-01  added:2026-05  added:-7d..  added:-2w  added:today
                       (-Nd -Nw -Nm -Ny: since that long ago, UTC; a..b ranges)
  read:2026-05         when you marked it read (same forms as added:)
  key:KEY  key:smith*  doi:10.1145/...  arxiv:2401.01234
  has:notes|doi|arxiv|abstract|tags|authors|code|url|venue|year|priority
                       (notes and priority: yours and shared notes)
  is:provisional       the title is still one the importer made up
  -term                not this term (-tag:old, -"a phrase", -(a OR b))
  a OR b               either; OR binds tighter than the implicit AND
  ( ... )              grouping; AND and NOT may be written out"""

#: The epilog of every command with a positional QUERY (``list``, ``export``,
#: ``triage``, ``stats``): ``@click.command(..., cls=QueryCommand, epilog=QUERY_HELP)``.
QUERY_HELP = f"""\b
QUERY language (the remaining arguments; all terms must match):
{QUERY_TERMS}
\b
An argument containing spaces is a phrase; -term needs no --. A bad query exits 2."""

#: The epilog of every command with ``-q QUERY`` (``mark``, ``priority``, ``tag add``,
#: ``tag remove``, ``rm``): ``@click.command(..., epilog=QUERY_OPTION_HELP)``.
QUERY_OPTION_HELP = f"""\b
QUERY language of -q (one argument: quote it; all terms must match):
{QUERY_TERMS}
\b
Example: -q 'tag:thesis -status:read "self correction"'. A bad query exits 2."""


def declared_options(params: Iterable[click.Parameter]) -> dict[str, int]:
    """Return ``{option name: how many values it takes}`` (0 for a flag or a counter,
    Click's ``nargs`` otherwise: ``--conflicts A B`` takes 2) for every option name of
    ``params``."""
    takes_value: dict[str, int] = {}
    for param in params:
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                takes_value[name] = 0 if (param.is_flag or param.count) else max(param.nargs, 1)
    return takes_value


def split_query_args(
    command: click.Command, args: list[str], ctx: click.Context | None = None
) -> list[str]:
    """Return ``args`` with options first, then ``--``, then every other word in order.

    Options are recognised by the names the command declares (``-k``, ``--limit``,
    ``--limit=5``; with ``ctx``, also the help option ``-h``/``--help``); an option
    that takes values keeps the next arguments (as many as it takes). An unknown ``--long`` option is left
    to Click, which reports it; any other word, ``-tag:old`` included, is a query
    word. Arguments after an explicit ``--`` are query words.
    """
    params = command.get_params(ctx) if ctx is not None else command.params
    takes_value = declared_options(params)
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
            if takes_value[name] and "=" not in arg:
                values = args[index + 1 : index + 1 + takes_value[name]]
                options.extend(values)
                index += len(values)
        elif arg.startswith("--") and len(arg) > 2 and _looks_like_option(name):
            options.append(arg)  # unknown: Click says "No such option"
        else:
            words.append(arg)
        index += 1
    return [*options, "--", *words] if words else options


def _looks_like_option(name: str) -> bool:
    body = name[2:]
    return bool(body) and body[0].isalpha() and all(ch.isalnum() or ch in "-_" for ch in body)


class QueryCommand(click.Command):
    """A command whose positional QUERY words may begin with ``-`` (negated terms)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, split_query_args(self, list(args), ctx))

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Complete option names and, for ``-word`` (not ``--word``), negated query terms.

        Click hands every word that begins with ``-`` to the command (as an option
        name); ``-ta`` also completes to ``-tag:``, ``-tag:v`` to ``-tag:vision``.
        """
        results = super().shell_complete(ctx, incomplete)
        if len(incomplete) > 1 and incomplete[0] == "-" and incomplete[1] != "-":
            results.extend(query_word_completions(ctx, incomplete))
        return results


def query_argument(func: F) -> F:
    """Add the variadic ``QUERY...`` argument (words joined by spaces), with completion."""
    return click.argument("query", nargs=-1, metavar="[QUERY]...", shell_complete=complete_query)(
        func
    )


def inbox_options(func: F) -> F:
    """Add ``--all`` and ``--order`` (which papers a triage run walks, in which order):
    declared once for ``triage`` and ``serve``, which walk the same inbox."""
    func = click.option(
        "--order",
        type=click.Choice(["interest", "added"]),
        default="interest",
        show_default=True,
        help="interest: highest learned interest first once you have decided on some papers "
        "(re-ranked after each decision; before any, the order of addition); added: the "
        "order of addition.",
    )(func)
    return click.option(
        "--all",
        "include_all",
        is_flag=True,
        help="Walk every paper the query selects, not only those with status new.",
    )(func)


def join_query(words: tuple[str, ...]) -> str:
    """Join query words with spaces; a word containing spaces becomes a quoted phrase.

    See :func:`readinglist.query.join_words` (imported here on first use, so that
    ``--help`` does not import SQLAlchemy; not at all without words: ``list --sort
    interest --limit N`` needs no parser).
    """
    if not words:
        return ""
    import re

    from readinglist import render
    from readinglist.query import join_words
    from readinglist.query.parser import is_whole_query

    for word in words:
        # An argument with spaces that is not a whole query is a phrase: say so when it
        # has a term in it (`list "year:2024 transformers"` searches year "2024 transformers").
        if (
            " " in word.strip()
            and not is_whole_query(word.strip())
            and re.search(r"(^|\s)-?[a-z]+:\S", word)
        ):
            render.warn(
                f"{word!r} is searched as one phrase (an argument with spaces); "
                "to combine terms, pass them as separate arguments"
            )
    return join_words(words)


def warn_if_nothing_matched(session: Any, text: str) -> None:
    """Warn that query ``text`` selected no paper, pointing to ``key:`` when one of its
    words is a citation key or alias (``list spar2026``: free text does not search
    keys; a fresh user's ``export bibtex KEY`` wrote nothing and said nothing)."""
    from readinglist import render
    from readinglist.library.refs import keys_in_query  # Core: no ORM (issue 17)

    if not text.strip():
        return
    keys = keys_in_query(session, text)
    hint = ""
    if keys:
        terms = " ".join(f"key:{key}" for key in keys)
        hint = f"; free text does not search citation keys: write {terms}"
    shown = text if len(text) <= 80 else text[:79] + "…"
    render.warn(f"no paper matches {shown!r}{hint}")
