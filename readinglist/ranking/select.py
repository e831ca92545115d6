"""Which classifier ranks for a reader: per-reader selection between two indexes.

The ranker's model of all decisions has two candidates, each the same classifier
(:func:`.model.fit`: ELAS u4's LinearSVC once there is a skip, the Rocchio profile
before), one on the committed index (:func:`.features.vectorizer_params`, ASReview LAB's
vectorizer) and one on the second (:func:`.features.second_params`: stop list, tokens
from a letter, min_df 2, max_df 0.5). Neither is better for every reader: on the ACL
workshops' users the second orders better, on the SYNERGY reviews' screeners the
committed one (benchmarks/TRIAGE_RANK.md, sessions 12-13), so each reader's own
decisions pick (:func:`choose`, sessions 16-18; adopted in session 19):

1. once the reader has >= :data:`FOLDS` wanted and >= :data:`FOLDS` skipped papers,
   :data:`FOLDS`-fold stratified cross-validation on them (:func:`fold_scores`: each
   fold's fit leaves the held-out decisions out and reads at most :data:`FOLD_ROWS`
   undecided rows) picks the candidate with the higher mean held-out AUC;
2. where the folds tie (both candidates often order three held-out decisions
   perfectly), or before 3 + 3 decisions, the reader's prequential record
   (:class:`History`): both candidates are fitted at every re-rank, and at the next one
   the decisions made in between are scored by each candidate's scores of then (which
   saw none of them, :func:`record`; a round waits until it holds a wanted and a
   skipped paper, as a triage run re-ranks after each decision); the candidate with the
   more (wanted, skipped) pairs ordered right, pooled over the rounds, picks
   (:func:`prequential`);
3. with neither (no skip, no scored round, or a tie), the committed classifier.

The record survives quitting: a file per library and reader beside the index cache
(:func:`history_path`, :func:`read_history`, :func:`write_history`: written atomically;
lost, unreadable or forged, it starts again). It holds, for the papers undecided at the
last re-rank, their ids, text digests and both candidates' scores (24 bytes a paper),
and the pooled counts. Inputs are the ranker's labels (:func:`.model.labels`) and indexes; nothing here
reads the database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from readinglist.ranking import fitted, model, trust
from readinglist.ranking.store import Index

#: Folds of the cross-validation, and the wanted and skipped papers it needs.
FOLDS = 3
#: Undecided rows a fold's fit reads (the final fit :data:`.model.UNLABELLED_ROWS`):
#: session 17 measured the same picks and figures as at 5,000, at a fifth of the CPU.
FOLD_ROWS = 1000
#: Held-out AUCs closer than this are a tie (the record decides).
TIE = 1e-12

#: A fold's criterion: (feature rows, the fold's term weights, held-out mask, labels)
#: to a score, higher better (:func:`held_out_auc`).
Criterion = Callable[[model.Features, np.ndarray, np.ndarray, np.ndarray], float]


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """The share of (wanted, skipped) pairs, one score of ``pos`` and one of ``neg``,
    ordered right (ties count a half: the Mann-Whitney U over the pairs, as
    ``sklearn.metrics.roc_auc_score``); ``pos`` and ``neg`` not empty. Counted by binary
    search in the sorted ``neg`` (memory of ``pos`` and ``neg``, not of their pairs)."""
    ranked = np.sort(neg)
    below = np.searchsorted(ranked, pos, side="left")
    upto = np.searchsorted(ranked, pos, side="right")
    return float((int(below.sum()) + 0.5 * int((upto - below).sum())) / (len(pos) * len(neg)))


def folds(y: np.ndarray, k: int = FOLDS) -> list[np.ndarray]:
    """``k`` stratified folds of the decided rows of ``y`` (masks): the i-th wanted (and
    skipped) row, in row order, to fold i mod k."""
    out = [np.zeros(len(y), dtype=bool) for _ in range(k)]
    for sign in (1, -1):
        for i, row in enumerate(np.flatnonzero(y == sign)):
            out[i % k][row] = True
    return out


def held_out_auc(
    matrix: model.Features, coef: np.ndarray, held: np.ndarray, y: np.ndarray
) -> float:
    """The :func:`auc` of the held-out wanted rows against the held-out skipped ones, as
    scored by the term weights ``coef``."""
    got = np.asarray(matrix[np.flatnonzero(held)] @ coef).ravel()
    labels = y[held]
    return auc(got[labels > 0], got[labels < 0])


def fold_scores(
    indexes: Sequence[Index],
    y: np.ndarray,
    weight: np.ndarray,
    *,
    k: int = FOLDS,
    rows: int = FOLD_ROWS,
    criterion: Criterion = held_out_auc,
) -> list[float]:
    """Each index's classifier's mean held-out score over :func:`folds` of ``y``: each
    fold's fit (:func:`.model.classifier`) leaves its decisions out (not made undecided)
    and reads at most ``rows`` undecided rows; ``criterion`` scores it on them."""
    out = []
    for index in indexes:
        got = []
        for held in folds(y, k):
            coef = model.classifier(index.matrix, y, weight, keep=~held, rows=rows)
            got.append(criterion(index.matrix, coef, held, y))
        out.append(float(np.mean(got)))
    return out


@dataclass
class History:
    """One reader's prequential record (see the module docstring): ``ids`` (ascending)
    the papers undecided at the last re-rank and ``scores`` (2 x papers, float32) each
    candidate's scores of them then; ``good`` per candidate the (wanted, skipped) pairs
    among the decisions made since ordered right, of ``pairs``; ``wins`` per candidate
    the rounds in which its AUC was the higher. ``path``: where it is kept (None: not
    kept, as in the benchmarks); ``started``: False until the first re-rank is recorded;
    ``digests`` the papers' text digests then (:attr:`.store.Index.digests`, as ``ids``;
    empty when the index had none): a paper whose digest differs now (its text edited,
    or its id reused by SQLite after a removal) is not scored by its scores of then."""

    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    scores: np.ndarray = field(default_factory=lambda: np.zeros((2, 0), dtype=np.float32))
    good: np.ndarray = field(default_factory=lambda: np.zeros(2))
    pairs: float = 0.0
    wins: np.ndarray = field(default_factory=lambda: np.zeros(2))
    path: Path | None = None
    started: bool = False
    digests: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))


def record(hist: History, index: Index, y: np.ndarray, cands: Sequence[np.ndarray]) -> bool:
    """Bring ``hist`` up to the labels ``y`` (per row of ``index``) and the candidates'
    scores of now ``cands``: the papers undecided at its last re-rank and decided now are
    scored by each candidate's scores of then (a prequential, out-of-sample test); then
    the undecided papers' scores of now are kept. Without such a paper (no decision
    since, or a changed one) ``hist`` is left as it is, and so it is while those papers
    are all wanted or all skipped: the round waits for a decision of the other kind and
    is scored then by the same scores (a triage run re-ranks after each decision: a
    round of one decision has no pair, and its record counted none). Returns True when
    it changed."""
    if hist.started:
        rows = index.rows_of(hist.ids)
        if len(index.digests) and len(hist.digests) == len(rows):
            rows[(rows >= 0) & (index.digests[np.maximum(rows, 0)] != hist.digests)] = -1
        new = np.zeros(len(rows), dtype=bool)
        new[rows >= 0] = y[rows[rows >= 0]] != 0
        labels = y[rows[new]]
        npos, nneg = int((labels > 0).sum()), int((labels < 0).sum())
        if not (npos and nneg):
            return False
        then = hist.scores[:, new]
        got = [auc(s[labels > 0], s[labels < 0]) for s in then]
        hist.good = hist.good + np.asarray(got) * npos * nneg
        hist.pairs += npos * nneg
        if got[0] != got[1]:
            hist.wins[int(np.argmax(got))] += 1
    undecided = np.flatnonzero(y == 0)
    ids = np.asarray(index.ids[undecided], dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    hist.ids = ids[order]
    hist.scores = np.vstack([np.asarray(c)[undecided][order] for c in cands]).astype(np.float32)
    known = len(index.digests) == len(index.ids)
    hist.digests = np.asarray(index.digests[undecided][order] if known else [], dtype=np.uint64)
    hist.started = True
    return True


def prequential(hist: History | None, mode: str = "pooled") -> int | None:
    """The candidate with the more pairs ordered right (``mode`` "pooled") or rounds won
    ("wins") in ``hist``; None without a scored round or on a tie."""
    if hist is None or hist.pairs == 0:
        return None
    score = hist.wins if mode == "wins" else hist.good
    if score[0] == score[1]:
        return None
    return int(np.argmax(score))


def choose(
    indexes: Sequence[Index], y: np.ndarray, weight: np.ndarray, hist: History | None
) -> tuple[int, str]:
    """The candidate that ranks (0: the committed index's, 1: the second's) and what
    picked it: "folds" (:func:`fold_scores`, once there are :data:`FOLDS` wanted and
    skipped papers, unless they tie), "history" (:func:`prequential`), else "none" (the
    committed one; always before the first skip, whose order is the profile's)."""
    wanted, skipped = int((y > 0).sum()), int((y < 0).sum())
    if not skipped:
        return 0, "none"
    if wanted >= FOLDS and skipped >= FOLDS:
        got = fold_scores(indexes, y, weight)
        if abs(got[0] - got[1]) > TIE:
            return int(np.argmax(got)), "folds"
    pick = prequential(hist)
    return (0, "none") if pick is None else (pick, "history")


def history_path(url: str) -> Path:
    """The current reader's selection record of the library at ``url``, beside its index
    cache (``library.db.history.npz``, ``library.db.history-ana.npz``:
    :func:`.fitted.reader_path`)."""
    return fitted.reader_path(url, "history")


def read_history(url: str, counter: fitted.Counter) -> History:
    """The current reader's selection record of the library at ``url`` (``counter``: its
    change counter, which bounds the ids), kept at :func:`history_path`; a fresh one when
    the file is missing, unreadable or fails :func:`.trust.check_history_layout`,
    :func:`.trust.check_history_counts` or :func:`.trust.check_history` (never an error:
    the record is only evidence, and starts again). The ids of papers removed since (past
    the highest paper id) are dropped, and the whole round when it holds more ids than
    the library can: the pooled counts stay (removing the last import kept no record)."""
    path = history_path(url)
    fits = [False]  # the round's papers fit the library (check_history_layout)

    def layout_fits(layout: dict[str, Any]) -> None:
        fits[0] = trust.check_history_layout(layout, counter.shape)

    def found(data: Any) -> History:
        counts = [data["good"], data["wins"], data["pairs"]]
        trust.check_history_counts(counts)
        good, wins, pairs = (np.asarray(c, dtype=np.float64) for c in counts)
        ids, scores = np.zeros(0, dtype=np.int64), np.zeros((2, 0), dtype=np.float32)
        digests = np.zeros(0, dtype=np.uint64)
        if fits[0]:
            ids, scores = data["ids"].astype(np.int64), data["scores"].astype(np.float32)
            digests = data["digests"].astype(np.uint64)
            kept = trust.check_history(ids, scores, counter.shape)
            ids, scores = ids[kept], scores[:, kept]
            digests = digests[kept] if len(digests) else digests
        hist = History(ids, scores, good, float(pairs), wins, path, started=bool(len(ids)))
        hist.digests = digests
        return hist

    kept = fitted.load_checked(path, layout_fits, found)
    return History(path=path) if kept is None else kept


def write_history(hist: History) -> bool:
    """Write ``hist`` at its ``path`` (:func:`.fitted.save_atomically`: temp file and
    rename); False when it has none or could not be written (the next run starts again)."""
    if hist.path is None:
        return False
    return fitted.save_atomically(
        hist.path,
        {
            "ids": hist.ids,
            "scores": hist.scores,
            "digests": np.asarray(hist.digests, dtype=np.uint64),
            "good": np.asarray(hist.good, dtype=np.float64),
            "wins": np.asarray(hist.wins, dtype=np.float64),
            "pairs": np.asarray(hist.pairs, dtype=np.float64),
        },
    )
