"""Issue 17, item 4: the commands a person types load only what they use.

``show``, ``mark``, ``priority``, ``tag add`` and ``note add`` on one paper import no
query parser, no importer or matcher, no rapidfuzz and no PostgreSQL dialect (the
``readinglist.library`` package imports its modules on first use); ``list QUERY``
imports the parser but still no importer. All of them run Core statements on a
Connection: neither ``sqlalchemy.orm`` nor ``readinglist.models`` is imported. The
package still exports every name.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import run_forked

#: Runs ``readinglist ARGS`` in this process, then prints the modules it imported.
MODULES = """
import json, sys
sys.argv = ["readinglist", *sys.argv[1:]]
from readinglist.cli import main
try:
    main()
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""

#: What none of the typed commands imports: they run Core statements on
#: ``readinglist.tables`` over a Connection (``db.connection_scope``; issue 17).
NO_ORM = {"sqlalchemy.orm", "readinglist.models", "readinglist.library.hooks"}

#: What none of the one-paper commands needs.
NOT_NEEDED = {
    "rapidfuzz",
    "readinglist.query",
    "readinglist.dedupe",
    "readinglist.library.importing",
    "readinglist.library.matching",
    "readinglist.library.merging",
    "readinglist.library.duplicates",
    "bibtexparser",
    "alembic",
    "sklearn",
}


def imported(db_url: str, *args: str) -> set[str]:
    """Return the modules ``readinglist --db db_url ARGS`` imported (it must succeed)."""
    done = subprocess.run(
        [sys.executable, "-c", MODULES, "--db", db_url, *args],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), done.stderr
    return set(report["modules"])


@pytest.fixture
def one_paper(invoke: Callable[..., Any], tmp_path: Path) -> None:
    bib = tmp_path / "one.bib"
    bib.write_text(
        "@article{smith2020, title = {Salmon runs}, author = {Smith, Ann}, year = 2020}\n"
    )
    assert invoke("import", str(bib)).exit_code == 0


@pytest.mark.parametrize(
    "args",
    [
        ("show", "smith2020"),
        ("mark", "read", "smith2020"),
        ("priority", "high", "smith2020"),
        ("tag", "add", "fish", "smith2020"),
        ("note", "add", "-m", "read the methods", "smith2020"),
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_one_paper_commands_import_only_what_they_use(
    one_paper: None, db_url: str, args: tuple[str, ...]
) -> None:
    modules = imported(db_url, *args)
    assert "readinglist.library" in modules
    assert "sqlalchemy" in modules  # Core
    assert not NO_ORM & modules
    if args[0] in ("tag", "note"):  # their writes refresh the search text themselves
        assert "readinglist.library.search" in modules
    assert not {m for m in modules if m in NOT_NEEDED or m.split(".")[0] in NOT_NEEDED}
    if db_url.startswith("sqlite"):  # PostgreSQL's dialect (and its async drivers) stay out
        assert "sqlalchemy.dialects.postgresql" not in modules


def test_list_with_a_query_imports_the_parser_but_no_importer(one_paper: None, db_url: str) -> None:
    modules = imported(db_url, "list", "--limit", "50", "salmon")
    assert "readinglist.query" in modules
    assert not {"rapidfuzz", "readinglist.library.importing"} & modules
    assert not NO_ORM & modules


@pytest.mark.parametrize(
    "args",
    [
        ("mark", "read", "-q", "author:smith"),
        ("priority", "low", "-q", "salmon"),
        ("tag", "add", "fish", "-q", "year:2020"),
        ("list", "-k", "salmon"),
        ("list", "nothing", "smith2020"),  # no match: the hint looks keys up, in Core too
    ],
    ids=lambda args: " ".join(args),
)
def test_typed_commands_with_a_query_import_no_orm(
    one_paper: None, db_url: str, args: tuple[str, ...]
) -> None:
    assert not NO_ORM & imported(db_url, *args)


def test_the_orm_still_keeps_the_search_text_of_what_the_core_commands_wrote(
    invoke: Callable[..., Any], one_paper: None, session: Any
) -> None:
    """A tag and a shared note written on a Connection are in the search text an ORM
    reader recomputes (``db check``'s rule, ``search.paper_search_text``): one rule. A
    private note is not (its author finds it through the query)."""
    from readinglist import library

    assert invoke("tag", "add", "Fish-ladders", "smith2020").exit_code == 0
    assert invoke("note", "add", "--shared", "-m", "lamprey", "smith2020").exit_code == 0
    assert invoke("note", "add", "-m", "eelpout", "smith2020").exit_code == 0
    paper = library.resolve(session, "smith2020")
    assert library.paper_search_text(paper) == paper.search_text
    assert {"fish", "ladders", "lamprey", "salmon"} <= set(paper.search_text.split())
    assert "eelpout" not in paper.search_text.split()


def test_a_note_added_by_a_light_command_is_searchable(
    invoke: Callable[..., Any], one_paper: None
) -> None:
    """The search text follows a note although `note add` loads few modules."""
    assert invoke("note", "add", "-m", "lamprey ladders", "smith2020").exit_code == 0
    assert invoke("list", "-k", "lamprey").output == "smith2020\n"


def test_the_library_package_still_exports_every_name() -> None:
    from readinglist import library

    for name in library.__all__:
        assert getattr(library, name) is not None, name
    assert set(library.__all__) <= set(dir(library))
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = library.nothing_here


def test_the_database_path_is_resolved_as_pathlib_resolved_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """config.to_url uses os.path (no pathlib, no re at start-up) with Path's result."""
    from readinglist.config import Settings, to_url

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for value in ("lib.db", "./link/../real/lib.db", "link/lib.db", "~/link/x.db", "//a//b.db"):
        assert to_url(value) == f"sqlite:///{Path(value).expanduser().resolve()}", value
    assert to_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    settings = Settings.resolve("link/lib.db")
    assert settings == Settings(f"sqlite:///{tmp_path / 'real' / 'lib.db'}", settings.editor)
    assert settings != Settings("sqlite:///other.db", settings.editor)
    assert repr(settings).startswith("Settings(database_url='sqlite:///")
    with pytest.raises(AttributeError):
        settings.color = "red"  # type: ignore[attr-defined]


#: Runs ``readinglist ARGS``, then prints whether the ORM's mappers were configured.
CONFIGURED = """
import sys
sys.argv = ["readinglist", *sys.argv[1:]]
from readinglist.cli import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
from readinglist.models import Paper
print("CONFIGURED", Paper.__mapper__.configured, file=sys.stderr)
"""

#: What the commands of :data:`CONFIGURED` import, imported once before they are forked
#: (:func:`helpers.run_forked`), the ORM's models with them: importing them configures
#: no mapper (that happens at the first use of one), which the prelude checks.
QUERY_IMPORTS = """
import sqlalchemy.orm, readinglist.cli, readinglist.cli._root, readinglist.library
import readinglist.query, readinglist.models, readinglist.db, readinglist.render
import sqlalchemy.dialects.postgresql.psycopg, sqlalchemy.dialects.sqlite.pysqlite
assert not readinglist.models.Paper.__mapper__.configured
"""


@pytest.mark.parametrize(
    "args",
    [
        ("list", "--limit", "50", "salmon"),
        ("list", "-k", "year:2020", "-tag:x", "author:smith", "key:smith*", "has:authors"),
        ("list", "--limit", "5", "venue:x", "OR", "is:provisional", "OR", "runs"),
        ("list", "nothing", "smith2020"),  # no match: the hint looks up keys, in Core too
        ("mark", "read", "SMITH2020"),  # Core rows (library.target_rows, write_status)
        ("priority", "high", "smith2020"),
        ("mark", "to-read", "-q", "author:smith"),
        ("stats",),  # Core rows of the tables (library.paper_stats)
        ("stats", "author:smith"),
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_list_with_a_query_configures_no_mapper(
    one_paper: None, db_url: str, args: tuple[str, ...], tmp_path: Path
) -> None:
    """The query compiler builds Core statements of the tables (models.PAPERS...):
    configuring the ORM's mappers would cost ~55 ms CPU (issue 17). Each command is a
    process of its own, forked after the imports (the mappers unconfigured)."""
    (done,) = run_forked(
        [["--db", db_url, *args]], tmp_path, prelude=QUERY_IMPORTS, body=CONFIGURED, kept=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "CONFIGURED False", done.stderr
    assert "smith2020" in done.stdout + done.stderr or args[0] != "list"


def test_mark_and_priority_on_core_rows_keep_the_status_rules(
    invoke: Callable[..., Any], one_paper: None, tmp_path: Path
) -> None:
    """mark/priority write through library.write_status/write_priority (Core rows, no
    objects): history, read date, aliases, unchanged papers and errors as before."""
    assert invoke("rekey", "smith2020", "salmon2020").exit_code == 0  # smith2020: an alias
    done = invoke("mark", "read", "smith2020", "--json")
    assert json.loads(done.stdout) == {"changed": ["salmon2020"], "unchanged": []}
    again = invoke("mark", "read", "SALMON2020", "smith2020", "--json")
    assert json.loads(again.stdout) == {"changed": [], "unchanged": ["salmon2020"]}
    shown = json.loads(invoke("show", "--json", "salmon2020").stdout)
    assert [(h["from"], h["to"]) for h in shown["history"]] == [("new", "read")]
    assert shown["status"] == "read"
    assert shown["read_at"] is not None
    assert invoke("mark", "to-read", "-q", "author:smith").exit_code == 0
    shown = json.loads(invoke("show", "--json", "salmon2020").stdout)
    assert [h["to"] for h in shown["history"]] == ["read", "to-read"]
    assert shown["read_at"] is None  # leaving read clears the read date
    assert invoke("mark", "read", "salmon2020", "nosuch").exit_code == 3
    assert json.loads(invoke("show", "--json", "salmon2020").stdout)["status"] == "to-read"
    assert invoke("priority", "high", "smith2020").exit_code == 0
    assert json.loads(invoke("show", "--json", "salmon2020").stdout)["priority"] == "high"
    cleared = invoke("priority", "none", "salmon2020", "--json")
    assert json.loads(cleared.stdout) == {"changed": ["salmon2020"], "unchanged": []}
    assert json.loads(invoke("show", "--json", "salmon2020").stdout)["priority"] is None
