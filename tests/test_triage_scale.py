"""Interest listings cost what they show: ``list --sort interest --limit N`` reads the
papers it prints and no other (a 2,500-paper SQLite library, then 5,000: a bound on the
rows the database returns, the same at both sizes, not a timing), the first triage screen reads each paper of its queue
once, and both say what the model learnt from; the table and ``similar`` show their
scores."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import statements_to
from test_ranking import cache_dir_fixture, corpus, filled_fixture  # noqa: F401

WORDS = [
    f"{a}{b}"
    for a in ("alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta")
    for b in ("net", "graph", "learn", "model", "parse", "tree", "rank", "flow", "code", "text")
]

#: The papers of the scale test's first library; it then doubles. Every bound checked is
#: one on what is shown (20 papers), not on the library's size, and is checked again
#: after the library doubled: the rows read must not grow with it (what scaled did:
#: reading every id, 500 candidates, or the triage queue three times, is far past them
#: at this size already: 2,500 ids or 500 candidates against a bound of 150 rows, 15,000
#: queue rows against at most 5,995). It was 5,000, then 10,000: twice the import and
#: the index builds (two thirds of the test's time) for the same verdicts.
PAPERS = 2_500


def generated_title(i: int) -> str:
    """Paper ``i``'s title: four words of :data:`WORDS` (different for every paper: its
    digits in base 80)."""
    n = len(WORDS)
    return " ".join([*(WORDS[(i // n**k) % n] for k in range(3)), WORDS[(i * 7) % n]])


def generated_abstract(i: int) -> str:
    """Paper ``i``'s abstract: its title and two more words of :data:`WORDS`."""
    n = len(WORDS)
    return f"{generated_title(i)} about {WORDS[(i * 3) % n]} {WORDS[(i * 11) % n]}"


def generated_bib(path: Path, count: int) -> Path:
    """``count`` papers (:func:`generated_title`, :func:`generated_abstract`), a DOI each
    so that none merge, one of 500 authors, written as BibTeX to ``path``."""
    lines = [
        f"@article{{p{i}, title = {{{generated_title(i)}}}, doi = {{10.5555/p{i}}}, "
        f"author = {{Family{i % 500}, Given}}, year = {{{1990 + i % 30}}}, "
        f"abstract = {{{generated_abstract(i)}}}}}\n"
        for i in range(count)
    ]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def import_generated(url: str, count: int, start: int = 0) -> None:
    """Import papers ``start`` to ``start + count - 1`` of :func:`generated_bib` into the
    library at ``url`` as records (``library.import_records``, one batch: the rows an
    import of that file writes, but its ``source_text``), without writing and parsing
    the BibTeX: 3.7 s of CPU instead of 8.7 s for 20,000 papers."""
    from readinglist import db, library
    from readinglist.records import PaperRecord, Person

    records = [
        PaperRecord(
            citekey=f"p{i}",
            entry_type="article",
            title=generated_title(i),
            doi=f"10.5555/p{i}",
            authors=(Person(family=f"Family{i % 500}", given="Given"),),
            year=1990 + i % 30,
            abstract=generated_abstract(i),
        )
        for i in range(start, start + count)
    ]
    engine = db.make_engine(url)
    try:
        with db.session_scope(engine) as session:
            report = library.import_records(session, records, source="many.bib", fmt="bibtex")
            assert len(report.added) == count
    finally:
        engine.dispose()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Counts, while the test runs, the papers loaded as ORM objects (``orm``) and the
    records a listing reads (``records``: ``listing_rows.iter_listing_records``)."""
    from sqlalchemy import event

    from readinglist.library import listing
    from readinglist.models import Paper

    seen = {"orm": 0, "records": 0}

    def on_load(target: Any, context: Any) -> None:
        seen["orm"] += 1

    original = listing.iter_listing_records

    def counting(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for item in original(*args, **kwargs):
            seen["records"] += 1
            yield item

    monkeypatch.setattr(listing, "iter_listing_records", counting)
    event.listen(Paper, "load", on_load)
    try:
        yield seen
    finally:
        event.remove(Paper, "load", on_load)


#: Counts the rows SQLite returns to the main thread of a process (every cursor of every
#: pooled connection: ``sqlite3.Connection.row_factory``, set at each checkout); the
#: background fit's thread is left out. ``ROWS`` holds the count. Run in the process of
#: a test (``exec``) or first in a ``python -c`` program (the triage run below).
ROW_COUNTER = """
import sqlite3, threading
from sqlalchemy import event
from sqlalchemy.pool import Pool
ROWS = [0]
def _count(cursor, row):
    if threading.current_thread() is threading.main_thread():
        ROWS[0] += 1
    return row
def _checkout(dbapi_connection, record, proxy):
    if isinstance(dbapi_connection, sqlite3.Connection):
        dbapi_connection.row_factory = _count
event.listen(Pool, "checkout", _checkout)
"""


@pytest.fixture
def rows_read() -> Iterator[list[int]]:
    """``[rows SQLite returned to this thread]`` while the test runs (:data:`ROW_COUNTER`)."""
    from sqlalchemy import event
    from sqlalchemy.pool import Pool

    names: dict[str, Any] = {}
    exec(ROW_COUNTER, names)
    try:
        yield names["ROWS"]
    finally:
        event.remove(Pool, "checkout", names["_checkout"])


def first_triage_screen_rows(database: str) -> tuple[str, int]:
    """Start ``triage`` on ``database`` in a pseudo-terminal, quit on its first screen;
    return that screen and the rows SQLite returned to the main thread of the run."""
    import pexpect

    code = (
        ROW_COUNTER
        + "import atexit\n"
        + "atexit.register(lambda: print('ROWS=%d' % ROWS[0]))\n"
        + "from readinglist.cli import cli\n"
        + "cli.main(sys.argv[1:], prog_name='readinglist')\n"
    )
    env = dict(os.environ, TERM="xterm", COLUMNS="100", LINES="40")
    env.pop("READINGLIST_DB", None)
    child = pexpect.spawn(
        sys.executable,
        ["-c", "import sys\n" + code, "--db", database, "triage"],
        env=env,
        dimensions=(40, 100),
        encoding="utf-8",
        timeout=120,
    )
    child.expect(r"\?:(more|help)")
    screen = str(child.before)
    child.send("q")
    child.expect(r"ROWS=(\d+)")
    rows = int(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    return screen, rows


@pytest.mark.slow  # a 2,500-paper library and its first index, then 5,000
def test_interest_listing_and_first_triage_screen_read_only_what_they_show(
    sqlite_url: str,
    tmp_path: Path,
    counted: dict[str, int],
    rows_read: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from readinglist.cli import cli

    runner = CliRunner()

    def run(*args: str) -> Any:
        result = runner.invoke(cli, ["--db", sqlite_url, *args])
        assert result.exit_code == 0, result.output
        return result

    import_generated(sqlite_url, PAPERS)
    run("mark", "to-read", "p1", "p2", "p3")
    run("mark", "skipped", "p4", "p5")
    first = run("list", "--sort", "interest", "--limit", "1")
    assert first.stderr.startswith(f"building the interest index of {PAPERS:,} papers")
    counted.update(orm=0, records=0)
    result = run("list", "--sort", "interest", "--limit", "20")
    lines = result.stdout.splitlines()
    assert len(lines) == 21  # the header and 20 papers
    assert lines[0].split()[:6] == ["KEY", "STATUS", "PRIO", "YEAR", "AUTHORS", "INTEREST"]
    assert result.stderr == "learnt from 3 wanted, 2 skipped\n"
    # main loaded all the papers as ORM objects before the limit applied
    assert counted == {"orm": 0, "records": 20}
    counted.update(orm=0, records=0)
    shown = json.loads(run("list", "--sort", "interest", "--limit", "20", "--json").stdout)
    assert counted == {"orm": 0, "records": 20}
    scores = [p["interest"] for p in shown]
    assert scores == sorted(scores, reverse=True)
    assert [p["key"] for p in shown[:3]] == [line.split()[0] for line in lines[1:4]]
    # The fit is current: the listing reads the fitted scores, never the index, in the
    # same few statements as on 12 papers (main loaded the index and fitted every time).
    from readinglist.ranking import store

    def no_index(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the index was loaded although the fit is current")

    from readinglist.ranking import ranker

    loads = (store.load, ranker.load)

    def index_loads(store_load: Any, ranker_load: Any) -> None:
        monkeypatch.setattr(store, "load", store_load)
        monkeypatch.setattr(ranker, "load", ranker_load)

    index_loads(no_index, no_index)  # until the library doubles: the fit is current
    with statements_to(sqlite_url) as statements:
        again = run("list", "--sort", "interest", "--limit", "20")
    assert again.stdout == result.stdout
    papers_read = [s for s in statements if s.lstrip().startswith("SELECT papers.id, ")]
    # schema check 6, the read's BEGIN 1, the reader 1, the change counter 1 (migration
    # 0009's indexes), the first 20 of the interest order's file found in the library 1,
    # shown 2: as many on 2,500 papers as on 12 (14 before: a counter of 3 statements,
    # and the best scored read in their order of addition, no longer asked for)
    assert len(statements) <= 12, statements
    assert not [s for s in statements if "ORDER BY papers.added_at" in s], statements
    assert len(papers_read) == 1  # the 20 shown, in one chunk

    # Rows, not only statements: the ids of the whole library (2,500 rows) were read to
    # be ordered; then the papers that could be among the first 20 (up to 500); now the
    # 20 shown.
    def rows_of_first_20() -> tuple[str, int, int]:
        """The first 20 of the interest order, the rows it read, and those of its
        reverse; checks that the reverse's are the whole reversed order's first 20."""
        rows_read[0] = 0
        shown = run("list", "--sort", "interest", "--limit", "20").stdout
        forward, rows_read[0] = rows_read[0], 0
        reverse = run("list", "--sort", "interest", "--limit", "20", "--reverse").stdout
        backward = rows_read[0]
        every = run("list", "--sort", "interest", "--reverse").stdout.splitlines()
        assert reverse.splitlines() == every[:21]  # the same papers as the whole order's
        return shown, forward, backward

    shown, *small = rows_of_first_20()
    assert shown == result.stdout
    assert max(small) <= 150, small  # the 20 shown and their authors: 106
    # Twice the papers: the index is built again, and the rows read do not grow.
    index_loads(*loads)
    import_generated(sqlite_url, PAPERS, start=PAPERS)
    rebuilt = run("list", "--sort", "interest", "--limit", "1")
    assert rebuilt.stderr.startswith(f"building the interest index of {2 * PAPERS:,} papers")
    index_loads(no_index, no_index)
    _, *large = rows_of_first_20()
    assert large == small, (small, large)
    # The first triage screen (fitted scores current) reads each paper of its queue once:
    # the queue's ids, in order (4,995 new papers); main read them three times (the
    # queue with each paper's added_at, their import batches, their statuses).
    database = sqlite_url.removeprefix("sqlite:///")
    screen, rows = first_triage_screen_rows(database)
    assert "learnt from 3 wanted, 2 skipped" in screen
    assert 2 * PAPERS - 5 <= rows <= 2 * PAPERS - 5 + 1_000, rows


def test_the_interest_table_shows_the_score_and_what_it_learnt_from(
    filled: Callable[..., Any],
) -> None:
    result = filled("list", "--sort", "interest")
    assert result.stderr.startswith("no interest yet: nothing decided to learn from")
    assert all(" - " in line for line in result.stdout.splitlines()[1:])
    assert filled("mark", "to-read", "bio0").exit_code == 0
    assert filled("mark", "skipped", "rl0").exit_code == 0
    result = filled("list", "--sort", "interest", "--limit", "3")
    assert result.stderr == (  # the first ranking builds the index, and says so
        "building the interest index of 12 papers (kept for later runs until papers are added"
        " or a text or tag changes)...\n"
        "learnt from 1 wanted, 1 skipped\n"
    )
    result = filled("list", "--sort", "interest", "--limit", "3")
    assert result.stderr == "learnt from 1 wanted, 1 skipped\n"
    scores = json.loads(filled("list", "--sort", "interest", "--json", "--limit", "3").stdout)
    rows = result.stdout.splitlines()
    assert "INTEREST" in rows[0].split()
    assert [row.split()[0] for row in rows[1:]] == [p["key"] for p in scores]
    shown = [re.search(r"\s(-?\d+\.\d{3})\s", row) for row in rows[1:]]
    assert [float(m.group(1)) for m in shown if m] == [round(p["interest"], 3) for p in scores]
    similar = filled("similar", "bio0", "--limit", "2").stdout.splitlines()
    assert "SIMILARITY" in similar[0].split()


def test_topic_labels_are_the_topics_own_terms_not_venue_or_shared_words() -> None:
    """Two groups of papers: the first from one venue, each of its papers on words of
    its own but two ("reward", "policy"), the second sharing its words; every paper
    has the word "networks". The venue's words labelled the first topic; with the
    venues given, neither they nor "networks" label a topic, its own words do."""
    import numpy as np

    from readinglist.ranking import features
    from readinglist.ranking.store import Index, lsa
    from readinglist.ranking.topics import cluster

    venue = "Proceedings of the Association for Computational Linguistics"
    own = ["bandit", "exploration", "agent", "offline", "planning", "control"]
    docs, venues = [], []
    for i, word in enumerate(own):
        docs.append(features.document(f"{word} reward", f"{word} policy networks", [], venue))
        venues.append(venue)
        docs.append(features.document("protein folding", f"enzyme binding {i} networks"))
        venues.append("")
    matrix, vocabulary, idf = features.fit(docs)
    index = Index(np.arange(len(docs), dtype=np.int64), matrix, vocabulary, idf, lsa(matrix))
    before = cluster(index, list(range(len(docs))), 2)
    assert any({"association", "computational"} & set(t.label.split("-")) for t in before)
    topics = cluster(index, list(range(len(docs))), 2, venues)
    words = {w for t in topics for term in t.terms for w in term.split()}
    assert not words & {"association", "computational", "linguistics", "proceedings"}
    assert "networks" not in words
    first = next(t for t in topics if 0 in t.paper_ids)
    assert set(first.label.split("-")) <= {"reward", "policy", *own}, first.label


def test_topics_cluster_with_the_numerical_libraries_on_one_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """k-means and its SVD run with every thread pool of the numerical libraries at one
    thread (``store.one_thread``): by default, one OpenMP thread a core made ``topics``
    of 12 papers spend 15 times the CPU on a busy 2-core machine (threads waiting)."""
    import numpy as np
    from threadpoolctl import threadpool_info

    from readinglist.ranking import topics
    from readinglist.ranking.features import document, fit
    from readinglist.ranking.store import Index, lsa

    pools: list[list[int]] = []

    def spying(cls: Any) -> type:
        class Spy(cls):  # type: ignore[misc,valid-type]
            def fit_predict(self, *args: Any, **kwargs: Any) -> Any:
                pools.append([pool["num_threads"] for pool in threadpool_info()])
                return super().fit_predict(*args, **kwargs)

            def fit_transform(self, *args: Any, **kwargs: Any) -> Any:
                pools.append([pool["num_threads"] for pool in threadpool_info()])
                return super().fit_transform(*args, **kwargs)

        return Spy

    monkeypatch.setattr(topics, "KMeans", spying(topics.KMeans))
    monkeypatch.setattr(topics, "TruncatedSVD", spying(topics.TruncatedSVD))
    docs = [document(f"{word} networks", f"{word} learning {i}") for i, word in enumerate(WORDS)]
    matrix, vocabulary, idf = fit(docs)
    index = Index(np.arange(len(docs), dtype=np.int64), matrix, vocabulary, idf, lsa(matrix))
    assert topics.cluster(index, list(range(len(docs))), 3)
    assert len(pools) == 2, pools  # the SVD, then k-means
    assert all(pool and set(pool) == {1} for pool in pools), pools
