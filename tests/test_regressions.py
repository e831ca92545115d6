"""Regression tests for bugs found by hostile-input testing (each with the right value)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import SQLITE_ONLY, require_tools

from readinglist.cli import cli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "icml2026-abstracts.txt"


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, list(args), env=env)


def test_reimporting_our_own_exports_adds_nothing_and_keeps_provisional_titles(
    invoke, tmp_path: Path
) -> None:
    assert invoke("import", str(EXAMPLE)).exit_code == 0
    for fmt in ("bibtex", "ris", "csl-json"):
        out = tmp_path / f"export.{fmt}"
        assert invoke("export", fmt, "-o", str(out)).exit_code == 0
        result = invoke("import", "--format", fmt, str(out))
        assert result.exit_code == 0, result.stderr
        assert "0 added, 0 merged, 19 already present, 0 rejected" in result.stderr
    papers = json.loads(invoke("list", "--json").stdout)
    assert sum(p["title_provisional"] for p in papers) == 19


def test_untitled_entry_with_a_key_is_not_duplicated_on_reimport(invoke, tmp_path: Path) -> None:
    path = tmp_path / "nt.bib"
    path.write_text("@article{nt, author={Doe, J}, year=2020}\n", encoding="utf-8")
    assert "1 added" in invoke("import", str(path)).stderr
    assert "0 added, 0 merged, 1 already present" in invoke("import", str(path)).stderr


def test_nul_characters_are_dropped_not_stored(invoke, tmp_path: Path) -> None:
    path = tmp_path / "nul.json"
    path.write_text(
        '[{"id": "k", "type": "article-journal", "title": "nul\\u0000inside"}]', encoding="utf-8"
    )
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.stderr
    assert json.loads(invoke("show", "k", "--json").stdout)["title"] == "nulinside"


def test_export_through_a_symlink_writes_the_target_and_keeps_the_link(
    invoke, tmp_path: Path
) -> None:
    assert invoke("import", str(EXAMPLE)).exit_code == 0
    target = tmp_path / "real.bib"
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.bib"
    link.symlink_to(target)
    assert invoke("export", "bibtex", "-o", str(link)).exit_code == 0
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8").startswith("@inproceedings{")


def test_sqlite_path_with_percent_sign_works(tmp_path: Path) -> None:
    db = tmp_path / "50%.db"
    result = run("--db", str(db), "import", str(EXAMPLE))
    assert result.exit_code == 0, result.stderr
    assert run("--db", str(db), "list", "-k").stdout.count("\n") == 19


def test_db_that_is_not_a_database_exits_6_in_one_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.dat"  # (a .txt name is refused before: a file to import)
    text.write_text("just text\n" * 100, encoding="utf-8")
    result = run("--db", str(text), "list")
    assert result.exit_code == 6
    assert result.stderr == (
        f"Error: {text}: not a readinglist database (file is not a database)\n"
    )


def test_foreign_sqlite_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE mine (x)")
    result = run("--db", str(path), "list")
    assert result.exit_code == 6
    assert "not a readinglist library" in result.stderr
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"mine"}


def test_empty_db_option_is_a_usage_error() -> None:
    result = run("--db", "", "list")
    assert result.exit_code == 2
    assert "--db" in result.stderr


@SQLITE_ONLY
def test_huge_numbers_are_usage_errors(invoke) -> None:
    assert invoke("list", "--limit", "99999999999999999999").exit_code == 2
    assert invoke("note", "rm", "99999999999999999999").exit_code == 2
    assert invoke("import", "--undo", "99999999999999999999").exit_code == 2


def test_editor_with_unbalanced_quote_is_a_usage_error(invoke) -> None:
    assert invoke("import", str(EXAMPLE)).exit_code == 0
    result = invoke("edit", "spar2026", env={"EDITOR": 'vi "x', "VISUAL": ""})
    assert result.exit_code == 2, result.stderr
    assert "cannot run the editor" in result.stderr


def test_long_bad_query_is_quoted_shortened() -> None:
    from readinglist.errors import InvalidQuery

    message = str(InvalidQuery("(" + "a " * 1000, "unbalanced parenthesis"))
    assert len(message) < 300
    assert message.endswith("…': unbalanced parenthesis")


def test_utf16_file_with_odd_trailing_byte_imports(invoke, tmp_path: Path) -> None:
    path = tmp_path / "u.bib"
    path.write_bytes(b"\xff\xfe" + "@article{a,title={x}}\n".encode("utf-16-le") + b"\n")
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.stderr
    assert os.fspath(path) in result.stderr


def test_unbalanced_brace_in_an_abstract_cannot_break_the_bibtex_export() -> None:
    import bibtexparser

    from readinglist.formats import bibtex
    from readinglist.records import PaperRecord

    record = PaperRecord(citekey="k", title="T", abstract="GRACE, a \\textit{lifelong} } model {x")
    text = bibtex.write([record, PaperRecord(citekey="later", title="After")])
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    assert [e.key for e in library.entries] == ["k", "later"]
    assert library.entries[0].fields_dict["abstract"].value == (
        "GRACE, a \\textit{lifelong} \\textbraceright{} model \\textbraceleft{}x"
    )


def test_tag_names_with_control_characters_or_empty_levels_are_refused(invoke) -> None:
    assert invoke("import", str(EXAMPLE)).exit_code == 0
    for bad in ("\x1b", "/a", "a/", "a//b"):
        result = invoke("tag", "add", bad, "spar2026")
        assert result.exit_code == 2, bad
    assert invoke("tag", "add", "a/b", "spar2026").exit_code == 0


def test_pasted_list_with_venue_option_becomes_inproceedings(invoke) -> None:
    text = "We propose FooNet, a network for bar.\n\nWe introduce BazBench, a benchmark.\n"
    result = invoke("import", "-", "--venue", "NeurIPS", "--year", "2025", input=text)
    assert result.exit_code == 0, result.stderr
    papers = json.loads(invoke("list", "--json").stdout)
    assert {(p["entry_type"], p["venue"], p["year"]) for p in papers} == {
        ("inproceedings", "NeurIPS", 2025)
    }


# --- session 2: fresh-user and hostile-input finds ----------------------------------------------

TWO_INTRODUCTIONS = """\
@inproceedings{hutchins-1996-introduction,
  author = {Hutchins, John},
  title = {Introduction},
  booktitle = {EAMT Workshop},
  year = {1996}
}

@inproceedings{hutchins-1997-introduction,
  author = {Hutchins, John},
  title = {Introduction},
  booktitle = {EAMT Workshop},
  year = {1997}
}
"""


def test_one_file_listing_a_title_twice_under_two_keys_and_years_keeps_both(
    invoke, tmp_path: Path
) -> None:
    """The ACL Anthology has one author's "Introduction" of 1996 and of 1997: one source
    listing both under two keys is two works (fresh-user find: they were merged)."""
    bib = tmp_path / "two.bib"
    bib.write_text(TWO_INTRODUCTIONS, encoding="utf-8")
    result = invoke("import", str(bib))
    assert result.stderr.splitlines()[-1].endswith(
        "2 added, 0 merged, 0 already present, 0 rejected"
    )
    assert invoke("list", "-k", "--sort", "key").stdout.split() == [
        "hutchins-1996-introduction",
        "hutchins-1997-introduction",
    ]


def test_a_merged_duplicate_keeps_its_key_as_an_alias(invoke, tmp_path: Path) -> None:
    """The same title, first author and a year apart in two sources is one paper; the
    merged entry's own key must still resolve afterwards."""
    first, second = TWO_INTRODUCTIONS.split("\n\n")
    for name, text in (("a.bib", first), ("b.bib", second)):
        bib = tmp_path / name
        bib.write_text(text + "\n", encoding="utf-8")
        assert invoke("import", str(bib)).exit_code == 0
    shown = invoke("show", "--json", "hutchins-1997-introduction")
    assert shown.exit_code == 0
    assert json.loads(shown.stdout)["key"] == "hutchins-1996-introduction"
    aux = tmp_path / "paper.aux"
    aux.write_text("\\citation{hutchins-1997-introduction}\n", encoding="utf-8")
    result = invoke("export", "bibtex", "--aux", str(aux))
    assert result.stdout.startswith("@inproceedings{hutchins-1996-introduction,\n")
    # BibTeX has no aliases: the entry is written under the cited old key too, so the
    # document compiles with its old \cite (fresh-user find: "Citation undefined").
    assert "\n\n@inproceedings{hutchins-1997-introduction,\n" in result.stdout
    assert result.stderr == (
        f"warning: {aux}: cited key 'hutchins-1997-introduction' is an old key of "
        "'hutchins-1996-introduction'; the export writes the entry under both keys (BibTeX) "
        "or names the old key in its ids (biblatex); cite 'hutchins-1996-introduction' from "
        "now on\n"
    )
    biblatex = invoke("export", "biblatex", "--aux", str(aux))
    assert "names the old key in its ids (biblatex)" in biblatex.stderr
    assert "@inproceedings{hutchins-1997-introduction," not in biblatex.stdout
    assert "ids = {hutchins-1997-introduction}" in biblatex.stdout
    require_tools("bibtex")
    (tmp_path / "refs.bib").write_text(result.stdout, encoding="utf-8")
    aux.write_text(
        "\\relax\n\\citation{hutchins-1997-introduction}\n\\bibstyle{plain}\n\\bibdata{refs}\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        ["bibtex", "paper"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert "I didn't find a database entry" not in run.stdout, run.stdout
    assert "\\bibitem{hutchins-1997-introduction}" in (tmp_path / "paper.bbl").read_text()


def test_aux_nocite_star_exports_every_entry(invoke, tmp_path: Path) -> None:
    bib = tmp_path / "two.bib"
    bib.write_text(TWO_INTRODUCTIONS.replace("1997", "2005"), encoding="utf-8")
    assert invoke("import", str(bib)).exit_code == 0
    aux = tmp_path / "all.aux"
    aux.write_text("\\relax\n\\citation{*}\n", encoding="utf-8")
    result = invoke("export", "bibtex", "--aux", str(aux))
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.count("@inproceedings{") == 2


def test_annote_keeps_a_note_that_occurs_inside_the_existing_annote(invoke, tmp_path: Path) -> None:
    bib = tmp_path / "a.bib"
    bib.write_text(
        "@misc{e2,\n  title = {T},\n  annote = {Existing annote.}\n}\n", encoding="utf-8"
    )
    assert invoke("import", str(bib)).exit_code == 0
    assert invoke("note", "add", "e2", "-m", "annote").exit_code == 0
    out = invoke("export", "bibtex", "--annote").stdout
    assert "annote = {Existing annote.\n\nannote}" in out


def test_input_removed_after_its_check_is_a_clean_error(tmp_path: Path) -> None:
    from readinglist.errors import InvalidInput
    from readinglist.pipelines.importing import Input as _Input

    bib = tmp_path / "gone.bib"
    bib.write_text("@misc{a,\n  title = {T}\n}\n", encoding="utf-8")
    item = _Input.open(str(bib), "auto")
    bib.unlink()
    with pytest.raises(InvalidInput) as caught:
        item.size()
    assert str(caught.value) == f"{bib}: no such file"


def test_bytes_that_stop_being_utf8_are_a_clean_error() -> None:
    from readinglist import formats
    from readinglist.errors import InvalidInput

    pieces = [b"@misc{a, title = {J\xc3\xa4n}}\n", b"@misc{b, title = {\xff\xfe}}\n"]
    with pytest.raises(InvalidInput) as caught:
        list(formats.iter_decode(pieces, "utf-8", "x.bib"))
    assert str(caught.value) == (
        "x.bib: not valid utf-8 text (invalid start byte); did the file change while it was read?"
    )


def test_a_whole_query_in_one_argument_is_read_as_a_query(invoke, example_abstracts) -> None:
    """A shell hands a quoted query as one argument: with an operator or two field terms
    it is the query (``-q`` reads it so too); a fresh user's ``export markdown
    'status:to-read OR status:reading'`` was an error, ``list "tag:rl OR tag:icml"`` a
    phrase that found nothing. One field and words stay a phrase in that field, with a
    warning when it looks like terms."""
    assert invoke("import", str(example_abstracts)).exit_code == 0
    keys = invoke("list", "-k").stdout.split()
    assert invoke("tag", "add", "rl", keys[0]).exit_code == 0
    assert invoke("tag", "add", "icml", keys[1]).exit_code == 0
    assert invoke("mark", "to-read", keys[2]).exit_code == 0
    assert invoke("mark", "reading", keys[3]).exit_code == 0
    result = invoke("list", "-k", "--sort", "key", "tag:rl OR tag:icml")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.split() == sorted(keys[:2])
    both = invoke("list", "-k", "--sort", "key", "(status:to-read OR status:reading) year:2026")
    assert both.stdout.split() == sorted(keys[2:4])
    exported = invoke("export", "markdown", "status:to-read OR status:reading")
    assert exported.exit_code == 0, exported.output
    assert exported.stdout.count("- [ ]") == 2
    # export reads its query once: a phrase warning is said once (it was said twice).
    said = (
        "warning: 'year:2026 transformers' is searched as one phrase (an argument with "
        "spaces); to combine terms, pass them as separate arguments\n"
        "Error: invalid query 'year:\"2026 transformers\"': year:2026 transformers is not a year"
    )
    for command in ("list", "export"):
        args = ("-k",) if command == "list" else ("bibtex",)
        phrase = invoke(command, *args, "year:2026 transformers")
        assert phrase.exit_code == 2
        assert phrase.stderr.startswith(said), phrase.stderr
    # A phrase with no other warning; nothing in this library has it.
    assert invoke("list", "-k", "quantum chromodynamics").stderr == (
        "warning: no paper matches '\"quantum chromodynamics\"'\n"
    )
