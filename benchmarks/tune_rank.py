"""Tune the interest order on both benchmarks at once, one variant per run.

Run: ``.venv/bin/python benchmarks/tune_rank.py --acl 2019 --synergy 1 [--vec KEY=VALUE ...]
[--set MODULE.NAME=VALUE ...]`` (prints one line per part; the figures go to
benchmarks/TRIAGE_RANK.md by hand).

* ``--acl YEAR``: benchmarks/triage_rank.py's protocols A (P@20, nDCG@20, 2 draws per
  user) and C (recall@100) for our ranker alone, on that year's workshop users (the
  slow parts of the full run, topics, latency and the label ceiling, left out);
  ``--baseline`` adds arxiv-sanity-lite's figures (they do not depend on our settings).
* ``--synergy SEEDS``: benchmarks/screening.py's protocol for our ranker on the nine
  SYNERGY reviews (``--only`` for some), each run paired with ASReview LAB's stored
  order for the same prior (benchmarks/asreview_orders.json): mean WSS@95, the
  difference from ASReview LAB and the worst review's.
* ``--vec``: an override of :func:`readinglist.ranking.features.vectorizer_params`
  (``stop_words=english``, ``max_df=0.5``; values are Python literals, else strings);
  ``--set``: a module constant of :mod:`readinglist.ranking` (``model.UNLABELLED=0.05``).
  Both apply to every index and fit the run makes.
* ``--select``: per-reader model selection between the committed index's classifier and
  session 12's (benchmarks/select_rank.py, sessions 16-17), with ``--k``, ``--first``
  (the first round's profile: committed, second, both), ``--fold-rows`` (undecided rows
  per fold's fit) and ``--regrow`` (re-select when the decisions grew by this share);
  ``--first`` without ``--select`` changes the first round alone; session 18's
  ``--criterion pct`` (the folds' score counts undecided papers as skips), ``--preq``
  (pooled, wins or tiebreak: prequential selection, ``--no-fallback`` without the folds)
  and ``--interleave GAP`` (team draft of the two orders while the history cannot tell
  them apart by more than GAP of pooled AUC). ``--cost``: the CPU of
  one re-rank (5 wanted + 45 skipped on the ACL 2020 index; median of 15): the committed
  classifier alone, the product's selection (session 19: ``readinglist.ranking.select``)
  and, with ``--select``, the variants.
* Without ``--select``, "ours" is the product's Ranker, which selects per reader since
  session 19 (the variant ``--select --preq tiebreak --fold-rows 1000``).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import screening
import select_rank
import triage_rank

from readinglist.ranking import features
from readinglist.ranking.ranker import Ranker
from readinglist.ranking.select import History


def literal(text: str) -> Any:
    """A Python literal, or the text itself (``english``)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def apply(vec: list[str], sets: list[str]) -> None:
    """Patch the vectorizer settings and module constants as the options say."""
    overrides = {k: literal(v) for k, v in (item.split("=", 1) for item in vec)}
    if overrides:
        original = features.vectorizer_params

        def params(n_docs: int) -> dict[str, Any]:
            out = original(n_docs)
            out.update(overrides)
            return out

        features.vectorizer_params = params  # type: ignore[assignment]
    for item in sets:
        name, value = item.split("=", 1)
        module, attr = name.rsplit(".", 1)
        target = importlib.import_module(f"readinglist.ranking.{module}")
        setattr(target, attr, literal(value))
        # model.BETA, PRF, PRF_K and RATIO are also the defaults of arguments named alike
        for function in vars(target).values():
            if callable(function) and attr.lower() in (
                getattr(function, "__kwdefaults__", None) or {}
            ):
                function.__kwdefaults__[attr.lower()] = literal(value)
            code = getattr(function, "__code__", None)
            if code is not None and function.__defaults__:
                names = code.co_varnames[: code.co_argcount][-len(function.__defaults__) :]
                if attr.lower() in names:
                    values = list(function.__defaults__)
                    values[names.index(attr.lower())] = literal(value)
                    function.__defaults__ = tuple(values)


def acl(year: str, baseline: bool, opts: select_rank.Options | None, only_c: bool) -> None:
    """Protocols A and C of triage_rank.py for ours (and arxiv-sanity-lite); ``opts``:
    ours is :class:`select_rank.SelectRanker`; ``only_c``: protocol C alone."""
    if not baseline:
        triage_rank.RANKERS = {"ours": triage_rank.rank_ours}
    corpus = triage_rank.Corpus(triage_rank.read_entries(triage_rank.DATA), year)
    if opts is not None:
        second = corpus.index.second

        def rank_select(corpus: Any, pos: list[int], neg: list[int]) -> np.ndarray:
            status = ["new"] * corpus.n
            for i in pos:
                status[i] = "to-read"
            for i in neg:
                status[i] = "skipped"
            ranker = select_rank.SelectRanker(corpus.index, second, status, opts, pos[0])
            scores = ranker.scores()
            assert scores is not None
            return scores

        triage_rank.RANKERS["ours"] = rank_select
    nan = (float("nan"), float("nan"))
    a = dict.fromkeys(triage_rank.RANKERS, nan) if only_c else triage_rank.protocol_a(corpus, 2)
    c = triage_rank.protocol_c(corpus)
    if opts is not None and opts.picks:
        picks(opts)
    for name in triage_rank.RANKERS:
        print(
            f"ACL {year} {name}: P@20 {a[name][0]:.3f} nDCG@20 {a[name][1]:.3f}"
            f" recall@100 {c[name]:.3f}",
            flush=True,
        )


def picks(opts: select_rank.Options) -> None:
    """Print how many selections picked the second classifier (and, prequential, by what)."""
    text = f"  selections: {sum(opts.picks)} of {len(opts.picks)} picked the second"
    if opts.sources:
        text += "; by " + ", ".join(
            f"{name} {opts.sources.count(name)}" for name in ("history", "folds", "none", "draft")
        )
    print(text, flush=True)


def screen_select(
    review: Any, prior: list[int], index: Any, opts: select_rank.Options
) -> list[int]:
    """screening.screen_ours with :class:`select_rank.SelectRanker` (the second index
    the product builds with the review's, screening.product_index)."""
    second = index.second
    ranker = select_rank.SelectRanker(index, second, ["new"] * review.n, opts, object())
    for i in prior:
        ranker.decide(i, "to-read" if review.included[i] else "skipped")
    return screening._loop(
        review, list(prior), ranker.order, screening.ranker_decide(ranker, review)
    )


def build_cost(docs: list[str], runs: int = 3) -> None:
    """The cold build of the index of ``docs`` (process CPU, median of ``runs``, one
    thread as ``store.build``) and the size of its cache file: the committed index
    alone (features.fit and its LSA rows, sessions 13-18) against the product's
    (store.index_of: the second index and its LSA rows too, session 19)."""
    import tempfile

    from readinglist.ranking import fitted, store

    def committed() -> store.Index:
        matrix, vocab, idf = features.fit(docs)
        rows = np.arange(len(docs), dtype=np.int64)
        return store.Index(rows, matrix, vocab, idf, store.lsa(matrix), store.digests(docs))

    def both() -> store.Index:
        return store.index_of(docs)

    counter = fitted.Counter(f"v{fitted.VERSION}|{len(docs)}|{len(docs)}|0|0", "")
    for name, make in (("committed alone", committed), ("with the second index", both)):
        spent = []
        for _ in range(runs):
            begin = time.process_time()
            with store.one_thread():
                index = make()
            spent.append(time.process_time() - begin)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "cache.npz"
            if index.second is None:  # the members of sessions 13-18's cache file
                head = {"counter": np.array(counter.shape), "updated": np.array("")}
                head.update(digests=index.digests, ids=index.ids)
                fitted.save_atomically(path, {**head, **store._arrays(index, "")})
            else:
                store._write(path, counter, index)
            size = path.stat().st_size
        print(
            f"cold index build, {name}, {len(docs)} papers: median CPU"
            f" {float(np.median(spent)):.2f} s; cache file {size / 2**20:.1f} MiB",
            flush=True,
        )


def cost(opts: select_rank.Options | None) -> None:
    """The CPU of one re-rank: the fit(s) and every paper's score, 5 wanted + 45 skipped
    (protocol A's first draw) on the ACL 2020 index; median of 15, process CPU; the
    committed classifier alone, the product's Ranker and, with ``opts``, its selection at
    full, 1,000 and 500 undecided rows per fold's fit, alternated (one index build for
    all), then the selection alone. First :func:`build_cost`."""
    import random

    corpus = triage_rank.Corpus(triage_rank.read_entries(triage_rank.DATA), "2020")
    build_cost(corpus.docs)
    second = corpus.index.second
    rel = corpus.relevant(corpus.workshops[0])
    rng = random.Random(1000)
    pos = rng.sample(list(np.flatnonzero(rel)), 5)
    neg = rng.sample(list(np.flatnonzero(~rel)), 45)
    status = ["new"] * corpus.n
    for i in pos:
        status[i] = "to-read"
    for i in neg:
        status[i] = "skipped"
    variants: dict[str, select_rank.Options | None] = {"committed": None, "product": None}
    committed = dataclasses.replace(corpus.index, second=None)
    if opts is not None:
        for rows in (None, 1000, 500):
            variants[f"select fold_rows={rows}"] = select_rank.Options(opts.k, fold_rows=rows)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(15):
        for name, variant in variants.items():
            begin = time.process_time()
            if name == "committed":  # the one classifier of sessions 12-18
                Ranker(committed, status, [None] * corpus.n, {}).scores()
            elif variant is None:  # the product's selection (session 19), a fresh record
                Ranker(corpus.index, status, [None] * corpus.n, {}, history=History()).scores()
            else:
                select_rank.SelectRanker(corpus.index, second, status, variant, None).scores()
            times[name].append(time.process_time() - begin)
    for name, spent in times.items():
        print(f"re-rank CPU, {name}: median {1000 * float(np.median(spent)):.0f} ms", flush=True)
    probe = Ranker(corpus.index, status, [None] * corpus.n, {})
    for name, variant in variants.items():
        if variant is not None:  # the selection alone: what any winner adds to its fit
            spent = []
            for _ in range(15):
                begin = time.process_time()
                pick = select_rank.choose([corpus.index, second], probe.y, probe.weight, variant)
                spent.append(time.process_time() - begin)
            print(
                f"selection CPU, {name}: median {1000 * float(np.median(spent)):.0f} ms"
                f" (picks {'second' if pick else 'committed'})",
                flush=True,
            )
    if opts is not None and opts.preq:
        preq_cost(corpus.index, second, status, opts)
    for name, index in (("second", second), ("committed", corpus.index)):
        nnz = getattr(index.matrix, "nnz", -1)
        print(f"{name} index: {nnz} non-zeros, {index.matrix.shape[1]} columns", flush=True)


def preq_cost(index: Any, second: Any, status: list[str], opts: select_rank.Options) -> None:
    """The CPU of one prequential re-rank (both candidates' fits and scores, the
    history's update; with ``preq`` "tiebreak" the folds too, as they run first): median
    of 15, process CPU. The history is primed with the same decisions, one pair ordered
    right by the committed candidate alone, so that "pooled" and "wins" pick by it
    without the folds."""
    spent = []
    for _ in range(15):
        variant = select_rank.Options(opts.k, fold_rows=opts.fold_rows, preq=opts.preq)
        probe = Ranker(index, status, [None] * len(status), {})
        undecided = np.flatnonzero(probe.y == 0)
        hist = History(
            np.asarray(index.ids[undecided], dtype=np.int64),
            np.zeros((2, len(undecided)), dtype=np.float32),
            np.array([1.0, 0.0]),
            1.0,
            np.array([1.0, 0.0]),
            started=True,
        )
        variant.history[None] = select_rank.Kept(probe.y.copy(), hist)
        begin = time.process_time()
        select_rank.SelectRanker(index, second, status, variant, None).scores()
        spent.append(time.process_time() - begin)
    print(
        f"re-rank CPU, prequential {opts.preq} fold_rows={opts.fold_rows}:"
        f" median {1000 * float(np.median(spent)):.0f} ms"
    )


def synergy(seeds: int, only: list[str] | None, opts: select_rank.Options | None) -> None:
    """Our WSS@95 per review, paired with ASReview LAB's stored orders (``opts``: ours
    is :class:`select_rank.SelectRanker`)."""
    kept = json.loads((screening.HERE / "asreview_orders.json").read_text(encoding="utf-8"))
    reviews = [screening.read_review(p) for p in sorted(screening.DATA.glob("*.jsonl.gz"))]
    if only:
        reviews = [r for r in reviews if r.name in only]
    ours: list[float] = []
    diffs: dict[str, list[float]] = {}
    for review in reviews:
        index = screening.product_index(review)
        for seed in range(seeds):
            prior = screening.priors(review, seed)
            order = (
                screening.screen_ours(review, prior, index)
                if opts is None
                else screen_select(review, prior, index, opts)
            )
            mine = screening.measure(review, order, 0)
            key = f"{review.name} {seed} {prior} {screening.BATCH}"
            theirs = screening.measure(review, screening._truncate(review, kept[key]), 0)
            ours.append(mine.wss)
            diffs.setdefault(review.name, []).append(mine.wss - theirs.wss)
            print(
                f"  {review.name} {seed} {mine.wss:.3f} ({mine.wss - theirs.wss:+.3f})", flush=True
            )
    per = {name: float(np.mean(d)) for name, d in diffs.items()}
    worst = min(per, key=per.__getitem__)
    mean_diff = float(np.mean([x for d in diffs.values() for x in d]))
    print(
        f"SYNERGY {seeds} seed(s): WSS@95 {np.mean(ours):.3f}, ASReview {mean_diff:+.3f},"
        f" worst {worst} {per[worst]:+.3f}; "
        + " ".join(f"{n.split('_')[0]} {v:+.3f}" for n, v in per.items()),
        flush=True,
    )
    if opts is not None and opts.picks:
        picks(opts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--acl", help="the year of the ACL workshop users")
    parser.add_argument("--baseline", action="store_true", help="arxiv-sanity-lite too")
    parser.add_argument("--synergy", type=int, default=0, help="seeds per review (0: none)")
    parser.add_argument("--only", nargs="*", help="SYNERGY review names")
    parser.add_argument("--vec", nargs="*", default=[], help="vectorizer KEY=VALUE")
    parser.add_argument("--set", nargs="*", default=[], help="ranking MODULE.NAME=VALUE")
    parser.add_argument("--select", action="store_true", help="per-reader model selection")
    parser.add_argument("--k", type=int, default=3, help="folds (and decisions of each)")
    parser.add_argument("--first", default="committed", help="committed, second or both")
    parser.add_argument("--fold-rows", type=int, help="undecided rows per fold's fit")
    parser.add_argument("--regrow", type=float, default=0.0, help="re-select after growth")
    parser.add_argument("--criterion", default="auc", help="folds' score: auc or pct")
    parser.add_argument("--preq", default="", help="prequential selection: pooled or wins")
    parser.add_argument("--interleave", type=float, help="team draft within this AUC gap")
    parser.add_argument("--no-fallback", action="store_true", help="preq without folds")
    parser.add_argument("--only-c", action="store_true", help="protocol C alone")
    parser.add_argument("--cost", action="store_true", help="re-rank CPU on ACL 2020")
    args = parser.parse_args()
    apply(args.vec, args.set)
    opts = None
    if args.select or args.first != "committed":
        opts = select_rank.Options(
            args.k,
            args.first,
            args.fold_rows,
            args.regrow,
            args.select,
            criterion=args.criterion,
            preq=args.preq,
            fallback=not args.no_fallback,
            interleave=args.interleave,
        )
    begin = time.time()
    print(
        "variant:",
        " ".join(args.vec + args.set) or "(as committed)",
        ""
        if opts is None
        else f"select={opts.select} k={opts.k} first={opts.first}"
        f" fold_rows={opts.fold_rows} regrow={opts.regrow} criterion={opts.criterion}"
        f" preq={opts.preq} fallback={opts.fallback} interleave={opts.interleave}",
        flush=True,
    )
    if args.cost:
        cost(opts)
    if args.synergy:
        synergy(args.synergy, args.only, opts)
    if args.acl:
        acl(args.acl, args.baseline, opts, args.only_c)
    print(f"{time.time() - begin:.0f} s, load {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
