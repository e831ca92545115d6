"""The wheel ships the Alembic migrations, and the installed package finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def wheel_command(folder: Path) -> list[str]:
    """The command that builds the project's wheel into ``folder`` with its declared
    backend (``[build-system]``: hatchling) in an isolated environment: ``uv build``
    where the test environment has uv (the README's set-up installs it: its build
    environment is cached, 0.5 s of CPU), else ``pip wheel`` (a new environment with
    the backend installed each time, 2.4 s of CPU)."""
    uv = Path(sys.executable).with_name("uv")
    if uv.exists():
        return [str(uv), "build", "--wheel", "-q", "-o", str(folder), str(ROOT)]
    return [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(ROOT)]


@pytest.mark.slow
def test_wheel_contains_the_migrations(tmp_path: Path) -> None:
    result = subprocess.run(wheel_command(tmp_path), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    (wheel,) = tmp_path.glob("readinglist-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "readinglist/_migrations/env.py" in names
    assert "readinglist/_migrations/script.py.mako" in names
    assert "readinglist/_migrations/sqlite_head.sql" in names  # new SQLite libraries
    shipped = sorted(
        n for n in names if n.startswith("readinglist/_migrations/versions/") and n.endswith(".py")
    )
    expected = sorted(
        f"readinglist/_migrations/versions/{p.name}"
        for p in (ROOT / "alembic/versions").glob("*.py")
    )
    assert shipped == expected
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "readinglist = readinglist.cli:main" in text
    assert "rl = readinglist.cli:main" in text


def test_source_checkout_finds_the_migrations() -> None:
    from readinglist import db

    assert (db.migrations_dir() / "env.py").exists()
