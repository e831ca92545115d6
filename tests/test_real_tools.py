"""Issue 15 "Export must compile": every shared file through the real ``bibtex`` and ``biber``.

For each file in ``../shared/data/``: a BibTeX source is run through ``bibtex`` (style
``plain``, every entry cited) and ``biber --noconf --tool --validate-datamodel`` as it
is, then it (any format) is imported into a fresh library and exported as BibTeX and biblatex. The
BibTeX export goes through ``bibtex`` and ``biber``, the biblatex export through
``biber`` (``bibtex`` styles do not read biblatex's fields). Each export must give no
error and no warning that the source does not give itself, compared as sets of
messages without line numbers:

* a BibTeX source: the export's errors are errors the source gives too (a ``crossref``
  parent missing from the source stays missing in a byte-for-byte copy), and each
  warning is of a class the source gives (:func:`warning_class`: the message without
  the names in it, so ``undefined macro "AAAI-99"`` counts as the source's ``undefined
  macro "AIJ"``: biber stops reading a source at its first syntax error, and reads
  all of the repaired export). When biber stops at an error of the source, its
  warnings are no baseline: the export must then give no biber error, and its biber
  warnings are counted, not compared;
* any source: warnings about data an entry lacks (:data:`MISSING_DATA`: ``empty
  journal in key``, a required field, a malformed ISSN) are the source's, not the
  export's: a RIS or CSL-JSON record without a journal, an abstract without authors,
  or a BibTeX entry the source gave BibTeX no way to read (no key, a syntax error)
  that the import recovered. Every other warning must be of a class the source gives.

A BibTeX file of more than :data:`SLICE` entries is cut to the entries that hold its
constructs (:func:`construct_slice`: every entry type, field, LaTeX command, macro,
``crossref`` parent, non-ASCII and math value... a few times each), deterministically;
the whole files stay in ``benchmarks/fixpoint.py``. An export of more than
:data:`SLICE` entries (a list of abstracts, read whole) goes through ``bibtex`` whole
and through ``biber`` cut the same way (:func:`biber_input`): biber's time grows with
the entries, its messages with the constructs. Set ``READINGLIST_REAL_TOOLS_REPORT=path`` to append one JSON line of counts per
file (entries, errors and warnings, source vs export) for the note.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import BIBER_IDS, compile_once, require_tools, run_biber, shared_data

pytestmark = pytest.mark.tools("bibtex", "biber")

#: A BibTeX file with more entries than this is cut by construct (:func:`construct_slice`):
#: biber's time grows with the entries (about 10 ms of CPU each), not with the constructs.
SLICE = 150
#: The entries a construct slice is chosen from (the first ones of the file).
SCAN = 10000
#: How many entries of each construct a slice keeps.
EACH = 3
#: Files read whole in a few seconds; the others are marked slow.
FAST = {
    "asreview-pubmed-zotero.ris",
    "asreview-scopus.ris",
    "bbt-1179-library.csl.json",
    "icml2026-abstracts.txt",
    "pmlr-v260-acml2024.bib",
}
FILES = [
    "acl-2020.bib",
    "acl-anthology-2021-06.bib.gz",
    "asreview-pubmed-zotero.ris",
    "asreview-scopus.ris",
    "bbt-1179-library.csl.json",
    "bbt-import-873-user-library.bib",
    "bbt-import-mendeley-export.bib",
    "beebe-fisheries-journals.bib.gz",
    "cdl-bibliography.bib",
    "icml2026-abstracts.txt",
    "neurips2023-poster-session1-abstracts.md",
    "pmlr-v244-uai2024.bib",
    "pmlr-v247-colt2024.bib",
    "pmlr-v260-acml2024.bib",
    "pmlr-v37-icml2015.bib",
    "pmlr-v48-icml2016.bib",
]
#: bibtex warnings about data a record lacks (required fields of the style), which a
#: source in another format cannot give: not faults of the export.
MISSING_DATA = re.compile(
    r"^Warning--(empty \S+( and \S+)? in |to sort, need |can't use both author and editor)"
    # biber: a required field the source lacks, a value of the source biber finds
    # malformed, a field the source gives to a type whose data model lacks it.
    r"|^Datamodel: Entry '[^']*': (Missing mandatory field|Invalid ISSN|Invalid field '"
    r"(publisher|booktitle|issn|series)' for entrytype)"
)
#: The one field readinglist writes on purpose that biber's data model lacks: the
#: provisional marks of issue 13 (``readinglist-provisional = {title, key}``), which
#: biber ignores. Allowed by name, so any other unknown field still fails.
OUR_MARKER = re.compile(r"^Datamodel: Entry '[^']*': Field 'readinglist-provisional' invalid")
_ENTRY = re.compile(r"^@", re.MULTILINE)


#: Known gaps, each a strict xfail with its reason (it fails the run once fixed).
KNOWN: dict[str, str] = {}


def _params() -> list[Any]:
    params = []
    for name in FILES:
        marks = [] if name in FAST else [pytest.mark.slow]
        if name in KNOWN:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN[name]))
        params.append(pytest.param(name, marks=marks))
    return params


def source_bytes(path: Path) -> bytes:
    """The file's bytes (a ``.gz`` decompressed); a BibTeX file of more than :data:`SLICE`
    entries cut to its constructs (:func:`construct_slice` of its first :data:`SCAN`). A
    ``.gz`` BibTeX file is decompressed only up to where its block ``SCAN`` (from 0) starts
    (:func:`gzip_head`), not whole (58 and 148 MB for the shared ones)."""
    bib = Path(path.name.removesuffix(".gz")).suffix == ".bib"
    data = gzip_head(path, SCAN if bib else None) if path.suffix == ".gz" else path.read_bytes()
    text = data.decode("utf-8", "replace")
    starts = [m.start() for m in _ENTRY.finditer(text)]
    if not bib or len(starts) <= SLICE:
        return data
    return construct_slice(text[: starts[SCAN]] if len(starts) > SCAN else text).encode("utf-8")


def gzip_head(path: Path, entries: int | None) -> bytes:
    """The decompressed bytes of the gzip file ``path``: all of them, or, when the file
    holds more than ``entries`` ``@`` blocks, those before block ``entries`` (counted
    from 0) starts. A block starts as :data:`_ENTRY` finds it in the decoded text: an
    ``@`` at the start of the file or after a line feed; both are single bytes in UTF-8
    that no decoding error takes in, so the bytes ``\\n@`` are where the text has them.
    Reads the file in chunks of 4 MiB."""
    found: list[int] = []
    data = bytearray()
    with gzip.open(path, "rb") as stream:
        while chunk := stream.read(1 << 22):
            at = max(len(data) - 1, 0)  # a line feed ending the chunk before
            if not data and chunk.startswith(b"@"):
                found.append(0)
            data += chunk
            while entries is not None and len(found) <= entries:
                at = data.find(b"\n@", at) + 1
                if not at:
                    break
                found.append(at)
            if entries is not None and len(found) > entries:
                return bytes(data[: found[entries]])
    return bytes(data)


_HEAD = re.compile(r"@\s*(\w+)\s*[{(]\s*([^,\s]*)")
_FIELD = re.compile(r"^\s*([A-Za-z][\w:.+-]*)\s*=\s*(\S)", re.MULTILINE)
_COMMAND = re.compile(r"\\([A-Za-z]+|[^A-Za-z\s])")
_PARENT = re.compile(r"\b(?:crossref|xdata)\s*=\s*[{\"]\s*([^}\",\s]+)", re.IGNORECASE)
#: Characters whose handling differs between BibTeX, biber and LaTeX.
_MARKS = {
    "$": "math",
    "#": "concatenation",
    "%": "percent",
    "&": "ampersand",
    "~": "tie",
    "{{": "double brace",
    "\t": "tab",
    '"': "quote",
}


def constructs(block: str, keys: set[str]) -> set[str]:
    """The constructs of one ``@`` block of a BibTeX file: its type, each field name, each
    LaTeX command, a value given bare (a macro or a number), non-ASCII text, math, ``#``
    and the other marks of :data:`_MARKS`, a key seen before (``keys``, updated) or with
    odd characters, a field given twice, a missing author, title or year, unbalanced
    braces, a long entry."""
    head = _HEAD.match(block)
    kind, key = (head.group(1).lower(), head.group(2).casefold()) if head else ("?", "")
    found = {f"type {kind}", *(f"command {c}" for c in _COMMAND.findall(block))}
    if key in keys:
        found.add("duplicate key")
    keys.add(key)
    if not key.isascii() or re.search(r"[^\w:./-]", key):
        found.add("odd key")
    fields = _FIELD.findall(block)
    names = [name.lower() for name, _ in fields]
    found |= {f"field {name}" for name in names}
    found |= {f"no {name}" for name in ("author", "title", "year") if name not in names}
    found |= {"bare value" for _, first in fields if first not in '{"'}
    found |= {flag for mark, flag in _MARKS.items() if mark in block}
    if len(names) != len(set(names)):
        found.add("repeated field")
    if not block.isascii():
        found.add("non-ascii")
    if block.count("{") != block.count("}"):
        found.add("unbalanced")
    if len(block) > 4000:
        found.add("long")
    return found


def construct_slice(text: str) -> str:
    """``text`` (a BibTeX file) cut to the blocks that hold its constructs, in their order:
    every ``@string``, ``@preamble`` and ``@comment``, each entry that brings a construct
    (:func:`constructs`) seen fewer than :data:`EACH` times so far, and the ``crossref`` /
    ``xdata`` parents of the entries kept. Deterministic."""
    starts = [m.start() for m in _ENTRY.finditer(text)]
    blocks = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    seen: dict[str, int] = {}
    keys: set[str] = set()
    keep: set[int] = set()
    for index, block in enumerate(blocks):
        found = constructs(block, keys)
        if found & {"type string", "type preamble", "type comment"} or any(
            seen.get(c, 0) < EACH for c in found
        ):
            keep.add(index)
            for construct in found:
                seen[construct] = seen.get(construct, 0) + 1
    parents = {key.casefold() for i in keep for key in _PARENT.findall(blocks[i])}
    for index, block in enumerate(blocks):
        head = _HEAD.match(block)
        if head and head.group(2).casefold() in parents:
            keep.add(index)
    return text[: starts[0] if starts else len(text)] + "".join(blocks[i] for i in sorted(keep))


def bibtex_messages(bib: Path) -> tuple[int, set[str], int, set[str]]:
    """Run ``bibtex`` (style plain, every entry cited) on ``bib``: (error count, error
    messages, warning count, warning messages), messages without line numbers."""
    stem = bib.stem
    bib.with_suffix(".aux").write_text(
        f"\\citation{{*}}\n\\bibdata{{{stem}}}\n\\bibstyle{{plain}}\n", encoding="utf-8"
    )
    subprocess.run(["bibtex", "-terse", stem], cwd=bib.parent, capture_output=True, check=False)
    log = bib.with_suffix(".blg").read_text(encoding="utf-8", errors="replace").splitlines()
    warnings = [line for line in log if line.startswith("Warning--")]
    errors = []
    for index, line in enumerate(log):
        if line.startswith("You've used"):
            break  # the statistics of a non-terse run
        if line.startswith("while executing") and index:
            errors.append(log[index - 1])  # the message of an error in the style's code
        elif "---" in line and not line.startswith(("Warning--", "--line", "while executing")):
            errors.append(line)  # "I was expecting ...---line 7 of file x.bib"
        elif "which doesn't exist" in line:
            # A bad cross reference: "A bad cross reference---entry "child"" (dropped
            # below), then this line naming the missing parent.
            errors.append(line)
    errors = [
        re.sub(r"---line \d+ of file \S+", "", line)
        for line in errors
        if not line.startswith("A bad cross reference")
    ]
    count = re.search(r"\(There (?:was|were) (\d+) error", "\n".join(log))
    return (int(count.group(1)) if count else 0), set(errors), len(warnings), set(warnings)


def biber_messages(bib: Path) -> tuple[set[str], list[str]]:
    """Run ``biber --noconf --tool --validate-datamodel`` on ``bib``
    (:func:`helpers.run_biber`: a fresh biber forked from one that compiled once): (error
    messages, warnings), without the file name. ``--noconf``: no user ``biber.conf`` is
    looked for (biber's own tests' choice: the installed defaults, not a user's; and no
    ``kpsewhich`` run, 25 ms each), so biber reads its ``biber-tool.conf`` only; the
    messages of all 16 shared files and their exports are the same with and without it
    (the errors, the warnings' classes and counts). biber reads a copy, ``data.bib`` in
    the folder ``<bib>.biber`` beside it (made anew), once per text in a test process
    (:func:`helpers.compile_once`: a BibTeX export that is byte for byte the biblatex
    one is not read twice)."""
    folder = bib.with_name(f"{bib.name}.biber")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    shutil.copyfile(bib, folder / "data.bib")
    args = ["--noconf", "--tool", "--validate-datamodel", "--output-file=data.bib.out", "data.bib"]
    out = compile_once(folder, repr(["biber", *args]), lambda: run_biber(args, folder))
    lines = (out.stdout + out.stderr).splitlines()

    def message(line: str) -> str:
        text = re.sub(r"\s*\([^()]*\.bib\)", "", line.split(" - ", 1)[1])
        return re.sub(r"BibTeX subsystem: \S+, line \d+, ", "BibTeX subsystem: ", text)

    errors = {message(line) for line in lines if line.startswith("ERROR - ")}
    warnings = [message(line) for line in lines if line.startswith("WARN - ")]
    return errors, warnings


def biber_input(bib: Path) -> Path:
    """The file biber reads for the export ``bib``: ``bib`` itself, or, past :data:`SLICE`
    entries, its :func:`construct_slice` (every construct of the export a few times)
    written next to it as ``<stem>-constructs.bib``."""
    text = bib.read_text(encoding="utf-8")
    if len(_ENTRY.findall(text)) <= SLICE:
        return bib
    cut = bib.with_name(f"{bib.stem}-constructs.bib")
    cut.write_text(construct_slice(text), encoding="utf-8")
    return cut


def missing_parents(bib_text: str) -> set[str]:
    """The messages bibtex gives for ``crossref`` parents that ``bib_text`` names but does
    not define (the source's own fault, which a byte-for-byte copy keeps)."""
    named = {
        m.casefold() for m in re.findall(r"crossref\s*=\s*[{\"]\s*([^}\"\s]+)", bib_text, re.I)
    }
    defined = {m.casefold() for m in re.findall(r"^\s*@\s*\w+\s*[{(]\s*([^,\s]+)", bib_text, re.M)}
    return {f'refers to entry "{key}", which doesn\'t exist' for key in named - defined}


def _casefold_parents(messages: set[str]) -> set[str]:
    return {m.casefold() if m.startswith("refers to entry") else m for m in messages}


def warning_class(message: str) -> str:
    """A warning without the names in it (entry keys, macro and field names, values):
    ``undefined macro "AAAI-99"`` and ``undefined macro "AIJ"`` are one class, and so are
    ``possible runaway string started at line 15`` and ``... at line 3735``."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\bin \S+$|\bline \d+", "X", message)


def _report(row: dict[str, Any]) -> None:
    target = os.environ.get("READINGLIST_REAL_TOOLS_REPORT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")


@pytest.mark.parametrize("name", _params())
def test_exports_pass_real_bibtex_and_biber(name: str, tmp_path: Path, runner: CliRunner) -> None:
    # One database is enough: what is exported does not depend on it (the round trips of
    # tests/test_issue15_exchange.py run on both).
    from readinglist.cli import cli

    def invoke(*args: str) -> Any:
        return runner.invoke(cli, ["--db", str(tmp_path / "lib.db"), *args])

    path = shared_data(name)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    suffix = Path(name.removesuffix(".gz")).suffix
    source = tmp_path / f"source{suffix}"
    source.write_bytes(source_bytes(path))
    row: dict[str, Any] = {"file": name}
    is_bib = suffix == ".bib"
    src_bibtex: set[str] = set()
    src_biber: set[str] = set()
    biber_stopped = False
    if is_bib:
        errors, error_set, warned, warning_set = bibtex_messages(source)
        biber_errors, biber_warnings = biber_messages(source)
        src_bibtex = error_set | warning_set
        src_bibtex |= missing_parents(source.read_text(encoding="utf-8", errors="replace"))
        src_biber = biber_errors | set(biber_warnings)
        # biber stops at a source's syntax error: its warnings are no baseline then.
        biber_stopped = any("syntax error" in e or "skipping entry" in e for e in biber_errors)
        row["source"] = {
            "entries": len(_ENTRY.findall(source.read_text(encoding="utf-8", errors="replace"))),
            "bibtex_errors": errors,
            "bibtex_warnings": warned,
            "biber_errors": len(biber_errors),
            "biber_warnings": len(biber_warnings),
        }
    src_classes = {warning_class(m) for m in src_bibtex | src_biber}
    imported = invoke("import", str(source))
    assert imported.exit_code == 0, imported.stderr
    for dialect in ("bibtex", "biblatex"):
        out = tmp_path / f"export-{dialect}.bib"
        exported = invoke("export", dialect, "-o", str(out))
        assert exported.exit_code == 0, exported.stderr
        counts: dict[str, int] = {"entries": len(_ENTRY.findall(out.read_text(encoding="utf-8")))}
        new: set[str] = set()
        if dialect == "bibtex":
            errors, error_set, warned, warning_set = bibtex_messages(out)
            counts |= {"bibtex_errors": errors, "bibtex_warnings": warned}
            new |= _casefold_parents(error_set) - _casefold_parents(src_bibtex)
            new |= {
                w
                for w in warning_set
                if warning_class(w) not in src_classes
                and not MISSING_DATA.match(w)
                and not OUR_MARKER.match(w)
            }
        biber_errors, biber_warnings = biber_messages(biber_input(out))
        counts |= {"biber_errors": len(biber_errors), "biber_warnings": len(biber_warnings)}
        new |= biber_errors - src_biber
        if not (is_bib and biber_stopped):
            new |= {
                w
                for w in set(biber_warnings)
                if warning_class(w) not in src_classes
                and not MISSING_DATA.match(w)
                and not OUR_MARKER.match(w)
            }
        counts["new_messages"] = len(new)
        row[dialect] = counts
        assert sorted(new)[:40] == [], f"{dialect} export of {name}"
    _report(row)


def test_a_macro_redefined_between_exported_entries_means_what_each_was_read_with(
    tmp_path: Path,
) -> None:
    """Issue 17: an export writes a ``@string`` again before an entry read with an
    earlier value. bibtex and biber read the blocks in order and take, for each
    entry, the value in effect where it stands, without a warning."""
    from test_formats_bibtex import REDEFINED, REDEFINED_EXPORT

    from readinglist.formats import bibtex

    result = bibtex.read(REDEFINED)
    bib = tmp_path / "redefined.bib"
    bib.write_text(bibtex.write(result.records, strings=result.meta["strings"]), "utf-8")
    assert bib.read_text("utf-8") == REDEFINED_EXPORT
    assert bibtex_messages(bib) == (0, set(), 0, set())
    items = bib.with_suffix(".bbl").read_text("utf-8").split("\\bibitem")[1:]
    notes = {item[item.index("{") + 1 : item.index("}")]: item for item in items}
    assert "{\\em J. First text}, 2002.\n\\newblock Second text." in notes["a2"]
    assert "{\\em J. First text}, 2001.\n\\newblock First text." in notes["b1"]
    assert biber_messages(bib) == (set(), [])
    require_tools("biber")  # pdflatex with biblatex and etoolbox
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage[backend=biber]{biblatex}"
        "\\addbibresource{redefined.bib}\\begin{document}\\nocite{*}"
        "\\printbibliography\\end{document}\n",
        "utf-8",
    )
    subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "doc"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    run = run_biber(["doc"], tmp_path)
    assert [line for line in run.stdout.splitlines() if not line.startswith("INFO")] == []
    bbl = (tmp_path / "doc.bbl").read_text("utf-8")
    fields = {
        key: re.findall(r"\\field\{(note|journaltitle)\}\{([^}]*)\}", body)
        for key, body in re.findall(r"\\entry\{(\w+)\}(.*?)\\endentry", bbl, re.DOTALL)
    }
    assert fields == {
        "a2": [("journaltitle", "J. First text"), ("note", "Second text")],
        "b1": [("journaltitle", "J. First text"), ("note", "First text")],
    }


def test_the_biber_servers_ids_are_data_uniqids() -> None:
    """:data:`helpers.BIBER_IDS` (the base 62 of the ids biber gives names, by native
    integers in the processes :func:`helpers.run_biber` forks) gives what
    ``Data::Uniqid::base62`` gives: on the ids' own shape (microseconds, seconds, a
    process id up to 4194304), on 1 to 18 digits with leading zeros, on the edges of 62's
    powers and of 18 digits, and on what it leaves to the original (19 digits, a sign)."""
    require_tools("biber")
    import random

    draw = random.Random(15)
    values = ["0", "00", "61", "62", "3843", "3844", "9" * 18, "1" * 19, "-62", "6 2"]
    values += [str(62**n + d) for n in range(1, 11) for d in (-1, 0, 1)]
    values += [
        f"{draw.randrange(10**6):06d}{draw.randrange(10**5):05d}{draw.randrange(4194305):06d}"
        for _ in range(200)
    ]
    values += [
        "".join(draw.choice("0123456789") for _ in range(draw.randint(1, 18))) for _ in range(200)
    ]
    compare = (
        "require Data::Uniqid; my $bigint = \\&Data::Uniqid::base62;\n" + BIBER_IDS + "\n"
        "while (my $s = <STDIN>) { chomp $s; my ($a, $b) = ($bigint->($s), "
        'Data::Uniqid::base62($s)); print "$s $a $b\\n" if $a ne $b; print "done\\n" }'
    )
    done = subprocess.run(
        ["perl", "-e", compare], input="\n".join(values) + "\n", capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == ["done"] * len(values)
