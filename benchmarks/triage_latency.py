"""Triage and interest-order latency at 6,500 and 61,685 papers (the ACL Anthology).

Usage::

    .venv/bin/python benchmarks/triage_latency.py [--sizes 6500 61685] [--rebuild]

Libraries (built once, then reused): ``benchmarks/work/latency-<size>.db`` (git-ignored),
the first SIZE entries of ``../shared/data/acl-anthology-2021-06.bib.gz`` imported by
``readinglist import``, then 12 papers marked to-read (``title:translation``) and 30
skipped (``title:parsing``) by ``readinglist mark``; a marker ``latency-<size>.json``
is written when the build finished.

Measured per library, each command in a new process (wall time, CPU time of the
process and its peak RSS from ``os.wait4``; the package's bytecode written first, as an
installed one has it: :func:`compile_package`), in this order:

1. the floor: ``list --limit 20``;
2. ``triage`` cold (no index and no fitted scores: the first run after an import):
   the time to its first screen in a pseudo-terminal (pexpect), then ``q``;
3. ``list --sort interest --limit 20`` cold (it builds the index and fits);
4. ``mark skipped`` one more paper, then ``list --sort interest --limit 20`` (a refit
   on a cached index: the fitted scores are stale);
5. ``list --sort interest --limit 20`` warm (the fitted scores are current), three
   times, best and median;
6. ``similar KEY --limit 20``;
7. ``triage`` warm: first screen, then ``s`` and the time to the next screen (a
   decision to the next paper), its peak RSS and CPU (``/proc``), then ``q``;
8. the refit of a triage run in the background, in this process
   (``triage_rank.start`` then ``decide`` and ``wait``): wall and CPU time.

The machine is shared: the load average is printed beside the rows. Not a test:
nothing here asserts a time. Results: ``benchmarks/TRIAGE_LATENCY.md``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data" / "acl-anthology-2021-06.bib.gz"
WORK = HERE / "work"
REPORT = HERE / "TRIAGE_LATENCY.md"
BINARY = ROOT / ".venv" / "bin" / "readinglist"
CLEAR = re.escape("\x1b[2J\x1b[1;1H")


def slice_bib(size: int) -> Path:
    """Write the first ``size`` entries of the ACL file to ``work/acl-<size>.bib``."""
    out = WORK / f"acl-{size}.bib"
    if out.exists():
        return out
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        text = handle.read()
    starts = [m.start() for m in re.finditer(r"(?m)^@", text)]
    end = starts[size] if size < len(starts) else len(text)
    out.write_text(text[:end], encoding="utf-8")
    return out


def run(db: Path, *args: str) -> dict[str, Any]:
    """Run ``readinglist --db DB ARGS`` to its end; its output (exits on a failure)."""
    done = subprocess.run(
        [str(BINARY), "--db", str(db), *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return {"out": done.stdout, "err": done.stderr}


def timed(db: Path, *args: str) -> dict[str, Any]:
    """Like :func:`run`, with the CPU time and peak RSS of the process (``os.wait4``)."""
    started = time.perf_counter()
    # Through sh, which execs the command: the peak RSS of a process spawned straight
    # from this one starts at this one's (Linux keeps the old memory's high-water mark
    # across exec), sh's is a few MiB.
    pid = os.posix_spawn(
        "/bin/sh",
        ["sh", "-c", 'exec "$@"', "sh", str(BINARY), "--db", str(db), *args],
        dict(os.environ),
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ],
    )
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args)} failed")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": usage.ru_maxrss / 1024,
    }


def build(size: int, rebuild: bool) -> Path:
    """Return the library of ``size`` papers, built when missing (see the docstring)."""
    db = WORK / f"latency-{size}.db"
    marker = WORK / f"latency-{size}.json"
    if marker.exists() and db.exists() and not rebuild:
        return db
    for stale in WORK.glob(f"latency-{size}.db*"):
        stale.unlink()
    WORK.mkdir(exist_ok=True)
    started = time.perf_counter()
    run(db, "import", str(slice_bib(size)))
    wanted = run(db, "list", "-k", "title:translation", "--limit", "12")["out"].split()
    skipped = run(db, "list", "-k", "title:parsing", "--limit", "30")["out"].split()
    run(db, "mark", "to-read", *wanted)
    run(db, "mark", "skipped", *skipped)
    marker.write_text(
        json.dumps(
            {"built": datetime.now(UTC).isoformat(), "seconds": time.perf_counter() - started}
        )
    )
    return db


def clear_caches(db: Path) -> None:
    """Remove every cache beside ``db``: the index, the fitted scores, the stored interest
    order (without it removed, a "cold" listing read the order and built nothing, and the
    refit after one mark built the index) and the readers' selection records."""
    for suffix in (".rank.npz", ".interest.npz", ".interest.order", ".history.npz"):
        Path(str(db) + suffix).unlink(missing_ok=True)


def proc_stats(pid: int) -> tuple[float, float]:
    """CPU seconds and peak RSS (MiB) of a running process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    peak = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
    return cpu, peak


def thread_cpu(pid: int) -> float:
    """CPU seconds of the main thread of a running process (its other threads left out)."""
    fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def triage(db: Path, decide: bool, order: str = "interest") -> dict[str, Any]:
    """Time ``triage`` to its first screen (and, with ``decide``, ``s`` to the next);
    the CPU time of its main thread then (``first_cpu``)."""
    import pexpect

    env = dict(os.environ, TERM="xterm", COLUMNS="120", LINES="40")
    started = time.perf_counter()
    child = pexpect.spawn(
        str(BINARY),
        ["--db", str(db), "triage", "--order", order],
        env=env,
        dimensions=(40, 120),
        encoding="utf-8",
        timeout=900,
    )
    child.expect(CLEAR + r"\d+/[\d,]+, ")
    found: dict[str, Any] = {"first": time.perf_counter() - started}
    child.expect(r"\?:(more|help)")
    found["first_cpu"] = thread_cpu(child.pid)
    if decide:
        sent = time.perf_counter()
        child.send("s")
        child.expect(CLEAR + r"\d+/[\d,]+, \d+ to read, \d+ skipped")
        found["next"] = time.perf_counter() - sent
        child.expect(r"\?:(more|help)")
    found["cpu"], found["rss"] = proc_stats(child.pid)
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    if decide:  # put the decision back for the next run: u in a new session
        undo = pexpect.spawn(
            str(BINARY),
            ["--db", str(db), "triage"],
            env=env,
            dimensions=(40, 120),
            encoding="utf-8",
            timeout=900,
        )
        undo.expect(r"\?:(more|help)")
        undo.send("u")
        undo.expect(r"undone")
        undo.send("q")
        undo.expect(pexpect.EOF)
    return found


def background_refit(db: Path) -> dict[str, float]:
    """The refit a triage decision starts, in this process: wall and CPU seconds."""
    sys.path.insert(0, str(ROOT))
    from readinglist import db as rl_db
    from readinglist import library, triage_rank

    url = f"sqlite:///{db}"
    engine = rl_db.make_engine(url)

    def reader() -> Any:
        return rl_db.session_scope(engine, write=False)

    ranker = triage_rank.start(reader, url, None)
    ranker.shown()  # as the triage loop does once its first screen is drawn
    while not ranker.loaded:  # the index loaded (current scores: no fit yet)
        time.sleep(0.05)
    with reader() as session:
        pid = library.triage_queue(session, "", only_new=True)[0]
    ranker.patience = 0.0
    wall, cpu = time.perf_counter(), time.process_time()
    ranker.decide(pid, "skipped")  # in memory only: the library is not changed
    ranker.wait()
    result = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
    ranker.close()
    engine.dispose()
    return result


def measure(size: int, rebuild: bool, cold: bool = True) -> dict[str, Any]:
    """Every row of one library (see the module docstring); ``cold``: also the rows
    without caches (the index built again)."""
    db = build(size, rebuild)
    rows: dict[str, Any] = {"size": size, "load_start": os.getloadavg()}
    rows["floor"] = timed(db, "list", "--limit", "20")
    rows["triage_floor"] = triage(db, decide=False, order="added")
    if cold:
        clear_caches(db)
        rows["triage_cold"] = triage(db, decide=False)
        rows["interest_cold"] = timed(db, "list", "--sort", "interest", "--limit", "20")
    key = run(db, "list", "-k", "status:new", "--limit", "1")["out"].strip()
    run(db, "mark", "skipped", key)
    rows["interest_refit"] = timed(db, "list", "--sort", "interest", "--limit", "20")
    run(db, "mark", "new", key)
    timed(db, "list", "--sort", "interest", "--limit", "20")  # fitted again
    warm = [timed(db, "list", "--sort", "interest", "--limit", "20") for _ in range(3)]
    rows["interest_warm"] = min(warm, key=lambda r: r["wall"])
    rows["interest_warm_median"] = statistics.median(r["wall"] for r in warm)
    rows["similar"] = timed(db, "similar", key, "--limit", "20")
    rows["triage_warm"] = triage(db, decide=True)
    rows["refit"] = background_refit(db)
    rows["load_end"] = os.getloadavg()
    return rows


def fmt(row: dict[str, Any]) -> str:
    return f"{row['wall'] * 1000:,.0f} ms (cpu {row['cpu'] * 1000:,.0f} ms, peak {row['rss']:,.0f} MiB)"


def report(results: list[dict[str, Any]]) -> str:
    """The Markdown table of every library's rows."""
    lines = [
        f"# Triage latency ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, `benchmarks/triage_latency.py`)",
        "",
        "Wall time under the load average shown (2 cores shared), CPU time of the process,",
        "peak RSS. Each command in a new process (start-up included).",
        "",
        "| what | " + " | ".join(f"{r['size']:,} papers" for r in results) + " |",
        "|---|" + "---|" * len(results),
    ]

    def row(label: str, cell: Any) -> None:
        lines.append(f"| {label} | " + " | ".join(cell(r) for r in results) + " |")

    row("floor: `list --limit 20`", lambda r: fmt(r["floor"]))
    row("`list --sort interest --limit 20`, warm (best of 3)", lambda r: fmt(r["interest_warm"]))
    row("same, median of 3 (wall)", lambda r: f"{r['interest_warm_median'] * 1000:,.0f} ms")
    row("same after one `mark` (refit, index cached)", lambda r: fmt(r["interest_refit"]))
    row(
        "same cold (builds the index, fits)",
        lambda r: fmt(r["interest_cold"]) if "interest_cold" in r else "not measured",
    )
    row("`similar KEY --limit 20`", lambda r: fmt(r["similar"]))

    def first(name: str) -> Any:
        def cell(r: dict[str, Any]) -> str:
            if name not in r:
                return "not measured"
            t = r[name]
            return f"{t['first'] * 1000:,.0f} ms (main thread cpu {t['first_cpu'] * 1000:,.0f} ms)"

        return cell

    row("floor: `triage --order added` first screen", first("triage_floor"))
    row("`triage` first screen, cold (no index)", first("triage_cold"))
    row("`triage` first screen, warm", first("triage_warm"))
    row(
        "`triage` decision (`s`) -> next screen",
        lambda r: f"{r['triage_warm']['next'] * 1000:,.0f} ms",
    )
    row(
        "`triage` warm: cpu, peak RSS at quit",
        lambda r: (
            f"cpu {r['triage_warm']['cpu'] * 1000:,.0f} ms, peak {r['triage_warm']['rss']:,.0f} MiB"
        ),
    )
    row(
        "refit after a decision (background thread)",
        lambda r: f"{r['refit']['wall'] * 1000:,.0f} ms (cpu {r['refit']['cpu'] * 1000:,.0f} ms)",
    )
    row(
        "load average start / end",
        lambda r: f"{r['load_start'][0]:.1f} / {r['load_end'][0]:.1f}",
    )
    return "\n".join(lines) + "\n"


def compile_package() -> None:
    """Write the bytecode of ``readinglist`` (``compileall``), as an installed package
    has it: with ``PYTHONDONTWRITEBYTECODE`` set, every measured process compiled every
    module it imported again (tens of ms of CPU in each row)."""
    subprocess.run(
        [
            str(ROOT / ".venv" / "bin" / "python"),
            "-m",
            "compileall",
            "-q",
            str(ROOT / "readinglist"),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[6500, 61685])
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument(
        "--skip-cold",
        action="store_true",
        help="keep the index and leave out the cold rows (no index build: minutes)",
    )
    args = parser.parse_args()
    compile_package()
    results = []
    for size in args.sizes:
        results.append(measure(size, args.rebuild, cold=not args.skip_cold))
        print(json.dumps(results[-1], default=str), flush=True)
    text = report(results)
    REPORT.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
