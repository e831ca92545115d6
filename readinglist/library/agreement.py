"""Two readers compared: the papers both decided, their agreement and their conflicts.

A reader has *decided* a paper when their status of it is not ``new`` (a row of
``decisions`` with another status; :mod:`.decisions`). Two readers are compared on the
papers both decided, in two ways:

* **want vs skip**: each status collapsed to "want" (:data:`readinglist.records.WANTED_STATUSES`,
  the one definition of wanting) or "skip" (``skipped``), the question a screening
  asks; a *conflict* is a paper one wants and the other skipped (``list --conflicts``);
* **statuses**: the four decided statuses as they are (``to-read``, ``reading``,
  ``read``, ``skipped``).

Agreement is Cohen's kappa (J. Cohen, "A coefficient of agreement for nominal scales",
1960: ``(p_o - p_e) / (1 - p_e)``), computed by scikit-learn's
``sklearn.metrics.cohen_kappa_score`` (imported only when a kappa is computed). Kappa
is undefined when chance agreement ``p_e`` is 1, which happens exactly when both
readers gave every paper one and the same answer, and when no paper was decided by
both: :func:`kappa` then returns None with the reason, never NaN. Core only (no ORM).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, select

from readinglist import decided
from readinglist.errors import UsageError
from readinglist.library import readers
from readinglist.records import STATUSES, WANTED_STATUSES
from readinglist.tables import DECISIONS, PAPERS, Executor
from readinglist.text import plural

#: The statuses of a decided paper, in the order tables show them.
DECIDED: tuple[str, ...] = tuple(s for s in STATUSES if s != "new")
#: The two answers of a screening, in the order tables show them.
ANSWERS: tuple[str, str] = ("want", "skip")


def answer(status: str) -> str:
    """``want`` for a status in :data:`readinglist.records.WANTED_STATUSES`, else ``skip``."""
    return "want" if status in WANTED_STATUSES else "skip"


def kappa(
    first: Sequence[str], second: Sequence[str], labels: Sequence[str]
) -> tuple[float | None, str]:
    """Cohen's kappa of two raters' labels of the same items (``first[i]`` and
    ``second[i]`` rate item ``i``), and "" — or None and why it is undefined: no item
    (``first`` empty), or one label only between them (chance agreement is 1, so
    ``cohen_kappa_score`` would divide by zero and return NaN). ``labels`` fixes the
    classes (scikit-learn's ``labels``). Raises ValueError when the lengths differ."""
    if len(first) != len(second):
        raise ValueError("both readers must rate the same papers")
    if not first:
        return None, "no paper was decided by both readers"
    used = set(first) | set(second)
    if len(used) < 2:
        only = next(iter(used))
        return None, (
            f"both readers answered {only!r} for every paper they both decided: kappa is "
            "undefined (chance agreement is 1)"
        )
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(list(first), list(second), labels=list(labels))), ""


def confusion(pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> list[list[int]]:
    """The confusion table of ``pairs`` (first reader's label, second's): row ``i`` is
    the first reader's ``labels[i]``, column ``j`` the second's ``labels[j]``."""
    place = {label: i for i, label in enumerate(labels)}
    table = [[0] * len(labels) for _ in labels]
    for a, b in pairs:
        table[place[a]][place[b]] += 1
    return table


@dataclass(frozen=True)
class Comparison:
    """What two readers decided about the papers both decided: ``pairs`` holds
    ``(paper id, status of first, status of second)`` in the order of addition."""

    first: str
    second: str
    pairs: tuple[tuple[int, str, str], ...]

    def statuses(self) -> list[tuple[str, str]]:
        """``(status of first, status of second)`` per paper."""
        return [(a, b) for _, a, b in self.pairs]

    def answers(self) -> list[tuple[str, str]]:
        """``(answer of first, answer of second)`` per paper (:func:`answer`)."""
        return [(answer(a), answer(b)) for _, a, b in self.pairs]

    def summary(self) -> dict[str, Any]:
        """The agreement document (``agreement --json``): ``readers`` [first, second],
        ``papers`` (decided by both), ``agreed`` (same answer), ``observed`` (agreed /
        papers, None without papers), ``kappa`` and ``kappa_undefined`` (None, or why)
        of want vs skip, ``want`` {``labels``, ``table``}, ``statuses`` {``labels``,
        ``table``, ``kappa``, ``kappa_undefined``}; tables are rows of the first
        reader by columns of the second (:func:`confusion`)."""
        answers = self.answers()
        statuses = self.statuses()
        want_kappa, want_why = kappa([a for a, _ in answers], [b for _, b in answers], ANSWERS)
        status_kappa, status_why = kappa(
            [a for a, _ in statuses], [b for _, b in statuses], DECIDED
        )
        agreed = sum(1 for a, b in answers if a == b)
        return {
            "readers": [self.first, self.second],
            "papers": len(self.pairs),
            "agreed": agreed,
            "observed": agreed / len(self.pairs) if self.pairs else None,
            "kappa": want_kappa,
            "kappa_undefined": want_why or None,
            "want": {"labels": list(ANSWERS), "table": confusion(answers, ANSWERS)},
            "statuses": {
                "labels": list(DECIDED),
                "table": confusion(statuses, DECIDED),
                "kappa": status_kappa,
                "kappa_undefined": status_why or None,
            },
        }

    def conflicts(self) -> list[tuple[int, str, str]]:
        """The papers one reader wants and the other skipped, as ``pairs`` holds them."""
        return [row for row in self.pairs if answer(row[1]) != answer(row[2])]


def two_readers(session: Executor, first: str, second: str) -> tuple[str, str]:
    """The two readers as stored (:func:`.readers.require`: NotFound, exit 3, for a
    reader with no row); UsageError when both name the same reader."""
    a, b = readers.require(session, first), readers.require(session, second)
    if decided.fold(a) == decided.fold(b):
        raise UsageError(f"give two different readers (both are {a!r})")
    return a, b


def compare(session: Executor, first: str, second: str) -> Comparison:
    """The :class:`Comparison` of the readers ``first`` and ``second`` (checked by
    :func:`two_readers`): one statement, the decisions of both joined on the paper,
    only papers neither has as ``new``, in the order of addition (then key)."""
    a, b = two_readers(session, first, second)
    mine, theirs = DECISIONS.alias("mine"), DECISIONS.alias("theirs")
    stmt = (
        select(mine.c.paper_id, mine.c.status, theirs.c.status)
        .join(theirs, theirs.c.paper_id == mine.c.paper_id)
        .join(PAPERS, PAPERS.c.id == mine.c.paper_id)
        .where(
            and_(
                mine.c.reader_id == decided.id_of(a),
                theirs.c.reader_id == decided.id_of(b),
                mine.c.status != "new",
                theirs.c.status != "new",
            )
        )
        .order_by(PAPERS.c.added_at, PAPERS.c.citekey_folded)
    )
    pairs = tuple((int(pid), str(x), str(y)) for pid, x, y in session.execute(stmt))
    return Comparison(a, b, pairs)


def others_wanting(session: Executor, paper_id: int) -> tuple[int, int]:
    """``(wanting, others)``: how many readers other than the current one want the paper
    ``paper_id`` (:data:`readinglist.records.WANTED_STATUSES`), and how many other readers the
    library has (a reader has a row once they decided something). One statement."""
    from sqlalchemy import func

    from readinglist.tables import READERS

    me = decided.CURRENT_ID
    wanting = (
        select(func.count())
        .select_from(DECISIONS)
        .where(
            DECISIONS.c.paper_id == paper_id,
            DECISIONS.c.reader_id.is_distinct_from(me),
            DECISIONS.c.status.in_(WANTED_STATUSES),
        )
        .scalar_subquery()
    )
    others = (
        select(func.count())
        .select_from(READERS)
        .where(READERS.c.id.is_distinct_from(me))
        .scalar_subquery()
    )
    row = session.execute(select(wanting, others)).one()
    return int(row[0]), int(row[1])


#: What triage and serve say instead of the other readers' decisions with ``--blind``
#: while the current reader has not decided the paper.
BLIND_LINE = "others' decisions hidden until you decide (--blind)"


def others_line(session: Executor, paper_id: int, status: str, *, blind: bool = False) -> str:
    """The line triage and ``show`` print about the other readers of a shared library:
    ``"2 of 5 other readers want it"``; "" when the current reader is the only one (a
    personal library looks as before). ``blind`` (``triage --blind``): while the
    current reader's ``status`` is ``new`` the others' decisions are hidden, so the
    line says only that (blind screening, as systematic-review screeners run it)."""
    wanting, others = others_wanting(session, paper_id)
    if not others:
        return ""
    if blind and status == "new":
        return BLIND_LINE
    noun = plural(others, "other reader wants", "other readers want")
    return f"{wanting} of {others} {noun} it"
