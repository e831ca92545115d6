"""Triage in a shared library: what the other readers decided, a line of the header.

:class:`ReadersTriage` is the triage loop (:class:`readinglist.triage.Triage`) with the
line under the progress extended by :func:`readinglist.library.agreement.others_line`
("2 of 5 other readers want it"), read when the screen is drawn, so a decision another
reader makes meanwhile shows at the next key. With ``blind`` the others' decisions
stay hidden until the current reader has decided the paper (blind double screening as
systematic-review screeners such as Rayyan and ASReview run it). A personal library
(one reader) gets no line: its screen is as before.
"""

from __future__ import annotations

from typing import Any

from readinglist.library.agreement import others_line
from readinglist.triage import Triage


class ReadersTriage(Triage):
    """:class:`~readinglist.triage.Triage` that shows the other readers' decisions;
    ``blind`` hides them on a paper the current reader has not decided (status ``new``)."""

    def __init__(self, *args: Any, blind: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.blind = blind

    def model_line(self, pid: int) -> str:
        """The line under the progress (:meth:`Triage.model_line`) and, in a shared
        library, what the other readers decided (:func:`others_line`)."""
        line = super().model_line(pid)
        with self.read_session() as session:
            others = others_line(session, pid, self.status.get(pid, "new"), blind=self.blind)
        return " · ".join(part for part in (line, others) if part)
