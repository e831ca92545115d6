"""Debian's chromium driven by Playwright for Python, and ``readinglist serve`` as a real
process: shared by the browser tests (tests/test_serve_browser.py) and
benchmarks/serve.py.

The browser is the system's ``/usr/bin/chromium`` (tests/setup-tools.sh installs it;
never ``playwright install``), headless, without sandbox, GPU, background networking,
component updates or sync, in a new user-data folder each launch.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch(playwright: Any, user_data: Path) -> Any:
    """Return a browser context of a new headless chromium keeping its data in ``user_data``."""
    return playwright.chromium.launch_persistent_context(
        str(user_data),
        executable_path=CHROMIUM,
        headless=True,
        args=FLAGS,
        viewport={"width": 1280, "height": 860},
    )


#: What ``serve`` imports, imported once before a :class:`Server` ``forked`` is forked.
SERVE_IMPORTS = """
import sqlalchemy.orm, readinglist.cli, readinglist.cli._root, readinglist.cli.serve
import readinglist.web.app, readinglist.web.desk, readinglist.library
import sqlalchemy.dialects.sqlite.pysqlite, sqlalchemy.dialects.postgresql.psycopg
"""


class Server:
    """``readinglist --db URL [--reader NAME] serve --port 0 ARGS`` in a process of its
    own; :attr:`url` is the address it printed (with its token), :attr:`db_url` the
    library it serves. ``forked``: the process runs ``python -m readinglist``'s code
    forked after :data:`SERVE_IMPORTS` (``helpers.start_forked``, for tests of what it
    serves), else it is a new ``python -m readinglist`` (for its start and signals)."""

    def __init__(
        self, db_url: str, *args: str, reader: str | None = None, forked: bool = False
    ) -> None:
        self.db_url = db_url
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        argv = ["--db", db_url, *(["--reader", reader] if reader else []), "serve"]
        argv += ["--port", "0", *args]
        self.folder = Path(tempfile.mkdtemp(prefix="serve-"))
        self.log = (self.folder / "err").open("w+", encoding="utf-8")
        weakref.finalize(self, shutil.rmtree, self.folder, True)  # with the server object
        self.process: Any
        if forked:
            from helpers import start_forked

            out = self.folder / "out"
            self.process = start_forked(argv, out, self.log.name, prelude=SERVE_IMPORTS, env=env)
            line = _first_line(out, self.process)
        else:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "readinglist", *argv],
                stdout=subprocess.PIPE,
                stderr=self.log,
                text=True,
                env=env,
            )
            line = self.process.stdout.readline()
        line = line.strip()
        if not line.startswith("http://"):
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"serve printed {line!r}; stderr: {self.errors()}")
        self.url = line
        self.base = line.split("?", 1)[0]
        self.token = line.split("token=", 1)[1]

    def stop(self) -> tuple[int, str]:
        """Stop it as Ctrl-C does (SIGINT); return its exit code and stderr."""
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if isinstance(self.process, subprocess.Popen) and self.process.stdout is not None:
            self.process.stdout.close()
        return self.process.returncode, self.errors()

    def errors(self) -> str:
        """What the server wrote on stderr so far."""
        self.log.seek(0)
        return self.log.read()


def _first_line(path: Path, process: Any, timeout: float = 120) -> str:
    """The first whole line written to the file ``path`` by ``process`` (Popen-like):
    waits until it is there, ``process`` ends (then what it wrote) or ``timeout`` ends."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if "\n" in text or process.poll() is not None:
            return text.partition("\n")[0]
        time.sleep(0.01)
    return ""
