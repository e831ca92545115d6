"""Issue 15, found by a hostile probe with inputs in other tools' shapes: exact values.

Each test is one fault the probe found: plain-text page ranges written ``1-{}-25``;
biblatex-only ``date``/``journaltitle`` copied into a BibTeX export; a lone ``$`` read
as math and dropped; OpenReview's unbracketed "ICLR 2024 poster" venue; an arXiv
listing mail's folded title line, nested affiliations and "replaced with revised
version" line; a PubMed group author after ``;`` and a "Comment on" paragraph.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from readinglist.formats import bibtex
from readinglist.formats.abstracts import read
from readinglist.formats.bibtex.fields import decode_text
from readinglist.records import PaperRecord

FIXTURES = Path(__file__).resolve().parent / "data" / "abstracts"


def names(record: PaperRecord) -> list[str]:
    return [p.display() for p in record.authors]


def test_plain_text_page_ranges_keep_their_dash_in_bibtex(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    (tmp_path / "p.ris").write_text(
        "TY  - JOUR\nAU  - Roy, Ana\nTI  - Pages\nT2  - J\nPY  - 2020\nSP  - 1\nEP  - 25\nER  - \n",
        encoding="utf-8",
    )
    (tmp_path / "c.json").write_text(
        '[{"id": "c", "type": "article-journal", "title": "Other pages", "page": "429-452",'
        ' "author": [{"family": "Kim", "given": "Jo"}]}]',
        encoding="utf-8",
    )
    for name in ("p.ris", "c.json"):
        assert invoke("import", str(tmp_path / name)).exit_code == 0
    for dialect in ("bibtex", "biblatex"):
        written = invoke("export", dialect)
        assert written.exit_code == 0, written.output
        assert "  pages = {1--25}\n" in written.stdout
        assert "  pages = {429--452}\n" in written.stdout
    # A BibTeX source's own pages are LaTeX: generated (a tag to merge), they stay.
    source = bibtex.read(
        "@article{b, title = {T}, author = {A, B}, journal = {J}, year = 2020,\n"
        "  pages = {7-{}-9}}\n",
        "b.bib",
    ).records
    tagged = [dataclasses.replace(source[0], tags=("x",))]
    assert "  pages = {7-{}-9},\n" in bibtex.write(tagged, keywords=True)


def test_bibtex_export_writes_year_month_and_journal_for_biblatex_fields() -> None:
    text = (
        "@article{approx,\n  title = {Approximate},\n  author = {Lee, Kim},\n"
        "  journaltitle = {J. Old},\n  date = {1723~},\n}\n\n"
        "@article{ranged,\n  title = {Ranged},\n  author = {Wong, A.},\n"
        "  journaltitle = {J. Ranges},\n  date = {2019-03/2020-05},\n}\n"
    )
    records = bibtex.read(text, "d.bib").records
    written = bibtex.write(records)
    # Only what BibTeX cannot read changes, in place: journaltitle -> journal, date ->
    # year (and month); the field order and layout are the entry's own.
    assert written == (
        "@article{approx,\n  title = {Approximate},\n  author = {Lee, Kim},\n"
        "  journal = {J. Old},\n  year = {1723},\n}\n\n"
        "@article{ranged,\n  title = {Ranged},\n  author = {Wong, A.},\n"
        "  journal = {J. Ranges},\n  year = {2019},\n  month = mar,\n}\n"
    )
    # The biblatex export copies the user's bytes.
    assert bibtex.write(records, dialect="biblatex") == text


def test_a_dollar_sign_without_partner_is_text() -> None:
    assert decode_text("The cost is $5 per unit") == "The cost is $5 per unit"
    assert decode_text("a $x^2$ and $5") == "a x^2 and $5"
    assert decode_text("$x$ only") == "x only"
    record = bibtex.read("@article{d, title = {The cost is $5 per unit}}\n", "d.bib").records[0]
    assert record.title == "The cost is $5 per unit"
    assert "title = {The cost is \\$5 per unit}" in bibtex.write([record])


def test_openreview_venue_label_with_the_presentation_after_the_year() -> None:
    text = (
        "## [12] Understanding In-Context Learning\n\n"
        "**Authors**: *Xiaochuang Han, Daniel Simig*\n\n"
        "**Venue**: *ICLR 2024 poster*\n\n"
        "**Abstract**: We study in-context learning.\n\n---\n\n"
        "## [13] Sparse Autoencoders Find Features\n\n"
        "**Authors**: *Robert Huben, Lee Sharkey*\n\n"
        "**Venue**: *NeurIPS 2023 Spotlight*\n\n"
        "**URL**: [https://doi.org/10.48550/arXiv.2309.08600](https://doi.org/10.48550/arXiv.2309.08600)\n\n"
        "**Abstract**: We find features.\n"
    )
    records = read(text, "openreview.md").records
    assert [(r.title, r.venue, r.year, r.arxiv, r.doi) for r in records] == [
        ("Understanding In-Context Learning", "ICLR", 2024, None, None),
        (
            "Sparse Autoencoders Find Features",
            "NeurIPS",
            2023,
            "2309.08600",
            "10.48550/arxiv.2309.08600",
        ),
    ]


def test_arxiv_mail_folded_lines_affiliations_and_replacements() -> None:
    result = read((FIXTURES / "arxiv-mail-folded.txt").read_text(encoding="utf-8"), "mail.txt")
    got = [(r.title, names(r), r.arxiv, r.doi, r.abstract) for r in result.records]
    assert got == [
        (
            "Scaling Laws for Sparse Mixture-of-Experts & Friends",
            ["Zhang, Alice", "Li, Bob", "Wang, Carol"],
            "2401.01234",
            None,
            "We study scaling laws for sparse mixture-of-experts models. We find that\n"
            "the optimal number of experts grows as 10^3 with compute, and that 50% of\n"
            "tokens suffice.",
        ),
        (
            "A Note on Stochastic Gradient Descent with Very Long Titles That Wrap Onto"
            " A Second Line",
            ["Evans, D.", "Garcia, E. F."],
            "2401.01300",
            "10.1137/23m1234567",
            "We give a short proof. The proof uses a new lemma.",
        ),
        ("Old style string theory paper", ["Hoyle, F."], "hep-th/9901001", None, None),
    ]
    assert result.records[2].fields["list_date"] == "Thu, 4 Jan 2024 10:00:00 GMT   (20kb)"


def test_pubmed_group_author_and_comment_on() -> None:
    text = (
        "1. Bioinformatics. 2021 Dec 7;38(1):1-8. doi: 10.1093/bioinformatics/btab500.\n\n"
        "A tool for sequence alignment.\n\n"
        "Garcia M(1), Chen L(2); Consortium Investigators.\n\n"
        "Author information:\n(1)Dept A.\n(2)Dept B.\n\n"
        "The abstract of the tool paper.\n\n"
        "PMID: 34370000\n\n\n"
        "2. Lancet. 2019 Sep 14;394(10202):929-931. doi: 10.1016/S0140-6736(19)31500-1.\n\n"
        "Global burden of disease: a commentary.\n\nLee K.\n\n"
        "Comment on\n    Lancet. 2019 Aug 10;394(10197):440-441.\n\n"
        "PMID: 31450000\n"
    )
    first, second = read(text, "pubmed.txt").records
    assert names(first) == ["Garcia, M.", "Chen, L.", "Consortium Investigators"]
    assert first.authors[2].literal == "Consortium Investigators"
    assert first.abstract == "The abstract of the tool paper."
    assert (second.title, names(second), second.abstract) == (
        "Global burden of disease: a commentary",
        ["Lee, K."],
        None,
    )
