"""The same inputs read the same on SQLite and PostgreSQL: one realistic library (the
example abstracts list, a Mendeley user library and a PMLR volume with ``%`` comments and
an ``@Proceedings`` entry), built by the same commands on both databases, step by step,
gives byte-identical exports in every format, the same ``list``/``show``/``stats``
output, and the same ranking (the papers' feature texts and decisions in id order, so
the same index, scores, ``--why``, similar papers and topics).

This is the ground on which tests whose claim is downstream of the library's reads (a
cache file's trust checks, a fitted model's numbers, a compile of an export, a page's
keys) run on SQLite alone: what they consume is shown here to be the same on
PostgreSQL. Timestamps differ between the two builds by the seconds between their
steps: only the clock part of an ISO time (``HH:MM:SS.ffffff``) is masked, its date, its
layout and zone are compared.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import make_database
from helpers import EXAMPLES, shared_data

from readinglist.cli import cli

#: One worker builds the pair of libraries once for the module (``--dist loadgroup``), and
#: starts early (``slow``: about 25 worker-seconds in all, which ending a run alone would
#: add to it; tests/conftest.py's ``_weight``).
pytestmark = [pytest.mark.xdist_group("databases-agree"), pytest.mark.slow]

KINDS = ("sqlite", "postgresql")
SOURCES = (
    EXAMPLES / "icml2026-abstracts.txt",
    shared_data("bbt-import-mendeley-export.bib"),
    shared_data("pmlr-v260-acml2024.bib"),
)
#: The clock part of an ISO time, its fraction of a second included: the seconds between
#: the two builds' steps.
CLOCK = re.compile(r"(?<=\d{4}-\d\d-\d\d[T ])\d\d:\d\d:\d\d(\.\d+)?")
#: Which paper of the order of addition each decision step acts on.
STEPS: tuple[tuple[str, ...], ...] = (
    ("mark", "to-read", "{0}", "{2}", "{20}", "{40}", "{60}"),
    ("mark", "skipped", "{1}", "{3}", "{21}", "{61}"),
    ("mark", "read", "{4}"),
    ("mark", "reading", "{22}"),
    ("priority", "high", "{0}", "{30}"),
    ("priority", "low", "{31}"),
    ("tag", "add", "zeta", "{20}", "{41}"),
    ("tag", "add", "alpha", "{41}", "{5}", "{20}"),  # second tags, links in another order
    ("tag", "add", "mine", "{0}", "{2}"),  # two positives under one tag: its own model
    ("note", "add", "{0}", "-m", "read the appendix"),
    ("note", "add", "--shared", "{20}", "-m", "lamprey ladders"),
    ("rekey", "{25}", "renamed2020"),  # the old key an alias: biblatex ids
    ("title", "{26}", "A New Title With $\\alpha$-Math and Ünïcode"),  # no longer verbatim
    ("--reader", "ana", "mark", "to-read", "{1}", "{3}", "{50}"),
    ("--reader", "ana", "mark", "skipped", "{0}"),
    ("mark", "skipped", "-q", "year:2011"),  # a selection by query
)


def _masked(text: str) -> str:
    """``text`` with each ISO time's clock masked, keeping its layout: its fraction of a
    second as so many ``f`` (a time with or without one, or with other digits, differs)."""
    return CLOCK.sub(lambda m: "hh:mm:ss" + ("." + "f" * (len(m[1]) - 1) if m[1] else ""), text)


class Twins:
    """The two libraries, each command run on both (SQLite first)."""

    def __init__(self, urls: dict[str, str]) -> None:
        self.urls = urls

    def run(self, *args: str) -> dict[str, tuple[int, str, str]]:
        """Run ``readinglist --db URL ARGS`` on both; return each one's (exit code,
        stdout, stderr), the clock of ISO times masked."""
        out = {}
        for kind, url in self.urls.items():
            result = CliRunner().invoke(cli, ["--db", url, *args])
            assert result.exception is None or isinstance(result.exception, SystemExit), (
                kind,
                args,
                result.exception,
            )
            out[kind] = (result.exit_code, _masked(result.stdout), _masked(result.stderr))
        return out

    def same(self, *args: str) -> tuple[int, str, str]:
        """Run ``ARGS`` on both: the outputs are identical (and the command succeeds);
        return SQLite's."""
        out = self.run(*args)
        assert out["sqlite"] == out["postgresql"], args
        assert out["sqlite"][0] == 0, (args, out["sqlite"][2])
        return out["sqlite"]


@pytest.fixture(scope="module")
def twins(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Twins]:
    """Both libraries, built by the same commands, step by step on each (so their times
    differ by seconds at most): the three imports, then :data:`STEPS` on the keys of the
    papers in the order of addition. Every step's output is the same on both."""
    folder = tmp_path_factory.mktemp("agree")
    databases = [make_database(kind, request, folder / kind) for kind in KINDS]
    twins = Twins({kind: next(gen) for kind, gen in zip(KINDS, databases, strict=True)})
    for source in SOURCES:
        twins.same("import", str(source))
    keys = twins.same("list", "-k")[1].split()
    assert len(keys) > 600
    for step in STEPS:
        twins.same(*(part.format(*keys) for part in step))
    yield twins
    for gen in databases:
        next(gen, None)


#: Every export format, with the options that change what it writes.
EXPORTS = (
    ("bibtex",),
    ("bibtex", "--keywords", "--annote"),
    ("biblatex",),
    ("csl-json",),
    ("ris",),
    ("markdown",),
    ("markdown", "--abstracts", "--notes", "--group-by", "tag", "--title", "Lab"),
    ("markdown", "--group-by", "venue"),
    ("markdown", "--group-by", "year"),
    ("markdown", "--group-by", "priority"),
    ("bibtex", "status:to-read", "OR", "tag:alpha"),
    ("ris", "-status:skipped", "year:2011..2015"),
    ("csl-json", "lamprey"),
)


@pytest.mark.parametrize("args", EXPORTS, ids=" ".join)
def test_every_export_is_byte_identical(twins: Twins, args: tuple[str, ...]) -> None:
    """The same bytes on stdout and the same report on stderr (the count of entries that
    are not real references, with the keys it names)."""
    _, stdout, stderr = twins.same("export", *args)
    assert stdout.strip()
    assert "export" not in stderr or "not real references" in stderr or stderr == ""


def test_another_readers_exports_are_identical(twins: Twins) -> None:
    """Reader ana's view: her statuses in the Markdown list, and the papers she wants."""
    twins.same("--reader", "ana", "export", "markdown")
    twins.same("--reader", "ana", "export", "bibtex", "status:to-read")


@pytest.mark.parametrize(
    "args",
    [
        ("list",),
        ("list", "-k", "--sort", "title"),
        ("list", "-k", "--sort", "year", "--reverse"),
        ("list", "-k", "--sort", "key"),
        ("list", "-k", "status:new", "--limit", "40"),
        ("list", "-k", "has:notes"),
        ("list", "-k", "--sort", "added", "network"),
        ("list", "--json", "tag:alpha"),
        ("list", "--json", "--limit", "60"),
        ("stats",),
        ("stats", "--json"),
        ("--reader", "ana", "list", "-k", "status:to-read"),
    ],
    ids=" ".join,
)
def test_listings_are_identical(twins: Twins, args: tuple[str, ...]) -> None:
    """What ``list`` and ``stats`` print: the papers, their order and their values."""
    assert twins.same(*args)[1].strip()


def test_every_paper_shows_the_same(twins: Twins) -> None:
    """``show --json`` of every paper (its fields, people, tags, notes, aliases, history)
    and ``show`` of a few: identical."""
    papers = json.loads(twins.same("list", "--json")[1])
    assert len(papers) > 600
    for paper in papers[:: max(1, len(papers) // 60)] + papers[-3:]:
        twins.same("show", paper["key"], "--json")
        twins.same("show", paper["key"])
    twins.same("show", "renamed2020", "--json")


def test_the_ranking_reads_the_same_and_ranks_the_same(twins: Twins) -> None:
    """The interest order and scores, ``--why``, similar papers and topics (for the
    implicit reader and for ana) are the same on both."""
    keys = twins.same("list", "-k")[1].split()
    order = twins.same("list", "-k", "--sort", "interest")[1].split()
    assert sorted(order) == sorted(keys)
    assert order != keys  # the decisions moved papers
    scored = json.loads(twins.same("list", "--sort", "interest", "--json")[1])
    assert all(p["interest"] is not None for p in scored)
    for key in (keys[5], keys[20], keys[41], keys[100], order[0], order[-1]):
        twins.same("show", key, "--why", "--json")
        twins.same("show", key, "--why")
        twins.same("similar", key, "--json")
    twins.same("topics", "--k", "3", "--json", "-status:skipped")  # 2.5 s a database
    twins.same("--reader", "ana", "list", "-k", "--sort", "interest")


def _inputs(url: str) -> dict[str, Any]:
    """The ranker's inputs read from the library at ``url``: the ids and feature texts in
    the order of addition, the index (tf-idf and LSA rows; the one the commands above
    cached, trusted only when its texts' digests are those read now), the labels
    (decisions) and judged tags, and the change counter's shape (counts, highest ids)."""
    from readinglist import db
    from readinglist.ranking import fitted, store
    from readinglist.ranking.ranker import Ranker

    engine = db.make_engine(url)
    try:
        with db.session_scope(engine, write=False) as session:
            ids, texts = store.documents(session)
            index = store.load(session, url)
            ranker = Ranker.of_index(session, index)
            shape = fitted.change_counter(session).shape
    finally:
        engine.dispose()
    return {
        "ids": ids,
        "texts": texts,
        "index": index,
        "labels": (ranker.y.tolist(), ranker.weight.tolist()),
        "tags": dict(ranker.tags),
        "shape": shape,
    }


def test_the_ranking_inputs_are_the_same(twins: Twins) -> None:
    """What every ranking test consumes, read from each library: the same ids, texts
    (tags in the same order), matrices and decisions, to the bit."""
    one, two = (_inputs(twins.urls[kind]) for kind in KINDS)
    assert one["ids"] == two["ids"]
    assert one["texts"] == two["texts"]
    assert one["labels"] == two["labels"]
    assert one["tags"] == two["tags"]
    assert one["shape"] == two["shape"]
    for a, b in ((one["index"], two["index"]), (one["index"].second, two["index"].second)):
        assert np.array_equal(a.ids, b.ids)
        assert a.vocabulary == b.vocabulary
        assert (a.matrix != b.matrix).nnz == 0
        assert np.array_equal(a.dense, b.dense)
    assert np.array_equal(one["index"].digests, two["index"].digests)
