"""Output: the only writer of data to stdout (ARCHITECTURE.md "Output").

Receives plain records and dicts, never ORM objects. Human tables use rich on a
terminal (honouring ``NO_COLOR``) and plain aligned text otherwise; ``--json``
prints one JSON document with the documented keys. Messages for people
(summaries, warnings) go to stderr through :func:`info` and :func:`warn`.
rich is imported only when a table is drawn on a terminal.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import textwrap
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from itertools import chain, islice
from typing import Any, TextIO

from readinglist.records import (
    COLUMN_FIELDS,
    LIST_FIELD_PREFIX,
    PaperRecord,
    Person,
    named_people,
)
from readinglist.text import readable_paragraphs

#: Keys of a paper object in ``--json`` output, in this order (README "JSON output").
PAPER_KEYS: tuple[str, ...] = (
    "key",
    "entry_type",
    "title",
    "title_provisional",
    "short_name",
    "authors",
    "authors_et_al",
    "year",
    "venue",
    "abstract",
    "status",
    "priority",
    "tags",
    "doi",
    "arxiv",
    "url",
    "code_url",
    "added",
    "read_at",
    "interest",
)
#: Marker shown after a provisional title in tables.
PROVISIONAL_MARK = " (provisional)"


def iso(value: datetime | None) -> str | None:
    """Return ``value`` as ISO 8601 UTC with a ``Z`` suffix and whole seconds, or None."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def people_line(people: Sequence[Person]) -> str:
    """A name list as ``show`` prints it: display forms joined by ``; ``, then ``et al.``
    for a truncated list (:func:`readinglist.records.named_people`)."""
    named, et_al = named_people(people)
    return "; ".join([*(p.display() for p in named), *(["et al."] if et_al else [])])


def paper_json(record: PaperRecord, interest: float | None = None) -> dict[str, Any]:
    """Return the JSON object of a paper with the keys of :data:`PAPER_KEYS`.

    ``authors`` are "Family, Given" strings (von and Jr parts as BibTeX puts them);
    no priority is ``null``; times are ISO 8601 UTC with ``Z``; ``interest`` is the
    learned interest score (issue 14), ``null`` without a model.
    """
    return {
        "key": record.citekey,
        "entry_type": record.entry_type,
        "title": record.title,
        "title_provisional": record.title_provisional,
        "short_name": record.short_name,
        "authors": [p.display() for p in named_people(record.authors)[0]],
        "authors_et_al": named_people(record.authors)[1],
        "year": record.year,
        "venue": record.venue,
        "abstract": record.abstract,
        "status": record.status,
        "priority": record.priority,
        "tags": list(record.tags),
        "doi": record.doi,
        "arxiv": record.arxiv,
        "url": record.url,
        "code_url": record.code_url,
        "added": iso(record.added),
        "read_at": iso(record.read_at),
        "interest": interest,
    }


def paper_detail_json(
    record: PaperRecord,
    history: Sequence[Mapping[str, Any]],
    aliases: Sequence[str] = (),
    interest: float | None = None,
    versions: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Return the ``show --json`` object: :func:`paper_json` (with ``interest``) plus
    editors, month, keywords, fields, aliases, notes (``text``, ``created``,
    ``updated``), the versions absorbed (``kind``, ``key``, ``venue``, ``year``,
    ``where``) and the status history (``from``, ``to``, ``at``)."""
    data = paper_json(record, interest)
    data.update(
        {
            "editors": [p.display() for p in named_people(record.editors)[0]],
            "editors_et_al": named_people(record.editors)[1],
            "month": record.month,
            "keywords": list(record.keywords),
            "fields": dict(record.fields),
            "aliases": list(aliases),
            "notes": [
                {"text": n.text, "created": iso(n.created), "updated": iso(n.updated)}
                for n in record.notes
            ],
            "versions": [dict(v) for v in versions],
            "history": [{"from": h["from"], "to": h["to"], "at": iso(h["at"])} for h in history],
        }
    )
    return data


#: Terminal control characters (C0 but tab and newline, DEL, C1) -> their visible Unicode
#: "control pictures" (U+2400 block) or U+FFFD, so an imported ``ESC[2J`` or BEL is shown,
#: never obeyed by the terminal (issue 18).
_PRINTABLE = str.maketrans(
    {
        **{chr(c): chr(0x2400 + c) for c in range(32) if chr(c) not in "\t\n"},
        "\x7f": "\u2421",
        **{chr(c): "\ufffd" for c in range(0x80, 0xA0)},
    }
)
#: DEL and C1 controls, which JSON allows raw, as ``\\u`` escapes (same data, safe to print).
_JSON_ESCAPES = str.maketrans({chr(c): f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0))})
_JSON_ESCAPED = re.compile("[\x7f-\x9f]")


def json_escaped(text: str) -> str:
    """``text`` (JSON) with DEL and the C1 controls written as ``\\u`` escapes
    (:data:`_JSON_ESCAPES`); text without any is returned as it is, unscanned by
    ``str.translate`` (a tenth of ``list --json``'s CPU at 100k papers, issue 17)."""
    return text.translate(_JSON_ESCAPES) if _JSON_ESCAPED.search(text) else text


def printable(text: str) -> str:
    """Return ``text`` with terminal control characters made visible (tab and newline kept)."""
    # Every character the table maps is unprintable: most text needs no translate.
    return text if text.isprintable() else text.translate(_PRINTABLE)


def echo(text: str = "", *, stream: TextIO | None = None) -> None:
    """Write ``text`` (control characters made visible, :func:`printable`) and a newline."""
    out = stream or sys.stdout
    out.write(printable(text) + "\n")


def echo_json(data: Any) -> None:
    """Print ``data`` as indented UTF-8 JSON on stdout (control characters escaped)."""
    text = json_escaped(json.dumps(data, ensure_ascii=False, indent=2))
    sys.stdout.write(text + "\n")


def echo_json_array(items: Iterable[Any]) -> None:
    """Print the JSON array of ``items`` on stdout an item at a time: the same text as
    :func:`echo_json` of the list, without holding the list or the text (issue 17).

    Each item is dumped with ``indent=2`` one level deep (``jsontext.dumps``), which
    is how ``json.dumps`` lays out a list's items; the text goes out in pieces of
    about 64 kB, not a write per item.
    """
    from readinglist import jsontext

    out = sys.stdout
    opening = "[\n  "
    pending: list[str] = []
    size = 0
    for item in items:
        text = opening + json_escaped(jsontext.dumps(item, newline="\n  "))
        opening = ",\n  "
        pending.append(text)
        size += len(text)
        if size >= 1 << 16:
            out.write("".join(pending))
            pending, size = [], 0
    out.write("".join(pending) + ("[]\n" if opening == "[\n  " else "\n]\n"))


def info(message: str) -> None:
    """Write a message for people to stderr."""
    sys.stderr.write(message + "\n")


def warn(message: str) -> None:
    """Write a warning to stderr, prefixed ``warning:``."""
    sys.stderr.write(f"warning: {message}\n")


def use_rich(stream: TextIO | None = None) -> bool:
    """True when output goes to a terminal and colour is not disabled (``NO_COLOR``)."""
    stream = stream or sys.stdout
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def short_authors(record: PaperRecord, limit: int = 1) -> str:
    """Return the first ``limit`` family names, then ``et al.`` when there are more."""
    people = [p for p in record.authors if not p.is_others]
    if not people:
        return ""
    names = [p.short() for p in people[:limit]]
    more = len(record.authors) > limit
    return ", ".join(names) + (" et al." if more else "")


def _row(record: PaperRecord) -> list[str]:
    title = record.title or ""
    if record.title_provisional:
        title += PROVISIONAL_MARK
    cells = [
        record.citekey or "",
        record.status or "",
        record.priority or "",
        str(record.year or ""),
        short_authors(record),
        title,
    ]
    return [printable(" ".join(cell.split())) for cell in cells]


_HEADERS = ["KEY", "STATUS", "PRIO", "YEAR", "AUTHORS", "TITLE"]


#: Rows of a table whose cells set its column widths: the first ones. A table of
#: 500,000 papers held every row to measure its columns (352 MiB; issue 17 asks for
#: <= 250 MiB): rows after these are written as they come, each cell cut at its
#: column's cap as before, so a later row with a longer key or author cell is
#: shifted right rather than cut (tables of up to this many rows are unchanged).
TABLE_SAMPLE = 1000

#: The most a column may take (key, status, priority, year, authors); the title gets
#: the rest of the terminal.
_CAPS = (60, 60, 60, 60, 40)


def paper_table(
    records: Iterable[PaperRecord],
    interest: Mapping[str, float | None] | None = None,
    header: str = "INTEREST",
) -> None:
    """Print a table of papers that fits the terminal: key, status, priority, year,
    first author et al., title (truncated; provisional titles marked); with
    ``interest`` (scores by citation key, looked up as each record comes:
    ``list --sort interest``, ``similar``) a ``header`` column before the title (``-``
    for a paper without a score).

    Streamed: the column widths come from the first :data:`TABLE_SAMPLE` rows, the
    rest are written as they come (memory stays flat however many papers there are).
    """
    headers = _HEADERS
    caps: tuple[int, ...] = _CAPS
    rows: Iterator[list[str]] = (_row(r) for r in records)
    if interest is not None:
        headers, caps = [*_HEADERS[:-1], header, _HEADERS[-1]], (*_CAPS, 10)
        rows = (_scored(_row(r), interest.get(r.citekey or "")) for r in records)
    head = list(islice(rows, TABLE_SAMPLE))
    width = shutil.get_terminal_size((120, 24)).columns
    widths = [len(h) for h in headers[:-1]]
    for row in head:
        for i, cell in enumerate(row[:-1]):
            widths[i] = min(max(widths[i], len(cell)), caps[i])
    title_width = max(20, width - sum(widths) - 2 * (len(headers) - 1))
    if use_rich():
        _rich_table(chain([head], _batches(rows)), widths, width, headers)
        return
    for row in chain([headers], head, rows):
        cells = [_fit(c, cap).ljust(w) for c, w, cap in zip(row[:-1], widths, caps, strict=True)]
        echo("  ".join([*cells, _fit(row[-1], title_width)]).rstrip())


def decisions_table(
    rows: Iterable[tuple[PaperRecord, Sequence[str]]], names: Sequence[str]
) -> None:
    """Print a table of papers with several readers' decisions (``list --conflicts``):
    key, one status column per name of ``names`` (``rows`` give the statuses in that
    order), year, first author et al., title; as :func:`paper_table` lays it out."""
    headers = ["KEY", *names, "YEAR", "AUTHORS", "TITLE"]
    table = []
    for record, statuses in rows:
        row = _row(record)
        table.append([row[0], *(printable(s) for s in statuses), *row[3:]])
    caps = (_CAPS[0], *(_CAPS[1] for _ in names), *_CAPS[3:])
    width = shutil.get_terminal_size((120, 24)).columns
    widths = [len(h) for h in headers[:-1]]
    for row in table:
        for i, cell in enumerate(row[:-1]):
            widths[i] = min(max(widths[i], len(cell)), caps[i])
    title_width = max(20, width - sum(widths) - 2 * (len(headers) - 1))
    if use_rich():
        _rich_table([table], widths, width, headers)
        return
    for row in [headers, *table]:
        cells = [_fit(c, cap).ljust(w) for c, w, cap in zip(row[:-1], widths, caps, strict=True)]
        echo("  ".join([*cells, _fit(row[-1], title_width)]).rstrip())


def _scored(row: list[str], score: float | None) -> list[str]:
    """``row`` with the score (3 decimals, ``-`` for None) before its title."""
    return [*row[:-1], "-" if score is None else f"{score:.3f}", row[-1]]


def _batches(rows: Iterator[list[str]]) -> Iterator[list[list[str]]]:
    """``rows`` in lists of :data:`TABLE_SAMPLE`."""
    while batch := list(islice(rows, TABLE_SAMPLE)):
        yield batch


def _rich_table(
    batches: Iterable[list[list[str]]], widths: list[int], width: int, headers: list[str]
) -> None:
    """Draw the table with rich on the terminal, a batch of rows at a time (the header
    once; each column at least as wide as the first batch made it)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=width)
    for number, batch in enumerate(batches):
        table = Table(box=None, header_style="bold", pad_edge=False, show_header=number == 0)
        for header, column_width in zip(headers, [*widths, None], strict=True):
            table.add_column(header, no_wrap=True, overflow="ellipsis", min_width=column_width)
        for row in batch:
            table.add_row(*(Text(cell) for cell in row))  # data, never rich markup
        console.print(table)


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def keys(records: Iterable[PaperRecord]) -> None:
    """Print one citation key per line (for ``xargs``)."""
    for record in records:
        echo(record.citekey or "")


#: Raw BibTeX forms of columns that ``show`` prints once, as the column (``Venue:``, not
#: also ``booktitle:``); a raw form that can say more than its column (a day in ``date``,
#: ``month = {13--19 Jul}``, an arXiv ``primaryclass``) is printed too.
_SHOWN_AS_COLUMNS = frozenset(
    {name for names in COLUMN_FIELDS.values() for name in names} - {"date", "month", "primaryclass"}
)


def paper_detail(
    record: PaperRecord,
    history: Sequence[Mapping[str, Any]],
    aliases: Sequence[str] = (),
    versions: Sequence[Mapping[str, Any]] = (),
    others: str = "",
) -> None:
    """Print everything about one paper for people: data, links, tags, notes, the
    versions it absorbed (preprint, published; ``library.listing.versions_of``) and
    the status history; ``others`` (what the other readers of a shared library
    decided, ``library.agreement.others_line``) after the status when not empty."""
    width = min(shutil.get_terminal_size((100, 24)).columns, 100)
    title = (record.title or "(no title)") + (PROVISIONAL_MARK if record.title_provisional else "")
    lines = [title, "=" * min(len(title), width)]

    def field_line(label: str, value: Any) -> None:
        if value not in (None, "", [], ()):
            lines.append(f"{label + ':':<12} {value}")

    field_line("Key", record.citekey)
    field_line("Aliases", ", ".join(aliases))
    field_line("Type", record.entry_type)
    field_line("Authors", people_line(record.authors))
    field_line("Editors", people_line(record.editors))
    field_line("Venue", record.venue)
    field_line("Year", record.year)
    field_line("Short name", record.short_name)
    field_line("Status", record.status)
    field_line("Readers", others)
    field_line("Priority", record.priority)
    field_line("Tags", ", ".join(record.tags))
    field_line("Keywords", ", ".join(record.keywords))
    field_line("DOI", f"https://doi.org/{record.doi}" if record.doi else None)
    field_line("arXiv", f"https://arxiv.org/abs/{record.arxiv}" if record.arxiv else None)
    field_line("URL", record.url)
    field_line("Code", record.code_url)
    field_line("Added", iso(record.added))
    field_line("Read", iso(record.read_at))
    for name, value in sorted(record.fields.items()):
        if name in _SHOWN_AS_COLUMNS:
            continue
        if name.startswith(LIST_FIELD_PREFIX):  # a list's label, as the list wrote it
            name = name.removeprefix(LIST_FIELD_PREFIX).replace("_", " ")
        field_line(name, value)
    if paragraphs := readable_paragraphs(record.abstract):
        lines += ["", "Abstract:"]
        for index, paragraph in enumerate(paragraphs):
            lines += [""] if index else []
            lines += textwrap.wrap(paragraph, width, initial_indent="  ", subsequent_indent="  ")
    if record.notes:
        lines += ["", "Notes:"]
        for note in record.notes:
            lines.append(f"  [{iso(note.created)}]")
            lines += [f"    {line}" for line in note.text.splitlines()]
    if versions:
        lines += ["", "Versions:"]
        for v in versions:
            said = ", ".join(str(v[k]) for k in ("venue", "year") if v.get(k))
            lines.append(f"  {v.get('kind')}: {v.get('key') or '-'} ({said}; {v.get('where')})")
    if history:
        lines += ["", "History:"]
        for event in history:
            lines.append(f"  {iso(event['at'])}  {event['from'] or '-'} -> {event['to']}")
    echo("\n".join(lines))
