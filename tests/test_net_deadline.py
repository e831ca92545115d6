"""Online reads have a total deadline: a server or proxy that trickles its answer (a byte
at a time, each well within the per-read timeout) no longer keeps ``resolve --online``
running for ever. A real local socket server does the trickling."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

#: How long the trickling server keeps it up before it sends a whole answer: a client
#: without a total deadline gets that answer (and the tests fail), never a hang.
TRICKLE_FOR = 20.0
#: Seconds between two bytes (well within any per-read timeout used here).
BYTE_EVERY = 0.1

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"


class Trickler:
    """A TCP server answering every connection one byte every :data:`BYTE_EVERY` s: an
    endless header line (``X-Slow: aaaa...``) after a status line, then, after
    :data:`TRICKLE_FOR` s, the end of a small JSON answer."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.connections = 0
        self.accepted = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            self.accepted.set()
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        started = time.monotonic()
        try:
            conn.recv(65536)  # the request (or a proxy's CONNECT)
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: ":
                conn.sendall(bytes([byte]))
                time.sleep(BYTE_EVERY)
            while time.monotonic() - started < TRICKLE_FOR and not self.stop.is_set():
                conn.sendall(b"a")
                time.sleep(BYTE_EVERY)
            conn.sendall(b"\r\n" + ANSWER.split(b"\r\n", 1)[1])
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.fixture
def trickler() -> Iterator[Trickler]:
    server = Trickler()
    yield server
    server.close()


def test_a_trickled_answer_ends_at_the_total_deadline(trickler: Trickler) -> None:
    """Each byte comes within the 5-second read timeout; the request still ends, with
    SourceUnavailable naming the service and the deadline, once 0.5 s have passed."""
    from readinglist.errors import SourceUnavailable
    from readinglist.sources.http import HttpClient

    client = HttpClient(None, None, timeout=5.0, total=0.5)
    try:
        with pytest.raises(SourceUnavailable, match=r"Slow \(127\.0\.0\.1\).*within 0\.5 s"):
            client.get("Slow", f"http://127.0.0.1:{trickler.port}/x")
    finally:
        client.close()
    # the server's thread counts the connection once it runs: on a loaded machine that
    # can be after the client has given up
    assert trickler.accepted.wait(5)
    assert trickler.connections == 1


def test_the_deadline_puts_back_an_outer_timer_and_handler() -> None:
    """The alarm is the process's one real-time timer: one set before (by a caller) is
    running again afterwards, with its handler."""
    import signal

    from readinglist.sources.http import deadline

    fired: list[int] = []

    def outer(signum: int, _frame: object) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, outer)
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        with deadline(5.0):
            pass
        assert signal.getsignal(signal.SIGALRM) is outer
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == []


def test_resolve_online_through_a_trickling_proxy_ends(
    invoke: Callable[..., Any], trickler: Trickler, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``resolve --online`` through a proxy (``HTTPS_PROXY``) trickling a byte every
    5 s ran for ever. It now stops at the deadline with one line (exit 6), and the
    library is unchanged; on SQLite and PostgreSQL."""
    from readinglist.sources import http

    monkeypatch.setattr(http, "DEADLINE", 0.5)
    assert invoke("add", "--title", "Attention is all you need").exit_code == 0
    before = invoke("list", "--json").stdout
    proxy = f"http://127.0.0.1:{trickler.port}"
    env = {"HTTPS_PROXY": proxy, "HTTP_PROXY": proxy, "ALL_PROXY": proxy, "NO_PROXY": ""}
    result = invoke("resolve", "--online", "--service", "crossref", env=env)
    assert result.exit_code == 6, result.output
    assert "within 0.5 s" in result.stderr
    assert "Traceback" not in result.output
    assert invoke("list", "--json").stdout == before
