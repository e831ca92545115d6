"""Where the milliseconds of one ``readinglist`` command go (issue 17, item 4).

Usage::

    .venv/bin/python benchmarks/phases.py --db LIB.db show KEY

Runs ``readinglist ARGS`` twice in child processes and prints one JSON object:

* ``imports``: a ``python -X importtime`` run of the command, its self times summed
  by package (:data:`PACKAGES`: ``sqlalchemy``, ``readinglist.models``, the rest of
  ``readinglist``, ``click``, ``psycopg``, the rest) and the number of modules
  imported;
* ``phases``: a second run, in this script's child, that first imports every module
  the first run imported (timed: ``imports``), then runs the command with CPU time
  (``time.process_time``) accounted to ``engine`` (``AppContext.engine``: engine
  creation and the schema check), ``configure`` (the ORM's mapper configuration, on
  the first ORM statement of a process; the typed commands, which run Core statements on
  a Connection and never import ``sqlalchemy.orm``, skip it: 0), ``sql``
  (``Connection.execute``/``scalar(s)``/``exec_driver_sql``, and, when the ORM is
  loaded, ``Session.execute``/``scalar(s)``/``flush``/``commit``: compiling, executing,
  loading rows into objects) and ``rest`` (Click's parsing, our logic, rendering the output), each
  call's CPU counted once, in its innermost timed phase;
* ``start``: CPU of ``python -c pass`` (the interpreter itself).

The sum is close to, not exactly, the CPU of a plain run: ``-X importtime`` and the
wrappers cost a little, and modules imported up front are imported in another order.
Mutating commands should be given a scratch copy of the library.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

#: The child of the ``phases`` run (``argv``: module list file, then readinglist's args).
CHILD = r"""
import importlib, json, sys, time
modules = json.load(open(sys.argv[1]))
start = time.process_time()
for name in modules:
    try:
        importlib.import_module(name)
    except Exception:
        pass
imports = time.process_time() - start
spent = {"engine": 0.0, "configure": 0.0, "sql": 0.0}
stack = []  # CPU of the timed calls inside the current one (exclusive accounting)

def timed(owner, name, phase):
    original = getattr(owner, name)
    def wrapper(*args, **kwargs):
        begin = time.process_time()
        stack.append(0.0)
        try:
            return original(*args, **kwargs)
        finally:
            inner = stack.pop()
            elapsed = time.process_time() - begin
            spent[phase] += elapsed - inner
            if stack:
                stack[-1] += elapsed
    setattr(owner, name, wrapper)

from readinglist.cli._app import AppContext
timed(AppContext, "engine", "engine")
if "sqlalchemy.engine" in sys.modules:
    from sqlalchemy.engine import Connection
    # Core statements: the typed commands' own, and those of a Session's connection
    for name in ("execute", "scalar", "scalars", "exec_driver_sql"):
        timed(Connection, name, "sql")
if "sqlalchemy.orm" in sys.modules:
    from sqlalchemy.orm import Session
    for name in ("execute", "scalar", "scalars", "flush", "commit"):
        timed(Session, name, "sql")
    # the ORM's first use (a module function, looked up at each call)
    timed(sys.modules["sqlalchemy.orm.mapper"], "_configure_registries", "configure")
sys.argv = ["readinglist", *sys.argv[2:]]
from readinglist.cli import main
begin = time.process_time()
try:
    main()
except SystemExit:
    pass
total = time.process_time() - begin
sys.stdout.flush()
result = {"imports": imports, **spent, "rest": total - sum(spent.values())}
print("PHASES " + json.dumps(result), file=sys.stderr)
"""

#: The packages import self-times are summed by (``readinglist.models`` apart: its
#: import is SQLAlchemy's declarative mapping of our tables, not our own code).
PACKAGES = ("sqlalchemy", "readinglist.models", "readinglist", "click", "psycopg")

_IMPORTTIME = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


def import_profile(
    python: str, args: list[str], env: dict[str, str] | None = None
) -> tuple[dict[str, float], list[str]]:
    """Run ``readinglist ARGS`` (in the environment ``env``, default this one) under
    ``-X importtime``; return the self seconds by package (:data:`PACKAGES`, the rest
    as ``other``) and the modules in the order they finished importing."""
    done = subprocess.run(
        [python, "-X", "importtime", "-m", "readinglist", *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    by_package: dict[str, float] = {}
    modules: list[str] = []
    for line in done.stderr.splitlines():
        match = _IMPORTTIME.match(line)
        if not match:
            continue
        name = match.group(4)
        modules.append(name)
        key = next((p for p in PACKAGES if name == p or name.startswith(p + ".")), "other")
        by_package[key] = by_package.get(key, 0.0) + int(match.group(1)) / 1e6
    return by_package, modules


def phases(python: str, args: list[str], modules: list[str], scratch: Path) -> dict[str, float]:
    """Run the command with its modules imported first; return seconds per phase."""
    listing = scratch / "phases-modules.json"
    listing.write_text(json.dumps(modules))
    done = subprocess.run(
        [python, "-c", CHILD, str(listing), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    line = [x for x in done.stderr.splitlines() if x.startswith("PHASES ")][-1]
    result: dict[str, float] = json.loads(line.removeprefix("PHASES "))
    return result


def start_cpu(python: str) -> float:
    """CPU seconds of ``python -c pass`` (the smallest of three)."""
    cpus = []
    for _ in range(3):
        child = subprocess.Popen([python, "-c", "pass"])
        _, _, usage = os.wait4(child.pid, 0)  # microseconds, not clock ticks
        cpus.append(usage.ru_utime + usage.ru_stime)
    return min(cpus)


def profile(
    python: str, args: list[str], scratch: Path, env: dict[str, str] | None = None
) -> dict[str, object]:
    """All three measurements of ``readinglist ARGS`` as one dictionary. With ``env``
    (a TAB completion request) only the import profile: the phases child imports
    ``readinglist.cli._app`` (Click), which a completion answered before Click skips;
    ``phases`` is then None."""
    by_package, modules = import_profile(python, args, env)
    return {
        "start": start_cpu(python),
        "imports": by_package,
        "modules": len(modules),
        "phases": None if env is not None else phases(python, args, modules, scratch),
    }


if __name__ == "__main__":
    print(json.dumps(profile(sys.executable, sys.argv[1:], Path("/tmp")), indent=1))
