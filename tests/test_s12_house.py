"""Session 12 defects: each test names the rule and the value it must give."""

from __future__ import annotations

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
