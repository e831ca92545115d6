"""Issue 18 regressions: what a user can type never ends in a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from readinglist.cli import cli


def run_installed(
    *args: str, stdout: int | None = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    """Run the installed entry point (``readinglist.cli.main``) in a real subprocess."""
    code = "import sys; from readinglist.cli import main; sys.argv[0] = 'readinglist'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )


def test_db_path_under_a_file_is_one_line_exit_6(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text("x\n")
    target = tmp_path / "refs.bib" / "lib.db"
    result = CliRunner().invoke(cli, ["--db", str(target), "add", "--title", "A paper"])
    assert result.exit_code == 6
    assert result.stderr == f"Error: cannot create the folder of {target}: File exists\n"
    read = CliRunner().invoke(cli, ["--db", str(target), "list"])  # a read creates nothing
    assert read.stderr.startswith(f"Error: no library at {target} (no such file)")


def test_db_path_in_an_impossible_folder_is_one_line_exit_6() -> None:
    result = CliRunner().invoke(cli, ["--db", "/proc/nope/x.db", "add", "--title", "A paper"])
    assert result.exit_code == 6
    assert result.stderr == (
        "Error: cannot create the folder of /proc/nope/x.db: No such file or directory\n"
    )


@pytest.fixture(scope="module")
def example_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite library of the example list, imported once for the module (each test
    works on a copy)."""
    from helpers import EXAMPLES

    path = tmp_path_factory.mktemp("example") / "lib.db"
    source = EXAMPLES / "icml2026-abstracts.txt"
    result = CliRunner().invoke(cli, ["--db", str(path), "import", str(source)])
    assert result.exit_code == 0, result.stderr
    return path


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("extra", [[], ["--json"], ["-k"]])
def test_full_stdout_is_one_line_exit_1(
    tmp_path: Path, example_library: Path, extra: list[str]
) -> None:
    from readinglist import db as database

    db = str(database.backup_sqlite(example_library, tmp_path / "lib.db"))
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from readinglist.cli import main; main()",
                "--db",
                db,
                "list",
                *extra,
            ],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert result.returncode == 1
    assert result.stderr == "Error: cannot write the output: No space left on device\n"


def test_main_keeps_exit_codes(tmp_path: Path) -> None:
    db = str(tmp_path / "lib.db")
    assert run_installed("--db", db, "show", "nokey").returncode == 6  # no library yet
    assert run_installed("--db", db, "add", "--title", "A paper").returncode == 0
    assert run_installed("--db", db, "show", "nokey").returncode == 3
    usage = run_installed("nope")
    assert usage.returncode == 2
    assert "No such command 'nope'" in usage.stderr
    assert run_installed("--version").returncode == 0


@pytest.mark.parametrize(
    ("args", "option"),
    [(["list", "--help"], "--limit"), (["note", "edit", "--help"], "ID")],
)
def test_help_shows_a_human_range(args: list[str], option: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0
    assert "4611686018427387904" not in result.output
    if option == "--limit":
        assert "[x>=1]" in result.output


def test_limit_zero_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["list", "--limit", "0"])
    assert result.exit_code == 2
    assert "0 is not in the range x>=1" in result.stderr


HOSTILE_RIS = (
    "TY  - JOUR\n"
    "TI  - Clear\x1b[2J screen\x07 and [/] [bold]markup[/bold]\n"
    "AU  - Doe\x1b]0;pwned\x07, Jane\n"
    "AB  - An abstract\x1b[31m in red\x9b with C1.\n"
    "PY  - 2024\n"
    "ER  - \n"
)


def test_control_characters_are_never_printed_raw(invoke, tmp_path: Path) -> None:
    source = tmp_path / "hostile.ris"
    source.write_text(HOSTILE_RIS, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    listing = invoke("list", env={"COLUMNS": "200"})
    assert listing.exit_code == 0
    assert "\x1b" not in listing.stdout
    assert "\x07" not in listing.stdout
    assert "Clear␛[2J screen␇ and [/] [bold]markup[/bold]" in listing.stdout
    key = invoke("list", "-k").stdout.strip()
    shown = invoke("show", key)
    assert shown.exit_code == 0
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in shown.stdout
    assert "An abstract␛[31m in red\ufffd with C1." in shown.stdout
    as_json = invoke("list", "--json")
    assert "\x1b" not in as_json.stdout
    assert "\x9b" not in as_json.stdout

    [paper] = json.loads(as_json.stdout)
    assert paper["title"] == "Clear\x1b[2J screen\x07 and [/] [bold]markup[/bold]"
    assert paper["abstract"] == "An abstract\x1b[31m in red\x9b with C1."


def test_rich_table_shows_brackets_as_text(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from readinglist import render
    from readinglist.records import PaperRecord

    monkeypatch.setattr(render, "use_rich", lambda stream=None: True)
    render.paper_table([PaperRecord(citekey="k", title="A [/] title with [bold]markup[/bold]")])
    assert "[/] title with [bold]markup[/bold]" in capsys.readouterr().out


def test_change_summary_of_a_large_selection_is_linear(capsys: pytest.CaptureFixture[str]) -> None:
    from readinglist.cli.mark import report_changes

    keys = [f"k{i}" for i in range(60_000)]
    report_changes("marked {n} to-read", keys, keys[::2], False, "already to-read")
    assert capsys.readouterr().err == "marked 30000 papers to-read (30000 already to-read)\n"


def test_export_never_overwrites_the_library(tmp_path: Path, example_abstracts: Path) -> None:
    db = tmp_path / "lib.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db), "import", str(example_abstracts)]).exit_code == 0
    before = db.read_bytes()
    for target in (db, Path(f"{db}-wal")):
        result = runner.invoke(cli, ["--db", str(db), "export", "bibtex", "-o", str(target)])
        assert result.exit_code == 2
        assert result.stderr == f"Error: {target} is the database itself; name another file\n"
    assert db.read_bytes() == before
    assert runner.invoke(cli, ["--db", str(db), "list", "-k"]).stdout.count("\n") == 19


@pytest.mark.parametrize(
    "args",
    [
        ["show", "bad\udcff"],
        ["tag", "add", "bad\udcff", "spar2026"],
        ["note", "add", "spar2026", "-m", "b\udcff"],
        ["title", "spar2026", "b\udcff"],
    ],
)
def test_arguments_that_are_not_utf8_are_one_line_exit_2(
    tmp_path: Path, example_abstracts: Path, args: list[str]
) -> None:
    """Bytes that are not UTF-8 in argv reach Python as surrogates (PEP 383)."""
    db = tmp_path / "lib.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db), "import", str(example_abstracts)]).exit_code == 0
    result = runner.invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 2
    assert result.stderr == "Error: an argument is not valid UTF-8 text\n"
