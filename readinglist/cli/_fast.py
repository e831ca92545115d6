"""TAB completion of keys and tags in bash before Click is imported (issue 17, item 4).

Completing ``readinglist show va<TAB>`` through Click costs Click's import (~40 ms
CPU) and the command module's (``tag`` imports the record vocabulary: ~30 ms more)
before the ~1 ms look-up. :func:`answer_bash` answers the commonest requests, a REF or
TAG positional argument in bash, with the standard library alone and returns False for
everything else (options, ``-q``, queries, choices, zsh and fish, quoted words), which
``readinglist.cli.main`` then hands to Click.

Which positional argument completes what is not written here: it is
:data:`readinglist.cli._completion_table.POSITIONALS`, generated from the Click
parameters whose ``shell_complete`` is ``complete_ref`` or ``complete_tag``
(``python -m readinglist.cli._complete`` rewrites it; ``tests/test_completion.py``
fails when it is stale). The rules both paths share live here, without Click: bash's
word splitting undone (:func:`rejoin_bash_words`, :func:`bash_prefix`,
:func:`cut_bash_prefix`) and the look-up on the command's library
(:func:`library_values`); ``cli/_complete.py`` imports them.
"""

from __future__ import annotations

import os

#: Candidates offered at most per completion (shells page longer lists anyway).
LIMIT = 200

#: The characters shlex (Click's ``split_arg_string``) treats as white space; a request
#: with a quote or a backslash goes to Click, whose shlex reading is the one home.
_BLANKS = " \t\r\n"
_QUOTING = "\"'\\"


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


def bash_prefix(whole: str, incomplete: str) -> str:
    """What readline keeps of the joined word ``whole`` when bash's own word was
    ``incomplete``: the text before it (``tag:`` of ``tag:vi``; all of ``tag:`` when
    bash's word is the colon), "" when ``whole`` does not end with it."""
    replaced = "" if incomplete and set(incomplete) == {":"} else incomplete
    return whole[: len(whole) - len(replaced)] if whole.endswith(replaced) else ""


def cut_bash_prefix(value: str, typed: str) -> str | None:
    """``value`` without ``typed``, what bash must put after the text it keeps
    (:func:`bash_prefix`); None when ``value`` does not start with ``typed``
    (case-insensitive), so bash cannot offer it."""
    if not value.lower().startswith(typed.lower()):
        return None
    return value[len(typed) :]


def library_values(db: str | None, what: str, prefix: str) -> list[str]:
    """Up to :data:`LIMIT` citation keys and aliases (``what="keys"``) or tag names
    (``"tags"``) starting with ``prefix`` in the library ``--db`` names (``db``; None:
    ``READINGLIST_DB`` or the default, as ``config.Settings`` resolves it); [] on any
    problem, since completion must never crash the shell's prompt."""
    try:
        from readinglist import lookup
        from readinglist.config import Settings

        url = Settings.resolve(db).database_url
        fetch = lookup.keys_starting if what == "keys" else lookup.tags_starting
        return fetch(url, prefix, LIMIT)
    except Exception:
        return []


def _words(line: str) -> list[str]:
    """``line`` split at shlex's white space (no quotes in it)."""
    for blank in _BLANKS[1:]:
        line = line.replace(blank, " ")
    return [word for word in line.split(" ") if word]


def positional_kind(args: list[str]) -> str | None:
    """``"keys"`` or ``"tags"`` when the word after ``args`` (the joined words after the
    program name) is a REF or TAG positional argument, by the generated table; None
    when the table does not say (an option, a group, a choice, a query...)."""
    from readinglist.cli._completion_table import POSITIONALS

    if any(word.startswith("-") for word in args):
        return None  # options (and their values) are Click's to parse
    for length in (1, 2):
        params = POSITIONALS.get(" ".join(args[:length]))
        if params is not None and len(args) >= length:
            break
    else:
        return None
    filled = len(args) - length
    for position, (nargs, kind) in enumerate(params):
        if nargs == -1:
            # Variadic: the rest of the words, when it is the last argument.
            return kind if position == len(params) - 1 else None
        if filled < nargs:
            return kind
        filled -= nargs
    return None


def answer_bash(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """The text to print for a bash completion request (``COMP_WORDS``, ``COMP_CWORD``)
    when it completes a REF or TAG positional argument; None when Click must answer."""
    line = environ.get("COMP_WORDS")
    cword_text = environ.get("COMP_CWORD", "")
    if line is None or not cword_text.isdigit() or any(c in line for c in _QUOTING):
        return None
    cwords = _words(line)
    cword = int(cword_text)
    incomplete = cwords[cword] if cword < len(cwords) else ""
    joined = rejoin_bash_words([*cwords[1:cword], incomplete])
    args, whole = joined[:-1], joined[-1]
    if whole.startswith("-") or "=" in whole:
        return None
    kind = positional_kind(args)
    if kind is None:
        return None
    typed = bash_prefix(whole, incomplete)
    values = [cut_bash_prefix(value, typed) for value in library_values(None, kind, whole)]
    return "\n".join(f"plain,{value}" for value in values if value is not None)
