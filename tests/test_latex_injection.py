"""Issue 18 item 1: values from any source cannot run a command or read a file through LaTeX."""

from __future__ import annotations

import hashlib
import subprocess
from functools import partial
from pathlib import Path

import pytest
from helpers import compile_once, run_steps

from readinglist.formats import bibtex
from readinglist.records import PaperRecord, Person

pytestmark = pytest.mark.tools("bibtex", "pdflatex")


def _compile(folder: Path) -> None:
    """bibtex, then pdflatex -shell-escape twice (the most a user's build would allow), on
    ``folder/refs.bib`` cited whole in the ``plain`` style."""
    (folder / "doc.tex").write_text(
        "\\documentclass{article}\\begin{document}\\nocite{*}"
        "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n"
    )
    run = {"cwd": folder, "capture_output": True, "timeout": 120, "check": False}
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "doc.tex"], **run)  # type: ignore[call-overload]
    assert subprocess.run(["bibtex", "doc"], **run).returncode == 0  # type: ignore[call-overload]
    for _ in range(2):
        subprocess.run(  # type: ignore[call-overload]
            ["pdflatex", "-shell-escape", "-interaction=nonstopmode", "doc.tex"], **run
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
        latex_fields=False,
    )
    bib = bibtex.write([record])
    assert "\\immediate\\write18" not in bib
    (tmp_path / "refs.bib").write_text(bib)
    _compile(tmp_path)
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
    _compile(tmp_path)
    assert [m.name for m in markers if m.exists()] == []


def test_values_from_ris_are_escaped_as_text_in_the_export(invoke, tmp_path: Path) -> None:
    """Escaping by provenance: every RIS value is text, so commands the blacklist of
    ``encode.DANGEROUS`` never knew (``\\pdfmdfivesum file`` reads a file; ``\\x`` after
    ``\\def``) are printed, not run, on both databases, through import and export."""
    out = tmp_path / "tex"
    out.mkdir()
    secret = out / "secret.txt"
    secret.write_text("TOPSECRET4711\n")
    digest = hashlib.md5(secret.read_bytes()).hexdigest().upper()  # what pdfTeX prints
    marker = tmp_path / "PWNED"
    read = "\\message{MD5:\\pdfmdfivesum file{secret.txt}}"  # relative: no _ to escape
    run = f"\\immediate\\write18{{touch {marker}}}"
    ris = tmp_path / "evil.ris"
    ris.write_text(
        "TY  - BOOK\nTI  - Evil\nAU  - Doe, J\nPY  - 2020\n"
        f"PB  - {read}\nCY  - $\\input{{{secret}}}$ # % & ~ ^ _\nVL  - \\def\\x{{1}}\\x\n"
        f"IS  - {run}\nSP  - 1}}{read}{{\nSN  - \\csname input\\endcsname{{{secret}}}\n"
        f"AB  - An abstract with {read} and }} unbalanced {{\nN1  - {run}\n"
        "DO  - 10.1000/\\x{y}\nER  - \n"
    )
    assert invoke("import", str(ris)).exit_code == 0
    result = invoke("export", "bibtex", "-o", str(out / "refs.bib"))
    assert result.exit_code == 0, result.stderr
    bib = (out / "refs.bib").read_text()
    assert "publisher = {\\textbackslash{}message\\{MD5:\\textbackslash{}pdfmdfivesum" in bib
    assert "volume = {\\textbackslash{}def\\textbackslash{}x\\{1\\}\\textbackslash{}x}" in bib
    assert "doi = {10.1000/%5Cxy}" in bib
    _compile(out)
    assert not marker.exists()
    log = (out / "doc.log").read_text(errors="replace")
    assert digest not in log
    assert "TOPSECRET4711" not in log
    assert "TOPSECRET4711" not in (out / "doc.bbl").read_text(errors="replace")


def test_a_file_read_through_pdftex_primitives_is_inert_in_bibtex_values(tmp_path: Path) -> None:
    """A BibTeX source is LaTeX and stays LaTeX, but pdfTeX's file primitives
    (``\\pdfmdfivesum file``, ``\\pdfobj file``) are made text like ``\\input``."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET4711\n")
    digest = hashlib.md5(secret.read_bytes()).hexdigest().upper()
    read = "\\message{MD5:\\pdfmdfivesum file{secret.txt}}\\pdfobj file{secret.txt}"
    record = PaperRecord(  # as read from a .bib: latex_fields True
        citekey="evil",
        entry_type="book",
        title="Evil",
        authors=(Person(family="Doe", given="J"),),
        year=2020,
        fields={"publisher": read},
    )
    (tmp_path / "refs.bib").write_text(bibtex.write([record]))
    _compile(tmp_path)
    assert digest not in (tmp_path / "doc.log").read_text(errors="replace")


@pytest.mark.tools("biber")
def test_pasted_abstracts_typeset_as_they_display_and_hostile_ones_stay_inert(
    invoke, tmp_path: Path
) -> None:
    """The example list's abstracts keep their math as the authors wrote it (``$20\\%$``,
    ``$(\\varepsilon,\\delta)$``), the text around it as ``show`` prints it, and typeset
    without an error in a document that prints abstracts; abstracts whose markup would
    read a file, run a command or stop LaTeX (``$\\input{...}$``, a ``#`` in a URL, a
    trailing ``\\url``, ``\\\\b``) are text, their formulas included."""
    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "tex"
    out.mkdir()
    secret = out / "secret.txt"
    secret.write_text("TOPSECRET4711\n")
    # Relative to the compile's folder: the document is the same bytes on both databases.
    marker = out / "PWNED"
    ris = tmp_path / "evil.ris"
    ris.write_text(
        "TY  - JOUR\nTI  - Evil\nAU  - Doe, J\nPY  - 2020\n"
        f"AB  - Up $20\\%$ and $\\input{{{secret.name}}}$ \\immediate\\write18{{touch {marker.name}}}\n"
        "ER  - \nTY  - JOUR\nTI  - Hashes\nAU  - Roe, R\nPY  - 2021\n"
        "AB  - Code at \\url{https://github.com/a/b#readme}, lines a\\\\b, \\emph{c} \\url\n"
        "ER  - \n"
    )
    assert invoke("import", str(root / "examples" / "icml2026-abstracts.txt")).exit_code == 0
    assert invoke("import", str(ris)).exit_code == 0
    result = invoke("export", "bibtex", "-o", str(out / "refs.bib"))
    assert result.exit_code == 0, result.stderr
    bib = (out / "refs.bib").read_text()
    assert "reduces the collision rate by over $20\\%$ on Waymax" in bib
    assert "$(\\varepsilon,\\delta)$" in bib
    assert "\\ensuremath" not in bib
    assert "Up 20\\% and" in bib
    assert "\\input" not in bib.replace("\\textbackslash{}input", "")
    (out / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{amsmath}"
        "\\usepackage[backend=biber]{biblatex}\\addbibresource{refs.bib}"
        "\\renewbibmacro*{finentry}{\\par\\printfield{abstract}\\finentry}"
        "\\begin{document}\\nocite{*}\\printbibliography\\end{document}\n"
    )
    latex = ("pdflatex", "-shell-escape", "-interaction=nonstopmode", "doc.tex")
    steps = (latex, ("biber", "doc"), latex)
    # The same files compiled on the other database are not compiled again: their outputs
    # (and a marker, were one made) are written back (helpers.compile_once).
    done = compile_once(out, repr(steps), partial(run_steps, out, steps))
    assert done[1].returncode == 0
    log = (out / "doc.log").read_text(errors="replace")
    assert done[2].returncode == 0, log[-2000:]
    assert "Undefined control sequence" not in log
    assert "TOPSECRET4711" not in log
    assert not marker.exists()


def test_a_command_with_its_braces_lost_keeps_its_words_on_export() -> None:
    """PMLR's ICML 2015 file writes ``\\textbfaligned`` and ``\\emphcorrelation`` (the braces
    of ``\\textbf{aligned}`` lost). Such a value is not inert, so the export writes it as
    text; the words stay (``aligned``, ``correlation``), an unknown bare command keeps
    its name, and a command with an argument is still only its text."""
    from readinglist.formats.bibtex.encode import copy_latex

    value = r"can be seen as an \textbfaligned subtree kernel, a \emphcorrelation and \sqrtn"
    assert copy_latex(value, "bibtex") == (
        "can be seen as an aligned subtree kernel, a correlation and sqrtn"
    )
    assert copy_latex(r"\UseName{input}{x} \emph{ok}", "bibtex") == "inputx ok"


def test_a_join_that_may_build_a_command_is_never_copied() -> None:
    """``"\\i" # "nput{x}"`` joins into ``\\input{x}``: each piece is inert, the joined
    value is not. Such an entry text (a library read before the reader checked joined
    values) is not copied as written; joins of plain pieces and macros are."""
    from readinglist.formats.bibtex.inert import join_may_build_command

    assert join_may_build_command('@misc{x, note = "\\i" # "nput{canary}"}', [])
    assert join_may_build_command('@misc{x, note = "^" # "^5cinput{canary}"}', [])
    assert join_may_build_command('@misc{x, note = pre # "nput"}', ["\\i"])
    assert not join_may_build_command('@misc{x, month = jan # "~15"}', ["January"])
    assert not join_may_build_command('@misc{x, note = {\\"o} # "x"}', [])
    assert not join_may_build_command('@misc{x, note = "\\i nput"}', [])


def test_preamble_blocks_are_checked_as_bibtex_joins_them(invoke, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """BibTeX's ``preamble$`` joins every ``@preamble`` block with nothing between: three
    imports' blocks ``\\i``, ``mmediate^`` and ``^5cwrite18{...}`` are each inert but
    together ``\\immediate\\write18{...}``. The export leaves them out and says so."""
    from readinglist.formats.bibtex.inert import preamble_offending

    assert preamble_offending('@preamble{"\\i"}\n@preamble{"nput{canary}"}', {}) == "\\input"
    assert preamble_offending('@preamble{"\\i"}\n@preamble{" x"}', {}) is None
    blocks = ['"\\i"', '"mmediate^"', '"^5cwrite18{touch pwned}"']
    for n, block in enumerate(blocks):
        path = tmp_path / f"p{n}.bib"
        path.write_text(
            f"@preamble{{{block}}}\n@misc{{k{n}, author={{Doe, A}}, title={{T{n}}}, year=2001}}\n",
            encoding="utf-8",
        )
        assert invoke("import", str(path)).exit_code == 0
    out = tmp_path / "out.bib"
    done = invoke("export", "bibtex", "-o", str(out))
    assert done.exit_code == 0, done.output
    assert "@preamble left out: ^^ is not inert LaTeX markup" in done.stderr
    text = out.read_text(encoding="utf-8")
    assert "@preamble" not in text
    assert "write18" not in text


def test_a_tie_in_a_pasted_abstract_stays_a_tie_in_bibtex() -> None:
    """The ICML 2026 list's abstract has ``Optimization~(IFPO)``: ``show`` and Markdown
    print a no-break space, so the BibTeX export writes the tie ``~``, never
    ``\\textasciitilde{}`` (LaTeX printed a tilde); a lone ``~`` stays a literal tilde."""
    from readinglist.formats.bibtex.encode import latex_of_text

    assert latex_of_text("abstract", "Policy Optimization~(IFPO) to") == (
        "Policy Optimization~(IFPO) to"
    )
    assert latex_of_text("abstract", "about ~ 5") == "about \\textasciitilde{} 5"
