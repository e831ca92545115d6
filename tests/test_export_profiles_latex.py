"""A real paper kept current by export profiles: after each step of a scripted session
(import, resolve, rekey, a new citation) one document is compiled with ``bibtex`` and
one with ``biber``, and every citation is found; on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import re
import subprocess
from pathlib import Path

import pytest
from helpers import run_biber

#: Fails with one line naming what is missing (tests/conftest.py), never skips.
pytestmark = pytest.mark.tools("pdflatex", "bibtex", "biber")

START_BIB = r"""
@proceedings{nips2017,
  title = {Advances in Neural Information Processing Systems 30},
  editor = {Guyon, Isabelle and von Luxburg, Ulrike},
  publisher = {Curran Associates},
  year = {2017}
}

@inproceedings{vaswani2017,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam},
  pages = {5998--6008},
  crossref = {nips2017}
}

@article{he2016,
  title = {Deep Residual Learning for Image Recognition},
  author = {He, Kaiming and Zhang, Xiangyu},
  journal = {CVPR},
  year = {2016}
}

@article{lecun1998,
  title = {Gradient-Based Learning Applied to Document Recognition},
  author = {LeCun, Yann and Bottou, L{\'e}on},
  journal = {Proceedings of the IEEE},
  volume = {86},
  year = {1998}
}
"""

COMPLETION_BIB = r"""
@article{he2016cvpr,
  title = {Deep Residual Learning for Image Recognition},
  author = {He, Kaiming and Zhang, Xiangyu},
  journal = {CVPR},
  year = {2016},
  pages = {770--778},
  doi = {10.1109/CVPR.2016.90}
}
"""

BIBTEX_DOC = r"""\documentclass{article}
\begin{document}
CITES
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
"""

BIBER_DOC = r"""\documentclass{article}
\usepackage[backend=biber]{biblatex}
\addbibresource{brefs.bib}
\begin{document}
CITES
\printbibliography
\end{document}
"""


def tex(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args),
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def write_docs(folder: Path, cites: list[str]) -> None:
    line = " ".join(rf"\cite{{{key}}}" for key in cites)
    (folder / "main.tex").write_text(BIBTEX_DOC.replace("CITES", line), encoding="utf-8")
    (folder / "bmain.tex").write_text(BIBER_DOC.replace("CITES", line), encoding="utf-8")


#: The ``.tex`` bytes each document's ``.aux`` (and ``.bcf``) was last written from, by
#: folder and name: LaTeX's first run before ``bibtex``/``biber`` only writes them again.
AUX_OF: dict[tuple[Path, str], bytes] = {}


def latex(folder: Path, name: str) -> None:
    result = tex(folder, "pdflatex", "-interaction=nonstopmode", "-halt-on-error", name)
    assert result.returncode == 0, result.stdout[-2000:]
    AUX_OF[folder, name] = (folder / f"{name}.tex").read_bytes()


#: Digests of the documents (the .tex and .bib files) compiled cleanly in this process: the
#: same bytes compile the same way, so the run on the second database compiles only what
#: differs from the first (each step's files are compared by content, not skipped blindly).
COMPILED: set[str] = set()


def _digest(folder: Path, name: str) -> str:
    files = (f"{name}.tex", "refs.bib" if name == "main" else "brefs.bib")
    return hashlib.sha256(b"\0".join((folder / f).read_bytes() for f in files)).hexdigest()


def compile_both(folder: Path) -> None:
    """Compile both documents to the end and assert every citation was found (a document
    whose exact bytes already compiled cleanly in this run is not compiled again; the
    first LaTeX run is left out when the ``.aux`` is that of the same ``.tex``). Both
    take two LaTeX runs after bibtex or biber: biblatex's first run after biber still
    says "There were undefined references" with every citation in the ``.bbl``."""
    for name, tool, missing in (
        ("main", "bibtex", r"I didn't find a database entry"),
        ("bmain", "biber", r"didn't find a database entry|ERROR"),
    ):
        digest = _digest(folder, name)
        if digest in COMPILED:
            continue
        if AUX_OF.get((folder, name)) != (folder / f"{name}.tex").read_bytes():
            latex(folder, name)
        result = tex(folder, tool, name) if tool == "bibtex" else run_biber([name], folder, 300)
        log = (folder / f"{name}.blg").read_text(encoding="utf-8", errors="replace")
        assert result.returncode == 0, (tool, result.stdout, log)
        assert not re.search(missing, log), (tool, log)
        latex(folder, name)
        latex(folder, name)
        final = (folder / f"{name}.log").read_text(encoding="utf-8", errors="replace")
        assert not re.search(r"Citation .* undefined", final), (name, final[-3000:])
        assert not re.search(r"There were undefined (references|citations)", final), name
        COMPILED.add(digest)


def test_real_document_compiles_after_each_step(invoke, db_url, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", "writer@desk")
    source = tmp_path / "start.bib"
    source.write_text(START_BIB, encoding="utf-8")
    paper = tmp_path / "paper"
    paper.mkdir()

    # import
    assert invoke("import", str(source)).exit_code == 0
    write_docs(paper, ["vaswani2017", "he2016"])
    latex(paper, "main")
    latex(paper, "bmain")
    for args in (
        ("bibtex", "--aux", str(paper / "main.aux"), "-o", str(paper / "refs.bib")),
        ("biblatex", "--aux", str(paper / "bmain.aux"), "-o", str(paper / "brefs.bib")),
    ):
        result = invoke("export", *args, "--keep")
        assert result.exit_code == 0, result.stderr
    refs = (paper / "refs.bib").read_text(encoding="utf-8")
    assert "@proceedings{nips2017," in refs  # the crossref parent came with its child
    assert "lecun1998" not in refs  # not cited
    compile_both(paper)

    # resolve: the cited paper is completed; both files follow at once.
    completion = tmp_path / "completion.bib"
    completion.write_text(COMPLETION_BIB, encoding="utf-8")
    result = invoke("resolve", "key:he2016", "--from", str(completion))
    assert result.exit_code == 0, result.stderr
    assert "updated profile 'refs.bib'" in result.stderr
    assert "updated profile 'brefs.bib'" in result.stderr
    assert "doi = {10.1109/cvpr.2016.90}" in (paper / "refs.bib").read_text(encoding="utf-8")
    compile_both(paper)

    # rekey: the document still cites the old key, and still compiles.
    result = invoke("rekey", "he2016", "he2016deep")
    assert result.exit_code == 0, result.stderr
    assert "@article{he2016deep," in (paper / "refs.bib").read_text(encoding="utf-8")
    assert "ids = {he2016}" in (paper / "brefs.bib").read_text(encoding="utf-8")
    compile_both(paper)

    # The writer cites one more paper: LaTeX writes the .aux, --refresh follows it.
    write_docs(paper, ["vaswani2017", "he2016deep", "lecun1998"])
    latex(paper, "main")
    latex(paper, "bmain")
    result = invoke("export", "--refresh")
    assert result.exit_code == 0, result.stderr
    assert "@article{lecun1998," in (paper / "refs.bib").read_text(encoding="utf-8")
    compile_both(paper)
