"""Tf-idf features of papers: the text of each paper and the vectorizer settings.

A paper's document is its title (twice: titles are short and say most), abstract,
authors, venue and tags, joined by spaces (:func:`document`). The vectorizer is ASReview
LAB's default (ELAS u4, ``asreview/models/models.py``, tuned on the SYNERGY reviews):
word 1-2-grams, sublinear tf, l2 norm, no stop list, tokens of two or more word
characters (scikit-learn's default pattern: "5-ht" and "2d" keep their digits), terms
in at most 95% of the papers, plus accents stripped and at most 2**18 columns
(:func:`vectorizer_params`). On the nine SYNERGY reviews' real decisions it screens
fewer records than arxiv-sanity-lite's settings (English stop words, tokens starting
with a letter, terms in 2+ papers and at most half of them), which the index used
before: benchmarks/TRIAGE_RANK.md, session 13. Author names become one token each
(``author_smith_j``) so that a person is a feature of their own and "Smith" the author
is not "smith" the word.

scikit-learn is imported by :func:`fit` and :func:`transform` when they run, not with
this module: scoring from a cached index (``list --json``) needs neither (its import
alone is about 65 MiB of RSS, issue 17).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from scipy import sparse

from readinglist.ranking import AUTHOR_TOKEN, TAG_TOKEN
from readinglist.text import latex_to_unicode

#: The token pattern of scikit-learn's vectorizers (and so of ASReview LAB's tf-idf):
#: two or more word characters.
TOKEN_PATTERN = r"(?u)\b\w\w+\b"
_NOT_WORD = re.compile(r"[^0-9a-z]+")


def vectorizer_params(n_docs: int) -> dict[str, Any]:
    """Return the TfidfVectorizer settings for a library of ``n_docs`` papers.

    ASReview LAB's ELAS u4 settings (see the module docstring): terms in at least one
    paper and at most 95% of them (all of them below 50 papers); at most 2**18
    features, the most frequent kept.
    """
    small = n_docs < 50
    return {
        "strip_accents": "unicode",
        "lowercase": True,
        "analyzer": "word",
        "stop_words": None,
        "token_pattern": TOKEN_PATTERN,
        "ngram_range": (1, 2),
        "max_features": 2**18,
        "norm": "l2",
        "use_idf": True,
        "smooth_idf": True,
        "sublinear_tf": True,
        "min_df": 1,
        "max_df": 1.0 if small else 0.95,
        "dtype": np.float32,
    }


#: The second index's token pattern (:func:`second_params`): tokens starting with a letter.
LETTER_TOKENS = r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b"


def second_params(n_docs: int) -> dict[str, Any]:
    """Return the settings of the second index (:func:`vectorizer_params` with the English
    stop list, tokens starting with a letter, terms in at least 2 papers and at most half
    of them; 1 and all below 50 papers): arxiv-sanity-lite's choices, the index of
    benchmarks/TRIAGE_RANK.md's session 12. The ranker's classifier on it is the second
    candidate of the per-reader selection (:mod:`.select`, sessions 16-19)."""
    out = vectorizer_params(n_docs)
    small = n_docs < 50
    out.update(
        stop_words="english",
        token_pattern=LETTER_TOKENS,
        min_df=1 if small else 2,
        max_df=1.0 if small else 0.5,
    )
    return out


def person_token(name: str) -> str:
    """Return the feature token of an author: ``author_`` and the folded name's words."""
    return AUTHOR_TOKEN + _NOT_WORD.sub("_", name.lower()).strip("_")


def tag_token(name: str) -> str:
    """Return the feature token of a tag: ``tag_`` and the folded name."""
    return TAG_TOKEN + _NOT_WORD.sub("_", name.lower()).strip("_")


def document(
    title: str | None,
    abstract: str | None,
    authors: Iterable[str] = (),
    venue: str | None = None,
    tags: Iterable[str] = (),
) -> str:
    """Return the text the vectorizer reads for one paper (see the module docstring).

    Title, abstract and venue are decoded from LaTeX first (``text.latex_to_unicode``),
    so markup such as ``\\textbf{...}`` never becomes a term.
    """
    title, abstract, venue = (latex_to_unicode(v) if v else "" for v in (title, abstract, venue))
    parts = [title, title, abstract, venue]
    parts += [person_token(a) for a in authors]
    parts += [tag_token(t) for t in tags]
    return " ".join(p for p in parts if p)


def fit(
    texts: Sequence[str], params: dict[str, Any] | None = None
) -> tuple[sparse.csr_matrix, list[str], np.ndarray]:
    """Fit the vectorizer on ``texts``; return (matrix, vocabulary in column order, idf).

    ``params``: the vectorizer's settings (default :func:`vectorizer_params`; the second
    index: :func:`second_params`). An empty vocabulary (no text at all, nothing but stop
    words, or no term left by ``min_df``/``max_df``) gives a matrix with no columns.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(**(params or vectorizer_params(len(texts))))
    try:
        matrix = vectorizer.fit_transform(texts)
    except ValueError:  # "empty vocabulary" or "no terms remain": nothing to index
        return sparse.csr_matrix((len(texts), 0), dtype=np.float32), [], np.zeros(0)
    vocabulary = [str(t) for t in vectorizer.get_feature_names_out()]
    return sparse.csr_matrix(matrix, dtype=np.float32), vocabulary, vectorizer.idf_


def transform(texts: Sequence[str], vocabulary: Sequence[str], idf: np.ndarray) -> Any:
    """Return the tf-idf rows of ``texts`` in the columns of a fitted ``vocabulary``."""
    params = vectorizer_params(len(vocabulary))
    params.update(min_df=1, max_df=1.0, max_features=None)
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(vocabulary={t: i for i, t in enumerate(vocabulary)}, **params)
    vectorizer.idf_ = idf
    return sparse.csr_matrix(vectorizer.transform(texts), dtype=np.float32)
