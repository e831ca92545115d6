"""The facade the commands use: interest scores and order, explanations, similar papers.

A :class:`Ranker` holds the library's tf-idf :class:`~.store.Index` and the labels of
its decisions (:func:`.model.labels`). Its models: one over every decision (fitted on
the committed index and on the second, :attr:`.store.Index.second`: the reader's own
decisions and their record pick which ranks, :mod:`.select`), and one per
tag carried by at least two positives (positives with that tag against every
negative), so that a user with two interests gets both (a tag an import gave to all of
its papers is not an interest: :func:`judged_tags`); a paper's interest is its best
score over the models. ``like`` (``triage --like TEXT``) is one more model, the text's
tf-idf vector (``ranking.LIKE_MODEL``): it seeds the order before the first decision and
keeps the papers like the text near the top after (added to the other models, as it
was, it hardly moved an order learnt from decisions on other papers: a fresh user's
``--like`` seemed ignored).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from readinglist import decided
from readinglist.models import PRIORITY_NAMES, Paper, PaperTag, Tag
from readinglist.ranking import LIKE_MODEL, Term, Why, features, fitted, model
from readinglist.ranking import select as selection
from readinglist.ranking.store import Index, load, positions
from readinglist.records import STATUSES
from readinglist.tables import DECISIONS

#: A tag needs this many positive papers to get a model of its own.
TAG_MODEL_MIN = 2


def judged_tags(
    tags: dict[int, list[str]], batch: BatchMap, positive: set[int]
) -> dict[int, list[str]]:
    """Return ``tags`` (``{paper id: tag names}``) without the tags that say where a paper
    came from rather than what the user thinks of it: the basis of the per-tag models.

    A tag on every paper of an import batch (``import --tag icml``, or a tag every entry
    of the file had) is provenance when the batch also holds papers the user has not
    marked positive: it was given to them all at once, before any judgement, so its
    positives are not an interest of their own (a per-tag model of them learns the
    import itself, its venue and tag, and ranked that whole import first). A batch whose
    papers are all positive (the user's own collection, tagged as they imported it)
    keeps its tag. ``batch`` maps paper ids to their import batch (papers added without
    one are absent); ``positive`` is the set of positive paper ids.
    """
    size: dict[int, int] = defaultdict(int)
    mixed: set[int] = set()
    for pid, batch_id in batch.items():
        size[batch_id] += 1
        if pid not in positive:
            mixed.add(batch_id)
    batch_of = {pid: batch.get(pid, -1) for pid in tags}  # one look-up per tagged paper
    carried: dict[tuple[int, str], int] = defaultdict(int)
    for pid, names in tags.items():
        if batch_of[pid] >= 0:
            for name in names:
                carried[batch_of[pid], name.casefold()] += 1
    provenance = {key for key, n in carried.items() if key[0] in mixed and n == size[key[0]]}
    judged = {
        pid: [n for n in names if (batch_of[pid], n.casefold()) not in provenance]
        for pid, names in tags.items()
    }
    return {pid: names for pid, names in judged.items() if names}


#: The papers most like a ``--like`` text whose topic rows give its model's topic half.
LIKE_FEEDBACK = 10


def like_model(index: Index, terms: np.ndarray) -> model.Model:
    """The model of a ``--like`` text: its tf-idf vector ``terms`` as the term half, and
    as the topic half the mean LSA row of the :data:`LIKE_FEEDBACK` papers whose terms
    are most like it (pseudo-relevance feedback, as the decisions' model uses), so
    that its scores are the sum of two standardised halves like every other model's
    and compare with them. None of the papers sharing a term: the term half alone."""
    dense = None
    if index.dense is not None and terms.any():
        sims = np.asarray(index.matrix @ terms, dtype=np.float32).ravel()
        top = [i for i in np.argsort(-sims, kind="stable")[:LIKE_FEEDBACK] if sims[i] > 0]
        if top:
            dense = index.dense[top].mean(axis=0)
    return model.Model(terms, dense)


#: Rows of the papers table read per block by :meth:`Ranker.open`.
_ROWS_PER_BLOCK = 10_000


class BatchMap(Protocol):
    """What :func:`judged_tags` reads of ``{paper id: import batch id}``: a dict, or a
    :class:`BatchOf`."""

    def items(self) -> Iterable[tuple[int, int]]: ...

    def get(self, pid: int, default: int, /) -> int: ...


class BatchOf:
    """``{paper id: import batch id}`` of the papers of ``index`` that have one (a
    :class:`BatchMap`), read from an array per row (``-1``: none) instead of a dict of
    every paper."""

    def __init__(self, index: Index, batches: np.ndarray) -> None:
        self.index = index
        self.batches = batches

    def get(self, pid: int, default: int, /) -> int:
        """The batch of ``pid``, or ``default`` for a paper without one."""
        at = int(self.index.rows_of([pid])[0])
        return default if at < 0 or self.batches[at] < 0 else int(self.batches[at])

    def items(self) -> Iterator[tuple[int, int]]:
        """The (paper id, batch id) pairs, a block of rows at a time."""
        for start in range(0, len(self.batches), _ROWS_PER_BLOCK):
            block = slice(start, start + _ROWS_PER_BLOCK)
            held = self.batches[block] >= 0
            yield from zip(
                self.index.ids[block][held].tolist(),
                self.batches[block][held].tolist(),
                strict=True,
            )


class Interest:
    """Interest by paper id, kept in two arrays (``ids``, ``scores``, as the index's rows):
    a dict of every paper of a 500,000-paper library took ~50 MB at the peak of
    ``list --json`` (issue 17). :meth:`get` gives the interest as it is printed."""

    def __init__(self, ids: np.ndarray, scores: np.ndarray) -> None:
        order = np.argsort(ids, kind="stable")
        self.ids = np.asarray(ids, dtype=np.int64)[order]
        self.scores = np.asarray(scores, dtype=np.float64)[order]

    def get(self, pid: int) -> float | None:
        """Return the interest of paper ``pid`` rounded to 4 digits, or None when it has
        none (no model, or a paper not indexed). One look-up: a listing asks per paper."""
        at = int(np.searchsorted(self.ids, pid))
        if at >= len(self.ids) or self.ids[at] != pid:
            return None
        return _printed(float(self.scores[at]))

    def of(self, pids: Sequence[int]) -> dict[int, float | None]:
        """Return ``{paper id: interest}`` for ``pids`` as :meth:`get` gives each, looked
        up together (``store.positions``)."""
        at = positions(self.ids, pids)
        values = self.scores[np.maximum(at, 0)].tolist() if len(self.ids) else [0.0] * len(at)
        return {
            pid: None if where < 0 else _printed(value)
            for pid, where, value in zip(pids, at.tolist(), values, strict=True)
        }


def _printed(score: float) -> float:
    """An interest as it is shown and printed: rounded to 4 digits."""
    return round(score, 4)


class Ranker:
    """Interest scores over one library (see the module docstring)."""

    def __init__(
        self,
        index: Index,
        statuses: Sequence[str],
        priorities: Sequence[str | None],
        tags: dict[int, list[str]],
        like: str | None = None,
        history: selection.History | None = None,
    ) -> None:
        self.index = index
        self.history = history
        #: (candidate that ranks, what picked it, the second candidate's model or None)
        self._choice: tuple[int, str, model.Model | None] = (0, "none", None)
        self.y, self.weight = model.labels(statuses, priorities)
        self.tags = tags
        self.like: model.Model | None = None
        if like and like.strip() and index.vocabulary:
            row = features.transform([like], index.vocabulary, index.idf)
            self.like = like_model(index, np.asarray(row.todense(), dtype=np.float32).ravel())
        self._coefs: list[tuple[str, model.Model]] | None = None
        self._scores: np.ndarray | None = None

    @classmethod
    def open(
        cls,
        session: Session,
        url: str,
        *,
        like: str | None = None,
        streamed: bool = False,
        on_build: Callable[[str], None] | None = None,
    ) -> Ranker:
        """Return the ranker of the library in ``session`` (the index cached per ``url``;
        ``streamed``: its rows stay in the cache file; ``on_build``: told before the
        index is rebuilt; see :func:`.store.load`)."""
        index = load(session, url, streamed=streamed, on_build=on_build)
        return cls.of_index(session, index, like, url)

    @classmethod
    def of_index(
        cls, session: Session, index: Index, like: str | None = None, url: str | None = None
    ) -> Ranker:
        """Return the ranker of ``index`` with the decisions of the library in ``session``
        as they are now (read again for each fit of a triage run's background thread,
        which keeps its index); with ``url`` (the library's), the current reader's
        selection record kept for it (:func:`.select.read_history`), which its fits
        continue."""
        # Per row of the index, in lists of shared strings and an array (issue 17: a dict
        # of every paper's (status, priority) and one of its batch took 200 MB at the
        # peak of `list --json` on 500,000 papers): Core rows read a block at a time.
        count = len(index.ids)
        statuses: list[str] = ["new"] * count
        priorities: list[str | None] = [None] * count
        batches = np.full(count, -1, dtype=np.int64)
        shared = {name: name for name in STATUSES}
        papers = Paper.__table__
        connection = session.connection()
        # The current reader's decisions: each reader's interest model is their own.
        result = connection.execute(
            select(
                papers.c.id, decided.joined_status(), DECISIONS.c.priority, papers.c.batch_id
            ).select_from(decided.with_decisions())
        )
        for block in result.partitions(_ROWS_PER_BLOCK):
            found = index.rows_of([row[0] for row in block]).tolist()
            for at, (_, st, prio, batch_id) in zip(found, block, strict=True):
                if at >= 0:
                    statuses[at] = shared.get(st, st)
                    priorities[at] = PRIORITY_NAMES.get(prio) if prio is not None else None
                    batches[at] = -1 if batch_id is None else batch_id
        links, names = PaperTag.__table__, Tag.__table__
        tags: dict[int, list[str]] = defaultdict(list)
        for pid, name in connection.execute(
            select(links.c.paper_id, names.c.name).join(names, names.c.id == links.c.tag_id)
        ):
            tags[pid].append(name)
        y, _ = model.labels(statuses, priorities)
        positive = set(index.ids[y > 0].tolist())
        judged = judged_tags(tags, BatchOf(index, batches), positive)
        history = None
        if url is not None and index.second is not None:
            history = selection.read_history(url, fitted.change_counter(session))
        return cls(index, statuses, priorities, judged, like, history)

    # --- models ---------------------------------------------------------------------------

    def learnt_from(self) -> str:
        """Say what the models learn from: "learnt from 12 wanted, 30 skipped" (wanted:
        to-read, reading, read or priority high; skipped: status skipped or priority
        low, :func:`.model.labels`), and the ``--like`` text when there is one; "on the
        stop-listed terms" when the second index's classifier ranks (:mod:`.select`)."""
        wanted, skipped = int((self.y > 0).sum()), int((self.y < 0).sum())
        text = f"learnt from {wanted} wanted, {skipped} skipped"
        if self.index.second is not None and self.has_model:
            self.scores()
            if self._choice[0] == 1:  # the second index's classifier ranks
                text += " on the stop-listed terms"
        return text + (" and the --like text" if self.like is not None else "")

    @property
    def has_model(self) -> bool:
        """True when there is something to rank by: a positive decision or a ``like`` text."""
        return bool(self.coefs())

    def decide(self, pid: int, status: str, priority: str | None = None) -> None:
        """Record a decision made since loading (a triage key); the models are retrained."""
        row = self.index.row.get(pid)
        if row is None:
            return
        y, w = model.labels([status], [priority])
        self.y[row], self.weight[row] = y[0], w[0]
        self._coefs = self._scores = None
        self._choice = (0, "none", None)

    def coefs(self) -> list[tuple[str, model.Model]]:
        """Return the models as (name, model): ``""`` for the global one, tags after."""
        if self._coefs is not None:
            return self._coefs
        matrix, dense = self.index.matrix, self.index.dense
        by_tag: dict[str, list[int]] = defaultdict(list)
        for row in np.flatnonzero(self.y > 0):
            for name in self.tags.get(int(self.index.ids[row]), ()):
                by_tag[name].append(int(row))
        names: list[str] = []
        labels: list[tuple[np.ndarray, np.ndarray]] = [(self.y, self.weight)]
        for name, rows in sorted(by_tag.items()):
            if len(rows) >= TAG_MODEL_MIN and len(rows) < int((self.y > 0).sum()):
                y = np.where(self.y < 0, -1, 0).astype(np.int8)
                y[rows] = 1
                names.append(name)
                labels.append((y, self.weight))
        # All models fitted together: one pass over the rows per step, not one per model.
        fitted = model.fit_many(matrix, dense, labels)
        found: list[tuple[str, model.Model]] = []
        if fitted[0] is not None:
            found.append(("", fitted[0]))
        if self.like is not None:
            found.append((LIKE_MODEL, self.like))
        found += [(name, m) for name, m in zip(names, fitted[1:], strict=True) if m is not None]
        self._coefs = found
        return found

    def scores(self) -> np.ndarray | None:
        """Return every row's interest (its best score over the models), or None. The
        model of all decisions is the candidate :meth:`_selected` picks."""
        if self._scores is None:
            coefs = self.coefs()
            if not coefs:
                return None
            matrix, dense = self.index.matrix, self.index.dense
            stack = model.scores_many([m for _, m in coefs], matrix, dense)
            if coefs[0][0] == "" and self.index.second is not None:
                stack[0] = self._selected(stack[0])
            self._scores = stack[0] if len(stack) == 1 else np.vstack(stack).max(axis=0)
        return self._scores

    def _selected(self, committed: np.ndarray) -> np.ndarray:
        """The scores of the candidate that ranks for this reader (:func:`.select.choose`)
        given the committed index's model's (``committed``): the same classifier fitted
        on the second index, the reader's record (:attr:`history`) brought up to date
        with both and written back, then the pick kept in :attr:`_choice`."""
        second = self.index.second
        assert second is not None
        other = model.fit(second.matrix, second.dense, self.y, self.weight)
        if other is None:  # a second index without terms
            return committed
        cands = [committed, other.scores(second.matrix, second.dense)]
        if self.history is not None and selection.record(self.history, self.index, self.y, cands):
            selection.write_history(self.history)
        pick, source = selection.choose([self.index, second], self.y, self.weight, self.history)
        self._choice = (pick, source, other)
        return cands[pick]

    def _ranking(self) -> list[tuple[str, model.Model, Index]]:
        """The models that give the interest, each with the index it reads: the model of
        all decisions is the second index's when :meth:`_selected` picked it."""
        found = [(name, m, self.index) for name, m in self.coefs()]
        pick, _, other = self._choice
        if found and found[0][0] == "" and pick == 1 and other is not None:
            assert self.index.second is not None
            found[0] = ("", other, self.index.second)
        return found

    # --- what the commands ask ----------------------------------------------------------------

    def interest(self, pids: Iterable[int]) -> dict[int, float | None]:
        """Return ``{paper id: interest}`` (None for every paper without a model)."""
        return self.interest_table().of(list(pids))

    def interest_table(self) -> Interest:
        """Return the interest of every indexed paper as an :class:`Interest` (two
        arrays: for a whole-library listing, which looks papers up as it writes them)."""
        scores = self.scores()
        if scores is None or not len(scores):
            return Interest(np.zeros(0, dtype=np.int64), np.zeros(0))
        return Interest(self.index.ids, scores)

    def order(self, pids: Sequence[int]) -> list[int]:
        """Return ``pids`` highest interest first (ties and no model: the given order)."""
        scores = self.scores()
        if scores is None or not len(pids):
            return list(pids)
        rows = self.index.rows_of(pids)
        values = np.where(rows >= 0, scores[rows], -np.inf)
        ordered: list[int] = np.asarray(pids, dtype=np.int64)[
            np.argsort(-values, kind="stable")
        ].tolist()
        return ordered

    def why(self, pid: int, n: int = 8) -> Why | None:
        """Return why the paper has its interest (:class:`~readinglist.ranking.Why`: parts
        adding up to the score), or None without a model or for a paper not indexed.

        The model is the one giving the paper its interest (``""``: all decisions, else a
        tag's), with the terms of the index it reads (the second index's when its
        classifier ranks, :mod:`.select`); a term's part is its tf-idf value times the
        model's weight, scaled as the score is (``model.Model.parts``); the ``n``
        largest each way are named.
        """
        row = self.index.row.get(pid)
        if self.scores() is None or row is None:
            return None
        coefs = self._ranking()
        mine = [m for _, m, index in coefs if index is self.index]  # one pass for these
        shared = iter(model.scores_many(mine, self.index.matrix, self.index.dense))
        scores = [
            float(
                (next(shared) if index is self.index else m.scores(index.matrix, index.dense))[row]
            )
            for _, m, index in coefs
        ]
        best = int(np.argmax(scores))
        index = coefs[best][2]
        cols, contrib, offset, topic = coefs[best][1].parts(index.matrix, index.dense, row)
        order = np.argsort(-contrib, kind="stable")
        vocab = index.vocabulary
        up = [int(i) for i in order[:n] if contrib[i] > 0]
        down = [int(i) for i in order[::-1][:n] if contrib[i] < 0]
        named = set(up + down)
        rest = [i for i in range(len(cols)) if i not in named and contrib[i] != 0]
        return Why(
            model=coefs[best][0],
            score=scores[best],
            up=tuple(Term(vocab[cols[i]], float(contrib[i])) for i in up),
            down=tuple(Term(vocab[cols[i]], float(contrib[i])) for i in down),
            other=float(contrib[rest].sum()) if rest else 0.0,
            others=len(rest),
            offset=float(offset),
            topic=topic,
        )

    def similar(self, pid: int, limit: int = 10) -> list[tuple[int, float]]:
        """Return the ``limit`` papers most like ``pid`` (:func:`similar`)."""
        return similar(self.index, pid, limit)


def similar(index: Index, pid: int, limit: int = 10) -> list[tuple[int, float]]:
    """Return the ``limit`` papers most like ``pid`` (cosine of tf-idf), best first: the
    index alone, no decision read (``readinglist similar``)."""
    row = int(index.rows_of([pid])[0])
    if row < 0:
        return []
    # One pass of mat-vec products over the rows (read a block at a time from a streamed
    # index), not a sparse-sparse product: the cost is the rows read once.
    vector = np.asarray(index.matrix[row].todense(), dtype=np.float32).ravel()
    sims = np.asarray(index.matrix @ vector, dtype=np.float32).ravel()
    sims[row] = -np.inf
    top = np.argsort(-sims, kind="stable")[:limit]
    return [(int(index.ids[i]), round(float(sims[i]), 4)) for i in top if sims[i] > 0]
