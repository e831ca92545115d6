"""The main job end to end, through the installed command (real subprocesses).

Runs ``examples/main-job.sh`` (import the example abstracts, export BibTeX, Markdown and
CSL-JSON) into a temporary directory and checks the committed ``exports/`` are current,
then checks what the user sees: 19 papers, venue ICML, year 2026, whole abstracts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import run_forked

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
EXPORTS = ("icml2026.bib", "icml2026.md", "icml2026.json")


def run(*args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("SOURCE_DATE_EPOCH", None)
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT, **kwargs)


@pytest.fixture(scope="module")
def main_job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("readinglist", path=str(BIN)) is None:
        pytest.fail("the readinglist command is not installed next to the test interpreter")
    out = tmp_path_factory.mktemp("main-job")
    result = run("sh", str(ROOT / "examples" / "main-job.sh"), str(out))
    assert result.returncode == 0, result.stderr
    assert "19 added, 0 merged, 0 already present, 0 rejected" in result.stderr
    return out


@pytest.mark.parametrize("name", EXPORTS)
def test_committed_exports_are_current(main_job: Path, name: str) -> None:
    committed = ROOT / "exports" / name
    assert committed.exists(), f"exports/{name} is missing: run sh examples/main-job.sh"
    assert (main_job / name).read_text(encoding="utf-8") == committed.read_text(encoding="utf-8"), (
        f"exports/{name} is stale: run sh examples/main-job.sh"
    )


#: The bad input files of :func:`test_bad_input_file_exits_5_with_one_line`, by test id:
#: how each is made in a folder, and what its error names.
BAD_INPUTS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "missing": (lambda d: d / "missing.txt", "missing.txt: no such file"),
    "binary": (
        lambda d: _write(d / "image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
        "binary file",
    ),
    "empty": (lambda d: _write(d / "empty.txt", b""), "empty.txt: the file is empty"),
    "header-only": (
        lambda d: _write(d / "header.txt", b"ICML 2026 Papers\n\n"),
        "header.txt: no papers found (read as abstracts)",
    ),
}


#: What the commands of :func:`commands` import, imported once before they are forked.
PRELUDE = "\n".join(
    f"import {module}"
    for module in (
        "readinglist.cli._root",
        "readinglist.cli.import_",
        "readinglist.cli.list_",
        "readinglist.db",
        "readinglist.library",
        "readinglist.pipelines.importing",
    )
)


@pytest.fixture(scope="module")
def commands(main_job: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The commands the tests below check, run once, in order, each a process of its own
    forked from one that imported the command line (:func:`helpers.run_forked`: what the
    installed ``readinglist`` script runs, ``readinglist.cli.main``, without its
    interpreter start each time; the main job itself ran the installed script): ``list
    --json`` and a second import of the main job's library, and an import of each
    :data:`BAD_INPUTS` file into a library of its own (``<id>.db``, to stay unwritten).
    Returns each ``CompletedProcess`` by name, and the bad inputs' folder as ``"bad"``."""
    bad = tmp_path_factory.mktemp("bad-inputs")
    db = str(main_job / "example.db")
    lines = {
        "list": ["--db", db, "list", "--json"],
        "reimport": ["--db", db, "import", str(ROOT / "examples" / "icml2026-abstracts.txt")],
    }
    for name, (make, _) in BAD_INPUTS.items():
        lines[name] = ["--db", str(bad / f"{name}.db"), "import", str(make(bad))]
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("SOURCE_DATE_EPOCH", None)
    done = run_forked(list(lines.values()), bad / "runs", prelude=PRELUDE, env=env)
    return {**dict(zip(lines, done, strict=True)), "bad": bad}


def test_list_json_shows_the_19_papers_with_whole_abstracts(commands: dict[str, Any]) -> None:
    result = commands["list"]
    assert result.returncode == 0, result.stderr
    papers = json.loads(result.stdout)
    text = (ROOT / "examples" / "icml2026-abstracts.txt").read_text(encoding="utf-8")
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()][1:]
    assert len(papers) == 19
    assert [p["abstract"] for p in papers] == paragraphs
    assert {p["venue"] for p in papers} == {"ICML"}
    assert {p["year"] for p in papers} == {2026}
    assert all(p["title"].strip() for p in papers)
    assert all(p["title_provisional"] for p in papers)
    assert len({p["key"].lower() for p in papers}) == 19


def test_reimport_adds_nothing(commands: dict[str, Any]) -> None:
    result = commands["reimport"]
    assert result.returncode == 0, result.stderr
    assert "0 added, 0 merged, 19 already present, 0 rejected" in result.stderr


def test_exported_bibtex_parses_back_into_19_unique_entries(main_job: Path) -> None:
    import bibtexparser

    library = bibtexparser.parse_string((main_job / "icml2026.bib").read_text(encoding="utf-8"))
    assert library.failed_blocks == []
    keys = [entry.key for entry in library.entries]
    assert len(keys) == 19
    assert len(set(keys)) == 19


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_input_file_exits_5_with_one_line(commands: dict[str, Any], name: str) -> None:
    message = BAD_INPUTS[name][1]
    result = commands[name]
    assert result.returncode == 5
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("Error: ")
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (commands["bad"] / f"{name}.db").exists(), "nothing is written for bad input"


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_example_markdown_list_renders_as_a_reading_list() -> None:
    """The committed example list, rendered by a CommonMark parser: one task item per paper,
    each with its bold title, no raw HTML but our marker, no LaTeX left in the abstracts."""
    from markdown_it import MarkdownIt

    text = (ROOT / "exports" / "icml2026.md").read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark").parse(text)
    items = [t for t in tokens if t.type == "list_item_open"]
    assert len(items) == 19
    html = [t.content for t in tokens if t.type == "html_block"]
    assert html == ["<!-- readinglist:markdown v1 group-by=status decided=none -->\n"]
    inline = [t for t in tokens if t.type == "inline"]
    titles = [  # the first strong span of each task line (abstracts may hold bold too)
        t.children[[c.type for c in t.children].index("strong_open") + 1].content
        for t in inline
        if t.children and t.content.startswith(("[ ] **", "[x] **"))
    ]
    assert "SPAR: Support-Preserving Action Rectification" in titles
    assert len(titles) == 19
    quotes = " ".join(t.content for t in inline if t.map and "\\textbf" in t.content)
    assert quotes == ""
    rendered = MarkdownIt("commonmark").render(text)
    assert "<script" not in rendered
    assert "we propose Support-Preserving Action Rectification (SPAR)" in rendered
