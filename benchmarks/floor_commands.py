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

  ``json``, ``ris`` and ``csl-json`` print what ``readinglist`` prints (session 7,
  h2): ``json`` every key of ``list --json`` laid out with indent 2 (the interest
  score, from the ranking index's cache, is printed null); ``ris`` and ``csl-json``
  also the month, keywords, links, editors, the BibTeX fields both write (volume,
  number, pages, publisher, ISSN/ISBN, ``note``, decoded from the ``fields`` JSON) and
  the user's notes, with the abstract and the fields LaTeX-decoded by pylatexenc (its
  default settings, as ``floor_import.py``) where they hold markup. On the 100k Beebe
  library their output differs from ours in under 3% of the lines (``von`` parts,
  provisional marks, a few decodings) and is within 0.3% of its size. Earlier floors
  printed a third less (no fields, no notes, nothing decoded). Measured at 100k (shared
  machine): pylatexenc is about 6.5 s of the RIS floor's 10.6 s and 8 s of CSL-JSON's
  18 s. ``json.dumps(indent=2)`` is the standard library's pure-Python encoder; a
  layout around the C encoder (each scalar encoded alone) gave the same bytes in the
  same time on 100k (json 6.8 vs 7.5 s, csl-json 18.6 vs 18.5 s CPU, session 7), so
  the floors keep ``json.dumps``.

  ``markdown`` prints what ``readinglist export markdown`` prints (session 8, h1):
  grouped by status, sorted, escaped, with links and Obsidian tags (:func:`markdown`);
  the earlier floor printed two thirds of our bytes (no grouping, no escaping, no links).
* one-paper commands (item 4): ``show KEY``, ``mark STATUS KEY``, ``priority LEVEL
  KEY``, ``tag TAG KEY``, ``note TEXT KEY`` (one transaction each: the look-up of the
  key, the update or insert) and ``search WORD`` (``list --limit 50 WORD``: the FTS5
  match, 50 ids, their rows).

``run.py`` times the whole process (interpreter start-up included), as it times
``readinglist``; mutations must be given a scratch copy of the library.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from urllib.parse import quote

CHUNK = 1000
COLUMNS = (
    "id, citekey, entry_type, title, year, venue, abstract, doi, arxiv, url, status, "
    "priority, added_at"
)
#: What the RIS and CSL-JSON exports also print: the month, keywords, the code link and
#: the BibTeX fields (volume, number, pages, ISSN, publisher, note ...) kept as JSON.
EXCHANGE_COLUMNS = f"{COLUMNS}, month, keywords, code_url, fields"
#: The exchange formats' (RIS, CSL-JSON) fields written from ``papers.fields``.
RIS_FIELDS = (
    ("VL", "volume"),
    ("IS", "number"),
    ("PB", "publisher"),
    ("CY", "address"),
    ("ET", "edition"),
    ("LA", "language"),
    ("SN", "issn"),
    ("SN", "isbn"),
)
CSL_FIELDS = (
    ("volume", "volume"),
    ("issue", "number"),
    ("publisher", "publisher"),
    ("publisher-place", "address"),
    ("edition", "edition"),
    ("language", "language"),
    ("ISSN", "issn"),
    ("ISBN", "isbn"),
)
#: What ``list --json`` prints of each paper.
JSON_COLUMNS = f"{COLUMNS}, entry_type, title_provisional, short_name, code_url, read_at"


def papers(
    conn: sqlite3.Connection, columns: str = COLUMNS, *, json_names: bool = False
) -> Iterator[tuple[sqlite3.Row, list[str], list[str]]]:
    """Yield ``(row, author names, tag names)`` for every paper, in the order added:
    names "Given Family", or "Family, Given" with ``json_names`` (``list --json``)."""
    ids = [i for (i,) in conn.execute("SELECT id FROM papers ORDER BY added_at, id")]
    for start in range(0, len(ids), CHUNK):
        part = ids[start : start + CHUNK]
        marks = ",".join("?" * len(part))
        rows = {
            r["id"]: r
            for r in conn.execute(f"SELECT {columns} FROM papers WHERE id IN ({marks})", part)
        }
        authors: dict[int, list[str]] = {}
        for pid, family, given in conn.execute(
            "SELECT pp.paper_id, p.family, p.given FROM paper_people pp JOIN people p "
            f"ON p.id = pp.person_id WHERE pp.paper_id IN ({marks}) AND pp.role = 'author' "
            "ORDER BY pp.paper_id, pp.position",
            part,
        ):
            name = (
                (f"{family}, {given}" if given else family)
                if json_names
                else f"{given} {family}".strip()
            )
            authors.setdefault(pid, []).append(name)
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


def exchange_papers(
    conn: sqlite3.Connection, columns: str, *, editors: bool = True, notes: bool = True
) -> Iterator[tuple[sqlite3.Row, list[tuple[str, str, str]], list[str], list[str]]]:
    """Yield ``(row, people, tag names, note texts)`` for every paper in the order added:
    ``columns`` of ``papers``; people as ``(role, family, given)`` (authors, then editors
    with ``editors``), in order; the notes oldest first (with ``notes``)."""
    ids = [i for (i,) in conn.execute("SELECT id FROM papers ORDER BY added_at, id")]
    roles = "" if editors else "AND pp.role = 'author' "
    for start in range(0, len(ids), CHUNK):
        part = ids[start : start + CHUNK]
        marks = ",".join("?" * len(part))
        rows = {
            r["id"]: r
            for r in conn.execute(f"SELECT {columns} FROM papers WHERE id IN ({marks})", part)
        }
        people: dict[int, list[tuple[str, str, str]]] = {}
        for pid, role, von, family, given, literal in conn.execute(
            "SELECT pp.paper_id, pp.role, p.von, p.family, p.given, p.literal FROM paper_people pp "
            "JOIN people p "
            f"ON p.id = pp.person_id WHERE pp.paper_id IN ({marks}) {roles}"
            "ORDER BY pp.paper_id, pp.role, pp.position",
            part,
        ):
            last = f"{von} {family}".strip() if von else family
            people.setdefault(pid, []).append((role, literal or last, "" if literal else given))
        tags: dict[int, list[str]] = {}
        for pid, name in conn.execute(
            "SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
            f"WHERE pt.paper_id IN ({marks}) ORDER BY t.name_folded",
            part,
        ):
            tags.setdefault(pid, []).append(name)
        texts: dict[int, list[str]] = {}
        if notes:
            for pid, body in conn.execute(
                f"SELECT paper_id, body FROM notes WHERE paper_id IN ({marks}) ORDER BY id", part
            ):
                texts.setdefault(pid, []).append(body)
        for pid in part:
            if pid in rows:
                yield rows[pid], people.get(pid, []), tags.get(pid, []), texts.get(pid, [])


_MARKUP = re.compile(r"[\\{}$~]")


@lru_cache(maxsize=4096)
def _converter() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text()


def plain(value: str | None) -> str:
    """``value`` as the exchange formats print it: LaTeX decoded by pylatexenc (its
    default settings, as ``floor_import.py``) when it holds markup, white space made
    one space; as it is otherwise (the floor ``readinglist`` cannot beat by decoding
    fewer values: it prints every value decoded)."""
    if not value:
        return ""
    if _MARKUP.search(value):
        value = _converter().latex_to_text(value)
    return " ".join(value.split())


def exchange_text(
    fmt: str,
    row: sqlite3.Row,
    people: list[tuple[str, str, str]],
    tags: list[str],
    notes: list[str],
) -> str:
    """One paper as RIS or CSL-JSON with what our exports print for a BibTeX paper:
    key, title, authors and editors, year and month, venue, volume, number, pages,
    publisher, ISSN, DOI, URL, keywords and tags, the abstract and ``note`` (LaTeX
    decoded, :func:`plain`) and the user's notes."""
    fields = json.loads(row["fields"]) if row["fields"] else {}
    keywords = [k.strip() for k in (row["keywords"] or "").split(",") if k.strip()]
    keywords += [t for t in tags if t not in keywords]
    note = [plain(fields.get("note")), *(n.strip() for n in notes)]
    note = [n for n in note if n]
    url = row["url"] or (f"https://arxiv.org/abs/{row['arxiv']}" if row["arxiv"] else None)
    if fmt == "ris":
        out = [f"TY  - {RIS_TYPE.get(row['entry_type'], 'GEN')}", f"ID  - {row['citekey']}"]
        if row["title"]:
            out.append(f"TI  - {row['title']}")
        for role, family, given in people:
            name = f"{family}, {given}" if given else family
            out.append(f"{'AU' if role == 'author' else 'A2'}  - {name}")
        if row["year"]:
            out.append(f"PY  - {row['year']}")
            if row["month"]:
                out.append(f"DA  - {row['year']:04d}/{row['month']:02d}//")
        if row["venue"]:
            out.append(f"T2  - {row['venue']}")
        for tag, name in RIS_FIELDS[:2]:
            if fields.get(name):
                out.append(f"{tag}  - {fields[name]}")
        if fields.get("pages"):
            first, _, last = fields["pages"].partition("--")
            out.append(f"SP  - {first}")
            if last:
                out.append(f"EP  - {last}")
        for tag, name in RIS_FIELDS[2:]:
            if fields.get(name):
                out.append(f"{tag}  - {plain(fields[name])}")
        for tag, value in (("DO", row["doi"]), ("UR", url), ("UR", row["code_url"])):
            if value:
                out.append(f"{tag}  - {value}")
        out += [f"KW  - {k}" for k in keywords]
        if row["abstract"]:
            out.append(f"AB  - {plain(row['abstract'])}")
        out += [f"N1  - {n}" for n in note]
        out.append("ER  - ")
        return "\n".join(out) + "\n\n"
    item: dict[str, Any] = {
        "id": row["citekey"],
        "citation-key": row["citekey"],
        "type": CSL_TYPE.get(row["entry_type"], "article"),
    }
    if row["title"]:
        item["title"] = row["title"]
    for role, key in (("author", "author"), ("editor", "editor")):
        names = [
            {"family": f, "given": g} if g else {"literal": f} for r, f, g in people if r == role
        ]
        if names:
            item[key] = names
    if row["year"]:
        item["issued"] = {"date-parts": [[row["year"], *([row["month"]] if row["month"] else [])]]}
    for key, value in (("container-title", row["venue"]), ("DOI", row["doi"]), ("URL", url)):
        if value:
            item[key] = value
    if row["abstract"]:
        item["abstract"] = plain(row["abstract"])
    if keywords:
        item["keyword"] = ", ".join(keywords)
    if fields.get("pages"):
        item["page"] = fields["pages"].replace("--", "\u2013")
    for key, name in CSL_FIELDS:
        if fields.get(name):
            item[key] = plain(fields[name])
    if note:
        item["note"] = "\n\n".join(note)
    custom: dict[str, Any] = {}
    if row["arxiv"]:
        custom["arxiv"] = row["arxiv"]
    if tags:
        custom["tags"] = tags
    if custom:
        item["custom"] = custom
    return json.dumps(item, ensure_ascii=False, indent=2, sort_keys=True)


RIS_TYPE = {
    "article": "JOUR",
    "inproceedings": "CPAPER",
    "book": "BOOK",
    "incollection": "CHAP",
    "phdthesis": "THES",
    "mastersthesis": "THES",
    "techreport": "RPRT",
    "misc": "GEN",
}
CSL_TYPE = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "book": "book",
    "incollection": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "techreport": "report",
    "misc": "document",
}


def line(fmt: str, row: sqlite3.Row, authors: list[str], tags: list[str]) -> str:
    """One paper as a ``list`` table line or a ``list --json`` object."""
    if fmt == "list":
        who = (authors[0].split() or [""])[-1] if authors else ""
        return (
            f"{row['citekey'][:24]:<24} {row['year'] or '':>4} {who[:16]:<16} "
            f"{row['status']:<8} {(row['title'] or '')[:60]}\n"
        )
    if fmt == "json":
        # The keys and layout of `list --json` (indent 2, authors "Family, Given"); the
        # interest score, from the ranking index's cache, is not computed here: null.
        return json.dumps(
            {
                "key": row["citekey"],
                "entry_type": row["entry_type"],
                "title": row["title"],
                "title_provisional": bool(row["title_provisional"]),
                "short_name": row["short_name"],
                "authors": authors,
                "year": row["year"],
                "venue": row["venue"],
                "abstract": row["abstract"],
                "status": row["status"],
                "priority": PRIORITY.get(row["priority"]),
                "tags": tags,
                "doi": row["doi"],
                "arxiv": row["arxiv"],
                "url": row["url"],
                "code_url": row["code_url"],
                "added": _iso(row["added_at"]),
                "read_at": _iso(row["read_at"]),
                "interest": None,
            },
            ensure_ascii=False,
            indent=2,
        ).replace("\n", "\n  ")
    raise ValueError(fmt)


#: ``export markdown``: status groups in triage order, their headings.
MD_GROUPS = {
    "reading": "Reading",
    "to-read": "To read",
    "new": "New",
    "read": "Read",
    "skipped": "Skipped",
}
#: CommonMark escapes (a backslash before the punctuation that could start syntax).
MD_ESCAPES = str.maketrans({ch: "\\" + ch for ch in "\\`*_[]<>&|~$#"})
MD_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MD_DOUBLED = re.compile(r"==+|%%+")
MD_AUTOLINK = re.compile(r":(?=//)|(?<=[Ww]{3})\.|@")
MD_LINE_START = re.compile(r"^(?:[-+=]|(\d{1,9})([.)]))")
MD_TAG_CHARS = re.compile(r"(?:[^\w/-]|_)+")
MD_WEB = re.compile(r"(?i)^https?://[^\s]")
MD_OUTLINE = "SELECT id, citekey, status, priority, year FROM papers ORDER BY added_at, id"
MD_URL_SAFE = "!#$%&'*+,/:;=?@[]~"
#: The implicit reader's id, as SQL.
READER = "(SELECT id FROM readers WHERE name_folded = 'default')"
MD_COLUMNS = "id, citekey, title, title_provisional, venue, year, status, priority, doi, arxiv, url, code_url"


def md_inline(text: str | None) -> str:
    """One line of user text: control characters dropped, white space made one space,
    Markdown punctuation, Obsidian ``==``/``%%`` and GFM autolinks escaped."""
    text = " ".join(MD_CONTROL.sub("", text or "").split()).translate(MD_ESCAPES)
    if "==" in text or "%%" in text:
        text = MD_DOUBLED.sub(lambda m: "".join("\\" + c for c in m.group(0)), text)
    if ":" in text or "." in text or "@" in text:
        text = MD_AUTOLINK.sub(lambda m: "\\" + m.group(0), text)
    return text


def md_link(label: str, url: str) -> str:
    """``[label](url)``, the address percent-encoded."""
    return f"[{label}]({quote(url, safe=MD_URL_SAFE)})"


def md_tag(tag: str) -> str:
    """The Obsidian form of a tag (``#`` + letters, digits, ``-``, ``/``)."""
    shown = MD_TAG_CHARS.sub("-", tag)
    shown = re.sub(r"/{2,}", "/", re.sub(r"-{2,}", "-", shown)).strip("-/")
    if not any(ch.isalpha() for ch in shown):
        shown = f"tag-{shown}".rstrip("-")
    return shown


def md_people(people: list[tuple[str, str, str, str, str]]) -> str:
    """Up to three names ``given von family, jr`` (or the literal), ``et al.`` after."""
    names = []
    more = len(people) > 3
    for given, von, family, jr, literal in people[:3]:
        if literal == "others":
            more = True
            break
        name = literal or " ".join(p for p in (given, von, family) if p)
        names.append(md_inline(f"{name}, {jr}" if jr and not literal else name))
    return (", ".join(names) + (" et al." if more else "")) if names else ""


def md_item(row: sqlite3.Row, authors: list[Any], editors: list[Any], tags: list[str]) -> str:
    """One list item: title line, authors · venue · year, key · priority · tags · links."""
    title = md_inline(row["title"])
    head = f"- [{'x' if row['status'] == 'read' else ' '}] " + (
        f"**{title}**" if title else "*(untitled)*"
    )
    if row["title_provisional"]:
        head += " *(provisional title)*"
    meta = []
    people = md_people(authors)
    if not people and editors:
        people = md_people(editors)
        people = f"{people} (eds.)" if people else ""
    if people:
        meta.append(people)
    venue = md_inline(row["venue"])
    if venue:
        meta.append(f"*{venue}*")
    if row["year"] is not None:
        meta.append(str(row["year"]))
    lines = [head + "  "]
    if meta:
        text = " · ".join(meta)
        start = MD_LINE_START.match(text)
        if start is not None:
            text = (
                f"{start.group(1)}\\{start.group(2)}{text[start.end() :]}"
                if start.group(1) is not None
                else "\\" + text
            )
        lines.append(f"  {text}  ")
    key = " ".join(MD_CONTROL.sub("", row["citekey"]).split())
    fence = "`" * (max((len(r) for r in re.findall(r"`+", key)), default=0) + 1)
    if key.startswith(("`", " ")) or key.endswith(("`", " ")):
        key = f" {key} "
    facts = [f"{fence}{key}{fence}"]
    if row["priority"] in PRIORITY:
        facts.append(f"{PRIORITY[row['priority']]} priority")
    shown = list(dict.fromkeys(md_tag(t) for t in tags))
    if shown:
        facts.append(" ".join(f"#{t}" for t in shown))
    if row["doi"]:
        facts.append(md_link("DOI", f"https://doi.org/{row['doi']}"))
    if row["arxiv"]:
        facts.append(md_link("arXiv", f"https://arxiv.org/abs/{row['arxiv']}"))
    for label, url in (("URL", row["url"]), ("code", row["code_url"])):
        if url and MD_WEB.match(url.strip()):
            facts.append(md_link(label, url.strip()))
        elif url and url.strip():
            facts.append(f"{label}: {md_inline(url)}")
    hidden = ""
    if any(md_tag(t) != t for t in tags):
        hidden = (
            " <!-- rl:tags "
            + " ".join(quote(t, safe="").replace("-", "%2D") for t in tags)
            + " -->"
        )
    lines.append("  " + " · ".join(facts) + hidden)
    return "\n".join(lines) + "\n"


def markdown(conn: sqlite3.Connection) -> None:
    """``export markdown``: what ``readinglist export markdown`` prints (its defaults:
    grouped by status, no abstracts, no notes), from stdlib ``sqlite3`` alone.

    It reads every paper's key, status, priority and year in the order added (the
    outline), groups them by status in triage order and sorts each group by priority,
    year (newest first, none last) and key, then reads the shown columns, the people
    (authors and editors, in order) and the tags of 1,000 papers at a time in that
    order and prints each item as ours does: the marker, title, summary and group
    headings; the title, names, venue and URLs escaped for CommonMark/GFM/Obsidian
    (control characters dropped, white space collapsed, punctuation backslash-escaped,
    ``==``/``%%`` and autolinks broken); three names then ``et al.`` (editors with
    ``(eds.)`` when no author); the key as a code span; tags as Obsidian ``#tags`` with
    the hidden ``rl:tags`` comment when a name is not one; DOI, arXiv, URL and code
    links percent-encoded. On the 100k Beebe library its output is byte for byte ours
    (session 8: ``cmp`` of the two); it differs only where the sort keys are unusual
    (it orders keys by ``str.lower``, ours by ``casefold``: the same for ASCII keys).
    """
    out = sys.stdout
    outline = conn.execute(MD_OUTLINE).fetchall()
    rank = {1: 0, 2: 1, 3: 2}
    groups: dict[str, list[tuple[Any, ...]]] = {status: [] for status in MD_GROUPS}
    for pid, key, status, priority, year in outline:
        sort = (rank.get(priority, 3), year is None, -(year or 0), key.lower(), key, pid)
        groups[status if status in groups else "new"].append(sort)
    counts = {status: len(members) for status, members in groups.items()}
    parts = [f"{n} {MD_GROUPS[s].lower()}" for s, n in counts.items() if n]
    total = len(outline)
    summary = (
        f"{total} paper{'s' if total != 1 else ''}: {', '.join(parts)}." if total else "No papers."
    )
    out.write(
        "<!-- readinglist:markdown v1 group-by=status -->\n# Reading list\n\n"
        "Generated by readinglist 0.1.0.\n\n" + summary + "\n"
    )
    for status in ("reading", "to-read", "new", "read", "skipped"):
        members = sorted(groups[status])
        if not members:
            continue
        out.write(f"\n## {MD_GROUPS[status]} ({len(members)})\n\n")
        ids = [m[-1] for m in members]
        for start in range(0, len(ids), CHUNK):
            part = ids[start : start + CHUNK]
            marks = ",".join("?" * len(part))
            rows = {
                r["id"]: r
                for r in conn.execute(
                    f"SELECT {MD_COLUMNS} FROM papers WHERE id IN ({marks})", part
                )
            }
            people: dict[tuple[int, str], list[Any]] = {}
            for pid, role, *name in conn.execute(
                "SELECT pp.paper_id, pp.role, p.given, p.von, p.family, p.jr, p.literal "
                "FROM paper_people pp JOIN people p ON p.id = pp.person_id "
                f"WHERE pp.paper_id IN ({marks}) ORDER BY pp.paper_id, pp.role, pp.position",
                part,
            ):
                people.setdefault((pid, role), []).append(name)
            tags: dict[int, list[str]] = {}
            for pid, name in conn.execute(
                "SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
                f"WHERE pt.paper_id IN ({marks}) ORDER BY t.name_folded, t.name",
                part,
            ):
                tags.setdefault(pid, []).append(name)
            out.write(
                "".join(
                    md_item(
                        rows[pid],
                        people.get((pid, "author"), []),
                        people.get((pid, "editor"), []),
                        tags.get(pid, []),
                    )
                    for pid in part
                )
            )


def _iso(value: str | None) -> str | None:
    """A stored time (``YYYY-MM-DD HH:MM:SS[.ffffff]``, UTC) as ``list --json`` prints it."""
    return None if value is None else value[:10] + "T" + value[11:19] + "Z"


PRIORITY = {1: "high", 2: "medium", 3: "low"}


def whole(conn: sqlite3.Connection, fmt: str) -> None:
    """Write every paper in ``fmt`` to stdout, a chunk at a time."""
    out = sys.stdout
    array = fmt in ("json", "csl-json")
    buffer: list[str] = ["[\n  "] if array else []
    first = True
    if fmt in ("ris", "csl-json"):
        texts: Iterator[str] = (
            exchange_text(fmt, row, people, tags, notes)
            for row, people, tags, notes in exchange_papers(conn, EXCHANGE_COLUMNS)
        )
    else:
        columns = JSON_COLUMNS if fmt == "json" else COLUMNS
        texts = (
            line(fmt, row, authors, tags)
            for row, authors, tags in papers(conn, columns, json_names=fmt == "json")
        )
    for text in texts:
        if fmt == "csl-json":
            text = text.replace("\n", "\n  ")
        buffer.append(text if not array else ("" if first else ",\n  ") + text)
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
            "INSERT INTO status_events (paper_id, reader_id, from_status, to_status, at) "
            f"VALUES (?, {READER}, ?, ?, ?)",
            (pid, old, args[0], now),
        )
        conn.execute(
            "INSERT INTO decisions (paper_id, reader_id, status, updated_at) "
            f"VALUES (?, {READER}, ?, ?) ON CONFLICT (paper_id, reader_id) DO UPDATE SET "
            "status = excluded.status, updated_at = excluded.updated_at",
            (pid, args[0], now),
        )
    elif what == "priority":
        code = {"high": 1, "medium": 2, "low": 3}.get(args[0])
        conn.execute(
            "INSERT INTO decisions (paper_id, reader_id, status, priority, updated_at) "
            f"VALUES (?, {READER}, 'new', ?, ?) ON CONFLICT (paper_id, reader_id) DO UPDATE SET "
            "priority = excluded.priority, updated_at = excluded.updated_at",
            (pid, code, now),
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
            "UPDATE main.papers SET search_text = search_text || ' ' || ?, updated_at = ? WHERE id = ?",
            (args[0].lower(), now, pid),
        )
    elif what == "note":
        conn.execute(
            "INSERT INTO notes (paper_id, reader_id, shared, body, created_at, updated_at) "
            f"VALUES (?, {READER}, 0, ?, ?, ?)",
            (pid, args[0], now, now),
        )
        conn.execute(
            "UPDATE main.papers SET search_text = search_text || ' ' || ?, updated_at = ? WHERE id = ?",
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
    # Each reader's decisions live in ``decisions`` (migration 0008); the floor acts for
    # the implicit reader. A temporary view shadows ``papers`` for the reads, with that
    # reader's status, priority and read time as columns (no row: new); writes name
    # ``main.papers``.
    conn.execute(
        "INSERT INTO readers (name, name_folded, created_at) VALUES ('default', 'default', ?) "
        "ON CONFLICT DO NOTHING",
        (datetime.now(UTC).isoformat(),),
    )
    conn.execute(
        "CREATE TEMP VIEW papers AS SELECT p.*, coalesce(d.status, 'new') AS status, "
        "d.priority AS priority, d.read_at AS read_at FROM main.papers p LEFT JOIN decisions d "
        f"ON d.paper_id = p.id AND d.reader_id = {READER}"
    )
    try:
        if what == "markdown":
            markdown(conn)
        elif what in ("list", "json", "csl-json", "ris"):
            whole(conn, what)
        elif what == "stats":
            stats(conn)
        else:
            one_paper(conn, what, args)
    finally:
        conn.close()


if __name__ == "__main__":
    main(sys.argv[1:])
