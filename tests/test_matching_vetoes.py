"""Two publications of one title are never merged into one paper (fresh-user finds on real
files): the ACL Anthology's four "Books Received" of Computational Linguistics 21(1)-(4) in
one file, and a workshop paper with its journal version (bbt-873's Ginsberg & Smith, pages
233-258 and 165-195; the workshop entry's year would come from a crossref parent the file
lacks, so no year tells them apart). A first page alone still agrees with the full range."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import import_text

from readinglist import dedupe

BOOKS_RECEIVED = "\n".join(
    f"@inproceedings{{anonymous-1995-books-{n},\n    title = {{Books Received}},\n"
    f"    booktitle = {{Computational Linguistics, Volume 21, Number {n}, 1995}},\n"
    f"    year = {{1995}},\n    url = {{https://aclanthology.org/J95-{n}01{n}}},\n}}\n"
    for n in range(1, 5)
)

TWO_VERSIONS = """
@inproceedings{ginsberg-87,
  author = {Matthew L. Ginsberg and David E. Smith},
  title = {Reasoning about Action {I}: A Possible Worlds Approach},
  crossref = {brown-fpw},
  pages = {233--258}
}
@article{ginsberg-88,
  author = {Matthew L. Ginsberg and David E. Smith},
  title = {Reasoning about Action {I}: A Possible Worlds Approach},
  journal = {Artificial Intelligence},
  year = {1988},
  volume = {35},
  pages = {165--195}
}
"""


def test_four_books_received_of_four_issues_stay_four(invoke, tmp_path: Path) -> None:
    summary = import_text(invoke, tmp_path, "books.bib", BOOKS_RECEIVED)
    assert summary.endswith("4 added, 0 merged, 0 already present, 0 rejected")
    assert len(invoke("list", "-k").stdout.split()) == 4


def test_a_workshop_paper_and_its_journal_version_stay_two(invoke, tmp_path: Path) -> None:
    summary = import_text(invoke, tmp_path, "two.bib", TWO_VERSIONS)
    assert summary.endswith("2 added, 0 merged, 0 already present, 0 rejected")
    journal = TWO_VERSIONS.strip().split("\n@")[1]
    import_text(invoke, tmp_path, "again.bib", "@" + journal.replace("ginsberg-88", "gs88"))
    keys = ["ginsberg-87", "ginsberg-88"]
    assert sorted(invoke("list", "-k").stdout.split()) == keys


def test_pages_conflict_compares_first_pages() -> None:
    assert dedupe.pages_conflict("233--258", "165--195")
    assert not dedupe.pages_conflict("1--10", "1")
    assert not dedupe.pages_conflict("{1}-{10}", "1 -- 10")
    assert not dedupe.pages_conflict(None, "5")
    assert dedupe.pages_conflict("e1234", "e1240")
    assert not dedupe.pages_conflict("xi--xv", "xi")


ABSTRACT = (
    "We study how transformers route tokens between experts and show that a sparse "
    "router with a learned temperature matches dense models at a fraction of the cost "
    "on long-document benchmarks, while keeping training stable across scales."
)


def test_duplicates_lists_a_look_alike_the_import_did_not_merge(invoke, tmp_path: Path) -> None:
    """The import says "looks like X but not merged: different titles" (the same abstract
    under another title); `duplicates` must offer that pair too (a fresh user found `[]`)."""
    first = tmp_path / "a.txt"  # a pasted list: a real title, no authors (incomplete)
    first.write_text("Sparse Routing for Long Documents\n\n" + ABSTRACT + "\n", encoding="utf-8")
    second = tmp_path / "b.bib"
    second.write_text(
        "@article{two2020,\n  title = {Temperature Matters in Mixture of Experts},\n"
        "  author = {Doe, Jane},\n  year = 2020,\n  abstract = {" + ABSTRACT + "}\n}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(first)).exit_code == 0
    result = invoke("import", str(second))
    [one] = [k for k in invoke("list", "-k").stdout.split() if k != "two2020"]
    assert f"looks like {one} but not merged: different titles" in result.stderr
    pairs = json.loads(invoke("duplicates", "--json").stdout)
    assert [(p["a"], p["b"], p["kind"]) for p in pairs] == [(one, "two2020", "candidate")]
    assert invoke("not-duplicate", one, "two2020").exit_code == 0
    assert json.loads(invoke("duplicates", "--json").stdout) == []


def test_duplicates_never_offers_to_merge_two_works_the_import_kept_apart_by_doi(
    invoke, tmp_path: Path
) -> None:
    """A reference manager's export giving two papers one DOI (another work's, pasted by
    mistake): the import keeps them apart (clearly different titles), and `duplicates`
    decides alike: a related pair, never a merge at 100 ("same DOI")."""
    source = tmp_path / "mendeley.bib"
    source.write_text(
        "@article{Phruksachart2018,\n  title = {Interest Rate Pass-Through in Small Open "
        "Economies},\n  author = {Phruksachart, Monchai},\n  year = 2018,\n"
        "  doi = {10.1016/0191-8869(91)90150-P}\n}\n"
        "@article{Furnham1991,\n  title = {Personality and Occupational Choice Among "
        "Adolescents},\n  author = {Furnham, Adrian},\n  year = 1991,\n"
        "  doi = {10.1016/0191-8869(91)90150-P}\n}\n",
        encoding="utf-8",
    )
    imported = invoke("import", str(source))
    assert imported.exit_code == 0, imported.output
    assert "2 added" in imported.stderr
    pairs = json.loads(invoke("duplicates", "--json").stdout)
    assert [(p["a"], p["b"], p["kind"]) for p in pairs] == [
        ("Phruksachart2018", "Furnham1991", "related")
    ]
