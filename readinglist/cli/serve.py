"""``readinglist serve``: triage in the browser, served from this machine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    import socket

from readinglist.cli._app import AppContext, pass_app
from readinglist.cli._query import (
    QUERY_HELP,
    QueryCommand,
    inbox_options,
    join_query,
    query_argument,
)

#: The port when --port is not given (0 picks a free one).
DEFAULT_PORT = 8750
LOCAL = "127.0.0.1"
#: The interpreter's switch interval while serving (seconds; ``sys.setswitchinterval``).
SWITCH_INTERVAL = 0.001


@click.command("serve", cls=QueryCommand, epilog=QUERY_HELP)
@query_argument
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port to listen on; 0 picks a free one.",
)
@click.option(
    "--host",
    metavar="ADDRESS",
    help="Address to listen on instead of 127.0.0.1 (a warning: other machines can then "
    "reach the page; the token in the address still guards it).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the browser.")
@inbox_options
@click.option("--like", metavar="TEXT", help="Rank by a description of what you want too.")
@click.option(
    "--stop-after",
    type=click.IntRange(1),
    metavar="N",
    help='Say "you may stop here" once N papers are skipped since the last wanted one.',
)
@click.option(
    "--blind",
    is_flag=True,
    help="In a shared library, hide the other readers' decisions on a paper until you "
    "have decided it (blind screening, as triage --blind).",
)
@pass_app
def serve_command(
    app: AppContext,
    query: tuple[str, ...],
    port: int,
    host: str | None,
    open_browser: bool,
    include_all: bool,
    order: str,
    like: str | None,
    stop_after: int | None,
    blind: bool,
) -> None:
    """Triage in the browser: a ranked list beside the paper, the triage keys.

    Starts a web server on this machine over the library and prints the page's
    address, with a random token that every request must carry (the page keeps it
    as a cookie). The page shows the papers still new that QUERY selects (with
    --all, every paper it selects), highest interest first, the paper with its
    abstract (math rendered), links, tags, notes, why it scores as it does and
    similar papers; the keys are triage's (t s r d, h m l, a n e, u undo, space
    later, b back, / search, o open, ? help) and g shows the topics. Every decision
    is saved at once, never over a decision made elsewhere meanwhile. --blind hides
    the other readers' decisions on a paper until you decide. Runs until Ctrl-C.

    \b
    Examples:
        readinglist serve
        readinglist serve tag:icml --open
        readinglist serve --port 9000 --stop-after 100
        readinglist --reader ana serve
        readinglist --reader ana serve --blind
    """
    import contextlib
    import sys

    from readinglist import render

    address = host or LOCAL
    sock = _listen(address, port)
    port = sock.getsockname()[1]
    app.engine(create=False)  # a missing library is an error now, not in the page
    server = None
    try:
        url = _serve_url(address, port)
        chosen = {"include_all": include_all, "order": order, "like": like, "blind": blind}
        server, link = _server(app, url, host, port, join_query(query), stop_after, chosen)
        if host is not None and host not in ("127.0.0.1", "localhost", "::1"):
            render.warn(
                f"listening on {host}: other machines can reach this page (the token guards it)"
            )
        click.echo(link)
        render.info("serving the triage page; Ctrl-C stops the server")
        sys.stdout.flush()
        if open_browser:
            import webbrowser

            webbrowser.open(link)
        # while a fit runs in the background, a request waits up to the switch interval
        # for the interpreter after each of its queries: 1 ms, not Python's 5
        sys.setswitchinterval(SWITCH_INTERVAL)
        # Ctrl-C stops the server and run returns (web.app.make_server); one that came
        # before the server listened is a KeyboardInterrupt: the same stop
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])
    finally:
        sock.close()
        if server is not None:  # the tabs' background fits write nothing from here on
            server.config.app.app.state.desks.close()
    render.info("stopped the server")


def _serve_url(address: str, port: int) -> str:
    """The page's address without its token: for a wildcard address (every interface,
    which no browser can ask for and the Host check refuses) the machine's host name."""
    from readinglist.web.security import WILDCARDS

    if address.strip("[]") in WILDCARDS:
        import socket

        address = socket.gethostname() or "127.0.0.1"
    name = f"[{address}]" if ":" in address and not address.startswith("[") else address
    return f"http://{name}:{port}/"


def _server(
    app: AppContext,
    url: str,
    host: str | None,
    port: int,
    text: str,
    stop_after: int | None,
    chosen: dict[str, Any],
) -> tuple[Any, str]:
    """Build the server of the page over the query ``text``, with the options
    ``chosen`` (:class:`readinglist.web.desk.Options`' fields); return it and the address
    with its token."""
    from readinglist import decided, render
    from readinglist.web.app import create_app, make_server
    from readinglist.web.desk import Options
    from readinglist.web.security import Secrets

    keys = Secrets()
    options = Options(
        url=app.settings.database_url,
        reader=decided.current(),
        query=text,
        stop_after=stop_after,
        **chosen,
    )
    asgi = create_app(
        app.session,
        lambda: app.session(write=False),
        options,
        host=host or LOCAL,
        port=port,
        keys=keys,
        said=render.info,
    )
    return make_server(asgi), f"{url}?token={keys.token}"


def _listen(address: str, port: int) -> socket.socket:
    """The listening socket of ``serve`` on ``address`` and ``port`` (0: a free one), with
    Nagle's algorithm off: asyncio turns it off only on sockets made with proto
    ``IPPROTO_TCP``, and ``socket.create_server``'s have proto 0, so a response's body,
    written after its headers, waited for the browser's delayed ACK (40 ms on Linux)
    every other request; accepted sockets inherit the option (Linux ``tcp(7)``).
    Raises UsageError naming the address when it cannot listen."""
    import socket

    from readinglist.errors import UsageError

    try:
        sock = socket.create_server(
            (address.strip("[]"), port),
            family=socket.AF_INET6 if ":" in address else socket.AF_INET,
        )
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError as err:
        raise UsageError(
            f"cannot listen on {address} port {port}: {err.strerror or err}"
            + ("; --port 0 picks a free port" if port else "")
        ) from err
    return sock
