"""Issue 15, "Export must compile", across provenances: a value keeps its meaning.

Found by a fresh user (session 5): a pasted ICML paper completed by the proceedings'
BibTeX exported ``pages = {61234-{}-61256}`` (bibtex prints a hyphen and a dash), and a
RIS record's pages did the same: the plain-text escaping broke BibTeX's range dash.
Fields a BibTeX record brings to a paper whose fields are plain text are now decoded on
the merge, and a page range is always written as BibTeX's range.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from helpers import shared_data

RIS = """\
TY  - JOUR
TI  - A test of pages
AU  - Doe, Jane
PY  - 2020
SP  - 61234
EP  - 61256
T2  - Journal of Tests
ER  - 
"""


def _fields(text: str) -> dict[str, str]:
    return dict(re.findall(r"^  ([a-z]+) = \{(.*)\},?$", text, re.MULTILINE))


def test_a_ris_page_range_is_bibtex_range(invoke: Any, tmp_path: Path) -> None:
    source = tmp_path / "pages.ris"
    source.write_text(RIS, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    for dialect in ("bibtex", "biblatex"):
        out = invoke("export", dialect)
        assert out.exit_code == 0, out.stderr
        assert _fields(out.stdout)["pages"] == "61234--61256"


def test_a_pasted_paper_completed_by_bibtex_exports_its_fields_as_latex(
    invoke: Any, tmp_path: Path
) -> None:
    listed = shared_data("icml2026-abstracts.txt")
    assert invoke("import", str(listed)).exit_code == 0
    abstract = listed.read_text(encoding="utf-8").split("\n\n")[1].strip()
    bib = tmp_path / "proceedings.bib"
    bib.write_text(
        "@InProceedings{pmlr-v300-wang26a,\n"
        "  title = {{SPAR}: Support-Preserving Action Rectification},\n"
        "  author = {Wang, Yibo and Chen, Li},\n"
        "  booktitle = {Proceedings of the 43rd International Conference on Machine Learning},\n"
        "  pages = {1001--1020},\n"
        '  address = {M{\\"u}nchen},\n'
        "  publisher = {PMLR},\n"
        "  year = {2026},\n"
        f"  abstract = {{{abstract}}}\n"
        "}\n",
        encoding="utf-8",
    )
    merged = invoke("import", str(bib))
    assert merged.exit_code == 0, merged.stderr
    assert "1 merged" in merged.stderr
    shown = invoke("show", "--json", "pmlr-v300-wang26a")
    import json

    assert json.loads(shown.stdout)["fields"]["address"] == "München"
    out = invoke("export", "bibtex", "-q", "key:pmlr-v300-wang26a")
    assert out.exit_code == 0, out.stderr
    fields = _fields(out.stdout)
    assert (fields["pages"], fields["address"], fields["publisher"]) == (
        "1001--1020",
        'M{\\"u}nchen',
        "PMLR",
    )


def test_show_prints_a_raw_form_once_as_its_column(invoke: Any, tmp_path: Path) -> None:
    """``show`` of a BibTeX paper printed ``booktitle:`` and ``title: {SPAR}...`` again
    under the Venue and the title (fresh user); a raw form that says more than its
    column (``month = {13--19 Jul}``) is still printed."""
    bib = tmp_path / "one.bib"
    bib.write_text(
        "@inproceedings{wang26a, title = {{SPAR}: Rectification}, author = {Wang, Yibo},\n"
        "  booktitle = {Proceedings of ICML}, year = {2026}, month = {13--19 Jul},\n"
        "  pages = {1--9}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(bib)).exit_code == 0
    lines = invoke("show", "wang26a").stdout.splitlines()
    assert "Venue:       Proceedings of ICML" in lines
    assert [line.split(":")[0] for line in lines if line[:1].islower()] == ["month", "pages"]
