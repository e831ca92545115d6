"""The interest model: labels from decisions, a linear model over tf-idf rows, scores.

Labels (issue 14): status to-read, reading or read, or priority high, is a positive;
status skipped is a negative; priority low (on a paper not otherwise positive) is a
weak negative (weight :data:`WEAK`). Everything else is unlabelled.

The model is linear in the tf-idf features, so a score is one sparse matrix-vector
product and an explanation is the per-term products (:mod:`.explain`); it is trained
from the labelled rows only, in milliseconds (a re-rank after each triage decision).
It is a Rocchio profile: the weighted centroid of the positives minus a share of the
centroid of the negatives, plus pseudo-relevance feedback (a share of the centroid of
the best-scored unlabelled papers). Measured against arxiv-sanity-lite's LinearSVC
(positives against every other paper) in benchmarks/TRIAGE_RANK.md; a centroid
carries the ranking from the first positive on, where a classifier has almost nothing
to learn from, and costs two mat-vecs instead of a solver run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import sparse

POSITIVE_STATUSES = frozenset({"to-read", "reading", "read"})
NEGATIVE_STATUSES = frozenset({"skipped"})
#: The weight of a weak negative (priority low).
WEAK = 0.3


def labels(
    statuses: Sequence[str], priorities: Sequence[str | None]
) -> tuple[np.ndarray, np.ndarray]:
    """Return (y, weight): y is 1 (positive), -1 (negative) or 0 (unlabelled) per paper.

    The rule is the module docstring's (issue 14, "What to build" 1).
    """
    y = np.zeros(len(statuses), dtype=np.int8)
    weight = np.zeros(len(statuses), dtype=np.float64)
    for i, (status, priority) in enumerate(zip(statuses, priorities, strict=True)):
        if status in POSITIVE_STATUSES or priority == "high":
            y[i], weight[i] = 1, 1.0
        elif status in NEGATIVE_STATUSES:
            y[i], weight[i] = -1, 1.0
        elif priority == "low":
            y[i], weight[i] = -1, WEAK
    return y, weight


def _centroid(matrix: sparse.csr_matrix, rows: np.ndarray, weight: np.ndarray) -> np.ndarray:
    if len(rows) == 0:
        return np.zeros(matrix.shape[1])
    w = weight[rows] / weight[rows].sum()
    vec = np.asarray(matrix[rows].T @ w).ravel()
    norm = np.linalg.norm(vec)
    return vec / norm if norm else vec


def fit(
    matrix: sparse.csr_matrix,
    y: np.ndarray,
    weight: np.ndarray,
    *,
    beta: float = 0.2,
    prf: float = 0.5,
    prf_k: int = 10,
) -> np.ndarray | None:
    """Return the weight vector (one per column) of the model, or None without a positive.

    ``beta`` is the share of the negatives' centroid subtracted from the positives';
    ``prf`` the share of pseudo-relevance feedback from the ``prf_k`` best unlabelled
    rows (0: none). Settings chosen on ACL 2019 workshop users (benchmarks/triage_rank.py).
    """
    pos = np.flatnonzero(y > 0)
    if len(pos) == 0 or matrix.shape[1] == 0:
        return None
    neg = np.flatnonzero(y < 0)
    coef = _centroid(matrix, pos, weight) - beta * _centroid(matrix, neg, weight)
    if prf > 0 and prf_k > 0:
        coef = _feedback(matrix, y, coef, prf, prf_k)
    return coef


def _feedback(
    matrix: sparse.csr_matrix, y: np.ndarray, coef: np.ndarray, share: float, k: int
) -> np.ndarray:
    """Pseudo-relevance feedback: add ``share`` of the centroid of the ``k`` best-scored
    unlabelled rows to ``coef`` (a workshop's papers resemble each other more than
    they resemble the five a user marked)."""
    first = np.asarray(matrix @ coef).ravel()
    first[y != 0] = -np.inf
    top = np.argpartition(-first, min(k, len(first) - 1))[:k]
    top = top[np.isfinite(first[top])]
    if len(top) == 0:
        return coef
    return coef + share * _centroid(matrix, top, np.ones(matrix.shape[0]))


def scores(
    matrix: sparse.csr_matrix, y: np.ndarray, weight: np.ndarray, **params: Any
) -> np.ndarray:
    """Return the score of every row (zeros without a positive); see :func:`fit`."""
    coef = fit(matrix, y, weight, **params)
    if coef is None:
        return np.zeros(matrix.shape[0])
    return np.asarray(matrix @ coef).ravel()
