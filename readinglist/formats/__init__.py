"""Import and export formats: decoding input bytes, detecting the format, and the registry.

Each format is a module with ``read(text, source) -> ParseResult`` and/or
``write(records, ...) -> str``; modules are imported only when used, so start-up
stays light. This package never touches the database and opens no file: the import
pipeline (:mod:`readinglist.pipelines.importing`) opens the input and hands its bytes
to :func:`decode`, or an open file to :func:`iter_bytes`.
"""

from __future__ import annotations

import codecs
import gzip
import importlib
import io
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, BinaryIO

from readinglist.errors import InvalidInput
from readinglist.records import ParseProblem, ParseResult

#: Format name -> module under ``readinglist.formats``.
MODULES: dict[str, str] = {
    "abstracts": "abstracts",
    "bibtex": "bibtex",
    "biblatex": "bibtex",
    "ris": "ris",
    "csl-json": "csljson",
    "markdown": "markdown",
}
#: Bytes read from an input at a time (:func:`iter_bytes`).
READ_BYTES = 1 << 20
#: The longest line read (bytes, after decompression), unless
#: ``READINGLIST_MAX_LINE_BYTES`` says otherwise: a longer one fails the input (exit 5)
#: instead of holding the whole of a one-line bomb in memory (issue 18). CSL-JSON,
#: which is often written on one line, is bounded by :data:`MAX_INPUT_BYTES` instead.
MAX_LINE_BYTES = 16 << 20
#: The largest input read whole (bytes, after decompression): standard input and
#: every format but BibTeX (which is read in pieces, of any size), unless
#: ``READINGLIST_MAX_INPUT_BYTES`` says otherwise (issue 18).
MAX_INPUT_BYTES = 512 << 20
#: The encoding :func:`sniff` names for UTF-8 with a few bad byte sequences: decoded
#: as UTF-8, each bad sequence replaced by U+FFFD (:func:`iter_decode`).
UTF8_REPLACE = "utf-8/replace"
#: Lines whose bad bytes are named one by one; the rest are counted in one warning.
SHOW_BAD_LINES = 10

#: Formats ``import --format`` accepts (``auto`` detects).
READ_FORMATS: tuple[str, ...] = ("auto", "abstracts", "bibtex", "ris", "csl-json", "markdown")
#: Formats ``export`` writes.
WRITE_FORMATS: tuple[str, ...] = ("bibtex", "biblatex", "markdown", "ris", "csl-json")

_EXTENSIONS = {
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".ris": "ris",
    ".json": "csl-json",
    ".csljson": "csl-json",
    ".txt": "abstracts",
    ".md": "markdown",
    ".markdown": "markdown",
}
_BIBTEX_ENTRY = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)
_RIS_TAG = re.compile(r"^TY  - ", re.MULTILINE)
_MARKDOWN_MARKER = "<!-- readinglist:markdown"
_BINARY_MESSAGE = (
    "this is a binary file, not text (expected BibTeX, RIS, CSL-JSON, Markdown or a list of "
    "abstracts)"
)


def _limit(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else default


def max_line_bytes() -> int:
    """The longest line read: :data:`MAX_LINE_BYTES` or ``READINGLIST_MAX_LINE_BYTES``."""
    return _limit("READINGLIST_MAX_LINE_BYTES", MAX_LINE_BYTES)


def max_input_bytes() -> int:
    """The largest input read whole: :data:`MAX_INPUT_BYTES` or ``READINGLIST_MAX_INPUT_BYTES``."""
    return _limit("READINGLIST_MAX_INPUT_BYTES", MAX_INPUT_BYTES)


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.4g} MiB" if size >= 1 << 20 else f"{size:,} bytes"


def too_large(source: str) -> InvalidInput:
    """The InvalidInput (exit 5) for an input read whole that exceeds :func:`max_input_bytes`."""
    return InvalidInput(
        f"more than {_mib(max_input_bytes())} of text to read at once (the most readinglist "
        "reads of a file that is not BibTeX, or of standard input); split it into smaller files",
        source,
    )


def module(fmt: str) -> ModuleType:
    """Import and return the module implementing ``fmt``. Raises InvalidInput for an unknown one."""
    try:
        name = MODULES[fmt]
    except KeyError:
        raise InvalidInput(f"unknown format {fmt!r}") from None
    return importlib.import_module(f"readinglist.formats.{name}")


def reader(fmt: str) -> Callable[[str, str], ParseResult]:
    """Return the ``read(text, source)`` function of ``fmt``."""
    read: Callable[[str, str], ParseResult] = module(fmt).read
    return read


def writer(fmt: str) -> Callable[..., str]:
    """Return the ``write(records, **options)`` function of ``fmt``."""
    write: Callable[..., str] = module(fmt).write
    return write


def decode(data: bytes, source: str) -> tuple[str, list[ParseProblem]]:
    """Turn the bytes of an input file into text, as :func:`sniff` + :func:`iter_decode` do.

    * gzip data (``.bib.gz``) is decompressed (no more than :func:`max_input_bytes`);
    * a UTF-8 BOM is dropped; UTF-16 with a BOM is decoded (with a warning);
      CRLF and CR line ends become LF;
    * a NUL byte in a text file is removed, with a warning naming its line (many NULs
      make the input binary);
    * UTF-8 is tried first; a UTF-8 file with a few bad byte sequences keeps UTF-8,
      the bad bytes replaced by U+FFFD, with a warning per line; text that is not
      UTF-8 at all is decoded as Latin-1 (Windows-1252 where its extra characters
      occur) with a warning (see :func:`sniff`).

    Returns ``(text, warnings)``. Raises InvalidInput, naming ``source``, for
    empty input, binary data (more than one NUL byte per thousand, or more than 5%
    control characters), a corrupt
    gzip stream, or a line or input over the limits (:func:`max_line_bytes`).
    """
    if data[:2] == b"\x1f\x8b":
        data = b"".join(iter_bytes(io.BytesIO(data), source))
        if len(data) > max_input_bytes():
            raise too_large(source)
    sniffed = sniff([data], source)
    return "".join(iter_decode([data], sniffed.encoding, source)), sniffed.warnings


def _is_binary(data: bytes) -> bool:
    """True for bytes that are no text: more than one NUL per thousand bytes (a PNG,
    UTF-16 without a byte-order mark), or more than 5% control characters. One NUL in
    a text file is a bad byte, not a binary file (issue 15: it is removed, with a
    warning naming its line)."""
    sample = data[:8192]
    if sample.count(b"\x00") > max(1, len(sample) // 1000):
        return True
    control = sum(1 for b in sample if 0 < b < 32 and b not in (9, 10, 12, 13))
    return control > len(sample) * 0.05


def format_of_name(name: str) -> str | None:
    """The input format a file name's extension stands for (``refs.bib`` -> ``bibtex``,
    ``x.ris.gz`` -> ``ris``), or None for an extension no format reads."""
    lowered = name.lower().removesuffix(".gz")
    return next((fmt for ext, fmt in _EXTENSIONS.items() if lowered.endswith(ext)), None)


def detect(name: str, text: str) -> str:
    """Pick the input format of a file from its name, then its content.

    ``.bib`` -> bibtex, ``.ris`` -> ris, ``.json`` -> csl-json; a ``.md`` file is
    ``markdown`` only when it carries our export marker or has our list's shape
    (:func:`~._markdown_syntax.looks_like_our_list`: the marker deleted), otherwise a
    list of abstracts. Without a telling extension: JSON text -> csl-json, a ``TY  -``
    line -> ris, our marker -> markdown, an ``@type{`` entry -> bibtex, our list's
    shape -> markdown, anything else -> abstracts.
    """
    from readinglist.formats._markdown_syntax import looks_like_our_list

    lowered = name.lower()
    if lowered.endswith(".gz"):
        lowered = lowered[:-3]
    for extension, fmt in _EXTENSIONS.items():
        if lowered.endswith(extension):
            if fmt == "markdown" and _MARKDOWN_MARKER not in text[:2000]:
                return "markdown" if looks_like_our_list(text) else "abstracts"
            if fmt == "abstracts":
                break
            return fmt
    return looks_like(text) or "abstracts"


def looks_like(text: str) -> str | None:
    """The format ``text``'s content shows, whatever its name says: JSON text -> csl-json,
    a ``TY  -`` line -> ris, our export marker -> markdown, an ``@type{`` entry -> bibtex,
    our list's shape with the marker deleted -> markdown; None when none shows (a list of
    abstracts has no mark of its own)."""
    from readinglist.formats._markdown_syntax import looks_like_our_list

    head = text.lstrip()[:1]
    if head in ("[", "{"):
        return "csl-json"
    if _RIS_TAG.search(text[:20000]):
        return "ris"
    if _MARKDOWN_MARKER in text[:2000]:
        return "markdown"
    if _BIBTEX_ENTRY.search(text[:200000]):
        return "bibtex"
    return "markdown" if looks_like_our_list(text) else None


def read(text: str, fmt: str, source: str, **options: Any) -> ParseResult:
    """Read ``text`` in format ``fmt`` (not ``auto``); see each module's ``read``."""
    return reader(fmt)(text, source, **options)


# --- streaming: the same decoding for a file read in pieces (issue 9) ----------------------

#: Bytes of decoded text kept for :func:`detect` (it looks at no more than 200,000 characters).
HEAD_BYTES = 1 << 20
#: Windows-1252 leaves these bytes undefined: text that has one is decoded as Latin-1.
_CP1252_UNDEFINED = (b"\x81", b"\x8d", b"\x8f", b"\x90", b"\x9d")


@dataclass
class Sniffed:
    """What one pass over an input's bytes found, for :func:`iter_decode` and :func:`detect`.

    ``encoding``: ``"utf-8"``, :data:`UTF8_REPLACE`, ``"utf-16"``, ``"cp1252"`` or
    ``"latin-1"``, chosen as :func:`decode`
    chooses; ``warnings``: its warning when the input is not UTF-8; ``head``: the
    first :data:`HEAD_BYTES` bytes decoded with line ends made LF; ``complete``: the
    head is the whole text; ``size``: the bytes read (after decompression);
    ``replaced``: lines whose bad UTF-8 bytes become U+FFFD (:data:`UTF8_REPLACE`);
    ``cleaned``: lines whose NUL bytes are removed (:func:`iter_decode` removes every NUL).
    """

    encoding: str
    warnings: list[ParseProblem] = field(default_factory=list)
    head: str = ""
    complete: bool = False
    size: int = 0
    replaced: int = 0
    cleaned: int = 0


def sniff(chunks: Iterable[bytes], source: str) -> Sniffed:
    """Check an input given as pieces of bytes (already decompressed), as :func:`decode` does.

    Reads every piece once and keeps only the head (and the current line). The
    encoding, decided line by line (issue 18): UTF-8 when every line is UTF-8; when
    some are not, UTF-8 with their bad bytes replaced (:data:`UTF8_REPLACE`, one
    warning naming each such line) if valid multi-byte UTF-8 characters (their
    continuation bytes) outnumber them,
    else the whole file is Latin-1 or Windows-1252 (one warning naming the first bad
    line). ``decode(data)`` and ``"".join(iter_decode(pieces, sniff(pieces).encoding))``
    give the same text for the same bytes.

    Raises InvalidInput, naming ``source``, for empty input or binary data, and,
    naming the line, for a line longer than :func:`max_line_bytes` (not for JSON,
    whose first character is ``[`` or ``{``).
    """
    scan = _Scan(source, max_line_bytes())
    head = bytearray()
    first = True
    first_sample = b""
    utf16 = False
    for chunk in _at_least(chunks, 8192):
        if first:
            first = False
            if chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            elif chunk.startswith((b"\xff\xfe", b"\xfe\xff")):
                utf16 = True  # decoded as UTF-16 below, as decode() does
            sample = chunk[:8192]
            if not utf16 and sample.strip() and _is_binary(sample):
                raise InvalidInput(_BINARY_MESSAGE, source)
            first_sample = b"" if utf16 else sample
            scan.json = chunk.lstrip()[:1] in (b"[", b"{")
        if len(head) < HEAD_BYTES:
            head += chunk[: HEAD_BYTES - len(head)]
        if utf16:
            scan.size += len(chunk)
            scan.blank = scan.blank and not chunk.strip()
        else:
            scan.feed(chunk)
    scan.finish()
    if scan.blank:
        raise InvalidInput("the file is empty", source)
    if _is_binary(first_sample):
        raise InvalidInput(_BINARY_MESSAGE, source)
    sniffed = Sniffed("utf-8")
    if utf16:
        sniffed.encoding = "utf-16"
        sniffed.warnings.append(
            ParseProblem("decoded as UTF-16 (byte-order mark)", source, None, "warning")
        )
    elif scan.bad_lines:
        sniffed.encoding, sniffed.warnings = scan.verdict()
    sniffed.warnings.extend(scan.nul_warnings())
    sniffed.warnings.sort(key=lambda p: (p.line is None, p.line or 0))  # in file order
    sniffed.cleaned = scan.nul_count
    sniffed.size = scan.size
    sniffed.replaced = scan.bad_count if sniffed.encoding == UTF8_REPLACE else 0
    sniffed.complete = scan.size <= HEAD_BYTES
    # A complete head is the whole text: decoded as the pieces will be (bad bytes U+FFFD);
    # a cut one may end inside a character, which is dropped.
    name, _, errors = sniffed.encoding.partition("/")
    text = bytes(head).decode(name, errors=(errors or "replace") if sniffed.complete else "ignore")
    sniffed.head = _lf(text).replace("\x00", "")
    return sniffed


@dataclass
class _Scan:
    """Line-by-line facts :func:`sniff` gathers: size, longest line, bad UTF-8 lines."""

    source: str
    max_line: int
    json: bool = False
    size: int = 0
    blank: bool = True
    lines: int = 0  # complete lines seen
    pending: bytearray = field(default_factory=bytearray)  # the line not yet ended
    bad_lines: list[int] = field(default_factory=list)
    bad_count: int = 0
    good: int = 0  # continuation bytes of valid multi-byte UTF-8 characters
    cp1252_ok: bool = True
    nul_lines: list[int] = field(default_factory=list)
    nul_count: int = 0

    def feed(self, chunk: bytes) -> None:
        """Take the next piece of bytes."""
        self.size += len(chunk)
        if self.blank and chunk.strip():
            self.blank = False
        if self.cp1252_ok and any(b in chunk for b in _CP1252_UNDEFINED):
            self.cp1252_ok = False
        cut = chunk.rfind(b"\n")
        if cut < 0:
            self.pending += chunk
            self._check_length(len(self.pending), self.lines + 1)
            return
        block = bytes(self.pending) + chunk[: cut + 1]
        self.pending = bytearray(chunk[cut + 1 :])
        self._block(block)
        self._check_length(len(self.pending), self.lines + 1)

    def finish(self) -> None:
        """Take the last line (without a line end)."""
        if self.pending:
            self._block(bytes(self.pending))
            self.pending = bytearray()

    def _check_length(self, length: int, line: int) -> None:
        if length > self.max_line and not self.json:
            raise InvalidInput(
                f"line longer than {_mib(self.max_line)} (the longest line readinglist reads); "
                "is this a bibliography?",
                self.source,
                line,
            )

    def _block(self, block: bytes) -> None:
        """Check whole lines: their length, then whether they are UTF-8."""
        if len(block) > self.max_line and not self.json:
            parts = block.split(b"\n")
            longest = max(map(len, parts), default=0)
            if longest > self.max_line:
                index = next(i for i, part in enumerate(parts) if len(part) == longest)
                self._check_length(longest, self.lines + index + 1)
        if not block.isascii():
            try:
                self.good += len(block) - len(block.decode("utf-8"))
            except UnicodeDecodeError:
                self._lines(block.split(b"\n"))
        if b"\x00" in block:
            self._nuls(block.split(b"\n"))
        self.lines += block.count(b"\n")

    def _nuls(self, parts: list[bytes]) -> None:
        for index, part in enumerate(parts):
            if b"\x00" in part:
                self.nul_count += 1
                if len(self.nul_lines) <= SHOW_BAD_LINES:
                    self.nul_lines.append(self.lines + index + 1)

    def nul_warnings(self) -> list[ParseProblem]:
        """One warning per line (the first :data:`SHOW_BAD_LINES`) whose NUL bytes are removed."""
        warnings = [
            ParseProblem("a NUL byte in this line was removed", self.source, line, "warning")
            for line in self.nul_lines[:SHOW_BAD_LINES]
        ]
        if self.nul_count > SHOW_BAD_LINES:
            warnings.append(
                ParseProblem(
                    f"and {self.nul_count - SHOW_BAD_LINES} more lines with NUL bytes, removed",
                    self.source,
                    None,
                    "warning",
                )
            )
        return warnings

    def _lines(self, parts: list[bytes]) -> None:
        for index, part in enumerate(parts):
            if part.isascii():
                continue
            try:
                self.good += len(part) - len(part.decode("utf-8"))
            except UnicodeDecodeError:
                self.bad_count += 1
                if len(self.bad_lines) <= SHOW_BAD_LINES:
                    self.bad_lines.append(self.lines + index + 1)

    def verdict(self) -> tuple[str, list[ParseProblem]]:
        """The encoding and its warnings for an input with lines that are not UTF-8."""
        if self.good > self.bad_count:
            warnings = [
                ParseProblem(
                    "not valid UTF-8: the bad bytes of this line were replaced by U+FFFD",
                    self.source,
                    line,
                    "warning",
                )
                for line in self.bad_lines[:SHOW_BAD_LINES]
            ]
            if self.bad_count > SHOW_BAD_LINES:
                warnings.append(
                    ParseProblem(
                        f"and {self.bad_count - SHOW_BAD_LINES} more lines with bytes that "
                        "are not UTF-8, replaced by U+FFFD",
                        self.source,
                        None,
                        "warning",
                    )
                )
            return UTF8_REPLACE, warnings
        encoding, name = ("cp1252", "Windows-1252") if self.cp1252_ok else ("latin-1", "Latin-1")
        message = f"not valid UTF-8 (first bad byte here); decoded as {name}"
        return encoding, [ParseProblem(message, self.source, self.bad_lines[0], "warning")]


def iter_decode(chunks: Iterable[bytes], encoding: str, source: str = "<input>") -> Iterator[str]:
    """Decode pieces of bytes with ``encoding`` (see :func:`sniff`; :data:`UTF8_REPLACE`
    replaces bad UTF-8 bytes by U+FFFD) into pieces of text.

    Like :func:`decode`: a leading UTF-8 BOM is dropped and CRLF and CR line ends
    become LF, also where a piece ends between ``\\r`` and ``\\n``. Raises
    InvalidInput, naming ``source``, for bytes that are not ``encoding`` (the file
    changed after :func:`sniff` read it).
    """
    try:
        yield from _iter_decode(chunks, encoding)
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"not valid {encoding.partition('/')[0]} text ({exc.reason}); did the file change while it was read?",
            source,
        ) from None


def _iter_decode(chunks: Iterable[bytes], encoding: str) -> Iterator[str]:
    # A UTF-16 file with a stray odd byte at the end gets U+FFFD, not a traceback;
    # UTF8_REPLACE is UTF-8 with U+FFFD for the bad bytes sniff() warned about.
    name, _, errors = encoding.partition("/")
    decoder = codecs.getincrementaldecoder(name)(
        errors or ("replace" if name == "utf-16" else "strict")
    )
    first = True
    carry = ""
    for chunk in _at_least(chunks, 3):
        if first:
            first = False
            if chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
        text = carry + decoder.decode(chunk).replace("\x00", "")
        carry = ""
        if text.endswith("\r"):
            text, carry = text[:-1], "\r"
        if text:
            yield _lf(text)
    text = carry + decoder.decode(b"", final=True).replace("\x00", "")
    if text:
        yield _lf(text)


def _lf(text: str) -> str:
    if "\r" in text:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _at_least(chunks: Iterable[bytes], size: int) -> Iterator[bytes]:
    """Yield the pieces, the first one joined up to at least ``size`` bytes (or all there is)."""
    iterator = iter(chunks)
    first = b""
    for chunk in iterator:
        first += chunk
        if len(first) >= size:
            break
    if first:
        yield first
    yield from iterator


def iter_bytes(
    raw: BinaryIO, source: str, read: Callable[[int], None] | None = None
) -> Iterator[bytes]:
    """Yield the bytes of the open binary file ``raw`` in pieces of :data:`READ_BYTES`,
    decompressed when they are gzip data (``.bib.gz``).

    ``read`` is called with the number of stored bytes read so far (for a progress
    bar). Raises InvalidInput, naming ``source``, for corrupt gzip data (the message
    of :func:`decode`) or a read error.
    """
    gzipped = raw.read(2) == b"\x1f\x8b"
    raw.seek(0)
    stream: BinaryIO = gzip.GzipFile(fileobj=raw) if gzipped else raw  # type: ignore[assignment]
    try:
        while chunk := stream.read(READ_BYTES):
            if read is not None:
                read(raw.tell())
            yield chunk
    except (OSError, EOFError, zlib.error) as exc:
        if gzipped:
            raise InvalidInput(f"corrupt gzip data ({exc})", source) from None
        raise InvalidInput(
            f"cannot read the file ({getattr(exc, 'strerror', exc)})", source
        ) from None
