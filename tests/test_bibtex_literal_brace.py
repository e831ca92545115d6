"""A literal brace written as LaTeX's control symbol (``Thi\\{'ebaux``) that has no
partner: BibTeX counts every brace, so the export writes ``\\textbraceleft{}`` for it,
the pair ``\\{`` replaced whole (before, only the brace was: ``Thi\\\\textbraceleft{}``,
a line break and the word "textbraceleft", and importing the export added a second
paper). bibtex and biber read the export with the right name, and the export of a
whole real library imported back into it adds nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from helpers import require_tools, run_steps, shared_data

from readinglist.formats import bibtex
from readinglist.formats.bibtex.encode import escape_raw

Invoke = Callable[..., Result]

T93 = (
    "@techreport{t93, author = {Sylvie Thi\\{'ebaux and Joachim Hertzberg}, "
    "title={A Stochastic Model of Actions}, institution={ICSI}, year={1993}}\n"
)


@pytest.fixture
def invoke(runner: CliRunner, sqlite_url: str) -> Invoke:
    """``readinglist --db <sqlite_url> ARGS...`` (the rule is not the database's)."""
    from readinglist.cli import cli

    def run(*args: str) -> Result:
        return runner.invoke(cli, ["--db", sqlite_url, *args])

    return run


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("Thi\\{'ebaux", "Thi\\textbraceleft{}'ebaux"),
        ("a \\} b", "a \\textbraceright{} b"),
        ("{a} \\{ b", "{a} \\textbraceleft{} b"),
        # An escaped backslash before the brace: a line break, then a lone brace.
        ("a\\\\{b", "a\\\\\\textbraceleft{}b"),
        ("a{b", "a\\textbraceleft{}b"),
        ("\\{a\\}", "\\{a\\}"),  # balanced: unchanged
    ],
)
def test_an_unmatched_control_symbol_brace_is_replaced_whole(value: str, written: str) -> None:
    assert escape_raw(value, "bibtex") == written


def test_the_export_reads_back_to_the_name_and_adds_nothing(invoke: Invoke, tmp_path: Path) -> None:
    source = tmp_path / "t.bib"
    source.write_text(T93)
    assert invoke("import", str(source)).exit_code == 0
    exported = invoke("export", "bibtex").stdout
    assert "author = {Sylvie Thi\\textbraceleft{}'ebaux and Joachim Hertzberg}" in exported
    (again,) = bibtex.read(exported).records
    (first,) = bibtex.read(T93).records
    assert again.authors == first.authors
    assert again.authors[0].family == "Thi{'ebaux"
    out = tmp_path / "out.bib"
    out.write_text(exported)
    result = invoke("import", str(out))
    assert result.exit_code == 0, result.output
    assert "0 added, 0 merged, 1 already present" in result.stderr
    assert invoke("list", "-k").stdout == "t93\n"


@pytest.mark.slow
def test_bibtex_and_biber_read_the_export_with_the_right_name(
    invoke: Invoke, tmp_path: Path
) -> None:
    require_tools("pdflatex", "bibtex", "biber")
    source = tmp_path / "t.bib"
    source.write_text(T93)
    assert invoke("import", str(source)).exit_code == 0
    for dialect, head, backend in (
        ("bibtex", "", ("bibtex", "d")),
        (
            "biblatex",
            "\\usepackage[backend=biber]{biblatex}\\addbibresource{refs.bib}",
            ("biber", "d"),
        ),
    ):
        folder = tmp_path / dialect
        folder.mkdir()
        (folder / "refs.bib").write_text(invoke("export", dialect).stdout)
        tail = "\\printbibliography" if head else "\\bibliographystyle{plain}\\bibliography{refs}"
        (folder / "d.tex").write_text(
            f"\\documentclass{{article}}{head}\\begin{{document}}\\nocite{{*}}{tail}\\end{{document}}\n"
        )
        run_steps(folder, (("pdflatex", "-interaction=nonstopmode", "d.tex"), backend), 180)
        bbl = (folder / "d.bbl").read_text()
        if dialect == "bibtex":
            assert "Sylvie Thi\\textbraceleft{}'ebaux and Joachim Hertzberg." in bbl
        else:
            assert "family={Thi\\textbraceleft{}'ebaux}," in bbl
            assert "family={Hertzberg}," in bbl
        assert "\\\\" not in bbl


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_a_real_library_export_imported_back_adds_no_paper(
    invoke: Invoke, dialect: str, tmp_path: Path
) -> None:
    """The Better BibTeX user library (entry ``Thiebaux:93`` has ``Thi\\{'ebaux``): its
    export imported into the same library adds no paper."""
    source = shared_data("bbt-import-873-user-library.bib")
    assert invoke("import", str(source)).exit_code == 0
    keys = invoke("list", "-k", "--sort", "key").stdout
    out = tmp_path / "out.bib"
    assert invoke("export", dialect, "-o", str(out)).exit_code == 0
    assert "Thi\\textbraceleft{}'ebaux" in out.read_text()
    result = invoke("import", str(out))
    assert result.exit_code == 0, result.output
    assert re.search(r": 0 added, \d+ merged, \d+ already present, 0 rejected", result.stderr)
    assert invoke("list", "-k", "--sort", "key").stdout == keys
