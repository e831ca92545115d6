"""Reading our Markdown reading list back (:mod:`readinglist.formats.markdown` writes it).

The list is CommonMark 0.31.2 with GFM task-list items; reading takes from it what a sync
needs: each item's citation key, ticked box, status heading and ``#tags``. The marker
line's syntax lives in :mod:`._markdown_layout`, the inline syntax in
:mod:`._markdown_syntax`. Stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from readinglist.formats._markdown_layout import (
    FORMAT_VERSION,
    MARKER,
    MARKER_LINE,
    STATUS_HEADINGS,
    decided_time,
)
from readinglist.formats._markdown_syntax import (
    code_spans,
    tags_in_text,
    take_tag_comments,
    unescape,
)
from readinglist.records import PaperRecord, ParseProblem, ParseResult

__all__ = ["read"]

_ITEM = re.compile(r"^[-*+] \[(?P<box>[ xX])\](?:[ \t]+(?P<rest>.*))?$")
_BULLET = re.compile(r"^[-*+][ \t]")
_HEADING = re.compile(r"^(?P<level>#{1,6})(?:[ \t]+(?P<text>.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^(`{3,}|~{3,})")
_COUNT_SUFFIX = re.compile(r"\s*\(\d+\)\s*$")
#: An HTML comment starting a line (CommonMark 0.31.2 section 4.6, HTML block type 2):
#: it runs to the line holding ``-->`` and is not rendered.
_COMMENT_START = re.compile(r"^[ \t]*<!--")


def _status_from_heading(text: str) -> str | None:
    name = _COUNT_SUFFIX.sub("", unescape(text)).strip().casefold().replace("-", " ")
    for status, heading in STATUS_HEADINGS.items():
        if name in (heading.casefold(), status.replace("-", " ")):
            return status
    return None


@dataclass
class _Item:
    line: int
    checked: bool
    status: str | None
    header: list[str] = field(default_factory=list)


def _parse_item(item: _Item, source: str) -> tuple[PaperRecord | None, ParseProblem | None]:
    header, originals = take_tag_comments("\n".join(item.header))
    spans = code_spans(header)
    key = spans[0][2] if spans else None
    if key is None or not key.strip():
        return None, ParseProblem(
            "list item without a citation key (expected `key` in code quotes)", source, item.line
        )
    outside = header
    for begin, end, _ in reversed(spans):  # "#" inside code is no tag
        outside = f"{outside[:begin]} {outside[end:]}"
    tags = tags_in_text(outside, originals)
    record = PaperRecord(
        citekey=key,
        status=item.status,
        tags=tuple(tags),
        fields={"checked": "true" if item.checked else "false"},
        line=item.line,
    )
    return record, None


def _merge(
    first: PaperRecord, other: PaperRecord, source: str
) -> tuple[PaperRecord, list[ParseProblem]]:
    problems: list[ParseProblem] = []
    if first.status != other.status and first.status and other.status:
        problems.append(
            ParseProblem(
                f"citation key {first.citekey!r} is listed under {first.status!r} (line "
                f"{first.line}) and {other.status!r}; keeping {first.status!r}",
                source,
                other.line,
                "warning",
            )
        )
    checked = "true" if "true" in (first.fields["checked"], other.fields["checked"]) else "false"
    tags = tuple(dict.fromkeys(first.tags + other.tags))
    merged = PaperRecord(
        citekey=first.citekey,
        status=first.status or other.status,
        tags=tags,
        fields={"checked": checked},
        line=first.line,
    )
    return merged, problems


def read(text: str, source: str = "<stdin>") -> ParseResult:
    """Read one of our Markdown lists back, for syncing read status and tags by citation key.

    Args:
        text: the list, as written by :func:`readinglist.formats.markdown.write` and then edited (boxes ticked,
            items moved between headings, ``#tags`` added or removed).
        source: file name for problems.

    Returns:
        A ParseResult with one PaperRecord per citation key, in order of first
        appearance. Only these attributes are meaningful:

        * ``citekey``: the first code span (`` `key` ``) of the item's header lines
          (the item line and the indented lines up to the first blank line);
        * ``status``: the status heading the item sits under when the list is
          grouped by status (``## To read (3)`` -> ``to-read``), else None;
        * ``fields["checked"]``: ``"true"`` when the box is ticked (``[x]``), else
          ``"false"``. The caller applies the rules: a ticked box means read and
          wins over the heading; an unticked box under "Read", or on a paper the
          list showed as read, means to-read;
        * ``tags``: the ``#tags`` of the header lines, mapped back to the exact tag
          names through the item's hidden ``rl:tags`` comment; ``#2024`` (no
          letter) is not a tag, as in Obsidian;
        * ``line``: the 1-based line of the item.

        A key listed twice (expected when grouped by tag) gives one record: ticked
        if any occurrence is ticked, with the union of the tags. ``meta`` holds
        ``list_title``, ``group_by`` and ``format_version`` when found.

    Problems: an error (with its line) for each task item without a citation key;
    warnings for a missing or newer marker, a plain bullet without a checkbox, a
    level-2 heading that is not a status in a status-grouped list, and a key
    listed under two statuses. Never raises.
    """
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    problems: list[ParseProblem] = []
    meta: dict[str, str] = {}
    group_by = _read_marker(lines, source, meta, problems)
    items = _ItemScanner(source, group_by, meta, problems).scan(lines)
    records = _records_by_key(items, source, problems)
    problems.sort(key=lambda p: p.line or 0)
    return ParseResult(records=records, problems=problems, meta=meta)


def _read_marker(
    lines: list[str], source: str, meta: dict[str, str], problems: list[ParseProblem]
) -> str | None:
    """Read the marker line: its version and grouping go to ``meta``; return the grouping.

    A missing marker or a newer version than :data:`FORMAT_VERSION` adds a warning.
    """
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    marker = MARKER_LINE.match(lines[first].strip()) if first is not None else None
    if marker is None:
        problems.append(
            ParseProblem(
                f"no '{MARKER} v{FORMAT_VERSION} -->' marker on the first line: reading its "
                "headings and task items, keeping any status the library has changed",
                source,
                1,
                "warning",
            )
        )
        return None
    meta["format_version"] = marker.group("version")
    group_by = marker.group("group")
    if group_by:
        meta["group_by"] = group_by
    if marker.group("reader"):
        meta["reader"] = marker.group("reader")
    stamp = marker.group("decided")
    if stamp and decided_time(stamp) is None:
        problems.append(
            ParseProblem(
                f"the marker's decided={stamp[:40]!r} is not a time this program writes; "
                "read as decided=none: a status the library has changed is kept",
                source,
                (first or 0) + 1,
                "warning",
            )
        )
    if stamp:
        meta["decided"] = stamp if decided_time(stamp) is not None else "none"
    if int(marker.group("version")) > FORMAT_VERSION:
        problems.append(
            ParseProblem(
                f"list format v{marker.group('version')} is newer than this program's "
                f"v{FORMAT_VERSION}",
                source,
                (first or 0) + 1,
                "warning",
            )
        )
    return group_by


@dataclass
class _ItemScanner:
    """Walks a list's lines and collects its task items with their status and header lines.

    Fenced code and HTML comments (a ``<!--`` starting a line, up to ``-->``: invisible
    when rendered, so a checkbox in one changes nothing; issue 18) are skipped; a
    level-1 heading gives ``meta["list_title"]``; level-2
    headings set the status of the items under them when the list is grouped by status
    (or its grouping is unknown); an item's header is its line and the indented lines
    after it, up to the first blank line.
    """

    source: str
    group_by: str | None
    meta: dict[str, str]
    problems: list[ParseProblem]
    items: list[_Item] = field(default_factory=list)
    status: str | None = None
    current: _Item | None = None  # the item whose header lines are being read
    fence: str | None = None  # the open code fence, if any
    comment: bool | None = None  # inside an HTML comment (True: one inside an item)

    @property
    def by_status(self) -> bool:
        """Do level-2 headings name statuses (grouped by status, or grouping unknown)?"""
        return self.group_by in (None, "status")

    def scan(self, lines: list[str]) -> list[_Item]:
        """Read ``lines`` and return the items found, in order."""
        for number, line in enumerate(lines, start=1):
            self._line(number, line)
        return self.items

    def _line(self, number: int, line: str) -> None:
        """Read line ``number`` (1-based)."""
        if self.comment is not None:
            if line.strip() and self.comment and line[:1] not in (" ", "\t"):
                self.comment = self.current = None  # it ends with its item (no lazy lines)
            else:
                if "-->" in line:
                    self.comment = None
                return
        if self.fence is None and (opened := _COMMENT_START.match(line)):
            inside_item = line[:1] in (" ", "\t") and self.current is not None
            if not inside_item:
                self.current = None
            if "-->" not in line[opened.end() :]:
                self.comment = inside_item
            return
        if self.fence is not None:
            if line.startswith(self.fence[0] * len(self.fence)) and not line.strip(
                self.fence[0] + " \t"
            ):
                self.fence = None
            return
        if line[:1] in (" ", "\t"):
            if not line.strip():
                self.current = None
            elif self.current is not None:
                self.current.header.append(line.strip())
            return
        self.current = None
        if not line.strip():
            return
        if fence := _FENCE.match(line):
            self.fence = fence.group(1)
        elif heading := _HEADING.match(line):
            self._heading(number, len(heading.group("level")), heading.group("text") or "")
        elif item := _ITEM.match(line):
            self.current = _Item(
                line=number,
                checked=item.group("box") in "xX",
                status=self.status if self.by_status else None,
                header=[item.group("rest") or ""],
            )
            self.items.append(self.current)
        elif _BULLET.match(line):
            self._warn("list item without a checkbox; ignored", number)

    def _heading(self, number: int, level: int, text: str) -> None:
        """A heading: the list's title (level 1) or a status group (level 2)."""
        if level == 1 and "list_title" not in self.meta:
            self.meta["list_title"] = unescape(text)
        elif level == 2 and self.by_status:
            self.status = _status_from_heading(text)
            if self.status is None and self.group_by == "status":
                self._warn(
                    f"heading {text!r} is not a read status; items under it keep their status",
                    number,
                )

    def _warn(self, message: str, line: int) -> None:
        self.problems.append(ParseProblem(message, self.source, line, "warning"))


def _records_by_key(
    items: list[_Item], source: str, problems: list[ParseProblem]
) -> list[PaperRecord]:
    """One record per citation key, in order of first appearance; repeats merged (:func:`_merge`).

    An item without a key adds an error to ``problems`` and gives no record.
    """
    records: dict[str, PaperRecord] = {}
    for item in items:
        record, problem = _parse_item(item, source)
        if problem is not None:
            problems.append(problem)
            continue
        assert record is not None
        assert record.citekey is not None
        if record.citekey in records:
            merged, more = _merge(records[record.citekey], record, source)
            records[record.citekey] = merged
            problems.extend(more)
        else:
            records[record.citekey] = record
    return list(records.values())
