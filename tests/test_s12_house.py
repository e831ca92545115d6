"""Session 12 defects: each test names the rule and the value it must give."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from readinglist.formats import bibtex
from readinglist.formats.bibtex.fields import decode_text
from readinglist.pipelines import atomic
from readinglist.text import latex_to_unicode, readable


@pytest.mark.parametrize(
    ("latex", "shown"),
    [
        ("On \\emphcorrelation of x", "On correlation of x"),  # \emph{correlation}, braces lost
        ("the \\sqrtn rule", "the sqrtn rule"),  # unknown, no argument: its name as text
        ("\\textbf{S}upport and \\ss", "Support and ß"),  # known commands unchanged
    ],
)
def test_lost_braces_is_part_of_the_one_decoder(latex: str, shown: str) -> None:
    """``latex_fast.lost_braces`` is applied by the decoder itself, so the display text
    (show, Markdown, CSL-JSON, RIS: ``text.latex_to_unicode``, ``text.readable``) and the
    text a BibTeX export writes of a non-inert value (``decode_text``) agree."""
    assert latex_to_unicode(latex) == shown
    assert readable(latex) == shown
    assert decode_text(latex) == shown


def test_combining_accents_are_written_as_latex_accents_in_bibtex(
    invoke: Any, tmp_path: Path
) -> None:
    """The ``bibtex`` dialect is ASCII: a title holding ``e`` + U+0301 (decomposed, as
    some PDFs and macOS file names give it) is written like a precomposed ``é``
    (``{\\'e}``, Unicode normal form C first), and a combining mark with no precomposed
    form (``q`` + U+0301, ``x`` + U+030C) gets its LaTeX accent command."""
    ris = tmp_path / "one.ris"
    title = "Cafe\u0301 and q\u0301 or x\u030c in \u01ff"
    ris.write_text(f"TY  - JOUR\nTI  - {title}\nAU  - Doe, Jane\nPY  - 2020\nER  - \n", "utf-8")
    assert invoke("import", str(ris)).exit_code == 0
    out = tmp_path / "out.bib"
    result = invoke("export", "bibtex", "-o", str(out))
    assert result.exit_code == 0, result.output
    bib = out.read_text("utf-8")
    assert bib.isascii(), bib
    assert "Caf{\\'e} and {\\'{q}} or {\\v{x}} in {\\'{\\o}}" in bib
    assert latex_to_unicode(
        "Caf{\\'e} and {\\'{q}} or {\\v{x}} in {\\'{\\o}}"
    ) == unicodedata.normalize("NFC", title)


def test_a_year_out_of_range_is_kept_as_text_and_warned_about(invoke: Any, tmp_path: Path) -> None:
    """``year = {20215}`` or ``{0}`` gives no year column (four digits), but the text stays
    in the entry's fields (the export writes it back) and the import warns, naming the
    entry's key and line; ``{in press}`` (no number) is a known convention, not warned."""
    bib = tmp_path / "years.bib"
    bib.write_text(
        "@article{k1, title={A}, author={Doe, Jane}, year={20215}}\n\n"
        "@article{k2, title={B}, author={Doe, Jane},\n  year = {0}}\n\n"
        "@article{k3, title={C}, author={Doe, Jane}, year={in press}}\n",
        "utf-8",
    )
    result = invoke("import", str(bib))
    assert result.exit_code == 0, result.output
    assert f"warning: {bib}:1: entry 'k1': year '20215' is not a year of four digits" in (
        result.stderr
    )
    assert f"warning: {bib}:4: entry 'k2': year '0'" in result.stderr
    assert "'k3'" not in result.stderr
    out = tmp_path / "out.bib"
    assert invoke("export", "bibtex", "-o", str(out)).exit_code == 0
    text = out.read_text("utf-8")
    years = [r.fields.get("year") for r in bibtex.read(text).records]
    assert years == ["20215", "0", "in press"]


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ('"\\" # "input"', "\\input"),  # bibtex: "\" is one backslash, then # joins
        ('"a \\" # "b" # {c}', "a \\bc"),
        ('"Schr\\"odinger"', 'Schr\\"odinger'),  # bibtex cannot; the splitter's reading
    ],
)
def test_a_quoted_piece_ends_where_bibtex_ends_it(value: str, read: str) -> None:
    """BibTeX ends a quoted piece at the first ``"`` outside braces (a backslash escapes
    nothing: ``bibtex`` 0.99d writes ``\\input`` for ``title = "\\" # "input"``); the
    entry is read, and the LaTeX allow-list still decides whether it may be copied."""
    result = bibtex.read(f"@article{{k1, title = {value}, author = {{Doe, Jane}}}}\n", "q.bib")
    [record] = result.records
    assert (record.fields.get("title") or record.title) == read
    assert not [p for p in result.problems if p.severity == "error"]


def test_a_backslash_quote_value_is_imported_and_exported_inert(
    invoke: Any, tmp_path: Path
) -> None:
    bib = tmp_path / "q.bib"
    bib.write_text('@article{k1, title = "\\" # "input", author = {Doe, Jane}, year = 2020}\n')
    result = invoke("import", str(bib))
    assert result.exit_code == 0, result.output
    assert "1 added" in result.stderr
    out = tmp_path / "out.bib"
    assert invoke("export", "bibtex", "-o", str(out)).exit_code == 0
    text = out.read_text("utf-8")
    assert "\\input" not in text.replace("\\textbackslash{}input", "")


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_an_export_removes_the_temporary_files_a_killed_export_left_and_says_so(
    invoke: Any, tmp_path: Path
) -> None:
    """A SIGKILLed export leaves ``.NAME.PID.XXXX.tmp`` (nothing can remove it then): the
    next export of the same file removes those of a process that is gone, and those not
    written to for an hour (the process id may have been reused), and says so; a fresh
    one of a live process (an export running now) and other files stay."""
    target = tmp_path / "out.bib"
    gone = tmp_path / f".out.bib.{_dead_pid()}.k1ll.tmp"
    reused = tmp_path / f".out.bib.{os.getpid()}.old1.tmp"
    running = tmp_path / f".out.bib.{os.getpid()}.busy.tmp"
    other = tmp_path / f".other.bib.{_dead_pid()}.k1ll.tmp"
    for path in (gone, reused, running, other):
        path.write_text("half")
    old = time.time() - atomic.STALE_SECONDS - 60
    os.utime(reused, (old, old))
    result = invoke("export", "bibtex", "-o", str(target))
    assert result.exit_code == 0, result.output
    assert not gone.exists()
    assert not reused.exists()
    assert running.exists()
    assert other.exists()
    assert f"{target}: removed 2 temporary files left by an interrupted write" in result.stderr
    again = invoke("export", "bibtex", "-o", str(target))
    assert "temporary file" not in again.stderr


def test_a_kept_profile_says_an_old_cited_key_once_per_changed_set(
    invoke: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``export --aux ... --keep``: the ``.aux`` cites a key that ``rekey`` made old. The
    warning is said when the profile is registered, not again at each refresh after a
    change (its set is the same: ``keeping.SAID`` in the profile's options), and again
    when the set changes (a second old key cited)."""
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", "tester@here")
    bib = tmp_path / "lib.bib"
    bib.write_text(
        "@article{old2020, title={Alpha}, author={Smith, Ann}, year={2020}}\n\n"
        "@article{other2021, title={Beta}, author={Jones, Bo}, year={2021}}\n",
        "utf-8",
    )
    assert invoke("import", str(bib)).exit_code == 0
    assert invoke("rekey", "old2020", "new2020").exit_code == 0
    assert invoke("rekey", "other2021", "new2021").exit_code == 0
    aux = tmp_path / "main.aux"
    aux.write_text("\\relax\n\\citation{old2020}\n\\bibdata{refs}\n", "utf-8")
    refs = tmp_path / "refs.bib"
    said = "cited key 'old2020' is an old key of 'new2020'"
    first = invoke("export", "bibtex", "--aux", str(aux), "-o", str(refs), "--keep")
    assert first.exit_code == 0, first.output
    assert said in first.stderr
    # A change the file shows: the profile is written again, the same warning not said.
    changed = invoke("title", "new2020", "Alpha Two")
    assert changed.exit_code == 0, changed.output
    assert "updated profile 'refs.bib'" in changed.stderr
    assert said not in changed.stderr
    assert "Alpha {Two}" in refs.read_text("utf-8")
    # Another old key cited: a new set, said (both keys) at the next refresh.
    aux.write_text("\\relax\n\\citation{old2020}\n\\citation{other2021}\n", "utf-8")
    again = invoke("title", "new2020", "Alpha Three")
    assert again.exit_code == 0, again.output
    assert said in again.stderr
    assert "'other2021' is an old key of 'new2021'" in again.stderr
    quiet = invoke("title", "new2020", "Alpha Four")
    assert said not in quiet.stderr


ABSTRACT = (
    "A **bold** claim on $[U,2U]$, with $\\alpha_1$ and 2*3*4, *this* word_x_y <b> "
    "and \\textbf{S}upport."
)


def test_markdown_abstracts_keep_math_and_emphasis_and_escape_the_rest() -> None:
    """In the Markdown list an inline formula is kept as written (GitHub and Obsidian
    render ``$...$``), emphasis the abstract wrote in Markdown stays emphasis, and text
    that is not markup is escaped (CommonMark 0.31.2 section 2.4)."""
    from readinglist.formats import markdown
    from readinglist.records import PaperRecord

    text = markdown.write([PaperRecord(citekey="k1", title="T", abstract=ABSTRACT)], abstracts=True)
    quote = next(line for line in text.splitlines() if line.startswith("  > "))
    assert quote == (
        "  > A **bold** claim on $[U,2U]$, with $\\alpha_1$ and 2\\*3\\*4, *this* "
        "word\\_x\\_y \\<b\\> and Support."
    )


@pytest.mark.tools("pandoc")
def test_markdown_abstract_renders_as_meant_by_pandoc() -> None:
    from readinglist.formats import markdown
    from readinglist.records import PaperRecord

    text = markdown.write([PaperRecord(citekey="k1", title="T", abstract=ABSTRACT)], abstracts=True)
    html = subprocess.run(
        ["pandoc", "-f", "gfm+tex_math_dollars", "-t", "html", "--wrap=none"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "<strong>bold</strong>" in html
    assert '<span class="math inline">[<em>U</em>,2<em>U</em>]</span>' in html
    assert "2*3*4, <em>this</em> word_x_y &lt;b&gt; and Support." in html


def test_old_style_declarations_are_not_lost_braces() -> None:
    """``{\\sc am}``, ``{\\bf x}``, ``\\relax``: LaTeX commands without an argument that
    print nothing (``latex_fast.TEXT_DECLARATIONS``) are decoded to nothing, not to their
    names, so ``Why {\\sc am} and {\\sc Eurisko}`` still matches its plain-title copy."""
    assert latex_to_unicode("Why {\\sc am} and {\\bf Eurisko}\\relax{} work") == (
        "Why am and Eurisko work"
    )
