"""The interest model: labels from decisions, a linear model over tf-idf rows, scores.

Labels (issue 14): status to-read, reading or read, or priority high, is a positive;
status skipped is a negative; priority low (on a paper not otherwise positive) is a
weak negative (weight :data:`WEAK`). Everything else is unlabelled.

The model is linear in the tf-idf features, so a score is one sparse matrix-vector
product and an explanation is the per-term products (:mod:`.explain`); it is trained
from the labelled rows (and a bounded sample of the others), so a re-rank after each
triage decision costs the decisions, not the library. Which model, by the labels:

* a positive and a negative (a screener, or a reader who has skipped papers): a linear
  SVM of the positives against the negatives (:func:`classifier`), with ASReview LAB's
  default settings (ELAS u4: squared hinge, C 0.11, negatives weighing together a 9.8th
  of the positives, :func:`balanced`) and undecided rows as light negatives. On the
  nine SYNERGY reviews' real decisions (benchmarks/SCREENING.md) it replaced the
  profile below, which a fifth of the skips' centroid could not steer away from
  excluded records sharing a review's vocabulary (WSS@95 0.42 against ASReview's 0.54);
* positives alone (a reader's first wanted papers, nothing skipped): a Rocchio profile,
  in two feature spaces (:class:`Model`): the weighted centroid of the positives,
  plus pseudo-relevance feedback (a share of the centroid of the best-scored
  unlabelled papers), over the tf-idf columns and over the index's LSA dimensions; the
  two scores are standardised and added. Measured against arxiv-sanity-lite's
  LinearSVC (positives against every other paper) with an ablation in
  benchmarks/TRIAGE_RANK.md: the LSA half adds ~1 point of recall@100. Tried there and
  left out, as no better on the held-out users (ACL 2020) or not worth their cost:
  feedback from the top 5, score fusion with arxiv-sanity's SVM, nearest-neighbour
  terms, author and character n-gram features, label propagation over a kNN graph,
  MiniLM title embeddings, positive-unlabelled SVMs, self-training, BM25 queries,
  naive-Bayes term odds, co-author scores, hubness corrections, k-means co-membership
  and joint feedback (each within +-0.01 of this model on the held-out year).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias, cast

import numpy as np
from scipy import sparse

from readinglist.records import WANTED_STATUSES

if TYPE_CHECKING:
    from readinglist.ranking.stored import StoredCSR, StoredDense

POSITIVE_STATUSES = frozenset(WANTED_STATUSES)
NEGATIVE_STATUSES = frozenset({"skipped"})
#: The weight of a weak negative (priority low).
WEAK = 0.3
#: Rocchio settings, chosen on ACL 2019 workshop users (benchmarks/TRIAGE_RANK.md).
BETA = 0.2
PRF = 0.5
PRF_K = 10
#: The classifier of :func:`classifier`: ASReview LAB's ELAS u4 settings (its
#: ``asreview/models/models.py``, tuned on the SYNERGY reviews) ...
SVM_C = 0.11
RATIO = 9.8
#: ... and the weight of an unlabelled row as a negative, and at most how many such
#: rows a fit reads (benchmarks/TRIAGE_RANK.md, session 12).
UNLABELLED = 0.02
UNLABELLED_ROWS = 5000
#: Dense LSA rows: in memory, or read from the cache file a block at a time.
Dense: TypeAlias = "np.ndarray | StoredDense"
#: Sparse tf-idf rows: in memory, or read from the cache file a block at a time.
Terms: TypeAlias = "sparse.csr_matrix | StoredCSR"
#: A feature matrix: sparse tf-idf rows or dense LSA rows, in memory or in the cache
#: file (:mod:`.stored`: they offer ``shape``, ``rows[i]`` and ``rows @ x``).
Features: TypeAlias = "sparse.csr_matrix | np.ndarray | StoredCSR | StoredDense"


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


def _norm(vec: np.ndarray) -> float:
    # einsum, not BLAS: a threaded BLAS dot on a loaded machine costs tens of ms here
    return float(np.sqrt(np.einsum("i,i->", vec, vec)))


#: Rows gathered at once by :func:`_centroid` (the negatives of a large library are
#: tens of thousands of rows: gathered whole they doubled the peak of ``list --json``).
CENTROID_ROWS = 8192


def _centroid(matrix: Features, rows: np.ndarray, weight: np.ndarray) -> np.ndarray:
    if len(rows) == 0:
        return np.zeros(matrix.shape[1], dtype=np.float32)
    w = (weight[rows] / weight[rows].sum()).astype(np.float32)
    vec = np.zeros(matrix.shape[1], dtype=np.float32)
    for start in range(0, len(rows), CENTROID_ROWS):
        part = slice(start, start + CENTROID_ROWS)
        vec += np.asarray(matrix[rows[part]].T @ w[part], dtype=np.float32).ravel()
    norm = _norm(vec)
    return vec / norm if norm else vec


@dataclass(frozen=True)
class Model:
    """A fitted interest model: a Rocchio profile in each feature space, or a classifier's
    term weights (:func:`classifier`, no LSA half).

    ``sparse`` weighs the tf-idf columns (it explains a score: :meth:`Ranker.why`);
    ``dense`` the LSA dimensions (None when the index has none or for a classifier). A
    score is the sum of the two products, each standardised over the library (mean 0,
    deviation 1), so neither space dominates by scale, and the sum standardised again,
    so that the scores of a profile, a classifier (one half) and a ``--like`` text
    compare when a paper's interest is its best over them.
    """

    sparse: np.ndarray
    dense: np.ndarray | None

    def scores(self, matrix: Features, dense: Dense | None) -> np.ndarray:
        """Return the score of every row of ``matrix`` (and its ``dense`` rows)."""
        return scores_many([self], matrix, dense)[0]

    def parts(
        self, matrix: Terms, dense: Dense | None, row: int
    ) -> tuple[np.ndarray, np.ndarray, float, float]:
        """Return the score of ``row`` split into parts that add up to it exactly:
        (columns of the row's terms, each term's contribution, the offset of the term
        half, the topic half).

        The term half is standardised, ``(x . w - mean) / dev``: term ``j`` contributes
        ``x_j w_j / dev`` and the offset is ``-mean / dev`` (the library's average term
        score, which every paper is measured against). The topic half is the standardised
        product of the LSA rows (0 without them); the LSA components are not kept in
        the cache (256 x vocabulary floats), so it is not split into terms. Every part
        is divided by the spread of the two halves' sum (the score is standardised
        again, :class:`Model`).
        """
        terms = np.asarray(matrix @ self.sparse, dtype=np.float32).ravel()
        mean, dev = _moments(terms)
        total = _standard(terms)
        topics = None
        if self.dense is not None and dense is not None:
            topics = _standard(np.asarray(dense @ self.dense, dtype=np.float32).ravel())
            total = total + topics
        spread = _moments(total)[1]
        scale = (dev if dev > 0 else 1.0) * (spread if spread > 0 else 1.0)
        x = matrix[row]
        contrib = x.data.astype(np.float64) * self.sparse[x.indices] / scale
        topic = 0.0 if topics is None else float(topics[row]) / (spread if spread > 0 else 1.0)
        return x.indices, contrib, -mean / scale, topic


def _moments(values: np.ndarray) -> tuple[float, float]:
    """Return the mean and the standard deviation of ``values`` (0, 0 when empty)."""
    mean = float(values.mean()) if len(values) else 0.0
    dev = float(np.sqrt(np.einsum("i,i->", values - mean, values - mean) / max(len(values), 1)))
    return mean, dev


def _standard(values: np.ndarray) -> np.ndarray:
    mean, dev = _moments(values)
    return (values - mean) / dev if dev > 0 else values - mean


def profile(
    matrix: Features,
    y: np.ndarray,
    weight: np.ndarray,
    *,
    beta: float = BETA,
    prf: float = PRF,
    prf_k: int = PRF_K,
) -> np.ndarray | None:
    """Return the Rocchio profile (one weight per column of ``matrix``), or None without
    a positive.

    ``beta`` is the share of the negatives' centroid subtracted from the positives';
    ``prf`` the share of pseudo-relevance feedback from the ``prf_k`` best unlabelled
    rows (0: none). Settings chosen on ACL 2019 workshop users (benchmarks/triage_rank.py).
    """
    return profiles(matrix, [(y, weight)], beta=beta, prf=prf, prf_k=prf_k)[0]


def profiles(
    matrix: Features,
    labels: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    beta: float = BETA,
    prf: float = PRF,
    prf_k: int = PRF_K,
) -> list[np.ndarray | None]:
    """Return :func:`profile` of each ``(y, weight)`` of ``labels``, in order.

    The feedback's first scores of every profile come from one product of ``matrix``
    with all of them (:func:`products`): one pass over the rows, not one per profile
    (the index read from its file a block at a time, issue 17: nine models read it
    36 times).
    """
    coefs: list[np.ndarray | None] = []
    negatives: dict[bytes, np.ndarray] = {}  # tag models share the library's negatives
    for y, weight in labels:
        pos = np.flatnonzero(y > 0)
        if len(pos) == 0 or matrix.shape[1] == 0:
            coefs.append(None)
            continue
        coef = _centroid(matrix, pos, weight)
        if beta:
            neg = np.flatnonzero(y < 0)
            seen = neg.tobytes() + weight[neg].tobytes()
            if seen not in negatives:
                negatives[seen] = _centroid(matrix, neg, weight)
            coef = coef - beta * negatives[seen]
        coefs.append(coef)
    live = [i for i, coef in enumerate(coefs) if coef is not None]
    if prf > 0 and prf_k > 0 and live:
        firsts = products(matrix, [cast(np.ndarray, coefs[i]) for i in live])
        for column, i in enumerate(live):
            first = firsts[:, column].copy()
            coefs[i] = _feedback(
                matrix, labels[i][0], cast(np.ndarray, coefs[i]), first, prf, prf_k
            )
    return coefs


def products(matrix: Features, vectors: Sequence[np.ndarray]) -> np.ndarray:
    """Return ``matrix @ v`` for each of ``vectors`` as the float32 columns of one array
    (rows x vectors), from one product: one pass over rows read from a file."""
    if len(vectors) == 1:
        return np.asarray(matrix @ vectors[0], dtype=np.float32).reshape(-1, 1)
    return np.asarray(matrix @ np.column_stack(vectors), dtype=np.float32)


def fit(matrix: Features, dense: Dense | None, y: np.ndarray, weight: np.ndarray) -> Model | None:
    """Return the model of the labels ``y`` (see :class:`Model`), or None without a positive."""
    return fit_many(matrix, dense, [(y, weight)])[0]


def fit_many(
    matrix: Features, dense: Dense | None, labels: Sequence[tuple[np.ndarray, np.ndarray]]
) -> list[Model | None]:
    """Return :func:`fit` of each ``(y, weight)`` of ``labels``, in order.

    Labels with a positive and a negative get a classifier (:func:`classifier`: a
    screener's decisions); labels with positives alone get the Rocchio profile, their
    profiles computed together (:func:`profiles`); none without a positive.
    """
    out: list[Model | None] = [None] * len(labels)
    rocchio = [i for i, (y, _) in enumerate(labels) if not bool((y < 0).any())]
    for i, (y, weight) in enumerate(labels):
        if i not in rocchio and bool((y > 0).any()) and matrix.shape[1]:
            out[i] = Model(classifier(matrix, y, weight), None)
    if rocchio:
        chosen = [labels[i] for i in rocchio]
        coefs = profiles(matrix, chosen)
        dense_coefs: list[np.ndarray | None] = [None] * len(chosen)
        if dense is not None and dense.shape[1]:
            dense_coefs = profiles(dense, chosen)
        for i, coef, dense_coef in zip(rocchio, coefs, dense_coefs, strict=True):
            out[i] = None if coef is None else Model(coef, dense_coef)
    return out


def balanced(y: np.ndarray, weight: np.ndarray, ratio: float = RATIO) -> np.ndarray:
    """Return the sample weight of each labelled row (``y`` 1 or -1) for :func:`classifier`.

    ASReview LAB's "balanced" sampler (``asreview.models.balancers.Balanced``, its ELAS u4
    setting ``ratio`` 9.8): a positive weighs 1, a negative ``positives / (ratio *
    negatives)`` (all negatives together weigh ``1 / ratio`` of the positives, however
    many thousands a screener has skipped), times its own ``weight`` (a weak negative
    :data:`WEAK`); then scaled so that the weights add up to the number of rows.
    Raises ValueError unless there is a positive and a negative.
    """
    pos, neg = int((y > 0).sum()), int((y < 0).sum())
    if not pos or not neg:
        raise ValueError("balanced weights need a positive and a negative")
    out: np.ndarray = np.where(y > 0, 1.0, pos / (ratio * neg)) * weight
    return out * (len(y) / float(out.sum()))


def classifier(
    matrix: Features,
    y: np.ndarray,
    weight: np.ndarray,
    *,
    keep: np.ndarray | None = None,
    rows: int | None = None,
) -> np.ndarray:
    """Return the term weights of a linear SVM of the positives against the negatives of
    ``y`` (1 / -1; 0: unlabelled), one per column of ``matrix``.

    ASReview LAB's default model (ELAS u4: ``LinearSVC``, squared hinge, C 0.11, the
    :func:`balanced` sample weights) on the labelled rows, plus unlabelled rows as
    negatives of weight :data:`UNLABELLED` each (most records a screener has not reached
    are excluded ones: measured in benchmarks/TRIAGE_RANK.md), at most
    :data:`UNLABELLED_ROWS` of them, spread evenly over the rows, so that a fit costs the
    decisions made, not the library's size (and the unlabelled together weigh at most
    ``UNLABELLED * UNLABELLED_ROWS``). The
    intercept is dropped: scores are standardised (:func:`scores_many`).

    ``keep`` (a mask of the rows): fit on those rows alone, the others left out (the
    held-out folds of :func:`.select.fold_scores`); ``rows``: at most this many
    unlabelled rows (None: :data:`UNLABELLED_ROWS`).
    """
    from sklearn.svm import LinearSVC

    kept = np.ones(len(y), dtype=bool) if keep is None else keep
    labelled = np.flatnonzero((y != 0) & kept)
    unlabelled = np.flatnonzero((y == 0) & kept)
    most = UNLABELLED_ROWS if rows is None else rows
    if len(unlabelled) > most:
        unlabelled = unlabelled[np.linspace(0, len(unlabelled) - 1, most).astype(int)]
    at = np.concatenate([labelled, unlabelled])
    target = np.concatenate([np.sign(y[labelled]), -np.ones(len(unlabelled))]).astype(np.int8)
    sample = np.concatenate(
        [balanced(y[labelled], weight[labelled]), np.full(len(unlabelled), UNLABELLED)]
    )
    svm = LinearSVC(C=SVM_C, loss="squared_hinge", random_state=0)  # liblinear shuffles
    svm.fit(_gather(matrix, at), target, sample_weight=sample)
    return np.asarray(svm.coef_, dtype=np.float32).ravel()


def _gather(matrix: Features, rows: np.ndarray) -> sparse.csr_matrix:
    """The ``rows`` of ``matrix`` as one sparse matrix, read :data:`CENTROID_ROWS` at a time."""
    parts = [
        sparse.csr_matrix(matrix[rows[start : start + CENTROID_ROWS]])
        for start in range(0, len(rows), CENTROID_ROWS)
    ]
    return sparse.vstack(parts, format="csr")


def scores_many(models: Sequence[Model], matrix: Features, dense: Dense | None) -> list[np.ndarray]:
    """Return :meth:`Model.scores` of each of ``models``, in order, from one product per
    feature space (:func:`products`)."""
    if not models:
        return []
    terms = products(matrix, [m.sparse for m in models])
    totals = [_standard(terms[:, j].copy()) for j in range(len(models))]
    with_topics = [j for j, m in enumerate(models) if m.dense is not None]
    if dense is not None and with_topics:
        topics = products(dense, [cast(np.ndarray, models[j].dense) for j in with_topics])
        for column, j in enumerate(with_topics):
            totals[j] = _standard(totals[j] + _standard(topics[:, column].copy()))
    return totals


def _feedback(
    matrix: Features, y: np.ndarray, coef: np.ndarray, first: np.ndarray, share: float, k: int
) -> np.ndarray:
    """Pseudo-relevance feedback: add ``share`` of the centroid of the ``k`` best-scored
    unlabelled rows to ``coef`` (a workshop's papers resemble each other more than
    they resemble the five a user marked); ``first`` is ``matrix @ coef`` (float32, a
    copy this changes)."""
    first[y != 0] = -np.inf
    k = min(k, len(first) - 1)
    if k <= 0:
        return coef
    top = np.argpartition(-first, k)[:k]
    top = top[np.isfinite(first[top])]
    if len(top) == 0:
        return coef
    return coef + share * _centroid(matrix, top, np.ones(matrix.shape[0], dtype=np.float32))
