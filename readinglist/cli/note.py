"""``readinglist note ...``: Markdown notes on papers (add, list, edit, rm)."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, PositiveInt, edit_text, json_option, pass_app
from readinglist.cli._complete import complete_ref
from readinglist.text import plural


@click.group("note")
def note_group() -> None:
    """Add, list, edit and remove Markdown notes on papers.

    Notes carry their creation and update times (UTC); `show` prints them, and
    `export markdown --notes` and `export bibtex --annote` write them.

    \b
    Examples:
        readinglist note add spar2026 -m "Compare with IQL on D4RL."
        readinglist note list spar2026
    """


@note_group.command("add")
@click.argument("ref", metavar="REF", shell_complete=complete_ref)
@click.option(
    "-m",
    "--message",
    "messages",
    multiple=True,
    metavar="TEXT",
    help="The note's text (repeatable: paragraphs); without it $VISUAL/$EDITOR opens.",
)
@click.option(
    "--shared",
    is_flag=True,
    help="Every reader of the library sees the note (default: only you, the current reader).",
)
@pass_app
def note_add_command(app: AppContext, ref: str, messages: tuple[str, ...], shared: bool) -> None:
    """Add a Markdown note to a paper and print its id.

    Without -m your editor opens; an empty buffer (or one not saved) adds nothing.
    A note is private to the current reader (--reader) unless --shared.

    \b
    Examples:
        readinglist note add spar2026 -m "Residual policy; check the D4RL table."
        readinglist note add spar2026
        readinglist --reader ana note add spar2026 --shared -m "For Thursday."
    """
    # Core statements on a Connection (issue 17: neither the ORM nor the models).
    from readinglist import render
    from readinglist.library.notes import insert_note
    from readinglist.library.refs import citekey_of, resolve_id

    with app.connection(write=False) as connection:
        key = citekey_of(connection, resolve_id(connection, ref))
    if messages:
        text = "\n\n".join(messages)
    else:
        edited = edit_text(app, "", ".md", instead="-m TEXT")
        if edited is None or not edited.strip():
            render.info("empty note; nothing added")
            return
        text = edited
    with app.connection() as connection:
        note_id = insert_note(connection, resolve_id(connection, ref), text, shared=shared)
    render.echo(str(note_id))
    render.info(f"added {'shared ' if shared else ''}note {note_id} to {key}")


@note_group.command("list")
@click.argument("ref", metavar="REF", shell_complete=complete_ref)
@json_option
@pass_app
def note_list_command(app: AppContext, ref: str, as_json: bool) -> None:
    """List the notes of a paper, oldest first, with their ids and times.

    JSON: a list of {"id", "key", "text", "created", "updated"} (ISO 8601 UTC).

    \b
    Examples:
        readinglist note list spar2026
        readinglist note list spar2026 --json
    """
    from readinglist import library, render

    with app.session(write=False) as session:
        paper = library.resolve(session, ref)
        rows = [
            {
                "id": n.id,
                "key": paper.citekey,
                "text": n.body,
                "created": render.iso(n.created_at),
                "updated": render.iso(n.updated_at),
            }
            for n in library.notes_of(session, paper)
        ]
    if as_json:
        render.echo_json(rows)
        return
    blocks = []
    for row in rows:
        edited = f" (edited {row['updated']})" if row["updated"] != row["created"] else ""
        body = "\n".join(
            f"    {line}" if line.strip() else "" for line in str(row["text"]).splitlines()
        )
        blocks.append(f"[{row['id']}] {row['created']}{edited}\n{body}")
    if blocks:
        render.echo("\n\n".join(blocks))


@note_group.command("edit")
@click.argument("note_id", type=PositiveInt(), metavar="ID")
@click.option(
    "-m",
    "--message",
    "messages",
    multiple=True,
    metavar="TEXT",
    help="The new text (repeatable: paragraphs); without it $VISUAL/$EDITOR opens.",
)
@pass_app
def note_edit_command(app: AppContext, note_id: int, messages: tuple[str, ...]) -> None:
    """Edit a note (by the id `note list` shows) in your editor, or replace it with -m.

    An unchanged or unsaved buffer changes nothing; an empty one is refused (use
    `note rm` to delete a note). An unknown ID exits 3.

    \b
    Examples:
        readinglist note edit 3
        readinglist note edit 3 -m "Read it: the ablation in section 5 is the point."
    """
    from readinglist import library, render

    with app.session(write=False) as session:
        body = library.get_note(session, note_id).body
    if messages:
        text = "\n\n".join(messages)
    else:
        edited = edit_text(app, body + "\n", ".md", instead="-m TEXT")
        if edited is None or edited.strip() == body.strip():
            render.info(f"note {note_id} unchanged")
            return
        text = edited
    with app.session() as session:
        changed = library.update_note(session, library.get_note(session, note_id), text)
    render.info(f"updated note {note_id}" if changed else f"note {note_id} unchanged")


@note_group.command("rm")
@click.argument("note_ids", nargs=-1, required=True, type=PositiveInt(), metavar="ID...")
@pass_app
def note_rm_command(app: AppContext, note_ids: tuple[int, ...]) -> None:
    """Delete notes by id. An unknown ID changes nothing (exit 3).

    \b
    Examples:
        readinglist note rm 3
        readinglist note rm 3 4
    """
    from readinglist import library, render

    with app.session() as session:
        notes = library.get_notes(session, note_ids)
        described = [f"{n.id} ({n.paper.citekey})" for n in notes]
        library.delete_notes(session, notes)
    render.info(f"removed {plural(len(described), 'note')} {', '.join(described)}")
