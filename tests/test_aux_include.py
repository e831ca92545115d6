"""``export --aux`` reads the citations of ``\\include``d chapters, as BibTeX does.

LaTeX's ``\\include{chap}`` writes ``\\@input{chap.aux}`` into the main ``.aux`` file and
the chapter's ``\\citation`` lines into ``chap.aux``; BibTeX reads both. The tests run
the real pdflatex and bibtex on such a document. Reading ``.aux`` files touches no
storage rule, so these run on SQLite only.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result


@pytest.fixture
def invoke(sqlite_url: str) -> Callable[..., Result]:
    """``readinglist --db <sqlite_url> ARGS...`` in-process (the conftest's, SQLite only)."""
    from readinglist.cli import cli

    def run(*args: str) -> Result:
        return CliRunner().invoke(cli, ["--db", sqlite_url, *args])

    return run


LIBRARY = """\
@article{mainpaper2020,
  title = {Cited in the Main File},
  author = {Smith, Ann},
  journal = {Journal A},
  year = {2020}
}

@article{chapterpaper2021,
  title = {Cited in a Chapter},
  author = {Jones, Bo},
  journal = {Journal B},
  year = {2021}
}

@article{uncited2022,
  title = {Cited Nowhere},
  author = {Chen, Cy},
  journal = {Journal C},
  year = {2022}
}
"""


def _latex(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*args], cwd=folder, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.tools("pdflatex", "bibtex")
def test_export_aux_follows_include_and_bibtex_finds_every_citation(invoke, tmp_path: Path) -> None:
    source = tmp_path / "lib.bib"
    source.write_text(LIBRARY, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    (tmp_path / "chap.tex").write_text("Chapter text \\cite{chapterpaper2021}.\n", encoding="utf-8")
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\nMain \\cite{mainpaper2020}.\n"
        "\\include{chap}\n\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    first = _latex(tmp_path, "pdflatex", "-interaction=nonstopmode", "main.tex")
    assert (tmp_path / "chap.aux").exists(), first.stdout[-2000:]
    assert "\\@input{chap.aux}" in (tmp_path / "main.aux").read_text(encoding="utf-8")

    result = invoke(
        "export", "bibtex", "--aux", str(tmp_path / "main.aux"), "-o", str(tmp_path / "refs.bib")
    )
    assert result.exit_code == 0, result.stderr
    written = (tmp_path / "refs.bib").read_text(encoding="utf-8")
    assert "@article{chapterpaper2021," in written
    assert "@article{mainpaper2020," in written
    assert "uncited2022" not in written

    run = _latex(tmp_path, "bibtex", "main")
    assert run.returncode == 0, run.stdout
    assert "Warning--I didn't find a database entry" not in run.stdout
    assert "\\bibitem{chapterpaper2021}" in (tmp_path / "main.bbl").read_text(encoding="utf-8")


def test_an_included_aux_file_that_is_missing_is_named(invoke, tmp_path: Path) -> None:
    (tmp_path / "lib.bib").write_text(LIBRARY, encoding="utf-8")
    assert invoke("import", str(tmp_path / "lib.bib")).exit_code == 0
    main = tmp_path / "main.aux"
    main.write_text("\\relax\n\\citation{mainpaper2020}\n\\@input{gone.aux}\n", encoding="utf-8")
    result = invoke("export", "bibtex", "--aux", str(main))
    assert result.exit_code != 0
    assert f"{tmp_path / 'gone.aux'} (named by {main})" in result.stderr
    assert "Traceback" not in result.output


def test_aux_files_that_input_each_other_are_read_once(invoke, tmp_path: Path) -> None:
    (tmp_path / "lib.bib").write_text(LIBRARY, encoding="utf-8")
    assert invoke("import", str(tmp_path / "lib.bib")).exit_code == 0
    (tmp_path / "a.aux").write_text(
        "\\citation{mainpaper2020}\n\\@input{b.aux}\n", encoding="utf-8"
    )
    (tmp_path / "b.aux").write_text(
        "\\citation{chapterpaper2021}\n\\@input{a.aux}\n", encoding="utf-8"
    )
    result = invoke("export", "bibtex", "--aux", str(tmp_path / "a.aux"))
    assert result.exit_code == 0, result.stderr
    assert "@article{chapterpaper2021," in result.stdout
    assert "uncited2022" not in result.stdout
