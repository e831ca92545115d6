"""The one DOI and arXiv rule (readinglist.identifiers) and every reader that relies on it."""

from __future__ import annotations

import pytest

from readinglist.formats import bibtex, csljson, ris
from readinglist.identifiers import (
    arxiv_year_month,
    find_doi,
    is_doi_url,
    normalize_arxiv,
    normalize_doi,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("10.1000/ABC", "10.1000/abc"),
        ("doi:10.1000/ABC", "10.1000/abc"),
        ("DOI: 10.1000/ABC", "10.1000/abc"),
        ("https://doi.org/10.1000/ABC", "10.1000/abc"),
        ("https://www.doi.org/10.1000/ABC", "10.1000/abc"),
        ("http://dx.doi.org/10.1000/ABC", "10.1000/abc"),
        ("https://doi.acm.org/10.1145/3292500.3330701", "10.1145/3292500.3330701"),
        ("//doi.org/10.1000/abc", "10.1000/abc"),
        ("doi: https://doi.org/10.1000/abc", "10.1000/abc"),
        ("https://doi.org/10.1000%2Fabc%28x%29", "10.1000/abc(x)"),
        ("10.1000/a\\_b", "10.1000/a_b"),
        ("\\url{https://doi.org/10.1000/abc}", "10.1000/abc"),
        ("10/bc3k", "10/bc3k"),
        ("10.1000/abc.", "10.1000/abc"),
        ("10.1016/0370-2693(82)", "10.1016/0370-2693(82)"),
        ("(10.1000/abc)", "10.1000/abc"),
        ("see 10.1000/abc.", "10.1000/abc"),
        ("not a doi", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_doi_accepts_every_common_form(raw: str | None, expected: str | None) -> None:
    assert normalize_doi(raw) == expected


def test_find_doi_searches_prose_but_never_takes_a_short_doi() -> None:
    assert find_doi("published as 10.1000/XYZ, see there") == "10.1000/xyz"
    assert find_doi("10/20 patients") is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2401.01234v2", "2401.01234"),
        ("arXiv:2401.01234", "2401.01234"),
        ("https://arxiv.org/abs/2401.01234", "2401.01234"),
        ("https://arxiv.org/pdf/2401.01234v1.pdf", "2401.01234"),
        ("hep-th/9901001", "hep-th/9901001"),
        ("math.GT/0309136", "math.GT/0309136"),
        ("nothing", None),
    ],
)
def test_normalize_arxiv(raw: str, expected: str | None) -> None:
    assert normalize_arxiv(raw) == expected


def test_is_doi_url() -> None:
    assert is_doi_url("https://www.doi.org/10.1000/x")
    assert is_doi_url("http://dx.doi.org/10.1000/x")
    assert not is_doi_url("https://example.org/10.1000/x")
    assert not is_doi_url("https://doi.org/about")


WWW_DOI = "https://www.doi.org/10.1000/ABC"


def test_bibtex_reader_keeps_a_www_doi_org_doi() -> None:
    result = bibtex.read(f"@article{{a,\n  title = {{T}},\n  doi = {{{WWW_DOI}}},\n}}\n")
    assert [r.doi for r in result.records] == ["10.1000/abc"]


def test_ris_reader_keeps_a_www_doi_org_doi() -> None:
    result = ris.read(f"TY  - JOUR\nTI  - T\nDO  - {WWW_DOI}\nER  - \n")
    assert [r.doi for r in result.records] == ["10.1000/abc"]


def test_csljson_reader_keeps_a_www_doi_org_doi() -> None:
    result = csljson.read(f'[{{"id": "a", "type": "article", "title": "T", "DOI": "{WWW_DOI}"}}]')
    assert [r.doi for r in result.records] == ["10.1000/abc"]


@pytest.mark.parametrize(
    ("arxiv_id", "expected"),
    [
        ("2401.01234", (2024, 1)),
        ("0704.0001", (2007, 4)),  # the first new-style id
        ("1512.03385", (2015, 12)),
        ("hep-th/9901001", (1999, 1)),
        ("math.GT/0309136", (2003, 9)),
        ("2413.00001", None),  # no month 13
        ("not-an-id", None),
        (None, None),
    ],
)
def test_arxiv_year_month(arxiv_id: str | None, expected: tuple[int, int] | None) -> None:
    assert arxiv_year_month(arxiv_id) == expected
