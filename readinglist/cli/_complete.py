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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
from click import shell_completion
from click.shell_completion import CompletionItem, ShellComplete

#: Candidates offered at most per completion (shells page longer lists anyway).
LIMIT = 200


def _from_library(
    ctx: click.Context, fetch: Callable[[str, str, int], list[str]], prefix: str
) -> list[str]:
    """Run ``fetch(url, prefix, LIMIT)`` (a :mod:`readinglist.lookup` function) on the
    command's library; [] on any problem. No SQLAlchemy: see :mod:`readinglist.lookup`."""
    try:
        from readinglist.config import Settings

        root = ctx.find_root()
        url = Settings.resolve(root.params.get("db")).database_url
        return fetch(url, prefix, LIMIT)
    except Exception:  # completion must never crash the shell's prompt
        return []


def citation_keys(ctx: click.Context, prefix: str) -> list[str]:
    """Return the library's citation keys and aliases starting with ``prefix``."""
    from readinglist import lookup

    return _from_library(ctx, lookup.keys_starting, prefix)


def tag_names(ctx: click.Context, prefix: str) -> list[str]:
    """Return the library's tag names starting with ``prefix`` (case-insensitive)."""
    from readinglist import lookup

    return _from_library(ctx, lookup.tags_starting, prefix)


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


def rejoin_bash_words(words: list[str]) -> list[str]:
    """Undo bash's splitting at ``:`` and ``=`` (``COMP_WORDBREAKS``) of ``words``, the
    words up to and including the one being completed.

    A word made only of colons is glued to the word before it and the non-empty word
    after it (``[tag, :, ml]`` -> ``[tag:ml]``); a ``=`` between an option and its
    value is dropped (``[--tag, =, ml]`` -> ``[--tag, ml]``), except as the last word,
    which Click reads as an empty value. A colon typed on its own between spaces
    looks the same to completion and is joined too.
    """
    joined: list[str] = []
    glue = False
    for index, word in enumerate(words):
        if word and joined and set(word) == {":"}:
            joined[-1] += word
            glue = True
        elif glue and word:
            joined[-1] += word
            glue = False
        elif word == "=" and joined and joined[-1].startswith("-") and index < len(words) - 1:
            glue = False
        else:
            joined.append(word)
            glue = False
    return joined


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
        replaced = "" if incomplete and set(incomplete) == {":"} else incomplete
        self._typed = whole[: len(whole) - len(replaced)] if whole.endswith(replaced) else ""
        return joined[:-1], whole

    def get_completions(self, args: list[str], incomplete: str) -> list[CompletionItem]:
        items = super().get_completions(args, incomplete)
        typed = self._typed
        if not typed:
            return items
        return [
            CompletionItem(item.value[len(typed) :], type=item.type, help=item.help)
            if item.type == "plain"
            else item
            for item in items
            if item.type != "plain" or str(item.value).lower().startswith(typed.lower())
        ]


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
