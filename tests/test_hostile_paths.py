"""Issue 18, the rest: paths that cannot be a library, backup names SQLite owns, batch
numbers after an undo, SQLite's bounded wait, long query words, ``@comment`` blocks."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from readinglist.citekeys import KEY_RULE
from readinglist.cli import cli

BIB = "@article{{{key}, title={{{title}}}, author={{Doe, Jane}}, year={{2020}}}}\n"


def _run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def _library(tmp_path: Path) -> Path:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB.format(key="a1", title="One paper about tests"))
    db = tmp_path / "lib.db"
    assert _run("--db", str(db), "import", str(bib))[0] == 0
    return db


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_as_the_library_is_one_line_exit_6() -> None:
    journal_before = os.path.exists("/dev/null-journal")
    assert _run("--db", "/dev/null", "list") == (
        6,
        "",
        "Error: /dev/null: not a regular file (a device, pipe or socket)\n",
    )
    assert os.path.exists("/dev/null-journal") == journal_before  # SQLite never opened it


def test_a_folder_as_the_library_is_one_line_exit_6(tmp_path: Path) -> None:
    assert _run("--db", str(tmp_path), "list") == (
        6,
        "",
        f"Error: {tmp_path}: a folder, not a database file\n",
    )


@pytest.mark.parametrize("value", ["file:sub/x.db", "file:/sub/x.db", "file:///sub/x.db"])
def test_a_file_uri_is_refused_and_creates_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run("--db", value, "list")
    assert (code, out) == (6, "")
    assert err == (
        f"Error: {value}: SQLite 'file:' URIs are not read; give the library's path "
        "(or sqlite:///PATH)\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_backup_under_a_name_sqlite_keeps_is_refused(tmp_path: Path, suffix: str) -> None:
    db = _library(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    target = tmp_path / f"lib.db{suffix}"
    assert _run("--db", str(db), "db", "backup", str(target)) == (
        2,
        "",
        f"Error: {target}: a name SQLite keeps for a database's journal (-wal, -shm, "
        "-journal); name another file\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_batch_numbers_are_never_reused_after_an_undo(invoke, tmp_path: Path) -> None:
    for n, title in ((1, "First paper on undo"), (2, "Second paper on undo"), (3, "Third one")):
        (tmp_path / f"u{n}.bib").write_text(BIB.format(key=f"u{n}", title=title))
    assert invoke("import", str(tmp_path / "u1.bib")).exit_code == 0
    assert invoke("import", str(tmp_path / "u2.bib")).exit_code == 0
    first, second = (
        b["id"] for b in json.loads(invoke("import", "--list-batches", "--json").stdout)
    )
    assert invoke("import", "--undo", str(second)).exit_code == 0
    assert invoke("import", str(tmp_path / "u3.bib")).exit_code == 0
    batches = json.loads(invoke("import", "--list-batches", "--json").stdout)
    assert [(b["id"], b["source"]) for b in batches] == [
        (first, str(tmp_path / "u1.bib")),
        (second + 1, str(tmp_path / "u3.bib")),
    ]
    again = invoke("import", "--undo", str(second))
    assert (again.exit_code, again.stderr) == (
        3,
        f"Error: no import batch {second} (it was undone) (see `readinglist import "
        "--list-batches`)\n",
    )
    assert invoke("list", "-k").stdout == "u1\nu3\n"


def test_the_busy_timeout_bounds_the_wait_for_the_lock(tmp_path: Path) -> None:
    """READINGLIST_BUSY_TIMEOUT=1 waits about one second for the lock, not the default 60
    (in-process, so the time measured is the wait, not Python's start-up)."""
    db = _library(tmp_path)
    holder = sqlite3.connect(db, isolation_level=None)  # a long import: the write lock held
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        result = _run("--db", str(db), "mark", "read", "a1", env={"READINGLIST_BUSY_TIMEOUT": "1"})
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result == (
        6,
        "",
        "Error: the library is busy: another readinglist process (an import?) has held the "
        "write lock for more than 1 s; try again when it has finished, or set "
        "READINGLIST_BUSY_TIMEOUT (seconds) to wait longer (database is locked)\n",
    )
    assert 0.9 <= waited < 20  # the default would be 60 s


@pytest.mark.parametrize("prefix", ["", "title:", "x -"])
def test_a_too_long_query_word_says_so(tmp_path: Path, prefix: str) -> None:
    db = _library(tmp_path)
    code, out, err = _run("--db", str(db), "list", prefix + "a" * 100_000)
    assert (code, out) == (2, "")
    assert err.startswith("Error: invalid query '")
    assert err.endswith(
        "…': a word of 100,000 letters and digits (aaaaaaaaaaaaaaaa…); the longest word "
        "readinglist searches for has 2,047\n"
    )
    assert len(err) < 400


def test_a_query_word_at_the_limit_is_searched(tmp_path: Path) -> None:
    db = _library(tmp_path)
    # Nothing has that word; the warning shows the query's first 79 characters.
    warning = f"warning: no paper matches '{'a' * 79}…'\n"
    assert _run("--db", str(db), "list", "-k", "a" * 2047) == (0, "", warning)


def test_balanced_comments_holding_entries_are_comments(invoke, tmp_path: Path) -> None:
    bib = tmp_path / "c.bib"
    bib.write_text(
        "@comment{jabref-meta: databaseType:bibtex;}\n"
        "@comment{ commented out:\n"
        "@article{old, title={An old {version}}, year={2019}}\n"
        "  @misc{older, title={Older}}\n"
        "}\n" + BIB.format(key="kept", title="The paper that counts") + "@Comment{x}\n"
    )
    result = invoke("import", str(bib))
    assert (result.exit_code, result.stderr) == (
        0,
        f"{bib} (bibtex): 1 added, 0 merged, 0 already present, 0 rejected\n",
    )
    assert invoke("list", "-k").stdout == "kept\n"


def test_an_unclosed_comment_is_still_reported(invoke, tmp_path: Path) -> None:
    bib = tmp_path / "c.bib"
    bib.write_text("@comment{ never closed\n" + BIB.format(key="kept", title="The one"))
    result = invoke("import", str(bib))
    assert result.exit_code == 5
    assert result.stderr.splitlines()[0] == (
        f"{bib}:1: malformed @comment block: not closed before the next entry starts; "
        "skipped: rejected"
    )
    assert invoke("list", "-k").stdout == "kept\n"


def test_a_generated_key_takes_at_most_60_characters_of_a_name() -> None:
    from readinglist.citekeys import base_key
    from readinglist.records import PaperRecord, Person

    record = PaperRecord(
        authors=(Person(family="x" * 3000, given="J"),), year=2020, title="Hostile words"
    )
    assert base_key(record) == "x" * 60 + "2020hostile"
    assert base_key(PaperRecord(title="y" * 3000, year=2020)) == "y" * 60 + "2020"


def test_a_key_with_a_control_character_is_replaced(invoke, tmp_path: Path) -> None:
    ris = tmp_path / "k.ris"
    ris.write_text(
        "TY  - JOUR\nID  - k\x1b\nTI  - A title about keys\nAU  - Doe, Jane\nPY  - 2020\nER  - \n"
    )
    result = invoke("import", str(ris))
    assert (result.exit_code, result.stderr.splitlines()[0]) == (
        0,
        f"warning: {ris}:1: citation key 'k\\x1b' is not usable ({KEY_RULE}); imported as "
        "'doe2020title'",
    )
    assert invoke("list", "-k").stdout == "doe2020title\n"


def test_a_paragraph_without_a_full_stop_is_read_at_once() -> None:
    """The sentence test of the abstracts reader: a paragraph of 200 kB without a full stop
    is not a paper (and was quadratic: 20 kB took 23 s); a sentence at its end makes it one."""
    from readinglist.formats import abstracts

    words = "lorem ipsum dolor sit amet " * 8000
    assert abstracts.read(f"A long line\n\n{words}\n", "long").records == []
    found = abstracts.read(f"A long line\n\n{words}and this ends here.\n", "long")
    assert [r.title for r in found.records] == ["A long line"]


def test_titles_that_fold_to_nothing_are_never_merged(invoke, tmp_path: Path) -> None:
    """A title of punctuation alone folds to an empty duplicate key: never a match."""
    bib = tmp_path / "e.bib"
    bib.write_text(
        "@misc{e1, title={!!!}, year={2020}}\n@misc{e2, title={???}, year={2020}}\n"
        "@misc{e3, title={---}}\n@misc{e4, title={...}}\n"
    )
    ris = tmp_path / "e.ris"
    ris.write_text("TY  - JOUR\nTI  - ...\nER  - \nTY  - JOUR\nTI  - ---\nER  - \n")
    first, second = invoke("import", str(bib)), invoke("import", str(ris))
    assert first.stderr == f"{bib} (bibtex): 4 added, 0 merged, 0 already present, 0 rejected\n"
    assert second.stderr.endswith(
        f"{ris} (ris): 2 added, 0 merged, 0 already present, 0 rejected\n"
    )
    assert len(invoke("list", "-k").stdout.split()) == 6


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs a read-only /sys")
def test_backup_to_a_read_only_place_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    db = _library(tmp_path)
    before = set(os.listdir("/sys"))
    assert _run("--db", str(db), "db", "backup", "/sys/lib.bak") == (
        6,
        "",
        "Error: cannot write the backup /sys/lib.bak: unable to open database file\n",
    )
    assert set(os.listdir("/sys")) == before


def test_a_value_line_starting_with_at_stays_inside_its_entry(invoke, tmp_path: Path) -> None:
    """Found by the fuzz test: a RIS value with a line ``@article{x,`` ended the exported
    BibTeX entry there; such a line gets its ``@`` braced (an abstract here: RIS notes
    stay out of BibTeX exports since issue 15's real-tools test)."""
    ris = tmp_path / "at.ris"
    ris.write_text(
        "TY  - BOOK\nID  - ok2020\nTI  - A title\nAU  - Doe, Jane\nPY  - 2020\n"
        "AB  - first line\n@article{x, title={y}}\nER  - \n"
    )
    assert invoke("import", str(ris)).exit_code == 0
    out = tmp_path / "out.bib"
    assert invoke("export", "bibtex", "-o", str(out)).exit_code == 0
    assert "abstract = {first line\n{@}article\\{x, title=\\{y\\}\\}}" in out.read_text()
    again = CliRunner().invoke(cli, ["--db", str(tmp_path / "again.db"), "import", str(out)])
    assert (again.exit_code, again.stderr) == (
        0,
        f"created a new library at {tmp_path / 'again.db'}\n"
        f"{out} (bibtex): 1 added, 0 merged, 0 already present, 0 rejected\n",
    )


def test_export_aux_of_a_fifo_is_refused_not_a_hang(invoke, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``export bibtex --aux FIFO`` waited for a writer for ever; it is refused (exit 5)."""
    import os

    fifo = tmp_path / "main.aux"
    os.mkfifo(fifo)
    assert invoke("add", "--title", "Attention is all you need").exit_code == 0
    result = invoke("export", "bibtex", "--aux", str(fifo))
    assert result.exit_code == 5, result.output
    assert f"{fifo}" in result.stderr
    assert "not a regular file" in result.stderr
