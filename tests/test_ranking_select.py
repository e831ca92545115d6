"""Per-reader selection between the two indexes' classifiers (``readinglist.ranking.select``,
benchmarks/TRIAGE_RANK.md sessions 16-19): the folds pick the better held-out AUC, the
prequential record breaks their ties and decides before 3 + 3 decisions, the committed
classifier otherwise; the record survives the process and a damaged one starts again
without an error (a file beside the index cache: SQLite, ``helpers.SQLITE_SUFFICES``;
where a PostgreSQL library's record goes is test_ranking.py's
``test_the_cache_goes_to_readinglist_cache``); papers removed since keep it, on both
databases (SQLite reuses the highest ids, PostgreSQL's sequences do not)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import SQLITE_SUFFICES
from hypothesis import given
from hypothesis import strategies as st
from scipy import sparse

from readinglist.ranking import select
from readinglist.ranking.ranker import Ranker
from readinglist.ranking.store import Index
from tests.test_ranking import cache_dir_fixture, filled_fixture  # noqa: F401 (fixtures)

#: Rows of the constructed libraries: 6 wanted, 6 skipped, the rest undecided.
ROWS = 60
WANTED = list(range(6))
SKIPPED = list(range(6, 12))


def _telling(seed: int) -> sparse.csr_matrix:
    """Rows whose first column marks the wanted papers and second the skipped ones (and
    half of the undecided each way), plus faint noise: a classifier orders them right."""
    rng = np.random.default_rng(seed)
    rows = np.zeros((ROWS, 6), dtype=np.float32)
    rows[WANTED, 0] = 1.0
    rows[SKIPPED, 1] = 1.0
    rows[12::2, 0] = 1.0
    rows[13::2, 1] = 1.0
    rows[:, 2:] = 0.01 * rng.random((ROWS, 4))
    return sparse.csr_matrix(rows)


def _noise(seed: int) -> sparse.csr_matrix:
    """Rows of random terms: nothing in them tells wanted from skipped."""
    rng = np.random.default_rng(seed)
    return sparse.csr_matrix(rng.random((ROWS, 12)).astype(np.float32))


def _index(committed: sparse.csr_matrix, second: sparse.csr_matrix) -> Index:
    """An index of ``committed`` rows with ``second`` as its second index (no LSA rows)."""

    def one(matrix: sparse.csr_matrix) -> Index:
        terms = [f"t{i}" for i in range(matrix.shape[1])]
        ids = np.arange(1, ROWS + 1, dtype=np.int64)
        return Index(ids, matrix, terms, np.ones(matrix.shape[1]))

    out = one(committed)
    out.second = one(second)
    return out


def _statuses(wanted: list[int], skipped: list[int]) -> list[str]:
    out = ["new"] * ROWS
    for row in wanted:
        out[row] = "to-read"
    for row in skipped:
        out[row] = "skipped"
    return out


def _ranker(index: Index, statuses: list[str], history: select.History | None) -> Ranker:
    return Ranker(index, statuses, [None] * ROWS, {}, history=history)


def _alone(index: Index, statuses: list[str]) -> np.ndarray:
    """The scores of the committed classifier alone (no second index)."""
    committed = Index(index.ids, index.matrix, index.terms, index.idf)
    scores = Ranker(committed, statuses, [None] * ROWS, {}).scores()
    assert scores is not None
    return scores


@pytest.mark.parametrize("telling", ["second", "committed"])
def test_the_folds_pick_the_candidate_with_the_higher_held_out_auc(telling: str) -> None:
    """Once 3 wanted and 3 skipped: the index whose terms tell the decisions apart ranks
    (its classifier's scores are the interest; ``show --why`` reads its terms)."""
    good, bad = _telling(1), _noise(2)
    index = _index(bad, good) if telling == "second" else _index(good, bad)
    statuses = _statuses(WANTED, SKIPPED)
    got = select.fold_scores(_both(index), *_labels(statuses))
    assert (got[1] > got[0]) == (telling == "second"), got
    ranker = _ranker(index, statuses, None)
    scores = ranker.scores()
    assert scores is not None
    assert ranker._choice[:2] == ((1, "folds") if telling == "second" else (0, "folds"))
    if telling == "committed":
        assert np.array_equal(scores, _alone(index, statuses))
        return
    assert not np.array_equal(scores, _alone(index, statuses))
    assert ranker.learnt_from() == "learnt from 6 wanted, 6 skipped on the stop-listed terms"
    why = ranker.why(13)  # an undecided paper of the wanted kind: its terms are the second's
    assert why is not None
    assert why.up[0].term == "t0"


def _both(index: Index) -> list[Index]:
    """The committed index and its second."""
    assert index.second is not None
    return [index, index.second]


def _labels(statuses: list[str]) -> tuple[np.ndarray, np.ndarray]:
    from readinglist.ranking import model

    return model.labels(statuses, [None] * len(statuses))


@pytest.mark.parametrize("favoured", [0, 1])
def test_a_tie_of_the_folds_is_broken_by_the_record(favoured: int) -> None:
    """Both candidates order every held-out decision right (a tie): the candidate whose
    past scores ordered more of the later decisions' pairs right ranks."""
    index = _index(_telling(1), _telling(3))
    statuses = _statuses(WANTED, SKIPPED)
    assert len(set(select.fold_scores(_both(index), *_labels(statuses)))) == 1
    history = select.History(good=np.array([1.0, 3.0][:: 1 if favoured else -1]), pairs=4.0)
    history.started = True
    ranker = _ranker(index, statuses, history)
    assert ranker.scores() is not None
    assert ranker._choice[:2] == (favoured, "history")
    none = _ranker(index, statuses, None)  # no record: the committed classifier
    assert none.scores() is not None
    assert none._choice[:2] == (0, "none")


def test_before_three_and_three_the_record_decides_else_the_committed_one() -> None:
    """2 wanted and 2 skipped: no folds. Without a record, the committed classifier's
    scores exactly; with one that scored a round for the second, the second's."""
    index = _index(_noise(2), _telling(1))
    statuses = _statuses(WANTED[:2], SKIPPED[:2])
    ranker = _ranker(index, statuses, select.History())  # a fresh record: nothing scored
    scores = ranker.scores()
    assert scores is not None
    assert np.array_equal(scores, _alone(index, statuses))
    assert ranker._choice[:2] == (0, "none")
    # the next two decisions, scored by the candidates' scores of the last re-rank
    ranker.decide(3, "to-read")
    ranker.decide(9, "skipped")
    assert ranker.scores() is not None
    history = ranker.history
    assert history is not None
    assert history.pairs == 1.0
    assert history.good[1] == 1.0  # the second's terms ordered the pair right
    if history.good[0] < 1.0:
        assert ranker._choice[:2] == (1, "history")


def test_record_scores_the_decisions_made_since_by_the_scores_of_then() -> None:
    """Undecided papers decided since the last re-rank are scored by each candidate's
    scores of then; a re-rank without a new decision leaves the record as it was."""
    index = _index(_noise(2), _telling(1))
    y = np.zeros(ROWS, dtype=np.int8)
    y[0] = 1
    then = [np.arange(ROWS, dtype=np.float32), -np.arange(ROWS, dtype=np.float32)]
    history = select.History()
    assert select.record(history, index, y, then)
    assert len(history.ids) == ROWS - 1
    assert history.scores.shape == (2, ROWS - 1)
    assert not select.record(history, index, y.copy(), [np.zeros(ROWS)] * 2)
    y[[20, 40]] = 1
    y[[10, 30]] = -1
    assert select.record(history, index, y, [np.zeros(ROWS)] * 2)
    # (20, 40) against (10, 30): the first candidate orders 3 of the 4 pairs right
    assert history.pairs == 4.0
    assert list(history.good) == [3.0, 1.0]
    assert select.prequential(history) == 0
    assert len(history.ids) == ROWS - 5


def test_a_round_of_one_kind_waits_for_the_other() -> None:
    """A triage run re-ranks after each decision: a round whose decisions are all wanted
    (or all skipped) keeps the scores of then until a decision of the other kind comes,
    and is scored with it, so decisions alternating one per re-rank count their pairs."""
    index = _index(_noise(2), _telling(1))
    y = np.zeros(ROWS, dtype=np.int8)
    then = [np.arange(ROWS, dtype=np.float32), -np.arange(ROWS, dtype=np.float32)]
    history = select.History()
    assert select.record(history, index, y, then)
    for row, label in ((20, 1), (10, -1), (40, 1), (30, -1)):
        y[row] = label
        select.record(history, index, y, then)
    # rounds (20 | 10) and (40 | 30), each scored by the scores of its start
    assert history.pairs == 2.0
    assert list(history.good) == [2.0, 0.0]
    assert not select.record(history, index, y, [np.ones(ROWS)] * 2)  # nothing since
    y[50] = 1
    assert not select.record(history, index, y, [np.ones(ROWS)] * 2)  # one kind: waits
    y[5] = -1
    assert select.record(history, index, y, [np.ones(ROWS)] * 2)
    assert history.pairs == 3.0  # (50, 5) by the scores kept after (40 | 30)
    assert list(history.good) == [3.0, 0.0]


def test_a_paper_whose_text_changed_since_is_not_scored_by_its_scores_of_then() -> None:
    """The record keeps each paper's text digest: a paper whose digest differs at the
    next re-rank (its id reused by SQLite after the paper was removed and another
    imported, or its text edited) is left out of the round; the others are scored."""
    index = _index(_noise(2), _telling(1))
    index.digests = np.arange(100, 100 + ROWS, dtype=np.uint64)
    y = np.zeros(ROWS, dtype=np.int8)
    then = [np.arange(ROWS, dtype=np.float32), -np.arange(ROWS, dtype=np.float32)]
    history = select.History()
    assert select.record(history, index, y, then)
    assert list(history.digests[:2]) == [100, 101]
    index.digests = index.digests.copy()
    index.digests[30] = 7  # row 30's paper id now names another paper
    y[[20, 40]] = 1
    y[[10, 30]] = -1
    assert select.record(history, index, y, [np.zeros(ROWS)] * 2)
    assert history.pairs == 2.0  # (20, 40) against 10 alone
    assert list(history.good) == [2.0, 0.0]


def _run(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``readinglist --db DB_URL ARGS`` in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "readinglist", "--db", db_url, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "160"},
        timeout=300,
        check=False,
    )


def _kept(db_url: str) -> dict[str, np.ndarray]:
    with np.load(select.history_path(db_url), allow_pickle=False) as data:
        return {name: np.array(data[name]) for name in data.files}


@SQLITE_SUFFICES
def test_the_record_survives_the_process_and_a_damaged_one_starts_again(
    filled: Callable[..., Any], db_url: str
) -> None:
    """A ``list --sort interest`` run keeps the reader's record beside the index cache;
    the next run, in another process, scores the decisions made in between with it. A
    damaged record is ignored (a fresh one written, no traceback)."""
    assert filled("mark", "to-read", "rl0").exit_code == 0
    assert filled("mark", "skipped", "bio0").exit_code == 0
    first = _run(db_url, "list", "-k", "--sort", "interest")
    assert first.returncode == 0, first.stderr
    kept = _kept(db_url)
    assert len(kept["ids"]) == 10
    assert float(kept["pairs"]) == 0.0
    assert filled("mark", "to-read", "rl1").exit_code == 0
    assert filled("mark", "skipped", "bio1").exit_code == 0
    second = _run(db_url, "list", "-k", "--sort", "interest")
    assert second.returncode == 0, second.stderr
    kept = _kept(db_url)
    assert float(kept["pairs"]) == 1.0  # (rl1, bio1), scored by the first run's scores
    assert list(kept["good"]) == [1.0, 1.0]  # both candidates put rl1 above bio1
    assert len(kept["ids"]) == 8
    path = select.history_path(db_url)
    path.write_bytes(b"not a record")
    assert filled("mark", "to-read", "rl2").exit_code == 0
    third = _run(db_url, "list", "-k", "--sort", "interest")
    assert third.returncode == 0, third.stderr
    assert "Traceback" not in third.stderr
    assert all(key.startswith("rl") for key in third.stdout.split()[:6]), third.stdout
    kept = _kept(db_url)  # started again: nothing scored
    assert float(kept["pairs"]) == 0.0
    assert len(kept["ids"]) == 7


@SQLITE_SUFFICES
@pytest.mark.parametrize(
    "forge", ["nan scores", "ids past the library", "more good than pairs", "member missing"]
)
def test_a_forged_record_is_ignored(filled: Callable[..., Any], db_url: str, forge: str) -> None:
    """A record that fails ``trust.check_history``/``check_history_layout`` reads as a
    fresh one."""
    from readinglist import db
    from readinglist.ranking import fitted

    assert filled("mark", "to-read", "rl0").exit_code == 0
    assert filled("mark", "skipped", "bio0").exit_code == 0
    assert filled("list", "-k", "--sort", "interest").exit_code == 0
    arrays = _kept(db_url)
    if forge == "nan scores":
        arrays["scores"] = np.full_like(arrays["scores"], np.nan)
    elif forge == "ids past the library":
        arrays["ids"] = arrays["ids"] + 1000
    elif forge == "more good than pairs":
        arrays["good"] = np.array([5.0, 0.0])
    else:
        del arrays["wins"]
    out = io.BytesIO()
    np.savez(out, **arrays)
    Path(select.history_path(db_url)).write_bytes(out.getvalue())
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        counter = fitted.change_counter(session)
    engine.dispose()
    assert not select.read_history(db_url, counter).started
    assert filled("mark", "to-read", "rl1").exit_code == 0
    result = filled("list", "-k", "--sort", "interest")
    assert result.exit_code == 0, result.stderr


@SQLITE_SUFFICES
def test_a_triage_run_continues_the_record_of_a_listing(
    filled: Callable[..., Any], db_url: str
) -> None:
    """The record a ``list --sort interest`` kept is the one a triage run's background
    fits continue (``triage_rank.LiveRanker``), for the same reader and library."""
    from readinglist import db, library
    from readinglist.triage_rank import start

    assert filled("mark", "to-read", "rl0").exit_code == 0
    assert filled("mark", "skipped", "bio0").exit_code == 0
    assert filled("list", "-k", "--sort", "interest").exit_code == 0
    assert float(_kept(db_url)["pairs"]) == 0.0
    engine = db.make_engine(db_url)
    live = start(lambda: db.session_scope(engine, write=False), db_url, None)
    try:
        with db.session_scope(engine, write=False) as session:
            key_of = {k: p for p, k in library.select_ids_and_keys(session, "")}
        assert filled("mark", "to-read", "rl1").exit_code == 0  # saved first, as triage does
        assert filled("mark", "skipped", "bio1").exit_code == 0
        live.decide(key_of["rl1"], "to-read")
        live.decide(key_of["bio1"], "skipped")
        assert live.fresh()
    finally:
        live.close()
        engine.dispose()
    kept = _kept(db_url)
    assert float(kept["pairs"]) == 1.0  # (rl1, bio1), scored by the listing's scores
    assert len(kept["ids"]) == 8


@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=40),
    st.lists(st.integers(-5, 5), min_size=1, max_size=40),
    st.sampled_from([np.float32, np.float64]),
)
def test_auc_is_the_share_of_pairs_ordered_right_ties_a_half(
    pos: list[int], neg: list[int], dtype: type
) -> None:
    """select.auc equals the pairwise count (the Mann-Whitney U over every pair), ties
    included, without forming the pairs."""
    p = np.asarray(pos, dtype=dtype) / 3
    n = np.asarray(neg, dtype=dtype) / 3
    diff = p[:, None] - n[None, :]
    expected = ((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size
    assert select.auc(p, n) == expected


def test_removing_the_last_import_keeps_the_record(filled: Callable[..., Any], db_url: str) -> None:
    """Papers removed since the last re-rank (the last import undone: the highest ids
    gone) drop the ids of the record's round, not the record: its pooled pairs stay."""
    from readinglist import db
    from readinglist.ranking import fitted

    assert filled("mark", "to-read", "rl0").exit_code == 0
    assert filled("mark", "skipped", "bio0").exit_code == 0
    assert filled("list", "-k", "--sort", "interest").exit_code == 0
    assert filled("mark", "to-read", "rl1").exit_code == 0
    assert filled("mark", "skipped", "bio1").exit_code == 0
    assert filled("list", "-k", "--sort", "interest").exit_code == 0
    before = _kept(db_url)
    assert float(before["pairs"]) == 1.0
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        counter = fitted.change_counter(session)
    engine.dispose()
    highest = int(counter.shape.split("|")[2])
    # Fewer papers now: the round's last id is past the highest, then the round is longer.
    for cut in (highest - 1, len(before["ids"]) - 1):
        shape = counter.shape.split("|")
        shape[2] = str(cut)
        got = select.read_history(db_url, fitted.Counter("|".join(shape), "", ""))
        assert got.pairs == 1.0
        assert list(got.good) == [1.0, 1.0]
        assert (got.ids <= cut).all()
        assert got.scores.shape == (2, len(got.ids))
    listed = filled("list", "-k")
    assert filled("rm", "--yes", *listed.output.split()[-3:]).exit_code == 0
    assert filled("mark", "to-read", "rl2").exit_code == 0
    assert filled("list", "-k", "--sort", "interest").exit_code == 0
    assert float(_kept(db_url)["pairs"]) >= 1.0


def test_two_threads_writing_the_record_never_show_a_half_written_one(tmp_path: Path) -> None:
    """A triage run's background fit and its ``w`` key (or two ``serve`` requests) can
    write the same record at once: each writes a temporary file of its own, so the one
    renamed first is whole while the other is still being written."""
    import threading

    from readinglist.ranking import fitted

    path = tmp_path / "library.db.history.npz"
    half_written, first_done = threading.Event(), threading.Event()
    got: list[bool] = []

    def slow(out: Any) -> None:  # writes half, then waits for the other write to end
        out.write(b"B" * 1000)
        out.flush()
        half_written.set()
        first_done.wait(10)
        out.write(b"B" * 1000)

    other = threading.Thread(target=lambda: got.append(fitted.replace_atomically(path, slow)))
    other.start()
    assert half_written.wait(10)
    assert fitted.replace_atomically(path, lambda out: out.write(b"A" * 2000))
    seen = path.read_bytes()
    first_done.set()
    other.join(10)
    assert seen == b"A" * 2000
    assert got == [True]
    assert path.read_bytes() == b"B" * 2000
    assert not list(tmp_path.glob("*.tmp"))
