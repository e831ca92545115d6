"""``readinglist edit`` (a paper as a BibTeX entry in your editor) and ``readinglist title``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from readinglist import citekeys, render
from readinglist.cli._app import AppContext, edit_text, pass_app
from readinglist.cli._complete import complete_ref
from readinglist.errors import InvalidInput, ReadingListError

if TYPE_CHECKING:
    from readinglist.records import PaperRecord

#: Prefix of the lines ``edit`` puts above a buffer it re-opens; they are removed again.
MARK = "% readinglist: "

#: How many times `edit` re-opens the editor on a broken entry before giving up (exit 5).
MAX_EDIT_ATTEMPTS = 5


def strip_marks(text: str) -> str:
    """Return ``text`` without the message lines :func:`with_marks` added."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(MARK))


def with_marks(problems: list[tuple[int | None, str]], body: str) -> tuple[str, list[str]]:
    """Return ``body`` with a comment line per problem above it, and the messages.

    Line numbers count the lines of ``body``, i.e. from the first line below the
    comments (the reader's own messages count that way too).
    """
    messages = [f"line {line}: {m}" if line is not None else m for line, m in problems]
    lines = [
        *(f"{MARK}{m}" for m in messages),
        f"{MARK}(lines counted from below these comments) fix the entry and save; "
        "save an empty buffer to cancel",
    ]
    return "\n".join(lines) + "\n" + body, messages


def parse_entry(text: str) -> tuple[PaperRecord | None, list[tuple[int | None, str]]]:
    """Read the one BibTeX entry of an edit buffer: ``(record, [])`` or ``(None, problems)``.

    Problems are ``(line in text or None, message)``. Every problem the reader
    reports counts (a repeated field would silently lose the user's second value);
    the buffer must hold exactly one entry, with a usable citation key.
    """
    from readinglist.formats import bibtex  # bibtexparser: only when a command runs

    result = bibtex.read(text, "<edit>")
    problems: list[tuple[int | None, str]] = [(p.line, p.message) for p in result.problems]
    if not problems and len(result.records) != 1:
        problems.append((None, f"the buffer must hold one entry, not {len(result.records)}"))
    if problems:
        return None, problems
    record = result.records[0]
    if not record.citekey:
        return None, [(record.line, "the entry has no citation key (write it back to keep it)")]
    if not citekeys.is_valid_key(record.citekey):
        why = f"{record.citekey!r} is not a usable citation key ({citekeys.KEY_RULE})"
        return None, [(record.line, why)]
    return record, []


@click.command("edit")
@click.argument("ref", metavar="REF", shell_complete=complete_ref)
@pass_app
def edit_command(app: AppContext, ref: str) -> None:
    """Edit a paper as a BibTeX entry in your editor.

    The editor is $VISUAL, else $EDITOR, else vi. What you change is applied when you save and close; an unchanged or unsaved
    buffer changes nothing, and a syntax error re-opens the editor with the
    message (saving it again unfixed gives up, exit 5). The citation key stays unless you change it; a new key works like
    `rekey` (the old one stays as an alias) and is refused when in use (exit 4).

    \b
    Examples:
        readinglist edit spar2026
        VISUAL="code --wait" readinglist edit spar2026
    """
    from readinglist import library
    from readinglist.formats import bibtex

    with app.session(write=False) as session:
        paper = library.resolve(session, ref)
        key = paper.citekey
        original = bibtex.write([library.to_record(paper, with_notes=False)], dialect="bibtex")
    before, problems = parse_entry(original)
    if before is None:
        raise ReadingListError(f"cannot re-read {key} as BibTeX: {problems}")
    after = _edit_until_valid(app, key, original)
    if after is None:
        return
    with app.session() as session:
        paper = library.resolve(session, key)
        if after.citekey and after.citekey != before.citekey:
            library.rekey(session, paper, after.citekey)
        changed = library.update_paper(session, paper, before, after)
        new_key = paper.citekey
    if new_key != key:
        changed.insert(0, f"key (was {key}, kept as an alias)")
    render.info(f"{new_key}: changed {', '.join(changed)}" if changed else f"{key}: unchanged")


def _edit_until_valid(app: AppContext, key: str, original: str) -> PaperRecord | None:
    """Open ``original`` (the entry of ``key``) in the editor until it reads as one entry.

    Returns the edited record, or None (after saying why on stderr) when the buffer
    was not saved, saved empty or saved unchanged. A broken entry re-opens the editor
    with its problems as comment lines; saved again unfixed, or still broken after
    :data:`MAX_EDIT_ATTEMPTS`, it raises InvalidInput (exit 5).
    """
    buffer, rejected, attempt = original, None, 0
    while True:
        attempt += 1
        edited = edit_text(app, buffer, ".bib")
        if edited is None:
            render.info(f"{key}: not saved; nothing changed")
            return None
        body = strip_marks(edited)
        if not body.strip():
            render.info(f"{key}: empty buffer; nothing changed")
            return None
        if body.strip() == original.strip():
            render.info(f"{key}: unchanged")
            return None
        after, problems = parse_entry(body)
        if after is not None:
            return after
        buffer, messages = with_marks(problems, body)
        if body == rejected or attempt == MAX_EDIT_ATTEMPTS:
            # Saved again without a fix, or an editor that never fixes it: stop.
            raise InvalidInput(f"{key}: {messages[0]}; nothing changed")
        rejected = body
        for message in messages:
            render.warn(f"{key}: {message}; re-opening the editor")


@click.command("title")
@click.argument("ref", metavar="REF", shell_complete=complete_ref)
@click.argument("title", metavar='"NEW TITLE"')
@pass_app
def title_command(app: AppContext, ref: str, title: str) -> None:
    """Set a paper's title.

    A provisional title (one an importer made up) becomes a real one.

    \b
    Examples:
        readinglist title spar2026 "Support-Preserving Action Rectification"
    """
    from readinglist import library

    with app.session() as session:
        paper = library.resolve(session, ref)
        library.set_title(session, paper, title)
        key, new = paper.citekey, paper.title
    render.info(f"{key}: title set to {new!r}")
