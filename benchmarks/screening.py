"""Screening on real decisions: the learned order against ASReview LAB and random.

Run: ``.venv/bin/python benchmarks/screening.py`` (writes benchmarks/SCREENING.md).

Data: ``../shared/data/synergy/`` (README there): nine systematic reviews of the
SYNERGY dataset, 7,234 records with their reviewers' include/exclude decisions.

Protocol, per review and seed (3 seeds): the prior is one included and one excluded
record drawn with the seed (the same for every ranker); then screen the top 10 of the
unscreened records, reveal their decisions, re-rank; until 95% of the included records
(rounded up) are found. Per review and mean: records screened to reach 95% recall
(the prior counted), WSS@95 ((N - screened) / N - 0.05), recall after 10% of the
records screened, seconds per run.

Rankers:

* readinglist: the product's own code path, the :class:`readinglist.ranking.ranker.Ranker`
  that ``triage`` uses, fed each revealed record with ``decide`` (included: to-read,
  excluded: skipped) and asked for ``order`` of the unscreened records, over the
  index the product builds (``features.document`` of title, abstract, authors and
  venue; ``store.index_of``: both vectorizers and their LSA rows), with a fresh
  selection record per run (``readinglist.ranking.select``, session 19).
* ASReview LAB (PyPI ``asreview``, installed in its own virtual environment, never a
  dependency of readinglist): ``asreview simulate`` with its default model (ELAS u4:
  tf-idf, SVM, balanced sampling, max query) and the same prior (``--prior-idx``);
  its labelling order is read from the project's ``results.db``. 10 records a round
  as ours (``--asreview-query``; its own default is 1, a refit after every record).
  Its orders are kept in ``--asreview-orders`` (a JSON file, keyed by review, seed,
  prior and query size): a run after a change of readinglist's model reuses them
  rather than spending ~40 min of CPU on the same simulations again (the report says
  which were reused); ``--fresh-asreview`` runs them all again.
* arxiv-sanity-lite's ranker: its LinearSVC (C 0.01, balanced) on its tf-idf
  (benchmarks/triage_rank.py has the exact settings), positives against every other
  record, 10 at a time as ours.
* random: a seeded random order.

The stopping aid (``--stop-after N``: N excluded since the last included) is measured
on the readinglist runs for N = 50, 100, 200: the recall reached and the share of the
records screened when it would have stopped.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import math
import os
import platform
import random
import sqlite3
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sklearn import svm
from sklearn.feature_extraction.text import TfidfVectorizer

from readinglist.ranking import features
from readinglist.ranking.ranker import Ranker
from readinglist.ranking.select import History
from readinglist.ranking.store import Index, index_of

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "synergy"
ASREVIEW = Path("/work/asreview-venv/bin/asreview")
BATCH = 10
RECALL = 0.95
STOPS = (50, 100, 200)


@dataclass
class Review:
    """One review: its records' texts and decisions."""

    name: str
    titles: list[str]
    abstracts: list[str]
    authors: list[list[str]]
    venues: list[str]
    included: np.ndarray

    @property
    def n(self) -> int:
        return len(self.titles)

    @property
    def target(self) -> int:
        return math.ceil(RECALL * int(self.included.sum()))


def read_review(path: Path) -> Review:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return Review(
        name=path.name.removesuffix(".jsonl.gz"),
        titles=[r.get("title") or "" for r in rows],
        abstracts=[r.get("abstract") or "" for r in rows],
        authors=[list(r.get("authors") or []) for r in rows],
        venues=[r.get("venue") or "" for r in rows],
        included=np.array([int(r["included"]) for r in rows], dtype=np.int8),
    )


def priors(review: Review, seed: int) -> list[int]:
    rng = random.Random(f"{review.name}-{seed}")
    yes = [int(i) for i in np.flatnonzero(review.included)]
    no = [int(i) for i in np.flatnonzero(review.included == 0)]
    return [rng.choice(yes), rng.choice(no)]


# --- rankers: each returns the order in which records were screened -----------------------


def documents(review: Review) -> list[str]:
    """The text the product's vectorizer reads for each record (features.document)."""
    return [
        features.document(t, a, au, v)
        for t, a, au, v in zip(
            review.titles, review.abstracts, review.authors, review.venues, strict=True
        )
    ]


def product_index(review: Review) -> Index:
    """The index the product builds for these records (store.build without a database)."""
    return index_of(documents(review))


def screen_ours(review: Review, prior: list[int], index: Index) -> list[int]:
    ranker = Ranker(index, ["new"] * review.n, [None] * review.n, {}, history=History())
    screened = list(prior)
    for i in prior:
        ranker.decide(i, "to-read" if review.included[i] else "skipped")
    return _loop(review, screened, lambda rest: ranker.order(rest), ranker_decide(ranker, review))


def ranker_decide(ranker: Ranker, review: Review) -> Callable[[int], None]:
    def decide(i: int) -> None:
        ranker.decide(i, "to-read" if review.included[i] else "skipped")

    return decide


def _loop(
    review: Review,
    screened: list[int],
    order: Callable[[list[int]], list[int]],
    decide: Callable[[int], None],
) -> list[int]:
    """Screen BATCH at a time in ``order`` until the target recall is reached."""
    seen = set(screened)
    found = int(review.included[screened].sum())
    while found < review.target and len(screened) < review.n:
        rest = [i for i in range(review.n) if i not in seen]
        for i in order(rest)[:BATCH]:
            screened.append(i)
            seen.add(i)
            decide(i)
            found += int(review.included[i])
    return screened


def asl_matrix(review: Review) -> object:
    vectorizer = TfidfVectorizer(
        strip_accents="unicode",
        lowercase=True,
        stop_words="english",
        token_pattern=r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
        ngram_range=(1, 2),
        max_features=20000,
        sublinear_tf=True,
        max_df=0.1,
        min_df=min(5, max(1, review.n // 200)),
    )
    text = [
        " ".join([t, a, " ".join(au)])
        for t, a, au in zip(review.titles, review.abstracts, review.authors, strict=True)
    ]
    return vectorizer.fit_transform(text).astype(np.float32)


def screen_asl(review: Review, prior: list[int], matrix: object) -> list[int]:
    y = np.zeros(review.n, dtype=np.int8)

    def order(rest: list[int]) -> list[int]:
        clf = svm.LinearSVC(class_weight="balanced", max_iter=10000, tol=1e-6, C=0.01)
        clf.fit(matrix, y)
        scores = clf.decision_function(matrix)[rest]
        return [rest[i] for i in np.argsort(-scores, kind="stable")]

    def decide(i: int) -> None:
        y[i] = review.included[i]

    for i in prior:
        decide(i)
    return _loop(review, list(prior), order, decide)


def screen_random(review: Review, prior: list[int], seed: int) -> list[int]:
    rest = [i for i in range(review.n) if i not in prior]
    random.Random(f"random-{review.name}-{seed}").shuffle(rest)
    return _loop(review, list(prior), lambda left: [i for i in rest if i in set(left)], id)


def screen_asreview(review: Review, prior: list[int], seed: int, query: int | None) -> list[int]:
    """Run ``asreview simulate`` (default model) and return its labelling order."""
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / f"{review.name}.csv"
        with data.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["title", "abstract", "authors", "included"])
            for t, a, au, inc in zip(
                review.titles, review.abstracts, review.authors, review.included, strict=True
            ):
                writer.writerow([t, a, "; ".join(au), int(inc)])
        out = Path(folder) / "sim.asreview"
        command = [str(ASREVIEW), "simulate", str(data), "--prior-idx", *map(str, prior)]
        command += ["--seed", str(seed), "-o", str(out)]
        if query:
            command += ["--n-query", str(query)]
        subprocess.run(command, check=True, capture_output=True)
        with zipfile.ZipFile(out) as archive:
            archive.extract("results.db", folder)
        conn = sqlite3.connect(Path(folder) / "results.db")
        try:
            rows = conn.execute("SELECT record_id FROM results ORDER BY rowid").fetchall()
        finally:
            conn.close()
    # record ids are the dataset rows (0-based here: asreview numbers them from 0)
    order = [int(r) for (r,) in rows]
    return _truncate(review, order)


def _truncate(review: Review, order: Sequence[int]) -> list[int]:
    found = 0
    out: list[int] = []
    for i in order:
        out.append(i)
        found += int(review.included[i])
        if found >= review.target:
            break
    return out


# --- metrics ------------------------------------------------------------------------------


@dataclass
class Run:
    screened: int
    wss: float
    recall10: float
    seconds: float
    stops: dict[int, tuple[float, float]] = field(default_factory=dict)


def measure(review: Review, order: list[int], seconds: float) -> Run:
    total = int(review.included.sum())
    tenth = math.ceil(0.1 * review.n)
    hits = review.included[order]
    recall10 = float(hits[:tenth].sum()) / total if len(order) >= tenth else 1.0
    if len(order) < tenth:  # the target was reached earlier: later records not needed
        recall10 = max(float(hits.sum()) / total, RECALL)
    screened = len(order)
    run = Run(screened, (review.n - screened) / review.n - (1 - RECALL), recall10, seconds)
    return run


def stopping(review: Review, prior: list[int], index: Index) -> dict[int, tuple[float, float]]:
    """For each N of STOPS: (recall, share screened) when N excluded records in a row
    since the last included one would have ended the session (the product's order,
    screened on past the target if needed)."""
    ranker = Ranker(index, ["new"] * review.n, [None] * review.n, {}, history=History())
    decide = ranker_decide(ranker, review)
    for i in prior:
        decide(i)
    screened, seen, since = list(prior), set(prior), 0
    out: dict[int, tuple[float, float]] = {}
    total = int(review.included.sum())
    while len(screened) < review.n and len(out) < len(STOPS):
        rest = [i for i in range(review.n) if i not in seen]
        for i in ranker.order(rest)[:BATCH]:
            screened.append(i)
            seen.add(i)
            decide(i)
            since = 0 if review.included[i] else since + 1
            for n in STOPS:
                if n not in out and since >= n:
                    found = int(review.included[screened].sum())
                    out[n] = (found / total, len(screened) / review.n)
    found = int(review.included[screened].sum())
    for n in STOPS:
        out.setdefault(n, (found / total, len(screened) / review.n))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="review names (default: all nine)")
    parser.add_argument("--no-asreview", action="store_true")
    parser.add_argument(
        "--asreview-query", type=int, default=BATCH, help="ASReview's records per round (ours: 10)"
    )
    parser.add_argument("--asreview-orders", type=Path, default=HERE / "asreview_orders.json")
    parser.add_argument("--fresh-asreview", action="store_true")
    parser.add_argument("--orders-note", default="", help="which runs produced the kept orders")
    parser.add_argument("--rankers", nargs="*", help="only these (default: all four)")
    parser.add_argument("--out", type=Path, default=HERE / "SCREENING.md")
    args = parser.parse_args()
    begin = time.time()
    reviews = [read_review(p) for p in sorted(DATA.glob("*.jsonl.gz"))]
    if args.only:
        reviews = [r for r in reviews if r.name in args.only]
    names = ["readinglist", "ASReview LAB", "arxiv-sanity-lite", "random"]
    stored = args.asreview_orders.exists() and not args.fresh_asreview
    if args.no_asreview or not (ASREVIEW.exists() or stored):
        names.remove("ASReview LAB")  # the stored orders need no asreview installed
    if args.rankers:
        names = [n for n in names if n in args.rankers]
    runs: dict[str, dict[str, list[Run]]] = {n: {} for n in names}
    kept: dict[str, list[int]] = {}
    if args.asreview_orders.exists() and not args.fresh_asreview:
        kept = json.loads(args.asreview_orders.read_text(encoding="utf-8"))
    args.reused = 0
    for review in reviews:
        index, matrix = product_index(review), asl_matrix(review)
        for seed in range(args.seeds):
            prior = priors(review, seed)
            for name in names:
                start = time.perf_counter()
                if name == "readinglist":
                    order = screen_ours(review, prior, index)
                elif name == "ASReview LAB":
                    key = f"{review.name} {seed} {prior} {args.asreview_query}"
                    if key in kept:
                        order, args.reused = _truncate(review, kept[key]), args.reused + 1
                    elif not ASREVIEW.exists():
                        raise SystemExit(
                            f"{args.asreview_orders}: no order for {key!r}, and"
                            f" no {ASREVIEW} to run it (see the docstring)"
                        )
                    else:
                        order = screen_asreview(review, prior, seed, args.asreview_query)
                        kept[key] = order
                        args.asreview_orders.write_text(json.dumps(kept), encoding="utf-8")
                elif name == "arxiv-sanity-lite":
                    order = screen_asl(review, prior, matrix)
                else:
                    order = screen_random(review, prior, seed)
                run = measure(review, order, time.perf_counter() - start)
                if name == "readinglist":
                    run.stops = stopping(review, prior, index)
                runs[name].setdefault(review.name, []).append(run)
                print(review.name, seed, name, run.screened, f"{run.wss:.3f}", flush=True)
    report(args, reviews, runs, time.time() - begin)


def report(args: argparse.Namespace, reviews: list[Review], runs, seconds: float) -> None:  # type: ignore[no-untyped-def]
    lines = [
        "# Screening on real decisions (issue 28)",
        "",
        "Generated by `.venv/bin/python benchmarks/screening.py` (see its docstring for the"
        " protocol); do not edit by hand.",
        "",
        f"- Machine: {platform.platform()}, load average at the end {os.getloadavg()};"
        f" run took {seconds:.0f} s; {args.seeds} seeds per review; ASReview LAB orders"
        f" reused from {args.asreview_orders.name}: {args.reused} (their seconds are then"
        f" 0). {args.orders_note}",
        f"- Data: {len(reviews)} SYNERGY reviews, {sum(r.n for r in reviews)} records,"
        f" {sum(int(r.included.sum()) for r in reviews)} included.",
        "",
        "| ranker | records screened to 95% recall (sum) | mean WSS@95 | mean recall after 10%"
        " | s per run |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, by_review in runs.items():
        every = [run for rs in by_review.values() for run in rs]
        per_seed = sum(run.screened for run in every) / max(args.seeds, 1)
        lines.append(
            f"| {name} | {per_seed:,.0f} | {np.mean([r.wss for r in every]):.3f} |"
            f" {np.mean([r.recall10 for r in every]):.3f} |"
            f" {np.mean([r.seconds for r in every]):.2f} |"
        )
    lines += ["", "Per review (mean over the seeds): records screened / WSS@95.", ""]
    head = "| review | N | included | " + " | ".join(runs) + " |"
    lines += [head, "|---|---:|---:|" + "---:|" * len(runs)]
    for review in reviews:
        cells = []
        for name in runs:
            rs = runs[name][review.name]
            cells.append(
                f"{np.mean([r.screened for r in rs]):.0f} / {np.mean([r.wss for r in rs]):.3f}"
            )
        lines.append(
            f"| {review.name} | {review.n} | {int(review.included.sum())} | "
            + " | ".join(cells)
            + " |"
        )
    if "ASReview LAB" in runs:
        ours, theirs = runs["readinglist"], runs["ASReview LAB"]
        diffs = [
            a.wss - b.wss for name in ours for a, b in zip(ours[name], theirs[name], strict=True)
        ]
        worst = min(
            (np.mean([r.wss for r in ours[n]]) - np.mean([r.wss for r in theirs[n]]), n)
            for n in ours
        )
        lines += [
            "",
            f"- readinglist - ASReview LAB, WSS@95: mean {np.mean(diffs):+.3f}; ahead on"
            f" {sum(d > 0 for d in diffs)} of {len(diffs)} paired runs; worst review"
            f" {worst[1]} {worst[0]:+.3f} (target: mean >= +0.02, none below -0.03).",
        ]
    lines += [
        "",
        "## Stopping aid (readinglist's order): stop after N excluded in a row",
        "",
        "| review | " + " | ".join(f"N={n}: recall / screened" for n in STOPS) + " |",
        "|---|" + "---:|" * len(STOPS),
    ]
    for review in reviews:
        rs = runs["readinglist"][review.name]
        cells = [
            f"{np.mean([r.stops[n][0] for r in rs]):.3f} / {np.mean([r.stops[n][1] for r in rs]):.2f}"
            for n in STOPS
        ]
        lines.append(f"| {review.name} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
