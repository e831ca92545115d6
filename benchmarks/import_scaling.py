"""Issue 17, item 3: does an import stay linear, on SQLite and on PostgreSQL?

Usage (from the project root)::

    .venv/bin/python benchmarks/import_scaling.py                 # 100k and 500k entries
    .venv/bin/python benchmarks/import_scaling.py --sizes 100000 300000

``benchmarks/run.py`` calls :func:`measure_import_scaling`, which returns one
:class:`ScalingRow` per figure (the fields of ``run.Row``).

The inputs are the first 100,000 Beebe entries (``benchmarks/work/beebe-100k.bib``,
cut by ``run.prepare_data`` or here) followed by altered copies of them: in copy
``k`` every citation key gets ``-ck``, every DOI ``-ck``, every title and abstract a
leading word of its own, so that no entry of a copy merges with another (the
identifiers, title keys and abstract keys all differ). ``N`` entries = the slice
plus ``N / 100,000 - 1`` copies, one file. Each is imported by ``readinglist
import`` into a new SQLite file and into a new PostgreSQL database (``--pg``, the
server on 127.0.0.1 as in the tests).

Figures per import: wall time, CPU of the ``readinglist`` process and its reader
process (``os.wait4``) and, on PostgreSQL, CPU of the server processes serving it
(found in ``pg_stat_activity`` by their ``application_name``, read from
``/proc/PID/stat`` every 0.2 s: the issue's 692 s of server CPU were the Seq Scans).
Targets (issue 17): PostgreSQL time <= 1.5x SQLite's on the largest input; CPU per
entry on the largest input <= 1.15x that on the smallest, on both.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "work"
PYTHON = sys.executable
READINGLIST = [PYTHON, "-m", "readinglist"]
#: The server the tests use (``READINGLIST_TEST_PG`` names another admin URL).
PG_ADMIN = os.environ.get(
    "READINGLIST_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
#: The database made afresh for each PostgreSQL import (two runs at once need two names).
PG_DATABASE = os.environ.get("IMPORT_SCALING_PG_DATABASE", "readinglist_import_scaling")
#: The ``application_name`` of the import's connections, whose server CPU is counted.
APPLICATION = f"readinglist-{PG_DATABASE}"
SLICE = 100_000
#: The leading word of a copy's titles and abstracts (copy 1 to 4, and on).
WORDS = ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel")

#: The targets of issue 17.
PG_TIME_RATIO = 1.5
CPU_PER_ENTRY_RATIO = 1.15


@dataclass
class ScalingRow:
    """One figure: the fields of ``run.Row`` (what, ours, floor, target, met, note)."""

    what: str
    ours: str
    floor: str
    target: str
    met: bool | None
    note: str = ""


@dataclass
class Imported:
    """One import: entries, wall seconds, client CPU seconds, server CPU seconds."""

    backend: str
    entries: int
    wall: float
    client_cpu: float
    server_cpu: float = 0.0

    @property
    def cpu(self) -> float:
        """Client plus server CPU seconds."""
        return self.client_cpu + self.server_cpu

    @property
    def ms_per_entry(self) -> float:
        """CPU milliseconds per entry."""
        return self.cpu * 1000 / self.entries


def altered_copy(text: str, k: int) -> str:
    """Copy ``k`` (1, 2, ...) of a Beebe slice: keys and DOIs end in ``-ck``, titles and
    abstracts start with a word of their own, so nothing merges with another copy."""
    word = f"{WORDS[(k - 1) % len(WORDS)]}{k if k > len(WORDS) else ''}"
    text = re.sub(
        r"^(@(?!string|preamble|comment)\w+\s*\{\s*)([^,\s]+),",
        rf"\g<1>\g<2>-c{k},",
        text,
        flags=re.MULTILINE | re.IGNORECASE,
    )
    text = re.sub(
        r'^(\s*doi\s*=\s*["{])([^"}\n]*)(["}])',
        rf"\g<1>\g<2>-c{k}\g<3>",
        text,
        flags=re.MULTILINE | re.IGNORECASE,
    )
    return re.sub(
        r'^(\s*(?:title|abstract)\s*=\s*["{])',
        rf"\g<1>{word} ",
        text,
        flags=re.MULTILINE | re.IGNORECASE,
    )


def slice_100k() -> Path:
    """The first 100,000 Beebe entries (``run.prepare_data``'s file, made if missing)."""
    path = WORK / "beebe-100k.bib"
    if not path.exists():
        sys.path.insert(0, str(HERE))
        import run

        run.prepare_data()
    return path


def input_of(entries: int) -> Path:
    """The input of ``entries`` entries (a multiple of 100,000), written once."""
    if entries % SLICE:
        raise ValueError(f"sizes are multiples of {SLICE:,}: {entries}")
    path = WORK / f"beebe-scaling-{entries // 1000}k.bib"
    if not path.exists():
        text = slice_100k().read_text(encoding="utf-8")
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as out:
            out.write(text)
            for k in range(1, entries // SLICE):
                out.write("\n")
                out.write(altered_copy(text, k))
        tmp.replace(path)
    return path


def _pg_admin() -> Engine:
    from sqlalchemy import create_engine

    return create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")


def fresh_pg() -> str:
    """Drop and create :data:`PG_DATABASE`; return its URL."""
    from sqlalchemy import text

    engine = _pg_admin()
    with engine.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)"))
        conn.execute(text(f"CREATE DATABASE {PG_DATABASE}"))
    engine.dispose()
    return f"{PG_ADMIN.rpartition('/')[0]}/{PG_DATABASE}"


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (0 when gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _watch_server(stop: threading.Event, seen: dict[int, float]) -> None:
    """Until ``stop``: record the CPU of every server process of :data:`APPLICATION`."""
    from sqlalchemy import text

    engine = _pg_admin()
    query = text("SELECT pid FROM pg_stat_activity WHERE application_name = :name")
    with engine.connect() as conn:
        while not stop.wait(0.2):
            for pid in conn.execute(query, {"name": APPLICATION}).scalars():
                seen[pid] = max(seen.get(pid, 0.0), _proc_cpu(pid))
            for pid in seen:
                seen[pid] = max(seen[pid], _proc_cpu(pid))
    engine.dispose()


def import_once(path: Path, backend: str, entries: int) -> Imported:
    """Import ``path`` into a new library on ``backend`` ("sqlite" or "postgresql")."""
    if backend == "sqlite":
        db = WORK / "import-scaling.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        url = f"sqlite:///{db}"
    else:
        url = fresh_pg()
    stop, seen = threading.Event(), dict[int, float]()
    watcher = threading.Thread(target=_watch_server, args=(stop, seen), daemon=True)
    if backend == "postgresql":
        watcher.start()
    env = {**os.environ, "PGAPPNAME": APPLICATION}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*READINGLIST, "--db", url, "import", str(path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stop.set()
    if backend == "postgresql":
        watcher.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"import of {path} on {backend} failed: {err.decode()[-2000:]}")
    return Imported(
        backend, entries, wall, usage.ru_utime + usage.ru_stime, sum(seen.values(), 0.0)
    )


def describe(run: Imported) -> str:
    """``wall (cpu client + server)`` of one import."""
    server = f" + server {run.server_cpu:.0f} s" if run.backend == "postgresql" else ""
    return f"{run.wall:.0f} s (cpu {run.client_cpu:.0f} s{server}; {run.ms_per_entry:.2f} ms/entry)"


def measure_import_scaling(
    sizes: tuple[int, ...] = (100_000, 500_000),
    backends: tuple[str, ...] = ("sqlite", "postgresql"),
) -> list[ScalingRow]:
    """Import each size on each backend; return the rows of the table (issue 17 item 3).

    One row per import (information), one per backend comparing CPU per entry at the
    largest size with the smallest (target <= 1.15x), and one comparing PostgreSQL's
    wall time with SQLite's at the largest size (target <= 1.5x). Raises RuntimeError
    when an import fails.
    """
    WORK.mkdir(exist_ok=True)
    done: dict[tuple[str, int], Imported] = {}
    rows: list[ScalingRow] = []
    for entries in sizes:
        path = input_of(entries)
        for backend in backends:
            result = done[backend, entries] = import_once(path, backend, entries)
            rows.append(
                ScalingRow(
                    f"import {entries // 1000}k on {backend}", describe(result), "", "", None
                )
            )
            print(f"  {rows[-1].what:<28} {rows[-1].ours}", flush=True)
    small, large = min(sizes), max(sizes)
    for backend in backends:
        a, b = done[backend, small], done[backend, large]
        ratio = b.ms_per_entry / a.ms_per_entry
        rows.append(
            ScalingRow(
                f"import {backend}: CPU per entry {large // 1000}k vs {small // 1000}k",
                f"{b.ms_per_entry:.2f} ms",
                f"{a.ms_per_entry:.2f} ms",
                f"<= {CPU_PER_ENTRY_RATIO}x",
                ratio <= CPU_PER_ENTRY_RATIO,
                f"{ratio:.2f}x",
            )
        )
    if {"sqlite", "postgresql"} <= set(backends):
        pg, lite = done["postgresql", large], done["sqlite", large]
        ratio = pg.wall / lite.wall
        rows.append(
            ScalingRow(
                f"import {large // 1000}k: PostgreSQL vs SQLite time",
                f"{pg.wall:.0f} s",
                f"{lite.wall:.0f} s",
                f"<= {PG_TIME_RATIO}x",
                ratio <= PG_TIME_RATIO,
                f"{ratio:.2f}x wall; CPU client+server {pg.cpu:.0f} s vs {lite.cpu:.0f} s "
                f"({pg.cpu / lite.cpu:.2f}x)",
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 500_000])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"])
    args = parser.parse_args()
    for row in measure_import_scaling(tuple(args.sizes), tuple(args.backends)):
        mark = {True: "yes", False: "NO", None: ""}[row.met]
        print(f"{row.what:<46} {row.ours:>48}  {row.floor:>10}  {row.target:<9} {mark} {row.note}")


if __name__ == "__main__":
    main()
