"""What the read commands need from ``readinglist.ranking`` (issue 14), kept out of them.

Imported only inside command bodies: ``readinglist.ranking`` imports scikit-learn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from readinglist.cli._app import AppContext

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from readinglist.ranking.fitted import Fitted, Ranked
    from readinglist.ranking.ranker import Ranker
    from readinglist.records import PaperRecord
    from readinglist.tables import Executor


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


def interest_by_id(app: AppContext, session: Session, ids: Sequence[int]) -> Fitted | None:
    """Return the interest of the papers (``.get(paper id)``), or None without a model or
    ids: the fitted scores (:func:`fitted_scores`); the ranker and its index, when a fit
    was needed, are dropped on return, before a listing streams (issue 17)."""
    from readinglist import render

    return fitted_scores(app, session, on_fit=render.info) if ids else None


def fitted_scores(
    app: AppContext, connection: Executor, *, on_fit: Callable[[str], None] | None = None
) -> Fitted | None:
    """Return the interest of every paper fitted on the library as it is (one
    transaction: ``connection``), or None when there is nothing to learn from.

    Read from the fitted scores' file when its key is the library's (:mod:`.fitted`:
    milliseconds, numpy alone); else fitted now (the index loaded ``streamed``, every
    row read) and written there for the next command. ``on_fit`` is told, when the
    fit has run for :data:`FIT_NOTICE_SECONDS`, what is being done (a fit of 61,000
    papers takes seconds: a blank wait said nothing).
    """
    from readinglist.ranking import fitted

    counter = fitted.change_counter(connection)
    found = fitted.read(app.settings.database_url, counter)
    if found is not None:
        return found
    from sqlalchemy.orm import Session

    with ExitStack() as stack:
        session = (
            connection
            if isinstance(connection, Session)
            else stack.enter_context(Session(bind=connection))  # the same transaction
        )
        if not has_decisions(session):
            return None
        from readinglist.ranking.ranker import Ranker  # imported before the clock starts

        notice = "fitting the interest order to your decisions..."
        with notice_after(FIT_NOTICE_SECONDS, on_fit, notice) as cancel:

            def building(message: str) -> None:  # said instead: the build is the long part
                cancel()
                if on_fit is not None:
                    on_fit(message)

            ranker = Ranker.open(
                session, app.settings.database_url, streamed=True, on_build=building
            )
            table = ranker.interest_table()
            made = fitted.Fitted(fitted.key(counter), table.ids, table.scores, ranker.learnt_from())
    fitted.write(app.settings.database_url, made)
    return made


#: A fit that runs this long (seconds) says what it is doing (:func:`notice_after`).
FIT_NOTICE_SECONDS = 1.0


@contextmanager
def notice_after(
    seconds: float, tell: Callable[[str], None] | None, message: str
) -> Iterator[Callable[[], None]]:
    """Run the block; when it is still running after ``seconds``, ``tell(message)`` once
    (from a timer thread, so the block is never slowed down by it). The block gets a
    function that cancels the message (another one said what is going on)."""
    if tell is None:
        yield lambda: None
        return
    import threading

    timer = threading.Timer(seconds, tell, (message,))
    timer.daemon = True
    timer.start()
    try:
        yield timer.cancel
    finally:
        timer.cancel()


def list_by_interest(
    app: AppContext, text: str, as_json: bool, keys_only: bool, limit: int | None, reverse: bool
) -> None:
    """``list --sort interest``: the selected papers highest interest first, with their
    score, and on stderr what the model learnt from (:meth:`Ranker.learnt_from`).

    Only the ids of the selection are read to order it, by the fitted scores
    (:func:`fitted_scores`: read from their file when the library has not changed since
    they were fitted), and without a query only those that can be among the first
    ``limit`` (:func:`_interest_ids`); the papers shown, and only they, are then read a chunk at a time
    (``library.iter_listing``): ``--limit 20`` of a 61,000-paper library read every
    paper as an ORM object (25-30 s) before the limit applied, and fitted the model
    again on every run (seconds).
    """
    from readinglist import render
    from readinglist.library.listing import iter_listing

    with app.connection(write=False) as connection:
        ids, scores = _interest_ids(app, connection, text, limit, reverse)
        shown = ids[:limit] if limit else ids
        interest = scores.of_ids(shown) if scores is not None else {}
        if not ids:
            from readinglist.cli._query import warn_if_nothing_matched

            warn_if_nothing_matched(connection, text)
        elif scores is not None:
            render.info(scores.learnt)
        else:
            render.info("no interest yet: nothing decided to learn from; in the order of addition")
        if keys_only:
            keys = [r.citekey for _, r in iter_listing(connection, shown, table=True)]
            if keys:
                render.echo("\n".join(str(k) for k in keys))
        elif as_json:
            render.echo_json_array(
                render.paper_json(record, interest.get(pid))
                for pid, record in iter_listing(connection, shown)
            )
        else:
            by_key: dict[str, float | None] = {}

            def records() -> Iterator[PaperRecord]:
                for pid, record in iter_listing(connection, shown, table=True):
                    by_key[record.citekey or ""] = interest.get(pid)
                    yield record

            render.paper_table(records(), interest=by_key)


def _interest_ids(
    app: AppContext, connection: Executor, text: str, limit: int | None, reverse: bool
) -> tuple[list[int], Fitted | Ranked | None]:
    """The ids ``list --sort interest`` shows (all of them, or at least the first
    ``limit``) in their order, and their scores (None: nothing learnt yet).

    Without a query, a ``--limit`` is served from the interest order's file when it is
    current (:func:`readinglist.ranking.fitted.read_first`: the first ``limit`` ids and
    scores, no numpy) and its papers all exist, else from the fitted scores alone
    (:func:`readinglist.ranking.fitted.first_papers`: the papers that can be among the
    first read, not the ids of the whole library); otherwise, or when that cannot be
    told, the ids the query selects are read and ordered by the scores.
    """
    from readinglist import render
    from readinglist.library.refs import select_ids  # not via the package: no ORM hooks

    if limit and not text.strip():
        ranked = _first_ranked(app, connection, limit, reverse)
        if ranked is not None:
            return ranked.ids, ranked
        scores = fitted_scores(app, connection, on_fit=render.info)
        if scores is not None:
            from readinglist.ranking import fitted

            first = fitted.first_papers(connection, scores, limit, reverse=reverse)
            if first is not None:
                # a fit of an earlier version, or an order file lost: the next run reads it
                fitted.write_order(app.settings.database_url, scores)
                return first, scores
        ids = list(select_ids(connection, text))
    else:
        ids = list(select_ids(connection, text))
        scores = fitted_scores(app, connection, on_fit=render.info) if ids else None
    if scores is not None:
        ids = scores.order(ids)
    if reverse:
        ids.reverse()
    return ids, scores


def _first_ranked(
    app: AppContext, connection: Executor, limit: int, reverse: bool
) -> Ranked | None:
    """The first ``limit`` papers of the interest order's file when it is current and
    each of them is in the library (one query of their ids), else None."""
    from sqlalchemy import func, select

    from readinglist.ranking import fitted
    from readinglist.tables import PAPERS

    counter = fitted.change_counter(connection)
    ranked = fitted.read_first(app.settings.database_url, counter, limit, reverse=reverse)
    if ranked is None:
        return None
    found = connection.scalar(
        select(func.count()).select_from(PAPERS).where(PAPERS.c.id.in_(ranked.ids))
    )
    return ranked if found == len(ranked.ids) else None


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
