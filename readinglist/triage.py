"""The interactive triage loop (``readinglist triage``), testable without a terminal.

:class:`Triage` walks a queue of paper ids one at a time, shows a card (venue,
year, title, authors, links, the abstract wrapped to the terminal, a progress line
and a key legend) and applies single-key decisions. Each decision is committed at
once in its own transaction (``session_factory()`` is entered once per decision),
so quitting, Ctrl-C, a closed terminal or ``kill -9`` loses no decision made
before it; running again resumes with the papers still ``new``. ``u`` undoes the
last decision of this run (several times: a stack), writing the inverse change
(a status change back is recorded in the status history like any other).

The terminal is injected (:class:`Terminal`): the CLI adapts Click's ``getchar``,
``prompt``, ``clear`` and ``launch``; tests pass a scripted fake. This module
imports no Click (ARCHITECTURE.md dependency rules).
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, suppress
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from readinglist import library
from readinglist.errors import NotFound, ReadingListError
from readinglist.models import Paper
from readinglist.records import PaperRecord
from readinglist.render import PROVISIONAL_MARK
from readinglist.text import counted, latex_to_unicode

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

#: Every key with what it does, for the ``?`` screen and the legend.
KEY_HELP: tuple[tuple[str, str], ...] = (
    ("t", "to read (next paper)"),
    ("s", "skip (next paper)"),
    ("r", "reading (next paper)"),
    ("d", "read, done (next paper)"),
    ("h/m/l", "priority high / medium / low"),
    ("a", "add tags (comma-separated)"),
    ("n", "add a note"),
    ("e", "edit the title"),
    ("o", "open the first link in the browser"),
    ("u", "undo the last decision"),
    ("space/j", "next paper without deciding"),
    ("b/k", "back to the previous paper"),
    ("q", "quit (decisions are saved as you go)"),
    ("?", "this help"),
)
#: Legends from the most to the least explicit; the first shorter than the width is shown.
LEGENDS: tuple[str, ...] = (
    "t to-read  s skip  r reading  d read  h/m/l priority  a tag  n note  e title  "
    "o open  u undo  space next  b back  q quit  ? help",
    "t:to-read s:skip r:reading d:read h/m/l:priority a:tag n:note e:title o:open u:undo "
    "space:next q:quit ?:help",
    "t:to-read s:skip r:reading d:read h/m/l:prio a:tag n:note e:title o:open u:undo q:quit ?:help",
    "t:to-read s:skip r:reading d:read h/m/l:prio a:tag n:note u:undo q:quit ?:more",
    "t s r d h m l a n e o u q  ?:help",
)


class Terminal(Protocol):
    """What the loop needs from a terminal."""

    def width(self) -> int:
        """Return the number of columns."""
        ...

    def show(self, text: str) -> None:
        """Clear the screen and draw ``text``."""
        ...

    def getkey(self) -> str:
        """Read one key press; raise KeyboardInterrupt (Ctrl-C) or EOFError (Ctrl-D)."""
        ...

    def prompt(self, label: str, default: str = "") -> str | None:
        """Ask for a line of text, prefilled with ``default``; return it stripped, or
        None when empty or cancelled."""
        ...

    def launch(self, url: str) -> bool:
        """Open ``url`` in the browser; return False when that failed."""
        ...


@dataclass(frozen=True)
class Step:
    """One decision of this run, enough to undo it.

    ``kind`` is ``status`` (before: ``(status, read_at)``), ``priority`` (before: the
    level or None), ``tags`` (before: the names that were added), ``note`` (before:
    the new note's id) or ``title`` (before: ``(title, title_provisional)``).
    ``index`` is the paper's place in the queue.
    """

    kind: str
    paper_id: int
    index: int
    before: Any
    label: str


@dataclass
class Summary:
    """What a run did: ``decided`` counts new statuses by name, ``still_new`` the papers
    of the queue left ``new``, ``total`` the queue's length."""

    total: int
    decided: Counter[str] = field(default_factory=Counter)
    still_new: int = 0

    def describe(self) -> str:
        """Return the one-line summary for stderr."""
        count = sum(self.decided.values())
        parts = ", ".join(f"{n} {name}" for name, n in sorted(self.decided.items()))
        text = f"triaged {count} of {counted(self.total, 'paper')}" + (
            f" ({parts})" if parts else ""
        )
        if self.still_new:
            text += f"; {self.still_new} still new: run `readinglist triage` again to go on"
        return text


def query_sets_status(query_text: str) -> bool:
    """True when the query has a ``status:`` term (then triage does not add ``status:new``)."""
    return re.search(r"(?:^|\s)-?status:", query_text) is not None


def progress_line(position: int, total: int, statuses: Sequence[str]) -> str:
    """Return ``"12/19, 7 to read, 4 skipped"`` (reading and read appended when any)."""
    counts = Counter(statuses)
    text = f"{position}/{total}, {counts['to-read']} to read, {counts['skipped']} skipped"
    for status in ("reading", "read"):
        if counts[status]:
            text += f", {counts[status]} {status}"
    return text


def legend(width: int) -> str:
    """Return the most explicit key legend shorter than ``width`` columns (a line of
    exactly the width would wrap on some terminals)."""
    for candidate in LEGENDS:
        if len(candidate) < width:
            return candidate
    return LEGENDS[-1]


def links(record: PaperRecord) -> list[str]:
    """Return the paper's links, the one ``o`` opens first: URL, DOI, arXiv, code."""
    found = []
    if record.url:
        found.append(record.url)
    if record.doi:
        found.append(f"https://doi.org/{record.doi}")
    if record.arxiv:
        found.append(f"https://arxiv.org/abs/{record.arxiv}")
    if record.code_url and record.code_url not in found:
        found.append(record.code_url)
    return found


def card(record: PaperRecord, *, progress: str, width: int, message: str = "") -> str:
    """Return the screen of one paper, lines at most ``width`` long where words allow.

    Progress line; venue and year; title (marked when provisional); authors;
    links; key, status, priority, tags and number of notes; the abstract (LaTeX
    decoded) wrapped to the width; the message of the last action; the legend.
    """
    width = max(width, 20)

    def wrap(text: str, indent: str = "") -> list[str]:
        return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False) or [""]

    lines = [progress, ""]
    where = " · ".join(str(x) for x in (record.venue, record.year) if x)
    if where:
        lines.append(where)
    title = (record.title or "(no title)") + (PROVISIONAL_MARK if record.title_provisional else "")
    lines += wrap(title)
    people = [p.display() for p in record.authors]
    lines += wrap("; ".join(people) if people else "(no authors)", "  ")
    lines += [f"  {link}" for link in links(record)]
    state = [f"{record.citekey}", f"status {record.status}"]
    if record.priority:
        state.append(f"priority {record.priority}")
    if record.tags:
        state.append("tags " + ", ".join(record.tags))
    if record.notes:
        state.append(counted(len(record.notes), "note"))
    lines += _pack(state, " | ", width)
    lines.append("")
    if record.abstract:
        for paragraph in latex_to_unicode(record.abstract).split("\n\n"):
            lines += wrap(" ".join(paragraph.split()))
    else:
        lines.append("(no abstract)")
    lines += ["", message, legend(width)]
    return "\n".join(lines)


def _pack(items: Sequence[str], separator: str, width: int) -> list[str]:
    """Join ``items`` with ``separator`` into lines of at most ``width`` (items kept whole)."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + len(separator) + len(item) <= width:
            lines[-1] += separator + item
        else:
            lines.append(item)
    return lines


class Reranker(Protocol):
    """Re-orders the rest of the queue after a decision (``readinglist.ranking``, issue 14)."""

    def decide(self, pid: int, status: str) -> None:
        """Take the new status of ``pid`` as a label."""
        ...

    def order(self, pids: Sequence[int]) -> list[int]:
        """Return ``pids`` highest interest first."""
        ...


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
    """

    def __init__(
        self,
        session_factory: SessionFactory,
        paper_ids: Sequence[int],
        terminal: Terminal,
        *,
        read_factory: SessionFactory | None = None,
        ranker: Reranker | None = None,
    ) -> None:
        self.ranker = ranker
        self.write_session = session_factory
        self.read_session = read_factory or session_factory
        self.queue = list(paper_ids)
        self.terminal = terminal
        self.index = 0
        self.steps: list[Step] = []
        self.message = ""
        self.status: dict[int, str] = {}
        self.initial: dict[int, str] = {}

    # --- the loop -----------------------------------------------------------------------

    def run(self) -> Summary:
        """Walk the queue until it ends (and the user leaves the end screen) or they quit."""
        self._load_statuses()
        try:
            while True:
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
                if not self.press(self.terminal.getkey(), record):
                    break
        except (KeyboardInterrupt, EOFError):
            pass
        return self.summary()

    def press(self, key: str, record: PaperRecord) -> bool:
        """Apply one key to the current paper; return False to quit.

        Problems the user can fix (a bad tag name, a paper removed meanwhile) end up
        in :attr:`message`, shown on the next screen.
        """
        self.message = ""
        try:
            return self._press(key, record)
        except ReadingListError as err:
            self.message = f"not done: {err}"
            return True

    def _press(self, key: str, record: PaperRecord) -> bool:
        pid = self.queue[self.index]
        if key in STATUS_KEYS:
            self.set_status(pid, STATUS_KEYS[key])
            self.index += 1
        elif key in PRIORITY_KEYS:
            self.set_priority(pid, PRIORITY_KEYS[key])
        elif key == "a":
            self.add_tags(pid)
        elif key == "n":
            self.add_note(pid)
        elif key == "e":
            self.edit_title(pid, record)
        elif key == "o":
            self.open_link(record)
        elif key == "u":
            self.undo()
        elif key in NEXT_KEYS:
            self.index += 1
        elif key in BACK_KEYS:
            self.back()
        elif key in QUIT_KEYS:
            return False
        elif key == "?":
            self.terminal.show(self.help_screen())
            self.terminal.getkey()
        else:
            self.message = f"unknown key {key!r}; ? shows the keys"
        return True

    # --- screens -------------------------------------------------------------------------

    def progress(self) -> str:
        """Return the progress line for the current position."""
        position = min(self.index + 1, len(self.queue))
        return progress_line(position, len(self.queue), [self.status[p] for p in self.queue])

    def screen(self, record: PaperRecord) -> str:
        """Return the card of the current paper."""
        return card(
            record, progress=self.progress(), width=self.terminal.width(), message=self.message
        )

    def end_screen(self) -> str:
        """Return the screen shown after the last paper."""
        counts = progress_line(len(self.queue), len(self.queue), list(self.status.values()))
        return "\n".join(
            [
                f"End of the list: {counts}.",
                self.message,
                "u undo the last decision, any other key quits",
            ]
        )

    def help_screen(self) -> str:
        """Return the list of keys."""
        rows = [f"  {key:<8} {text}" for key, text in KEY_HELP]
        return "\n".join(["Keys:", *rows, "", "press any key"])

    # --- data ----------------------------------------------------------------------------

    def _load_statuses(self) -> None:
        found: dict[int, str] = {}
        with self.read_session() as session:
            for start in range(0, len(self.queue), library.CHUNK):
                chunk = self.queue[start : start + library.CHUNK]
                found.update(
                    (int(pid), str(status))
                    for pid, status in session.execute(
                        select(Paper.id, Paper.status).where(Paper.id.in_(chunk))
                    )
                )
        self.queue = [pid for pid in self.queue if pid in found]
        self.status = dict(found)
        self.initial = dict(found)

    def current_record(self) -> PaperRecord | None:
        """Return the record of the paper at :attr:`index` (read afresh), or None if gone."""
        with self.read_session() as session:
            paper = session.get(Paper, self.queue[self.index])
            return None if paper is None else library.to_record(paper)

    def _write(self, pid: int, action: Callable[[Session, Paper], T]) -> T:
        """Run ``action`` on paper ``pid`` in its own transaction (committed on return)."""
        with self.write_session() as session:
            paper = session.get(Paper, pid)
            if paper is None:
                raise NotFound("that paper was removed meanwhile")
            return action(session, paper)

    def set_status(self, pid: int, status: str) -> None:
        """Set the read status of ``pid`` (recorded in its history) and remember the old one."""

        def act(session: Session, paper: Paper) -> tuple[Any, str]:
            before = (paper.status, paper.read_at)
            library.set_status(session, [paper], status)
            return before, paper.citekey

        before, key = self._write(pid, act)
        self.steps.append(Step("status", pid, self.index, before, f"{key} {status}"))
        self.status[pid] = status
        self.message = f"{key}: {status}"
        self._rerank(pid, status)

    def _rerank(self, pid: int, status: str) -> None:
        if self.ranker is not None:
            self.ranker.decide(pid, status)
            rest = self.queue[self.index + 1 :]
            self.queue[self.index + 1 :] = self.ranker.order(rest)

    def set_priority(self, pid: int, level: str | None) -> None:
        """Set the priority of ``pid``."""

        def act(session: Session, paper: Paper) -> Any:
            before = paper.priority_name
            library.set_priority(session, [paper], level)
            return before

        before = self._write(pid, act)
        self.steps.append(Step("priority", pid, self.index, before, f"priority {level}"))
        self.message = f"priority {level}"

    def add_tags(self, pid: int) -> None:
        """Ask for tags (comma- or space-separated) and add them to ``pid``."""
        answer = self.terminal.prompt("Tags")
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
            self.steps.append(Step("tags", pid, self.index, added, "tag " + ", ".join(added)))
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
        self.steps.append(Step("note", pid, self.index, note_id, "note"))
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
        self.steps.append(Step("title", pid, self.index, before, "title"))
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
        """Undo the last decision of this run and go back to its paper; False if none."""
        if not self.steps:
            self.message = "nothing to undo"
            return False
        step = self.steps.pop()

        def act(session: Session, paper: Paper) -> None:
            if step.kind == "status":
                status, read_at = step.before
                library.restore_status(session, paper, status, read_at)
            elif step.kind == "priority":
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
        if step.kind == "status":
            self.status[step.paper_id] = step.before[0]
            if self.ranker is not None:
                self.ranker.decide(step.paper_id, step.before[0])
        self.index = step.index
        self.message = f"undone: {step.label}"
        return True

    def summary(self) -> Summary:
        """Return what this run changed."""
        decided: Counter[str] = Counter()
        for pid, status in self.status.items():
            if status != self.initial.get(pid):
                decided[status] += 1
        still_new = sum(1 for pid in self.queue if self.status.get(pid) == "new")
        return Summary(total=len(self.queue), decided=decided, still_new=still_new)
