"""RIS text <-> the tag values of each record, through rispy.

RIS (Research Information Systems, "RIS Format Specifications", RefMan 2011) is one
``TAG  - value`` per line, each record from ``TY  - TYPE`` to ``ER  - ``. This module
knows the lines and tags; :mod:`readinglist.formats.ris` maps tags to a PaperRecord.

rispy (``rispy.loads``, rispy 0.10) parses the tags of each record. It falls short in
ways this module makes up for:

* it keeps no line numbers and silently drops a record that lacks ``ER`` or text
  outside records; :func:`split_records` splits the text into records first
  (tracking lines, reporting unclosed records and stray text) and :func:`parse` hands
  rispy one record at a time;
* it joins the continuation lines of a field with a space and, for a tag repeated
  in a record, keeps only the first value; the subclass ``_RisParser`` joins
  continuation lines with a newline (so abstracts keep their paragraphs) and is run
  with ``enforce_list_tags=False`` so repeated tags become lists;
* it splits ``UR`` on ``;`` (breaking URLs that contain one); that is turned off
  (the mapping splits a line of several URLs only before ``http(s)://``).

Writing gives the text ``rispy.dumps`` gives without the ``1.`` line rispy puts before
each record, line by line (:func:`dumps`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import rispy

from readinglist.records import ParseProblem

__all__ = [
    "TAG",
    "Chunk",
    "all_tags",
    "dumps",
    "parse",
    "split_records",
    "tag_values",
    "value_lines",
]

#: A tag: a capital letter, then a capital letter or digit.
TAG = re.compile(r"[A-Z][A-Z0-9]")
_TAG_LINE = re.compile(r"^(?P<tag>[A-Z][A-Z0-9]) {1,2}-(?: (?P<value>.*)|\s*)$")
_RECORD_NUMBER = re.compile(r"^\s*\d+\.\s*$")

# --- rispy, extended --------------------------------------------------------------------------


class _RisParser(rispy.RisParser):  # type: ignore[misc]  # rispy has no type hints
    """rispy's parser, joining continuation lines with a newline instead of a space.

    rispy joins a non-list field's continuation lines with a space and appends the
    continuation of an unknown tag as a separate value; both lose structure.
    """

    def _add_single_value(
        self, record: dict[str, Any], name: str, value: Any, is_multi: bool = False
    ) -> None:
        if not is_multi:
            super()._add_single_value(record, name, value, is_multi)
            return
        current = record.get(name)
        if isinstance(current, list) and current:
            current[-1] = f"{current[-1]}\n{value}"
        elif isinstance(current, str):
            record[name] = f"{current}\n{value}"
        else:
            record[name] = value

    def _add_tag(
        self, record: dict[str, Any], tag: str, content: str, extend_multiline: bool = False
    ) -> None:
        if extend_multiline and tag not in self.mapping:
            values = record.setdefault(self.mapping[self.UNKNOWN_TAG], defaultdict(list))[tag]
            if values:
                values[-1] = f"{values[-1]}\n{content}"
            else:
                values.append(content)
            return
        super()._add_tag(record, tag, content, extend_multiline)


_NAME = rispy.TAG_KEY_MAPPING
_UNKNOWN = _NAME["UK"]

# --- text -> records -------------------------------------------------------------------------


@dataclass
class Chunk:
    """The lines of one record, canonicalized for rispy, with the line of each tag."""

    start: int
    ris_type: str
    lines: list[str] = field(default_factory=list)
    tag_lines: dict[str, int] = field(default_factory=dict)
    closed: bool = False


@dataclass
class _Splitter:
    """Cuts RIS text into records (``TY`` .. ``ER``) line by line, noting problems."""

    source: str
    chunks: list[Chunk] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
    current: Chunk | None = None
    last_tag: str | None = None
    stray: int | None = None  # the line of the stray text being skipped

    def warn(self, message: str, line: int) -> None:
        self.problems.append(ParseProblem(message, self.source, line, "warning"))

    def line(self, number: int, line: str) -> None:
        match = _TAG_LINE.match(line)
        tag = match.group("tag") if match else None
        if match is not None and tag == "TY":
            self.open(number, (match.group("value") or "").strip())
        elif self.current is None:
            self.outside(number, line)
        elif tag == "ER":
            self.current.closed = True
            self.current = None
        elif match is not None and tag is not None:
            self.current.lines.append(f"{tag}  - {(match.group('value') or '').strip()}")
            self.current.tag_lines.setdefault(tag, number)
            self.last_tag = tag
        elif self.last_tag == "TY":
            if line.strip():
                self.warn("line without a tag after 'TY  - ' ignored", number)
        else:
            # A leading space keeps rispy from taking the line for a tag line.
            self.current.lines.append(" " + line)

    def open(self, number: int, ris_type: str) -> None:
        if self.current is not None:
            start = self.current.start
            self.warn(
                f"record starting at line {start} has no 'ER  - ' line; "
                "read up to the next 'TY  - '",
                start,
            )
        self.current = Chunk(start=number, ris_type=ris_type)
        self.current.lines.append(f"TY  - {ris_type}")
        self.chunks.append(self.current)
        self.last_tag, self.stray = "TY", None

    def outside(self, number: int, line: str) -> None:
        if line.strip() and not _RECORD_NUMBER.match(line) and self.stray is None:
            self.stray = number
            self.warn("text outside a record ignored (a record starts with 'TY  - ')", number)
        elif not line.strip():
            self.stray = None

    def finish(self, text: str) -> None:
        if self.current is not None:
            start = self.current.start
            self.warn(f"record starting at line {start} has no 'ER  - ' line", start)
        if not self.chunks and text.strip():
            self.problems.append(
                ParseProblem("no RIS record found (a record starts with 'TY  - ')", self.source, 1)
            )


def split_records(text: str, source: str) -> tuple[list[Chunk], list[ParseProblem]]:
    """Cut RIS ``text`` (LF line ends) into its records, in file order.

    Returns the records (a record without ``ER`` ends at the next ``TY`` or the end)
    and the problems, with line numbers: warnings for stray text outside records, a
    line without a tag right after ``TY``, and a record without ``ER``; an error when
    non-empty text holds no record. ``source`` names the file in problems. Never raises.
    """
    splitter = _Splitter(source)
    for number, raw in enumerate(text.split("\n"), start=1):
        splitter.line(number, raw.rstrip("\r"))
    splitter.finish(text)
    return splitter.chunks, splitter.problems


def tag_values(entry: Mapping[str, Any], tag: str) -> list[str]:
    """All values of ``tag`` in an entry :func:`parse` gave, stripped, empty ones dropped.

    ``[]`` for a tag the record lacks. Raises nothing for entries of :func:`parse`.
    """
    name = _NAME.get(tag)
    if name is None or tag == "UK":
        raw: Any = entry.get(_UNKNOWN, {}).get(tag, [])
    else:
        raw = entry.get(name, [])
    values = raw if isinstance(raw, list) else [raw]
    return [value.strip() for value in values if isinstance(value, str) and value.strip()]


def all_tags(entry: Mapping[str, Any]) -> list[str]:
    """Every tag present in an entry :func:`parse` gave (known tags first, then unknown)."""
    reverse = {name: tag for tag, name in _NAME.items()}
    tags = [reverse[name] for name in entry if name in reverse and name != _UNKNOWN]
    tags.extend(tag for tag in entry.get(_UNKNOWN, {}) if isinstance(tag, str))
    return tags


def parse(chunk: Chunk) -> Mapping[str, Any]:
    """The tags of one record, parsed by rispy (``_RisParser``): rispy's field names to
    values, unknown tags under ``unknown_tag``. Read them with :func:`tag_values` and
    :func:`all_tags`. rispy's own errors propagate (the caller guards each record).
    """
    entries = rispy.loads(
        "\n".join([*chunk.lines, "ER  - "]),
        implementation=_RisParser,
        delimiter_tags_mapping={},
        enforce_list_tags=False,
    )
    return entries[0] if entries else {}


# --- records -> text -------------------------------------------------------------------------


#: A line end as universal newlines read one (``\r\n``, ``\r``, ``\n``).
#: A line break for some reader: ``\r\n``, ``\r``, ``\n`` and the others ``str.splitlines``
#: breaks at (rispy and other tools split a text so).
_LINE_END = re.compile(r"\r\n|[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def value_lines(text: str) -> str:
    r"""Normalize a multi-line value so it reads back the same.

    Each line is stripped (readers strip them); a continuation line that would
    read as a tag line gets a leading space. Lines end at ``\n``, ``\r\n``, a bare
    ``\r`` or another break ``str.splitlines`` knows (:data:`_LINE_END`), as for a
    reader with universal newlines (Python's ``open``, ours): a value
    split only at ``\n`` let ``note\rER  - \rTY  - BOOK`` end its record and start
    another when read back.
    """
    lines = [line.strip() for line in _LINE_END.split(text.strip())]
    return "\n".join(" " + line if _TAG_LINE.match(line) else line for line in lines)


def single_line(text: str) -> str:
    """``text`` as the value of a one-line tag: every line break (:data:`_LINE_END`) a
    space, stripped. A newline inside a name once wrote a line of its own, and an
    injected ``AU  - X`` became an author when the file was read back."""
    return _LINE_END.sub(" ", text).strip()


def _record_text(pairs: Iterable[tuple[str, str]]) -> str:
    """One record's lines as ``rispy.dumps`` writes them (rispy 0.10, ``RisWriter``
    without the ``1.`` header): ``TY`` first (the last ``TY`` value, ``JOUR`` without
    one), then each tag's values in the order the tag first occurs, every unknown tag
    (one rispy has no name for, or ``UK``) grouped where the first of them occurs, then
    ``ER``. Written here line by line: going through rispy's dictionaries took a fifth
    of the RIS export of 100,000 papers (issue 17); ``tests/test_ris.py`` checks the
    text against ``rispy.dumps``."""
    ris_type = "JOUR"
    groups: dict[str, list[str]] = {}
    unknown: dict[str, list[str]] = {}
    for tag, value in pairs:
        if tag == "TY":
            ris_type = value
        elif tag in _KNOWN_TAGS:
            values = groups.get(tag)
            if values is None:
                groups[tag] = [value]
            else:
                values.append(value)
        else:
            if not unknown:
                groups[_UNKNOWN] = []  # the unknown tags' place among the others
            unknown.setdefault(tag, []).append(value)
    lines = [f"TY  - {ris_type}"]
    for tag, values in groups.items():
        if tag == _UNKNOWN:
            lines.extend(f"{name}  - {v}" for name, found in unknown.items() for v in found)
        else:
            lines.extend(f"{tag}  - {v}" for v in values)
    lines.append("ER  - ")
    return "\n".join(lines)


#: The tags rispy writes under a name of their own (every other tag is "unknown").
_KNOWN_TAGS = frozenset(tag for tag in _NAME if tag not in ("TY", "UK"))


def dumps(references: Sequence[Iterable[tuple[str, str]]]) -> str:
    """Write records, each given as ``(tag, value)`` pairs (``TY`` first), as RIS text.

    Records are separated by a blank line; the text ends in a newline ("" for no
    records). A value with newlines is written as continuation lines. The text is
    what ``rispy.dumps`` writes for them (:func:`_record_text`).
    """
    if not references:
        return ""
    return "\n\n".join(_record_text(pairs) for pairs in references) + "\n"
