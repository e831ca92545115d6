"""The fitted interest is cached, and triage fits in the background: ``list --sort
interest`` reads the scores of the library as it is instead of fitting again; a
decision makes them stale (refitted, as a fresh ranker orders); a damaged or forged
scores' file is refitted, never trusted; triage's :class:`LiveRanker` follows the
decisions, never makes a decision wait for a slow fit, and says when a fit failed.
The ``filled`` library of test_ranking. What reads the library (the change counter a
decision or a tag moves, the decisions of the run's reader, the first papers of a
limit, the live ranker's reads, the modules a limited listing loads) runs on SQLite
and PostgreSQL; the files' trust checks and the background fit's threads and messages
(``helpers.SQLITE_SUFFICES``) on SQLite, their inputs being read the same on both
(test_databases_agree.py)."""

from __future__ import annotations

import json
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import SQLITE_SUFFICES
from test_ranking import cache_dir_fixture, filled_fixture  # noqa: F401


def interest_listing(filled: Callable[..., Any]) -> list[tuple[str, float]]:
    result = filled("list", "--sort", "interest", "--json")
    assert result.exit_code == 0, result.stderr
    return [(p["key"], p["interest"]) for p in json.loads(result.stdout)]


def fresh_listing(db_url: str) -> list[tuple[str, float | None]]:
    """The interest order of a ranker fitted now, from the library (no fitted file)."""
    from readinglist import db, library
    from readinglist.ranking.ranker import Ranker

    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        ranker = Ranker.open(session, db_url)
        key_of = {p.id: p.citekey for p in library.all_papers(session)}
        ids = ranker.order(list(key_of))
        scores = ranker.interest(ids)
    engine.dispose()
    return [(key_of[pid], scores[pid]) for pid in ids]


def test_a_current_fit_is_read_and_a_decision_refits(
    filled: Callable[..., Any], db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readinglist.ranking.fitted import fitted_path
    from readinglist.ranking.ranker import Ranker

    assert filled("mark", "to-read", "rl0").exit_code == 0
    first = interest_listing(filled)
    assert first == fresh_listing(db_url)
    assert fitted_path(db_url).is_file()

    def no_fit(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("fitted again although the library did not change")

    with monkeypatch.context() as patched:
        patched.setattr(Ranker, "open", no_fit)
        assert interest_listing(filled) == first  # read from the fitted scores
    assert filled("mark", "skipped", "rl1").exit_code == 0
    after = interest_listing(filled)
    assert after != first
    assert after == fresh_listing(db_url)
    assert filled("tag", "add", "rl", "rl2", "rl3").exit_code == 0  # tags are features too
    assert interest_listing(filled) == fresh_listing(db_url)


def _rewrite(path: Any, **changed: Any) -> None:
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    arrays.update(changed)
    with open(path, "wb") as out:
        np.savez(out, **arrays)


@SQLITE_SUFFICES
@pytest.mark.parametrize(
    "forge",
    ["garbage", "nan", "beyond", "unsorted", "key", "extra"],
)
def test_a_forged_fitted_file_is_refitted_never_trusted(
    filled: Callable[..., Any], db_url: str, forge: str
) -> None:
    from readinglist.ranking.fitted import fitted_path

    assert filled("mark", "to-read", "bio0", "rl2").exit_code == 0
    expected = interest_listing(filled)
    path = fitted_path(db_url)
    with np.load(path, allow_pickle=False) as data:
        ids, scores = data["ids"].copy(), data["scores"].copy()
    if forge == "garbage":
        path.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    elif forge == "nan":
        _rewrite(path, scores=np.full_like(scores, np.nan))
    elif forge == "beyond":
        _rewrite(path, ids=ids + 10_000)
    elif forge == "unsorted":
        _rewrite(path, ids=ids[::-1].copy())
    elif forge == "key":  # a fit of another state of the library: stale, refitted
        _rewrite(path, key=np.array("f1|v3|1|1|0|0|2020-01-01"), scores=-scores)
    else:
        _rewrite(path, extra=np.zeros(3))
    assert interest_listing(filled) == expected
    assert interest_listing(filled) == expected  # and rewritten whole


@pytest.fixture
def reader(db_url: str) -> Any:
    from readinglist import db

    engine = db.make_engine(db_url)
    yield lambda: db.session_scope(engine, write=False)
    engine.dispose()


def test_the_live_ranker_follows_the_decisions_and_writes_the_fit(
    filled: Callable[..., Any], db_url: str, reader: Any
) -> None:
    from readinglist import library
    from readinglist.ranking import fitted
    from readinglist.triage_rank import start

    assert filled("mark", "to-read", "rl0").exit_code == 0
    live = start(reader, db_url, None)  # a small library: waits for its first fit
    with reader() as session:
        queue = library.triage_queue(session, "", only_new=False)
        key_of = dict(library.select_ids_and_keys(session, ""))
    assert [key_of[p] for p in live.order(queue)] == [k for k, _ in fresh_listing(db_url)]
    assert live.learnt_from() == "learnt from 1 wanted, 0 skipped"
    rl1 = next(p for p, k in key_of.items() if k == "rl1")
    assert filled("mark", "skipped", "rl1").exit_code == 0  # saved first, as triage does
    live.decide(rl1, "skipped")
    assert live.fresh()
    assert not live.fresh()  # once per new fit
    assert [key_of[p] for p in live.order(queue)] == [k for k, _ in fresh_listing(db_url)]
    assert live.learnt_from() == "learnt from 1 wanted, 1 skipped"
    assert live.why(rl1) is not None
    with reader() as session:  # the next list reads this fit
        counter = fitted.change_counter(session)
    found = fitted.read(db_url, counter)
    assert found is not None
    assert found.learnt == "learnt from 1 wanted, 1 skipped"
    live.close()


@SQLITE_SUFFICES
def test_a_slow_fit_never_makes_a_decision_wait_and_says_so(
    filled: Callable[..., Any], db_url: str, reader: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readinglist import triage_rank
    from readinglist.ranking import store
    from readinglist.ranking.ranker import Ranker

    assert filled("mark", "to-read", "rl0").exit_code == 0
    gate = threading.Event()
    original = Ranker.of_index.__func__  # type: ignore[attr-defined]

    def slow(cls: Any, *args: Any, **kwargs: Any) -> Any:
        gate.wait(60)
        return original(cls, *args, **kwargs)

    with reader() as session:  # the index is there: the fit is what is slow, not a build
        store.load(session, db_url)
    monkeypatch.setattr(Ranker, "of_index", classmethod(slow))
    monkeypatch.setattr(triage_rank, "NOTICE_SECONDS", 0.0)
    live = triage_rank.LiveRanker(reader, db_url, None, current=False, patience=0.05)
    began = time.monotonic()
    live.decide(1, "skipped")
    assert time.monotonic() - began < 2  # the patience, not the fit
    assert live.order([3, 2, 1]) == [3, 2, 1]  # no scores yet: as given
    text = live.learnt_from()
    assert text.startswith("no order yet · re-ranking after 1 new decision (")
    assert text.endswith("s; the order catches up)")
    gate.set()
    assert live.wait(60)
    assert live.learnt_from() == "learnt from 1 wanted, 0 skipped"
    assert live.fresh()
    live.close()


@SQLITE_SUFFICES
def test_a_first_index_is_said_at_once_and_on_the_model_line_until_it_is_loaded(
    filled: Callable[..., Any], db_url: str, reader: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library without an index file (above ``SMALL_LIBRARY`` papers, lowered to 0
    here): ``start`` tells ``on_build`` before it waits, the thread's own notice of the
    same build is not told again, and the model line says the index is being built
    from the start (not after ``NOTICE_SECONDS``) until it is loaded."""
    from readinglist import triage_rank
    from readinglist.ranking import store

    assert filled("mark", "to-read", "rl0").exit_code == 0
    gate = threading.Event()
    original = store.build

    def slow(session: Any) -> Any:
        gate.wait(60)
        return original(session)

    monkeypatch.setattr(store, "build", slow)
    monkeypatch.setattr(triage_rank, "SMALL_LIBRARY", 0)
    monkeypatch.setattr(triage_rank, "NOTICE_SECONDS", 60.0)
    told: list[str] = []
    live = triage_rank.start(reader, db_url, None, on_build=told.append)
    notice = (
        "building the interest index of 12 papers (kept for later runs until papers are"
        " added or a text or tag changes)..."
    )
    assert told == [notice]
    assert live.learnt_from() == "no order yet · building the interest index (the order catches up)"
    gate.set()
    assert live.wait(60)
    assert live.learnt_from() == "learnt from 1 wanted, 0 skipped"
    assert told == [notice]
    live.close()


@SQLITE_SUFFICES
def test_the_index_is_built_on_one_thread_per_numerical_library(
    filled: Callable[..., Any], reader: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenBLAS and OpenMP run one thread each while the index is built (their default,
    one a core, cost seconds on a busy machine and took the triage terminal's core)."""
    from threadpoolctl import threadpool_info

    from readinglist.ranking import store

    seen: list[int] = []
    original = store.lsa

    def recording(matrix: Any, *args: Any) -> Any:
        seen.extend(pool["num_threads"] for pool in threadpool_info())
        return original(matrix, *args)

    monkeypatch.setattr(store, "lsa", recording)
    with reader() as session:
        index = store.build(session)
    assert len(index.ids) == 12
    assert seen
    assert set(seen) == {1}


@SQLITE_SUFFICES
def test_a_failed_fit_leaves_the_order_and_says_why(
    filled: Callable[..., Any], db_url: str, reader: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readinglist import triage_rank
    from readinglist.ranking import fitted
    from readinglist.ranking.ranker import Ranker

    assert filled("mark", "to-read", "rl0").exit_code == 0

    def broken(cls: Any, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(Ranker, "of_index", classmethod(broken))
    live = triage_rank.start(reader, db_url, None)
    assert live.wait(30)
    assert live.order([3, 1, 2]) == [3, 1, 2]
    assert live.learnt_from() == (
        "no order yet · the order is not updated: RuntimeError: the disk went away"
    )
    assert not fitted.fitted_path(db_url).exists()  # nothing half-written, nothing at all
    live.close()


@SQLITE_SUFFICES
def test_quitting_never_waits_for_a_fit_and_nothing_is_written_after(
    filled: Callable[..., Any], db_url: str, reader: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``close`` (triage quitting) returns at once while a fit runs; the thread is a
    daemon (it never keeps the command from exiting) and writes no file afterwards."""
    from readinglist import triage_rank
    from readinglist.ranking import fitted
    from readinglist.ranking.ranker import Ranker

    assert filled("mark", "to-read", "rl0").exit_code == 0
    gate = threading.Event()
    original = Ranker.of_index.__func__  # type: ignore[attr-defined]
    calls: list[int] = []

    def slow(cls: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) > 1:  # the fit, not the load
            gate.wait(60)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(Ranker, "of_index", classmethod(slow))
    live = triage_rank.LiveRanker(reader, db_url, None, current=False, patience=0.0)
    while len(calls) < 2:  # the fit has started
        time.sleep(0.01)
    began = time.monotonic()
    live.close()
    assert time.monotonic() - began < 2
    assert live._thread.daemon
    gate.set()
    live._thread.join(60)
    assert not live._thread.is_alive()
    assert not fitted.fitted_path(db_url).exists()


def test_the_live_ranker_fits_on_the_runs_reader_and_keeps_their_own_fit(
    filled: Callable[..., Any], db_url: str, reader: Any
) -> None:
    """The background fit runs as the run's reader (a ContextVar copied into its
    thread), not the implicit one, and writes that reader's own fitted file."""
    from readinglist import decided
    from readinglist.ranking import fitted
    from readinglist.triage_rank import start

    assert filled("--reader", "ana", "mark", "to-read", "rl0", "rl1").exit_code == 0
    assert filled("--reader", "ana", "mark", "skipped", "bio0").exit_code == 0
    assert filled("mark", "to-read", "bio1").exit_code == 0
    mine = fitted.fitted_path(db_url)
    with decided.acting_as("ana"):
        anas = fitted.fitted_path(db_url)
        live = start(reader, db_url, None)
        assert live.learnt_from() == "learnt from 2 wanted, 1 skipped"
        live.close()
    assert anas != mine
    assert anas.name.endswith(".interest-ana.npz")
    assert anas.exists()


def test_the_first_papers_of_a_limit_are_those_of_the_whole_order(
    filled: Callable[..., Any], db_url: str
) -> None:
    """``list --sort interest --limit N`` without a query reads only the best-scored
    papers (``fitted.first_papers``): the first N of the whole order, forward and
    reversed, on both databases, also when scores tie (every score equal)."""
    from sqlalchemy import text as sql

    from readinglist import db
    from readinglist.ranking import fitted

    def first(*args: str) -> list[str]:
        result = filled("list", "-k", "--sort", "interest", *args)
        assert result.exit_code == 0, result.stderr
        return result.stdout.split()

    assert filled("mark", "to-read", "rl0", "bio1").exit_code == 0
    assert filled("mark", "skipped", "bio0").exit_code == 0
    every = first()
    for limit in (1, 3, 11):
        assert first("--limit", str(limit)) == every[:limit]
        assert first("--limit", str(limit), "--reverse") == every[::-1][:limit]
    engine = db.make_engine(db_url)
    with db.connection_scope(engine) as connection:
        found = fitted.read(db_url, fitted.change_counter(connection))
        assert found is not None
        tied = fitted.Fitted(found.key, found.ids, np.zeros(len(found.ids)), found.learnt)
        order = "SELECT id FROM papers ORDER BY added_at, id"
        ids = [int(p) for p in connection.execute(sql(order)).scalars()]
        whole = tied.order(ids)
        assert fitted.first_papers(connection, tied, 5) == whole[:5]
        assert fitted.first_papers(connection, tied, 5, reverse=True) == whole[::-1][:5]
        assert fitted.first_papers(connection, found, len(ids)) is None  # all of them: no cut
        counter = fitted.change_counter(connection)
    assert fitted.write_order(db_url, tied)  # the interest order's file: ties as added
    for reverse in (False, True):
        ranked = fitted.read_first(db_url, counter, 5, reverse=reverse)
        assert ranked is not None
        assert ranked.ids == (whole[::-1] if reverse else whole)[:5]
        assert ranked.scores == [0.0] * 5
    assert fitted.read_first(db_url, counter, len(ids)) is None  # all of them: no cut
    engine.dispose()


def test_a_limited_interest_listing_reads_the_order_file_without_numpy(
    filled: Callable[..., Any], db_url: str
) -> None:
    """With the fit current, ``list --sort interest --limit N`` reads the first N of the
    interest order's file (``fitted.read_first``): the first N of the whole order, with
    their scores, importing neither numpy, the ORM nor the query parser; a damaged or forged order file
    (cut short, another key, ids not the library's, scores not finite) is not trusted:
    the listing is the same, from the fitted scores, and the file is written again."""
    from test_instant_commands import imported

    from readinglist.ranking import fitted

    assert filled("mark", "to-read", "rl0", "bio1").exit_code == 0
    assert filled("mark", "skipped", "bio0").exit_code == 0
    every = interest_listing(filled)  # fits: writes the scores and the order
    path = fitted.order_path(db_url)
    assert path.is_file()

    def limited(*args: str) -> list[tuple[str, float]]:
        result = filled("list", "--sort", "interest", "--json", *args)
        assert result.exit_code == 0, result.stderr
        return [(p["key"], p["interest"]) for p in json.loads(result.stdout)]

    assert limited("--limit", "4") == every[:4]
    assert limited("--limit", "4", "--reverse") == every[::-1][:4]
    modules = imported(db_url, "list", "--sort", "interest", "--limit", "4")
    assert not modules & {"numpy", "scipy", "sklearn", "sqlalchemy.orm", "readinglist.query"}
    good = path.read_bytes()
    header, _, body = good.partition(b"\n")
    count = json.loads(header)["count"]
    forged_ids = (10**9).to_bytes(8, "little") + body[8:]
    nan_scores = body[: 8 * count] + struct.pack("<d", float("nan")) + body[8 * count + 8 :]
    other_key = json.dumps({**json.loads(header), "key": "f1|other"}).encode()
    doubles = body[8 * count : 16 * count]
    rising = b"".join(doubles[i : i + 8] for i in range(len(doubles) - 8, -1, -8))
    for bad in (
        good[:-8],
        header + b"\n" + forged_ids,
        header + b"\n" + nan_scores,
        other_key + b"\n" + body,
        b"[1, 2]\n" + body,
        b"\xff" * 100,
        b"[" * 4000 + b"\n",  # json.loads: RecursionError
        header + b"\n" + body[: 8 * count] + rising,  # the same scores, lowest first
    ):
        path.write_bytes(bad)
        assert limited("--limit", "4") == every[:4]
        assert path.read_bytes() == good  # written again from the fitted scores


@SQLITE_SUFFICES
def test_views_of_a_shared_ranker_take_each_fit_once_and_fits_wait_for_a_pause(
    filled: Callable[..., Any], db_url: str, reader: Any
) -> None:
    """``serve``'s tabs share one LiveRanker: each tab's view re-orders once per fit
    (its own ``fresh``); with ``quiet``, a decision's fit starts only once decisions
    pause, so a decision is answered before any fit of it has ended."""
    from readinglist import triage_rank

    assert filled("mark", "to-read", "rl0").exit_code == 0
    live = triage_rank.LiveRanker(reader, db_url, None, current=True, patience=0.0, quiet=0.5)
    try:
        one, two = live.view(), live.view()
        assert live.wait(30)
        live.decide(1, "skipped")
        assert live.pending()
        assert not one.fresh()  # the fit waits for the pause: none has ended yet
        assert live.wait(60)
        assert not live.pending()
        assert (one.fresh(), two.fresh()) == (True, True)
        assert (one.fresh(), two.fresh()) == (False, False)
        assert one.index is not None
        one.close()  # a view leaves the shared ranker running
        assert live._thread.is_alive()
    finally:
        live.close()


def test_the_change_counter_is_one_statement_reading_no_table_whole(
    filled: Callable[..., Any], db_url: str
) -> None:
    """The counter is what a fit is checked against (``fitted.key``): the values of the
    aggregates asked one by one, in one statement, and on SQLite each last
    ``updated_at`` a look-up of its index (migration 0009), never a scan of the table."""
    from sqlalchemy import event, func, select

    from readinglist import db, decided
    from readinglist.ranking import fitted
    from readinglist.tables import DECISIONS, PAPER_TAGS, PAPERS

    assert filled("mark", "to-read", "rl0").exit_code == 0
    assert filled("tag", "add", "rl", "rl1").exit_code == 0
    engine = db.make_engine(db_url)
    statements: list[tuple[str, Any]] = []

    def seen(conn: Any, cursor: Any, statement: str, params: Any, *args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):  # not the read's BEGIN
            statements.append((statement, params))

    try:
        with engine.connect() as connection:
            event.listen(engine, "before_cursor_execute", seen)
            try:
                counter = fitted.change_counter(connection)
            finally:
                event.remove(engine, "before_cursor_execute", seen)
            papers = connection.execute(
                select(func.count(), func.max(PAPERS.c.id), func.max(PAPERS.c.updated_at))
            ).one()
            links = connection.execute(select(func.count(), func.sum(PAPER_TAGS.c.tag_id))).one()
            mine = connection.execute(
                select(func.count(), func.max(DECISIONS.c.updated_at)).where(
                    DECISIONS.c.reader_id == decided.CURRENT_ID
                )
            ).one()
            plan = (
                [
                    r[-1]
                    for r in connection.exec_driver_sql(
                        f"EXPLAIN QUERY PLAN {statements[0][0]}", statements[0][1]
                    )
                ]
                if engine.dialect.name == "sqlite"
                else []
            )
    finally:
        engine.dispose()
    assert len(statements) == 1, statements
    assert counter.shape == f"v{fitted.VERSION}|{papers[0]}|{papers[1]}|{links[0]}|{links[1]}"
    assert counter.updated == papers[2].isoformat()
    assert counter.decisions == f"default|1|{mine[1].isoformat()}"
    assert mine[0] == 1
    assert links[0] == 1
    if plan:
        assert "SEARCH papers USING COVERING INDEX ix_papers_updated_at" in plan, plan
        assert any(
            line.startswith("SEARCH decisions USING COVERING INDEX ix_decisions_reader_updated")
            for line in plan
        ), plan
        assert "SCAN papers" not in plan, plan  # the table itself, not one of its indexes


@SQLITE_SUFFICES
def test_a_triage_run_starts_from_the_interest_order_file(
    filled: Callable[..., Any], db_url: str, reader: Any
) -> None:
    """``triage_rank.start`` orders the first screen by the interest order's file
    (``fitted.read_order``: the standard library, no numpy) when it is there: the same
    order and scores as the fitted scores give, ties in the queue's order; without it,
    or with one of an earlier fit while the scores are current, by the scores."""
    from readinglist import library, triage_rank
    from readinglist.ranking import fitted

    assert filled("mark", "to-read", "rl0", "bio1").exit_code == 0
    interest_listing(filled)  # fits: the scores and the order
    with reader() as session:
        queue = library.triage_queue(session, "", only_new=True)
        counter = fitted.change_counter(session)
    found = fitted.read(db_url, counter)
    assert found is not None
    live = triage_rank.start(reader, db_url, None)
    try:
        assert isinstance(live._scores, fitted.Ranked)
        assert live.order(queue) == found.order(queue)
        assert live.order(queue[::-1]) == found.order(queue[::-1])
        assert live.interest(queue) == found.of_ids(queue)
        assert live.learnt_from() == found.learnt
    finally:
        live.close()
    tied = fitted.Fitted(found.key, found.ids, np.zeros(len(found.ids)), found.learnt)
    assert fitted.write_order(db_url, tied)
    ranked = fitted.read_order(db_url, counter)
    assert ranked is not None
    for pids in (queue, queue[::-1], [*queue[::2], 10**6]):  # 10**6: no score, last
        assert ranked.order(pids) == tied.order(pids)
    stale = fitted.Fitted("f1|an earlier fit", found.ids, found.scores, found.learnt)
    assert fitted.write_order(db_url, stale)
    live = triage_rank.start(reader, db_url, None)
    try:
        assert isinstance(live._scores, fitted.Fitted)  # the current scores, not that order
        assert live.order(queue) == found.order(queue)
    finally:
        live.close()
