"""Shell completion (issue 6): every REF, TAG, STATUS and QUERY completes from the library.

Completion is driven the way the shells drive it: Click's protocol (``COMP_WORDS``,
``COMP_CWORD``, ``_READINGLIST_COMPLETE=bash_complete``) in-process, on SQLite and
PostgreSQL; the installed ``readinglist`` and ``rl`` scripts in a subprocess; the
``bash_source`` script in a real bash (COMPREPLY); and an interactive bash on a
pseudo-terminal, which shows what readline finally puts on the command line (bash
splits words at ``:`` and ``=``). Tests that need bash skip when it is absent.

The library: vaswani2017attention (tags nlp/transformers, Thesis), DBLP:conf/nips/HoJA20
(alias ho2020denoising, tag vision), dosovitskiy2021image (tags vision, thesis).
"""

from __future__ import annotations

import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from conftest import make_database

from readinglist.cli import cli
from readinglist.cli._complete import complete_ref, complete_tag

BIN = Path(sys.executable).parent
KEYS = ["DBLP:conf/nips/HoJA20", "dosovitskiy2021image", "ho2020denoising", "vaswani2017attention"]
TAGS = ["nlp/transformers", "Thesis", "vision"]
STATUSES = ["new", "to-read", "reading", "read", "skipped"]


def build_library(url: str) -> None:
    """Fill the database at ``url`` with the three papers of the module docstring."""
    runner = CliRunner()
    papers = [
        ("Attention Is All You Need", "Vaswani, Ashish", "2017", ["nlp/transformers", "Thesis"]),
        ("Denoising Diffusion Probabilistic Models", "Ho, J", "2020", ["vision"]),
        ("An Image is Worth 16x16 Words", "Dosovitskiy, A", "2021", ["vision", "thesis"]),
    ]
    commands = [
        ["add", "--title", title, "--author", author, "--year", year]
        + [arg for tag in tags for arg in ("--tag", tag)]
        for title, author, year, tags in papers
    ]
    for args in (
        *commands,
        ["rekey", "ho2020denoising", "DBLP:conf/nips/HoJA20"],
    ):
        result = runner.invoke(cli, ["--db", url, *args])
        assert result.exit_code == 0, result.output


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def library_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The library on SQLite, then on PostgreSQL; tests only read it."""
    urls = make_database(request.param, request, tmp_path_factory.mktemp("complib"))
    url = next(urls)
    build_library(url)
    yield url
    next(urls, None)


@pytest.fixture(scope="module")
def sqlite_library(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The library in an SQLite file (for the subprocess and bash tests); its path."""
    directory = tmp_path_factory.mktemp("complib_sqlite")
    urls = make_database("sqlite", request, directory)
    build_library(next(urls))
    yield str(directory / "library.db")
    next(urls, None)


def protocol(shell: str, line: list[str], db: str, prog: str = "readinglist") -> dict[str, str]:
    """The environment ``shell``'s script sets to complete the last word of ``line``."""
    words = [prog, *line]
    env = {f"_{prog.upper()}_COMPLETE": f"{shell}_complete", "READINGLIST_DB": db}
    if shell == "fish":  # the line up to the cursor, and the word being completed
        env["COMP_WORDS"] = " ".join(shlex.quote(w) for w in words if w) + (" " * (not line[-1]))
        env["COMP_CWORD"] = shlex.quote(line[-1]) if line[-1] else ""
    else:
        env["COMP_WORDS"] = "\n".join(shlex.quote(w) for w in words)
        env["COMP_CWORD"] = str(len(words) - 1)
    return env


def parse(shell: str, out: str) -> list[str]:
    """The values (type,value for bash and fish; type/value/help lines for zsh)."""
    if shell == "zsh":
        lines = out.splitlines()
        return [lines[i + 1].replace("\\:", ":") for i in range(0, len(lines), 3)]
    return [line.split("\t", 1)[0].split(",", 1)[1] for line in out.splitlines() if line]


def complete(shell: str, line: list[str], db: str) -> list[str]:
    """Complete the last word of ``line`` (``""`` after a space) in-process."""
    result = CliRunner().invoke(cli, [], prog_name="readinglist", env=protocol(shell, line, db))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return parse(shell, result.stdout)


# --- every parameter that names a paper or a tag completes --------------------------------------


def walk(command: click.Command, path: str = "") -> Iterator[tuple[str, click.Parameter]]:
    """Yield ``(command path, parameter)`` for every parameter of the command tree."""
    for param in command.params:
        yield path, param
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from walk(sub, f"{path} {name}".strip())


def test_every_ref_and_tag_parameter_has_its_completion() -> None:
    refs, tags = [], []
    for path, param in walk(cli):
        metavar = param.metavar or ""
        words = set(metavar.replace("...", "").split())
        if words & {"REF", "KEEP", "OTHER"}:
            assert param._custom_shell_complete is complete_ref, (path, param.name)
            refs.append(f"{path} {metavar}")
        if words & {"TAG", "OLD", "SOURCE"}:
            assert param._custom_shell_complete is complete_tag, (path, param.name)
            tags.append(f"{path} {metavar}")
    assert sorted(refs) == [
        "edit REF",
        "mark REF...",
        "merge KEEP",
        "merge OTHER...",
        "note add REF",
        "note list REF",
        "priority REF...",
        "rekey REF",
        "rm REF...",
        "show REF",
        "similar REF",
        "tag add REF...",
        "tag remove REF...",
        "title REF",
    ]
    assert sorted(tags) == [
        "add TAG",
        "import TAG",
        "tag add TAG",
        "tag merge SOURCE... TARGET",
        "tag remove TAG",
        "tag rename OLD",
    ]


@pytest.mark.parametrize(
    "line",
    [
        ["show"],
        ["mark", "read"],
        ["mark", "read", "vaswani2017attention"],
        ["priority", "high"],
        ["tag", "add", "thesis"],
        ["tag", "remove", "thesis"],
        ["note", "add"],
        ["note", "list"],
        ["title"],
        ["edit"],
        ["rm"],
        ["rm", "--yes"],
        ["rekey"],
        ["merge"],
        ["merge", "vaswani2017attention"],
    ],
    ids=" ".join,
)
def test_refs_complete_citation_keys_and_aliases(line: list[str], library_url: str) -> None:
    assert complete("bash", [*line, "d"], library_url) == KEYS[:2]
    assert complete("bash", [*line, "HO"], library_url) == ["ho2020denoising"]
    assert complete("zsh", [*line, ""], library_url) == KEYS


@pytest.mark.parametrize(
    "line",
    [
        ["tag", "add"],
        ["tag", "remove"],
        ["tag", "rename"],
        ["tag", "merge", "vision"],
        ["import", "-t"],
        ["import", "--tag"],
        ["add", "--title", "X", "--tag"],
    ],
    ids=" ".join,
)
def test_tags_complete_tag_names(line: list[str], library_url: str) -> None:
    assert complete("bash", [*line, ""], library_url) == TAGS
    assert complete("bash", [*line, "th"], library_url) == ["Thesis"]
    assert complete("fish", [*line, "n"], library_url) == ["nlp/transformers"]


def test_statuses_priorities_and_choices(library_url: str) -> None:
    assert complete("bash", ["mark", ""], library_url) == STATUSES
    assert complete("bash", ["mark", "re"], library_url) == ["reading", "read"]
    assert complete("bash", ["priority", ""], library_url) == ["high", "medium", "low", "none"]
    assert complete("bash", ["export", "bib"], library_url) == ["bibtex", "biblatex"]
    assert complete("bash", ["list", "status", ":"], library_url) == STATUSES
    assert complete("zsh", ["list", "status:to"], library_url) == ["status:to-read"]
    assert complete("bash", ["list", "priority", ":", "h"], library_url) == ["high"]


def test_commands_and_options(library_url: str) -> None:
    assert complete("bash", [""], library_url) == sorted(cli.commands)
    assert complete("bash", ["tag", ""], library_url) == [
        "add",
        "list",
        "merge",
        "remove",
        "rename",
    ]
    assert complete("bash", ["note", ""], library_url) == ["add", "edit", "list", "rm"]
    assert complete("bash", ["db", "c"], library_url) == ["check", "current"]
    assert complete("bash", ["mark", "read", "-"], library_url) == [
        "-q",
        "--query",
        "--json",
        "-h",
        "--help",
    ]
    assert complete("bash", ["list", "--so"], library_url) == ["--sort"]
    assert complete("bash", ["list", "--sort", "ye"], library_url) == ["year"]


def test_query_words_in_every_query_command(library_url: str) -> None:
    for command in (["list"], ["export", "bibtex"], ["triage"], ["stats"]):
        assert complete("bash", [*command, "ta"], library_url) == ["tag:"]
        assert complete("zsh", [*command, "tag:v"], library_url) == ["tag:vision"]
        assert complete("bash", [*command, "key", ":", "dbl"], library_url) == [
            "DBLP:conf/nips/HoJA20"
        ]
        assert complete("bash", [*command, "year:2020", "is", ":"], library_url) == [
            "provisional",
            "preprint",
        ]


def test_negated_query_terms(library_url: str) -> None:
    # Click hands a word starting with "-" to the command as an option name.
    assert complete("bash", ["list", "-ta"], library_url) == ["-tag:"]
    assert complete("bash", ["list", "-k"], library_url) == ["-k", "-key:"]
    assert complete("zsh", ["list", "-tag:v"], library_url) == ["-tag:vision"]
    assert complete("bash", ["list", "-tag", ":", "v"], library_url) == ["vision"]
    assert complete("bash", ["stats", "(-status", ":", "sk"], library_url) == ["skipped"]
    assert complete("bash", ["list", "--", "-ta"], library_url) == ["-tag:"]


def test_query_option_values(library_url: str) -> None:
    assert complete("bash", ["mark", "read", "-q", "ta"], library_url) == ["tag:"]
    assert complete("bash", ["mark", "read", "-q", "tag", ":", "th"], library_url) == ["Thesis"]
    assert complete("bash", ["rm", "--query", "status", ":"], library_url) == STATUSES
    line = ["tag", "add", "x", "--query", "=", "key", ":", "va"]  # --query=key:va
    assert complete("bash", line, library_url) == ["vaswani2017attention"]
    # inside quotes bash keeps the whole value as one word; so do zsh and fish
    value = "status:read tag:th"
    assert complete("bash", ["priority", "low", "-q", value], library_url) == [
        "status:read tag:Thesis"
    ]
    assert complete("zsh", ["tag", "remove", "x", "-q", value], library_url) == [
        "status:read tag:Thesis"
    ]


def test_keys_with_colons_in_bash(library_url: str) -> None:
    # bash splits DBLP:conf/... at the colon and replaces only the text after it.
    assert complete("bash", ["show", "DBLP", ":", "conf"], library_url) == ["conf/nips/HoJA20"]
    assert complete("bash", ["show", "dblp", ":"], library_url) == ["conf/nips/HoJA20"]
    assert complete("bash", ["show", "dblp", ":", "x"], library_url) == []
    assert complete("zsh", ["show", "DBLP:co"], library_url) == ["DBLP:conf/nips/HoJA20"]
    assert complete("fish", ["show", "DBLP:co"], library_url) == ["DBLP:conf/nips/HoJA20"]
    # --option=value is split at "=" too
    assert complete("bash", ["add", "--tag", "=", "vi"], library_url) == ["vision"]
    assert complete("bash", ["list", "--sort", "=", "ye"], library_url) == ["year"]
    # without ":" in COMP_WORDBREAKS bash keeps whole words, and replaces them whole
    assert complete("bash", ["show", "DBLP:co"], library_url) == ["DBLP:conf/nips/HoJA20"]
    assert complete("bash", ["list", "status:to"], library_url) == ["status:to-read"]


def test_file_arguments_complete_file_names(library_url: str) -> None:
    for line in (["import", "ex"], ["--db", "ex"], ["export", "bibtex", "-o", "ex"]):
        env = protocol("bash", line, library_url)
        result = CliRunner().invoke(cli, [], prog_name="readinglist", env=env)
        assert result.stdout == "file,ex\n"


# --- the installed scripts, broken databases and environments -------------------------------------


def script(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{path} is not installed")
    return path


def run_installed(
    env: dict[str, str], prog: str = "readinglist"
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("COMP_", "_", "READINGLIST"))}
    return subprocess.run(
        [str(script(prog))], env={**base, **env}, capture_output=True, text=True, timeout=60
    )


def test_installed_scripts_complete_for_both_names(sqlite_library: str) -> None:
    for prog in ("readinglist", "rl"):
        done = run_installed(protocol("bash", ["show", "va"], sqlite_library, prog), prog)
        assert (done.returncode, done.stdout, done.stderr) == (
            0,
            "plain,vaswani2017attention\n",
            "",
        )


@pytest.mark.parametrize(
    "database",
    [
        "missing",
        "directory",
        "garbage",
        "no-parent",
        "mysql://nobody@127.0.0.1:1/none",
        "postgresql://nobody@127.0.0.1:1/none",
        "sqlite:////nonexistent/dir/x.db",
        "default",
    ],
)
def test_no_library_completes_nothing_and_prints_no_traceback(
    tmp_path: Path, database: str
) -> None:
    paths = {
        "missing": tmp_path / "library.db",
        "directory": tmp_path,
        "garbage": tmp_path / "garbage.db",
        "no-parent": tmp_path / "no" / "such" / "library.db",
    }
    (tmp_path / "garbage.db").write_bytes(b"not a database" * 100)
    db = str(paths.get(database, database))
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    for line, expected in ((["show", "va"], "\n"), (["list", "sta"], "plain,status:\n")):
        environment = {**protocol("bash", line, db), **env}
        if database == "default":
            del environment["READINGLIST_DB"]
        done = run_installed(environment)
        assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["garbage.db"]  # nothing created
    assert (tmp_path / "garbage.db").read_bytes() == b"not a database" * 100


@pytest.mark.parametrize(
    "env",
    [
        {"COMP_WORDS": "readinglist\nshow\nva", "COMP_CWORD": "x"},
        {"COMP_CWORD": "2"},
        {"COMP_WORDS": 'readinglist\nshow\n"unterminated', "COMP_CWORD": "2"},
        {"COMP_WORDS": "readinglist\nshow\nva", "COMP_CWORD": "99"},
    ],
)
def test_malformed_completion_requests_print_no_traceback(
    sqlite_library: str, env: dict[str, str]
) -> None:
    request = {"_READINGLIST_COMPLETE": "bash_complete", "READINGLIST_DB": sqlite_library, **env}
    done = run_installed(request)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "", "")


def test_completion_opens_the_library_read_only(sqlite_library: str) -> None:
    before = Path(sqlite_library).read_bytes()
    assert complete("bash", ["show", "va"], sqlite_library) == ["vaswani2017attention"]
    assert Path(sqlite_library).read_bytes() == before


# --- a real bash ---------------------------------------------------------------------------------


def bash() -> str:
    path = shutil.which("bash")
    if path is None:
        pytest.skip("bash is not installed")
    return path


def bash_env(db: str) -> dict[str, str]:
    return {
        "PATH": f"{script('readinglist').parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "READINGLIST_DB": db,
        "HOME": str(Path(db).parent),
        "INPUTRC": os.devnull,
        "TERM": "dumb",
    }


#: COMP_WORDS as bash fills them (split at ":" and "=") -> the COMPREPLY expected.
BASH_CASES = [
    (["readinglist", "show", "va"], ["vaswani2017attention"]),
    (["rl", "show", "va"], ["vaswani2017attention"]),
    (["readinglist", "mark", "re"], ["reading", "read"]),
    (["readinglist", "tag", "add", ""], TAGS),
    (["readinglist", "list", "status", ":", "to"], ["to-read"]),
    (["readinglist", "show", "DBLP", ":"], ["conf/nips/HoJA20"]),
    (["readinglist", "mark", "read", "-q", "tag", ":", "vi"], ["vision"]),
    (["readinglist", "list", "-tag", ":", "n"], ["nlp/transformers"]),
    (["readinglist", "add", "--tag", "=", "T"], ["Thesis"]),
]


@pytest.mark.parametrize(("words", "reply"), BASH_CASES, ids=[" ".join(w) for w, _ in BASH_CASES])
def test_bash_source_script_fills_compreply(
    sqlite_library: str, words: list[str], reply: list[str]
) -> None:
    """Source the generated script and call its function as bash's ``complete -F`` does."""
    prog = words[0]
    program = f"""
eval "$(_{prog.upper()}_COMPLETE=bash_source {prog})"
complete -p {prog}
COMP_WORDS=({" ".join(shlex.quote(w) for w in words)})
COMP_CWORD={len(words) - 1}
COMPREPLY=()
_{prog}_completion {prog}
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    done = subprocess.run(
        [bash(), "--norc", "--noprofile", "-c", program],
        env=bash_env(sqlite_library),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == f"complete -o nosort -F _{prog}_completion {prog}"
    assert [line for line in lines[1:] if line] == reply


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_interactive_bash_completes_the_command_line(sqlite_library: str) -> None:
    """Type TAB in an interactive bash and read back readline's line (``bind -x``).

    Only this shows how readline replaces the word: after ``status:`` bash's word is
    ``:`` but readline replaces the empty text after it.
    """
    import pty

    shell = bash()
    setup = Path(sqlite_library).parent / "setup.bash"
    setup.write_text(
        'eval "$(_READINGLIST_COMPLETE=bash_source readinglist)"\n'
        'eval "$(_RL_COMPLETE=bash_source rl)"\n'
        'bind -x \'"\\C-t": printf "\\nLINE[%s]\\n" "$READLINE_LINE"\'\n'
        'echo "READY""READY"\n'
    )
    cases = {
        "readinglist show vas": "readinglist show vaswani2017attention ",
        "rl show vas": "rl show vaswani2017attention ",
        "readinglist show DBLP:": "readinglist show DBLP:conf/nips/HoJA20 ",
        "readinglist show dblp:conf/n": "readinglist show dblp:conf/nips/HoJA20 ",
        "readinglist list status:to": "readinglist list status:to-read ",
        "readinglist list is:": "readinglist list is:pr",
        "readinglist list -tag:n": "readinglist list -tag:nlp/transformers ",
        "readinglist list key:DBLP:": "readinglist list key:DBLP:conf/nips/HoJA20 ",
        "readinglist mark read -q tag:vi": "readinglist mark read -q tag:vision ",
        "readinglist mark read -q 'status:read tag:vi": (
            "readinglist mark read -q 'status:read tag:vision' "
        ),
        "readinglist add --tag=nl": "readinglist add --tag=nlp/transformers ",
        "readinglist tag merge vision Th": "readinglist tag merge vision Thesis ",
    }
    pid, fd = pty.fork()
    if pid == 0:  # the child: an interactive bash without start-up files
        env = {**bash_env(sqlite_library), "PS1": "$ "}
        os.execve(shell, [shell, "--norc", "--noprofile", "-i"], env)
    seen = b""

    def until(marker: bytes) -> bytes:
        nonlocal seen
        deadline = time.monotonic() + 30
        while marker not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")[-2000:]
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    break
        head, _, seen = seen.partition(marker)
        return head

    lines: dict[str, str] = {}
    try:
        os.write(fd, f"source {shlex.quote(str(setup))}\n".encode())
        until(b"READYREADY")
        for typed in cases:
            os.write(fd, typed.encode() + b"\t\x14")  # TAB, then print the line (Ctrl-T)
            until(b"LINE[")
            lines[typed] = until(b"]\r\n").decode()
            os.write(fd, b"\x15")  # Ctrl-U: clear the line
        os.write(fd, b"exit\n")
    finally:
        os.close(fd)  # hangs up the terminal: bash exits if it has not yet
        deadline = time.monotonic() + 10
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.05)
    assert lines == cases


def test_completion_scripts_import_no_database_module() -> None:
    """Printing the completion script stays as light as --help (no SQLAlchemy)."""
    code = (
        "import sys, os; os.environ['_READINGLIST_COMPLETE'] = 'zsh_source'\n"
        "from readinglist.cli import cli\n"
        "try:\n    cli.main(prog_name='readinglist')\n"
        "except SystemExit:\n    pass\n"
        "print('SQLA', 'sqlalchemy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "compdef _readinglist_completion readinglist" in done.stdout
    assert done.stdout.rstrip().endswith("SQLA False")


def test_zsh_and_fish_show_what_a_field_means(library_url: str) -> None:
    from readinglist.query import FIELDS

    result: Any = CliRunner().invoke(
        cli, [], prog_name="readinglist", env=protocol("zsh", ["list", "stat"], library_url)
    )
    assert result.stdout.splitlines() == ["plain", "status\\:", FIELDS["status"]]
    result = CliRunner().invoke(
        cli, [], prog_name="readinglist", env=protocol("fish", ["list", "stat"], library_url)
    )
    assert result.stdout == f"plain,status:\t{FIELDS['status']}\n"


# --- the answer before Click (cli/_fast.py) ------------------------------------------------------


def bash_request(line: list[str]) -> dict[str, str]:
    """COMP_WORDS and COMP_CWORD as Click's bash script sends them (words joined by
    spaces, unquoted; an empty last word is a trailing space)."""
    return {"COMP_WORDS": " ".join(["readinglist", *line]), "COMP_CWORD": str(len(line))}


#: Lines whose last word is a REF or TAG positional argument: answered without Click.
FAST_LINES = [
    ["show", ""],
    ["show", "d"],
    ["show", "HO"],
    ["show", "DBLP", ":"],
    ["show", "DBLP", ":", "conf"],
    ["show", "dblp", ":", "x"],
    ["show", "DBLP:co"],
    ["mark", "read", ""],
    ["mark", "read", "vaswani2017attention", "d"],
    ["priority", "high", "ho"],
    ["tag", "add", ""],
    ["tag", "add", "th"],
    ["tag", "add", "nlp", "va"],
    ["tag", "remove", "vision", "d"],
    ["tag", "merge", "vision", ""],
    ["tag", "rename", "th"],
    ["merge", "vaswani2017attention", "d"],
    ["rm", "v"],
    ["note", "add", "v"],
    ["not-duplicate", "vaswani2017attention", "h"],
]

#: Lines the fast path leaves to Click: options, choices, queries, groups, full arguments.
CLICK_LINES = [
    [""],
    ["tag", ""],
    ["mark", "re"],
    ["mark", "read", "-q", "ta"],
    ["mark", "read", "-"],
    ["list", "sta"],
    ["show", "va", "x"],
    ["tag", "rename", "old", ""],
    ["rekey", "vaswani2017attention", "x"],
    ["add", "--tag", "=", "vi"],
    ["--db", "x.db", "show", "va"],
    ["import", "ex"],
    ["show", "=va"],
]


def test_fast_answers_equal_clicks(library_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from readinglist.cli._fast import answer_bash

    monkeypatch.setenv("READINGLIST_DB", library_url)
    for line in FAST_LINES:
        request = bash_request(line)
        fast = answer_bash(request)
        assert fast is not None, line
        env = {"_READINGLIST_COMPLETE": "bash_complete", **request}
        clicks = CliRunner().invoke(cli, [], prog_name="readinglist", env=env)
        assert (clicks.exit_code, clicks.stdout) == (0, fast + "\n"), line
    assert answer_bash(bash_request(["show", "va"])) == "plain,vaswani2017attention"
    assert answer_bash(bash_request(["tag", "add", "nlp", "va"])) == "plain,vaswani2017attention"
    for line in CLICK_LINES:
        assert answer_bash(bash_request(line)) is None, line
    # Quotes and backslashes are shlex's to read (Click's split_arg_string).
    assert answer_bash({"COMP_WORDS": "readinglist show 'va", "COMP_CWORD": "2"}) is None
    assert answer_bash({"COMP_WORDS": "readinglist show va", "COMP_CWORD": "x"}) is None


def test_fast_table_is_derived_from_the_commands() -> None:
    """cli/_completion_table.py is what ``python -m readinglist.cli._complete`` writes."""
    from readinglist.cli import _completion_table
    from readinglist.cli._complete import positional_completions, table_source

    assert Path(_completion_table.__file__).read_text(encoding="utf-8") == table_source(cli), (
        "run: python -m readinglist.cli._complete"
    )
    table = positional_completions(cli)
    assert table["show"] == ((1, "keys"),)
    assert table["tag add"] == ((1, "tags"), (-1, "keys"))
    assert "list" not in table  # a QUERY argument: Click completes it


#: A completing process that reports the modules it imported without importing any
#: itself (json would bring re).
MODULES_OF_COMPLETION = """
import sys
sys.argv = ["readinglist"]
from readinglist.cli import main
main()
sys.stdout.flush()
sys.stderr.write(" ".join(sorted(sys.modules)))
"""


def test_key_and_tag_completion_imports_neither_click_nor_sqlalchemy(sqlite_library: str) -> None:
    heavy = {"click", "sqlalchemy", "re", "typing", "dataclasses", "pathlib", "inspect"}
    for line, expected in (
        (["show", "va"], "plain,vaswani2017attention\n"),
        (["tag", "add", "th"], "plain,Thesis\n"),
        (["mark", "read", "DBLP", ":", "co"], "plain,conf/nips/HoJA20\n"),
    ):
        env = {
            **os.environ,
            "_READINGLIST_COMPLETE": "bash_complete",
            "READINGLIST_DB": sqlite_library,
            **bash_request(line),
        }
        done = subprocess.run(
            [sys.executable, "-c", MODULES_OF_COMPLETION],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.stdout == expected, line
        modules = set(done.stderr.split())
        assert "readinglist.cli._fast" in modules
        assert not {m for m in modules if m.split(".")[0] in heavy}, line


def test_completion_reads_a_library_whose_path_needs_escaping(
    sqlite_library: str, tmp_path: Path
) -> None:
    from readinglist import lookup

    odd = tmp_path / "a b?c#d%20é" / "lib?.db"
    odd.parent.mkdir()
    shutil.copyfile(sqlite_library, odd)
    assert lookup.sqlite_uri(str(odd)).endswith("/a b%3Fc%23d%2520é/lib%3F.db?mode=ro")
    assert lookup.keys_starting(f"sqlite:///{odd}", "va", 10) == ["vaswani2017attention"]
    assert lookup.tags_starting(f"sqlite:///{odd}", "TH", 10) == ["Thesis"]
