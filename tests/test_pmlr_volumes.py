"""A PMLR volume file: one untitled ``@Proceedings`` then ``@InProceedings`` entries that
lack what it holds. The volume fills in its papers as a ``crossref`` parent would (BibTeX
and biber's inheritance: ``formats/bibtex/inherit.py``), is no paper itself, and is
written back as read, so the export of the file is the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_data
from helpers import sql_value, sql_values

from readinglist.formats import bibtex

VOLUME = """\
@Proceedings{UAI-2024,
\tbooktitle = {Proceedings of the Fortieth Conference on Uncertainty in Artificial Intelligence},
\tyear = {2024},
\teditor = {Kiyavash, Negar and Mooij, Joris M.},
\tvolume = {244},
\tpublisher = {PMLR},
}

@InProceedings{an24a,
\ttitle = {Convergence Behavior of an Adversarial Weak Supervision Method},
\tauthor = {An, Steven and Dasgupta, Sanjoy},
\tpages = {1-49},
}

@InProceedings{own24,
\ttitle = {A Paper With Its Own Year},
\tauthor = {Doe, Jane},
\tyear = {2023},
\tbooktitle = {Workshop on Things},
}
"""


def test_the_volume_fills_in_its_papers_and_is_not_one() -> None:
    result = bibtex.read(VOLUME, "v244.bib")
    assert [r.citekey for r in result.records] == ["an24a", "own24"]
    an, own = result.records
    assert (an.year, an.venue, an.fields["volume"], an.fields["publisher"]) == (
        2024,
        "Proceedings of the Fortieth Conference on Uncertainty in Artificial Intelligence",
        "244",
        "PMLR",
    )
    assert [e.family for e in an.editors] == ["Kiyavash", "Mooij"]
    # A value the paper has is its own (BibTeX's crossref rule): only the rest inherits.
    assert (own.year, own.venue, own.fields["volume"]) == (2023, "Workshop on Things", "244")
    notes = [str(p) for p in result.problems]
    assert any(
        n.startswith("v244.bib:1: @proceedings 'UAI-2024' has no title")
        and "filled in 2 @inproceedings entries" in n
        for n in notes
    ), notes
    assert result.meta["preamble"].startswith("@Proceedings{UAI-2024,")


def test_a_titled_proceedings_is_a_paper_and_no_implicit_parent() -> None:
    text = (
        "@proceedings{vol, title = {Proceedings of Things}, year = 2020}\n"
        "@inproceedings{p, title = {A Paper}, author = {Doe, Jane}}\n"
    )
    result = bibtex.read(text, "t.bib")
    assert [(r.citekey, r.year) for r in result.records] == [("vol", 2020), ("p", None)]


def test_a_volume_amid_other_entries_completes_only_its_crossref_children() -> None:
    """Only a volume heading the file is PMLR's layout; elsewhere it is a crossref target,
    and the entries after it that do not name it keep their own data only."""
    text = (
        "@inproceedings{a, title = {A}, author = {Doe, Jane}, year = 2019}\n"
        "@proceedings{vol, booktitle = {Proc. of Things}, year = 2020, volume = 7}\n"
        "@inproceedings{b, title = {B}, author = {Roe, Ann}}\n"
        "@inproceedings{c, title = {C}, author = {Roe, Ann}, crossref = {vol}}\n"
    )
    result = bibtex.read(text, "t.bib")
    assert [(r.citekey, r.year, r.fields.get("volume")) for r in result.records] == [
        ("a", 2019, None),
        ("b", None, None),
        ("c", 2020, "7"),
    ]


def test_a_crossref_to_an_untitled_proceedings_still_inherits() -> None:
    text = (
        "@inproceedings{p, title = {A Paper}, author = {Doe, Jane}, crossref = {vol}}\n"
        "@proceedings{vol, booktitle = {Proc. of Things}, year = 2020}\n"
    )
    result = bibtex.read(text, "t.bib")
    assert [(r.citekey, r.year, r.venue) for r in result.records] == [
        ("p", 2020, "Proc. of Things")
    ]


@pytest.mark.parametrize(
    ("name", "papers", "year", "venue"),
    [
        (
            "pmlr-v244-uai2024.bib",
            201,
            2024,
            "Proceedings of the Fortieth Conference on Uncertainty in Artificial Intelligence",
        ),
        (
            "pmlr-v260-acml2024.bib",
            87,
            2025,
            "Proceedings of the 16th Asian Conference on Machine Learning",
        ),
    ],
)
def test_a_pmlr_volume_file_imports_its_papers_with_year_and_venue(
    invoke: object, db_url: str, name: str, papers: int, year: int, venue: str
) -> None:
    path = shared_data(name)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    result = invoke("import", str(path))  # type: ignore[operator]
    assert result.exit_code == 0, result.output
    assert f"filled in {papers} @inproceedings entries" in result.output
    assert sql_value(db_url, "SELECT count(*) FROM papers") == papers
    assert sql_values(db_url, "SELECT DISTINCT year FROM papers") == [year]
    assert sql_values(db_url, "SELECT DISTINCT venue FROM papers") == [venue]
    assert sql_value(db_url, "SELECT count(*) FROM papers WHERE title = ''") == 0


def test_the_export_of_a_volume_file_is_a_fixpoint(invoke: object, tmp_path: Path) -> None:
    path = shared_data("pmlr-v244-uai2024.bib")
    if not path.exists():
        pytest.skip(f"{path} is not available")
    first, second = tmp_path / "a.bib", tmp_path / "b.bib"
    assert invoke("import", str(path)).exit_code == 0  # type: ignore[operator]
    assert invoke("export", "bibtex", "-o", str(first)).exit_code == 0  # type: ignore[operator]
    text = first.read_text(encoding="utf-8")
    volume = path.read_text(encoding="utf-8").split("\n\n")[0]
    assert text.startswith(volume + "\n")
    again = bibtex.read(text, "a.bib")
    assert len(again.records) == 201
    assert {r.year for r in again.records} == {2024}
    from click.testing import CliRunner

    from readinglist.cli import cli

    db2 = f"sqlite:///{tmp_path / 'again.db'}"
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db2, "import", str(first)]).exit_code == 0
    assert runner.invoke(cli, ["--db", db2, "export", "bibtex", "-o", str(second)]).exit_code == 0
    assert second.read_bytes() == first.read_bytes()


def test_an_export_mixing_imports_writes_the_inherited_fields_not_the_volume(
    invoke: object, db_url: str, tmp_path: Path
) -> None:
    """A volume heading a file that also holds another import's ``@inproceedings``
    would complete those too on the next import: with papers of several imports the
    export leaves the volume out and writes its papers with what they inherited."""
    volume, other = tmp_path / "v244.bib", tmp_path / "other.bib"
    volume.write_text(VOLUME, encoding="utf-8")
    other.write_text(
        "@inproceedings{zed2019, title = {Another Venue}, author = {Zed, Zoe},\n"
        "  booktitle = {Workshop on Other Things}, year = 2019}\n",
        encoding="utf-8",
    )
    out = tmp_path / "all.bib"
    for args in (
        ["import", str(volume)],
        ["import", str(other)],
        ["export", "bibtex", "-o", str(out)],
    ):
        result = invoke(*args)  # type: ignore[operator]
        assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "@Proceedings" not in text
    again = {r.citekey: r for r in bibtex.read(text, "all.bib").records}
    assert (again["an24a"].year, again["an24a"].fields["volume"]) == (2024, "244")
    assert (again["zed2019"].year, again["zed2019"].fields.get("volume")) == (2019, None)
    # One import alone keeps the file's layout: the volume first, the papers as written.
    single = tmp_path / "one.bib"
    result = invoke("export", "bibtex", "-o", str(single), "key:an24a")  # type: ignore[operator]
    assert result.exit_code == 0, result.output
    assert single.read_text(encoding="utf-8").startswith("@Proceedings{UAI-2024,")
