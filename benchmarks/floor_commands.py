"""Issue 17 floors: what a command costs with the standard library's ``sqlite3`` alone.

Usage::

    python benchmarks/floor_commands.py DB WHAT [ARGS...]

Each WHAT issues the SQL ``readinglist`` issues for that command on the same library
and prints an output of the same shape and size to stdout, written in chunks:

* whole-library reads (issue 17, item 1): ``list`` (a table line per paper),
  ``json`` (``list --json``: an array written incrementally), ``markdown``,
  ``csl-json``, ``ris`` (``export FORMAT``) and ``stats`` (counts by status,
  priority, year, venue and tag). Papers are read a chunk of 1,000 ids at a time:
  the listed columns, then the authors joined to people, then the tags.
* one-paper commands (item 4): ``show KEY``, ``mark STATUS KEY``, ``priority LEVEL
  KEY``, ``tag TAG KEY``, ``note TEXT KEY`` (one transaction each: the look-up of the
  key, the update or insert) and ``search WORD`` (``list --limit 50 WORD``: the FTS5
  match, 50 ids, their rows).

``run.py`` times the whole process (interpreter start-up included), as it times
``readinglist``; mutations must be given a scratch copy of the library.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

CHUNK = 1000
COLUMNS = (
    "id, citekey, entry_type, title, year, venue, abstract, doi, arxiv, url, status, "
    "priority, added_at"
)


def papers(conn: sqlite3.Connection) -> Iterator[tuple[sqlite3.Row, list[str], list[str]]]:
    """Yield ``(row, author names, tag names)`` for every paper, in the order added."""
    ids = [i for (i,) in conn.execute("SELECT id FROM papers ORDER BY added_at, id")]
    for start in range(0, len(ids), CHUNK):
        part = ids[start : start + CHUNK]
        marks = ",".join("?" * len(part))
        rows = {
            r["id"]: r
            for r in conn.execute(f"SELECT {COLUMNS} FROM papers WHERE id IN ({marks})", part)
        }
        authors: dict[int, list[str]] = {}
        for pid, family, given in conn.execute(
            "SELECT pp.paper_id, p.family, p.given FROM paper_people pp JOIN people p "
            f"ON p.id = pp.person_id WHERE pp.paper_id IN ({marks}) AND pp.role = 'author' "
            "ORDER BY pp.paper_id, pp.position",
            part,
        ):
            authors.setdefault(pid, []).append(f"{given} {family}".strip())
        tags: dict[int, list[str]] = {}
        for pid, name in conn.execute(
            "SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
            f"WHERE pt.paper_id IN ({marks}) ORDER BY t.name_folded",
            part,
        ):
            tags.setdefault(pid, []).append(name)
        for pid in part:
            if pid in rows:
                yield rows[pid], authors.get(pid, []), tags.get(pid, [])


def line(fmt: str, row: sqlite3.Row, authors: list[str], tags: list[str]) -> str:
    """One paper in ``fmt``."""
    if fmt == "list":
        who = (authors[0].split() or [""])[-1] if authors else ""
        return (
            f"{row['citekey'][:24]:<24} {row['year'] or '':>4} {who[:16]:<16} "
            f"{row['status']:<8} {(row['title'] or '')[:60]}\n"
        )
    if fmt == "json":
        return json.dumps(
            {
                "key": row["citekey"],
                "title": row["title"],
                "authors": authors,
                "year": row["year"],
                "venue": row["venue"],
                "doi": row["doi"],
                "arxiv": row["arxiv"],
                "url": row["url"],
                "status": row["status"],
                "priority": row["priority"],
                "tags": tags,
                "abstract": row["abstract"],
            },
            ensure_ascii=False,
        )
    if fmt == "csl-json":
        item: dict[str, Any] = {"id": row["citekey"], "type": "article-journal"}
        item["title"] = row["title"]
        item["author"] = [{"literal": a} for a in authors]
        if row["year"]:
            item["issued"] = {"date-parts": [[row["year"]]]}
        for key, name in (("container-title", "venue"), ("DOI", "doi"), ("abstract", "abstract")):
            if row[name]:
                item[key] = row[name]
        return json.dumps(item, ensure_ascii=False, indent=2)
    if fmt == "ris":
        out = ["TY  - JOUR", *(f"AU  - {a}" for a in authors), f"TI  - {row['title'] or ''}"]
        for tag, name in (("PY", "year"), ("JO", "venue"), ("DO", "doi"), ("AB", "abstract")):
            if row[name]:
                out.append(f"{tag}  - {row[name]}")
        out += [f"ID  - {row['citekey']}", "ER  - ", ""]
        return "\n".join(out) + "\n"
    # markdown
    box = "x" if row["status"] == "read" else " "
    who = ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "")
    return f"- [{box}] **{row['title'] or row['citekey']}** — {who} ({row['venue'] or ''} {row['year'] or ''}) `{row['citekey']}`\n"


def whole(conn: sqlite3.Connection, fmt: str) -> None:
    """Write every paper in ``fmt`` to stdout, a chunk at a time."""
    out = sys.stdout
    array = fmt in ("json", "csl-json")
    buffer: list[str] = ["[\n"] if array else []
    first = True
    for row, authors, tags in papers(conn):
        text = line(fmt, row, authors, tags)
        buffer.append(text if not array else ("" if first else ",\n") + text)
        first = False
        if len(buffer) >= CHUNK:
            out.write("".join(buffer))
            buffer.clear()
    buffer.append("\n]\n" if array else "")
    out.write("".join(buffer))


def stats(conn: sqlite3.Connection) -> None:
    """Counts by status, priority, year, venue and tag (``readinglist stats``)."""
    queries = {
        "status": "SELECT status, count(*) FROM papers GROUP BY status",
        "priority": "SELECT priority, count(*) FROM papers GROUP BY priority",
        "year": "SELECT year, count(*) FROM papers GROUP BY year ORDER BY year",
        "venue": "SELECT venue, count(*) FROM papers GROUP BY venue ORDER BY 2 DESC LIMIT 10",
        "tags": "SELECT t.name, count(*) FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
        "GROUP BY t.id ORDER BY 2 DESC",
        "read": "SELECT substr(read_at, 1, 7), count(*) FROM papers WHERE read_at IS NOT NULL "
        "GROUP BY 1",
    }
    for name, sql in queries.items():
        print(name)
        for value, count in conn.execute(sql):
            print(f"  {value}: {count}")


def paper_id(conn: sqlite3.Connection, key: str) -> int:
    """The id of the paper whose key or alias is ``key`` (exit 3 when none)."""
    folded = key.lower()
    row = conn.execute("SELECT id FROM papers WHERE citekey_folded = ?", (folded,)).fetchone()
    row = (
        row
        or conn.execute("SELECT paper_id FROM aliases WHERE alias_folded = ?", (folded,)).fetchone()
    )
    if row is None:
        sys.exit(3)
    return int(row[0])


def one_paper(conn: sqlite3.Connection, what: str, args: Sequence[str]) -> None:
    """``show``, ``mark``, ``priority``, ``tag``, ``note`` or ``search``."""
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    if what == "search":
        ids = [
            i
            for (i,) in conn.execute(
                "SELECT rowid FROM paper_fts WHERE paper_fts MATCH ? ORDER BY rank LIMIT 50",
                (args[0],),
            )
        ]
        marks = ",".join("?" * len(ids))
        for row in conn.execute(
            f"SELECT citekey, year, title FROM papers WHERE id IN ({marks})", ids
        ):
            print(*row)
        return
    pid = paper_id(conn, args[-1])
    if what == "show":
        row = conn.execute("SELECT * FROM papers WHERE id = ?", (pid,)).fetchone()
        for key in row.keys():  # noqa: SIM118  (iterating a Row gives values)
            if key not in ("search_text", "source_text"):
                print(f"{key}: {row[key]}")
        for sql in (
            "SELECT p.family, p.given FROM paper_people pp JOIN people p ON p.id = pp.person_id "
            "WHERE pp.paper_id = ? ORDER BY pp.role, pp.position",
            "SELECT t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.paper_id = ?",
            "SELECT body, created_at FROM notes WHERE paper_id = ? ORDER BY id",
            "SELECT from_status, to_status, at FROM status_events WHERE paper_id = ? ORDER BY id",
            "SELECT alias FROM aliases WHERE paper_id = ?",
        ):
            for found in conn.execute(sql, (pid,)):
                print(*found)
        return
    conn.execute("BEGIN IMMEDIATE")
    if what == "mark":
        (old,) = conn.execute("SELECT status FROM papers WHERE id = ?", (pid,)).fetchone()
        conn.execute(
            "INSERT INTO status_events (paper_id, from_status, to_status, at) VALUES (?, ?, ?, ?)",
            (pid, old, args[0], now),
        )
        conn.execute(
            "UPDATE papers SET status = ?, updated_at = ? WHERE id = ?", (args[0], now, pid)
        )
    elif what == "priority":
        code = {"high": 1, "medium": 2, "low": 3}.get(args[0])
        conn.execute(
            "UPDATE papers SET priority = ?, updated_at = ? WHERE id = ?", (code, now, pid)
        )
    elif what == "tag":
        conn.execute(
            "INSERT INTO tags (name, name_folded) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (args[0], args[0].lower()),
        )
        conn.execute(
            "INSERT INTO paper_tags (paper_id, tag_id) SELECT ?, id FROM tags "
            "WHERE name_folded = ? ON CONFLICT DO NOTHING",
            (pid, args[0].lower()),
        )
        conn.execute(
            "UPDATE papers SET search_text = search_text || ' ' || ?, updated_at = ? WHERE id = ?",
            (args[0].lower(), now, pid),
        )
    elif what == "note":
        conn.execute(
            "INSERT INTO notes (paper_id, body, created_at, updated_at) VALUES (?, ?, ?, ?)",
            (pid, args[0], now, now),
        )
        conn.execute(
            "UPDATE papers SET search_text = search_text || ' ' || ?, updated_at = ? WHERE id = ?",
            (args[0].lower(), now, pid),
        )
    conn.execute("COMMIT")
    print(f"{what} {args[-1]}", file=sys.stderr)


def main(argv: Sequence[str]) -> None:
    """``DB WHAT [ARGS...]``: see the module docstring."""
    path, what, *args = argv
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 60000")
    conn.execute("PRAGMA foreign_keys = ON")
    try:
        if what in ("list", "json", "markdown", "csl-json", "ris"):
            whole(conn, what)
        elif what == "stats":
            stats(conn)
        else:
            one_paper(conn, what, args)
    finally:
        conn.close()


if __name__ == "__main__":
    main(sys.argv[1:])
