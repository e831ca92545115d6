"""Shell completion (Click's own completion for bash, zsh and fish).

Use the callbacks as ``shell_complete=`` of parameters: :func:`complete_ref` for REF
arguments (citation keys and aliases from the library), :func:`complete_tag` for TAG
arguments and ``--tag`` options, :func:`complete_status` for STATUS arguments that are
not a ``click.Choice``, :func:`complete_query` for QUERY arguments and
:func:`complete_query_option` for ``-q QUERY`` (field names, then statuses,
priorities, ``has:``/``is:`` values, tag names and keys after ``field:``), and
:func:`complete_path` for file arguments that are not a ``click.Path``.

Completion runs while the user types, so it must never fail or change anything:
the library is opened read-only through the database driver, without SQLAlchemy
(:mod:`readinglist.lookup`; a missing SQLite file completes nothing), PostgreSQL
gets a short connect timeout, and any error gives no candidates. The database is the one ``--db`` or
``READINGLIST_DB`` names, as for the command itself. :func:`register_shells`
installs shell classes that turn any other failure (a malformed ``COMP_CWORD``,
a bug) into no candidates instead of a traceback on the user's prompt.

bash splits words at ``:`` and ``=`` (``COMP_WORDBREAKS``), so it hands Click
``status`` ``:`` ``to`` for ``status:to``, ``DBLP`` ``:`` ``conf/x`` for a citation
key ``DBLP:conf/x`` and ``--tag`` ``=`` ``ml`` for ``--tag=ml``, while readline
replaces only the text after the last colon. :class:`BashComplete` joins such words
again before Click parses them, so the callbacks always see whole words, as with zsh
and fish, and cuts from each candidate the part up to that colon
(tests/test_completion.py checks it in an interactive bash).

The commonest requests, a REF or TAG positional argument in bash, are answered
before Click is imported (:mod:`readinglist.cli._fast`, with the same word joining
and look-up); :func:`positional_completions` derives which positional argument of
which command completes keys or tags from the parameters' ``shell_complete`` here,
and ``python -m readinglist.cli._complete`` writes it to
``cli/_completion_table.py`` for that path.
"""

from __future__ import annotations

from typing import Any

import click
from click import shell_completion
from click.shell_completion import CompletionItem, ShellComplete

from readinglist.cli._fast import bash_prefix, cut_bash_prefix, library_values, rejoin_bash_words


def citation_keys(ctx: click.Context, prefix: str) -> list[str]:
    """Return the library's citation keys and aliases starting with ``prefix`` ([] on
    any problem; :func:`readinglist.cli._fast.library_values`)."""
    return library_values(ctx.find_root().params.get("db"), "keys", prefix)


def tag_names(ctx: click.Context, prefix: str) -> list[str]:
    """Return the library's tag names starting with ``prefix`` (case-insensitive; [] on
    any problem)."""
    return library_values(ctx.find_root().params.get("db"), "tags", prefix)


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
    from readinglist.query import vocabulary
    from readinglist.records import STATUSES

    fixed = {
        "status": STATUSES,
        "priority": vocabulary.PRIORITY_VALUES,
        "has": vocabulary.HAS_VALUES,
        "is": vocabulary.IS_VALUES,
    }
    if field in fixed:
        return [v for v in fixed[field] if v.startswith(prefix.lower())]
    if field == "tag":
        return tag_names(ctx, prefix)
    if field == "key":
        return citation_keys(ctx, prefix)
    return []


def query_word_completions(ctx: click.Context, word: str) -> list[Any]:
    """Complete one query word: a field name (``sta`` -> ``status:``), then its value
    (``status:to`` -> ``status:to-read``, ``tag:m`` -> ``tag:ml``, ``key:va`` -> keys).

    Leading ``-`` (negation) and ``(`` (grouping) are kept; free text gets nothing.
    The field names and fixed values are those of :mod:`readinglist.query.vocabulary`
    (imported alone: the query package's compiler would import SQLAlchemy, 0.4 s on a
    key press); [] when it cannot be imported.
    """
    try:
        from readinglist.query import vocabulary
    except Exception:
        return []
    body = word.lstrip("-(")
    lead = word[: len(word) - len(body)]
    name, colon, value = body.partition(":")
    if not colon:
        return [
            CompletionItem(f"{lead}{field}:", help=description)
            for field, description in vocabulary.FIELDS.items()
            if field.startswith(body.lower())
        ]
    return [CompletionItem(f"{lead}{name}:{v}") for v in _values(ctx, name.lower(), value)]


def complete_query(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Complete a word of a QUERY argument (see :func:`query_word_completions`)."""
    return query_word_completions(ctx, incomplete)


def complete_query_option(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Complete the value of ``-q QUERY``: its last space-separated word, as a QUERY word.

    ``-q "status:read tag:m"`` offers ``status:read tag:ml`` (the earlier words kept),
    for shells that complete inside a quoted word.
    """
    head, space, last = incomplete.rpartition(" ")
    return [
        CompletionItem(head + space + item.value, help=item.help)
        for item in query_word_completions(ctx, last)
    ]


def complete_path(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Let the shell complete file names (Click's ``file`` completion type)."""
    return [CompletionItem(incomplete, type="file")]


class _Quiet(ShellComplete):
    """A shell class whose answer is empty, never a traceback, when anything fails."""

    def complete(self) -> str:
        try:
            return super().complete()
        except Exception:  # the prompt must stay usable; the shell shows nothing
            return ""


class BashComplete(_Quiet, shell_completion.BashComplete):
    """Click's bash completion, with the words bash split at ``:`` and ``=`` joined again
    (see the module and :func:`rejoin_bash_words`)."""

    #: What bash does not replace: the joined word's text before bash's own word.
    _typed: str = ""

    def get_completion_args(self) -> tuple[list[str], str]:
        args, incomplete = super().get_completion_args()
        joined = rejoin_bash_words([*args, incomplete])
        whole = joined[-1]
        # readline replaces the text after the last colon: bash's word when that is
        # text ("vi" of "tag:vi"), nothing when bash's word is the colon ("tag:").
        self._typed = bash_prefix(whole, incomplete)
        return joined[:-1], whole

    def get_completions(self, args: list[str], incomplete: str) -> list[CompletionItem]:
        items = super().get_completions(args, incomplete)
        typed = self._typed
        if not typed:
            return items
        cut: list[CompletionItem] = []
        for item in items:
            if item.type != "plain":
                cut.append(item)
            elif (value := cut_bash_prefix(str(item.value), typed)) is not None:
                cut.append(CompletionItem(value, type=item.type, help=item.help))
        return cut


class ZshComplete(_Quiet, shell_completion.ZshComplete):
    """Click's zsh completion; nothing instead of a traceback."""


class FishComplete(_Quiet, shell_completion.FishComplete):
    """Click's fish completion; nothing instead of a traceback."""


def register_shells() -> None:
    """Install :class:`BashComplete`, :class:`ZshComplete` and :class:`FishComplete` in
    place of Click's classes of the same names (``click.shell_completion.add_completion_class``);
    the ``*_source`` scripts stay Click's."""
    for cls in (BashComplete, ZshComplete, FishComplete):
        shell_completion.add_completion_class(cls)


def positional_completions(group: click.Group) -> dict[str, tuple[tuple[int, str | None], ...]]:
    """For every command of ``group``'s tree (``"show"``, ``"tag add"``) with a positional
    argument completed by :func:`complete_ref` or :func:`complete_tag`: its positional
    arguments in order, each as ``(nargs, "keys" | "tags" | None)``."""
    kinds = {complete_ref: "keys", complete_tag: "tags"}
    table: dict[str, tuple[tuple[int, str | None], ...]] = {}

    def walk(command: click.Command, path: str) -> None:
        arguments = [p for p in command.params if isinstance(p, click.Argument)]
        found = tuple(
            (p.nargs, kinds.get(p._custom_shell_complete))  # type: ignore[arg-type]
            for p in arguments
        )
        if any(kind for _, kind in found):
            table[path] = found
        if isinstance(command, click.Group):
            for name in command.list_commands(click.Context(command)):
                sub = command.get_command(click.Context(command), name)
                if sub is not None:
                    walk(sub, f"{path} {name}".strip())

    walk(group, "")
    return table


def table_source(group: click.Group) -> str:
    """The text of ``cli/_completion_table.py`` for ``group`` (:func:`positional_completions`)."""
    lines = [
        '"""Which positional argument of which command completes citation keys or tags.',
        "",
        "Generated from the Click commands by ``python -m readinglist.cli._complete``",
        "(:func:`readinglist.cli._complete.positional_completions`); do not edit by hand:",
        "tests/test_completion.py fails when it differs from the commands. Read by",
        ":mod:`readinglist.cli._fast` to answer TAB before Click is imported.",
        '"""',
        "",
        "#: Command path -> its positional arguments in order: (nargs, what they complete).",
        "POSITIONALS: dict[str, tuple[tuple[int, str | None], ...]] = {",
    ]
    for path, params in sorted(positional_completions(group).items()):
        lines.append(f"    {path!r}: {params!r},")
    lines.append("}")
    return "\n".join(lines).replace("'", '"') + "\n"


if __name__ == "__main__":  # python -m readinglist.cli._complete: rewrite the table
    from pathlib import Path

    from readinglist.cli import _complete  # the module the commands use, not __main__
    from readinglist.cli._root import cli

    table = Path(__file__).with_name("_completion_table.py")
    table.write_text(_complete.table_source(cli), encoding="utf-8")
