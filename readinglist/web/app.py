"""The routes of ``readinglist serve``: Starlette, Jinja2 templates, the static files.

``GET /`` starts a tab's run (:func:`.desk.open_desk`) and renders the whole page; every
other route is a ``POST`` from the page (htmx, with the CSRF header :mod:`.security`
checks) naming its run (``view``) and returns the ``#desk`` fragment (progress, list,
paper) that replaces the old one: a decision saves at once and the list re-ranks
without a reload. A :class:`readinglist.errors.ReadingListError` becomes the page's
message (a bad tag name, a paper removed meanwhile), and so does a database error (a
lock held too long, a server gone: the transaction rolled back), never a traceback.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy.exc import DBAPIError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from readinglist.errors import ReadingListError
from readinglist.library.agreement import BLIND_LINE
from readinglist.library.listing_rows import LISTING_COLUMNS, iter_listing_records
from readinglist.web import present
from readinglist.web.desk import (
    DecidedElsewhere,
    Desk,
    Desks,
    NotInList,
    Options,
    SessionFactory,
    open_desk,
    others_wanting,
    skip_topic,
    status_version,
    topics_of,
)
from readinglist.web.security import Guard, Secrets, allowed_hosts

HERE = Path(__file__).resolve().parent
#: The ``papers`` columns of a row of the list (``library.listing_rows.iter_listing_records``).
LIST_COLUMNS = ("id", "citekey", "title", "title_provisional", "year", "venue", "status")
#: The columns of the paper shown: a listing's, and the raw LaTeX forms (``fields``),
#: whose title keeps its formulas for KaTeX (:func:`present.title_text`).
PAPER_COLUMNS = (*LISTING_COLUMNS, "fields")
#: The largest paper id a request may name: SQL's BIGINT (the ids are row ids).
MAX_PAPER_ID = 2**63 - 1
#: How many similar papers the paper pane lists.
SIMILAR = 5
#: Topics the topic view clusters the run's papers into.
TOPICS = 8
#: The header that marks a 409 answer carrying the desk (a decision made elsewhere
#: meanwhile): the page shows it instead of an error line (static/page.js).
CONFLICT_HEADER = "X-Decided-Elsewhere"


@dataclass
class Served:
    """What the routes share: the library's transactions, the options, the runs of the
    open tabs, the secrets and the templates."""

    write: SessionFactory
    read: SessionFactory
    options: Options
    keys: Secrets
    desks: Desks
    templates: Environment
    said: Callable[[str], None]


#: The largest request body a POST route reads (a form of a key, a tag, a note or a
#: title: a note is at most a few kilobytes); longer ones get 413 before being read whole.
MAX_BODY = 1 << 20


async def bounded_body(request: Request) -> bytes | None:
    """The body of ``request``, or None when it is over :data:`MAX_BODY` bytes (by its
    Content-Length, or counted as it arrives for a chunked body)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def templates() -> Environment:
    """The Jinja2 environment: templates of the package, every value escaped."""
    return Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def desk_values(served: Served, name: str, desk: Desk, message: str = "") -> dict[str, Any]:
    """Return the values of the ``#desk`` fragment: progress, the list, the paper shown
    with its why, the topics, the message (the similar papers come with their own
    request, :func:`similar_papers`: the next paper is shown without waiting for them)."""
    run, blind = desk.run, served.options.blind
    pid = desk.current()
    window = desk.window()
    scores = run.ranker.interest(window) if run.ranker is not None else {}
    with served.read() as session:
        rows = desk.rows(
            window, lambda ids: iter_listing_records(session, ids, columns=LIST_COLUMNS)
        )
        shown = [] if pid is None else [pid]
        found = iter_listing_records(session, shown, with_notes=True, columns=PAPER_COLUMNS)
        record = next(iter(found), None)
        paper = None if record is None or pid is None else present.paper_view(record[1], pid)
        others = others_wanting(session, [*window, *shown], run.status, blind=blind)
        seen = 0 if pid is None else status_version(session, pid)
    listed = [
        {
            "id": p,
            "title": rows[p].title or "(no title)",
            "status": run.status.get(p, rows[p].status),
            "tags": list(rows[p].tags),
            "venue": rows[p].venue or "",
            "year": rows[p].year or "",
            "score": scores.get(p),
            "current": p == pid,
            "others": others.get(p, 0),
        }
        for p in window
        if p in rows
    ]
    unseen = paper is not None and paper["status"] == "new"  # --blind: the others stay hidden
    why = None
    if desk.show_why and paper is not None and run.ranker is not None and pid is not None:
        why = present.why_view(paper["key"], run.ranker.why(pid))
    return {
        "view": name,
        "reader": served.options.reader,
        "blind": served.options.blind,
        "blind_line": BLIND_LINE,
        "seen": seen,
        "others": 0 if pid is None or (blind and unseen) else others.get(pid, 0),
        "progress": desk.progress(),
        "listed": listed,
        "ranked": any(s is not None for s in scores.values()),
        "paper": paper,
        "decided": pid is not None and run.decided(pid),
        "why": why,
        "topics": desk.topics,
        "topic": desk.topic,
        "message": message,
        "pending": desk.pending(),
        "keys": present.key_help(),
    }


def similar_values(served: Served, desk: Desk, pid: int) -> list[tuple[str, float]]:
    """Return ``[(title, cosine)]`` of the :data:`SIMILAR` papers most like ``pid``
    (``ranking.ranker.similar``, the ``similar`` command's rule); none while the index
    is still being loaded (``Desk.index``)."""
    from readinglist import triage_inbox
    from readinglist.ranking.ranker import similar as similar_to

    with served.read() as session:
        index = desk.index(session)
        if index is None:
            return []
        found = similar_to(index, pid, SIMILAR)
        names = triage_inbox.titles(session, [i for i, _ in found])
    return [(names[i], s) for i, s in found if i in names]


def similar_papers(served: Served) -> Callable[[Request], Awaitable[Response]]:
    """``GET /similar?view=V&paper=ID``: the similar papers' fragment of the paper the
    page shows (asked for once it is shown; changes nothing). 409 for a run that is
    gone or a paper id that is not a number."""

    async def endpoint(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        form = dict(request.query_params)

        def work() -> Response:
            acting_for(served.options.reader)
            try:
                desk = served.desks.get(form.get("view", ""))
                pid = paper_id(form)
            except ReadingListError as err:
                return PlainTextResponse(str(err), status_code=409)
            found = [] if pid is None else similar_values(served, desk, pid)
            return render(served, "similar.html", {"similar": found})

        return await run_in_threadpool(work)

    return endpoint


def acting_for(reader: str) -> None:
    """Make ``reader`` the current reader of this worker thread (``decided.use``, a
    context variable) unless it is already: every library call of the request then
    reads and writes that reader's decisions."""
    from readinglist import decided

    if decided.current() != reader:
        decided.use(reader)


def render(
    served: Served,
    template: str,
    values: dict[str, Any],
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    """Render ``template`` with ``values`` (escaped) as an HTML answer (``status``,
    ``headers``)."""
    body = served.templates.get_template(template).render(**values)
    return HTMLResponse(body, status_code=status, headers=headers)


def page(served: Served) -> Callable[[Request], Awaitable[Response]]:
    """``GET /``: a new run for this tab and the whole page."""

    async def endpoint(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        def build() -> HTMLResponse:
            acting_for(served.options.reader)
            name = secrets.token_urlsafe(12)
            try:
                desk = open_desk(
                    served.write, served.read, served.options, served.said, served.desks.ranker
                )
            except ReadingListError as err:
                return HTMLResponse(f"<p>{err}</p>", status_code=400)
            served.desks.add(name, desk)
            with desk.lock:
                values = desk_values(served, name, desk)
            return render(served, "page.html", {**values, "csrf": served.keys.csrf})

        return await run_in_threadpool(build)

    return endpoint


def action(
    served: Served, act: Callable[[Desk, dict[str, str]], str]
) -> Callable[[Request], Awaitable[Response]]:
    """A ``POST`` route: ``act(desk, form)`` returns the message; the answer is the new
    ``#desk`` fragment (a ReadingListError is its message). The form is the
    ``application/x-www-form-urlencoded`` body htmx sends (``urllib.parse.parse_qs``;
    the last value of a repeated field)."""

    async def endpoint(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        body = await bounded_body(request)
        if body is None:
            return PlainTextResponse("request body too large", status_code=413)
        form = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}

        def work() -> Response:
            acting_for(served.options.reader)
            name = form.get("view", "")
            try:
                desk = served.desks.get(name)
            except ReadingListError as err:
                return PlainTextResponse(str(err), status_code=409)
            code, headers = 200, {}
            with desk.lock:
                try:
                    message = act(desk, form)
                except NotInList as err:
                    return PlainTextResponse(str(err), status_code=409)
                except DecidedElsewhere as found:  # the desk as it is now, with 409
                    message = desk.decided_elsewhere(found, form.get("key", ""))
                    code, headers = 409, {CONFLICT_HEADER: str(found.version)}
                except ReadingListError as err:
                    message = f"not done: {err}"
                except DBAPIError as err:  # a lock held too long, a server gone: nothing saved
                    message = f"not done, nothing was saved: the database said {err.orig}"
                desk.catch_up()
                desk.message = message
                values = desk_values(served, name, desk, message)
                return render(served, "desk.html", values, code, headers)

        return await run_in_threadpool(work)

    return endpoint


def seen_version(form: dict[str, str]) -> int | None:
    """The version of the paper's status the page showed (``seen``, ASCII digits:
    ``desk.status_version``); None when absent or not one (then nothing is checked)."""
    value = form.get("seen", "")
    if not (value.isascii() and value.isdigit()) or len(value) > 19:
        return None
    return int(value)


def paper_id(form: dict[str, str]) -> int | None:
    """The paper the page showed (``paper``), None when absent or blank (the end of the
    list); NotInList when it is not a paper id (ASCII digits, at most
    :data:`MAX_PAPER_ID`: SQL's BIGINT)."""
    value = form.get("paper", "")
    if not value:
        return None
    # ASCII digits only (str.isdigit also takes "１" and "١"), within a 64-bit row id
    # (leading zeros aside: "000...0123" is 123; at most 19 digits remain to be read).
    digits = value.lstrip("0") or "0"
    if not (value.isascii() and value.isdigit()) or len(digits) > 19 or int(digits) > MAX_PAPER_ID:
        raise NotInList(f"no paper {value[:40]!r} in this tab's list: nothing done")
    return int(digits)


def create_app(
    write: SessionFactory,
    read: SessionFactory,
    options: Options,
    *,
    host: str,
    port: int,
    keys: Secrets,
    said: Callable[[str], None],
) -> Guard:
    """Return the ASGI application of ``serve`` behind :class:`.security.Guard`, for a
    server bound to ``host``:``port``; ``said`` tells the terminal (an index rebuilt)."""
    served = Served(write, read, options, keys, Desks(), templates(), said)
    for name in ("page.html", "desk.html", "similar.html"):  # compiled now, not on a page
        served.templates.get_template(name)

    def go(desk: Desk, form: dict[str, str]) -> str:
        pid = paper_id(form)
        if pid is not None and pid in desk.run.queue:
            desk.run.go_to(pid)
        return ""

    def toggle_why(desk: Desk, form: dict[str, str]) -> str:
        desk.show_why = not desk.show_why
        no_model = desk.show_why and desk.run.ranker is None
        return "no interest order here (--order added, or nothing decided)" if no_model else ""

    def choose_topic(desk: Desk, form: dict[str, str]) -> str:
        label = form.get("label") or None
        desk.topic = label
        desk._keep_in_topic()
        return f"topic {label}" if label else "all topics"

    routes = [
        Route("/", page(served), methods=["GET"]),
        Route(
            "/act",
            action(
                served,
                lambda d, f: d.act(f.get("key", ""), paper_id(f), f.get("answer"), seen_version(f)),
            ),
            methods=["POST"],
        ),
        Route("/go", action(served, go), methods=["POST"]),
        Route("/similar", similar_papers(served), methods=["GET"]),
        # the page asks again while a fit runs: the newer order, the same message
        Route("/poll", action(served, lambda d, f: d.message), methods=["POST"]),
        Route("/why", action(served, toggle_why), methods=["POST"]),
        Route(
            "/topics",
            action(served, lambda d, f: _topics_message(topics_of(served.read, d, TOPICS))),
            methods=["POST"],
        ),
        Route("/topic", action(served, choose_topic), methods=["POST"]),
        Route(
            "/topic/skip",
            action(served, lambda d, f: skip_topic(served.write, d, f.get("label", ""))),
            methods=["POST"],
        ),
        Mount("/static", app=StaticFiles(directory=HERE / "static"), name="static"),
    ]
    inner = Starlette(routes=routes)
    inner.state.desks = served.desks  # closed when the server stops (cli/serve.py)
    return Guard(inner, keys, allowed_hosts(host, port))


def _topics_message(topics: list[Any]) -> str:
    return f"{len(topics)} topics: choose one to filter the list, or skip a whole topic"


def make_server(asgi: Any) -> Any:
    """Return the uvicorn server of ``asgi`` (run it with ``.run(sockets=[...])``): no
    access log, no lifespan events, at most 2 s to finish open requests on Ctrl-C.

    Ctrl-C (SIGINT) or SIGTERM stops it and ``run`` returns: the first finishes the open
    requests, a second stops at once (uvicorn's ``handle_exit``). Unlike
    ``uvicorn.Server``, the signal is not raised again once it stopped: that made
    asyncio's own Ctrl-C handler raise KeyboardInterrupt into requests still open (a
    traceback on the terminal) and left the command's ending to a late exception. The
    requests a second Ctrl-C cuts short are cancelled without uvicorn's error log."""
    import contextlib
    import logging
    import signal
    from collections.abc import Iterator
    from types import FrameType

    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            super().handle_exit(sig, frame)
            if self.force_exit:  # the open requests are cancelled: asked for, no error
                logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            signals = (signal.SIGINT, signal.SIGTERM)
            before = {sig: signal.signal(sig, self.handle_exit) for sig in signals}
            try:
                yield
            finally:
                for sig, handler in before.items():
                    signal.signal(sig, handler)

    config = uvicorn.Config(
        asgi, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
    )
    return Server(config)
