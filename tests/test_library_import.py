"""library.import_records: citation keys, duplicate detection and merging; rekey and merge."""

from __future__ import annotations

import pytest

from readinglist import library
from readinglist.errors import Conflict, NotFound
from readinglist.records import PaperRecord, Person

VASWANI = PaperRecord(
    entry_type="inproceedings",
    title="Attention Is All You Need",
    authors=(Person(family="Vaswani", given="Ashish"), Person(family="Shazeer", given="Noam")),
    year=2017,
    venue="NeurIPS",
)


def run_import(session, *records, **options):
    return library.import_records(
        session, list(records), source="test.bib", fmt="bibtex", **options
    )


def keys(session) -> list[str]:
    return [p.citekey for p in library.all_papers(session)]


def test_generated_key_is_family_year_first_significant_word(session) -> None:
    report = run_import(session, VASWANI, PaperRecord(title="The Art of War", year=2020))
    assert report.added == ["vaswani2017attention", "art2020"]


def test_short_name_key_when_no_authors(session) -> None:
    report = run_import(session, PaperRecord(title="SPAR: x", short_name="SPAR", year=2026))
    assert report.added == ["spar2026"]


def test_reimport_adds_nothing(session) -> None:
    run_import(session, VASWANI)
    report = run_import(session, VASWANI)
    assert report.added == []
    assert report.present == ["vaswani2017attention"]
    assert keys(session) == ["vaswani2017attention"]


def test_colliding_generated_keys_get_letter_suffixes(session) -> None:
    other = PaperRecord(
        title="Attention Mechanisms Revisited", authors=VASWANI.authors[:1], year=2017
    )
    third = PaperRecord(title="Attention for Graphs", authors=VASWANI.authors[:1], year=2017)
    report = run_import(session, VASWANI, other, third)
    assert report.added == [
        "vaswani2017attention",
        "vaswani2017attentiona",
        "vaswani2017attentionb",
    ]


def test_source_key_collision_is_suffixed_case_insensitively_with_warning(session) -> None:
    run_import(session, PaperRecord(citekey="Smith2020", title="One Paper", year=2020))
    report = run_import(
        session, PaperRecord(citekey="smith2020", title="A Different Paper", year=2020, line=7)
    )
    assert report.added == ["smith2020a"]
    assert [str(p) for p in report.problems] == [
        "test.bib:7: citation key 'smith2020' is already used by another paper; imported as 'smith2020a'"
    ]


def test_a_key_taken_with_a_to_aa_in_the_library_gets_ab(session) -> None:
    """The suffixed forms of a taken key are looked up 26 at a time (issue 17: exact
    look-ups, not a prefix query): with K2020, K2020a .. K2020z and an alias K2020aa in
    the library, a new K2020 (any case) needs the second batch and gets K2020ab."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    run_import(
        session,
        *(
            PaperRecord(citekey=f"K2020{s}", title=f"Paper number {i}", year=2020)
            for i, s in enumerate(["", *letters])
        ),
    )
    run_import(session, PaperRecord(citekey="old", title="Renamed paper", year=2021))
    library.rekey(session, library.resolve(session, "old"), "K2020aa")
    library.rekey(session, library.resolve(session, "K2020aa"), "renamed")  # alias K2020aa
    report = run_import(session, PaperRecord(citekey="k2020", title="Yet another", year=2020))
    assert report.added == ["k2020ab"]


def test_doi_duplicate_fills_missing_fields_and_keeps_user_title(session) -> None:
    run_import(session, PaperRecord(title="Deep Nets", doi="10.1000/ABC", year=2020))
    paper = library.resolve(session, "deep2020")
    paper.title = "Deep Nets (my title)"
    session.flush()
    report = run_import(
        session,
        PaperRecord(title="Deep Nets", doi="https://doi.org/10.1000/abc", abstract="We study."),
        tags=["dl"],
    )
    assert report.added == []
    assert report.merged == [("deep2020", ["abstract", "tags"])]
    session.expire_all()
    record = library.to_record(library.resolve(session, "deep2020"))
    assert record.title == "Deep Nets (my title)"
    assert record.abstract == "We study."
    assert record.tags == ("dl",)


def test_identifier_match_with_different_title_is_a_conflict_not_a_merge(session) -> None:
    run_import(session, PaperRecord(title="Neural Machine Translation", doi="10.18653/v1/x"))
    report = run_import(
        session,
        PaperRecord(title="Coreference Resolution for Dialogue", doi="10.18653/v1/x", line=3),
    )
    assert report.added == ["coreference"]
    assert "shares an identifier with 'neural'" in str(report.problems[0])
    assert len(keys(session)) == 2


def test_arxiv_any_version_and_url_form_is_the_same_paper(session) -> None:
    run_import(session, PaperRecord(title="Paper A", arxiv="2401.01234v1"))
    report = run_import(
        session, PaperRecord(title="Paper A", arxiv="https://arxiv.org/pdf/2401.01234v3.pdf")
    )
    assert report.present == ["papera"] or report.present == [keys(session)[0]]
    assert len(keys(session)) == 1


def test_title_year_and_first_author_identify_a_paper(session) -> None:
    run_import(session, VASWANI)
    near = PaperRecord(
        title="Attention is all you need!",
        authors=(Person(family="Vaswani", given="A."),),
        year=2018,
    )
    far = PaperRecord(title="Attention is all you need", authors=VASWANI.authors, year=2020)
    report = run_import(session, near, far)
    assert report.present == ["vaswani2017attention"]
    assert report.added == ["vaswani2020attention"]


def test_same_abstract_with_other_whitespace_and_markup_is_present(session) -> None:
    first = PaperRecord(
        title="SPAR", title_provisional=True, abstract="We propose **SPAR**, a  method."
    )
    again = PaperRecord(
        title="SPAR again", title_provisional=True, abstract="We propose SPAR,\na method."
    )
    run_import(session, first)
    report = run_import(session, again)
    assert report.added == []
    assert len(keys(session)) == 1


def test_no_merge_reports_duplicates_and_imports_nothing_for_them(session) -> None:
    run_import(session, VASWANI)
    report = run_import(session, VASWANI, merge=False)
    assert report.skipped == [("test.bib", "vaswani2017attention")]
    assert report.added == []


def test_duplicates_within_one_import_are_merged(session) -> None:
    partial = PaperRecord(title="X Y Z", doi="10.1/xyz")
    fuller = PaperRecord(title="X Y Z", doi="10.1/xyz", abstract="Full abstract.")
    report = run_import(session, partial, fuller)
    assert report.added == ["xyz"] or len(report.added) == 1
    record = library.to_record(library.resolve(session, report.added[0]))
    assert record.abstract == "Full abstract."


def test_rekey_keeps_old_key_as_alias(session) -> None:
    run_import(session, VASWANI, PaperRecord(title="Other", year=2001))
    paper = library.resolve(session, "vaswani2017attention")
    assert library.rekey(session, paper, "attention") == "vaswani2017attention"
    assert library.resolve(session, "VASWANI2017ATTENTION").citekey == "attention"
    with pytest.raises(Conflict, match="already used by 'other2001'"):
        library.rekey(session, paper, "Other2001")


def test_merge_papers_unites_tags_and_aliases(session) -> None:
    run_import(session, VASWANI, PaperRecord(title="Attention Copy", abstract="Abs.", tags=("x",)))
    keep = library.resolve(session, "vaswani2017attention")
    other = library.resolve(session, "attention")
    filled = library.merge_papers(session, keep, [other])
    assert filled == ["abstract"]
    session.expire_all()
    merged = library.to_record(library.resolve(session, "attention"))
    assert merged.citekey == "vaswani2017attention"
    assert merged.tags == ("x",)
    assert merged.abstract == "Abs."
    with pytest.raises(NotFound):
        library.resolve_many(session, ["vaswani2017attention", "nope"])


def test_merge_into_a_paper_found_only_by_its_citation_key(session) -> None:
    # Regression (fuzzer: KeyError in _apply_merges): an untitled paper matched by key
    # and completed by the second import.
    run_import(session, PaperRecord(citekey="nt", authors=(Person("Doe", "J"),), year=2020))
    report = run_import(
        session,
        PaperRecord(citekey="nt", authors=(Person("Doe", "J"),), year=2020, venue="Nature"),
    )
    assert report.merged == [("nt", ["venue"])]
    assert library.to_record(library.resolve(session, "nt")).venue == "Nature"


def test_a_title_match_loads_only_the_papers_of_close_years(session, monkeypatch) -> None:
    """Issue 17 (session 8): a generic title ("Editorial") names papers of every year; a
    chunk's look-up loads (with people and tags) only those a record of that title may
    duplicate by year (``dedupe.years_close``), not all of them, so the import does not
    slow down as they pile up. A record without a year still sees them all."""
    from readinglist.library import matching

    reviews = [
        PaperRecord(
            citekey=f"rev{year}",
            title="Editorial",
            year=year,
            venue="J. Fish",
            fields={"volume": str(year - 1949)},
        )
        for year in range(1950, 2000)
    ]
    run_import(session, *reviews)
    loaded: list[int] = []
    load_papers = matching.load_papers

    def spy(session_, ids, **kwargs):
        loaded.extend(ids)
        return load_papers(session_, ids, **kwargs)

    monkeypatch.setattr(matching, "load_papers", spy)
    again = PaperRecord(
        citekey="rev1990b", title="Editorial", year=1990, venue="J. Fish", fields={"volume": "41"}
    )
    report = run_import(session, again)
    assert report.present == ["rev1990"]  # the same volume: the same paper
    assert len(loaded) == 3  # 1989, 1990, 1991
    loaded.clear()
    report = run_import(session, PaperRecord(citekey="revx", title="Editorial", venue="J. Fish"))
    assert len(loaded) == 50
