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
    """Turn the bytes of an input file into text.

    * gzip data (``.bib.gz``) is decompressed;
    * a UTF-8 BOM is dropped; UTF-16 with a BOM is decoded (with a warning);
      CRLF and CR line ends become LF;
    * UTF-8 is tried first; text that is not UTF-8 is decoded as Latin-1
      (Windows-1252 where its extra characters occur) with a warning.

    Returns ``(text, warnings)``. Raises InvalidInput, naming ``source``, for
    empty input, binary data (NUL bytes or mostly control characters) or a
    corrupt gzip stream.
    """
    warnings: list[ParseProblem] = []
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InvalidInput(f"corrupt gzip data ({exc})", source) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        # UTF-16 with a byte-order mark (Windows tools write it): decode it rather than
        # calling it binary for its NUL bytes. Re-encode as UTF-8 for the steps below.
        try:
            data = data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput("not valid UTF-16 despite its byte-order mark", source) from None
        warnings.append(
            ParseProblem("decoded as UTF-16 (byte-order mark)", source, None, "warning")
        )
    if not data.strip():
        raise InvalidInput("the file is empty", source)
    if _is_binary(data):
        raise InvalidInput(_BINARY_MESSAGE, source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        try:
            text = data.decode("cp1252")
            encoding = "Windows-1252"
        except UnicodeDecodeError:
            text = data.decode("latin-1")
            encoding = "Latin-1"
        warnings.append(
            ParseProblem(
                f"not valid UTF-8 (first bad byte here); decoded as {encoding}",
                source,
                line,
                "warning",
            )
        )
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, warnings


def _is_binary(data: bytes) -> bool:
    sample = data[:8192]
    if b"\x00" in sample:
        return True
    control = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    return control > len(sample) * 0.05


def detect(name: str, text: str) -> str:
    """Pick the input format of a file from its name, then its content.

    ``.bib`` -> bibtex, ``.ris`` -> ris, ``.json`` -> csl-json; a ``.md`` file is
    ``markdown`` only when it carries our export marker, otherwise a list of
    abstracts. Without a telling extension: JSON text -> csl-json, a ``TY  -``
    line -> ris, an ``@type{`` entry -> bibtex, our marker -> markdown, anything
    else -> abstracts.
    """
    lowered = name.lower()
    if lowered.endswith(".gz"):
        lowered = lowered[:-3]
    for extension, fmt in _EXTENSIONS.items():
        if lowered.endswith(extension):
            if fmt == "markdown" and _MARKDOWN_MARKER not in text[:2000]:
                return "abstracts"
            if fmt == "abstracts":
                break
            return fmt
    head = text.lstrip()[:1]
    if head in ("[", "{"):
        return "csl-json"
    if _RIS_TAG.search(text[:20000]):
        return "ris"
    if _MARKDOWN_MARKER in text[:2000]:
        return "markdown"
    if _BIBTEX_ENTRY.search(text[:200000]):
        return "bibtex"
    return "abstracts"


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

    ``encoding``: ``"utf-8"``, ``"cp1252"`` or ``"latin-1"``, chosen as :func:`decode`
    chooses; ``warnings``: its warning when the input is not UTF-8; ``head``: the
    first :data:`HEAD_BYTES` bytes decoded with line ends made LF; ``complete``: the
    head is the whole text.
    """

    encoding: str
    warnings: list[ParseProblem] = field(default_factory=list)
    head: str = ""
    complete: bool = False


def sniff(chunks: Iterable[bytes], source: str) -> Sniffed:
    """Check an input given as pieces of bytes (already decompressed), as :func:`decode` does.

    Reads every piece once and keeps only the head. Raises InvalidInput, naming
    ``source``, for empty input or binary data, with :func:`decode`'s messages; a
    non-UTF-8 input gets :func:`decode`'s warning, naming the line of the first bad
    byte. ``decode(data)`` and ``"".join(iter_decode(pieces, sniff(pieces).encoding))``
    give the same text for the same bytes.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    utf8_ok = True
    bad_line = 0
    lines = 0
    cp1252_ok = True
    blank = True
    head = bytearray()
    size = 0
    first = True
    first_sample = b""
    utf16 = False
    for chunk in _at_least(chunks, 8192):
        if first:
            first = False
            if chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            elif chunk.startswith((b"\xff\xfe", b"\xfe\xff")):
                utf16, utf8_ok = True, False  # decoded as UTF-16 below, as decode() does
            sample = chunk[:8192]
            if not utf16 and sample.strip() and _is_binary(sample):
                raise InvalidInput(_BINARY_MESSAGE, source)
            first_sample = b"" if utf16 else sample
        size += len(chunk)
        if blank and chunk.strip():
            blank = False
        if len(head) < HEAD_BYTES:
            head += chunk[: HEAD_BYTES - len(head)]
        if cp1252_ok and any(b in chunk for b in _CP1252_UNDEFINED):
            cp1252_ok = False
        if utf8_ok:
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                utf8_ok = False
                bad_line = lines + chunk[: max(0, exc.start - pending)].count(b"\n") + 1
        lines += chunk.count(b"\n")
    if utf8_ok:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            utf8_ok = False
            bad_line = lines + 1
    if blank:
        raise InvalidInput("the file is empty", source)
    if _is_binary(first_sample):
        raise InvalidInput(_BINARY_MESSAGE, source)
    sniffed = Sniffed("utf-8")
    if utf16:
        sniffed.encoding = "utf-16"
        sniffed.warnings.append(
            ParseProblem("decoded as UTF-16 (byte-order mark)", source, None, "warning")
        )
    elif not utf8_ok:
        sniffed.encoding = "cp1252" if cp1252_ok else "latin-1"
        name = "Windows-1252" if cp1252_ok else "Latin-1"
        sniffed.warnings.append(
            ParseProblem(
                f"not valid UTF-8 (first bad byte here); decoded as {name}",
                source,
                bad_line,
                "warning",
            )
        )
    text = bytes(head).decode(sniffed.encoding, errors="ignore")
    sniffed.complete = size <= HEAD_BYTES
    sniffed.head = _lf(text)
    return sniffed


def iter_decode(chunks: Iterable[bytes], encoding: str, source: str = "<input>") -> Iterator[str]:
    """Decode pieces of bytes with ``encoding`` (see :func:`sniff`) into pieces of text.

    Like :func:`decode`: a leading UTF-8 BOM is dropped and CRLF and CR line ends
    become LF, also where a piece ends between ``\\r`` and ``\\n``. Raises
    InvalidInput, naming ``source``, for bytes that are not ``encoding`` (the file
    changed after :func:`sniff` read it).
    """
    try:
        yield from _iter_decode(chunks, encoding)
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"not valid {encoding} text ({exc.reason}); did the file change while it was read?",
            source,
        ) from None


def _iter_decode(chunks: Iterable[bytes], encoding: str) -> Iterator[str]:
    # A UTF-16 file with a stray odd byte at the end gets U+FFFD, not a traceback.
    decoder = codecs.getincrementaldecoder(encoding)(
        "replace" if encoding == "utf-16" else "strict"
    )
    first = True
    carry = ""
    for chunk in _at_least(chunks, 3):
        if first:
            first = False
            if chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
        text = carry + decoder.decode(chunk)
        carry = ""
        if text.endswith("\r"):
            text, carry = text[:-1], "\r"
        if text:
            yield _lf(text)
    text = carry + decoder.decode(b"", final=True)
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
