"""The tf-idf vocabulary of the ranking index (readinglist.ranking.features).

The vectorizer is ASReview LAB's ELAS u4 tf-idf (its ``asreview/models/models.py``):
word 1-2-grams, no stop list, scikit-learn's token pattern, terms in at least one
paper and at most 95% of them. Small hand-made libraries, so the vocabulary is known.
"""

from __future__ import annotations

from readinglist.ranking import features

#: 60 papers (above the small-library bounds, 50 papers): every one says "the study";
#: one names the 5-HT receptor and a 2D model, one "serotonin".
DOCS = [f"the study number{i} of cohort{i % 7}" for i in range(58)] + [
    "the study of 5-HT receptors in a 2D model",
    "the study of serotonin",
]


def test_terms_keep_digits_and_terms_of_one_paper() -> None:
    """ "5" and "ht" are not tokens (one character), "2d" is one (two word characters,
    a digit first: arxiv-sanity-lite's letter-first pattern dropped it); "serotonin"
    and "receptors" occur in one paper each and are kept (min_df 1); stop words are
    terms too ("of", "in a" through "in"), and bigrams span them ("of serotonin")."""
    _, vocabulary, _ = features.fit(DOCS)
    terms = set(vocabulary)
    assert {"2d", "2d model", "serotonin", "receptors", "of serotonin", "in"} <= terms
    assert "5" not in terms
    assert "ht" in terms


def test_terms_in_more_than_95_percent_of_papers_are_dropped() -> None:
    """ "the", "study" and "the study" are in all 60 papers (> 95%): no column; "of" is
    in 59 of 60 (98%): none; "cohort0" in 9 of 60: kept."""
    docs = [d.replace(" of ", " ") if i == 0 else d for i, d in enumerate(DOCS)]
    _, vocabulary, _ = features.fit(docs)
    terms = set(vocabulary)
    assert not {"the", "study", "the study", "of"} & terms
    assert "cohort0" in terms


def test_a_small_library_keeps_every_term() -> None:
    """Below 50 papers nothing is too common: "the" of all three papers is a term."""
    _, vocabulary, _ = features.fit(["the cat", "the dog", "the bird"])
    assert {"the", "cat", "the cat"} <= set(vocabulary)
