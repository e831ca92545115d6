"""No input breaks an import: fuzzing every reader and the ``import`` command.

* Readers (``readinglist.formats.reader(fmt)`` for abstracts, bibtex, ris, csl-json,
  markdown) get arbitrary text, text shaped like their format, and real files of
  ``../shared/data`` mutated byte by byte (after ``formats.decode``). A reader must
  return a ParseResult (never raise); every problem names the source, and every
  rejection (severity ``error``) and every record has a line inside the text.
* The ``import`` command gets mutated files: it ends with exit 0 or 5, never a
  traceback; each rejection is reported as ``FILE:LINE: ...``; with ``--strict`` a
  failed import writes nothing, and otherwise exactly the papers it reports as added.
* Files that are empty, binary, compressed wrongly, of another format or in an
  unexpected encoding get one clear message naming the file (exit 5).

Hypothesis settings keep each test under ~10 s. ``READINGLIST_FUZZ_SCALE=N``
multiplies every ``max_examples`` by N for a longer campaign.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import string
from pathlib import Path
from typing import Any

import pytest
from helpers import SQLITE_ONLY, shared_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from readinglist import db, formats
from readinglist.errors import InvalidInput, ReadingListError
from readinglist.models import Paper
from readinglist.records import ParseResult

READ_FORMATS = ("abstracts", "bibtex", "ris", "csl-json", "markdown")
EXTENSION = {
    "abstracts": ".txt",
    "bibtex": ".bib",
    "ris": ".ris",
    "csl-json": ".json",
    "markdown": ".md",
}
#: Real files per format (first bytes of each are mutated).
REAL_FILES = {
    "bibtex": ["pmlr-v260-acml2024.bib", "bbt-import-873-user-library.bib", "cdl-bibliography.bib"],
    "ris": ["asreview-pubmed-zotero.ris", "asreview-scopus.ris"],
    "csl-json": ["bbt-1179-library.csl.json"],
    "abstracts": ["icml2026-abstracts.txt", "neurips2023-poster-session1-abstracts.md"],
}
SEED_BYTES = 12_000
SCALE = int(os.environ.get("READINGLIST_FUZZ_SCALE", "1"))
FUZZ = settings(
    max_examples=150 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def check_result(result: Any, text: str, source: str) -> None:
    """The reader contract: a ParseResult whose problems and records point into ``text``."""
    assert isinstance(result, ParseResult)
    lines = text.count("\n") + 1
    for problem in result.problems:
        assert problem.source == source, problem
        assert problem.severity in ("error", "warning"), problem
        if problem.severity == "error":
            assert problem.line is not None, f"a rejection without a line: {problem}"
        if problem.line is not None:
            assert 1 <= problem.line <= lines, (problem, lines)
        assert problem.message.strip()
    for record in result.records:
        assert record.line is not None, record
        assert 1 <= record.line <= lines, (record.line, lines)


def read_checked(fmt: str, text: str, source: str) -> ParseResult:
    """Read ``text`` as ``formats.decode`` would hand it over (line ends as LF) and check."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    result = formats.reader(fmt)(text, source)
    check_result(result, text, source)
    return result


# --- arbitrary and format-shaped text -----------------------------------------------------------

#: Characters that matter to one format or another, mixed into arbitrary text.
SPECIAL = '@{}()=,"#%\\$~^_&[]:*`<>!-\n\t\r\u00a0\u2011\ufeff'
any_text = st.text(
    alphabet=st.one_of(st.characters(), st.sampled_from(list(SPECIAL))), max_size=1500
)

words = st.text(alphabet=string.ascii_letters + string.digits + " -'.é", min_size=0, max_size=30)
braced = st.recursive(
    words, lambda inner: st.tuples(inner, inner).map(lambda t: f"{t[0]}{{{t[1]}}}"), max_leaves=4
)


@st.composite
def bibtex_text(draw: Any) -> str:
    entries = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(
            st.sampled_from(
                [
                    "article",
                    "inproceedings",
                    "book",
                    "misc",
                    "string",
                    "preamble",
                    "comment",
                    "ARTICLE",
                    "xyz",
                    "",
                ]
            )
        )
        key = draw(st.sampled_from(["", "k", "key1", "Smith2020", "a b", "ü", "x,y"]))
        fields = []
        for _ in range(draw(st.integers(0, 6))):
            name = draw(
                st.sampled_from(
                    [
                        "title",
                        "author",
                        "year",
                        "month",
                        "doi",
                        "eprint",
                        "journal",
                        "booktitle",
                        "abstract",
                        "keywords",
                        "url",
                        "editor",
                        "pages",
                        "x",
                    ]
                )
            )
            value = draw(
                st.one_of(
                    braced.map(lambda v: "{" + v + "}"),
                    words.map(lambda v: f'"{v}"'),
                    st.sampled_from(
                        [
                            "2020",
                            "jan",
                            "macro # {x}",
                            "{unclosed",
                            "}",
                            '"',
                            "{A and B and others}",
                            '{\\"o}',
                        ]
                    ),
                )
            )
            fields.append(f"  {name} = {value}")
        opener, closer = draw(st.sampled_from([("{", "}"), ("(", ")"), ("{", ""), ("{", "}}")]))
        entries.append(f"@{kind}{opener}{key},\n" + ",\n".join(fields) + f"\n{closer}")
        if draw(st.booleans()):
            entries.append(draw(words))
    return "\n".join(entries)


@st.composite
def ris_text(draw: Any) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 4))):
        lines.append("TY  - " + draw(st.sampled_from(["JOUR", "CONF", "BOOK", "GEN", "zz", ""])))
        for _ in range(draw(st.integers(0, 8))):
            tag = draw(
                st.sampled_from(
                    [
                        "TI",
                        "T1",
                        "AU",
                        "A1",
                        "PY",
                        "Y1",
                        "DA",
                        "DO",
                        "UR",
                        "AB",
                        "KW",
                        "JO",
                        "T2",
                        "SP",
                        "EP",
                        "ZZ",
                        "ER",
                        "  ",
                        "TY",
                    ]
                )
            )
            sep = draw(st.sampled_from(["  - ", " - ", "  -", "- "]))
            lines.append(f"{tag}{sep}{draw(words)}")
        if draw(st.booleans()):
            lines.append("ER  - ")
    return "\n".join(lines)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def csl_text(draw: Any) -> str:
    items = []
    for _ in range(draw(st.integers(0, 4))):
        item: dict[str, Any] = {}
        for name in draw(
            st.lists(
                st.sampled_from(
                    [
                        "id",
                        "type",
                        "title",
                        "author",
                        "editor",
                        "issued",
                        "DOI",
                        "URL",
                        "abstract",
                        "container-title",
                        "keyword",
                        "note",
                        "custom",
                    ]
                ),
                max_size=6,
            )
        ):
            item[name] = draw(
                st.one_of(
                    json_values,
                    st.just([{"family": "Doe", "given": "Jane"}, {"literal": "ESA"}]),
                    st.just({"date-parts": [[2020, 13, 40]]}),
                    st.just({"raw": "spring 2020"}),
                )
            )
        items.append(item)
    data: Any = draw(st.sampled_from([items, items[:1], items[0] if items else {}, "x", 3]))
    text = json.dumps(
        data, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2]))
    )
    cut = draw(st.integers(0, len(text)))
    return text if draw(st.booleans()) else text[:cut]


@st.composite
def abstracts_text(draw: Any) -> str:
    parts = []
    if draw(st.booleans()):
        parts.append(
            draw(st.sampled_from(["ICML 2026 Papers", "# NeurIPS 2023", "Accepted papers", ""]))
        )
    for _ in range(draw(st.integers(0, 5))):
        para = []
        if draw(st.booleans()):
            para.append(draw(st.sampled_from(["### ", "**", "1. ", ""])) + draw(words).title())
        if draw(st.booleans()):
            para.append(
                draw(st.sampled_from(["**Authors:** ", "Authors: ", ""]))
                + ", ".join(draw(st.lists(words, max_size=4)))
            )
        para.append(" ".join(draw(st.lists(words, max_size=30))))
        if draw(st.booleans()):
            para.append(
                draw(
                    st.sampled_from(
                        [
                            "https://arxiv.org/abs/2401.01234v2",
                            "doi:10.1000/xyz",
                            "https://github.com/a/b",
                            "<details>",
                            "</details>",
                            "[pdf](http://x)",
                        ]
                    )
                )
            )
        parts.append("\n".join(para))
    return "\n\n".join(parts)


@st.composite
def markdown_text(draw: Any) -> str:
    lines = [
        draw(
            st.sampled_from(
                [
                    "<!-- readinglist:markdown v1 -->",
                    "<!-- readinglist:markdown",
                    "",
                    "# Reading list",
                ]
            )
        )
    ]
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            lines.append(
                "## "
                + draw(
                    st.sampled_from(["to-read", "reading", "read", "skipped", "new", "Other", ""])
                )
            )
        else:
            box = draw(st.sampled_from(["- [ ] ", "- [x] ", "- [X] ", "* ", "- "]))
            key = draw(st.sampled_from(["`k1`", "`k 2`", "``", "`", "k3", "`Smith2020`"]))
            tags = " ".join("#" + t for t in draw(st.lists(words, max_size=3)))
            lines.append(f"{box}**{draw(words)}** {key} {tags}")
    return "\n".join(lines)


SHAPED = {
    "bibtex": bibtex_text(),
    "ris": ris_text(),
    "csl-json": csl_text(),
    "abstracts": abstracts_text(),
    "markdown": markdown_text(),
}


@pytest.mark.parametrize("fmt", READ_FORMATS)
@FUZZ
@given(text=any_text)
def test_reader_takes_any_text(fmt: str, text: str) -> None:
    read_checked(fmt, text, f"fuzz{EXTENSION[fmt]}")


@pytest.mark.parametrize("fmt", READ_FORMATS)
@FUZZ
@given(data=st.data())
def test_reader_takes_text_shaped_like_its_format(fmt: str, data: Any) -> None:
    text = data.draw(SHAPED[fmt])
    read_checked(fmt, text, f"shaped{EXTENSION[fmt]}")


# --- mutated real files ---------------------------------------------------------------------------

mutation = st.tuples(
    st.sampled_from(["delete", "duplicate", "byte", "insert", "truncate"]),
    st.floats(0, 1),
    st.integers(1, 400),
    st.sampled_from(
        [
            b"{",
            b"}",
            b"\\",
            b"@",
            b'"',
            b"%",
            b"\n",
            b"\r\n",
            b"TY  - ",
            b"ER  - ",
            b"[",
            b"]",
            b",",
            b"\xff",
            b"\xc3",
            b"\xe9",
            b"\x00",
            b"$",
            b"#",
            b"- [x] ",
            b"\xef\xbb\xbf",
            b"\n\n",
        ]
    ),
)


def mutate(data: bytes, mutations: list[tuple[str, float, int, bytes]]) -> bytes:
    """Apply byte-level mutations: delete or duplicate a span, change a byte, insert, cut."""
    out = bytearray(data)
    for kind, where, length, chunk in mutations:
        if not out:
            break
        i = int(where * (len(out) - 1))
        j = min(len(out), i + length)
        if kind == "delete":
            del out[i:j]
        elif kind == "duplicate":
            out[i:i] = out[i:j]
        elif kind == "byte":
            out[i] = (out[i] + length) % 256
        elif kind == "insert":
            out[i:i] = chunk
        else:
            del out[j:]
    return bytes(out)


def seed(name: str) -> bytes:
    """The first SEED_BYTES bytes of real file ``name`` (skips when it is not available)."""
    return shared_data(name).read_bytes()[:SEED_BYTES]


REAL_CASES = [(fmt, name) for fmt, names in REAL_FILES.items() for name in names]


@pytest.mark.parametrize(("fmt", "name"), REAL_CASES, ids=[n for _, n in REAL_CASES])
@settings(max_examples=80 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations=st.lists(mutation, min_size=1, max_size=8))
def test_reader_takes_mutated_real_files(
    fmt: str, name: str, mutations: list[tuple[str, float, int, bytes]]
) -> None:
    data = mutate(seed(name), mutations)
    try:
        text, warnings = formats.decode(data, name)
    except InvalidInput as exc:
        refused = str(exc)
    else:
        refused = ""
    if refused:
        assert refused.startswith(f"{name}: ")
        return
    for warning in warnings:
        assert warning.source == name
        assert warning.line is not None
    read_checked(fmt, text, name)
    assert formats.detect(name, text) in READ_FORMATS


# --- the import command -----------------------------------------------------------------------------

PROBLEM_LINE = re.compile(r"^(?P<source>.+?):(?P<line>\d+): .+: rejected$")
SUMMARY = re.compile(r"^(?P<source>.+) \((?P<fmt>[a-z-]+)\): (?P<added>\d+) added, ")


def count_papers(url: str) -> int:
    engine = db.make_engine(url)
    with engine.connect() as conn:
        n = int(conn.execute(select(func.count(Paper.id))).scalar() or 0)
    engine.dispose()
    return n


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "lenient"])
@settings(
    max_examples=40 * SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    case=st.sampled_from(REAL_CASES),
    mutations=st.lists(mutation, min_size=1, max_size=6),
    size=st.integers(200, 4000),
)
def test_import_command_on_mutated_files(
    sqlite_url: str,
    runner: Any,
    tmp_path: Path,
    strict: bool,
    case: tuple[str, str],
    mutations: list[tuple[str, float, int, bytes]],
    size: int,
) -> None:
    from readinglist.cli import cli

    fmt, name = case
    path = tmp_path / f"input{EXTENSION[fmt]}"
    path.write_bytes(mutate(seed(name)[:size], mutations))
    before = count_papers(sqlite_url)
    args = ["--db", sqlite_url, "import", str(path)] + (["--strict"] if strict else [])
    result = runner.invoke(cli, args)
    assert result.exit_code in (0, 5), (result.exit_code, result.stderr, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.stderr
    after = count_papers(sqlite_url)
    lines = result.stderr.splitlines()
    rejections = [line for line in lines if line.endswith(": rejected")]
    for line in rejections:
        match = PROBLEM_LINE.match(line)
        assert match is not None, line
        assert match["source"] == str(path)
    if result.exit_code == 5:
        assert lines[-1].startswith("Error: ")
        assert str(path) in result.stderr
    summaries = [m for m in map(SUMMARY.match, lines) if m]
    if strict and result.exit_code == 5:
        assert after == before  # nothing written
    elif summaries:
        assert after - before == int(summaries[0]["added"])  # exactly what it reports
    else:
        assert after == before  # refused before reading: nothing written


# --- bad files, one by one, through the CLI ---------------------------------------------------------

BINARY_MESSAGE = (
    "this is a binary file, not text (expected BibTeX, RIS, CSL-JSON, Markdown or a list of "
    "abstracts)"
)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.bib", b"", "the file is empty"),
        ("blank.txt", b"  \n\n\t\n", "the file is empty"),
        ("picture.bib", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), BINARY_MESSAGE),
        # One NUL is a bad byte (removed with a warning, tests/test_issue15_exchange.py);
        # UTF-16 without a byte-order mark is NULs every other byte: binary.
        ("utf16.ris", "TY  - JOUR\nTI  - A title\nER  - \n".encode("utf-16-le"), BINARY_MESSAGE),
        (
            "broken.bib.gz",
            b"\x1f\x8b\x08\x00garbage",
            "corrupt gzip data (Compressed file ended before the end-of-stream marker was reached)",
        ),
        (
            "cut.bib.gz",
            gzip.compress(b"@article{k, title={T}}\n" * 50)[:40],
            "corrupt gzip data (Compressed file ended before the end-of-stream marker was reached)",
        ),
        ("only-junk.bib", b"this is not bibtex at all\n", "no papers found (read as bibtex)"),
        (
            "ris-as-bib.bib",
            b"TY  - JOUR\nTI  - A title\nER  - \n",
            "no papers found (read as bibtex; its content looks like ris: import it with "
            "--format ris)",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and "." in v else "",
)
def test_bad_files_get_one_clear_message(
    invoke: Any, db_url: str, tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    result = invoke("import", str(path))
    assert result.exit_code == 5
    assert result.stderr == f"Error: {path}: {message}\n"
    assert result.stdout == ""
    assert count_papers(db_url) == 0


@SQLITE_ONLY
def test_missing_file_and_directory(invoke: Any, tmp_path: Path) -> None:
    result = invoke("import", str(tmp_path / "nope.bib"))
    assert (result.exit_code, result.stderr) == (
        5,
        f"Error: {tmp_path / 'nope.bib'}: no such file\n",
    )
    result = invoke("import", str(tmp_path))
    assert (result.exit_code, result.stderr) == (
        5,
        f"Error: {tmp_path}: is a directory, not a file\n",
    )


def test_wrong_format_names_file_and_line_and_writes_nothing(
    invoke: Any, db_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "refs.json"  # BibTeX under a .json name: read as CSL-JSON
    path.write_text("@article{k,\n  title = {T},\n}\n", encoding="utf-8")
    result = invoke("import", str(path), "--strict")
    assert result.exit_code == 5
    assert result.stderr == (  # one line with the format it looks like, not one per entry
        f"Error: {path}: no papers found (read as csl-json; its content looks like bibtex: "
        "import it with --format bibtex)\n"
    )
    assert count_papers(db_url) == 0
    path.write_text("[{oops\n", encoding="utf-8")  # JSON that is broken: its line is named
    result = invoke("import", str(path), "--strict")
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"{path}:1: invalid JSON: ")
    assert lines[0].endswith(": rejected")
    assert lines[-1] == "Error: 1 entry rejected; nothing imported (--strict)"
    assert lines[-2] == (
        f"{path} (csl-json), not written: 0 added, 0 merged, 0 already present, 1 rejected"
    )
    assert count_papers(db_url) == 0


def test_strict_and_dry_run_summaries_say_nothing_was_written(
    invoke: Any, db_url: str, tmp_path: Path
) -> None:
    """A fresh user read "2 added ... 1 rejected" then "nothing imported (--strict)"; and
    `--dry-run` named no paper it would add."""
    path = tmp_path / "refs.bib"
    path.write_text(
        "@article{good1,\n  title = {One},\n  author = {A, B},\n  year = 2020,\n}\n\n"
        "@article{good2,\n  title = {Two},\n  author = {C, D},\n  year = 2021,\n}\n\n"
        "@article{,\n  title = {Broken\n",
        encoding="utf-8",
    )
    strict = invoke("import", str(path), "--strict")
    assert strict.exit_code == 5
    summary = [line for line in strict.stderr.splitlines() if line.startswith(str(path) + " ")]
    assert summary == [
        f"{path} (bibtex), not written: 2 added, 0 merged, 0 already present, 1 rejected"
    ]
    dry = invoke("import", "--dry-run", str(path))
    lines = dry.stderr.splitlines()
    assert "would add good1" in lines
    assert "would add good2" in lines
    assert lines[-1] == "dry run: nothing written"
    assert count_papers(db_url) == 0


def test_latin1_file_is_read_with_a_warning_naming_file_and_line(
    invoke: Any, tmp_path: Path
) -> None:
    path = tmp_path / "latin1.bib"
    path.write_bytes(
        b"@article{k1,\n  title = {Caf\xe9 au lait},\n  author = {M\xfcller, J\xfcrgen},\n"
        b"  year = {2020},\n}\n"
    )
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"warning: {path}:2: not valid UTF-8 (first bad byte here); decoded as Windows-1252"
    )
    shown = json.loads(invoke("show", "k1", "--json").stdout)
    assert shown["title"] == "Café au lait"
    assert shown["authors"] == ["Müller, Jürgen"]


def test_utf16_file_with_byte_order_mark_is_decoded(invoke: Any, tmp_path: Path) -> None:
    path = tmp_path / "utf16.bib"
    path.write_bytes("@article{k, title={H{\\'e}llo Wörld}}\n".encode("utf-16"))
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == f"warning: {path}: decoded as UTF-16 (byte-order mark)"
    assert json.loads(invoke("show", "k", "--json").stdout)["title"] == "Héllo Wörld"


def test_strict_import_with_one_bad_entry_writes_nothing(
    invoke: Any, db_url: str, tmp_path: Path
) -> None:
    good = "".join(f"@article{{g{i},\n  title = {{Good {i}}},\n}}\n\n" for i in range(5))
    path = tmp_path / "mixed.bib"
    path.write_text(good + "@article{bad title = {x}}\n", encoding="utf-8")
    result = invoke("import", str(path), "--strict")
    assert result.exit_code == 5
    assert f"{path}:21: malformed @article entry 'bad'" in result.stderr
    assert count_papers(db_url) == 0
    result = invoke("import", str(path))
    assert result.exit_code == 5
    assert (
        result.stderr.splitlines()[-1]
        == "Error: 1 entry rejected; 5 imported or merged (see above)"
    )
    assert count_papers(db_url) == 5


def test_reader_errors_are_reading_list_errors_only() -> None:
    """A reader may refuse a whole input with a ReadingListError, never anything else."""
    for fmt in READ_FORMATS:
        for text in ("", "\x00", "\ufeff", "{" * 5000, "[" * 5000, "@" * 5000):
            with contextlib.suppress(ReadingListError):
                read_checked(fmt, text, "edge")
