"""Issue 15 "plain-text abstract lists" and issue 18 "no recognisable paper": exact values.

Inputs are hand-made (tests/data/abstracts/): a labelled Markdown list, title / author
line / abstract paragraphs, PubMed records in both layouts; the real NeurIPS 2023 list
from ../shared/data is checked for one paper per record.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from readinglist.formats.abstracts import read
from readinglist.records import PaperRecord

FIXTURES = Path(__file__).resolve().parent / "data" / "abstracts"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def names(record: PaperRecord) -> list[str]:
    return [p.display() for p in record.authors]


def test_labelled_markdown_list_one_paper_per_record() -> None:
    text = (FIXTURES / "labelled-markdown.md").read_text(encoding="utf-8")
    result = read(text, "labelled-markdown.md")
    assert [
        (r.line, r.title, names(r), r.venue, r.year, r.doi, r.entry_type) for r in result.records
    ] == [
        (
            3,
            "Sparse Mixture Routing for Long Documents",
            ["Pérez, Ana", "Zhang, Wei", "Smith, John"],
            "AAAI",
            2023,
            "10.1609/aaai.v37i1.25001",
            "inproceedings",
        ),
        (
            17,
            "Graph Priors for Tabular Learning",
            ["Tanaka, K.", "Müller, L."],
            "IJCAI",
            2022,
            "10.24963/ijcai.2022/1",
            "inproceedings",
        ),
        (
            31,
            "A Third Paper Without Labels Beyond Authors",
            ["Rossi, Maria"],
            "AAAI",
            2023,
            None,
            "inproceedings",
        ),
    ]
    assert [r.abstract for r in result.records] == [
        "Long documents are hard to route. We propose a sparse mixture that picks experts per "
        "section.\n\nOur second paragraph explains the experiments on three benchmarks, see "
        "https://example.org/x for details.",
        "Tabular data lack structure. We learn a graph prior over columns.\n\nA second paragraph "
        "of the same abstract follows here and says more about it.",
        "We study something with a plain paragraph abstract that is long enough to count as an "
        "abstract.\n\nAnd then a second paragraph of that abstract continues it further.",
    ]


def test_paragraphs_between_separators_are_one_abstract() -> None:
    text = (
        "First paragraph of paper one, which says what it does.\n\nSecond paragraph of paper one."
        "\n\n---\n\nPaper two has one paragraph only.\n\n---\n\n"
        "Paper three starts here.\n\nAnd ends here.\n"
    )
    assert [(r.line, r.abstract) for r in read(text).records] == [
        (
            1,
            "First paragraph of paper one, which says what it does.\n\nSecond paragraph of paper one.",
        ),
        (7, "Paper two has one paragraph only."),
        (11, "Paper three starts here.\n\nAnd ends here."),
    ]


def test_untitled_abstracts_one_per_paragraph_stay_apart() -> None:
    text = "We propose FooNet for bar.\n\nWe study why models fail.\n\nWe prove a bound on it.\n"
    assert [r.abstract for r in read(text).records] == [
        "We propose FooNet for bar.",
        "We study why models fail.",
        "We prove a bound on it.",
    ]


def test_author_line_never_ends_up_in_the_abstract_or_title() -> None:
    text = (FIXTURES / "title-authors.txt").read_text(encoding="utf-8")
    assert [(r.line, r.title, names(r), r.abstract) for r in read(text).records] == [
        (
            1,
            "Sparse Mixture Routing for Long Documents",
            ["Pérez, A.", "Zhang, W.", "Smith, J."],
            "Long documents are hard to route. We propose a sparse mixture that picks experts "
            "per section.",
        ),
        (
            5,
            "Robust Retrieval with Noisy Queries",
            ["Pérez, Ana", "Zhang, Wei", "Smith, John"],
            "Queries are noisy. We make retrieval robust by training with synthetic typos.",
        ),
        (
            11,
            "Graph Priors for Tabular Learning",
            ["Tanaka, K.", "Müller, L."],
            "Tabular data lack structure. We learn a graph prior over columns.",
        ),
    ]


def test_pubmed_records_one_paper_each() -> None:
    text = (FIXTURES / "pubmed.txt").read_text(encoding="utf-8")
    records = read(text, "pubmed.txt").records
    assert [
        (r.line, r.entry_type, r.title, names(r), r.venue, r.year, r.month, r.doi, dict(r.fields))
        for r in records
    ] == [
        (
            1,
            "article",
            "Deep learning predicts protein stability from sequence",
            ["Smith, J.", "Doe, A.", "van der Berg, J. H."],
            "Nat Commun",
            2020,
            3,
            "10.1038/s41467-020-15000-1",
            {
                "volume": "11",
                "number": "1",
                "pages": "1234",
                "pmid": "32123456",
                "pmcid": "PMC7000001",
            },
        ),
        (
            23,
            "article",
            "A fast aligner for long reads",
            ["Lee, K.", "Kim, H."],
            "Bioinformatics",
            2021,
            1,
            "10.1093/bioinformatics/btaa800",
            {"volume": "37", "number": "5", "pages": "600--607", "pmid": "33000001"},
        ),
        (
            33,
            "article",
            "Machine learning for triage of emergency calls",
            ["Smith, J.", "Doe, A."],
            "J Med Internet Res",
            2020,
            None,
            None,
            {"volume": "22", "number": "3", "pages": "e12345", "pmid": "31234567"},
        ),
    ]
    assert [r.abstract for r in records] == [
        "BACKGROUND: Protein stability is central to design. RESULTS: We train a deep model on "
        "sequence alone and predict stability changes.\n\nCONCLUSIONS: Sequence is enough for "
        "most families.",
        "Long reads are error prone. We present an aligner that is ten times faster.",
        "Emergency calls need fast triage. We train a classifier on transcripts.",
    ]


def test_neurips_markdown_list_one_paper_per_record() -> None:
    path = SHARED / "neurips2023-poster-session1-abstracts.md"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    text = path.read_text(encoding="utf-8")
    records = read(text, path.name).records
    assert len(re.findall(r"^### ", text, re.M)) == len(records) == 603
    assert all(r.authors and r.abstract for r in records)
    assert {(r.venue, r.year) for r in records} == {(None, None)}  # the list names neither


@pytest.mark.parametrize(
    "text", ["vm\n", 'NAME="Debian GNU/Linux"\nID=debian\nHOME_URL="https://www.debian.org/"\n']
)
def test_text_without_a_recognisable_paper_gives_no_records(text: str) -> None:
    assert read(text, "f").records == []


def test_import_of_a_file_without_papers_exits_5(invoke, tmp_path) -> None:
    path = tmp_path / "hostname"
    path.write_text("vm\n", encoding="utf-8")
    result = invoke("import", str(path))
    assert result.exit_code == 5
    assert result.stderr == f"Error: {path}: no papers found (read as abstracts)\n"
    assert invoke("list", "--json").stdout.strip() == "[]"


#: Two papers as title, author line and abstract paragraphs, the first by a single author
#: (the first ICML 2015 papers, pasted from the proceedings' page; abstracts cut).
SOLO_PAPER = """The Fundamental Incompatibility of Scalable Hamiltonian Monte Carlo and Naive Data Subsampling

Michael Betancourt

Leveraging the coherent exploration of Hamiltonian flow, Hamiltonian Monte Carlo produces computationally efficient Monte Carlo estimators."""
TEAM_PAPER = """Optimal and Adaptive Algorithms for Online Boosting

Alina Beygelzimer, Satyen Kale, Haipeng Luo

We study online boosting, the task of converting any weak online learner into a strong online learner."""


@pytest.mark.parametrize("solo_first", [True, False], ids=["first", "second"])
def test_a_single_author_line_is_the_author_not_a_paper(solo_first: bool) -> None:
    """A one-name author paragraph ("Michael Betancourt") in a list whose other papers
    have author paragraphs is that paper's author: neither a paper titled with the name
    (with the real title a paper of its own) nor, first after the header, taking the
    title into the header."""
    papers = [SOLO_PAPER, TEAM_PAPER] if solo_first else [TEAM_PAPER, SOLO_PAPER]
    result = read("\n\n".join(["ICML 2015 Papers", *papers]) + "\n", "icml.txt")
    assert {r.title: names(r) for r in result.records} == {
        "The Fundamental Incompatibility of Scalable Hamiltonian Monte Carlo and Naive "
        "Data Subsampling": ["Betancourt, Michael"],
        "Optimal and Adaptive Algorithms for Online Boosting": [
            "Beygelzimer, Alina",
            "Kale, Satyen",
            "Luo, Haipeng",
        ],
    }
    assert result.meta.get("list_title") == "ICML 2015 Papers"
    assert all(r.abstract for r in result.records)


def test_a_short_second_title_is_no_author_where_no_paper_has_an_author_paragraph() -> None:
    """Where no paper of the list has a paragraph of people, a short paragraph between a
    title and an abstract is not read as one person ("Deep Residual Learning" also reads
    as a name): the single-name rule needs the list's own author paragraphs."""
    text = (
        "Deep Residual Learning\n\nImage Recognition Revisited\n\n"
        "We train deeper networks than before and find that they generalise.\n"
    )
    result = read(text, "list.txt")
    assert all(not r.authors for r in result.records)
