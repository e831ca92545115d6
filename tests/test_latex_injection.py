"""Issue 18 item 1: values from any source cannot run a command or read a file through LaTeX."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from readinglist.formats import bibtex
from readinglist.records import PaperRecord, Person

pytestmark = pytest.mark.skipif(
    shutil.which("bibtex") is None or shutil.which("pdflatex") is None,
    reason="needs bibtex and pdflatex",
)


def test_hostile_values_are_inert_under_shell_escape(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET4711\n")
    payload = f"\\immediate\\write18{{touch {marker}}}"
    reader = f"\\input{{{secret}}}"
    record = PaperRecord(  # as a RIS or CSL-JSON import gives it: no source_text
        citekey="evil",
        entry_type="book",
        title="Evil",
        authors=(Person(family="Doe", given="J"),),
        year=2020,
        abstract=payload,
        fields={"publisher": payload, "address": reader, "volume": "^^5cinput{x}", "note": reader},
    )
    bib = bibtex.write([record])
    assert "\\immediate\\write18" not in bib
    (tmp_path / "refs.bib").write_text(bib)
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\begin{document}\\nocite{*}"
        "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n"
    )
    run = {"cwd": tmp_path, "capture_output": True, "timeout": 120, "check": False}
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "doc.tex"], **run)  # type: ignore[call-overload]
    out = subprocess.run(["bibtex", "doc"], **run)  # type: ignore[call-overload]
    assert out.returncode == 0
    for _ in range(2):
        subprocess.run(  # type: ignore[call-overload]
            ["pdflatex", "-shell-escape", "-interaction=nonstopmode", "doc.tex"], **run
        )
    assert not marker.exists()
    for name in ("doc.bbl", "doc.log"):
        assert "TOPSECRET4711" not in (tmp_path / name).read_text(errors="replace")
    assert "secret.txt" in (tmp_path / "doc.bbl").read_text()  # printed as text, not read


def test_urls_and_expl3_are_inert_under_shell_escape(tmp_path: Path) -> None:
    """The hostile-input pass's bypasses: a command inside a URL field, inside a value
    that is one bare URL (written verbatim), and expl3's shell call inside math."""
    markers = [tmp_path / f"PWNED{i}" for i in range(3)]
    # No space: the value stays "one bare URL", which is written verbatim.
    url_payload = f"http://a/{{\\immediate\\write18{{touch${{IFS}}{markers[0]}}}}}"
    note_payload = f"http://a/{{\\immediate\\write18{{touch${{IFS}}{markers[1]}}}}}"
    expl3 = f"$\\ExplSyntaxOn \\sys_shell_now:n {{touch~{markers[2]}}} \\ExplSyntaxOff$"
    records = [
        PaperRecord(
            citekey=f"evil{i}",
            entry_type="misc",
            title=f"Evil {i}",
            authors=(Person(family="Doe", given="J"),),
            year=2020,
            url=url,
            fields={"note": note, "howpublished": url or "x"},
        )
        for i, (url, note) in enumerate([(url_payload, note_payload), (None, expl3)])
    ]
    bib = bibtex.write(records)
    assert "url = {http://a/%7B%5Cimmediate%5Cwrite18%7Btouch$%7BIFS%7D" in bib
    assert "note = {http://a/%7B%5Cimmediate%5Cwrite18%7Btouch$%7BIFS%7D" in bib
    assert "\\ExplSyntaxOn" not in bib
    (tmp_path / "refs.bib").write_text(bib)
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\begin{document}\\nocite{*}"
        "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n"
    )
    run = {"cwd": tmp_path, "capture_output": True, "timeout": 120, "check": False}
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "doc.tex"], **run)  # type: ignore[call-overload]
    assert subprocess.run(["bibtex", "doc"], **run).returncode == 0  # type: ignore[call-overload]
    for _ in range(2):
        subprocess.run(  # type: ignore[call-overload]
            ["pdflatex", "-shell-escape", "-interaction=nonstopmode", "doc.tex"], **run
        )
    assert [m.name for m in markers if m.exists()] == []
