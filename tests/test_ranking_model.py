"""Issue 14: the interest profile's pseudo-relevance feedback (readinglist.ranking.model).

A hand-made matrix, so the expected weights are worked out here.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from readinglist.ranking import model

#: The rows of the matrix below, as numbers.
B_ROW = [0.8, 0.6, 0.0]
C_ROW = [0.6, 0.0, 0.8]


def feedback_matrix() -> sparse.csr_matrix:
    """Row 0 (the positive) is word a; rows 1-5 lean to word b, rows 6-7 to word c."""
    rows = [[1.0, 0.0, 0.0]] + [B_ROW] * 5 + [C_ROW] * 2
    return sparse.csr_matrix(np.array(rows, dtype=np.float32))


def centroid(*rows: list[float]) -> np.ndarray:
    """The normalised mean of ``rows`` (the profile's centroid)."""
    mean = np.mean(np.array(rows, dtype=np.float64), axis=0)
    return mean / np.linalg.norm(mean)


def test_feedback_is_half_the_centroid_of_the_best_undecided() -> None:
    """Default settings (0.5 of the ten best): the seven undecided rows are all feedback,
    so word c gets a weight too; with the five best only rows 1-5 (0.8 against the
    positive, rows 6-7 0.6) are, and the profile is (1, 0, 0) + 0.5 * (0.8, 0.6, 0)."""
    assert (model.PRF, model.PRF_K) == (0.5, 10)
    y = np.array([1, 0, 0, 0, 0, 0, 0, 0], dtype=np.int8)
    weight = np.abs(y).astype(np.float64)
    coef = model.profile(feedback_matrix(), y, weight)
    assert coef is not None
    expected = np.array([1.0, 0.0, 0.0]) + 0.5 * centroid(*[B_ROW] * 5, *[C_ROW] * 2)
    assert np.allclose(coef, expected, atol=1e-6)
    five = model.profile(feedback_matrix(), y, weight, prf_k=5)
    assert five is not None
    assert np.allclose(five, [1.4, 0.3, 0.0], atol=1e-6)


def test_feedback_skips_decided_papers_and_can_be_turned_off() -> None:
    """A skipped row 1 is no feedback: of the five best, rows 2-5 and one of rows 6-7."""
    y = np.array([1, -1, 0, 0, 0, 0, 0, 0], dtype=np.int8)
    weight = np.abs(y).astype(np.float64)
    coef = model.profile(feedback_matrix(), y, weight, beta=0.0, prf_k=5)
    assert coef is not None
    expected = np.array([1.0, 0.0, 0.0]) + 0.5 * centroid(*[B_ROW] * 4, C_ROW)
    assert np.allclose(coef, expected, atol=1e-6)
    plain = model.profile(feedback_matrix(), y, weight, beta=0.0, prf=0.0)
    assert plain is not None
    assert np.allclose(plain, [1.0, 0.0, 0.0], atol=1e-6)
