"""Two different works are never joined on import, whatever they share (attacker finds,
session 15): one title, first family name and year with other given names or no co-author
in common; Part I and Part II sharing an abstract; a technical report and its journal
article in one file (bbt-873's ``Kabanza:97TR`` and ``Kabanza:AIJ``). The true merges stay:
"W." and "Wei" are one person, a co-author in common with a longer list is one work."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import import_text

from readinglist import dedupe, versions
from readinglist.records import Person

WANG_WEI = """@article{s1, author={Wang, Wei and Li, Na}, title={Deep learning for medical
imaging}, journal={IEEE TMI}, year={2020}, pages={100--110}}
"""
WANG_YAN = """@inproceedings{s2, author={Wang, Yan and Zhao, Lei and Chen, Bo}, title={Deep
Learning for Medical Imaging}, booktitle={MICCAI Workshop}, year={2020}}
"""
WANG_YAN_MEDIA = """@article{s3, author={Wang, Yan and Zhao, Lei}, title={Deep Learning for
Medical Imaging}, journal={Medical Image Analysis}, year={2020}}
"""
WANG_W_SHORT = """@article{s4, author={Wang, W. and Li, N. and Sun, Q.}, title={Deep Learning for
Medical Imaging}, journal={IEEE TMI}, year={2021}, pages={100}, doi={10.1109/tmi.2020.1}}
"""

ABSTRACT = (
    "We develop a general theory of learning on graphs that unifies spectral and spatial "
    "methods, prove convergence bounds for message passing networks, and give practical "
    "algorithms that scale to graphs with billions of edges in real applications today."
)


def _part(key: str, roman: str, subtitle: str) -> str:
    return (
        f"@article{{{key}, author={{Brown, Ann}}, title={{Learning on Graphs, Part {roman}: "
        f"{subtitle}}}, journal={{J. ML}}, year={{2020}}, abstract={{{ABSTRACT}}}}}\n"
    )


# bbt-import-873-user-library.bib, lines 7460-7480, as written there.
KABANZA = """@techreport  {Kabanza:97TR,
  author          = "F. Kabanza and M. Barbeau and R. St-Denis",
  title           = "Planning Control Rules for Reactive Agents",
  institution     = "Computer Science Dept., University  of Sherbrooke",
  number          = "197",
  year            = 1997,
  }

@ARTICLE{Kabanza:AIJ,
	AUTHOR = {Froduald Kabanza and M. Barbeau and R. St.-Denis},
	TITLE = "Planning Control Rules for Reactive Agents",
	JOURNAL = {Artificial Intelligence},
	YEAR = {1997},
	VOLUME = {95},
	NUMBER = {1},
	PAGES = {67--113},
	MONTH = aug
}
"""


def _keys(invoke) -> list[str]:
    return sorted(invoke("list", "-k").stdout.split())


def test_same_title_first_family_and_year_other_given_names_stay_two(
    invoke, tmp_path: Path
) -> None:
    import_text(invoke, tmp_path, "ka.bib", WANG_WEI)
    path = tmp_path / "kb.bib"
    path.write_text(WANG_YAN, encoding="utf-8")
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.output
    assert "1 added, 0 merged, 0 already present, 0 rejected" in result.stderr
    assert "looks like s1 but not merged: different first authors (Wang, Wei vs Wang, Yan)" in (
        result.stderr
    )
    summary = import_text(invoke, tmp_path, "kc.bib", WANG_YAN_MEDIA)
    # Wang Yan's journal paper shares its co-author Zhao with the workshop paper: the
    # same work (a journal and a workshop paper of one year), not Wang Wei's.
    assert "0 added" in summary
    assert _keys(invoke) == ["s1", "s2"]
    assert json.loads(invoke("show", "s2", "--json").stdout)["aliases"] == ["s3"]
    shown = json.loads(invoke("show", "s1", "--json").stdout)
    assert (shown["authors"], shown["aliases"]) == (["Wang, Wei", "Li, Na"], [])


def test_jane_and_john_smith_of_one_title_and_venue_stay_two(invoke, tmp_path: Path) -> None:
    entry = (
        "@article{{{key}, author={{{name}}}, title={{On the Theory of Sorting}}, "
        "journal={{J. Algorithms}}, year={{2019}}}}\n"
    )
    text = entry.format(key="jane", name="Smith, Jane") + entry.format(
        key="john", name="John Smith"
    )
    summary = import_text(invoke, tmp_path, "smiths.bib", text)
    assert summary.endswith("2 added, 0 merged, 0 already present, 0 rejected")
    assert _keys(invoke) == ["jane", "john"]
    # Not merged, but offered: a name written two ways is for a person to judge.
    pairs = json.loads(invoke("duplicates", "--json").stdout)
    assert [(p["a"], p["b"], p["kind"]) for p in pairs] == [("jane", "john", "candidate")]
    evidence = pairs[0]["evidence"]
    assert evidence.startswith("looks alike, different first authors (Smith, J")
    assert "Smith, Jane" in evidence
    assert "Smith, John" in evidence


def test_initials_and_a_shared_co_author_still_merge(invoke, tmp_path: Path) -> None:
    """The initial "W." is "Wei"; a third author added by the later record is no veto."""
    import_text(invoke, tmp_path, "ka.bib", WANG_WEI)
    summary = import_text(invoke, tmp_path, "kd.bib", WANG_W_SHORT)
    assert summary.endswith("0 added, 1 merged, 0 already present, 0 rejected")
    assert _keys(invoke) == ["s1"]
    assert json.loads(invoke("show", "s1", "--json").stdout)["aliases"] == ["s4"]


def test_part_one_and_part_two_with_one_abstract_stay_two(invoke, tmp_path: Path) -> None:
    first, second = _part("b1", "I", "Foundations"), _part("b2", "II", "Applications")
    import_text(invoke, tmp_path, "p1.bib", first)
    summary = import_text(invoke, tmp_path, "p2.bib", second)
    assert summary.endswith("1 added, 0 merged, 0 already present, 0 rejected")
    assert _keys(invoke) == ["b1", "b2"]
    # In one file as well, and listed as related works by `duplicates`.
    summary = import_text(invoke, tmp_path, "p34.bib", first.replace("b1", "b3") + second)
    assert _keys(invoke) == ["b1", "b2"]
    pairs = json.loads(invoke("duplicates", "--json").stdout)
    assert [(p["a"], p["b"], p["kind"]) for p in pairs] == [("b1", "b2", "related")]


def test_part_one_and_part_two_in_one_file_stay_two(invoke, tmp_path: Path) -> None:
    text = _part("c1", "1", "Foundations") + _part("c2", "Two", "Applications")
    summary = import_text(invoke, tmp_path, "parts.bib", text)
    assert summary.endswith("2 added, 0 merged, 0 already present, 0 rejected")


def test_a_technical_report_and_its_journal_article_stay_two_related(
    invoke, tmp_path: Path
) -> None:
    """Each key keeps its own entry (the report's number 197, the article's 95(1)),
    and `duplicates` links them as related versions."""
    path = tmp_path / "kabanza.bib"
    path.write_text(KABANZA, encoding="utf-8")
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.output
    assert "looks like Kabanza:97TR but not merged: a technical report" in result.stderr
    assert _keys(invoke) == ["Kabanza:97TR", "Kabanza:AIJ"]
    report = json.loads(invoke("show", "Kabanza:97TR", "--json").stdout)
    article = json.loads(invoke("show", "Kabanza:AIJ", "--json").stdout)
    assert (report["entry_type"], report["venue"]) == ("techreport", None)
    assert report["fields"]["number"] == "197"
    assert "pages" not in report["fields"]
    assert (article["entry_type"], article["fields"]["number"]) == ("article", "1")
    pairs = json.loads(invoke("duplicates", "--json").stdout)
    assert [(p["a"], p["b"], p["kind"]) for p in pairs] == [
        ("Kabanza:97TR", "Kabanza:AIJ", "related")
    ]


def test_authors_conflict() -> None:
    wei, w, yan = Person("Wang", "Wei"), Person("Wang", "W."), Person("Wang", "Yan")
    li, zhao, others = Person("Li", "Na"), Person("Zhao", "Lei"), Person(literal="others")
    assert versions.authors_conflict([wei, li], [yan, li]) is not None
    assert versions.authors_conflict([wei, li], [w, Person("Li", "N.")]) is None
    assert versions.authors_conflict([wei, li], [wei, zhao]) == "no co-author in common"
    assert versions.authors_conflict([wei, others], [wei, zhao]) is None  # cut short
    assert versions.authors_conflict([wei], [Person("Wang")]) is None  # no given name
    dotted = [Person("Kabanza", "F."), Person("St.-Denis", "R.")]
    assert versions.authors_conflict(dotted, [Person("Kabanza"), Person("St-Denis")]) is None


def test_parts_conflict() -> None:
    assert versions.parts_conflict("Graphs, Part I: A", "Graphs, Part II: B") == "part 1 vs 2"
    assert versions.parts_conflict("Vol. 3 of X", "Volume III of X") is None
    assert versions.parts_conflict("Reasoning about Action I: A", "Reasoning about Action II")
    assert versions.parts_conflict("Graphs, Part I", "Graphs") is None
    assert versions.parts_conflict("SemEval-2020 Task 4: A", "SemEval-2020 Task 5: A")
    assert versions.parts_conflict("Web 2.0 Mashups", "Web 2.0 mashups") is None
    assert versions.title_parts("Partition Functions of Volcanoes") == {}


def test_numbering_conflict() -> None:
    assert dedupe.numbering_conflict({"volume": "95"}, {"volume": "96"}) == "volume"
    assert dedupe.numbering_conflict({"volume": "Vol. 095"}, {"volume": "95"}) is None
    assert dedupe.numbering_conflict({"number": "1"}, {"number": "Spring"}) is None
    assert dedupe.numbering_conflict({"number": "1"}, {"number": "2"}) == "number"


def test_two_articles_in_other_volumes_stay_two(invoke, tmp_path: Path) -> None:
    entry = (
        "@article{{{key}, author={{Ito, Ken and Sato, Mai}}, title={{Annual Survey of "
        "Reinforcement Learning}}, journal={{AI Review}}, year={{2021}}, volume={{{vol}}}}}\n"
    )
    import_text(invoke, tmp_path, "v12.bib", entry.format(key="v12", vol="12"))
    summary = import_text(invoke, tmp_path, "v13.bib", entry.format(key="v13", vol="13"))
    assert summary.endswith("1 added, 0 merged, 0 already present, 0 rejected")
    # "Vol. 12" is volume 12: the same paper.
    summary = import_text(invoke, tmp_path, "again.bib", entry.format(key="w12", vol="Vol. 12"))
    assert "0 added" in summary
    assert _keys(invoke) == ["v12", "v13"]
    assert json.loads(invoke("show", "v12", "--json").stdout)["aliases"] == ["w12"]


REVIEW_ABSTRACT = (
    "Causality extraction from text is a young task. We review the datasets built for it, "
    "the labeling schemes they use and the disagreements between them, and we propose a "
    "unified labeling method that lets models trained on one dataset be tested on another."
)


def test_a_pasted_abstract_completes_from_a_review_titled_entry(invoke, tmp_path: Path) -> None:
    """A title made up from a pasted abstract says nothing of being "a review of"
    another work: the bibliography's "A Review of ..." entry completes it (5 of 2,000
    ACL Anthology 2020 papers of benchmarks/match_quality.py stayed unmerged)."""
    import_text(invoke, tmp_path, "list.txt", f"COLING 2020 Papers\n\n{REVIEW_ABSTRACT}\n")
    entry = (
        "@inproceedings{yang-2020-review, author={Yang, Jie}, title={A Review of Dataset "
        "and Labeling Methods for Causality Extraction}, booktitle={COLING}, year={2020}, "
        f"abstract={{{REVIEW_ABSTRACT}}}}}\n"
    )
    summary = import_text(invoke, tmp_path, "coling.bib", entry)
    assert summary.endswith("0 added, 1 merged, 0 already present, 0 rejected")
    (paper,) = json.loads(invoke("list", "--json").stdout)
    assert paper["title"].startswith("A Review of Dataset")
    assert not paper["title_provisional"]
