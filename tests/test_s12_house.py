"""Session 12 defects: each test names the rule and the value it must give."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest

from readinglist.formats.bibtex.fields import decode_text
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
    title = "Cafe\u0301 and q\u0301 or x\u030c"
    ris.write_text(f"TY  - JOUR\nTI  - {title}\nAU  - Doe, Jane\nPY  - 2020\nER  - \n", "utf-8")
    assert invoke("import", str(ris)).exit_code == 0
    out = tmp_path / "out.bib"
    result = invoke("export", "bibtex", "-o", str(out))
    assert result.exit_code == 0, result.output
    bib = out.read_text("utf-8")
    assert bib.isascii(), bib
    assert "Caf{\\'e} and {\\'{q}} or {\\v{x}}" in bib
    assert latex_to_unicode("Caf{\\'e} and {\\'{q}} or {\\v{x}}") == unicodedata.normalize(
        "NFC", title
    )
