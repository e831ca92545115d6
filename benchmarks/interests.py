"""Several interests in one reader: rank by the nearest group of wanted papers?

Run: ``.venv/bin/python benchmarks/interests.py`` (prints a table; the figures go to
benchmarks/TRIAGE_RANK.md by hand, with the date and load of the run).

Data and users as benchmarks/triage_rank.py (ACL Anthology, the papers of YEAR with an
abstract; one user per workshop of that year with >= 20 papers). Two kinds of users:

* one interest: a workshop (triage_rank.py's protocol C users);
* two interests: two workshops joined (workshop ``w`` with workshop ``w + n/2``, so
  every workshop is in one pair and no pair is drawn twice); relevant: either's papers.

Protocol (triage_rank.py's protocol C): the user starts from one wanted paper per
interest (drawn with a fixed seed), is shown the top 10, labels them (relevant:
to-read, else skipped), the order is recomputed; ten rounds; recall@100 is the share
of the relevant papers (the starting ones left out) found in those 100.

Rankers, both the product's :class:`readinglist.ranking.ranker.Ranker` (the model
triage uses):

* ``one model``: the product as it is (one classifier of every decision);
* ``nearest group``: the wanted papers split into groups (bisecting spherical 2-means
  on their LSA rows, a split kept when both halves hold :data:`GROUP_MIN` papers and
  their centroids' cosine is below ``--split``), one more model per group (that
  group's papers against every skipped paper, as the ranker's per-tag models are
  built), a paper's interest its best score over the models (the ranker's
  best-of-models rule, :meth:`Ranker.scores`).

The rule of adoption (issue 28, "What to build" 6): recall@100 +0.05 or more for the
two-interest users and at most -0.01 for the one-interest users.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from triage_rank import DATA, Corpus, read_entries, top

from readinglist.ranking import model
from readinglist.ranking.ranker import Ranker

#: A group needs this many wanted papers (the ranker's per-tag models need 2).
GROUP_MIN = 2
#: At most this many groups.
GROUPS_MAX = 4


def two_means(rows: np.ndarray) -> np.ndarray:
    """Split the unit ``rows`` in two by spherical 2-means (deterministic: seeded by the
    row least like the mean and the row least like that one); return 0/1 per row."""
    mean = rows.mean(axis=0)
    first = int(np.argmin(rows @ mean))
    second = int(np.argmin(rows @ rows[first]))
    centres = rows[[first, second]]
    side = np.zeros(len(rows), dtype=np.int64)
    for _ in range(10):
        side = np.argmax(rows @ centres.T, axis=1)
        if side.min() == side.max():
            break
        centres = np.vstack([rows[side == k].mean(axis=0) for k in (0, 1)])
        centres /= np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-9)
    return side


def groups(rows: np.ndarray, split: float) -> list[np.ndarray]:
    """Return the groups of ``rows`` (positions into it) by bisection, largest first."""
    found = [np.arange(len(rows))]
    while len(found) < GROUPS_MAX:
        found.sort(key=len, reverse=True)
        for g, members in enumerate(found):
            if len(members) < 2 * GROUP_MIN:
                continue
            side = two_means(rows[members])
            a, b = members[side == 0], members[side == 1]
            if min(len(a), len(b)) < GROUP_MIN:
                continue
            ca, cb = rows[a].mean(axis=0), rows[b].mean(axis=0)
            cos = float(ca @ cb / max(np.linalg.norm(ca) * np.linalg.norm(cb), 1e-9))
            if cos < split:
                found[g : g + 1] = [a, b]
                break
        else:
            break
    return found


class GroupRanker(Ranker):
    """The product's ranker with one more model per group of wanted papers."""

    split = 0.5

    def coefs(self) -> list[tuple[str, model.Model]]:
        if self._coefs is not None:
            return self._coefs
        found = super().coefs()
        pos = np.flatnonzero(self.y > 0)
        dense = self.index.dense
        if dense is None or len(pos) < 2 * GROUP_MIN or not (self.y < 0).any():
            return found
        parts = groups(np.asarray(dense[pos], dtype=np.float32), self.split)
        if len(parts) < 2:
            return found
        labels = []
        for members in parts:
            y = np.where(self.y < 0, -1, 0).astype(np.int8)
            y[pos[members]] = 1
            labels.append((y, self.weight))
        fitted = model.fit_many(self.index.matrix, dense, labels)
        found = found + [(f"group {g + 1}", m) for g, m in enumerate(fitted) if m is not None]
        self._coefs = found
        return found


def recall_at_100(corpus: Corpus, rel: np.ndarray, starts: list[int], make) -> float:  # type: ignore[no-untyped-def]
    """Protocol C from ``starts``: ten rounds of the top 10; the recall of the rest."""
    pos, neg = list(starts), []
    for _ in range(10):
        status = ["new"] * corpus.n
        for i in pos:
            status[i] = "to-read"
        for i in neg:
            status[i] = "skipped"
        scores = make(corpus.index, status, [None] * corpus.n, {}).scores()
        for i in top(scores, pos + neg, 10):
            (pos if rel[i] else neg).append(int(i))
    return (len(pos) - len(starts)) / (int(rel.sum()) - len(starts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--year", default="2020")
    parser.add_argument("--split", type=float, nargs="*", default=[0.5])
    parser.add_argument("--users", type=int, default=0, help="first N users only (0: all)")
    args = parser.parse_args()
    begin = time.time()
    corpus = Corpus(read_entries(DATA), args.year)
    shops = corpus.workshops
    half = len(shops) // 2
    singles = [[w] for w in range(len(shops))]
    pairs = [[w, w + half] for w in range(half)]
    if args.users:
        singles, pairs = singles[: args.users], pairs[: args.users]
    rankers = {"one model": Ranker}
    for split in args.split:
        rankers[f"nearest group (split < {split})"] = type("G", (GroupRanker,), {"split": split})
    print(f"{corpus.n} papers, {len(singles)} one-interest, {len(pairs)} two-interest users")
    results: dict[str, dict[str, list[float]]] = {name: {"one": [], "two": []} for name in rankers}
    for kind, users in (("two", pairs), ("one", singles)):
        for user in users:
            rel = np.zeros(corpus.n, dtype=bool)
            starts = []
            for w in user:
                mine = corpus.relevant(shops[w])
                rel |= mine
                starts.append(int(random.Random(5000 + w).choice(list(np.flatnonzero(mine)))))
            for name, make in rankers.items():
                results[name][kind].append(recall_at_100(corpus, rel, starts, make))
            print(kind, user, {n: round(r[kind][-1], 3) for n, r in results.items()}, flush=True)
    base = results["one model"]
    print(f"\nACL {args.year}; load {os.getloadavg()}; {time.time() - begin:.0f} s")
    print("| ranker | recall@100, one interest | two interests | paired diff one / two |")
    print("|---|---:|---:|---:|")
    for name, r in results.items():
        d1 = np.mean(np.subtract(r["one"], base["one"]))
        d2 = np.mean(np.subtract(r["two"], base["two"]))
        print(
            f"| {name} | {np.mean(r['one']):.3f} | {np.mean(r['two']):.3f} | {d1:+.3f} / {d2:+.3f} |"
        )


if __name__ == "__main__":
    main()
