"""The interactive triage loop (``readinglist triage``), testable without a terminal.

:class:`Triage` walks a queue of paper ids one at a time, shows a card (venue,
year, title, authors, links, the abstract wrapped and fitted to the terminal, a
progress line over the whole inbox and a key legend) and applies single-key
decisions. Each decision is committed at once in its own transaction
(``session_factory()`` is entered once per decision), so quitting, Ctrl-C, a closed
terminal or ``kill -9`` loses no decision made before it; running again resumes with
the papers still ``new``. Keys act on the paper shown; after a decision or ``space``
the next paper is the next one not yet decided, so a paper reached again by ``b``, a
search or the overview is shown as decided (with its decision) and deciding it
changes it alone. ``u`` undoes the last decision of this run (several times: a
stack), writing the inverse change; with nothing left in this run it goes on with
the status history, which is the same stack kept across runs
(``library.marks.last_undoable``): an undo records which change it undid, so an
undo after quitting never re-applies an undone decision. An undo is a
compare-and-set on the status history: a paper another process changed since is
left as it is, with a message. ``v`` lists the next titles with their interest to go
to one, ``/`` searches the inbox, ``w`` says why a paper scores as it does, ``x``
pages through the whole abstract.

The order is fitted in a background thread (:mod:`readinglist.triage_rank`): when a
newer fit arrives the papers after the current one are ordered again before the next
screen. The screens are drawn by :mod:`readinglist.triage_view`; what is read from the
library beyond one paper by :mod:`readinglist.triage_inbox`. The terminal is
injected (:class:`Terminal`): the CLI adapts Click's ``getchar``, ``prompt``,
``clear`` and ``launch``; tests pass a scripted fake. This module imports no Click
(ARCHITECTURE.md dependency rules).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager, suppress
from typing import Any, Protocol, TypeVar

from sqlalchemy import text
from sqlalchemy.orm import Session

from readinglist import counting, decided, library, triage_inbox
from readinglist.errors import Conflict, NotFound, ReadingListError
from readinglist.library import marks
from readinglist.models import Paper
from readinglist.records import WANTED_STATUSES, PaperRecord
from readinglist.text import counted
from readinglist.triage_overview import choose
from readinglist.triage_rank import Reranker
from readinglist.triage_run import Step, Summary
from readinglist.triage_view import (
    KEY_HELP,
    LEGENDS,
    abstract_pages,
    card,
    help_pages,
    legend,
    links,
    progress_line,
    why_lines,
)

__all__ = [
    "KEY_HELP",
    "LEGENDS",
    "Reranker",
    "Step",
    "Summary",
    "Terminal",
    "Triage",
    "card",
    "legend",
    "links",
    "progress_line",
    "query_sets_status",
]

T = TypeVar("T")
SessionFactory = Callable[[], AbstractContextManager[Session]]

#: Keys that set a read status (and move on to the next paper).
STATUS_KEYS: dict[str, str] = {"t": "to-read", "s": "skipped", "r": "reading", "d": "read"}
#: Keys that set a priority (the paper stays on screen).
PRIORITY_KEYS: dict[str, str] = {"h": "high", "m": "medium", "l": "low"}
NEXT_KEYS = (" ", "j")
#: Keys that go back to the previous paper of the queue.
BACK_KEYS = ("b", "k")
QUIT_KEYS = ("q", "Q")


class Terminal(Protocol):
    """What the loop needs from a terminal."""

    def width(self) -> int:
        """Return the number of columns."""
        ...

    def height(self) -> int:
        """Return the number of rows (screens never have more lines)."""
        ...

    def show(self, text: str) -> None:
        """Clear the screen and draw ``text``."""
        ...

    def getkey(self) -> str:
        """Read one key press; raise KeyboardInterrupt (Ctrl-C) or EOFError (Ctrl-D)."""
        ...

    def prompt(self, label: str, default: str = "", complete: Sequence[str] = ()) -> str | None:
        """Ask for a line of text, prefilled with ``default``, Tab completing a word from
        ``complete``; return it stripped, or None when empty or cancelled."""
        ...

    def launch(self, url: str) -> bool:
        """Open ``url`` in the browser; return False when that failed."""
        ...


def query_sets_status(query_text: str) -> bool:
    """True when the query has a ``status:`` term (then triage does not add ``status:new``)."""
    return re.search(r"(?:^|\s)-?status:", query_text) is not None


class Triage:
    """The triage loop over ``paper_ids`` (in the order given).

    Args:
        session_factory: returns a context manager yielding a Session in one
            transaction, committed on exit (``AppContext.session``); entered once per
            decision, so every decision is durable as soon as the next card shows.
        paper_ids: the queue, e.g. ``library.triage_queue(...)``.
        terminal: the :class:`Terminal` to draw on and read keys from.
        read_factory: like ``session_factory`` for reading cards (default: the same).
        ranker: re-orders the papers after the current one after each status decision
            (interest order, issue 14); None keeps the given order.
        earlier: ``{paper id: status}`` of the inbox's papers decided before this run
            (``triage_inbox.inbox_decided``), counted by the progress line.
        scope: the papers ``u`` may undo earlier decisions of (the run's selection);
            None: every paper.
        stop_after: end the run once this many papers are skipped since the last
            wanted one (the stopping aid, ``counting.SKIPPED_SINCE_WANTED``); None: never.
        statuses: ``{paper id: status}`` of the queue as the query that made it read
            them (``triage_inbox.Inbox.statuses``); None: read when the run starts (a
            second pass over every paper of a 61,000-paper inbox).
    """

    #: Blind screening (``--blind``): the other readers' decisions stay hidden until the
    #: reader has decided a paper, searches about them included (:meth:`search_refused`).
    blind: bool = False

    def __init__(
        self,
        session_factory: SessionFactory,
        paper_ids: Sequence[int],
        terminal: Terminal,
        *,
        read_factory: SessionFactory | None = None,
        ranker: Reranker | None = None,
        earlier: Mapping[int, str] | None = None,
        scope: Collection[int] | None = None,
        stop_after: int | None = None,
        statuses: Mapping[int, str] | None = None,
    ) -> None:
        self.ranker = ranker
        self.known = statuses
        self.stop_after = stop_after
        self.since_wanted = 0
        self.stopped = ""
        self.write_session = session_factory
        self.read_session = read_factory or session_factory
        self.queue = list(paper_ids)
        self.terminal = terminal
        self.index = 0
        self.steps: list[Step] = []
        self.message = ""
        self.status: dict[int, str] = {}
        self.initial: dict[int, str] = {}
        self.earlier = dict(earlier or {})
        self.scope = scope
        self.last_search = ""
        #: True when the run ended by Ctrl-C (the command exits 130).
        self.interrupted = False

    # --- the loop -----------------------------------------------------------------------

    def run(self) -> Summary:
        """Walk the queue until it ends (and the user leaves the end screen) or they quit."""
        self._load_statuses()
        try:
            while True:
                self._catch_up()
                if self.index >= len(self.queue):
                    self.terminal.show(self.end_screen())
                    if self.terminal.getkey() != "u" or not self.undo():
                        break
                    continue
                record = self.current_record()
                if record is None:
                    self.message = "that paper was removed meanwhile; skipped"
                    self.index += 1
                    continue
                self.terminal.show(self.screen(record))
                self._shown()
                if not self.press(self.terminal.getkey(), record):
                    break
        except KeyboardInterrupt:  # Ctrl-C: every decision is saved; the command says so
            self.interrupted = True
        except EOFError:  # Ctrl-D: quit
            pass
        finally:
            close = getattr(self.ranker, "close", None)
            if close is not None:
                close()
        return self.summary()

    def press(self, key: str, record: PaperRecord) -> bool:
        """Apply one key to the current paper; return False to quit.

        Problems the user can fix (a bad tag name, a paper removed meanwhile, a bad
        search) end up in :attr:`message`, shown on the next screen.
        """
        self.message = ""
        try:
            return self._press(key, record)
        except ReadingListError as err:
            self.message = f"not done: {err}"
            return True

    def _press(self, key: str, record: PaperRecord) -> bool:
        pid = self.queue[self.index]
        simple: dict[str, Callable[[], object]] = {
            "a": lambda: self.add_tags(pid),
            "n": lambda: self.add_note(pid),
            "e": lambda: self.edit_title(pid, record),
            "o": lambda: self.open_link(record),
            "u": self.undo,
            "v": self.overview,
            "/": self.search,
            "w": lambda: self.why(record),
            "x": lambda: self.whole_abstract(record),
            "?": self.help,
        }
        if key in STATUS_KEYS:
            self.set_status(pid, STATUS_KEYS[key])
            self.index = self.next_undecided()
            if self.stop_after is not None and self.since_wanted >= self.stop_after:
                self.stopped = (
                    f"stopped: {counted(self.since_wanted, 'paper')} skipped since the last"
                    f" wanted one (--stop-after {self.stop_after})"
                )
                return False
        elif key in PRIORITY_KEYS:
            self.set_priority(pid, PRIORITY_KEYS[key])
        elif key in simple:
            simple[key]()
        elif key in NEXT_KEYS:
            self.index = self.next_undecided()
        elif key in BACK_KEYS:
            self.back()
        elif key in QUIT_KEYS:
            return False
        else:
            self.message = f"unknown key {key!r}; ? shows the keys"
        return True

    # --- screens -------------------------------------------------------------------------

    def _statuses(self) -> list[str]:
        # the queue's statuses are self.status's values: every paper put in the queue gets
        # one (_load_statuses, _undo_status) and only queued papers do
        return [*self.earlier.values(), *self.status.values()]

    def progress(self) -> str:
        """Return the progress line: the place of the current paper in the whole inbox
        (decided before this run, then the queue) and its counts by status."""
        total = len(self.earlier) + len(self.queue)
        position = len(self.earlier) + min(self.index + 1, len(self.queue))
        return progress_line(position, total, self._statuses())

    def decided(self, pid: int) -> bool:
        """True when ``pid`` got a status in this run (not undone since)."""
        return self.status.get(pid) != self.initial.get(pid) or any(
            step.kind == "status" and step.paper_id == pid for step in self.steps
        )

    def next_undecided(self) -> int:
        """Return the place of the next paper after the current one not decided in this
        run (the end of the queue when there is none)."""
        for place in range(self.index + 1, len(self.queue)):
            if not self.decided(self.queue[place]):
                return place
        return len(self.queue)

    def screen(self, record: PaperRecord) -> str:
        """Return the card of the current paper, fitted to the terminal: one line less
        than its rows, so that the cursor line after it (or a prompt) scrolls nothing
        off the top. A paper decided in this run says so and what its decision is."""
        message = self.message
        pid = self.queue[self.index]
        if self.decided(pid):
            note = f"decided in this run: {self.status[pid]}; a key changes it, space: next new"
            message = f"{message} | {note}" if message else note
        return card(
            record,
            progress=self.progress(),
            width=self.terminal.width(),
            height=self.terminal.height() - 1,
            message=message,
            model=self.model_line(pid),
        )

    def model_line(self, pid: int) -> str:
        """Return the line under the progress: the paper's interest and what the model
        learnt from (with a ranker), and the papers skipped since the last wanted one."""
        parts = []
        if self.ranker is not None:
            score = self.ranker.interest([pid]).get(pid)
            learnt = getattr(self.ranker, "learnt_from", None)
            if score is not None:
                parts.append(f"interest {score:.3f}")
            if learnt is not None:
                parts.append(learnt())
        if self.since_wanted:
            parts.append(f"{self.since_wanted} skipped since the last wanted paper")
        return " · ".join(parts)

    def end_screen(self) -> str:
        """Return the screen shown after the last paper."""
        total = len(self.earlier) + len(self.queue)
        counts = progress_line(total, total, self._statuses())
        return "\n".join(
            [
                f"End of the list: {counts}.",
                self.message,
                "u undo the last decision, any other key quits",
            ]
        )

    def help(self) -> None:
        """Show the keys, a page at a time on a short terminal, until a key is pressed."""
        for page in help_pages(self.terminal.height() - 1, self.terminal.width()):
            self.terminal.show(page)
            if self.terminal.getkey() in QUIT_KEYS:
                break

    def whole_abstract(self, record: PaperRecord) -> None:
        """Show the title and the whole abstract, a page at a time (``q`` stops)."""
        for page in abstract_pages(record, self.terminal.width(), self.terminal.height() - 1):
            self.terminal.show(page)
            if self.terminal.getkey() in QUIT_KEYS:
                break

    def why(self, record: PaperRecord) -> None:
        """Show the paper's interest and the terms that raised and lowered it."""
        pid = self.queue[self.index]
        if self.ranker is None:
            self.message = "no interest order in this run (--order added, or nothing decided)"
            return
        lines = why_lines(record.citekey, self.ranker.why(pid))
        self.terminal.show("\n".join([*lines, "", "press any key"]))
        self.terminal.getkey()

    # --- going to a paper ------------------------------------------------------------------

    def go_to(self, pid: int) -> None:
        """Show ``pid`` next: a paper further on moves to the current place (the others
        keep their order); one already passed is gone back to."""
        place = self.queue.index(pid)
        if place > self.index:
            self.queue.insert(self.index, self.queue.pop(place))
        else:
            self.index = place

    def overview(self) -> None:
        """List the next titles with their interest a page at a time; go to one by its
        number, single keys (:func:`readinglist.triage_overview.choose`)."""

        def page_rows(page: Sequence[int]) -> list[tuple[str, float | None]]:
            with self.read_session() as session:
                names = triage_inbox.titles(session, page)
            scores = self.ranker.interest(page) if self.ranker is not None else {}
            return [(names.get(p, "(removed)"), scores.get(p)) for p in page]

        chosen, self.message = choose(
            self.terminal, self.queue[self.index :], page_rows, self.progress()
        )
        if chosen is not None:
            self.go_to(chosen)

    def search_refused(self, text: str) -> str | None:
        """With ``blind``, a search that asks what other readers decided (``wanted-by:``,
        ``status:to-read@ana``: :func:`readinglist.query.tree.names_other_readers`) is
        refused: its matches would show their decisions before the reader's own."""
        if not self.blind:
            return None
        from readinglist import decided
        from readinglist.errors import InvalidQuery
        from readinglist.query.parser import parse
        from readinglist.query.tree import names_other_readers

        try:
            query = parse(text)
        except InvalidQuery:
            return None  # the search itself says what is wrong with it
        if names_other_readers(query, decided.current()):
            return "--blind: a search cannot ask what other readers decided (@reader, wanted-by:)"
        return None

    def search(self) -> None:
        """Ask for a query or words and go to the next paper of the queue they select,
        looking after the current paper first, then from the start; an empty answer
        repeats the last search."""
        answer = self.terminal.prompt("Search (query or words; Enter: next match)")
        text = answer or self.last_search
        if not text:
            self.message = "no search"
            return
        refused = self.search_refused(text)
        if refused:
            self.message = refused
            return
        self.last_search = text
        with self.read_session() as session:
            found = triage_inbox.matching(session, text)
        after = [p for p in self.queue[self.index + 1 :] if p in found]
        before = [p for p in self.queue[: self.index + 1] if p in found]
        if not after and not before:
            self.message = f"no paper of the inbox matches {text!r}"
            return
        self.go_to((after or before)[0])
        count = len(after) + len(before)
        self.message = f"{count} in the inbox match {text!r}; / then Enter: the next"

    # --- data ----------------------------------------------------------------------------

    def _load_statuses(self) -> None:
        if self.known is not None:
            found = dict(self.known)
        else:
            with self.read_session() as session:
                found = triage_inbox.statuses(session, self.queue)
        self._count_since_wanted()
        self.queue = [pid for pid in self.queue if pid in found]
        self.status = dict(found)
        self.initial = dict(found)

    def _count_since_wanted(self) -> None:
        with self.read_session() as session:
            found = session.execute(
                text(counting.SKIPPED_SINCE_WANTED), {"reader": decided.fold(decided.current())}
            ).scalar_one()
        self.since_wanted = int(found)

    def current_record(self) -> PaperRecord | None:
        """Return the record of the paper at :attr:`index` (read afresh), or None if gone."""
        with self.read_session() as session:
            paper = session.get(Paper, self.queue[self.index])
            return None if paper is None else library.to_record(paper)

    def _write(self, pid: int, action: Callable[[Session, Paper], T]) -> T:
        """Run ``action`` on paper ``pid`` in its own transaction (committed on return).
        The paper's collections (people, tags, notes) load when the action reads them,
        not before (``lazyload``): a status or a priority needs none of them."""
        from sqlalchemy.orm import lazyload

        with self.write_session() as session:
            paper = session.get(Paper, pid, options=[lazyload("*")])
            if paper is None:
                raise NotFound("that paper was removed meanwhile")
            return action(session, paper)

    def set_status(self, pid: int, status: str) -> None:
        """Set the read status of ``pid`` (recorded in its history) and remember the old one."""

        def act(session: Session, paper: Paper) -> tuple[int | None, str]:
            changed = library.set_status(session, [paper], status)
            event = marks.last_change_of(session, pid) if changed else None
            return event, paper.citekey

        event, key = self._write(pid, act)
        if event is None:
            self.status[pid] = status
            self.message = f"{key}: {status} already"
            return
        self.steps.append(Step("status", pid, event, f"{key} {status}"))
        self.status[pid] = status
        self.message = f"{key}: {status}"
        if status == "skipped":  # counted as the query counts, without running it again
            self.since_wanted += 1
        elif status in WANTED_STATUSES:
            self.since_wanted = 0
        else:
            self._count_since_wanted()
        self._rerank(pid, status)

    def _shown(self) -> None:
        """Tell a ranker fitting in the background that a screen is drawn (it starts
        its work then: ``triage_rank.LiveRanker.shown``)."""
        shown = getattr(self.ranker, "shown", None)
        if shown is not None:
            shown()

    def _catch_up(self) -> None:
        """Order the rest of the queue again when the ranker has fitted newer scores since
        (a ranker fitting in the background: ``triage_rank.LiveRanker.fresh``)."""
        fresh = getattr(self.ranker, "fresh", None)
        if self.ranker is not None and fresh is not None and fresh():
            rest = self.queue[self.index + 1 :]
            self.queue[self.index + 1 :] = self.ranker.order(rest)

    def _rerank(self, pid: int, status: str) -> None:
        """Tell the ranker of the decision and order the rest of the queue again: at once
        for a ranker that fits in order, only with newer scores for one fitting in the
        background (the same scores give the same order; :meth:`_catch_up` takes a fit
        that ends later)."""
        if self.ranker is not None:
            self.ranker.decide(pid, status)
            fresh = getattr(self.ranker, "fresh", None)
            if fresh is None or fresh():
                rest = self.queue[self.index + 1 :]
                self.queue[self.index + 1 :] = self.ranker.order(rest)

    def set_priority(self, pid: int, level: str | None) -> None:
        """Set the priority of ``pid``."""

        def act(session: Session, paper: Paper) -> Any:
            before = paper.priority_name
            library.set_priority(session, [paper], level)
            return before

        before = self._write(pid, act)
        self.steps.append(Step("priority", pid, before, f"priority {level}"))
        self.message = f"priority {level}"

    def add_tags(self, pid: int) -> None:
        """Ask for tags (comma- or space-separated; Tab completes the library's tags, the
        most used first) and add them to ``pid``."""
        with self.read_session() as session:
            counts = library.tag_counts(session)
        known = [name for name, _ in sorted(counts, key=lambda item: -item[1])]
        answer = self.terminal.prompt("Tags", complete=known)
        if not answer:
            self.message = "no tag added"
            return
        names = [library.check_tag_name(n) for n in answer.replace(",", " ").split()]

        def act(session: Session, paper: Paper) -> list[str]:
            have = {t.name_folded for t in paper.tags}
            new = list(dict.fromkeys(n for n in names if n.lower() not in have))
            if new:
                library.add_tags(session, [paper], new)
            return new

        added = self._write(pid, act)
        if added:
            self.steps.append(Step("tags", pid, added, "tag " + ", ".join(added)))
            self.message = "tagged " + ", ".join(added)
        else:
            self.message = "it has these tags already"

    def add_note(self, pid: int) -> None:
        """Ask for a one-line note and add it to ``pid``."""
        answer = self.terminal.prompt("Note")
        if not answer:
            self.message = "no note added"
            return
        note_id = self._write(pid, lambda s, p: library.add_note(s, p, answer).id)
        self.steps.append(Step("note", pid, note_id, "note"))
        self.message = f"added note {note_id}"

    def edit_title(self, pid: int, record: PaperRecord) -> None:
        """Ask for a new title for ``pid`` (it stops being provisional)."""
        answer = self.terminal.prompt("New title", record.title or "")
        if not answer or answer == record.title:
            self.message = "title unchanged"
            return

        def act(session: Session, paper: Paper) -> Any:
            before = (paper.title, paper.title_provisional)
            library.set_title(session, paper, answer)
            return before

        before = self._write(pid, act)
        self.steps.append(Step("title", pid, before, "title"))
        self.message = "title set"

    def back(self) -> None:
        """Go back to the previous paper of the queue (its decision stays until undone)."""
        if self.index == 0:
            self.message = "this is the first paper"
        else:
            self.index -= 1

    def open_link(self, record: PaperRecord) -> None:
        """Open the paper's first link in the browser."""
        found = links(record)
        if not found:
            self.message = "this paper has no link"
        elif self.terminal.launch(found[0]):
            self.message = f"opened {found[0]}"
        else:
            self.message = f"could not open {found[0]}"

    def undo(self) -> bool:
        """Undo the last decision of this run and go back to its paper; with none left,
        the last status decision of an earlier run (:meth:`undo_earlier`). False when
        there is nothing to undo. A status another process set since is left as it is
        (compare-and-set, ``library.marks.undo_status``): the message says so and the
        decision leaves the stack."""
        if not self.steps:
            return self.undo_earlier()
        step = self.steps.pop()
        if step.kind == "status":
            return self._undo_status(step.before, step.label)

        def act(session: Session, paper: Paper) -> None:
            if step.kind == "priority":
                library.set_priority(session, [paper], step.before)
            elif step.kind == "tags":
                names = [n for n in step.before if library.find_tag(session, n) is not None]
                if names:  # a tag deleted meanwhile has nothing left to undo
                    library.remove_tags(session, [paper], names)
            elif step.kind == "note":
                with suppress(NotFound):  # removed meanwhile: nothing left to undo
                    library.delete_notes(session, library.get_notes(session, [step.before]))
            elif step.kind == "title":
                title, provisional = step.before
                library.set_title(session, paper, title, provisional=provisional)

        try:
            self._write(step.paper_id, act)
        except ReadingListError:
            self.steps.append(step)
            raise
        self._show(step.paper_id)
        self.message = f"undone: {step.label}"
        return True

    def _undo_status(self, event: int, label: str) -> bool:
        """Undo the status change ``event`` (compare-and-set) and show its paper."""
        try:
            with self.write_session() as session:
                pid, old, _ = marks.undo_status(session, event)
        except (Conflict, NotFound) as err:
            self.message = f"not undone: {err}"
            return True
        self.status[pid] = old
        self._count_since_wanted()
        if pid not in self.queue:  # a decision of an earlier run: its paper comes back
            self.earlier.pop(pid, None)
            self.initial[pid] = old
            self.index = min(self.index, len(self.queue))
            self.queue.insert(self.index, pid)
        self._show(pid)
        self._rerank(pid, old)  # the rest of the queue follows the model without it
        self.message = f"undone: {label}"
        return True

    def _show(self, pid: int) -> None:
        if pid in self.queue:
            self.index = self.queue.index(pid)

    def undo_earlier(self) -> bool:
        """Undo the newest status decision still on the undo stack kept in the status
        history (``library.marks.last_undoable``: not undone, still in force; read date
        restored) and show its paper; False when none is left.

        Priorities, tags, notes and titles of earlier runs have no history and stay.
        """
        with self.read_session() as session:
            found = triage_inbox.last_decision(session, scope=self.scope)
        if found is None:
            self.message = "nothing to undo"
            return False
        event, _, key, new = found
        return self._undo_status(event, f"{key} {new} (decided before this run)")

    def summary(self) -> Summary:
        """Return what this run changed."""
        decided: Counter[str] = Counter()
        for pid, status in self.status.items():
            if status != self.initial.get(pid):
                decided[status] += 1
        # the queue's statuses are self.status's values (see _statuses)
        still_new = list(self.status.values()).count("new")
        total = len(self.earlier) + len(self.queue)  # the progress line's inbox
        return Summary(
            total=total,
            decided=decided,
            still_new=still_new,
            stopped=self.stopped,
            interrupted=self.interrupted,
        )
