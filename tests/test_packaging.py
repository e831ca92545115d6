"""The wheel ships the Alembic migrations, and the installed package finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_contains_the_migrations(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
    )
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
