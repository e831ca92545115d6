"""What one triage run did: its decisions, each enough to undo it (:class:`Step`), and
the summary printed when it ends (:class:`Summary`). Used by :mod:`readinglist.triage`
and the ``triage`` and ``serve`` commands; imports nothing of the library.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from readinglist.text import counted


@dataclass(frozen=True)
class Step:
    """One decision of this run, enough to undo it.

    ``kind`` is ``status`` (before: the id of the status event it wrote, which
    ``library.marks.undo_status`` undoes), ``priority`` (before: the
    level or None), ``tags`` (before: the names that were added), ``note`` (before:
    the new note's id) or ``title`` (before: ``(title, title_provisional)``).
    """

    kind: str
    paper_id: int
    before: Any
    label: str


@dataclass
class Summary:
    """What a run did: ``decided`` counts the new statuses of this run by name; ``total``
    is the whole inbox the progress line counts (papers decided before this run and the
    queue) and ``still_new`` its papers left ``new``."""

    total: int
    decided: Counter[str] = field(default_factory=Counter)
    still_new: int = 0
    stopped: str = ""
    #: True when the run ended by Ctrl-C.
    interrupted: bool = False
    #: The command that goes on where this run stopped (its reader, options and query).
    again: str = "readinglist triage"

    def describe(self) -> str:
        """Return the one-line summary for stderr: this run's decisions, then the inbox as
        the progress line counts it (a fresh user saw "triaged 1 of 18" after a progress
        line of "2/19")."""
        count = sum(self.decided.values())
        parts = ", ".join(f"{n} {name}" for name, n in sorted(self.decided.items()))
        text = f"triaged {counted(count, 'paper')} in this run" + (f" ({parts})" if parts else "")
        text += f"; inbox: {self.total - self.still_new} of {self.total} decided"
        if self.still_new:
            text += f", {self.still_new} still new: run `{self.again}` again to go on"
        return f"{self.stopped}; {text}" if self.stopped else text
