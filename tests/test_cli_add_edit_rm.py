"""``add``, ``title``, ``edit`` and ``rm``, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import seed, show, sql_value, sql_values

from readinglist.cli.add import parse_author
from readinglist.records import PaperRecord, Person


def column(db_url: str, key: str, name: str) -> Any:
    return sql_value(db_url, f"SELECT {name} FROM papers WHERE citekey = :k", {"k": key})


column_rows = sql_values


# --- add ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Vaswani, Ashish", Person("Vaswani", "Ashish")),
        ("Noam Shazeer", Person("Shazeer", "Noam")),
        ("van der Berg, Jan", Person("Berg", "Jan", von="van der")),
        ("Jan van der Berg", Person("Berg", "Jan", von="van der")),
        ("King, Jr., Martin Luther", Person("King", "Martin Luther", jr="Jr.")),
        ("Plato", Person("Plato")),
        ("{European Space Agency}", Person(literal="European Space Agency")),
        ("  de  la Fuente,   Ana  ", Person("Fuente", "Ana", von="de la")),
    ],
)
def test_parse_author(text: str, expected: Person) -> None:
    assert parse_author(text) == expected


def test_add_prints_the_new_key_and_normalizes_identifiers(invoke, db_url) -> None:
    result = invoke(
        "add",
        "--title",
        "Attention  Is All You Need",
        "--author",
        "Vaswani, Ashish",
        "--author",
        "Noam Shazeer",
        "--year",
        "2017",
        "--venue",
        "NeurIPS",
        "--doi",
        "https://doi.org/10.5555/ABC.Def",
        "--arxiv",
        "https://arxiv.org/pdf/1706.03762v5.pdf",
        "--url",
        "https://example.org/attention",
        "--abstract",
        "We propose the Transformer.",
        "--tag",
        "nlp",
        "--tag",
        "to-cite",
    )
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "vaswani2017attention\n",
        "added vaswani2017attention\n",
    )
    data = show(invoke, "vaswani2017attention")
    assert {k: data[k] for k in ("title", "title_provisional", "authors", "year", "venue")} == {
        "title": "Attention Is All You Need",
        "title_provisional": False,
        "authors": ["Vaswani, Ashish", "Shazeer, Noam"],
        "year": 2017,
        "venue": "NeurIPS",
    }
    assert {k: data[k] for k in ("doi", "arxiv", "url", "abstract", "status", "tags")} == {
        "doi": "10.5555/abc.def",
        "arxiv": "1706.03762",
        "url": "https://example.org/attention",
        "abstract": "We propose the Transformer.",
        "status": "new",
        "tags": ["nlp", "to-cite"],
    }
    assert data["entry_type"] == "misc"


@pytest.mark.parametrize(
    ("option", "value", "stored"),
    [
        ("--doi", "10.1000/XYZ", "10.1000/xyz"),
        ("--doi", "doi:10.1000/XYZ", "10.1000/xyz"),
        ("--doi", "http://dx.doi.org/10.1000/xyz", "10.1000/xyz"),
        ("--arxiv", "2401.01234", "2401.01234"),
        ("--arxiv", "arXiv:2401.01234v2", "2401.01234"),
        ("--arxiv", "https://arxiv.org/abs/hep-th/9901001v1", "hep-th/9901001"),
    ],
)
def test_add_accepts_identifiers_in_any_common_form(
    invoke, db_url, option: str, value: str, stored: str
) -> None:
    result = invoke("add", "--title", "A paper", option, value)
    assert result.exit_code == 0, result.stderr
    assert show(invoke, result.stdout.strip())[option.lstrip("-")] == stored


@pytest.mark.parametrize(
    ("args", "key", "year", "month"),
    [
        (("--arxiv", "2401.01234"), "doe2024sparse", 2024, None),
        (("--arxiv", "https://arxiv.org/abs/hep-th/9901001v1"), "doe1999sparse", 1999, None),
        (("--arxiv", "2401.01234", "--year", "2025"), "doe2025sparse", 2025, None),
    ],
)
def test_add_takes_the_year_from_the_arxiv_id(
    invoke, db_url, args: tuple[str, ...], key: str, year: int, month: int | None
) -> None:
    """Without --year, the year comes from the arXiv id (fresh-user report: a paper added
    by its arXiv id had no year, and its key none either); the month does not (a merge
    would set it beside the published version's year)."""
    result = invoke("add", "--title", "Sparse probes", "--author", "Doe, Jane", *args)
    assert (result.exit_code, result.stdout) == (0, key + "\n"), result.stderr
    data = show(invoke, key)
    assert (data["year"], data["month"]) == (year, month)


def test_add_refuses_what_is_not_an_identifier(invoke, db_url) -> None:
    result = invoke("add", "--title", "T", "--doi", "not-a-doi")
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: --doi 'not-a-doi' is not a DOI (expected 10.NNNN/...)\n",
    )
    result = invoke("add", "--title", "T", "--arxiv", "abc")
    assert result.exit_code == 2
    assert invoke("add", "--title", "  ").exit_code == 2
    assert invoke("add", "--author", "Doe, J").exit_code == 2  # --title is required
    assert json.loads(invoke("list", "--json").stdout) == []


def test_add_a_paper_you_have_completes_it(invoke, db_url) -> None:
    first = invoke(
        "add", "--title", "Deep Residual Learning", "--author", "He, Kaiming", "--year", "2016"
    )
    assert first.stdout == "he2016deep\n"
    again = invoke(
        "add",
        "--title",
        "Deep residual learning",
        "--author",
        "Kaiming He",
        "--year",
        "2016",
        "--arxiv",
        "1512.03385",
    )
    assert (again.exit_code, again.stdout, again.stderr) == (
        0,
        "he2016deep\n",
        "already in the library as he2016deep; added arxiv\n",
    )
    same = invoke("add", "--title", "Deep Residual Learning", "--arxiv", "arXiv:1512.03385")
    assert (same.stdout, same.stderr) == (
        "he2016deep\n",
        "already in the library as he2016deep; nothing changed\n",
    )
    other = invoke("add", "--title", "Deep Networks", "--author", "He, Kaiming", "--year", "2016")
    assert other.stdout == "he2016deepa\n"
    clash = invoke("add", "--title", "Unrelated", "--arxiv", "1512.03385")
    assert (clash.stdout, clash.stderr) == (  # the year from the arXiv id, 1512: 2015
        "unrelated2015\n",
        "warning: shares an identifier with 'he2016deep' but the titles differ; "
        "imported as a separate paper\nadded unrelated2015\n",
    )
    assert [p["key"] for p in json.loads(invoke("list", "--json").stdout)] == [
        "he2016deep",
        "he2016deepa",
        "unrelated2015",
    ]


# --- title ----------------------------------------------------------------------------------


def test_title_sets_a_real_title(invoke, db_url) -> None:
    seed(db_url, PaperRecord(citekey="spar2026", title="Offline policy", title_provisional=True))
    result = invoke("title", "spar2026", "Support-Preserving  Action Rectification")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        "spar2026: title set to 'Support-Preserving Action Rectification'\n",
    )
    data = show(invoke, "spar2026")
    assert (data["title"], data["title_provisional"]) == (
        "Support-Preserving Action Rectification",
        False,
    )
    assert column(db_url, "spar2026", "title_key") == "support preserving action rectification"
    assert "rectification" in column(db_url, "spar2026", "search_text").split()
    assert "offline" not in column(db_url, "spar2026", "search_text").split()


def test_title_errors(invoke, db_url) -> None:
    seed(db_url, PaperRecord(citekey="spar2026", title="Old"))
    result = invoke("title", "nope", "New")
    assert (result.exit_code, result.stderr) == (3, "Error: no paper with citation key 'nope'\n")
    result = invoke("title", "spar2026", "   ")
    assert (result.exit_code, result.stderr) == (2, "Error: a title cannot be empty\n")
    assert show(invoke, "spar2026")["title"] == "Old"


# --- edit -----------------------------------------------------------------------------------


def editor(tmp_path: Path, *rounds: list[tuple[str, str]] | None) -> dict[str, Any]:
    """An $EDITOR that, on its n-th run, applies the n-th list of (old, new) replacements
    to the file (None: closes without saving). Each run's input is kept in
    ``seen-<n>.bib``."""
    script = tmp_path / "edit.py"
    script.write_text(
        "import json, pathlib, shutil, sys\n"
        f"here = pathlib.Path({str(tmp_path)!r})\n"
        f"rounds = json.loads({json.dumps(list(rounds))!r})\n"
        "n = len(list(here.glob('seen-*.bib')))\n"
        "shutil.copy(sys.argv[1], here / f'seen-{n}.bib')\n"
        "if rounds[n] is not None:\n"
        "    text = pathlib.Path(sys.argv[1]).read_text(encoding='utf-8')\n"
        "    for old, new in rounds[n]:\n"
        "        assert old in text, (old, text)\n"
        "        text = text.replace(old, new)\n"
        "    pathlib.Path(sys.argv[1]).write_text(text, encoding='utf-8')\n",
        encoding="utf-8",
    )
    return {"VISUAL": f"{sys.executable} {script}", "EDITOR": None}


def vaswani(db_url: str) -> None:
    seed(
        db_url,
        PaperRecord(
            citekey="vaswani2017attention",
            entry_type="inproceedings",
            title="Attention Is All You Need",
            authors=(Person("Vaswani", "Ashish"), Person("Shazeer", "Noam")),
            year=2017,
            venue="NeurIPS",
            tags=("nlp",),
        ),
        PaperRecord(citekey="he2016deep", title="Deep Residual Learning", year=2016),
    )


def test_edit_names_the_fields_it_changed(invoke, db_url, tmp_path) -> None:
    """A field without a column of its own is named (fresh-user report: ``edit`` said
    "changed title, fields" for a new title alone)."""
    vaswani(db_url)
    env = editor(
        tmp_path, [("{2017}", "{2017},\n  pages = {5998--6008}")], [("{All}", "{Everything}")]
    )
    result = invoke("edit", "vaswani2017attention", env=env)
    assert (result.exit_code, result.stderr) == (0, "vaswani2017attention: changed pages\n")
    result = invoke("edit", "vaswani2017attention", env=env)
    assert (result.exit_code, result.stderr) == (0, "vaswani2017attention: changed title\n")


def test_edit_applies_what_changed(invoke, db_url, tmp_path) -> None:
    vaswani(db_url)
    invoke("mark", "to-read", "vaswani2017attention")
    env = editor(
        tmp_path,
        [
            ("{2017}", "{2018}"),
            ("Shazeer, Noam", "Shazeer, Noam and Parmar, Niki"),
            ("{All}", "{Everything}"),
        ],
    )
    result = invoke("edit", "vaswani2017attention", env=env)
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        # Not "fields": the raw forms of the title, authors and year changed with them.
        "vaswani2017attention: changed title, authors, year\n",
    )
    shown = (tmp_path / "seen-0.bib").read_text(encoding="utf-8")
    assert shown.startswith("@inproceedings{vaswani2017attention,\n")
    data = show(invoke, "vaswani2017attention")
    assert (data["title"], data["year"], data["authors"]) == (
        "Attention Is Everything You Need",
        2018,
        ["Vaswani, Ashish", "Shazeer, Noam", "Parmar, Niki"],
    )
    assert (data["status"], data["tags"], data["key"]) == (
        "to-read",
        ["nlp"],
        "vaswani2017attention",
    )
    assert column(db_url, "vaswani2017attention", "title_key") == "attention is everything you need"
    assert "parmar" in column(db_url, "vaswani2017attention", "search_text").split()


def test_edit_replacing_the_first_author(invoke, db_url, tmp_path) -> None:
    vaswani(db_url)
    env = editor(tmp_path, [("Vaswani, Ashish", "Smith, John")])
    result = invoke("edit", "vaswani2017attention", env=env)
    assert (result.exit_code, result.stderr) == (0, "vaswani2017attention: changed authors\n")
    assert show(invoke, "vaswani2017attention")["authors"] == ["Smith, John", "Shazeer, Noam"]
    words = column(db_url, "vaswani2017attention", "search_text").split()
    assert ("smith" in words, "vaswani" in words) == (True, False)


def test_edit_unchanged_or_unsaved_buffer_changes_nothing(invoke, db_url, tmp_path) -> None:
    vaswani(db_url)
    before = show(invoke, "he2016deep")
    result = invoke("edit", "he2016deep", env=editor(tmp_path, []))
    assert (result.exit_code, result.stderr) == (0, "he2016deep: unchanged\n")
    for seen in tmp_path.glob("seen-*.bib"):
        seen.unlink()
    result = invoke("edit", "he2016deep", env=editor(tmp_path, None))
    assert (result.exit_code, result.stderr) == (0, "he2016deep: not saved; nothing changed\n")
    assert show(invoke, "he2016deep") == before


def test_edit_a_new_key_works_like_rekey(invoke, db_url, tmp_path) -> None:
    vaswani(db_url)
    env = editor(tmp_path, [("{he2016deep,", "{he2016resnet,"), ("{2016}", "{2015}")])
    result = invoke("edit", "he2016deep", env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ("he2016resnet: changed key (was he2016deep, kept as an alias), year\n")
    data = show(invoke, "he2016deep")
    assert (data["key"], data["year"], data["aliases"]) == ("he2016resnet", 2015, ["he2016deep"])


def test_edit_to_a_key_in_use_is_refused(invoke, db_url, tmp_path) -> None:
    vaswani(db_url)
    env = editor(tmp_path, [("{he2016deep,", "{Vaswani2017Attention,"), ("{2016}", "{2015}")])
    result = invoke("edit", "he2016deep", env=env)
    assert (result.exit_code, result.stderr) == (
        4,
        "Error: citation key 'Vaswani2017Attention' is already used by 'vaswani2017attention'\n",
    )
    data = show(invoke, "he2016deep")
    assert (data["key"], data["year"], data["aliases"]) == ("he2016deep", 2016, [])


def test_edit_reopens_the_editor_on_a_syntax_error(invoke, db_url, tmp_path) -> None:
    from readinglist.formats import bibtex

    vaswani(db_url)
    env = editor(tmp_path, [("year = {2016}", "year = {2016")], [("year = {2016", "year = {2017}")])
    result = invoke("edit", "he2016deep", env=env)
    assert result.exit_code == 0, result.stderr
    broken = "@misc{he2016deep,\n  title = {Deep {Residual} {Learning}},\n  year = {2016\n}\n"
    [reported] = bibtex.read(broken, "<edit>").problems  # the reader's own wording
    problem = f"line {reported.line}: {reported.message}"
    assert result.stderr == (
        f"warning: he2016deep: {problem}; re-opening the editor\nhe2016deep: changed year\n"
    )
    assert (tmp_path / "seen-1.bib").read_text(encoding="utf-8") == (
        f"% readinglist: {problem}\n"
        "% readinglist: (lines counted from below these comments) fix the entry and save; "
        "save an empty buffer to cancel\n" + broken
    )
    assert show(invoke, "he2016deep")["year"] == 2017


def test_edit_gives_up_when_saved_again_unfixed(invoke, db_url, tmp_path) -> None:
    from readinglist.formats import bibtex

    vaswani(db_url)
    twice = ("title = {Deep {Residual} {Learning}},", "title = {A},\n  title = {B},")
    env = editor(tmp_path, [twice], [])
    result = invoke("edit", "he2016deep", env=env)
    assert result.exit_code == 5
    text = "@misc{he2016deep,\n  title = {A},\n  title = {B},\n  year = {2016}\n}\n"
    [reported] = bibtex.read(text, "<edit>").problems  # the reader's own wording
    assert reported.line == 3
    assert result.stderr.splitlines()[-1] == (
        f"Error: he2016deep: line 3: {reported.message}; nothing changed"
    )
    assert show(invoke, "he2016deep")["title"] == "Deep Residual Learning"


def test_edit_unknown_ref(invoke, db_url, tmp_path) -> None:
    result = invoke("edit", "nope", env=editor(tmp_path, []))
    assert (result.exit_code, result.stderr) == (3, "Error: no paper with citation key 'nope'\n")
    assert not list(tmp_path.glob("seen-*.bib"))


# --- rm -------------------------------------------------------------------------------------


def keys(invoke: Any) -> list[str]:
    return [p["key"] for p in json.loads(invoke("list", "--json").stdout)]


def test_rm_with_yes(invoke, db_url) -> None:
    vaswani(db_url)
    invoke("note", "add", "vaswani2017attention", "-m", "n")
    invoke("mark", "read", "vaswani2017attention")
    result = invoke("rm", "--yes", "vaswani2017attention")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        "removed 1 paper: vaswani2017attention\n",
    )
    assert keys(invoke) == ["he2016deep"]
    assert json.loads(invoke("tag", "list", "--json").stdout) == []
    assert column_rows(db_url, "SELECT name FROM tags") == []
    assert column_rows(db_url, "SELECT body FROM notes") == []
    assert column_rows(db_url, "SELECT to_status FROM status_events") == []


def test_rm_off_a_terminal_needs_yes(invoke, db_url) -> None:
    vaswani(db_url)
    result = invoke("rm", "he2016deep")
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: rm asks for confirmation, but standard input is not a terminal; use --yes\n",
    )
    assert keys(invoke) == ["vaswani2017attention", "he2016deep"]


def test_rm_unknown_ref_removes_nothing(invoke, db_url) -> None:
    vaswani(db_url)
    result = invoke("rm", "--yes", "he2016deep", "gone1999")
    assert (result.exit_code, result.stderr) == (
        3,
        "Error: no paper with citation key 'gone1999'; nothing changed\n",
    )
    assert keys(invoke) == ["vaswani2017attention", "he2016deep"]


def test_rm_asks_on_a_terminal(invoke, db_url, monkeypatch) -> None:
    from readinglist.cli import rm

    vaswani(db_url)
    monkeypatch.setattr(rm, "stdin_is_terminal", lambda: True)
    result = invoke("rm", "he2016deep", "vaswani2017attention", input="n\n")
    assert result.exit_code == 0
    assert result.stderr == (
        "Remove 2 papers (he2016deep, vaswani2017attention)? [y/N]: n\nnothing removed\n"
    )
    assert keys(invoke) == ["vaswani2017attention", "he2016deep"]
    result = invoke("rm", "he2016deep", input="y\n")
    assert result.exit_code == 0
    assert result.stderr.endswith("removed 1 paper: he2016deep\n")
    assert keys(invoke) == ["vaswani2017attention"]


def test_rm_by_query(invoke, db_url) -> None:
    vaswani(db_url)
    result = invoke("rm", "--yes", "-q", "tag:nlp")
    assert (result.exit_code, result.stderr) == (0, "removed 1 paper: vaswani2017attention\n")
    assert keys(invoke) == ["he2016deep"]
