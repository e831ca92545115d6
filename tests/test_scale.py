"""Issue 17: commands a person types stay light, whole-library reads stream, and the
PostgreSQL import's look-ups keep an index plan.

* completion of keys and tags runs without importing SQLAlchemy (``sys.modules`` of a
  completing process), on SQLite (stdlib ``sqlite3``, read-only) and PostgreSQL (psycopg);
* a run imports only the module of its command (lazy registration).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: A process that completes ``COMP_WORDS`` the way bash asks Click to, then prints the
#: candidates and the modules it imported as one JSON line on stderr.
COMPLETE = """
import json, os, sys
sys.argv = ["readinglist"]
from readinglist.cli import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def complete(db_url: str, words: str, cword: int) -> tuple[list[str], set[str]]:
    """Return the candidates of completing ``words`` at word ``cword`` and the modules
    the completing process imported."""
    env = {
        **os.environ,
        "_READINGLIST_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(cword),
        "READINGLIST_DB": db_url,
    }
    done = subprocess.run(
        [sys.executable, "-c", COMPLETE], env=env, capture_output=True, text=True, check=True
    )
    values = [line.split(",", 1)[1] for line in done.stdout.splitlines() if "," in line]
    return values, set(json.loads(done.stderr.strip().splitlines()[-1]))


def library(invoke: Callable[..., Any], tmp_path: Path) -> None:
    """Three papers, one with an alias, two tags."""
    bib = tmp_path / "three.bib"
    bib.write_text(
        "".join(
            f"@misc{{{key}, title = {{{title}}}, year = {{{year}}}}}\n"
            for key, title, year in (
                ("Vaswani2017", "Attention", 2017),
                ("vapnik1995", "Support vectors", 1995),
                ("ho2020", "Denoising diffusion", 2020),
            )
        )
    )
    assert invoke("import", str(bib)).exit_code == 0
    assert invoke("rekey", "ho2020", "ho2020denoising").exit_code == 0
    assert invoke("tag", "add", "ML/theory", "vapnik1995").exit_code == 0
    assert invoke("tag", "add", "vision", "ho2020denoising").exit_code == 0


def test_completion_of_keys_and_tags_does_not_import_sqlalchemy(
    invoke: Callable[..., Any], db_url: str, tmp_path: Path
) -> None:
    library(invoke, tmp_path)
    keys, modules = complete(db_url, "readinglist show VA", 2)
    assert keys == ["vapnik1995", "Vaswani2017"]
    assert not {m for m in modules if m.split(".")[0] == "sqlalchemy"}
    assert "readinglist.cli.list_" in modules
    assert "readinglist.cli.export" not in modules  # lazy: only the command completed
    aliases, _ = complete(db_url, "readinglist mark read ho", 3)
    assert aliases == ["ho2020", "ho2020denoising"]
    tags, modules = complete(db_url, "readinglist tag add ml", 3)
    assert tags == ["ML/theory"]
    assert "sqlalchemy" not in modules
    # A prefix with LIKE's wildcards is text, not a pattern.
    assert complete(db_url, "readinglist show v_", 2)[0] == []


def test_completion_of_a_missing_sqlite_file_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "none.db"
    assert complete(str(path), "readinglist show a", 2)[0] == []
    assert not path.exists()
