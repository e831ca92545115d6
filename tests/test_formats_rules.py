"""Tests for readinglist.formats.rules (the rules RIS and CSL-JSON share) and
identifiers.arxiv_from_doi, and that both readers apply them the same way."""

from __future__ import annotations

import json

import pytest

from readinglist.formats import csljson, ris
from readinglist.formats.rules import (
    arxiv_link,
    is_code_host,
    is_masters,
    keywords_of,
    looks_like_key,
    one_line,
    publisher_of,
    year_month,
)
from readinglist.identifiers import arxiv_from_doi
from readinglist.records import PaperRecord


@pytest.mark.parametrize(
    ("doi", "arxiv"),
    [
        ("10.48550/arxiv.2401.01234", "2401.01234"),
        ("10.48550/arXiv.2401.01234", "2401.01234"),
        ("10.48550/arxiv.hep-th/9901001", "hep-th/9901001"),
        ("10.48550/arxiv.2401.012345", None),
        ("10.1000/arxiv.2401.01234", None),
        ("10.48550/arxiv.2401.01234/extra", None),
        ("", None),
        (None, None),
    ],
)
def test_arxiv_from_doi(doi: str | None, arxiv: str | None) -> None:
    assert arxiv_from_doi(doi) == arxiv


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("https://arxiv.org/abs/2401.01234", ("2401.01234", True)),
        ("http://arxiv.org/abs/2401.01234/", ("2401.01234", True)),
        ("https://arxiv.org/abs/2401.01234v2", ("2401.01234", False)),
        ("https://arxiv.org/pdf/hep-th/9901001v2", ("hep-th/9901001", False)),
        ("https://arxiv.org/html/2401.01234", ("2401.01234", False)),
        ("https://example.org/2401.01234", (None, False)),
        ("", (None, False)),
    ],
)
def test_arxiv_link(link: str, expected: tuple[str | None, bool]) -> None:
    assert arxiv_link(link) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2020", (2020, None)),
        ("2020/05/03/", (2020, 5)),
        ("2020-5", (2020, 5)),
        ("2020/13", (2020, None)),
        ("2020/", (2020, None)),
        (" 1999-00", (1999, None)),
        ("May 2020", (None, None)),
    ],
)
def test_year_month(text: str, expected: tuple[int | None, int | None]) -> None:
    assert year_month(text) == expected


def test_small_rules() -> None:
    assert one_line("  a\n b\t c ") == "a b c"
    assert looks_like_key("smith2020:x")
    assert not looks_like_key("item 3")
    assert not looks_like_key("123")
    assert not looks_like_key("a,b")
    assert is_code_host("https://www.github.com/a/b")
    assert not is_code_host("https://x.org/a")
    assert is_masters("Master's thesis")
    assert is_masters("MASTERS")
    assert not is_masters(None)
    assert publisher_of({"publisher": "", "school": "S", "organization": "O"}) == "S"
    assert publisher_of({}) is None
    record = PaperRecord(keywords=("a", "b"), tags=("b", "c"))
    assert keywords_of(record, False) == ["a", "b"]
    assert keywords_of(record, True) == ["a", "b", "c"]


@pytest.mark.parametrize(
    "url",
    [
        "https://arxiv.org/abs/2401.01234",
        "https://arxiv.org/pdf/2401.01234v3",
        "https://arxiv.org/html/2401.01234v1",
    ],
)
def test_ris_and_csljson_read_arxiv_links_alike(url: str) -> None:
    from_ris = ris.read(f"TY  - JOUR\nTI  - T\nUR  - {url}\nER  - \n").records[0]
    from_csl = csljson.read(json.dumps([{"type": "article-journal", "title": "T", "URL": url}]))
    other = from_csl.records[0]
    assert (from_ris.arxiv, from_ris.url) == (other.arxiv, other.url)
    assert from_ris.arxiv == "2401.01234"


def test_arxiv_doi_gives_the_id_in_both_readers() -> None:
    doi = "https://doi.org/10.48550/arXiv.2401.01234"
    from_ris = ris.read(f"TY  - JOUR\nTI  - T\nDO  - {doi}\nER  - \n").records[0]
    item = {"type": "article-journal", "title": "T", "DOI": doi}
    from_csl = csljson.read(json.dumps([item])).records[0]
    assert from_ris.arxiv == from_csl.arxiv == "2401.01234"
    assert from_ris.doi == from_csl.doi == "10.48550/arxiv.2401.01234"
