"""Import and export formats: decoding input bytes, detecting the format, and the registry.

Each format is a module with ``read(text, source) -> ParseResult`` and/or
``write(records, ...) -> str``; modules are imported only when used, so start-up
stays light. This package never touches the database or the file system: the CLI
reads bytes and hands them to :func:`decode`.
"""

from __future__ import annotations

import gzip
import importlib
import re
import zlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

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
    * a UTF-8 BOM is dropped; CRLF and CR line ends become LF;
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
    if not data.strip():
        raise InvalidInput("the file is empty", source)
    if _is_binary(data):
        raise InvalidInput(
            "this is a binary file, not text (expected BibTeX, RIS, CSL-JSON, "
            "Markdown or a list of abstracts)",
            source,
        )
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
