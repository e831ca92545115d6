"""Tests for readinglist.formats.abstracts: pasted lists of papers.

Real lists: the user's ICML 2026 list (19 abstracts, no titles) and a NeurIPS 2023
Markdown list from GitHub (603 papers), both under ../shared/data (the ICML list is
also read from its copy in examples/; the NeurIPS list skips when absent). Hand-made lists in tests/data/abstracts/ cover the other shapes: titles,
author lines, labels, numbering, CRLF + BOM, Latin-1, hard-wrapped mail, and a
GitHub-style Markdown list.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers import shared_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readinglist.formats.abstracts import (
    Links,
    extract_links,
    parse_authors,
    parse_header,
    parse_name,
    read,
)
from readinglist.naming import (
    ContributionName,
    contribution_names,
    provisional_title,
    short_name_from_title,
)
from readinglist.records import PaperRecord, Person
from readinglist.text import fold, search_tokens

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "data" / "abstracts"


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def authors(record: PaperRecord) -> list[str]:
    return [person.display() for person in record.authors]


# --------------------------------------------------------------------------- #
# The user's example list: ICML 2026, 19 abstracts without titles
# --------------------------------------------------------------------------- #

#: (line, short name, provisional title, keywords), decided by reading each abstract.
#: (line, short name, title, keywords) of each ICML paper. The list gives no keywords:
#: the other contribution names its abstracts mention (ReCo's "ReCo-Data", ASCL's
#: "IFPO") are the reader's guesses and must not become keywords (issue 15).
ICML_EXPECTED: list[tuple[int, str | None, str, tuple[str, ...]]] = [
    (3, "SPAR", "SPAR: Support-Preserving Action Rectification", ()),
    (5, None, "A network motif-based approach", ()),
    (
        7,
        None,
        "An exact solution for optimal binary (randomized) classification under sufficiency",
        (),
    ),
    (9, "SafeSeek", "SafeSeek: a unified safety interpretability framework", ()),
    (
        11,
        "GSFixer",
        "GSFixer: a framework designed to improve the quality of 3DGS representations "
        "reconstructed from sparse inputs",
        (),
    ),
    (
        13,
        "MM-DeceptionBench",
        "MM-DeceptionBench: the first benchmark designed to evaluate deceptive behaviors "
        "in vision\u2013language models",
        (),
    ),
    (15, "M+Adam", "M+Adam: combining both update types", ()),
    (
        17,
        "CorrectionPlanner",
        "CorrectionPlanner: an autoregressive planner with self-correction",
        (),
    ),
    (19, "PIDI", "PIDI: Patched Model Inversion with Dual-Sided Initialization", ()),
    (
        21,
        None,
        "A numerically conservative method for uncertainty-aware simulations of nonlinear "
        "conservation laws",
        (),
    ),
    (23, "DCF", "DCF: Differentiable Coherent Factuality", ()),
    (25, None, "Single-edit neighboring user streams", ()),
    (27, "ReCo", "ReCo: an instructional video editing paradigm", ()),
    (29, "ASCL", "ASCL: Adaptive Safe Context Learning", ()),
    (
        31,
        "Semi-knockoffs",
        "Semi-knockoffs: a CIT method that can accommodate any pre-trained model",
        (),
    ),
    (33, None, "A shared-score quaternion self-attention mechanism", ()),
    (
        35,
        "DualUCOD",
        "DualUCOD: a UCOD method based on dual-branch contrastive learning",
        (),
    ),
    (37, "Spotter", "Spotter: a plug\u2011and\u2011play objective", ()),
    (
        39,
        "NanoAssemblyGym",
        "NanoAssemblyGym: a high-fidelity simulation environment for molecular manipulation "
        "built on the Gymnasium API",
        (),
    ),
]


@pytest.fixture(scope="module")
def icml() -> tuple[str, list[PaperRecord]]:
    text = shared_text("icml2026-abstracts.txt")
    result = read(text, "icml2026-abstracts.txt")
    assert result.problems == []
    assert dict(result.meta) == {"list_title": "ICML 2026 Papers", "venue": "ICML", "year": "2026"}
    return text, result.records


def test_icml_has_19_papers_with_whole_abstracts(icml: tuple[str, list[PaperRecord]]) -> None:
    text, records = icml
    paragraphs = [p.strip() for p in text.split("\n\n")[1:] if p.strip()]
    assert len(records) == 19
    assert [r.abstract for r in records] == paragraphs
    assert {(r.venue, r.year, r.entry_type) for r in records} == {("ICML", 2026, "inproceedings")}
    assert all(r.citekey is None and r.authors == () for r in records)


@pytest.mark.parametrize(("index", "expected"), list(enumerate(ICML_EXPECTED)))
def test_icml_short_name_and_provisional_title(
    icml: tuple[str, list[PaperRecord]],
    index: int,
    expected: tuple[int, str | None, str, tuple[str, ...]],
) -> None:
    line, short_name, title, keywords = expected
    record = icml[1][index]
    assert (record.line, record.short_name, record.title, record.keywords) == (
        line,
        short_name,
        title,
        keywords,
    )
    assert record.title_provisional is True


def test_icml_names_count_and_none_where_nothing_is_named(
    icml: tuple[str, list[PaperRecord]],
) -> None:
    names = [r.short_name for r in icml[1]]
    assert sum(1 for n in names if n) == 14
    assert [i + 1 for i, n in enumerate(names) if n is None] == [2, 3, 10, 12, 16]


def test_icml_github_links_exactly(icml: tuple[str, list[PaperRecord]]) -> None:
    links = [(i + 1, r.code_url) for i, r in enumerate(icml[1]) if r.code_url]
    assert links == [
        (5, "https://github.com/GVCLab/GSFixer"),
        (9, "https://github.com/FLAIR-THU/VFLAIR-LLM"),
        (13, "https://github.com/HiDream-ai/ReCo"),
        (14, "https://github.com/ybwang119/ASCL.git"),
    ]
    assert all(r.url is None and r.arxiv is None and r.doi is None for r in icml[1])


def test_icml_titles_are_clean_unicode_for_search(icml: tuple[str, list[PaperRecord]]) -> None:
    spotter = icml[1][17]
    assert "\u2011" in spotter.title  # kept as written ...
    assert "plug-and-play" in fold(spotter.title)  # ... and found by a plain hyphen
    assert search_tokens(spotter.title)[:4] == ["spotter", "a", "plug", "and"]
    for record in icml[1]:
        assert not any(c in record.title for c in "\\{}$*")


# --------------------------------------------------------------------------- #
# A real Markdown list from GitHub: NeurIPS 2023, poster session 1
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def neurips() -> list[PaperRecord]:
    text = shared_text("neurips2023-poster-session1-abstracts.md")
    result = read(text, "neurips.md")
    assert result.problems == []
    assert dict(result.meta) == {"list_title": "Poster Session 1: Tuesday, Dec 12, 08:45 CT"}
    return result.records


def test_neurips_markdown_has_603_papers_with_titles_authors_abstracts(
    neurips: list[PaperRecord],
) -> None:
    assert len(neurips) == 603
    assert all(r.title and not r.title_provisional for r in neurips)
    assert all(r.authors and r.abstract for r in neurips)
    assert not any("<" in r.abstract and "details>" in r.abstract for r in neurips if r.abstract)
    assert not any(r.title.startswith(("#", "[Spotlight]", "[Oral]")) for r in neurips)
    assert all(r.entry_type == "misc" and r.venue is None for r in neurips)


def test_neurips_first_and_last_papers(neurips: list[PaperRecord]) -> None:
    first, last = neurips[0], neurips[-1]
    assert first.line == 3
    assert first.title == (
        "(S)GD over Diagonal Linear Networks: Implicit bias, Large Stepsizes and Edge of Stability"
    )
    assert authors(first) == [
        "Even, Mathieu",
        "Pesme, Scott",
        "Gunasekar, Suriya",
        "Flammarion, Nicolas",
    ]
    assert first.abstract is not None
    assert first.abstract.startswith("In this paper, we investigate the impact of stochasticity")
    assert first.abstract.endswith("Our findings are supported by experimental results.")
    assert first.short_name is None
    assert (last.title, last.short_name) == (
        "rPPG-Toolbox: Deep Remote PPG Toolbox",
        "rPPG-Toolbox",
    )
    assert last.code_url == "https://github.com/ubicomplab/rPPG-Toolbox"
    assert len(last.authors) == 10


@pytest.mark.parametrize(
    ("title_start", "short_name", "code_url", "fields"),
    [
        ("AbDiffuser: full-atom", "AbDiffuser", None, {"list_presentation": "Spotlight"}),
        (
            "A Comprehensive Study on Text-attributed",
            "CS-TAG",
            "https://github.com/sktsherlock/TAG-Benchmark",
            {},
        ),
        ("Aging with GRACE", "GRACE", "https://www.github.com/thartvigsen/grace", {}),
        ("Alternating Updates for Efficient", "AltUp", None, {"list_presentation": "Spotlight"}),
        (
            "A U-turn on Double Descent",
            None,
            None,
            {"list_presentation": "Oral", "list_oral_presentation": "Tu, Dec 12, 08:30 -- Oral 1D"},
        ),
        ("Knowledge Diffusion for Distillation", "DiffKD", "https://github.com/hunto/DiffKD", {}),
        ("Dual Mean-Teacher", "DMT", "https://github.com/gyx-gloria/DMT", {}),
    ],
)
def test_neurips_selected_papers(
    neurips: list[PaperRecord],
    title_start: str,
    short_name: str | None,
    code_url: str | None,
    fields: dict[str, str],
) -> None:
    record = next(r for r in neurips if r.title and r.title.startswith(title_start))
    assert (record.short_name, record.code_url, dict(record.fields)) == (
        short_name,
        code_url,
        fields,
    )


def test_neurips_parses_well_under_a_second_or_two() -> None:
    """A guard against pathological slowness (measured: ~0.4 s on an idle machine)."""
    text = shared_text("neurips2023-poster-session1-abstracts.md")
    start = time.process_time()
    read(text + "\n")  # a new string, so no cached scans
    assert time.process_time() - start < 3.0


# --------------------------------------------------------------------------- #
# Hand-made lists in the other shapes
# --------------------------------------------------------------------------- #


def test_titles_then_abstracts_with_links() -> None:
    result = read(fixture_text("titled.txt"), "titled.txt")
    assert dict(result.meta) == {
        "list_title": "NeurIPS 2025 \u2014 accepted papers",
        "venue": "NeurIPS",
        "year": "2025",
    }
    got = [
        (r.line, r.title, r.title_provisional, r.short_name, r.code_url, r.arxiv, r.doi, r.url)
        for r in result.records
    ]
    assert got == [
        (3, "FlowSketch: Sketch-Guided Optical Flow", False, "FlowSketch",
         "https://github.com/example-lab/flowsketch", None, None, None),
        (6, "Scaling Laws for Sparse Retrieval", False, None, None, "2501.01234", None, None),
        (9, "Learning to Prune with Lottery Tickets", False, "LoP", None, "2502.00001",
         "10.48550/arxiv.2502.00001", None),
    ]  # fmt: skip
    assert {(r.venue, r.year, r.entry_type) for r in result.records} == {
        ("NeurIPS", 2025, "inproceedings")
    }
    assert result.records[0].abstract == (
        "Optical flow estimation struggles when the user has a rough idea of the motion but no "
        "dense labels. We propose FlowSketch, a network that turns a few user strokes into a "
        "dense flow prior. Code is available at https://github.com/example-lab/flowsketch."
    )


def test_author_lines_in_three_styles() -> None:
    result = read(fixture_text("authors.txt"))
    assert dict(result.meta) == {
        "list_title": "Proceedings of ACL 2024",
        "venue": "ACL",
        "year": "2024",
    }
    got = [(r.title, authors(r), r.short_name, r.url) for r in result.records]
    assert got == [
        ("Token Budgets for Long-Context Reasoning",
         ["Rahman, A.", "Okafor, B.", "Lindqvist, C."], "BudgetCoT", None),
        ("GraphMix: Mixing Node Features for Robust Graph Classifiers",
         ["P\u00e9rez, Ana", "Zhang, Wei", "van der Berg, Jean-Luc"], "GraphMix",
         "https://graphmix.example.org/"),
        ("A Survey of Retrieval-Augmented Generation", ["Smith, John", "Doe, Jane"], None, None),
    ]  # fmt: skip
    assert result.records[2].abstract is not None
    assert result.records[2].abstract.startswith("This survey reviews")


def test_labelled_lines() -> None:
    result = read(fixture_text("labelled.txt"))
    assert dict(result.meta) == {"list_title": "CVPR'25 orals", "venue": "CVPR", "year": "2025"}
    nerf, counting = result.records
    assert (nerf.title, nerf.short_name, authors(nerf)) == (
        "NeRF-Lite: Radiance Fields on a Microcontroller",
        "NeRF-Lite",
        ["Natarajan, Priya", "Garc\u00eda, Tom\u00e1s", "Lin, Mei"],
    )
    assert (nerf.url, nerf.arxiv, nerf.code_url, nerf.doi) == (
        "https://openreview.net/forum?id=abc123",
        "2503.04567",
        "https://github.com/nerf-lite/nerf-lite",
        None,
    )
    assert nerf.abstract == (
        "Neural radiance fields are too heavy for embedded devices.\n"
        "We present NeRF-Lite, a quantized radiance field that renders at 10 fps on a\n"
        "microcontroller with 512 KB of memory."
    )
    assert (counting.title, authors(counting), counting.doi, counting.short_name) == (
        "Counting Objects in Crowded Scenes",
        ["Osei, K.", "Moreau, L."],
        "10.1109/cvpr.2025.00042",
        None,
    )
    assert (counting.year, counting.venue) == (2025, "CVPR")


def test_numbered_and_bulleted_titles() -> None:
    result = read(fixture_text("numbered.txt"))
    assert dict(result.meta) == {}
    got = [(r.line, r.title, authors(r), r.short_name, r.code_url) for r in result.records]
    assert got == [
        (1, "PolyGuard: Certified Defenses for Polynomial Networks",
         ["Fischer, Lena", "Rossi, Marco"], "PolyGuard", "https://gitlab.com/polyguard/polyguard"),
        (5, "Efficient Attention for Audio Transformers",
         ["Park, Jun", "Almeida, Sofia"], "BSA", None),
        (9, "Curriculum Design for Offline Reinforcement Learning", [], None, None),
    ]  # fmt: skip
    assert result.records[2].abstract == (
        "Offline reinforcement learning (RL) depends on the order in which data is seen. "
        "We study curricula over the replay buffer and show when they help."
    )
    assert {r.entry_type for r in result.records} == {"misc"}


def test_windows_line_ends_and_bom() -> None:
    raw = (FIXTURES / "crlf-bom.txt").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert b"\r\n" in raw
    result = read(raw.decode("utf-8"), "crlf-bom.txt")  # BOM and CR left in the text
    metanet, echo = result.records
    assert (metanet.title, authors(metanet), metanet.short_name, metanet.code_url) == (
        "M\u00e9taNet: Learning to Learn from Sparse Labels",
        ["Mart\u00ednez, Jos\u00e9", "Dubois, Chlo\u00e9"],
        "M\u00e9taNet",
        "https://huggingface.co/metanet/metanet-base",
    )
    assert metanet.abstract == (
        "Few-shot learners need many episodes. We propose M\u00e9taNet, a meta-learner that "
        "needs ten times fewer episodes."
    )
    assert (echo.line, echo.title, authors(echo), echo.short_name) == (
        6,
        "Robust Speech Recognition under Noise",
        ["Nordmann, Ola", "Hansen, Kari"],
        "EchoClean",
    )
    assert not any("\r" in (r.abstract or "") + (r.title or "") for r in result.records)


def test_crlf_reads_like_lf() -> None:
    text = fixture_text("labelled.txt")
    assert read(text.replace("\n", "\r\n")).records == read(text).records


def test_latin1_source_decoded_by_the_caller() -> None:
    text = (FIXTURES / "latin1.txt").read_bytes().decode("latin-1")
    result = read(text, "latin1.txt")
    assert dict(result.meta) == {"list_title": "Papers of the Nordic Workshop 2023", "year": "2023"}
    lemma, cafe = result.records
    assert (lemma.title, authors(lemma), lemma.short_name) == (
        "S\u00f8ren's Lemma for Graph Neural Networks",
        ["\u00d8deg\u00e5rd, S\u00f8ren", "Bj\u00f6rk, \u00c5sa"],
        None,
    )
    assert (cafe.title, authors(cafe), cafe.short_name, cafe.year) == (
        "Caf\u00e9: Cheap Approximate Filtering for Edge Devices",
        ["M\u00fcller, Zo\u00eb"],
        "Caf\u00e9",
        2023,
    )
    assert cafe.abstract is not None
    assert "5\u00d7 energy" in cafe.abstract


def test_hard_wrapped_mailing_list() -> None:
    result = read(fixture_text("mailing-list.txt"))
    assert dict(result.meta) == {"list_title": "This week's reading list (compiled by the lab)"}
    tabmix, keyphrase = result.records
    assert (tabmix.title, authors(tabmix), tabmix.short_name) == (
        "Sparse Mixture Models for Tabular Data",
        ["Hopper, Grace", "Turing, Alan"],
        "TabMix",
    )
    assert tabmix.abstract is not None
    assert tabmix.abstract.count("\n") == 3
    assert (keyphrase.title, authors(keyphrase), keyphrase.short_name) == (
        "Unsupervised Keyphrase Extraction with Language Models",
        ["Lovelace, Ada"],
        None,
    )


def test_github_markdown_list() -> None:
    result = read(fixture_text("github-list.md"), "github-list.md")
    assert dict(result.meta) == {
        "list_title": "Awesome ICLR 2025 Papers",
        "venue": "ICLR",
        "year": "2025",
    }
    got = [
        (r.line, r.title, authors(r), r.short_name, r.code_url, dict(r.fields))
        for r in result.records
    ]
    assert got == [
        (5, "DiffuPlan: Diffusion Planners for Long-Horizon Robot Tasks",
         ["Becker, Hannah", "Kumar, Ravi", "Na, Li"], "DiffuPlan",
         "https://github.com/diffuplan/diffuplan", {"list_presentation": "Spotlight"}),
        (17, "Calibrated Uncertainty for Tabular Regression",
         ["Haddad, Omar", "Novak, Julia"], "CalibTab", None, {}),
        (27, "Do Vision Transformers See Shapes?", ["Silva, Marta"], None, None, {}),
    ]  # fmt: skip
    diffuplan = result.records[0].abstract
    assert diffuplan is not None
    assert diffuplan.startswith("Long-horizon manipulation needs plans")
    assert "\n\nOn three robot suites" in diffuplan  # a two-paragraph abstract kept whole
    assert diffuplan.endswith("(https://github.com/diffuplan/diffuplan).")
    assert result.records[1].abstract == (
        "Regression models on tabular data are often over-confident. We introduce "
        "$\\texttt{CalibTab}$, a post-hoc recalibration layer with coverage guarantees, and "
        "evaluate it on 50 data sets &amp; 3 model families."
    )


def test_arxiv_listing_mail() -> None:
    result = read(fixture_text("arxiv-digest.txt"))
    assert dict(result.meta) == {}
    tinyrec, probing = result.records
    assert (tinyrec.title, authors(tinyrec), tinyrec.short_name, tinyrec.arxiv) == (
        "TinyRec: Recommendation on a Budget",
        ["Gonzalez, Maria", "Smith, Peter"],
        "TinyRec",
        "2401.01234",
    )
    assert tinyrec.abstract == (
        "Recommenders are expensive to serve. We propose TinyRec, a distilled\n"
        "recommender that runs on a phone."
    )
    assert dict(tinyrec.fields) == {
        "list_date": "Mon, 1 Jan 2024 10:00:00 GMT   (120kb)",
        "list_categories": "cs.IR cs.LG",
        "list_comments": "12 pages",
    }
    assert (probing.title, authors(probing), probing.short_name, probing.arxiv) == (
        "On the Limits of Sparse Probing",
        ["Wei, Li", "Farouk, Omar"],
        None,
        "2401.05678",
    )


def test_openreview_style_copy() -> None:
    result = read(fixture_text("openreview.txt"))
    got = [(r.title, authors(r), r.short_name, r.keywords, dict(r.fields)) for r in result.records]
    assert got == [
        ("Prompt Tuning Without Labels", ["Roe, Jane", "Miles, Richard"], "SelfPrompt",
         ("prompt tuning", "self-training"), {"list_tldr": "Prompts can be tuned from unlabelled data."}),
        ("Equivariant Diffusion for Crystals", ["Bo, Chen", "Kim, Ada"], "CrystalDiff",
         ("diffusion", "materials"), {}),
    ]  # fmt: skip


def test_awesome_list_of_one_line_bullets() -> None:
    result = read(fixture_text("awesome-list.md"))
    assert dict(result.meta) == {"list_title": "Awesome Efficient LLM Papers"}
    got = [
        (r.line, r.title, r.short_name, r.arxiv, r.code_url, r.venue, r.year, r.abstract)
        for r in result.records
    ]
    assert got == [
        (5, "QuIP#: Even Better LLM Quantization", "QuIP#", "2402.04396",
         "https://github.com/Cornell-RelaxML/quip-sharp", "ICML", 2024, None),
        (6, "AWQ: Activation-aware Weight Quantization", "AWQ", "2306.00978", None, "MLSys", 2024, None),
        (7, "SmoothQuant: Accurate and Efficient Post-Training Quantization for Large Language Models",
         "SmoothQuant", None, None, None, None, None),
        (11, "Wanda: A Simple and Effective Pruning Approach for Large Language Models", "Wanda",
         "2306.11695", None, None, None, None),
    ]  # fmt: skip


# --------------------------------------------------------------------------- #
# Layout decisions on small inline lists
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text", ["", "\n\n", "   \r\n", "\ufeff", "ICML 2026 Papers\n", "# NeurIPS 2024\n\n"]
)
def test_empty_or_header_only_gives_no_records(text: str) -> None:
    assert read(text).records == []


def test_header_without_venue_then_untitled_abstracts() -> None:
    text = (
        "My reading list\n\nWe propose FooNet, a model for bar prediction.\n\n"
        "Large language models (LLMs) hallucinate. We study why.\n"
    )
    result = read(text)
    assert dict(result.meta) == {"list_title": "My reading list"}
    assert [(r.title, r.short_name, r.title_provisional) for r in result.records] == [
        ("FooNet: a model for bar prediction", "FooNet", True),
        ("Large language models (LLMs) hallucinate", None, True),
    ]


def test_title_paragraph_then_abstract_paragraph() -> None:
    text = (
        "Deep Sets Revisited\n\nWe revisit permutation-invariant networks and prove a new bound.\n\n"
        "Graph Transformers at Scale\n\nWe train graph transformers on 1B edges.\n"
    )
    result = read(text)
    assert dict(result.meta) == {}
    assert [(r.line, r.title, r.abstract) for r in result.records] == [
        (
            1,
            "Deep Sets Revisited",
            "We revisit permutation-invariant networks and prove a new bound.",
        ),
        (5, "Graph Transformers at Scale", "We train graph transformers on 1B edges."),
    ]


def test_bold_markdown_labels_and_setext_heading() -> None:
    text = (
        "Reading group\n=============\n\n"
        "**Title:** Sparse *Attention* Everywhere\n**Authors:** Kim Lee and Dana Ross\n"
        "**Abstract:** We introduce **SAE**, a sparse attention engine.\n"
        "**Code:** https://github.com/sae/sae\n"
    )
    result = read(text)
    assert dict(result.meta) == {"list_title": "Reading group"}
    (record,) = result.records
    assert (record.title, authors(record), record.short_name, record.code_url, record.line) == (
        "Sparse Attention Everywhere",
        ["Lee, Kim", "Ross, Dana"],
        "SAE",
        "https://github.com/sae/sae",
        4,
    )
    assert record.abstract == "We introduce **SAE**, a sparse attention engine."


def test_titles_only_list_and_venue_override() -> None:
    result = read("1. Paper One\n\n2. Paper Two: The Sequel\n", venue="EMNLP", year=2023)
    assert [(r.title, r.abstract, r.venue, r.year, r.entry_type) for r in result.records] == [
        ("Paper One", None, "EMNLP", 2023, "inproceedings"),
        ("Paper Two: The Sequel", None, "EMNLP", 2023, "inproceedings"),
    ]


def test_overrides_beat_the_header() -> None:
    result = read(
        "ICML 2026 Papers\n\nWe propose FooNet, a model.\n", venue="ICML Workshop", year=2025
    )
    assert dict(result.meta) == {"list_title": "ICML 2026 Papers", "venue": "ICML", "year": "2026"}
    assert (result.records[0].venue, result.records[0].year) == ("ICML Workshop", 2025)


# --------------------------------------------------------------------------- #
# Helpers, table-driven
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("ICML 2026 Papers", {"venue": "ICML", "year": "2026"}),
        ("NeurIPS 2025 \u2014 accepted papers", {"venue": "NeurIPS", "year": "2025"}),
        ("Proceedings of ACL 2024", {"venue": "ACL", "year": "2024"}),
        ("CVPR'25 orals", {"venue": "CVPR", "year": "2025"}),
        ("## EMNLP2023 highlights", {"venue": "EMNLP", "year": "2023"}),
        (
            "Papers from the International Conference on Machine Learning",
            {"venue": "International Conference on Machine Learning"},
        ),
        ("Reading list for May", {}),
        ("Poster Session 1: Tuesday, Dec 12, 08:45 CT", {}),
        ("ICML PAPERS 2026", {"venue": "ICML", "year": "2026"}),
    ],
)
def test_parse_header(header: str, expected: dict[str, str]) -> None:
    meta = parse_header(header)
    assert {k: v for k, v in meta.items() if k != "list_title"} == expected
    assert meta["list_title"] == header.lstrip("# ")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("A. Name, B. Name and C. Name", ["Name, A.", "Name, B.", "Name, C."]),
        ("Ana P\u00e9rez \u00b7 Wei Zhang", ["P\u00e9rez, Ana", "Zhang, Wei"]),
        ("Ana P\u00e9rez; Wei Zhang", ["P\u00e9rez, Ana", "Zhang, Wei"]),
        ("Doe, Jane; Smith, John", ["Doe, Jane", "Smith, John"]),
        ("Kim Lee, Dana Ross, and Sam Wu", ["Lee, Kim", "Ross, Dana", "Wu, Sam"]),
        ("Jane Doe1*, John Smith2\u2020", ["Doe, Jane", "Smith, John"]),
        ("Jane Doe et al.", ["Doe, Jane", "others"]),
        ('Schr{\\"o}dinger, Erwin', ["Schr\u00f6dinger, Erwin"]),
        (
            "**Authors:** Mihaela van der Schaar, Martin Luther King Jr.",
            ["van der Schaar, Mihaela", "King, Jr., Martin Luther"],
        ),
        ("", []),
    ],
)
def test_parse_authors(line: str, expected: list[str]) -> None:
    assert [p.display() for p in parse_authors(line)] == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Jean-Luc van der Berg", Person(family="Berg", given="Jean-Luc", von="van der")),
        ("jie liu", Person(family="liu", given="jie")),
        ("lincan Cai", Person(family="Cai", given="lincan")),
        ("WEI-CHING LIANG", Person(family="LIANG", given="WEI-CHING")),
        ("Plato", Person(family="Plato")),
        ("de la Fuente, Ana", Person(family="Fuente", given="Ana", von="de la")),
        # A capitalised particle just before the last word begins the family name (the
        # NeurIPS list's "Salwa Al Khatib" was family "Khatib", given "Salwa Al").
        ("Salwa Al Khatib", Person(family="Al Khatib", given="Salwa")),
        ("Vincent Van Gogh", Person(family="Van Gogh", given="Vincent")),
        ("Mohamed El Amine Boudjoghra", Person(family="Boudjoghra", given="Mohamed El Amine")),
        ("Wei Du", Person(family="Du", given="Wei")),
        ("Le Song", Person(family="Song", given="Le")),
    ],
)
def test_parse_name(name: str, expected: Person) -> None:
    assert parse_name(name) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Code: https://github.com/GVCLab/GSFixer.",
            Links(code_url="https://github.com/GVCLab/GSFixer"),
        ),
        (
            "at \\url{https://github.com/FLAIR-THU/VFLAIR-LLM}.",
            Links(code_url="https://github.com/FLAIR-THU/VFLAIR-LLM"),
        ),
        ("at \\url{https://example.org/a\\_b}}.", Links(url="https://example.org/a_b")),
        (
            "https://github.com/ybwang119/ASCL.git.",
            Links(code_url="https://github.com/ybwang119/ASCL.git"),
        ),
        ("(see https://arxiv.org/abs/2401.01234v2)", Links(arxiv="2401.01234")),
        ("<https://arxiv.org/pdf/hep-th/9901001v1.pdf>", Links(arxiv="hep-th/9901001")),
        ("https://dx.doi.org/10.1145/ABC.123;", Links(doi="10.1145/abc.123")),
        (
            "[code](https://huggingface.co/datasets/x/y) and https://x.org/p",
            Links(url="https://x.org/p", code_url="https://huggingface.co/datasets/x/y"),
        ),
        (
            "Wiki https://en.wikipedia.org/wiki/Foo_(bar)).",
            Links(url="https://en.wikipedia.org/wiki/Foo_(bar)"),
        ),
        ("repo at github.com/a/b.", Links(code_url="https://github.com/a/b")),
        ("no links at all", Links()),
    ],
)
def test_extract_links(text: str, expected: Links) -> None:
    assert extract_links(text) == expected


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("FlowSketch: Sketch-Guided Optical Flow", "FlowSketch"),
        ("[Spotlight] AbDiffuser: full-atom generation", "AbDiffuser"),
        ("Llama 2: Open Foundation and Fine-Tuned Chat Models", "Llama 2"),
        ("A Multi-modal Global Instance Tracking Benchmark (MGIT): Better Locating", "MGIT"),
        ("AND: Adversarial Neural Degradation", "AND"),
        ("DIFFER:Decomposing Individual Reward", "DIFFER"),
        ("Position: AI Safety Needs Social Scientists", None),
        ("Deep Learning: A Survey", None),
        ("Data-Driven Network Neuroscience: On Data Collection", None),
        ("LLMs: a survey", None),
        ("Attention Is All You Need", None),
    ],
)
def test_short_name_from_title(title: str, expected: str | None) -> None:
    assert short_name_from_title(title) == expected


@pytest.mark.parametrize(
    ("abstract", "expected"),
    [
        ("We propose GSFixer, a framework.", ["GSFixer"]),
        ("In this paper, we introduce a method called ProtoNet.", ["ProtoNet"]),
        ("We present a model, dubbed *Mamba-X*, for sequences.", ["Mamba-X"]),
        ("We propose \\textbf{S}parse \\textbf{A}ttention \\textbf{M}odules (SAM).", ["SAM"]),
        ("We propose **Re**gional **Co**nstraints for editing.", ["ReCo"]),
        ("Our method, FastFlow, is fast.", ["FastFlow"]),
        ("This paper presents the Adaptive Safe Context Learning (ASCL) framework.", ["ASCL"]),
        ("By introducing TinyGym, we enable RL at scale.", ["TinyGym"]),
        # nothing named: field terms, pronouns, ordinary words, prior work
        ("Large language models (LLMs) hallucinate. We propose a simple fix for LLMs.", []),
        ("We propose LLMs for planning.", []),
        ("We propose a method. This works. We show it.", []),
        ("Knowledge distillation (KD) is common. We propose a novel KD method.", []),
        ("We use a recent architecture named Foo-Net.", []),
        ("A phenomenon dubbed double descent appears.", []),
        ("We propose DiT-based models.", []),
        ("We establish Statistical Query (SQ) lower bounds.", []),
    ],
)
def test_contribution_names(abstract: str, expected: list[str]) -> None:
    assert [n.name for n in contribution_names(abstract)] == expected


def test_contribution_name_details() -> None:
    names = contribution_names(
        "We propose SPAR, which rectifies actions. We further introduce Latent Self-Imitation, "
        "utilizing a latent sampler. We then introduce Inverse Frequency Policy Optimization~(IFPO)."
    )
    assert names[0] == ContributionName("SPAR", None, "rectifying actions", 11)
    assert [n.name for n in names] == ["SPAR", "Latent Self-Imitation", "IFPO"]
    assert names[2].expansion == "Inverse Frequency Policy Optimization"


@pytest.mark.parametrize(
    ("abstract", "expected"),
    [
        (
            "We propose GSFixer, a novel framework designed to improve X.",
            "GSFixer: a framework designed to improve X",
        ),
        (
            "Unsupervised camouflaged object detection (UCOD) is hard. "
            "We introduce a novel UCOD method that detects objects.",
            "A UCOD method that detects objects",
        ),
        ("We propose a new explainer, which works.", "An explainer"),
        ("Binary classification is a fundamental task. It is hard.", "Binary classification"),
        ("Results.", "Results"),
        ("   ", "Untitled"),
    ],
)
def test_provisional_title(abstract: str, expected: str) -> None:
    assert provisional_title(abstract) == expected


# --------------------------------------------------------------------------- #
# Fuzzing: read never raises
# --------------------------------------------------------------------------- #

_FRAGMENTS = st.sampled_from(
    [
        "\n",
        "\n\n",
        "\r\n",
        "# ",
        "### ",
        "**",
        "*",
        "_",
        "`",
        "$",
        "\\textbf{",
        "}",
        "{",
        "(",
        ")",
        "[",
        "](",
        "Title: ",
        "Authors: ",
        "Abstract: ",
        "Code: ",
        "arXiv: ",
        "DOI: ",
        "<details><summary>Abstract</summary>",
        "</details>",
        "----",
        "1. ",
        "- ",
        " \u00b7 ",
        "We propose ",
        "we introduce ",
        "called ",
        "(ACRO)",
        "FooNet",
        ", a framework that ",
        "https://github.com/a/b.",
        "\\url{https://x.y/z}",
        "ICML 2026",
        "CVPR'25",
        "i.e., ",
        "A. Name, B. Name and C. Name",
        "\ufeff",
        "\u2011",
        "&amp;",
        "e.g. ",
        ". ",
        ",",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=400),
        st.lists(st.one_of(_FRAGMENTS, st.text(max_size=8)), max_size=60).map("".join),
    )
)
def test_read_never_raises(text: str) -> None:
    result = read(text, "fuzz")
    assert all(r.title for r in result.records)
    assert not [p for p in result.problems if "internal error" in p.message]


def test_title_markup_and_entities_are_decoded() -> None:
    (record,) = read(
        "1. Fast &amp; Frugal: $\\texttt{FnF}$ for \\emph{Edge} **Devices**\n"
        "We propose FnF, a method for &lt;1 W chips.\n"
    ).records
    assert record.title == "Fast & Frugal: FnF for Edge Devices"
    assert record.short_name == "FnF"
    assert record.abstract == "We propose FnF, a method for &lt;1 W chips."


@pytest.mark.parametrize(
    ("heading", "title", "venue", "fields"),
    [
        ("## [12] Safe Context Learning [Spotlight]", "Safe Context Learning", None,
         {"list_presentation": "Spotlight"}),
        ("## Deep Nets (Oral) (ICML 2024)", "Deep Nets", "ICML", {"list_presentation": "Oral"}),
        ("## Deep Nets (ICML 2024) [Oral]", "Deep Nets", "ICML", {"list_presentation": "Oral"}),
        ("## [Oral] Deep Nets (Poster)", "Deep Nets (Poster)", None,
         {"list_presentation": "Oral"}),
        ("## A Study of (Oral) Cancer", "A Study of (Oral) Cancer", None, {}),
        # A tag written as a label before the title (fresh user: the key was li2026oral).
        ("## Oral: Diffusion Policies", "Diffusion Policies", None, {"list_presentation": "Oral"}),
        ("## Oral Cancer Detection: A Study", "Oral Cancer Detection: A Study", None, {}),
    ],
)  # fmt: skip
def test_presentation_tag_before_or_after_the_title(
    heading: str, title: str, venue: str | None, fields: dict[str, str]
) -> None:
    text = f"{heading}\n\n**Authors:** *Ana Lima, Bo Chen*\n\n**Abstract:** We propose it.\n"
    (record,) = read(text).records
    assert (record.title, record.venue, dict(record.fields)) == (title, venue, fields)


def test_a_presentation_tag_on_a_line_of_its_own_is_the_next_papers() -> None:
    """Conference pages put "Poster" or "Spotlight Poster" on a line of its own, before a
    title or after an abstract: it was read as a paper titled "Poster" (the real title and
    authors went into its abstract), or as the start of an abstract (fresh user)."""
    text = (
        "ICML 2026 Papers\n\nPoster\n\nSparse Mixture Routing for Long Documents\n\n"
        "Ana Pérez, Wei Zhang\n\nWe route tokens to experts sparsely. Long documents "
        "become cheap.\n\nOral\n\nRobust Retrieval with Noisy Queries\n\nJohn Smith, Mary "
        "Jones\n\nQueries are noisy. We train with synthetic typos.\n\n**Spotlight Poster**\n\n"
        "Diffusion Policies for Robots\n\nLi Na, Omar Farouk\n\nWe study diffusion policies.\n"
    )
    result = read(text)
    assert result.problems == []
    got = [(r.title, authors(r), dict(r.fields), r.abstract) for r in result.records]
    assert got == [
        ("Sparse Mixture Routing for Long Documents", ["Pérez, Ana", "Zhang, Wei"],
         {"list_presentation": "Poster"},
         "We route tokens to experts sparsely. Long documents become cheap."),
        ("Robust Retrieval with Noisy Queries", ["Smith, John", "Jones, Mary"],
         {"list_presentation": "Oral"}, "Queries are noisy. We train with synthetic typos."),
        ("Diffusion Policies for Robots", ["Na, Li", "Farouk, Omar"],
         {"list_presentation": "Spotlight Poster"}, "We study diffusion policies."),
    ]  # fmt: skip
