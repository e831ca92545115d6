"""The test tools' installation running beside the tests (``sh tests/setup-tools.sh
--background``, README quick start, command 2).

On a fresh machine ``setup-tools.sh --background`` leaves apt-get installing bibtex, biber,
LaTeX, pandoc, mupdf and chromium in a process of its own that holds an exclusive lock
(``flock(2)``, util-linux's ``flock``) on :data:`SETUP_LOCK` until it ends, and the tests
start at once. The run starts the tests that run no real program first
(:func:`uses_tools`, tests/conftest.py) and a test that does run one waits here, for the
lock, before it starts: a program that is half unpacked, or whose LaTeX formats are not
built yet, is never run. Where no installation runs (no lock file, or nobody holds it)
nothing waits.
"""

from __future__ import annotations

import fcntl
import os
import re
import time
from functools import cache
from pathlib import Path

import pytest

#: Held (exclusively) by setup-tools.sh's background installation while it runs.
SETUP_LOCK = Path(__file__).resolve().parent / ".setup-tools.lock"
#: What that installation printed (apt-get's errors, what is still missing).
SETUP_LOG = SETUP_LOCK.with_name(".setup-tools.log")
#: The longest a test waits for the installation (apt-get's downloads included).
WAIT_LIMIT = 900.0

#: What in a test module's source shows that its tests may run a real program: the
#: ``tools`` mark, :func:`helpers.require_tools`, the helpers that run one, a program's
#: name as a command's first word, the browser. Over-inclusive on purpose: a module
#: wrongly counted in only starts later.
_RUNS_A_TOOL = re.compile(
    r"require_tools|mark\.tools|needs_tools|compile_once|run_steps|run_biber|browser"
    r'|[(\[]\s*"(?:bibtex|biber|pdflatex|pandoc|mutool|kpsewhich)"'
    r'|"(?:pdflatex|pandoc|mutool)"'
)


def install_running(lock: Path = SETUP_LOCK) -> bool:
    """Whether setup-tools.sh's background installation holds ``lock`` now."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing the descriptor drops a shared lock taken above
    return False


#: The locks this process stopped waiting for (:func:`wait_for_install`'s limit passed).
_GAVE_UP: set[Path] = set()


def wait_for_install(limit: float = WAIT_LIMIT, lock: Path = SETUP_LOCK) -> bool:
    """Block until the background installation holding ``lock`` has ended (at once when
    none runs).

    Returns whether it had to wait. Fails the calling test with one line when the
    installation still runs after ``limit`` seconds, and every later caller of this
    process at once while it still runs (a hung apt-get must not cost ``limit`` per test)."""
    if not install_running(lock):
        return False
    deadline = time.monotonic() + (0.0 if lock in _GAVE_UP else limit)
    while install_running(lock):
        if time.monotonic() > deadline:
            _GAVE_UP.add(lock)
            pytest.fail(
                f"tests/setup-tools.sh still installing the test tools after {limit:.0f} s"
                f" (see {SETUP_LOG})",
                pytrace=False,
            )
        time.sleep(0.25)
    return True


@cache
def _module_runs_a_tool(path: Path) -> bool:
    try:
        return _RUNS_A_TOOL.search(path.read_text(encoding="utf-8")) is not None
    except OSError:
        return True


def uses_tools(item: pytest.Item) -> bool:
    """Whether test ``item`` may run a real program: it is marked ``tools``, or its module's
    source shows one (:data:`_RUNS_A_TOOL`)."""
    return item.get_closest_marker("tools") is not None or _module_runs_a_tool(item.path)
