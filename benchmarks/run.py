"""Issue 9 and 17 benchmarks: readinglist at the scale of a whole field, each figure beside its floor.

Usage (from the project root; the README names this command)::

    .venv/bin/python benchmarks/run.py            # everything, then writes benchmarks/RESULTS.md
    .venv/bin/python benchmarks/run.py --quick    # the 10k slice only, no pubs, no export
    .venv/bin/python benchmarks/run.py --only issue17 --work /tmp/bench   # issue 17's table

``--work DIR`` keeps the inputs, the 100k library and the peers' venvs in DIR instead of
``benchmarks/work`` (build once, reuse). ``--only`` takes a comma-separated list of
sections: ``startup``, ``pubs``, ``import``, ``commands``, ``export`` (issue 9) and
``issue17`` (all of :mod:`issue17`: whole-library reads, BibTeX export, import scaling,
typed commands and completion, PostgreSQL completion, papis, the ACL 10k import) and
``scaling`` (only the import-scaling rows, as ``--import-scaling`` alone would add them).
``--import-scaling`` also runs the 100k/500k import on both databases
(``import_scaling.py``, about an hour); ``--pg-url`` names the PostgreSQL database for
completion (default: ``readinglist_bench`` on 127.0.0.1).

What it does, in one run:

* **data**: decompresses ``../shared/data/acl-anthology-2021-06.bib.gz`` (61,685
  entries) and ``beebe-fisheries-journals.bib.gz`` (144,350) into ``benchmarks/work/``
  (git-ignored) and cuts the first 10,000 and 100,000 Beebe entries (the text before
  the N+1-th ``@Article{`` line, as ``SOURCES.md`` says). Made once, then reused.
* **start-up**: ``--help`` and ``--version`` against ``python -c pass``.
* **import**: ``readinglist import FILE`` into a new SQLite file, against the floor
  ``benchmarks/floor_import.py FILE`` (bibtexparser ``parse_file`` plus pylatexenc on
  the title and author values with ``\\`` or ``{``): time, whole process against whole
  process; peak RSS against the floor process's (bibtexparser's own parse dominates it).
* **commands** on the 100,000-paper library (``benchmarks/work/lib-100k.db``, built
  once by importing the 100k slice, then given statuses, priorities, tags and notes
  with ``query_latency.add_user_state``; mutations run on a fresh copy):
  ``list -k``, ``list --limit 50 QUERY`` (free text, field terms), ``show REF``,
  ``mark``, ``tag add``, each against ``python -c "import click, sqlalchemy.orm"``.
* **export**: ``readinglist export bibtex -o FILE`` of the 100k library against
  bibtexparser ``write_string`` of the same entries (``benchmarks/floor_export.py``)
  plus the start-up of a process that imports bibtexparser.
* **pubs**: pubs 0.9 (in its own venv, ``benchmarks/work/pubs-venv``, never the
  project's) importing and listing the 10k slice. The pubs library is built once and
  its import time kept in ``benchmarks/work/pubs.json``; ``pubs list`` is timed in
  every run. Without the venv the issue's figures are used (marked so).

Short timings are the best of 3 runs (the machine is shared: best-of filters out
other processes' bursts); long ones (imports, exports, pubs) run once. Each row
shows wall time and CPU time (user + system) of the child process, read with
``os.wait4``, which also gives the peak RSS. Writes ``benchmarks/RESULTS.md`` (the
table, the targets met or not, and the machine) and prints the same table.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "work"
DATA = ROOT.parent / "shared" / "data"
PYTHON = sys.executable
READINGLIST = [PYTHON, "-m", "readinglist"]
RESULTS = HERE / "RESULTS.md"
PUBS_VENV = WORK / "pubs-venv"

#: Issue 9's figures for pubs on the same 10,000 entries (used when pubs is not installed).
PUBS_ISSUE = {"import": 106.0, "list": 19.0}

#: The targets of issue 9.
IMPORT_TIME_RATIO = 1.3
IMPORT_RSS_RATIO = 0.5
EXPORT_RATIO = 1.2
COMMAND_EXTRA_MS = 250.0
STARTUP_EXTRA_MS = 150.0
PUBS_FACTOR = 10.0


# --- measuring ----------------------------------------------------------------------------------


@dataclass
class Run:
    """One finished child process: wall and CPU seconds, peak RSS in MiB, its output."""

    wall: float
    cpu: float
    rss_mib: float
    stdout: str = ""
    stderr: str = ""
    #: Bytes written to stdout (``stdout`` holds the text only up to :data:`KEEP_STDOUT`).
    stdout_bytes: int = 0


#: Output kept in memory per run: more would grow this process (see :data:`LAUNCHER`).
KEEP_STDOUT = 1 << 20

#: A small Python process that forks and execs the measured command, waits for it and
#: writes its ``os.wait4`` usage (user, system, max RSS in KiB) to the file descriptor
#: its first argument names. Linux keeps a
#: process's RSS high-water mark across exec, and a child starts with its parent's
#: resident size, so a child forked from this (possibly large: it cuts 150 MB inputs and
#: builds libraries) process would report this process's size as its own peak: every
#: row of one run once showed 509 MiB, floors included. Forked from the launcher, the
#: command starts from a ~10 MB process.
LAUNCHER = """\
import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
os.write(int(sys.argv[1]), f"{usage.ru_utime} {usage.ru_stime} {usage.ru_maxrss}".encode())
code = os.waitstatus_to_exitcode(status)
sys.exit(128 - code if code < 0 else code)
"""


def run(cmd: list[str], *, cwd: Path = ROOT, env: dict[str, str] | None = None) -> Run:
    """Run ``cmd`` to the end; raise CalledProcessError (with its stderr) if it fails.

    The command runs as the child of :data:`LAUNCHER`. Wall time from start to
    reaping (the launcher's ~10 ms start-up included); CPU (user + system) of the
    command and of the processes it waited for (``os.wait4`` in the launcher). Peak
    RSS: the larger of the command's ``ru_maxrss`` (the largest single process) and
    the peak of the summed resident memory of the command and all its descendants,
    sampled every 20 ms from ``/proc`` (an import reads large files in a second
    process: both count); the launcher itself is not counted.
    """
    import threading

    out_path = WORK / ".stdout"
    err_path = WORK / ".stderr"
    read_fd, write_fd = os.pipe()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, str(write_fd), *cmd],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            pass_fds=(write_fd,),
        )
        os.close(write_fd)
        peak = [0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.02):
                peak[0] = max(peak[0], _tree_rss_kib(proc.pid, skip_root=True))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, _usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        sampler.join()
    with os.fdopen(read_fd, "rb") as pipe:
        report = pipe.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    stdout_bytes = out_path.stat().st_size
    with out_path.open("rb") as handle:
        stdout = handle.read(KEEP_STDOUT).decode("utf-8", errors="replace")
    out_path.unlink()
    stderr = err_path.read_text(errors="replace")
    if proc.returncode != 0 or not report:
        raise subprocess.CalledProcessError(proc.returncode, cmd, stdout, stderr)
    user, system, maxrss = report.split()
    rss_kib = max(int(maxrss), peak[0])
    return Run(wall, float(user) + float(system), rss_kib / 1024, stdout, stderr, stdout_bytes)


def _tree_rss_kib(pid: int, *, skip_root: bool = False) -> int:
    """Resident memory (KiB) of ``pid`` and all its descendants now (0 when gone);
    ``skip_root``: of the descendants only."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            if not (skip_root and current == pid):
                status = Path(f"/proc/{current}/status").read_text()
                match = re.search(r"^VmRSS:\s+(\d+)", status, re.MULTILINE)
                total += int(match.group(1)) if match else 0
            for task in Path(f"/proc/{current}/task").iterdir():
                stack.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return total


def best(cmd: list[str], times: int = 3, **kwargs: Any) -> Run:
    """Best (smallest wall time) of ``times`` runs; the CPU figure is the smallest too."""
    runs = [run(cmd, **kwargs) for _ in range(times)]
    fastest = min(runs, key=lambda r: r.wall)
    fastest.cpu = min(r.cpu for r in runs)
    return fastest


# --- data ---------------------------------------------------------------------------------------


def prepare_data() -> dict[str, Path]:
    """Write the benchmark inputs into ``WORK`` (once) and return them by name."""
    WORK.mkdir(exist_ok=True)
    files = {
        "beebe-10k": WORK / "beebe-10k.bib",
        "acl": WORK / "acl-full.bib",
        "beebe": WORK / "beebe-full.bib",
        "beebe-100k": WORK / "beebe-100k.bib",
    }
    if not files["acl"].exists():
        _gunzip(DATA / "acl-anthology-2021-06.bib.gz", files["acl"])
    if not files["beebe"].exists():
        _gunzip(DATA / "beebe-fisheries-journals.bib.gz", files["beebe"])
    for name, count in (("beebe-10k", 10_000), ("beebe-100k", 100_000)):
        if not files[name].exists():
            text = files["beebe"].read_text(encoding="utf-8")
            starts = [m.start() for m in re.finditer(r"^@Article\{", text, re.MULTILINE)]
            _write_atomically(files[name], text[: starts[count]] if len(starts) > count else text)
    return files


def _gunzip(source: Path, target: Path) -> None:
    if not source.exists():
        sys.exit(f"missing {source}: the benchmarks need ../shared/data (see SOURCES.md there)")
    with gzip.open(source, "rb") as handle:
        _write_atomically(target, handle.read().decode("utf-8"))


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def fresh_db(name: str) -> Path:
    """Return ``WORK/name`` with any earlier database file (and WAL/SHM files) removed."""
    path = WORK / name
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


# --- the table ----------------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the results table."""

    what: str
    ours: str
    floor: str
    target: str
    met: bool | None  # None: not a target (information only)
    note: str = ""


@dataclass
class Results:
    """Everything one run measured."""

    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Further sections of RESULTS.md: (heading, lines of Markdown).
    sections: list[tuple[str, list[str]]] = field(default_factory=list)

    def add(self, row: Row) -> None:
        self.rows.append(row)
        mark = {True: "yes", False: "NO", None: ""}[row.met]
        print(
            f"  {row.what:<44} {row.ours:>22}  {row.floor:>26}  {row.target:<18} {mark}", flush=True
        )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def secs(seconds: float) -> str:
    return f"{seconds:.1f} s"


def timing(r: Run, *, short: bool) -> str:
    """``wall (cpu)`` in ms for short runs, in s for long ones."""
    fmt = ms if short else secs
    return f"{fmt(r.wall)} (cpu {fmt(r.cpu)})"


# --- sections -----------------------------------------------------------------------------------


def startup(results: Results) -> None:
    """``--help`` and ``--version`` against ``python -c pass``; neither may import SQLAlchemy."""
    print("start-up", flush=True)
    floor = best([PYTHON, "-c", "pass"], times=5)
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['readinglist', '{arg}']\n"
        "try:\n    runpy.run_module('readinglist', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(' '.join(m for m in ('sqlalchemy', 'alembic', 'rich', 'bibtexparser') if m in sys.modules), file=sys.stderr)\n"
    )
    for arg in ("--help", "--version"):
        ours = best([*READINGLIST, arg], times=5)
        heavy = run([PYTHON, "-c", probe.replace("{arg}", arg)]).stderr.strip()
        extra = ours.wall - floor.wall
        results.add(
            Row(
                f"`readinglist {arg}`",
                timing(ours, short=True),
                f"python -c pass {timing(floor, short=True)}",
                f"<= +{STARTUP_EXTRA_MS:.0f} ms",
                extra * 1000 <= STARTUP_EXTRA_MS and not heavy,
                f"+{extra * 1000:.0f} ms; heavy modules imported: {heavy or 'none'}",
            )
        )


def imports(results: Results, files: dict[str, Path], names: list[str]) -> None:
    """Import each file into a new library against the floor process on the same file."""
    print("import", flush=True)
    for name in names:
        path = files[name]
        floor = run([PYTHON, str(HERE / "floor_import.py"), str(path)])
        db = fresh_db(f"import-{name}.db")
        ours = run([*READINGLIST, "--db", str(db), "import", str(path)])
        summary = ours.stderr.strip().splitlines()[-1] if ours.stderr.strip() else ""
        ratio = ours.wall / floor.wall
        results.add(
            Row(
                f"import {name} ({_entries(floor)} entries): time",
                timing(ours, short=False),
                f"{timing(floor, short=False)}",
                f"<= {IMPORT_TIME_RATIO}x",
                ratio <= IMPORT_TIME_RATIO,
                f"{ratio:.2f}x; {summary.split(': ', 1)[-1]}; floor: {floor.stderr.strip()}",
            )
        )
        rss_ratio = ours.rss_mib / floor.rss_mib
        results.add(
            Row(
                f"import {name}: peak RSS",
                f"{ours.rss_mib:.0f} MiB",
                f"{floor.rss_mib:.0f} MiB",
                f"<= {IMPORT_RSS_RATIO}x",
                rss_ratio <= IMPORT_RSS_RATIO,
                f"{rss_ratio:.2f}x",
            )
        )
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)


def _entries(floor: Run) -> str:
    match = re.search(r"entries=(\d+)", floor.stderr)
    return f"{int(match.group(1)):,}" if match else "?"


def library_100k(results: Results, files: dict[str, Path], rebuild: bool) -> Path:
    """Return the 100k library, building it (import, then user state) when missing."""
    path = WORK / "lib-100k.db"
    marker = WORK / "lib-100k.json"
    if rebuild or not marker.exists() or not path.exists():
        print("building the 100k library (once)", flush=True)
        fresh_db("lib-100k.db")
        built = run([*READINGLIST, "--db", str(path), "import", str(files["beebe-100k"])])
        sys.path.insert(0, str(HERE))
        import query_latency

        query_latency.add_user_state(f"sqlite:///{path}")
        with sqlite3.connect(path) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            papers = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
        marker.write_text(
            json.dumps(
                {
                    "papers": papers,
                    "import_wall": built.wall,
                    "import_cpu": built.cpu,
                    "import_rss_mib": built.rss_mib,
                    "built": datetime.now(UTC).isoformat(timespec="seconds"),
                }
            )
        )
    info = json.loads(marker.read_text())
    results.notes.append(
        f"100k library: {info['papers']:,} papers from the first 100,000 Beebe entries "
        f"(duplicates merged), built {info['built']} by `readinglist import` in "
        f"{info['import_wall']:.0f} s (cpu {info['import_cpu']:.0f} s, peak RSS "
        f"{info['import_rss_mib']:.0f} MiB), then statuses, priorities, tags and notes "
        "added with a fixed seed (query_latency.add_user_state)."
    )
    return path


def commands(results: Results, library: Path, pubs: dict[str, float]) -> None:
    """Time the everyday commands on the 100k library against the database floor."""
    print("commands on the 100k library", flush=True)
    scratch = fresh_db("scratch-100k.db")
    shutil.copyfile(library, scratch)
    floor = best([PYTHON, "-c", "import click, sqlalchemy.orm"])
    with sqlite3.connect(scratch) as conn:
        keys = [k for (k,) in conn.execute("SELECT citekey FROM papers ORDER BY id LIMIT 7")]
    db = ["--db", str(scratch)]
    cases: list[tuple[str, list[list[str]], str | None]] = [
        ("`list -k` (all 100k keys)", [["list", "-k"]] * 3, "list"),
        ("`list --limit 50 salmon` (free text)", [["list", "--limit", "50", "salmon"]] * 3, "list"),
        (
            "`list --limit 50 title:trout year:1990..2000 -status:read`",
            [["list", "--limit", "50", "title:trout", "year:1990..2000", "-status:read"]] * 3,
            "list",
        ),
        (
            "`list --limit 50 author:smith` (table)",
            [["list", "--limit", "50", "author:smith"]] * 3,
            "list",
        ),
        ("`show REF`", [["show", keys[0]]] * 3, "list"),
        ("`mark to-read REF`", [["mark", "to-read", k] for k in keys[1:4]], "list"),
        ("`tag add bench REF`", [["tag", "add", "bench", k] for k in keys[4:7]], "list"),
    ]
    for label, arg_runs, pubs_key in cases:
        runs = [run([*READINGLIST, *db, *args]) for args in arg_runs]
        ours = min(runs, key=lambda r: r.wall)
        ours.cpu = min(r.cpu for r in runs)
        extra = ours.wall - floor.wall
        pubs_s = pubs.get(pubs_key or "")
        factor = pubs_s / ours.wall if pubs_s else None
        met = extra * 1000 <= COMMAND_EXTRA_MS and (factor is None or factor >= PUBS_FACTOR)
        results.add(
            Row(
                label,
                timing(ours, short=True),
                f"import click, sqlalchemy.orm {timing(floor, short=True)}",
                f"<= +{COMMAND_EXTRA_MS:.0f} ms, >= {PUBS_FACTOR:.0f}x pubs",
                met,
                f"+{extra * 1000:.0f} ms; "
                + (
                    f"{factor:.0f}x faster than `pubs list` on 10k ({pubs_s:.1f} s)"
                    if factor
                    else ""
                ),
            )
        )
    fresh_db("scratch-100k.db")


def export(results: Results, library: Path, files: dict[str, Path]) -> None:
    """Export the 100k library as BibTeX against bibtexparser ``write_string`` of it."""
    print("export", flush=True)
    floor_start = best([PYTHON, "-c", "import bibtexparser"])
    floor = run([PYTHON, str(HERE / "floor_export.py"), str(files["beebe-100k"])])
    write_s, entries, _chars = floor.stdout.split()
    floor_total = float(write_s) + floor_start.wall
    out = WORK / "export-100k.bib"
    ours = run([*READINGLIST, "--db", str(library), "export", "bibtex", "-o", str(out)])
    ratio = ours.wall / floor_total
    size = out.stat().st_size
    out.unlink()
    results.add(
        Row(
            "`export bibtex -o FILE` of the 100k library",
            timing(ours, short=False),
            f"write_string {float(write_s):.1f} s + start-up {ms(floor_start.wall)}",
            f"<= {EXPORT_RATIO}x",
            ratio <= EXPORT_RATIO,
            f"{ratio:.2f}x; {size / 1e6:.0f} MB written; peak RSS {ours.rss_mib:.0f} MiB; "
            f"floor wrote {int(entries):,} entries",
        )
    )


def pubs_figures(results: Results, files: dict[str, Path]) -> dict[str, float]:
    """pubs on the 10k slice: import (once, cached) and ``pubs list`` (every run)."""
    pubs = PUBS_VENV / "bin" / "pubs"
    if not pubs.exists():
        results.notes.append(
            "pubs is not installed in benchmarks/work/pubs-venv: the issue's figures for "
            f"pubs on 10,000 entries are used (import {PUBS_ISSUE['import']:.0f} s, list "
            f"{PUBS_ISSUE['list']:.0f} s). To measure them: `python3 -m venv "
            "benchmarks/work/pubs-venv && benchmarks/work/pubs-venv/bin/pip install pubs "
            "pyparsing 'bibtexparser<2'`."
        )
        return dict(PUBS_ISSUE)
    print("pubs (10k)", flush=True)
    home = WORK / "pubs-10k"
    config = home / "pubsrc"
    cache = WORK / "pubs.json"
    env = {**os.environ, "HOME": str(home)}
    if not cache.exists() or not (home / "library").exists():
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        run([str(pubs), "-c", str(config), "init", "-p", str(home / "library")], env=env)
        imported = run([str(pubs), "-c", str(config), "import", str(files["beebe-10k"])], env=env)
        cache.write_text(json.dumps({"import": imported.wall, "import_cpu": imported.cpu}))
    info = json.loads(cache.read_text())
    listed = run([str(pubs), "-c", str(config), "list"], env=env)
    count = len(listed.stdout.splitlines())
    results.add(
        Row(
            f"pubs 0.9: `pubs list` ({count:,} papers)",
            timing(listed, short=False),
            "",
            "",
            None,
            f"pubs import of the 10k slice took {info['import']:.0f} s (cpu {info['import_cpu']:.0f} s)",
        )
    )
    return {"import": float(info["import"]), "list": listed.wall}


def machine() -> list[str]:
    """A description of the machine, the interpreter and the libraries."""
    from importlib.metadata import version

    cpu = "?"
    with open("/proc/cpuinfo", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = "?"
    with open("/proc/meminfo", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    packages = ", ".join(
        f"{name} {version(name)}"
        for name in ("sqlalchemy", "click", "bibtexparser", "pylatexenc", "alembic", "rich")
    )
    return [
        f"CPU: {cpu}, {os.cpu_count()} cores; memory {mem}; {platform.platform()}",
        f"Python {platform.python_version()}; SQLite {sqlite3.sqlite_version}; {packages}",
    ]


def write_results(
    results: Results, started: float, args: argparse.Namespace, load: list[str]
) -> None:
    """Write ``RESULTS.md``: the table, the notes and the machine."""
    lines = [
        "# Benchmark results (issues 9 and 17)",
        "",
        "Generated by `.venv/bin/python benchmarks/run.py"
        + (" --quick" if args.quick else "")
        + (f" --only {args.only}" if args.only else "")
        + f"` on {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}; the whole run took "
        f"{(time.perf_counter() - started) / 60:.1f} min. Do not edit by hand.",
        "",
        "Issue 9's rows: wall clock of the whole process, with its CPU time (user + system) "
        "in brackets. Issue 17's rows (`issue17.py`): CPU time (user + system, `os.wait4`) "
        "and peak RSS of the whole process, the machine being shared. Short ones are the "
        "best of 3 runs (5 for start-up), long ones a single run. Each floor was measured "
        "in the same run.",
        "",
        "| what | readinglist | floor | target | met | notes |",
        "|---|---|---|---|---|---|",
    ]
    for row in results.rows:
        mark = {True: "yes", False: "**no**", None: ""}[row.met]
        lines.append(
            f"| {row.what} | {row.ours} | {row.floor} | {row.target} | {mark} | {row.note} |"
        )
    for heading, body in results.sections:
        lines += ["", f"## {heading}", "", *body]
    lines += ["", "## Notes", ""]
    lines += [f"- {note}" for note in results.notes]
    lines += ["", "## Machine", ""]
    lines += [f"- {line}" for line in machine()]
    lines += [f"- load average {load[0]} at the start, {load[1]} at the end (a shared machine)"]
    text = "\n".join(lines) + "\n"
    if args.only and RESULTS.exists():
        text = carry_over(RESULTS.read_text(encoding="utf-8"), text)
    RESULTS.write_text(text, encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


EARLIER = "## Rows of an earlier run (not measured in this run)"


def carry_over(old: str, new: str) -> str:
    """Return ``new`` (a RESULTS.md of a partial run, ``--only``) with the table rows of
    ``old`` that ``new`` does not measure appended under :data:`EARLIER`, verbatim, each
    group under the line saying when it was generated, so a partial run drops no figure.
    Rows are matched by their first cell (``what``)."""
    old_main, _, old_carried = old.partition(EARLIER)
    old_carried = old_carried.split("\n## Notes\n", 1)[0]
    measured = {line.split(" | ", 1)[0] for line in _table_rows(new)}
    generated = next((x for x in old_main.splitlines() if x.startswith("Generated by")), "")
    block: list[str] = []
    fresh = [x for x in _table_rows(old_main) if x.split(" | ", 1)[0] not in measured]
    if fresh:
        block += [
            f"From the RESULTS.md {generated[0].lower()}{generated[1:]}",
            "",
            *_HEAD,
            *fresh,
            "",
        ]
    for line in old_carried.strip("\n").splitlines():
        if line.startswith("| ") and line.split(" | ", 1)[0] in measured:
            continue
        block.append(line)
    if not any(x.startswith("| ") and not x.startswith(tuple(_HEAD)) for x in block):
        return new
    head, sep, tail = new.partition("\n## Notes\n")
    lines = ["", EARLIER, "", *block]
    return head.rstrip("\n") + "\n" + "\n".join(lines).rstrip("\n") + "\n" + sep + tail


_HEAD = ["| what | readinglist | floor | target | met | notes |", "|---|---|---|---|---|---|"]


def _table_rows(text: str) -> list[str]:
    """The data rows of the tables in ``text``."""
    return [x for x in text.splitlines() if x.startswith("| ") and not x.startswith(tuple(_HEAD))]


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def compile_sources() -> None:
    """Write the bytecode of ``readinglist/`` before anything is timed.

    An installed package has its ``.pyc`` files (pip compiles them); a source checkout
    gets them on first import, unless ``PYTHONDONTWRITEBYTECODE`` is set, as on the
    machines these figures come from: then every timed run compiled our modules again
    (about 40 ms of a typed command's CPU, session 8). ``compileall`` writes them
    whatever that variable says, and Python reads them whatever it says.
    """
    import compileall

    compileall.compile_dir(ROOT / "readinglist", quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only start-up and the 10k import")
    parser.add_argument("--rebuild", action="store_true", help="build the 100k library again")
    parser.add_argument("--work", type=Path, help="folder for inputs and libraries")
    parser.add_argument("--only", help="comma-separated sections (see the module docstring)")
    parser.add_argument("--import-scaling", action="store_true", help="run import_scaling.py")
    parser.add_argument(
        "--pg-url",
        default="postgresql+psycopg://postgres@127.0.0.1:5432/readinglist_bench",
        help="PostgreSQL database for the completion rows (created when missing)",
    )
    args = parser.parse_args()
    if args.work is not None:
        global WORK, PUBS_VENV
        WORK = args.work.resolve()
        PUBS_VENV = WORK / "pubs-venv"
    started = time.perf_counter()
    compile_sources()
    load_start = _load()
    results = Results()
    files = prepare_data()
    print(f"  {'what':<44} {'readinglist':>22}  {'floor':>26}  {'target':<18} met")
    sections = set((args.only or "startup,pubs,import,commands,export,issue17").split(","))
    if "startup" in sections:
        startup(results)
    if args.quick:
        imports(results, files, ["beebe-10k"])
    else:
        pubs = pubs_figures(results, files) if "pubs" in sections else dict(PUBS_ISSUE)
        if "import" in sections:
            imports(results, files, ["beebe-10k", "acl", "beebe"])
        if sections & {"commands", "export", "issue17"}:
            library = library_100k(results, files, args.rebuild)
            if "commands" in sections:
                commands(results, library, pubs)
            if "export" in sections:
                export(results, library, files)
            if "issue17" in sections:
                issue17_sections(results, library, files, args)
        if "scaling" in sections and "issue17" not in sections:
            issue17_scaling(results)
    write_results(results, started, args, [load_start, _load()])


def issue17_sections(
    results: Results, library: Path, files: dict[str, Path], args: argparse.Namespace
) -> None:
    """Every row of issue 17's table (:mod:`issue17`), with this module's helpers."""
    from types import SimpleNamespace

    sys.path.insert(0, str(HERE))
    import issue17

    _create_pg_database(args.pg_url)
    bench = SimpleNamespace(
        run=run,
        best=best,
        Row=Row,
        results=results,
        READINGLIST=READINGLIST,
        PYTHON=PYTHON,
        HERE=HERE,
        WORK=WORK,
        secs=secs,
        ms=ms,
        fresh_db=fresh_db,
    )
    issue17.streaming(bench, library)
    issue17.streaming(bench, issue17.library_500k(bench, library), "500k")
    issue17.bibtex_export(bench, library, files["beebe-100k"])
    issue17.import_scaling(bench, args.import_scaling)
    issue17.typed_commands(bench, library)
    issue17.completion_postgresql(bench, files, args.pg_url)
    issue17.papis(bench, files)
    issue17.acl_import(bench, files)


def issue17_scaling(results: Results) -> None:
    """Only issue 17's import-scaling rows (``--only scaling``: about an hour)."""
    from types import SimpleNamespace

    sys.path.insert(0, str(HERE))
    import issue17

    bench = SimpleNamespace(Row=Row, results=results, HERE=HERE)
    issue17.import_scaling(bench, True)


def _create_pg_database(url: str) -> None:
    """Create the database of ``url`` on its server when missing (quietly, when possible)."""
    try:
        import psycopg

        base, _, name = url.replace("postgresql+psycopg", "postgresql").rpartition("/")
        with psycopg.connect(f"{base}/postgres", autocommit=True, connect_timeout=3) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                return
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception as exc:  # the completion row says what went wrong
        print(f"  (PostgreSQL database not created: {exc})", flush=True)


if __name__ == "__main__":
    main()
