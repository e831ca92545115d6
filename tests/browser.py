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
    """``readinglist --db URL serve --port 0 ARGS`` in a process of its own; :attr:`url`
    is the address it printed (with its token)."""

    def __init__(self, db_url: str, *args: str) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "readinglist", "--db", db_url, "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line.startswith("http://"):
            self.process.kill()
            _, err = self.process.communicate()
            raise RuntimeError(f"serve printed {line!r}; stderr: {err}")
        self.url = line
        self.base = line.split("?", 1)[0]
        self.token = line.split("token=", 1)[1]

    def stop(self) -> tuple[int, str]:
        """Stop it as Ctrl-C does (SIGINT); return its exit code and stderr."""
        self.process.send_signal(signal.SIGINT)
        try:
            _, err = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return self.process.returncode, err
