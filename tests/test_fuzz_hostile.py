"""Issue 18's fuzz test: hostile values through every importer, the listing and the exports.

Hypothesis builds one paper from hostile pieces (control characters, NUL, long runs, option-
like citation keys, LaTeX commands that would run a program or read a file, stray braces and
TeX specials) and writes it as BibTeX, RIS, CSL-JSON, our Markdown list and a plain list of
abstracts. For each, through the real command (in-process, on an SQLite file):

* ``import`` ends with an exit code of the documented set (0, or 5 for a rejected entry),
  never a traceback;
* ``list``, ``list --json`` and ``show`` print no raw control character;
* the RIS, CSL-JSON and BibTeX exports import again into a new library with the same
  titles, authors and years (and, for RIS and CSL-JSON, the same abstracts);
* on a few examples, the BibTeX export goes through the real ``bibtex`` and
  ``pdflatex -shell-escape``: nothing runs (no marker file) and no file is read.

``READINGLIST_FUZZ_SCALE=N`` multiplies ``max_examples`` for a longer campaign with new random
examples (the default run is derandomized).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from readinglist import formats
from readinglist.cli import cli
from readinglist.records import PaperRecord, Person
from readinglist.text import readable

SCALE = int(os.environ.get("READINGLIST_FUZZ_SCALE", "1"))
#: Where a payload that ran would leave its mark, and a file that must never be read.
MARKER = Path(tempfile.gettempdir()) / "readinglist-fuzz-PWNED"
SECRET = "TOPSECRET4711"
RAW_CONTROLS = ("\x1b", "\x07", "\x00", "\x08", "\x7f")

_HOSTILE_PIECES = [
    "\x1b[31m",
    "\x07",
    "\x00",
    "\x08",
    "\x7f",
    "\u202e",
    f"\\immediate\\write18{{touch {MARKER}}}",
    "\\input{/etc/passwd}",
    "\\csname input\\endcsname{/etc/passwd}",
    "\\def\\x{1}\\x",
    "^^5cinput{/etc/passwd}",
    "$\\ExplSyntaxOn\\sys_shell_now:n{touch~x}$",
    "{",
    "}",
    "$",
    "%",
    "#",
    "&",
    "_",
    "~",
    "\\",
    "@article{x,",
    "ER  - ",
    '"',
    "--yes",
    "-q",
    "x" * 3000,
]
_hostile = st.lists(
    st.one_of(st.sampled_from(_HOSTILE_PIECES), st.text(min_size=1, max_size=12)),
    min_size=1,
    max_size=5,
).map("".join)
_key = st.one_of(
    st.sampled_from(["--yes", "-q", "-", "--db=/tmp/x", "a b", "k\x1b", "ok2020"]),
    st.from_regex(r"[A-Za-z][A-Za-z0-9:_-]{0,20}", fullmatch=True),
)
_paper = st.fixed_dictionaries(
    {
        "key": _key,
        "title": _hostile.map(lambda t: "Hostile " + t),
        "family": _hostile.map(lambda t: "Doe" + t.replace(",", " ")),
        "abstract": _hostile.map(
            lambda t: "We study hostile input in long abstracts of many words. " * 3 + t
        ),
        "publisher": _hostile,
        "note": _hostile,
    }
)
#: No shrinking: the long pieces make it take minutes; a failure prints its example whole.
#: The suite's run is derandomized (the same examples every time, so it is not flaky for the
#: next change); ``READINGLIST_FUZZ_SCALE`` above 1 draws new ones.
FUZZ = settings(
    derandomize=SCALE == 1,
    max_examples=4 * SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)


def _record(paper: dict[str, str]) -> PaperRecord:
    return PaperRecord(
        citekey=paper["key"],
        entry_type="book",
        title=paper["title"],
        authors=(Person(family=paper["family"], given="Jane"),),
        year=2020,
        abstract=paper["abstract"],
        fields={"publisher": paper["publisher"], "note": paper["note"]},
    )


def _bibtex(paper: dict[str, str]) -> str:
    """Hand-written BibTeX holding the values as they are (it may be malformed: exit 5)."""
    return (
        f"@book{{{paper['key']},\n  title = {{{paper['title']}}},\n"
        f"  author = {{{paper['family']}, Jane}},\n  year = {{2020}},\n"
        f"  publisher = {{{paper['publisher']}}},\n  note = {{{paper['note']}}},\n"
        f"  abstract = {{{paper['abstract']}}}\n}}\n"
    )


def _plain(paper: dict[str, str]) -> str:
    return f"{paper['title']}\n{paper['family']}, Jane\n\n{paper['abstract']}\n"


SOURCES: dict[str, tuple[str, Any]] = {
    "bibtex": (".bib", _bibtex),
    "ris": (".ris", lambda p: formats.writer("ris")([_record(p)])),
    "csl-json": (".json", lambda p: formats.writer("csl-json")([_record(p)])),
    "markdown": (".md", lambda p: formats.writer("markdown")([_record(p)], abstracts=True)),
    "abstracts": (".txt", _plain),
}


def _run(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{args}: {result.exception!r}"
    )
    assert "Traceback" not in result.stderr
    return result


def _papers(db: Path) -> list[tuple[Any, ...]]:
    listed = json.loads(_run(db, "list", "--json").stdout)
    # White space (the ends of an abstract, a no-break space from ``~``) is not kept alike
    # by every reader.
    return sorted(
        (
            " ".join(p["title"].split()),
            tuple(p["authors"]),
            p["year"],
            " ".join((p["abstract"] or "").split()),
        )
        for p in listed
    )


def _check_paper(folder: Path, fmt: str, paper: dict[str, str]) -> Path | None:
    """Import ``paper`` written as ``fmt``; check the listing; return the library, or
    None when the entry was (rightly) rejected."""
    suffix, write = SOURCES[fmt]
    source = folder / f"in{suffix}"
    source.write_text(write(paper), encoding="utf-8")
    db = folder / "lib.db"
    imported = _run(db, "import", "--format", fmt, str(source))
    assert imported.exit_code in (0, 5), imported.stderr
    keys = _run(db, "list", "-k").stdout.split()
    if not keys:
        return None
    for args in (["list"], ["list", "--json"], ["show", keys[0]], ["show", "--json", keys[0]]):
        shown = _run(db, *args)
        assert shown.exit_code == 0, shown.stderr
        assert not any(c in shown.stdout for c in RAW_CONTROLS), (args, shown.stdout)
    assert all(not k.startswith("-") for k in keys), keys  # `list -k | xargs` stays safe
    return db


def _round_trip(folder: Path, db: Path, fmt: str, *, abstracts: bool = True) -> None:
    """Export ``db`` as ``fmt``, import that into a new library: the same papers."""
    out = folder / f"out.{fmt}"
    exported = _run(db, "export", fmt, "-o", str(out))
    assert exported.exit_code == 0, exported.stderr
    again = folder / f"again-{fmt}.db"
    reimported = _run(again, "import", "--format", fmt, str(out))
    assert reimported.exit_code == 0, reimported.stderr
    before, after = _papers(db), _papers(again)
    if fmt == "bibtex" or not abstracts:  # the abstract stays LaTeX when read from BibTeX
        before, after = [p[:3] for p in before], [p[:3] for p in after]
    elif fmt in ("ris", "csl-json"):
        # These exports print the abstract readable (issue 15: LaTeX and --- decoded once,
        # text.readable): the re-imported abstract is that reading of the original.
        before = sorted((*p[:3], " ".join(readable(p[3]).split())) for p in before)
    assert after == before


def _normalized(folder: Path, db: Path) -> Path:
    assert _run(db, "export", "bibtex", "-o", str(folder / "first.bib")).exit_code == 0
    first = folder / "first.db"
    assert _run(first, "import", str(folder / "first.bib")).exit_code == 0
    return first


@pytest.mark.parametrize("fmt", list(SOURCES))
@FUZZ
@given(paper=_paper)
@example(  # found by this test: a 3,000-letter family name made a 3,020-character key
    paper={
        "key": "--yes",
        "title": "Hostile \x1b[31m",
        "family": "Doe" + "x" * 3000,
        "abstract": "We study hostile input in long abstracts of many words. " * 3,
        "publisher": "\x1b[31m",
        "note": "\\input{/etc/passwd}",
    }
)
def test_hostile_values_through_every_importer(fmt: str, paper: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        db = _check_paper(folder, fmt, paper)
        if db is None:
            return
        if fmt == "bibtex":
            # Hand-written BibTeX is LaTeX (an unpaired $ in a name is math, not text): its
            # first export states the data; from there on a round trip changes nothing.
            db = _normalized(folder, db)
        for out in ("ris", "csl-json", "bibtex"):
            # Known, not fixed: a LaTeX abstract with a backslash before a non-ASCII letter
            # (``\\Á``) is written ``\\{\\'A}`` by the bibtex dialect, an escaped brace.
            _round_trip(folder, db, out, abstracts=fmt != "bibtex")


@pytest.mark.tools("bibtex", "pdflatex")
@settings(FUZZ, max_examples=2 * SCALE)
@given(paper=_paper, fmt=st.sampled_from(["ris", "csl-json", "abstracts"]))
def test_hostile_exports_compile_without_running_anything(paper: dict[str, str], fmt: str) -> None:
    MARKER.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        db = _check_paper(folder, fmt, paper)
        if db is None:
            return
        assert _run(db, "export", "bibtex", "-o", str(folder / "refs.bib")).exit_code == 0
        (folder / "doc.tex").write_text(
            "\\documentclass{article}\\begin{document}\\nocite{*}"
            "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n"
        )
        run: dict[str, Any] = {"cwd": folder, "capture_output": True, "timeout": 120}
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "doc.tex"], check=False, **run)
        assert subprocess.run(["bibtex", "doc"], check=False, **run).returncode == 0
        subprocess.run(
            ["pdflatex", "-shell-escape", "-interaction=nonstopmode", "doc.tex"],
            check=False,
            **run,
        )
        assert not MARKER.exists()
        log = (folder / "doc.log").read_text(errors="replace")
        assert "root:x:0:0" not in log  # /etc/passwd never read
        assert "root:x:0:0" not in (folder / "doc.bbl").read_text(errors="replace")
