"""Issue 15, "BibTeX and biblatex": one test per class of fault, on inputs written here."""

from __future__ import annotations

from dataclasses import replace

from readinglist.formats import bibtex
from readinglist.records import PaperRecord, ParseProblem


def _by_key(text: str) -> tuple[dict[str | None, PaperRecord], list[ParseProblem]]:
    result = bibtex.read(text, "f.bib")
    return {r.citekey: r for r in result.records}, result.problems


def _touched(records: list[PaperRecord]) -> list[PaperRecord]:
    """The records as edited: regenerated, not copied."""
    return [replace(r, source_text=None, source_check=None) for r in records]


CROSSREF = """@inproceedings{child,
  author = {Ann Author},
  title = {Child Paper},
  crossref = {conf},
}
@inproceedings{orphan, title = {Orphan}, crossref = {nope}}
@xdata{xd, publisher = {Springer}, address = {Berlin}}
@book{b, title = {A Book}, xdata = {xd}, year = 2000}
@proceedings{conf,
  title = {Proceedings of X},
  year = {2019},
  publisher = {ACM},
  editor = {Eve Editor},
}
"""


def test_crossref_child_inherits_from_parent_and_keeps_link() -> None:
    records, problems = _by_key(CROSSREF)
    child = records["child"]
    assert (child.venue, child.year, child.title) == ("Proceedings of X", 2019, "Child Paper")
    assert child.editors[0].display() == "Editor, Eve"
    assert child.fields["publisher"] == "ACM"
    assert child.fields["crossref"] == "conf"
    assert "xd" not in records  # @xdata is data, not a paper
    assert records["b"].fields == {"publisher": "Springer", "address": "Berlin"}
    assert problems == [
        ParseProblem(
            "entry 'orphan': crossref entry 'nope' is not in f.bib; nothing inherited",
            "f.bib",
            6,
            "warning",
        )
    ]
    text = bibtex.write(list(records.values()))
    assert "crossref = {conf}" in text


DATES = """@article{a, title = {T}, date = {2019-03}}
@article{b, title = {T}, date = {1723~}}
@article{c, title = {T}, date = {2019/2020}}
@article{d, title = {T}, date = {2019-03-01/2019-04-02}}
@article{e, title = {T}, date = {2019}, year = {2018}}
"""


def test_biblatex_date_gives_year_and_month() -> None:
    records, problems = _by_key(DATES)
    assert [(r.year, r.month) for r in records.values()] == [
        (2019, 3),
        (1723, None),
        (2019, None),
        (2019, 3),
        (2018, None),
    ]
    assert problems == [
        ParseProblem(
            "entry 'e': date '2019' contradicts year '2018'; the year is kept",
            "f.bib",
            5,
            "warning",
        )
    ]
    plain = bibtex.write(_touched([records["a"]]), dialect="bibtex")
    assert plain == "@article{a,\n  title = {T},\n  year = {2019},\n  month = mar\n}\n"
    late = bibtex.write(_touched([records["a"]]), dialect="biblatex")
    assert late == "@article{a,\n  title = {T},\n  date = {2019-03}\n}\n"


def test_duplicate_fields_first_kept_keywords_merged() -> None:
    records, problems = _by_key(
        "@article{a, title = {First}, Title = {Second}, keywords = {x, y}, keywords = {z, X}}\n"
    )
    assert records["a"].title == "First"
    assert records["a"].keywords == ("x", "y", "z")
    assert [p.message for p in problems] == [
        "entry 'a' has field 'title' twice (lines 1 and 1); kept the first value",
        "entry 'a' has field 'keywords' twice (lines 1 and 1); merged the values",
    ]
    text = bibtex.write(list(records.values()))
    assert text == "@article{a,\n  title = {First},\n  keywords = {x, y, z}\n}\n"


def test_and_others_is_et_al_and_written_as_and_others() -> None:
    records, _ = _by_key(
        "@article{a, author = {Smith, J. and OTHERS}}\n@article{b, author = {Doe, A. and others,}}\n"
    )
    for record in records.values():
        assert [p.literal for p in record.authors] == ["", "others"]
        assert record.authors[1].is_others
    text = bibtex.write(list(records.values()))
    assert "author = {Smith, J. and others}" in text
    assert "author = {Doe, A. and others}" in text


DAMAGED = """@article{a, title={T} author={X Y}, year={2000}}
@article{b, title={T},, year={2001}}
@article{c, title={T},
% title={commented},
year={2002}}
@comment{@article{d, title={Inactive}}}
@article{e, title={Unbalanced, year={2003}}
@article{f, title={After}, year={2004}}
"""


def test_damaged_entries_are_recovered_or_rejected_alone() -> None:
    records, problems = _by_key(DAMAGED)
    assert sorted(k for k in records if k) == ["a", "b", "c", "f"]
    assert (records["a"].title, records["a"].authors[0].display(), records["a"].year) == (
        "T",
        "Y, X",
        2000,
    )
    assert (records["b"].title, records["b"].year) == ("T", 2001)
    assert (records["c"].title, records["c"].year, dict(records["c"].fields)) == ("T", 2002, {})
    assert [(p.line, p.severity, p.message) for p in problems] == [
        (
            1,
            "warning",
            "entry 'a': missing comma before field 'author'; read it as a field of its own",
        ),
        (2, "warning", "entry 'b': empty field (',,') skipped"),
        (4, "warning", "entry 'c': a '%' line inside an entry is not a field; skipped"),
        (
            7,
            "error",
            "malformed @article entry 'e': not closed before the next entry starts; skipped",
        ),
    ]
    text = bibtex.write(list(records.values()))
    assert "% title" not in text
    assert "Inactive" not in text
    assert "author={X Y}" not in text


def test_months_in_every_common_form() -> None:
    records, problems = _by_key(
        """@article{a, month={Sept.}}
@article{b, month={sept}}
@article{c, month={September}}
@article{d, month={9}}
@article{e, month=jan # "~15"}
@article{f, month={Summer}}
"""
    )
    assert [r.month for r in records.values()] == [9, 9, 9, 9, 1, None]
    assert [str(p) for p in problems] == [
        "f.bib:6: entry 'f': month 'Summer' names no month; kept as written"
    ]


def test_keyless_entries_are_read_with_a_warning_naming_the_line() -> None:
    result = bibtex.read("@article{, title={One}}\n\n@article{title={Two}, year=2000}\n", "f.bib")
    assert [(r.citekey, r.title) for r in result.records] == [(None, "One"), (None, "Two")]
    assert [str(p) for p in result.problems] == [
        "f.bib:1: @article entry has no citation key; one is generated",
        "f.bib:3: @article entry has no citation key; one is generated",
    ]


def test_arxiv_ids_in_every_common_form() -> None:
    records, _ = _by_key(
        """@article{a, eprint={2101.00001}, archivePrefix={arXiv}}
@article{b, eprint={2101.00002v3}, eprinttype={arxiv}}
@article{c, journal={arXiv preprint arXiv:2101.00003}}
@article{d, doi={10.48550/arXiv.2101.00004}}
@article{e, url={https://arxiv.org/abs/2101.00005v2}}
@article{f, url={http://arxiv.org/pdf/2101.00006.pdf}}
@article{g, eprint={hep-th/9901001}, archiveprefix={arXiv}}
@article{h, journal={Nature}, doi={https://www.doi.org/10.1000/ABC}}
"""
    )
    assert [r.arxiv for r in records.values()] == [
        "2101.00001",
        "2101.00002",
        "2101.00003",
        "2101.00004",
        "2101.00005",
        "2101.00006",
        "hep-th/9901001",
        None,
    ]
    assert records["h"].doi == "10.1000/abc"


def test_export_escapes_what_is_not_valid_latex() -> None:
    """Each value LaTeX would break on is escaped in place; the rest of the entry (its
    one-line layout) is kept (formats/bibtex/patch.py)."""
    text = "@article{a, title={A & B}, journal={J_x}, note={50% off #1}}"
    result = bibtex.read(text + "\n", "f.bib")
    assert len(result.problems) == 1
    assert result.records[0].source_text == text
    assert (result.records[0].source_check or "").endswith("-" * 32)  # never copied whole
    assert bibtex.write(result.records) == (
        "@article{a, title={A \\& B}, journal={J\\_x}, note={50\\% off \\#1}}\n"
    )
