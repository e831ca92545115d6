"""Per-reader model selection between two indexes (benchmarks/TRIAGE_RANK.md, sessions 16-19).

A variant of the product's :class:`readinglist.ranking.ranker.Ranker` for
benchmarks/tune_rank.py (``--select``): two classifiers, each the product's
(:func:`readinglist.ranking.model.classifier`: ELAS u4's LinearSVC, C 0.11, ratio 9.8,
undecided rows 0.02), one on the committed index (ASReview LAB's vectorizer) and one on
the second (:func:`readinglist.ranking.features.second_params`, session 12's: English
stop list, tokens starting with a letter, min_df 2, max_df 0.5; ``Index.second``, built
by ``store.index_of``). Once the reader has >= ``k`` wanted and >= ``k`` skipped papers,
``k``-fold stratified cross-validation on their own decisions (the held-out decisions
left out of the fit, not made undecided; each candidate's held-out AUC of wanted against
skipped, averaged over the folds) picks the classifier that ranks; ties and fewer
decisions: the committed one. Knobs (:class:`Options`): the first round's profile
(wanted papers alone) on the committed index, on session 12's, or both (their
standardised scores averaged); the undecided rows each fold's fit reads; re-selecting
only when the decision count has grown by a share since the last selection. Session 18:
the folds' criterion with undecided rows as skips, prequential selection (each
candidate's scores of the last re-rank tested on the decisions made since:
:func:`record`, :func:`prequential`) and team-draft interleaving (:func:`team_draft`).

Session 19 adopted ``--preq tiebreak --fold-rows 1000`` in the product
(:mod:`readinglist.ranking.select`); the folds, their AUC, the record and its
prequential pick are imported from there, not copied. The committed Ranker under a
variant is the product's without its second index (selection off).

Inputs: the index with its second; outputs: every row's score, as :meth:`Ranker.scores`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from readinglist.ranking import model
from readinglist.ranking import select as selection
from readinglist.ranking.ranker import Ranker
from readinglist.ranking.select import History, auc, folds, prequential
from readinglist.ranking.store import Index

__all__ = ["History", "auc", "folds", "prequential"]

#: The rows a team draft interleaves: one screen (protocol C's and SYNERGY's batch).
DRAFT = 10


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
    #: the folds' score: "auc" (held-out wanted against held-out skipped) or "pct" (the
    #: held-out wanted's mean percentile among held-out skipped and every undecided row)
    criterion: str = "auc"
    #: prequential selection before the folds (:func:`prequential`): "" (none),
    #: "pooled" (the pairs of every round's new decisions pooled), "wins" (rounds won) or
    #: "tiebreak" (the folds first, the pooled history where they tie or cannot run)
    preq: str = ""
    #: with ``preq``: the folds decide while the history does not (else the committed one)
    fallback: bool = True
    #: with ``preq``: while the history picks no candidate, or their pooled AUCs differ by
    #: at most this, the next screen is the two orders' team draft (:func:`team_draft`)
    #: in place of the folds (None: never)
    interleave: float | None = None
    #: (decision count, choice) of the last selection, per reader (protocol C's start)
    memo: dict[Any, tuple[int, int]] = field(default_factory=dict)
    #: per reader, the labels and both candidates' scores at the last re-rank
    history: dict[Any, Kept] = field(default_factory=dict)
    picks: list[int] = field(default_factory=list)
    #: per selection: "history", "folds" or "none" (prequential selection only)
    sources: list[str] = field(default_factory=list)


def fit_rows(
    matrix: model.Features, y: np.ndarray, weight: np.ndarray, keep: np.ndarray, rows: int
) -> np.ndarray:
    """model.classifier's fit on the rows where ``keep`` is True alone, reading at most
    ``rows`` undecided rows (spread evenly)."""
    return model.classifier(matrix, y, weight, keep=keep, rows=rows)


def percentile(pos: np.ndarray, neg: np.ndarray) -> float:
    """The mean share of ``neg`` below each of ``pos`` (ties count a half)."""
    ordered = np.sort(neg)
    below = np.searchsorted(ordered, pos, "left")
    tied = np.searchsorted(ordered, pos, "right") - below
    return float(np.mean((below + 0.5 * tied) / len(ordered)))


def held_out_pct(
    matrix: model.Features, coef: np.ndarray, held: np.ndarray, y: np.ndarray
) -> float:
    """The held-out wanted's :func:`percentile` among held-out skipped and undecided rows
    (undecided as presumed skips, as protocol C's recall counts them)."""
    read = held | (y == 0)
    got = np.asarray(matrix[np.flatnonzero(read)] @ coef).ravel()
    yh = np.where(held, y, -1)[read]
    return percentile(got[yh > 0], got[yh < 0])


def fold_scores(
    indexes: Sequence[Index], y: np.ndarray, weight: np.ndarray, opts: Options
) -> list[float]:
    """The product's :func:`readinglist.ranking.select.fold_scores` with the variant's
    folds, undecided rows per fit and criterion ("auc", or "pct": :func:`held_out_pct`)."""
    rows = model.UNLABELLED_ROWS if opts.fold_rows is None else opts.fold_rows
    criterion = held_out_pct if opts.criterion == "pct" else selection.held_out_auc
    return selection.fold_scores(indexes, y, weight, k=opts.k, rows=rows, criterion=criterion)


def choose(indexes: Sequence[Index], y: np.ndarray, weight: np.ndarray, opts: Options) -> int:
    """The index with the best :func:`fold_scores` (ties: the first)."""
    best, best_auc = 0, -1.0
    for c, mean in enumerate(fold_scores(indexes, y, weight, opts)):
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
        # the committed Ranker alone (the product's selection is the variant "tiebreak")
        super().__init__(
            dataclasses.replace(index, second=None), statuses, [None] * len(statuses), {}
        )
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
        if self.opts.preq:
            return self._prequential(indexes, wanted, skipped)
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

    def _candidates(self) -> list[np.ndarray]:
        """Both candidates' scores now: the committed Ranker's, and on the second index
        the classifier (or, without a skip, the profile)."""
        committed = super().scores()
        assert committed is not None
        index, y, w = self.second, self.y, self.weight
        if (y < 0).any():
            second = model.Model(model.classifier(index.matrix, y, w), None).scores(
                index.matrix, None
            )
        else:
            fitted = model.fit(index.matrix, index.dense, y, w)
            assert fitted is not None
            second = fitted.scores(index.matrix, index.dense)
        return [committed, second]

    def _prequential(self, indexes: Sequence[Index], wanted: int, skipped: int) -> np.ndarray:
        """Both candidates fitted at every re-rank; the history (:func:`record`) of how
        each one's last scores ordered the decisions made since picks (:func:`prequential`),
        the folds while it cannot (``fallback``), the committed one before the first skip."""
        opts = self.opts
        cands = self._candidates()
        kept = record(opts.history.get(self.reader), self.index, self.y, cands)
        opts.history[self.reader] = kept
        hist = kept.hist
        pick = prequential(hist, opts.preq) if skipped else 0
        source = "history"
        if skipped and opts.preq == "tiebreak":
            return self._tiebreak(indexes, hist, wanted, skipped, cands)
        if skipped and opts.interleave is not None:
            gap = abs(hist.good[0] - hist.good[1]) / max(hist.pairs, 1.0)
            if pick is None or gap <= opts.interleave:
                opts.picks.append(pick or 0)
                opts.sources.append("draft")
                seed = int((self.y != 0).sum())
                self._scores = team_draft(cands, self.y != 0, pick or 0, seed)
                return self._scores
        if pick is None:
            pick, source = 0, "none"
            if opts.fallback and wanted >= opts.k and skipped >= opts.k:
                pick, source = choose(indexes, self.y, self.weight, opts), "folds"
        if skipped:
            opts.picks.append(pick)
            opts.sources.append(source)
        self._scores = cands[pick]
        return self._scores

    def _tiebreak(
        self,
        indexes: Sequence[Index],
        hist: History,
        wanted: int,
        skipped: int,
        cands: list[np.ndarray],
    ) -> np.ndarray:
        """The folds pick (>= ``k`` wanted and skipped); where their scores tie, or
        before, the history's pooled pairs; else the committed classifier."""
        pick, source = None, "folds"
        if wanted >= self.opts.k and skipped >= self.opts.k:
            got = fold_scores(indexes, self.y, self.weight, self.opts)
            if abs(got[0] - got[1]) > 1e-12:
                pick = int(np.argmax(got))
        if pick is None:
            pick, source = prequential(hist), "history"
        if pick is None:
            pick, source = 0, "none"
        self.opts.picks.append(pick)
        self.opts.sources.append(source)
        self._scores = cands[pick]
        return self._scores


@dataclass
class Kept:
    """A reader's record in a variant run: the labels when it last changed (labels that
    do not extend them are another reader's: protocol A's draws, a new run) and the
    product's :class:`~readinglist.ranking.select.History`."""

    y: np.ndarray
    hist: History


def record(kept: Kept | None, index: Index, y: np.ndarray, cands: list[np.ndarray]) -> Kept:
    """``kept`` brought up to the labels ``y`` by the product's
    :func:`readinglist.ranking.select.record`; a fresh record when ``y`` does not extend
    ``kept.y`` (another reader)."""
    if kept is not None:
        before = kept.y != 0
        if bool(np.all(y[before] == kept.y[before])):
            if selection.record(kept.hist, index, y, cands):
                kept.y = y.copy()
            return kept
    kept = Kept(y.copy(), History())
    selection.record(kept.hist, index, y, cands)
    return kept


def team_draft(cands: list[np.ndarray], decided: np.ndarray, lead: int, seed: int) -> np.ndarray:
    """Scores whose top :data:`DRAFT` undecided rows are the team-draft interleaving of
    the candidates' orders (Radlinski, Kurup and Joachims 2008: each pair of picks, a
    coin says which candidate picks first; each picks its best row not yet picked), the
    other rows after them in ``lead``'s order. ``seed``: the coins' (reproducible)."""
    rng = np.random.default_rng(seed)
    orders = [np.argsort(-np.where(decided, -np.inf, s), kind="stable") for s in cands]
    picked: list[int] = []
    seen: set[int] = set()
    at = [0, 0]
    depth = min(DRAFT, int((~decided).sum()))
    while len(picked) < depth:
        for team in (0, 1) if rng.random() < 0.5 else (1, 0):
            while at[team] < len(decided) - 1 and int(orders[team][at[team]]) in seen:
                at[team] += 1
            row = int(orders[team][at[team]])
            picked.append(row)
            seen.add(row)
    base = cands[lead].astype(np.float64)
    out: np.ndarray = base - base.max() - 1.0
    out[picked[:depth]] = np.arange(depth, 0, -1, dtype=np.float64)
    return out
