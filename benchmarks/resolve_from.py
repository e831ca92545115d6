"""CPU of ``resolve --from`` and of the proceedings import onto an abstracts list.

Usage (from the project root)::

    .venv/bin/python benchmarks/resolve_from.py                   # ICML 2015, SQLite
    .venv/bin/python benchmarks/resolve_from.py --db postgresql
    .venv/bin/python benchmarks/resolve_from.py --bib pmlr-v37-icml2015.bib \\
        --bib pmlr-v48-icml2016.bib --bib pmlr-v247-colt2024.bib --bib acl-2020.bib

What it does, per case: the user's pasted lists (a header line, then one abstract per
paragraph, as ``tests/test_resolve.py`` builds it), one per ``--bib`` file
(``../shared/data``) of its entries with an abstract, are imported into a new library; then, timed, either
``readinglist resolve --from BIB ...`` (one ``--from`` per file; case ``resolve``) or ``readinglist import BIB...``
(case ``import``). Each timed command is a new process; its CPU time (user + system,
``os.wait4``) is printed, with the papers completed. ``--db postgresql`` makes a new
database on ``127.0.0.1:5432`` per case and drops it after. ``PYTHONPATH=../other``
times another checkout's package (the commands run outside the project folder).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data"
PG = "postgresql+psycopg://postgres@127.0.0.1:5432/"


def abstracts_list(path: Path) -> tuple[str, int]:
    """The pasted list of every entry of ``path`` with an abstract, and its length. Its
    header names the venue and year of the file's name (``pmlr-v37-icml2015.bib``:
    "ICML 2015 Papers"), as the list of a conference does; a list's papers take that year,
    and a paper of another year is never the same paper."""
    import bibtexparser

    found = re.search(r"([a-z]+)-?(\d{4})$", path.stem)
    header = f"{found.group(1).upper()} {found.group(2)}" if found else path.stem
    abstracts = []
    for entry in bibtexparser.parse_file(str(path)).entries:
        field = entry.fields_dict.get("abstract")
        if field is not None and str(field.value).strip():
            abstracts.append(" ".join(str(field.value).split()))
    return f"{header} Papers\n\n" + "\n\n".join(abstracts) + "\n", len(abstracts)


def run(db: str, *args: str) -> tuple[float, str]:
    """Run ``readinglist --db DB ARGS`` in a new process (in the temporary folder, so
    that ``PYTHONPATH`` can name another checkout's package); return (CPU seconds,
    stderr)."""
    command = [sys.executable, "-m", "readinglist", "--db", db, *args]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{err}")
    return usage.ru_utime + usage.ru_stime, err


def new_db(kind: str, folder: Path) -> str:
    if kind == "sqlite":
        return str(folder / f"{uuid.uuid4().hex[:8]}.db")
    import psycopg

    name = f"bench_resolve_{uuid.uuid4().hex[:10]}"
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    return PG + name


def drop_db(db: str) -> None:
    if not db.startswith("postgresql"):
        return
    import psycopg

    name = db.rsplit("/", 1)[1]
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bib", action="append", help="a file of ../shared/data (repeatable)")
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--case", action="append", choices=["resolve", "import"])
    parser.add_argument("--repeat", type=int, default=1, help="runs per case (best is shown)")
    args = parser.parse_args()
    bibs = [DATA / name for name in args.bib or ["pmlr-v37-icml2015.bib"]]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        listings, count = [], 0
        for bib in bibs:
            text, size = abstracts_list(bib)
            listings.append(folder / f"{bib.stem}.txt")
            listings[-1].write_text(text, encoding="utf-8")
            count += size
        for case in args.case or ["resolve", "import"]:
            times = []
            for _ in range(args.repeat):
                db = new_db(args.db, folder)
                try:
                    for listing in listings:
                        run(db, "import", str(listing))
                    if case == "resolve":
                        froms = [arg for bib in bibs for arg in ("--from", str(bib))]
                        cpu, err = run(db, "resolve", *froms)
                    else:
                        cpu, err = run(db, "import", *map(str, bibs))
                finally:
                    drop_db(db)
                times.append(cpu)
            said = err.strip().splitlines()[-1] if err.strip() else ""
            print(
                f"{args.db} {case} {count} papers: cpu {min(times):.2f} s "
                f"(runs {', '.join(f'{t:.2f}' for t in times)}); {said}"
            )


if __name__ == "__main__":
    main()
