"""What the read commands need from ``readinglist.ranking`` (issue 14), kept out of them.

Imported only inside command bodies: ``readinglist.ranking`` imports scikit-learn.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from readinglist.cli._app import AppContext

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from readinglist.ranking.ranker import Interest, Ranker
    from readinglist.records import PaperRecord


def has_decisions(session: Session) -> bool:
    """True when some paper is a positive (the interest model exists only then)."""
    from sqlalchemy import or_, select

    from readinglist.models import PRIORITY_CODES, Paper
    from readinglist.ranking.model import POSITIVE_STATUSES

    found = session.execute(
        select(Paper.id)
        .where(or_(Paper.status.in_(POSITIVE_STATUSES), Paper.priority == PRIORITY_CODES["high"]))
        .limit(1)
    ).first()
    return found is not None


def open_ranker(
    app: AppContext, session: Session, like: str | None = None, *, streamed: bool = False
) -> Ranker | None:
    """Return the library's Ranker, or None when there is nothing to learn from.
    ``streamed``: for one pass of scores over many papers (the index's rows are read
    from its cache file a block at a time; ``store.load``)."""
    if not has_decisions(session) and not (like and like.strip()):
        return None
    from readinglist import render
    from readinglist.ranking.ranker import Ranker

    return Ranker.open(
        session, app.settings.database_url, like=like, streamed=streamed, on_build=render.info
    )


def interest_by_id(app: AppContext, session: Session, ids: Sequence[int]) -> Interest | None:
    """Return the interest of the papers (``.get(paper id)``), or None without a model or
    ids; the ranker and its index are dropped on return, before a listing streams
    (issue 17)."""
    ranker = open_ranker(app, session, streamed=True) if ids else None
    return ranker.interest_table() if ranker is not None else None


def list_by_interest(
    app: AppContext, text: str, as_json: bool, keys_only: bool, limit: int | None, reverse: bool
) -> None:
    """``list --sort interest``: the selected papers highest interest first, with their
    score, and on stderr what the model learnt from (:meth:`Ranker.learnt_from`).

    Only the ids of the selection are read to order it (the ranker scores the index's
    rows); the papers shown, and only they, are then read a chunk at a time
    (``library.iter_listing``): ``--limit 20`` of a 61,000-paper library read every
    paper as an ORM object (25-30 s) before the limit applied.
    """
    from readinglist import library, render
    from readinglist.library.listing import iter_listing

    with app.session(write=False) as session:
        ids = list(library.select_ids(session, text))
        ranker = open_ranker(app, session, streamed=True) if ids else None
        if ranker is not None:
            ids = ranker.order(ids)
        if reverse:
            ids.reverse()
        shown = ids[:limit] if limit else ids
        scores = ranker.interest(shown) if ranker is not None else {}
        learnt = ranker.learnt_from() if ranker is not None else None
        if not ids:
            from readinglist.cli._query import warn_if_nothing_matched

            warn_if_nothing_matched(session, text)
        elif learnt is not None:
            render.info(learnt)
        else:
            render.info("no interest yet: nothing decided to learn from; in the order of addition")
        if keys_only:
            keys = [r.citekey for _, r in iter_listing(session, shown, table=True)]
            if keys:
                render.echo("\n".join(str(k) for k in keys))
        elif as_json:
            render.echo_json_array(
                render.paper_json(record, scores.get(pid))
                for pid, record in iter_listing(session, shown)
            )
        else:
            by_key: dict[str, float | None] = {}

            def records() -> Iterator[PaperRecord]:
                for pid, record in iter_listing(session, shown, table=True):
                    by_key[record.citekey or ""] = scores.get(pid)
                    yield record

            render.paper_table(records(), interest=by_key)


def show_why(app: AppContext, ref: str, as_json: bool) -> None:
    """``show REF --why``: the interest of one paper and the parts that add up to it."""
    from readinglist import library, render
    from readinglist.ranking import LIKE_MODEL

    with app.session(write=False) as session:
        paper = library.resolve(session, ref)
        key, pid = paper.citekey, paper.id
        ranker = open_ranker(app, session)
        why = None if ranker is None else ranker.why(pid)
    if as_json:
        parts = None if why is None else why.rounded(4)
        render.echo_json(
            {
                "key": key,
                "interest": None if parts is None else parts.score,
                "model": None
                if parts is None
                else ("like" if parts.model == LIKE_MODEL else f"tag:{parts.model}")
                if parts.model
                else "all decisions",
                "raised": [{"term": t.term, "weight": t.weight} for t in parts.up] if parts else [],
                "lowered": [{"term": t.term, "weight": t.weight} for t in parts.down]
                if parts
                else [],
                "other_terms": None if parts is None else parts.other,
                "topic_similarity": None if parts is None else parts.topic,
                "minus_library_average": None if parts is None else parts.offset,
            }
        )
        return
    from readinglist.triage_view import why_lines

    render.echo("\n".join(why_lines(key, why)))
