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
"""

from __future__ import annotations

import argparse
import ast
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
import triage_rank

from readinglist.ranking import features


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


def acl(year: str, baseline: bool) -> None:
    """Protocols A and C of triage_rank.py for ours (and arxiv-sanity-lite)."""
    if not baseline:
        triage_rank.RANKERS = {"ours": triage_rank.rank_ours}
    corpus = triage_rank.Corpus(triage_rank.read_entries(triage_rank.DATA), year)
    a = triage_rank.protocol_a(corpus, 2)
    c = triage_rank.protocol_c(corpus)
    for name in triage_rank.RANKERS:
        print(
            f"ACL {year} {name}: P@20 {a[name][0]:.3f} nDCG@20 {a[name][1]:.3f}"
            f" recall@100 {c[name]:.3f}",
            flush=True,
        )


def synergy(seeds: int, only: list[str] | None) -> None:
    """Our WSS@95 per review, paired with ASReview LAB's stored orders."""
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
            mine = screening.measure(review, screening.screen_ours(review, prior, index), 0)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--acl", help="the year of the ACL workshop users")
    parser.add_argument("--baseline", action="store_true", help="arxiv-sanity-lite too")
    parser.add_argument("--synergy", type=int, default=0, help="seeds per review (0: none)")
    parser.add_argument("--only", nargs="*", help="SYNERGY review names")
    parser.add_argument("--vec", nargs="*", default=[], help="vectorizer KEY=VALUE")
    parser.add_argument("--set", nargs="*", default=[], help="ranking MODULE.NAME=VALUE")
    args = parser.parse_args()
    apply(args.vec, args.set)
    begin = time.time()
    print("variant:", " ".join(args.vec + args.set) or "(as committed)", flush=True)
    if args.synergy:
        synergy(args.synergy, args.only)
    if args.acl:
        acl(args.acl, args.baseline)
    print(f"{time.time() - begin:.0f} s, load {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
