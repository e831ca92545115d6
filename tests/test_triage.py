"""The triage loop: its logic with a scripted terminal (SQLite and PostgreSQL), and the
real command in a pseudo-terminal (pexpect, SQLite file): quit and resume, undo, kill -9."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import SQLITE_ONLY

from readinglist import triage
from readinglist.records import NoteRecord, PaperRecord, Person

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "icml2026-abstracts.txt"
BINARY = Path(sys.executable).parent / "readinglist"
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


# --- pure parts -----------------------------------------------------------------------------


def test_progress_line() -> None:
    assert triage.progress_line(12, 19, ["to-read"] * 7 + ["skipped"] * 4 + ["new"] * 8) == (
        "12/19, 7 to read, 4 skipped"
    )
    assert triage.progress_line(3, 5, ["reading", "read", "read", "new", "new"]) == (
        "3/5, 0 to read, 0 skipped, 1 reading, 2 read"
    )


def test_legend_fits_the_width() -> None:
    assert triage.legend(200) == triage.LEGENDS[0]
    assert triage.legend(100) == (
        "t:to-read s:skip r:reading d:read h/m/l:prio a:tag n:note u:undo b:back v:list /:find "
        "q:quit ?:more"
    )
    assert triage.legend(80) == (
        "t:to-read s:skip r:reading d:read a:tag u:undo v:list /:find q:quit ?:more"
    )
    assert triage.legend(44) == "t s r d h m l a n e o u b v / w x q  ?:help"
    assert triage.legend(10) == "t s r d …"
    for width in (10, 30, 50, 80, 100, 120, 149, 200):
        assert len(triage.legend(width)) < width
    # every key of the help is in the shortest legend
    keys = {k for key, _ in triage.KEY_HELP for k in (key.split("/") if key[1:] else [key])}
    assert keys - {"space", "j", "k", "?"} <= set(triage.LEGENDS[-1].split())


def test_query_sets_status() -> None:
    assert triage.query_sets_status("status:to-read tag:x")
    assert triage.query_sets_status("tag:x -status:read")
    assert not triage.query_sets_status("tag:status-ish")
    assert not triage.query_sets_status("")


def test_card() -> None:
    record = PaperRecord(
        citekey="spar2026",
        title="SPAR: Support-Preserving Action Rectification",
        title_provisional=True,
        venue="ICML",
        year=2026,
        authors=(Person("Zhang", "Wei"), Person("Berg", "Jan", von="van der")),
        doi="10.1/x",
        arxiv="2601.00001",
        url="https://example.org/spar",
        code_url="https://github.com/x/spar",
        status="new",
        priority="high",
        tags=("rl", "ml/x"),
        notes=(NoteRecord("n"),),
        abstract=r"We propose \textbf{S}upport-\textbf{P}reserving rectification, which "
        r"reframes global learning as local residual rectification; gains of 20\%.",
    )
    text = triage.card(record, progress="1/3, 0 to read, 0 skipped", width=60, message="hi")
    assert text == (
        "1/3, 0 to read, 0 skipped\n"
        "\n"
        "ICML · 2026\n"
        "SPAR: Support-Preserving Action Rectification (provisional)\n"
        "Zhang, Wei; van der Berg, Jan\n"
        "  https://example.org/spar\n"
        "  https://doi.org/10.1/x\n"
        "  https://arxiv.org/abs/2601.00001\n"
        "  https://github.com/x/spar\n"
        "spar2026 | status new | priority high | tags rl, ml/x\n"
        "1 note\n"
        "\n"
        "We propose Support-Preserving rectification, which reframes\n"
        "global learning as local residual rectification; gains of\n"
        "20%.\n"
        "\n"
        "hi\n"
        "t s r d h m l a n e o u b v / w x q  ?:help"
    )
    bare = triage.card(
        PaperRecord(citekey="k", status="new"), progress="1/1, 0 to read, 0 skipped", width=80
    )
    assert bare.splitlines()[2:7] == [
        "(no title)",
        "(no authors)",
        "k | status new",
        "",
        "(no abstract)",
    ]


# --- the loop with a scripted terminal --------------------------------------------------------


class FakeTerminal:
    """Keys and prompt answers given in advance; screens and launched links recorded.
    When the keys run out it reads EOF (Ctrl-D), which quits."""

    def __init__(self, keys: str | list[str], answers: list[str | None] | None = None) -> None:
        self.keys = list(keys)
        self.answers = list(answers or [])
        self.screens: list[str] = []
        self.prompts: list[str] = []
        self.launched: list[str] = []
        self.defaults: list[str] = []
        self.opens = True
        self.rows = 50
        self.cols = 100
        self.completions: list[list[str]] = []

    def width(self) -> int:
        return self.cols

    def height(self) -> int:
        return self.rows

    def show(self, text: str) -> None:
        self.screens.append(text)

    def getkey(self) -> str:
        if not self.keys:
            raise EOFError
        return self.keys.pop(0)

    def prompt(self, label: str, default: str = "", complete: Any = ()) -> str | None:
        self.prompts.append(label)
        self.defaults.append(default)
        self.completions.append(list(complete))
        return self.answers.pop(0)

    def launch(self, url: str) -> bool:
        self.launched.append(url)
        return self.opens

    def progress(self) -> list[str]:
        return [s.splitlines()[0] for s in self.screens]


@pytest.fixture
def four(engine: Any) -> list[int]:
    """Four new papers (the second with a provisional title and a URL); their ids in order."""
    from readinglist import db, library

    records = [
        PaperRecord(citekey="a2026", title="Alpha", year=2026, venue="ICML"),
        PaperRecord(
            citekey="b2026", title="Beta guess", title_provisional=True, url="https://b.org"
        ),
        PaperRecord(citekey="c2026", title="Gamma"),
        PaperRecord(citekey="d2026", title="Delta"),
    ]
    with db.session_scope(engine) as session:
        library.import_records(session, records, source="seed", fmt="test")
    with db.session_scope(engine) as session:
        return library.triage_queue(session)


def run(engine: Any, ids: list[int], term: FakeTerminal) -> triage.Summary:
    from readinglist import db

    loop = triage.Triage(
        lambda: db.session_scope(engine),
        ids,
        term,
        read_factory=lambda: db.session_scope(engine, write=False),
    )
    return loop.run()


def state(engine: Any) -> dict[str, dict[str, Any]]:
    """key -> status, priority, tags, notes, title, provisional, history [(from, to)]."""
    from readinglist import db, library

    with db.session_scope(engine, write=False) as session:
        out = {}
        for paper in library.all_papers(session):
            out[paper.citekey] = {
                "status": paper.status,
                "priority": paper.priority_name,
                "tags": [t.name for t in paper.tags],
                "notes": [n.body for n in paper.notes],
                "title": (paper.title, paper.title_provisional),
                "history": [(e.from_status, e.to_status) for e in paper.events],
            }
        return out


def test_status_keys_move_on_and_count(engine, four) -> None:
    term = FakeTerminal("tsrd")
    summary = run(engine, four, term)
    assert term.progress() == [
        "1/4, 0 to read, 0 skipped",
        "2/4, 1 to read, 0 skipped",
        "3/4, 1 to read, 1 skipped",
        "4/4, 1 to read, 1 skipped, 1 reading",
        "End of the list: 4/4, 1 to read, 1 skipped, 1 reading, 1 read.",
    ]
    assert {k: v["status"] for k, v in state(engine).items()} == {
        "a2026": "to-read",
        "b2026": "skipped",
        "c2026": "reading",
        "d2026": "read",
    }
    assert state(engine)["d2026"]["history"] == [("new", "read")]
    assert summary.describe() == (
        "triaged 4 papers in this run (1 read, 1 reading, 1 skipped, 1 to-read); "
        "inbox: 4 of 4 decided"
    )


def test_the_card_shows_the_paper_and_the_last_action(engine, four) -> None:
    term = FakeTerminal("t")
    run(engine, four, term)
    first, second = term.screens
    assert first.splitlines()[2:5] == ["ICML · 2026", "Alpha", "(no authors)"]
    assert second.splitlines()[2:4] == ["Beta guess (provisional)", "(no authors)"]
    assert second.splitlines()[-2:] == ["a2026: to-read", triage.legend(100)]


def test_next_without_deciding_and_quit_then_resume(engine, four) -> None:
    from readinglist import db, library

    summary = run(engine, four, FakeTerminal("t jq"))
    assert summary.describe() == (
        "triaged 1 paper in this run (1 to-read); inbox: 1 of 4 decided, 3 still new: "
        "run `readinglist triage` again to go on"
    )
    with db.session_scope(engine, write=False) as session:
        queue = library.triage_queue(session)
    assert queue == four[1:]
    term = FakeTerminal("s")
    run(engine, queue, term)
    assert term.progress()[:2] == ["1/3, 0 to read, 0 skipped", "2/3, 0 to read, 1 skipped"]
    assert [v["status"] for v in state(engine).values()] == ["to-read", "skipped", "new", "new"]


def test_priority_tags_note_and_title_stay_on_the_paper(engine, four) -> None:
    term = FakeTerminal("jhane", ["rl, ml/x rl", "Check the *D4RL* table.", "Beta: the real title"])
    run(engine, four, term)
    assert term.prompts == ["Tags", "Note", "New title"]
    assert term.progress() == ["1/4, 0 to read, 0 skipped"] + ["2/4, 0 to read, 0 skipped"] * 5
    b = state(engine)["b2026"]
    assert (b["status"], b["priority"], b["tags"], b["notes"]) == (
        "new",
        "high",
        ["ml/x", "rl"],
        ["Check the *D4RL* table."],
    )
    assert b["title"] == ("Beta: the real title", False)
    assert [s.splitlines()[-2] for s in term.screens[2:]] == [
        "priority high",
        "tagged rl, ml/x",
        "added note 1",
        "title set",
    ]
    assert term.screens[-1].splitlines()[2] == "Beta: the real title"


def test_undo_restores_each_kind_of_decision(engine, four) -> None:
    from sqlalchemy import select

    from readinglist import db
    from readinglist.models import Tag

    keys = "t" + "h" + "a" + "n" + "e" + "r" + "uuuuu" + "u" + "u"
    term = FakeTerminal(keys, ["x", "a note", "New"])
    run(engine, four, term)
    after = state(engine)
    assert after["a2026"]["status"] == "new"
    assert after["a2026"]["history"] == [("new", "to-read"), ("to-read", "new")]
    b = after["b2026"]
    assert (b["status"], b["priority"], b["tags"], b["notes"], b["title"]) == (
        "new",
        None,
        [],
        [],
        ("Beta guess", True),
    )
    assert b["history"] == [("new", "reading"), ("reading", "new")]
    # Undo goes back to the paper of the decision; with nothing left it says so.
    assert term.progress()[-3:] == [
        "2/4, 1 to read, 0 skipped",
        "1/4, 0 to read, 0 skipped",
        "1/4, 0 to read, 0 skipped",
    ]
    assert term.screens[-1].splitlines()[-2] == "nothing to undo"
    with db.session_scope(engine, write=False) as session:
        assert session.scalars(select(Tag.name)).all() == []  # the tag it created is gone


def test_undo_of_read_restores_the_read_date(engine, four) -> None:
    from readinglist import db, library

    with db.session_scope(engine) as session:
        library.set_status(session, library.resolve_many(session, ["a2026"]), "read")
    with db.session_scope(engine, write=False) as session:
        read_at = library.resolve(session, "a2026").read_at
        ids = library.triage_queue(session, only_new=False)
    run(engine, ids, FakeTerminal("tu"))
    with db.session_scope(engine, write=False) as session:
        paper = library.resolve(session, "a2026")
        assert (paper.status, paper.read_at) == ("read", read_at)


def test_undo_at_the_end_goes_back(engine, four) -> None:
    term = FakeTerminal("ttttuss")
    run(engine, four, term)
    assert [v["status"] for v in state(engine).values()] == [
        "to-read",
        "to-read",
        "to-read",
        "skipped",
    ]
    assert term.progress()[-3:] == [
        "End of the list: 4/4, 4 to read, 0 skipped.",
        "4/4, 3 to read, 0 skipped",
        "End of the list: 4/4, 3 to read, 1 skipped.",
    ]


def test_open_unknown_keys_and_empty_answers(engine, four) -> None:
    term = FakeTerminal("ojoza", [None])
    run(engine, four, term)
    assert term.launched == ["https://b.org"]
    messages = [s.splitlines()[-2] for s in term.screens]
    assert messages == [
        "",
        "this paper has no link",
        "",
        "opened https://b.org",
        "unknown key 'z'; ? shows the keys",
        "no tag added",
    ]
    assert [v["status"] for v in state(engine).values()] == ["new"] * 4


def test_a_bad_tag_name_is_a_message_not_a_crash(engine, four) -> None:
    term = FakeTerminal("at", ["ok bad{"])
    run(engine, four, term)
    assert term.screens[1].splitlines()[-3:-1] == [  # wrapped to the width (100)
        "not done: tag 'bad{' is not usable: no commas, spaces, control characters, braces, quotes,",
        "backslashes or %, and / only between words; use - or / instead",
    ]
    assert state(engine)["a2026"]["tags"] == []
    assert state(engine)["a2026"]["status"] == "to-read"


def test_a_paper_removed_meanwhile_is_skipped(engine, four) -> None:
    from readinglist import db, library

    with db.session_scope(engine) as session:
        library.delete_papers(session, library.resolve_many(session, ["b2026"]))
    term = FakeTerminal("tt")
    run(engine, four, term)
    assert term.progress()[:2] == ["1/3, 0 to read, 0 skipped", "2/3, 1 to read, 0 skipped"]
    assert [v["status"] for v in state(engine).values()] == ["to-read", "to-read", "new"]


def test_triage_queue(engine, four) -> None:
    from readinglist import db, library

    with db.session_scope(engine) as session:
        library.set_status(session, library.resolve_many(session, ["a2026"]), "skipped")
        library.add_tags(session, library.resolve_many(session, ["a2026", "c2026"]), ["x"])
    with db.session_scope(engine, write=False) as session:
        assert library.triage_queue(session) == four[1:]
        assert library.triage_queue(session, "tag:x") == [four[2]]
        assert library.triage_queue(session, "tag:x", only_new=False) == [four[0], four[2]]


@SQLITE_ONLY
def test_triage_refuses_without_a_terminal(invoke) -> None:
    result = invoke("triage")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: triage is interactive and needs a terminal (standard input is not one); "
        "use `readinglist mark` in scripts\n"
    )


# --- the real command in a pseudo-terminal -------------------------------------------------


@pytest.fixture(scope="module")
def icml_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite library with the 19 papers of the example list, imported by the CLI."""
    path = tmp_path_factory.mktemp("icml") / "icml.db"
    readinglist(path, "import", str(EXAMPLE))
    return path


@pytest.fixture
def icml(icml_template: Path, tmp_path: Path) -> Path:
    from readinglist import db

    return db.backup_sqlite(icml_template, tmp_path / "library.db")


def terminal(
    program: str, argv: list[str], rows: int = 50, cols: int = 100, timeout: float = 30
) -> Any:
    """Start ``program ARGV`` in a pseudo-terminal of ``rows`` x ``cols`` (an xterm, no
    library from the environment); return the pexpect child."""
    import pexpect

    env = dict(os.environ, TERM="xterm", COLUMNS=str(cols), LINES=str(rows))
    env["PYTHONIOENCODING"] = "utf-8"
    env.pop("READINGLIST_DB", None)
    child = pexpect.spawn(
        program, argv, env=env, dimensions=(rows, cols), encoding="utf-8", timeout=timeout
    )
    child.delaybeforesend = None  # every key waits for the screen it causes anyway
    return no_wait_at_close(child)


def spawn(database: Path, *args: str, rows: int = 50, cols: int = 100) -> Any:
    """The installed command's ``triage --order added ARGS`` on ``database`` in a terminal."""
    argv = ["--db", str(database), "triage", "--order", "added", *args]
    return terminal(str(BINARY), argv, rows, cols)


def no_wait_at_close(child: Any) -> Any:
    """``child`` without pexpect's 0.1 s sleep when it is closed (for the kernel to note
    the exit): the tests close it after its EOF, when it has exited (a child still
    alive is still ended, as before); returns ``child``."""
    child.ptyproc.delayafterclose = 0
    return child


def readinglist(database: Path, *args: str) -> str:
    """Run ``readinglist --db DATABASE ARGS`` in this process (checking or preparing what
    the terminal runs did; the program under test is the one in the terminal); assert
    it succeeded; return its stdout."""
    from click.testing import CliRunner

    from readinglist.cli import cli

    result = CliRunner().invoke(cli, ["--db", str(database), *args])
    assert result.exit_code == 0, (result.stderr, result.exception)
    return result.stdout


#: What Click writes to clear the screen: every card starts with it.
CLEAR = re.escape("\x1b[2J\x1b[1;1H")


def press(child: Any, key: str, expect: str) -> None:
    """Send one key and wait for the screen that follows it: ``expect`` (a regex) right
    after a screen clear, so that text of an earlier screen never matches."""
    child.send(key)
    child.expect(CLEAR + expect)


def ends(child: Any, summary: str) -> None:
    """Wait for the summary line (a regex), the end of output and a zero exit status."""
    import pexpect

    child.expect(summary)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def added_order(database: Path) -> list[str]:
    """The citation keys in the order triage walks them (oldest import first)."""
    conn = sqlite3.connect(database)
    try:
        return [k for (k,) in conn.execute("SELECT citekey FROM papers ORDER BY added_at, id")]
    finally:
        conn.close()


def title_of(database: Path, key: str) -> str:
    conn = sqlite3.connect(database)
    try:
        return str(conn.execute("SELECT title FROM papers WHERE citekey = ?", (key,)).fetchone()[0])
    finally:
        conn.close()


STATUS_OF = (
    "SELECT coalesce(d.status, 'new') FROM papers p LEFT JOIN decisions d "
    "ON d.paper_id = p.id WHERE p.citekey = ?"
)
TAGS_OF = (
    "SELECT t.name FROM tags t JOIN paper_tags pt ON pt.tag_id = t.id "
    "JOIN papers p ON p.id = pt.paper_id WHERE p.citekey = ? ORDER BY t.name"
)


def sql(database: Path, statement: str, *params: Any) -> list[tuple[Any, ...]]:
    """Rows of one statement on the SQLite file (no ranking, unlike `list --json`)."""
    conn = sqlite3.connect(database)
    try:
        return conn.execute(statement, params).fetchall()
    finally:
        conn.close()


def history(database: Path) -> dict[str, list[tuple[str | None, str, str]]]:
    conn = sqlite3.connect(database)
    try:
        rows = conn.execute(
            "SELECT p.citekey, e.from_status, e.to_status, e.at FROM status_events e "
            "JOIN papers p ON p.id = e.paper_id ORDER BY e.id"
        ).fetchall()
    finally:
        conn.close()
    out: dict[str, list[tuple[str | None, str, str]]] = {}
    for key, old, new, at in rows:
        out.setdefault(key, []).append((old, new, at))
    return out


@pytest.mark.slow
def test_triage_the_example_list_in_a_terminal(icml: Path) -> None:
    import pexpect

    keys = added_order(icml)
    assert len(keys) == 19
    start = time.time()
    child = spawn(icml)
    child.expect(CLEAR + r"1/19, 0 to read, 0 skipped\r\n")
    child.expect(re.escape(keys[0]) + r" \| status new")
    press(child, "t", r"2/19, 1 to read, 0 skipped\r\n")
    press(child, "s", r"3/19, 1 to read, 1 skipped\r\n")
    press(child, "h", r"3/19, 1 to read, 1 skipped\r\n")
    child.expect(r"\r\npriority high\r\n")
    child.send("a")
    child.expect(r"Tags: ")
    child.sendline("rl, ml/x")
    child.expect(CLEAR + r"3/19, ")
    child.expect(r"\r\ntagged rl, ml/x\r\n")
    child.send("n")
    child.expect(r"Note: ")
    child.sendline("Check the D4RL table.")
    child.expect(CLEAR + r"3/19, ")
    child.expect(r"\r\nadded note \d+\r\n")
    child.send("e")
    # the current title is prefilled (editable); Ctrl-U clears it
    child.expect(r"New title: " + re.escape(title_of(icml, keys[2])))
    child.sendline("\x15A better title")
    child.expect(
        CLEAR + r"3/19, 1 to read, 1 skipped\r\n1 skipped since the last wanted paper\r\n"
        r"ICML · 2026\r\nA better title\r\n"
    )
    press(child, "r", r"4/19, 1 to read, 1 skipped, 1 reading\r\n")
    press(child, "u", r"3/19, 1 to read, 1 skipped\r\n")
    child.expect(r"undone: " + re.escape(keys[2]) + " reading")
    press(child, "d", r"4/19, 1 to read, 1 skipped, 1 read\r\n")
    press(child, " ", r"5/19, 1 to read, 1 skipped, 1 read\r\n")
    child.send("q")
    child.expect(
        r"triaged 3 papers in this run \(1 read, 1 skipped, 1 to-read\); "
        r"inbox: 3 of 19 decided, 16 still new: "
        r"run `readinglist triage --order added` again to go on"
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    # Resume: only the papers still new, from the one passed over.
    child = spawn(icml)
    child.expect(CLEAR + r"4/19, 1 to read, 1 skipped, 1 read\r\n")  # the whole inbox
    child.expect(re.escape(keys[3]) + r" \| status new")
    plan = {}
    cycle = "tsrd"
    for n, key in enumerate(keys[3:]):
        decision = cycle[n % 4]
        plan[key] = {"t": "to-read", "s": "skipped", "r": "reading", "d": "read"}[decision]
        nxt = r"End of the list" if n == 15 else rf"{n + 5}/19, "
        press(child, decision, nxt)
    press(child, "u", r"19/19, 5 to read, 5 skipped, 4 reading, 4 read\r\n")
    child.expect(r"undone: " + re.escape(keys[18]) + " read")
    press(child, "t", r"End of the list: 19/19, 6 to read, 5 skipped, 4 reading, 4 read\.")
    plan[keys[18]] = "to-read"
    child.send("q")
    ends(child, r"triaged 16 papers in this run \(.*\); inbox: 19 of 19 decided\r\n")

    # Nothing new: the end screen, where u brings back the last decision all the same.
    child = spawn(icml)
    child.expect(CLEAR + r"End of the list: 19/19, 6 to read, 5 skipped, 4 reading, 4 read\.")
    press(child, "u", r"19/19, 5 to read, 5 skipped, 4 reading, 4 read\r\n")
    child.expect(r"undone: " + re.escape(keys[18]) + r" to-read \(decided before this run\)")
    press(child, "t", r"End of the list: 19/19, 6 to read, 5 skipped, 4 reading, 4 read\.")
    child.send("q")
    ends(child, r"triaged 1 paper in this run \(1 to-read\); inbox: 19 of 19 decided\r\n")
    elapsed = time.time() - start

    listed = {p["key"]: p for p in json.loads(readinglist(icml, "list", "--json"))}
    expected = {keys[0]: "to-read", keys[1]: "skipped", keys[2]: "read", **plan}
    assert {k: p["status"] for k, p in listed.items()} == expected
    third = listed[keys[2]]
    assert (third["priority"], third["tags"], third["title"], third["title_provisional"]) == (
        "high",
        ["ml/x", "rl"],
        "A better title",
        False,
    )
    assert third["read_at"] is not None
    shown = json.loads(readinglist(icml, "show", keys[2], "--json"))
    assert [n["text"] for n in shown["notes"]] == ["Check the D4RL table."]
    changes = history(icml)
    assert [(old, new) for old, new, _ in changes[keys[2]]] == [
        ("new", "reading"),
        ("reading", "new"),
        ("new", "read"),
    ]
    assert [(old, new) for old, new, _ in changes[keys[18]]] == [
        ("new", "read"),
        ("read", "new"),
        ("new", "to-read"),
        ("to-read", "new"),
        ("new", "to-read"),
    ]
    assert sum(len(v) for v in changes.values()) == 2 + 3 + 16 + 2 + 2
    assert all(at for events in changes.values() for _, _, at in events)
    assert [(h["from"], h["to"]) for h in shown["history"]] == [
        ("new", "reading"),
        ("reading", "new"),
        ("new", "read"),
    ]
    assert all(ISO.match(h["at"]) for h in shown["history"])
    assert shown["read_at"] == shown["history"][-1]["at"]
    assert elapsed < 60


@pytest.mark.slow
def test_kill_9_loses_no_decision(icml: Path) -> None:
    def rows() -> list[tuple[str, str, int | None]]:
        conn = sqlite3.connect(icml)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            return conn.execute(
                "SELECT p.citekey, coalesce(d.status, 'new'), d.priority FROM papers p "
                "LEFT JOIN decisions d ON d.paper_id = p.id ORDER BY p.added_at, p.id"
            ).fetchall()
        finally:
            conn.close()

    keys = [key for key, _, _ in rows()]
    child = spawn(icml)
    child.expect(CLEAR + r"1/19, 0 to read, 0 skipped\r\n")
    # Two keys in one write, as a fast typist sends them: neither is lost.
    press(child, "ts", r"3/19, 1 to read, 1 skipped\r\n")
    press(child, "h", r"3/19, 1 to read, 1 skipped\r\n")
    child.expect(r"\r\npriority high\r\n")
    press(child, "d", r"4/19, 1 to read, 1 skipped, 1 read\r\n")
    child.kill(signal.SIGKILL)
    child.close(force=True)
    assert child.signalstatus == signal.SIGKILL
    assert rows()[:5] == [
        (keys[0], "to-read", None),
        (keys[1], "skipped", None),
        (keys[2], "read", 1),
        (keys[3], "new", None),
        (keys[4], "new", None),
    ]
    assert {k: [(o, n) for o, n, _ in v] for k, v in history(icml).items()} == {
        keys[0]: [("new", "to-read")],
        keys[1]: [("new", "skipped")],
        keys[2]: [("new", "read")],
    }


@pytest.mark.slow
def test_ctrl_c_and_ctrl_d_quit_keeping_decisions(icml: Path) -> None:
    import pexpect

    child = spawn(icml)
    child.expect(CLEAR + r"1/19, 0 to read, 0 skipped\r\n")
    press(child, "t", r"2/19, 1 to read, 0 skipped\r\n")
    child.send("\x03")  # saved, said in one line, and the exit code of an interruption
    child.expect(
        r"\r\nInterrupted: the decisions made so far are saved; triaged 1 paper in this run"
        r" \(1 to-read\); inbox: 1 of 19 decided, 18 still new: run `readinglist triage"
        r" --order added` again to go on\r\n"
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    child = spawn(icml)
    child.expect(CLEAR + r"2/19, 1 to read, 0 skipped\r\n")
    child.send("\x04")
    ends(child, r"triaged 0 papers in this run; inbox: 1 of 19 decided, 18 still new")


def test_the_installed_command_refuses_a_pipe(icml: Path) -> None:
    result = subprocess.run(
        [str(BINARY), "--db", str(icml), "triage"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("Error: triage is interactive and needs a terminal")


#: The line under the progress in interest order after one wanted paper and one skip.
MODEL_LINE = (
    r"interest -?\d+\.\d{3} · learnt from 1 wanted, 1 skipped"
    r" · 1 skipped since the last wanted paper\r\n"
)


@pytest.mark.slow
def test_interest_order_changes_after_a_skip_in_a_terminal(icml: Path) -> None:
    """One paper wanted (spar2026): triage in interest order shows gsfixer2026 first (then
    dualucod2026, correctionplanner2026, reco2026, pidi2026); skipping gsfixer2026 re-ranks
    the rest: correctionplanner2026 comes next, not dualucod2026, which the overview ``v``
    no longer lists third (scores may be negative once a skip makes the model a
    classifier). Then the new
    keys: ``v`` goes to the third, ``/`` finds SafeSeek, ``a`` completes a tag with
    Tab, ``w`` explains the score; after quitting, ``u`` undoes the skip."""
    import pexpect

    for args in (("mark", "to-read", "spar2026"), ("tag", "add", "robotics", "spar2026")):
        readinglist(icml, *args)
    child = spawn(icml, "--order", "interest")
    child.expect(CLEAR + r"2/19, 1 to read, 0 skipped\r\n")  # the inbox: all 19
    child.expect(r"GSFixer: a framework designed")
    press(child, "s", r"3/19, 1 to read, 1 skipped\r\n")
    child.expect(r"CorrectionPlanner: an autoregressive planner")
    press(child, "v", r"3/19, 1 to read, 1 skipped\r\nNext papers, highest interest first:\r\n")
    child.expect(r">   1 +-?\d\.\d{3}  CorrectionPlanner: an autoregressive")  # "1 -0.088"
    child.expect(r"\r\n    3 +-?\d\.\d{3}  ([^\r\n…]{1,30})")
    third = child.match.group(1)
    assert not third.startswith("DualUCOD")  # re-ranked: dualucod2026 was next before the skip
    child.expect(r"number: go to it · \+ next page · q or Enter: back")
    child.send("3")  # a single key, as everywhere in triage: no Enter
    child.expect(
        CLEAR
        + r"3/19, 1 to read, 1 skipped\r\n"
        + MODEL_LINE
        + "ICML · 2026\r\n"
        + re.escape(third)
    )
    child.send("/")
    child.expect(r"Search \(query or words; Enter: next match\)")
    child.sendline("title:safeseek")
    child.expect(
        CLEAR + r"3/19, 1 to read, 1 skipped\r\n" + MODEL_LINE + r"ICML · 2026\r\nSafeSeek: "
    )
    child.expect(r"1 in the inbox match 'title:safeseek'; / then Enter: the next\r\n")
    child.send("a")
    child.expect(r"Tags: ")
    child.send("rob\t")
    child.expect(r"robotics")  # completed by Tab from the library's tags
    child.sendline(", rl")
    child.expect(CLEAR + r"3/19, ")
    child.expect(r"\r\ntagged robotics, rl\r\n")
    press(
        child,
        "w",
        r"safeseek2026: interest -?\d\.\d{3} \(from all your decisions\), the sum of:\r\n",
    )
    child.expect(r"  raised by: ")
    child.expect(r"  topic similarity: [+-]\d\.\d{3}\r\n  minus the library's average: ")
    press(child, " ", r"3/19, 1 to read, 1 skipped\r\n")
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert sql(icml, TAGS_OF, "safeseek2026") == [("rl",), ("robotics",)]
    assert sql(icml, STATUS_OF, "gsfixer2026") == [("skipped",)]

    # A new run: u undoes the skip of the earlier run and shows the paper again.
    child = spawn(icml)
    child.expect(CLEAR + r"3/19, 1 to read, 1 skipped\r\n")
    press(child, "u", r"2/19, 1 to read, 0 skipped\r\n")  # one decided now
    child.expect(r"GSFixer: a framework designed")
    child.expect(r"undone: gsfixer2026 skipped \(decided before this run\)\r\n")
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert sql(icml, STATUS_OF, "gsfixer2026") == [("new",)]
    assert sql(icml, STATUS_OF, "spar2026") == [("to-read",)]
    assert [(old, new) for old, new, _ in history(icml)["gsfixer2026"]] == [
        ("new", "skipped"),
        ("skipped", "new"),
    ]


@pytest.mark.slow
def test_a_short_terminal_keeps_the_title_and_progress(icml: Path) -> None:
    """20 rows: every card has at most 19 lines, starting with the progress line and the
    title, ending with the legend; a long abstract ends with how much ``x`` shows."""
    import pexpect

    child = spawn(icml, rows=20, cols=80)
    legend = re.escape(triage.legend(80))
    for n in range(1, 4):
        child.expect(CLEAR + rf"({n}/19, .*?){legend}")
        lines = child.match.group(1).split("\r\n")
        assert len(lines) <= 19
        assert lines[1:3] == ["", "ICML · 2026"]
        assert any(line.endswith("more lines: x shows the abstract") for line in lines)
        child.send(" ")
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.slow
def test_scikit_learn_loads_only_when_ranking(icml: Path) -> None:
    """``--help``, ``triage --help`` and ``triage --order added`` never import sklearn;
    ``triage`` in interest order once there is a decision does."""
    import pexpect

    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('SKLEARN=%s' % ('sklearn' in sys.modules)))\n"
        "from readinglist.cli import cli\n"
        "cli.main(sys.argv[1:], prog_name='readinglist')\n"
    )

    def loaded(*args: str, keys: str = "") -> bool:
        child = terminal(sys.executable, ["-c", code, "--db", str(icml), *args])
        if keys:
            child.expect(r"/19, ")
            child.send(keys)
        child.expect(r"SKLEARN=(True|False)")
        found = child.match.group(1) == "True"
        child.expect(pexpect.EOF)
        child.close()
        return found

    assert not loaded("--help")
    assert not loaded("triage", "--help")
    assert not loaded("triage", "--order", "added", keys="tq")
    assert loaded("triage", keys="q")  # interest order, a paper to-read: ranks


def test_back_key_returns_to_the_previous_paper(engine, four) -> None:
    term = FakeTerminal("bjtbbs")
    run(engine, four, term)
    names = ("Alpha", "Beta", "Gamma", "Delta")
    titles = [next(n for n in names if f"\n{n}" in s) for s in term.screens]
    # after skipping a2026 the next paper is the next undecided one (Gamma), not Beta
    assert titles == ["Alpha", "Alpha", "Beta", "Gamma", "Beta", "Alpha", "Gamma"]
    assert term.screens[1].splitlines()[-2] == "this is the first paper"
    assert term.screens[4].splitlines()[-2] == (
        "decided in this run: to-read; a key changes it, space: next new"
    )
    # back keeps the decision: b2026 stays to-read, a2026 is skipped on the way back
    assert [v["status"] for v in state(engine).values()] == ["skipped", "to-read", "new", "new"]


def test_edit_prefills_the_current_title(engine, four) -> None:
    term = FakeTerminal("je", ["Beta guess"])
    run(engine, four, term)
    assert term.prompts == ["New title"]
    assert term.defaults == ["Beta guess"]
    assert term.screens[-1].splitlines()[-2] == "title unchanged"


def test_open_reports_a_browser_that_did_not_start(engine, four, monkeypatch) -> None:
    import webbrowser

    from readinglist.cli.triage import ClickTerminal

    term = FakeTerminal("jo")
    term.opens = False
    run(engine, four, term)
    assert term.screens[-1].splitlines()[-2] == "could not open https://b.org"
    monkeypatch.setattr(webbrowser, "open", lambda url: False)
    assert ClickTerminal.launch(None, "https://b.org") is False  # type: ignore[arg-type]

    def broken(url: str) -> bool:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "open", broken)
    assert ClickTerminal.launch(None, "https://b.org") is False  # type: ignore[arg-type]


@pytest.mark.slow
def test_search_wraps_to_a_decided_paper_and_nothing_decided_changes(icml: Path) -> None:
    """Decide three papers, search back to the first (the search wraps): its card says it
    is decided and what its decision is; space goes to the next undecided paper, not the
    second; a second wrapping search and ``s`` change the paper shown alone, and the
    next ``t`` decides the next undecided paper. Nothing else decided is changed."""
    keys = added_order(icml)
    child = spawn(icml, cols=160)
    child.expect(CLEAR + r"1/19, 0 to read, 0 skipped\r\n")
    press(child, "t", r"2/19, 1 to read, 0 skipped\r\n")
    press(child, "t", r"3/19, 2 to read, 0 skipped\r\n")
    press(child, "t", r"4/19, 3 to read, 0 skipped\r\n")
    child.send("/")
    child.expect(r"Search \(query or words; Enter: next match\): ")
    child.sendline(f"key:{keys[0]}")
    child.expect(CLEAR + r"1/19, 3 to read, 0 skipped\r\n")
    child.expect(re.escape(keys[0]) + r" \| status to-read")
    child.expect(r"decided in this run: to-read; a key changes it, space: next new")
    press(child, " ", r"4/19, 3 to read, 0 skipped\r\n")
    child.expect(re.escape(keys[3]) + r" \| status new")
    child.send("/")
    child.expect(r"Search \(query or words; Enter: next match\): ")
    child.sendline(f"key:{keys[1]}")
    child.expect(CLEAR + r"2/19, 3 to read, 0 skipped\r\n")
    child.expect(r"decided in this run: to-read")
    press(child, "s", r"4/19, 2 to read, 1 skipped\r\n")  # the next undecided: keys[3]
    child.expect(re.escape(keys[3]) + r" \| status new")
    press(child, "t", r"5/19, 3 to read, 1 skipped\r\n")
    child.send("q")
    ends(child, r"triaged 4 papers in this run \(1 skipped, 3 to-read\)")
    statuses = dict(
        sql(
            icml,
            "SELECT p.citekey, coalesce(d.status, 'new') FROM papers p LEFT JOIN decisions d "
            "ON d.paper_id = p.id",
        )
    )
    assert [statuses[k] for k in keys[:5]] == ["to-read", "skipped", "to-read", "to-read", "new"]
    assert {k: [(old, new) for old, new, _ in v] for k, v in history(icml).items()} == {
        keys[0]: [("new", "to-read")],
        keys[1]: [("new", "to-read"), ("to-read", "skipped")],
        keys[2]: [("new", "to-read")],
        keys[3]: [("new", "to-read")],
    }


@pytest.mark.slow
def test_undo_after_quit_across_three_sessions_never_reapplies_an_undone_decision(
    icml: Path,
) -> None:
    """Session 1: ``t``, ``s``, ``u``, ``q``. Session 2: ``u`` undoes the ``t`` (the last
    decision not undone), not the undone skip. Session 3: nothing left to undo."""
    keys = added_order(icml)
    child = spawn(icml)
    child.expect(CLEAR + r"1/19, 0 to read, 0 skipped\r\n")
    press(child, "t", r"2/19, 1 to read, 0 skipped\r\n")
    press(child, "s", r"3/19, 1 to read, 1 skipped\r\n")
    press(child, "u", r"2/19, 1 to read, 0 skipped\r\n")
    child.expect(r"undone: " + re.escape(keys[1]) + " skipped")
    child.send("q")
    ends(child, r"triaged 1 paper in this run \(1 to-read\)")
    child = spawn(icml)
    child.expect(CLEAR + r"2/19, 1 to read, 0 skipped\r\n")
    press(child, "u", r"1/19, 0 to read, 0 skipped\r\n")
    child.expect(r"undone: " + re.escape(keys[0]) + r" to-read \(decided before this run\)")
    child.send("q")
    ends(child, r"triaged 0 papers in this run")
    child = spawn(icml)
    child.expect(CLEAR + r"1/19, 0 to read, 0 skipped\r\n")
    press(child, "u", r"1/19, 0 to read, 0 skipped\r\n")
    child.expect(r"nothing to undo")
    child.send("q")
    ends(child, r"triaged 0 papers in this run")
    assert [
        s
        for (s,) in sql(
            icml,
            "SELECT coalesce(d.status, 'new') FROM papers p LEFT JOIN decisions d ON d.paper_id = p.id",
        )
    ] == ["new"] * 19
    assert {k: [(old, new) for old, new, _ in v] for k, v in history(icml).items()} == {
        keys[0]: [("new", "to-read"), ("to-read", "new")],
        keys[1]: [("new", "skipped"), ("skipped", "new")],
    }


#: What a triage run says before its first screen while the library's first interest
#: index is built (``ranking.fitted.build_notice``), as the terminal shows it.
BUILDING = (
    "building the interest index of 19 papers (kept for later runs until papers are added"
    " or a text or tag changes)...\r\n"
)


def test_the_interest_order_opens_before_any_decision_and_again_after_quitting(
    icml: Path,
) -> None:
    """The default order on a library nobody has decided on: the first screen comes (the
    order of addition), also in the next run, when the last fit holds no score. The
    first run builds the interest index (seconds: scikit-learn loaded, every text
    indexed) and says so before its first screen, the only thing it writes before it;
    the next run reads the index and says nothing."""
    import pexpect

    for before in (BUILDING, ""):
        child = terminal(str(BINARY), ["--db", str(icml), "triage"], timeout=60)
        child.expect(CLEAR + r"1/19, 0 to read, 0 skipped\r\n")
        assert child.before == before
        child.send("q")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0, child.before


def test_a_first_index_built_behind_the_first_screen_is_said_before_it(icml: Path) -> None:
    """Above ``triage_rank.SMALL_LIBRARY`` papers (lowered to 5 here: a library of
    thousands costs seconds to import) the first screen does not wait for the index: the
    notice that it is being built still comes before that screen, at once."""
    import pexpect

    code = (
        "import sys\n"
        "from readinglist import triage_rank\n"
        "triage_rank.SMALL_LIBRARY = 5\n"
        "from readinglist.cli import cli\n"
        "cli.main(sys.argv[1:], prog_name='readinglist')\n"
    )
    child = terminal(sys.executable, ["-c", code, "--db", str(icml), "triage"], timeout=60)
    child.expect(CLEAR + r"1/19, 0 to read, 0 skipped\r\n")
    assert child.before == BUILDING
    child.send("q")
    child.expect(r"triaged 0 papers in this run")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_keys_typed_before_the_first_screen_decide_nothing(icml: Path) -> None:
    """A key pressed while triage is still starting (loading the library) is discarded:
    keys act on the paper shown, never on one the reader has not seen."""
    import pexpect

    child = spawn(icml)
    child.send("t")  # before the first screen: the program is still starting
    child.expect(CLEAR + r"1/19, 0 to read, 0 skipped\r\n")
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert readinglist(icml, "list", "-k", "status:to-read") == ""


def test_the_resume_hint_repeats_the_reader_options_and_query() -> None:
    """The summary's "run ... again" names the command that goes on: the --reader given
    as an option, --blind, the order and the query (quoted for a shell); a reader set
    by the environment or the configuration file is not repeated (it still holds)."""
    from types import SimpleNamespace

    from readinglist.cli.triage import _again

    app: Any = SimpleNamespace(settings=SimpleNamespace(reader="ana"))
    query = ("title:translation", "neural nets")
    assert _again(app, query, False, "interest", None, None, True) == (
        "readinglist --reader ana triage --blind title:translation 'neural nets'"
    )
    app.settings.reader = None
    assert _again(app, (), True, "added", "offline RL", 50, False) == (
        "readinglist triage --all --order added --like 'offline RL' --stop-after 50"
    )
    assert _again(app, (), False, "interest", None, None, False) == "readinglist triage"
