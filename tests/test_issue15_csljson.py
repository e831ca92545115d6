"""Issue 15, CSL-JSON class: rich text, dates as strings, ids that are no keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readinglist import formats
from readinglist.formats import csljson
from readinglist.formats.rules import date_of
from readinglist.records import ParseResult

RICH = Path(__file__).parent / "data" / "csljson" / "issue15-rich.json"


def read_rich() -> ParseResult:
    return csljson.read(RICH.read_text(encoding="utf-8"), "rich.json")


def test_rich_text_is_latex_for_bibtex_and_unicode_for_display() -> None:
    first = read_rich().records[0]
    assert first.title == "H_2O Splitting in vivo with BERT & Fold"
    assert first.venue == "Journal of 50% Results"
    assert first.fields["title"] == (
        "H$_{2}$O Splitting \\textit{in vivo} with {BERT} \\& \\textsc{Fold}"
    )
    assert first.fields["journal"] == "\\textit{Journal} of 50\\% Results"
    bib = formats.writer("bibtex")([first], dialect="bibtex")
    assert (
        "  title = {H$_{2}$O Splitting \\textit{in vivo} with {BERT} \\& \\textsc{Fold}},\n" in bib
    )
    assert "  journal = {\\textit{Journal} of 50\\% Results},\n" in bib
    # CSL-JSON written back keeps the rich text it was read with (CSL 1.0.2 markup).
    exported = json.loads(csljson.write([first]))[0]
    assert exported["title"] == (
        'H<sub>2</sub>O Splitting <i>in vivo</i> with <span class="nocase">BERT</span> & '
        '<span style="font-variant:small-caps;">Fold</span>'
    )
    assert exported["container-title"] == "<i>Journal</i> of 50% Results"


def test_text_that_is_no_markup_stays_text() -> None:
    text = '[{"id": "k1", "type": "book", "title": "a < b and <u>x</u> and <i>open"}]'
    (record,) = csljson.read(text, "t.json").records
    assert record.title == "a < b and <u>x</u> and <i>open"
    assert "title" not in record.fields


def test_dates_as_strings_give_year_month_day() -> None:
    result = read_rich()
    got = [(r.year, r.month, r.fields.get("date")) for r in result.records]
    assert got == [
        (2018, 3, "2018-03-02"),
        (2024, 2, "2024-02-21"),
        (2020, 9, None),
        (2019, 11, "2019-11-05"),
    ]
    assert result.records[0].fields["csl_accessed"] == '{"date-parts":[[2024,5,1]]}'
    written = json.loads(csljson.write(result.records))
    assert written[0]["issued"] == {"date-parts": [[2018, 3, 2]]}
    assert written[0]["accessed"] == {"date-parts": [[2024, 5, 1]]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024 Feb 21", (2024, 2, 21)),
        ("21 February 2024", (2024, 2, 21)),
        ("Sept. 2020", (2020, 9, None)),
        ("2019/2020", (2019, None, None)),
        ("2018-03-02", (2018, 3, 2)),
        ("sometime", (None, None, None)),
    ],
)
def test_date_of(text: str, expected: tuple[int | None, int | None, int | None]) -> None:
    assert date_of(text) == expected


def test_id_that_is_no_key_is_named() -> None:
    result = read_rich()
    assert [str(p) for p in result.problems] == [
        "rich.json:2: id 'http://zotero.org/users/1/items/ABCD' is not a valid citation key; "
        "a key is generated (the id is kept as csl_id)"
    ]
    assert [r.citekey for r in result.records] == [None, None, "lit2020", "parts2019"]
