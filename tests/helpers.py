"""Helpers shared by several test files (import them: ``from helpers import seed``).

Data files: :func:`shared_data` finds a file of ``../shared/data``, or the copy shipped in
``examples/``, and skips the test only when neither exists. Golden files:
:func:`assert_golden` compares a text with ``tests/golden/<name>`` byte for byte
(``READINGLIST_UPDATE_GOLDEN=1`` rewrites it). Databases: :func:`seed` imports records,
:func:`sql_value` / :func:`sql_values` read raw SQL, :func:`search_text` reads a paper's
stored search text, :func:`show` runs ``show KEY --json``. Programs: :func:`require_tools`
fails a test (one line) when a program or LaTeX package it runs is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from readinglist.records import PaperRecord

HERE = Path(__file__).resolve().parent
#: Runs a test that takes ``db_url`` (or ``invoke``) on SQLite only, for checks that never
#: reach the library's rules: a usage error refused before anything is read or written, a
#: file that cannot be read. A test that checks storage, SQL, locking or concurrency runs
#: on both databases (tests/conftest.py).
SQLITE_ONLY = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
ROOT = HERE.parent
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared" / "data"
GOLDEN = HERE / "golden"


def shared_data(name: str) -> Path:
    """Return the path of data file ``name``: ../shared/data/``name``, else examples/``name``.

    Skips the calling test when neither exists (examples/ holds only the user's example
    list, icml2026-abstracts.txt, so the other shared files still skip without ../shared).
    """
    for folder in (SHARED, EXAMPLES):
        path = folder / name
        if path.exists():
            return path
    pytest.skip(f"{SHARED / name} is not available")


#: What each tool name of :func:`require_tools` needs: programs on PATH, and the LaTeX
#: packages biber's tests load (biblatex needs etoolbox; without it biber says "Cannot find
#: 'doc.bcf'"). tests/setup-tools.sh installs them all.
TOOL_NEEDS: dict[str, tuple[str, ...]] = {
    "bibtex": ("bibtex",),
    "biber": ("biber", "pdflatex", "biblatex.sty", "etoolbox.sty"),
    "pdflatex": ("pdflatex",),
    "pandoc": ("pandoc",),
}


def _present(need: str) -> bool:
    if not need.endswith(".sty"):
        return shutil.which(need) is not None
    if shutil.which("kpsewhich") is None:
        return False
    found = subprocess.run(["kpsewhich", need], capture_output=True, text=True, check=False)
    return bool(found.stdout.strip())


_PRESENT: dict[str, bool] = {}


def missing_tools(*tools: str) -> list[str]:
    """The programs and LaTeX packages of ``tools`` (names of :data:`TOOL_NEEDS`) not installed."""
    needs = [need for tool in tools for need in TOOL_NEEDS.get(tool, (tool,))]
    for need in needs:
        if need not in _PRESENT:
            _PRESENT[need] = _present(need)
    return [need for need in dict.fromkeys(needs) if not _PRESENT[need]]


def require_tools(*tools: str) -> None:
    """Fail the calling test with one line naming what is missing of ``tools``: a test that
    needs a real program never skips silently (run ``sh tests/setup-tools.sh``)."""
    absent = missing_tools(*tools)
    if absent:
        pytest.fail(
            f"needs {', '.join(absent)}, not installed (run: sh tests/setup-tools.sh)",
            pytrace=False,
        )


def shared_text(name: str) -> str:
    """The UTF-8 text of :func:`shared_data` ``(name)``."""
    return shared_data(name).read_text(encoding="utf-8")


def assert_golden(name: str, text: str) -> None:
    """Compare ``text`` with tests/golden/``name`` exactly; READINGLIST_UPDATE_GOLDEN=1 rewrites it.

    Fails (``pytest.fail``) when the golden file is missing and no update was asked for.
    """
    path = GOLDEN / name
    if os.environ.get("READINGLIST_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return
    if not path.exists():
        pytest.fail(f"golden file {path} is missing; run with READINGLIST_UPDATE_GOLDEN=1")
    assert text == path.read_bytes().decode("utf-8")


def without_line(record: PaperRecord) -> PaperRecord:
    """``record`` with its source line number cleared (to compare records read from elsewhere)."""
    return replace(record, line=None)


def seed(db_url: str, *records: PaperRecord, fmt: str = "test") -> None:
    """Import ``records`` (citation keys kept) into the database at ``db_url``."""
    from readinglist import db, library

    engine = db.make_engine(db_url)
    try:
        with db.session_scope(engine) as session:
            library.import_records(session, records, source="seed", fmt=fmt)
    finally:
        engine.dispose()


def sql_values(db_url: str, sql: str, params: dict[str, Any] | None = None) -> list[Any]:
    """The first column of every row ``sql`` returns on the database at ``db_url``."""
    from sqlalchemy import text

    from readinglist import db

    engine = db.make_engine(db_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(sql), params or {}).scalars())
    finally:
        engine.dispose()


def sql_value(db_url: str, sql: str, params: dict[str, Any] | None = None) -> Any:
    """The one value ``sql`` returns (exactly one row, else SQLAlchemy raises)."""
    from sqlalchemy import text

    from readinglist import db

    engine = db.make_engine(db_url)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql), params or {}).scalar_one()
    finally:
        engine.dispose()


def run_sql(db_url: str, sql: str, params: dict[str, Any] | None = None) -> None:
    """Run one writing statement on the library at ``db_url`` and commit, as another of
    its writers (or a hand edit of the database) would."""
    from sqlalchemy import text

    from readinglist import db

    engine = db.make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text(sql), params or {})
    finally:
        engine.dispose()


def import_text(invoke: Any, tmp_path: Path, name: str, text: str) -> str:
    """Write ``text`` to ``tmp_path / name``, import it (exit 0 asserted) and return the
    import's last line on stderr: its summary (``... 2 added, 0 merged, ...``)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.output
    return str(result.stderr.splitlines()[-1])


def search_text(db_url: str, key: str) -> str:
    """The stored ``search_text`` of the paper with citation key ``key``."""
    return str(sql_value(db_url, "SELECT search_text FROM papers WHERE citekey = :k", {"k": key}))


def show(invoke: Any, key: str) -> dict[str, Any]:
    """Run ``show KEY --json`` through the ``invoke`` fixture; assert it succeeded; the JSON."""
    result = invoke("show", key, "--json")
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def statuses(url: str, reader: str | None = None) -> dict[int, str]:
    """Every paper's status for ``reader`` (None: the implicit one), read by the library."""
    from readinglist import db
    from readinglist.library import readers

    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            ids = [int(i) for i in sql_values(url, "SELECT id FROM papers")]
            return readers.status_of(conn, ids, reader)
    finally:
        engine.dispose()


def sql_rows(db_url: str, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
    """Every row ``sql`` returns on the database at ``db_url``, as tuples (for a check of
    a few columns of many papers, without loading each paper and its relations)."""
    from sqlalchemy import text

    from readinglist import db

    engine = db.make_engine(db_url)
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(text(sql), params or {})]
    finally:
        engine.dispose()
