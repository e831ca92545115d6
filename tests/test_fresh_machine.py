"""A new user on a fresh machine: no silent side effects, clear ends (both databases).

Reads create nothing (no SQLite file or folder, no PostgreSQL table); ``--db`` named like
an input file is refused; Ctrl-C ends with exit 130 and the library as it was (a real
process); read-only libraries and a missing editor are named; a re-import changes nothing
and says only its summary; a file in another format than its name gets a hint; a service
that cannot be asked or reached is an error. And the test set-up: a missing program
fails its test with one line; the leftovers of interrupted runs are swept.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from click.testing import CliRunner, Result
from conftest import PG_ADMIN_URL, RUN_TMP, SYSTEM_TMP, blank_pg_database, sweep_leftovers
from helpers import ROOT, run_nested_suite, sql_value, sql_values

from readinglist.cli import cli

BIN = Path(sys.executable).parent
READS = [
    ["list"],
    ["show", "k1"],
    ["export", "bibtex"],
    ["stats"],
    ["duplicates"],
    ["tag", "list"],
    ["db", "current"],
    ["db", "check"],
    ["topics"],
    # writes to papers that must exist first: no library is made for them either
    ["mark", "read", "k1"],
    ["tag", "add", "x", "k1"],
    ["note", "add", "k1", "-m", "text"],
    ["title", "k1", "A title"],
    ["rm", "--yes", "k1"],
    ["import", "--undo", "1"],
]
ENTRY = "@article{{k{i}, title={{A Study of Topic {i} in Depth}}, author={{Doe{i}, Jane}}, year={{{y}}}, journal={{J}}, publisher={{{p}}}}}\n"


def bib(n: int, publisher: str = "Old Press") -> str:
    return "".join(ENTRY.format(i=i, y=1990 + i % 30, p=publisher) for i in range(n))


def run(*args: str, env: dict[str, str | None] | None = None, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env, input=input)


@pytest.fixture
def empty_pg(request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a PostgreSQL database with no table at all (as the server's ``postgres``)."""
    yield from blank_pg_database(request)


def pg_tables(url: str) -> int:
    return int(sql_value(url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"))


# --- point 3: reads create nothing; writes say they created ------------------------------


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a))
def test_reads_of_a_missing_sqlite_library_create_nothing(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "empty.db").write_bytes(b"")
    for db, shown in (
        (str(tmp_path / "no" / "such" / "lib.db"), tmp_path / "no" / "such" / "lib.db"),
        ("~/lib.db", home / "lib.db"),
        (str(tmp_path / "empty.db"), tmp_path / "empty.db"),
    ):
        before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
        result = run("--db", db, *args, env={"HOME": str(home)})
        assert result.exit_code == 6, result.output
        assert result.stdout == ""
        assert result.stderr.startswith(f"Error: no library at {shown} (")
        assert "nothing was created" in result.stderr
        assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_reads_of_an_empty_postgresql_database_create_no_table(empty_pg: str) -> None:
    for args in READS:
        result = run("--db", empty_pg, *args)
        assert result.exit_code == 6, (args, result.output)
        assert "Error: no library at postgresql+psycopg://" in result.stderr
        assert "the database holds no" in result.stderr
        assert pg_tables(empty_pg) == 0


def test_a_write_creates_the_library_and_says_so(tmp_path: Path, empty_pg: str) -> None:
    source = tmp_path / "a.bib"
    source.write_text(bib(2), encoding="utf-8")
    home = tmp_path / "home"
    for db, shown in (
        (str(tmp_path / "new" / "lib.db"), str(tmp_path / "new" / "lib.db")),
        ("~/papers.db", str(home / "papers.db")),
        (empty_pg, empty_pg),
    ):
        result = run("--db", db, "import", str(source), env={"HOME": str(home)})
        assert result.exit_code == 0, result.output
        assert result.stderr.splitlines()[0] == f"created a new library at {shown}"
        again = run("--db", db, "import", str(source), env={"HOME": str(home)})
        assert "created" not in again.stderr
        listed = run("--db", db, "list", env={"HOME": str(home)})
        assert (listed.exit_code, listed.stdout.count("\n")) == (0, 3)
    assert (home / "papers.db").is_file()
    assert pg_tables(empty_pg) > 10


@pytest.mark.parametrize("name", ["refs.bib", "refs.bib.gz", "x.ris", "zotero.json", "list.md"])
def test_an_input_file_name_as_the_library_is_refused(tmp_path: Path, name: str) -> None:
    for args in (["list"], ["mark", "read", "k1"], ["db", "current"], ["add", "--title", "T"]):
        result = run("--db", str(tmp_path / name), *args)
        assert result.exit_code == 2, result.output
        assert "not a library database" in result.stderr
        assert f"readinglist import {tmp_path / name}" in result.stderr
        assert "such as papers.db" in result.stderr
        assert list(tmp_path.iterdir()) == []


def test_an_sqlite_library_named_json_is_still_read(tmp_path: Path) -> None:
    source = tmp_path / "a.bib"
    source.write_text(bib(1), encoding="utf-8")
    assert run("--db", str(tmp_path / "lib.db"), "import", str(source)).exit_code == 0
    (tmp_path / "lib.db").rename(tmp_path / "lib.json")
    result = run("--db", str(tmp_path / "lib.json"), "list")
    assert (result.exit_code, result.stdout.count("\n")) == (0, 2)


# --- point 4: Ctrl-C ---------------------------------------------------------------------


def _opened(pid: int, path: Path) -> bool:
    """True when process ``pid`` or one of its children has ``path`` open."""
    pids = [str(pid)]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
            pids += children
        for p in pids:
            for fd in os.listdir(f"/proc/{p}/fd"):
                if os.readlink(f"/proc/{p}/fd/{fd}") == str(path):
                    return True
    except OSError:
        return False
    return False


def snapshot(url: str) -> tuple[Any, ...]:
    return (
        sql_values(
            url,
            "SELECT p.citekey, d.status, p.title FROM papers p "
            "LEFT JOIN decisions d ON d.paper_id = p.id ORDER BY p.citekey",
        ),
        sql_value(url, "SELECT count(*) FROM import_batches"),
        sql_value(url, "SELECT count(*) FROM merge_conflicts"),
    )


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")
def test_ctrl_c_during_an_import_exits_130_and_changes_nothing(db_url: str, tmp_path: Path) -> None:
    small, big = tmp_path / "small.bib", tmp_path / "big.bib"
    small.write_text(bib(3), encoding="utf-8")
    big.write_text(bib(60000, "New Press"), encoding="utf-8")
    assert run("--db", db_url, "import", str(small)).exit_code == 0
    before = snapshot(db_url)
    process = subprocess.Popen(
        [str(BIN / "readinglist"), "--db", db_url, "import", str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not _opened(process.pid, big) and process.poll() is None:
        assert time.monotonic() < deadline, "the import never opened its input"
        time.sleep(0.05)
    time.sleep(0.3)
    assert process.poll() is None, "the import ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130
    assert (out, err) == ("", "Interrupted: nothing was imported; the library is unchanged\n")
    assert snapshot(db_url) == before


def test_ctrl_c_during_an_export_leaves_no_file(
    invoke: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readinglist.pipelines import exporting

    source = tmp_path / "a.bib"
    source.write_text(bib(5), encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    out = tmp_path / "out.bib"
    out.write_text("kept\n", encoding="utf-8")

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(exporting, "write_papers", interrupted)
    result = invoke("export", "bibtex", "-o", str(out))
    assert result.exit_code == 130
    assert result.stderr == "Interrupted: nothing was written; the library is unchanged\n"
    assert out.read_text(encoding="utf-8") == "kept\n"
    names = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("library.db"))
    assert names == ["a.bib", "out.bib"]  # no temporary file left


# --- point 5: read-only library, no editor -----------------------------------------------


def test_a_write_to_a_read_only_postgresql_library_names_it(empty_pg: str, tmp_path: Path) -> None:
    db_url = empty_pg
    source = tmp_path / "a.bib"
    source.write_text(bib(2), encoding="utf-8")
    assert run("--db", db_url, "import", str(source)).exit_code == 0
    from sqlalchemy import create_engine

    name = db_url.rpartition("/")[2]
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    admin.dispose()
    # The setting holds for new server processes (as for the next command of a new
    # `readinglist` process); this process's kept engine closes its idle one.
    from readinglist import db

    db.make_engine(db_url).dispose()
    result = run("--db", db_url, "mark", "read", "k1")
    assert result.exit_code == 6
    assert result.stderr.startswith(
        f"Error: {db_url}: the library is read-only (read-only transaction); nothing was changed"
    )
    assert run("--db", db_url, "list").exit_code == 0


def test_a_write_to_a_read_only_sqlite_file_names_it(tmp_path: Path) -> None:
    folder = RUN_TMP / f"readonly-{tmp_path.name}"
    folder.mkdir()
    try:
        db = folder / "lib.db"
        source = tmp_path / "a.bib"
        source.write_text(bib(2), encoding="utf-8")
        assert run("--db", str(db), "import", str(source)).exit_code == 0
        before = db.read_bytes()
        argv = [str(BIN / "readinglist"), "--db", str(db), "mark", "read", "k1"]
        if os.geteuid() == 0:  # root writes any file: run as nobody instead
            # nobody must reach the installed command: a checkout in a 0700 folder (made
            # by mktemp -d) is closed to it, which is this machine's set-up, not the rule.
            closed = [p for p in (BIN, *BIN.parents) if not p.stat().st_mode & 0o001]
            assert not closed, f"user nobody cannot reach {BIN}: chmod o+x {closed[0]}"
            argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
        else:
            db.chmod(0o444)
            folder.chmod(0o555)
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        assert done.returncode == 6, done.stderr
        assert done.stderr.startswith(
            f"Error: {db}: the library is read-only (attempt to write a readonly database); "
            "nothing was changed. Check the permissions of the file and its folder"
        )
        assert "Traceback" not in done.stderr
        assert db.read_bytes() == before
    finally:
        folder.chmod(0o755)


def test_a_library_on_a_read_only_file_system_says_so(tmp_path: Path) -> None:
    """A library on a read-only file system (a read-only mount: a snapshot, a share): SQLite
    cannot make the -wal/-shm files it needs even to read a WAL library, and its "unable
    to open database file" was reported as "not a readinglist database". Reads and
    writes now say the file system is read-only (exit 6), and the file is unchanged. The
    mount is a real one, in a mount namespace of its own (``unshare``; as a user, in a
    user namespace too)."""
    folder = tmp_path / "ro"
    db = folder / "lib.db"
    source = tmp_path / "a.bib"
    source.write_text(bib(2), encoding="utf-8")
    assert run("--db", str(db), "import", str(source)).exit_code == 0
    before = db.read_bytes()
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"'
    command = str(BIN / "readinglist")
    for args in (["list"], ["mark", "read", "k1"]):
        argv = ["unshare", *user, "--mount", "sh", "-c", script, "-", str(folder), command]
        done = subprocess.run(
            [*argv, "--db", str(db), *args], capture_output=True, text=True, check=False
        )
        assert not done.stderr.startswith(("unshare:", "mount:")), f"no mount: {done.stderr}"
        assert (done.returncode, done.stdout) == (6, ""), done.stderr
        assert done.stderr == (
            f"Error: {db}: the library is on a read-only file system (unable to open database "
            "file); SQLite writes its -wal and -shm files beside a library even to read it: "
            "copy it to a writable folder to use it\n"
        )
    assert db.read_bytes() == before


def test_note_add_without_a_terminal_or_editor_says_to_use_m(
    invoke: Callable[..., Result], tmp_path: Path
) -> None:
    source = tmp_path / "a.bib"
    source.write_text(bib(1), encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    for args in (["note", "add", "k0"], ["edit", "k0"]):
        result = invoke(*args, env={"EDITOR": None, "VISUAL": None})
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(
            "Error: no editor to open: no terminal and neither VISUAL nor EDITOR is set; "
        )
        assert ("-m TEXT" in result.stderr) == (args[0] == "note")
    assert invoke("note", "list", "k0").stdout == ""


# --- point 6: re-import -------------------------------------------------------------------


def exports(invoke: Callable[..., Result], folder: Path) -> dict[str, bytes]:
    out = {}
    for fmt in ("bibtex", "biblatex", "ris", "csl-json", "markdown"):
        path = folder / f"export.{fmt}"
        assert invoke("export", fmt, "-o", str(path)).exit_code == 0
        out[fmt] = path.read_bytes()
    return out


def test_a_re_import_prints_its_summary_and_changes_nothing(
    invoke: Callable[..., Result], db_url: str, tmp_path: Path
) -> None:
    first, second = tmp_path / "first.bib", tmp_path / "second.bib"
    first.write_text(bib(40), encoding="utf-8")
    second.write_text(bib(40, "Another Press"), encoding="utf-8")
    assert invoke("import", str(first)).exit_code == 0
    merged = invoke("import", str(second))
    assert merged.exit_code == 0
    assert merged.stderr.splitlines() == [
        f"{second}: 40 papers kept other values in the merge history "
        "(readinglist merge --history KEY); --verbose names them",
        f"{second} (bibtex): 0 added, 0 merged, 40 already present, 0 rejected",
    ]
    history = sql_values(
        db_url, "SELECT paper_id, field, source FROM merge_conflicts ORDER BY paper_id, field"
    )
    assert len(history) == 40
    before = exports(invoke, tmp_path)
    again = invoke("import", str(second))
    assert again.stderr == f"{second} (bibtex): 0 added, 0 merged, 40 already present, 0 rejected\n"
    assert (
        sql_values(
            db_url, "SELECT paper_id, field, source FROM merge_conflicts ORDER BY paper_id, field"
        )
        == history
    )
    assert exports(invoke, tmp_path) == before
    third = tmp_path / "third.bib"
    third.write_text(bib(40, "Third Press"), encoding="utf-8")
    verbose = invoke("import", "--verbose", str(third))
    assert verbose.stderr.count("are kept in its merge history") == 40
    assert sql_value(db_url, "SELECT count(*) FROM merge_conflicts") == 80


# --- point 7: format hints -----------------------------------------------------------------


def test_a_file_in_another_format_gets_a_hint(
    invoke: Callable[..., Result], db_url: str, tmp_path: Path
) -> None:
    wrong = tmp_path / "wrong.bib"
    wrong.write_text("TY  - JOUR\nTI  - A title of a paper\nAU  - Doe, J.\nER  - \n", "utf-8")
    result = invoke("import", str(wrong))
    assert (result.exit_code, result.stderr) == (
        5,
        f"Error: {wrong}: no papers found (read as bibtex; its content looks like ris: "
        "import it with --format ris)\n",
    )
    refs = tmp_path / "refs.bib"
    refs.write_text(bib(30), encoding="utf-8")
    for fmt, other in (("ris", "bibtex"), ("csl-json", "bibtex"), ("abstracts", "bibtex")):
        result = invoke("import", "--format", fmt, str(refs))
        assert result.exit_code == 5, (fmt, result.output)
        assert (
            result.stderr.splitlines()
            == [
                f"Error: {refs}: no papers found (read as {fmt}; its content looks like "
                f"{other}: import it with --format {other})"
            ]
            or fmt == "abstracts"
        )
    assert sql_value(db_url, "SELECT count(*) FROM papers") == 0


# --- point 8: services that cannot be asked or reached ------------------------------------


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """No network: every request fails to connect."""
    from readinglist.sources import http

    monkeypatch.setattr(http, "pause", lambda seconds: None)
    monkeypatch.setenv("READINGLIST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("READINGLIST_CONTACT", "tester@example.org")
    with respx.mock() as mock:
        mock.route().mock(side_effect=httpx.ConnectError("Name or service not known"))
        yield mock


@pytest.mark.parametrize("service", ["dblp", "crossref", "arxiv"])
def test_an_unreachable_service_is_exit_6_for_every_selection(
    invoke: Callable[..., Result], tmp_path: Path, offline: Any, service: str
) -> None:
    listing = tmp_path / "list.txt"
    listing.write_text(
        "ICML 2026 Papers\n\n"
        + "\n\n".join(
            f"We study problem {w} of learning with many distinct words, {w} in depth."
            for w in ("alpha", "beta", "gamma")
        )
        + "\n",
        encoding="utf-8",
    )
    refs = tmp_path / "refs.bib"
    refs.write_text(
        "@misc{t1, title={A Title Without Venue}, author={Doe, Jane}}\n", encoding="utf-8"
    )
    assert invoke("import", str(listing)).exit_code == 0
    assert invoke("import", str(refs)).exit_code == 0
    before = invoke("list", "--json").stdout
    for query in ([], ["key:t1"], ["is:provisional"]):
        result = invoke("resolve", *query, "--online", "--service", service)
        assert result.exit_code == 6, (query, result.output)
        assert "nothing" in result.stderr.splitlines()[-1]
        assert "not found" not in result.stderr
        assert "Traceback" not in result.output
    assert invoke("list", "--json").stdout == before


# --- the test set-up (README quick start, command 2) ---------------------------------------


def test_readme_test_command_does_its_own_setup_and_ci_runs_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if "pytest -n 2" in line)
    assert "sh tests/setup-tools.sh" in command
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = command.split(" && .venv/bin/pytest")[0]
    assert install in ci
    assert "step .venv/bin/pytest -n 2\n" in ci
    done = subprocess.run(["sh", str(ROOT / "tests" / "setup-tools.sh")], capture_output=True)
    assert done.returncode == 0


@pytest.fixture(scope="module")
def nested_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, list[str]]:
    """One run of pytest, in a process of its own, on a folder holding the suite's
    conftest.py and helpers.py and two tests: one marked ``tools`` with a program that
    does not exist, one writing a file in its ``tmp_path``; the system temp folder is an
    empty folder of its own. Returns the exit code, the output, and what the system temp
    folder holds after the run. (One run for the two tests below: a run costs a pytest
    start-up, the suite's conftest and the sweep of leftovers.)"""
    folder = tmp_path_factory.mktemp("nested")
    system = folder / "system-tmp"
    system.mkdir()
    (folder / "test_x.py").write_text(
        "import pytest\n\n@pytest.mark.tools('no-such-program-rl')\ndef test_x():\n    pass\n"
        "\n\ndef test_y(tmp_path):\n    (tmp_path / 'f.txt').write_text('x')\n",
        encoding="utf-8",
    )
    env = {**os.environ, "TMPDIR": str(system), "RLTEST_SYSTEM_TMP": str(system)}
    done = run_nested_suite(folder, env, "-rA")
    return done.returncode, done.stdout, sorted(p.name for p in system.iterdir())


def test_a_test_needing_a_missing_program_fails_with_one_line(
    nested_run: tuple[int, str, list[str]],
) -> None:
    code, out, _ = nested_run
    assert code == 1, out
    assert "ERROR test_x.py::test_x - Failed: needs no-such-program-rl" in out
    assert "needs no-such-program-rl, not installed (run: sh tests/setup-tools.sh)" in out
    assert "skipped" not in out


def test_leftovers_of_ended_runs_are_swept_and_live_ones_kept() -> None:
    from sqlalchemy import create_engine

    ended = subprocess.Popen(["true"])
    ended.wait()
    gone = SYSTEM_TMP / f"rltest-{ended.pid}-tmp"
    gone.mkdir()
    (gone / "biber_tmp_x").mkdir()
    name = f"rltest_{ended.pid}_t_leftover"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    removed = sweep_leftovers()
    assert {gone.name, name} <= set(removed)
    assert not gone.exists()
    assert RUN_TMP.exists()  # this run's own
    with admin.connect() as conn:
        left = conn.exec_driver_sql(
            "SELECT count(*) FROM pg_database WHERE datname = %(n)s", {"n": name}
        ).scalar()
    admin.dispose()
    assert left == 0


# --- the hostile-input classes on this turn's surface: --db resolution, import --verbose ---


@pytest.mark.parametrize(
    "value",
    [
        "/dev/null",
        "{tmp}",
        "file:{tmp}/x.db",
        "{tmp}/what?x=1.db",
        "{tmp}/b\udcff.db",
        "~no_such_user_rl/x.db",
        "{tmp}/" + "x" * 300 + ".db",
        "{tmp}/fifo.db",
        "{tmp}/refs.BIB",
    ],
    ids=["device", "folder", "uri", "query", "not-utf8", "tilde-user", "long", "fifo", "upper"],
)
@pytest.mark.parametrize("args", [["list"], ["import", "-"], ["note", "add", "k0"]])
def test_hostile_db_values_are_one_line_and_create_nothing(
    tmp_path: Path, value: str, args: list[str]
) -> None:
    os.mkfifo(tmp_path / "fifo.db")
    before = sorted(tmp_path.iterdir())
    result = run("--db", value.format(tmp=tmp_path), *args, input=bib(1), env={"EDITOR": None})
    assert "Traceback" not in result.stderr
    assert not Path("~no_such_user_rl").exists()
    if result.exit_code == 0:  # a strange but possible file name: a write may create it
        assert args == ["import", "-"]
        assert result.stderr.startswith("created a new library at ")
        return
    assert result.exit_code in (2, 6), result.output
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("Error: ")
    assert sorted(tmp_path.iterdir()) == before


def test_import_verbose_with_hostile_input(invoke: Callable[..., Result], tmp_path: Path) -> None:
    weird = tmp_path / "weird.bib"
    weird.write_text(bib(3) + bib(3, "\x1b[31mRed\x07 Press"), encoding="utf-8")
    result = invoke("import", "--verbose", str(weird))
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stderr
    assert "\x07" not in result.stderr
    assert "Traceback" not in result.output


def test_a_run_leaves_nothing_in_the_system_temp_folder(
    nested_run: tuple[int, str, list[str]],
) -> None:
    """pytest's own ``pytest-of-<user>/pytest-<n>`` folders (kept three runs) were left in
    the system temp folder with a thousand test folders each. A run (here one test using
    ``tmp_path``, and one failing at its set-up) leaves that folder as it found it."""
    code, out, left = nested_run
    assert "PASSED test_x.py::test_y" in out
    assert "1 passed, 1 error" in out, out
    assert code == 1, out
    assert left == []


def test_a_re_import_of_a_file_with_warnings_says_only_its_summary(
    invoke: Callable[..., Result], tmp_path: Path
) -> None:
    """The warnings of a file (here a bare ``&`` and a value that is not inert markup) are
    said at its first import; importing it again, unchanged, says one line that counts
    them (``--verbose`` writes them again)."""
    source = tmp_path / "warned.bib"
    source.write_text(
        "@article{a2020, title = {Cats & Dogs}, author = {Doe, Jane}, year = 2020}\n"
        "@article{b2020, title = {Bold \\unknowncommand{x}}, author = {Roe, Ann}, year = 2020}\n",
        encoding="utf-8",
    )
    first = invoke("import", str(source))
    assert first.exit_code == 0, first.output
    warnings = [line for line in first.stderr.splitlines() if line.startswith("warning:")]
    assert warnings
    again = invoke("import", str(source))
    assert again.exit_code == 0
    noun = "warning" if len(warnings) == 1 else "warnings"
    assert again.stderr == (
        f"{source} (bibtex): 0 added, 0 merged, 2 already present, 0 rejected "
        f"({len(warnings)} {noun} as before: --verbose)\n"
    )
    verbose = invoke("import", "--verbose", str(source))
    assert [line for line in verbose.stderr.splitlines() if line.startswith("warning:")] == (
        warnings
    )
