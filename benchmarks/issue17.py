"""The rows of issue 17's table, each with its floor measured in the same run.

Called by ``benchmarks/run.py`` (``--only issue17`` runs these alone); each function
adds rows to run.py's ``Results`` through the measuring helpers run.py hands it
(``bench``: the ``run``/``best``/``Row``/``timing`` of that module, so both share one
work folder). Figures are CPU time (user + system) of the child process, read with
``os.wait4``, and its peak RSS; short ones are the smallest of 3 runs.

* **streaming** (item 1): ``list``, ``list --json``, ``export markdown``/``csl-json``/
  ``ris`` and ``stats`` of the 100k library against ``floor_commands.py`` (stdlib
  ``sqlite3``, the same columns, the same shape of output): <= 3x the floor's CPU and
  <= 250 MiB peak RSS; then the same on a 500k library (:func:`library_500k`: SQL
  copies of the 100k one), as the issue asks the RSS bound "at 100k and at 500k".
* **BibTeX export** (item 2): ``export bibtex`` of the 100k library against
  bibtexparser's in-place writer stack (``floor_export.py``) and a byte copy of the
  stored entries: <= 5 s, and the share of entries with a source text copied byte for
  byte (>= 95%).
* **import scaling** (item 3): ``import_scaling.measure_import_scaling`` when that
  module exists (rows as it returns them), else one row saying it was not measured.
* **typed commands** (item 4): ``show``, ``mark``, ``tag add``, ``priority``, ``note
  add -m``, ``list --limit 50 QUERY`` (<= 250 ms CPU) against the same SQL in
  ``floor_commands.py``, and completion of keys and tags (<= 60 ms on SQLite, <= 300 ms
  on PostgreSQL) against a stdlib look-up; the import floor ``python -c "import click,
  sqlalchemy.orm"`` is in the notes.
* **papis 0.16** ``papis list QUERY`` on 1,000 papers, when ``WORK/papis-venv`` exists.
* **ACL 10k import** (item 5): the first 10,000 ACL entries, one process, against
  ``floor_import.py``: <= 1.3x.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

STREAM_RATIO = 3.0
STREAM_RSS_MIB = 250.0
COMMAND_CPU_MS = 250.0
COMPLETE_SQLITE_MS = 60.0
COMPLETE_PG_MS = 300.0
BIBTEX_EXPORT_S = 5.0
ACL_IMPORT_RATIO = 1.3

#: (label, readinglist arguments, floor_commands.py arguments)
STREAMS = [
    ("`list` (whole library, table)", ["list"], ["list"]),
    ("`list --json` (whole library)", ["list", "--json"], ["json"]),
    ("`export markdown` 100k", ["export", "markdown"], ["markdown"]),
    ("`export csl-json` 100k", ["export", "csl-json"], ["csl-json"]),
    ("`export ris` 100k", ["export", "ris"], ["ris"]),
    ("`stats` 100k", ["stats"], ["stats"]),
]


def streaming(bench: SimpleNamespace, library: Path, size: str = "100k") -> None:
    """Whole-library reads against the stdlib floor: CPU ratio and peak RSS (``size``
    names the library in the labels: ``100k``, or ``500k`` for :func:`library_500k`)."""
    print(f"issue 17: whole-library reads ({size})", flush=True)
    db = ["--db", str(library)]
    # The interest scores of `list --json` come from the ranking index, cached per
    # library: built once here (not timed), as it is after a library's first listing.
    warm = bench.run([*bench.READINGLIST, *db, "list", "--json", "--limit", "1"])
    bench.results.notes.append(
        f"`list --json` warm-up (builds the ranking index cache of the {size} library when "
        f"missing): cpu {warm.cpu:.1f} s, peak RSS {warm.rss_mib:.0f} MiB."
    )
    floor_script = str(bench.HERE / "floor_commands.py")
    for label, args, floor_args in STREAMS:
        floor = bench.run([bench.PYTHON, floor_script, str(library), *floor_args])
        ours = bench.run([*bench.READINGLIST, *db, *args])
        ratio = ours.cpu / floor.cpu
        met = ratio <= STREAM_RATIO and ours.rss_mib <= STREAM_RSS_MIB
        if size != "100k":
            label = label.replace("100k", size) if "100k" in label else f"{label} {size}"
        bench.results.add(
            bench.Row(
                label,
                f"cpu {bench.secs(ours.cpu)}, {ours.rss_mib:.0f} MiB",
                f"stdlib sqlite3 cpu {bench.secs(floor.cpu)}, {floor.rss_mib:.0f} MiB",
                f"<= {STREAM_RATIO:.0f}x, <= {STREAM_RSS_MIB:.0f} MiB",
                met,
                f"{ratio:.1f}x the floor's CPU; RSS "
                f"{'within' if ours.rss_mib <= STREAM_RSS_MIB else 'over'} "
                f"{STREAM_RSS_MIB:.0f} MiB; {ours.stdout_bytes / 1e6:.1f} MB written (floor "
                f"{floor.stdout_bytes / 1e6:.1f} MB)",
            )
        )


#: Tables copied by :func:`library_500k`: (table, columns changed per copy ``k``; the
#: others are copied as they are). ``{k}`` is the copy's number, ``{off}`` the offset of
#: its paper ids; notes and status events take ids after the table's last.
COPIED_TABLES: list[tuple[str, dict[str, str]]] = [
    (
        "papers",
        {
            "id": "id + {off}",
            "citekey": "citekey || '-c{k}'",
            "citekey_folded": "citekey_folded || '-c{k}'",
            "title": "'c{k} ' || title",
            "title_key": "'c{k} ' || title_key",
            "abstract_key": "substr('c{k}' || abstract_key, 1, 40)",
            "doi": "doi || '-c{k}'",
            "arxiv": "arxiv || 'c{k}'",
            "search_text": "'c{k} ' || search_text",
        },
    ),
    ("aliases", {"alias_folded": "alias_folded || '-c{k}'", "paper_id": "paper_id + {off}"}),
    ("paper_people", {"paper_id": "paper_id + {off}"}),
    ("paper_tags", {"paper_id": "paper_id + {off}"}),
    ("notes", {"id": "id + {off}", "paper_id": "paper_id + {off}"}),
    ("status_events", {"id": "id + {off}", "paper_id": "paper_id + {off}"}),
]


def library_500k(bench: SimpleNamespace, library: Path) -> Path:
    """Return ``WORK/lib-500k.db``: the 100k library plus four altered copies of its
    papers (made once; remade when the 100k library is newer).

    Built in SQL, not by an import (about 40 min at 500k): copy ``k`` gives every paper a
    new id, citation key, DOI, arXiv id and title/search words of its own (as
    ``import_scaling.py`` alters its input), with the same authors, tags, notes, status
    history and source text, so whole-library reads see five times the rows and the
    same shapes. The FTS5 triggers index the copies as they are inserted.
    """
    path = bench.WORK / "lib-500k.db"
    if path.exists() and path.stat().st_mtime >= library.stat().st_mtime:
        return path
    print("building the 500k library (once; SQL copies of the 100k library)", flush=True)
    tmp = bench.fresh_db("lib-500k.db.tmp")
    with sqlite3.connect(library) as source, sqlite3.connect(tmp) as target:
        source.backup(target)
    conn = sqlite3.connect(tmp)
    try:
        offset = conn.execute("SELECT max(id) FROM papers").fetchone()[0]
        for k in range(1, 5):
            for table, changed in COPIED_TABLES:
                columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
                values = {c: changed.get(c, c).format(k=k, off=k * offset) for c in columns}
                if table in ("notes", "status_events"):  # ids of their own, after the last
                    top = conn.execute(f"SELECT max(id) FROM {table}").fetchone()[0] or 0
                    values["id"] = f"id + {top}"
                conn.execute(
                    f"INSERT INTO {table} ({', '.join(columns)}) "
                    f"SELECT {', '.join(values[c] for c in columns)} FROM {table} "
                    f"WHERE {'paper_id' if table != 'papers' else 'id'} <= {offset}"
                )
            conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    tmp.replace(path)
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    return path


def bibtex_export(bench: SimpleNamespace, library: Path, source: Path) -> None:
    """``export bibtex`` of the 100k library against the in-place writer and a byte copy."""
    print("issue 17: BibTeX export", flush=True)
    start = bench.best([bench.PYTHON, "-c", "import bibtexparser"])
    floor = bench.run([bench.PYTHON, str(bench.HERE / "floor_export.py"), str(source)])
    default_s, entries, _chars, inplace_s = floor.stdout.split()
    copy = bench.run(
        [
            bench.PYTHON,
            "-c",
            "import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1])\n"
            "with open(sys.argv[2], 'w', encoding='utf-8') as out:\n"
            "    for (t,) in c.execute('SELECT source_text FROM papers ORDER BY id'):\n"
            "        out.write((t or '') + '\\n')\n",
            str(library),
            str(bench.WORK / "copy-100k.bib"),
        ]
    )
    out = bench.WORK / "export-100k.bib"
    ours = bench.run([*bench.READINGLIST, "--db", str(library), "export", "bibtex", "-o", str(out)])
    size = out.stat().st_size
    copied, with_source, redefined = _copied_share(out, library)
    for path in (out, bench.WORK / "copy-100k.bib"):
        path.unlink(missing_ok=True)
    inplace = float(inplace_s) + start.cpu
    bench.results.add(
        bench.Row(
            "`export bibtex` 100k",
            f"cpu {bench.secs(ours.cpu)}, {ours.rss_mib:.0f} MiB",
            f"in-place writer {float(inplace_s):.1f} s + start-up {bench.ms(start.cpu)}; "
            f"byte copy cpu {bench.secs(copy.cpu)}",
            f"<= {BIBTEX_EXPORT_S:.0f} s",
            ours.cpu <= BIBTEX_EXPORT_S,
            f"{ours.cpu / inplace:.1f}x the in-place writer; deep-copying default writer "
            f"{float(default_s):.1f} s; {size / 1e6:.0f} MB written; floor wrote "
            f"{int(entries):,} entries; {copied:,} of the {with_source:,} papers with a "
            f"source text copied byte for byte ({copied / max(with_source, 1):.1%}, target "
            f">= 95%), {redefined:,} @string blocks written again before an entry",
        )
    )


def _copied_share(export: Path, library: Path) -> tuple[int, int, int]:
    """Of the papers with a ``source_text``, how many are in ``export`` byte for byte;
    and how many ``@string`` blocks stand between entries there (issue 17 item 2)."""
    text = export.read_text(encoding="utf-8")
    blocks = [block.rstrip() for block in re.split(r"\n(?=@)", text)]
    first = next(
        (i for i, b in enumerate(blocks) if not re.match(r"@(string|preamble)\b", b, re.I)), 0
    )
    redefined = sum(1 for b in blocks[first:] if re.match(r"@string\b", b, re.I))
    with sqlite3.connect(library) as conn:
        sources = [
            t
            for (t,) in conn.execute("SELECT source_text FROM papers WHERE source_text IS NOT NULL")
        ]
    present = set(blocks)
    return sum(1 for t in sources if t.rstrip() in present), len(sources), redefined


def import_scaling(bench: SimpleNamespace, measure: bool) -> None:
    """PostgreSQL against SQLite import, from h6's ``import_scaling`` when present."""
    if (bench.HERE / "import_scaling.py").exists() and measure:
        print("issue 17: import scaling (import_scaling.measure_import_scaling)", flush=True)
        sys.path.insert(0, str(bench.HERE))
        import import_scaling  # type: ignore[import-not-found]

        for row in import_scaling.measure_import_scaling():
            bench.results.add(
                bench.Row(row.what, row.ours, row.floor, row.target, row.met, row.note)
            )
        return
    # Not measured in this run: add no row, so that RESULTS.md carries the rows of the
    # last run that measured them (``run.carry_over``, under their run's date).
    bench.results.notes.append(
        "Import scaling (PostgreSQL vs SQLite, 100k and 500k entries) not measured in this"
        " run: pass `--import-scaling` or `--only scaling` (about an hour); the rows of the"
        " last run that measured it are carried over below."
    )


def typed_commands(bench: SimpleNamespace, library: Path) -> None:
    """One-paper commands against the same SQL with stdlib sqlite3 (<= 250 ms CPU)."""
    print("issue 17: commands a person types", flush=True)
    scratch = bench.fresh_db("scratch17-100k.db")
    shutil.copyfile(library, scratch)
    with sqlite3.connect(scratch) as conn:
        keys = [k for (k,) in conn.execute("SELECT citekey FROM papers ORDER BY id LIMIT 40")]
    floor_script = str(bench.HERE / "floor_commands.py")
    imports = bench.best([bench.PYTHON, "-c", "import click, sqlalchemy.orm"])
    core = bench.best([bench.PYTHON, "-c", "import click, sqlalchemy"])
    cases: list[tuple[str, list[list[str]], list[list[str]]]] = [
        ("`show REF`", [["show", keys[0]]] * 3, [["show", keys[0]]] * 3),
        (
            "`mark to-read REF`",
            [["mark", "to-read", k] for k in keys[1:4]],
            [["mark", "to-read", k] for k in keys[21:24]],
        ),
        (
            "`tag add bench REF`",
            [["tag", "add", "bench", k] for k in keys[4:7]],
            [["tag", "bench", k] for k in keys[24:27]],
        ),
        (
            "`priority high REF`",
            [["priority", "high", k] for k in keys[7:10]],
            [["priority", "high", k] for k in keys[27:30]],
        ),
        (
            "`note add -m TEXT REF`",
            [["note", "add", "-m", "check the methods", k] for k in keys[10:13]],
            [["note", "check the methods", k] for k in keys[30:33]],
        ),
        (
            "`list --limit 50 salmon`",
            [["list", "--limit", "50", "salmon"]] * 3,
            [["search", "salmon"]] * 3,
        ),
    ]
    for label, ours_args, floor_args in cases:
        ours = _least(
            [bench.run([*bench.READINGLIST, "--db", str(scratch), *a]) for a in ours_args]
        )
        floor = _least(
            [bench.run([bench.PYTHON, floor_script, str(scratch), *a]) for a in floor_args]
        )
        bench.results.add(
            bench.Row(
                label,
                f"cpu {bench.ms(ours.cpu)}",
                f"stdlib sqlite3 cpu {bench.ms(floor.cpu)}",
                f"<= {COMMAND_CPU_MS:.0f} ms cpu",
                ours.cpu * 1000 <= COMMAND_CPU_MS,
                f"{ours.cpu / floor.cpu:.0f}x the floor; imports alone: click + sqlalchemy.orm "
                f"cpu {bench.ms(imports.cpu)}, click + sqlalchemy (Core) {bench.ms(core.cpu)}",
            )
        )
    phase_table(bench, scratch, keys, library)
    bench.fresh_db("scratch17-100k.db")
    completion(bench, library, keys[0][:2], "sqlite", COMPLETE_SQLITE_MS)


def phase_table(
    bench: SimpleNamespace, scratch: Path, keys: list[str], library: Path | None = None
) -> None:
    """Where the CPU of the typed commands and of a TAB goes (:mod:`phases`), as a
    RESULTS.md section."""
    import phases  # type: ignore[import-not-found]

    db = ["--db", str(scratch)]
    cases = {
        "show REF": [*db, "show", keys[0]],
        "mark read REF": [*db, "mark", "read", keys[14]],
        "tag add TAG REF": [*db, "tag", "add", "phase", keys[15]],
        "list --limit 50 salmon": [*db, "list", "--limit", "50", "salmon"],
    }
    profiles = {
        name: phases.profile(bench.PYTHON, args, bench.WORK) for name, args in cases.items()
    }
    prefix = keys[0][:2]
    tab = {
        **os.environ,
        "_READINGLIST_COMPLETE": "bash_complete",
        "COMP_WORDS": f"readinglist show {prefix}",
        "COMP_CWORD": "2",
        "READINGLIST_DB": str(library or scratch),
    }
    profiles[f"TAB: show {prefix}"] = phases.profile(bench.PYTHON, [], bench.WORK, env=tab)
    head = "| phase | " + " | ".join(f"`{name}`" for name in profiles) + " |"
    lines = [
        "CPU per phase (`benchmarks/phases.py`: the modules a plain run imports are "
        "imported first and timed, then the command runs with `AppContext.engine`, the "
        "ORM's mapper configuration and the Session's and Connection's statements timed; the "
        "rest is Click, our logic and the output). These commands run Core statements on a "
        "Connection (`readinglist.tables`) and import neither `sqlalchemy.orm` nor "
        "`readinglist.models`: their mapper configuration and `readinglist.models` rows are "
        "0 (session 9). Import self-times by package come "
        "from `python -X importtime` of a plain run (wall clock, so inflated on a shared "
        "machine; the CPU phase is exact); `readinglist.models` is SQLAlchemy's "
        "declarative mapping of our tables. The TAB column is a bash completion of a "
        "key, answered before Click is imported (`cli/_fast.py`): imports only.",
        "",
        head,
        "|---|" + "---|" * len(profiles),
    ]

    def phase(name: str) -> Any:
        return lambda p: p["phases"][name] if p["phases"] else None

    rows = [
        ("interpreter start (`python -c pass`)", lambda p: p["start"]),
        ("imports (CPU)", phase("imports")),
        ("engine + schema check", phase("engine")),
        ("ORM mapper configuration", phase("configure")),
        ("SQL: compile, execute, load", phase("sql")),
        ("Click, our logic, output", phase("rest")),
    ]
    for label, get in rows:
        cells = [get(p) for p in profiles.values()]
        lines.append(
            f"| {label} | " + " | ".join("—" if c is None else bench.ms(c) for c in cells) + " |"
        )
    lines.append(
        "| modules imported | " + " | ".join(str(p["modules"]) for p in profiles.values()) + " |"
    )
    for package in (*phases.PACKAGES, "other"):
        lines.append(
            f"| importtime self, `{package}` | "
            + " | ".join(bench.ms(p["imports"].get(package, 0.0)) for p in profiles.values())
            + " |"
        )
    bench.results.sections.append(("Where the time of a typed command goes (issue 17)", lines))


def completion(
    bench: SimpleNamespace, library: Path | str, prefix: str, backend: str, target_ms: float
) -> None:
    """TAB completion of a key (``show PREFIX``) and of a tag (``tag add f``)."""
    url = str(library)
    floor_code = (
        "import sqlite3, sys\n"
        "c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)\n"
        "p = sys.argv[2].lower()\n"
        "print(*[k for (k,) in c.execute('SELECT citekey FROM papers WHERE citekey_folded "
        ">= ? AND citekey_folded < ? ORDER BY citekey_folded LIMIT 200', (p, p + '\\U0010ffff'))])\n"
    )
    for what, words, cword in (
        ("key", f"readinglist show {prefix}", 2),
        ("tag", "readinglist tag add f", 3),
    ):
        env = {
            **os.environ,
            "_READINGLIST_COMPLETE": "bash_complete",
            "COMP_WORDS": words,
            "COMP_CWORD": str(cword),
            "READINGLIST_DB": url,
        }
        ours = bench.best([str(Path(bench.PYTHON).parent / "readinglist")], env=env)
        found = len(ours.stdout.splitlines())
        floor_note = ""
        floor_text = ""
        if backend == "sqlite":
            floor = bench.best([bench.PYTHON, "-c", floor_code, url, prefix])
            floor_text = f"stdlib sqlite3 cpu {bench.ms(floor.cpu)}"
            floor_note = f"{ours.cpu / floor.cpu:.1f}x the floor; "
        bench.results.add(
            bench.Row(
                f"completion of a {what} on {backend}",
                f"cpu {bench.ms(ours.cpu)}",
                floor_text,
                f"<= {target_ms:.0f} ms cpu",
                ours.cpu * 1000 <= target_ms,
                f"{floor_note}{found} candidates for `{words.split(' ', 1)[1]}`",
            )
        )


def completion_postgresql(bench: SimpleNamespace, files: dict[str, Path], pg_url: str) -> None:
    """Completion on a PostgreSQL library (the 10k slice imported once into ``pg_url``)."""
    print("issue 17: completion on PostgreSQL", flush=True)
    marker = bench.WORK / "pg-10k.done"
    try:
        if not marker.exists():
            bench.run([*bench.READINGLIST, "--db", pg_url, "import", str(files["beebe-10k"])])
            bench.run([*bench.READINGLIST, "--db", pg_url, "tag", "add", "fish", "-q", "salmon"])
            marker.write_text(pg_url)
    except Exception as exc:  # no server: say so in the table
        bench.results.add(
            bench.Row("completion on postgresql", "not measured", "", "", None, str(exc)[:200])
        )
        return
    completion(bench, pg_url, "Be", "postgresql (10k library)", COMPLETE_PG_MS)


def papis(bench: SimpleNamespace, files: dict[str, Path]) -> None:
    """papis 0.16 ``list`` with a query on 1,000 papers (its own venv, never ours)."""
    venv = bench.WORK / "papis-venv"
    exe = venv / "bin" / "papis"
    if not exe.exists():
        bench.results.add(
            bench.Row(
                "papis 0.16: `papis list salmon` (1,000 papers)",
                "not measured",
                "",
                "",
                None,
                f"no papis in {venv}: `python3 -m venv {venv} && {venv}/bin/pip install papis`",
            )
        )
        return
    print("papis (1k)", flush=True)
    home = bench.WORK / "papis-home"
    lib = bench.WORK / "papis-lib"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    if not (lib / ".imported").exists():
        shutil.rmtree(lib, ignore_errors=True)
        lib.mkdir(parents=True)
        one_k = _slice(files["beebe-10k"], bench.WORK / "beebe-1k.bib", 1000)
        bench.run(
            [str(exe), "-l", str(lib), "bibtex", "read", str(one_k), "import", "--all"], env=env
        )
        (lib / ".imported").write_text("")
    cmd = [str(exe), "-l", str(lib), "list", "--all", "salmon"]
    bench.run(cmd, env=env)  # the cache of the library is built on first use
    listed = bench.best(cmd, env=env)
    count = sum(1 for p in lib.iterdir() if p.is_dir())
    bench.results.add(
        bench.Row(
            f"papis 0.16: `papis list --all salmon` ({count:,} papers)",
            f"cpu {bench.ms(listed.cpu)}",
            "",
            "beaten by `list --limit 50 salmon` on 100k",
            None,
            f"{len(listed.stdout.splitlines())} lines printed",
        )
    )


def acl_import(bench: SimpleNamespace, files: dict[str, Path]) -> None:
    """The first 10,000 ACL entries imported in one process against the import floor."""
    print("issue 17: import of the ACL 10k slice", flush=True)
    path = _slice(files["acl"], bench.WORK / "acl-10k.bib", 10_000)
    floor = bench.run([bench.PYTHON, str(bench.HERE / "floor_import.py"), str(path)])
    db = bench.fresh_db("import-acl-10k.db")
    env = {**os.environ, "READINGLIST_READER_PROCESS": "0"}
    ours = bench.run([*bench.READINGLIST, "--db", str(db), "import", str(path)], env=env)
    bench.fresh_db("import-acl-10k.db")
    ratio = ours.cpu / floor.cpu
    bench.results.add(
        bench.Row(
            "import of the ACL 10k slice (one process)",
            f"cpu {bench.secs(ours.cpu)}",
            f"cpu {bench.secs(floor.cpu)}",
            f"<= {ACL_IMPORT_RATIO}x",
            ratio <= ACL_IMPORT_RATIO,
            f"{ratio:.2f}x; floor: {floor.stderr.strip()} (floor_import.py: pylatexenc's "
            "default settings, issue 9's floor, as issue 17 item 5 asks)",
        )
    )


def _slice(source: Path, target: Path, count: int) -> Path:
    """The text of ``source`` before its ``count + 1``-th entry, written once."""
    if not target.exists():
        text = source.read_text(encoding="utf-8")
        starts = [m.start() for m in re.finditer(r"^@\w+\{", text, re.MULTILINE)]
        target.write_text(text[: starts[count]] if len(starts) > count else text, encoding="utf-8")
    return target


def _least(runs: list[Any]) -> Any:
    """The run with the least CPU of ``runs``."""
    return min(runs, key=lambda r: r.cpu)
