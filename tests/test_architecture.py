"""The dependency rules of ARCHITECTURE.md, enforced by walking imports, and start-up weight."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "readinglist"


def imports_of(path: Path) -> set[str]:
    """Return every module name imported anywhere in ``path`` (top level or inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def rel(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("path", modules(), ids=rel)
def test_import_rules(path: Path) -> None:
    name = rel(path)
    found = imports_of(path)
    top = {n.split(".")[0] for n in found}
    if not name.startswith("cli/") and name != "__main__.py":
        assert "click" not in top, "only readinglist/cli imports click"
        assert not any(n.startswith("readinglist.cli") for n in found), "nothing imports cli"
    if not (
        name == "formats/bibtex.py"
        or name.startswith("formats/bibtex/")
        or (name.startswith("formats/bibtex_") and name.count("/") == 1)
    ):
        assert "bibtexparser" not in top, "only formats/bibtex*.py imports bibtexparser"
    if name != "db.py":
        assert "alembic" not in top, "only db.py imports alembic"
    if not name.startswith("web/"):
        assert not top & {"starlette", "uvicorn", "jinja2"}, "only web/ imports the web stack"
        if name != "cli/serve.py":
            assert not any(n.startswith("readinglist.web") for n in found), "nothing imports web"
    if name.startswith("formats/") or name in (
        "records.py",
        "render.py",
        "text.py",
        "latex_fast.py",
    ):
        assert "sqlalchemy" not in top
        assert "readinglist.models" not in found
        assert "readinglist.db" not in found
        assert "readinglist.db_engine" not in found


LIBRARY = PACKAGE / "library"

#: The floors of ``readinglist/library/``: the library modules each module may import
#: (its own floor and those above it are out). The package docstring draws the tree.
LIBRARY_FLOORS: dict[str, set[str]] = {
    "_sql": set(),
    "readers": {"_sql"},
    "rows": {"_sql", "readers"},
    "listing_rows": {"_sql", "readers", "rows"},
    "bibtex_rows": {"_sql", "readers", "rows"},
    "marks": {"_sql", "readers"},
    "search": {"_sql", "readers", "rows", "listing_rows"},
    "hooks": {"_sql", "readers", "rows", "search"},
    "refs": {"_sql", "readers", "rows"},
    "tags": {"_sql", "readers", "rows", "marks", "search"},
    "notes": {"_sql", "readers", "rows", "marks", "search"},
    "listing": {"_sql", "readers", "rows", "listing_rows"},
    "agreement": {"_sql", "readers"},
    "profiles": set(),
    "snapshots": {"_sql", "readers", "rows", "search"},
    "merging": {
        "_sql",
        "readers",
        "rows",
        "marks",
        "search",
        "hooks",
        "refs",
        "snapshots",
    },
    "completing": {
        "_sql",
        "readers",
        "rows",
        "marks",
        "search",
        "hooks",
        "refs",
        "merging",
        "snapshots",
    },
    "matching": {
        "_sql",
        "readers",
        "rows",
        "marks",
        "hooks",
        "refs",
        "merging",
        "snapshots",
    },
    "papers": {
        "_sql",
        "readers",
        "rows",
        "marks",
        "search",
        "hooks",
        "refs",
        "tags",
        "merging",
        "completing",
    },
    "versioning": {
        "_sql",
        "readers",
        "rows",
        "marks",
        "hooks",
        "refs",
        "merging",
        "matching",
        "snapshots",
    },
    "importing": {
        "versioning",
        "_sql",
        "readers",
        "rows",
        "marks",
        "search",
        "hooks",
        "refs",
        "tags",
        "papers",
        "matching",
        "merging",
    },
    "markdown_sync": {"importing", "marks", "papers", "refs", "tags"},
    "duplicates": {
        "_sql",
        "readers",
        "rows",
        "marks",
        "search",
        "hooks",
        "refs",
        "merging",
        "matching",
    },
    "resolving": {
        "_sql",
        "readers",
        "rows",
        "marks",
        "search",
        "hooks",
        "refs",
        "tags",
        "papers",
        "merging",
        "completing",
        "matching",
        "duplicates",
    },
}


def library_modules() -> list[Path]:
    return sorted(LIBRARY.glob("*.py"))


@pytest.mark.parametrize("path", library_modules(), ids=rel)
def test_library_never_commits(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert ".commit(" not in source
    assert "Session(" not in source


def library_imports(path: Path) -> set[str]:
    """The ``readinglist.library`` modules ``path`` imports (``from readinglist.library
    import search`` counts as ``search``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "readinglist.library":
                found.update(alias.name for alias in node.names)
            elif node.module.startswith("readinglist.library."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("readinglist.library."):
                    found.add(alias.name.split(".")[2])
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            raise AssertionError(f"{rel(path)}: use absolute imports (readinglist.library.X)")
    return found


def test_library_floors_cover_every_module() -> None:
    names = {p.stem for p in library_modules()} - {"__init__"}
    assert names == set(LIBRARY_FLOORS), "add the new module to LIBRARY_FLOORS"


@pytest.mark.parametrize("path", [p for p in library_modules() if p.stem != "__init__"], ids=rel)
def test_library_imports_only_downwards(path: Path) -> None:
    allowed = LIBRARY_FLOORS[path.stem]
    found = library_imports(path)
    assert found <= allowed, f"{rel(path)} imports {sorted(found - allowed)} from above its floor"


@pytest.mark.parametrize("path", modules(), ids=rel)
def test_nothing_below_the_library_imports_it(path: Path) -> None:
    below = {
        "models.py",
        "records.py",
        "prepare.py",
        "dedupe.py",
        "versions.py",
        "citekeys.py",
        "text.py",
        "latex_fast.py",
        "identifiers.py",
        "digest.py",
        "lookup.py",
        "errors.py",
        "db.py",
        "db_engine.py",
        "render.py",
    }
    if rel(path) in below or rel(path).startswith(("formats/", "query/", "naming/")):
        assert not any(n.startswith("readinglist.library") for n in imports_of(path))
        assert "library" not in library_imports_of_package(path)


def library_imports_of_package(path: Path) -> set[str]:
    """Names imported by ``from readinglist import ...`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "readinglist"
        for alias in node.names
    }


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_import_no_heavy_module(args: list[str]) -> None:
    code = (
        "import sys\n"
        "from readinglist.cli import cli\n"
        f"try:\n    cli.main({args!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('sqlalchemy', 'alembic', 'bibtexparser', 'rich', 'pylatexenc', 'sklearn', 'httpx', 'starlette', 'uvicorn', 'jinja2')"
        " if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines()[-1] == "HEAVY="


def test_every_command_has_help_with_an_example() -> None:
    import click

    from readinglist.cli import cli

    def walk(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
        found = []
        for name, command in group.commands.items():
            found.append((f"{prefix}{name}", command))
            if isinstance(command, click.Group):
                found.extend(walk(command, f"{prefix}{name} "))
        return found

    for name, command in walk(cli, ""):
        assert command.help, f"{name} has no help"
        assert "Examples:" in command.help, f"{name} has no example"
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts} has no help"


#: Packages whose modules stand in floors, lowest first: a module may import only modules of
#: its own package on lower floors (the package ``__init__`` re-exports and may import all).
PACKAGE_FLOORS: dict[str, list[str]] = {
    "query": [
        "tree",
        "vocabulary",
        "values",
        "lexer",
        "parser",
        "fulltext",
        "compiler",
        "statements",
    ],
    "naming": ["words", "markup", "shapes", "scan", "phrases", "names", "titles"],
}


def _package_modules() -> list[Path]:
    return [
        path
        for package in PACKAGE_FLOORS
        for path in sorted((PACKAGE / package).glob("*.py"))
        if path.stem != "__init__"
    ]


def test_every_floored_package_module_has_a_floor() -> None:
    for package, floors in PACKAGE_FLOORS.items():
        names = {p.stem for p in (PACKAGE / package).glob("*.py")} - {"__init__"}
        assert names == set(floors), f"add the new {package} module to PACKAGE_FLOORS"


@pytest.mark.parametrize("path", _package_modules(), ids=rel)
def test_package_modules_import_only_downwards(path: Path) -> None:
    package = path.parent.name
    floors = PACKAGE_FLOORS[package]
    allowed = set(floors[: floors.index(path.stem)])
    prefix = f"readinglist.{package}."
    found = {n.removeprefix(prefix).split(".")[0] for n in imports_of(path) if n.startswith(prefix)}
    assert found <= allowed, f"{rel(path)} imports {sorted(found - allowed)} from above its floor"


@pytest.mark.parametrize("path", modules(), ids=rel)
def test_only_commands_use_pipelines(path: Path) -> None:
    """Pipelines sit between the CLI and the library: nothing below them imports them."""
    name = rel(path)
    if name.startswith(("cli/", "pipelines/")):
        return
    assert not any(n.startswith("readinglist.pipelines") for n in imports_of(path)), name


@pytest.mark.parametrize("path", sorted((PACKAGE / "naming").glob("*.py")), ids=rel)
def test_naming_is_text_mining_only(path: Path) -> None:
    """Naming the contribution works on text: no database, no file formats."""
    found = imports_of(path)
    assert not any(n.split(".")[0] == "sqlalchemy" for n in found)
    assert not any(n.startswith(("readinglist.formats", "readinglist.models")) for n in found)


def test_bibtex_import_into_a_new_library_loads_no_writer_nor_alembic(tmp_path: Path) -> None:
    """``readinglist import refs.bib`` into a new SQLite file needs the reader, not the
    BibTeX writer (``formats.bibtex`` exports its names lazily), and creates the library
    from its schema script, not through Alembic (issue 17 item 5)."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a2020, title = {A Title}, author = {Doe, Jane}, year = 2020}\n")
    code = (
        "import sys\n"
        "from readinglist.cli import cli\n"
        f"cli.main(['--db', {str(tmp_path / 'new.db')!r}, 'import', {str(bib)!r}],"
        " standalone_mode=False)\n"
        "loaded = [m for m in ('readinglist.formats.bibtex.writer', 'alembic') if m in sys.modules]\n"
        "print('LOADED=' + ','.join(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "READINGLIST_READER_PROCESS": "0"},
    )
    assert result.stdout.splitlines()[-1] == "LOADED="


#: The house limits: lines of a module, and of a function or method from its ``def``
#: line to its last line (docstring and nested functions included; the decorators, such
#: as a command's Click options, are declarations and do not count).
MAX_MODULE_LINES = 700
MAX_FUNCTION_LINES = 80


@pytest.mark.parametrize("path", modules(), ids=rel)
def test_modules_and_functions_stay_short(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    lines = len(source.splitlines())
    assert lines <= MAX_MODULE_LINES, f"{rel(path)} has {lines} lines (at most 700)"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == [], f"{rel(path)}: functions over 80 lines: {', '.join(long)}"
