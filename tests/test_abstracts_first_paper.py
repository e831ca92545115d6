"""A pasted list whose first paper is title / author line / abstract, each its own paragraph
(README's first shape): the title paragraph is the paper's title, not the list's header, and
the author line is the authors (found by a fresh user: the title was lost, the authors became
the title)."""

from __future__ import annotations

from readinglist.formats.abstracts import read


def test_the_readme_shape_as_the_first_and_only_paper() -> None:
    text = (
        "Robust Retrieval with Noisy Queries\n\n"
        "Ana Pérez, Wei Zhang and John Smith\n\n"
        "Queries are noisy. We make retrieval robust by training with synthetic typos.\n"
    )
    [record] = read(text).records
    assert record.title == "Robust Retrieval with Noisy Queries"
    assert [(p.family, p.given) for p in record.authors] == [
        ("Pérez", "Ana"),
        ("Zhang", "Wei"),
        ("Smith", "John"),
    ]
    assert record.abstract == (
        "Queries are noisy. We make retrieval robust by training with synthetic typos."
    )


def test_a_header_before_the_readme_shape_is_still_the_header() -> None:
    text = (
        "ICML 2026 accepted papers\n\n"
        "Robust Retrieval with Noisy Queries\n\n"
        "Ana Pérez, Wei Zhang and John Smith\n\n"
        "Queries are noisy. We make retrieval robust by training with synthetic typos.\n"
    )
    [record] = read(text).records
    assert (record.title, record.venue, record.year) == (
        "Robust Retrieval with Noisy Queries",
        "ICML",
        2026,
    )
    assert len(record.authors) == 3
