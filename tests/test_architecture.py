"""The dependency rules of ARCHITECTURE.md, enforced by walking imports, and start-up weight."""

from __future__ import annotations

import ast
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
    if name.startswith("formats/") or name in ("records.py", "render.py", "text.py"):
        assert "sqlalchemy" not in top
        assert "readinglist.models" not in found
        assert "readinglist.db" not in found


def test_library_never_commits() -> None:
    source = (PACKAGE / "library.py").read_text(encoding="utf-8")
    assert ".commit(" not in source
    assert "Session(" not in source


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_import_no_heavy_module(args: list[str]) -> None:
    code = (
        "import sys\n"
        "from readinglist.cli import cli\n"
        f"try:\n    cli.main({args!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('sqlalchemy', 'alembic', 'bibtexparser', 'rich', 'pylatexenc')"
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
