"""Reading ``.bib`` text: bibtexparser's splitter, then everything after the split here.

Fourth floor of :mod:`readinglist.formats.bibtex` (imports :mod:`.values`,
:mod:`.fields`, :mod:`.digest`). :func:`read` splits the text with bibtexparser 2.x
(``parse_string`` with an empty parse stack, i.e. its ``Splitter`` only) and does
everything after the split here, because the library falls short for this job in
five places:

* ``ResolveStringReferencesMiddleware`` resolves a value only when the whole value is
  one macro; :func:`~readinglist.formats.bibtex.values.evaluate` evaluates it as
  BibTeX does, with ``@string`` definitions applied in file order.
* A key used twice, and every second, third ... entry without a key (``@article{,``
  as Mendeley writes them), become ``DuplicateBlockKeyBlock`` failures. We take the
  entry back out of the failed block (``ignore_error_block``) and keep it; repeated
  non-empty keys (compared case-insensitively, as BibTeX does) give a warning naming
  both lines.
* An entry with a repeated field becomes a ``DuplicateFieldKeyBlock``; we keep the
  entry with the *first* value of each field (what BibTeX itself does) and warn.
* Its splitter takes a brace after a backslash as escaped, so a value ending in the
  line break ``\\\\`` (some ACL Anthology abstracts) does not end at its brace and
  the entry is lost. BibTeX has no such escape; even runs of backslashes before a
  brace are hidden from the splitter (see ``_HIDDEN``) and put back afterwards.
* bibtexparser logs every failed block on the ``bibtexparser`` logger; we attach a
  ``NullHandler`` so nothing reaches stderr unasked, and report the failures as
  :class:`ParseProblem` values (``file:line``) instead.

``ParseResult.meta`` holds ``"strings"`` (every ``@string`` block as written, in file
order: a macro defined twice is there twice, so a reader of it in order has, after
its first ``n`` blocks, the macros an entry read after ``n`` definitions had, its
``PaperRecord.strings_read``) and ``"preamble"`` (the ``@preamble`` blocks as
written, and JabRef's ``@comment{jabref-meta: ...}`` blocks, so an export gives
them back as they were), when the text has them. :func:`read_aux` reads the
citation keys of a LaTeX ``.aux`` file.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

from bibtexparser.entrypoint import parse_string
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ExplicitComment,
    ParsingFailedBlock,
    Preamble,
    String,
)

from readinglist.formats.bibtex.digest import UNCHECKED, source_check
from readinglist.formats.bibtex.encode import escaping_needs
from readinglist.formats.bibtex.fields import record_from_fields, value_checks
from readinglist.formats.bibtex.inherit import PARENT_TYPES, add_xdata, inherit, parent_keys
from readinglist.formats.bibtex.repair import (
    LIST_FIELDS,
    EscapeReport,
    is_jabref_meta,
    join_list,
    normalize_others,
    repair_names,
)
from readinglist.formats.bibtex.salvage import VALID_NAME, Salvaged, blank_comments, salvage
from readinglist.formats.bibtex.values import (
    MONTH_MACROS,
    Evaluated,
    ValueSyntaxError,
    evaluate,
)
from readinglist.records import PaperRecord, ParseProblem, ParseResult

# Failed blocks are reported as ParseProblem values; keep bibtexparser's own log
# records from reaching stderr through logging's last-resort handler.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())


#: A line that starts a block: the boundaries bibtexparser's splitter always honours.
_BLOCK_START_LINE = re.compile(r"\n[^\S\n]*@\w*[ \t]*[{(]")
#: About how many characters bibtexparser splits at a time (memory stays bounded).
_BATCH_CHARS = 1 << 20
#: Sets of macro values whose ``source_check`` half a :class:`Reader` keeps at most.
_MACRO_CHECKS = 4096


@dataclass
class Parsed:
    """One read entry and the macros its fields used."""

    record: PaperRecord
    used_macros: frozenset[str]
    #: True: a value of the text cannot be copied as written (:func:`~.encode.
    #: escaping_needs`), so the macro half of its ``source_check`` is
    #: :data:`~.digest.UNCHECKED` (the writer reads the text again and replaces that
    #: value in place).
    unchecked: bool = False


class Reader:
    """State carried across the batches of one input: macros, preambles, keys seen."""

    def __init__(
        self,
        source: str,
        macros: Mapping[str, str] | None = None,
        *,
        checks: bool = True,
        fixed_months: bool = False,
    ) -> None:
        self.source = source
        self.checks = checks  # compute PaperRecord.source_check (not when re-reading)
        #: True: an ``@string`` naming a month is recorded in ``definitions`` but leaves
        #: the month's value as BibTeX's styles define it (what an export's reader sees:
        #: the writer never redefines a month).
        self.fixed_months = fixed_months
        self.macros: dict[str, str] = dict(MONTH_MACROS)
        if macros:
            self.macros.update(macros)
        self.string_raw: dict[str, str] = {}
        self.string_deps: dict[str, frozenset[str]] = {}
        #: Every ``@string`` block read, in order: ``(name, raw text, value, macros
        #: used)``; its length is the ``strings_read`` of the next entry.
        self.definitions: list[tuple[str, str, str, frozenset[str]]] = []
        self.preambles: list[str] = []
        self.seen_keys: dict[str, int] = {}
        self.undefined_reported: set[str] = set()
        #: Possible ``crossref`` parents and ``@xdata`` blocks: folded key -> fields.
        self.parents: dict[str, tuple[str, dict[str, str]]] = {}
        self.xdata: dict[str, dict[str, str]] = {}
        self.wanted: set[str] = set()
        self.escapes = EscapeReport(source)
        #: Entries waiting for their parents until :meth:`finish`.
        self.pending: list[tuple[Parsed, dict[str, str], dict[str, str]]] = []
        #: The macro half of ``source_check`` per set of macro values (``digest.macro_check``'s
        #: cache): the entries of a file share a few (``month = jun``), issue 17 item 5.
        self.macro_checks: dict[tuple[tuple[str, str | None], ...], str] = {}
        self._hidden = False

    def meta(self) -> dict[str, str]:
        """``ParseResult.meta`` so far: ``"strings"`` and ``"preamble"`` when there are any."""
        meta: dict[str, str] = {}
        if self.definitions:
            meta["strings"] = "\n".join(raw for _, raw, _, _ in self.definitions)
        if self.preambles:
            meta["preamble"] = "\n".join(self.preambles)
        return meta

    def feed(
        self, text: str, line_offset: int, final: bool = True
    ) -> Iterator[Parsed | ParseProblem]:
        """Read the blocks of ``text``, whose first line is line ``line_offset + 1``;
        ``final`` is False when more text follows (a block cut off at the end of
        ``text`` was cut by the next block start)."""
        self._hidden = False
        text = blank_comments(text)
        if "\\\\" in text and _HIDDEN not in text and _ESCAPED_BACKSLASHES.search(text):
            text = _ESCAPED_BACKSLASHES.sub(_hide_backslashes, text)
            self._hidden = True
        library = parse_string(text, parse_stack=[])
        self._text = text
        for block in library.blocks:
            line = line_offset + (block.start_line or 0) + 1
            if isinstance(block, (DuplicateBlockKeyBlock, DuplicateFieldKeyBlock)):
                inner = block.ignore_error_block
                if isinstance(inner, String):
                    self._string(inner, line)
                elif isinstance(inner, Entry):
                    yield from self._bibtexparser_entry(inner, line, line_offset)
                continue
            if isinstance(block, ParsingFailedBlock):
                yield from self._salvage_or_fail(block, line, final)
            elif isinstance(block, Entry):
                yield from self._bibtexparser_entry(block, line, line_offset)
            elif isinstance(block, String):
                self._string(block, line)
            elif isinstance(block, Preamble) or (
                isinstance(block, ExplicitComment) and is_jabref_meta(block.comment)
            ):  # JabRef's metadata (groups, settings) goes where the preambles go
                self.preambles.append(self._restore(block.raw or ""))
                yield from self.escapes.preamble(self.preambles[-1], self.macros, line)

    def _restore(self, text: str) -> str:
        return text.replace(_HIDDEN, "\\") if self._hidden else text

    def _failed(self, block: ParsingFailedBlock, line: int, final: bool) -> ParseProblem:
        raw = self._restore(block.raw or "")
        head = re.match(r"@(\w*)\s*[{(]\s*([^,\s]*)", raw)
        if head is None:
            what = "block"
        elif head.group(1).lower() in ("comment", "preamble", "string"):
            what = f"@{head.group(1).lower()} block"
        else:
            what = f"@{head.group(1).lower()} entry"
            if head.group(2):
                what += f" {head.group(2)!r}"
        reason = (getattr(block.error, "abort_reason", None) or str(block.error)).strip()
        # The splitter's wording depends on where a batch ends; say what happened instead.
        if reason.startswith("Unexpected block start") or (
            reason.startswith("Unexpectedly reached end of file") and not final
        ):
            reason = "not closed before the next entry starts"
        elif reason.startswith("Unexpectedly reached end of file"):
            reason = "not closed before the end of the text"
        return ParseProblem(f"malformed {what}: {reason}; skipped", self.source, line)

    def _string(self, block: String, line: int) -> None:
        name = self._restore(block.key).strip().lower()
        try:
            value, used, _undefined = evaluate(self._restore(block.value), self.macros)
        except ValueSyntaxError:
            value, used = self._restore(block.value), ()
        raw = self._restore(block.raw or "")
        self.definitions.append((name, raw, value, frozenset(used)))
        if self.fixed_months and name in MONTH_MACROS:
            return
        self.macros[name] = value
        # The latest definition wins; a dict keeps the position of the first one.
        self.string_raw[name] = raw
        self.string_deps[name] = frozenset(used)

    def _salvage_or_fail(
        self, block: ParsingFailedBlock, line: int, final: bool
    ) -> Iterator[Parsed | ParseProblem]:
        """A block the splitter rejected: an entry :func:`salvage` can repair, else an error."""
        raw = self._restore(self._rest_of_block(block))
        head = re.match(r"\s*@\s*(\w+)", raw)
        if head is not None and head.group(1).lower() not in ("comment", "preamble", "string"):
            try:
                parts = salvage(raw)
            except ValueSyntaxError:
                pass
            else:
                yield from self._salvaged(parts, raw, line)
                return
        yield self._failed(block, line, final)

    def _rest_of_block(self, block: ParsingFailedBlock) -> str:
        """The text of a failed block up to the next line that starts a block: the
        splitter cuts a block where it failed (``,,``), the rest is still the entry."""
        text = self._text
        raw = block.raw or ""
        start = text.find(raw) if raw else -1
        if start < 0:
            return raw
        nxt = _BLOCK_START_LINE.search(text, start + len(raw) - 1)
        return text[start : nxt.start() if nxt else len(text)]

    def _salvaged(self, parts: Salvaged, raw: str, line: int) -> Iterator[Parsed | ParseProblem]:
        if not parts.repairs and parts.key:  # rejected for a reason salvage did not name
            yield ParseProblem(
                f"entry {parts.key or '(no key)'!r}: damaged; read again by BibTeX's rules",
                self.source,
                line,
                "warning",
            )
        for message, offset in parts.repairs:
            yield ParseProblem(
                f"entry {parts.key or '(no key)'!r}: {message}",
                self.source,
                line + offset,
                "warning",
            )
        fields = [(name, value, line + offset) for name, value, offset in parts.fields]
        yield from self._entry(parts.key, parts.entry_type, fields, raw, line, dirty=True)

    def _bibtexparser_entry(
        self, entry: Entry, line: int, line_offset: int
    ) -> Iterator[Parsed | ParseProblem]:
        """An entry the splitter read; read again by :func:`salvage` when it looks damaged
        (a field name BibTeX could not have read, a value that is not one expression)."""
        raw = self._restore(entry.raw or "")
        fields = [
            (
                fld.key.strip(),
                self._restore(str(fld.value)),
                line_offset + (fld.start_line or 0) + 1,
            )
            for fld in entry.fields
        ]
        # Each value evaluated once, here: a value that is not one expression (a missing
        # comma) raises whatever the macros, so these results also say "damaged".
        evaluated = [_evaluated(value, self.macros) for _, value, _ in fields]
        if any(isinstance(result, ValueSyntaxError) for result in evaluated) or any(
            VALID_NAME.fullmatch(name) is None for name, _, _ in fields
        ):
            try:
                parts = salvage(raw)
            except ValueSyntaxError:
                pass
            else:
                yield from self._salvaged(parts, raw, line)
                return
        key = self._restore(entry.key).strip()
        yield from self._entry(
            key, entry.entry_type.lower(), fields, raw, line, evaluated=evaluated
        )

    def _entry(
        self,
        key: str,
        entry_type: str,
        entry_fields: list[tuple[str, str, int]],
        raw: str,
        line: int,
        dirty: bool = False,
        evaluated: list[Evaluated | ValueSyntaxError] | None = None,
    ) -> Iterator[Parsed | ParseProblem]:
        """Evaluate the fields of one entry and build its record (``dirty``: the text is
        damaged, so the record is written anew rather than copied; ``evaluated``: what
        :func:`evaluate` gave for each field with the current macros, when known)."""
        key = key.strip()
        yield from self._key_problems(key, entry_type, line)
        values, field_lines, used, repeated = yield from self._fields(key, entry_fields, evaluated)
        dirty = dirty or repeated
        if "author" in values or "editor" in values:
            dirty = normalize_others(values) or dirty
            for problem in repair_names(key, values, field_lines, line, self.source):
                dirty = True
                yield problem
        escaped, as_text = escaping_needs(values)
        # A value to escape or write as text keeps the entry's text (the export replaces
        # that value in place, :mod:`.patch`), never copied whole (digest.UNCHECKED).
        unchecked = escaped or bool(as_text)
        yield from self.escapes.problems(key, escaped, as_text, line)
        yield from value_checks(self.source, key, values, field_lines, line)
        if entry_type == "xdata":
            if key:
                self.xdata[key.casefold()] = values
            return
        parsed = Parsed(
            record_from_fields(
                key or None, entry_type, values, raw, line, strings_read=len(self.definitions)
            ),
            frozenset(used),
            unchecked,
        )
        if dirty:
            parsed.record = replace(parsed.record, source_text=None)
        if key and (entry_type in PARENT_TYPES or key.casefold() in self.wanted):
            self.parents[key.casefold()] = (entry_type, values)
        if "crossref" in values or "xdata" in values:
            self.wanted.update(k.casefold() for k in parent_keys(values.get("crossref", "")))
            # The macros as they are now: the check is taken with them at the end.
            self.pending.append((parsed, values, dict(self.macros)))
            return
        yield self._finish(parsed, self.macros)

    def _key_problems(self, key: str, entry_type: str, line: int) -> Iterator[ParseProblem]:
        """A missing citation key, or one an earlier entry of the input used."""
        if not key:
            yield ParseProblem(
                f"@{entry_type} entry has no citation key; one is generated",
                self.source,
                line,
                "warning",
            )
            return
        folded = key.casefold()
        first_line = self.seen_keys.get(folded)
        if first_line is not None:
            yield ParseProblem(
                f"citation key {key!r} is used twice (lines {first_line} and {line}); "
                "both entries were read",
                self.source,
                line,
                "warning",
            )
        else:
            self.seen_keys[folded] = line

    def _fields(
        self,
        key: str,
        entry_fields: list[tuple[str, str, int]],
        evaluated: list[Evaluated | ValueSyntaxError] | None = None,
    ) -> Generator[ParseProblem, None, tuple[dict[str, str], dict[str, int], set[str], bool]]:
        """Evaluate each field (macros, ``#``; ``evaluated``: the results, when the caller
        has them); yield the problems; return the values, the line of each field, the
        macros used, and whether a field was repeated."""
        values: dict[str, str] = {}
        field_lines: dict[str, int] = {}
        used: set[str] = set()
        repeated = False
        for index, (field_name, raw_value, fline) in enumerate(entry_fields):
            name = field_name.lower()
            if name in values:
                repeated = True
                merged = name in LIST_FIELDS
                if merged:
                    values[name] = join_list(values[name], raw_value, self.macros)
                yield ParseProblem(
                    f"entry {key or '(no key)'!r} has field {name!r} twice "
                    f"(lines {field_lines[name]} and {fline}); "
                    + ("merged the values" if merged else "kept the first value"),
                    self.source,
                    fline,
                    "warning",
                )
                continue
            try:
                result = evaluated[index] if evaluated is not None else None
                if isinstance(result, ValueSyntaxError):
                    raise result
                value, used_here, undefined = result or evaluate(raw_value, self.macros)
            except ValueSyntaxError as err:
                yield ParseProblem(
                    f"entry {key or '(no key)'!r}, field {name!r}: {err}; kept the value as written",
                    self.source,
                    fline,
                    "warning",
                )
                value, used_here, undefined = raw_value, (), ()
            yield from self._undefined(undefined, name, key, fline)
            used.update(used_here)
            values[name] = value
            field_lines[name] = fline
        return values, field_lines, used, repeated

    def _undefined(
        self, undefined: Iterable[str], name: str, key: str, fline: int
    ) -> Iterator[ParseProblem]:
        """Each undefined ``@string`` macro, at its first use in the input only."""
        for macro in undefined:
            if macro.lower() in self.undefined_reported:
                continue
            self.undefined_reported.add(macro.lower())
            yield ParseProblem(
                f"undefined @string macro {macro!r} in field {name!r} of entry "
                f"{key or '(no key)'!r}; its name is kept as the value "
                "(reported at its first use only)",
                self.source,
                fline,
                "warning",
            )

    def _finish(self, parsed: Parsed, macros: Mapping[str, str]) -> Parsed:
        """Give the record its ``source_check``, taken with ``macros`` (those in effect
        where the entry was read)."""
        record = parsed.record
        if record.source_text is not None and self.checks:
            # Set in place: this reader built the record for this entry and has handed it
            # to no one yet. dataclasses.replace would build all its fields again (0.2 s
            # of CPU per 10,000 entries of the ACL Anthology, issue 17 item 5).
            if len(self.macro_checks) > _MACRO_CHECKS:
                self.macro_checks.clear()
            check = source_check(record, macros, cache=self.macro_checks)
            if check is not None and parsed.unchecked:
                check = check[:32] + UNCHECKED
            object.__setattr__(record, "source_check", check)
        return parsed

    def finish(self) -> Iterator[Parsed | ParseProblem]:
        """The entries that wait for a ``crossref`` parent or ``xdata`` block, completed
        from them (call once the whole input is read); a missing one is a warning."""
        for parsed, values, macros in self.pending:
            record = parsed.record
            merged = values
            for xkey in parent_keys(values.get("xdata", "")):
                block = self.xdata.get(xkey.casefold())
                if block is None:
                    yield self._missing(record, "xdata", xkey)
                else:
                    merged = add_xdata(merged, block)
            if "xdata" in values:
                merged = {k: v for k, v in merged.items() if k != "xdata"}
            for pkey in parent_keys(values.get("crossref", ""))[:1]:
                parent = self.parents.get(pkey.casefold())
                if parent is None:
                    yield self._missing(record, "crossref", pkey)
                else:
                    merged = inherit(merged, parent[0], parent[1])
            if merged is not values:
                new = record_from_fields(
                    record.citekey,
                    record.entry_type,
                    merged,
                    record.source_text or "",
                    record.line,
                    record.strings_read,
                )
                source = None if "xdata" in values else record.source_text
                # No source_check: the text alone does not read to this data (it
                # inherited fields), so the writer reads it again and regenerates it,
                # as it must when the parent is not exported with it.
                parsed.record = replace(new, source_text=source)
                yield parsed
                continue
            yield self._finish(parsed, macros)
        self.pending = []
        yield from self.escapes.summary()

    def _missing(self, record: PaperRecord, link: str, parent: str) -> ParseProblem:
        return ParseProblem(
            f"entry {record.citekey or '(no key)'!r}: {link} entry {parent!r} is not in "
            f"{self.source}; nothing inherited",
            self.source,
            record.line,
            "warning",
        )


def _evaluated(value: str, macros: Mapping[str, str]) -> Evaluated | ValueSyntaxError:
    """:func:`evaluate` ``(value, macros)``, or the error it raised for a value that is
    not one expression (the splitter must have read the field wrong: a missing comma)."""
    try:
        return evaluate(value, macros)
    except ValueSyntaxError as err:
        return err


# bibtexparser's splitter takes a brace or quote after a backslash as escaped (one
# character of look-behind), so the line break ``\\`` before a closing brace hides
# the brace (the ACL Anthology has such abstracts). BibTeX has no escapes: braces
# count wherever they are. Before splitting, each even run of backslashes before a
# brace is replaced by as many NUL characters (same length: lines and offsets are
# kept), and put back in everything read from the batch.
_HIDDEN = "\x00"
_ESCAPED_BACKSLASHES = re.compile(r"(?:\\\\)+(?=\\?[{}])")


def _hide_backslashes(match: re.Match[str]) -> str:
    return _HIDDEN * len(match.group())


def batches(text: str, size: int = _BATCH_CHARS) -> Iterator[tuple[str, int, bool]]:
    """Cut ``text`` into pieces of about ``size`` characters at lines that start a block.

    Yields ``(piece, line_offset, is_last)``. A line starting with ``@type{`` or ``@type(``
    ends any open block in bibtexparser's splitter too, so cutting there changes
    nothing in how the text is read.
    """
    start = 0
    line = 0
    n = len(text)
    while start < n:
        cut = n
        if n - start > size:
            match = _BLOCK_START_LINE.search(text, start + size)
            if match is not None:
                cut = match.start() + 1
        piece = text[start:cut]
        yield piece, line, cut >= n
        line += piece.count("\n")
        start = cut


def read(text: str, source: str = "<stdin>") -> ParseResult:
    """Read BibTeX or biblatex text into records.

    Args:
        text: the whole ``.bib`` text (any entry types, ``{}``- or ``()``-delimited
            entries, ``@string``, ``@preamble``, ``@comment``, text between entries).
        source: the file name used in problems (``<stdin>`` for standard input).

    Returns:
        A :class:`ParseResult`: one record per entry in file order, with
        ``citekey=None`` for an entry without a key, ``source_text`` the entry exactly
        as written and ``line`` its first line (1-based); problems in file order
        (``"error"``: a malformed block that was skipped; ``"warning"``: a key used
        twice, a repeated field, an undefined macro); ``meta`` with ``"strings"`` and
        ``"preamble"`` (see the module docstring). Never raises for bad input.
    """
    reader = Reader(source)
    records: list[PaperRecord] = []
    problems: list[ParseProblem] = []
    for piece, offset, last in batches(text):
        for item in reader.feed(piece, offset, last):
            if isinstance(item, Parsed):
                records.append(item.record)
            else:
                problems.append(item)
    if reader.pending:
        for item in reader.finish():
            if isinstance(item, Parsed):
                records.append(item.record)
            else:
                problems.append(item)
        records.sort(key=lambda r: r.line or 0)
        problems.sort(key=lambda p: p.line or 0)
    return ParseResult(records, problems, reader.meta())


def iter_read(
    chunks: Iterable[str],
    source: str = "<stdin>",
    *,
    meta: dict[str, str] | None = None,
    batch_chars: int = _BATCH_CHARS,
) -> Iterator[PaperRecord | ParseProblem]:
    """Read ``.bib`` text arriving in chunks, yielding records and problems as they come.

    Args:
        chunks: pieces of the text in order, cut anywhere (e.g. ``iter(lambda:
            f.read(1 << 20), "")``).
        source: the file name used in problems.
        meta: if given, filled with ``"strings"`` / ``"preamble"`` as :func:`read`'s
            ``ParseResult.meta`` (complete once the iterator is exhausted).
        batch_chars: about how many characters are split at a time.

    Yields:
        The same records and problems, in the same order, as :func:`read` on the
        joined text. ``@string`` macros carry across chunks. Only one batch of text
        and its blocks is held at a time, so memory stays bounded by the batch size
        plus whatever the caller keeps.
    """
    reader = Reader(source)
    buffer = ""
    line = 0
    cut = 0  # the last block start seen in the buffer (0: none yet)
    for chunk in chunks:
        scanned = max(0, buffer.rfind("\n"))  # a block start may span the chunk boundary
        buffer += chunk
        for match in _BLOCK_START_LINE.finditer(buffer, scanned):
            cut = match.start() + 1
        if len(buffer) < batch_chars or cut == 0:
            continue
        piece, buffer = buffer[:cut], buffer[cut:]
        cut = 0
        for item in reader.feed(piece, line, final=False):
            yield item.record if isinstance(item, Parsed) else item
        line += piece.count("\n")
    if buffer:
        for item in reader.feed(buffer, line):
            yield item.record if isinstance(item, Parsed) else item
    for item in reader.finish():
        yield item.record if isinstance(item, Parsed) else item
    if meta is not None:
        meta.update(reader.meta())


# --- LaTeX .aux files -----------------------------------------------------------------

_AUX_CITATION = re.compile(
    r"\\citation\{([^}]*)\}|\\abx@aux@cite\{(?:[^}]*)\}\{([^}]*)\}|\\abx@aux@cite\{([^}]*)\}(?!\{)"
)


#: ``\@input{chap.aux}``: LaTeX's ``\include{chap}`` writes it into the main ``.aux``
#: file; the chapter's citations are in ``chap.aux``, which BibTeX reads too.
_AUX_INPUT = re.compile(r"\\@input\{([^}]*)\}")


def aux_inputs(text: str) -> list[str]:
    """Return the file names of the ``\\@input{...}`` lines of a LaTeX ``.aux`` file, in
    order (LaTeX's ``\\include``; BibTeX reads each such file as part of the ``.aux``,
    "The BibTeX program", Patashnik, ``aux_input_command``). Never raises."""
    return [name.strip() for name in _AUX_INPUT.findall(text) if name.strip()]


def read_aux(text: str) -> list[str]:
    """Return the citation keys of a LaTeX ``.aux`` file, in first-cited order, once each.

    Understands BibTeX's ``\\citation{a,b}`` lines and biblatex's
    ``\\abx@aux@cite{<refsection>}{key}`` (biblatex >= 3.12) and older
    ``\\abx@aux@cite{key}``. ``\\citation{*}`` (``\\nocite{*}``) gives the key
    ``"*"``, which callers may take as "every entry". Never raises.
    """
    keys: dict[str, None] = {}
    for match in _AUX_CITATION.finditer(text):
        group = match.group(1)
        names = group.split(",") if group is not None else [match.group(2) or match.group(3)]
        for name in names:
            name = name.strip()
            if name:
                keys.setdefault(name, None)
    return list(keys)
