"""Export profiles: what keeping exports current adds to a command, beside the plain export.

Usage (from the project root)::

    .venv/bin/python benchmarks/export_profiles.py [--work DIR]

Writes ``benchmarks/EXPORT_PROFILES.md`` and prints the same table. Inputs and libraries
are kept in ``--work`` (default ``benchmarks/work``, git-ignored; the inputs are
:func:`run.prepare_data`'s).

* **mark on a 100k library**: the first 100,000 Beebe entries imported once; 5,000 of
  them tagged ``paper`` and marked ``to-read``. ``readinglist mark read KEY`` (then
  ``to-read`` again, alternately, so every run changes a status) is timed, best of 5, on
  copies of that library: without profiles; with a 5,000-paper BibTeX profile
  (``export bibtex tag:paper --keep``, which a status change cannot alter); with a
  5,000-paper BibTeX profile selected by status (``status:to-read``, which it alters).
  The target (issue "export profiles"): the first adds <= 150 ms. The floor of the
  others is the plain export of those 5,000 papers (``export bibtex tag:paper -o``).
* **60k import**: the ACL Anthology (61,685 entries) imported into an empty library,
  without profiles and with three registered on the empty library first (BibTeX
  ``year:2020``, biblatex ``--aux`` citing 200 keys, Markdown ``year:2021``). Target:
  <= 10% more CPU; the refresh alone is also timed (``export --refresh`` after removing
  the three files, less the start-up of ``export --profiles``). The floor beside it: the
  plain exports of the same three profiles.

Every figure is one whole process (wall and CPU time, ``run.run``); the machine is shared,
so short timings are the best of 5.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as harness  # benchmarks/run.py: data, timing

ROOT = Path(__file__).resolve().parent.parent
RL = str(ROOT / ".venv" / "bin" / "readinglist")
OWNER = "bench@profiles"


def rl(db: Path, *args: str) -> harness.Run:
    """Run ``readinglist --db DB ARGS`` once, timed."""
    return harness.run([RL, "--db", str(db), *args], env=_env())


def _env() -> dict[str, str]:
    """The benchmark's owner, and a data directory of its own: the exports it keeps are
    listed there (``kept-exports.json``), not in the account's."""
    data = str(harness.WORK / "profiles-data")
    return {**os.environ, "READINGLIST_PROFILE_OWNER": OWNER, "XDG_DATA_HOME": data}


def copy_db(source: Path, name: str) -> Path:
    target = harness.fresh_db(name)
    with sqlite3.connect(source) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(source, target)
    return target


def library_100k(files: dict[str, Path]) -> tuple[Path, str]:
    """The 100k library with 5,000 papers tagged ``paper`` and marked to-read (built once);
    return it and one of those papers' keys."""
    path = harness.WORK / "profiles-100k.db"
    if not path.exists():
        building = harness.fresh_db("profiles-100k.building.db")
        rl(building, "import", str(files["beebe-100k"]))
        with sqlite3.connect(building) as conn:
            keys = [r[0] for r in conn.execute("SELECT citekey FROM papers ORDER BY id")]
        chosen = keys[1000:6000]
        for start in range(0, len(chosen), 1000):
            rl(building, "tag", "add", "paper", *chosen[start : start + 1000])
        rl(building, "mark", "to-read", "-q", "tag:paper")
        with sqlite3.connect(building) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        building.replace(path)
    with sqlite3.connect(path) as conn:
        key = conn.execute(
            "SELECT p.citekey FROM papers p JOIN paper_tags pt ON pt.paper_id = p.id "
            "ORDER BY p.id LIMIT 1"
        ).fetchone()[0]
    return path, str(key)


def best_mark(db: Path, key: str, times: int = 5) -> harness.Run:
    """Best of ``times`` alternating ``mark read KEY`` / ``mark to-read KEY``."""
    runs = [rl(db, "mark", ("read", "to-read")[i % 2], key) for i in range(times * 2)]
    fastest = min(runs, key=lambda r: r.wall)
    fastest.cpu = min(r.cpu for r in runs)
    return fastest


def mark_rows(files: dict[str, Path]) -> list[str]:
    source, key = library_100k(files)
    out = harness.WORK / "profiles-out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    plain = copy_db(source, "profiles-plain.db")
    kept = copy_db(source, "profiles-kept.db")
    rl(kept, "export", "bibtex", "tag:paper", "-o", str(out / "paper.bib"), "--keep")
    status = copy_db(source, "profiles-status.db")
    rl(status, "export", "bibtex", "status:to-read", "-o", str(out / "todo.bib"), "--keep")
    floor = min(
        (rl(plain, "export", "bibtex", "tag:paper", "-o", str(out / "f.bib")) for _ in range(3)),
        key=lambda r: r.wall,
    )
    base = best_mark(plain, key)
    with_kept = best_mark(kept, key)
    with_status = best_mark(status, key)
    added = with_kept.cpu - base.cpu
    added_status = with_status.cpu - base.cpu
    return [
        f"| `mark read KEY`, 100k library, no profile | {harness.timing(base, short=True)} | | | |",
        "| same, with a 5,000-paper BibTeX profile (`tag:paper`) | "
        f"{harness.timing(with_kept, short=True)} | {added * 1000:+.0f} ms CPU | <= +150 ms | "
        f"{'yes' if added <= 0.150 else 'NO'} |",
        "| same, with a 5,000-paper BibTeX profile selected by status (`status:to-read`) | "
        f"{harness.timing(with_status, short=True)} | {added_status * 1000:+.0f} ms CPU | "
        f"floor: plain export of 5,000 papers {harness.timing(floor, short=True)} | |",
    ]


def import_rows(files: dict[str, Path]) -> list[str]:
    acl = files["acl"]
    out = harness.WORK / "profiles-import"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    bare = harness.fresh_db("profiles-acl-bare.db")
    plain_import = rl(bare, "import", str(acl))
    with sqlite3.connect(bare) as conn:
        cited = [r[0] for r in conn.execute("SELECT citekey FROM papers ORDER BY id LIMIT 200")]
    aux = out / "paper.aux"
    aux.write_text("".join(f"\\citation{{{key}}}\n" for key in cited), encoding="utf-8")
    profiles = [
        ("bibtex", "year:2020", "-o", str(out / "y2020.bib")),
        ("biblatex", "--aux", str(aux), "-o", str(out / "paper.bib")),
        ("markdown", "year:2021", "-o", str(out / "reading.md")),
    ]
    floors = [
        rl(bare, "export", *args[:-1], str(out / f"floor-{i}")) for i, args in enumerate(profiles)
    ]
    floor_wall = sum(r.wall for r in floors)
    floor_cpu = sum(r.cpu for r in floors)
    kept = harness.fresh_db("profiles-acl-kept.db")
    for args in profiles:
        rl(kept, "export", *args, "--keep")
    kept_import = rl(kept, "import", str(acl))
    added = kept_import.cpu / plain_import.cpu - 1
    # The refresh alone: the three files removed, so `export --refresh` writes them all.
    for args in profiles:
        Path(args[-1]).unlink()
    refresh = rl(kept, "export", "--refresh")
    startup = min((rl(kept, "export", "--profiles") for _ in range(3)), key=lambda r: r.cpu)
    refresh_share = (refresh.cpu - startup.cpu) / plain_import.cpu
    sizes = ", ".join(
        f"{Path(a[-1]).name} {Path(a[-1]).stat().st_size // 1024} KiB" for a in profiles
    )
    return [
        f"| import ACL Anthology (61,685 entries), no profile | "
        f"{harness.timing(plain_import, short=False)} | | | |",
        f"| same, three profiles kept ({sizes}) | "
        f"{harness.timing(kept_import, short=False)} | {added * 100:+.1f}% CPU | <= +10% | "
        f"{'yes' if added <= 0.10 else 'NO'} |",
        f"| the refresh alone: `export --refresh` of the three (files removed first), less "
        f"`export --profiles` | {harness.timing(refresh, short=False)} | "
        f"{refresh_share * 100:+.1f}% of the import's CPU | <= +10% | "
        f"{'yes' if refresh_share <= 0.10 else 'NO'} |",
        f"| floor: the three plain exports, one process each | "
        f"{floor_wall:.1f} s ({floor_cpu:.1f} s CPU) | | | |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=harness.WORK)
    args = parser.parse_args()
    harness.WORK = args.work.resolve()
    harness.WORK.mkdir(parents=True, exist_ok=True)
    files = harness.prepare_data()
    lines = [
        "# Export profiles: the cost of keeping exports current",
        "",
        "Written by `.venv/bin/python benchmarks/export_profiles.py` (its docstring says "
        "what each row runs). Wall time (CPU time) of whole processes. The machine is "
        "shared with other jobs, so wall times swing by more than the differences "
        "measured; the added cost is judged on CPU time (user + system of the process).",
        "",
        "| what | ours | added | target / floor | met |",
        "|---|---|---|---|---|",
    ]
    for row in [*mark_rows(files), *import_rows(files)]:
        print(row, flush=True)
        lines.append(row)
    lines += [
        "",
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; other processes were running (a shared machine).",
    ]
    (ROOT / "benchmarks" / "EXPORT_PROFILES.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
