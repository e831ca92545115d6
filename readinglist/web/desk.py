"""One browser tab's triage run: :class:`readinglist.triage.Triage` driven by requests.

The page sends the key pressed and the paper it was shown (its id); :class:`Desk` goes
to that paper and hands the key to the same :meth:`Triage.press` the terminal calls, so
what "next" is, re-ranking, the stopping count and undo (also of decisions made before
a reload, from the status history) are the terminal's rules. The text a key asks for
(tags, note, title, search) comes with the request: :class:`PageTerminal` answers the
loop's prompt with it. Each tab has its own run (a reload starts a new one over the
papers still new, as running ``triage`` again does); two tabs and the CLI deciding at
once each write their own transactions, so no decision is lost.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from readinglist import library, triage, triage_inbox
from readinglist.errors import Conflict, NotFound, UsageError
from readinglist.models import Paper
from readinglist.records import PaperRecord
from readinglist.text import counted

SessionFactory = Callable[[], AbstractContextManager[Session]]

#: Keys the page sends to :meth:`Triage.press`: the decisions, the prompts answered
#: with the request's text, next, back and undo. ``o``, ``v``, ``w``, ``x`` and ``?``
#: are the page's own (it shows the links, the list, the why and the whole abstract).
PRESSED = frozenset({*triage.STATUS_KEYS, *triage.PRIORITY_KEYS, "a", "n", "e", "u", "/"})
MOVES = frozenset({*triage.NEXT_KEYS, *triage.BACK_KEYS})
#: How many papers of the queue the list shows from the current one.
LIST_SIZE = 40
#: How many papers after the list have their rows read with it (:meth:`Desk.rows`).
AHEAD = 20
#: A fit of a large library starts once no decision came for this long (seconds):
#: decisions in quick succession do not share the interpreter with a fit
#: (``triage_rank.LiveRanker``); the page asks for the new order a second later.
QUIET = 0.5
#: Tabs kept at once; the oldest run is dropped (a reload starts a new one anyway).
MAX_DESKS = 16


class CountedStatuses(dict[int, str]):
    """A run's ``{paper id: status}`` (``Triage.status``) that keeps the count of each
    status as it changes: the progress line of every answer reads the counts instead
    of counting 10,000s of papers again."""

    def __init__(self, statuses: dict[int, str]) -> None:
        super().__init__(statuses)
        self.counts: Counter[str] = Counter(statuses.values())

    def __setitem__(self, pid: int, status: str) -> None:
        before = self.get(pid)
        if before is not None:
            self.counts[before] -= 1
        self.counts[status] += 1
        super().__setitem__(pid, status)


class NotInList(Conflict):
    """The page named a paper this tab's run does not hold (a page of an older run, a
    forged request): nothing is done, the answer is 409."""


class DecidedElsewhere(Exception):
    """The paper's stored status changed since the page showed it (the CLI's ``mark``,
    another tab) to another than the key sets: nothing is written, the answer is 409
    with the paper as it is now. Not a ReadingListError: ``Triage.press`` makes those
    its message, and this one must reach the route."""

    def __init__(self, pid: int, status: str, version: int) -> None:
        super().__init__(f"paper {pid} was decided elsewhere as {status}")
        self.pid, self.status, self.version = pid, status, version


def status_version(session: Session, pid: int) -> int:
    """The version of the current reader's status of ``pid`` the page carries: the id
    of their newest status change of it (``library.marks.last_change_of``; every
    change, an undo too, is a new one), 0 when it never changed."""
    from readinglist.library import marks

    return marks.last_change_of(session, pid) or 0


class CheckedWrites:
    """The write transactions of a tab's run (``Triage``'s session factory), with a
    compare-and-set for the key the page sent: :attr:`expect` ``(paper, version the page
    saw, status the key sets)`` is checked in the next transaction before anything is
    written (the paper row locked on PostgreSQL, as ``library.marks.undo_status`` does;
    SQLite's write transactions hold its write lock from BEGIN), so a decision made
    elsewhere meanwhile is never overwritten unseen (:class:`DecidedElsewhere`)."""

    def __init__(self, write: SessionFactory) -> None:
        self.write = write
        self.expect: tuple[int, int, str] | None = None

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A write transaction (committed on exit); DecidedElsewhere when :attr:`expect`
        fails (used once: the next transaction checks nothing)."""
        expect, self.expect = self.expect, None
        with self.write() as session:
            if expect is not None:
                unchanged(session, *expect)
            yield session


def unchanged(session: Session, pid: int, seen: int, target: str) -> None:
    """Raise :class:`DecidedElsewhere` when the current reader's status of ``pid``
    changed since version ``seen`` (:func:`status_version`) to another than ``target``
    (a change to the status the key sets loses nothing). A paper removed meanwhile
    passes (the write says so)."""
    from readinglist import decided
    from readinglist.tables import PAPERS

    if session.get_bind().dialect.name != "sqlite":  # SQLite: locked from BEGIN
        session.execute(select(PAPERS.c.id).where(PAPERS.c.id == pid).with_for_update())
    now = status_version(session, pid)
    if now == seen:
        return
    row = session.execute(select(decided.column("status")).where(PAPERS.c.id == pid)).first()
    if row is not None and (status := str(row[0])) != target:
        raise DecidedElsewhere(pid, status, now)


class PageTerminal:
    """The :class:`readinglist.triage.Terminal` of a request: prompts answer with the
    request's text; the loop's own screens are never drawn (the page draws)."""

    def __init__(self) -> None:
        self.answer: str | None = None

    def width(self) -> int:
        """A wide terminal (the loop's screens are not shown)."""
        return 200

    def height(self) -> int:
        """A tall terminal (the loop's screens are not shown)."""
        return 60

    def show(self, text: str) -> None:
        """Draw nothing: the page renders the state itself."""

    def getkey(self) -> str:
        """The page sends one key per request; a loop screen asking for more ends."""
        raise EOFError

    def prompt(self, label: str, default: str = "", complete: Sequence[str] = ()) -> str | None:
        """Return the text sent with the request (None when blank)."""
        return (self.answer or "").strip() or None

    def launch(self, url: str) -> bool:
        """The page opens links itself."""
        return False


@dataclass
class Options:
    """What ``serve`` was asked for: the library's URL (the ranking cache), the reader
    who decides (``--reader``; ``decided.DEFAULT_READER`` in a personal library), the
    query, ``--all``, the order, ``--like``, the stopping threshold (``--stop-after``)
    and ``--blind`` (the other readers' decisions hidden on a paper the reader has not
    decided: ``triage --blind``'s rule, ``library.agreement.others_line``)."""

    url: str
    reader: str
    query: str = ""
    include_all: bool = False
    order: str = "interest"
    like: str | None = None
    stop_after: int | None = None
    blind: bool = False


@dataclass
class Desk:
    """One tab's run: the loop, its options, the topic filter and a lock (requests of
    one tab are served one at a time)."""

    run: triage.Triage
    options: Options
    terminal: PageTerminal
    writes: CheckedWrites
    topics: list[Any] | None = None
    topic: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    loaded: Any = None
    #: Whether the page shows why the paper has its interest (``w``): computed only
    #: then, as it costs a pass of every model over the library (``Ranker.why``).
    show_why: bool = False
    #: The message of the last action (a poll shows it again).
    message: str = ""
    #: The rows of the list read so far (:meth:`rows`): a paper a key acted on is read
    #: again, the others are not (their status is the run's).
    listed: dict[int, PaperRecord] = field(default_factory=dict)

    # --- acting -----------------------------------------------------------------------

    def act(
        self, key: str, pid: int | None, answer: str | None = None, seen: int | None = None
    ) -> str:
        """Apply ``key`` to paper ``pid`` (the one the page showed; None: the current)
        with ``answer`` for a prompt; return the message for the page. ``seen``: the
        version of the paper's status the page showed (:func:`status_version`; None:
        not checked).

        UsageError for a key the page does not send; :class:`NotInList` when ``pid`` is
        not a paper of this run (nothing done: a key acts on the paper the page showed,
        never on another); :class:`DecidedElsewhere` when a status key meets a status
        changed since ``seen`` (:class:`CheckedWrites`: nothing written)."""
        run = self.run
        if key not in PRESSED and key not in MOVES:
            raise UsageError(f"unknown key {key!r}")
        if pid is not None:
            if pid not in run.queue:
                raise NotInList(
                    f"paper {pid} is not in this tab's list (reload the page): nothing done"
                )
            run.go_to(pid)
        if key == "u":  # undoes a change of any paper: every row of the list is read again
            self.listed.clear()
        if run.index >= len(run.queue):
            if key != "u":
                return "end of the list: u undoes the last decision"
            run.message = ""
            run.undo()
            return run.message
        if key in MOVES:
            run.press(key, _placeholder())
            self._keep_in_topic()
            return run.message
        record = _placeholder()
        if key == "e":  # the one key that reads the record (the title it edits)
            found = run.current_record()
            if found is None:
                raise NotFound("that paper was removed meanwhile")
            record = found
        self.terminal.answer = answer
        if key in ("a", "e"):  # its tags, its title change: its row is read again
            self.listed.pop(run.queue[run.index], None)
        if key in triage.STATUS_KEYS and seen is not None and pid is not None:
            self.writes.expect = (pid, seen, triage.STATUS_KEYS[key])
        try:
            run.press(key, record)
        finally:
            self.terminal.answer = None
            self.writes.expect = None
        if key in triage.STATUS_KEYS:
            self._keep_in_topic()
        return run.message

    def decided_elsewhere(self, found: DecidedElsewhere, key: str) -> str:
        """Take the status stored meanwhile (:class:`DecidedElsewhere`) as the paper's,
        for the list and the counts; return the page's message (the key pressed again
        applies: the page now carries the new version)."""
        self.run.status[found.pid] = found.status
        self.run._count_since_wanted()
        wanted = triage.STATUS_KEYS.get(key, "")
        return f"decided elsewhere as {found.status}: press {key} again to make it {wanted}"

    def _keep_in_topic(self) -> None:
        """With a topic chosen, move to its next undecided paper when the current one is
        outside it (the queue's order, the loop's rule of "next" within the topic)."""
        chosen = self.topic_ids()
        run = self.run
        if chosen is None or (run.index < len(run.queue) and run.queue[run.index] in chosen):
            return
        for place in range(run.index, len(run.queue)):
            pid = run.queue[place]
            if pid in chosen and not run.decided(pid):
                run.index = place
                return
        run.index = len(run.queue)

    def topic_ids(self) -> set[int] | None:
        """The papers of the chosen topic (None: no topic chosen)."""
        if self.topic is None or not self.topics:
            return None
        for topic in self.topics:
            if topic.label == self.topic:
                return set(topic.paper_ids)
        return None

    def catch_up(self) -> None:
        """Order the papers after the current one by the newest fit of the background
        ranker (``Triage._catch_up``, the terminal loop's step before each screen)."""
        self.run._catch_up()

    def pending(self) -> bool:
        """True while a fit of the background ranker is running: the order will change
        (the page asks again, ``POST /poll``)."""
        pending = getattr(self.run.ranker, "pending", None)
        return pending is not None and bool(pending())

    # --- what the page shows ---------------------------------------------------------

    def index(self, session: Session) -> Any:
        """The library's tf-idf index (``ranking.store``): the ranker's (None while its
        thread still loads it: no similar papers yet), else loaded once (from its cache
        file) for the similar papers."""
        ranker = self.run.ranker
        if ranker is not None and hasattr(ranker, "loaded"):  # triage_rank.LiveRanker
            return getattr(ranker, "index", None)
        found = getattr(ranker, "index", None)
        if found is None:
            from readinglist.ranking.store import load

            found = self.loaded = self.loaded or load(session, self.options.url)
        return found

    def rows(
        self, window: Sequence[int], read: Callable[[list[int]], Iterable[tuple[int, PaperRecord]]]
    ) -> dict[int, PaperRecord]:
        """The rows of the list ``window``: those read for an earlier answer and
        ``read(ids)`` of the others, with the :data:`AHEAD` papers of the queue after
        them (the list moves on by a paper per decision: a read every :data:`AHEAD`
        decisions, not one per decision). The rows kept are those of the window and of
        the papers after it."""
        shown, start = set(window), self.run.index
        after = self.run.queue[start : start + LIST_SIZE + AHEAD]
        ahead = [p for p in after if p not in shown][:AHEAD]
        missing = [p for p in window if p not in self.listed]
        if missing:
            self.listed.update(read(missing + [p for p in ahead if p not in self.listed]))
        keep = shown.union(ahead)
        self.listed = {p: row for p, row in self.listed.items() if p in keep}
        return {p: self.listed[p] for p in window if p in self.listed}

    def current(self) -> int | None:
        """The id of the paper shown (None at the end of the list)."""
        run = self.run
        return run.queue[run.index] if run.index < len(run.queue) else None

    def window(self) -> list[int]:
        """The papers of the list: from a few before the current one, :data:`LIST_SIZE`
        of them, within the chosen topic."""
        run, chosen = self.run, self.topic_ids()
        start = max(run.index - 3, 0)
        found = [p for p in run.queue[start:] if chosen is None or p in chosen]
        return found[:LIST_SIZE]

    def progress(self) -> dict[str, Any]:
        """Counts for the progress bar: total, decided, left, by status, the papers
        skipped since the last wanted one and whether the stopping threshold is met."""
        run = self.run
        statuses = Counter(run.earlier.values())
        held = run.status
        statuses.update(held.counts if isinstance(held, CountedStatuses) else held.values())
        total = sum(statuses.values())
        left = statuses["new"]
        threshold = self.options.stop_after
        return {
            "total": total,
            "decided": total - left,
            "left": left,
            "statuses": {s: n for s, n in statuses.items() if s != "new" and n},
            "since_wanted": run.since_wanted,
            "threshold": threshold,
            "may_stop": threshold is not None and run.since_wanted >= threshold,
            "model": "" if (pid := self.current()) is None else run.model_line(pid),
        }


def others_wanting(
    session: Session, ids: Sequence[int], mine: dict[int, str], *, blind: bool = False
) -> dict[int, int]:
    """How many readers other than the current one want each paper of ``ids``: the
    count of ``decided.wanted_count`` (``wanted-by:N``'s rule) less the current reader
    when ``mine`` (their statuses) says they want it. ``blind`` (``serve --blind``)
    leaves out the papers ``mine`` has as ``new``: nothing of the others' decisions is
    read for a paper the reader has not decided (``triage --blind``'s rule)."""
    from readinglist import decided
    from readinglist.records import WANTED_STATUSES
    from readinglist.tables import PAPERS

    if blind:
        ids = [p for p in ids if mine.get(p, "new") != "new"]
    found: dict[int, int] = {}
    for start in range(0, len(ids), library.CHUNK):
        chunk = list(ids[start : start + library.CHUNK])
        stmt = select(PAPERS.c.id, decided.wanted_count()).where(PAPERS.c.id.in_(chunk))
        for pid, count in session.execute(stmt):
            found[int(pid)] = int(count) - (mine.get(int(pid)) in WANTED_STATUSES)
    return found


def _placeholder() -> PaperRecord:
    """A record for the keys that do not read it (all but ``e``): ``Triage.press`` hands
    the record to ``e``, ``o``, ``w`` and ``x`` only, and the page does ``o``, ``w``, ``x``."""
    return PaperRecord(citekey="")


def open_desk(
    write: SessionFactory,
    read: SessionFactory,
    options: Options,
    on_build: Callable[[str], None],
    shared: SharedRanker,
) -> Desk:
    """Start a tab's run over ``options`` (:func:`triage_inbox.open_inbox`, the terminal's
    start) with each decision in its own ``write`` transaction. The interest order is
    the terminal triage's (``triage_rank.start``, one for every tab: ``shared``): the
    last fitted scores at once, each fit in a background thread that no request waits
    for (above ``triage_rank.SMALL_LIBRARY`` papers), its order taken by the next
    request (:meth:`Desk.catch_up`). ``on_build`` is told before the index is built
    afresh."""
    with read() as session:
        inbox = triage_inbox.open_inbox(
            session,
            options.url,
            options.query,
            include_all=options.include_all,
            order="added",  # the interest order: fitted in the background below
        )
    ids, ranker = inbox.ids, None
    if ids and options.order == "interest":
        ranker = shared.view(read, options, on_build)
        ids = ranker.order(ids)
    terminal = PageTerminal()
    writes = CheckedWrites(write)
    run = triage.Triage(
        writes.session,
        ids,
        terminal,
        read_factory=read,
        ranker=ranker,
        earlier=inbox.earlier,
        scope=inbox.scope,
        statuses=inbox.statuses,  # the queue's query gave them: no pass over the library
    )
    run.blind = options.blind  # searches about the other readers' decisions refused
    run._load_statuses()  # what Triage.run does first: the statuses and the stopping count
    run.status = CountedStatuses(run.status)
    return Desk(run, options, terminal, writes)


class SharedRanker:
    """The server's one background ranker (``triage_rank.LiveRanker``), started by the
    first tab that ranks by interest; each tab gets a ``RankerView`` of it."""

    def __init__(self) -> None:
        self.live: Any = None
        self.lock = threading.Lock()

    def view(self, read: SessionFactory, options: Options, on_build: Callable[[str], None]) -> Any:
        """A view for a new tab: the ranker started (``triage_rank.start``: waits for a
        first fit of a small library only), or asked to fit again when another process
        decided since its scores (``LiveRanker.refresh``)."""
        from readinglist import triage_rank

        with self.lock:
            if self.live is None:
                self.live = triage_rank.start(
                    read, options.url, options.like, patience=0, on_build=on_build, quiet=QUIET
                )
            else:
                self.live.refresh()
            return self.live.view()

    def close(self) -> None:
        """Stop its thread (nothing is written after this)."""
        with self.lock:
            if self.live is not None:
                self.live.close()


class Desks:
    """The runs of the open tabs by id (at most :data:`MAX_DESKS`, the oldest dropped)
    and the ranker they share."""

    def __init__(self) -> None:
        self.desks: OrderedDict[str, Desk] = OrderedDict()
        self.lock = threading.Lock()
        self.ranker = SharedRanker()

    def add(self, name: str, desk: Desk) -> None:
        """Keep ``desk`` as ``name``."""
        with self.lock:
            self.desks[name] = desk
            while len(self.desks) > MAX_DESKS:
                _, dropped = self.desks.popitem(last=False)
                close_ranker(dropped)

    def close(self) -> None:
        """Stop every run's background ranker (the server stops): nothing is written
        after this (``triage_rank.LiveRanker.close``)."""
        with self.lock:
            desks = list(self.desks.values())
            self.desks.clear()
        for desk in desks:
            close_ranker(desk)
        self.ranker.close()

    def get(self, name: str) -> Desk:
        """Return the run ``name``; NotFound when it is gone (the page says reload)."""
        with self.lock:
            desk = self.desks.get(name)
        if desk is None:
            raise NotFound("this tab's session has ended (server restarted): reload the page")
        return desk


def close_ranker(desk: Desk) -> None:
    """Stop the background fits of ``desk``'s ranker, if it has any."""
    close = getattr(desk.run.ranker, "close", None)
    if close is not None:
        close()


def skip_topic(write: SessionFactory, desk: Desk, label: str) -> str:
    """Skip every paper still ``new`` of topic ``label`` in one transaction (each change
    in the status history, so ``u`` undoes them one at a time); return what was done."""
    desk.topic = label
    chosen = desk.topic_ids()
    if chosen is None:
        raise NotFound(f"no topic {label!r} (reload the topics)")
    run = desk.run
    ids = sorted(p for p in chosen if run.status.get(p) == "new")
    with write() as session:
        papers = [p for p in library.load_papers_for_listing(session, ids) if p.status == "new"]
        changed = library.set_status(session, papers, "skipped")
    for paper in papers:
        run.status[paper.id] = "skipped"
        if run.ranker is not None:
            run.ranker.decide(paper.id, "skipped")
    run._count_since_wanted()
    desk.topic = None
    if run.index < len(run.queue) and run.decided(run.queue[run.index]):
        run.index = run.next_undecided()
    return f"skipped {counted(len(changed), 'paper')} of topic {label}; u undoes one at a time"


def topics_of(read: SessionFactory, desk: Desk, k: int) -> list[Any]:
    """Cluster the run's papers (queue and earlier) into ``k`` topics (``ranking.topics``,
    the ``topics`` command's clustering) and keep them on the desk."""
    from readinglist.ranking.store import load
    from readinglist.ranking.topics import cluster

    run = desk.run
    pids = [*run.earlier, *run.queue]
    with read() as session:
        index = load(session, desk.options.url)
        venues = {int(i): v for i, v in session.execute(select(Paper.id, Paper.venue))}
    desk.topics = cluster(index, pids, k, [venues.get(p) or "" for p in pids])
    return desk.topics
