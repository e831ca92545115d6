"""A library shared by readers: ``agreement``, ``list --conflicts``, what ``show`` and
``triage`` say of the others (``--blind``); on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import seed
from test_triage import FakeTerminal

from readinglist import decided as readers
from readinglist.library import agreement
from readinglist.records import PaperRecord, Person

KEYS = ("a1", "a2", "a3", "a4", "a5", "a6")
#: ana and bo on a1..a5 (both decided) and a6 (bo only).
ANA = {"a1": "to-read", "a2": "read", "a3": "skipped", "a4": "skipped", "a5": "to-read"}
BO = {"a1": "skipped", "a2": "reading", "a3": "skipped", "a4": "to-read", "a5": "to-read"}
BO_ONLY = {"a6": "read"}


@pytest.fixture(autouse=True)
def _default_reader() -> Iterator[None]:
    """Each test starts and ends as the implicit reader (the reader is per run)."""
    readers.use(None)
    yield
    readers.use(None)


def six(db_url: str) -> None:
    seed(
        db_url,
        *(
            PaperRecord(
                citekey=k, title=f"Paper {k}", authors=(Person("Doe", "Jane"),), year=2020 + i
            )
            for i, k in enumerate(KEYS)
        ),
    )


def decide(invoke: Any, reader: str, decisions: dict[str, str]) -> None:
    for key, status in decisions.items():
        result = invoke("--reader", reader, "mark", status, key)
        assert result.exit_code == 0, result.output


def two_readers(invoke: Any, db_url: str) -> None:
    six(db_url)
    decide(invoke, "ana", ANA)
    decide(invoke, "bo", {**BO, **BO_ONLY})


def cohen(first: list[str], second: list[str]) -> float:
    """Cohen's kappa written out (p_o - p_e) / (1 - p_e), to check the library's figure."""
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    ca, cb = Counter(first), Counter(second)
    chance = sum(ca[label] * cb[label] for label in set(ca) | set(cb)) / n / n
    return (observed - chance) / (1 - chance)


def want(status: str) -> str:
    return "skip" if status == "skipped" else "want"


def test_agreement_gives_kappa_and_both_tables(invoke, db_url) -> None:
    two_readers(invoke, db_url)
    result = invoke("agreement", "ana", "bo", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    keys = sorted(ANA)
    a, b = [ANA[k] for k in keys], [BO[k] for k in keys]
    assert data["readers"] == ["ana", "bo"]
    assert data["papers"] == 5  # a6: bo only
    assert data["agreed"] == 3  # a2 (want, want), a3 (skip, skip), a5 (want, want)
    assert data["observed"] == pytest.approx(0.6)
    assert data["kappa"] == pytest.approx(cohen([want(s) for s in a], [want(s) for s in b]))
    assert data["kappa"] == pytest.approx(1 / 6)
    assert data["kappa_undefined"] is None
    assert data["want"] == {"labels": ["want", "skip"], "table": [[2, 1], [1, 1]]}
    statuses = data["statuses"]
    assert statuses["labels"] == ["to-read", "reading", "read", "skipped"]
    assert statuses["table"] == [[1, 0, 0, 1], [0, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 1]]
    assert statuses["kappa"] == pytest.approx(cohen(a, b))
    # The other way round: the tables transposed, kappa the same.
    other = json.loads(invoke("agreement", "bo", "ana", "--json").stdout)
    assert other["want"]["table"] == [[2, 1], [1, 1]]
    assert other["statuses"]["table"][1] == [0, 0, 1, 0]  # bo reading x ana read
    human = invoke("agreement", "ana", "bo")
    assert human.exit_code == 0
    assert "ana and bo both decided 5 papers" in human.stdout
    assert "same answer (want or skip) on 3 of 5 (60.0%)" in human.stdout
    assert "Cohen's kappa (want vs skip): 0.167" in human.stdout
    assert "  ana \\ bo  want  skip\n  want         2     1\n  skip         1     1" in human.stdout


def test_agreement_says_when_kappa_is_undefined(invoke, db_url) -> None:
    six(db_url)
    decide(invoke, "ana", {"a1": "to-read", "a2": "skipped"})
    decide(invoke, "bo", {"a3": "to-read"})
    none = invoke("agreement", "ana", "bo", "--json")
    assert none.exit_code == 0
    assert "NaN" not in none.stdout
    data = json.loads(none.stdout)
    assert (data["papers"], data["kappa"], data["observed"]) == (0, None, None)
    assert data["kappa_undefined"] == "no paper was decided by both readers"
    assert (
        "undefined: no paper was decided by both readers" in invoke("agreement", "ana", "bo").stdout
    )
    # Both skip every paper both decided: chance agreement is 1.
    decide(invoke, "ana", {"a3": "skipped", "a4": "skipped"})
    decide(invoke, "bo", {"a3": "skipped", "a4": "skipped"})
    data = json.loads(invoke("agreement", "ana", "bo", "--json").stdout)
    assert (data["papers"], data["agreed"], data["kappa"]) == (2, 2, None)
    assert "'skip' for every paper" in data["kappa_undefined"]
    assert data["statuses"]["kappa"] is None
    # One reader all one answer, the other not: kappa is defined (0 here).
    decide(invoke, "bo", {"a1": "to-read", "a2": "skipped"})
    decide(invoke, "ana", {"a1": "skipped"})
    data = json.loads(invoke("agreement", "ana", "bo", "--json").stdout)
    assert data["papers"] == 4
    assert data["kappa"] == pytest.approx(0.0)


def test_agreement_names_unknown_and_equal_readers(invoke, db_url) -> None:
    two_readers(invoke, db_url)
    unknown = invoke("agreement", "ana", "zed")
    assert unknown.exit_code == 3
    assert "no reader 'zed' in this library (readers: ana, bo" in unknown.stderr
    same = invoke("agreement", "ana", "ANA")
    assert same.exit_code == 2
    assert "give two different readers" in same.stderr


def test_kappa_refuses_unequal_lengths() -> None:
    with pytest.raises(ValueError, match="same papers"):
        agreement.kappa(["want"], [], agreement.ANSWERS)


def test_list_conflicts_shows_both_decisions(invoke, db_url) -> None:
    two_readers(invoke, db_url)
    table = invoke("list", "--conflicts", "ana", "bo")
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert lines[0].split()[:4] == ["KEY", "ANA", "BO", "YEAR"]
    assert [line.split()[:3] for line in lines[1:]] == [
        ["a1", "to-read", "skipped"],
        ["a4", "skipped", "to-read"],
    ]
    assert table.stderr == "2 conflicts between ana and bo (of 5 papers both decided)\n"
    keys = invoke("list", "-k", "--conflicts", "ana", "bo", "year:2023..")
    assert (keys.stdout, keys.stderr) == (
        "a4\n",
        "2 conflicts between ana and bo (of 5 papers both decided); 1 shown\n",
    )
    data = json.loads(invoke("list", "--conflicts", "bo", "ana", "--json").stdout)
    assert [(p["key"], p["decisions"]) for p in data] == [
        ("a1", {"bo": "skipped", "ana": "to-read"}),
        ("a4", {"bo": "to-read", "ana": "skipped"}),
    ]
    limited = invoke("list", "--conflicts", "ana", "bo", "--limit", "1", "-k")
    assert limited.stdout == "a1\n"
    assert invoke("list", "--conflicts", "ana", "nobody").exit_code == 3


def test_show_says_how_many_other_readers_want_it(invoke, db_url) -> None:
    six(db_url)
    alone = invoke("show", "a1")
    assert alone.exit_code == 0
    assert "Readers:" not in alone.stdout  # a personal library: as before
    decide(invoke, "ana", ANA)
    decide(invoke, "bo", BO)
    decide(invoke, "cy", {"a5": "skipped"})
    shown = invoke("--reader", "ana", "show", "a5").stdout
    assert "Readers:     1 of 2 other readers want it" in shown  # bo to-read, cy skipped
    shown = invoke("--reader", "cy", "show", "a5").stdout
    assert "Readers:     2 of 2 other readers want it" in shown
    shown = invoke("--reader", "cy", "show", "a3").stdout
    assert "Readers:     0 of 2 other readers want it" in shown


def _triage(engine: Any, term: FakeTerminal, *, blind: bool) -> None:
    from readinglist import db, library
    from readinglist.triage_readers import ReadersTriage

    with db.session_scope(engine, write=False) as session:
        ids = library.triage_queue(session)
    run = ReadersTriage(
        lambda: db.session_scope(engine),
        ids,
        term,
        read_factory=lambda: db.session_scope(engine, write=False),
        blind=blind,
    )
    run.run()


def test_triage_header_counts_others_and_blind_hides_them_until_decided(engine) -> None:
    from readinglist import db, library

    records = [PaperRecord(citekey=k, title=f"Paper {k}", year=2020) for k in ("a1", "a4")]
    with db.session_scope(engine) as session:
        library.import_records(session, records, source="seed", fmt="test")
        ids = {p.citekey: p.id for p in library.all_papers(session)}
        for reader, status in (("bo", "to-read"), ("cy", "skipped")):
            readers.use(reader)
            library.set_status(session, library.load_papers(session, [ids["a1"]]), status)
    readers.use("ana")
    term = FakeTerminal("")  # the first card, then quit
    _triage(engine, term, blind=False)
    assert term.screens[0].splitlines()[1] == "1 of 2 other readers want it"
    term = FakeTerminal("tb")  # blind: decide a1 (to-read), back to it
    _triage(engine, term, blind=True)
    lines = [screen.splitlines()[1] for screen in term.screens]
    assert lines[0] == "others' decisions hidden until you decide (--blind)"
    assert "1 of 2 other readers want it" in lines[-1]  # a1 again, decided now
    assert "a1" in term.screens[-1]


def test_triage_header_of_a_personal_library_is_unchanged(engine) -> None:
    from readinglist import db, library

    with db.session_scope(engine) as session:
        library.import_records(
            session, [PaperRecord(citekey="a1", title="A")], source="s", fmt="test"
        )
    for blind in (False, True):
        term = FakeTerminal("")
        _triage(engine, term, blind=blind)
        assert term.screens[0].splitlines()[1] == ""  # the model line, empty as before
