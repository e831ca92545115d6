"""Issue 14: the interest order follows the decisions; --why, similar, topics, triage re-rank.

A synthetic library with two vocabularies (reinforcement learning, protein folding),
interleaved in order of addition. What reads, writes or orders the library (the order
added, the tags ``topics --tag`` writes, the counts ``mark`` reports, where the cache
goes, an import's batches, the texts' digests) runs on SQLite and PostgreSQL; the
ranker's maths, its cache file and its explanations (``helpers.SQLITE_SUFFICES``) on
SQLite, their inputs being read the same on both (test_databases_agree.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from helpers import SQLITE_SUFFICES

from readinglist.records import PaperRecord, Person

RL = ["reinforcement", "policy", "reward", "agent", "offline", "bandit", "exploration"]
BIO = ["protein", "folding", "molecule", "enzyme", "binding", "residue", "structure"]


def corpus() -> list[PaperRecord]:
    """Twelve papers: rl0, bio0, rl1, bio1, ... each using five words of its vocabulary."""
    records = []
    for i in range(6):
        for name, words in (("rl", RL), ("bio", BIO)):
            picked = [words[(i + j) % len(words)] for j in range(5)]
            records.append(
                PaperRecord(
                    citekey=f"{name}{i}",
                    title=f"{picked[0].title()} {picked[1]} study {i}",
                    abstract=" ".join(picked * 2) + " results show gains",
                    authors=(Person(family=f"{name.title()}author{i % 2}", given="A"),),
                    year=2026,
                )
            )
    return records


# Named with ``name=`` so that other modules (test_s8_hostile) import them without
# shadowing (pytest's own idiom; ruff F811 otherwise).
@pytest.fixture(name="cache_dir", autouse=True)
def cache_dir_fixture(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Ranking caches of PostgreSQL libraries go to a temporary directory, not the user's."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("READINGLIST_CACHE", str(folder))
    return folder


@pytest.fixture(name="filled")
def filled_fixture(invoke: Callable[..., Any], db_url: str) -> Callable[..., Any]:
    from readinglist import db, library

    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:
        library.import_records(session, corpus(), source="seed", fmt="test")
    engine.dispose()
    return invoke


def keys(result: Any) -> list[str]:
    assert result.exit_code == 0, result.stderr
    return result.stdout.split()


def test_without_decisions_interest_is_null_and_order_is_added(filled) -> None:
    result = filled("list", "--json")
    assert result.exit_code == 0, result.stderr
    assert {p["interest"] for p in json.loads(result.stdout)} == {None}
    assert json.loads(filled("show", "rl1", "--json").stdout)["interest"] is None
    added = keys(filled("list", "-k"))
    assert keys(filled("list", "-k", "--sort", "interest")) == added


@SQLITE_SUFFICES
def test_the_order_follows_the_decisions(filled) -> None:
    assert filled("mark", "to-read", "bio0").exit_code == 0
    assert filled("mark", "skipped", "rl0").exit_code == 0
    order = keys(filled("list", "-k", "--sort", "interest", "status:new"))
    assert all(k.startswith("bio") for k in order[:5]), order
    assert all(k.startswith("rl") for k in order[5:]), order
    # Change of mind: the other vocabulary comes first.
    assert filled("mark", "skipped", "bio0").exit_code == 0
    assert filled("mark", "read", "rl0").exit_code == 0
    order = keys(filled("list", "-k", "--sort", "interest", "status:new"))
    assert all(k.startswith("rl") for k in order[:5]), order
    papers = json.loads(filled("list", "--json", "status:new").stdout)
    scores = {p["key"]: p["interest"] for p in papers}
    assert min(v for k, v in scores.items() if k.startswith("rl")) > max(
        v for k, v in scores.items() if k.startswith("bio")
    )
    # show --json gives the same number (a fresh user saw null there).
    assert json.loads(filled("show", "rl3", "--json").stdout)["interest"] == scores["rl3"]


@SQLITE_SUFFICES
def test_why_names_the_terms(filled) -> None:
    result = filled("show", "bio2", "--why", "--json")
    assert json.loads(result.stdout)["interest"] is None
    assert filled("mark", "to-read", "bio0", "bio1").exit_code == 0
    assert filled("mark", "skipped", "rl0", "rl1").exit_code == 0
    result = filled("show", "bio2", "--why", "--json")
    assert result.exit_code == 0, result.stderr
    why = json.loads(result.stdout)
    raised = [t["term"] for t in why["raised"]]
    assert raised, why
    assert set(raised[0].split()) <= {*BIO, "study"}, raised
    assert not {w for t in raised for w in t.split()} & set(RL)
    lowered = json.loads(filled("show", "rl2", "--why", "--json").stdout)["lowered"]
    assert {w for t in lowered for w in t["term"].split()} & set(RL)
    text = filled("show", "bio2", "--why").stdout
    assert text.startswith("bio2: interest ")
    assert "raised by: " in text


@SQLITE_SUFFICES
def test_why_parts_add_up_to_the_score(filled, db_url: str) -> None:
    """A fresh user added up the terms of `--why` and did not get the score: the LSA half
    was left out. The printed parts (terms, other terms, topic similarity, the library's
    average) add up to the printed score, in text and JSON, and before rounding the
    parts of the model are the score itself. Positives alone: the profile, whose topic
    half is shown; with skips the classifier of the terms (no topic half, shown as 0)."""
    import re
    from decimal import Decimal

    import numpy as np

    from readinglist import db, library
    from readinglist.ranking.ranker import Ranker

    assert filled("mark", "to-read", "bio0", "bio1").exit_code == 0
    why = json.loads(filled("show", "bio2", "--why", "--json").stdout)
    assert why["topic_similarity"] != 0, why  # the profile's LSA half exists and is shown
    assert filled("mark", "skipped", "rl0", "rl1").exit_code == 0
    for key in ("bio2", "rl2", "bio0"):
        text = filled("show", key, "--why").stdout
        lines = text.splitlines()
        score = Decimal(re.match(rf"{key}: interest (-?[0-9.]+) \(from all your", lines[0])[1])
        parts = [Decimal(v) for v in re.findall(r"[+-][0-9]+\.[0-9]{3}", "\n".join(lines[1:]))]
        names = [line.split(":")[0].strip() for line in lines[1:]]
        assert names == [
            "raised by",
            "lowered by",
            names[2],
            "topic similarity",
            "minus the library's average",
        ], text
        assert re.fullmatch(r"\d+ other terms?", names[2]), text
        assert len(parts) >= 3, text
        assert sum(parts) == score, text
        why = json.loads(filled("show", key, "--why", "--json").stdout)
        total = sum(t["weight"] for t in why["raised"] + why["lowered"]) + why["other_terms"]
        total += why["topic_similarity"] + why["minus_library_average"]
        assert round(total, 4) == why["interest"], why
        assert why["topic_similarity"] == 0, why  # with skips: the classifier, terms alone
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        ranker = Ranker.open(session, db_url)
        pids = [p.id for p in library.all_papers(session)]
    engine.dispose()
    scores = ranker.scores()
    assert scores is not None
    for pid in pids:
        why = ranker.why(pid, n=2)
        assert why is not None
        parts = sum(t.weight for t in why.up + why.down) + why.other + why.offset + why.topic
        row = ranker.index.row[pid]
        assert np.isclose(parts, why.score, atol=1e-5)
        assert why.score == float(scores[row])


def test_similar_is_deterministic(filled) -> None:
    first = filled("similar", "rl3", "--limit", "4", "--json")
    assert first.exit_code == 0, first.stderr
    found = json.loads(first.stdout)
    assert [p["key"][:2] for p in found] == ["rl"] * 4
    assert all(p["similarity"] > 0 for p in found)
    assert filled("similar", "rl3", "--limit", "4", "--json").stdout == first.stdout


def test_topics_split_the_vocabularies_and_tag(filled) -> None:
    result = filled("topics", "--k", "2", "--json")
    assert result.exit_code == 0, result.stderr
    topics = json.loads(result.stdout)
    groups = sorted(sorted({k.rstrip("0123456789") for k in t["keys"]}) for t in topics)
    assert groups == [["bio"], ["rl"]]
    assert [t["count"] for t in topics] == [6, 6]
    assert filled("topics", "--k", "2", "--json").stdout == result.stdout
    assert filled("topics", "--k", "2", "--tag").exit_code == 0
    label = next(t["label"] for t in topics if t["keys"][0].startswith("rl"))
    assert sorted(keys(filled("list", "-k", f"tag:topic/{label}"))) == sorted(
        f"rl{i}" for i in range(6)
    )


def test_topics_tag_again_replaces_the_earlier_topic_tags(filled) -> None:
    """Fresh user: a second `topics --tag` with another --k left the first run's tags, so
    a label both runs produced named the union of two clusterings."""
    assert filled("topics", "--k", "1", "--tag").exit_code == 0
    (first,) = {t for t in tag_names(filled) if t.startswith("topic/")}
    again = filled("topics", "--k", "2", "--tag")
    assert again.exit_code == 0, again.stderr
    assert "replacing an earlier run's topic tags on 12 papers" in again.stderr
    topics = json.loads(filled("topics", "--k", "2", "--json").stdout)
    wanted = {f"topic/{t['label']}": sorted(t["keys"]) for t in topics}
    found = {t for t in tag_names(filled) if t.startswith("topic/")}
    assert found == set(wanted)
    assert first not in found
    for tag, members in wanted.items():
        assert sorted(keys(filled("list", "-k", f"tag:{tag}"))) == members


def test_mark_by_query_names_the_decisions_it_overrides(filled) -> None:
    assert filled("mark", "read", "rl1").exit_code == 0
    assert filled("mark", "to-read", "rl2").exit_code == 0
    result = filled("mark", "skipped", "-q", "key:rl*")
    assert result.exit_code == 0, result.stderr
    assert "marked 6 papers skipped (was: 1 read, 1 to-read)" in result.stderr


def tag_names(filled) -> list[str]:
    result = filled("tag", "list", "--json")
    assert result.exit_code == 0, result.stderr
    return [row["tag"] for row in json.loads(result.stdout)]


class Keys:
    """A scripted terminal (see tests/test_triage.py's FakeTerminal)."""

    def __init__(self, keys: str) -> None:
        self.keys = list(keys)
        self.screens: list[str] = []

    def width(self) -> int:
        return 100

    def height(self) -> int:
        return 50

    def show(self, text: str) -> None:
        self.screens.append(text)

    def getkey(self) -> str:
        if not self.keys:
            raise EOFError
        return self.keys.pop(0)

    def prompt(self, label: str, default: str = "") -> str | None:
        return None

    def launch(self, url: str) -> bool:
        return False


@SQLITE_SUFFICES
def test_triage_reranks_after_a_decision(filled, db_url: str) -> None:
    from readinglist import db, library, triage
    from readinglist.ranking.ranker import Ranker

    assert filled("mark", "to-read", "rl0").exit_code == 0
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        ids = library.triage_queue(session)
        ranker = Ranker.open(session, db_url)
        key_of = {p.id: p.citekey for p in library.all_papers(session)}
    ids = ranker.order(ids)
    assert key_of[ids[0]].startswith("rl")
    loop = triage.Triage(
        lambda: db.session_scope(engine),
        ids,
        Keys("s"),
        read_factory=lambda: db.session_scope(engine, write=False),
        ranker=ranker,
    )
    loop.run()
    # Skipping an rl paper when one rl paper is wanted: the rest stays rl-first but
    # the skipped paper's own words now count against; the order is the ranker's.
    rest = loop.queue[1:]
    assert rest == ranker.order(rest)
    engine.dispose()


@SQLITE_SUFFICES
def test_like_seeds_the_order(filled, db_url: str) -> None:
    from readinglist import db, library
    from readinglist.ranking.ranker import Ranker

    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        ids = library.triage_queue(session)
        key_of = {p.id: p.citekey for p in library.all_papers(session)}
        ranker = Ranker.open(session, db_url, like=" ".join(BIO))
    engine.dispose()
    order = [key_of[i] for i in ranker.order(ids)]
    assert all(k.startswith("bio") for k in order[:6]), order


@SQLITE_SUFFICES
def test_like_counts_after_decisions_on_other_papers(filled, db_url: str) -> None:
    """Fresh user: `triage --like TEXT` after decisions (on other papers) seemed ignored;
    the text was added to the decisions' model, where it hardly moved the order."""
    from readinglist import db, library
    from readinglist.ranking import LIKE_MODEL
    from readinglist.ranking.ranker import Ranker

    for key in ("rl0", "rl1"):
        assert filled("mark", "to-read", key).exit_code == 0
    assert filled("mark", "skipped", "bio0").exit_code == 0
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        ids = library.triage_queue(session)
        key_of = {p.id: p.citekey for p in library.all_papers(session)}
        plain = Ranker.open(session, db_url)
        liked = Ranker.open(session, db_url, like="protein folding enzyme binding")
    engine.dispose()
    assert [key_of[i][:2] for i in plain.order(ids)[:4]] == ["rl"] * 4
    top = [key_of[i] for i in liked.order(ids)[:4]]
    assert {k.rstrip("0123456789") for k in top} == {"rl", "bio"}, top  # both near the top
    best_bio = next(i for i in liked.order(ids) if key_of[i].startswith("bio"))
    why = liked.why(best_bio)
    assert why is not None
    assert why.model == LIKE_MODEL
    assert {t.term for t in why.up} & {"protein", "folding", "enzyme", "binding"}


def test_the_cache_goes_to_readinglist_cache(filled, db_url: str, cache_dir: Any) -> None:
    from readinglist.ranking.fitted import fitted_path
    from readinglist.ranking.store import cache_path

    assert filled("mark", "to-read", "rl0").exit_code == 0
    assert filled("list", "-k", "--sort", "interest").exit_code == 0
    path = cache_path(db_url)
    assert path.exists()
    assert fitted_path(db_url).parent == path.parent  # the fitted scores, beside it
    if db_url.startswith("sqlite:///"):
        assert path.name.endswith(".db.rank.npz") or path.name.endswith(".rank.npz")
        assert not cache_dir.exists()
    else:
        assert path.parent == cache_dir / "rank"
        assert sorted(p.name for p in (cache_dir / "rank").iterdir()) == [
            path.name.removesuffix(".npz") + ".history.npz",  # the selection record
            path.name.removesuffix(".npz") + ".interest.npz",
            path.name.removesuffix(".npz") + ".interest.order",  # the interest order
            path.name,
        ]


@SQLITE_SUFFICES
def test_a_tag_with_two_positives_gets_its_own_model(filled, db_url: str) -> None:
    """Three rl papers wanted and two bio papers wanted under tag "bio": the global model
    is rl-heavy, the bio tag's model lifts the bio papers to the top too."""
    from readinglist import db, library
    from readinglist.ranking.ranker import Ranker

    assert filled("mark", "to-read", "rl0", "rl1", "rl2", "bio0", "bio1").exit_code == 0
    assert filled("tag", "add", "bio", "bio0", "bio1").exit_code == 0
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        ranker = Ranker.open(session, db_url)
        ids = library.triage_queue(session)
        key_of = {p.id: p.citekey for p in library.all_papers(session)}
    engine.dispose()
    assert [name for name, _ in ranker.coefs()] == ["", "bio"]
    order = [key_of[i] for i in ranker.order(ids)]
    # the bio tag's model puts the other bio papers first, the global one the rl papers next
    assert order[:6] == ["bio2", "bio5", "bio3", "bio4", "rl3", "rl4"], order
    why = ranker.why(next(i for i in ids if key_of[i] == "bio2"))
    assert why is not None
    assert why.model == "bio"
    assert {t.term for t in why.up} & set(BIO)


@SQLITE_SUFFICES
def test_topic_labels_are_distinctive_words_not_filler_or_markup(invoke, db_url: str) -> None:
    """Words every paper shares ("based", "pre-trained", "self-supervised", "we") and LaTeX
    markup (``\\textbf``) never name a topic; each label is made of its own vocabulary."""
    from readinglist import db, library

    records = [
        PaperRecord(
            citekey=f"{name}{i}",
            title=f"{words[i % 7].title()} {words[(i + 1) % 7]} study {i}",
            abstract=(
                "We propose a method based on pre-trained self-supervised models. " * 3
                + f"\\textbf{{{words[i % 7]}}} \\textbf{{{words[(i + 1) % 7]}}} "
                + " ".join(words[(i + j) % 7] for j in range(2, 5))
            ),
            year=2026,
        )
        for i in range(6)
        for name, words in (("rl", RL), ("bio", BIO))
    ]
    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:
        library.import_records(session, records, source="seed", fmt="test")
    engine.dispose()
    result = invoke("topics", "--k", "2", "--json")
    assert result.exit_code == 0, result.stderr
    for topic in json.loads(result.stdout):
        vocabulary = RL if topic["keys"][0].startswith("rl") else BIO
        words = topic["label"].split("-")
        assert len(words) == 3
        assert set(words) <= set(vocabulary), topic["label"]


def test_judged_tags_leave_out_a_tag_an_import_gave_to_all_its_papers() -> None:
    """Batch 1 (papers 1-4) was imported with tag icml and holds undecided papers: icml
    says where they came from. Batch 2 (papers 5-6, both positive) was the user's own
    collection imported as "mine": kept. A tag on part of a batch (rl) is kept, so is
    any tag of a paper added without a batch (7)."""
    from readinglist.ranking.ranker import judged_tags

    tags = {
        1: ["icml", "rl"],
        2: ["ICML", "rl"],
        3: ["icml"],
        4: ["icml"],
        5: ["mine"],
        6: ["mine", "icml"],
        7: ["icml"],
    }
    batch = {1: 1, 2: 1, 3: 1, 4: 1, 5: 2, 6: 2}
    assert judged_tags(tags, batch, positive={1, 2, 5, 6}) == {
        1: ["rl"],
        2: ["rl"],
        5: ["mine"],
        6: ["mine", "icml"],
        7: ["icml"],
    }
    # every paper of batch 1 positive: icml is then the user's grouping too
    assert judged_tags(tags, batch, positive={1, 2, 3, 4, 5, 6}) == tags


def test_an_import_tag_gets_no_model_of_its_own(invoke, db_url: str) -> None:
    """`import --tag icml` of half the library, two of its papers wanted and one other:
    icml has two positives but was given to the whole import, so there is no icml model
    (its positives would only teach it the import); a tag the user gives gets one."""
    from readinglist import db, library
    from readinglist.ranking.ranker import Ranker

    papers = corpus()
    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:
        library.import_records(session, papers[:6], source="icml.bib", fmt="t", tags=["icml"])
        library.import_records(session, papers[6:], source="other.bib", fmt="t")
    assert invoke("mark", "to-read", "rl0", "bio0", "rl3").exit_code == 0

    def models() -> list[str]:
        with db.session_scope(engine, write=False) as session:
            return [name for name, _ in Ranker.open(session, db_url).coefs()]

    assert models() == [""]
    assert invoke("tag", "add", "picked", "rl0", "bio0").exit_code == 0
    assert models() == ["", "picked"]
    engine.dispose()


@SQLITE_SUFFICES
def test_scoring_from_the_cache_reads_no_terms_and_no_sklearn(filled, db_url: str) -> None:
    """``list --json`` scores from the cached index without its vocabulary (read on first
    use, from the file as loaded) and without importing scikit-learn (issue 17: about
    130 MB less at 100,000 papers); the scores are those of a freshly built index."""
    import subprocess
    import sys

    from readinglist import db
    from readinglist.ranking.ranker import Ranker
    from readinglist.ranking.store import build

    assert filled("mark", "to-read", "bio0", "bio1").exit_code == 0
    assert filled("list", "--json").exit_code == 0  # writes the cache
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        ranker = Ranker.open(session, db_url)
        ids = [int(i) for i in ranker.index.ids]
        scores = ranker.interest(ids)
        assert callable(ranker.index.terms)  # not read to score
        fresh = build(session)
        assert ranker.index.vocabulary == fresh.vocabulary
        assert not callable(ranker.index.terms)
        assert ranker.index.row == {pid: i for i, pid in enumerate(ids)}
        again = Ranker.open(session, db_url)
        again.index = fresh
        again._scores = again._coefs = None
        assert again.interest(ids) == scores
    engine.dispose()
    code = "import sys, readinglist.ranking.ranker; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_decision_keeps_the_cached_index_and_a_new_title_rebuilds_it(
    filled, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mark``, ``priority`` and a note change ``updated_at`` but no feature text: the
    cached index is checked by its texts' digests and kept (issue 17: after one ``mark``
    the next ``list --json`` of 100,000 papers rebuilt it, 68 s and 1.3 GB). A new title
    is a new text: rebuilt, once."""
    from readinglist.ranking import store

    assert filled("mark", "to-read", "bio0").exit_code == 0
    assert filled("list", "--json").exit_code == 0  # writes the cache
    built: list[int] = []
    real_build = store.build

    def counting_build(session: Any) -> Any:
        built.append(1)
        return real_build(session)

    monkeypatch.setattr(store, "build", counting_build)
    assert filled("mark", "read", "bio0", "rl1").exit_code == 0
    assert filled("priority", "high", "bio2").exit_code == 0
    assert filled("note", "add", "-m", "check the proofs", "rl2").exit_code == 0
    scored = json.loads(filled("list", "--json").stdout)
    assert built == []
    assert {p["key"] for p in scored if p["interest"] is not None} == {p["key"] for p in scored}
    assert filled("title", "rl3", "Completely different words here").exit_code == 0
    assert filled("list", "--json").exit_code == 0
    assert filled("list", "--json").exit_code == 0  # the rebuilt cache is current again
    assert built == [1]


@SQLITE_SUFFICES
def test_a_streamed_index_scores_as_the_index_in_memory(
    filled, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows read from the cache file a block at a time (``list --json``; issue 17:
    903 MiB for 500,000 papers with every row in memory) give the scores, the order and
    the rows of the index in memory; blocks of 3 rows here, so products and gathers cross
    block boundaries."""
    import numpy as np

    from readinglist import db
    from readinglist.ranking import stored
    from readinglist.ranking.ranker import Ranker

    monkeypatch.setattr(stored, "ROWS_PER_READ", 3)
    assert filled("mark", "to-read", "bio0", "bio1", "rl2").exit_code == 0
    assert filled("mark", "skipped", "rl0").exit_code == 0
    assert filled("tag", "add", "x", "bio0", "bio1").exit_code == 0
    assert filled("list", "--json").exit_code == 0  # writes the cache
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        whole = Ranker.open(session, db_url)
        streamed = Ranker.open(session, db_url, streamed=True)
        assert isinstance(streamed.index.matrix, stored.StoredCSR)
        assert isinstance(streamed.index.dense, stored.StoredDense)
        ids = [int(i) for i in whole.index.ids]
        assert np.allclose(streamed.scores(), whole.scores(), atol=1e-5)
        assert streamed.order(ids) == whole.order(ids)
        rows = np.array([5, 0, 5, 2, 9, 8], dtype=np.int64)
        assert (streamed.index.matrix[rows] != whole.index.matrix[rows]).nnz == 0
        assert np.array_equal(streamed.index.dense[rows], whole.index.dense[rows])
        assert np.array_equal(streamed.index.dense[4], whole.index.dense[4])
        assert (streamed.index.matrix[7] != whole.index.matrix[7]).nnz == 0
    engine.dispose()


def test_a_papers_tags_enter_its_text_by_name_in_every_read(invoke: Any, db_url: str) -> None:
    """The ranker's text of a paper lists its tags by name, whatever order they were made
    and linked in, in the read of the whole library and in the read of some papers (the
    two must agree: the selection record compares the papers' text digests)."""
    from helpers import helper_engine, seed

    from readinglist import db
    from readinglist.ranking import store

    seed(db_url, PaperRecord(title="Graph networks", citekey="g1"))
    seed(db_url, PaperRecord(title="Other", citekey="o1"))
    for tag in ("zeta", "alpha", "mid"):  # made (and linked) in reverse of name order
        assert invoke("tag", "add", tag, "g1").exit_code == 0
    with helper_engine(db_url) as engine, db.session_scope(engine) as session:
        ids, texts = store.documents(session)
        some_ids, some = store.documents(session, only=[ids[0]])
    assert texts[0].split()[-3:] == ["tag_alpha", "tag_mid", "tag_zeta"]
    assert some_ids == ids[:1]
    assert some == texts[:1]
