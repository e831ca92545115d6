"""Triage for thousands (issue 14 item 4) with a scripted terminal, on SQLite and
PostgreSQL: the card fitted to a short terminal, the progress line over the whole inbox
after a resume, the overview (``v``), search (``/``), tag completion, ``w`` why, ``x`` the
whole abstract, and ``u`` undoing decisions of an earlier run from the status history."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from test_triage import FakeTerminal, four, run, state

from readinglist import triage
from readinglist.records import PaperRecord, Person

__all__ = ["four"]  # the fixture, shared with test_triage

LONG = " ".join(
    f"Sentence {i} of a long abstract about offline reinforcement learning." for i in range(12)
)
SPAR = PaperRecord(
    citekey="spar2026",
    title="SPAR: Support-Preserving Action Rectification for Offline Reinforcement Learning",
    venue="ICML",
    year=2026,
    authors=(
        Person("Zhang", "Wei"),
        Person("Berg", "Jan", von="van der"),
        Person("Smith", "Alice"),
        Person("Jones", "Bob"),
    ),
    doi="10.1/x",
    arxiv="2601.00001",
    url="https://example.org/spar",
    status="new",
    abstract=LONG,
)
PROGRESS = "4/19, 1 to read, 1 skipped, 1 read"


class FakeRanker:
    """Fixed scores; a skipped paper sinks to the bottom (enough to see re-ranking)."""

    def __init__(self, scores: dict[int, float]) -> None:
        self.scores = dict(scores)
        self.decided: list[tuple[int, str]] = []

    def decide(self, pid: int, status: str) -> None:
        self.decided.append((pid, status))

    def order(self, pids: Sequence[int]) -> list[int]:
        return sorted(pids, key=lambda p: -self.scores.get(p, 0.0))

    def interest(self, pids: Iterable[int]) -> dict[int, float | None]:
        return {p: self.scores.get(p) for p in pids}

    def why(self, pid: int) -> Any:
        from readinglist.ranking import Term, Why

        up = (Term("offline", 0.25), Term("policy", 0.125))
        return Why("rl", 0.9004, up, (Term("vision", -0.07),), 0.1, 40, -0.2, 0.6954)


def loop(engine: Any, ids: list[int], term: FakeTerminal, **options: Any) -> triage.Triage:
    from readinglist import db

    return triage.Triage(
        lambda: db.session_scope(engine),
        ids,
        term,
        read_factory=lambda: db.session_scope(engine, write=False),
        **options,
    )


def messages(term: FakeTerminal) -> list[str]:
    return [s.splitlines()[-2] for s in term.screens]


def titles(term: FakeTerminal) -> list[str]:
    names = ("Alpha", "Beta", "Gamma", "Delta")
    return [next((n for n in names if f"\n{n}" in s), "-") for s in term.screens]


# --- a short terminal ---------------------------------------------------------------------


def test_the_card_fits_a_short_terminal() -> None:
    def lines(height: int | None) -> list[str]:
        text = triage.card(SPAR, progress=PROGRESS, width=60, height=height, message="a: to-read")
        return text.splitlines()

    assert len(lines(None)) == 29
    assert lines(19) == [
        PROGRESS,
        "",
        "ICML · 2026",
        "SPAR: Support-Preserving Action Rectification for Offline",
        "Reinforcement Learning",
        "Zhang, Wei; van der Berg, Jan; Smith, Alice; Jones, Bob",
        "  https://example.org/spar",
        "  https://doi.org/10.1/x",
        "  https://arxiv.org/abs/2601.00001",
        "spar2026 | status new",
        "",
        "Sentence 0 of a long abstract about offline reinforcement",
        "learning. Sentence 1 of a long abstract about offline",
        "reinforcement learning. Sentence 2 of a long abstract about",
        "offline reinforcement learning. Sentence 3 of a long",
        "… 11 more lines: x shows the abstract",
        "",
        "a: to-read",
        "t s r d h m l a n e o u b v / w x q  ?:help",
    ]
    assert lines(12) == [
        PROGRESS,
        "ICML · 2026",
        "SPAR: Support-Preserving Action Rectification for Offline",
        "Reinforcement Learning",
        "Zhang, Wei; van der Berg, Jan; Smith, Alice; Jones, Bob",
        "https://example.org/spar (+2 more)",
        "spar2026 | status new",
        "Sentence 0 of a long abstract about offline reinforcement",
        "learning. Sentence 1 of a long abstract about offline",
        "… 13 more lines: x shows the abstract",
        "a: to-read",
        "t s r d h m l a n e o u b v / w x q  ?:help",
    ]
    # Not even the header fits: the progress line, the title, the message, the legend.
    assert lines(6) == [
        PROGRESS,
        "ICML · 2026",
        "SPAR: Support-Preserving Action Rectification for Offline",
        "Reinforcement Learning",
        "a: to-read",
        "t s r d h m l a n e o u b v / w x q  ?:help",
    ]


def test_long_lines_are_cut_so_that_a_line_is_a_row() -> None:
    """A URL, a tag or the legend wider than the terminal would wrap into two rows and
    push the progress line off; on a fitted card they are cut, the message wrapped."""
    record = PaperRecord(
        citekey="k",
        title="T",
        status="new",
        url="https://example.org/" + "x" * 80,
        tags=("a" * 70,),
        abstract="word " * 200,
    )
    message = "not done: tag 'bad{' is not usable: no commas, spaces, control characters"
    text = triage.card(
        record, progress="1/1, 0 to read, 0 skipped", width=40, height=12, message=message
    )
    assert text.splitlines() == [
        "1/1, 0 to read, 0 skipped",
        "T",
        "(no authors)",
        "https://example.org/xxxxxxxxxxxxxxxxxxx…",
        "k | status new | tags aaaaaaaaaaaaaaaaa…",
        "word word word word word word word word",
        "word word word word word word word word",
        "word word word word word word word word",
        "… 22 more lines: x shows the abstract",
        "not done: tag 'bad{' is not usable: no",
        "commas, spaces, control characters",
        "t s r d h m l a n e o u b v / w x q  ?…",
    ]


def test_help_wraps_on_words_at_60_columns() -> None:
    """``?`` on 60 columns: a description too long for the line goes on under its own
    column, cut between words (a fresh user saw "existin" / "g tags")."""
    from readinglist.triage_view import KEY_HELP, help_pages

    first, second = help_pages(19, 60)
    assert second.splitlines() == [
        "Keys (2/2):",
        "  /        search the inbox (a query or words); / then",
        "           Enter: next match",
        "  w        why: the terms that raised and lowered the",
        "           interest",
        "  x        the whole abstract, a page at a time",
        "  q        quit (decisions are saved as you go)",
        "  ?        this help",
        "",
        "press any key",
    ]
    lines = [line for page in (first, second) for line in page.splitlines()]
    assert max(map(len, lines)) == 59
    assert "  a        add tags (comma-separated; Tab completes" in lines
    assert "           existing tags)" in lines
    rows: list[str] = []  # continuation lines joined back: every description whole
    for line in lines:
        if line.startswith(" " * 11):
            rows[-1] += " " + line.strip()
        elif line.startswith("  "):
            rows.append(line)
    assert rows == [f"  {key:<8} {text}" for key, text in KEY_HELP]
    # wide enough: one line a key, as before
    assert len(help_pages(None, 100)[0].splitlines()) == len(KEY_HELP) + 3


def test_a_20_row_terminal_keeps_title_and_progress(engine: Any) -> None:
    """The screens of the loop on 20 rows: 19 lines (the cursor line scrolls nothing
    off), the card cut as above; ``x`` pages through the whole abstract; ``?`` too."""
    from readinglist import db, library

    with db.session_scope(engine) as session:
        library.import_records(session, [SPAR], source="seed", fmt="test")
    with db.session_scope(engine, write=False) as session:
        ids = library.triage_queue(session)
    term = FakeTerminal("xj?jjq")
    term.rows, term.cols = 20, 60
    loop(engine, ids, term).run()
    card, page, card_2, help_1, help_2, card_3 = term.screens
    with db.session_scope(engine, write=False) as session:
        stored = library.to_record(library.resolve(session, "spar2026"))
    progress = "1/1, 0 to read, 0 skipped"
    assert card == triage.card(stored, progress=progress, width=60, height=19)
    lines = card.splitlines()
    assert len(lines) == 19
    assert lines[:5] == [
        progress,
        "",
        "ICML · 2026",
        "SPAR: Support-Preserving Action Rectification for Offline",
        "Reinforcement Learning",
    ]
    assert lines[-5:] == [
        "abstract about offline reinforcement learning. Sentence 4 of",
        "… 10 more lines: x shows the abstract",
        "",
        "",
        "t s r d h m l a n e o u b v / w x q  ?:help",
    ]
    assert page.splitlines()[:3] == [
        "SPAR: Support-Preserving Action Rectification for Offline R…",
        "",
        "Sentence 0 of a long abstract about offline reinforcement",
    ]
    assert page.splitlines()[-2:] == [
        "reinforcement learning.",
        "page 1/1: any key goes on, q back to the card",
    ]
    assert [p.splitlines()[0] for p in (help_1, help_2)] == ["Keys (1/2):", "Keys (2/2):"]
    assert [len(p.splitlines()) for p in (page, help_1, help_2)] == [18, 19, 10]
    assert help_2 == triage.help_pages(19, 60)[1]
    assert card_2 == card_3 == card

    term = FakeTerminal("xjjjq")  # 9 rows: the abstract in three pages
    term.rows, term.cols = 9, 60
    loop(engine, ids, term).run()
    pages = term.screens[1:4]
    assert term.screens[4].startswith("1/1, 0 to read")
    assert [p.splitlines()[-1] for p in pages] == [
        f"page {n}/3: any key goes on, q back to the card" for n in (1, 2, 3)
    ]
    assert [len(p.splitlines()) for p in pages] == [8, 8, 8]
    assert pages[1].splitlines()[2:4] == [
        "a long abstract about offline reinforcement learning.",
        "Sentence 5 of a long abstract about offline reinforcement",
    ]


# --- the whole inbox after a resume ---------------------------------------------------------


def test_progress_counts_the_whole_inbox_after_a_resume(engine: Any, four: list[int]) -> None:
    from readinglist import db, library, triage_inbox

    run(engine, four, FakeTerminal("tjsq"))
    with db.session_scope(engine, write=False) as session:
        queue = library.triage_queue(session)
        earlier = triage_inbox.inbox_decided(session, queue)
        outside = triage_inbox.inbox_decided(session, queue, scope={four[3]})
    assert queue == [four[1], four[3]]
    assert earlier == {four[0]: "to-read", four[2]: "skipped"}
    assert outside == {}
    term = FakeTerminal("rj")
    summary = loop(engine, queue, term, earlier=earlier).run()
    assert term.progress() == [
        "3/4, 1 to read, 1 skipped",
        "4/4, 1 to read, 1 skipped, 1 reading",
        "End of the list: 4/4, 1 to read, 1 skipped, 1 reading.",
    ]
    assert summary.describe() == (
        "triaged 1 paper in this run (1 reading); inbox: 3 of 4 decided, 1 still new: "
        "run `readinglist triage` again to go on"
    )


# --- overview, search, tags, why ------------------------------------------------------------


def test_overview_lists_the_next_titles_and_goes_to_one(engine: Any, four: list[int]) -> None:
    """``v`` takes single keys, as the rest of triage: a number goes to that paper at
    once when no longer number is in the list (no Enter needed); q or Enter go back."""
    from readinglist.triage_overview import OVERVIEW_KEYS

    a, b, c, d = four
    ranker = FakeRanker({a: 0.9, b: 0.5, c: 0.7, d: 0.1})
    term = FakeTerminal(["v", "3", "s", "v", "q", "v", "\r", "v", "9", "q"])
    loop(engine, [a, c, b, d], term, ranker=ranker).run()
    assert term.screens[1] == (
        "1/4, 0 to read, 0 skipped\n"
        "Next papers, highest interest first:\n"
        ">   1  0.900  Alpha\n"
        "    2  0.700  Gamma\n"
        "    3  0.500  Beta guess (provisional)\n"
        "    4  0.100  Delta\n" + OVERVIEW_KEYS
    )
    assert term.prompts == []  # no line prompt: no Enter
    # 3 goes to Beta (the others keep their order); skipping it re-ranks the rest
    assert titles(term)[2:4] == ["Beta", "Alpha"]
    assert ranker.decided == [(b, "skipped")]
    assert titles(term)[4:] == ["-", "Alpha", "-", "Alpha", "-", "Alpha"]
    assert messages(term)[-1] == "no paper numbered '9' in the list"
    # a 7-row terminal: two titles a page, + the next page, numbers count from the current
    term.rows = 7
    rest = loop(engine, [a, c, d], term)
    term.screens, term.keys = [], list("v+3q")
    rest.run()
    assert term.screens[1:3] == [
        "1/3, 0 to read, 0 skipped\nNext papers, in order:\n>   1      -  Alpha\n"
        "    2      -  Gamma\n" + OVERVIEW_KEYS,
        "1/3, 0 to read, 0 skipped\nNext papers, in order:\n    3      -  Delta\n" + OVERVIEW_KEYS,
    ]
    assert titles(term)[3] == "Delta"
    assert all(len(screen.splitlines()) <= term.rows - 1 for screen in term.screens)


def test_overview_numbers_of_two_digits_wait_for_the_second() -> None:
    """Of twelve papers ``1`` may start 10-12: it waits for a digit (``1 2``: the 12th),
    Enter or any other key (the 1st); Backspace takes a digit back, then q goes back."""
    from readinglist.triage_overview import choose

    rest = list(range(101, 113))

    def chosen(keys: list[str]) -> tuple[int | None, str]:
        term = FakeTerminal(keys)
        found = choose(term, rest, lambda page: [(str(p), None) for p in page], "1/12")
        assert not term.keys  # every key read, none more
        return found

    assert chosen(["1", "2"]) == (112, "")
    assert chosen(["1", "\r"]) == (101, "")
    assert chosen(["1", "x"]) == (101, "")
    assert chosen(["2"]) == (102, "")  # 20 and more are not in the list: at once
    assert chosen(["1", "\x7f", "q"]) == (None, "")
    assert chosen(["1", "3"]) == (None, "no paper numbered '13' in the list")
    assert chosen(["0", "\r"]) == (None, "no paper numbered '0' in the list")


def test_q_goes_back_from_the_overview(engine: Any, four: list[int]) -> None:
    """``q`` in the overview is "back", as on every other screen (a fresh user's
    script was stuck at "no paper numbered 'q' in the list")."""
    term = FakeTerminal("vqq")
    loop(engine, four, term).run()
    assert term.prompts == []
    assert not [m for m in messages(term) if "no paper numbered" in m]
    assert titles(term) == ["Alpha", "-", "Alpha"]


def test_search_goes_to_the_next_match_in_the_inbox(engine: Any, four: list[int]) -> None:
    answers = ["Gamma", "title:Beta OR title:Delta", None, None, "alpha: x", '"beta', '"', "zeta"]
    term = FakeTerminal("////////q", answers)
    loop(engine, four, term).run()
    assert titles(term) == [
        "Alpha",
        "Gamma",
        "Beta",
        "Delta",
        "Beta",
        "Beta",
        "Beta",
        "Beta",
        "Beta",
    ]
    assert messages(term)[1:] == [
        "1 in the inbox match 'Gamma'; / then Enter: the next",
        "2 in the inbox match 'title:Beta OR title:Delta'; / then Enter: the next",
        "2 in the inbox match 'title:Beta OR title:Delta'; / then Enter: the next",
        "2 in the inbox match 'title:Beta OR title:Delta'; / then Enter: the next",
        "no paper of the inbox matches 'alpha: x'",
        "1 in the inbox match '\"beta'; / then Enter: the next",
        "not done: invalid query '\"': a quote '\"' is not closed",
        "no paper of the inbox matches 'zeta'",
    ]


def test_a_search_that_is_not_a_query_is_searched_as_words(engine: Any, four: list[int]) -> None:
    from readinglist import db, triage_inbox

    with db.session_scope(engine, write=False) as session:
        assert triage_inbox.matching(session, "gamma: the") == set()
        assert triage_inbox.matching(session, "Gamma:") == {four[2]}
        assert triage_inbox.matching(session, "beta: guess") == {four[1]}


def test_tags_prompt_completes_from_the_library_tags(engine: Any, four: list[int]) -> None:
    from readinglist import db, library
    from readinglist.cli.triage import _completing, complete_word

    with db.session_scope(engine) as session:
        library.add_tags(session, library.resolve_many(session, ["c2026", "d2026"]), ["rl"])
        library.add_tags(session, library.resolve_many(session, ["d2026"]), ["ml/x", "Robotics"])
    term = FakeTerminal("aq", ["rl"])
    loop(engine, four, term).run()
    names = ["rl", "ml/x", "Robotics"]  # the most used first
    assert term.completions == [names]
    assert complete_word("r", names) == ["rl", "Robotics"]
    assert complete_word("ML/", names) == ["ml/x"]
    assert complete_word("", names) == names
    import readline

    with _completing(names):
        completer = readline.get_completer()
        assert completer is not None
        assert [completer("r", n) for n in range(3)] == ["rl", "Robotics", None]
        assert "/" not in readline.get_completer_delims()
    assert readline.get_completer() is not completer


def test_why_shows_the_terms_behind_the_score(engine: Any, four: list[int]) -> None:
    a = four[0]
    term = FakeTerminal("wq")
    loop(engine, four, term, ranker=FakeRanker({a: 0.9})).run()
    assert term.screens[1] == (
        "a2026: interest 0.900 (from the model of tag rl), the sum of:\n"
        "  raised by: offline (+0.250), policy (+0.125)\n"
        "  lowered by: vision (-0.070)\n"
        "  40 other terms: +0.100\n"
        "  topic similarity: +0.695\n"
        "  minus the library's average: -0.200\n"
        "\n"
        "press any key"
    )
    term = FakeTerminal("wq")
    loop(engine, four, term).run()
    assert messages(term)[1] == (
        "no interest order in this run (--order added, or nothing decided)"
    )


# --- undo after quitting ----------------------------------------------------------------------


def test_undo_after_quit_walks_back_the_status_history(engine: Any, four: list[int]) -> None:
    """An earlier run set a2026 to-read and skipped b2026; then c2026 was read and moved
    to to-read. A new run's ``u`` undoes the newest (c2026 back to read on its first
    date); a third run's ``u`` goes on down the same stack (c2026's read, b2026's skip,
    a2026's to-read), each paper shown again with its old status, then says there is
    nothing left; an undone change is never re-applied."""
    from datetime import UTC, datetime

    from readinglist import db, library, triage_inbox

    d = four[3]
    run(engine, four, FakeTerminal("tsq"))
    first_read = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
    with db.session_scope(engine) as session:
        library.set_status(session, library.resolve_many(session, ["c2026"]), "read", at=first_read)
    with db.session_scope(engine) as session:
        library.set_status(session, library.resolve_many(session, ["c2026"]), "to-read")

    def inbox() -> tuple[list[int], dict[int, str]]:
        with db.session_scope(engine, write=False) as session:
            queue = library.triage_queue(session)
            return queue, triage_inbox.inbox_decided(session, queue)

    queue, earlier = inbox()
    assert queue == [d]
    term = FakeTerminal("uq")
    loop(engine, queue, term, earlier=earlier).run()
    assert titles(term) == ["Delta", "Gamma"]
    assert term.progress() == ["4/4, 2 to read, 1 skipped", "3/4, 1 to read, 1 skipped, 1 read"]
    assert messages(term)[1:] == ["undone: c2026 to-read (decided before this run)"]
    with db.session_scope(engine, write=False) as session:
        read_at = library.resolve(session, "c2026").read_at
    assert read_at is not None
    assert read_at.replace(tzinfo=UTC) == first_read

    queue, earlier = inbox()
    term = FakeTerminal("uuuuq")
    loop(engine, queue, term, earlier=earlier).run()
    assert titles(term) == ["Delta", "Gamma", "Beta", "Alpha", "Alpha"]
    assert messages(term)[1:] == [
        "undone: c2026 read (decided before this run)",
        "undone: b2026 skipped (decided before this run)",
        "undone: a2026 to-read (decided before this run)",
        "nothing to undo",
    ]
    after = state(engine)
    assert {k: v["status"] for k, v in after.items()} == dict.fromkeys(after, "new")
    assert after["c2026"]["history"] == [
        ("new", "read"),
        ("read", "to-read"),
        ("to-read", "read"),
        ("read", "new"),
    ]
    assert after["a2026"]["history"] == [("new", "to-read"), ("to-read", "new")]


def test_undo_after_quit_never_reapplies_an_undone_decision(engine: Any, four: list[int]) -> None:
    """``t``, ``s``, ``u``, quit; a second run's ``u`` undoes a2026's to-read (the last
    decision not undone), not b2026's undone skip; a third run has nothing to undo."""
    from readinglist import db, library, triage_inbox

    term = FakeTerminal("tsuq")
    run(engine, four, term)
    assert messages(term)[-1] == "undone: b2026 skipped"
    assert [v["status"] for v in state(engine).values()] == ["to-read", "new", "new", "new"]
    for keys, expected, statuses in [
        ("uq", "undone: a2026 to-read (decided before this run)", ["new"] * 4),
        ("uq", "nothing to undo", ["new"] * 4),
    ]:
        with db.session_scope(engine, write=False) as session:
            queue = library.triage_queue(session)
            earlier = triage_inbox.inbox_decided(session, queue)
        term = FakeTerminal(keys)
        loop(engine, queue, term, earlier=earlier).run()
        assert messages(term)[-1] == expected
        assert [v["status"] for v in state(engine).values()] == statuses
    assert state(engine)["b2026"]["history"] == [("new", "skipped"), ("skipped", "new")]


def test_undo_leaves_a_status_another_process_set_meanwhile(engine: Any, four: list[int]) -> None:
    """Compare-and-set on the status history: this run skipped b2026, then another
    process marked it reading; ``u`` says so and leaves it reading, and goes on with
    the next decision (a2026's to-read) on the next ``u``."""
    from readinglist import db, library

    run_ = loop(engine, four, FakeTerminal("ts"))
    run_.run()
    with db.session_scope(engine) as session:  # another terminal marks b2026 reading
        library.set_status(session, library.resolve_many(session, ["b2026"]), "reading")
    record = run_.current_record()
    assert record is not None
    run_.press("u", record)
    assert run_.message == (
        "not undone: b2026 was changed meanwhile (now reading), not by this undo; left as it is"
    )
    assert state(engine)["b2026"]["status"] == "reading"
    run_.press("u", record)
    assert run_.message == "undone: a2026 to-read"
    assert {k: v["status"] for k, v in state(engine).items()} == {
        "a2026": "new",
        "b2026": "reading",
        "c2026": "new",
        "d2026": "new",
    }
    run_.press("u", record)  # the other process's change is the newest decision now
    assert run_.message == "undone: b2026 reading (decided before this run)"
    assert state(engine)["b2026"]["status"] == "skipped"


def test_undo_after_quit_stays_in_the_selection_and_after_this_run(
    engine: Any, four: list[int]
) -> None:
    """``u`` undoes this run's decisions first; earlier ones only of papers in
    ``scope`` (the query's selection); a paper changed meanwhile is not undone."""
    a, b, c, d = four
    run(engine, four, FakeTerminal("tq"))
    term = FakeTerminal("juuuq")
    loop(engine, [b, c, d], term, scope={b, c, d}).run()
    assert messages(term)[2:] == ["nothing to undo", "nothing to undo", "nothing to undo"]
    term = FakeTerminal("sjuuuq")
    loop(engine, [b, c, d], term, scope={a, b}).run()
    assert messages(term)[3:] == [
        "undone: b2026 skipped",
        "undone: a2026 to-read (decided before this run)",
        "nothing to undo",
    ]
    assert [v["status"] for v in state(engine).values()] == ["new"] * 4


def test_undo_after_quit_leaves_a_paper_changed_meanwhile(
    engine: Any, four: list[int], monkeypatch: Any
) -> None:
    """A decision another command overrode is no longer in force: the stack's top is
    that command's change; one overridden between finding it and undoing it is
    refused with a message (compare-and-set)."""
    from readinglist import db, library, triage_inbox

    a, b, c, d = four
    run(engine, four, FakeTerminal("tq"))
    loop_ = loop(engine, [b, c, d], FakeTerminal(""))
    loop_.run()
    with db.session_scope(engine, write=False) as session:
        found = triage_inbox.last_decision(session)
    assert found is not None
    assert found[1:] == (a, "a2026", "to-read")
    with db.session_scope(engine) as session:  # another terminal marks a2026 read
        library.set_status(session, library.resolve_many(session, ["a2026"]), "read")
    with db.session_scope(engine, write=False) as session:
        newer = triage_inbox.last_decision(session)
    assert newer is not None  # the other terminal's change is on top of the stack now
    assert newer[0] > found[0]
    assert newer[1:] == (a, "a2026", "read")
    record = loop_.current_record()
    assert record is not None
    monkeypatch.setattr(triage_inbox, "last_decision", lambda *args, **kw: found)
    loop_.press("u", record)
    assert loop_.message == (
        "not undone: a2026 was changed meanwhile (now read), not by this undo; left as it is"
    )
    assert state(engine)["a2026"]["status"] == "read"


def test_with_nothing_new_u_still_undoes_the_last_decision(engine: Any, four: list[int]) -> None:
    """Every paper decided, then quit: the next run opens on the end screen of that
    inbox, where ``u`` brings the last paper back; with nothing to undo, no inbox."""
    from readinglist import db, triage_inbox

    with db.session_scope(engine, write=False) as session:
        assert triage_inbox.undoable_inbox(session) == {}
    run(engine, four, FakeTerminal("tsrdq"))
    with db.session_scope(engine, write=False) as session:
        earlier = triage_inbox.undoable_inbox(session)
        assert triage_inbox.undoable_inbox(session, scope={four[0]}) == {four[0]: "to-read"}
    assert earlier == dict(zip(four, ["to-read", "skipped", "reading", "read"], strict=True))
    term = FakeTerminal("uq")
    loop(engine, [], term, earlier=earlier).run()
    assert term.progress() == [
        "End of the list: 4/4, 1 to read, 1 skipped, 1 reading, 1 read.",
        "4/4, 1 to read, 1 skipped, 1 reading",
    ]
    assert titles(term)[1] == "Delta"
    assert messages(term)[1] == "undone: d2026 read (decided before this run)"
    assert state(engine)["d2026"]["status"] == "new"


def test_why_names_tag_and_author_features_as_a_reader_would() -> None:
    """A fresh user saw ``tag_icml`` in `--why`: feature tokens are shown as tag:/author:."""
    from readinglist.triage_view import term_label

    assert term_label("tag_icml") == "tag:icml"
    assert term_label("icml tag_icml") == "icml tag:icml"
    assert term_label("author_smith_j") == "author:smith_j"
    assert term_label("offline reinforcement") == "offline reinforcement"


def test_the_header_shows_interest_what_it_learnt_and_skips_since_the_last_wanted(
    engine: Any, four: list[int]
) -> None:
    """The line under the progress: the paper's interest and the papers skipped since
    the last wanted one; ``stop_after`` ends the run there with a summary."""
    a, b, c, d = four
    ranker = FakeRanker({a: 0.9, b: 0.5, c: 0.7, d: 0.1})
    term = FakeTerminal("tss")
    run_ = loop(engine, four, term, ranker=ranker, stop_after=2)
    summary = run_.run()
    lines = [screen.splitlines()[1] for screen in term.screens]
    assert lines == [
        "interest 0.900",
        "interest 0.700",
        "interest 0.500 · 1 skipped since the last wanted paper",
    ]
    assert summary.describe().startswith(
        "stopped: 2 papers skipped since the last wanted one (--stop-after 2); "
        "triaged 3 papers in this run"
    )
    assert [v["status"] for v in state(engine).values()] == ["to-read", "skipped", "skipped", "new"]


class CatchingUpRanker(FakeRanker):
    """Scores that change after the first screen, as a background fit ending does."""

    def __init__(self, scores: dict[int, float], later: dict[int, float]) -> None:
        super().__init__(scores)
        self.later = later
        self.asked = 0

    def fresh(self) -> bool:
        self.asked += 1
        if self.asked == 2:  # the fit ended while the first card was shown
            self.scores = self.later
            return True
        return False


def test_the_queue_catches_up_with_a_fit_that_ends_later(engine: Any, four: list[int]) -> None:
    """A fit ending in the background re-orders the papers after the one about to be
    shown (Gamma, reached by space before the fit ended, stays); nothing is decided."""
    a, b, c, d = four
    ranker = CatchingUpRanker({a: 0.9, b: 0.5, c: 0.7, d: 0.1}, {a: 0.9, b: 0.1, c: 0.2, d: 0.8})
    term = FakeTerminal("   q")
    run_ = loop(engine, [a, c, b, d], term, ranker=ranker)
    run_.run()
    assert titles(term) == ["Alpha", "Gamma", "Delta", "Beta"]  # Beta before Delta without
    assert ranker.decided == []


def test_a_large_queue_is_read_in_one_scan_with_the_same_result(
    engine: Any, four: list[int], monkeypatch: Any
) -> None:
    """Above ``SCAN_ABOVE`` papers the statuses and batches of a queue are read in one
    scan of the papers table (not hundreds of ``IN`` chunks): the same values, the
    papers that do not exist left out, and one statement."""
    from sqlalchemy import event

    from readinglist import db, triage_inbox

    a, _, c, d = four
    asked = [a, c, 999_999, d]
    with db.session_scope(engine, write=False) as session:
        chunked = triage_inbox.statuses(session, asked)
        batches = triage_inbox.of_papers(session, asked, "batch_id")
    monkeypatch.setattr(triage_inbox, "SCAN_ABOVE", 0)
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    with db.session_scope(engine, write=False) as session:
        assert triage_inbox.statuses(session, asked) == chunked == dict.fromkeys([a, c, d], "new")
        assert triage_inbox.of_papers(session, asked, "batch_id") == batches
    event.remove(engine, "before_cursor_execute", seen)
    assert [s for s in statements if "FROM papers" in s and " IN " in s] == []


class UndoneRanker(FakeRanker):
    """Scores that change when a decision is undone (a refit without it)."""

    def __init__(self, scores: dict[int, float], undone: dict[int, float]) -> None:
        super().__init__(scores)
        self.undone = undone

    def decide(self, pid: int, status: str) -> None:
        super().decide(pid, status)
        if status == "new":
            self.scores = self.undone


def test_an_undo_orders_the_rest_of_the_queue_by_the_model_without_it(
    engine: Any, four: list[int]
) -> None:
    """``u`` takes the decision out of the model and the papers after the one shown
    follow the new scores at once (the terminal and the page alike), not after the next
    decision."""
    a, b, c, d = four
    ranker = UndoneRanker({a: 0.9, b: 0.5, c: 0.7, d: 0.1}, {a: 0.9, b: 0.8, c: 0.2, d: 0.95})
    term = FakeTerminal("tu q")
    loop(engine, four, term, ranker=ranker).run()
    assert titles(term) == ["Alpha", "Gamma", "Alpha", "Delta"]
    assert ranker.decided == [(a, "to-read"), (a, "new")]
