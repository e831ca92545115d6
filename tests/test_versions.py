"""One work, several versions: a published version supersedes its preprint, names are
completed, keys kept, retitled camera-ready versions merged, different works kept apart
(SQLite and PostgreSQL; real bibtex and biber for the export, on SQLite:
``helpers.SQLITE_SUFFICES``, the merged paper being checked on both by
``test_published_version_supersedes_preprint_and_keeps_triage`` and an export's bytes
the same on both, test_databases_agree.py)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from helpers import SQLITE_SUFFICES, run_biber

from readinglist.records import Person
from readinglist.versions import (
    Version,
    complete_people,
    is_preprint,
    is_published,
    other_work,
    people_agree,
    same_person,
)

ABSTRACT = (
    "We study average and total cost Markov decision problems with large state spaces. "
    "Since the computational and statistical costs of finding the optimal policy scale "
    "with the size of the state space, we focus on searching for near-optimality in a "
    "low-dimensional family of policies, and we show that the resulting policy is close "
    "to the best in the family on a crowdsourcing application."
)

#: Google Scholar's "Cite" of the arXiv version: sentence case, initials, a cut list.
SCHOLAR = f"""@article{{abbasi2014large,
  title={{Large-scale Markov decision problems with KL control cost and its application to crowdsourcing}},
  author={{Abbasi-Yadkori, Y. and Bartlett, P. L. and others}},
  journal={{arXiv preprint arXiv:1402.01234}},
  year={{2014}},
  abstract={{{ABSTRACT}}}
}}
"""

#: The proceedings' entry (PMLR).
PROCEEDINGS = f"""@InProceedings{{pmlr-v37-abbasi-yadkori15,
  title = {{Large-Scale Markov Decision Problems with KL Control Cost and its Application to Crowdsourcing}},
  author = {{Abbasi-Yadkori, Yasin and Bartlett, Peter L. and Chen, Xi and Malek, Alan}},
  booktitle = {{Proceedings of the 32nd International Conference on Machine Learning}},
  pages = {{1053--1062}},
  year = {{2015}},
  editor = {{Bach, Francis and Blei, David}},
  volume = {{37}},
  series = {{Proceedings of Machine Learning Research}},
  publisher = {{PMLR}},
  url = {{https://proceedings.mlr.press/v37/abbasi-yadkori15.html}},
  abstract = {{{ABSTRACT}}},
}}
"""

#: arXiv's own BibTeX of a preprint whose camera-ready was retitled.
ARXIV_RETITLED = f"""@misc{{abbasi2014scalable,
  title={{Scalable Markov Decision Problems with KL Control Cost}},
  author={{Yasin Abbasi-Yadkori and Peter L. Bartlett and Xi Chen and Alan Malek}},
  year={{2014}},
  eprint={{1402.01234}},
  archivePrefix={{arXiv}},
  primaryClass={{cs.LG}},
  abstract={{{ABSTRACT.replace("crowdsourcing application", "labelling application")}}}
}}
"""

Invoke = Callable[..., Result]


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output + result.stderr
    return result


def show(invoke: Invoke, key: str) -> dict[str, Any]:
    return json.loads(ok(invoke("show", key, "--json")).stdout)


def test_published_version_supersedes_preprint_and_keeps_triage(
    invoke: Invoke, tmp_path: Path
) -> None:
    ok(invoke("import", write(tmp_path, "scholar.bib", SCHOLAR)))
    ok(invoke("mark", "to-read", "abbasi2014large"))
    ok(invoke("priority", "high", "abbasi2014large"))
    ok(invoke("tag", "add", "rl", "abbasi2014large"))
    ok(invoke("note", "add", "abbasi2014large", "-m", "check the KL bound"))
    done = ok(invoke("import", "--verbose", write(tmp_path, "icml.bib", PROCEEDINGS)))
    assert "merged into abbasi2014large" in done.stderr
    paper = show(invoke, "abbasi2014large")
    assert paper["entry_type"] == "inproceedings"
    assert paper["venue"] == "Proceedings of the 32nd International Conference on Machine Learning"
    assert paper["year"] == 2015
    assert paper["fields"]["pages"] == "1053--1062"
    assert paper["fields"]["volume"] == "37"
    assert paper["fields"]["publisher"] == "PMLR"
    assert paper["authors"] == [
        "Abbasi-Yadkori, Yasin",
        "Bartlett, Peter L.",
        "Chen, Xi",
        "Malek, Alan",
    ]
    assert paper["title"].startswith("Large-Scale Markov Decision Problems")
    assert paper["arxiv"] == "1402.01234"  # the preprint's identifier stays
    assert (paper["status"], paper["priority"], paper["tags"]) == ("to-read", "high", ["rl"])
    assert [n["text"] for n in paper["notes"]] == ["check the KL bound"]
    # The user's key stays; the published key is an alias and answers too.
    assert paper["key"] == "abbasi2014large"
    assert paper["aliases"] == ["pmlr-v37-abbasi-yadkori15"]
    assert show(invoke, "pmlr-v37-abbasi-yadkori15")["key"] == "abbasi2014large"
    kinds = [(v["kind"], v["key"]) for v in paper["versions"]]
    assert kinds == [("preprint", "abbasi2014large"), ("published", "pmlr-v37-abbasi-yadkori15")]
    assert ok(invoke("list", "-k", "is:preprint")).stdout == ""
    # What was replaced is in the merge history, to take back.
    history = ok(invoke("merge", "--history", "abbasi2014large")).stdout
    assert "arXiv preprint arXiv:1402.01234" in history
    assert "2014" in history


def test_reverse_order_and_repeated_imports_change_nothing(invoke: Invoke, tmp_path: Path) -> None:
    pre = write(tmp_path, "scholar.bib", SCHOLAR)
    pub = write(tmp_path, "icml.bib", PROCEEDINGS)
    ok(invoke("import", pub))
    before = show(invoke, "pmlr-v37-abbasi-yadkori15")
    ok(invoke("import", pre))
    after = show(invoke, "pmlr-v37-abbasi-yadkori15")
    for name in ("entry_type", "venue", "year", "authors", "title", "fields"):
        assert after[name] == before[name], name
    assert after["arxiv"] == "1402.01234"
    assert after["aliases"] == ["abbasi2014large"]
    assert [v["kind"] for v in after["versions"]] == ["preprint"]
    history = ok(invoke("merge", "--history", "pmlr-v37-abbasi-yadkori15")).stdout
    for path in (pre, pub, pre, pub):
        done = ok(invoke("import", path))
        assert ": 0 added, 0 merged, 1 already present" in done.stderr
        assert "merge history" not in done.stderr
    assert show(invoke, "pmlr-v37-abbasi-yadkori15") == after
    assert ok(invoke("merge", "--history", "pmlr-v37-abbasi-yadkori15")).stdout == history


def test_preprint_then_published_twice_is_idempotent(invoke: Invoke, tmp_path: Path) -> None:
    pre = write(tmp_path, "scholar.bib", SCHOLAR)
    pub = write(tmp_path, "icml.bib", PROCEEDINGS)
    ok(invoke("import", pre))
    ok(invoke("import", pub))
    merged = show(invoke, "abbasi2014large")
    for path in (pub, pre):
        done = ok(invoke("import", path))
        assert ": 0 added, 0 merged, 1 already present" in done.stderr
    assert show(invoke, "abbasi2014large") == merged


def test_retitled_camera_ready_merges_with_evidence(invoke: Invoke, tmp_path: Path) -> None:
    ok(invoke("import", write(tmp_path, "arxiv.bib", ARXIV_RETITLED)))
    done = ok(invoke("import", "--verbose", write(tmp_path, "icml.bib", PROCEEDINGS)))
    assert "merged into abbasi2014scalable" in done.stderr
    assert "same authors, related title" in done.stderr
    paper = show(invoke, "pmlr-v37-abbasi-yadkori15")
    assert paper["key"] == "abbasi2014scalable"
    assert paper["title"].startswith("Large-Scale Markov Decision Problems")
    assert paper["fields"]["primaryclass"] == "cs.LG"
    assert ok(invoke("list", "-k")).stdout.split() == ["abbasi2014scalable"]


def test_retitled_with_other_authors_goes_to_duplicates(invoke: Invoke, tmp_path: Path) -> None:
    other = ARXIV_RETITLED.replace("Xi Chen", "Jane Roe")
    ok(invoke("import", write(tmp_path, "arxiv.bib", other)))
    ok(invoke("import", write(tmp_path, "icml.bib", PROCEEDINGS)))
    assert len(ok(invoke("list", "-k")).stdout.split()) == 2
    pairs = json.loads(ok(invoke("duplicates", "--json")).stdout)
    assert [(p["kind"], "other authors" in p["evidence"]) for p in pairs] == [("candidate", True)]


def test_arxiv_doi_beside_publisher_doi_merges(invoke: Invoke, tmp_path: Path) -> None:
    datacite = (
        "@misc{https://doi.org/10.48550/arxiv.1402.01234,\n"
        "  doi = {10.48550/ARXIV.1402.01234},\n  url = {https://arxiv.org/abs/1402.01234},\n"
        "  author = {Abbasi-Yadkori, Yasin and Bartlett, Peter L. and Chen, Xi and Malek, Alan},\n"
        "  title = {Large-Scale Markov Decision Problems with KL Control Cost and its "
        "Application to Crowdsourcing},\n  publisher = {arXiv},\n  year = {2014},\n"
        "  copyright = {arXiv.org perpetual, non-exclusive license}\n}\n"
    )
    published = PROCEEDINGS.replace("  pages =", "  doi = {10.5555/3045118.3045231},\n  pages =")
    ok(invoke("import", write(tmp_path, "datacite.bib", datacite)))
    ok(invoke("import", write(tmp_path, "icml.bib", published)))
    keys = ok(invoke("list", "-k")).stdout.split()
    assert len(keys) == 1
    paper = show(invoke, keys[0])
    assert paper["doi"] == "10.5555/3045118.3045231"
    assert paper["arxiv"] == "1402.01234"
    assert "copyright" not in paper["fields"]
    assert paper["fields"].get("publisher") == "PMLR"


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        (  # a review of a book, a year later, under its title and author
            "@book{smith2019,\n title={Deep Learning},\n author={Smith, Ann},\n year={2019},\n"
            " publisher={MIT Press}, isbn={978-0-262-03561-3}}\n",
            "@article{smith2020,\n title={Review of: Deep Learning},\n author={Smith, Ann},\n"
            " year={2020},\n journal={Journal of Books}, volume={3}, pages={10--11}}\n",
            "review",
        ),
        (  # a second edition
            "@book{smith2019,\n title={Deep Learning},\n author={Smith, Ann},\n year={2019},\n"
            " publisher={MIT Press}, isbn={978-0-262-03561-3}}\n",
            "@book{smith2020,\n title={Deep Learning},\n author={Smith, Ann},\n year={2020},\n"
            " publisher={MIT Press}, edition={2}, isbn={978-0-262-04864-4}}\n",
            "different",
        ),
        (  # a journal article from the thesis
            "@phdthesis{roe2019,\n title={Sparse Coding of Natural Images},\n author={Roe, Jane},\n"
            " year={2019},\n school={MIT}}\n",
            "@article{roe2020,\n title={Sparse Coding of Natural Images},\n author={Roe, Jane},\n"
            " year={2020},\n journal={Neural Computation}, volume={32}, pages={1--30}}\n",
            "thesis",
        ),
        (  # a journal extension of a conference paper
            "@inproceedings{lee2018,\n title={Graph Attention for Molecules},\n"
            " author={Lee, Kim and Park, Min},\n year={2018},\n booktitle={Proceedings of ICML},"
            " pages={100--108}}\n",
            "@article{lee2019,\n title={Graph Attention for Molecules},\n"
            " author={Lee, Kim and Park, Min and Cho, Ara},\n year={2019},\n journal={JMLR},"
            " volume={20}, number={4}}\n",
            "journal version",
        ),
    ],
    ids=["review", "edition", "thesis", "extension"],
)
def test_different_works_stay_apart_with_a_reason(
    invoke: Invoke, tmp_path: Path, first: str, second: str, reason: str
) -> None:
    ok(invoke("import", write(tmp_path, "a.bib", first)))
    done = ok(invoke("import", write(tmp_path, "b.bib", second)))
    assert ": 1 added, 0 merged" in done.stderr
    if reason != "review":  # one title: the import says why it kept them apart
        assert "not merged: " in done.stderr
        assert reason in done.stderr
    assert len(ok(invoke("list", "-k")).stdout.split()) == 2
    pairs = json.loads(ok(invoke("duplicates", "--json")).stdout)
    assert all(p["kind"] == "related" for p in pairs)
    if pairs:
        assert reason in pairs[0]["evidence"]


def test_not_duplicate_keeps_later_copies_apart(invoke: Invoke, tmp_path: Path) -> None:
    two = (
        "@article{jones2020editorial,\n title={Editorial},\n author={Jones, Ann},\n year={2020},\n"
        " journal={Journal of Things}, url={https://example.org/a}}\n"
        "@article{jones2020editoriala,\n title={Editorial},\n author={Jones, Ann},\n year={2020},\n"
        " journal={Journal of Things}, url={https://example.org/b}}\n"
    )
    ok(invoke("import", write(tmp_path, "two.bib", two)))
    assert len(ok(invoke("list", "-k")).stdout.split()) == 2
    ok(invoke("not-duplicate", "jones2020editorial", "jones2020editoriala"))
    third = (
        "@article{copy,\n title={Editorial},\n author={Jones, Ann},\n year={2020},\n"
        " journal={Journal of Things}, url={https://example.org/b}}\n"
    )
    done = ok(invoke("import", write(tmp_path, "three.bib", third)))
    assert "merged into jones2020editorial " not in done.stderr
    assert show(invoke, "jones2020editorial")["url"] == "https://example.org/a"
    # The same file again changes nothing.
    done = ok(invoke("import", write(tmp_path, "two.bib", two)))
    assert ": 0 added, 0 merged, 2 already present" in done.stderr


def test_shared_doi_with_other_authors_and_pages_stays_apart(
    invoke: Invoke, tmp_path: Path
) -> None:
    text = (
        "@inproceedings{wmt-a,\n title={Findings of the Shared Task on Parallel Corpus Filtering},\n"
        " author={Koehn, Philipp and Khayrallah, Huda},\n year={2018},\n booktitle={WMT},"
        " pages={726--739}, doi={10.18653/v1/W18-6453}}\n"
        "@inproceedings{wmt-b,\n title={Findings of the Shared Task on Parallel Corpus Filtering},\n"
        " author={Barrault, Loic and Bojar, Ondrej},\n year={2018},\n booktitle={WMT},"
        " pages={272--303}, doi={10.18653/v1/W18-6453}}\n"
    )
    done = ok(invoke("import", write(tmp_path, "wmt.bib", text)))
    assert ": 2 added, 0 merged" in done.stderr
    assert "shares an identifier with 'wmt-a'" in done.stderr


def test_front_matter_without_authors_merges_only_with_same_coordinates(
    invoke: Invoke, tmp_path: Path
) -> None:
    text = "".join(
        f"@article{{index{v},\n title={{Title Index}},\n year={{2018}},\n"
        f" journal={{Computational Linguistics}}, volume={{{v}}}}}\n"
        for v in (44, 45)
    )
    path = write(tmp_path, "front.bib", text)
    done = ok(invoke("import", path))
    assert ": 2 added, 0 merged" in done.stderr
    done = ok(invoke("import", path))
    assert ": 0 added, 0 merged, 2 already present" in done.stderr


def test_is_preprint_query(invoke: Invoke, tmp_path: Path) -> None:
    text = """@misc{a2020, title={A thing}, author={Ann, B}, year={2020}, eprint={2001.01234}, archivePrefix={arXiv}}
@article{b2020, title={B thing}, author={Ann, B}, year={2020}, journal={CoRR}, volume={abs/2001.01235}}
@article{c2020, title={C thing}, author={Ann, B}, year={2020}, journal={J. Things}, volume={3}, pages={1--2}, eprint={2001.01236}}
@misc{d2020, title={D thing}, author={Ann, B}, year={2020}, doi={10.48550/arXiv.2001.01237}, publisher={arXiv}}
@book{e2020, title={E thing}, author={Ann, B}, year={2020}, publisher={Springer}}
@misc{f2020, title={F thing}, author={Ann, B}, year={2020}, howpublished={bioRxiv}}
@article{g2020, title={G thing}, author={Ann, B}, year={2020}, journal={Correspondence in Things}, volume={2}}
"""
    ok(invoke("import", write(tmp_path, "mix.bib", text)))
    found = ok(invoke("list", "-k", "is:preprint")).stdout.split()
    assert found == ["a2020", "b2020", "d2020", "f2020"]
    assert ok(invoke("list", "-k", "-is:preprint")).stdout.split() == ["c2020", "e2020", "g2020"]


def test_names_rules() -> None:
    assert same_person(Person("Goldstein", "R. A."), Person("Goldstein", "Richard A."))
    assert same_person(Person("Goldstein", "R."), Person("Goldstein", "Richard A."))
    assert not same_person(Person("Goldstein", "Robert"), Person("Goldstein", "Richard"))
    assert not same_person(Person("Goldstein", "R."), Person("Goldberg", "R."))
    short = (Person("Goldstein", "R. A."), Person("Smith", "J."), Person(literal="others"))
    full = (Person("Goldstein", "Richard A."), Person("Smith", "John"), Person("Doe", "Jane"))
    assert complete_people(short, full) == full
    assert complete_people(full, short) == full
    assert people_agree(short, full)
    assert not people_agree(full[:2], full)  # a shorter list not cut with "and others"
    assert complete_people((Person("Smith", "John"),), (Person("Doe", "Jane"),)) is None


def test_preprint_predicate() -> None:
    scholar = ("article", "arXiv preprint arXiv:1602.01234", {}, None, "1602.01234")
    assert is_preprint(*scholar)
    assert is_preprint("article", "CoRR", {"volume": "abs/1602.01234"}, None, None)
    assert is_preprint("misc", None, {"eprint": "1602.01234"}, None, None)
    assert is_preprint("misc", None, {}, "10.48550/arxiv.1602.01234", None)
    assert is_preprint("article", "SSRN Electronic Journal", {}, None, None)
    assert not is_preprint("inproceedings", "ICML", {"pages": "1--9"}, None, "1602.01234")
    assert is_published("article", "Nature", {}, "10.1038/nature14539")
    assert not is_published("article", "Nature", {}, None)
    assert not is_published("misc", "bioRxiv", {"pages": "1"}, None)
    thesis = Version("phdthesis", None, {"school": "MIT"}, title="X", year=2019)
    article = Version("article", "J", {"volume": "3"}, title="X", year=2020)
    assert other_work(thesis, article) == "a thesis and another publication"
    preprint = Version("article", "arXiv preprint arXiv:1", {}, arxiv="1", title="X", year=2019)
    assert other_work(preprint, article) is None


@SQLITE_SUFFICES
@pytest.mark.tools("pdflatex", "bibtex", "biber")
def test_superseded_export_compiles_and_prints_the_venue(invoke: Invoke, tmp_path: Path) -> None:
    ok(invoke("import", write(tmp_path, "scholar.bib", SCHOLAR)))
    ok(invoke("import", write(tmp_path, "icml.bib", PROCEEDINGS)))
    ok(invoke("export", "bibtex", "-o", str(tmp_path / "plain.bib")))
    ok(invoke("export", "biblatex", "-o", str(tmp_path / "latex.bib")))
    exported = (tmp_path / "plain.bib").read_text(encoding="utf-8")
    assert "arXiv preprint" not in exported
    assert "eprint = {1402.01234}" in exported
    (tmp_path / "a.aux").write_text(
        "\\citation{abbasi2014large}\n\\bibstyle{plain}\n\\bibdata{plain}\n", encoding="utf-8"
    )
    done = subprocess.run(["bibtex", "a"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
    bbl = " ".join((tmp_path / "a.bbl").read_text(encoding="utf-8").split())
    assert "Proceedings of the 32nd International Conference on Machine Learning" in bbl
    assert "arXiv preprint" not in bbl
    (tmp_path / "b.tex").write_text(
        "\\documentclass{article}\\usepackage[backend=biber]{biblatex}"
        "\\addbibresource{latex.bib}\\begin{document}\\cite{pmlr-v37-abbasi-yadkori15}"
        "\\printbibliography\\end{document}\n",
        encoding="utf-8",
    )
    latex = ["pdflatex", "-interaction=nonstopmode", "b.tex"]
    subprocess.run(latex, cwd=tmp_path, capture_output=True, check=True)
    done = run_biber(["b"], tmp_path)
    assert done.returncode == 0, done.stdout
    bbl = " ".join((tmp_path / "b.bbl").read_text(encoding="utf-8").split())
    assert "Proceedings of the 32nd International Conference on Machine Learning" in bbl
    assert "1402.01234" in bbl  # the eprint, which biblatex prints
    assert "arXiv preprint" not in bbl


def test_import_undo_puts_the_preprint_back(invoke: Invoke, tmp_path: Path) -> None:
    ok(invoke("import", write(tmp_path, "scholar.bib", SCHOLAR)))
    ok(invoke("mark", "to-read", "abbasi2014large"))
    before = show(invoke, "abbasi2014large")
    ok(invoke("import", write(tmp_path, "icml.bib", PROCEEDINGS)))
    batch = json.loads(ok(invoke("import", "--list-batches", "--json")).stdout)[-1]["id"]
    done = ok(invoke("import", "--undo", str(batch)))
    assert "restored abbasi2014large" in done.stderr
    after = show(invoke, "abbasi2014large")
    for name in ("entry_type", "venue", "year", "authors", "title", "fields", "aliases"):
        assert after[name] == before[name], name
    assert after["status"] == "to-read"
    assert after["versions"] == []
    assert invoke("show", "pmlr-v37-abbasi-yadkori15").exit_code == 3


def test_import_undo_keeps_a_paper_edited_since_and_says_why(
    invoke: Invoke, tmp_path: Path
) -> None:
    """An edit after the superseding import: ``import --undo`` keeps the paper and names
    the import (not ``resolve``) as what it changed since."""
    ok(invoke("import", write(tmp_path, "scholar.bib", SCHOLAR)))
    ok(invoke("import", write(tmp_path, "icml.bib", PROCEEDINGS)))
    ok(invoke("title", "abbasi2014large", "KL-control MDPs (my title)"))
    batch = json.loads(ok(invoke("import", "--list-batches", "--json")).stdout)[-1]["id"]
    done = invoke("import", "--undo", str(batch))
    assert "kept abbasi2014large: changed since this import" in done.stderr


def test_merge_take_gives_back_a_preprint_value(invoke: Invoke, tmp_path: Path) -> None:
    ok(invoke("import", write(tmp_path, "scholar.bib", SCHOLAR)))
    ok(invoke("import", write(tmp_path, "icml.bib", PROCEEDINGS)))
    ok(invoke("merge", "abbasi2014large", "--take", "year"))
    assert show(invoke, "abbasi2014large")["year"] == 2014


def test_a_title_the_user_set_stays(invoke: Invoke, tmp_path: Path) -> None:
    ok(invoke("import", write(tmp_path, "scholar.bib", SCHOLAR)))
    ok(invoke("title", "abbasi2014large", "KL-control MDPs (my title)"))
    ok(invoke("import", write(tmp_path, "icml.bib", PROCEEDINGS)))
    paper = show(invoke, "abbasi2014large")
    assert paper["title"] == "KL-control MDPs (my title)"
    assert paper["venue"] == "Proceedings of the 32nd International Conference on Machine Learning"
    assert "(title set by you)" not in ok(invoke("merge", "--history", "abbasi2014large")).stdout


def test_pasted_abstract_yields_to_the_published_one(invoke: Invoke, tmp_path: Path) -> None:
    pasted = ABSTRACT.replace("crowdsourcing application", "crowd labelling application")
    listing = write(tmp_path, "icml.txt", f"ICML 2015\n\n{pasted}\n")
    ok(invoke("import", listing))
    (key,) = ok(invoke("list", "-k")).stdout.split()
    ok(invoke("mark", "to-read", key))
    ok(invoke("import", write(tmp_path, "icml.bib", PROCEEDINGS)))
    paper = show(invoke, key)
    assert paper["abstract"] == ABSTRACT
    assert paper["venue"] == "Proceedings of the 32nd International Conference on Machine Learning"
    assert paper["status"] == "to-read"
    assert "crowd labelling" in ok(invoke("merge", "--history", paper["key"])).stdout


def test_resolve_completes_preprints(invoke: Invoke, tmp_path: Path) -> None:
    ok(invoke("import", write(tmp_path, "scholar.bib", SCHOLAR)))
    ok(invoke("mark", "to-read", "abbasi2014large"))
    assert ok(invoke("list", "-k", "is:preprint")).stdout.split() == ["abbasi2014large"]
    done = ok(invoke("resolve", "is:preprint", "--from", write(tmp_path, "icml.bib", PROCEEDINGS)))
    assert "abbasi2014large" in done.stdout
    assert ok(invoke("list", "-k", "is:preprint")).stdout == ""
    paper = show(invoke, "pmlr-v37-abbasi-yadkori15")  # both keys answer
    assert paper["key"] == "abbasi2014large"
    assert paper["venue"] == "Proceedings of the 32nd International Conference on Machine Learning"
    assert paper["status"] == "to-read"
    assert len(paper["authors"]) == 4
