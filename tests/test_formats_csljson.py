"""Tests for readinglist.formats.csljson: a real Better BibTeX export, mapping, problems, round trips."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import assert_golden, shared_data, without_line
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readinglist.formats import csljson
from readinglist.records import PaperRecord, Person
from readinglist.text import readable

DATA = Path(__file__).parent / "data" / "csljson"


@pytest.fixture(scope="module")
def bbt() -> list[PaperRecord]:
    path = shared_data("bbt-1179-library.csl.json")
    result = csljson.read(path.read_text(encoding="utf-8"), path.name)
    assert result.problems == []
    return result.records


# --- a real export ----------------------------------------------------------------------------


def test_bbt_library(bbt: list[PaperRecord]) -> None:
    assert len(bbt) == 26
    by_key = {r.citekey: r for r in bbt}
    assert len(by_key) == 26
    brittain = by_key["brittain2004"]
    assert brittain == PaperRecord(
        citekey="brittain2004",
        entry_type="article",
        title=(
            "Perceptions of disability and their impact upon involvement in sport for people "
            "with disabilities at all levels"
        ),
        authors=(Person(family="Brittain", given="Ian"),),
        year=2004,
        venue="Journal of Sport and Social Issues",
        doi="10/fqd6hj",
        url="https://doi.org/10.1177/0193723504268729",
        fields={
            "csl_accessed": '{"date-parts":[["2019",4,28]]}',
            "csl_source": "SAGE Journals",
            "issn": "0193-7235",
            "language": "en",
            "number": "4",
            "pages": "429--452",
            "volume": "28",
        },
        line=2,
    )
    court = by_key["courtofarbitrationforsport2019"]
    assert court.authors == (Person(literal="Court of Arbitration for Sport"),)
    assert (court.entry_type, court.fields["csl_type"]) == ("misc", "webpage")
    assert (court.year, court.month) == (2019, 3)
    assert court.fields["shorttitle"] == "Semenya, ASA and IAAF"
    duncan = by_key["duncan2002"]
    assert duncan.entry_type == "incollection"
    assert duncan.title == "The media image of sport and gender"
    assert duncan.editors == (Person(family="Wenner", given="Lawrence"),)
    assert duncan.venue == "MediaSport"
    assert duncan.fields["address"] == "London, United Kingdom"
    assert duncan.fields["isbn"] == "978-0-203-01405-9"
    pink = by_key["pink2013"]
    assert (pink.entry_type, pink.title, pink.fields["edition"], pink.fields["pagetotal"]) == (
        "book",
        "Doing visual ethnography",
        "3",
        "248",
    )
    morgan = by_key["morgan2016"]
    assert (morgan.entry_type, morgan.fields["csl_type"]) == ("article", "article-newspaper")
    assert by_key["tannenbaum2019"].fields["csl_pmid"] == "30894351"
    assert [r.line for r in bbt[:4]] == [2, 39, 77, 120]
    assert sum(r.entry_type == "article" for r in bbt) == 16


def test_bbt_round_trip(bbt: list[PaperRecord]) -> None:
    text = csljson.write(bbt)
    again = csljson.read(text)
    assert again.problems == []
    assert [without_line(r) for r in again.records] == [without_line(r) for r in bbt]
    assert csljson.write(again.records) == text
    first = json.loads(text)[0]
    assert first["accessed"] == {"date-parts": [["2019", 4, 28]]}
    assert first["page"] == "429–452"
    assert first["ISSN"] == "0193-7235"


# --- mapping ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("csl_type", "entry_type", "kept"),
    [
        ("article-journal", "article", None),
        ("article-newspaper", "article", "article-newspaper"),
        ("paper-conference", "inproceedings", None),
        ("book", "book", None),
        ("chapter", "incollection", None),
        ("thesis", "phdthesis", None),
        ("report", "techreport", None),
        ("manuscript", "unpublished", None),
        ("article", "misc", None),
        ("webpage", "misc", "webpage"),
        ("dataset", "misc", "dataset"),
    ],
)
def test_type_table(csl_type: str, entry_type: str, kept: str | None) -> None:
    record = csljson.read(json.dumps([{"id": "k", "type": csl_type, "title": "T"}])).records[0]
    assert record.entry_type == entry_type
    assert record.fields.get("csl_type") == kept
    assert json.loads(csljson.write([record]))[0]["type"] == csl_type


def test_items_fixture() -> None:
    result = csljson.read((DATA / "items.json").read_text(encoding="utf-8"), "items.json")
    preprint, thesis, report, untyped = result.records
    assert preprint == PaperRecord(
        citekey="vaswani2017",
        entry_type="misc",
        title="Attention Is All You Need",
        authors=(
            Person(family="Vaswani", given="Ashish"),
            Person(family="Beethoven", given="Ludwig", von="van"),
            Person(family="Gogh", given="Vincent", von="van"),
            Person(family="King", given="Martin Luther", jr="Jr."),
            Person(literal="OpenAI"),
            Person(literal="Plain String Name"),
        ),
        year=2017,
        month=None,  # 13 is a season (spring), not a month
        arxiv="1706.03762",
        code_url="https://github.com/tensorflow/tensor2tensor",
        keywords=("transformers", "attention", "nlp"),
        fields={"number": "arXiv:1706.03762", "volume": "30"},
        line=2,
    )
    assert thesis == PaperRecord(
        citekey=None,
        entry_type="mastersthesis",
        title="A Thesis",
        year=2019,
        month=3,
        doi="10.1000/abc",
        arxiv="2101.00001",
        code_url="https://example.org/code",
        fields={
            "csl_custom": '{"other":1}',
            "csl_id": "http://zotero.org/users/1/items/ABCD",
            "csl_translator": '[{"family":"Tran","given":"Slate"}]',
            "date": "2019-03-01",  # the day of issued (issue 15)
            "publisher": "MIT",
        },
        line=20,
    )
    assert (report.citekey, report.entry_type, report.fields["number"]) == (
        None,
        "techreport",
        "TR-7",
    )
    assert report.fields["csl_id"] == "42"
    assert (untyped.citekey, untyped.entry_type, untyped.line) == ("bare2020", "misc", 42)
    assert [(str(p), p.severity) for p in result.problems] == [
        (
            "items.json:20: id 'http://zotero.org/users/1/items/ABCD' is not a valid "
            "citation key; a key is generated (the id is kept as csl_id)",
            "warning",
        ),
        (
            "items.json:32: id '42' is not a valid citation key; a key is generated "
            "(the id is kept as csl_id)",
            "warning",
        ),
        ('items.json:32: an entry of \'author\' holds no name: {"given":""}', "warning"),
        ("items.json:32: an entry of 'author' holds no name: 7", "warning"),
        (
            'items.json:32: \'issued\' holds no year: {"literal":"sometime"}; kept as csl_issued',
            "warning",
        ),
        (
            "items.json:32: DOI 'not a doi' is not a DOI (10.prefix/suffix); kept as csl_doi",
            "warning",
        ),
        ("items.json:41: expected a CSL-JSON item (an object), found str", "error"),
        ("items.json:42: item without a 'type'; read as misc", "warning"),
    ]
    # Writing gives back what was read (JSON-valued fields as JSON).
    written = json.loads(csljson.write(result.records))
    assert written[1]["translator"] == [{"family": "Tran", "given": "Slate"}]
    assert written[1]["custom"] == {
        "arxiv": "2101.00001",
        "code_url": "https://example.org/code",
        "other": 1,
    }
    assert written[1]["genre"] == "Master's thesis"
    assert written[1]["id"] == "http://zotero.org/users/1/items/ABCD"
    assert written[2]["issued"] == {"literal": "sometime"}
    assert written[2]["number"] == "TR-7"
    again = csljson.read(csljson.write(result.records)).records
    assert [without_line(r) for r in again] == [without_line(r) for r in result.records]


def test_arxiv_sources() -> None:
    items = [
        {"id": "a", "type": "article", "URL": "https://arxiv.org/abs/2401.01234"},
        {"id": "b", "type": "article", "DOI": "10.48550/arXiv.2401.05678"},
        {"id": "c", "type": "article", "URL": "http://arxiv.org/pdf/hep-th/9901001v2"},
    ]
    records = csljson.read(json.dumps(items)).records
    assert [(r.arxiv, r.url) for r in records] == [
        ("2401.01234", None),
        ("2401.05678", None),
        ("hep-th/9901001", "http://arxiv.org/pdf/hep-th/9901001v2"),
    ]


# --- problems ---------------------------------------------------------------------------------


def test_invalid_json_reports_the_decoder_line() -> None:
    result = csljson.read((DATA / "invalid.json").read_text(encoding="utf-8"), "bad.json")
    assert result.records == []
    assert [(str(p), p.severity) for p in result.problems] == [
        ("bad.json:3: invalid JSON: Expecting ',' delimiter (column 14)", "error")
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"just a string"', "expected a JSON array of CSL-JSON items, found str"),
        ("3", "expected a JSON array of CSL-JSON items, found int"),
        ("", "invalid JSON: Expecting value (column 1)"),
    ],
)
def test_wrong_top_level(text: str, message: str) -> None:
    result = csljson.read(text)
    assert result.records == []
    assert [(p.message, p.line) for p in result.problems] == [(message, 1)]


def test_single_object_and_bom() -> None:
    result = csljson.read('\ufeff\n\n{"id": "x1", "type": "book", "title": "B"}')
    assert [(r.citekey, r.entry_type, r.line) for r in result.records] == [("x1", "book", 3)]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(
        st.sampled_from(
            ["type", "id", "title", "author", "editor", "issued", "DOI", "URL", "keyword",
             "page", "custom", "family", "given", "literal", "date-parts", "raw", "issue",
             "number", "genre", "accessed", "container-title", "citation-key", "x"]
        ),
        children,
        max_size=6,
    ),
    max_leaves=10,
)  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(), json_values.map(json.dumps), st.lists(json_values).map(json.dumps)))
def test_read_never_raises(text: str) -> None:
    result = csljson.read(text, "fuzz.json")
    assert not any(p.message.startswith("could not read") for p in result.problems)
    csljson.write(result.records)


# --- writing ----------------------------------------------------------------------------------

SAMPLE = [
    PaperRecord(
        citekey="spar2026",
        entry_type="inproceedings",
        title="Sparse Attention für Long Contexts",
        title_provisional=True,
        short_name="SPAR",
        authors=(
            Person(family="Lovelace", given="Ada"),
            Person(family="Berg", given="Jan", von="van der"),
        ),
        editors=(Person(family="Hopper", given="Grace", jr="Jr."),),
        year=2026,
        month=7,
        venue="Proceedings of ICML",
        abstract="We study sparse attention.",
        doi="10.5555/spar.2026",
        arxiv="2601.01234",
        url="https://example.org/spar",
        code_url="https://github.com/example/spar",
        keywords=("attention", "efficiency"),
        fields={"pages": "101--110", "publisher": "PMLR", "volume": "235", "pdf": "not written"},
        tags=("to-skim",),
    ),
    PaperRecord(
        citekey="who2019",
        entry_type="techreport",
        title="Global Report",
        authors=(Person(literal="World Health Organization"),),
        year=2019,
        fields={"number": "TR-7", "institution": "WHO"},
    ),
    PaperRecord(citekey="thesis2015", entry_type="mastersthesis", title="On Theses", year=2015),
    PaperRecord(citekey=None, entry_type="misc", title="No Key", arxiv="2101.00001"),
]


def test_golden_writer() -> None:
    assert_golden("csljson_sample.json", csljson.write(SAMPLE))


def test_writer_output_form() -> None:
    text = csljson.write(SAMPLE[1:2])
    assert text == (
        "[\n"
        "  {\n"
        '    "author": [\n'
        "      {\n"
        '        "literal": "World Health Organization"\n'
        "      }\n"
        "    ],\n"
        '    "citation-key": "who2019",\n'
        '    "id": "who2019",\n'
        '    "issued": {\n'
        '      "date-parts": [\n'
        "        [\n"
        "          2019\n"
        "        ]\n"
        "      ]\n"
        "    },\n"
        '    "number": "TR-7",\n'
        '    "publisher": "WHO",\n'
        '    "title": "Global Report",\n'
        '    "type": "report"\n'
        "  }\n"
        "]\n"
    )
    assert csljson.write([]) == "[]\n"
    assert '"Sparse Attention für Long Contexts"' in csljson.write(SAMPLE[:1])  # ensure_ascii=False


def test_tags_as_keywords() -> None:
    # The user's tags follow the keywords by default and are named in custom.tags (issue 15).
    item: dict[str, Any] = json.loads(csljson.write(SAMPLE[:1]))[0]
    assert (item["keyword"], item["custom"]["tags"]) == (
        "attention, efficiency, to-skim",
        ["to-skim"],
    )
    item = json.loads(csljson.write(SAMPLE[:1], tags_as_keywords=False))[0]
    assert item["keyword"] == "attention, efficiency"


def test_sample_round_trip() -> None:
    records = csljson.read(csljson.write(SAMPLE)).records
    expected = list(SAMPLE)  # tags come back from custom.tags
    expected[0] = replace(
        expected[0], fields={"pages": "101--110", "publisher": "PMLR", "volume": "235"}
    )
    expected[1] = replace(expected[1], fields={"number": "TR-7", "publisher": "WHO"})
    expected[3] = replace(expected[3], fields={"csl_id": "item 4"})
    assert [without_line(r) for r in records] == expected


words = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzäöü"), min_size=1, max_size=8)
capitalized = words.map(str.capitalize)
text_values = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)
one_line = text_values.map(lambda s: " ".join(s.split())).filter(bool)
people = st.lists(
    st.one_of(
        st.builds(Person, family=capitalized, given=st.one_of(st.just(""), capitalized)),
        st.builds(
            Person, family=capitalized, given=capitalized, von=st.sampled_from(["van", "de la"])
        ),
        st.builds(
            Person, family=capitalized, given=capitalized, jr=st.sampled_from(["Jr.", "III"])
        ),
        st.builds(Person, literal=one_line),
    ),
    max_size=4,
).map(tuple)
records = st.builds(
    PaperRecord,
    # Plain-text fields, as this format gives them (a BibTeX paper's LaTeX fields are
    # decoded on export: rules.plain_fields).
    latex_fields=st.just(False),
    citekey=st.from_regex(r"[a-z][a-z0-9:_-]{0,10}", fullmatch=True),
    entry_type=st.sampled_from(list(csljson.CSL_TYPES)).filter(
        lambda t: csljson.ENTRY_TYPES.get(csljson.CSL_TYPES[t], "misc") == t
    ),
    title=st.one_of(st.none(), one_line),
    title_provisional=st.booleans(),
    short_name=st.one_of(st.none(), one_line.map(str.strip)),
    authors=people,
    editors=people,
    year=st.one_of(st.none(), st.integers(1000, 2999)),
    venue=st.one_of(st.none(), one_line),
    abstract=st.one_of(st.none(), text_values.map(str.strip).filter(bool)),
    doi=st.one_of(
        st.none(), st.from_regex(r"10\.[0-9]{4,5}/[a-z0-9./()-]{0,11}[a-z0-9]", fullmatch=True)
    ),
    arxiv=st.one_of(st.none(), st.from_regex(r"2[0-9]{3}\.[0-9]{5}", fullmatch=True)),
    url=st.one_of(
        st.none(), st.from_regex(r"https://example\.org/[a-z0-9;=?&/]{0,12}", fullmatch=True)
    ),
    code_url=st.one_of(
        st.none(), st.just("https://github.com/a/b"), st.just("https://example.org/c")
    ),
    keywords=st.lists(words, max_size=3, unique=True).map(tuple),
    fields=st.fixed_dictionaries(
        {},
        optional={
            "volume": st.from_regex(r"[0-9]{1,3}", fullmatch=True),
            "number": st.from_regex(r"[0-9]{1,3}", fullmatch=True),
            "pages": st.from_regex(r"[0-9]{1,3}--[0-9]{4}", fullmatch=True),
            "publisher": one_line,
            "csl_source": one_line,
            "csl_accessed": st.just('{"date-parts":[[2020,1,2]]}'),
        },
    ),
)
#: Only records that name a paper: one with no title and no identifier is skipped on
#: reading (formats.rules.without_empty).
records = records.filter(lambda r: bool(r.title or r.doi or r.arxiv or r.url))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records, max_size=4, unique_by=lambda r: r.citekey), st.integers(1, 12))
def test_round_trip_ours(items: list[PaperRecord], month: int) -> None:
    items = [replace(r, month=month if r.year is not None else None) for r in items]
    text = csljson.write(items)
    result = csljson.read(text)
    assert [p for p in result.problems if p.message != "item without a 'title'"] == []
    # The abstract is written as readable text (LaTeX decoded, issue 15).
    items = [replace(r, abstract=readable(r.abstract) or None) for r in items]
    assert [without_line(r) for r in result.records] == items


def test_url_equal_to_code_link_survives_a_round_trip() -> None:
    # Regression (hypothesis seed 2559...): the reader dropped a URL equal to the code link.
    record = PaperRecord(citekey="a", url="https://example.org/c", code_url="https://example.org/c")
    (back,) = csljson.read(csljson.write([record])).records
    assert back.url == "https://example.org/c"
    assert back.code_url == "https://example.org/c"


def test_a_title_of_a_thousand_nested_groups_is_written_not_a_recursion_error(
    invoke, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """A BibTeX title of 1,000 nested braces ended the CSL-JSON export with RecursionError;
    groups deeper than the markup bound are text."""
    import json

    bib = tmp_path / "deep.bib"
    title = "{" * 1000 + "x" + "}" * 1000
    bib.write_text(f"@article{{a, title={{{title}}}, year=2001}}\n", encoding="utf-8")
    assert invoke("import", str(bib)).exit_code == 0
    done = invoke("export", "csl-json")
    assert done.exit_code == 0, done.output
    [item] = json.loads(done.stdout)
    assert item["title"].count('<span class="nocase">') == 33
    assert item["title"].endswith("x" + "</span>" * 33)
