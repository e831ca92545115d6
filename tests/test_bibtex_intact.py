"""An unchanged entry is copied without decoding it, a changed one never (issue 17 item 2).

An import marks each entry it keeps the text of as intact (``papers.source_intact``,
migration 0005); every change of bibliographic data clears the mark
(``library.rows.sources_changed``). The BibTeX export copies an intact entry after
checking only its macros, and writes every other paper as before. Each test changes
a paper through one write path, checks that exactly that paper lost its mark, and
that the export is byte for byte the export of the same library with every mark
cleared (the old path, which recomputes each entry's digest): a stale text is
never copied, an untouched one always is.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import sql_values

from readinglist.formats import bibtex
from readinglist.records import IntactEntry, PaperRecord

MACROS = """\
@string{jt = "Journal of Tests"}
@string{pub = "Test Press"}
"""

A1 = """\
@article{a1,
  author = {Jane Doe},
  title = {First {Paper}},
  journal = jt,
  publisher = pub,
  year = 2020,
}"""

B2 = """\
@article{b2,
  author = {John Roe and Mary Major},
  title = {Second},
  journal = jt # " Letters",
  year = 2021,
  month = mar,
  doi = {10.1000/b2},
}"""

C3 = """\
@article{c3,
  author = {Ann Other},
  title = {Third Paper on Tests},
  journal = {Testing},
  year = 2022,
}"""

D4 = """\
@article{d4,
  author = {Dee Four},
  title = {Fourth},
  journaltitle = {Biblatex Journal},
  date = {2023-05},
}"""

ENTRIES = {"a1": A1, "b2": B2, "c3": C3, "d4": D4}


def library(invoke: Any, tmp_path: Path) -> None:
    source = tmp_path / "refs.bib"
    source.write_text(MACROS + "\n" + "\n\n".join(ENTRIES.values()) + "\n", encoding="utf-8")
    result = invoke("import", str(source))
    assert result.exit_code == 0, result.output


def marks(db_url: str) -> dict[str, bool | None]:
    keys = sql_values(db_url, "SELECT citekey FROM papers ORDER BY citekey")
    values = sql_values(db_url, "SELECT source_intact FROM papers ORDER BY citekey")
    return {
        key: (None if value is None else bool(value))
        for key, value in zip(keys, values, strict=True)
    }


def export(invoke: Any, tmp_path: Path, *args: str) -> str:
    out = tmp_path / "out.bib"
    result = invoke("export", *(args or ("bibtex",)), "-o", str(out))
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def clear_marks(db_url: str) -> None:
    from sqlalchemy import text

    from readinglist import db

    engine = db.make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE papers SET source_intact = NULL"))
    finally:
        engine.dispose()


def assert_same_as_recomputed(invoke: Any, db_url: str, tmp_path: Path, *args: str) -> str:
    """The export with the marks equals the export without any (every digest recomputed)."""
    fast = export(invoke, tmp_path, *args)
    clear_marks(db_url)
    assert export(invoke, tmp_path, *args) == fast
    return fast


def test_import_marks_its_entries_intact_and_export_copies_them(
    invoke, db_url, tmp_path: Path
) -> None:
    library(invoke, tmp_path)
    assert marks(db_url) == dict.fromkeys(ENTRIES, True)
    text = export(invoke, tmp_path)
    for key in ("a1", "b2", "c3"):
        assert ENTRIES[key] in text, key
    # d4 gives date/journaltitle, which classic BibTeX lacks: generated, as before.
    assert D4 not in text
    assert "journal = {Biblatex Journal}" in text
    assert_same_as_recomputed(invoke, db_url, tmp_path)


def test_the_reader_gives_intact_entries_without_people(invoke, db_url, tmp_path) -> None:
    from readinglist import db
    from readinglist import library as lib

    library(invoke, tmp_path)
    engine = db.make_engine(db_url)
    try:
        with db.session_scope(engine) as session:
            ids = [pid for pid, _ in lib.select_ids_and_keys(session, "")]
            found = list(
                lib.iter_bibtex_records(session, ids, intact_fields=bibtex.Writer().rule_fields)
            )
            whole = list(lib.iter_bibtex_records(session, ids))
    finally:
        engine.dispose()
    assert all(isinstance(item, IntactEntry) for item in found)
    by_key = {item.citekey: item for item in found if isinstance(item, IntactEntry)}
    assert by_key["a1"].fields == {}
    assert by_key["a1"].source_text == A1
    # Of the fields, only those the copy rules read are kept.
    assert by_key["d4"].fields == {"date": "2023-05", "journaltitle": "Biblatex Journal"}
    assert all(isinstance(item, PaperRecord) and item.authors for item in whole)


def _editor(tmp_path: Path, old: str, new: str) -> dict[str, Any]:
    script = tmp_path / "edit.py"
    script.write_text(
        "import pathlib, sys\n"
        "path = pathlib.Path(sys.argv[1])\n"
        "text = path.read_text(encoding='utf-8')\n"
        f"assert {old!r} in text, text\n"
        f"path.write_text(text.replace({old!r}, {new!r}), encoding='utf-8')\n",
        encoding="utf-8",
    )
    return {"VISUAL": f"{sys.executable} {script}", "EDITOR": ""}


CHANGES: dict[str, tuple[list[str], str, str]] = {
    # name: (command, the paper it changes, what the export then says)
    "title": (["title", "a1", "A New Title"], "a1", "title = {A {New} {Title}}"),
    "rekey": (["rekey", "a1", "doe2020first"], "doe2020first", "@article{doe2020first,"),
    "merge": (["merge", "c3", "a1"], "c3", "publisher = {Test Press}"),
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_changed_paper_is_generated_and_the_others_copied(
    name: str, invoke, db_url, tmp_path: Path
) -> None:
    library(invoke, tmp_path)
    command, changed, expected = CHANGES[name]
    result = invoke(*command)
    assert result.exit_code == 0, result.output
    now = marks(db_url)
    assert now.pop(changed) is None
    assert all(now.values()), now
    text = assert_same_as_recomputed(invoke, db_url, tmp_path)
    assert expected in text
    for key in {"b2", "c3"} - {changed}:
        assert ENTRIES[key] in text, key


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("Second", "Second Edition", "title = {Second {Edition}}"),
        ("Mary Major", "Mary Minor", "Minor"),  # people only: relinked by Core
        ("10.1000/b2", "10.1000/b2x", "doi = {10.1000/b2x}"),
    ],
)
def test_edit_clears_the_mark(old, new, expected, invoke, db_url, tmp_path: Path) -> None:
    library(invoke, tmp_path)
    result = invoke("edit", "b2", env=_editor(tmp_path, old, new))
    assert result.exit_code == 0, result.output
    now = marks(db_url)
    assert now.pop("b2") is None
    assert all(now.values())
    text = assert_same_as_recomputed(invoke, db_url, tmp_path)
    assert expected in text
    assert B2 not in text
    assert A1 in text
    assert C3 in text


def test_resolve_clears_the_mark_of_the_paper_it_completes(invoke, db_url, tmp_path) -> None:
    library(invoke, tmp_path)
    other = tmp_path / "other.bib"
    other.write_text(
        "@article{other3,\n  author = {Ann Other},\n  title = {Third Paper on Tests},\n"
        "  journal = {Testing},\n  year = 2022,\n  doi = {10.1000/c3},\n  pages = {1--9},\n}\n",
        encoding="utf-8",
    )
    result = invoke("resolve", "--from", str(other))
    assert result.exit_code == 0, result.output
    now = marks(db_url)
    assert now.pop("c3") is None
    assert all(now.values()), now
    text = assert_same_as_recomputed(invoke, db_url, tmp_path)
    assert "10.1000/c3" in text
    assert C3 not in text


def test_a_second_import_merging_into_a_paper_clears_its_mark(invoke, db_url, tmp_path) -> None:
    library(invoke, tmp_path)
    again = tmp_path / "again.bib"
    again.write_text(
        "@article{b2again,\n  author = {John Roe and Mary Major},\n  title = {Second},\n"
        "  journal = {Journal of Tests Letters},\n  year = 2021,\n  doi = {10.1000/b2},\n"
        "  volume = {7},\n}\n",
        encoding="utf-8",
    )
    result = invoke("import", str(again))
    assert result.exit_code == 0, result.output
    now = marks(db_url)
    assert now.pop("b2") is None
    assert all(now.values()), now
    text = assert_same_as_recomputed(invoke, db_url, tmp_path)
    assert "volume = {7}" in text
    assert B2 not in text


def test_a_duplicate_later_in_the_same_file_clears_the_mark(invoke, db_url, tmp_path) -> None:
    source = tmp_path / "dup.bib"
    source.write_text(
        MACROS
        + "\n"
        + B2
        + "\n\n@article{b2dup,\n  author = {John Roe and Mary Major},\n  title = {Second},\n"
        "  year = 2021,\n  doi = {10.1000/b2},\n  pages = {5--6},\n}\n\n" + C3 + "\n",
        encoding="utf-8",
    )
    result = invoke("import", str(source))
    assert result.exit_code == 0, result.output
    assert marks(db_url) == {"b2": None, "c3": True}
    text = assert_same_as_recomputed(invoke, db_url, tmp_path)
    assert "pages = {5--6}" in text
    assert C3 in text


def test_user_state_keeps_the_mark_and_the_options_still_apply(invoke, db_url, tmp_path) -> None:
    library(invoke, tmp_path)
    for command in (
        ["tag", "add", "fish", "a1"],
        ["mark", "read", "b2"],
        ["note", "add", "c3", "-m", "Look again."],
        ["rekey", "d4", "dee2023"],
    ):
        result = invoke(*command)
        assert result.exit_code == 0, result.output
    assert marks(db_url) == {"a1": True, "b2": True, "c3": True, "dee2023": None}
    fast = {
        args: export(invoke, tmp_path, *args)
        for args in (("bibtex",), ("bibtex", "--keywords"), ("bibtex", "--annote"), ("biblatex",))
    }
    assert "keywords = {fish}" in fast[("bibtex", "--keywords")]
    assert "Look again." in fast[("bibtex", "--annote")]
    assert A1 in fast[("bibtex",)]
    assert A1 not in fast[("bibtex", "--keywords")]
    clear_marks(db_url)
    for args, text in fast.items():
        assert export(invoke, tmp_path, *args) == text, args


def test_a_provisional_title_is_never_taken_as_intact(invoke, db_url, tmp_path) -> None:
    """The export's report counts what an intact entry cannot have."""
    library(invoke, tmp_path)
    from sqlalchemy import text

    from readinglist import db

    engine = db.make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text("UPDATE papers SET title_provisional = :t WHERE citekey = 'a1'"), {"t": True}
            )
    finally:
        engine.dispose()
    out = tmp_path / "out.bib"
    result = invoke("export", "bibtex", "-o", str(out))
    assert result.exit_code == 0
    assert "1 of 4 exported entries is not a real reference" in result.stderr
    assert "a1" in result.stderr
    assert "provisional title" in result.stderr


def test_writer_refuses_an_intact_entry_without_a_way_to_complete_it() -> None:
    entry = IntactEntry(1, "a", "misc", False, (), {}, "@misc{a}", "0" * 64, None)
    with pytest.raises(ValueError, match="complete"):
        bibtex.Writer().entries([entry])


def test_an_intact_entry_whose_macro_changed_is_written_from_its_whole_record() -> None:
    """The writer asks for the whole record once, and writes what it writes for it."""
    (whole,) = bibtex.read(MACROS + A1).records
    asked: list[list[int]] = []

    def complete(entries: Any) -> list[PaperRecord]:
        asked.append([entry.paper_id for entry in entries])
        return [whole for _ in entries]

    assert whole.source_text is not None
    assert whole.source_check is not None
    entry = IntactEntry(
        7, "a1", "article", False, (), {}, whole.source_text, whole.source_check, None
    )
    other = '@string{jt = "Another Journal"}\n@string{pub = "Test Press"}'
    intact = bibtex.Writer(strings=other).entries([entry], complete)
    assert asked == [[7]]
    assert intact == bibtex.Writer(strings=other).entries([whole])
    assert bibtex.Writer(strings=MACROS).entries([entry], complete) == A1
    assert asked == [[7]]


#: The one-pattern definition of :func:`macro_names` (before it became two patterns).
_ONE_PATTERN = r'[=#][ \t\r\n]*([^\s"{}#,=()0-9][^\s"{}#,=()]*)'


@pytest.mark.parametrize(
    "text",
    [
        A1,
        B2,
        "@misc{x, a = b # c # {d} # e, f = =g, h = #i, j = {k = l} # m}",
        "@misc{x, a=#b, c=  \n\t d#e#f, g = 12, h = jan}",
        "@misc{x, title = {no macros at all}}",
        "==##=a#=b=#c",
    ],
)
def test_macro_names_finds_what_the_one_pattern_finds(text: str) -> None:
    import re

    expected = tuple(sorted({n.lower() for n in re.findall(_ONE_PATTERN, text)}))
    assert bibtex.macro_names(text) == expected
