"""The interest order of a triage run, fitted in a background thread: decisions never wait.

A fit reads every row of the index (``ranking.ranker.Ranker.scores``); loading the index
of 61,000 papers takes seconds and building it a minute. Done before the first screen
or after each decision, that was a blank screen for 67 s and a wait after every key. So
:class:`LiveRanker` starts with the last fitted scores (``ranking.fitted``: read in
milliseconds; those of an earlier state of the library when nothing newer is there,
else the order of addition), shows the first screen at once, and one daemon thread
loads the index (once that screen is drawn, :meth:`LiveRanker.shown`, when the scores
are current: the thread's imports and reads hold the interpreter's lock a good part of
the time, and slowed the first screen of 61,000 papers to twice its time alone) and
fits again whenever decisions were made since its last fit; the
triage loop re-orders the rest of its queue when a newer fit has arrived
(:meth:`LiveRanker.fresh`, "the order catches up"). A fit that ends within
:data:`SETTLE_SECONDS` of a decision is used for the very next paper, as before.

Each fit reads the decisions again from the library, in one transaction, after the
change counter (``ranking.fitted.key``), so the scores it writes to the fitted scores'
file belong to that key or to a later state (never an older one): the next
``list --sort interest`` reads them instead of fitting. The thread writes files only
through ``fitted.save_atomically`` (temp+rename) and checks :meth:`LiveRanker.close`
before it writes, so quitting never leaves a half-written cache and never waits for a
fit; a fit that fails leaves the order as it was and says so on the model line.

The thread's numerical libraries use one thread each (``store.one_thread``): with as
many as there are cores (OpenBLAS's default) they took the terminal's core too, and a
decision's screen waited 4-6 s while the index of 6,500 papers was built.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.orm import Session

from readinglist.text import counted

if TYPE_CHECKING:
    from readinglist.ranking.fitted import Fitted, Ranked
    from readinglist.ranking.ranker import Ranker
    from readinglist.ranking.store import Index

SessionFactory = Callable[[], AbstractContextManager[Session]]


class Reranker(Protocol):
    """Re-orders the rest of a triage queue after a decision: ``ranking.ranker.Ranker``
    (in order at once) or :class:`LiveRanker` (fitted in the background, which also has
    ``fresh``, ``learnt_from``, ``shown`` and ``close``: ``readinglist.triage.Triage`` asks for them
    by name)."""

    def decide(self, pid: int, status: str) -> None:
        """Take the new status of ``pid`` as a label."""
        ...

    def order(self, pids: Sequence[int]) -> list[int]:
        """Return ``pids`` highest interest first."""
        ...

    def interest(self, pids: Iterable[int]) -> dict[int, float | None]:
        """Return ``{paper id: interest}`` (None without a model)."""
        ...

    def why(self, pid: int) -> Any:
        """Return why the paper has its interest (``readinglist.ranking.Why``: parts that
        add up to it), or None without a score."""
        ...


#: How long (seconds) a decision waits for its re-rank before the next paper is shown in
#: the order there was (a fit of a few thousand papers ends well within it).
SETTLE_SECONDS = 0.3
#: A fit running this long (seconds) says so on the model line.
NOTICE_SECONDS = 1.0
#: Up to this many papers, a fit (and a first index) takes well under a second: the
#: first screen and each decision wait for it, so the order is always the latest.
SMALL_LIBRARY = 2000


class LiveRanker:
    """A :class:`readinglist.triage.Reranker` fitted in a background thread (see the
    module docstring).

    Args:
        read_factory: a Session in one read transaction per call (the thread's own).
        url: the library's URL (where its caches are).
        first: the scores to start with (``fitted.read_order`` or ``fitted.read``, maybe
            of an earlier state), or None (no order until the first fit ends).
        current: True when ``first`` is the fit of the library as it is (no fit needed
            until a decision).
        like: the ``--like`` text, or None; its fits are not written to the cache.
        patience: how long a decision waits for its fit (seconds; None: until it ends).
        on_build: told once, before the index is built afresh (:func:`fitted.build_notice`;
            from the thread, or from :func:`start` when no index exists), or None.
        quiet: a fit starts only once no decision came for this long (seconds): a
            reader deciding in quick succession is never slowed by fits in between
            (``serve``: the page's requests and a fit share one interpreter lock).
    """

    def __init__(
        self,
        read_factory: SessionFactory,
        url: str,
        first: Fitted | Ranked | None,
        *,
        current: bool,
        like: str | None = None,
        patience: float | None = SETTLE_SECONDS,
        on_build: Callable[[str], None] | None = None,
        quiet: float = 0.0,
    ) -> None:
        self.read_factory = read_factory
        self.on_build = on_build
        self.quiet = quiet
        self._last = 0.0  # when the last decision came (time.monotonic)
        self.patience = patience
        self.url = url
        self.like = like
        self._lock = threading.Condition()
        self._scores: Fitted | Ranked | None = first
        self._ranker: Ranker | None = None
        self._wanted = 0 if current else 1  # fits asked for (a count of requests)
        self._done = 0  # the request the last finished fit answered
        #: The owner's own run (the terminal's triage): :meth:`fresh` is its view's.
        self._own = RankerView(self, 0)
        self._since = time.monotonic()  # when the oldest unanswered request was made
        self._pending = 0  # decisions since the last finished fit
        self._problem = ""
        self._building = ""  # the notice of the index being built, until it is loaded
        self._shown = False  # the first screen is drawn: the index may load
        self._stop = threading.Event()
        # The thread runs in a copy of this context: the current reader
        # (readinglist.decided, a ContextVar) is the run's, so it fits on their decisions.
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=context.run, args=(self._work,), name="readinglist-fit", daemon=True
        )
        self._thread.start()

    # --- what the triage loop asks --------------------------------------------------------

    def decide(self, pid: int, status: str) -> None:
        """Take a new decision (already saved): ask the thread for a new fit, and wait up
        to :attr:`patience` for it."""
        with self._lock:
            if self._wanted == self._done:
                self._since = time.monotonic()
            self._wanted += 1
            self._pending += 1
            self._last = time.monotonic()
            wanted = self._wanted
            self._lock.notify_all()
            self._lock.wait_for(lambda: self._done >= wanted or bool(self._problem), self.patience)

    def shown(self) -> None:
        """Say that the first screen is drawn: the thread loads the index from now on
        (at once anyway when a fit is needed: the scores are stale, or a decision)."""
        with self._lock:
            self._shown = True
            self._lock.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every fit asked for has ended (or failed); False on ``timeout``."""
        with self._lock:
            return self._lock.wait_for(
                lambda: self._done >= self._wanted or bool(self._problem), timeout
            )

    def fresh(self) -> bool:
        """True once for each fit that ended since the last call: the rest of the queue
        should be ordered again (:meth:`RankerView.fresh` of the owner's run)."""
        return self._own.fresh()

    def order(self, pids: Sequence[int]) -> list[int]:
        """Return ``pids`` highest interest first by the latest scores (given order
        without any)."""
        scores = self._scores
        return scores.order(pids) if scores is not None else list(pids)

    def interest(self, pids: Iterable[int]) -> dict[int, float | None]:
        """Return ``{paper id: interest}`` by the latest scores (None without any)."""
        scores = self._scores
        wanted = list(pids)
        return scores.of_ids(wanted) if scores is not None else dict.fromkeys(wanted)

    @property
    def index(self) -> Index | None:
        """The library's index (rows streamed from its cache file) once the thread has
        loaded it, else None (``serve`` shows similar papers from then on)."""
        ranker = self._ranker
        return None if ranker is None else ranker.index

    def pending(self) -> bool:
        """True while the index is being loaded or a fit asked for has not ended (the
        order, or what the index shows, will change); False once a fit failed."""
        with self._lock:
            busy = self._wanted > self._done or self._ranker is None
            return busy and not self._problem

    @property
    def loaded(self) -> bool:
        """True once the thread has loaded the index (``w`` works from then on)."""
        return self._ranker is not None

    def why(self, pid: int) -> Any:
        """Return why the paper has its interest (``ranking.Why``), or None while the
        index is still being loaded (then :meth:`learnt_from` says so)."""
        ranker = self._ranker
        return ranker.why(pid) if ranker is not None else None

    def learnt_from(self) -> str:
        """What the order learnt from, and, once a fit runs for :data:`NOTICE_SECONDS`,
        that the order is being updated (or that a fit failed); from the start that the
        index is being built (:meth:`told`)."""
        with self._lock:
            scores, problem, pending = self._scores, self._problem, self._pending
            busy = self._wanted > self._done
            waited = time.monotonic() - self._since
            building = bool(self._building)
        text = scores.learnt if scores is not None else "no order yet"
        if problem:
            return f"{text} · the order is not updated: {problem}"
        if building:  # seconds at the least: said from the start
            spent = f"{waited:.0f} s; " if waited >= NOTICE_SECONDS else ""
            return f"{text} · building the interest index ({spent}the order catches up)"
        if busy and waited >= NOTICE_SECONDS:
            what = (
                f"re-ranking after {counted(pending, 'new decision')}"
                if pending
                else "loading the interest index"
            )
            return f"{text} · {what} ({waited:.0f} s; the order catches up)"
        return text

    def refresh(self) -> None:
        """Ask for a fit (without waiting) when the library's decisions changed since the
        latest scores (another process decided: ``fitted.key`` of the change counter); as
        after a decision, it starts once none came for ``quiet`` seconds (``serve``: the
        new tab's first keys are not answered beside a fit)."""
        from readinglist.ranking import fitted

        with self.read_factory() as session:
            key = fitted.key(fitted.change_counter(session))
        scores = self._scores
        if scores is not None and scores.key == key:
            return
        with self._lock:
            if self._wanted == self._done:
                self._since = time.monotonic()
            self._wanted += 1
            self._last = time.monotonic()  # as a decision: no fit beside the new tab (quiet)
            self._lock.notify_all()

    def told(self, notice: str) -> None:
        """Take the notice that the index is being built afresh (``store.load``'s
        ``on_build``): the model line says so until it is loaded (:meth:`learnt_from`),
        and ``on_build`` is told each notice once (from :func:`start` and the thread)."""
        with self._lock:
            if notice == self._building:
                return
            self._building = notice
        if self.on_build is not None:
            self.on_build(notice)

    def view(self) -> RankerView:
        """A :class:`RankerView` of this ranker for one more triage run (a page's tab)."""
        with self._lock:
            return RankerView(self, self._done)

    def close(self) -> None:
        """Ask the thread to stop (it writes nothing after this) and wait a moment for a
        fit's write in progress; never waits for a fit itself."""
        self._stop.set()
        with self._lock:
            self._lock.notify_all()
        self._thread.join(timeout=0.5)

    # --- the thread -----------------------------------------------------------------------

    def _work(self) -> None:
        try:
            with self._lock:
                self._lock.wait_for(
                    lambda: self._shown or self._wanted > self._done or self._stop.is_set()
                )
            if self._stop.is_set():
                return
            from readinglist.ranking.store import one_thread

            with one_thread():  # the terminal keeps a core: see the module docstring
                self._fits()
        except Exception as err:  # reported on the model line; the order stays as it was
            with self._lock:
                self._problem = f"{type(err).__name__}: {err}"[:200]
                self._lock.notify_all()

    def _fits(self) -> None:
        index = self._load()
        while not self._stop.is_set():
            with self._lock:
                self._lock.wait_for(lambda: self._wanted > self._done or self._stop.is_set())
                while (
                    not self._stop.is_set()
                    and (left := self._last + self.quiet - time.monotonic()) > 0
                ):
                    self._lock.wait(left)  # a decision meanwhile: wait on from it
                request, pending = self._wanted, self._pending
            if self._stop.is_set():
                return
            self._fit(index, request, pending)

    def _load(self) -> Index:
        from readinglist.ranking import store
        from readinglist.ranking.ranker import Ranker

        with self.read_factory() as session:
            # streamed: each fit reads the rows from the cache file a block at a time, so
            # a triage run holds no copy of the library's matrix (tens of MB, not hundreds)
            index = store.load(session, self.url, streamed=True, on_build=self.told)
            with self._lock:
                self._building = ""  # built: what is left is a fit's (learnt_from)
            ranker = Ranker.of_index(session, index, self.like, self.url)
        with self._lock:
            self._ranker = ranker  # ``w`` works from here on
        return index

    def _fit(self, index: Index, request: int, pending: int) -> None:
        from readinglist.ranking import fitted, store
        from readinglist.ranking.ranker import Ranker

        with self.read_factory() as session:
            counter = fitted.change_counter(session)  # before the decisions: see docstring
            ranker = Ranker.of_index(session, index, self.like, self.url)
            cacheable = self.like is None and store.texts_unchanged(session, index, counter)
        table = ranker.interest_table()
        made = fitted.Fitted(fitted.key(counter), table.ids, table.scores, ranker.learnt_from())
        if cacheable and len(table.ids) and not self._stop.is_set():
            fitted.write(self.url, made)
        with self._lock:
            self._scores, self._ranker = made, ranker
            self._done = request
            self._pending -= pending
            self._since = time.monotonic()
            self._lock.notify_all()


class RankerView:
    """One run's handle on a :class:`LiveRanker` shared by several runs (``serve``: one
    per tab; one index in memory and one fit per decision whatever the tabs): its own
    :meth:`fresh` (each run re-orders its queue once per fit), the rest the shared
    ranker's; :meth:`close` leaves the shared ranker to its owner."""

    def __init__(self, live: LiveRanker, applied: int) -> None:
        self.live = live
        self._applied = applied

    def decide(self, pid: int, status: str) -> None:
        """See :meth:`LiveRanker.decide`."""
        self.live.decide(pid, status)

    def fresh(self) -> bool:
        """True once for each fit that ended since this run's last call."""
        live = self.live
        with live._lock:
            if live._done > self._applied:
                self._applied = live._done
                return True
            return False

    def order(self, pids: Sequence[int]) -> list[int]:
        """See :meth:`LiveRanker.order`."""
        return self.live.order(pids)

    def interest(self, pids: Iterable[int]) -> dict[int, float | None]:
        """See :meth:`LiveRanker.interest`."""
        return self.live.interest(pids)

    def why(self, pid: int) -> Any:
        """See :meth:`LiveRanker.why`."""
        return self.live.why(pid)

    def learnt_from(self) -> str:
        """See :meth:`LiveRanker.learnt_from`."""
        return self.live.learnt_from()

    def pending(self) -> bool:
        """See :meth:`LiveRanker.pending`."""
        return self.live.pending()

    @property
    def loaded(self) -> bool:
        """See :attr:`LiveRanker.loaded`."""
        return self.live.loaded

    @property
    def index(self) -> Index | None:
        """See :attr:`LiveRanker.index`."""
        return self.live.index

    def close(self) -> None:
        """Nothing: the shared ranker is closed by its owner."""


def start(
    read_factory: SessionFactory,
    url: str,
    like: str | None,
    *,
    patience: float = SETTLE_SECONDS,
    on_build: Callable[[str], None] | None = None,
    quiet: float = 0.0,
) -> LiveRanker:
    """Return the :class:`LiveRanker` of a triage run: the fitted scores of the library as
    it is when there are (no fit until a decision), else those of an earlier state and a
    fit started at once, waited for up to ``patience`` seconds (the whole fit in a
    library of up to :data:`SMALL_LIBRARY` papers); each decision waits as long for its
    fit (``serve`` waits 0: its page polls for the new order). A ``--like`` run always
    fits (its scores are not cached). ``on_build`` and ``quiet`` (above
    :data:`SMALL_LIBRARY` papers): see :class:`LiveRanker`; when the library has no
    index file yet and a fit starts now, ``on_build`` is told at once, before any
    wait (the thread would tell it only after its imports and reads)."""
    from readinglist.ranking import fitted, trust

    with read_factory() as session:
        counter = fitted.change_counter(session)
    # The interest order's file (no numpy before the first screen), else the scores'.
    first: Fitted | Ranked | None = fitted.read_order(url, counter, stale=True)
    if first is None or first.key != fitted.key(counter):
        first = fitted.read(url, counter, stale=True) or first
    current = like is None and first is not None and first.key == fitted.key(counter)
    papers = trust.papers_counted(counter.shape)[0]
    small = papers <= SMALL_LIBRARY
    waits = None if small else patience
    ranker = LiveRanker(
        read_factory,
        url,
        None if like else first,
        current=current,
        like=like,
        patience=waits,
        on_build=on_build,
        quiet=0.0 if small else quiet,
    )
    if not current and not fitted.cache_path(url).exists():
        ranker.told(fitted.build_notice(papers))  # the thread builds it: the first run
    if not current:
        ranker.wait(waits)
        ranker.fresh()  # the queue is ordered by these scores from the start
    return ranker
