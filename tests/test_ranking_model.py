"""Issue 14: the interest model's nearest-neighbour terms (readinglist.ranking.model).

Small hand-made matrices, so every expected order and value is worked out here.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from readinglist.ranking import model


def unit(*angles_deg: float) -> np.ndarray:
    """Rows on the unit circle at the given angles (LSA rows are normalised)."""
    rad = np.radians(angles_deg)
    return np.stack([np.cos(rad), np.sin(rad)], axis=1).astype(np.float32)


def test_closest_is_the_best_cosine_over_the_rows() -> None:
    dense = unit(0, 90, 180)
    best = model._closest(dense, unit(0, 60))
    assert np.allclose(best, [1.0, np.cos(np.radians(30)), -0.5], atol=1e-6)


def test_the_neighbourhood_of_a_skip_sinks_and_of_a_positive_rises() -> None:
    """With no profile at all (zero weights), only the neighbour terms order the papers:
    the twin of the positive first, the twin of the skipped paper last."""
    dense = unit(0, 45, 90, 135, 180)
    m = model.Model(np.zeros(3, np.float32), None, near=unit(0), far=unit(180))
    scores = m.scores(sparse.csr_matrix((5, 3), dtype=np.float32), dense)
    assert np.argsort(-scores).tolist() == [0, 1, 2, 3, 4]
    # each term standardised: cosines to 0 deg and to 180 deg are exact mirrors
    near = model._standard(np.cos(np.radians([0, 45, 90, 135, 180])).astype(np.float32))
    assert np.allclose(scores, 2 * model.NEAREST * near, atol=1e-5)


def two_interests() -> tuple[sparse.csr_matrix, np.ndarray]:
    """Ten papers: 0-5 on interest A (angles near 0), 6-9 on interest B (near 90 deg);
    the tf-idf columns are one word per interest."""
    angles = [0, 4, 8, 12, 16, 20, 90, 86, 82, 78]
    words = np.array([[1.0, 0.0]] * 6 + [[0.0, 1.0]] * 4, dtype=np.float32)
    return sparse.csr_matrix(words), unit(*angles)


def test_fit_keeps_the_positives_and_the_full_negatives_as_neighbours() -> None:
    matrix, dense = two_interests()
    y = np.array([1, 1, 0, 0, 0, 0, 1, 0, 0, -1], dtype=np.int8)
    weight = np.array([1, 1, 0, 0, 0, 0, 1, 0, 0, 1], dtype=np.float64)
    fitted = model.fit(matrix, dense, y, weight)
    assert fitted is not None
    assert fitted.near is not None
    assert fitted.far is not None
    assert np.array_equal(fitted.near, dense[[0, 1, 6]])
    assert np.array_equal(fitted.far, dense[[9]])


def test_a_weak_negative_is_no_neighbour() -> None:
    """Priority low (weight WEAK) lowers the profile only: no ``far`` rows."""
    matrix, dense = two_interests()
    y, weight = model.labels(["to-read"] + ["new"] * 8 + ["new"], [None] * 9 + ["low"])
    assert y[9] == -1
    assert weight[9] == model.WEAK
    fitted = model.fit(matrix, dense, y, weight)
    assert fitted is not None
    assert fitted.far is None


def test_no_dense_rows_gives_a_profile_only_model() -> None:
    matrix, _ = two_interests()
    y = np.array([1] + [0] * 9, dtype=np.int8)
    fitted = model.fit(matrix, None, y, np.abs(y).astype(np.float64))
    assert fitted is not None
    assert (fitted.dense, fitted.near, fitted.far) == (None, None, None)


def test_many_decisions_keep_at_most_nearest_max_rows_evenly_spaced() -> None:
    rows = np.arange(1000)
    dense = np.arange(2000, dtype=np.float32).reshape(1000, 2)
    kept = model._sample(dense, rows)
    assert kept is not None
    assert kept.shape == (model.NEAREST_MAX, 2)
    assert kept[0].tolist() == [0.0, 1.0]
    assert kept[-1].tolist() == [1998.0, 1999.0]
    assert model._sample(dense, rows[:0]) is None
