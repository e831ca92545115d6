"""Issue 15, RIS class: doubled tags, ``;``-joined names, KW, DA/PY forms, --keywords-as-tags."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from readinglist.formats import ris
from readinglist.records import Person

DOUBLED = Path(__file__).parent / "data" / "ris" / "issue15-doubled.ris"


def test_doubled_tags_give_each_value_once() -> None:
    result = ris.read(DOUBLED.read_text(encoding="utf-8"), "doubled.ris")
    # Two people joined by ";" on one line are split, and that is said.
    assert [(p.line, p.message) for p in result.problems] == [
        (2, "AU 'Okafor, Ngozi; van der Berg, Jan' names 2 people joined by ';'; read as 2")
    ]
    first, second = result.records
    assert first.authors == (
        Person(family="Okafor", given="Ngozi"),
        Person(family="Berg", given="Jan", von="van der"),
    )
    assert first.title == "Sparse Probes for Tidal Models"
    assert first.abstract == "We probe tides."
    assert first.keywords == ("tides", "probing", "sparsity")
    assert (first.year, first.month) == (2019, 3)
    # Nothing of the doubled tags is kept aside: they said the same thing.
    assert dict(first.fields) == {}
    assert second.authors == (Person(family="Lindqvist", given="Maja"),)
    assert second.abstract == "Only N2 here."
    assert (second.year, second.month) == (2021, 11)


def test_a_different_t1_is_kept_and_one_tag_keeps_repeated_names() -> None:
    text = (
        "TY  - JOUR\nAU  - Kim, Ji\nAU  - Kim, Ji\nA1  - Kim, Ji\nA1  - Roy, Ana\n"
        "TI  - Main Title\nT1  - Another Title\nER  - \n"
    )
    (record,) = ris.read(text, "x.ris").records
    assert record.authors == (
        Person(family="Kim", given="Ji"),
        Person(family="Kim", given="Ji"),
        Person(family="Roy", given="Ana"),
    )
    assert record.title == "Main Title"
    assert record.fields == {"ris_t1": "Another Title"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2019///", (2019, None)),
        ("2019/03/02/", (2019, 3)),
        ("2019/3//", (2019, 3)),
        ("2019-03-02", (2019, 3)),
        ("2019", (2019, None)),
        ("2019/13//", (2019, None)),
    ],
)
def test_date_forms(value: str, expected: tuple[int, int | None]) -> None:
    (record,) = ris.read(f"TY  - JOUR\nTI  - T\nDA  - {value}\nER  - \n", "d.ris").records
    assert (record.year, record.month) == expected


def test_keywords_as_tags_on_import(invoke: Callable[..., object], tmp_path: Path) -> None:
    result = invoke("import", str(DOUBLED), "--keywords-as-tags")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    listed = json.loads(invoke("list", "--json").stdout)  # type: ignore[attr-defined]
    tags = {paper["title"]: paper["tags"] for paper in listed}
    assert tags == {
        "Sparse Probes for Tidal Models": ["probing", "sparsity", "tides"],
        "Second Record": [],
    }


def test_keywords_stay_keywords_without_the_option(invoke: Callable[..., object]) -> None:
    assert invoke("import", str(DOUBLED)).exit_code == 0  # type: ignore[attr-defined]
    listed = json.loads(invoke("list", "--json").stdout)  # type: ignore[attr-defined]
    assert [paper["tags"] for paper in listed] == [[], []]
