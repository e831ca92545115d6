"""``readinglist list`` / ``show`` with the query language, and shell completion (issue 6).

The library is the fixture library of test_query.py, built with the library functions;
every test runs on SQLite and on PostgreSQL (one database per module, only read).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import make_database
from test_query import ADDED_ORDER, build_library

from readinglist.render import PAPER_KEYS


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def library_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A database (SQLite, then PostgreSQL) holding the fixture library; tests only read it."""
    from readinglist import db

    urls = make_database(request.param, request, tmp_path_factory.mktemp("listlib"))
    url = next(urls)
    engine = db.make_engine(url)
    try:
        with db.session_scope(engine) as session:
            build_library(session)
    finally:
        engine.dispose()
    yield url
    next(urls, None)


@pytest.fixture
def filled(library_url: str) -> Callable[..., Result]:
    """Run ``readinglist --db <fixture library> ARGS...`` in-process."""
    from readinglist.cli import cli

    runner = CliRunner()

    def run(*args: str) -> Result:
        # a fixed width: the table fits the terminal (COLUMNS), which differs under xdist
        return runner.invoke(
            cli, ["--db", library_url, *args], prog_name="readinglist", env={"COLUMNS": "160"}
        )

    return run


def keys(result: Result) -> list[str]:
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


# --- list ------------------------------------------------------------------------------------


def test_list_keys_in_order_of_addition(filled) -> None:
    assert keys(filled("list", "-k")) == ADDED_ORDER


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-tag:old", "year:2022.."], ["muller2024", "provisional2026", "vanderberg2023"]),
        (["-author:smith", "status:to-read"], ["ho2020ddpm"]),
        (["-key:smith2019", "status:to-read"], ["ho2020ddpm"]),
        (["status:to-read", "-key:smith2019"], ["ho2020ddpm"]),
        (["--", "-key:smith2019", "status:to-read"], ["ho2020ddpm"]),
        (["-has:tags"], ["esa2020", "provisional2026"]),
        (["self correction"], ["muller2024"]),
        (["title:self correction"], ["muller2024"]),
        (
            ["-title:self correction", "status:reading", "OR", "status:to-read"],
            ["ho2020ddpm", "smith2019"],
        ),
        (['Schr{\\"o}dinger'], ["schrodinger1926", "muller2024"]),
        (["(tag:nlp", "OR", "tag:physics)"], ["vaswani2017", "schrodinger1926"]),
        (["tag:optimization", "--sort", "key"], ["smith2019", "vanderberg2023"]),
        (["--limit", "2", "--reverse"], ["smith2019", "vanderberg2023"]),
        (["--limit=2"], ADDED_ORDER[:2]),
        (["--sort", "year", "--limit", "3"], ["schrodinger1926", "vaswani2017", "gates2018"]),
        (["--sort", "year", "--reverse", "--limit", "2"], ["provisional2026", "muller2024"]),
        (["nothingmatchesthis"], []),
    ],
)
def test_list_query_words(filled, args: list[str], expected: list[str]) -> None:
    found = keys(filled("list", "-k", *args))
    if len(expected) > 1 and not any(a.startswith("--") for a in args) and "OR" not in args:
        assert sorted(found) == sorted(expected)  # relevance order may differ by database
    else:
        assert found == expected


def test_free_text_lists_by_relevance(filled) -> None:
    assert keys(filled("list", "-k", "diffusion"))[0] == "ho2020ddpm"
    assert keys(filled("list", "-k", "diffusion", "--sort", "added")) == [
        "goldsmith2021",
        "ho2020ddpm",
        "provisional2026",
    ]


def test_invalid_query_is_one_line_and_exit_2(filled) -> None:
    result = filled("list", "status:done")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "Error: invalid query 'status:done': unknown status 'done'; "
        "use one of new, to-read, reading, read, skipped\n"
    )


def test_unbalanced_quote_is_reported(filled) -> None:
    result = filled("list", '"open', "phrase")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("Error: invalid query '\"open phrase': a quote '\"' is not closed\n")


def test_mistyped_long_option_is_not_a_query(filled) -> None:
    result = filled("list", "--limt", "3")
    assert result.exit_code == 2
    assert "No such option '--limt'" in result.stderr


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_documents_the_query_language(filled, flag: str) -> None:
    result = filled("list", "-tag:old", flag)
    assert result.exit_code == 0
    assert "QUERY language" in result.stdout
    for term in ("tag:rl", "status:to-read", "year:2020..2024", "added:-7d..", "is:provisional"):
        assert term in result.stdout
    assert "help-query" not in result.stdout


def test_json_has_the_documented_keys(filled) -> None:
    result = filled("list", "--json", "tag:nlp")
    assert result.exit_code == 0, result.stderr
    papers = json.loads(result.stdout)
    assert [list(p) for p in papers] == [list(PAPER_KEYS)]
    paper = papers[0]
    assert paper["key"] == "vaswani2017"
    assert paper["authors"] == ["Vaswani, Ashish", "Shazeer, Noam"]
    assert paper["tags"] == ["nlp", "nlp/transformers"]
    assert paper["priority"] == "high"
    assert paper["status"] == "read"
    assert paper["arxiv"] == "1706.03762"
    assert paper["added"] == "2025-01-10T09:00:00Z"
    assert paper["read_at"] == "2026-05-20T10:00:00Z"


def test_json_of_nothing_is_an_empty_list(filled) -> None:
    result = filled("list", "--json", "nothingmatchesthis")
    assert (result.exit_code, result.stdout) == (0, "[]\n")


def test_keys_of_nothing_print_nothing(filled) -> None:
    result = filled("list", "-k", "nothingmatchesthis")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        "warning: no paper matches 'nothingmatchesthis'\n",  # on stderr: xargs sees nothing
    )


def test_table_marks_provisional_titles_and_shortens_authors(filled) -> None:
    result = filled("list", "--sort", "key", "tag:nlp", "OR", "is:provisional")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["KEY", "STATUS", "PRIO", "YEAR", "AUTHORS", "TITLE"]
    assert lines[1].split() == [
        "provisional2026",
        "new",
        "2026",
        "Learning",
        "to",
        "rank",
        "with",
        "diffusion",
        "(provisional)",
    ]
    assert lines[2].split()[:6] == ["vaswani2017", "read", "high", "2017", "Vaswani", "et"]
    assert len(lines) == 3


def test_show_prints_notes_and_history(filled) -> None:
    result = filled("show", "VASWANI2017")
    assert result.exit_code == 0, result.stderr
    assert "Classic. Re-read section 3 on multi-head attention." in result.stdout
    assert "new -> read" in result.stdout
    alias = filled("show", "ho2020")  # the key before rekey, kept as an alias
    assert alias.exit_code == 0
    assert "Denoising Diffusion Probabilistic Models" in alias.stdout


def test_show_unknown_ref_exit_3(filled) -> None:
    result = filled("show", "nosuchkey")
    assert result.exit_code == 3
    assert result.stderr == "Error: no paper with citation key 'nosuchkey'\n"


# --- shell completion ------------------------------------------------------------------------


def complete(
    runner: CliRunner,
    shell: str,
    words: list[str],
    cword: int,
    db: str,
) -> list[str]:
    """Run Click's completion protocol for ``shell`` and return the offered values."""
    from readinglist.cli import cli

    env = {
        "_READINGLIST_COMPLETE": f"{shell}_complete",
        "COMP_WORDS": "\n".join(["readinglist", *words]) if shell != "fish" else "",
        "COMP_CWORD": str(cword),
        "READINGLIST_DB": db,
    }
    if shell == "fish":
        env["COMP_WORDS"] = " ".join(["readinglist", *words])
        env["COMP_CWORD"] = words[-1] if words else ""
    result = runner.invoke(cli, [], prog_name="readinglist", env=env)
    assert result.exit_code == 0, result.output
    out = result.stdout
    if shell == "bash":
        return [line.split(",", 1)[1] for line in out.splitlines() if line]
    if shell == "zsh":
        lines = out.splitlines()
        return [lines[i + 1].replace("\\:", ":") for i in range(0, len(lines), 3)]
    return [line.split("\t", 1)[0].split(",", 1)[-1] for line in out.splitlines()]


def test_complete_refs_keys_and_aliases(filled, runner: CliRunner, library_url: str) -> None:
    assert complete(runner, "bash", ["show", "va"], 2, library_url) == [
        "vanderberg2023",
        "vaswani2017",
    ]
    assert complete(runner, "bash", ["show", "HO"], 2, library_url) == ["ho2020", "ho2020ddpm"]


def test_complete_query_fields_and_values(filled, runner: CliRunner, library_url: str) -> None:
    assert complete(runner, "zsh", ["list", "sta"], 2, library_url) == ["status:"]
    assert complete(runner, "zsh", ["list", "status:to"], 2, library_url) == ["status:to-read"]
    assert complete(runner, "zsh", ["list", "tag:v"], 2, library_url) == [
        "tag:vision",
        "tag:vision/3d",
    ]
    assert complete(runner, "zsh", ["list", "key:sm"], 2, library_url) == ["key:smith2019"]
    assert complete(runner, "zsh", ["list", "priority:"], 2, library_url) == [
        "priority:high",
        "priority:medium",
        "priority:low",
        "priority:none",
    ]
    assert complete(runner, "zsh", ["list", "is:"], 2, library_url) == [
        "is:provisional",
        "is:preprint",
    ]
    assert complete(runner, "fish", ["list", "tag:n"], 2, library_url) == [
        "tag:nlp",
        "tag:nlp/transformers",
    ]


def test_complete_query_values_after_bash_splits_at_the_colon(
    filled, runner: CliRunner, library_url: str
) -> None:
    # bash splits "tag:vi" into "tag" ":" "vi" (COMP_WORDBREAKS) and replaces only "vi".
    words = ["list", "status:read", "tag", ":", "vi"]
    assert complete(runner, "bash", words, 5, library_url) == ["vision", "vision/3d"]
    # Right after the colon bash's word is ":", but readline replaces the empty text
    # after it: a candidate ":new" would give "status::new" (seen in a real bash).
    assert complete(runner, "bash", ["list", "status", ":"], 3, library_url) == [
        "new",
        "to-read",
        "reading",
        "read",
        "skipped",
    ]


def test_complete_commands_options_and_choices(filled, runner: CliRunner, library_url: str) -> None:
    commands = complete(runner, "bash", [""], 1, library_url)
    assert {"list", "show", "export", "import"} <= set(commands)
    assert complete(runner, "bash", ["list", "--so"], 2, library_url) == ["--sort"]
    assert complete(runner, "bash", ["list", "--sort", "ye"], 3, library_url) == ["year"]


@pytest.mark.parametrize(
    "database",
    [
        "missing",
        "garbage",
        "postgresql+psycopg://nobody@127.0.0.1:1/none",
    ],
)
def test_completion_without_a_database_offers_nothing(
    runner: CliRunner, tmp_path: Path, database: str
) -> None:
    path = tmp_path / "sub" / "library.db"
    if database == "garbage":
        path.parent.mkdir()
        path.write_bytes(b"not a database at all" * 100)
    db = str(path) if database in ("missing", "garbage") else database
    assert complete(runner, "bash", ["show", "a"], 2, db) == []
    assert complete(runner, "bash", ["list", "tag:"], 2, db) == []
    assert complete(runner, "bash", ["list", "stat"], 2, db) == ["status:"]
    assert path.exists() == (database == "garbage")
    if database == "garbage":
        assert path.read_bytes() == b"not a database at all" * 100


def test_completion_source_scripts_name_both_programs(runner: CliRunner) -> None:
    from readinglist.cli import cli

    for prog, var in (("readinglist", "_READINGLIST_COMPLETE"), ("rl", "_RL_COMPLETE")):
        result: Any = runner.invoke(cli, [], prog_name=prog, env={var: "bash_source"})
        assert result.exit_code == 0
        assert f"complete -o nosort -F _{prog}_completion {prog}" in result.stdout


# --- a query that selects nothing ---------------------------------------------------------------


def test_a_query_of_a_citation_key_says_to_write_key(filled) -> None:
    """Free text does not search citation keys: ``list KEY`` and ``export bibtex KEY``
    selected nothing and said nothing (fresh user); they now point to ``key:KEY``."""
    hint = (
        "warning: no paper matches 'Vaswani2017'; free text does not search citation keys: "
        "write key:Vaswani2017\n"
    )
    listed = filled("list", "-k", "Vaswani2017")
    assert (listed.exit_code, listed.stdout, listed.stderr) == (0, "", hint)
    exported = filled("export", "bibtex", "Vaswani2017")
    assert (exported.exit_code, exported.stdout, exported.stderr) == (0, "", hint)
    assert keys(filled("list", "-k", "key:Vaswani2017")) == ["vaswani2017"]
    table = filled("list", "zzzunknownword")
    assert (table.exit_code, table.stderr) == (0, "warning: no paper matches 'zzzunknownword'\n")
    # A query that matches says nothing more.
    assert filled("list", "-k", "key:vaswani2017").stderr == ""
