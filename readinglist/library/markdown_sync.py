"""A Markdown list of ours synced back: read status and tags, matched by citation key.

Floor 7 of :mod:`readinglist.library` (imports :mod:`.importing` for its report,
:mod:`.marks`, :mod:`.papers`, :mod:`.refs`, :mod:`.tags`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from readinglist.library.importing import ImportReport
from readinglist.library.marks import checked_stamp, status_changed_since
from readinglist.library.papers import set_status
from readinglist.library.refs import find_paper
from readinglist.library.tags import add_tags, remove_tags
from readinglist.models import Paper
from readinglist.records import PaperRecord, ParseProblem
from readinglist.text import tag_key


def sync_markdown(
    session: Session,
    records: Sequence[PaperRecord],
    *,
    source: str,
    decided: datetime | None = None,
) -> ImportReport:
    """Apply read status and tags from one of our Markdown lists, matched by citation key.

    Rules: a ticked box sets ``read``; an unticked box on a paper that is
    read sets ``to-read``; under a status heading a paper takes that heading's
    status. Tags follow the list: a ``#tag`` added in the list is added, a tag
    deleted from the list is removed (every export writes all of a paper's tags).
    Unknown keys are reported as problems. Returns an ImportReport whose
    ``merged`` lists the changed keys with what changed.

    ``decided`` is the time the list's marker names (``formats.markdown.decided_time``):
    every status change the library held when the list was written was made by then.
    A paper whose status changed in the library after it and differs from the list's
    keeps that newer decision and its tags (the list's item is older than the paper),
    with a warning naming both statuses, instead of taking the list's (a stale list
    synced back must not undo triage). Tags have no history: a tag added since to a
    paper whose status did not change is removed when the list lacks it. None (a list
    without the stamp) applies the list as before. A time in the future or after the
    library's newest status change is refused with a warning (:func:`checked_stamp`).
    """
    report = ImportReport()
    decided, refused = checked_stamp(session, decided)
    if refused:
        report.problems.append(ParseProblem(refused, source, 1, "warning"))
    for record in records:
        paper = find_paper(session, record.citekey or "")
        if paper is None:
            report.problems.append(
                ParseProblem(
                    f"no paper with citation key {record.citekey!r}", source, record.line, "warning"
                )
            )
            continue
        status = listed_status(record, paper.status)
        changes: list[str] = []
        if (
            status
            and status != paper.status
            and decided is not None
            and status_changed_since(session, [paper.id], decided)
        ):
            report.problems.append(
                ParseProblem(
                    f"{paper.citekey!r} was marked {paper.status!r} after this list was "
                    f"written (here, or by an earlier import of this list); keeping it and "
                    f"its tags (the list says {status!r}); export the list again to edit it",
                    source,
                    record.line,
                    "warning",
                )
            )
            report.present.append(paper.citekey)
            continue
        if status and status != paper.status:
            set_status(session, [paper], status)
            changes.append(f"status {status}")
        changes += _sync_tags(session, paper, record.tags)
        if changes:
            report.merged.append((paper.citekey, changes))
        else:
            report.present.append(paper.citekey)
    return report


def listed_status(record: PaperRecord, status: str) -> str | None:
    """The status a list's item gives a paper whose status is ``status`` (rules of
    :func:`sync_markdown`): ``read`` for a ticked box, ``to-read`` for an unticked box
    on a read paper (no other status heading), else the heading's (None: none)."""
    if record.fields.get("checked") == "true":
        return "read"
    if status == "read" and record.status in (None, "read"):
        return "to-read"
    return record.status


def _sync_tags(session: Session, paper: Paper, tags: Sequence[str]) -> list[str]:
    """Give ``paper`` exactly the list's ``tags`` (case-insensitively, ``tag_key``);
    return what changed (``tags +a, +b`` and ``tags -c``), nothing when nothing did."""
    have = {t.name_folded: t.name for t in paper.tags}
    listed = {tag_key(t) for t in tags if t.strip()}
    new_tags = [t for t in tags if t.strip() and tag_key(t) not in have]
    gone = [name for folded, name in have.items() if folded not in listed]
    changes: list[str] = []
    if new_tags:
        add_tags(session, [paper], new_tags)
        changes.append("tags +" + ", +".join(new_tags))
    if gone:
        remove_tags(session, [paper], gone)
        changes.append("tags -" + ", -".join(gone))
    return changes
