"""Every writer of tags, DOIs and entry types holds them to one rule (readinglist.bounds):
a value too long for its column or with characters an export cannot carry is refused
with one line, never a PostgreSQL traceback, never stored; on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

LONG_TAG = "t" * 300


def _tags(db_url: str) -> list[str]:
    from readinglist import db

    engine = db.make_engine(db_url)
    with engine.connect() as conn:
        names = [r[0] for r in conn.exec_driver_sql("SELECT name FROM tags ORDER BY name")]
    engine.dispose()
    return names


def _refused(result: Any, *words: str, code: int = 2) -> None:
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    for word in words:
        assert word in result.stderr


@pytest.fixture
def one_paper(invoke: Callable[..., Any]) -> Callable[..., Any]:
    assert invoke("add", "--title", "Attention is all you need", "--tag", "kept").exit_code == 0
    return invoke


def test_tag_add_refuses_a_tag_longer_than_the_column(one_paper: Any, db_url: str) -> None:
    """``tag add`` with a 300-character tag ended in a traceback on PostgreSQL (VARCHAR
    255) and stored it on SQLite."""
    _refused(one_paper("tag", "add", LONG_TAG, "attention"), "tag of 300 characters", "255")
    assert _tags(db_url) == ["kept"]


def test_add_tag_refuses_a_long_tag_and_adds_nothing(one_paper: Any, db_url: str) -> None:
    result = one_paper("add", "--title", "Deep residual learning", "--tag", LONG_TAG)
    _refused(result, "tag of 300 characters")
    assert one_paper("list", "-k").stdout.split() == ["attention"]
    assert _tags(db_url) == ["kept"]


def test_tag_rename_refuses_a_long_name(one_paper: Any, db_url: str) -> None:
    _refused(one_paper("tag", "rename", "kept", LONG_TAG), "tag of 300 characters")
    assert _tags(db_url) == ["kept"]


def test_tag_of_exactly_the_column_length_is_stored(one_paper: Any, db_url: str) -> None:
    """The bound is the column's, not less: 255 characters are kept whole."""
    assert one_paper("tag", "add", "u" * 255, "attention").exit_code == 0
    assert _tags(db_url) == ["kept", "u" * 255]


def test_add_doi_longer_than_the_column_is_refused(one_paper: Any) -> None:
    """``add --doi`` of over 255 characters ended in a traceback on PostgreSQL."""
    doi = "10.1234/" + "x" * 300
    result = one_paper("add", "--title", "Deep residual learning", "--doi", doi)
    _refused(result, "--doi", "DOI of 308 characters", "255")
    assert one_paper("list", "-k").stdout.split() == ["attention"]


@pytest.mark.parametrize(
    "entry_type",
    [
        "article,\n  title = {Injected},\n}\n@misc{evil",
        "art{icle",
        "misc\n",
        "x" * 65,
        "1article",
    ],
)
def test_add_type_must_be_an_entry_type_name(one_paper: Any, entry_type: str) -> None:
    """``add --type`` with braces or newlines injected an entry into the BibTeX export.
    Only an entry type name (a letter, then letters, digits, - or _; at most 64) is
    taken; the export has one entry."""
    result = one_paper("add", "--title", "Deep residual learning", "--type", entry_type)
    if entry_type == "misc\n":  # surrounding white space is stripped: a valid name
        assert result.exit_code == 0, result.output
    else:
        _refused(result, "entry type")
    exported = one_paper("export", "bibtex").stdout
    assert exported.count("@") == 1 + (entry_type == "misc\n"), exported
    assert "@misc{evil" not in exported
    assert "Injected" not in exported


def test_add_type_keeps_a_valid_name_in_lower_case(one_paper: Any) -> None:
    assert one_paper("add", "--title", "Deep residual", "--type", "InProceedings").exit_code == 0
    assert "@inproceedings{" in one_paper("export", "bibtex").stdout


def test_import_tag_follows_the_tag_rule(one_paper: Any, tmp_path: Path, db_url: str) -> None:
    """``import --tag`` was checked for length only: a tag with a space or a brace was
    stored and could not be exported and read back. Refused by the rule of ``tag add``
    (exit 5, as before for a long one)."""
    bib = tmp_path / "one.bib"
    bib.write_text("@article{k1, title={Deep residual learning}, year={2016}}\n")
    for bad in ("two words", "br{ace", LONG_TAG):
        _refused(one_paper("import", str(bib), "--tag", bad), "tag", code=5)
    assert _tags(db_url) == ["kept"]
    assert one_paper("list", "-k").stdout.split() == ["attention"]


def test_import_rejects_an_entry_whose_type_is_not_a_name() -> None:
    """A record whose entry type is not a BibTeX entry type name (a reader that kept a
    brace or newline) is rejected with its file and line, the others imported."""
    from readinglist.pipelines import limits
    from readinglist.records import PaperRecord

    record = PaperRecord(entry_type="article}\n@misc{x", title="T", line=7)
    checked, problems = limits.check(record, "in.bib")
    assert checked is None
    assert [(p.source, p.line) for p in problems] == [("in.bib", 7)]
    assert "not a BibTeX entry type name" in problems[0].message
    assert limits.check(PaperRecord(entry_type="article", title="T"), "in.bib")[0] is not None


def test_topics_tag_labels_fit_a_tag(invoke: Callable[..., Any], db_url: str) -> None:
    """``topics --tag`` made 312-character tags of papers with very long words (a
    traceback on PostgreSQL). Labels are cut to fit ``topic/<label>-<n>`` in a tag."""
    from readinglist import db, library
    from readinglist.records import PaperRecord

    words = ["alpha" * 30, "bravo" * 30, "charlie" * 20, "delta" * 30, "echo" * 40]
    records = [
        PaperRecord(
            citekey=f"p{i}",
            # Each word in 2 of 5 papers: under half, so it may label a topic
            # (``topics.SHARED``).
            title=" ".join(words[(i + j) % 5] for j in range(2)),
            abstract=" ".join(words[(i + j) % 5] for j in range(2)) + " results",
            year=2026,
        )
        for i in range(8)
    ]
    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:
        library.import_records(session, records, source="seed", fmt="test")
    engine.dispose()
    result = invoke("topics", "--k", "2", "--tag")
    assert result.exit_code == 0, result.output
    tags = [t for t in _tags(db_url) if t.startswith("topic/")]
    assert tags
    assert all(len(t) <= 255 for t in tags), [len(t) for t in tags]
    assert max(len(t) for t in tags) > 200  # the long words are kept, cut at the bound


def test_resolve_from_a_file_with_a_doi_too_long_to_store(
    one_paper: Any, tmp_path: Path, db_url: str
) -> None:
    """``resolve --from`` took a record whose DOI is longer than the column (a traceback
    on PostgreSQL, stored on SQLite). The record is rejected with a warning naming the
    file and line, as ``import`` does; the paper is unchanged."""
    ris = tmp_path / "refs.ris"
    ris.write_text(
        "TY  - JOUR\nTI  - Attention is all you need\nAU  - Vaswani, Ashish\nPY  - 2017\n"
        f"DO  - 10.1234/{'x' * 300}\nER  - \n",
        encoding="utf-8",
    )
    before = one_paper("list", "--json").stdout
    result = one_paper("resolve", "--from", str(ris))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert f"{ris}:1: DOI of 308 characters" in result.stderr
    assert one_paper("list", "--json").stdout == before


def test_an_online_answer_with_a_value_too_long_to_store_is_not_used(
    one_paper: Any, db_url: str
) -> None:
    """An online answer (replayed here in-process) whose DOI is longer than the column
    is left out of what ``resolve --online`` found; a fit answer is kept."""
    from readinglist import db, library
    from readinglist.library import resolving
    from readinglist.records import PaperRecord, Person

    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        pending = resolving.read_pending([library.resolve(session, "attention")])
    engine.dispose()

    def answers(doi: str) -> Any:
        def search(_record: PaperRecord, _used: frozenset[str]) -> Any:
            hit = PaperRecord(
                title="Attention is all you need",
                authors=(Person("Vaswani", "Ashish"),),
                year=2017,
                doi=doi,
            )
            return [("Crossref", "10.x", hit)]

        return search

    long_doi = "10.1234/" + "x" * 300
    assert [kept for _, kept in resolving.search_online(pending, answers(long_doi))] == [[]]
    found = resolving.search_online(pending, answers("10.1234/ok"))
    assert [hit.doi for _, _, hit in found[0][1]] == ["10.1234/ok"]


def test_a_field_name_longer_than_the_merge_history_keeps(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """A BibTeX field of an 80-character name, merged with another value, ended the
    import in a traceback on PostgreSQL (its merge history names fields in 64
    characters). The entry is rejected with its file and line; nothing is stored."""
    name = "f" * 80
    bib = tmp_path / "a.bib"
    bib.write_text(
        f"@article{{k1, title={{Deep residual learning}}, author={{He, Kaiming}}, "
        f"year={{2016}}, {name}={{one}}}}\n",
        encoding="utf-8",
    )
    result = invoke("import", str(bib))
    assert result.exit_code == 5, result.output
    assert "Traceback" not in result.output
    assert f"{bib}:1: field name 'ffffffffffffffffffff'... of 80 characters" in result.stderr
    assert invoke("list", "-k").stdout == ""
