"""Tests for readinglist.formats.ris: real exports, the type table, problems, round trips."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import rispy
from helpers import assert_golden, without_line
from helpers import shared_text as shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readinglist.formats import ris, ris_syntax
from readinglist.records import PaperRecord, Person
from readinglist.text import readable

DATA = Path(__file__).parent / "data" / "ris"


# --- real exports -----------------------------------------------------------------------------


def test_pubmed_via_zotero() -> None:
    result = ris.read(shared("asreview-pubmed-zotero.ris"), "pubmed.ris")
    assert result.problems == []
    assert len(result.records) == 6
    first, second = result.records[0], result.records[1]
    assert first.title == (
        "The importance of cognitive flexibility and flexibility in coping with stress for the "
        "quality of life in inflammatory bowel disease patients during biological therapy. "
        "A preliminary report."
    )
    assert first.entry_type == "article"
    assert first.authors == (
        Person(family="Rudnik", given="Agata"),
        Person(family="Piotrowicz", given="Grazyna"),
        Person(family="Basinska", given="Malgorzata A."),
        Person(family="Rashedi", given="Vahid"),
    )
    assert (first.year, first.month) == (2019, None)
    assert first.venue == "Przeglad gastroenterologiczny"
    assert first.doi == "10.5114/pg.2018.81081"
    assert first.keywords == (
        "biological treatment",
        "Crohn's disease",
        "mindfulness",
        "quality of life",
        "ulcerative colitis",
    )
    assert (first.abstract or "").startswith("Introduction: There are studies")
    assert dict(first.fields) == {
        "issn": "1895-5770 1895-5770",
        "language": "eng",
        "number": "2",
        "pages": "121--128",
        "ris_j2": "Prz Gastroenterol",
        "volume": "14",
    }
    assert first.line == 1
    assert second.title == (
        "Outcomes of inflammatory bowel disease surgery in obese versus non-obese patients: "
        "a meta-analysis."
    )
    assert second.doi == "10.1007/s10151-019-02080-0"
    assert (second.year, second.month) == (2019, 10)  # DA  - 2019/10//undefined
    assert [p.display() for p in second.authors] == [
        "Hicks, G.",
        "Abdulaal, A.",
        "Slesser, A. A. P.",
        "Mohsen, Y.",
    ]
    assert [r.doi for r in result.records[2:]] == [
        "10.1097/md.0000000000016881",  # DO  - 10.1097/MD.0000000000016881: lower-cased
        "10.2196/14432",
        "10.1186/s12876-019-1034-9",
        "10.1097/md.0000000000016231",
    ]
    assert [r.line for r in result.records] == [1, 26, 50, 81, 106, 129]


def test_scopus_export() -> None:
    result = ris.read(shared("asreview-scopus.ris"), "scopus.ris")
    assert result.problems == []
    assert len(result.records) == 6
    first = result.records[0]
    assert first.title == (
        "Stress and the brain-gut axis in functional and chronic-inflammatory gastrointestinal "
        "diseases: A transdisciplinary challenge"
    )
    assert first.doi == "10.1016/j.psyneuen.2019.104501"
    assert [p.display() for p in first.authors] == [
        "Labanski, A.",
        "Langhorst, J.",
        "Engler, H.",
        "Elsenbruch, S.",
    ]
    assert first.year == 2020
    assert first.venue == "Psychoneuroendocrinology"
    assert first.url == (
        "https://www.scopus.com/inward/record.uri?eid=2-s2.0-85074596690&doi=10.1016%2fj.psyneuen"
        ".2019.104501&partnerID=40&md5=a22a980b0c8e033a036830f360e7b895"
    )
    assert first.fields["publisher"] == "Elsevier Ltd"
    assert first.fields["ris_m3"] == "Review"
    assert first.fields["ris_db"] == "Scopus"
    assert first.fields["ris_ad"].split("\n") == [
        "Institute of Medical Psychology and Behavioral Immunobiology, University Hospital Essen, "
        "University of Duisburg-Essen, Essen, Germany",
        "Chair for Integrative Medicine, University of Duisburg-Essen, Essen, Germany",
        "Clinic for Internal and Integrative Medicine, Klinikum Bamberg, Bamberg, Germany",
    ]
    assert first.fields["ris_n1"].startswith("Export Date: 18 November 2019\nCODEN: PSYCD\n")
    last = result.records[5]
    assert last.title == (
        "Role of brain imaging in disorders of brain-gut interaction: A Rome Working Team Report"
    )
    assert last.doi == "10.1136/gutjnl-2019-318308"
    assert last.authors[0] == Person(family="Mayer", given="E.A.")
    assert last.fields["pages"] == "1701--1715"


@pytest.mark.parametrize("name", ["asreview-pubmed-zotero.ris", "asreview-scopus.ris"])
def test_real_files_round_trip(name: str) -> None:
    records = ris.read(shared(name)).records
    text = ris.write(records)
    again = ris.read(text)
    assert again.problems == []
    assert [without_line(r) for r in again.records] == [without_line(r) for r in records]
    assert ris.write(again.records) == text


# --- mapping ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ris_type", "entry_type", "kept"),
    [
        ("JOUR", "article", None),
        ("EJOUR", "article", "EJOUR"),
        ("CONF", "inproceedings", "CONF"),
        ("CPAPER", "inproceedings", None),
        ("BOOK", "book", None),
        ("CHAP", "incollection", None),
        ("THES", "phdthesis", None),
        ("RPRT", "techreport", None),
        ("UNPB", "unpublished", None),
        ("GEN", "misc", None),
        ("ELEC", "misc", "ELEC"),
        ("PAT", "misc", "PAT"),
    ],
)
def test_type_table(ris_type: str, entry_type: str, kept: str | None) -> None:
    record = ris.read(f"TY  - {ris_type}\nTI  - T\nER  - \n").records[0]
    assert record.entry_type == entry_type
    assert record.fields.get("ris_ty") == kept
    assert ris.write([record]).startswith(f"TY  - {ris_type}\n")


def test_types_and_tags_fixture() -> None:
    result = ris.read((DATA / "types.ris").read_text(encoding="utf-8"), "types.ris")
    assert result.problems == []
    conf, thesis, chapter = result.records
    assert conf == PaperRecord(
        citekey="lee2021",
        entry_type="inproceedings",
        title="Graph Networks",
        authors=(Person(family="Lee", given="Kim"),),
        editors=(Person(family="Berg", given="Jan", von="van der"),),
        year=2021,
        month=7,
        venue="Proceedings of the Workshop",
        arxiv="2107.01234",
        url="https://example.org/graphs;jsessionid=1",
        code_url="https://github.com/lee/graphs",
        fields={"ris_ty": "CONF", "ris_ur": "https://arxiv.org/abs/2107.01234v2"},
        line=1,
    )
    assert thesis.entry_type == "mastersthesis"
    assert thesis.authors == (
        Person(family="Smith", given="John", jr="Jr."),
        Person(literal="World Health Organization"),
    )
    assert dict(thesis.fields) == {"publisher": "MIT", "ris_m3": "Master's thesis"}
    assert chapter.entry_type == "incollection"
    assert chapter.title == "A Chapter"
    assert chapter.authors == (Person(family="Plato"),)
    assert chapter.editors == (Person(family="Editor", given="Ed"),)
    assert chapter.venue == "The Book"
    assert chapter.abstract == "Abstract from N2."
    assert chapter.doi == "10.48550/arxiv.2101.00001"
    assert chapter.arxiv == "2101.00001"
    assert dict(chapter.fields) == {
        "isbn": "978-0-00-000000-0",
        "pages": "10--20",
        "ris_ti": "An Alternative Title",
        "ris_xy": "custom tag\ncontinued",
    }
    again = ris.read(ris.write(result.records)).records
    assert [without_line(r) for r in again] == [without_line(r) for r in result.records]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("10.1000/ABC", "10.1000/abc"),
        ("https://doi.org/10.1000/ABC", "10.1000/abc"),
        ("http://dx.doi.org/10.1000/a%2Fb", "10.1000/a/b"),
        ("doi: 10.1000/xyz", "10.1000/xyz"),
        ("10/fqd6hj", "10/fqd6hj"),
    ],
)
def test_doi_normalization(value: str, expected: str) -> None:
    assert ris.read(f"TY  - JOUR\nDO  - {value}\nER  - \n").records[0].doi == expected


def test_arxiv_abstract_page_gives_the_id_and_no_url() -> None:
    record = ris.read("TY  - JOUR\nUR  - https://arxiv.org/abs/2401.01234\nER  - \n").records[0]
    assert (record.arxiv, record.url) == ("2401.01234", None)
    record = ris.read("TY  - JOUR\nUR  - https://arxiv.org/pdf/2401.01234v3\nER  - \n").records[0]
    assert (record.arxiv, record.url) == ("2401.01234", "https://arxiv.org/pdf/2401.01234v3")


def test_book_t2_is_the_series() -> None:
    record = ris.read("TY  - BOOK\nTI  - B\nT2  - Lecture Notes\nER  - \n").records[0]
    assert (record.venue, record.fields["series"]) == (None, "Lecture Notes")
    assert "T2  - Lecture Notes\n" in ris.write([record])


def test_multi_line_abstract_keeps_paragraphs() -> None:
    text = "TY  - JOUR\nTI  - T\nAB  - First line\n  second line\n\nNew paragraph.\nER  - \n"
    assert ris.read(text).records[0].abstract == "First line\nsecond line\n\nNew paragraph."


def test_crlf_bom_and_lenient_tag_spacing() -> None:
    text = "\ufeffTY  - JOUR\r\nTI - One space\r\nPY  - 2020\r\nER  -\r\n"
    record = ris.read(text).records[0]
    assert (record.title, record.year) == ("One space", 2020)


# --- problems ---------------------------------------------------------------------------------


def test_malformed_input_problems_with_lines() -> None:
    result = ris.read((DATA / "malformed.ris").read_text(encoding="utf-8"), "bad.ris")
    empty = "record with no title and no identifier (DOI, arXiv id, URL): skipped"
    assert [(str(p), p.severity) for p in result.problems] == [
        (
            "bad.ris: 2 of 4 records skipped: no title and no identifier (DOI, arXiv id, URL)",
            "warning",
        ),
        ("bad.ris:1: text outside a record ignored (a record starts with 'TY  - ')", "warning"),
        (
            "bad.ris:3: record starting at line 3 has no 'ER  - ' line; read up to the next 'TY  - '",
            "warning",
        ),
        ("bad.ris:4: line without a tag after 'TY  - ' ignored", "warning"),
        ("bad.ris:7: PY 'circa' holds no year (YYYY); kept as ris_py", "warning"),
        ("bad.ris:8: DO 'not-a-doi' is not a DOI (10.prefix/suffix); kept as ris_do", "warning"),
        ("bad.ris:9: record without a title (TI)", "warning"),
        (f"bad.ris:9: {empty}", "warning"),
        ("bad.ris:14: text outside a record ignored (a record starts with 'TY  - ')", "warning"),
        ("bad.ris:17: empty 'TY' type; read as misc", "warning"),
        ("bad.ris:17: record without a title (TI)", "warning"),
        (f"bad.ris:17: {empty}", "warning"),
        ("bad.ris:20: record starting at line 20 has no 'ER  - ' line", "warning"),
    ]
    # The book (a series and a year) and the untitled record (an abstract) name no paper.
    first, last = result.records
    assert (first.title, first.authors, first.year) == (
        "A record without ER",
        (Person(family="Doe", given="Jane"),),
        None,
    )
    assert dict(first.fields) == {"ris_do": "not-a-doi", "ris_py": "circa"}
    assert (last.entry_type, last.title, last.line) == ("incollection", "Last record, unclosed", 20)


def test_text_without_records_is_an_error() -> None:
    result = ris.read("@article{x, title={Not RIS}}\n", "x.bib")
    assert result.records == []
    assert [(str(p), p.severity) for p in result.problems] == [
        ("x.bib:1: text outside a record ignored (a record starts with 'TY  - ')", "warning"),
        ("x.bib:1: no RIS record found (a record starts with 'TY  - ')", "error"),
    ]
    assert ris.read("").problems == []


ris_lines = st.lists(
    st.one_of(
        st.builds(
            lambda tag, value: f"{tag}  - {value}",
            st.sampled_from(
                ["TY", "ER", "TI", "AU", "PY", "DA", "DO", "UR", "KW", "SP", "EP", "N1", "XX", "A2"]
            ),
            st.text(max_size=20),
        ),
        st.text(max_size=30),
    ),
    max_size=25,
).map("\n".join)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.text(), ris_lines))
def test_read_never_raises(text: str) -> None:
    result = ris.read(text, "fuzz.ris")
    assert all(p.source == "fuzz.ris" for p in result.problems)
    assert not any(p.message.startswith("could not read") for p in result.problems)


# --- writing ----------------------------------------------------------------------------------

SAMPLE = [
    PaperRecord(
        citekey="spar2026",
        entry_type="inproceedings",
        title="Sparse Attention for Long Contexts",
        authors=(
            Person(family="Lovelace", given="Ada"),
            Person(family="Berg", given="Jan", von="van der"),
        ),
        editors=(Person(family="Hopper", given="Grace", jr="Jr."),),
        year=2026,
        month=7,
        venue="Proceedings of ICML",
        abstract="We study sparse attention.\n\nER  - looks like a tag but is text.",
        doi="10.5555/spar.2026",
        arxiv="2601.01234",
        url="https://example.org/spar",
        code_url="https://github.com/example/spar",
        keywords=("attention", "efficiency"),
        fields={"pages": "101--110", "publisher": "PMLR", "volume": "235", "ris_n1": "one\ntwo"},
        tags=("to-skim",),
        status="reading",
    ),
    PaperRecord(
        citekey="who2019",
        entry_type="techreport",
        title="Global Report",
        authors=(Person(literal="World Health Organization"),),
        year=2019,
        fields={"number": "TR-7", "institution": "WHO", "pdf": "not written"},
    ),
    PaperRecord(citekey="thesis2015", entry_type="mastersthesis", title="On Theses", year=2015),
    PaperRecord(citekey=None, entry_type="misc", title="No Key"),
]


def test_golden_writer() -> None:
    assert_golden("ris_sample.ris", ris.write(SAMPLE))


def test_writer_layout() -> None:
    text = ris.write(SAMPLE[1:3])
    assert text == (
        "TY  - RPRT\nID  - who2019\nTI  - Global Report\nAU  - World Health Organization\n"
        "PY  - 2019\nIS  - TR-7\nPB  - WHO\nER  - \n\n"
        "TY  - THES\nID  - thesis2015\nTI  - On Theses\nPY  - 2015\nM3  - Master's thesis\nER  - \n"
    )
    assert ris.write([]) == ""


class _Rispy(rispy.RisWriter):  # type: ignore[misc]  # rispy has no type hints
    """rispy's writer without the ``1.`` line before each record."""

    def set_header(self, count: int) -> str:
        return ""


def _rispy_dumps(references: list[list[tuple[str, str]]]) -> str:
    """The text ``rispy.dumps`` gives for records of ``(tag, value)`` pairs, each value
    in a list under its rispy name (unknown tags under ``unknown_tag``)."""
    names, unknown = rispy.TAG_KEY_MAPPING, rispy.TAG_KEY_MAPPING["UK"]
    dicts: list[dict[str, Any]] = []
    for pairs in references:
        found: dict[str, Any] = {}
        for tag, value in pairs:
            if tag == "TY":
                found[names["TY"]] = value
            elif tag not in names or tag == "UK":
                found.setdefault(unknown, {}).setdefault(tag, []).append(value)
            else:
                found.setdefault(names[tag], []).append(value)
        dicts.append(found)
    return str(rispy.dumps(dicts, implementation=_Rispy, enforce_list_tags=False))


ris_pairs = st.lists(
    st.lists(
        st.tuples(
            st.sampled_from(
                ["TY", "AU", "A2", "TI", "UR", "SN", "KW", "N1", "XX", "C8", "UK", "ID"]
            ),
            st.text(alphabet="ab \n-", max_size=6),
        ),
        max_size=12,
    ),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(ris_pairs)
def test_dumps_writes_what_rispy_writes(references: list[list[tuple[str, str]]]) -> None:
    # ris_syntax.dumps writes the lines itself (issue 17): the text rispy 0.10 gives,
    # tags grouped by first occurrence, unknown tags together, TY first (JOUR without).
    assert ris_syntax.dumps(references) == (_rispy_dumps(references) if references else "")


def test_tags_as_keywords() -> None:
    # The user's tags follow the keywords by default (issue 15); they can be left out.
    text = ris.write([SAMPLE[0]])
    assert "KW  - attention\nKW  - efficiency\nKW  - to-skim\n" in text
    assert "KW  - to-skim" not in ris.write([SAMPLE[0]], tags_as_keywords=False)


def test_sample_round_trip() -> None:
    records = ris.read(ris.write(SAMPLE)).records
    expected = [replace(r, keywords=r.keywords + r.tags, tags=(), status=None) for r in SAMPLE]
    expected[1] = replace(expected[1], fields={"number": "TR-7", "publisher": "WHO"})
    expected[2] = replace(expected[2], fields={"ris_m3": "Master's thesis"})
    assert [without_line(r) for r in records] == expected


words = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzäöü"), min_size=1, max_size=8)
capitalized = words.map(str.capitalize)
one_line = (
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12),
        min_size=1,
        max_size=5,
    )
    .map(lambda parts: " ".join(" ".join(parts).split()))
    .filter(bool)
)
multi_line = st.lists(one_line, min_size=1, max_size=4).map("\n".join)
people = st.lists(
    st.one_of(
        st.builds(Person, family=capitalized, given=st.one_of(st.just(""), capitalized)),
        st.builds(
            Person, family=capitalized, given=capitalized, von=st.sampled_from(["van", "de la"])
        ),
        st.builds(Person, literal=st.lists(capitalized, min_size=2, max_size=3).map(" ".join)),
    ),
    max_size=4,
).map(tuple)
records = st.builds(
    PaperRecord,
    # Plain-text fields, as this format gives them (a BibTeX paper's LaTeX fields are
    # decoded on export: rules.plain_fields).
    latex_fields=st.just(False),
    citekey=st.one_of(st.none(), st.from_regex(r"[a-z][a-z0-9:_-]{0,10}", fullmatch=True)),
    entry_type=st.sampled_from(
        ["article", "inproceedings", "book", "incollection", "phdthesis", "techreport", "misc"]
    ),
    title=st.one_of(st.none(), one_line),
    authors=people,
    editors=people,
    year=st.one_of(st.none(), st.integers(1000, 2999)),
    venue=st.one_of(st.none(), one_line),
    abstract=st.one_of(st.none(), multi_line),
    doi=st.one_of(
        st.none(), st.from_regex(r"10\.[0-9]{4,5}/[a-z0-9./()-]{0,11}[a-z0-9]", fullmatch=True)
    ),
    url=st.one_of(
        st.none(), st.from_regex(r"https://example\.org/[a-z0-9;=?&/]{0,12}", fullmatch=True)
    ),
    keywords=st.lists(one_line.filter(lambda k: k != ""), max_size=3, unique=True).map(tuple),
    fields=st.fixed_dictionaries(
        {},
        optional={
            "volume": st.from_regex(r"[0-9]{1,3}", fullmatch=True),
            "number": st.from_regex(r"[0-9]{1,3}", fullmatch=True),
            "pages": st.from_regex(r"[0-9]{1,3}--[0-9]{4}", fullmatch=True),
            "ris_n1": multi_line,
        },
    ),
)
#: Only records that name a paper: one with no title and no identifier is skipped on
#: reading (formats.rules.without_empty).
records = records.filter(lambda r: bool(r.title or r.doi or r.arxiv or r.url))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records, max_size=4), st.lists(st.integers(1, 12), min_size=4, max_size=4))
def test_round_trip_ours(items: list[PaperRecord], months: list[int]) -> None:
    items = [
        replace(r, month=m if r.year is not None else None)
        for r, m in zip(items, months, strict=False)
    ]
    text = ris.write(items)
    result = ris.read(text)
    assert [p for p in result.problems if p.message != "record without a title (TI)"] == []
    # The abstract is written as readable text (LaTeX decoded, issue 15); writing what
    # was read back gives the same text.
    items = [replace(r, abstract=readable(r.abstract) or None) for r in items]
    assert [without_line(r) for r in result.records] == items
