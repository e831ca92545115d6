"""What a single reader sees of a library, for the test that an upgrade to readers
(migration 0008) changes none of it (``test_readers_upgrade.py``).

:func:`outputs` runs the commands on a library and returns their outputs by name. It
uses only what the code before readers also had, so the same function run by that
code (``python tests/readers_upgrade.py URL OUT.json`` with the code of revision 0007
first on the path) wrote the golden file ``golden/readers_upgrade.json`` from the
library :func:`build_0007` makes. Timestamps in it are fixed by the rows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "golden" / "readers_upgrade.json"

#: name -> the arguments after ``--db URL``.
COMMANDS: dict[str, list[str]] = {
    "list": ["list"],
    "list --json": ["list", "--json"],
    "list query": ["list", "status:to-read", "priority:high", "has:notes"],
    "show": ["show", "Muller2020Deep"],
    "show --json": ["show", "Muller2020Deep", "--json"],
    "show new": ["show", "esa2021"],
    "stats": ["stats"],
    "stats --json": ["stats", "--json"],
    "export markdown": ["export", "markdown", "--notes"],
    "export bibtex": ["export", "bibtex"],
    "note list": ["note", "list", "Muller2020Deep", "--json"],
}


def outputs(url: str) -> dict[str, Any]:
    """Each command's exit code, stdout and stderr on the library at ``url``, and the
    first screen of ``triage`` (a terminal that quits at once)."""
    from click.testing import CliRunner

    from readinglist import db, library, triage
    from readinglist.cli import cli

    runner = CliRunner()
    found: dict[str, Any] = {}
    for name, args in COMMANDS.items():
        result = runner.invoke(cli, ["--db", url, *args], env={"COLUMNS": "100"})
        found[name] = [result.exit_code, result.stdout, result.stderr]

    class Terminal:
        screens: list[str] = []

        def width(self) -> int:
            return 100

        def height(self) -> int:
            return 50

        def show(self, text: str) -> None:
            self.screens.append(text)

        def getkey(self) -> str:
            raise EOFError

    engine = db.make_engine(url)
    with db.session_scope(engine, write=False) as session:
        queue = library.triage_queue(session)
    terminal = Terminal()
    triage.Triage(
        lambda: db.session_scope(engine),
        queue,
        terminal,
        read_factory=lambda: db.session_scope(engine, write=False),
    ).run()
    engine.dispose()
    found["triage"] = terminal.screens[:1]
    return found


def main() -> None:
    """``readers_upgrade.py URL OUT``: write :func:`outputs` of URL as JSON to OUT."""
    url, out = sys.argv[1], sys.argv[2]
    Path(out).write_text(json.dumps(outputs(url), indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
