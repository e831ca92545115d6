"""``note add|list|edit|rm``: Markdown notes with times, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from helpers import search_text, seed

from readinglist.records import PaperRecord

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def two(db_url: str) -> None:
    seed(
        db_url,
        PaperRecord(citekey="spar2026", title="Support-Preserving Action Rectification"),
        PaperRecord(citekey="safeseek2026", title="SafeSeek"),
    )


def editor(tmp_path: Path, text: str | None, name: str = "editor.py") -> dict[str, Any]:
    """Environment whose $EDITOR writes ``text`` into the file (None: leaves it unsaved).

    The editor also copies what it was given to ``<name>.seen``.
    """
    script = tmp_path / name
    seen = tmp_path / f"{name}.seen"
    body = "import shutil, sys\n"
    body += f"shutil.copy(sys.argv[1], {str(seen)!r})\n"
    if text is not None:
        body += f"open(sys.argv[1], 'w', encoding='utf-8').write({text!r})\n"
    script.write_text(body, encoding="utf-8")
    return {"EDITOR": f"{sys.executable} {script}", "VISUAL": None}


def notes(invoke: Any, key: str) -> list[dict[str, Any]]:
    result = invoke("note", "list", key, "--json")
    assert result.exit_code == 0, result.stderr
    data: list[dict[str, Any]] = json.loads(result.stdout)
    return data


def test_note_add_with_message_prints_the_id(invoke, db_url) -> None:
    two(db_url)
    start = datetime.now(UTC).replace(microsecond=0)
    result = invoke("note", "add", "spar2026", "-m", "Compare with *IQL*.", "-m", "Then D4RL.")
    assert result.exit_code == 0, result.stderr
    note_id = int(result.stdout)
    assert result.stderr == f"added note {note_id} to spar2026\n"
    [note] = notes(invoke, "spar2026")
    assert note == {
        "id": note_id,
        "key": "spar2026",
        "text": "Compare with *IQL*.\n\nThen D4RL.",
        "created": note["created"],
        "updated": note["created"],
    }
    assert ISO.match(note["created"])
    assert datetime.fromisoformat(note["created"]) >= start
    assert notes(invoke, "safeseek2026") == []
    # a private note is not in the index every reader searches; its author finds it
    assert "iql" not in search_text(db_url, "spar2026").split()
    assert invoke("list", "-k", "iql then d4rl").stdout.split() == ["spar2026"]
    shared = invoke("note", "add", "safeseek2026", "--shared", "-m", "Read with Kim.")
    assert shared.exit_code == 0
    assert search_text(db_url, "safeseek2026").endswith("read with kim")


def test_notes_are_shown_by_show_and_listed_for_people(invoke, db_url) -> None:
    two(db_url)
    invoke("note", "add", "spar2026", "-m", "first")
    invoke("note", "add", "spar2026", "-m", "line one\n\nline two")
    listed = notes(invoke, "spar2026")
    assert [n["text"] for n in listed] == ["first", "line one\n\nline two"]
    shown = json.loads(invoke("show", "spar2026", "--json").stdout)["notes"]
    assert shown == [
        {"text": n["text"], "created": n["created"], "updated": n["updated"]} for n in listed
    ]
    first, second = listed
    assert invoke("note", "list", "spar2026").stdout == (
        f"[{first['id']}] {first['created']}\n    first\n\n"
        f"[{second['id']}] {second['created']}\n    line one\n\n    line two\n"
    )
    human = invoke("show", "spar2026").stdout
    assert "Notes:\n" in human
    assert "    line two" in human


def test_note_add_in_the_editor(invoke, db_url, tmp_path) -> None:
    two(db_url)
    result = invoke("note", "add", "safeseek2026", env=editor(tmp_path, "# Idea\n\nUse *it*.\n"))
    assert result.exit_code == 0, result.stderr
    assert [n["text"] for n in notes(invoke, "safeseek2026")] == ["# Idea\n\nUse *it*."]


def test_an_empty_or_unsaved_editor_buffer_adds_nothing(invoke, db_url, tmp_path) -> None:
    two(db_url)
    result = invoke("note", "add", "spar2026", env=editor(tmp_path, "  \n\n"))
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        "empty note; nothing added\n",
    )
    result = invoke("note", "add", "spar2026", env=editor(tmp_path, None, "quit.py"))
    assert (result.exit_code, result.stderr) == (0, "empty note; nothing added\n")
    assert notes(invoke, "spar2026") == []
    result = invoke("note", "add", "spar2026", "-m", "   ")
    assert (result.exit_code, result.stderr) == (2, "Error: the note is empty; nothing added\n")


def test_note_edit(invoke, db_url, tmp_path) -> None:
    two(db_url)
    note_id = int(invoke("note", "add", "spar2026", "-m", "draft").stdout)
    [before] = notes(invoke, "spar2026")
    result = invoke("note", "edit", str(note_id), env=editor(tmp_path, "final text\n"))
    assert (result.exit_code, result.stderr) == (0, f"updated note {note_id}\n")
    assert (tmp_path / "editor.py.seen").read_text(encoding="utf-8") == "draft\n"
    [after] = notes(invoke, "spar2026")
    assert after["text"] == "final text"
    assert after["created"] == before["created"]
    assert after["updated"] >= before["updated"]
    assert invoke("list", "-k", "final text").stdout.split() == ["spar2026"]
    assert invoke("list", "-k", "draft").stdout.split() == []
    result = invoke("note", "edit", str(note_id), "-m", "by option")
    assert (result.exit_code, result.stderr) == (0, f"updated note {note_id}\n")
    assert notes(invoke, "spar2026")[0]["text"] == "by option"


def test_note_edit_unchanged_empty_and_unknown(invoke, db_url, tmp_path) -> None:
    two(db_url)
    note_id = int(invoke("note", "add", "spar2026", "-m", "keep").stdout)
    result = invoke("note", "edit", str(note_id), env=editor(tmp_path, "keep\n"))
    assert (result.exit_code, result.stderr) == (0, f"note {note_id} unchanged\n")
    result = invoke("note", "edit", str(note_id), "-m", "")
    assert (result.exit_code, result.stderr) == (
        2,
        f"Error: the new text of note {note_id} is empty; nothing changed\n",
    )
    result = invoke("note", "edit", "99999")
    assert (result.exit_code, result.stderr) == (3, "Error: no note with id 99999\n")
    assert result.stdout == ""
    assert notes(invoke, "spar2026")[0]["text"] == "keep"


def test_note_rm(invoke, db_url) -> None:
    two(db_url)
    first = int(invoke("note", "add", "spar2026", "-m", "one").stdout)
    second = int(invoke("note", "add", "safeseek2026", "-m", "two").stdout)
    result = invoke("note", "rm", str(first), "424242")
    assert (result.exit_code, result.stderr) == (
        3,
        "Error: no note with id 424242; nothing changed\n",
    )
    assert len(notes(invoke, "spar2026")) == 1
    result = invoke("note", "rm", str(first), str(second))
    assert (result.exit_code, result.stderr) == (
        0,
        f"removed notes {first} (spar2026), {second} (safeseek2026)\n",
    )
    assert notes(invoke, "spar2026") == notes(invoke, "safeseek2026") == []
    assert "one" not in search_text(db_url, "spar2026").split()


def test_note_commands_unknown_ref(invoke, db_url, tmp_path) -> None:
    two(db_url)
    env = editor(tmp_path, "never used")
    for args in (("note", "add", "nope2020"), ("note", "list", "nope2020")):
        result = invoke(*args, env=env)
        assert (result.exit_code, result.stderr) == (
            3,
            "Error: no paper with citation key 'nope2020'\n",
        )
    assert not (tmp_path / "editor.py.seen").exists()


def test_notes_are_exported(invoke, db_url) -> None:
    two(db_url)
    invoke("note", "add", "spar2026", "-m", "A note for the annote field.")
    result = invoke("export", "bibtex", "--annote")
    assert result.exit_code == 0, result.stderr
    assert "A note for the annote field." in result.stdout
    assert "A note for the annote field." not in invoke("export", "bibtex").stdout
    result = invoke("export", "markdown", "--notes")
    assert result.exit_code == 0, result.stderr
    assert "A note for the annote field." in result.stdout
