"""Per-reader model selection between two indexes (benchmarks/TRIAGE_RANK.md, sessions 16-17).

A variant of the product's :class:`readinglist.ranking.ranker.Ranker` for
benchmarks/tune_rank.py (``--select``): two classifiers, each the product's
(:func:`readinglist.ranking.model.classifier`: ELAS u4's LinearSVC, C 0.11, ratio 9.8,
undecided rows 0.02), one on the committed index (ASReview LAB's vectorizer) and one on
session 12's (:func:`second_params`: English stop list, tokens starting with a letter,
min_df 2, max_df 0.5). Once the reader has >= ``k`` wanted and >= ``k`` skipped papers,
``k``-fold stratified cross-validation on their own decisions (the held-out decisions
left out of the fit, not made undecided; each candidate's held-out AUC of wanted against
skipped, averaged over the folds) picks the classifier that ranks; ties and fewer
decisions: the committed one. Knobs (:class:`Options`): the first round's profile
(wanted papers alone) on the committed index, on session 12's, or both (their
standardised scores averaged); the undecided rows each fold's fit reads; re-selecting
only when the decision count has grown by a share since the last selection.

Inputs: the committed :class:`~readinglist.ranking.store.Index` and the second one
(:func:`second_index`); outputs: every row's score, as :meth:`Ranker.scores`. Nothing
here is in the product.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from readinglist.ranking import features, model
from readinglist.ranking.ranker import Ranker
from readinglist.ranking.store import Index, lsa

#: Session 12's token pattern: tokens starting with a letter.
LETTER_TOKENS = r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b"


def second_params(n_docs: int) -> dict[str, Any]:
    """Session 12's vectorizer (features.py before commit a5c8d5d): the committed settings
    with the English stop list, tokens from a letter, min_df 2 and max_df 0.5 (1 and 1.0
    below 50 papers)."""
    out = features.vectorizer_params(n_docs)
    small = n_docs < 50
    out.update(
        stop_words="english",
        token_pattern=LETTER_TOKENS,
        min_df=1 if small else 2,
        max_df=1.0 if small else 0.5,
    )
    return out


def second_index(docs: Sequence[str]) -> Index:
    """The index of ``docs`` with :func:`second_params` (rows as the committed index's)."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(**second_params(len(docs)))
    matrix = sparse.csr_matrix(vectorizer.fit_transform(docs), dtype=np.float32)
    vocab = [str(t) for t in vectorizer.get_feature_names_out()]
    ids = np.arange(len(docs), dtype=np.int64)
    return Index(ids, matrix, vocab, vectorizer.idf_, lsa(matrix))


@dataclass
class Options:
    """A selection variant: ``k`` folds (and wanted/skipped needed); ``first`` the first
    round's profile ("committed", "second", "both"); ``fold_rows`` the undecided rows a
    fold's fit reads (None: model.UNLABELLED_ROWS); ``regrow`` re-select only when the
    decisions grew by this share since the last selection (0: every re-rank);
    ``select``: False keeps the committed classifier (the baseline)."""

    k: int = 3
    first: str = "committed"
    fold_rows: int | None = None
    regrow: float = 0.0
    select: bool = True
    #: (decision count, choice) of the last selection, per reader (protocol C's start)
    memo: dict[Any, tuple[int, int]] = field(default_factory=dict)
    picks: list[int] = field(default_factory=list)


def fit_rows(
    matrix: model.Features, y: np.ndarray, weight: np.ndarray, keep: np.ndarray, rows: int
) -> np.ndarray:
    """model.classifier's fit on the rows where ``keep`` is True alone, reading at most
    ``rows`` undecided rows (spread evenly)."""
    from sklearn.svm import LinearSVC

    labelled = np.flatnonzero((y != 0) & keep)
    unlabelled = np.flatnonzero((y == 0) & keep)
    if len(unlabelled) > rows:
        unlabelled = unlabelled[np.linspace(0, len(unlabelled) - 1, rows).astype(int)]
    at = np.concatenate([labelled, unlabelled])
    target = np.concatenate([np.sign(y[labelled]), -np.ones(len(unlabelled))]).astype(np.int8)
    sample = np.concatenate(
        [model.balanced(y[labelled], weight[labelled]), np.full(len(unlabelled), model.UNLABELLED)]
    )
    svm = LinearSVC(C=model.SVM_C, loss="squared_hinge", random_state=0)
    svm.fit(model._gather(matrix, at), target, sample_weight=sample)
    return np.asarray(svm.coef_, dtype=np.float32).ravel()


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """The share of (wanted, skipped) pairs ordered right (ties count a half)."""
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size)


def folds(y: np.ndarray, k: int) -> list[np.ndarray]:
    """``k`` stratified folds of the decided rows: the i-th wanted (and skipped) row, in
    row order, to fold i mod k."""
    out = [np.zeros(len(y), dtype=bool) for _ in range(k)]
    for sign in (1, -1):
        for i, row in enumerate(np.flatnonzero(y == sign)):
            out[i % k][row] = True
    return out


def choose(indexes: Sequence[Index], y: np.ndarray, weight: np.ndarray, opts: Options) -> int:
    """The index whose classifier has the best mean held-out AUC (ties: the first)."""
    rows = model.UNLABELLED_ROWS if opts.fold_rows is None else opts.fold_rows
    best, best_auc = 0, -1.0
    for c, index in enumerate(indexes):
        aucs = []
        for held in folds(y, opts.k):
            coef = fit_rows(index.matrix, y, weight, ~held, rows)
            got = np.asarray(index.matrix[np.flatnonzero(held)] @ coef).ravel()
            yh = y[held]
            aucs.append(auc(got[yh > 0], got[yh < 0]))
        mean = float(np.mean(aucs))
        if mean > best_auc + 1e-12:
            best, best_auc = c, mean
    return best


class SelectRanker(Ranker):
    """The product's Ranker with :func:`choose` in front of its global classifier."""

    def __init__(
        self,
        index: Index,
        second: Index,
        statuses: Sequence[str],
        opts: Options,
        reader: Any = None,
    ) -> None:
        super().__init__(index, statuses, [None] * len(statuses), {})
        self.second, self.opts, self.reader = second, opts, reader

    def scores(self) -> np.ndarray | None:
        """Every row's score: the first round's profile, or the chosen classifier's."""
        if self._scores is not None:
            return self._scores
        y, w = self.y, self.weight
        wanted, skipped = int((y > 0).sum()), int((y < 0).sum())
        if not wanted:
            return None
        indexes = [self.index, self.second]
        if not skipped:
            if self.opts.first == "committed":
                return super().scores()
            chosen = indexes[1:] if self.opts.first == "second" else indexes
            parts = [model.fit(i.matrix, i.dense, y, w).scores(i.matrix, i.dense) for i in chosen]  # type: ignore[union-attr]
            self._scores = np.mean(parts, axis=0)
            return self._scores
        pick = 0
        if self.opts.select and wanted >= self.opts.k and skipped >= self.opts.k:
            pick = self._pick(indexes, wanted + skipped)
        if pick == 0:
            return super().scores()
        index = indexes[pick]
        m = model.Model(model.classifier(index.matrix, y, w), None)
        self._scores = m.scores(index.matrix, None)
        return self._scores

    def _pick(self, indexes: Sequence[Index], count: int) -> int:
        """:func:`choose`, or the last choice while the decisions grew by < ``regrow``."""
        last = self.opts.memo.get(self.reader)
        # a count not above the last is another reader (protocol A's draws, a new run)
        regrown = last is None or count <= last[0] or count >= last[0] * (1 + self.opts.regrow)
        if last is not None and self.opts.regrow > 0 and not regrown:
            return last[1]
        pick = choose(indexes, self.y, self.weight, self.opts)
        self.opts.memo[self.reader] = (count, pick)
        self.opts.picks.append(pick)
        return pick
