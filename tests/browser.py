"""Debian's chromium driven by Playwright for Python, and ``readinglist serve`` as a real
process: shared by the browser tests (tests/test_serve_browser.py) and
benchmarks/serve.py.

The browser is the system's ``/usr/bin/chromium`` (tests/setup-tools.sh installs it;
never ``playwright install``), headless, without sandbox, GPU, background networking,
component updates or sync, in a new user-data folder each launch.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
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


class Server:
    """``readinglist --db URL [--reader NAME] serve --port 0 ARGS`` in a process of its
    own; :attr:`url` is the address it printed (with its token), :attr:`db_url` the
    library it serves."""

    def __init__(self, db_url: str, *args: str, reader: str | None = None) -> None:
        self.db_url = db_url
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.log = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - lives as long as the server
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "readinglist",
                "--db",
                db_url,
                *(["--reader", reader] if reader else []),
                "serve",
                "--port",
                "0",
                *args,
            ],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
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
        assert self.process.stdout is not None
        self.process.stdout.close()
        return self.process.returncode, self.errors()

    def errors(self) -> str:
        """What the server wrote on stderr so far."""
        self.log.seek(0)
        return self.log.read()
