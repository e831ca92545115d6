"""Prefix terms ``doi:...*`` and ``arxiv:...*`` strip the same prefixes as the one identifier
rule (readinglist.identifiers), not a copy of their own (issue 16, "one home per rule")."""

from __future__ import annotations

import pytest

from readinglist import query
from readinglist.identifiers import arxiv_stem, doi_stem
from readinglist.query import Arxiv, Doi


@pytest.mark.parametrize(
    ("typed", "stem"),
    [
        ("10.1145/", "10.1145/"),
        ("DOI:10.1145/", "10.1145/"),
        ("https://doi.org/10.1145/", "10.1145/"),
        ("https://www.doi.org/10.1145/A", "10.1145/a"),
        ("http://dx.doi.org/10.11", "10.11"),
        ("doi:", ""),
    ],
)
def test_doi_stem(typed: str, stem: str) -> None:
    assert doi_stem(typed) == stem


@pytest.mark.parametrize(
    ("typed", "stem"),
    [
        ("2006.", "2006."),
        ("arXiv:HEP-TH/99", "hep-th/99"),
        ("https://arxiv.org/abs/2006.", "2006."),
        ("https://arxiv.org/html/2401.0", "2401.0"),
        ("arxiv:", ""),
    ],
)
def test_arxiv_stem(typed: str, stem: str) -> None:
    assert arxiv_stem(typed) == stem


def test_prefix_terms_use_the_identifier_rule() -> None:
    assert query.parse("doi:https://www.doi.org/10.1145/*") == Doi("10.1145/", prefix=True)
    assert query.parse("arxiv:https://arxiv.org/html/2401.*") == Arxiv("2401.", prefix=True)
