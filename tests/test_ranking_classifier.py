"""The interest model once there are skips: a balanced linear SVM of the decisions
(readinglist.ranking.model.classifier), as ASReview LAB's default model trains on a
screener's decisions. Hand-made matrices, so the expected order is worked out here.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from readinglist.ranking import model
from readinglist.ranking.ranker import Ranker
from readinglist.ranking.store import Index


def test_balanced_weights_give_all_negatives_a_tenth_of_the_positives() -> None:
    """5 positives and 100 negatives: a negative weighs 5 / (9.8 * 100) of a positive,
    so the 100 together weigh 1 / 9.8 of the five; the weights add up to 105 rows. A
    weak negative (priority low) weighs ``WEAK`` of a skip."""
    y = np.array([1] * 5 + [-1] * 100, dtype=np.int8)
    weight = np.ones(len(y))
    weight[-1] = model.WEAK
    out = model.balanced(y, weight)
    assert out.sum() == pytest.approx(105)
    assert out[5] / out[0] == pytest.approx(5 / (model.RATIO * 100))
    assert out[-1] / out[5] == pytest.approx(model.WEAK)
    assert out[5:].sum() / out[:5].sum() == pytest.approx(
        (99 + model.WEAK) / (model.RATIO * 100), rel=1e-6
    )
    with pytest.raises(ValueError, match="positive and a negative"):
        model.balanced(np.array([1, 1], dtype=np.int8), np.ones(2))


def shared_topic_library() -> Index:
    """Columns: topic, wanted word, skipped word. Row 0 is wanted (topic and its own
    word); rows 1-10 skipped (the same topic, another word: a review's excluded records
    share its vocabulary); row 11 has the wanted word alone, row 12 the topic alone,
    rows 13-24 the topic and a little of the skipped word (undecided)."""
    rows = [[0.9, 0.44, 0.0]] + [[0.9, 0.0, 0.44]] * 10
    rows += [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]] + [[0.99, 0.0, 0.14]] * 12
    matrix = sparse.csr_matrix(np.array(rows, dtype=np.float32))
    ids = np.arange(matrix.shape[0], dtype=np.int64)
    return Index(ids, matrix, ["topic", "wanted", "skipped"], np.ones(3), None)


def test_with_skips_the_word_of_the_wanted_paper_beats_the_shared_topic() -> None:
    """The paper with the wanted paper's own word (row 11) ranks first; the Rocchio
    profile used before (a fifth of the skips' centroid subtracted, feedback from the
    best undecided) put the topic alone (row 12) above it: the skips share the topic,
    so it says nothing of what is wanted."""
    index = shared_topic_library()
    statuses = ["to-read"] + ["skipped"] * 10 + ["new"] * 14
    ranker = Ranker(index, statuses, [None] * len(statuses), {})
    undecided = list(range(11, 25))
    assert ranker.order(undecided)[0] == 11
    y, weight = model.labels(statuses, [None] * len(statuses))
    old = model.profile(index.matrix, y, weight)
    assert old is not None
    old_scores = index.matrix @ old
    assert old_scores[12] > old_scores[11]  # the old rule's order, for the record


def test_without_skips_the_profile_ranks() -> None:
    """Positives alone (a researcher's first wanted papers, nothing skipped): no
    classifier can be trained, the model is the Rocchio profile with its topic half."""
    index = shared_topic_library()
    statuses = ["to-read"] + ["new"] * 24
    y, weight = model.labels(statuses, [None] * len(statuses))
    fitted = model.fit(index.matrix, None, y, weight)
    assert fitted is not None
    expected = model.profile(index.matrix, y, weight)
    assert expected is not None
    assert np.allclose(fitted.sparse, expected)


def test_the_classifier_reads_a_bounded_number_of_undecided_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fit reads the decided rows and at most ``UNLABELLED_ROWS`` undecided ones, spread
    over the library (a refit after a decision in a 61k-paper library stays small)."""
    rng = np.random.default_rng(0)
    matrix = sparse.random(3000, 40, density=0.2, format="csr", random_state=rng)
    y = np.zeros(3000, dtype=np.int8)
    y[:5], y[5:50] = 1, -1
    gathered: list[int] = []
    real = model._gather

    def counting(m: model.Features, rows: np.ndarray) -> sparse.csr_matrix:
        gathered.append(len(rows))
        return real(m, rows)

    monkeypatch.setattr(model, "UNLABELLED_ROWS", 1000)
    monkeypatch.setattr(model, "_gather", counting)
    coef = model.classifier(matrix, y, np.abs(y).astype(np.float64))
    assert gathered == [50 + 1000]
    assert coef.shape == (40,)
